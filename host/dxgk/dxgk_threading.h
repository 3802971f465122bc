/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dxgk_threading.h: the WDDM threading and synchronization levels, as the OS stand-in keeps them
 * and (in debug builds) asserts them at every DDI call. Private to host/dxgk and its tests.
 *
 * Sources (learn.microsoft.com, windows-hardware/drivers/display): "Threading and
 * Synchronization Zero Level" (reentrant; never two threads of one process), "... First Level"
 * (non-reentrant classes; the GPU scheduler class is BuildPagingBuffer, Patch, PreemptCommand,
 * QueryDependentEngineGroup, QueryEngineStatus, ResetEngine, SubmitCommand), "... Third Level"
 * (one thread in the driver, hardware idle, no DMA buffer passing through the scheduler:
 * AddDevice, StartDevice, StopDevice, RemoveDevice, ResetFromTimeout, RestartFromTimeout, ...),
 * "Thread Synchronization and TDR" (ResetFromTimeout runs with no other thread in the driver,
 * but interrupts and DPCs continue), and the IRQL each DDI and callback page states.
 *
 * Two parts:
 *   - the mechanism, always on: a gate (reader-preferring rwlock) that every non-interrupt DDI
 *     holds shared and third-level DDIs hold exclusively, so nothing else enters the miniport
 *     during a reset; and the thread's modelled IRQL;
 *   - the checks, compiled in with GR_DEBUG_THREADING (defined whenever GR_DEBUG is, unless
 *     GR_DEBUG_THREADING is defined to 0): each DDI asserts its level, each callback its IRQL.
 *     A broken rule calls the violation handler (default: message on stderr, then abort()).
 * First-level serialisation itself is the caller's job (VidSch's scheduler-class lock); the
 * checker verifies it.
 */
#ifndef GPUREF_DXGK_THREADING_H
#define GPUREF_DXGK_THREADING_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuref/gr_status.h"

#if defined(GR_DEBUG) && !defined(GR_DEBUG_THREADING)
#define GR_DEBUG_THREADING 1
#endif
#if defined(GR_DEBUG_THREADING) && !GR_DEBUG_THREADING
#undef GR_DEBUG_THREADING
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Threading levels (and the two interrupt-time kinds). */
typedef enum dxgk_level {
    DXGK_LEVEL_ZERO = 0,   /**< reentrant */
    DXGK_LEVEL_FIRST = 1,  /**< non-reentrant within its class */
    DXGK_LEVEL_THIRD = 3,  /**< alone in the driver, GPU idle */
    DXGK_LEVEL_ISR = 10,   /**< DxgkDdiInterruptRoutine: DIRQL, may run during a third-level call */
    DXGK_LEVEL_DPC = 11,   /**< DxgkDdiDpcRoutine: DISPATCH_LEVEL, likewise */
} dxgk_level_t;

/** First-level classes (only the GPU scheduler class is used here). */
typedef enum dxgk_class {
    DXGK_CLASS_NONE = 0,
    DXGK_CLASS_SCHEDULER = 1,
    DXGK_CLASS_COUNT
} dxgk_class_t;

/** Modelled IRQLs. */
typedef enum dxgk_irql {
    DXGK_PASSIVE = 0,
    DXGK_DISPATCH = 2,
    DXGK_DIRQL = 5,
} dxgk_irql_t;

/*
 * Every DDI (and gpuref stand-in) the OS calls: X(id, name, level, class, irql).
 * Levels as documented; where a page is silent the reading is written next to it.
 */
#define DXGK_DDI_LIST(X)                                                                                   \
    X(START_DEVICE, "DxgkDdiStartDevice", DXGK_LEVEL_THIRD, DXGK_CLASS_NONE, DXGK_PASSIVE)               \
    X(STOP_DEVICE, "DxgkDdiStopDevice", DXGK_LEVEL_THIRD, DXGK_CLASS_NONE, DXGK_PASSIVE)                 \
    /* gr_kmd_set_vpr: programs the VPR as part of start and stop */                                     \
    X(SET_VPR, "gr_kmd_set_vpr", DXGK_LEVEL_THIRD, DXGK_CLASS_NONE, DXGK_PASSIVE)                         \
    X(QUERY_ADAPTER_INFO, "DxgkDdiQueryAdapterInfo", DXGK_LEVEL_ZERO, DXGK_CLASS_NONE, DXGK_PASSIVE)      \
    X(CREATE_DEVICE, "DxgkDdiCreateDevice", DXGK_LEVEL_ZERO, DXGK_CLASS_NONE, DXGK_PASSIVE)               \
    X(DESTROY_DEVICE, "DxgkDdiDestroyDevice", DXGK_LEVEL_ZERO, DXGK_CLASS_NONE, DXGK_PASSIVE)             \
    X(CREATE_ALLOCATION, "DxgkDdiCreateAllocation", DXGK_LEVEL_ZERO, DXGK_CLASS_NONE, DXGK_PASSIVE)       \
    X(OPEN_ALLOCATION, "DxgkDdiOpenAllocation", DXGK_LEVEL_ZERO, DXGK_CLASS_NONE, DXGK_PASSIVE)           \
    X(CLOSE_ALLOCATION, "DxgkDdiCloseAllocation", DXGK_LEVEL_ZERO, DXGK_CLASS_NONE, DXGK_PASSIVE)         \
    X(DESTROY_ALLOCATION, "DxgkDdiDestroyAllocation", DXGK_LEVEL_ZERO, DXGK_CLASS_NONE, DXGK_PASSIVE)     \
    /* gr_kmd_acquire/release_cpu_window: the miniport's own window lock serialises them */              \
    X(ACQUIRE_CPU_WINDOW, "gr_kmd_acquire_cpu_window", DXGK_LEVEL_ZERO, DXGK_CLASS_NONE, DXGK_PASSIVE)    \
    X(RELEASE_CPU_WINDOW, "gr_kmd_release_cpu_window", DXGK_LEVEL_ZERO, DXGK_CLASS_NONE, DXGK_PASSIVE)    \
    X(KMD_COUNTS, "gr_kmd_counts", DXGK_LEVEL_ZERO, DXGK_CLASS_NONE, DXGK_PASSIVE)                        \
    /* gr_kmd_packet_progress: reads packet state under the miniport's own lock */                      \
    X(PACKET_PROGRESS, "gr_kmd_packet_progress", DXGK_LEVEL_ZERO, DXGK_CLASS_NONE, DXGK_PASSIVE)          \
    X(CREATE_CONTEXT, "DxgkDdiCreateContext", DXGK_LEVEL_ZERO, DXGK_CLASS_NONE, DXGK_PASSIVE)             \
    X(DESTROY_CONTEXT, "DxgkDdiDestroyContext", DXGK_LEVEL_ZERO, DXGK_CLASS_NONE, DXGK_PASSIVE)           \
    X(QUERY_CURRENT_FENCE, "DxgkDdiQueryCurrentFence", DXGK_LEVEL_ZERO, DXGK_CLASS_NONE, DXGK_PASSIVE)    \
    /* gr_kmd_flush_tlb: stands in for BuildPagingBuffer(FLUSH_TLB) */                                   \
    X(FLUSH_TLB, "gr_kmd_flush_tlb", DXGK_LEVEL_FIRST, DXGK_CLASS_SCHEDULER, DXGK_PASSIVE)                \
    X(BUILD_PAGING_BUFFER, "DxgkDdiBuildPagingBuffer", DXGK_LEVEL_FIRST, DXGK_CLASS_SCHEDULER,           \
      DXGK_PASSIVE)                                                                                      \
    /* not listed on the level pages: it changes what SubmitCommand reads, so the scheduler class */     \
    X(SET_ROOT_PAGE_TABLE, "DxgkDdiSetRootPageTable", DXGK_LEVEL_FIRST, DXGK_CLASS_SCHEDULER,            \
      DXGK_PASSIVE)                                                                                      \
    X(PATCH, "DxgkDdiPatch", DXGK_LEVEL_FIRST, DXGK_CLASS_SCHEDULER, DXGK_PASSIVE)                        \
    X(SUBMIT_COMMAND, "DxgkDdiSubmitCommand", DXGK_LEVEL_FIRST, DXGK_CLASS_SCHEDULER, DXGK_DISPATCH)      \
    X(PREEMPT_COMMAND, "DxgkDdiPreemptCommand", DXGK_LEVEL_FIRST, DXGK_CLASS_SCHEDULER, DXGK_DISPATCH)    \
    /* not listed on the level pages: it frees what Patch made, so the scheduler class */                \
    X(CANCEL_COMMAND, "DxgkDdiCancelCommand", DXGK_LEVEL_FIRST, DXGK_CLASS_SCHEDULER, DXGK_PASSIVE)       \
    X(RESET_FROM_TIMEOUT, "DxgkDdiResetFromTimeout", DXGK_LEVEL_THIRD, DXGK_CLASS_NONE, DXGK_PASSIVE)     \
    X(RESTART_FROM_TIMEOUT, "DxgkDdiRestartFromTimeout", DXGK_LEVEL_THIRD, DXGK_CLASS_NONE, DXGK_PASSIVE) \
    X(INTERRUPT_ROUTINE, "DxgkDdiInterruptRoutine", DXGK_LEVEL_ISR, DXGK_CLASS_NONE, DXGK_DIRQL)          \
    X(DPC_ROUTINE, "DxgkDdiDpcRoutine", DXGK_LEVEL_DPC, DXGK_CLASS_NONE, DXGK_DISPATCH)

typedef enum dxgk_ddi {
#define DXGK_DDI_ENUM(id, name, level, cls, irql) DXGK_DDI_##id,
    DXGK_DDI_LIST(DXGK_DDI_ENUM)
#undef DXGK_DDI_ENUM
        DXGK_DDI_COUNT
} dxgk_ddi_t;

/** Callbacks the miniport may make into the OS, with their documented IRQL. */
typedef enum dxgk_cb {
    DXGK_CB_GET_HANDLE_DATA,      /**< PASSIVE_LEVEL */
    DXGK_CB_GET_HANDLE_PARENT,    /**< PASSIVE_LEVEL */
    DXGK_CB_NOTIFY_INTERRUPT,     /**< DIRQL (the ISR, or a routine run by SynchronizeExecution) */
    DXGK_CB_NOTIFY_DPC,           /**< DISPATCH_LEVEL (the DPC) */
    DXGK_CB_QUEUE_DPC,            /**< any IRQL */
    DXGK_CB_SYNCHRONIZE_EXECUTION /**< at most DISPATCH_LEVEL */
} dxgk_cb_t;

/** dxgk_ddi_enter flags: what the caller guarantees for a third-level call. */
enum {
    DXGK_THR_SCHED_QUIESCED = 1u << 0, /**< no DMA buffer is passing through the scheduler */
    DXGK_THR_HW_IDLE = 1u << 1,        /**< the hardware queue is empty */
    DXGK_THR_GATE_HELD = 1u << 2,      /**< the caller holds the gate already (dxgk_thr_hold) */
};

/** dxgk_thr_create modes. */
enum {
    DXGK_THR_CHECK_ONLY = 1u << 0, /**< tests: checks without the gate, so violations can happen */
};

/** Called for each broken rule (message names the DDIs and threads). */
typedef void (*dxgk_thr_violation_fn)(void *ctx, const char *message);

/** One adapter's checker (opaque). */
typedef struct dxgk_thr dxgk_thr_t;

/** @param mode DXGK_THR_* mode bits. @return GR_OK, GR_E_INVALID, GR_E_NO_MEMORY */
gr_status_t dxgk_thr_create(unsigned mode, dxgk_thr_t **out_thr);
void dxgk_thr_destroy(dxgk_thr_t *t);

/**
 * Before a DDI call: takes the gate (shared, or exclusively for third level; interrupt-time DDIs
 * take none), raises the thread's IRQL to the DDI's, and checks the level.
 * @param process  the calling process (NULL for the OS's own threads)
 * @param flags    DXGK_THR_* guarantees, for third-level DDIs
 */
void dxgk_ddi_enter(dxgk_thr_t *t, dxgk_ddi_t ddi, const void *process, unsigned flags);
/** After the call: the reverse, and the protocol checks of the ISR and DPC. */
void dxgk_ddi_leave(dxgk_thr_t *t, dxgk_ddi_t ddi, const void *process);
/** As dxgk_ddi_leave, for a call entered with DXGK_THR_GATE_HELD (gate_held true). */
void dxgk_ddi_leave_held(dxgk_thr_t *t, dxgk_ddi_t ddi, const void *process, bool gate_held);

/**
 * Holds the gate shared without entering a DDI (the OS's own CPU access to the frame buffer,
 * which must not overlap a reset). Pairs with dxgk_thr_unhold.
 */
void dxgk_thr_hold(dxgk_thr_t *t);
void dxgk_thr_unhold(dxgk_thr_t *t);

/** In a callback from the miniport: checks the thread's IRQL against the callback's. */
void dxgk_thr_callback(dxgk_thr_t *t, dxgk_cb_t cb);

/** Before the OS itself waits or takes a sleeping lock: the thread must be at PASSIVE_LEVEL. */
void dxgk_thr_may_block(dxgk_thr_t *t, const char *what);

/** The thread's modelled IRQL; raise returns the old one for lower. */
dxgk_irql_t dxgk_thr_irql(void);
dxgk_irql_t dxgk_thr_raise(dxgk_irql_t irql);
void dxgk_thr_lower(dxgk_irql_t old);

/** Installs the process-wide violation handler (NULL: the default, which aborts). */
void dxgk_thr_set_handler(dxgk_thr_violation_fn fn, void *ctx);

/** Violations reported on this checker so far. */
uint64_t dxgk_thr_violations(const dxgk_thr_t *t);

/** Whether the checks are compiled in. */
bool dxgk_thr_checks_enabled(void);

#ifdef __cplusplus
}
#endif

#endif
