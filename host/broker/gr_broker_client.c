/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_broker_client.c: the public calls on an adapter opened over broker:// (gr_broker.h). Each
 * is one request to gpuref-broker (gr_broker_wire.h); what the client keeps is only what lives
 * in its own memory: the objects it was handed (process and device ids), the buffer a lock
 * returned and the DMA buffers' command bytes, both copied over the socket (host/broker/README.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "gr_broker.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dxgk_objects.h"
#include "gr_broker_wire.h"
#include "gr_link_broker.h"

/* A client-side buffer: a lock's copy of the contents, or a DMA buffer's command bytes. */
enum { SH_LOCK, SH_DMABUF };
typedef struct brk_shadow {
    gr_gpu_device_t *dev;
    uint32_t kind, handle, flags;
    uint32_t context; /* a DMA buffer's: the context of its latest submission */
    uint64_t fence;   /* ... and its fence, until a wait saw it retire (0: none pending) */
    void *cpu;
    uint64_t bytes;
    struct brk_shadow *next;
} brk_shadow_t;

static pthread_mutex_t shadow_lock = PTHREAD_MUTEX_INITIALIZER;
static brk_shadow_t *shadows;

static brk_shadow_t *shadow_take(gr_gpu_device_t *dev, uint32_t kind, uint32_t handle, bool unlink)
{
    pthread_mutex_lock(&shadow_lock);
    brk_shadow_t *s = NULL;
    for (brk_shadow_t **pp = &shadows; *pp; pp = &(*pp)->next)
        if ((*pp)->dev == dev && (*pp)->kind == kind && (*pp)->handle == handle) {
            s = *pp;
            if (unlink)
                *pp = s->next;
            break;
        }
    pthread_mutex_unlock(&shadow_lock);
    return s;
}

static void shadow_put(brk_shadow_t *s)
{
    pthread_mutex_lock(&shadow_lock);
    s->next = shadows;
    shadows = s;
    pthread_mutex_unlock(&shadow_lock);
}

static void shadow_free(brk_shadow_t *s)
{
    if (s) {
        free(s->cpu);
        free(s);
    }
}

static void shadows_of_device_free(gr_gpu_device_t *dev)
{
    pthread_mutex_lock(&shadow_lock);
    for (brk_shadow_t **pp = &shadows; *pp;) {
        brk_shadow_t *s = *pp;
        if (s->dev == dev) {
            *pp = s->next;
            shadow_free(s);
        } else {
            pp = &s->next;
        }
    }
    pthread_mutex_unlock(&shadow_lock);
}

static gr_link_t *link_of_dev(gr_gpu_device_t *dev)
{
    return dev->process->adapter->link;
}

/* A call whose answer is a fixed part only. */
static gr_status_t call(gr_link_t *link, uint32_t op, const gr_brk_obj_t *q, void *rsp, size_t rsp_len)
{
    return gr_link_broker_call(link, op, q, sizeof *q, NULL, 0, NULL, 0, rsp, rsp_len, NULL, 0, NULL);
}

/* ---- adapter, processes, devices ------------------------------------------------------------ */

bool gr_brk_uri(const char *uri)
{
    if (!uri || !*uri)
        uri = getenv("GR_DEVICE");
    return uri && !strncmp(uri, "broker:", 7);
}

gr_status_t gr_brk_adapter_start(const char *uri, gr_link_t *link, gr_adapter_t **out_adapter)
{
    gr_adapter_t *ad = calloc(1, sizeof *ad);
    if (!ad)
        return GR_E_NO_MEMORY;
    if (pthread_mutex_init(&ad->proc_lock, NULL)) {
        free(ad);
        return GR_E_NO_MEMORY;
    }
    ad->owns_link = link == NULL;
    if (!link) {
        gr_status_t rc = gr_link_open(uri, &link);
        if (rc) {
            pthread_mutex_destroy(&ad->proc_lock);
            free(ad);
            return rc;
        }
    }
    ad->link = link;
    ad->broker = true;
    *out_adapter = ad;
    return GR_OK;
}

void gr_brk_adapter_close(gr_adapter_t *ad)
{
    for (;;) {
        pthread_mutex_lock(&ad->proc_lock);
        gr_process_t *p = ad->procs;
        pthread_mutex_unlock(&ad->proc_lock);
        if (!p)
            break;
        gr_brk_process_destroy(p);
    }
    if (ad->owns_link)
        gr_link_close(ad->link);
    pthread_mutex_destroy(&ad->proc_lock);
    free(ad);
}

gr_status_t gr_brk_adapter_segments(gr_adapter_t *ad, gr_segment_info_t *out, uint32_t max, uint32_t *out_count)
{
    if (!out_count || (max && !out))
        return GR_E_INVALID;
    gr_brk_obj_t q = {.a = max};
    uint32_t n = 0;
    size_t got = 0;
    gr_segment_info_t tmp[GR_ALLOC_MAX_SEGMENTS];
    gr_status_t rc = gr_link_broker_call(ad->link, GR_BRK_SEGMENTS, &q, sizeof q, NULL, 0, NULL, 0, &n, sizeof n, tmp,
                                         sizeof tmp, &got);
    if (rc)
        return rc;
    if (got != (size_t)(n < max ? n : max) * sizeof tmp[0])
        return GR_E_IO;
    if (max)
        memcpy(out, tmp, got);
    *out_count = n;
    return GR_OK;
}

gr_status_t gr_brk_segment_walk(gr_adapter_t *ad, uint32_t segment, gr_segment_walk_fn fn, void *ctx)
{
    if (!fn)
        return GR_E_INVALID;
    gr_brk_range_t *r = malloc(GR_BRK_MAX_RANGES * sizeof *r);
    if (!r)
        return GR_E_NO_MEMORY;
    gr_brk_obj_t q = {.a = segment};
    size_t got = 0;
    gr_status_t rc = gr_link_broker_call(ad->link, GR_BRK_SEGMENT_WALK, &q, sizeof q, NULL, 0, NULL, 0, NULL, 0, r,
                                         GR_BRK_MAX_RANGES * sizeof *r, &got);
    for (size_t i = 0; !rc && i < got / sizeof *r; i++)
        if (!fn(ctx, r[i].offset, r[i].size, (gr_segment_range_kind_t)r[i].kind))
            break;
    free(r);
    return rc;
}

gr_status_t gr_brk_adapter_stats(gr_adapter_t *ad, gr_adapter_stats_t *out)
{
    if (!out)
        return GR_E_INVALID;
    gr_brk_obj_t q = {0};
    gr_adapter_stats_t st;
    gr_status_t rc = call(ad->link, GR_BRK_ADAPTER_STATS, &q, &st, sizeof st);
    if (!rc)
        *out = st;
    return rc;
}

gr_status_t gr_brk_process_create(gr_adapter_t *ad, gr_process_t **out_process)
{
    gr_process_t *p = dxgk_process_new();
    if (!p)
        return GR_E_NO_MEMORY;
    gr_brk_obj_t q = {0};
    gr_status_t rc = call(ad->link, GR_BRK_PROCESS_CREATE, &q, &p->broker_id, sizeof p->broker_id);
    if (rc) {
        dxgk_process_free(p);
        return rc;
    }
    dxgk_process_join(ad, p);
    *out_process = p;
    return GR_OK;
}

void gr_brk_process_destroy(gr_process_t *p)
{
    gr_adapter_t *ad = p->adapter;
    while (p->devices) {
        gr_gpu_device_t *d = p->devices;
        p->devices = d->next;
        shadows_of_device_free(d);
        free(d);
    }
    /* The broker destroys the process's devices and everything on them with it. */
    gr_brk_obj_t q = {.id = p->broker_id};
    (void)call(ad->link, GR_BRK_PROCESS_DESTROY, &q, NULL, 0);
    dxgk_process_free(p);
}

gr_status_t gr_brk_gpu_device_create(gr_process_t *p, gr_gpu_device_t **out_device)
{
    gr_gpu_device_t *d = calloc(1, sizeof *d);
    if (!d)
        return GR_E_NO_MEMORY;
    gr_brk_obj_t q = {.id = p->broker_id};
    gr_status_t rc = call(p->adapter->link, GR_BRK_DEVICE_CREATE, &q, &d->broker_id, sizeof d->broker_id);
    if (rc) {
        free(d);
        return rc;
    }
    d->process = p;
    d->next = p->devices;
    p->devices = d;
    *out_device = d;
    return GR_OK;
}

void gr_brk_gpu_device_destroy(gr_gpu_device_t *d)
{
    gr_process_t *p = d->process;
    gr_brk_obj_t q = {.id = d->broker_id};
    (void)call(p->adapter->link, GR_BRK_DEVICE_DESTROY, &q, NULL, 0);
    for (gr_gpu_device_t **pp = &p->devices; *pp; pp = &(*pp)->next)
        if (*pp == d) {
            *pp = d->next;
            break;
        }
    shadows_of_device_free(d);
    free(d);
}

/* ---- allocations ------------------------------------------------------------------------------ */

gr_status_t gr_brk_alloc_create(gr_gpu_device_t *dev, const gr_resource_desc_t *resource, const gr_alloc_desc_t *descs,
                                uint32_t count, gr_alloc_t *out_handles, gr_shared_t *out_shared)
{
    if (!descs || !count || !out_handles || count > GR_ALLOC_MAX_RESIDENCY_LIST)
        return GR_E_INVALID;
    for (uint32_t i = 0; i < count; i++)
        if (descs[i].sysmem) {
            gr_link_set_error("gr_alloc_create: ExistingSysMem over broker://: the device reaches only the broker's "
                              "host memory, not this process's (gr_sysmem_alloc is not served)");
            return GR_E_UNSUPPORTED;
        }
    uint32_t sizes[GR_ALLOC_MAX_RESIDENCY_LIST + 1];
    size_t data = 0;
    sizes[0] = resource && resource->private_data ? resource->private_size : 0;
    data += sizes[0];
    for (uint32_t i = 0; i < count; i++) {
        sizes[i + 1] = descs[i].private_data ? descs[i].private_size : 0;
        data += sizes[i + 1];
    }
    if (data > GR_BRK_MAX_PAYLOAD / 2)
        return GR_E_RANGE;
    uint8_t *blob = malloc(data ? data : 1);
    if (!blob)
        return GR_E_NO_MEMORY;
    uint8_t *w = blob;
    if (sizes[0]) {
        memcpy(w, resource->private_data, sizes[0]);
        w += sizes[0];
    }
    for (uint32_t i = 0; i < count; i++)
        if (sizes[i + 1]) {
            memcpy(w, descs[i].private_data, sizes[i + 1]);
            w += sizes[i + 1];
        }
    gr_brk_obj_t q = {.id = dev->broker_id, .a = count, .b = resource ? resource->flags : 0, .x = resource != NULL};
    struct {
        uint32_t shared;
        uint32_t handles[GR_ALLOC_MAX_RESIDENCY_LIST];
    } r;
    size_t got = 0;
    gr_status_t rc = gr_link_broker_call(link_of_dev(dev), GR_BRK_ALLOC_CREATE, &q, sizeof q, sizes,
                                         (count + 1) * sizeof sizes[0], blob, data, &r.shared, sizeof r.shared,
                                         r.handles, sizeof r.handles, &got);
    free(blob);
    if (rc)
        return rc;
    if (got != count * sizeof r.handles[0])
        return GR_E_IO;
    memcpy(out_handles, r.handles, got);
    if (out_shared)
        *out_shared = r.shared;
    return GR_OK;
}

gr_status_t gr_brk_alloc_open(gr_gpu_device_t *dev, gr_shared_t shared, uint32_t flags, uint32_t subresource_index,
                              gr_alloc_t *out_handles, uint32_t max, uint32_t *out_count, gr_alloc_info_t *out_info)
{
    if (!out_handles || !out_count || max > GR_ALLOC_MAX_RESIDENCY_LIST)
        return GR_E_INVALID;
    gr_brk_obj_t q = {.id = dev->broker_id, .handle = shared, .a = flags, .b = subresource_index, .x = max};
    struct {
        uint32_t count, pad;
        gr_alloc_info_t info;
    } r;
    uint32_t handles[GR_ALLOC_MAX_RESIDENCY_LIST];
    size_t got = 0;
    gr_status_t rc = gr_link_broker_call(link_of_dev(dev), GR_BRK_ALLOC_OPEN, &q, sizeof q, NULL, 0, NULL, 0, &r,
                                         sizeof r, handles, sizeof handles, &got);
    if (rc)
        return rc;
    if (got != r.count * sizeof handles[0] || r.count > max)
        return GR_E_IO;
    memcpy(out_handles, handles, got);
    *out_count = r.count;
    if (out_info)
        *out_info = r.info;
    return GR_OK;
}

static gr_status_t alloc_simple(gr_gpu_device_t *dev, uint32_t op, gr_alloc_t h)
{
    gr_brk_obj_t q = {.id = dev->broker_id, .handle = h};
    return call(link_of_dev(dev), op, &q, NULL, 0);
}

gr_status_t gr_brk_alloc_close(gr_gpu_device_t *dev, gr_alloc_t h)
{
    gr_status_t rc = alloc_simple(dev, GR_BRK_ALLOC_CLOSE, h);
    if (!rc)
        shadow_free(shadow_take(dev, SH_LOCK, h, true));
    return rc;
}

gr_status_t gr_brk_alloc_destroy(gr_gpu_device_t *dev, gr_alloc_t h)
{
    gr_status_t rc = alloc_simple(dev, GR_BRK_ALLOC_DESTROY, h);
    if (!rc)
        shadow_free(shadow_take(dev, SH_LOCK, h, true));
    return rc;
}

gr_status_t gr_brk_alloc_lock(gr_gpu_device_t *dev, gr_alloc_t h, uint32_t flags, bool whole, uint64_t offset,
                              uint64_t bytes, void **out_ptr)
{
    if (!out_ptr)
        return GR_E_INVALID;
    brk_shadow_t *s = calloc(1, sizeof *s);
    if (!s)
        return GR_E_NO_MEMORY;
    gr_brk_obj_t q = {.id = dev->broker_id, .handle = h, .a = flags, .b = whole, .x = offset, .y = bytes};
    /* The answer's size is known only from its header: take it in two steps, the size first
     * into a buffer big enough for any lock a frame can carry. */
    uint64_t n = 0;
    size_t got = 0;
    size_t cap = whole ? GR_BRK_MAX_PAYLOAD - sizeof n : (size_t)bytes;
    if (!whole && bytes > GR_BRK_MAX_PAYLOAD - sizeof n) {
        free(s);
        gr_link_set_error("gr_alloc_lock_range over broker://: %llu bytes (a lock crosses the socket; at most %u a "
                          "lock)", (unsigned long long)bytes, GR_BRK_MAX_PAYLOAD - 8u);
        return GR_E_RANGE;
    }
    s->cpu = malloc(cap ? cap : 1);
    if (!s->cpu) {
        free(s);
        return GR_E_NO_MEMORY;
    }
    gr_status_t rc = gr_link_broker_call(link_of_dev(dev), GR_BRK_ALLOC_LOCK, &q, sizeof q, NULL, 0, NULL, 0, &n,
                                         sizeof n, s->cpu, cap, &got);
    if (rc || (got != n && !(flags & GR_LOCK_DISCARD)) || n > cap) {
        shadow_free(s);
        return rc ? rc : GR_E_IO;
    }
    if (flags & GR_LOCK_DISCARD)
        memset(s->cpu, 0, (size_t)n);
    if (whole && n < cap) {
        void *shrunk = realloc(s->cpu, n ? (size_t)n : 1);
        if (shrunk)
            s->cpu = shrunk;
    }
    s->dev = dev;
    s->kind = SH_LOCK;
    s->handle = h;
    s->flags = flags;
    s->bytes = n;
    shadow_put(s);
    *out_ptr = s->cpu;
    return GR_OK;
}

gr_status_t gr_brk_alloc_unlock(gr_gpu_device_t *dev, gr_alloc_t h)
{
    brk_shadow_t *s = shadow_take(dev, SH_LOCK, h, false);
    gr_brk_obj_t q = {.id = dev->broker_id, .handle = h};
    bool back = s && !(s->flags & GR_LOCK_READ_ONLY);
    gr_status_t rc = gr_link_broker_call(link_of_dev(dev), GR_BRK_ALLOC_UNLOCK, &q, sizeof q, back ? s->cpu : NULL,
                                         back ? (size_t)s->bytes : 0, NULL, 0, NULL, 0, NULL, 0, NULL);
    if (!rc)
        shadow_free(shadow_take(dev, SH_LOCK, h, true));
    return rc;
}

gr_status_t gr_brk_alloc_query(gr_gpu_device_t *dev, gr_alloc_t h, gr_alloc_info_t *out)
{
    if (!out)
        return GR_E_INVALID;
    gr_brk_obj_t q = {.id = dev->broker_id, .handle = h};
    gr_alloc_info_t info;
    gr_status_t rc = call(link_of_dev(dev), GR_BRK_ALLOC_QUERY, &q, &info, sizeof info);
    if (!rc)
        *out = info;
    return rc;
}

gr_status_t gr_brk_alloc_residency(gr_gpu_device_t *dev, const gr_alloc_t *handles, uint32_t count, bool evict)
{
    if (!handles || count > GR_ALLOC_MAX_RESIDENCY_LIST)
        return GR_E_INVALID;
    gr_brk_obj_t q = {.id = dev->broker_id, .a = count};
    return gr_link_broker_call(link_of_dev(dev), evict ? GR_BRK_ALLOC_EVICT : GR_BRK_ALLOC_RESIDENT, &q, sizeof q,
                               handles, count * sizeof handles[0], NULL, 0, NULL, 0, NULL, 0, NULL);
}

gr_status_t gr_brk_gpu_device_probe(gr_gpu_device_t *dev, uint64_t va, bool write, gr_gpu_probe_t *out)
{
    if (!out)
        return GR_E_INVALID;
    gr_brk_obj_t q = {.id = dev->broker_id, .a = write, .x = va};
    gr_gpu_probe_t pr;
    gr_status_t rc = call(link_of_dev(dev), GR_BRK_GPU_PROBE, &q, &pr, sizeof pr);
    if (!rc)
        *out = pr;
    return rc;
}

/* ---- contexts, DMA buffers, submission ----------------------------------------------------------- */

gr_status_t gr_brk_context_create(gr_gpu_device_t *dev, const void *priv, uint32_t priv_size, gr_context_t *out)
{
    if (!out || (priv_size && !priv) || priv_size > GR_CONTEXT_MAX_PRIVATE)
        return GR_E_INVALID;
    gr_brk_obj_t q = {.id = dev->broker_id};
    uint32_t h = 0;
    gr_status_t rc = gr_link_broker_call(link_of_dev(dev), GR_BRK_CONTEXT_CREATE, &q, sizeof q, priv, priv_size, NULL,
                                         0, &h, sizeof h, NULL, 0, NULL);
    if (!rc)
        *out = h;
    return rc;
}

gr_status_t gr_brk_context_destroy(gr_gpu_device_t *dev, gr_context_t h)
{
    return alloc_simple(dev, GR_BRK_CONTEXT_DESTROY, h);
}

gr_status_t gr_brk_context_info(gr_gpu_device_t *dev, gr_context_t h, gr_context_info_t *out)
{
    if (!out)
        return GR_E_INVALID;
    gr_brk_obj_t q = {.id = dev->broker_id, .handle = h};
    gr_context_info_t info;
    gr_status_t rc = call(link_of_dev(dev), GR_BRK_CONTEXT_INFO, &q, &info, sizeof info);
    if (!rc)
        *out = info;
    return rc;
}

gr_status_t gr_brk_dma_buffer_create(gr_gpu_device_t *dev, gr_context_t ctx, uint32_t bytes, gr_dma_buffer_t *out)
{
    if (!out)
        return GR_E_INVALID;
    gr_brk_obj_t q = {.id = dev->broker_id, .handle = ctx, .a = bytes};
    uint32_t h = 0;
    gr_status_t rc = call(link_of_dev(dev), GR_BRK_DMABUF_CREATE, &q, &h, sizeof h);
    if (rc)
        return rc;
    gr_dma_buffer_info_t info;
    brk_shadow_t *s = calloc(1, sizeof *s);
    q.handle = h;
    if (!s || (rc = call(link_of_dev(dev), GR_BRK_DMABUF_INFO, &q, &info, sizeof info)) ||
        !(s->cpu = calloc(1, info.size ? info.size : 1))) {
        free(s);
        (void)call(link_of_dev(dev), GR_BRK_DMABUF_DESTROY, &q, NULL, 0);
        return rc ? rc : GR_E_NO_MEMORY;
    }
    s->dev = dev;
    s->kind = SH_DMABUF;
    s->handle = h;
    s->bytes = info.size;
    shadow_put(s);
    *out = h;
    return GR_OK;
}

gr_status_t gr_brk_dma_buffer_info(gr_gpu_device_t *dev, gr_dma_buffer_t h, gr_dma_buffer_info_t *out)
{
    brk_shadow_t *s = shadow_take(dev, SH_DMABUF, h, false);
    if (!s || !out)
        return GR_E_INVALID;
    gr_brk_obj_t q = {.id = dev->broker_id, .handle = h};
    gr_dma_buffer_info_t info;
    gr_status_t rc = call(link_of_dev(dev), GR_BRK_DMABUF_INFO, &q, &info, sizeof info);
    if (rc)
        return rc;
    info.cpu = s->cpu;
    *out = info;
    return GR_OK;
}

gr_status_t gr_brk_dma_buffer_destroy(gr_gpu_device_t *dev, gr_dma_buffer_t h)
{
    gr_status_t rc = alloc_simple(dev, GR_BRK_DMABUF_DESTROY, h);
    if (!rc)
        shadow_free(shadow_take(dev, SH_DMABUF, h, true));
    return rc;
}

gr_status_t gr_brk_submit(gr_gpu_device_t *dev, gr_context_t h, const gr_submission_t *s, uint64_t *out_fence)
{
    if (!s || s->alloc_count > GR_SUBMIT_MAX_ALLOCS || s->patch_count > GR_SUBMIT_MAX_PATCHES ||
        (s->alloc_count && !s->allocs) || (s->patch_count && !s->patches))
        return GR_E_INVALID;
    brk_shadow_t *b = shadow_take(dev, SH_DMABUF, s->buffer, false);
    if (!b)
        return GR_E_INVALID;
    if (s->start >= s->end || s->end > b->bytes)
        return GR_E_RANGE;
    size_t hdr = sizeof(gr_brk_submit_t) + s->alloc_count * sizeof(gr_alloc_ref_t) +
                 s->patch_count * sizeof(gr_patch_location_t);
    uint8_t *t = malloc(hdr);
    if (!t)
        return GR_E_NO_MEMORY;
    gr_brk_submit_t sub = {s->buffer, s->start, s->end, s->alloc_count, s->patch_count, 0};
    memcpy(t, &sub, sizeof sub);
    if (s->alloc_count)
        memcpy(t + sizeof sub, s->allocs, s->alloc_count * sizeof(gr_alloc_ref_t));
    if (s->patch_count)
        memcpy(t + sizeof sub + s->alloc_count * sizeof(gr_alloc_ref_t), s->patches,
               s->patch_count * sizeof(gr_patch_location_t));
    gr_brk_obj_t q = {.id = dev->broker_id, .handle = h};
    uint64_t fence = 0;
    gr_status_t rc = gr_link_broker_call(link_of_dev(dev), GR_BRK_SUBMIT, &q, sizeof q, t, hdr,
                                         (uint8_t *)b->cpu + s->start, s->end - s->start, &fence, sizeof fence, NULL,
                                         0, NULL);
    free(t);
    if (!rc) {
        b->context = h;
        b->fence = fence;
    }
    if (!rc && out_fence)
        *out_fence = fence;
    return rc;
}

gr_status_t gr_brk_wait(gr_gpu_device_t *dev, gr_context_t h, uint64_t fence, uint64_t timeout_cycles)
{
    gr_brk_obj_t q = {.id = dev->broker_id, .handle = h, .x = fence, .y = timeout_cycles};
    gr_status_t rc = call(link_of_dev(dev), GR_BRK_WAIT, &q, NULL, 0);
    if (rc)
        return rc;
    /* The buffers whose latest packet has now retired get what the device wrote into them. */
    pthread_mutex_lock(&shadow_lock);
    for (brk_shadow_t *s = shadows; s && !rc; s = s->next)
        if (s->dev == dev && s->kind == SH_DMABUF && s->context == h && s->fence && s->fence <= fence) {
            gr_brk_obj_t r = {.id = dev->broker_id, .handle = s->handle};
            size_t got = 0;
            rc = gr_link_broker_call(link_of_dev(dev), GR_BRK_DMABUF_READ, &r, sizeof r, NULL, 0, NULL, 0, NULL, 0,
                                     s->cpu, (size_t)s->bytes, &got);
            s->fence = 0;
        }
    pthread_mutex_unlock(&shadow_lock);
    return rc;
}

gr_status_t gr_brk_cancel(gr_gpu_device_t *dev, gr_context_t h, uint32_t *out_cancelled)
{
    gr_brk_obj_t q = {.id = dev->broker_id, .handle = h};
    uint32_t n = 0;
    gr_status_t rc = call(link_of_dev(dev), GR_BRK_CANCEL, &q, &n, sizeof n);
    if (!rc && out_cancelled)
        *out_cancelled = n;
    return rc;
}

gr_status_t gr_brk_preempt(gr_gpu_device_t *dev, gr_context_t h)
{
    return alloc_simple(dev, GR_BRK_PREEMPT, h);
}

gr_status_t gr_brk_set_scheduling(gr_adapter_t *ad, const gr_sched_params_t *p)
{
    if (!p)
        return GR_E_INVALID;
    gr_brk_obj_t q = {.x = p->quantum_cycles, .y = p->tdr_timeout_cycles};
    return call(ad->link, GR_BRK_SET_SCHEDULING, &q, NULL, 0);
}

gr_status_t gr_brk_sched_stats(gr_adapter_t *ad, gr_sched_stats_t *out)
{
    if (!out)
        return GR_E_INVALID;
    gr_brk_obj_t q = {0};
    gr_sched_stats_t st;
    gr_status_t rc = call(ad->link, GR_BRK_SCHED_STATS, &q, &st, sizeof st);
    if (!rc)
        *out = st;
    return rc;
}

gr_status_t gr_brk_cycles(gr_adapter_t *ad, uint64_t *out_cycles)
{
    if (!out_cycles)
        return GR_E_INVALID;
    gr_brk_obj_t q = {0};
    uint64_t c = 0;
    gr_status_t rc = call(ad->link, GR_BRK_CYCLES, &q, &c, sizeof c);
    if (!rc)
        *out_cycles = c;
    return rc;
}

gr_status_t gr_brk_timeline(gr_adapter_t *ad, uint64_t since, gr_sched_event_t *out_events, size_t cap, size_t *out_n,
                            uint64_t *out_next)
{
    if ((cap && !out_events) || !out_n)
        return GR_E_INVALID;
    if (cap > GR_SCHED_TIMELINE_CAP)
        cap = GR_SCHED_TIMELINE_CAP;
    gr_brk_obj_t q = {.a = (uint32_t)cap, .x = since};
    uint64_t r[2];
    size_t got = 0;
    gr_status_t rc = gr_link_broker_call(ad->link, GR_BRK_TIMELINE, &q, sizeof q, NULL, 0, NULL, 0, r, sizeof r,
                                         out_events, cap * sizeof *out_events, &got);
    if (rc)
        return rc;
    if (got != r[0] * sizeof *out_events)
        return GR_E_IO;
    *out_n = (size_t)r[0];
    if (out_next)
        *out_next = r[1];
    return GR_OK;
}

/* ---- VidMm's test reservation ---------------------------------------------------------------- */

gr_status_t gr_brk_test_reserve(gr_adapter_t *ad, uint32_t segment, bool whole, uint64_t lo, uint64_t hi,
                                uint64_t leave_bytes)
{
    gr_brk_obj_t q = {.a = segment, .b = whole};
    const uint64_t r[3] = {lo, hi, leave_bytes};
    return gr_link_broker_call(ad->link, GR_BRK_TEST_RESERVE, &q, sizeof q, r, sizeof r, NULL, 0, NULL, 0, NULL, 0,
                               NULL);
}

void gr_brk_test_unreserve(gr_adapter_t *ad)
{
    gr_brk_obj_t q = {0};
    (void)call(ad->link, GR_BRK_TEST_UNRESERVE, &q, NULL, 0);
}
