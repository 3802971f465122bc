/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_submit.h: GPU contexts, DMA buffers, submission, fences, preemption and cancellation on a
 * gpuref adapter, D3DKMT-style. The calls play the roles of the D3DKMT thunks and of dxgkrnl's
 * GPU scheduler (VidSch, host/dxgk) behind them: every call reaches the miniport only through
 * its DDIs (CreateContext, SetRootPageTable, Patch, SubmitCommand, PreemptCommand,
 * CancelCommand, QueryCurrentFence, ResetFromTimeout, RestartFromTimeout, DestroyContext), in
 * the order and on the threads dxgkrnl makes them (host/dxgk/README.md, "VidSch").
 *
 * Objects:
 *   gr_context_t     a GPU context of a device (D3DKMT_CREATECONTEXT): a 32-bit handle in the
 *                    device's process, never 0, stale once destroyed
 *   gr_dma_buffer_t  a DMA buffer: host memory the device reads, which the caller fills with
 *                    commands (gpuref/gr_dma.h encoders); a handle like the above
 *   fence            a per-context 64-bit submission number (1, 2, ...) that gr_submit returns
 *                    and gr_wait takes
 *
 * A submission (gr_submission_t) is a byte range of a DMA buffer, an allocation list (handles
 * of the same device, each read or written) and a patch-location list, passed to DxgkDdiPatch.
 * A user context's packet names memory by GPU VA only (its allocations' gpu_va, its DMA
 * buffers' gpu_va): the engine runs it unprivileged and faults on a physical address or an
 * INDIRECT, and gpuref's miniport gives its context no patch locations (they would be physical
 * addresses; rtl/dma/README.md, "Privilege"): its patch_location_list_size is 0, so gr_submit
 * refuses a patch list with GR_E_RANGE. Packets of one context run in submission order;
 * contexts share the engine round-robin, preempted when a packet outlives its quantum. A packet
 * may run longer than the TDR timeout: at each timeout it is preempted and, if it moved on (a
 * command completed, or a COPY or FILL wrote more), resumes where it stopped. A packet that
 * hangs the engine (no progress through two timeouts in a row, a preemption not answered within
 * one, or an engine fault) resets the GPU: its context is lost (GR_E_DEVICE_RESET) and the other
 * contexts' work runs after the reset.
 *
 * Times are simulated cycles of the device (its DMA_TIMESTAMP counter; 100 per microsecond on
 * sim://).
 *
 * Errors: GR_E_INVALID also covers a handle that is 0, forged, stale, of another process or of
 * another device; such a call changes nothing. GR_E_UNSUPPORTED: the adapter has no DMA engine
 * (ID_CAPS.DMA 0) or its miniport reports no engine node. Thread safety as gr_alloc.h; gr_wait
 * does not block the process's other calls.
 */
#ifndef GPUREF_GR_SUBMIT_H
#define GPUREF_GR_SUBMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuref/gr_alloc.h"
#include "gpuref/gr_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t gr_context_t;
typedef uint32_t gr_dma_buffer_t;

/** Most entries of one submission's allocation list and patch-location list. */
#define GR_SUBMIT_MAX_ALLOCS 256u
#define GR_SUBMIT_MAX_PATCHES 1024u
/** Largest DMA buffer, bytes. */
#define GR_DMA_BUFFER_MAX_BYTES (16u << 20)
/** Largest private data passed to DxgkDdiCreateContext, bytes. */
#define GR_CONTEXT_MAX_PRIVATE 4096u

/** gr_alloc_ref_t.flags */
enum {
    GR_ALLOC_REF_WRITE = 1u << 0, /**< the packet writes it (DXGK_ALLOCATIONLIST.WriteOperation) */
};

/** One entry of a submission's allocation list. */
typedef struct gr_alloc_ref {
    gr_alloc_t handle; /**< an allocation handle of the submitting device */
    uint32_t flags;    /**< GR_ALLOC_REF_* */
} gr_alloc_ref_t;

/** One patch location (D3DDDI_PATCHLOCATIONLIST). */
typedef struct gr_patch_location {
    uint32_t alloc_index;  /**< index into the allocation list */
    uint32_t patch_offset; /**< byte offset in the DMA buffer: a multiple of 8, its qword inside the range */
    uint32_t alloc_offset; /**< bytes added to the allocation's address; below its size */
    uint32_t slot_id;      /**< passed to the miniport as SlotId (24 bits) */
    uint32_t driver_id;    /**< passed to the miniport as DriverId */
} gr_patch_location_t;

/** One submission. */
typedef struct gr_submission {
    gr_dma_buffer_t buffer;  /**< the DMA buffer */
    uint32_t start, end;     /**< bytes [start, end) of it hold the commands; start < end, both multiples of 8 */
    const gr_alloc_ref_t *allocs;
    uint32_t alloc_count;    /**< at most GR_SUBMIT_MAX_ALLOCS, each allocation at most once */
    const gr_patch_location_t *patches;
    uint32_t patch_count;    /**< at most GR_SUBMIT_MAX_PATCHES */
} gr_submission_t;

/** What a DMA buffer is (gr_dma_buffer_info). */
typedef struct gr_dma_buffer_info {
    void *cpu;       /**< where the caller writes commands */
    uint64_t bus;    /**< the device's bus address of byte 0 (what the miniport puts on the ring; a
                          user packet cannot name it: host space needs a privileged entry) */
    uint64_t gpu_va; /**< byte 0 in the device's GPU virtual address space (read-write): how the
                          device's own packets reach the buffer (timestamps, read-back, WAITs) */
    uint32_t size;   /**< bytes */
    uint32_t in_flight; /**< packets using it that have not retired */
} gr_dma_buffer_info_t;

/** A context's DXGK_CONTEXTINFO, as the miniport answered (gr_context_info). */
typedef struct gr_context_info {
    uint32_t dma_buffer_size;         /**< the miniport's starting DMA buffer size, bytes */
    uint32_t dma_buffer_private_size; /**< per-packet private data, bytes */
    uint32_t allocation_list_size;
    uint32_t patch_location_list_size;
    uint64_t submitted;               /**< last fence handed out (0: none) */
    uint64_t retired;                 /**< every fence up to this one has retired */
    bool lost;                        /**< lost in a GPU reset: no more submissions */
} gr_context_info_t;

/** The scheduler's knobs (gr_adapter_set_scheduling), in device cycles. */
typedef struct gr_sched_params {
    uint64_t quantum_cycles;     /**< a packet may run this long before another context's work preempts it */
    uint64_t tdr_timeout_cycles; /**< running this long without completing: preempted; twice in a row without
                                      moving on, or not preempted within it: TDR */
} gr_sched_params_t;

/** The scheduler's counters (gr_adapter_sched_stats). */
typedef struct gr_sched_stats {
    uint64_t submitted;      /**< DxgkDdiSubmitCommand calls (resubmissions included) */
    uint64_t resubmitted;    /**< ... with Flags.Resubmission */
    uint64_t patched;        /**< DxgkDdiPatch calls */
    uint64_t completed;      /**< packets that ran to completion */
    uint64_t cancelled;      /**< DxgkDdiCancelCommand calls */
    uint64_t dropped;        /**< packets removed before they were patched (no DDI) */
    uint64_t preemptions;    /**< DxgkDdiPreemptCommand calls */
    uint64_t preempted;      /**< packets taken off the hardware by a preemption */
    uint64_t tdrs;           /**< DxgkDdiResetFromTimeout calls */
    uint64_t interrupts;     /**< interrupt routine calls that claimed the interrupt */
    uint64_t dpcs;           /**< DPC routine calls */
    uint64_t fence_polls;    /**< DxgkDdiQueryCurrentFence calls */
    uint64_t fence_by_poll;  /**< fence polls after which the completed fence had moved on */
    uint64_t live_packets;   /**< packets not yet retired */
    uint64_t live_contexts;
    uint64_t threading_violations; /**< broken threading rules (debug builds) */
    uint64_t tdrs_external;  /**< resets from outside seen (the device's clock went backwards: a core
                                  reset by another program): a TDR with nobody guilty, whatever was
                                  on the hardware retired with GR_E_DEVICE_RESET */
    uint64_t link_lost;      /**< 1 once the device is lost: every clock read failed for the link's
                                  dead time (gr_link_dead_ms); every call then fails with GR_E_LINK */
} gr_sched_stats_t;

/**
 * Creates a GPU context (DxgkDdiCreateContext on node 0 with VirtualAddressing, then
 * DxgkDdiSetRootPageTable with the device's GPU virtual address space).
 * @param private_data  passed to the miniport (may be NULL with private_size 0)
 * @param[out] out_context  untouched on failure
 * @return GR_OK, GR_E_INVALID (bad argument; the miniport refused), GR_E_UNSUPPORTED (no engine,
 *         or the miniport wants DMA buffers in a segment), GR_E_NO_MEMORY
 */
GR_API gr_status_t gr_context_create(gr_gpu_device_t *device, const void *private_data, uint32_t private_size,
                                     gr_context_t *out_context);

/**
 * Destroys a context: its packets that have not run are cancelled (those on the hardware are
 * preempted off it first; DxgkDdiCancelCommand for each patched one), then
 * DxgkDdiDestroyContext. Waiters on its fences return GR_E_CANCELLED.
 * @return GR_OK, GR_E_INVALID
 */
gr_status_t gr_context_destroy(gr_gpu_device_t *device, gr_context_t context);

/** The context's DXGK_CONTEXTINFO and fence state. @param[out] out_info untouched on failure */
GR_API gr_status_t gr_context_info(gr_gpu_device_t *device, gr_context_t context, gr_context_info_t *out_info);

/**
 * Creates a DMA buffer: zeroed host memory the device can read (gr_link dma_alloc).
 * @param bytes  0: the context's DmaBufferSize; else rounded up to 8, at most GR_DMA_BUFFER_MAX_BYTES
 * @param[out] out_buffer  untouched on failure
 * @return GR_OK, GR_E_INVALID, GR_E_RANGE (too big), GR_E_NO_MEMORY
 */
GR_API gr_status_t gr_dma_buffer_create(gr_gpu_device_t *device, gr_context_t context, uint32_t bytes,
                                        gr_dma_buffer_t *out_buffer);

/** @param[out] out_info untouched on failure. @return GR_OK, GR_E_INVALID */
GR_API gr_status_t gr_dma_buffer_info(gr_gpu_device_t *device, gr_dma_buffer_t buffer, gr_dma_buffer_info_t *out_info);

/**
 * Frees a DMA buffer.
 * @return GR_OK, GR_E_INVALID, GR_E_BUSY (a packet using it has not retired; nothing changed)
 */
gr_status_t gr_dma_buffer_destroy(gr_gpu_device_t *device, gr_dma_buffer_t buffer);

/**
 * Queues a submission on a context. The allocation list and patches are copied; the DMA buffer
 * must not be changed or destroyed until the fence retires.
 * Everything is checked before anything is queued: a refusal hands out no fence, records no
 * timeline event, patches nothing and calls no DDI. The engine runs whole 8-byte commands from
 * an 8-byte aligned address, so start and end must be multiples of 8, and so must every
 * patch_offset (its qword inside [start, end)). Protected content never reaches what the CPU can
 * read: a list that names a Protected, HardwareProtected or VPR allocation may write only
 * allocations that are protected too.
 * Every listed allocation is made resident first (VidMm pages evicted ones in through paging
 * buffers on the engine, evicting others if VRAM is short; gr_alloc.h, "Residency"), and stays
 * resident until the packet retires; so gr_submit may wait for earlier packets to free room.
 * @param[out] out_fence  the submission's fence; untouched on failure
 * @return GR_OK; GR_E_INVALID (NULL submission or out_fence; a list pointer NULL with a count;
 *         bad handle: context, buffer or allocation; an allocation listed twice or written through
 *         a read-only open; unknown flags; a patch naming no listed allocation, an alloc_offset
 *         not below its size, or a slot_id over 24 bits; protected content written to an
 *         allocation that is not protected); GR_E_RANGE (range empty, past the buffer, or start
 *         or end not a multiple of 8; a patch offset not a multiple of 8 or its qword outside the
 *         range; more entries than GR_SUBMIT_MAX_* or the context's list sizes, so any patch
 *         list on a context whose patch_location_list_size is 0);
 *         GR_E_DEVICE_RESET (the context was lost in a GPU reset); GR_E_NO_MEMORY (also: the
 *         listed allocations cannot all be resident at once). Nothing is queued on failure.
 */
GR_API gr_status_t gr_submit(gr_gpu_device_t *device, gr_context_t context, const gr_submission_t *submission,
                             uint64_t *out_fence);

/** timeout_cycles of gr_wait, gr_cmd_wait and gr_cmd_submit_wait: no limit. Such a wait still
 *  ends on a packet that hangs: it resets the GPU (above) and the wait answers
 *  GR_E_DEVICE_RESET. */
#define GR_WAIT_FOREVER UINT64_MAX

/**
 * Waits until a submission has retired. The device's fence record is the truth: the scheduler
 * polls DxgkDdiQueryCurrentFence as well as taking interrupts, so a lost interrupt only delays.
 * @param timeout_cycles  device cycles to wait; 0: just look; GR_WAIT_FOREVER: until it retires
 * @return GR_OK (it ran to completion), GR_E_CANCELLED (it will never run: gr_cancel, context
 *         destroyed), GR_E_DEVICE_RESET (lost in a GPU reset; also when the engine faulted on
 *         it, e.g. a physical address or an INDIRECT in it: a user packet may name GPU VAs
 *         only), GR_E_TIMEOUT (not yet), GR_E_INVALID (bad handle, a fence never handed out,
 *         or the miniport's Patch refused the packet for what placement decided)
 */
GR_API gr_status_t gr_wait(gr_gpu_device_t *device, gr_context_t context, uint64_t fence, uint64_t timeout_cycles);

/**
 * Cancels every submission of the context that has not completed: unpatched ones are dropped,
 * patched ones get DxgkDdiCancelCommand, those on the hardware are preempted off it first (any
 * that complete meanwhile stay completed). Returns when all have retired; the context stays
 * usable.
 * @param[out] out_cancelled  may be NULL: how many were cancelled or dropped
 * @return GR_OK, GR_E_INVALID, GR_E_UNSUPPORTED (no engine)
 */
GR_API gr_status_t gr_cancel(gr_gpu_device_t *device, gr_context_t context, uint32_t *out_cancelled);

/**
 * Preempts the engine now if the context has work on it (DxgkDdiPreemptCommand); the packets
 * taken off run again later (resubmitted; the one that was running resumes where it stopped). Returns when the preemption has
 * completed (or there was nothing to preempt).
 * @return GR_OK, GR_E_INVALID, GR_E_UNSUPPORTED (no engine, or the miniport is not
 *         PreemptionAware), GR_E_DEVICE_RESET (the preemption timed out and the GPU was reset)
 */
GR_API gr_status_t gr_preempt(gr_gpu_device_t *device, gr_context_t context);

/**
 * Sets the quantum and TDR timeout (0 in a field: keep it). Defaults: 200,000 and 2,000,000
 * cycles (2 ms and 20 ms at 100 MHz).
 * @return GR_OK, GR_E_INVALID (NULL), GR_E_RANGE (a TDR timeout below 10,000 cycles)
 */
GR_API gr_status_t gr_adapter_set_scheduling(gr_adapter_t *adapter, const gr_sched_params_t *params);

/** @param[out] out_stats untouched on failure. @return GR_OK, GR_E_INVALID */
GR_API gr_status_t gr_adapter_sched_stats(gr_adapter_t *adapter, gr_sched_stats_t *out_stats);

/**
 * The device's cycle counter (DMA_TIMESTAMP), as the scheduler reads it.
 * @return GR_OK, GR_E_INVALID, GR_E_UNSUPPORTED (no engine), link errors
 */
GR_API gr_status_t gr_adapter_cycles(gr_adapter_t *adapter, uint64_t *out_cycles);

/* ---- the scheduler's timeline ---------------------------------------------------------------- */

/**
 * What a timeline event is (gr_sched_event_t.kind). Each is recorded when VidSch acts or learns
 * it, in that order; the fields an event fills are listed with it.
 */
typedef enum gr_sched_event_kind {
    GR_SCHED_EV_SUBMIT = 1,      /**< DxgkDdiSubmitCommand of a packet (packet fields) */
    GR_SCHED_EV_RESUBMIT,        /**< ... of one that was on the hardware before: preempted, or put back by
                                      a TDR of another context (Flags.Resubmission; a new fence id) */
    GR_SCHED_EV_COMPLETE,        /**< the packet ran to completion and retired (gr_wait: GR_OK) */
    GR_SCHED_EV_PREEMPT,         /**< DxgkDdiPreemptCommand: preempt_fence, arg = gr_sched_preempt_reason_t;
                                      packet fields: the head of the hardware queue (if any) */
    GR_SCHED_EV_PREEMPTED,       /**< the engine's answer (DMA_PREEMPTED) to that request: preempt_fence,
                                      completed = its LastCompletedFenceId, arg = packets taken off the
                                      hardware; packet fields: the first of them (if any) */
    GR_SCHED_EV_CANCEL,          /**< a patched packet that will never run: DxgkDdiCancelCommand (arg 1; 0
                                      when the miniport is not CancelCommandAware); status: its result */
    GR_SCHED_EV_DROP,            /**< a packet removed before it was patched: no DDI (fence 0); status */
    GR_SCHED_EV_FAULT,           /**< the engine faulted (DMA_FAULTED, DMA_PAGE_FAULTED): a TDR follows;
                                      fence: the faulted one if known, with its packet's fields */
    GR_SCHED_EV_ENGINE_TIMEOUT,  /**< the engine's watchdog (GPU_ENGINE_TIMEOUT): a TDR follows */
    GR_SCHED_EV_PREEMPT_TIMEOUT, /**< a preemption not answered within the TDR timeout: a TDR follows;
                                      preempt_fence, packet fields of the head of the hardware queue */
    GR_SCHED_EV_TDR,             /**< a TDR begins (DxgkDdiResetFromTimeout next); packet fields: the one
                                      blamed, if any (its context is lost) */
} gr_sched_event_kind_t;

/** Why VidSch preempted (gr_sched_event_t.arg of GR_SCHED_EV_PREEMPT). */
typedef enum gr_sched_preempt_reason {
    GR_SCHED_PREEMPT_QUANTUM = 1,  /**< the packet outlived its quantum and another context has work */
    GR_SCHED_PREEMPT_EXPLICIT = 2, /**< gr_preempt */
    GR_SCHED_PREEMPT_CANCEL = 3,   /**< gr_cancel, or a context, device, process or adapter going away */
    GR_SCHED_PREEMPT_TDR = 4,      /**< the packet made no progress for the TDR timeout */
    GR_SCHED_PREEMPT_PAGING = 5,   /**< VidMm's paging work is waiting (residency: it runs first) */
} gr_sched_preempt_reason_t;

/** One event of the scheduler's timeline (gr_adapter_timeline). Fields an event does not use are 0. */
typedef struct gr_sched_event {
    uint64_t index;         /**< the adapter's event number: 0, 1, 2, ... with no gaps */
    uint64_t cycles;        /**< device cycles (DMA_TIMESTAMP) of the scheduler's latest clock reading
                                 when it recorded the event (it reads once a pass, so at most a
                                 pass early); never less than the previous event's */
    uint32_t kind;          /**< gr_sched_event_kind_t */
    gr_context_t context;   /**< the packet's context: a handle of the process that created it (0 on
                                 a packet event: one of VidMm's paging packets, which have none) */
    uint64_t seq;           /**< the packet's fence as gr_submit returned it */
    uint32_t fence;         /**< the packet's SubmissionFenceId (its last Patch's; 0 if never patched) */
    uint32_t preempt_fence; /**< PreemptionFenceId (PREEMPT, PREEMPTED, PREEMPT_TIMEOUT) */
    uint32_t completed;     /**< the last SubmissionFenceId known completed at the event */
    uint32_t arg;           /**< per kind, as listed there */
    int32_t status;         /**< CANCEL, DROP: the result gr_wait gives the packet (gr_status_t) */
    uint32_t hw_queue;      /**< packets in the hardware queue right after the event */
} gr_sched_event_t;

/** Events an adapter keeps; older ones are overwritten. */
#define GR_SCHED_TIMELINE_CAP 2048u

/**
 * Reads the adapter's scheduler timeline: the events numbered since and after that the ring
 * still holds, oldest first. Recording is always on and costs a few stores per event. Read
 * incrementally by passing the last *out_next; the first event's index above since says how
 * many were overwritten before they were read. A cap of 0 reads nothing and gives *out_next
 * the next event's number (a mark to read from later).
 * @param since  first event number wanted (0: the oldest kept)
 * @param[out] out_events  room for cap events (may be NULL when cap is 0)
 * @param[out] out_n  events written
 * @param[out] out_next  may be NULL: the number to pass as since next time (after the last event
 *                       written; with cap 0 or nothing newer, the next event's number)
 * @return GR_OK, GR_E_INVALID (NULL adapter or out_n, or out_events NULL with cap > 0),
 *         GR_E_RANGE (since is past the next event's number). Outputs untouched on failure.
 */
GR_API gr_status_t gr_adapter_timeline(gr_adapter_t *adapter, uint64_t since, gr_sched_event_t *out_events,
                                       size_t cap, size_t *out_n, uint64_t *out_next);

/** A kind's name ("submit", "preempted", "tdr", ...); "?" for an unknown kind. */
const char *gr_sched_event_name(uint32_t kind);

/** A preemption reason's name ("quantum", "explicit", "cancel", "tdr"); "?" when unknown. */
const char *gr_sched_preempt_reason_name(uint32_t reason);

#ifdef __cplusplus
}
#endif

#endif
