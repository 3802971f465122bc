/* SPDX-License-Identifier: Apache-2.0 */
/* gr_link_cocotb.c: cocotb://, gr_link operations served by a cocotb test (see gr_link_cocotb.h). */
#include "gr_link_cocotb.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuref/gr_status.h"

enum op_kind { OP_READ32, OP_WRITE32, OP_AP_READ, OP_AP_WRITE, OP_DMA_ALLOC, OP_DMA_FREE, OP_WAIT_IRQ, OP_COUNTS };

/* One operation handed from a driver thread to the serving thread. */
typedef struct op {
    enum op_kind kind;
    uint64_t offset;
    uint32_t value;
    void *dst;
    const void *src;
    size_t bytes;
    uint64_t cpu, bus;
    int raised;
    uint64_t counts[4]; /* OP_COUNTS */
    int rc;
} op_t;

static gr_link_cocotb_cb_t cb;

/* The mailbox: one operation at a time between any driver thread and gr_link_cocotb_run. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static bool serving;  /* a gr_link_cocotb_run is under way */
static bool job_done; /* its job has returned */
static op_t *posted;  /* handed over, not yet answered */
static bool slot_busy; /* a driver thread owns the mailbox (posted or about to be) */
static uint64_t served;
static uint64_t round_trips; /* read32 and ap_read served */

static const char *const op_names[] = {"read32", "write32", "ap_read", "ap_write",
                                       "dma_alloc", "dma_free", "wait_irq", "counts"};

/* Hands an operation to the serving thread and waits for its answer. */
static int call(op_t *o)
{
    pthread_mutex_lock(&mu);
    while (serving && slot_busy)
        pthread_cond_wait(&cv, &mu);
    if (!serving) {
        pthread_mutex_unlock(&mu);
        gr_link_set_error("cocotb://: %s outside gr_link_cocotb_run (no simulation serves it)",
                          op_names[o->kind]);
        return GR_E_LINK;
    }
    slot_busy = true;
    posted = o;
    pthread_cond_broadcast(&cv);
    while (posted == o)
        pthread_cond_wait(&cv, &mu);
    slot_busy = false;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    if (o->rc)
        gr_link_set_error("cocotb://: %s at 0x%llx: %s", op_names[o->kind],
                          (unsigned long long)o->offset, gr_strerror(o->rc));
    return o->rc;
}

/* Runs one operation through the test's callbacks (in the serving thread). */
static void serve(op_t *o)
{
    uint32_t v = 0;
    switch (o->kind) {
    case OP_READ32:
        o->rc = cb.read32((uint32_t)o->offset, &v);
        o->value = v;
        break;
    case OP_WRITE32:
        o->rc = cb.write32((uint32_t)o->offset, o->value);
        break;
    case OP_AP_READ:
        o->rc = cb.ap_read(o->offset, o->dst, o->bytes);
        break;
    case OP_AP_WRITE:
        o->rc = cb.ap_write(o->offset, o->src, o->bytes);
        break;
    case OP_DMA_ALLOC:
        o->rc = cb.dma_alloc(o->bytes, &o->cpu, &o->bus);
        break;
    case OP_DMA_FREE:
        o->rc = cb.dma_free(o->bus);
        break;
    case OP_WAIT_IRQ:
        o->rc = cb.wait_irq(o->value, &o->raised);
        break;
    case OP_COUNTS:
        o->rc = cb.tlp_counts ? cb.tlp_counts(o->counts) : GR_OK;
        break;
    }
}

typedef struct job {
    gr_link_cocotb_job_fn fn;
    void *arg;
    int rc;
} job_t;

static void *job_main(void *p)
{
    job_t *j = p;
    j->rc = j->fn(j->arg);
    pthread_mutex_lock(&mu);
    job_done = true;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    return NULL;
}

int gr_link_cocotb_run(gr_link_cocotb_job_fn fn, void *arg)
{
    if (!fn)
        return GR_E_INVALID;
    pthread_mutex_lock(&mu);
    if (serving) {
        pthread_mutex_unlock(&mu);
        return GR_E_BUSY;
    }
    serving = true;
    job_done = false;
    pthread_mutex_unlock(&mu);
    job_t j = {fn, arg, GR_OK};
    pthread_t t;
    if (pthread_create(&t, NULL, job_main, &j)) {
        pthread_mutex_lock(&mu);
        serving = false;
        pthread_mutex_unlock(&mu);
        return GR_E_NO_MEMORY;
    }
    pthread_mutex_lock(&mu);
    for (;;) {
        while (!posted && !job_done)
            pthread_cond_wait(&cv, &mu);
        if (!posted)
            break;
        op_t *o = posted;
        /* The simulation runs inside the callback: no lock held, the driver threads wait. */
        pthread_mutex_unlock(&mu);
        serve(o);
        pthread_mutex_lock(&mu);
        served++;
        round_trips += o->kind == OP_READ32 || o->kind == OP_AP_READ;
        posted = NULL;
        pthread_cond_broadcast(&cv);
    }
    /* Threads the job left behind find the link closed, not a hang. */
    serving = false;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(t, NULL);
    return j.rc;
}

uint64_t gr_link_cocotb_ops_served(void)
{
    pthread_mutex_lock(&mu);
    uint64_t n = served;
    pthread_mutex_unlock(&mu);
    return n;
}

int gr_link_cocotb_counts(gr_link_cocotb_counts_t *out)
{
    if (!out)
        return GR_E_INVALID;
    op_t o = {.kind = OP_COUNTS};
    int rc = call(&o);
    if (rc)
        return rc;
    pthread_mutex_lock(&mu);
    out->round_trips = round_trips;
    pthread_mutex_unlock(&mu);
    out->tlps_down = o.counts[0];
    out->tlps_up = o.counts[1];
    out->bytes_down = o.counts[2];
    out->bytes_up = o.counts[3];
    return GR_OK;
}

/* ---- the ops table ------------------------------------------------------------------------ */

static int cocotb_open(const gr_uri_t *uri, void **out_ctx)
{
    if (uri->path[0]) {
        gr_link_set_error("cocotb:// takes no path ('%s')", uri->path);
        return GR_E_BAD_URI;
    }
    /* No state of its own: the root complex is the test's. */
    *out_ctx = &cb;
    return GR_OK;
}

static void cocotb_close(void *ctx)
{
    (void)ctx;
}

static int cocotb_read32(void *ctx, uint32_t offset, uint32_t *out_value)
{
    (void)ctx;
    op_t o = {.kind = OP_READ32, .offset = offset};
    int rc = call(&o);
    if (!rc)
        *out_value = o.value;
    return rc;
}

static int cocotb_write32(void *ctx, uint32_t offset, uint32_t value)
{
    (void)ctx;
    op_t o = {.kind = OP_WRITE32, .offset = offset, .value = value};
    return call(&o);
}

static int cocotb_ap_read(void *ctx, uint64_t offset, void *dst, size_t bytes)
{
    (void)ctx;
    op_t o = {.kind = OP_AP_READ, .offset = offset, .dst = dst, .bytes = bytes};
    return call(&o);
}

static int cocotb_ap_write(void *ctx, uint64_t offset, const void *src, size_t bytes)
{
    (void)ctx;
    op_t o = {.kind = OP_AP_WRITE, .offset = offset, .src = src, .bytes = bytes};
    return call(&o);
}

static int cocotb_dma_alloc(void *ctx, size_t bytes, gr_dma_buf_t *out_buf)
{
    (void)ctx;
    op_t o = {.kind = OP_DMA_ALLOC, .bytes = bytes};
    int rc = call(&o);
    if (!rc) {
        out_buf->cpu = (void *)(uintptr_t)o.cpu;
        out_buf->bus = o.bus;
        out_buf->bytes = bytes;
    }
    return rc;
}

static int cocotb_dma_free(void *ctx, const gr_dma_buf_t *buf)
{
    (void)ctx;
    op_t o = {.kind = OP_DMA_FREE, .offset = buf->bus, .bus = buf->bus};
    return call(&o);
}

static int cocotb_wait_irq(void *ctx, uint32_t timeout_us, bool *out_raised)
{
    (void)ctx;
    op_t o = {.kind = OP_WAIT_IRQ, .value = timeout_us};
    int rc = call(&o);
    if (!rc)
        *out_raised = o.raised != 0;
    return rc;
}

static uint32_t cocotb_caps(void *ctx)
{
    (void)ctx;
    return GR_LINK_CAP_DMA | GR_LINK_CAP_IRQ | GR_LINK_CAP_SIMULATED | GR_LINK_CAP_POSTED_WRITES;
}

static void cocotb_describe(void *ctx, char *buf, size_t len)
{
    (void)ctx;
    snprintf(buf, len, "cocotb (PCIe root complex, cocotbext-pcie)");
}

static const char *const cocotb_keys[] = {NULL};

static const gr_link_ops_t gr_link_cocotb_ops = {
    .scheme = "cocotb",
    .summary = "cocotb://  a cocotb test's PCIe root complex (tb/unit/pcie, tests only)",
    .param_keys = cocotb_keys,
    .open = cocotb_open,
    .close = cocotb_close,
    .read32 = cocotb_read32,
    .write32 = cocotb_write32,
    .ap_read = cocotb_ap_read,
    .ap_write = cocotb_ap_write,
    .dma_alloc = cocotb_dma_alloc,
    .dma_free = cocotb_dma_free,
    .wait_irq = cocotb_wait_irq,
    .caps = cocotb_caps,
    .describe = cocotb_describe,
};

int gr_link_cocotb_install(const gr_link_cocotb_cb_t *c)
{
    if (!c || !c->read32 || !c->write32 || !c->ap_read || !c->ap_write || !c->dma_alloc ||
        !c->dma_free || !c->wait_irq) {
        gr_link_set_error("gr_link_cocotb_install: NULL table or a callback missing");
        return GR_E_INVALID;
    }
    pthread_mutex_lock(&mu);
    cb = *c;
    pthread_mutex_unlock(&mu);
    return gr_link_register(&gr_link_cocotb_ops);
}
