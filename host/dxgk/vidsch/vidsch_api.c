/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch_api.c: the public calls of gpuref/gr_submit.h: contexts, DMA buffers, submission,
 * waits, cancellation, preemption; and the device teardown VidMm asks for.
 */
#define _GNU_SOURCE /* pthread spin locks (vidsch_objects.h) */
#include <stdlib.h>
#include <string.h>

#include "dxgk_ddi.h"
#include "dxgk_handle.h"
#include "dxgk_kernel.h"
#include "dxgk_threading.h"
#include "gr_broker.h"
#include "gr_link.h"
#include "vidmm_packet.h"
#include "vidsch.h"
#include "vidsch_ddi.h"
#include "vidsch_objects.h"
#include "vidsch_sched.h"
#include "vidsch_sync.h"

#define VS_ROOT_ENTRIES 512u /* gpuref's L3 table (vidmm_gpuva.h) */

static dxgk_vidsch_t *vs_of_dev(gr_gpu_device_t *dev)
{
    return dev && dev->process && dev->process->adapter ? dev->process->adapter->vidsch : NULL;
}

/* The context behind a handle of this device, or NULL (process lock held). */
static vs_context_t *find_ctx(gr_gpu_device_t *dev, gr_context_t h)
{
    vs_context_t *c = dxgk_htab_lookup(&dev->process->handles, h, DXGK_HT_CONTEXT);
    return c && c->magic == VS_MAGIC_CONTEXT && c->device == dev && !c->dead ? c : NULL;
}

static vs_dmabuf_t *find_buf(gr_gpu_device_t *dev, gr_dma_buffer_t h)
{
    vs_dmabuf_t *b = dxgk_htab_lookup(&dev->process->handles, h, DXGK_HT_DMABUF);
    return b && b->magic == VS_MAGIC_DMABUF && b->device == dev ? b : NULL;
}

static dxgk_open_t *find_open(gr_gpu_device_t *dev, gr_alloc_t h)
{
    dxgk_open_t *op = dxgk_htab_lookup(&dev->process->handles, h, DXGK_HT_OPEN);
    return op && op->device == dev ? op : NULL;
}

/* What a call checks before it works on a handle (vs_enter), in this order: each fault has its
 * status, and a call with several faults gets the first one's. */
typedef struct vs_entry {
    bool bad_args;     /* GR_E_INVALID: the call's own arguments are wrong */
    bool engine;       /* GR_E_UNSUPPORTED when the miniport reports no engine */
    bool preemption;   /* GR_E_UNSUPPORTED when the miniport is not PreemptionAware */
    bool too_big;      /* GR_E_RANGE */
    const char *waits; /* a call that waits (its name, for the threading checker): it keeps a
                          reference on its context instead of the process lock */
} vs_entry_t;

/*
 * The start of every call of gr_submit.h on a device: its VidSch (GR_E_INVALID without one), the
 * checks of e, then, when out_ctx or out_buf asks for one, the process lock and the live context
 * or DMA buffer of this device behind h (GR_E_INVALID: the lock is released again). On GR_OK
 * the process lock is held when an object was looked up (e.waits: a reference on the context
 * instead, for ctx_put); on failure nothing is held and no output is written.
 */
static gr_status_t vs_enter(gr_gpu_device_t *dev, uint32_t h, vs_entry_t e, dxgk_vidsch_t **out_vs,
                            vs_context_t **out_ctx, vs_dmabuf_t **out_buf)
{
    dxgk_vidsch_t *vs = vs_of_dev(dev);
    if (!vs || e.bad_args)
        return GR_E_INVALID;
    if ((e.engine && !vs->engine) || (e.preemption && !vs->caps.PreemptionAware))
        return GR_E_UNSUPPORTED;
    if (e.too_big)
        return GR_E_RANGE;
    if (e.engine && atomic_load(&vs->link_lost)) {
        gr_link_set_error("%s", vs->lost_reason);
        return GR_E_LINK;
    }
    if (e.waits)
        dxgk_thr_may_block(vs->ad->thr, e.waits);
    if (out_ctx || out_buf) {
        gr_process_t *p = dev->process;
        pthread_mutex_lock(&p->lock);
        vs_context_t *c = out_ctx ? find_ctx(dev, h) : NULL;
        vs_dmabuf_t *b = out_buf ? find_buf(dev, h) : NULL;
        if ((out_ctx && !c) || (out_buf && !b)) {
            pthread_mutex_unlock(&p->lock);
            return GR_E_INVALID;
        }
        if (e.waits) {
            pthread_mutex_lock(&vs->lock);
            c->refs++;
            pthread_mutex_unlock(&vs->lock);
            pthread_mutex_unlock(&p->lock);
        }
        if (out_ctx)
            *out_ctx = c;
        if (out_buf)
            *out_buf = b;
    }
    *out_vs = vs;
    return GR_OK;
}

/* ---- contexts --------------------------------------------------------------------------------- */

/* The device's root page table as a segment address (DXGKARG_SETROOTPAGETABLE.Address). */
static bool root_address(gr_adapter_t *ad, uint64_t vram, D3DGPU_PHYSICAL_ADDRESS *out)
{
    for (uint32_t i = 0; i < ad->nseg; i++) {
        const dxgk_segment_t *s = &ad->seg[i];
        if (vram >= s->base && vram - s->base < s->size) {
            memset(out, 0, sizeof *out);
            out->SegmentId = s->id;
            out->SegmentOffset = vram - s->base;
            return true;
        }
    }
    return false;
}

gr_status_t gr_context_create(gr_gpu_device_t *dev, const void *private_data, uint32_t private_size,
                              gr_context_t *out_context)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_context_create(dev, private_data, private_size, out_context);
    const bool bad_args = !out_context || (private_size && !private_data) || private_size > GR_CONTEXT_MAX_PRIVATE;
    dxgk_vidsch_t *vs;
    gr_status_t rc = vs_enter(dev, 0, (vs_entry_t){.bad_args = bad_args, .engine = true}, &vs, NULL, NULL);
    if (rc)
        return rc;
    gr_process_t *p = dev->process;
    gr_adapter_t *ad = p->adapter;
    vs_context_t *c = calloc(1, sizeof *c);
    void *priv = private_size ? malloc(private_size) : NULL;
    if (!c || (private_size && !priv)) {
        free(c);
        free(priv);
        return GR_E_NO_MEMORY;
    }
    if (private_size)
        memcpy(priv, private_data, private_size);
    c->magic = VS_MAGIC_CONTEXT;
    c->device = dev;
    c->ad = ad;

    pthread_mutex_lock(&p->lock);
    D3DGPU_PHYSICAL_ADDRESS root;
    if (!dev->va_space || !root_address(ad, gr_gpuva_root(dev->va_space), &root)) {
        pthread_mutex_unlock(&p->lock);
        free(priv);
        free(c);
        return GR_E_UNSUPPORTED;
    }
    DXGKARG_CREATECONTEXT a;
    memset(&a, 0, sizeof a);
    a.NodeOrdinal = 0;
    a.EngineAffinity = 1;
    a.Flags.VirtualAddressing = 1;
    a.pPrivateDriverData = priv;
    a.PrivateDriverDataSize = private_size;
    NTSTATUS st = vs_ddi_create_context(ad, dev, &a);
    free(priv);
    if (st) {
        pthread_mutex_unlock(&p->lock);
        free(c);
        rc = dxgk_status_from_nt(st);
        return rc == GR_E_IO || rc == GR_E_NO_DEVICE ? GR_E_INVALID : rc;
    }
    c->hContext = a.hContext;
    c->info = a.ContextInfo;
    /* DMA buffers live in host memory here; the private data must at least exist as asked. */
    if (c->info.DmaBufferSegmentSet != 0 || c->info.DmaBufferSize > GR_DMA_BUFFER_MAX_BYTES)
        rc = GR_E_UNSUPPORTED;
    if (!rc) {
        DXGKARG_SETROOTPAGETABLE r;
        memset(&r, 0, sizeof r);
        r.hContext = c->hContext;
        r.Address = root;
        r.NumEntries = VS_ROOT_ENTRIES;
        dxgk_vidsch_class_lock(ad);
        vs_ddi_set_root_page_table(ad, p, &r);
        dxgk_vidsch_class_unlock(ad);
        rc = dxgk_htab_insert(&p->handles, DXGK_HT_CONTEXT, c, &c->handle);
    }
    if (rc) {
        (void)vs_ddi_destroy_context(ad, dev, c->hContext);
        pthread_mutex_unlock(&p->lock);
        free(c);
        return rc;
    }
    pthread_mutex_lock(&vs->lock);
    /* Appended: round robin serves contexts in creation order. */
    vs_context_t **tail = &vs->contexts;
    while (*tail)
        tail = &(*tail)->next;
    *tail = c;
    vs->live_contexts++;
    pthread_mutex_unlock(&vs->lock);
    pthread_mutex_unlock(&p->lock);
    *out_context = c->handle;
    return GR_OK;
}

static void vs_context_free(dxgk_vidsch_t *vs, vs_context_t *c)
{
    (void)vs;
    c->magic = VS_MAGIC_DEAD;
    free(c->bad);
    free(c);
}

/*
 * Cancels the context's work, waits for its other users, DxgkDdiDestroyContext, frees it
 * (process lock held; the handle is already gone).
 */
static void destroy_ctx(dxgk_vidsch_t *vs, vs_context_t *c)
{
    gr_adapter_t *ad = c->ad;
    pthread_mutex_lock(&vs->lock);
    (void)vs_request(vs, VS_REQ_CANCEL, c, NULL);
    c->dead = true;
    pthread_cond_broadcast(&vs->cond);
    while (c->refs)
        vs_cond_wait_ns(vs, 1000000L);
    for (vs_context_t **pp = &vs->contexts; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    if (vs->rr_last == c)
        vs->rr_last = NULL;
    vs->live_contexts--;
    pthread_mutex_unlock(&vs->lock);
    (void)vs_ddi_destroy_context(ad, c->device, c->hContext);
    vs_context_free(vs, c);
}

gr_status_t gr_context_destroy(gr_gpu_device_t *dev, gr_context_t h)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_context_destroy(dev, h);
    dxgk_vidsch_t *vs;
    vs_context_t *c;
    gr_status_t rc = vs_enter(dev, h, (vs_entry_t){0}, &vs, &c, NULL);
    if (rc)
        return rc;
    gr_process_t *p = dev->process;
    (void)dxgk_htab_remove(&p->handles, h, DXGK_HT_CONTEXT);
    destroy_ctx(vs, c);
    pthread_mutex_unlock(&p->lock);
    return GR_OK;
}

gr_status_t gr_context_info(gr_gpu_device_t *dev, gr_context_t h, gr_context_info_t *out)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_context_info(dev, h, out);
    dxgk_vidsch_t *vs;
    vs_context_t *c;
    gr_status_t rc = vs_enter(dev, h, (vs_entry_t){.bad_args = !out}, &vs, &c, NULL);
    if (rc)
        return rc;
    gr_context_info_t i;
    memset(&i, 0, sizeof i);
    i.dma_buffer_size = c->info.DmaBufferSize;
    i.dma_buffer_private_size = c->info.DmaBufferPrivateDataSize;
    i.allocation_list_size = c->info.AllocationListSize;
    i.patch_location_list_size = c->info.PatchLocationListSize;
    pthread_mutex_lock(&vs->lock);
    i.submitted = c->next_seq;
    i.retired = c->retired_seq;
    i.lost = c->lost;
    pthread_mutex_unlock(&vs->lock);
    pthread_mutex_unlock(&dev->process->lock);
    *out = i;
    return GR_OK;
}

/* ---- DMA buffers ------------------------------------------------------------------------------ */

gr_status_t gr_dma_buffer_create(gr_gpu_device_t *dev, gr_context_t ctx, uint32_t bytes, gr_dma_buffer_t *out)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_dma_buffer_create(dev, ctx, bytes, out);
    const vs_entry_t e = {.bad_args = !out, .engine = true, .too_big = bytes > GR_DMA_BUFFER_MAX_BYTES};
    dxgk_vidsch_t *vs;
    vs_context_t *c;
    gr_status_t rc = vs_enter(dev, ctx, e, &vs, &c, NULL);
    if (rc)
        return rc;
    gr_process_t *p = dev->process;
    gr_adapter_t *ad = p->adapter;
    uint32_t size = bytes ? (bytes + 7u) & ~7u : c->info.DmaBufferSize;
    if (size == 0 || size > GR_DMA_BUFFER_MAX_BYTES) {
        pthread_mutex_unlock(&p->lock);
        return GR_E_RANGE;
    }
    vs_dmabuf_t *b = calloc(1, sizeof *b);
    if (!b) {
        pthread_mutex_unlock(&p->lock);
        return GR_E_NO_MEMORY;
    }
    pthread_mutex_lock(&ad->link_lock);
    rc = (gr_status_t)gr_link_dma_alloc(ad->link, size, &b->mem);
    pthread_mutex_unlock(&ad->link_lock);
    if (rc) {
        pthread_mutex_unlock(&p->lock);
        free(b);
        return rc == GR_E_INVALID ? GR_E_NO_MEMORY : rc;
    }
    memset(b->mem.cpu, 0, size);
    /* User packets reach their own DMA buffer only by GPU VA (they run unprivileged). */
    rc = dxgk_dmabuf_map(dev, b->mem.bus, size, &b->gpu_va);
    if (rc) {
        pthread_mutex_lock(&ad->link_lock);
        (void)gr_link_dma_free(ad->link, &b->mem);
        pthread_mutex_unlock(&ad->link_lock);
        pthread_mutex_unlock(&p->lock);
        free(b);
        return rc == GR_E_INVALID ? GR_E_NO_MEMORY : rc;
    }
    b->magic = VS_MAGIC_DMABUF;
    b->device = dev;
    b->size = size;
    rc = dxgk_htab_insert(&p->handles, DXGK_HT_DMABUF, b, &b->handle);
    if (rc) {
        dxgk_dmabuf_unmap(dev, b->gpu_va, size);
        pthread_mutex_lock(&ad->link_lock);
        (void)gr_link_dma_free(ad->link, &b->mem);
        pthread_mutex_unlock(&ad->link_lock);
        pthread_mutex_unlock(&p->lock);
        free(b);
        return rc;
    }
    pthread_mutex_unlock(&p->lock);
    *out = b->handle;
    return GR_OK;
}

gr_status_t gr_dma_buffer_info(gr_gpu_device_t *dev, gr_dma_buffer_t h, gr_dma_buffer_info_t *out)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_dma_buffer_info(dev, h, out);
    dxgk_vidsch_t *vs;
    vs_dmabuf_t *b;
    gr_status_t rc = vs_enter(dev, h, (vs_entry_t){.bad_args = !out}, &vs, NULL, &b);
    if (rc)
        return rc;
    gr_dma_buffer_info_t i = {.cpu = b->mem.cpu, .bus = b->mem.bus, .gpu_va = b->gpu_va, .size = b->size};
    pthread_mutex_lock(&vs->lock);
    i.in_flight = b->in_flight;
    pthread_mutex_unlock(&vs->lock);
    pthread_mutex_unlock(&dev->process->lock);
    *out = i;
    return GR_OK;
}

static void free_buf(gr_adapter_t *ad, vs_dmabuf_t *b)
{
    dxgk_dmabuf_unmap(b->device, b->gpu_va, b->size);
    pthread_mutex_lock(&ad->link_lock);
    (void)gr_link_dma_free(ad->link, &b->mem);
    pthread_mutex_unlock(&ad->link_lock);
    b->magic = VS_MAGIC_DEAD;
    free(b);
}

gr_status_t gr_dma_buffer_destroy(gr_gpu_device_t *dev, gr_dma_buffer_t h)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_dma_buffer_destroy(dev, h);
    dxgk_vidsch_t *vs;
    vs_dmabuf_t *b;
    gr_status_t rc = vs_enter(dev, h, (vs_entry_t){0}, &vs, NULL, &b);
    if (rc)
        return rc;
    gr_process_t *p = dev->process;
    pthread_mutex_lock(&vs->lock);
    bool busy = b->in_flight != 0;
    pthread_mutex_unlock(&vs->lock);
    if (busy) {
        pthread_mutex_unlock(&p->lock);
        return GR_E_BUSY;
    }
    (void)dxgk_htab_remove(&p->handles, h, DXGK_HT_DMABUF);
    free_buf(p->adapter, b);
    pthread_mutex_unlock(&p->lock);
    return GR_OK;
}

/* ---- submission ------------------------------------------------------------------------------- */

static void free_packet(vs_packet_t *k)
{
    if (!k)
        return;
    free(k->priv);
    free(k->alist);
    free(k->plist);
    free(k->opens);
    free(k);
}

/* Whether an allocation holds protected content (DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 Protected,
 * HardwareProtected, CreateInVpr, or placed in the VPR). */
static bool vs_alloc_protected(const dxgk_kalloc_t *ka)
{
    const DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 fl = ka->info.FlagsWddm2;
    return fl.Protected || fl.HardwareProtected || fl.CreateInVpr || ka->in_vpr;
}

/* Checks a submission against the context and builds its packet (process lock held). */
static gr_status_t build_packet(gr_gpu_device_t *dev, vs_context_t *c, const gr_submission_t *s, vs_packet_t **out)
{
    vs_dmabuf_t *b = find_buf(dev, s->buffer);
    if (!b)
        return GR_E_INVALID;
    /* The engine runs whole 8-byte commands from an 8-byte aligned address (rtl/dma/README.md,
     * "The ring"): a range it cannot run is refused here, not found out by the miniport's Patch
     * after a fence was handed out. */
    if (s->start >= s->end || s->end > b->size || s->start % 8 || s->end % 8 || (b->mem.bus + s->start) % 8)
        return GR_E_RANGE;
    if ((s->alloc_count && !s->allocs) || (s->patch_count && !s->patches))
        return GR_E_INVALID;
    if (s->alloc_count > GR_SUBMIT_MAX_ALLOCS || s->patch_count > GR_SUBMIT_MAX_PATCHES ||
        s->alloc_count > c->info.AllocationListSize || s->patch_count > c->info.PatchLocationListSize)
        return GR_E_RANGE;
    vs_packet_t *k = calloc(1, sizeof *k);
    if (!k)
        return GR_E_NO_MEMORY;
    k->priv_size = c->info.DmaBufferPrivateDataSize;
    k->priv = k->priv_size ? calloc(1, k->priv_size) : NULL;
    k->alist = s->alloc_count ? calloc(s->alloc_count, sizeof *k->alist) : NULL;
    k->opens = s->alloc_count ? calloc(s->alloc_count, sizeof *k->opens) : NULL;
    k->plist = s->patch_count ? calloc(s->patch_count, sizeof *k->plist) : NULL;
    if ((k->priv_size && !k->priv) || (s->alloc_count && (!k->alist || !k->opens)) || (s->patch_count && !k->plist)) {
        free_packet(k);
        return GR_E_NO_MEMORY;
    }
    for (uint32_t i = 0; i < s->alloc_count; i++) {
        const gr_alloc_ref_t *r = &s->allocs[i];
        dxgk_open_t *op = find_open(dev, r->handle);
        if (!op || (r->flags & ~(uint32_t)GR_ALLOC_REF_WRITE) || (op->read_only && (r->flags & GR_ALLOC_REF_WRITE))) {
            free_packet(k);
            return GR_E_INVALID;
        }
        for (uint32_t j = 0; j < i; j++)
            if (k->opens[j]->ka == op->ka) {
                free_packet(k);
                return GR_E_INVALID;
            }
        k->opens[i] = op;
        DXGK_ALLOCATIONLIST *al = &k->alist[i];
        al->hDeviceSpecificAllocation = op->hDeviceSpecific;
        al->WriteOperation = (r->flags & GR_ALLOC_REF_WRITE) ? 1 : 0;
        /* Where VidMm placed it: the segment and its segment address (the VRAM address here);
         * a system-memory allocation (segment 0) is named by its bus address. */
        al->SegmentId = op->ka->segment;
        al->PhysicalAddress.QuadPart = (LONGLONG)(op->ka->segment ? op->ka->vram : op->ka->sysmem_bus);
    }
    /* Protected content never reaches a place the CPU can read: a packet that names a
     * Protected, HardwareProtected or VPR allocation may write only allocations that are
     * protected as well (never locked, never shown; host/dxgk/README.md, "Protected content"). */
    bool reads_protected = false;
    for (uint32_t i = 0; i < s->alloc_count; i++)
        reads_protected |= vs_alloc_protected(k->opens[i]->ka);
    for (uint32_t i = 0; reads_protected && i < s->alloc_count; i++)
        if (k->alist[i].WriteOperation && !vs_alloc_protected(k->opens[i]->ka)) {
            free_packet(k);
            return GR_E_INVALID;
        }
    for (uint32_t i = 0; i < s->patch_count; i++) {
        const gr_patch_location_t *pl = &s->patches[i];
        if (pl->alloc_index >= s->alloc_count || pl->slot_id >> 24) {
            free_packet(k);
            return GR_E_INVALID;
        }
        if (pl->alloc_offset >= k->opens[pl->alloc_index]->ka->info.Size) {
            free_packet(k);
            return GR_E_INVALID;
        }
        /* Every operand the miniport patches is a whole, aligned qword of the range. */
        if (pl->patch_offset < s->start || pl->patch_offset > s->end || s->end - pl->patch_offset < 8 ||
            pl->patch_offset % 8) {
            free_packet(k);
            return GR_E_RANGE;
        }
        D3DDDI_PATCHLOCATIONLIST *d = &k->plist[i];
        d->AllocationIndex = pl->alloc_index;
        d->SlotId = pl->slot_id;
        d->DriverId = pl->driver_id;
        d->AllocationOffset = pl->alloc_offset;
        d->PatchOffset = pl->patch_offset;
        d->SplitOffset = 0;
    }
    k->magic = VS_MAGIC_PACKET;
    k->ctx = c;
    k->buf = b;
    k->start = s->start;
    k->end = s->end;
    k->alist_n = s->alloc_count;
    k->plist_n = s->patch_count;
    k->state = VS_PKT_QUEUED;
    *out = k;
    return GR_OK;
}

gr_status_t gr_submit(gr_gpu_device_t *dev, gr_context_t h, const gr_submission_t *s, uint64_t *out_fence)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_submit(dev, h, s, out_fence);
    dxgk_vidsch_t *vs;
    vs_context_t *c;
    gr_status_t rc = vs_enter(dev, h, (vs_entry_t){.bad_args = !s || !out_fence, .engine = true}, &vs, &c, NULL);
    if (rc)
        return rc;
    gr_process_t *p = dev->process;
    vs_packet_t *k = NULL;
    rc = build_packet(dev, c, s, &k);
    if (rc) {
        pthread_mutex_unlock(&p->lock);
        return rc;
    }
    pthread_mutex_lock(&vs->lock);
    const bool lost = c->lost;
    pthread_mutex_unlock(&vs->lock);
    /* VidMm first: every listed allocation is made resident (paged in, evicting others if it
     * must) and the list gets where each one is; the packet's GPU references, taken under the
     * same residency lock, then keep them there until it retires. */
    if (!lost)
        rc = dxgk_res_submit_begin(p->adapter, k->opens, k->alist, k->alist_n);
    if (lost || rc) {
        pthread_mutex_unlock(&p->lock);
        free_packet(k);
        return lost ? GR_E_DEVICE_RESET : rc;
    }
    pthread_mutex_lock(&vs->lock);
    if (c->lost) {
        pthread_mutex_unlock(&vs->lock);
        dxgk_res_submit_end(p->adapter);
        pthread_mutex_unlock(&p->lock);
        free_packet(k);
        return GR_E_DEVICE_RESET;
    }
    k->seq = ++c->next_seq;
    k->quantum = vs->params.quantum_cycles;
    k->prev = c->tail;
    if (c->tail)
        c->tail->next = k;
    else
        c->head = k;
    c->tail = k;
    c->queued++;
    k->buf->in_flight++;
    for (uint32_t i = 0; i < k->alist_n; i++) {
        k->opens[i]->gpu_refs++;
        k->opens[i]->ka->gpu_refs++;
    }
    vs->live_packets++;
    uint64_t seq = k->seq;
    vs_wake(vs);
    pthread_mutex_unlock(&vs->lock);
    dxgk_res_submit_end(p->adapter);
    pthread_mutex_unlock(&p->lock);
    *out_fence = seq;
    return GR_OK;
}

/* ---- waits, cancel, preempt ------------------------------------------------------------------- */

/* Drops the reference vs_enter took for a call that waits (vs->lock held). */
static void ctx_put(dxgk_vidsch_t *vs, vs_context_t *c)
{
    c->refs--;
    pthread_cond_broadcast(&vs->cond);
}

/* A retired packet's result (vs->lock held); GR_E_TIMEOUT while it has not retired. */
static gr_status_t result_of(const vs_context_t *c, uint64_t seq)
{
    for (const vs_packet_t *k = c->head; k; k = k->next)
        if (k->seq == seq)
            return GR_E_TIMEOUT;
    for (uint32_t i = 0; i < c->bad_n; i++)
        if (c->bad[i].seq == seq)
            return c->bad[i].status;
    return GR_OK;
}

gr_status_t gr_wait(gr_gpu_device_t *dev, gr_context_t h, uint64_t fence, uint64_t timeout_cycles)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_wait(dev, h, fence, timeout_cycles);
    dxgk_vidsch_t *vs;
    vs_context_t *c;
    gr_status_t rc = vs_enter(dev, h, (vs_entry_t){.engine = true, .waits = "gr_wait"}, &vs, &c, NULL);
    if (rc)
        return rc;
    pthread_mutex_lock(&vs->lock);
    if (fence == 0 || fence > c->next_seq) {
        ctx_put(vs, c);
        pthread_mutex_unlock(&vs->lock);
        return GR_E_INVALID;
    }
    pthread_mutex_unlock(&vs->lock);
    /* Two bounds: timeout_cycles of device time, and, while the device cannot be read, the
     * link's dead time of wall time (the scheduler then loses the device, which retires the
     * fence with GR_E_LINK; this one holds even if it could not). In event mode the clock is
     * read only when the deadline may have passed (the start is the bound on the device's time
     * now, never earlier than it) or while the link is in trouble: the wait itself costs the
     * link nothing. */
    pthread_mutex_lock(&vs->lock);
    rc = result_of(c, fence);
    pthread_mutex_unlock(&vs->lock);
    const uint64_t start = rc != GR_E_TIMEOUT || timeout_cycles == 0 ? 0
                           : vs->irq_events                          ? vs_clock_bound(vs, VS_BOUND_SURE)
                                                                     : vs_clock(vs);
    const uint64_t deadline = timeout_cycles > UINT64_MAX - start ? UINT64_MAX : start + timeout_cycles;
    const uint64_t dead_ms = gr_link_dead_ms(vs->ad->link);
    uint64_t fail_since = 0;
    pthread_mutex_lock(&vs->lock);
    for (;;) {
        rc = result_of(c, fence);
        if (rc != GR_E_TIMEOUT || timeout_cycles == 0)
            break;
        pthread_mutex_unlock(&vs->lock);
        uint64_t now = atomic_load(&vs->now);
        const bool read = !vs->irq_events || fail_since || atomic_load(&vs->link_trouble) ||
                          vs_clock_bound(vs, VS_BOUND_EXPECT) >= deadline;
        const int crc = read ? vs_clock_read(vs, &now) : GR_OK;
        const uint64_t wall = vs_wall_ms();
        fail_since = crc ? (fail_since ? fail_since : wall) : 0;
        pthread_mutex_lock(&vs->lock);
        rc = result_of(c, fence);
        if (rc != GR_E_TIMEOUT || now >= deadline)
            break;
        if (atomic_load(&vs->link_lost) || (crc && dead_ms && wall - fail_since >= 2 * dead_ms)) {
            gr_link_set_error("%s", atomic_load(&vs->link_lost) ? vs->lost_reason
                                                                : "the device cannot be read");
            rc = GR_E_LINK;
            break;
        }
        /* Ask the scheduler to look at the fence (an interrupt may be lost), then sleep. */
        vs_wake(vs);
        vs_cond_wait_ns(vs, 200000L);
    }
    ctx_put(vs, c);
    pthread_mutex_unlock(&vs->lock);
    return rc;
}

gr_status_t gr_cancel(gr_gpu_device_t *dev, gr_context_t h, uint32_t *out_cancelled)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_cancel(dev, h, out_cancelled);
    dxgk_vidsch_t *vs;
    vs_context_t *c;
    gr_status_t rc = vs_enter(dev, h, (vs_entry_t){.engine = true, .waits = "gr_cancel"}, &vs, &c, NULL);
    if (rc)
        return rc;
    uint32_t n = 0;
    pthread_mutex_lock(&vs->lock);
    rc = vs_request(vs, VS_REQ_CANCEL, c, &n);
    ctx_put(vs, c);
    pthread_mutex_unlock(&vs->lock);
    if (!rc && out_cancelled)
        *out_cancelled = n;
    return rc;
}

gr_status_t gr_preempt(gr_gpu_device_t *dev, gr_context_t h)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_preempt(dev, h);
    dxgk_vidsch_t *vs;
    vs_context_t *c;
    const vs_entry_t e = {.engine = true, .preemption = true, .waits = "gr_preempt"};
    gr_status_t rc = vs_enter(dev, h, e, &vs, &c, NULL);
    if (rc)
        return rc;
    pthread_mutex_lock(&vs->lock);
    rc = vs_request(vs, VS_REQ_PREEMPT, c, NULL);
    ctx_put(vs, c);
    pthread_mutex_unlock(&vs->lock);
    return rc;
}

/* ---- device teardown -------------------------------------------------------------------------- */

void dxgk_vidsch_device_teardown(gr_gpu_device_t *dev)
{
    dxgk_vidsch_t *vs = vs_of_dev(dev);
    if (!vs)
        return;
    gr_process_t *p = dev->process;
    for (;;) {
        uint32_t n = dxgk_htab_list(&p->handles, DXGK_HT_CONTEXT, NULL, 0);
        if (!n)
            break;
        uint32_t *hs = malloc(n * sizeof *hs);
        if (!hs)
            break;
        n = dxgk_htab_list(&p->handles, DXGK_HT_CONTEXT, hs, n);
        vs_context_t *victim = NULL;
        for (uint32_t i = 0; i < n && !victim; i++) {
            vs_context_t *c = dxgk_htab_lookup(&p->handles, hs[i], DXGK_HT_CONTEXT);
            if (c && c->device == dev) {
                (void)dxgk_htab_remove(&p->handles, hs[i], DXGK_HT_CONTEXT);
                victim = c;
            }
        }
        free(hs);
        if (!victim)
            break;
        destroy_ctx(vs, victim);
    }
    uint32_t n = dxgk_htab_list(&p->handles, DXGK_HT_DMABUF, NULL, 0);
    uint32_t *hs = n ? malloc(n * sizeof *hs) : NULL;
    if (hs) {
        n = dxgk_htab_list(&p->handles, DXGK_HT_DMABUF, hs, n);
        for (uint32_t i = 0; i < n; i++) {
            vs_dmabuf_t *b = dxgk_htab_lookup(&p->handles, hs[i], DXGK_HT_DMABUF);
            if (b && b->device == dev) {
                (void)dxgk_htab_remove(&p->handles, hs[i], DXGK_HT_DMABUF);
                free_buf(p->adapter, b);
            }
        }
        free(hs);
    }
}
