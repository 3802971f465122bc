/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kmd_context.c: DxgkDdiCreateContext, DxgkDdiDestroyContext, DxgkDdiSetRootPageTable.
 *
 * One node, one engine: every context runs on the DMA engine. A context carries the root of its
 * GPU virtual address space (SetRootPageTable), which SubmitCommand writes into each ring entry
 * (USE_ROOT/ROOT), and owns its packets.
 */
#include <stdlib.h>
#include <string.h>

#include "kmd_dma.h"

#define KMD_ROOT_ENTRIES 512u /* the L3 table (rtl/mc/README.md, "Page tables") */

kmd_context_t *kmd_context_from(kmd_adapter_t *a, HANDLE h)
{
    kmd_context_t *c = h;
    return c && c->magic == KMD_MAGIC_CONTEXT && c->adapter == a ? c : NULL;
}

static bool flags_supported(DXGK_CREATECONTEXTFLAGS f)
{
    /* Hardware queues are a different scheduling model (DxgkDdiCreateHwQueue); not offered. */
    return !f.HwQueueSupported && !f.Reserved;
}

NTSTATUS APIENTRY DxgkDdiCreateContext(IN_CONST_HANDLE hDevice, INOUT_PDXGKARG_CREATECONTEXT c)
{
    kmd_device_t *d = hDevice;
    if (!d || d->magic != KMD_MAGIC_DEVICE || !c)
        return STATUS_INVALID_PARAMETER;
    kmd_adapter_t *a = d->adapter;
    gr_link_mark(a->link, "DxgkDdiCreateContext");
    if (c->NodeOrdinal != 0 || c->EngineAffinity > 1 || !flags_supported(c->Flags))
        return STATUS_INVALID_PARAMETER;
    /* gpuref defines no per-context private data: anything else came from another driver. */
    if (c->PrivateDriverDataSize != 0)
        return STATUS_GRAPHICS_DRIVER_MISMATCH;
    kmd_context_t *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return STATUS_NO_MEMORY;
    ctx->magic = KMD_MAGIC_CONTEXT;
    ctx->adapter = a;
    ctx->device = d;
    ctx->flags = c->Flags;
    atomic_fetch_add(&d->live_contexts, 1);
    atomic_fetch_add(&a->n_contexts, 1);

    DXGK_CONTEXTINFO info;
    memset(&info, 0, sizeof info);
    info.DmaBufferSize = KMD_DMA_BUFFER_BYTES;
    info.DmaBufferSegmentSet = 0; /* contiguous system memory: the engine fetches from the host */
    info.DmaBufferPrivateDataSize = GR_KMD_DMA_PRIVATE_BYTES;
    info.AllocationListSize = KMD_ALLOCATION_LIST_SIZE; /* 256: what a GDI context must have */
    /* A user context runs on its own GPU VAs and its packets are unprivileged: a patch location
     * would write a physical address into its buffer (a leak, and refused by the engine anyway).
     * It gets none, so VidSch refuses a patch list at submit; the system context keeps them. */
    info.PatchLocationListSize = ctx->flags.SystemContext ? KMD_PATCH_LIST_SIZE : 0;
    info.Caps.Value = 0;
    info.PagingCompanionNodeId = 0;
    c->ContextInfo = info;
    c->hContext = ctx;
    return STATUS_SUCCESS;
}

NTSTATUS APIENTRY DxgkDdiDestroyContext(IN_CONST_HANDLE hContext)
{
    kmd_context_t *ctx = hContext;
    if (!ctx || ctx->magic != KMD_MAGIC_CONTEXT)
        return STATUS_INVALID_PARAMETER;
    kmd_adapter_t *a = ctx->adapter;
    gr_link_mark(a->link, "DxgkDdiDestroyContext");
    pthread_mutex_lock(&a->eng.sched_lock);
    if (a->eng.ready)
        kmd_retire(a);
    kmd_packets_drop(a, ctx);
    ctx->magic = KMD_MAGIC_DEAD;
    pthread_mutex_unlock(&a->eng.sched_lock);
    atomic_fetch_sub(&ctx->device->live_contexts, 1);
    atomic_fetch_sub(&a->n_contexts, 1);
    free(ctx);
    return STATUS_SUCCESS;
}

VOID APIENTRY DxgkDdiSetRootPageTable(IN_CONST_HANDLE hAdapter,
                                      IN_CONST_PDXGKARG_SETROOTPAGETABLE r)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !r)
        return;
    gr_link_mark(a->link, "DxgkDdiSetRootPageTable");
    pthread_mutex_lock(&a->eng.sched_lock);
    kmd_context_t *ctx = kmd_context_from(a, r->hContext);
    if (ctx) {
        uint64_t base = 0, size = 0;
        uint64_t off = r->Address.SegmentOffset;
        /* The WDK gives this DDI no status: a root the MMU cannot walk is refused and counted,
         * and the context keeps the root it had. */
        if (r->Address.Padding == 0 && kmd_segment_range(a, r->Address.SegmentId, &base, &size) &&
            off % KMD_PAGE == 0 && off < size && size - off >= KMD_PAGE && r->NumEntries >= 1 &&
            r->NumEntries <= KMD_ROOT_ENTRIES) {
            ctx->has_root = true;
            ctx->root = base + off;
            ctx->root_entries = r->NumEntries;
        } else {
            ctx->rejected_roots++;
        }
    }
    pthread_mutex_unlock(&a->eng.sched_lock);
}

NTSTATUS gr_kmd_context_query(HANDLE hAdapter, HANDLE hContext, gr_kmd_context_info_t *out_info)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !out_info)
        return STATUS_INVALID_PARAMETER;
    NTSTATUS st = STATUS_INVALID_PARAMETER;
    pthread_mutex_lock(&a->eng.sched_lock);
    kmd_context_t *ctx = kmd_context_from(a, hContext);
    if (ctx) {
        gr_kmd_context_info_t i;
        memset(&i, 0, sizeof i);
        i.hDevice = ctx->device;
        i.flags = ctx->flags.Value;
        i.has_root = ctx->has_root;
        i.root = ctx->root;
        i.root_entries = ctx->root_entries;
        i.rejected_roots = ctx->rejected_roots;
        *out_info = i;
        st = STATUS_SUCCESS;
    }
    pthread_mutex_unlock(&a->eng.sched_lock);
    return st;
}
