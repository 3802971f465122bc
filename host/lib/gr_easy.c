/* SPDX-License-Identifier: Apache-2.0 */
/* gr_easy.c: the common path over the public API (gpuref/gr_easy.h). Nothing here reaches
 * below gr_alloc.h, gr_submit.h and gr_dma.h: the layer must stay a client of the DDI-shaped
 * calls, so that what it does is what a program could do with them. */
#include "gpuref/gr_easy.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuref/gr_alloc_private.h"
#include "gr_link.h"

/* The miniport's surface limits (host/kmd/README.md). */
#define EASY_SURFACE_MAX_DIM 16384u

/* The detail goes where every layer of the library leaves its own (gr_last_error()). */
static void easy_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void easy_error(const char *fmt, ...)
{
    char msg[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gr_link_set_error("%s", msg);
}

/* A failed public call: its status, with the call named. */
static gr_status_t easy_failed(const char *who, const char *call, gr_status_t rc)
{
    easy_error("%s: %s failed: %s (%s)", who, call, gr_strerror(rc), gr_status_name(rc));
    return rc;
}

/* ---- session ----------------------------------------------------------------------------------- */

/* A failed step of gr_session_open after gr_adapter_open, which cleared the thread's detail: what
 * a lower layer said since (a broker's refusal, naming who holds the device) belongs to this
 * failure and is kept after the call's name. */
static gr_status_t session_failed(const char *call, gr_status_t rc)
{
    if (!gr_link_has_error())
        return easy_failed("gr_session_open", call, rc);
    char inner[400];
    snprintf(inner, sizeof inner, "%s", gr_link_error());
    easy_error("gr_session_open: %s failed: %s (%s): %s", call, gr_strerror(rc), gr_status_name(rc), inner);
    return rc;
}

struct gr_session {
    gr_adapter_t *adapter;
    gr_process_t *process;
    gr_gpu_device_t *device;
    gr_context_t context;
};

gr_status_t gr_session_open(const char *uri, gr_session_t **out_session)
{
    if (!out_session) {
        easy_error("gr_session_open: out_session is NULL");
        return GR_E_INVALID;
    }
    gr_session_t *s = calloc(1, sizeof *s);
    if (!s) {
        easy_error("gr_session_open: out of memory");
        return GR_E_NO_MEMORY;
    }
    gr_status_t rc = gr_adapter_open(uri, &s->adapter);
    if (rc) {
        /* gr_adapter_open's own detail (the URI's mistake, the file, the step) is the one to keep. */
        free(s);
        return rc;
    }
    if ((rc = gr_process_create(s->adapter, &s->process))) {
        session_failed("gr_process_create", rc);
        goto fail;
    }
    if ((rc = gr_gpu_device_create(s->process, &s->device))) {
        session_failed("gr_gpu_device_create", rc);
        goto fail;
    }
    if ((rc = gr_context_create(s->device, NULL, 0, &s->context))) {
        session_failed("gr_context_create", rc);
        goto fail;
    }
    *out_session = s;
    return GR_OK;
fail:
    gr_gpu_device_destroy(s->device);
    gr_process_destroy(s->process);
    gr_adapter_close(s->adapter);
    free(s);
    return rc;
}

void gr_session_close(gr_session_t *s)
{
    if (!s)
        return;
    /* A context's destruction cancels what has not run; it cannot fail for a live handle. */
    if (s->context && gr_context_destroy(s->device, s->context) != GR_OK) {
        /* Nothing to do: the device's destruction below takes the context with it. */
    }
    gr_gpu_device_destroy(s->device);
    gr_process_destroy(s->process);
    gr_adapter_close(s->adapter);
    free(s);
}

gr_adapter_t *gr_session_adapter(gr_session_t *s)
{
    return s ? s->adapter : NULL;
}

gr_process_t *gr_session_process(gr_session_t *s)
{
    return s ? s->process : NULL;
}

gr_gpu_device_t *gr_session_device(gr_session_t *s)
{
    return s ? s->device : NULL;
}

gr_context_t gr_session_context(gr_session_t *s)
{
    return s ? s->context : 0;
}

/* ---- buffers and surfaces ---------------------------------------------------------------------- */

static uint32_t cpu_access_of(uint32_t flags)
{
    switch (flags & (GR_BUF_CPU_READ | GR_BUF_CPU_WRITE)) {
    case GR_BUF_CPU_READ:
        return GR_CPU_ACCESS_READ;
    case GR_BUF_CPU_WRITE:
        return GR_CPU_ACCESS_WRITE;
    case GR_BUF_CPU_READ | GR_BUF_CPU_WRITE:
        return GR_CPU_ACCESS_READ_WRITE;
    default:
        return GR_CPU_ACCESS_NONE;
    }
}

/* One allocation from its private data, with no resource. */
static gr_status_t create_one(const char *who, gr_gpu_device_t *dev, const gr_alloc_private_t *p, gr_alloc_t *out)
{
    gr_alloc_desc_t d;
    memset(&d, 0, sizeof d);
    d.private_data = p;
    d.private_size = sizeof *p;
    gr_alloc_t h = 0;
    gr_status_t rc = gr_alloc_create(dev, NULL, &d, 1, &h, NULL);
    if (rc) {
        if (rc == GR_E_NO_MEMORY)
            easy_error("%s: no segment has room for it (gr_alloc_create: %s)", who, gr_strerror(rc));
        else
            easy_failed(who, "gr_alloc_create", rc);
        return rc;
    }
    *out = h;
    return GR_OK;
}

static void private_init(gr_alloc_private_t *p, uint32_t kind, uint32_t flags)
{
    memset(p, 0, sizeof *p);
    p->version = GR_ALLOC_PRIVATE_VERSION;
    p->struct_size = sizeof *p;
    p->kind = kind;
    p->cpu_access = cpu_access_of(flags);
}

gr_status_t gr_buffer_create(gr_gpu_device_t *dev, uint64_t bytes, uint32_t flags, gr_alloc_t *out_alloc)
{
    if (!dev || !out_alloc) {
        easy_error("gr_buffer_create: %s is NULL", !dev ? "device" : "out_alloc");
        return GR_E_INVALID;
    }
    if (flags & ~GR_BUF_ALL_FLAGS) {
        easy_error("gr_buffer_create: unknown flag bits 0x%x (GR_BUF_CPU_READ, GR_BUF_CPU_WRITE)",
                   (unsigned)(flags & ~GR_BUF_ALL_FLAGS));
        return GR_E_INVALID;
    }
    if (bytes == 0 || bytes > GR_BUFFER_MAX_BYTES) {
        easy_error("gr_buffer_create: %llu bytes (accepted: 1..%llu, 4 GiB)", (unsigned long long)bytes,
                   (unsigned long long)GR_BUFFER_MAX_BYTES);
        return GR_E_RANGE;
    }
    gr_alloc_private_t p;
    private_init(&p, GR_ALLOC_KIND_BUFFER, flags);
    p.buffer_bytes = bytes;
    return create_one("gr_buffer_create", dev, &p, out_alloc);
}

gr_status_t gr_surface_create(gr_gpu_device_t *dev, uint32_t width, uint32_t height, uint32_t format,
                              uint32_t flags, gr_alloc_t *out_alloc)
{
    if (!dev || !out_alloc) {
        easy_error("gr_surface_create: %s is NULL", !dev ? "device" : "out_alloc");
        return GR_E_INVALID;
    }
    if (flags & ~GR_BUF_ALL_FLAGS) {
        easy_error("gr_surface_create: unknown flag bits 0x%x (GR_BUF_CPU_READ, GR_BUF_CPU_WRITE)",
                   (unsigned)(flags & ~GR_BUF_ALL_FLAGS));
        return GR_E_INVALID;
    }
    if (!width || !height || width > EASY_SURFACE_MAX_DIM || height > EASY_SURFACE_MAX_DIM) {
        easy_error("gr_surface_create: %ux%u texels (accepted: 1..%u each way)", width, height,
                   EASY_SURFACE_MAX_DIM);
        return GR_E_RANGE;
    }
    gr_alloc_private_t p;
    private_init(&p, GR_ALLOC_KIND_SURFACE2D, flags);
    /* D3DDDIFMT_A8R8G8B8: the format a program that names none most likely means. */
    p.format = format ? format : 21u;
    p.width = width;
    p.height = height;
    p.mip_levels = 1;
    p.array_size = 1;
    gr_status_t rc = create_one("gr_surface_create", dev, &p, out_alloc);
    if (rc == GR_E_INVALID)
        easy_error("gr_surface_create: the miniport refused a %ux%u surface of format %u (formats it takes: "
                   "host/kmd/README.md)", width, height, p.format);
    return rc;
}

/* The allocation's size, checking [offset, offset + bytes) against it. */
static gr_status_t check_range(const char *who, const char *what, gr_gpu_device_t *dev, gr_alloc_t a,
                               uint64_t offset, uint64_t bytes, gr_alloc_info_t *out_info)
{
    gr_alloc_info_t info;
    gr_status_t rc = gr_alloc_query(dev, a, &info);
    if (rc) {
        easy_error("%s: %s 0x%08x is not a live allocation of this device (gr_alloc_query: %s)", who, what,
                   (unsigned)a, gr_strerror(rc));
        return rc;
    }
    if (bytes == 0 || offset > info.size || bytes > info.size - offset) {
        easy_error("%s: %s range [0x%llx, +0x%llx) is %s (the allocation is 0x%llx bytes)", who, what,
                   (unsigned long long)offset, (unsigned long long)bytes, bytes ? "not inside it" : "empty",
                   (unsigned long long)info.size);
        return GR_E_RANGE;
    }
    *out_info = info;
    return GR_OK;
}

static gr_status_t buffer_io(const char *who, gr_gpu_device_t *dev, gr_alloc_t a, uint64_t offset, void *data,
                             uint64_t bytes, bool write)
{
    if (!dev || !data) {
        easy_error("%s: %s is NULL", who, !dev ? "device" : write ? "src" : "dst");
        return GR_E_INVALID;
    }
    gr_alloc_info_t info;
    gr_status_t rc = check_range(who, "allocation", dev, a, offset, bytes, &info);
    if (rc)
        return rc;
    if (bytes > SIZE_MAX) {
        easy_error("%s: %llu bytes do not fit this host's memory", who, (unsigned long long)bytes);
        return GR_E_RANGE;
    }
    void *p = NULL;
    rc = gr_alloc_lock_range(dev, a, write ? 0u : GR_LOCK_READ_ONLY, offset, bytes, &p);
    if (rc) {
        if (rc == GR_E_INVALID)
            easy_error("%s: allocation 0x%08x cannot be locked for the CPU to %s (made without %s?)", who,
                       (unsigned)a, write ? "write" : "read", write ? "GR_BUF_CPU_WRITE" : "GR_BUF_CPU_READ");
        else
            easy_failed(who, "gr_alloc_lock_range", rc);
        return rc;
    }
    if (write)
        memcpy(p, data, (size_t)bytes);
    else
        memcpy(data, p, (size_t)bytes);
    if ((rc = gr_alloc_unlock(dev, a)))
        return easy_failed(who, "gr_alloc_unlock", rc);
    return GR_OK;
}

gr_status_t gr_buffer_write(gr_gpu_device_t *dev, gr_alloc_t a, uint64_t offset, const void *src, uint64_t bytes)
{
    /* The lock's buffer is written, never src: the cast only shares buffer_io with reads. */
    return buffer_io("gr_buffer_write", dev, a, offset, (void *)(uintptr_t)src, bytes, true);
}

gr_status_t gr_buffer_read(gr_gpu_device_t *dev, gr_alloc_t a, uint64_t offset, void *dst, uint64_t bytes)
{
    return buffer_io("gr_buffer_read", dev, a, offset, dst, bytes, false);
}

/* ---- the command writer ------------------------------------------------------------------------ */

struct gr_cmd {
    gr_gpu_device_t *device;
    gr_context_t context;
    gr_dma_buffer_t buffer;
    gr_dma_writer_t w;
    gr_alloc_ref_t refs[GR_SUBMIT_MAX_ALLOCS];
    uint32_t ref_count;
    bool in_flight;
    uint64_t fence;
};

gr_status_t gr_cmd_create(gr_gpu_device_t *dev, gr_context_t context, uint32_t bytes, gr_cmd_t **out_cmd)
{
    if (!dev || !out_cmd) {
        easy_error("gr_cmd_create: %s is NULL", !dev ? "device" : "out_cmd");
        return GR_E_INVALID;
    }
    if (bytes > GR_DMA_BUFFER_MAX_BYTES) {
        easy_error("gr_cmd_create: %u bytes (accepted: 8..%u; 0: %u)", bytes, GR_DMA_BUFFER_MAX_BYTES,
                   GR_CMD_DEFAULT_BYTES);
        return GR_E_RANGE;
    }
    gr_cmd_t *c = calloc(1, sizeof *c);
    if (!c) {
        easy_error("gr_cmd_create: out of memory");
        return GR_E_NO_MEMORY;
    }
    gr_status_t rc = gr_dma_buffer_create(dev, context, bytes ? bytes : GR_CMD_DEFAULT_BYTES, &c->buffer);
    if (rc) {
        if (rc == GR_E_INVALID)
            easy_error("gr_cmd_create: context 0x%08x is not a live context of this device (gr_dma_buffer_create: %s)",
                       (unsigned)context, gr_strerror(rc));
        else
            easy_failed("gr_cmd_create", "gr_dma_buffer_create", rc);
        free(c);
        return rc;
    }
    gr_dma_buffer_info_t bi;
    if ((rc = gr_dma_buffer_info(dev, c->buffer, &bi))) {
        easy_failed("gr_cmd_create", "gr_dma_buffer_info", rc);
        if (gr_dma_buffer_destroy(dev, c->buffer) != GR_OK) {
            /* Just made and never submitted, it cannot be busy; the device's end frees it anyway. */
        }
        free(c);
        return rc;
    }
    c->device = dev;
    c->context = context;
    gr_dma_writer_init(&c->w, bi.cpu, bi.size);
    *out_cmd = c;
    return GR_OK;
}

gr_status_t gr_cmd_destroy(gr_cmd_t *c)
{
    if (!c) {
        easy_error("gr_cmd_destroy: cmd is NULL");
        return GR_E_INVALID;
    }
    if (c->in_flight) {
        easy_error("gr_cmd_destroy: its packet (fence %llu) has not been seen to retire: gr_cmd_wait first",
                   (unsigned long long)c->fence);
        return GR_E_BUSY;
    }
    gr_status_t rc = gr_dma_buffer_destroy(c->device, c->buffer);
    /* GR_E_INVALID: the buffer went with its context (gr_context_destroy); the writer goes too. */
    if (rc && rc != GR_E_INVALID)
        return easy_failed("gr_cmd_destroy", "gr_dma_buffer_destroy", rc);
    free(c);
    return GR_OK;
}

static gr_status_t check_idle(const char *who, const gr_cmd_t *c)
{
    if (!c) {
        easy_error("%s: cmd is NULL", who);
        return GR_E_INVALID;
    }
    if (c->in_flight) {
        easy_error("%s: the writer is in flight (fence %llu): gr_cmd_wait before recording more", who,
                   (unsigned long long)c->fence);
        return GR_E_BUSY;
    }
    return GR_OK;
}

/* Where a in the list is, or ref_count when it is not in it. */
static uint32_t ref_index(const gr_cmd_t *c, gr_alloc_t a)
{
    uint32_t i = 0;
    while (i < c->ref_count && c->refs[i].handle != a)
        i++;
    return i;
}

/* Checks that the list can take these allocations (each new one needs a slot). */
static gr_status_t check_list_room(const char *who, const gr_cmd_t *c, const gr_alloc_t *a, uint32_t n)
{
    uint32_t extra = 0;
    for (uint32_t i = 0; i < n; i++)
        if (ref_index(c, a[i]) == c->ref_count && (i == 0 || a[i] != a[0]))
            extra++;
    if (c->ref_count + extra > GR_SUBMIT_MAX_ALLOCS) {
        easy_error("%s: the allocation list is full (%u entries, GR_SUBMIT_MAX_ALLOCS): submit and start anew",
                   who, GR_SUBMIT_MAX_ALLOCS);
        return GR_E_RANGE;
    }
    return GR_OK;
}

/* Adds a (or its write mark) to the list; check_list_room has made room. */
static void ref_add(gr_cmd_t *c, gr_alloc_t a, uint32_t flags)
{
    const uint32_t i = ref_index(c, a);
    if (i == c->ref_count) {
        c->refs[i].handle = a;
        c->refs[i].flags = 0;
        c->ref_count++;
    }
    c->refs[i].flags |= flags;
}

static gr_status_t check_space(const char *who, const gr_cmd_t *c, unsigned qwords)
{
    if (c->w.overflow || c->w.capacity - c->w.used < (size_t)qwords * 8u) {
        easy_error("%s: the writer is full (%zu of %zu bytes used%s): submit, or make a larger one", who, c->w.used,
                   c->w.capacity, c->w.overflow ? ", and a command written through gr_cmd_writer did not fit" : "");
        return GR_E_RANGE;
    }
    return GR_OK;
}

/* The checks every recorded range of an allocation passes: live, in this device, the range inside,
 * whole qwords, and written only through a handle that may write. */
static gr_status_t check_operand(const char *who, const char *what, gr_cmd_t *c, gr_alloc_t a, uint64_t offset,
                                 uint64_t bytes, bool write, uint64_t *out_va)
{
    gr_alloc_info_t info;
    gr_status_t rc = check_range(who, what, c->device, a, offset, bytes, &info);
    if (rc)
        return rc;
    if (offset % 8 || bytes % 8) {
        easy_error("%s: %s offset 0x%llx and size 0x%llx must be multiples of 8 (the engine moves whole qwords)", who,
                   what, (unsigned long long)offset, (unsigned long long)bytes);
        return GR_E_ALIGN;
    }
    if (write && info.read_only) {
        easy_error("%s: %s 0x%08x was opened read-only: no GPU write through it", who, what, (unsigned)a);
        return GR_E_INVALID;
    }
    if (!info.gpu_va) {
        easy_error("%s: %s 0x%08x has no GPU virtual address in this device", who, what, (unsigned)a);
        return GR_E_INVALID;
    }
    *out_va = info.gpu_va + offset;
    return GR_OK;
}

gr_status_t gr_cmd_fill(gr_cmd_t *c, gr_alloc_t dst, uint64_t offset, uint64_t bytes, uint32_t pattern)
{
    static const char who[] = "gr_cmd_fill";
    uint64_t va = 0;
    gr_status_t rc;
    if ((rc = check_idle(who, c)) || (rc = check_operand(who, "dst", c, dst, offset, bytes, true, &va)) ||
        (rc = check_space(who, c, GR_DMA_FILL_QWORDS)) || (rc = check_list_room(who, c, &dst, 1)))
        return rc;
    /* check_space made room: the encoder cannot fail. */
    (void)gr_dma_fill(&c->w, GR_DMA_SPACE_GPUVA, va, bytes, pattern);
    ref_add(c, dst, GR_ALLOC_REF_WRITE);
    return GR_OK;
}

gr_status_t gr_cmd_copy(gr_cmd_t *c, gr_alloc_t src, uint64_t src_offset, gr_alloc_t dst, uint64_t dst_offset,
                        uint64_t bytes)
{
    static const char who[] = "gr_cmd_copy";
    uint64_t sva = 0, dva = 0;
    const gr_alloc_t both[2] = {src, dst};
    gr_status_t rc;
    if ((rc = check_idle(who, c)) || (rc = check_operand(who, "src", c, src, src_offset, bytes, false, &sva)) ||
        (rc = check_operand(who, "dst", c, dst, dst_offset, bytes, true, &dva)))
        return rc;
    if (src == dst && src_offset < dst_offset + bytes && dst_offset < src_offset + bytes) {
        easy_error("%s: the ranges [0x%llx, +0x%llx) and [0x%llx, +0x%llx) of allocation 0x%08x overlap", who,
                   (unsigned long long)src_offset, (unsigned long long)bytes, (unsigned long long)dst_offset,
                   (unsigned long long)bytes, (unsigned)src);
        return GR_E_INVALID;
    }
    if ((rc = check_space(who, c, GR_DMA_COPY_QWORDS)) || (rc = check_list_room(who, c, both, 2)))
        return rc;
    (void)gr_dma_copy(&c->w, GR_DMA_SPACE_GPUVA, sva, GR_DMA_SPACE_GPUVA, dva, bytes);
    ref_add(c, src, 0);
    ref_add(c, dst, GR_ALLOC_REF_WRITE);
    return GR_OK;
}

gr_status_t gr_cmd_use(gr_cmd_t *c, gr_alloc_t a, uint32_t flags)
{
    static const char who[] = "gr_cmd_use";
    gr_status_t rc = check_idle(who, c);
    if (rc)
        return rc;
    if (flags & ~(uint32_t)GR_ALLOC_REF_WRITE) {
        easy_error("%s: unknown flag bits 0x%x (GR_ALLOC_REF_WRITE)", who, (unsigned)(flags & ~GR_ALLOC_REF_WRITE));
        return GR_E_INVALID;
    }
    gr_alloc_info_t info;
    if ((rc = gr_alloc_query(c->device, a, &info))) {
        easy_error("%s: allocation 0x%08x is not a live allocation of this device (gr_alloc_query: %s)", who,
                   (unsigned)a, gr_strerror(rc));
        return rc;
    }
    if ((flags & GR_ALLOC_REF_WRITE) && info.read_only) {
        easy_error("%s: allocation 0x%08x was opened read-only: no GPU write through it", who, (unsigned)a);
        return GR_E_INVALID;
    }
    if ((rc = check_list_room(who, c, &a, 1)))
        return rc;
    ref_add(c, a, flags);
    return GR_OK;
}

gr_dma_writer_t *gr_cmd_writer(gr_cmd_t *c)
{
    return c && !c->in_flight ? &c->w : NULL;
}

static void forget(gr_cmd_t *c)
{
    gr_dma_writer_init(&c->w, c->w.buf, c->w.capacity);
    c->ref_count = 0;
}

gr_status_t gr_cmd_reset(gr_cmd_t *c)
{
    gr_status_t rc = check_idle("gr_cmd_reset", c);
    if (rc)
        return rc;
    forget(c);
    return GR_OK;
}

gr_status_t gr_cmd_submit(gr_cmd_t *c, uint64_t *out_fence)
{
    static const char who[] = "gr_cmd_submit";
    gr_status_t rc = check_idle(who, c);
    if (rc)
        return rc;
    if (c->w.overflow) {
        easy_error("%s: a command written through gr_cmd_writer did not fit (%zu of %zu bytes used): nothing was "
                   "submitted; gr_cmd_reset and record less",
                   who, c->w.used, c->w.capacity);
        return GR_E_RANGE;
    }
    if (c->w.used == 0) {
        easy_error("%s: nothing recorded", who);
        return GR_E_INVALID;
    }
    gr_submission_t s;
    memset(&s, 0, sizeof s);
    s.buffer = c->buffer;
    s.start = 0;
    s.end = (uint32_t)c->w.used;
    s.allocs = c->refs;
    s.alloc_count = c->ref_count;
    uint64_t fence = 0;
    if ((rc = gr_submit(c->device, c->context, &s, &fence)))
        return easy_failed(who, "gr_submit", rc);
    c->in_flight = true;
    c->fence = fence;
    if (out_fence)
        *out_fence = fence;
    return GR_OK;
}

gr_status_t gr_cmd_wait(gr_cmd_t *c, uint64_t timeout_cycles)
{
    static const char who[] = "gr_cmd_wait";
    if (!c) {
        easy_error("%s: cmd is NULL", who);
        return GR_E_INVALID;
    }
    if (!c->in_flight) {
        easy_error("%s: nothing in flight (gr_cmd_submit first)", who);
        return GR_E_INVALID;
    }
    gr_status_t rc = gr_wait(c->device, c->context, c->fence, timeout_cycles);
    if (rc == GR_E_TIMEOUT) {
        easy_error("%s: fence %llu has not retired within %llu device cycles", who, (unsigned long long)c->fence,
                   (unsigned long long)timeout_cycles);
        return rc;
    }
    /* Retired one way or another (or a fence gr_wait will never answer for: the context is
     * gone); the DMA buffer is the writer's again. Should a packet still hold it, VidSch keeps it
     * alive: gr_dma_buffer_destroy answers GR_E_BUSY and gr_cmd_destroy with it. */
    c->in_flight = false;
    forget(c);
    if (rc)
        easy_failed(who, "gr_wait", rc);
    return rc;
}

gr_status_t gr_cmd_submit_wait(gr_cmd_t *c, uint64_t timeout_cycles)
{
    gr_status_t rc = gr_cmd_submit(c, NULL);
    return rc ? rc : gr_cmd_wait(c, timeout_cycles);
}

gr_status_t gr_cmd_info(const gr_cmd_t *c, gr_cmd_info_t *out_info)
{
    if (!c || !out_info) {
        easy_error("gr_cmd_info: %s is NULL", !c ? "cmd" : "out_info");
        return GR_E_INVALID;
    }
    gr_cmd_info_t i;
    memset(&i, 0, sizeof i);
    i.capacity = (uint32_t)c->w.capacity;
    i.used = (uint32_t)c->w.used;
    i.alloc_count = c->ref_count;
    i.in_flight = c->in_flight;
    i.fence = c->fence;
    *out_info = i;
    return GR_OK;
}

gr_status_t gr_cmd_allocs(const gr_cmd_t *c, gr_alloc_ref_t *out_refs, uint32_t max, uint32_t *out_count)
{
    if (!c || !out_count || (!out_refs && max)) {
        easy_error("gr_cmd_allocs: %s is NULL", !c ? "cmd" : !out_count ? "out_count" : "out_refs");
        return GR_E_INVALID;
    }
    const uint32_t n = c->ref_count < max ? c->ref_count : max;
    if (n)
        memcpy(out_refs, c->refs, n * sizeof *out_refs);
    *out_count = c->ref_count;
    return GR_OK;
}
