/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kmd_submit.c: DxgkDdiSubmitCommand, DxgkDdiPreemptCommand, DxgkDdiQueryCurrentFence.
 *
 * SubmitCommand writes one ring entry (gr_dma_ring_entry) for the submitted range of the DMA
 * buffer with the OS's fence id and the context's page-table root, then moves DMA_RING_TAIL.
 * Only the kernel's own packets (paging buffers, the system context's) get the entry's PRIV
 * bit; a user context's run unprivileged, so the engine itself refuses their physical
 * addresses and INDIRECTs (kmd_privileged; host/kmd/README.md, "Isolation").
 * The fence record the engine writes at each completion is the truth about progress; the
 * registers and the interrupt only say when to look.
 */
#include <string.h>

#include "kmd_dma.h"

static NTSTATUS check_submit(kmd_adapter_t *a, const DXGKARG_SUBMITCOMMAND *s, kmd_context_t **out_ctx)
{
    const bool paging = s->Flags.Paging;
    kmd_context_t *ctx = NULL;
    if (s->hContext) {
        ctx = kmd_context_from(a, s->hContext);
        if (!ctx)
            return STATUS_INVALID_PARAMETER;
    } else if (!paging) {
        return STATUS_INVALID_PARAMETER;
    }
    /* No display: no flips. DMA buffers live in system memory (DmaBufferSegmentSet 0). */
    if (s->Flags.Flip || s->Flags.FlipWithNoWait || s->Flags.Reserved || s->NodeOrdinal != 0 ||
        s->DmaBufferSegmentId != 0)
        return STATUS_INVALID_PARAMETER;
    const uint32_t start = s->DmaBufferSubmissionStartOffset, end = s->DmaBufferSubmissionEndOffset;
    const uint64_t base = (uint64_t)s->DmaBufferPhysicalAddress.QuadPart;
    if (start > end || end > s->DmaBufferSize || (end - start) % 8 || (base + start) % 8 ||
        base + end < base)
        return STATUS_INVALID_PARAMETER;
    if (!paging && (!s->pDmaBufferPrivateData || s->DmaBufferPrivateDataSubmissionStartOffset != 0 ||
                    s->DmaBufferPrivateDataSubmissionEndOffset > s->DmaBufferPrivateDataSize ||
                    s->DmaBufferPrivateDataSubmissionEndOffset < GR_KMD_DMA_PRIVATE_BYTES))
        return STATUS_INVALID_PARAMETER;
    /* A user context reaches memory only through its own page tables: without a root it has no
     * address space (USE_ROOT clear would mean MMU_ROOT, another process's, or no translation). */
    if (!kmd_privileged(ctx, paging) && !ctx->has_root)
        return STATUS_INVALID_PARAMETER;
    *out_ctx = ctx;
    return STATUS_SUCCESS;
}

/* A paging packet removed by a preemption, recognised by its buffer, range and fence. */
static kmd_packet_t *find_removed(kmd_adapter_t *a, const DXGKARG_SUBMITCOMMAND *s,
                                  const kmd_context_t *ctx)
{
    for (kmd_packet_t *p = a->eng.live; p; p = p->next)
        if (p->state == KMD_PKT_REMOVED && p->paging && p->ctx == ctx &&
            p->fence == s->SubmissionFenceId &&
            p->dma_addr == (uint64_t)s->DmaBufferPhysicalAddress.QuadPart &&
            p->start == s->DmaBufferSubmissionStartOffset && p->end == s->DmaBufferSubmissionEndOffset)
            return p;
    return NULL;
}

/*
 * The rest of the COPY or FILL a preemption cut, as one command in `out` (its source and
 * destination advanced by the bytes already written, its size reduced by them): its length, or
 * 0 when there is none to resume (no CPU view of the buffer, not a COPY or FILL any more), and
 * the packet then resumes at the command's first byte. The command is read from the DMA buffer
 * as the last Patch left it, so an allocation that moved since is followed; the buffer itself
 * is never changed (the caller may submit it again once the packet retires).
 */
static uint32_t cut_stub(const kmd_packet_t *pk, uint32_t resume, uint64_t d, uint8_t *out)
{
    uint64_t size = 0;
    const uint8_t *cmd = pk->cpu ? pk->cpu + pk->start + resume : NULL;
    const uint32_t bytes = kmd_cut_command(cmd, pk->end - pk->start - resume, &size);
    if (!bytes || d >= size || d % 8)
        return 0;
    memcpy(out, cmd, bytes);
    if ((gr_dma_get64(cmd) & 0xffu) == GR_DMA_OP_COPY) {
        gr_dma_put64(out + 8, gr_dma_get64(cmd + 8) + d);
        gr_dma_put64(out + 16, gr_dma_get64(cmd + 16) + d);
        gr_dma_put64(out + 24, size - d);
    } else {
        gr_dma_put64(out + 8, gr_dma_get64(cmd + 8) + d);
        gr_dma_put64(out + 16, size - d);
    }
    return bytes;
}

NTSTATUS APIENTRY DxgkDdiSubmitCommand(IN_CONST_HANDLE hAdapter, IN_CONST_PDXGKARG_SUBMITCOMMAND s)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !s)
        return STATUS_INVALID_PARAMETER;
    gr_link_mark(a->link, "DxgkDdiSubmitCommand fence=%u", (unsigned)s->SubmissionFenceId);
    kmd_engine_t *e = &a->eng;
    if (!e->ready)
        return STATUS_DEVICE_NOT_READY;
    kmd_context_t *ctx = NULL;
    NTSTATUS st = check_submit(a, s, &ctx);
    if (st)
        return st;
    const bool paging = s->Flags.Paging;
    const uint64_t base = (uint64_t)s->DmaBufferPhysicalAddress.QuadPart;
    const uint32_t start = s->DmaBufferSubmissionStartOffset, end = s->DmaBufferSubmissionEndOffset;

    pthread_mutex_lock(&e->sched_lock);
    kmd_retire(a);
    const uint32_t mask = e->ring_entries - 1;
    kmd_packet_t *pk = NULL;
    if (!paging) {
        pk = kmd_packet_from_private(a, s->pDmaBufferPrivateData, s->DmaBufferPrivateDataSize, 0,
                                     s->DmaBufferPrivateDataSubmissionEndOffset);
        if (pk && (pk->ctx != ctx || pk->state == KMD_PKT_QUEUED || pk->cancelled))
            pk = NULL;
    } else {
        pk = find_removed(a, s, ctx);
    }
    /* A packet resubmitted as it was removed resumes at the command the preemption stopped;
     * a COPY or FILL cut there resumes past the bytes it wrote (cut_stub). */
    uint8_t stub[GR_DMA_RING_ENTRY_BYTES];
    uint32_t cut = 0, resume = 0;
    uint64_t resume_done = 0;
    if (pk && pk->dma_addr == base && pk->start == start && pk->end == end &&
        pk->fence == s->SubmissionFenceId && pk->state == KMD_PKT_REMOVED) {
        resume = pk->resume;
        resume_done = pk->resume_done;
    }
    if (resume_done)
        cut = cut_stub(pk, resume, resume_done, stub);
    const uint32_t need = cut ? 2u : 1u;
    if (e->next_seq - e->retire_seq + need > GR_KMD_RING_CAPACITY) {
        pthread_mutex_unlock(&e->sched_lock);
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    const uint32_t first = (uint32_t)e->next_seq & mask, index = (uint32_t)(e->next_seq + need - 1) & mask;
    if (e->slots[first] || e->slots[index]) { /* cannot happen while the count holds; never overwrite */
        pthread_mutex_unlock(&e->sched_lock);
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    bool created = false;
    if (!pk) {
        pk = kmd_packet_new(a);
        if (!pk) {
            pthread_mutex_unlock(&e->sched_lock);
            return STATUS_NO_MEMORY;
        }
        created = true;
        pk->ctx = ctx;
        pk->paging = paging;
    }
    const bool use_root = ctx && ctx->has_root && !paging;
    const uint64_t root = use_root ? ctx->root : 0;
    uint8_t *ring = e->ring.cpu;
    if (cut) {
        /* The stub entry: the cut command's remaining bytes, in the packet's address space.
         * Its fence id is the one the record already holds once the entries before it are
         * done (the newest queued entry's, else the record's), and it raises no interrupt: its
         * completion tells the OS nothing. */
        uint8_t *area = (uint8_t *)e->stubs.cpu + (size_t)first * GR_DMA_RING_ENTRY_BYTES;
        memcpy(area, stub, cut);
        const kmd_packet_t *newest = e->slots[(first - 1) & mask];
        uint32_t stub_fence = 0;
        if (newest)
            stub_fence = newest->fence;
        else
            kmd_fence_read(a, &stub_fence, NULL);
        gr_dma_ring_entry(ring + (size_t)first * GR_DMA_RING_ENTRY_BYTES,
                          e->stubs.bus + (uint64_t)first * GR_DMA_RING_ENTRY_BYTES, cut, stub_fence,
                          use_root, root, 0);
        if (kmd_privileged(ctx, paging))
            gr_dma_ring_entry_set_priv(ring + (size_t)first * GR_DMA_RING_ENTRY_BYTES);
    }
    const uint32_t skip = resume + cut;
    uint8_t *entry = ring + (size_t)index * GR_DMA_RING_ENTRY_BYTES;
    gr_dma_ring_entry(entry, base + start + skip, end - start - skip, s->SubmissionFenceId, use_root, root, 1);
    if (kmd_privileged(ctx, paging))
        gr_dma_ring_entry_set_priv(entry);
    if (kmd_reg_write(a, KMD_DMA_RING_TAIL, (uint32_t)(e->next_seq + need) & mask)) {
        memset(entry, 0, GR_DMA_RING_ENTRY_BYTES);
        if (cut)
            memset(ring + (size_t)first * GR_DMA_RING_ENTRY_BYTES, 0, GR_DMA_RING_ENTRY_BYTES);
        if (created)
            kmd_packet_free(a, pk);
        pthread_mutex_unlock(&e->sched_lock);
        return STATUS_UNSUCCESSFUL;
    }
    if (created && !paging)
        kmd_packet_write_tag(s->pDmaBufferPrivateData, 0, pk);
    /* Queued: the packet takes what this submission is (nothing of it changed before here). */
    pk->dma_addr = base;
    pk->start = start;
    pk->end = end;
    pk->fence = s->SubmissionFenceId;
    pk->resume = resume;
    pk->resume_done = cut ? resume_done : 0;
    pk->state = KMD_PKT_QUEUED;
    pk->ring_index = index;
    pk->split = cut;
    if (cut) {
        e->slots[first] = pk;
        e->stub_slot[first] = true;
    }
    e->slots[index] = pk;
    e->next_seq += need;
    atomic_store(&e->last_submitted_fence, s->SubmissionFenceId);
    atomic_store(&e->any_submitted, true);
    pthread_mutex_unlock(&e->sched_lock);
    return STATUS_SUCCESS;
}

/*
 * DxgkCbNotifyInterrupt may only be called at interrupt level: PreemptCommand and
 * QueryCurrentFence reach it through DxgkCbSynchronizeExecution, as their pages ask ("raise IRQL
 * to interrupt level"). Without that callback (a caller that plays no OS) the routine runs
 * directly; irq_lock still orders it against the interrupt routine.
 */
typedef struct kmd_sync_ctx {
    kmd_adapter_t *a;
    uint32_t done;
    uint32_t preemption_fence;
} kmd_sync_ctx_t;

static bool kmd_sync(kmd_adapter_t *a, PKSYNCHRONIZE_ROUTINE routine, kmd_sync_ctx_t *sc)
{
    BOOLEAN r = FALSE;
    if (!a->cb.DxgkCbSynchronizeExecution ||
        a->cb.DxgkCbSynchronizeExecution(a->cb.DeviceHandle, routine, sc, 0, &r) != STATUS_SUCCESS)
        r = routine(sc);
    return r != FALSE;
}

/* Everything already finished and reported: answer the preemption here, without the hardware. */
static BOOLEAN preempt_done_sync(PVOID context)
{
    kmd_sync_ctx_t *sc = context;
    kmd_adapter_t *a = sc->a;
    kmd_engine_t *e = &a->eng;
    BOOLEAN answered = FALSE;
    pthread_mutex_lock(&e->irq_lock);
    const bool all_done = !atomic_load(&e->any_submitted) ||
                          kmd_fence_done(atomic_load(&e->last_submitted_fence), sc->done);
    if (all_done && sc->done == e->last_reported_fence) {
        DXGKARGCB_NOTIFY_INTERRUPT_DATA d;
        memset(&d, 0, sizeof d);
        d.InterruptType = DXGK_INTERRUPT_DMA_PREEMPTED;
        d.DmaPreempted.PreemptionFenceId = sc->preemption_fence;
        d.DmaPreempted.LastCompletedFenceId = sc->done;
        kmd_notify(a, &d);
        kmd_queue_dpc(a);
        answered = TRUE;
    }
    pthread_mutex_unlock(&e->irq_lock);
    return answered;
}

/* A completion whose interrupt was lost is reported now (DxgkDdiQueryCurrentFence page). */
static BOOLEAN report_completed_sync(PVOID context)
{
    kmd_sync_ctx_t *sc = context;
    kmd_engine_t *e = &sc->a->eng;
    pthread_mutex_lock(&e->irq_lock);
    if (kmd_report_completed_locked(sc->a, sc->done))
        kmd_queue_dpc(sc->a);
    pthread_mutex_unlock(&e->irq_lock);
    return TRUE;
}

NTSTATUS APIENTRY DxgkDdiPreemptCommand(IN_CONST_HANDLE hAdapter, IN_CONST_PDXGKARG_PREEMPTCOMMAND pc)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !pc || pc->NodeOrdinal != 0 || pc->EngineOrdinal != 0 || pc->Flags.Value)
        return STATUS_INVALID_PARAMETER;
    gr_link_mark(a->link, "DxgkDdiPreemptCommand fence=%u", (unsigned)pc->PreemptionFenceId);
    kmd_engine_t *e = &a->eng;
    if (!e->ready)
        return STATUS_DEVICE_NOT_READY;
    uint32_t done = 0;
    kmd_fence_read(a, &done, NULL);
    /* Everything already finished and reported: answer the preemption here, without the
     * hardware (DxgkDdiPreemptCommand page). */
    kmd_sync_ctx_t sc = {.a = a, .done = done, .preemption_fence = pc->PreemptionFenceId};
    if (kmd_sync(a, preempt_done_sync, &sc))
        return STATUS_SUCCESS;
    if (kmd_reg_write(a, KMD_DMA_PREEMPT_FENCE, pc->PreemptionFenceId) ||
        kmd_reg_write(a, KMD_DMA_CTRL, KMD_DMA_CTRL_ENABLE | KMD_DMA_CTRL_PREEMPT))
        return STATUS_UNSUCCESSFUL;
    return STATUS_SUCCESS;
}

NTSTATUS APIENTRY DxgkDdiQueryCurrentFence(IN_CONST_HANDLE hAdapter, INOUT_PDXGKARG_QUERYCURRENTFENCE q)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !q || q->NodeOrdinal != 0 || q->EngineOrdinal != 0)
        return STATUS_INVALID_PARAMETER;
    gr_link_mark_quiet(a->link, "DxgkDdiQueryCurrentFence");
    kmd_engine_t *e = &a->eng;
    if (!e->ready)
        return STATUS_DEVICE_NOT_READY;
    uint32_t done = 0;
    kmd_fence_read(a, &done, NULL);
    /* A completion whose interrupt was lost is reported now (DxgkDdiQueryCurrentFence page). */
    kmd_sync_ctx_t sc = {.a = a, .done = done, .preemption_fence = 0};
    kmd_sync(a, report_completed_sync, &sc);
    q->CurrentFence = done;
    return STATUS_SUCCESS;
}

NTSTATUS gr_kmd_packet_progress(HANDLE hAdapter, UINT fence, gr_kmd_packet_progress_t *out_progress)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !out_progress)
        return STATUS_INVALID_PARAMETER;
    kmd_engine_t *e = &a->eng;
    NTSTATUS st = STATUS_INVALID_PARAMETER;
    pthread_mutex_lock(&e->sched_lock);
    if (e->ready)
        kmd_retire(a); /* the preemption's stop is taken into account first */
    for (const kmd_packet_t *p = e->live; p; p = p->next)
        if (p->state == KMD_PKT_REMOVED && p->fence == fence) {
            out_progress->stops = p->stops;
            out_progress->advanced = p->advanced;
            out_progress->resume_offset = p->resume;
            out_progress->resume_done = p->resume_done;
            st = STATUS_SUCCESS;
            break;
        }
    pthread_mutex_unlock(&e->sched_lock);
    return st;
}
