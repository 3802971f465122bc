/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dxgk_adapter.c: adapter start (caps, segments, VPR), processes, devices, segment queries.
 * The top of the OS stand-in: it starts and stops VidMm and VidSch (vidmm/, vidsch/), which sit
 * below it, and fills the miniport's DXGKRNL_INTERFACE from the callbacks of the files below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dxgk_ddi.h"
#include "dxgk_handle.h"
#include "dxgk_kernel.h"
#include "dxgk_objects.h"
#include "dxgk_sysmem.h"
#include "dxgk_testing.h"
#include "gr_broker.h"
#include "gr_link_broker.h"
#include "gr_link.h"
#include "kmd.h"
#include "vidmm_alloc.h"
#include "vidmm_residency.h"
#include "vidsch.h"

/* ---- adapter start ---------------------------------------------------------------------- */

/* The VPR: the top 1/16 of the segment the miniport marks VprSupported, aligned as it asks. */
static gr_status_t setup_vpr(gr_adapter_t *ad, dxgk_segment_t *s)
{
    uint64_t align = s->desc.VprAlignment ? s->desc.VprAlignment : GR_SEG_UNIT;
    if (align & (align - 1) || align < GR_SEG_UNIT)
        return GR_E_MISMATCH;
    uint64_t size = (s->size / 16) & ~(align - 1);
    if (size < align)
        size = align;
    uint64_t lo = 0, hi = s->size;
    if (s->desc.VprRangeSize) {
        lo = s->desc.VprRangeStartOffset;
        hi = lo + s->desc.VprRangeSize;
    }
    uint64_t off = 0;
    gr_status_t rc = gr_seg_alloc(s->heap, size, align, lo, hi == s->size ? GR_SEG_END : hi, GR_SEG_TOP_DOWN, &off);
    if (rc)
        return rc;
    rc = gr_seg_init(size, &s->vpr_heap);
    if (rc) {
        DXGK_CANNOT_FAIL(gr_seg_free(s->heap, off));
        return rc;
    }
    NTSTATUS st = dxgk_call_set_vpr(ad, s->base + off, s->base + off + size);
    if (st) {
        gr_seg_fini(s->vpr_heap);
        s->vpr_heap = NULL;
        DXGK_CANNOT_FAIL(gr_seg_free(s->heap, off));
        return dxgk_status_from_nt(st);
    }
    s->vpr_offset = off;
    s->vpr_size = size;
    ad->vpr_segment = s->id;
    return GR_OK;
}

/* The segment's stale-page map (dxgk_segment_t): every page, or none. */
static gr_status_t stale_init(dxgk_segment_t *s, bool all)
{
    const uint64_t pages = s->size / 4096u;
    s->stale = calloc((size_t)((pages + 63) / 64), sizeof *s->stale);
    if (!s->stale)
        return GR_E_NO_MEMORY;
    if (all)
        for (uint64_t p = 0; p < pages; p++)
            s->stale[p / 64] |= UINT64_C(1) << (p % 64);
    return GR_OK;
}

static gr_status_t query_adapter(gr_adapter_t *ad)
{
    DXGKARG_QUERYADAPTERINFO q;
    memset(&q, 0, sizeof q);
    q.Type = DXGKQAITYPE_DRIVERCAPS;
    q.pOutputData = &ad->caps;
    q.OutputDataSize = sizeof ad->caps;
    if (dxgk_call_query_adapter_info(ad, &q))
        return GR_E_MISMATCH;
    /* The caps VidMm's rules depend on must be consistent (WDDM 2.0 GPU-VA model). */
    if (!ad->caps.MemoryManagementCaps.GpuMmuSupported && !ad->caps.MemoryManagementCaps.IoMmuSupported)
        return GR_E_MISMATCH;

    DXGK_QUERYSEGMENTIN4 in = {.PhysicalAdapterIndex = 0};
    DXGK_QUERYSEGMENTOUT4 out;
    memset(&out, 0, sizeof out);
    memset(&q, 0, sizeof q);
    q.Type = DXGKQAITYPE_QUERYSEGMENT4;
    q.pInputData = &in;
    q.InputDataSize = sizeof in;
    q.pOutputData = &out;
    q.OutputDataSize = sizeof out;
    /* First call: NbSegment 0 asks for the count only. */
    if (dxgk_call_query_adapter_info(ad, &q) || out.NbSegment == 0 || out.NbSegment > GR_ALLOC_MAX_SEGMENTS)
        return GR_E_MISMATCH;
    DXGK_SEGMENTDESCRIPTOR4 descs[GR_ALLOC_MAX_SEGMENTS];
    memset(descs, 0, sizeof descs);
    out.pSegmentDescriptor = (BYTE *)descs;
    out.SegmentDescriptorStride = sizeof descs[0];
    if (dxgk_call_query_adapter_info(ad, &q))
        return GR_E_MISMATCH;
    ad->nseg = out.NbSegment;
    /* Paging buffers: VidMm pages (evicts) only with buffers in system memory (segment 0), which
     * is where the engine fetches DMA buffers from. */
    if (out.PagingBufferSegmentId == 0 && out.PagingBufferSize >= 8 && out.PagingBufferSize % 8 == 0) {
        ad->paging_buffer_size = out.PagingBufferSize;
        ad->paging_priv_size = out.PagingBufferPrivateDataSize;
    }
    for (uint32_t i = 0; i < ad->nseg; i++) {
        dxgk_segment_t *s = &ad->seg[i];
        s->id = i + 1;
        s->desc = descs[i];
        s->base = (uint64_t)descs[i].BaseAddress.QuadPart;
        s->size = descs[i].Size;
        s->cpu_visible = descs[i].Flags.CpuVisible;
        if (descs[i].Flags.Aperture || s->size == 0 || s->size % GR_SEG_UNIT)
            return GR_E_MISMATCH; /* only memory segments are modelled */
        gr_status_t rc = gr_seg_init(s->size, &s->heap);
        if (rc)
            return rc;
        /* VRAM holds what earlier users of the device left, unless the open made the device and
         * no driver stack ran on it before this one. */
        rc = stale_init(s, ad->vram_used || !(gr_link_caps(ad->link) & GR_LINK_CAP_FRESH_VRAM));
        if (rc)
            return rc;
    }
    for (uint32_t i = 0; i < ad->nseg; i++)
        if (ad->seg[i].desc.Flags.VprSupported) {
            gr_status_t rc = setup_vpr(ad, &ad->seg[i]);
            if (rc && rc != GR_E_NO_DEVICE)
                return rc;
            break; /* one VPR (NumVprSupported) */
        }
    return GR_OK;
}

static void free_segments(gr_adapter_t *ad)
{
    for (uint32_t i = 0; i < GR_ALLOC_MAX_SEGMENTS; i++) {
        gr_seg_fini(ad->seg[i].vpr_heap);
        gr_seg_fini(ad->seg[i].heap);
        ad->seg[i].vpr_heap = ad->seg[i].heap = NULL;
        free(ad->seg[i].stale);
        ad->seg[i].stale = NULL;
    }
}

/* Records why starting the adapter failed at a step, with what a lower layer said about it
 * (a link read's detail, for instance) when it said something. */
static gr_status_t adapter_failed(const char *step, gr_status_t rc)
{
    char inner[384];
    if (gr_link_has_error()) {
        snprintf(inner, sizeof inner, "%s", gr_link_error());
        gr_link_set_error("gr_adapter_open: %s: %s (%s)", step, gr_strerror(rc), inner);
    } else {
        gr_link_set_error("gr_adapter_open: %s: %s", step, gr_strerror(rc));
    }
    return rc;
}

/* Starts an adapter over link (opened from uri when link is NULL; then the adapter owns it).
 * vram_used: an earlier driver stack ran on this device, so its VRAM is not fresh whatever the
 * link says. */
static gr_status_t adapter_start(const char *uri, gr_link_t *link, bool vram_used, gr_adapter_t **out_adapter)
{
    gr_link_clear_error();
    if (!out_adapter)
        return adapter_failed("no place for the adapter (out_adapter is NULL)", GR_E_INVALID);
    /* broker://: the device's one driver stack is a broker's (host/broker/README.md). */
    if (link ? gr_link_is_broker(link) : gr_brk_uri(uri))
        return gr_brk_adapter_start(uri, link, out_adapter);
    if (!dxgk_kernel_handles())
        return adapter_failed("the kernel handle table cannot be set up", GR_E_INVALID);
    gr_adapter_t *ad = calloc(1, sizeof *ad);
    if (!ad)
        return adapter_failed("allocating the adapter", GR_E_NO_MEMORY);
    gr_status_t rc = GR_E_NO_MEMORY;
    if (pthread_mutex_init(&ad->link_lock, NULL))
        goto fail_free;
    if (pthread_mutex_init(&ad->vidmm_lock, NULL))
        goto fail_link_lock;
    if (pthread_mutex_init(&ad->proc_lock, NULL))
        goto fail_vidmm_lock;
    if (dxgk_htab_init(&ad->shared))
        goto fail_proc_lock;
    /* The DDI table and the threading checker exist before the first DDI call. */
    if (dxgk_ddi_init(ad))
        goto fail_shared_table;
    if (dxgk_vidsch_init(ad)) {
        dxgk_ddi_fini(ad);
        goto fail_shared_table;
    }
    ad->owns_link = link == NULL;
    ad->link = link;
    ad->vram_used = vram_used;
    if (ad->owns_link) {
        rc = gr_link_open(uri, &ad->link);
        if (rc) {
            /* The transport's words stand alone (the URI's mistake, a file, a server). */
            if (!gr_link_has_error())
                adapter_failed("cannot open the device", rc);
            goto fail_shared;
        }
    }
    /* One driver stack per device: bound before the miniport touches it (bridge/PROTOCOL.md,
     * "Binding"; host/broker/README.md shares a device among processes). */
    rc = gr_link_bind(ad->link, GR_LINK_BIND_TAKE, NULL, 0);
    if (rc) {
        adapter_failed(rc == GR_E_BUSY ? "another driver stack owns the device (gpuref-broker shares one)"
                                       : "binding the device",
                       rc);
        goto fail_link;
    }
    ad->dxgkrnl.Size = sizeof ad->dxgkrnl;
    ad->dxgkrnl.Version = DXGKDDI_INTERFACE_VERSION;
    ad->dxgkrnl.DeviceHandle = ad;
    dxgk_kernel_fill_callbacks(&ad->dxgkrnl);
    dxgk_vidsch_fill_callbacks(ad, &ad->dxgkrnl);
    gr_kmd_start_info_t si = {.link = ad->link, .link_lock = &ad->link_lock, .dxgkrnl = &ad->dxgkrnl};
    NTSTATUS st = dxgk_call_start_adapter(ad, &si);
    if (st) {
        rc = st == STATUS_DEVICE_NOT_READY ? GR_E_NO_DEVICE : dxgk_status_from_nt(st);
        char what[96];
        snprintf(what, sizeof what, "the miniport did not start (DxgkDdiStartDevice: 0x%08x)", (unsigned)st);
        adapter_failed(what, rc);
        goto fail_link;
    }
    const char *step = "querying the miniport's segments (DxgkDdiQueryAdapterInfo)";
    rc = query_adapter(ad);
    if (!rc) {
        step = "setting up residency";
        rc = dxgk_res_init(ad); /* residency: eviction needs the engine VidSch starts next */
    }
    if (!rc) {
        step = "starting the GPU scheduler";
        rc = dxgk_vidsch_start(ad); /* the GPU scheduler, when the miniport reports an engine */
    }
    if (rc) {
        adapter_failed(step, rc);
        goto fail_kmd;
    }
    *out_adapter = ad;
    return GR_OK;
fail_kmd:
    if (ad->vpr_segment)
        (void)dxgk_call_set_vpr(ad, 0, 0);
    dxgk_res_fini(ad);
    free_segments(ad);
    dxgk_call_stop_adapter(ad);
fail_link:
    (void)gr_link_bind(ad->link, GR_LINK_BIND_RELEASE, NULL, 0);
    if (ad->owns_link)
        gr_link_close(ad->link);
fail_shared:
    dxgk_vidsch_fini(ad);
    dxgk_ddi_fini(ad);
fail_shared_table:
    dxgk_htab_fini(&ad->shared);
fail_proc_lock:
    pthread_mutex_destroy(&ad->proc_lock);
fail_vidmm_lock:
    pthread_mutex_destroy(&ad->vidmm_lock);
fail_link_lock:
    pthread_mutex_destroy(&ad->link_lock);
fail_free:
    free(ad);
    if (rc == GR_E_NO_MEMORY && !gr_link_has_error())
        adapter_failed("setting up the adapter's locks and tables", rc);
    return rc;
}

gr_status_t gr_adapter_open(const char *uri, gr_adapter_t **out_adapter)
{
    return adapter_start(uri, NULL, false, out_adapter);
}

gr_status_t gr_adapter_open_link(gr_link_t *link, gr_adapter_t **out_adapter)
{
    if (!link) {
        gr_link_set_error("gr_adapter_open_link: no link (NULL)");
        return GR_E_INVALID;
    }
    return adapter_start(NULL, link, false, out_adapter);
}

gr_status_t gr_brk_driver_start(gr_link_t *link, bool vram_used, gr_adapter_t **out_adapter)
{
    if (!link)
        return GR_E_INVALID;
    return adapter_start(NULL, link, vram_used, out_adapter);
}

void gr_brk_driver_stop(gr_adapter_t *ad, bool keep_binding)
{
    if (ad)
        ad->keep_binding = keep_binding;
    gr_adapter_close(ad);
}

void gr_adapter_close(gr_adapter_t *ad)
{
    if (!ad)
        return;
    if (ad->broker) {
        gr_brk_adapter_close(ad);
        return;
    }
    for (;;) {
        pthread_mutex_lock(&ad->proc_lock);
        gr_process_t *p = ad->procs;
        pthread_mutex_unlock(&ad->proc_lock);
        if (!p)
            break;
        gr_process_destroy(p);
    }
    /* Every context is gone: the scheduler's threads stop before the miniport does. */
    dxgk_vidsch_stop(ad);
    if (ad->vpr_segment)
        (void)dxgk_call_set_vpr(ad, 0, 0);
    dxgk_res_fini(ad);
    free_segments(ad);
    dxgk_call_stop_adapter(ad);
    if (!ad->keep_binding)
        (void)gr_link_bind(ad->link, GR_LINK_BIND_RELEASE, NULL, 0);
    if (ad->owns_link)
        gr_link_close(ad->link);
    dxgk_vidsch_fini(ad);
    dxgk_ddi_fini(ad);
    dxgk_htab_fini(&ad->shared);
    pthread_mutex_destroy(&ad->proc_lock);
    pthread_mutex_destroy(&ad->vidmm_lock);
    pthread_mutex_destroy(&ad->link_lock);
    free(ad);
}

gr_link_t *gr_adapter_link(gr_adapter_t *ad)
{
    return ad ? ad->link : NULL;
}

int gr_adapter_with_link(gr_adapter_t *ad, int (*fn)(gr_link_t *link, void *ctx), void *ctx)
{
    if (!ad || !fn)
        return GR_E_INVALID;
    pthread_mutex_lock(&ad->link_lock);
    int rc = fn(ad->link, ctx);
    pthread_mutex_unlock(&ad->link_lock);
    return rc;
}

gr_status_t gr_adapter_segments(gr_adapter_t *ad, gr_segment_info_t *out, uint32_t max, uint32_t *out_count)
{
    if (ad && ad->broker)
        return gr_brk_adapter_segments(ad, out, max, out_count);
    if (!ad || !out_count || (max && !out))
        return GR_E_INVALID;
    pthread_mutex_lock(&ad->vidmm_lock);
    for (uint32_t i = 0; i < ad->nseg && i < max; i++) {
        const dxgk_segment_t *s = &ad->seg[i];
        gr_seg_stats_t st, vst;
        memset(&vst, 0, sizeof vst);
        if (gr_seg_stats(s->heap, &st) || (s->vpr_heap && gr_seg_stats(s->vpr_heap, &vst))) {
            pthread_mutex_unlock(&ad->vidmm_lock);
            return GR_E_INVALID;
        }
        gr_segment_info_t *o = &out[i];
        memset(o, 0, sizeof *o);
        o->id = s->id;
        o->base = s->base;
        o->size = s->size;
        o->cpu_visible = s->cpu_visible;
        o->vpr = s->vpr_heap != NULL;
        o->vpr_offset = s->vpr_offset;
        o->vpr_size = s->vpr_size;
        o->free_bytes = st.free_bytes;
        o->largest_free = st.largest_free;
        /* The VPR is one reserved block of heap; count what lives inside it instead. */
        o->allocations = st.allocations - (s->vpr_heap ? 1 : 0) + vst.allocations;
    }
    *out_count = ad->nseg;
    pthread_mutex_unlock(&ad->vidmm_lock);
    return GR_OK;
}

typedef struct walk_ctx {
    const dxgk_segment_t *s;
    gr_segment_walk_fn fn;
    void *ctx;
    bool stop;
} walk_ctx_t;

static bool walk_vpr(void *c, uint64_t offset, uint64_t size, bool is_free)
{
    walk_ctx_t *w = c;
    if (!w->fn(w->ctx, w->s->vpr_offset + offset, size, is_free ? GR_RANGE_VPR_FREE : GR_RANGE_ALLOCATION))
        w->stop = true;
    return !w->stop;
}

static bool walk_heap(void *c, uint64_t offset, uint64_t size, bool is_free)
{
    walk_ctx_t *w = c;
    if (w->s->vpr_heap && !is_free && offset == w->s->vpr_offset) {
        DXGK_CANNOT_FAIL(gr_seg_walk(w->s->vpr_heap, walk_vpr, w));
        return !w->stop;
    }
    if (!w->fn(w->ctx, offset, size, is_free ? GR_RANGE_FREE : GR_RANGE_ALLOCATION))
        w->stop = true;
    return !w->stop;
}

gr_status_t gr_segment_walk(gr_adapter_t *ad, uint32_t segment, gr_segment_walk_fn fn, void *ctx)
{
    if (ad && ad->broker)
        return gr_brk_segment_walk(ad, segment, fn, ctx);
    if (!ad || !fn || segment == 0 || segment > ad->nseg)
        return GR_E_INVALID;
    pthread_mutex_lock(&ad->vidmm_lock);
    walk_ctx_t w = {.s = &ad->seg[segment - 1], .fn = fn, .ctx = ctx, .stop = false};
    gr_status_t rc = gr_seg_walk(w.s->heap, walk_heap, &w);
    pthread_mutex_unlock(&ad->vidmm_lock);
    return rc;
}

gr_status_t gr_adapter_stats(gr_adapter_t *ad, gr_adapter_stats_t *out)
{
    if (ad && ad->broker)
        return gr_brk_adapter_stats(ad, out);
    if (!ad || !out)
        return GR_E_INVALID;
    gr_kmd_counts_t k;
    if (dxgk_call_counts(ad, &k))
        return GR_E_INVALID;
    out->ddi_create_allocation = atomic_load(&ad->n_create);
    out->ddi_open_allocation = atomic_load(&ad->n_open);
    out->ddi_close_allocation = atomic_load(&ad->n_close);
    out->ddi_destroy_allocation = atomic_load(&ad->n_destroy);
    out->ddi_destroy_resource = atomic_load(&ad->n_destroy_res);
    out->lock_window_moves = atomic_load(&ad->n_window_moves);
    out->kmd_allocations = k.allocations;
    out->kmd_resources = k.resources;
    out->kmd_opens = k.opens;
    out->kmd_devices = k.devices;
    out->evictions = out->discards = out->page_ins = 0;
    out->bytes_evicted = out->bytes_paged_in = out->paging_packets = 0;
    out->paging_failures = out->evicted_now = 0;
    dxgk_res_stats(ad, out);
    return GR_OK;
}

/* ---- processes and devices ------------------------------------------------------------- */

gr_status_t gr_process_create(gr_adapter_t *ad, gr_process_t **out_process)
{
    if (!ad || !out_process)
        return GR_E_INVALID;
    if (ad->broker)
        return gr_brk_process_create(ad, out_process);
    gr_process_t *p = dxgk_process_new();
    if (!p)
        return GR_E_NO_MEMORY;
    if (dxgk_htab_init(&p->handles)) {
        dxgk_process_free(p);
        return GR_E_NO_MEMORY;
    }
    dxgk_process_join(ad, p);
    *out_process = p;
    return GR_OK;
}

void gr_process_destroy(gr_process_t *p)
{
    if (!p)
        return;
    if (p->adapter->broker) {
        gr_brk_process_destroy(p);
        return;
    }
    while (p->devices)
        gr_gpu_device_destroy(p->devices);
    dxgk_process_free_sysmem(p);
    dxgk_htab_fini(&p->handles);
    dxgk_process_free(p);
}

gr_status_t gr_gpu_device_create(gr_process_t *p, gr_gpu_device_t **out_device)
{
    if (!p || !out_device)
        return GR_E_INVALID;
    if (p->adapter->broker)
        return gr_brk_gpu_device_create(p, out_device);
    gr_gpu_device_t *d = calloc(1, sizeof *d);
    if (!d)
        return GR_E_NO_MEMORY;
    d->process = p;
    d->va_next = DXGK_VA_BASE;
    pthread_mutex_lock(&p->lock);
    NTSTATUS st = dxgk_call_create_device(p, d);
    if (st) {
        pthread_mutex_unlock(&p->lock);
        free(d);
        return dxgk_status_from_nt(st);
    }
    gr_status_t rc = gr_gpuva_create(&dxgk_gpuva_ops, d, &d->va_space);
    if (rc) {
        (void)dxgk_call_destroy_device(p, d);
        pthread_mutex_unlock(&p->lock);
        free(d);
        return rc;
    }
    d->next = p->devices;
    p->devices = d;
    pthread_mutex_unlock(&p->lock);
    *out_device = d;
    return GR_OK;
}

void gr_gpu_device_destroy(gr_gpu_device_t *d)
{
    if (!d)
        return;
    if (d->process->adapter->broker) {
        gr_brk_gpu_device_destroy(d);
        return;
    }
    gr_process_t *p = d->process;
    pthread_mutex_lock(&p->lock);
    /* Its contexts first (their work cancelled), so no packet names its allocations. */
    dxgk_vidsch_device_teardown(d);
    dxgk_device_release_all(d);
    gr_gpuva_destroy(d->va_space);
    (void)dxgk_call_destroy_device(p, d);
    for (gr_gpu_device_t **pp = &p->devices; *pp; pp = &(*pp)->next)
        if (*pp == d) {
            *pp = d->next;
            break;
        }
    pthread_mutex_unlock(&p->lock);
    free(d);
}

/* ---- test hooks ------------------------------------------------------------------------ */

void gr_dxgk_test_set_create_hook(gr_adapter_t *ad, void (*fn)(void *ctx, DXGK_ALLOCATIONINFO *infos, UINT count),
                                  void *ctx)
{
    ad->create_hook = fn;
    ad->create_hook_ctx = ctx;
}

void gr_dxgk_test_set_caps(gr_adapter_t *ad, const DXGK_DRIVERCAPS *caps)
{
    ad->caps = *caps;
}

void gr_dxgk_test_set_disabled_rules(gr_adapter_t *ad, uint64_t mask)
{
    ad->test_disabled_rules = mask;
}

HANDLE gr_dxgk_test_hadapter(gr_adapter_t *ad)
{
    return ad->hAdapter;
}

const DXGK_DRIVERCAPS *gr_dxgk_test_caps(gr_adapter_t *ad)
{
    return &ad->caps;
}

gr_status_t gr_dxgk_test_gpuva_lookup(gr_gpu_device_t *dev, uint64_t va, uint64_t *out_pa, unsigned *out_flags,
                                      unsigned *out_page_shift)
{
    pthread_mutex_lock(&dev->process->lock);
    dxgk_res_lock(dev->process->adapter); /* VA spaces change with residency */
    gr_status_t rc = gr_gpuva_lookup(dev->va_space, va, out_pa, out_flags, out_page_shift);
    dxgk_res_unlock(dev->process->adapter);
    pthread_mutex_unlock(&dev->process->lock);
    return rc;
}

gr_status_t gr_dxgk_test_gpuva_check(gr_gpu_device_t *dev)
{
    pthread_mutex_lock(&dev->process->lock);
    dxgk_res_lock(dev->process->adapter);
    gr_status_t rc = gr_gpuva_check(dev->va_space);
    dxgk_res_unlock(dev->process->adapter);
    pthread_mutex_unlock(&dev->process->lock);
    return rc;
}
