/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_submit: libFuzzer harness for the command path on one sim:// adapter kept for the whole
 * run: gr_submit with fuzzed ranges, allocation lists and patch locations, and gr_cancel,
 * gr_preempt, gr_context_destroy, gr_wait and gr_dma_buffer_destroy while that work is in flight
 * (VidSch's worker and the interrupt thread run the engine meanwhile).
 *
 * An input is a little program: each op is one byte (op % 8) and the bytes after it; the program
 * ends with the input or after MAX_OPS ops. Ops: submit (a command buffer built from the input:
 * NOPs, FILLs and COPYs and TIMESTAMPs on allocations by GPU VA (or by VRAM address, which the
 * engine refuses in a user packet), FENCEs, WAITs on a gate in a DMA buffer (by its GPU VA) that
 * holds the packet on the engine, raw qwords), cancel, preempt, destroy a context, create a
 * context, wait on a fence, open a gate, destroy a DMA buffer. Ranges, list entries and patch
 * locations are taken from the input as they come: out of range, misaligned, stale or forged
 * (a user context takes no patch locations, so a list with any is refused at submit).
 *
 * Checked, without relying on which ranges gr_submit refuses (misaligned ones are not asserted
 * either way):
 *   - every call returns a status gr_submit.h documents for it;
 *   - a call never hangs (libFuzzer's -timeout; every wait here is bounded);
 *   - after the program: every context is destroyed, every gate opened, and then the device
 *     still works: a FILL on a new context completes (gr_wait GR_OK) and the bytes read back are
 *     the pattern; no packet is left live and the miniport has no context or packet left beyond
 *     the harness's own.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dxgk_testing.h"
#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_status.h"
#include "gpuref/gr_submit.h"
#include "gr_link.h"
#include "kmd.h"

#define NCTX 3u      /* fuzzed contexts per input */
#define NBUF 4u      /* DMA buffers per input */
#define NALLOC 3u    /* allocations kept for the run */
#define NGATES 4u
#define MAX_OPS 24u
#define BUF_BYTES 4096u
#define ALLOC_BYTES 65536u
#define MAX_FENCES 64u
#define CHECK_BYTES 4096u /* what the health check fills and reads back */

static gr_adapter_t *g_ad;
static gr_process_t *g_proc;
static gr_gpu_device_t *g_dev;
static gr_alloc_t g_alloc[NALLOC];
static gr_alloc_t g_check;         /* CPU-readable: the health check fills it and reads it back */
static gr_context_t g_home;        /* owns the gate buffer; never fuzzed */
static gr_dma_buffer_t g_gates;
static volatile uint64_t *g_gate;
static uint64_t g_gates_va;           /* the gate buffer's GPU VA in g_dev's space */
static uint64_t g_alloc_va[NALLOC];
static unsigned g_inputs;

static void fail(const char *what, int rc)
{
    fprintf(stderr, "fuzz_submit: %s (status %s)\n", what, gr_status_name(rc));
    abort();
}

static void expect(int rc, const char *call, const int *allowed, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rc == allowed[i])
            return;
    char what[128];
    snprintf(what, sizeof what, "%s returned an undocumented status", call);
    fail(what, rc);
}
#define EXPECT(rc, call, ...)                                                          \
    do {                                                                               \
        static const int allowed_[] = {__VA_ARGS__};                                   \
        expect((rc), (call), allowed_, sizeof allowed_ / sizeof allowed_[0]);          \
    } while (0)

static int create_buffer_alloc(uint32_t cpu, gr_alloc_t *out)
{
    gr_alloc_private_t p;
    memset(&p, 0, sizeof p);
    p.version = GR_ALLOC_PRIVATE_VERSION;
    p.struct_size = sizeof p;
    p.kind = GR_ALLOC_KIND_BUFFER;
    p.cpu_access = cpu;
    p.buffer_bytes = ALLOC_BYTES;
    gr_alloc_desc_t d = {.private_data = &p, .private_size = sizeof p};
    return gr_alloc_create(g_dev, NULL, &d, 1, out, NULL);
}

/* Stores v in gate g under the link lock (the device reads host memory only inside link calls). */
static int gate_fn(gr_link_t *link, void *ctx)
{
    (void)link;
    const uint64_t *op = ctx;
    g_gate[op[0]] = op[1];
    return GR_OK;
}
static void gate_set(unsigned g, uint64_t v)
{
    uint64_t op[2] = {g, v};
    int rc = gr_adapter_with_link(g_ad, gate_fn, op);
    if (rc)
        fail("gr_adapter_with_link", rc);
}

/* At exit: what the run made the scheduler do (run_fuzz.sh shows it), so a run that never
 * preempted or cancelled anything is seen. */
static void print_stats(void)
{
    gr_sched_stats_t st;
    if (g_ad && gr_adapter_sched_stats(g_ad, &st) == GR_OK)
        fprintf(stderr,
                "fuzz_submit: stats: inputs=%u submitted=%llu completed=%llu cancelled=%llu dropped=%llu "
                "preemptions=%llu tdrs=%llu\n",
                g_inputs, (unsigned long long)st.submitted, (unsigned long long)st.completed,
                (unsigned long long)st.cancelled, (unsigned long long)st.dropped,
                (unsigned long long)st.preemptions, (unsigned long long)st.tdrs);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    unsetenv("GR_SIM_SEED");
    unsetenv("GR_SIM_FST");
    unsetenv("GR_SIM_AXILOG");
    /* A short TDR timeout: a packet held on a gate or faulting costs little simulated time. */
    gr_sched_params_t sp = {.quantum_cycles = 5000, .tdr_timeout_cycles = 100000};
    gr_dma_buffer_info_t gi;
    int rc = gr_adapter_open("sim://?seed=1", &g_ad);
    if (!rc)
        rc = gr_adapter_set_scheduling(g_ad, &sp);
    if (!rc)
        rc = gr_process_create(g_ad, &g_proc);
    if (!rc)
        rc = gr_gpu_device_create(g_proc, &g_dev);
    for (unsigned i = 0; !rc && i < NALLOC; i++) {
        gr_alloc_info_t ai;
        rc = create_buffer_alloc(GR_CPU_ACCESS_NONE, &g_alloc[i]);
        if (!rc)
            rc = gr_alloc_query(g_dev, g_alloc[i], &ai);
        if (!rc)
            g_alloc_va[i] = ai.gpu_va;
    }
    if (!rc)
        rc = create_buffer_alloc(GR_CPU_ACCESS_READ_WRITE, &g_check);
    if (!rc)
        rc = gr_context_create(g_dev, NULL, 0, &g_home);
    if (!rc)
        rc = gr_dma_buffer_create(g_dev, g_home, 4096, &g_gates);
    if (!rc)
        rc = gr_dma_buffer_info(g_dev, g_gates, &gi);
    if (rc) {
        fprintf(stderr, "fuzz_submit: cannot set up: %s (%s)\n", gr_status_name(rc), gr_link_error());
        exit(1);
    }
    g_gate = gi.cpu;
    g_gates_va = gi.gpu_va;
    atexit(print_stats);
    return 0;
}

/* The input, read front to back; past its end everything reads 0. */
typedef struct reader {
    const uint8_t *p;
    size_t left;
} reader_t;
static uint8_t rd8(reader_t *r)
{
    if (!r->left)
        return 0;
    r->left--;
    return *r->p++;
}
static uint32_t rd16(reader_t *r)
{
    uint32_t v = rd8(r);
    return v | (uint32_t)rd8(r) << 8;
}
static uint32_t rd32(reader_t *r)
{
    uint32_t v = rd16(r);
    return v | rd16(r) << 16;
}

typedef struct state {
    gr_context_t ctx[NCTX];
    bool ctx_live[NCTX];
    gr_dma_buffer_t buf[NBUF];
    uint8_t *buf_cpu[NBUF];
    bool buf_live[NBUF];
    gr_context_t fence_ctx[MAX_FENCES];
    uint64_t fence[MAX_FENCES];
    unsigned nfences;
} state_t;

/* One command buffer from the input into buffer b; returns the submission it describes. */
static void build(reader_t *r, state_t *s, unsigned b, gr_submission_t *sub, gr_alloc_ref_t *refs,
                  gr_patch_location_t *pl)
{
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, s->buf_cpu[b], BUF_BYTES);
    uint32_t nrefs = 0, npl = 0;
    const unsigned ncmds = 1u + rd8(r) % 6u;
    for (unsigned c = 0; c < ncmds && !w.overflow; c++) {
        const uint8_t kind = rd8(r);
        const unsigned a = rd8(r) % NALLOC;
        /* Commands on an allocation name it by GPU VA (listed once, written), or by its VRAM
         * address, a privilege fault in a user packet. */
        uint32_t ai = 0;
        while (ai < nrefs && refs[ai].handle != g_alloc[a])
            ai++;
        if (ai == nrefs)
            refs[nrefs++] = (gr_alloc_ref_t){g_alloc[a], GR_ALLOC_REF_WRITE};
        const uint32_t off = (rd16(r) % (ALLOC_BYTES / 8u)) * 8u;
        const bool phys = (kind & 0xc0u) == 0xc0u;
        const enum gr_dma_space sp = phys ? GR_DMA_SPACE_VRAM : GR_DMA_SPACE_GPUVA;
        const uint64_t va = phys ? off : g_alloc_va[a] + off;
        switch (kind % 8u) {
        case 0:
            gr_dma_nop(&w);
            break;
        case 1:
            gr_dma_fill(&w, sp, va, 8u + rd16(r) % 4096u, rd32(r));
            break;
        case 2:
            gr_dma_copy(&w, sp, va, sp, va - off, 8u + rd16(r) % 4096u);
            break;
        case 3:
            gr_dma_timestamp(&w, sp, va);
            break;
        case 4: /* held on the engine until the gate opens, a TDR, or a cancel/preempt */
            gr_dma_wait(&w, GR_DMA_SPACE_GPUVA, g_gates_va + 8u * (rd8(r) % NGATES), 1);
            break;
        case 5:
            gr_dma_fence(&w, sp, va, rd32(r), rd8(r) & 1);
            break;
        case 6:
            gr_dma_tlb_invalidate(&w);
            break;
        default: { /* a raw qword: garbage the engine must fault on, not the host */
            const uint64_t q = (uint64_t)rd32(r) << 32 | rd32(r);
            gr_dma_emit(&w, &q, 1);
            break;
        }
        }
    }
    sub->buffer = s->buf[b];
    sub->start = 0;
    sub->end = (uint32_t)w.used;
    sub->allocs = refs;
    sub->alloc_count = nrefs;
    sub->patches = pl;
    sub->patch_count = npl;

    /* Then the input may bend it: a range of its own, a forged or repeated list entry, a patch
     * anywhere. */
    const uint8_t bend = rd8(r);
    if (bend & 1u) {
        sub->start = rd16(r) % (BUF_BYTES + 64u);
        sub->end = rd16(r) % (BUF_BYTES + 64u);
    }
    if ((bend & 2u) && nrefs < 8u) {
        const uint8_t how = rd8(r);
        refs[nrefs].handle = how & 1u ? g_alloc[how % NALLOC] : rd32(r);
        refs[nrefs].flags = how & 0x80u ? rd8(r) : 0;
        sub->alloc_count = ++nrefs;
    }
    if ((bend & 4u) && npl < 16u) {
        pl[npl] = (gr_patch_location_t){rd8(r), rd16(r), rd32(r), rd32(r) & 0x1ffffffu, rd32(r)};
        sub->patch_count = ++npl;
    }
    if (bend & 8u)
        sub->alloc_count = rd8(r) % (nrefs + 2u) < nrefs ? sub->alloc_count : 0;
}

static unsigned pick_ctx(reader_t *r)
{
    return rd8(r) % NCTX;
}

static void run_op(reader_t *r, state_t *s)
{
    const uint8_t op = rd8(r) % 8u;
    switch (op) {
    case 0:
    case 1: { /* submit (twice as likely as the rest) */
        const unsigned c = pick_ctx(r), b = rd8(r) % NBUF;
        if (!s->buf_live[b])
            return;
        gr_alloc_ref_t refs[16];
        gr_patch_location_t pl[24];
        gr_submission_t sub;
        build(r, s, b, &sub, refs, pl);
        uint64_t fence = 0;
        int rc = gr_submit(g_dev, s->ctx[c], &sub, &fence);
        EXPECT(rc, "gr_submit", GR_OK, GR_E_INVALID, GR_E_RANGE, GR_E_DEVICE_RESET, GR_E_NO_MEMORY);
        if (rc == GR_OK && s->nfences < MAX_FENCES) {
            s->fence_ctx[s->nfences] = s->ctx[c];
            s->fence[s->nfences++] = fence;
        }
        break;
    }
    case 2: {
        uint32_t n = 0;
        int rc = gr_cancel(g_dev, s->ctx[pick_ctx(r)], &n);
        EXPECT(rc, "gr_cancel", GR_OK, GR_E_INVALID);
        break;
    }
    case 3: {
        int rc = gr_preempt(g_dev, s->ctx[pick_ctx(r)]);
        EXPECT(rc, "gr_preempt", GR_OK, GR_E_INVALID, GR_E_DEVICE_RESET);
        break;
    }
    case 4: {
        const unsigned c = pick_ctx(r);
        int rc = gr_context_destroy(g_dev, s->ctx[c]);
        EXPECT(rc, "gr_context_destroy", GR_OK, GR_E_INVALID);
        if (rc == GR_OK != s->ctx_live[c])
            fail("gr_context_destroy of a live context failed, or of a dead one worked", rc);
        s->ctx_live[c] = false;
        break;
    }
    case 5: {
        const unsigned c = pick_ctx(r);
        if (s->ctx_live[c])
            return;
        int rc = gr_context_create(g_dev, NULL, 0, &s->ctx[c]);
        EXPECT(rc, "gr_context_create", GR_OK);
        s->ctx_live[c] = true;
        break;
    }
    case 6: { /* wait on a fence handed out (or a made-up one), briefly */
        const uint8_t which = rd8(r);
        const uint64_t timeout = rd16(r) % 20000u;
        gr_context_t ctx = s->ctx[which % NCTX];
        uint64_t fence = which;
        if (s->nfences && !(which & 0x80u)) {
            ctx = s->fence_ctx[which % s->nfences];
            fence = s->fence[which % s->nfences];
        }
        int rc = gr_wait(g_dev, ctx, fence, timeout);
        EXPECT(rc, "gr_wait", GR_OK, GR_E_CANCELLED, GR_E_DEVICE_RESET, GR_E_TIMEOUT, GR_E_INVALID);
        break;
    }
    default: { /* open a gate, or destroy a DMA buffer that may still be in flight */
        const uint8_t which = rd8(r);
        if (which & 1u) {
            gate_set(which / 2u % NGATES, 1);
        } else {
            const unsigned b = which / 2u % NBUF;
            int rc = gr_dma_buffer_destroy(g_dev, s->buf[b]);
            EXPECT(rc, "gr_dma_buffer_destroy", GR_OK, GR_E_INVALID, GR_E_BUSY);
            if (rc == GR_OK)
                s->buf_live[b] = false;
        }
        break;
    }
    }
}

/* The device still works: a FILL of g_check on a new context completes and reads back. */
static void health_check(void)
{
    gr_context_t ctx = 0;
    gr_dma_buffer_t buf = 0;
    gr_dma_buffer_info_t info;
    int rc = gr_context_create(g_dev, NULL, 0, &ctx);
    if (!rc)
        rc = gr_dma_buffer_create(g_dev, ctx, 4096, &buf);
    if (!rc)
        rc = gr_dma_buffer_info(g_dev, buf, &info);
    if (rc)
        fail("health check: context or DMA buffer", rc);
    const uint32_t pattern = 0x5a000000u | (g_inputs & 0xffffffu);
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, info.cpu, info.size);
    /* By GPU VA: a user packet names no physical address (the engine refuses it). */
    gr_alloc_info_t ai;
    rc = gr_alloc_query(g_dev, g_check, &ai);
    if (rc)
        fail("health check: gr_alloc_query", rc);
    gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, ai.gpu_va, CHECK_BYTES, pattern);
    gr_alloc_ref_t ref = {g_check, GR_ALLOC_REF_WRITE};
    gr_submission_t sub = {buf, 0, (uint32_t)w.used, &ref, 1, NULL, 0};
    uint64_t fence = 0;
    rc = gr_submit(g_dev, ctx, &sub, &fence);
    if (rc)
        fail("health check: gr_submit", rc);
    rc = gr_wait(g_dev, ctx, fence, 50000000u);
    if (rc)
        fail("health check: the FILL did not complete", rc);
    uint32_t *p = NULL;
    rc = gr_alloc_lock(g_dev, g_check, GR_LOCK_READ_ONLY, (void **)&p);
    if (rc)
        fail("health check: gr_alloc_lock", rc);
    const bool ok = p[0] == pattern && p[CHECK_BYTES / 4u - 1u] == pattern;
    rc = gr_alloc_unlock(g_dev, g_check);
    if (!ok)
        fail("health check: the FILL's bytes did not arrive", GR_OK);
    if (rc || (rc = gr_dma_buffer_destroy(g_dev, buf)) || (rc = gr_context_destroy(g_dev, ctx)))
        fail("health check: cleanup", rc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_inputs++;
    reader_t r = {data, size};
    state_t s;
    memset(&s, 0, sizeof s);
    for (unsigned g = 0; g < NGATES; g++)
        gate_set(g, 0);
    for (unsigned c = 0; c < NCTX; c++) {
        int rc = gr_context_create(g_dev, NULL, 0, &s.ctx[c]);
        if (rc)
            fail("gr_context_create", rc);
        s.ctx_live[c] = true;
    }
    for (unsigned b = 0; b < NBUF; b++) {
        gr_dma_buffer_info_t info;
        int rc = gr_dma_buffer_create(g_dev, s.ctx[b % NCTX], BUF_BYTES, &s.buf[b]);
        if (!rc)
            rc = gr_dma_buffer_info(g_dev, s.buf[b], &info);
        if (rc)
            fail("gr_dma_buffer_create", rc);
        s.buf_cpu[b] = info.cpu;
        s.buf_live[b] = true;
    }

    for (unsigned i = 0; i < MAX_OPS && r.left; i++)
        run_op(&r, &s);

    /* Let everything held go, then take it all down. */
    for (unsigned g = 0; g < NGATES; g++)
        gate_set(g, 1);
    for (unsigned c = 0; c < NCTX; c++) {
        if (!s.ctx_live[c])
            continue;
        int rc = gr_context_destroy(g_dev, s.ctx[c]);
        if (rc)
            fail("gr_context_destroy at the end", rc);
    }
    for (unsigned b = 0; b < NBUF; b++) {
        if (!s.buf_live[b])
            continue;
        int rc = gr_dma_buffer_destroy(g_dev, s.buf[b]);
        if (rc)
            fail("gr_dma_buffer_destroy at the end (its contexts are gone)", rc);
    }

    health_check();
    gr_sched_stats_t st;
    int rc = gr_adapter_sched_stats(g_ad, &st);
    if (rc)
        fail("gr_adapter_sched_stats", rc);
    if (st.live_packets != 0)
        fail("packets left live after every context was destroyed", GR_OK);
    if (st.live_contexts != 1)
        fail("contexts left live beyond the harness's own", GR_OK);
    if (st.threading_violations != 0)
        fail("VidSch broke a threading rule", GR_OK);
    gr_kmd_counts_t k;
    if (gr_kmd_counts(gr_dxgk_test_hadapter(g_ad), &k) != STATUS_SUCCESS)
        fail("gr_kmd_counts", GR_OK);
    if (k.contexts != 1 || k.packets != 0)
        fail("the miniport holds contexts or packets the OS has let go", GR_OK);
    return 0;
}
