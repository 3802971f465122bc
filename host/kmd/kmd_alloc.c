/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kmd_alloc.c: DxgkDdiCreateAllocation, DxgkDdiOpenAllocation, DxgkDdiCloseAllocation and
 * DxgkDdiDestroyAllocation. The private-data format is gr_alloc_private.h; what each request
 * becomes is tabled in host/kmd/README.md.
 *
 * All four are level-zero DDIs: they may run on several threads at once. Nothing here is
 * shared between calls except the adapter's atomic counters and a resource's atomic
 * allocation count, so no lock is needed.
 */
#include <stdlib.h>
#include <string.h>

#include "kmd_internal.h"

#define KIB UINT64_C(1024)
#define MIB (KIB * 1024)
#define GIB (MIB * 1024)
#define KMD_PITCH_ALIGN 256u   /* row pitch of every surface level */
#define KMD_MIP_ALIGN 512u     /* start of each mip level inside a slice */
#define KMD_MAX_DIM 16384u
#define KMD_MAX_ARRAY 2048u
#define KMD_MAX_BYTES (4 * GIB)

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

static uint32_t format_bytes(uint32_t format)
{
    switch (format) {
    case D3DDDIFMT_A8R8G8B8:
    case D3DDDIFMT_X8R8G8B8:
    case D3DDDIFMT_A8B8G8R8:
    case D3DDDIFMT_X8B8G8R8:
        return 4;
    case D3DDDIFMT_R8G8B8:
        return 3;
    case D3DDDIFMT_R5G6B5:
        return 2;
    case D3DDDIFMT_A8:
    case D3DDDIFMT_R8:
        return 1;
    default:
        return 0;
    }
}

static uint32_t full_mip_chain(uint32_t w, uint32_t h)
{
    uint32_t m = w > h ? w : h, n = 1;
    while (m > 1) {
        m >>= 1;
        n++;
    }
    return n;
}

static bool cpu_visible_access(uint32_t cpu)
{
    return cpu == GR_CPU_ACCESS_READ || cpu == GR_CPU_ACCESS_WRITE || cpu == GR_CPU_ACCESS_READ_WRITE;
}

/*
 * Validates one allocation's private data and lays it out into *k. Returns
 * STATUS_INVALID_PARAMETER for anything this miniport does not understand or cannot honour.
 */
static NTSTATUS parse_alloc(const DXGK_ALLOCATIONINFO *info, kmd_alloc_t *k)
{
    const gr_alloc_private_t *p = info->pPrivateDriverData;
    if (!p || info->PrivateDriverDataSize != sizeof *p)
        return STATUS_INVALID_PARAMETER;
    memcpy(&k->priv, p, sizeof *p);
    p = &k->priv;
    if (p->version != GR_ALLOC_PRIVATE_VERSION || p->struct_size != sizeof *p || (p->flags & ~GR_ALLOC_PRIV_ALL_FLAGS) ||
        p->cpu_access > GR_CPU_ACCESS_ON_DEMAND || p->reserved[0] || p->reserved[1] || p->reserved[2] ||
        p->reserved[3])
        return STATUS_INVALID_PARAMETER;
    uint32_t f = p->flags;
    bool cpu = cpu_visible_access(p->cpu_access);
    /* Requests that cannot be expressed as a valid WDDM 2.0 flag set, or that contradict the
     * hardware (the VPR refuses the CPU), are refused here rather than passed on to VidMm. */
    if ((f & (GR_ALLOC_PRIV_PERMANENT_SYSMEM | GR_ALLOC_PRIV_CACHED)) && !cpu)
        return STATUS_INVALID_PARAMETER;
    if ((f & GR_ALLOC_PRIV_EXPLICIT_RESIDENCY) && !(f & GR_ALLOC_PRIV_PHYSICAL))
        return STATUS_INVALID_PARAMETER;
    if ((f & GR_ALLOC_PRIV_PROTECTED) && (f & (GR_ALLOC_PRIV_PERMANENT_SYSMEM | GR_ALLOC_PRIV_EXISTING_SYSMEM)))
        return STATUS_INVALID_PARAMETER;
    if ((f & GR_ALLOC_PRIV_EXISTING_SYSMEM) &&
        ((f & ~(GR_ALLOC_PRIV_EXISTING_SYSMEM | GR_ALLOC_PRIV_CACHED | GR_ALLOC_PRIV_SHARED |
                GR_ALLOC_PRIV_NO_LARGE_PAGES)) ||
         p->cpu_access == GR_CPU_ACCESS_ON_DEMAND))
        return STATUS_INVALID_PARAMETER;
    if ((f & GR_ALLOC_PRIV_IN_VPR) &&
        (p->cpu_access != GR_CPU_ACCESS_NONE || (f & (GR_ALLOC_PRIV_PERMANENT_SYSMEM | GR_ALLOC_PRIV_CACHED))))
        return STATUS_INVALID_PARAMETER;
    if ((f & GR_ALLOC_PRIV_HISTORY_BUFFER) &&
        (f != GR_ALLOC_PRIV_HISTORY_BUFFER || p->kind != GR_ALLOC_KIND_BUFFER ||
         (p->cpu_access != GR_CPU_ACCESS_NONE && p->cpu_access != GR_CPU_ACCESS_READ)))
        return STATUS_INVALID_PARAMETER;

    if (p->kind == GR_ALLOC_KIND_BUFFER) {
        if (p->buffer_bytes == 0 || p->buffer_bytes > KMD_MAX_BYTES || p->format || p->width || p->height ||
            p->mip_levels || p->array_size)
            return STATUS_INVALID_PARAMETER;
        k->size = p->buffer_bytes;
        k->slice_stride = p->buffer_bytes;
        return STATUS_SUCCESS;
    }
    if (p->kind != GR_ALLOC_KIND_SURFACE2D)
        return STATUS_INVALID_PARAMETER;
    k->bytes_per_texel = format_bytes(p->format);
    if (!k->bytes_per_texel || p->buffer_bytes || p->width == 0 || p->width > KMD_MAX_DIM || p->height == 0 ||
        p->height > KMD_MAX_DIM || p->mip_levels == 0 || p->mip_levels > full_mip_chain(p->width, p->height) ||
        p->array_size == 0 || p->array_size > KMD_MAX_ARRAY)
        return STATUS_INVALID_PARAMETER;
    uint64_t off = 0;
    for (uint32_t m = 0; m < p->mip_levels; m++) {
        uint32_t w = p->width >> m ? p->width >> m : 1;
        uint32_t h = p->height >> m ? p->height >> m : 1;
        off = align_up(off, KMD_MIP_ALIGN);
        k->mip_offset[m] = off;
        k->mip_pitch[m] = (uint32_t)align_up((uint64_t)w * k->bytes_per_texel, KMD_PITCH_ALIGN);
        off += (uint64_t)k->mip_pitch[m] * h;
    }
    k->slice_stride = align_up(off, KMD_PAGE);
    uint64_t total = k->slice_stride * p->array_size;
    if (total > KMD_MAX_BYTES)
        return STATUS_INVALID_PARAMETER;
    k->size = total;
    return STATUS_SUCCESS;
}

/* Fills the DXGK_ALLOCATIONINFO outputs from a parsed request (host/kmd/README.md table). */
static void describe_alloc(const kmd_adapter_t *a, kmd_alloc_t *k, DXGK_ALLOCATIONINFO *info)
{
    const gr_alloc_private_t *p = &k->priv;
    uint32_t f = p->flags;
    DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 fl;
    fl.Value = 0;
    fl.CpuVisible = cpu_visible_access(p->cpu_access) || (f & GR_ALLOC_PRIV_HISTORY_BUFFER);
    fl.Cached = p->cpu_access == GR_CPU_ACCESS_READ || p->cpu_access == GR_CPU_ACCESS_READ_WRITE ||
                (f & GR_ALLOC_PRIV_CACHED);
    if (f & GR_ALLOC_PRIV_HISTORY_BUFFER)
        fl.Cached = p->cpu_access == GR_CPU_ACCESS_READ;
    fl.CpuVisibleOnDemand = p->cpu_access == GR_CPU_ACCESS_ON_DEMAND;
    fl.PermanentSysMem = !!(f & GR_ALLOC_PRIV_PERMANENT_SYSMEM);
    fl.Protected = !!(f & GR_ALLOC_PRIV_PROTECTED);
    fl.ExistingSysMem = !!(f & GR_ALLOC_PRIV_EXISTING_SYSMEM);
    fl.FromEndOfSegment = !!(f & GR_ALLOC_PRIV_FROM_END);
    fl.DisableLargePageMapping = !!(f & GR_ALLOC_PRIV_NO_LARGE_PAGES);
    fl.Overlay = !!(f & GR_ALLOC_PRIV_OVERLAY);
    fl.Capture = !!(f & GR_ALLOC_PRIV_CAPTURE);
    fl.HistoryBuffer = !!(f & GR_ALLOC_PRIV_HISTORY_BUFFER);
    fl.AccessedPhysically = !!(f & GR_ALLOC_PRIV_PHYSICAL);
    fl.ExplicitResidencyNotification = !!(f & GR_ALLOC_PRIV_EXPLICIT_RESIDENCY);
    fl.CreateInVpr = !!(f & GR_ALLOC_PRIV_IN_VPR);
    fl.HardwareProtected = !!(f & GR_ALLOC_PRIV_IN_VPR);
    info->FlagsWddm2 = fl;
    info->Flags2.Value = 0;

    /* Large allocations get large-page alignment so the GPU VA mapping can use 2 MiB / 64 KiB
     * PTEs; surfaces are always 64 KiB aligned (their rows are fetched in 64 KiB tiles). */
    uint64_t size = align_up(k->size, KMD_PAGE);
    uint32_t align = KMD_PAGE;
    if (!(f & GR_ALLOC_PRIV_NO_LARGE_PAGES)) {
        if (size >= 2 * MIB)
            align = 2 * MIB;
        else if (size >= 64 * KIB || p->kind == GR_ALLOC_KIND_SURFACE2D)
            align = 64 * KIB;
    }
    info->Alignment = align;
    info->Size = size;
    info->PitchAlignedSize = 0;
    info->HintedBank.Value = 0;
    info->EvictionSegmentSet = 0;
    info->PhysicalAdapterIndex = 0;
    info->pAllocationUsageHint = NULL;
    info->AllocationPriority = (f & (GR_ALLOC_PRIV_OVERLAY | GR_ALLOC_PRIV_CAPTURE))
                                   ? D3DDDI_ALLOCATIONPRIORITY_HIGH
                                   : D3DDDI_ALLOCATIONPRIORITY_NORMAL;

    /* Segment sets: bit n is segment n+1. */
    uint32_t all = a->segment_count == 2 ? 0x3u : 0x1u;
    uint32_t set;
    uint32_t pref[2] = {0, 0};
    if (fl.ExistingSysMem) {
        set = 0; /* the caller's pages: no VRAM segment */
    } else if (fl.CreateInVpr || fl.Protected) {
        /* VidMm keeps all protected content in the VPR (host/dxgk/README.md). */
        set = 1u << (a->vpr_segment - 1);
        pref[0] = a->vpr_segment;
    } else if (fl.CpuVisible) {
        set = 0x1u;
        pref[0] = 1;
    } else {
        /* Keep the CPU-visible segment for allocations that need it. */
        set = all;
        pref[0] = a->segment_count;
        pref[1] = a->segment_count == 2 ? 1 : 0;
    }
    info->SupportedReadSegmentSet = set;
    info->SupportedWriteSegmentSet = set;
    info->PreferredSegment.Value = 0;
    info->PreferredSegment.SegmentId0 = pref[0];
    info->PreferredSegment.SegmentId1 = pref[1];
    info->PreferredSegment.Direction0 = pref[0] && fl.FromEndOfSegment;
    info->PreferredSegment.Direction1 = pref[1] && fl.FromEndOfSegment;
    info->hAllocation = k;
}

static NTSTATUS parse_resource(const DXGKARG_CREATEALLOCATION *c, gr_resource_private_t *out)
{
    memset(out, 0, sizeof *out);
    if (!c->pPrivateDriverData && c->PrivateDriverDataSize == 0)
        return STATUS_SUCCESS;
    const gr_resource_private_t *p = c->pPrivateDriverData;
    if (!p || c->PrivateDriverDataSize != sizeof *p)
        return STATUS_INVALID_PARAMETER;
    if (p->version != GR_ALLOC_PRIVATE_VERSION || p->struct_size != sizeof *p || p->flags || p->reserved[0] ||
        p->reserved[1] || p->reserved[2] || p->reserved[3])
        return STATUS_INVALID_PARAMETER;
    *out = *p;
    return STATUS_SUCCESS;
}

static void free_alloc(kmd_alloc_t *k)
{
    if (k->resource)
        atomic_fetch_sub(&k->resource->live_allocs, 1);
    atomic_fetch_sub(&k->adapter->n_allocs, 1);
    k->magic = KMD_MAGIC_DEAD;
    free(k);
}

NTSTATUS APIENTRY DxgkDdiCreateAllocation(IN_CONST_HANDLE hAdapter, INOUT_PDXGKARG_CREATEALLOCATION c)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !c || c->NumAllocations == 0 || !c->pAllocationInfo || c->Flags.Reserved)
        return STATUS_INVALID_PARAMETER;
    gr_link_mark(a->link, "DxgkDdiCreateAllocation n=%u", (unsigned)c->NumAllocations);
    gr_resource_private_t rpriv;
    NTSTATUS st = parse_resource(c, &rpriv);
    if (st)
        return st;
    /* Resource data without a resource has nowhere to live. */
    if (!c->Flags.Resource && (c->pPrivateDriverData || c->hResource))
        return STATUS_INVALID_PARAMETER;

    kmd_resource_t *res = NULL;
    bool res_created = false;
    if (c->Flags.Resource) {
        if (c->hResource) {
            res = c->hResource;
            if (res->magic != KMD_MAGIC_RESOURCE || res->adapter != a)
                return STATUS_INVALID_PARAMETER;
        } else {
            res = calloc(1, sizeof *res);
            if (!res)
                return STATUS_NO_MEMORY;
            res->magic = KMD_MAGIC_RESOURCE;
            res->adapter = a;
            res->priv = rpriv;
            atomic_fetch_add(&a->n_resources, 1);
            res_created = true;
        }
    }
    UINT made = 0;
    for (; made < c->NumAllocations; made++) {
        DXGK_ALLOCATIONINFO *info = &c->pAllocationInfo[made];
        kmd_alloc_t *k = calloc(1, sizeof *k);
        if (!k) {
            st = STATUS_NO_MEMORY;
            break;
        }
        k->adapter = a;
        st = parse_alloc(info, k);
        if (st) {
            free(k);
            break;
        }
        k->magic = KMD_MAGIC_ALLOC;
        k->resource = res;
        if (res)
            atomic_fetch_add(&res->live_allocs, 1);
        atomic_fetch_add(&a->n_allocs, 1);
        describe_alloc(a, k, info);
    }
    if (st) {
        for (UINT i = 0; i < made; i++) {
            free_alloc(c->pAllocationInfo[i].hAllocation);
            c->pAllocationInfo[i].hAllocation = NULL;
        }
        if (res_created) {
            atomic_fetch_sub(&a->n_resources, 1);
            res->magic = KMD_MAGIC_DEAD;
            free(res);
        }
        return st;
    }
    if (res_created)
        c->hResource = res;
    return STATUS_SUCCESS;
}

/* Byte offset and row pitch of one subresource; false past the last one. */
static bool subresource(const kmd_alloc_t *k, UINT index, SIZE_T *out_offset, UINT *out_pitch)
{
    if (k->priv.kind == GR_ALLOC_KIND_BUFFER) {
        if (index != 0)
            return false;
        *out_offset = 0;
        *out_pitch = 0;
        return true;
    }
    uint64_t count = (uint64_t)k->priv.mip_levels * k->priv.array_size;
    if (index >= count)
        return false;
    uint32_t mip = index % k->priv.mip_levels, slice = index / k->priv.mip_levels;
    *out_offset = (SIZE_T)(slice * k->slice_stride + k->mip_offset[mip]);
    *out_pitch = k->mip_pitch[mip];
    return true;
}

NTSTATUS APIENTRY DxgkDdiOpenAllocation(IN_CONST_HANDLE hDevice, IN_CONST_PDXGKARG_OPENALLOCATION o)
{
    kmd_device_t *d = hDevice;
    if (!d || d->magic != KMD_MAGIC_DEVICE || !o || o->NumAllocations == 0 || !o->pOpenAllocation ||
        o->Flags.Reserved)
        return STATUS_INVALID_PARAMETER;
    kmd_adapter_t *a = d->adapter;
    gr_link_mark(a->link, "DxgkDdiOpenAllocation n=%u", (unsigned)o->NumAllocations);
    UINT done = 0;
    NTSTATUS st = STATUS_SUCCESS;
    SIZE_T sub_offset = 0;
    UINT sub_pitch = 0;
    for (; done < o->NumAllocations; done++) {
        DXGK_OPENALLOCATIONINFO *oi = &o->pOpenAllocation[done];
        DXGKARGCB_GETHANDLEDATA q;
        memset(&q, 0, sizeof q);
        q.hObject = oi->hAllocation;
        q.Type = DXGK_HANDLE_ALLOCATION;
        kmd_alloc_t *k = a->cb.DxgkCbGetHandleData(&q);
        if (!k || k->magic != KMD_MAGIC_ALLOC || k->adapter != a) {
            st = STATUS_INVALID_PARAMETER;
            break;
        }
        /* Another device may only open an allocation laid out for sharing. */
        if (!o->Flags.Create && !(k->priv.flags & GR_ALLOC_PRIV_SHARED)) {
            st = STATUS_INVALID_PARAMETER;
            break;
        }
        /* SubresourceIndex names a subresource of the first allocation of the call. */
        if (done == 0 && !subresource(k, o->SubresourceIndex, &sub_offset, &sub_pitch)) {
            st = STATUS_INVALID_PARAMETER;
            break;
        }
        kmd_open_t *op = calloc(1, sizeof *op);
        if (!op) {
            st = STATUS_NO_MEMORY;
            break;
        }
        op->magic = KMD_MAGIC_OPEN;
        op->alloc = k;
        op->device = d;
        op->read_only = o->Flags.ReadOnly;
        op->creator = o->Flags.Create;
        atomic_fetch_add(&a->n_opens, 1);
        oi->hDeviceSpecificAllocation = op;
    }
    if (st) {
        for (UINT i = 0; i < done; i++) {
            kmd_open_t *op = o->pOpenAllocation[i].hDeviceSpecificAllocation;
            op->magic = KMD_MAGIC_DEAD;
            free(op);
            atomic_fetch_sub(&a->n_opens, 1);
            o->pOpenAllocation[i].hDeviceSpecificAllocation = NULL;
        }
        return st;
    }
    /* The WDK passes the arguments through a pointer to const; these two are outputs. */
    ((DXGKARG_OPENALLOCATION *)o)->SubresourceOffset = sub_offset;
    ((DXGKARG_OPENALLOCATION *)o)->Pitch = sub_pitch;
    return STATUS_SUCCESS;
}

NTSTATUS APIENTRY DxgkDdiCloseAllocation(IN_CONST_HANDLE hDevice, IN_CONST_PDXGKARG_CLOSEALLOCATION c)
{
    kmd_device_t *d = hDevice;
    if (!d || d->magic != KMD_MAGIC_DEVICE || !c || (c->NumAllocations && !c->pOpenHandleList))
        return STATUS_INVALID_PARAMETER;
    gr_link_mark(d->adapter->link, "DxgkDdiCloseAllocation n=%u", (unsigned)c->NumAllocations);
    /* Check every handle before freeing any, so a bad list changes nothing. */
    for (UINT i = 0; i < c->NumAllocations; i++) {
        const kmd_open_t *op = c->pOpenHandleList[i];
        if (!op || op->magic != KMD_MAGIC_OPEN || op->device != d)
            return STATUS_INVALID_PARAMETER;
    }
    for (UINT i = 0; i < c->NumAllocations; i++) {
        kmd_open_t *op = c->pOpenHandleList[i];
        op->magic = KMD_MAGIC_DEAD;
        free(op);
        atomic_fetch_sub(&d->adapter->n_opens, 1);
    }
    return STATUS_SUCCESS;
}

NTSTATUS APIENTRY DxgkDdiDestroyAllocation(IN_CONST_HANDLE hAdapter, IN_CONST_PDXGKARG_DESTROYALLOCATION c)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !c || (c->NumAllocations && !c->pAllocationList) || c->Flags.Reserved)
        return STATUS_INVALID_PARAMETER;
    gr_link_mark(a->link, "DxgkDdiDestroyAllocation n=%u", (unsigned)c->NumAllocations);
    kmd_resource_t *res = c->hResource;
    if (res && (res->magic != KMD_MAGIC_RESOURCE || res->adapter != a))
        return STATUS_INVALID_PARAMETER;
    if (c->Flags.DestroyResource && !res)
        return STATUS_INVALID_PARAMETER;
    for (UINT i = 0; i < c->NumAllocations; i++) {
        const kmd_alloc_t *k = c->pAllocationList[i];
        if (!k || k->magic != KMD_MAGIC_ALLOC || k->adapter != a)
            return STATUS_INVALID_PARAMETER;
    }
    for (UINT i = 0; i < c->NumAllocations; i++)
        free_alloc(c->pAllocationList[i]);
    if (c->Flags.DestroyResource) {
        atomic_fetch_sub(&a->n_resources, 1);
        res->magic = KMD_MAGIC_DEAD;
        free(res);
    }
    return STATUS_SUCCESS;
}
