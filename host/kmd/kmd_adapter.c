/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kmd_adapter.c: the miniport's adapter: start/stop, devices, DxgkDdiQueryAdapterInfo
 * (DRIVERCAPS, QUERYSEGMENT4), the VPR registers and the movable CPU window.
 */
#include <stdlib.h>
#include <string.h>

#include "gpuref/gr_regdesc.h"
#include "gpuref/gr_regmap.h"
#include "kmd_dma.h"
#include "kmd_internal.h"

#define KMD_VPR_CTRL_ENABLE GR_FIELD_SET(VPR_CTRL, ENABLE, 1)
#define KMD_VPR_CTRL_LOCK GR_FIELD_SET(VPR_CTRL, LOCK, 1)
#define KMD_PAGE_MASK 0xfffff000u

_Static_assert(GPU_REGS__MC_AP_BASE__PAGE_bm == KMD_PAGE_MASK, "MC_AP_BASE holds bits 31:12");
_Static_assert(GPU_REGS__ID_CAPS__MC_bm == 0x1u, "ID_CAPS.MC is bit 0");

NTSTATUS gr_kmd_start_adapter(const gr_kmd_start_info_t *info, HANDLE *out_hAdapter)
{
    if (!info || !info->link || !info->link_lock || !info->dxgkrnl || !out_hAdapter ||
        info->dxgkrnl->Size != sizeof(DXGKRNL_INTERFACE) || !info->dxgkrnl->DxgkCbGetHandleData)
        return STATUS_INVALID_PARAMETER;
    kmd_adapter_t *a = calloc(1, sizeof *a);
    if (!a)
        return STATUS_NO_MEMORY;
    a->link = info->link;
    a->link_lock = info->link_lock;
    gr_link_mark(a->link, "gr_kmd_start_adapter");
    a->cb = *info->dxgkrnl;
    NTSTATUS st = STATUS_UNSUCCESSFUL;
    uint32_t lo = 0, hi = 0, ap = 0;
    if (kmd_reg_read(a, GR_REG_ID_CAPS, &a->id_caps) || kmd_reg_read(a, GR_REG_MC_VRAM_SIZE_LO, &lo) ||
        kmd_reg_read(a, GR_REG_MC_VRAM_SIZE_HI, &hi) || kmd_reg_read(a, GR_REG_MC_AP_SIZE, &ap))
        goto fail;
    a->vram_bytes = ((uint64_t)GR_FIELD_GET(MC_VRAM_SIZE_HI, BYTES, hi) << 32) | lo;
    a->ap_bytes = ap;
    st = STATUS_DEVICE_NOT_READY;
    /* Segments are handed out in whole pages; a device without its MC has no VRAM to offer. */
    if (!(a->id_caps & GPU_REGS__ID_CAPS__MC_bm) || a->vram_bytes < KMD_PAGE || a->ap_bytes < KMD_PAGE ||
        a->vram_bytes % KMD_PAGE || a->ap_bytes % KMD_PAGE || a->vram_bytes > (UINT64_C(1) << 32))
        goto fail;
    a->segment_count = a->vram_bytes > a->ap_bytes ? 2 : 1;
    /* Protected content belongs where the CPU cannot reach by default. */
    a->vpr_segment = a->segment_count;
    st = STATUS_UNSUCCESSFUL;
    if (kmd_reg_write(a, GR_REG_MC_AP_BASE, 0))
        goto fail;
    if (pthread_mutex_init(&a->window_lock, NULL)) {
        st = STATUS_NO_MEMORY;
        goto fail;
    }
    st = kmd_engine_start(a);
    if (st) {
        pthread_mutex_destroy(&a->window_lock);
        goto fail;
    }
    a->magic = KMD_MAGIC_ADAPTER;
    *out_hAdapter = a;
    return STATUS_SUCCESS;
fail:
    free(a);
    return st;
}

void gr_kmd_stop_adapter(HANDLE hAdapter)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a)
        return;
    kmd_engine_stop(a);
    a->magic = KMD_MAGIC_DEAD;
    pthread_mutex_destroy(&a->window_lock);
    free(a);
}

NTSTATUS gr_kmd_create_device(HANDLE hAdapter, HANDLE hDxgkDevice, HANDLE *out_hDevice)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !out_hDevice)
        return STATUS_INVALID_PARAMETER;
    kmd_device_t *d = calloc(1, sizeof *d);
    if (!d)
        return STATUS_NO_MEMORY;
    d->magic = KMD_MAGIC_DEVICE;
    d->adapter = a;
    d->hDxgkDevice = hDxgkDevice;
    atomic_fetch_add(&a->n_devices, 1);
    *out_hDevice = d;
    return STATUS_SUCCESS;
}

NTSTATUS gr_kmd_destroy_device(HANDLE hDevice)
{
    kmd_device_t *d = hDevice;
    if (!d || d->magic != KMD_MAGIC_DEVICE || atomic_load(&d->live_contexts))
        return STATUS_INVALID_PARAMETER;
    atomic_fetch_sub(&d->adapter->n_devices, 1);
    d->magic = KMD_MAGIC_DEAD;
    free(d);
    return STATUS_SUCCESS;
}

NTSTATUS gr_kmd_counts(HANDLE hAdapter, gr_kmd_counts_t *out_counts)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !out_counts)
        return STATUS_INVALID_PARAMETER;
    out_counts->allocations = atomic_load(&a->n_allocs);
    out_counts->resources = atomic_load(&a->n_resources);
    out_counts->opens = atomic_load(&a->n_opens);
    out_counts->devices = atomic_load(&a->n_devices);
    out_counts->contexts = atomic_load(&a->n_contexts);
    out_counts->packets = atomic_load(&a->n_packets);
    return STATUS_SUCCESS;
}

/* ---- DxgkDdiQueryAdapterInfo ------------------------------------------------------------ */

static NTSTATUS query_driver_caps(kmd_adapter_t *a, const DXGKARG_QUERYADAPTERINFO *q)
{
    if (!q->pOutputData)
        return STATUS_INVALID_PARAMETER;
    if (q->OutputDataSize < sizeof(DXGK_DRIVERCAPS))
        return STATUS_BUFFER_TOO_SMALL;
    DXGK_DRIVERCAPS caps;
    memset(&caps, 0, sizeof caps);
    /* m_host carries 64-bit bus addresses: any system page is reachable. */
    caps.HighestAcceptableAddress.QuadPart = INT64_MAX;
    /* No cursor, no overlays, no display: the device has no scan-out. */
    caps.MaxPointerWidth = 0;
    caps.MaxPointerHeight = 0;
    caps.MaxOverlays = 0;
    /* BAR1 is device memory behind PCIe (or a link): not coherent with CPU caches. */
    caps.PresentationCaps.NoCacheCoherentApertureMemory = 1;
    /* The MC has a GPU MMU (4 KiB, 64 KiB and 2 MiB pages): the WDDM 2.0 GPU-VA model. */
    caps.MemoryManagementCaps.VirtualAddressingSupported = 1;
    caps.MemoryManagementCaps.GpuMmuSupported = 1;
    caps.MemoryManagementCaps.IoMmuSupported = 0;
    caps.MemoryManagementCaps.MapAperture2Supported = 0;
    caps.MemoryManagementCaps.OutOfOrderLock = 0;
    caps.MemoryManagementCaps.PagingNode = 0;
    caps.SchedulingCaps.Value = 0;
    if (a->eng.ready) {
        /* One node, one engine: the DMA engine, also the paging engine (PagingNode 0). */
        caps.GpuEngineTopology.NbAsymetricProcessingNodes = 1;
        /* Contexts are supported, which PreemptionAware and CancelCommandAware both require
         * (DXGK_VIDSCHCAPS page). The engine patches nothing itself: NoDmaPatching stays 0. */
        caps.SchedulingCaps.MultiEngineAware = 1;
        caps.SchedulingCaps.PreemptionAware = 1;
        caps.SchedulingCaps.CancelCommandAware = 1;
        /* The engine stops inside a DMA buffer at a command boundary and the miniport resumes
         * there: commands are the primitives (there is no compute; it stops the same way). */
        caps.PreemptionCaps.GraphicsPreemptionGranularity = D3DKMDT_GRAPHICS_PREEMPTION_PRIMITIVE_BOUNDARY;
        caps.PreemptionCaps.ComputePreemptionGranularity = D3DKMDT_COMPUTE_PREEMPTION_DISPATCH_BOUNDARY;
        caps.InterruptMessageNumber = 0; /* one line-based interrupt */
    }
    /* Reserved for drivers of Windows 7 and later (DXGK_DRIVERCAPS page). */
    caps.WDDMVersion = (DXGK_WDDMVERSION)0;
    memcpy(q->pOutputData, &caps, sizeof caps);
    return STATUS_SUCCESS;
}

static void fill_segment(const kmd_adapter_t *a, uint32_t id, DXGK_SEGMENTDESCRIPTOR4 *d)
{
    memset(d, 0, sizeof *d);
    uint64_t visible = a->ap_bytes < a->vram_bytes ? a->ap_bytes : a->vram_bytes;
    if (id == 1) {
        d->BaseAddress.QuadPart = 0;
        d->Size = visible;
        d->Flags.CpuVisible = 1;
        /* BAR1 offset of the segment's start (gpuref has no CPU physical address map). */
        d->CpuTranslatedAddress.QuadPart = 0;
    } else {
        d->BaseAddress.QuadPart = (LONGLONG)visible;
        d->Size = a->vram_bytes - visible;
    }
    d->CommitLimit = d->Size;
    if (id == a->vpr_segment) {
        d->Flags.VprSupported = 1;
        d->NumVprSupported = 1;
        /* 64 KiB (protected allocations keep their 64 KiB pages), but never more than 1/16 of
         * the segment, the share VidMm gives the VPR: a 128 KiB VRAM keeps 120 KiB for the rest.
         * The RTL's VPR is page-granular, so 4 KiB at least. */
        uint32_t align = 64u * 1024u;
        while (align > KMD_PAGE && align > d->Size / 16)
            align /= 2;
        d->VprAlignment = align;
        /* 0/0: the whole segment may hold the VPR; VidMm picks the range. */
        d->VprRangeStartOffset = 0;
        d->VprRangeSize = 0;
    }
}

static NTSTATUS query_segment4(kmd_adapter_t *a, const DXGKARG_QUERYADAPTERINFO *q)
{
    if (!q->pOutputData)
        return STATUS_INVALID_PARAMETER;
    if (q->OutputDataSize < sizeof(DXGK_QUERYSEGMENTOUT4))
        return STATUS_BUFFER_TOO_SMALL;
    if (q->pInputData) {
        if (q->InputDataSize < sizeof(DXGK_QUERYSEGMENTIN4))
            return STATUS_INVALID_PARAMETER;
        if (((const DXGK_QUERYSEGMENTIN4 *)q->pInputData)->PhysicalAdapterIndex != 0)
            return STATUS_INVALID_PARAMETER;
    }
    DXGK_QUERYSEGMENTOUT4 *out = q->pOutputData;
    /* First call: the count only, no other member touched (DXGK_QUERYSEGMENTOUT4 page). */
    if (out->NbSegment == 0) {
        out->NbSegment = a->segment_count;
        return STATUS_SUCCESS;
    }
    if (out->NbSegment < a->segment_count)
        return STATUS_BUFFER_TOO_SMALL;
    if (!out->pSegmentDescriptor || out->SegmentDescriptorStride < sizeof(DXGK_SEGMENTDESCRIPTOR4))
        return STATUS_INVALID_PARAMETER;
    for (uint32_t i = 0; i < a->segment_count; i++)
        fill_segment(a, i + 1,
                     (DXGK_SEGMENTDESCRIPTOR4 *)(out->pSegmentDescriptor + i * out->SegmentDescriptorStride));
    out->NbSegment = a->segment_count;
    /* Paging buffers, with the engine: contiguous system memory (segment 0), which the engine
     * reads on m_host; without it VidMm moves nothing with paging buffers. */
    out->PagingBufferSegmentId = 0;
    out->PagingBufferSize = a->eng.ready ? KMD_DMA_BUFFER_BYTES : 0;
    out->PagingBufferPrivateDataSize = a->eng.ready ? GR_KMD_DMA_PRIVATE_BYTES : 0;
    return STATUS_SUCCESS;
}

NTSTATUS APIENTRY DxgkDdiQueryAdapterInfo(IN_CONST_HANDLE hAdapter,
                                          IN_CONST_PDXGKARG_QUERYADAPTERINFO pQueryAdapterInfo)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !pQueryAdapterInfo)
        return STATUS_INVALID_PARAMETER;
    gr_link_mark(a->link, "DxgkDdiQueryAdapterInfo type=%d", (int)pQueryAdapterInfo->Type);
    switch (pQueryAdapterInfo->Type) {
    case DXGKQAITYPE_DRIVERCAPS:
        return query_driver_caps(a, pQueryAdapterInfo);
    case DXGKQAITYPE_QUERYSEGMENT4:
        return query_segment4(a, pQueryAdapterInfo);
    default:
        return STATUS_NOT_SUPPORTED;
    }
}

/* ---- VPR and CPU window ----------------------------------------------------------------- */

NTSTATUS gr_kmd_set_vpr(HANDLE hAdapter, uint64_t base, uint64_t limit)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || base % KMD_PAGE || limit % KMD_PAGE || limit < base || limit > a->vram_bytes ||
        limit > UINT32_MAX)
        return STATUS_INVALID_PARAMETER;
    gr_link_mark(a->link, "gr_kmd_set_vpr");
    uint32_t ctrl = 0;
    if (kmd_reg_read(a, GR_REG_VPR_CTRL, &ctrl))
        return STATUS_UNSUCCESSFUL;
    /* Once programmed the VPR is locked (VPR_CTRL.LOCK: read-only until a hard reset), so that
     * no register writer can move or disable it and read protected content through BAR1. */
    uint32_t want_ctrl = limit > base ? KMD_VPR_CTRL_ENABLE | KMD_VPR_CTRL_LOCK : 0;
    if (!(ctrl & KMD_VPR_CTRL_LOCK)) {
        if (kmd_reg_write(a, GR_REG_VPR_CTRL, 0) || kmd_reg_write(a, GR_REG_VPR_BASE, (uint32_t)base) ||
            kmd_reg_write(a, GR_REG_VPR_LIMIT, (uint32_t)limit) ||
            kmd_reg_write(a, GR_REG_VPR_CTRL, want_ctrl & ~KMD_VPR_CTRL_LOCK) ||
            (want_ctrl && kmd_reg_write(a, GR_REG_VPR_CTRL, want_ctrl)))
            return STATUS_UNSUCCESSFUL;
    }
    /* Read back: a locked VPR keeps its old values, and the OS must know it did not move. */
    uint32_t rb_base = 0, rb_limit = 0;
    if (kmd_reg_read(a, GR_REG_VPR_BASE, &rb_base) || kmd_reg_read(a, GR_REG_VPR_LIMIT, &rb_limit) ||
        kmd_reg_read(a, GR_REG_VPR_CTRL, &ctrl))
        return STATUS_UNSUCCESSFUL;
    /* A VPR locked before (by this driver, on a device that was not hard-reset since) is
     * accepted when it is the one asked for; a request to remove it cannot be met. */
    if ((limit > base && (rb_base != (uint32_t)base || rb_limit != (uint32_t)limit)) ||
        (ctrl & (KMD_VPR_CTRL_ENABLE | KMD_VPR_CTRL_LOCK)) != want_ctrl)
        return STATUS_DEVICE_NOT_READY;
    return STATUS_SUCCESS;
}

NTSTATUS gr_kmd_acquire_cpu_window(HANDLE hAdapter, uint64_t vram_addr, uint64_t bytes,
                                   uint64_t *out_ap_offset, uint64_t *out_ap_bytes)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !out_ap_offset || !out_ap_bytes || bytes == 0 || vram_addr >= a->vram_bytes ||
        bytes > a->vram_bytes - vram_addr)
        return STATUS_INVALID_PARAMETER;
    gr_link_mark(a->link, "gr_kmd_acquire_cpu_window");
    pthread_mutex_lock(&a->window_lock);
    uint64_t base = 0;
    if (vram_addr + bytes > a->ap_bytes) {
        base = vram_addr & ~(uint64_t)(KMD_PAGE - 1);
        if (kmd_reg_write(a, GR_REG_MC_AP_BASE, (uint32_t)base)) {
            pthread_mutex_unlock(&a->window_lock);
            return STATUS_UNSUCCESSFUL;
        }
        a->window_moved = true;
    }
    uint64_t off = vram_addr - base;
    uint64_t room = a->ap_bytes - off;
    *out_ap_offset = off;
    *out_ap_bytes = bytes < room ? bytes : room;
    return STATUS_SUCCESS;
}

NTSTATUS gr_kmd_release_cpu_window(HANDLE hAdapter)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a)
        return STATUS_INVALID_PARAMETER;
    gr_link_mark(a->link, "gr_kmd_release_cpu_window");
    NTSTATUS st = STATUS_SUCCESS;
    if (a->window_moved) {
        if (kmd_reg_write(a, GR_REG_MC_AP_BASE, 0))
            st = STATUS_UNSUCCESSFUL;
        a->window_moved = false;
    }
    pthread_mutex_unlock(&a->window_lock);
    return st;
}

NTSTATUS gr_kmd_flush_tlb(HANDLE hAdapter)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a)
        return STATUS_INVALID_PARAMETER;
    gr_link_mark(a->link, "gr_kmd_flush_tlb");
    return kmd_reg_write(a, GR_REG_MMU_INVALIDATE, GR_FIELD_SET(MMU_INVALIDATE, ALL, 1)) ? STATUS_UNSUCCESSFUL
                                                                                        : STATUS_SUCCESS;
}
