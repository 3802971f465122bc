/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_broker_wire.h: the messages between a broker:// client and gpuref-broker (host/broker/,
 * whose README.md describes the format, the ownership rules and the cleanup of a client that
 * goes away). They cross the D3DKMT-thunk boundary: public calls of gr_alloc.h, gr_submit.h and
 * gr_device.h, one request and one answer each, never the link protocol below the driver.
 *
 * A frame: an 8-byte header then `bytes` of payload.
 *   request  {uint32 op; uint32 bytes}   payload: the op's fixed part, then its tail
 *   answer   {int32 status; uint32 bytes} payload: GR_OK: the op's fixed answer, then its tail;
 *                                         an error: the broker's words on it (UTF-8, no NUL)
 * Both ends run on one machine (a Unix socket), so the fields are the host's native layout;
 * HELLO checks the magic, the version and the layout signature, and a mismatch ends the
 * connection before any other op.
 */
#ifndef GPUREF_GR_BROKER_WIRE_H
#define GPUREF_GR_BROKER_WIRE_H

#include <stdint.h>

#include "gpuref/gr_alloc.h"
#include "gpuref/gr_submit.h"
#include "gr_link.h"

#define GR_BRK_MAGIC 0x4b524247u /* "GBRK" */
#define GR_BRK_VERSION 2u
/* The most one frame carries: a lock's or a DMA buffer's bytes included. */
#define GR_BRK_MAX_PAYLOAD (64u << 20)
/* The link capabilities a broker passes on to its clients (what a register-level program asks
 * of the link: gr_conformance's checks, gr_device_wait_irq). */
#define GR_BRK_LINK_CAPS                                                                           \
    (GR_LINK_CAP_SIMULATED | GR_LINK_CAP_IRQ | GR_LINK_CAP_POSTED_WRITES | GR_LINK_CAP_READ_ERRORS_ALL_ONES)
/* Segment ranges one SEGMENT_WALK answer carries. */
#define GR_BRK_MAX_RANGES 65536u

/* The layout signature: the sizes of every public struct that crosses the socket. */
#define GR_BRK_LAYOUT                                                                              \
    ((uint32_t)(sizeof(gr_alloc_info_t) ^ (sizeof(gr_segment_info_t) << 8) ^                       \
                (sizeof(gr_adapter_stats_t) << 16) ^ (sizeof(gr_context_info_t) << 4) ^            \
                (sizeof(gr_dma_buffer_info_t) << 12) ^ (sizeof(gr_sched_stats_t) << 20) ^          \
                (sizeof(gr_sched_event_t) << 24) ^ (sizeof(gr_gpu_probe_t) << 2) ^                 \
                (sizeof(gr_patch_location_t) << 6)))

typedef enum gr_brk_op {
    GR_BRK_HELLO = 1,
    GR_BRK_REG_READ,
    GR_BRK_REG_WRITE,
    GR_BRK_PROCESS_CREATE,
    GR_BRK_PROCESS_DESTROY,
    GR_BRK_DEVICE_CREATE,
    GR_BRK_DEVICE_DESTROY,
    GR_BRK_SEGMENTS,
    GR_BRK_SEGMENT_WALK,
    GR_BRK_ADAPTER_STATS,
    GR_BRK_ALLOC_CREATE,
    GR_BRK_ALLOC_OPEN,
    GR_BRK_ALLOC_CLOSE,
    GR_BRK_ALLOC_DESTROY,
    GR_BRK_ALLOC_LOCK,
    GR_BRK_ALLOC_UNLOCK,
    GR_BRK_ALLOC_QUERY,
    GR_BRK_ALLOC_RESIDENT,
    GR_BRK_ALLOC_EVICT,
    GR_BRK_GPU_PROBE,
    GR_BRK_CONTEXT_CREATE,
    GR_BRK_CONTEXT_DESTROY,
    GR_BRK_CONTEXT_INFO,
    GR_BRK_DMABUF_CREATE,
    GR_BRK_DMABUF_INFO,
    GR_BRK_DMABUF_DESTROY,
    GR_BRK_SUBMIT,
    GR_BRK_WAIT,
    GR_BRK_CANCEL,
    GR_BRK_PREEMPT,
    GR_BRK_SET_SCHEDULING,
    GR_BRK_SCHED_STATS,
    GR_BRK_CYCLES,
    GR_BRK_TIMELINE,
    GR_BRK_DMABUF_READ,
    GR_BRK_AP_READ,
    GR_BRK_AP_WRITE,
    GR_BRK_WAIT_IRQ,
    GR_BRK_RAW_RELEASE,
    GR_BRK_TEST_RESERVE,
    GR_BRK_TEST_UNRESERVE,
    GR_BRK_OP_COUNT
} gr_brk_op_t;

typedef struct gr_brk_req_hdr {
    uint32_t op;
    uint32_t bytes;
} gr_brk_req_hdr_t;

typedef struct gr_brk_rsp_hdr {
    int32_t status;
    uint32_t bytes;
} gr_brk_rsp_hdr_t;

/* HELLO: the first request. */
typedef struct gr_brk_hello {
    uint32_t magic, version, layout;
    uint32_t pid; /* the client's process id (the broker reads SO_PEERCRED; this is for logs) */
} gr_brk_hello_t;
typedef struct gr_brk_hello_rsp {
    uint32_t magic, version, layout;
    uint32_t pid;       /* the broker's */
    uint32_t link_caps; /* GR_LINK_CAP_SIMULATED of the device behind it, else 0 */
    uint32_t client;    /* this connection's number in the broker's log */
    char device[192];   /* the broker's link, as gr_link_describe says it */
} gr_brk_hello_rsp_t;

/* Most requests name objects of the connection: a process or device id the broker handed out
 * (1, 2, ...: the connection's own, never another's) and a dxgk handle of that process. */
typedef struct gr_brk_obj {
    uint32_t id;     /* process (PROCESS_DESTROY, DEVICE_CREATE) or device id */
    uint32_t handle; /* allocation, context or DMA buffer handle; shared handle (ALLOC_OPEN) */
    uint32_t a, b;   /* per op, below */
    uint64_t x, y;   /* per op, below */
} gr_brk_obj_t;
/*   REG_READ/REG_WRITE     a = offset, b = value (write)           -> uint32 value (read)
 *   AP_READ                x = BAR1 offset, y = bytes               -> the bytes
 *   AP_WRITE               x = BAR1 offset; tail: the bytes
 *   WAIT_IRQ               a = timeout in us                        -> uint32 raised
 *                          REG_WRITE, AP_* and WAIT_IRQ are raw access: the first one takes the
 *                          device for the connection (the broker stops its driver stack) when
 *                          nobody else uses it; RAW_RELEASE (or the connection's end) gives it
 *                          back (the driver stack restarts) and answers once it has
 *   TEST_RESERVE           a = segment, b = 1 the whole segment; tail: uint64 lo, hi, leave bytes
 *                          (VidMm's test hook gr_vidmm_test_reserve_range); TEST_UNRESERVE: -
 *   PROCESS_CREATE         -                                       -> uint32 id
 *   DEVICE_CREATE          id = process                            -> uint32 id
 *   SEGMENTS               a = max                                 -> uint32 count, gr_segment_info_t[count]
 *   SEGMENT_WALK           a = segment                             -> gr_brk_range_t[]
 *   ALLOC_CREATE           id, a = count, b = resource flags, x = 1 when a resource private part is
 *                          given; tail: uint32 sizes[count + 1] (the resource's first), then the
 *                          private data in that order            -> uint32 shared, uint32 handles[count]
 *   ALLOC_OPEN             id, handle = shared, a = flags, b = subresource, x = max
 *                                                                  -> uint32 count, gr_alloc_info_t, handles[count]
 *   ALLOC_LOCK             id, handle, a = flags, b = 1 whole allocation (gr_alloc_lock), x = offset, y = bytes
 *                                                                  -> uint64 bytes, the contents (none with DISCARD)
 *   ALLOC_UNLOCK           id, handle; tail: the new contents (none after a READ_ONLY lock)
 *   ALLOC_RESIDENT/EVICT   id, a = count; tail: handles[count]
 *   GPU_PROBE              id, a = write, x = va                    -> gr_gpu_probe_t
 *   CONTEXT_CREATE         id; tail: the private data              -> uint32 context
 *   CONTEXT_INFO           id, handle                              -> gr_context_info_t
 *   DMABUF_CREATE          id, handle = context, a = bytes         -> uint32 buffer
 *   DMABUF_INFO            id, handle                              -> gr_dma_buffer_info_t (cpu NULL)
 *   SUBMIT                 id, handle = context; tail: gr_brk_submit_t, refs, patches, then bytes
 *                          [start, end) of the client's copy of the DMA buffer  -> uint64 fence
 *   WAIT                   id, handle = context, x = fence, y = timeout cycles
 *   CANCEL                 id, handle = context                    -> uint32 cancelled
 *   SET_SCHEDULING         x = quantum, y = TDR timeout (refused: the broker's own setting)
 *   SCHED_STATS, ADAPTER_STATS, CYCLES                             -> the struct, uint64 cycles
 *   TIMELINE               x = since, a = cap                      -> uint64 n, uint64 next, events[n]
 *   DMABUF_READ            id, handle                              -> the DMA buffer's bytes, all of them
 *                          (after a wait: what the device wrote into it, timestamps and read-backs)
 */
typedef struct gr_brk_submit {
    uint32_t buffer, start, end, alloc_count, patch_count, pad;
} gr_brk_submit_t;

typedef struct gr_brk_range {
    uint64_t offset, size;
    uint32_t kind, pad;
} gr_brk_range_t;

#endif
