/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kmd_interrupt.c: DxgkDdiInterruptRoutine and DxgkDdiDpcRoutine.
 *
 * The interrupt routine claims only the engine's bits of IRQ_STATE (DMA_FENCE, DMA_PREEMPTED,
 * DMA_FAULT), acknowledges exactly those, and reports to the scheduler what the fence record
 * and the engine's registers say: completions first, then a preemption, then a fault (DMA
 * events in that order, as DxgkCbNotifyInterrupt asks). It touches registers, the fence record
 * and the ring (read only) and takes only irq_lock, never sched_lock: the DPC does the
 * bookkeeping that needs the packets.
 */
#include <string.h>

#include "kmd_dma.h"

void kmd_notify(kmd_adapter_t *a, DXGKARGCB_NOTIFY_INTERRUPT_DATA *d)
{
    a->cb.DxgkCbNotifyInterrupt(a->cb.DeviceHandle, d);
}

void kmd_queue_dpc(kmd_adapter_t *a)
{
    (void)a->cb.DxgkCbQueueDpc(a->cb.DeviceHandle);
}

bool kmd_report_completed_locked(kmd_adapter_t *a, uint32_t done)
{
    kmd_engine_t *e = &a->eng;
    if (kmd_fence_done(done, e->last_reported_fence))
        return false;
    e->last_reported_fence = done;
    DXGKARGCB_NOTIFY_INTERRUPT_DATA d;
    memset(&d, 0, sizeof d);
    d.InterruptType = DXGK_INTERRUPT_DMA_COMPLETED;
    d.DmaCompleted.SubmissionFenceId = done;
    d.DmaCompleted.NodeOrdinal = 0;
    d.DmaCompleted.EngineOrdinal = 0;
    kmd_notify(a, &d);
    return true;
}

/* The fence of the ring entry a fault names (the miniport wrote the ring; the engine only reads it). */
static uint32_t entry_fence(const kmd_engine_t *e, uint32_t index)
{
    const uint8_t *entry = (const uint8_t *)e->ring.cpu +
                           (size_t)(index & (e->ring_entries - 1)) * GR_DMA_RING_ENTRY_BYTES;
    return (uint32_t)(gr_dma_get64(entry + 8) >> 32);
}

static void report_fault(kmd_adapter_t *a, uint32_t status, uint64_t addr)
{
    DXGKARGCB_NOTIFY_INTERRUPT_DATA d;
    memset(&d, 0, sizeof d);
    const uint32_t type = KMD_DMA_FAULT_TYPE(status);
    if (type == GR_DMA_FAULT_HANG) {
        /* The watchdog: no progress on the running entry. */
        d.InterruptType = DXGK_INTERRUPT_GPU_ENGINE_TIMEOUT;
        d.GpuEngineTimeout.NodeOrdinal = 0;
        d.GpuEngineTimeout.EngineOrdinal = 0;
        kmd_notify(a, &d);
        return;
    }
    /* DXGK_INTERRUPT_DMA_FAULTED is reserved for the system; errors that need the OS to recover
     * (here: the engine stops until it is reset) are DMA_PAGE_FAULTED. */
    d.InterruptType = DXGK_INTERRUPT_DMA_PAGE_FAULTED;
    d.DmaPageFaulted.FaultedFenceId = entry_fence(&a->eng, KMD_DMA_FAULT_ENTRY(status));
    d.DmaPageFaulted.NodeOrdinal = 0;
    d.DmaPageFaulted.EngineOrdinal = 0;
    d.DmaPageFaulted.FaultedPipelineStage = DXGK_RENDER_PIPELINE_STAGE_UNKNOWN;
    UINT flags = DXGK_PAGE_FAULT_ENGINE_RESET_REQUIRED;
    if (KMD_DMA_FAULT_WRITE(status))
        flags |= DXGK_PAGE_FAULT_WRITE;
    d.DmaPageFaulted.PageFaultFlags = (DXGK_PAGE_FAULT_FLAGS)flags;
    if (type == GR_DMA_FAULT_MMU) {
        d.DmaPageFaulted.FaultedVirtualAddress = addr;
        d.DmaPageFaulted.FaultErrorCode.IsDeviceSpecificCode = 0;
        d.DmaPageFaulted.FaultErrorCode.GeneralErrorCode = DXGK_GENERAL_ERROR_PAGE_FAULT;
    } else if (type == GR_DMA_FAULT_BAD_CMD || type == GR_DMA_FAULT_PRIVILEGE) {
        /* A privilege fault is a user packet's command that only the kernel may issue: to the
         * OS, an instruction the context may not run. */
        d.DmaPageFaulted.FaultedVirtualAddress = D3DGPU_NULL;
        d.DmaPageFaulted.FaultErrorCode.IsDeviceSpecificCode = 0;
        d.DmaPageFaulted.FaultErrorCode.GeneralErrorCode = DXGK_GENERAL_ERROR_INVALID_INSTRUCTION;
    } else {
        d.DmaPageFaulted.FaultedVirtualAddress = D3DGPU_NULL;
        d.DmaPageFaulted.FaultErrorCode.IsDeviceSpecificCodeReservedBit = 1;
        d.DmaPageFaulted.FaultErrorCode.DeviceSpecificCode = type;
    }
    kmd_notify(a, &d);
}

BOOLEAN DxgkDdiInterruptRoutine(IN_CONST_PVOID MiniportDeviceContext, IN_ULONG MessageNumber)
{
    kmd_adapter_t *a = kmd_adapter_from(MiniportDeviceContext);
    if (!a || !a->eng.ready || MessageNumber != 0)
        return FALSE;
    gr_link_mark_quiet(a->link, "DxgkDdiInterruptRoutine");
    kmd_engine_t *e = &a->eng;
    /* The state first, then (in one batch: one round trip on a byte-stream link) what a
     * preemption or a fault leaves, read only when the state says so: a fence interrupt, the
     * common one, costs one read, and a look finds the same accesses however late it runs. */
    uint32_t state;
    if (kmd_reg_read(a, GR_REG_IRQ_STATE, &state))
        return FALSE;
    const uint32_t mine = state & KMD_IRQ_DMA_ALL;
    if (!mine)
        return FALSE;
    static const uint32_t regs[7] = {KMD_DMA_STOP_HEAD,   KMD_DMA_STOP_TAIL,     KMD_DMA_STOP_OFFSET,
                                     KMD_DMA_STOP_DONE,   KMD_DMA_FAULT_STATUS,  KMD_DMA_FAULT_ADDR_LO,
                                     KMD_DMA_FAULT_ADDR_HI};
    uint32_t v[7] = {0};
    if ((mine & (KMD_IRQ_DMA_PREEMPTED | KMD_IRQ_DMA_FAULT)) && kmd_reg_read_batch(a, regs, 7, v))
        return FALSE;
    const uint32_t stop_head = v[0], stop_tail = v[1], stop_offset = v[2], stop_done = v[3];
    const uint32_t fault = v[4], lo = v[5], hi = v[6];
    /* Dismiss first: a completion after this point raises the line again. */
    (void)kmd_reg_write(a, GR_REG_IRQ_STATE, mine);
    uint32_t done = 0, preempt_fence = 0;
    kmd_fence_read(a, &done, &preempt_fence);
    atomic_fetch_add(&e->n_interrupts, 1);

    pthread_mutex_lock(&e->irq_lock);
    (void)kmd_report_completed_locked(a, done);
    if (mine & KMD_IRQ_DMA_PREEMPTED) {
        const uint32_t mask = e->ring_entries - 1;
        /* A second preemption before the DPC removed nothing (nothing was submitted in between):
         * keep the first one's range. */
        if (!e->stop_pending || (stop_head & mask) != (stop_tail & mask)) {
            e->stop_pending = true;
            e->stop_head = stop_head & KMD_DMA_INDEX_MASK;
            e->stop_tail = stop_tail & KMD_DMA_INDEX_MASK;
            e->stop_offset = stop_offset;
            e->stop_done = stop_done;
        }
        DXGKARGCB_NOTIFY_INTERRUPT_DATA d;
        memset(&d, 0, sizeof d);
        d.InterruptType = DXGK_INTERRUPT_DMA_PREEMPTED;
        d.DmaPreempted.PreemptionFenceId = preempt_fence;
        d.DmaPreempted.LastCompletedFenceId = done;
        d.DmaPreempted.NodeOrdinal = 0;
        d.DmaPreempted.EngineOrdinal = 0;
        kmd_notify(a, &d);
    }
    if (mine & KMD_IRQ_DMA_FAULT)
        report_fault(a, fault, ((uint64_t)hi << 32) | lo);
    kmd_queue_dpc(a);
    pthread_mutex_unlock(&e->irq_lock);
    return TRUE;
}

VOID DxgkDdiDpcRoutine(IN_CONST_PVOID MiniportDeviceContext)
{
    kmd_adapter_t *a = kmd_adapter_from(MiniportDeviceContext);
    if (!a)
        return;
    gr_link_mark_quiet(a->link, "DxgkDdiDpcRoutine");
    kmd_engine_t *e = &a->eng;
    if (e->ready) {
        pthread_mutex_lock(&e->sched_lock);
        kmd_retire(a);
        pthread_mutex_unlock(&e->sched_lock);
        atomic_fetch_add(&e->n_dpcs, 1);
    }
    if (a->cb.DxgkCbNotifyDpc)
        a->cb.DxgkCbNotifyDpc(a->cb.DeviceHandle);
}
