/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kmd_tdr.c: DxgkDdiCancelCommand, DxgkDdiResetFromTimeout, DxgkDdiRestartFromTimeout.
 *
 * Cancel frees the state of a packet that will not run. Reset stops the engine the way
 * rtl/dma/README.md describes (DMA_CTRL.RESET: outstanding bursts drain, every entry on the
 * ring is removed, the ring's base, size and memory stay) and returns only when the engine no
 * longer touches memory; allocations, contexts, page tables and VRAM are not touched. Restart
 * lets the engine fetch again.
 */
#include <string.h>

#include "kmd_dma.h"

NTSTATUS APIENTRY DxgkDdiCancelCommand(IN_CONST_HANDLE hAdapter, IN_CONST_PDXGKARG_CANCELCOMMAND c)
{
    /* The OS bugchecks on anything but success: bad input just finds nothing to free. */
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !c)
        return STATUS_SUCCESS;
    gr_link_mark(a->link, "DxgkDdiCancelCommand");
    kmd_engine_t *e = &a->eng;
    pthread_mutex_lock(&e->sched_lock);
    if (e->ready)
        kmd_retire(a);
    kmd_packet_t *p = kmd_packet_from_private(a, c->pDmaBufferPrivateData, c->DmaBufferPrivateDataSize,
                                              c->DmaBufferPrivateDataSubmissionStartOffset,
                                              c->DmaBufferPrivateDataSubmissionEndOffset);
    if (p && (!c->hContext || p->ctx == kmd_context_from(a, c->hContext))) {
        if (p->state == KMD_PKT_QUEUED)
            p->cancelled = true; /* still on the ring: freed when it leaves it */
        else
            kmd_packet_free(a, p);
    }
    pthread_mutex_unlock(&e->sched_lock);
    return STATUS_SUCCESS;
}

NTSTATUS APIENTRY DxgkDdiResetFromTimeout(IN_CONST_HANDLE hAdapter)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a)
        return STATUS_INVALID_PARAMETER;
    gr_link_mark(a->link, "DxgkDdiResetFromTimeout");
    kmd_engine_t *e = &a->eng;
    if (!e->ready)
        return STATUS_DEVICE_NOT_READY;
    pthread_mutex_lock(&e->sched_lock);
    if (kmd_engine_reset_and_wait(a)) {
        pthread_mutex_unlock(&e->sched_lock);
        return STATUS_UNSUCCESSFUL;
    }
    /* Completed entries retire as usual; whatever is left on the ring was removed by the reset
     * and will never run. */
    kmd_retire(a);
    const uint32_t mask = e->ring_entries - 1;
    for (; e->retire_seq != e->next_seq; e->retire_seq++) {
        uint32_t i = (uint32_t)e->retire_seq & mask;
        kmd_packet_t *p = e->slots[i];
        const bool stub = e->stub_slot[i];
        e->slots[i] = NULL;
        e->stub_slot[i] = false;
        /* A stub shares its packet with the main entry after it, which frees it. */
        if (p && !stub)
            kmd_packet_free(a, p);
    }
    /* Removed paging packets are not tagged, so no CancelCommand can name them: after a reset
     * the OS rebuilds its paging work, and they go now. */
    for (kmd_packet_t *p = e->live, *next; p; p = next) {
        next = p->next;
        if (p->paging && p->state == KMD_PKT_REMOVED)
            kmd_packet_free(a, p);
    }
    pthread_mutex_lock(&e->irq_lock);
    e->stop_pending = false;
    pthread_mutex_unlock(&e->irq_lock);
    /* The ring restarts where the engine stands (HEAD = TAIL after a reset). */
    uint32_t head = 0;
    NTSTATUS st = STATUS_SUCCESS;
    if (kmd_engine_program_ring(a) || kmd_reg_read(a, KMD_DMA_RING_HEAD, &head)) {
        st = STATUS_UNSUCCESSFUL;
    } else {
        e->next_seq = (e->next_seq & ~(uint64_t)mask) | (head & mask);
        if (e->next_seq < e->retire_seq)
            e->next_seq += e->ring_entries;
        e->retire_seq = e->next_seq;
        if (kmd_reg_write(a, KMD_DMA_RING_TAIL, head & mask) ||
            kmd_reg_write(a, GR_REG_IRQ_STATE, KMD_IRQ_DMA_ALL))
            st = STATUS_UNSUCCESSFUL;
    }
    pthread_mutex_unlock(&e->sched_lock);
    return st;
}

NTSTATUS APIENTRY DxgkDdiRestartFromTimeout(IN_CONST_HANDLE hAdapter)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a)
        return STATUS_INVALID_PARAMETER;
    gr_link_mark(a->link, "DxgkDdiRestartFromTimeout");
    kmd_engine_t *e = &a->eng;
    if (!e->ready)
        return STATUS_DEVICE_NOT_READY;
    pthread_mutex_lock(&e->sched_lock);
    NTSTATUS st = STATUS_SUCCESS;
    if (kmd_reg_write(a, KMD_DMA_CTRL, KMD_DMA_CTRL_ENABLE))
        st = STATUS_UNSUCCESSFUL;
    pthread_mutex_unlock(&e->sched_lock);
    return st;
}
