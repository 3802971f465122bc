/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_easy.h: the common path in a few calls, over the DDI-shaped API of gr_alloc.h and
 * gr_submit.h.
 *
 *   gr_session_t   an adapter, a process, a device in it and one GPU context, opened together
 *   gr_buffer_create / gr_surface_create
 *                  an allocation from a size (or width, height, format) and GR_BUF_* flags; the
 *                  gr_alloc_private_t the miniport reads is filled in here
 *   gr_buffer_write / gr_buffer_read
 *                  bytes in and out through a CPU lock of the pages they touch
 *   gr_cmd_t       a command writer: a DMA buffer of its own, FILL and COPY named by allocation
 *                  handle and offset (the GPU VA is looked up, the range checked), and the
 *                  allocation list it builds as the commands name allocations (written ones
 *                  marked so); gr_cmd_submit_wait submits and waits in one call
 *
 * Every call here is made of public calls only (gr_adapter_open, gr_alloc_create,
 * gr_alloc_query, gr_alloc_lock_range, gr_dma_buffer_create, the gr_dma.h encoders, gr_submit,
 * gr_wait, ...); handles it gives are ordinary gr_alloc_t, gr_context_t and gr_gpu_device_t,
 * usable with those calls too, and a program may mix both layers (examples/fill_copy.c is the
 * DDI-shaped path, examples/easy_copy.c this one).
 *
 * Errors: every call returns a gr_status_t and, on failure, changes nothing (a writer keeps
 * what it had recorded; out_ pointers are untouched) and leaves the detail in gr_last_error()
 * (gr_status.h): which argument, which range, which handle. Not thread-safe per object: one
 * thread at a time uses a given session or writer (different ones may run concurrently, as
 * gr_alloc.h allows for processes).
 */
#ifndef GPUREF_GR_EASY_H
#define GPUREF_GR_EASY_H

#include <stdint.h>

#include "gpuref/gr_alloc.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_status.h"
#include "gpuref/gr_submit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- a session -------------------------------------------------------------------------------- */

typedef struct gr_session gr_session_t;

/**
 * Opens the device at a URI and makes what a program needs to use it: the adapter
 * (gr_adapter_open), a process (gr_process_create), a device in it (gr_gpu_device_create) and
 * one GPU context (gr_context_create).
 * @param uri  NULL: $GR_DEVICE, else "sim://"
 * @param[out] out_session  untouched on failure
 * @return GR_OK, GR_E_INVALID (out_session NULL), or what the failing call returned (what it
 *         made before is undone; gr_last_error() names the step)
 */
GR_API gr_status_t gr_session_open(const char *uri, gr_session_t **out_session);

/**
 * Destroys the context, the device (its allocations with it: gr_gpu_device_destroy), the
 * process and the adapter. A command writer of the session must be destroyed first. NULL is
 * allowed.
 */
void gr_session_close(gr_session_t *session);

/** The session's adapter (counters, timeline, scheduling knobs); NULL for NULL. */
gr_adapter_t *gr_session_adapter(gr_session_t *session);
/** The session's process (another device in it: gr_gpu_device_create); NULL for NULL. */
gr_process_t *gr_session_process(gr_session_t *session);
/** The session's device: what gr_buffer_create, gr_cmd_create and gr_alloc_* take; NULL for NULL. */
gr_gpu_device_t *gr_session_device(gr_session_t *session);
/** The session's GPU context: what gr_cmd_create and gr_submit take; 0 for NULL. */
gr_context_t gr_session_context(gr_session_t *session);

/* ---- buffers and surfaces --------------------------------------------------------------------- */

/** gr_buffer_create and gr_surface_create flags; none: the GPU alone reaches it (any VRAM segment). */
enum {
    GR_BUF_CPU_READ = 1u << 0,  /**< the CPU reads it back (gr_buffer_read): CPU-visible, cached */
    GR_BUF_CPU_WRITE = 1u << 1, /**< the CPU writes it (gr_buffer_write): CPU-visible */
};
/** Every gr_buffer_create flag. */
#define GR_BUF_ALL_FLAGS 0x3u

/** Largest buffer gr_buffer_create makes (the miniport's limit for a buffer): 4 GiB. */
#define GR_BUFFER_MAX_BYTES (4ull << 30)

/**
 * Creates a linear buffer (gr_alloc_create of one allocation with a gr_alloc_private_t of kind
 * GR_ALLOC_KIND_BUFFER). Its bytes are zero until written (VRAM never written reads 0 on sim://;
 * do not rely on it elsewhere).
 * @param bytes  1..GR_BUFFER_MAX_BYTES (the miniport rounds the allocation up to whole pages)
 * @param flags  GR_BUF_* bits
 * @param[out] out_alloc  untouched on failure
 * @return GR_OK, GR_E_INVALID (NULL argument, unknown flag), GR_E_RANGE (bytes 0 or above
 *         GR_BUFFER_MAX_BYTES), GR_E_NO_MEMORY (no segment has room), as gr_alloc_create
 */
GR_API gr_status_t gr_buffer_create(gr_gpu_device_t *device, uint64_t bytes, uint32_t flags, gr_alloc_t *out_alloc);

/**
 * Creates a 2D surface of one mip level and one slice (GR_ALLOC_KIND_SURFACE2D).
 * @param width, height  1..16384 texels
 * @param format  a D3DDDIFORMAT value (d3dkmddi.h) that the miniport accepts (host/kmd/README.md:
 *                A8R8G8B8, X8R8G8B8, A8B8G8R8, X8B8G8R8, R8G8B8, R5G6B5, A8, R8); 0: A8R8G8B8
 * @param flags  GR_BUF_* bits
 * @param[out] out_alloc  untouched on failure
 * @return GR_OK, GR_E_INVALID (NULL, unknown flag, a format the miniport refuses), GR_E_RANGE
 *         (width or height 0 or above 16384), GR_E_NO_MEMORY, as gr_alloc_create
 */
GR_API gr_status_t gr_surface_create(gr_gpu_device_t *device, uint32_t width, uint32_t height, uint32_t format,
                                     uint32_t flags, gr_alloc_t *out_alloc);

/**
 * Copies bytes into an allocation made with GR_BUF_CPU_WRITE (or any CPU-writable one) through a
 * lock of the pages they touch (gr_alloc_lock_range, gr_alloc_unlock).
 * @return GR_OK, GR_E_INVALID (NULL src, a bad handle, not CPU-writable), GR_E_RANGE (bytes 0, or
 *         [offset, offset + bytes) not inside the allocation), GR_E_BUSY (locked already), as
 *         gr_alloc_lock_range; nothing is written on failure before the unlock
 */
GR_API gr_status_t gr_buffer_write(gr_gpu_device_t *device, gr_alloc_t alloc, uint64_t offset, const void *src,
                                   uint64_t bytes);

/**
 * Copies bytes out of an allocation made with GR_BUF_CPU_READ (or any CPU-readable one) through
 * a read-only lock of the pages they touch.
 * @param[out] dst  bytes long; untouched on failure
 * @return as gr_buffer_write
 */
GR_API gr_status_t gr_buffer_read(gr_gpu_device_t *device, gr_alloc_t alloc, uint64_t offset, void *dst,
                                  uint64_t bytes);

/* ---- the command writer ----------------------------------------------------------------------- */

typedef struct gr_cmd gr_cmd_t;

/** What a command writer holds (gr_cmd_info). */
typedef struct gr_cmd_info {
    uint32_t capacity;    /**< bytes of its DMA buffer */
    uint32_t used;        /**< bytes of commands recorded */
    uint32_t alloc_count; /**< entries of its allocation list */
    bool in_flight;       /**< submitted and not yet known retired (gr_cmd_wait) */
    uint64_t fence;       /**< the last submission's fence (0: none yet) */
} gr_cmd_info_t;

/** Default size of a writer's DMA buffer: room for 1,000 COPY or 1,300 FILL commands. */
#define GR_CMD_DEFAULT_BYTES 32768u

/**
 * Creates a command writer on a context: a DMA buffer (gr_dma_buffer_create) of that many bytes
 * and an empty allocation list.
 * @param bytes  0: GR_CMD_DEFAULT_BYTES; else 8..GR_DMA_BUFFER_MAX_BYTES (rounded up to 8)
 * @param[out] out_cmd  untouched on failure
 * @return GR_OK, GR_E_INVALID (NULL, a bad context handle), GR_E_RANGE (bytes past the limit),
 *         GR_E_NO_MEMORY, as gr_dma_buffer_create
 */
GR_API gr_status_t gr_cmd_create(gr_gpu_device_t *device, gr_context_t context, uint32_t bytes, gr_cmd_t **out_cmd);

/**
 * Frees the writer and its DMA buffer.
 * @return GR_OK, GR_E_INVALID (NULL), GR_E_BUSY (in flight: gr_cmd_wait first; nothing changed)
 */
gr_status_t gr_cmd_destroy(gr_cmd_t *cmd);

/**
 * Records a FILL: the engine repeats a 32-bit pattern over bytes of dst from offset, through
 * dst's GPU VA. dst joins the allocation list as written.
 * @return GR_OK; GR_E_INVALID (NULL writer, dst not a live allocation of the writer's device or
 *         opened read-only); GR_E_RANGE (bytes 0, the range not inside dst, or no room left in
 *         the writer or its allocation list); GR_E_ALIGN (offset or bytes not a multiple of 8:
 *         the engine moves whole qwords); GR_E_BUSY (in flight). Nothing is recorded on failure.
 */
GR_API gr_status_t gr_cmd_fill(gr_cmd_t *cmd, gr_alloc_t dst, uint64_t offset, uint64_t bytes, uint32_t pattern);

/**
 * Records a COPY of bytes from src at src_offset to dst at dst_offset, both through their GPU
 * VAs. src joins the allocation list as read (unless written by another command), dst as
 * written. src and dst may be one allocation if the ranges do not overlap.
 * @return as gr_cmd_fill; GR_E_INVALID also for overlapping ranges of one allocation
 */
GR_API gr_status_t gr_cmd_copy(gr_cmd_t *cmd, gr_alloc_t src, uint64_t src_offset, gr_alloc_t dst,
                               uint64_t dst_offset, uint64_t bytes);

/**
 * Adds an allocation to the list without a command of this layer naming it: for commands a
 * program writes itself through gr_cmd_writer (gr_dma.h encoders). Written at least once:
 * GR_ALLOC_REF_WRITE.
 * @param flags  0 or GR_ALLOC_REF_WRITE
 * @return GR_OK, GR_E_INVALID (as gr_cmd_fill; an unknown flag; a write to a read-only open),
 *         GR_E_RANGE (the list is full), GR_E_BUSY (in flight)
 */
GR_API gr_status_t gr_cmd_use(gr_cmd_t *cmd, gr_alloc_t alloc, uint32_t flags);

/**
 * The writer's gr_dma.h encoder state, for commands this layer has no call for (TIMESTAMP,
 * WAIT, ...): they go after those recorded so far. A command that did not fit sets its overflow
 * flag, and gr_cmd_submit then refuses (GR_E_RANGE) until gr_cmd_reset. NULL for NULL or while
 * in flight.
 */
gr_dma_writer_t *gr_cmd_writer(gr_cmd_t *cmd);

/**
 * Forgets what was recorded (commands and allocation list), keeping the DMA buffer.
 * @return GR_OK, GR_E_INVALID (NULL), GR_E_BUSY (in flight)
 */
GR_API gr_status_t gr_cmd_reset(gr_cmd_t *cmd);

/**
 * Submits what was recorded as one packet (gr_submit with the writer's allocation list). The
 * writer is then in flight: it records nothing until gr_cmd_wait has seen the packet retire.
 * @param[out] out_fence  may be NULL: the packet's fence (for gr_wait, gr_cancel, the timeline)
 * @return GR_OK; GR_E_INVALID (NULL writer, nothing recorded); GR_E_RANGE (a command written
 *         through gr_cmd_writer did not fit); GR_E_BUSY (in flight); as gr_submit (nothing queued)
 */
GR_API gr_status_t gr_cmd_submit(gr_cmd_t *cmd, uint64_t *out_fence);

/**
 * Waits for the writer's packet to retire (gr_wait). Unless the answer is GR_E_TIMEOUT (completed,
 * cancelled, lost in a reset, or a fence gr_wait refuses: its context destroyed), the writer is
 * empty again and records anew.
 * @param timeout_cycles  device cycles (100 a microsecond on sim://); 0: just look;
 *                        GR_WAIT_FOREVER (gr_submit.h): until it retires
 * @return GR_OK (it ran to completion), GR_E_TIMEOUT (not yet: still in flight),
 *         GR_E_CANCELLED, GR_E_DEVICE_RESET, GR_E_INVALID (NULL, nothing in flight; or gr_wait's)
 */
GR_API gr_status_t gr_cmd_wait(gr_cmd_t *cmd, uint64_t timeout_cycles);

/**
 * gr_cmd_submit, then gr_cmd_wait: the recorded commands run to completion (or the status says
 * why not).
 * @return as gr_cmd_submit and gr_cmd_wait
 */
GR_API gr_status_t gr_cmd_submit_wait(gr_cmd_t *cmd, uint64_t timeout_cycles);

/** What the writer holds. @param[out] out_info untouched on failure. @return GR_OK, GR_E_INVALID */
GR_API gr_status_t gr_cmd_info(const gr_cmd_t *cmd, gr_cmd_info_t *out_info);

/**
 * The writer's allocation list as it stands, in the order allocations were first named.
 * @param[out] out_refs  room for max entries (may be NULL with max 0)
 * @param[out] out_count  entries in the list (may exceed max: then only max were written)
 * @return GR_OK, GR_E_INVALID (NULL writer or out_count, out_refs NULL with max > 0)
 */
GR_API gr_status_t gr_cmd_allocs(const gr_cmd_t *cmd, gr_alloc_ref_t *out_refs, uint32_t max, uint32_t *out_count);

#ifdef __cplusplus
}
#endif

#endif
