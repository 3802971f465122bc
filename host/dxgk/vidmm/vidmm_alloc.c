/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_alloc.c: VidMm's allocation API, the top of VidMm (create, open, close, destroy, lock, unlock,
 * query), calling the miniport's DDIs as dxgkrnl documents them:
 *   create:  DxgkDdiCreateAllocation -> flag rules on each DXGK_ALLOCATIONINFO -> placement
 *            -> DxgkDdiOpenAllocation (Create) for the creating device
 *   open:    DxgkDdiOpenAllocation (another device; ReadOnly; SubresourceIndex)
 *   close:   DxgkDdiCloseAllocation for the device's open
 *   destroy: (last reference) wait for the GPU -> DxgkDdiDestroyAllocation (DestroyResource
 *            with the resource's last allocation) -> segment space returned
 * It sits above residency (vidmm_residency.c), which sits above placement and GPU VA mapping
 * (vidmm_place.c). Locking: dxgk_objects.h.
 */
#include <stdlib.h>
#include <string.h>

#include "dxgk_ddi.h"
#include "dxgk_handle.h"
#include "dxgk_kernel.h"
#include "dxgk_objects.h"
#include "dxgk_sysmem.h"
#include "dxgk_testing.h"
#include "gpuref/gr_regdesc.h"
#include "gr_broker.h"
#include "gr_link.h"
#include "kmd.h"
#include "vidmm_alloc.h"
#include "vidmm_flag_rules.h"
#include "vidmm_place.h"
#include "vidmm_residency.h"
#include "vidsch_paging.h"

#define DXGK_MAX_CREATE 64u
#define PAGE UINT64_C(4096)

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

/* ---- the GPU's use of allocations and GPU VAs -------------------------------------------- */

/*
 * dxgkrnl waits until the GPU is done with an allocation before DxgkDdiDestroyAllocation:
 * VidSch counts the packets in flight whose allocation list names it (vidsch_paging.h).
 */
static void wait_gpu_idle(dxgk_kalloc_t *ka)
{
    dxgk_vidsch_wait_alloc_idle(ka->adapter, ka);
}


/* How copy_vram_ex moves the bytes through BAR1. A posted write (page-table entries) is
 * performed before anything later on the link (the TLB invalidate, the next submission) and not
 * waited for (gr_link_ap_write_posted). */
typedef enum { VRAM_READ, VRAM_WRITE, VRAM_WRITE_POSTED } vram_copy_t;
static gr_status_t copy_vram_ex(gr_adapter_t *ad, uint64_t vram, void *buf, uint64_t bytes, vram_copy_t how,
                                bool count_moves);

/*
 * Page-table pages: 4 KiB of VRAM from VidMm's heaps, else from the residency reserve (a page-in
 * under pressure must be able to map what it just paged in: vidmm_residency.h). A heap page that
 * may hold an old table changes places with a zero page of the reserve (the creation's paging
 * packet clears the reserve's stale pages with FILLs: vidmm_residency.c); only when there is
 * none is it cleared through BAR1 (posted). Table entries are written through BAR1, posted
 * (pt_write): a mapping costs the link no round trip of its own.
 */
static gr_status_t pt_alloc(void *user, uint64_t *out_pa)
{
    gr_adapter_t *ad = ((gr_gpu_device_t *)user)->process->adapter;
    static const uint8_t zero[4096];
    uint64_t pa = 0;
    pthread_mutex_lock(&ad->vidmm_lock);
    bool stale = true, zeroed = false;
    gr_status_t rc = dxgk_pt_page_alloc_locked(ad, &pa, &stale);
    if (!rc && stale && dxgk_res_pt_swap(ad, pa, &pa))
        stale = false;
    if (rc && dxgk_res_pt_take(ad, &pa, &zeroed)) {
        rc = GR_OK;
        stale = !zeroed;
    }
    pthread_mutex_unlock(&ad->vidmm_lock);
    if (rc)
        return rc;
    if (stale)
        rc = copy_vram_ex(ad, pa, (void *)zero, PAGE, VRAM_WRITE_POSTED, false);
    if (rc) {
        pthread_mutex_lock(&ad->vidmm_lock);
        dxgk_pt_page_free_locked(ad, pa);
        pthread_mutex_unlock(&ad->vidmm_lock);
        return rc;
    }
    *out_pa = pa;
    return GR_OK;
}

static gr_status_t zero_stale_through_aperture(gr_adapter_t *ad, dxgk_kalloc_t *const *kas, uint32_t count)
{
    static const uint8_t zero[4096];
    for (uint32_t i = 0; i < count; i++) {
        uint64_t from = 0, off = 0, len = 0;
        for (;;) {
            pthread_mutex_lock(&ad->vidmm_lock);
            bool more = dxgk_stale_next(ad, kas[i], &from, &off, &len);
            pthread_mutex_unlock(&ad->vidmm_lock);
            if (!more)
                break;
            for (uint64_t p = 0; p < len; p += PAGE) {
                gr_status_t rc = copy_vram_ex(ad, kas[i]->vram + off + p, (void *)zero, PAGE, VRAM_WRITE, false);
                if (rc)
                    return rc;
            }
        }
    }
    return GR_OK;
}

static void pt_free(void *user, uint64_t pa)
{
    gr_adapter_t *ad = ((gr_gpu_device_t *)user)->process->adapter;
    pthread_mutex_lock(&ad->vidmm_lock);
    dxgk_pt_page_free_locked(ad, pa);
    pthread_mutex_unlock(&ad->vidmm_lock);
}

static gr_status_t pt_write(void *user, uint64_t pa, const void *src, size_t bytes)
{
    return copy_vram_ex(((gr_gpu_device_t *)user)->process->adapter, pa, (void *)src, bytes, VRAM_WRITE_POSTED,
                        false);
}

static gr_status_t pt_read(void *user, uint64_t pa, void *dst, size_t bytes)
{
    return copy_vram_ex(((gr_gpu_device_t *)user)->process->adapter, pa, dst, bytes, VRAM_READ, false);
}

static gr_status_t pt_invalidate(void *user)
{
    gr_adapter_t *ad = ((gr_gpu_device_t *)user)->process->adapter;
    return dxgk_status_from_nt(dxgk_call_flush_tlb(ad));
}

const gr_gpuva_ops_t dxgk_gpuva_ops = {
    .alloc_pt_page = pt_alloc,
    .free_pt_page = pt_free,
    .write_vram = pt_write,
    .read_vram = pt_read,
    .invalidate = pt_invalidate,
};

/* ---- DDI wrappers ---------------------------------------------------------------------- */

static NTSTATUS ddi_destroy(gr_adapter_t *ad, UINT n, const HANDLE *list, HANDLE hResource, bool destroy_res)
{
    DXGKARG_DESTROYALLOCATION d;
    memset(&d, 0, sizeof d);
    d.NumAllocations = n;
    d.pAllocationList = list;
    d.hResource = hResource;
    d.Flags.DestroyResource = destroy_res;
    atomic_fetch_add(&ad->n_destroy, 1);
    if (destroy_res)
        atomic_fetch_add(&ad->n_destroy_res, 1);
    return dxgk_call_destroy_allocation(ad, &d);
}

static NTSTATUS ddi_close(gr_adapter_t *ad, gr_gpu_device_t *dev, UINT n, const HANDLE *list)
{
    DXGKARG_CLOSEALLOCATION c = {.NumAllocations = n, .pOpenHandleList = list};
    atomic_fetch_add(&ad->n_close, 1);
    return dxgk_call_close_allocation(dev, &c);
}

/* ---- object lifetime ------------------------------------------------------------------- */

static void free_kres(dxgk_kres_t *kr)
{
    if (!kr)
        return;
    free(kr->allocs);
    free(kr->priv);
    free(kr);
}

static void free_kalloc(dxgk_kalloc_t *ka)
{
    if (!ka)
        return;
    if (ka->sysmem_buf)
        dxgk_sysmem_put(ka->adapter, ka->sysmem_buf);
    dxgk_res_sys_copy_free(ka->adapter, ka);
    free(ka->priv);
    free(ka);
}

/*
 * Drops one reference (process lock of the caller held, VidMm lock not). The last one
 * destroys the allocation, and the resource with its last allocation.
 */
static void kalloc_release(gr_adapter_t *ad, dxgk_kalloc_t *ka)
{
    dxgk_kres_t *kr = ka->res;
    pthread_mutex_lock(&ad->vidmm_lock);
    bool last = --ka->refs == 0;
    bool last_of_res = false;
    if (last) {
        ka->destroyed = true;
        for (uint32_t i = 0; i < kr->count; i++)
            if (kr->allocs[i] == ka)
                kr->allocs[i] = NULL;
        last_of_res = --kr->live == 0;
        /* A dying resource can no longer be opened. */
        if (last_of_res && kr->shared)
            (void)dxgk_htab_remove(&ad->shared, kr->shared_handle, DXGK_HT_SHARED);
    }
    pthread_mutex_unlock(&ad->vidmm_lock);
    if (!last)
        return;
    /* No longer a candidate for eviction: it is going. */
    dxgk_res_lock(ad);
    dxgk_res_untrack(ad, ka);
    dxgk_res_unlock(ad);
    wait_gpu_idle(ka);
    HANDLE h = ka->info.hAllocation;
    (void)ddi_destroy(ad, 1, &h, kr->has_resource ? kr->hResource : NULL, kr->has_resource && last_of_res);
    dxgk_htab_t *kt = dxgk_kernel_handles();
    (void)dxgk_htab_remove(kt, ka->kh, DXGK_HANDLE_ALLOCATION);
    dxgk_res_lock(ad);
    dxgk_res_release(ad, ka); /* its segment space, or its backing store when evicted */
    dxgk_res_unlock(ad);
    free_kalloc(ka);
    if (last_of_res) {
        if (kr->kh)
            (void)dxgk_htab_remove(kt, kr->kh, DXGK_HANDLE_RESOURCE);
        free_kres(kr);
    }
}

/* Drops a lock held through op without writing anything back (close/destroy of the locker). */
static void drop_lock(gr_adapter_t *ad, dxgk_open_t *op)
{
    dxgk_kalloc_t *ka = op->ka;
    dxgk_res_lock(ad); /* the lock pins it: residency sees the pin go */
    pthread_mutex_lock(&ad->vidmm_lock);
    if (ka->locker == op) {
        if (ka->lock_buf != ka->sysmem && ka->lock_buf != ka->sys_copy)
            free(ka->lock_buf);
        ka->lock_buf = NULL;
        ka->locker = NULL;
    }
    pthread_mutex_unlock(&ad->vidmm_lock);
    dxgk_res_unlock(ad);
}

/* Closes one open (process lock held): DxgkDdiCloseAllocation, handle freed, reference dropped. */
static void release_open(gr_process_t *p, dxgk_open_t *op)
{
    gr_adapter_t *ad = p->adapter;
    /* No packet in flight may still name this open (or reach it through its GPU VA). */
    dxgk_vidsch_wait_open_idle(ad, op);
    drop_lock(ad, op);
    dxgk_res_detach_open(ad, op);
    HANDLE h = op->hDeviceSpecific;
    (void)ddi_close(ad, op->device, 1, &h);
    (void)dxgk_htab_remove(&p->handles, op->handle, DXGK_HT_OPEN);
    dxgk_kalloc_t *ka = op->ka;
    free(op);
    kalloc_release(ad, ka);
}

/*
 * Opens allocations for a device (process lock held; the caller holds one reference on each
 * ka, which this keeps on success and leaves to the caller on failure).
 */
static gr_status_t open_for_device(gr_gpu_device_t *dev, dxgk_kres_t *kr, dxgk_kalloc_t **kas, uint32_t n,
                                   bool create, bool read_only, uint32_t subresource, gr_alloc_t *out_handles)
{
    gr_process_t *p = dev->process;
    gr_adapter_t *ad = p->adapter;
    DXGK_OPENALLOCATIONINFO *oi = calloc(n, sizeof *oi);
    dxgk_open_t **ops = calloc(n, sizeof *ops);
    if (!oi || !ops) {
        free(oi);
        free(ops);
        return GR_E_NO_MEMORY;
    }
    for (uint32_t i = 0; i < n; i++) {
        oi[i].hAllocation = kas[i]->kh;
        oi[i].pPrivateDriverData = kas[i]->priv;
        oi[i].PrivateDriverDataSize = kas[i]->priv_size;
    }
    DXGKARG_OPENALLOCATION o;
    memset(&o, 0, sizeof o);
    o.NumAllocations = n;
    o.pOpenAllocation = oi;
    o.pPrivateDriverData = kr->priv;
    o.PrivateDriverSize = kr->priv_size;
    o.Flags.Create = create;
    o.Flags.ReadOnly = read_only;
    o.SubresourceIndex = subresource;
    atomic_fetch_add(&ad->n_open, 1);
    NTSTATUS st = dxgk_call_open_allocation(dev, &o);
    if (st) {
        free(oi);
        free(ops);
        return dxgk_status_from_nt(st);
    }
    gr_status_t rc = GR_OK;
    uint32_t made = 0;
    for (; made < n; made++) {
        dxgk_open_t *op = calloc(1, sizeof *op);
        if (!op) {
            rc = GR_E_NO_MEMORY;
            break;
        }
        op->device = dev;
        op->ka = kas[made];
        op->hDeviceSpecific = oi[made].hDeviceSpecificAllocation;
        op->creator = create;
        op->read_only = read_only;
        if (made == 0) {
            op->sub_offset = o.SubresourceOffset;
            op->pitch = o.Pitch;
        }
        rc = dxgk_htab_insert(&p->handles, DXGK_HT_OPEN, op, &op->handle);
        if (!rc)
            rc = dxgk_res_attach_open(ad, op);
        if (rc) {
            if (op->handle)
                (void)dxgk_htab_remove(&p->handles, op->handle, DXGK_HT_OPEN);
            free(op);
            break;
        }
        ops[made] = op;
    }
    if (rc) {
        /* Undo in full: every device-specific handle the miniport made goes back to it. */
        for (uint32_t i = 0; i < made; i++) {
            dxgk_res_detach_open(ad, ops[i]);
            (void)dxgk_htab_remove(&p->handles, ops[i]->handle, DXGK_HT_OPEN);
            free(ops[i]);
        }
        HANDLE *hs = malloc(n * sizeof *hs);
        if (hs) {
            for (uint32_t i = 0; i < n; i++)
                hs[i] = oi[i].hDeviceSpecificAllocation;
            (void)ddi_close(ad, dev, n, hs);
            free(hs);
        } else {
            for (uint32_t i = 0; i < n; i++)
                (void)ddi_close(ad, dev, 1, &oi[i].hDeviceSpecificAllocation);
        }
        free(oi);
        free(ops);
        return rc;
    }
    for (uint32_t i = 0; i < n; i++)
        out_handles[i] = ops[i]->handle;
    free(oi);
    free(ops);
    return GR_OK;
}

/* ---- create ---------------------------------------------------------------------------- */

/*
 * VidMm's checks beyond the flag rules: what placement and mapping rely on. The caller's
 * memory behind ExistingSysMem/ExistingKernelSysMem must be page aligned, whole pages, big
 * enough, and inside one of the process's gr_sysmem_alloc buffers, which gives its bus
 * address (*out_buf, *out_bus; no reference taken). Process lock held.
 */
static gr_status_t check_info(gr_process_t *p, const DXGK_ALLOCATIONINFO *i, const gr_alloc_desc_t *d,
                              dxgk_sysmem_t **out_buf, uint64_t *out_bus)
{
    *out_buf = NULL;
    *out_bus = 0;
    if (i->Size == 0 || (i->Alignment & (i->Alignment - 1)) || !i->hAllocation)
        return GR_E_INVALID;
    if (dxgk_flags_caller_backed(i->FlagsWddm2)) {
        if (!d->sysmem || (uintptr_t)d->sysmem % PAGE || d->sysmem_bytes == 0 || d->sysmem_bytes % PAGE ||
            d->sysmem_bytes < align_up(i->Size, PAGE))
            return GR_E_INVALID;
        return dxgk_sysmem_lookup(p, d->sysmem, d->sysmem_bytes, out_buf, out_bus);
    }
    if (d->sysmem || d->sysmem_bytes)
        return GR_E_INVALID;
    return GR_OK;
}

/*
 * VidMm's check of one answer of DxgkDdiCreateAllocation: the documented flag rules (through
 * the masked entry point, so tests can switch single rules off: gr_dxgk_test_set_disabled_rules;
 * 0 in use), then check_info. Process lock held.
 */
static gr_status_t check_answer(gr_process_t *p, const DXGK_ALLOCATIONINFO *i, const gr_alloc_desc_t *d,
                                dxgk_sysmem_t **out_buf, uint64_t *out_bus, const char **out_rule)
{
    gr_adapter_t *ad = p->adapter;
    gr_status_t rc = (gr_status_t)gr_vidmm_check_allocation_flags_masked(i, &ad->caps, ad->test_disabled_rules,
                                                                         out_rule);
    if (rc)
        return rc;
    return check_info(p, i, d, out_buf, out_bus);
}

gr_status_t gr_dxgk_test_check_answer(gr_gpu_device_t *dev, const DXGK_ALLOCATIONINFO *info,
                                      const gr_alloc_desc_t *desc, const char **out_rule)
{
    if (!dev || !info || !desc)
        return GR_E_INVALID;
    dxgk_sysmem_t *buf;
    uint64_t bus;
    pthread_mutex_lock(&dev->process->lock);
    gr_status_t rc = check_answer(dev->process, info, desc, &buf, &bus, out_rule);
    pthread_mutex_unlock(&dev->process->lock);
    return rc;
}

gr_status_t gr_alloc_create(gr_gpu_device_t *dev, const gr_resource_desc_t *resource, const gr_alloc_desc_t *descs,
                            uint32_t count, gr_alloc_t *out_handles, gr_shared_t *out_shared)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_alloc_create(dev, resource, descs, count, out_handles, out_shared);
    if (!dev || !descs || count == 0 || count > DXGK_MAX_CREATE || !out_handles)
        return GR_E_INVALID;
    if (resource && (resource->flags & ~(uint32_t)GR_RESOURCE_SHARED))
        return GR_E_INVALID;
    bool shared = resource && (resource->flags & GR_RESOURCE_SHARED);
    if (shared && !out_shared)
        return GR_E_INVALID;
    for (uint32_t i = 0; i < count; i++)
        if ((descs[i].private_size && !descs[i].private_data) || descs[i].private_size > 4096)
            return GR_E_INVALID;
    if (resource && ((resource->private_size && !resource->private_data) || resource->private_size > 4096))
        return GR_E_INVALID;

    gr_process_t *p = dev->process;
    gr_adapter_t *ad = p->adapter;
    dxgk_htab_t *kt = dxgk_kernel_handles();
    gr_status_t rc = GR_E_NO_MEMORY;
    DXGK_ALLOCATIONINFO *infos = calloc(count, sizeof *infos);
    dxgk_kalloc_t **kas = calloc(count, sizeof *kas);
    dxgk_kres_t *kr = calloc(1, sizeof *kr);
    HANDLE *hlist = calloc(count, sizeof *hlist);
    if (!infos || !kas || !kr || !hlist)
        goto fail_mem;
    kr->allocs = calloc(count, sizeof *kr->allocs);
    if (!kr->allocs)
        goto fail_mem;
    for (uint32_t i = 0; i < count; i++) {
        kas[i] = calloc(1, sizeof *kas[i]);
        if (!kas[i])
            goto fail_mem;
        if (descs[i].private_size) {
            kas[i]->priv = malloc(descs[i].private_size);
            if (!kas[i]->priv)
                goto fail_mem;
            memcpy(kas[i]->priv, descs[i].private_data, descs[i].private_size);
            kas[i]->priv_size = descs[i].private_size;
        }
        kas[i]->adapter = ad;
        kas[i]->res = kr;
        infos[i].pPrivateDriverData = kas[i]->priv;
        infos[i].PrivateDriverDataSize = kas[i]->priv_size;
    }
    if (resource && resource->private_size) {
        kr->priv = malloc(resource->private_size);
        if (!kr->priv)
            goto fail_mem;
        memcpy(kr->priv, resource->private_data, resource->private_size);
        kr->priv_size = resource->private_size;
    }

    pthread_mutex_lock(&p->lock);
    DXGKARG_CREATEALLOCATION c;
    memset(&c, 0, sizeof c);
    c.pPrivateDriverData = kr->priv;
    c.PrivateDriverDataSize = kr->priv_size;
    c.NumAllocations = count;
    c.pAllocationInfo = infos;
    c.hResource = NULL;
    c.Flags.Resource = resource != NULL;
    atomic_fetch_add(&ad->n_create, 1);
    NTSTATUS st = dxgk_call_create_allocation(ad, p, &c);
    if (st) {
        pthread_mutex_unlock(&p->lock);
        rc = dxgk_status_from_nt(st);
        if (rc == GR_E_IO)
            rc = GR_E_INVALID;
        goto fail_mem;
    }
    if (ad->create_hook)
        ad->create_hook(ad->create_hook_ctx, infos, count);
    /* From here on the miniport holds state: every failure goes back through
     * DxgkDdiDestroyAllocation. */
    kr->hResource = c.hResource;
    kr->has_resource = resource != NULL;
    for (uint32_t i = 0; i < count; i++)
        hlist[i] = infos[i].hAllocation;
    for (uint32_t i = 0; i < count; i++) {
        const char *rule = NULL;
        dxgk_sysmem_t *buf = NULL;
        uint64_t bus = 0;
        rc = check_answer(p, &infos[i], &descs[i], &buf, &bus, &rule);
        if (rc)
            goto fail_ddi;
        kas[i]->info = infos[i];
        kas[i]->sysmem = dxgk_flags_caller_backed(infos[i].FlagsWddm2) ? descs[i].sysmem : NULL;
        if (buf) {
            /* Held until the allocation is destroyed: the device may reach the memory. */
            dxgk_sysmem_get(ad, buf);
            kas[i]->sysmem_buf = buf;
            kas[i]->sysmem_bus = bus;
        }
        if (infos[i].FlagsWddm2.PermanentSysMem) {
            /* Host memory the engine reaches: evictions transfer into it, page-ins from it. */
            rc = dxgk_res_sys_copy_alloc(ad, kas[i], align_up(infos[i].Size, PAGE));
            if (rc)
                goto fail_ddi;
        }
    }

    /*
     * Placement. A full segment evicts least-recently-used allocations where that makes room
     * (vidmm_residency.h); what cannot be placed even so fails the whole call, and what this call
     * placed is given back (the victims it evicted page in again at their next use).
     */
    dxgk_res_lock(ad);
    dxgk_res_reserve_pt(ad, 3 * count);
    uint32_t placed = 0;
    for (; placed < count; placed++) {
        rc = dxgk_res_place(ad, kas[placed]);
        if (rc)
            break;
    }
    /* New allocations read zeroes, never what another allocation left (vidmm_residency.h).
     * Without an engine to page with, through the aperture. */
    if (!rc) {
        rc = dxgk_res_zero_stale(ad, kas, count);
        if (rc == GR_E_UNSUPPORTED)
            rc = zero_stale_through_aperture(ad, kas, count);
    }
    pthread_mutex_lock(&ad->vidmm_lock);
    if (rc) {
        for (uint32_t i = 0; i < placed; i++)
            dxgk_unplace(ad, kas[i]);
        pthread_mutex_unlock(&ad->vidmm_lock);
        dxgk_res_unlock(ad);
        goto fail_ddi;
    }
    /* Kernel handles, so DxgkCbGetHandleData can answer during the Create open below. */
    uint32_t reg = 0;
    for (; reg < count && !rc; reg++)
        rc = dxgk_htab_insert(kt, DXGK_HANDLE_ALLOCATION, kas[reg], &kas[reg]->kh);
    if (!rc && kr->has_resource)
        rc = dxgk_htab_insert(kt, DXGK_HANDLE_RESOURCE, kr, &kr->kh);
    if (!rc && shared) {
        rc = dxgk_htab_insert(&ad->shared, DXGK_HT_SHARED, kr, &kr->shared_handle);
        kr->shared = !rc;
    }
    if (rc) {
        for (uint32_t i = 0; i < count; i++)
            if (kas[i]->kh)
                (void)dxgk_htab_remove(kt, kas[i]->kh, DXGK_HANDLE_ALLOCATION);
        if (kr->kh)
            (void)dxgk_htab_remove(kt, kr->kh, DXGK_HANDLE_RESOURCE);
        for (uint32_t i = 0; i < count; i++)
            dxgk_unplace(ad, kas[i]);
        pthread_mutex_unlock(&ad->vidmm_lock);
        dxgk_res_unlock(ad);
        goto fail_ddi;
    }
    kr->count = count;
    kr->live = count;
    for (uint32_t i = 0; i < count; i++) {
        kr->allocs[i] = kas[i];
        kas[i]->refs = 1; /* the creator's open, taken below */
    }
    pthread_mutex_unlock(&ad->vidmm_lock);
    /* Committed: they may be evicted from now on (ExplicitResidencyNotification told where). */
    for (uint32_t i = 0; i < count; i++)
        dxgk_res_track(ad, kas[i]);
    dxgk_res_unlock(ad);

    gr_alloc_t *handles = calloc(count, sizeof *handles);
    rc = handles ? open_for_device(dev, kr, kas, count, true, false, 0, handles) : GR_E_NO_MEMORY;
    if (rc) {
        free(handles);
        /* Dropping the references destroys everything through the DDIs, in order. */
        for (uint32_t i = 0; i < count; i++)
            kalloc_release(ad, kas[i]);
        pthread_mutex_unlock(&p->lock);
        free(infos);
        free(kas);
        free(hlist);
        return rc;
    }
    pthread_mutex_unlock(&p->lock);
    memcpy(out_handles, handles, count * sizeof *handles);
    if (shared)
        *out_shared = kr->shared_handle;
    free(handles);
    free(infos);
    free(kas);
    free(hlist);
    return GR_OK;

fail_ddi:
    (void)ddi_destroy(ad, count, hlist, c.hResource, c.hResource != NULL);
    pthread_mutex_unlock(&p->lock);
fail_mem:
    if (kas)
        for (uint32_t i = 0; i < count; i++)
            free_kalloc(kas[i]);
    free_kres(kr);
    free(infos);
    free(kas);
    free(hlist);
    return rc;
}

/* ---- open, close, destroy -------------------------------------------------------------- */

gr_status_t gr_alloc_open(gr_gpu_device_t *dev, gr_shared_t shared, uint32_t flags, uint32_t subresource_index,
                          gr_alloc_t *out_handles, uint32_t max, uint32_t *out_count, gr_alloc_info_t *out_info)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_alloc_open(dev, shared, flags, subresource_index, out_handles, max, out_count, out_info);
    if (!dev || !out_count || (max && !out_handles) || (flags & ~(uint32_t)GR_OPEN_READ_ONLY))
        return GR_E_INVALID;
    gr_process_t *p = dev->process;
    gr_adapter_t *ad = p->adapter;
    pthread_mutex_lock(&p->lock);
    pthread_mutex_lock(&ad->vidmm_lock);
    dxgk_kres_t *kr = dxgk_htab_lookup(&ad->shared, shared, DXGK_HT_SHARED);
    if (!kr || kr->live == 0) {
        pthread_mutex_unlock(&ad->vidmm_lock);
        pthread_mutex_unlock(&p->lock);
        return GR_E_INVALID;
    }
    uint32_t n = kr->live;
    if (n > max) {
        pthread_mutex_unlock(&ad->vidmm_lock);
        pthread_mutex_unlock(&p->lock);
        *out_count = n;
        return GR_E_RANGE;
    }
    dxgk_kalloc_t **kas = calloc(n, sizeof *kas);
    if (!kas) {
        pthread_mutex_unlock(&ad->vidmm_lock);
        pthread_mutex_unlock(&p->lock);
        return GR_E_NO_MEMORY;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < kr->count; i++)
        if (kr->allocs[i]) {
            kas[k++] = kr->allocs[i];
            kr->allocs[i]->refs++; /* keeps it alive across the DDI */
        }
    pthread_mutex_unlock(&ad->vidmm_lock);
    gr_alloc_t *handles = calloc(n, sizeof *handles);
    gr_status_t rc = handles ? open_for_device(dev, kr, kas, n, false, flags & GR_OPEN_READ_ONLY,
                                               subresource_index, handles)
                             : GR_E_NO_MEMORY;
    if (rc) {
        for (uint32_t i = 0; i < n; i++)
            kalloc_release(ad, kas[i]);
        pthread_mutex_unlock(&p->lock);
        free(kas);
        free(handles);
        return rc;
    }
    pthread_mutex_unlock(&p->lock);
    memcpy(out_handles, handles, n * sizeof *handles);
    *out_count = n;
    free(kas);
    if (out_info && gr_alloc_query(dev, handles[0], out_info))
        memset(out_info, 0, sizeof *out_info);
    free(handles);
    return GR_OK;
}

/* The open behind a handle of this device, or NULL (process lock held). */
static dxgk_open_t *find_open(gr_gpu_device_t *dev, gr_alloc_t h)
{
    dxgk_open_t *op = dxgk_htab_lookup(&dev->process->handles, h, DXGK_HT_OPEN);
    return op && op->device == dev ? op : NULL;
}

static gr_status_t release_handle(gr_gpu_device_t *dev, gr_alloc_t h, bool creator)
{
    if (!dev)
        return GR_E_INVALID;
    gr_process_t *p = dev->process;
    pthread_mutex_lock(&p->lock);
    dxgk_open_t *op = find_open(dev, h);
    if (!op || op->creator != creator) {
        pthread_mutex_unlock(&p->lock);
        return GR_E_INVALID;
    }
    release_open(p, op);
    pthread_mutex_unlock(&p->lock);
    return GR_OK;
}

gr_status_t gr_alloc_close(gr_gpu_device_t *dev, gr_alloc_t h)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_alloc_close(dev, h);
    return release_handle(dev, h, false);
}

gr_status_t gr_alloc_destroy(gr_gpu_device_t *dev, gr_alloc_t h)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_alloc_destroy(dev, h);
    return release_handle(dev, h, true);
}

void dxgk_device_release_all(gr_gpu_device_t *dev)
{
    gr_process_t *p = dev->process;
    uint32_t n = dxgk_htab_list(&p->handles, DXGK_HT_OPEN, NULL, 0);
    if (n == 0)
        return;
    uint32_t *hs = malloc(n * sizeof *hs);
    if (!hs) {
        /* No room for the list: release one at a time. */
        uint32_t h;
        while (dxgk_htab_list(&p->handles, DXGK_HT_OPEN, &h, 1)) {
            dxgk_open_t *op = dxgk_htab_lookup(&p->handles, h, DXGK_HT_OPEN);
            if (!op || op->device != dev)
                break;
            release_open(p, op);
        }
        return;
    }
    n = dxgk_htab_list(&p->handles, DXGK_HT_OPEN, hs, n);
    for (uint32_t i = 0; i < n; i++) {
        dxgk_open_t *op = dxgk_htab_lookup(&p->handles, hs[i], DXGK_HT_OPEN);
        if (op && op->device == dev)
            release_open(p, op);
    }
    free(hs);
}

/* ---- lock, unlock ---------------------------------------------------------------------- */

/* Copies between host memory and VRAM through BAR1, moving the window where needed. */
static gr_status_t copy_vram_ex(gr_adapter_t *ad, uint64_t vram, void *buf, uint64_t bytes, vram_copy_t how,
                                bool count_moves)
{
    uint8_t *b = buf;
    gr_status_t out = GR_OK;
    /* No CPU access to the frame buffer while a reset runs ("Thread Synchronization and TDR"). */
    dxgk_frame_buffer_hold(ad);
    while (bytes) {
        uint64_t ap_off = 0, ap_bytes = 0;
        NTSTATUS st = dxgk_call_acquire_cpu_window(ad, vram, bytes, &ap_off, &ap_bytes);
        if (st) {
            out = dxgk_status_from_nt(st);
            break;
        }
        if (count_moves && ap_off != vram)
            atomic_fetch_add(&ad->n_window_moves, 1);
        pthread_mutex_lock(&ad->link_lock);
        int rc = how == VRAM_READ    ? gr_link_ap_read(ad->link, ap_off, b, ap_bytes)
                 : how == VRAM_WRITE ? gr_link_ap_write(ad->link, ap_off, b, ap_bytes)
                                     : gr_link_ap_write_posted(ad->link, ap_off, b, ap_bytes);
        pthread_mutex_unlock(&ad->link_lock);
        st = dxgk_call_release_cpu_window(ad);
        if (rc || st) {
            out = rc ? (gr_status_t)rc : dxgk_status_from_nt(st);
            break;
        }
        vram += ap_bytes;
        b += ap_bytes;
        bytes -= ap_bytes;
    }
    dxgk_frame_buffer_unhold(ad);
    return out;
}

/* The CPU's copies for lock/unlock (counted in gr_adapter_stats_t.lock_window_moves). */
static gr_status_t copy_vram(gr_adapter_t *ad, uint64_t vram, void *buf, uint64_t bytes, bool to_vram)
{
    return copy_vram_ex(ad, vram, buf, bytes, to_vram ? VRAM_WRITE : VRAM_READ, true);
}

/* Locks the pages holding [offset, offset + bytes) (bytes 0: to the end); *out_ptr is the
 * byte at offset. */
static gr_status_t lock_range(gr_gpu_device_t *dev, gr_alloc_t h, uint32_t flags, uint64_t offset, uint64_t bytes,
                              void **out_ptr)
{
    if (!dev || !out_ptr || (flags & ~(uint32_t)(GR_LOCK_READ_ONLY | GR_LOCK_DISCARD)))
        return GR_E_INVALID;
    gr_process_t *p = dev->process;
    gr_adapter_t *ad = p->adapter;
    pthread_mutex_lock(&p->lock);
    dxgk_open_t *op = find_open(dev, h);
    gr_status_t rc = GR_E_INVALID;
    if (!op)
        goto out;
    dxgk_kalloc_t *ka = op->ka;
    DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 fl = ka->info.FlagsWddm2;
    /* A read-only open cannot write through the CPU either. */
    if (op->read_only && !(flags & GR_LOCK_READ_ONLY))
        goto out;
    /* Protected content is never mapped for the CPU; the VPR would refuse it anyway. */
    if (fl.Protected || fl.HardwareProtected || fl.CreateInVpr || ka->in_vpr)
        goto out;
    if (!fl.CpuVisible && !fl.CpuVisibleOnDemand && !dxgk_flags_caller_backed(fl))
        goto out;
    const bool pms = fl.PermanentSysMem && !dxgk_flags_caller_backed(fl);
    uint64_t size = align_up(ka->info.Size, PAGE);
    if (offset >= ka->info.Size || (bytes && bytes > ka->info.Size - offset)) {
        rc = GR_E_RANGE;
        goto out;
    }
    /* Only the pages the caller asked for cross BAR1: a lock costs what it touches. */
    const uint64_t lo = offset & ~(uint64_t)(PAGE - 1);
    const uint64_t span = align_up(bytes ? offset + bytes : ka->info.Size, PAGE) - lo;
    for (;;) {
        /* A PermanentSysMem copy is brought up to date once no packet in flight lists it. */
        if (pms)
            wait_gpu_idle(ka);
        dxgk_res_lock(ad);
        if (ka->locker) {
            dxgk_res_unlock(ad);
            rc = GR_E_BUSY;
            goto out;
        }
        if (!pms || !ka->dirty || ka->evicted || dxgk_vidsch_gpu_refs(ad, ka) == 0)
            break;
        dxgk_res_unlock(ad); /* a submission came in between: wait again */
    }
    rc = GR_OK;
    /* The CPU reads VRAM: an evicted allocation comes back first (the PermanentSysMem copy
     * serves as it is, evicted or not). */
    if (!dxgk_flags_caller_backed(fl) && !pms) {
        rc = dxgk_res_page_in(ad, ka);
        if (rc) {
            dxgk_res_unlock(ad);
            goto out;
        }
    }
    pthread_mutex_lock(&ad->vidmm_lock);
    ka->locker = op; /* pinned from here on: never evicted while locked */
    pthread_mutex_unlock(&ad->vidmm_lock);
    dxgk_res_touch(ad, ka);
    if (pms && !ka->evicted && ka->dirty && !(flags & GR_LOCK_DISCARD)) {
        /* A submission wrote it since the copy was last equal: the copy takes VRAM's bytes. */
        rc = copy_vram(ad, ka->vram, ka->sys_copy, size, false);
        if (!rc)
            ka->dirty = false;
    }
    dxgk_res_unlock(ad);
    if (rc) {
        drop_lock(ad, op);
        goto out;
    }
    void *ptr;
    uint8_t *at;
    if (dxgk_flags_caller_backed(fl)) {
        ptr = ka->sysmem;
        at = (uint8_t *)ptr + offset;
    } else if (pms) {
        ptr = ka->sys_copy; /* the system copy is the CPU's view */
        at = (uint8_t *)ptr + offset;
    } else {
        /* A host buffer of the locked pages only, filled from VRAM through BAR1. */
        ptr = aligned_alloc(PAGE, span);
        rc = ptr ? GR_OK : GR_E_NO_MEMORY;
        if (ptr && (flags & GR_LOCK_DISCARD))
            memset(ptr, 0, span);
        else if (ptr)
            rc = copy_vram(ad, ka->vram + lo, ptr, span, false);
        if (rc) {
            free(ptr);
            drop_lock(ad, op);
            goto out;
        }
        at = (uint8_t *)ptr + (offset - lo);
    }
    ka->lock_buf = ptr;
    ka->lock_flags = flags;
    ka->lock_lo = lo;
    ka->lock_span = span;
    *out_ptr = at;
    rc = GR_OK;
out:
    pthread_mutex_unlock(&p->lock);
    return rc;
}

gr_status_t gr_alloc_lock(gr_gpu_device_t *dev, gr_alloc_t h, uint32_t flags, void **out_ptr)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_alloc_lock(dev, h, flags, true, 0, 0, out_ptr);
    return lock_range(dev, h, flags, 0, 0, out_ptr);
}

gr_status_t gr_alloc_lock_range(gr_gpu_device_t *dev, gr_alloc_t h, uint32_t flags, uint64_t offset,
                                uint64_t bytes, void **out_ptr)
{
    if (!bytes)
        return GR_E_RANGE;
    if (GR_BROKER_DEV(dev))
        return gr_brk_alloc_lock(dev, h, flags, false, offset, bytes, out_ptr);
    return lock_range(dev, h, flags, offset, bytes, out_ptr);
}

gr_status_t gr_alloc_unlock(gr_gpu_device_t *dev, gr_alloc_t h)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_alloc_unlock(dev, h);
    if (!dev)
        return GR_E_INVALID;
    gr_process_t *p = dev->process;
    gr_adapter_t *ad = p->adapter;
    pthread_mutex_lock(&p->lock);
    dxgk_open_t *op = find_open(dev, h);
    if (!op || op->ka->locker != op) {
        pthread_mutex_unlock(&p->lock);
        return GR_E_INVALID;
    }
    dxgk_kalloc_t *ka = op->ka;
    gr_status_t rc = GR_OK;
    bool write = !(ka->lock_flags & GR_LOCK_READ_ONLY);
    /* Under the residency lock: a PermanentSysMem allocation may have been paged in (from its
     * copy) while it was locked; an evicted one needs nothing, its copy is the truth. */
    dxgk_res_lock(ad);
    const bool in_vram = !dxgk_flags_caller_backed(ka->info.FlagsWddm2) && !ka->evicted;
    /* Only the locked pages go back (from the system copy or the caller's memory, which
     * hold the whole allocation, at their offset; a lock buffer holds just them). */
    const bool whole = ka->lock_buf == ka->sysmem || ka->lock_buf == ka->sys_copy;
    if (in_vram && write)
        rc = copy_vram(ad, ka->vram + ka->lock_lo, (uint8_t *)ka->lock_buf + (whole ? ka->lock_lo : 0),
                       ka->lock_span, true);
    if (ka->lock_buf != ka->sysmem && ka->lock_buf != ka->sys_copy)
        free(ka->lock_buf);
    pthread_mutex_lock(&ad->vidmm_lock);
    ka->lock_buf = NULL;
    ka->locker = NULL;
    pthread_mutex_unlock(&ad->vidmm_lock);
    if (in_vram && write && !rc && ka->info.FlagsWddm2.PermanentSysMem)
        ka->dirty = false; /* VRAM equals the copy again */
    dxgk_res_touch(ad, ka);
    dxgk_res_unlock(ad);
    pthread_mutex_unlock(&p->lock);
    return rc;
}

/* ---- query ----------------------------------------------------------------------------- */

gr_status_t gr_alloc_query(gr_gpu_device_t *dev, gr_alloc_t h, gr_alloc_info_t *out)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_alloc_query(dev, h, out);
    if (!dev || !out)
        return GR_E_INVALID;
    gr_process_t *p = dev->process;
    pthread_mutex_lock(&p->lock);
    dxgk_open_t *op = find_open(dev, h);
    if (!op) {
        pthread_mutex_unlock(&p->lock);
        return GR_E_INVALID;
    }
    const dxgk_kalloc_t *ka = op->ka;
    gr_alloc_info_t i;
    memset(&i, 0, sizeof i);
    gr_adapter_t *ad = p->adapter;
    dxgk_res_lock(ad);
    i.residency = dxgk_res_state(ka);
    i.pinned = dxgk_res_pin_reasons(ad, ka);
    pthread_mutex_lock(&ad->vidmm_lock);
    const bool in_vram = ka->segment && !ka->evicted;
    i.segment = in_vram ? ka->segment : GR_SEGMENT_SYSTEM;
    i.offset = in_vram ? ka->offset : 0;
    i.vram_address = in_vram ? ka->vram : 0;
    i.size = ka->info.Size;
    i.alignment = ka->info.Alignment;
    i.flags_wddm2 = ka->info.FlagsWddm2.Value;
    i.supported_segments = ka->info.SupportedWriteSegmentSet;
    i.preferred_segments = ka->info.PreferredSegment.Value;
    i.read_only = op->read_only;
    i.creator = op->creator;
    i.shared = ka->res->shared;
    i.locked = ka->locker != NULL;
    i.gpu_va = op->gpu_va;
    i.subresource_offset = op->sub_offset;
    i.pitch = op->pitch;
    i.bus_address = ka->sysmem_buf ? ka->sysmem_bus : 0;
    pthread_mutex_unlock(&ad->vidmm_lock);
    dxgk_res_unlock(ad);
    pthread_mutex_unlock(&p->lock);
    *out = i;
    return GR_OK;
}

/* ---- the hardware MMU's view ------------------------------------------------------------ */

/* Polls for a probe answer: a handful of cycles on the RTL; generous for slow links. */
#define PROBE_POLLS 1000u

static gr_status_t probe_locked(gr_link_t *link, uint64_t root, uint64_t va, bool write,
                                gr_gpu_probe_t *out)
{
    int rc;
    uint32_t status = 0, lo = 0, hi = 0;
    if ((rc = gr_link_write32(link, GR_REG_MMU_ROOT, (uint32_t)root & GPU_REGS__MMU_ROOT__PAGE_bm)) ||
        (rc = gr_link_write32(link, GR_REG_MMU_INVALIDATE, GR_FIELD_SET(MMU_INVALIDATE, ALL, 1))) ||
        (rc = gr_link_write32(link, GR_REG_MMU_CTRL, GR_FIELD_SET(MMU_CTRL, ENABLE, 1))) ||
        (rc = gr_link_write32(link, GR_REG_MMU_PROBE_VA_LO, (uint32_t)va)) ||
        (rc = gr_link_write32(link, GR_REG_MMU_PROBE_VA_HI, (uint32_t)(va >> 32) & 0xffffu)) ||
        (rc = gr_link_write32(link, GR_REG_MMU_PROBE_CTRL,
                              GR_FIELD_SET(MMU_PROBE_CTRL, GO, 1) | GR_FIELD_SET(MMU_PROBE_CTRL, WRITE, write))))
        return (gr_status_t)rc;
    for (unsigned n = 0;; n++) {
        if ((rc = gr_link_read32(link, GR_REG_MMU_PROBE_STATUS, &status)))
            return (gr_status_t)rc;
        if (GR_FIELD_GET(MMU_PROBE_STATUS, DONE, status) && !GR_FIELD_GET(MMU_PROBE_STATUS, BUSY, status))
            break;
        if (n == PROBE_POLLS)
            return GR_E_TIMEOUT;
    }
    if ((rc = gr_link_read32(link, GR_REG_MMU_PROBE_PA_LO, &lo)) ||
        (rc = gr_link_read32(link, GR_REG_MMU_PROBE_PA_HI, &hi)))
        return (gr_status_t)rc;
    gr_gpu_probe_t p = {
        .fault = GR_FIELD_GET(MMU_PROBE_STATUS, FAULT, status),
        .fault_type = GR_FIELD_GET(MMU_PROBE_STATUS, FAULT_TYPE, status),
        .pa = ((uint64_t)hi << 32) | lo,
        .system = GR_FIELD_GET(MMU_PROBE_STATUS, SYSTEM, status),
        .cacheable = GR_FIELD_GET(MMU_PROBE_STATUS, CACHEABLE, status),
        .page_shift = GR_FIELD_GET(MMU_PROBE_STATUS, PAGE_SHIFT, status),
    };
    *out = p;
    return GR_OK;
}

gr_status_t gr_gpu_device_probe(gr_gpu_device_t *device, uint64_t va, bool write, gr_gpu_probe_t *out_probe)
{
    if (GR_BROKER_DEV(device))
        return gr_brk_gpu_device_probe(device, va, write, out_probe);
    if (!device || !out_probe || va >> 48)
        return GR_E_INVALID;
    gr_adapter_t *ad = device->process->adapter;
    if (!device->va_space)
        return GR_E_UNSUPPORTED;
    pthread_mutex_lock(&ad->link_lock);
    gr_status_t rc = probe_locked(ad->link, gr_gpuva_root(device->va_space), va, write, out_probe);
    pthread_mutex_unlock(&ad->link_lock);
    return rc;
}
