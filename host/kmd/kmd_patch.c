/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kmd_patch.c: DxgkDdiPatch. Writes each referenced allocation's address (PhysicalAddress +
 * AllocationOffset, a little-endian qword: every operand of gpuref's commands is one) at its
 * PatchOffset, for the patch locations of this submission only, and creates (or finds again) the
 * packet's state. Every entry is checked before the first byte is written.
 */
#include <string.h>

#include "kmd_dma.h"

/* Checks one patch location; on success *out_value is what goes at its PatchOffset. */
static NTSTATUS check_location(kmd_adapter_t *a, const DXGKARG_PATCH *p, const kmd_context_t *ctx,
                               const D3DDDI_PATCHLOCATIONLIST *loc, uint64_t *out_value)
{
    if (loc->Reserved != 0 || loc->AllocationIndex >= p->AllocationListSize)
        return STATUS_INVALID_PARAMETER;
    uint64_t off = loc->PatchOffset;
    if (off % 8 || off < p->DmaBufferSubmissionStartOffset || off + 8 > p->DmaBufferSubmissionEndOffset)
        return STATUS_INVALID_PARAMETER;
    const DXGK_ALLOCATIONLIST *al = &p->pAllocationList[loc->AllocationIndex];
    const kmd_open_t *op = al->hDeviceSpecificAllocation;
    if (!op || op->magic != KMD_MAGIC_OPEN || op->alloc->adapter != a ||
        (ctx && op->device != ctx->device) || al->Reserved)
        return STATUS_INVALID_PARAMETER;
    uint64_t base = (uint64_t)al->PhysicalAddress.QuadPart;
    uint64_t seg_base = 0, seg_size = 0;
    /* Segment 0: the allocation is in system memory and the address is its bus address. */
    if (al->SegmentId != 0 && (!kmd_segment_range(a, al->SegmentId, &seg_base, &seg_size) ||
                               !kmd_in_segment(a, al->SegmentId, base, 0)))
        return STATUS_INVALID_PARAMETER;
    if (base + loc->AllocationOffset < base)
        return STATUS_INVALID_PARAMETER;
    *out_value = base + loc->AllocationOffset;
    return STATUS_SUCCESS;
}

NTSTATUS APIENTRY DxgkDdiPatch(IN_CONST_HANDLE hAdapter, IN_CONST_PDXGKARG_PATCH p)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !p || !p->pDmaBuffer || p->Flags.Reserved)
        return STATUS_INVALID_PARAMETER;
    gr_link_mark(a->link, "DxgkDdiPatch fence=%u", (unsigned)p->SubmissionFenceId);
    const bool paging = p->Flags.Paging;
    kmd_context_t *ctx = NULL;
    if (p->hContext) {
        ctx = kmd_context_from(a, p->hContext);
        if (!ctx)
            return STATUS_INVALID_PARAMETER;
    } else if (!paging) {
        return STATUS_INVALID_PARAMETER;
    }
    const uint32_t start = p->DmaBufferSubmissionStartOffset, end = p->DmaBufferSubmissionEndOffset;
    if (start > end || end > p->DmaBufferSize || start % 8 || end % 8)
        return STATUS_INVALID_PARAMETER;
    const uint64_t first = p->PatchLocationListSubmissionStart;
    const uint64_t count = p->PatchLocationListSubmissionLength;
    if (first + count > p->PatchLocationListSize ||
        (count && (!p->pPatchLocationList || !p->pAllocationList)))
        return STATUS_INVALID_PARAMETER;
    /* What Patch writes is a physical address (a segment address or a bus address). A user
     * context's packet runs unprivileged and may name GPU virtual addresses only: the engine
     * would fault on the patched operand, so the patch is refused here, before it runs (under
     * GpuMmu, user DMA buffers carry GPU VAs and need no patching). */
    if (count && !kmd_privileged(ctx, paging))
        return STATUS_INVALID_PARAMETER;
    /* Paging buffers come without lists (DXGKARG_PATCH page): there is nothing to patch. */
    if (paging && (count || p->AllocationListSize || p->PatchLocationListSize))
        return STATUS_INVALID_PARAMETER;
    if (!paging) {
        if (!p->pDmaBufferPrivateData || p->DmaBufferPrivateDataSubmissionStartOffset != 0 ||
            p->DmaBufferPrivateDataSubmissionEndOffset > p->DmaBufferPrivateDataSize ||
            p->DmaBufferPrivateDataSubmissionEndOffset < GR_KMD_DMA_PRIVATE_BYTES)
            return STATUS_INVALID_PARAMETER;
    }
    for (uint64_t i = 0; i < count; i++) {
        uint64_t v = 0;
        NTSTATUS st = check_location(a, p, ctx, &p->pPatchLocationList[first + i], &v);
        if (st)
            return st;
    }

    if (!paging) {
        kmd_engine_t *e = &a->eng;
        pthread_mutex_lock(&e->sched_lock);
        /* A preemption the OS has heard of is taken into account first: its packets are then
         * "removed", and a re-patch finds the one it names. */
        if (e->ready)
            kmd_retire(a);
        kmd_packet_t *pk = kmd_packet_from_private(a, p->pDmaBufferPrivateData,
                                                   p->DmaBufferPrivateDataSize, 0,
                                                   p->DmaBufferPrivateDataSubmissionEndOffset);
        /* A buffer patched again (after a preemption) keeps its packet; one still on the ring
         * (the next part of a split buffer) gets a packet of its own. */
        if (!pk || pk->ctx != ctx || pk->state == KMD_PKT_QUEUED || pk->cancelled) {
            pk = kmd_packet_new(a);
            if (!pk) {
                pthread_mutex_unlock(&e->sched_lock);
                return STATUS_NO_MEMORY;
            }
            pk->ctx = ctx;
            pk->state = KMD_PKT_PATCHED;
            kmd_packet_write_tag(p->pDmaBufferPrivateData, 0, pk);
        }
        pk->fence = p->SubmissionFenceId;
        if (pk->start != start || pk->end != end ||
            pk->dma_addr != (uint64_t)p->DmaBufferPhysicalAddress.QuadPart) {
            pk->resume = 0;
            pk->resume_done = 0;
        }
        pk->dma_addr = (uint64_t)p->DmaBufferPhysicalAddress.QuadPart;
        /* The OS keeps the DMA buffer mapped until the packet retires: a cut command is read
         * back from here when the packet resumes. */
        pk->cpu = p->pDmaBuffer;
        pk->start = start;
        pk->end = end;
        pthread_mutex_unlock(&e->sched_lock);
    }

    uint8_t *dma = p->pDmaBuffer;
    for (uint64_t i = 0; i < count; i++) {
        const D3DDDI_PATCHLOCATIONLIST *loc = &p->pPatchLocationList[first + i];
        uint64_t v = 0;
        (void)check_location(a, p, ctx, loc, &v);
        gr_dma_put64(dma + loc->PatchOffset, v);
    }
    return STATUS_SUCCESS;
}
