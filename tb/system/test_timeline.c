/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_timeline: VidSch's timeline (gr_adapter_timeline, gpuref/gr_submit.h) on sim://, with the
 * real miniport and DMA engine. Each scenario runs for real and its events must appear in the
 * order the scheduler acted, with the right packet, fence and reason, and with device cycles
 * that never go back and agree with the clock read around them: a packet submitted and
 * completed; a long copy preempted by the quantum and resubmitted; a cancel (preemption, one
 * CancelCommand per patched packet, drops for the rest); a hang reset by TDR, with the device
 * working after it. Then the reading interface: bad arguments, incremental reads, and a ring
 * that overflows.
 *
 * Usage: test_timeline [--seed N] (default $GR_TEST_SEED, else 1). The seed picks the bus
 * models' timing; it is printed first, and every failure replays with it. TIMELINE_DUMP=1
 * prints the events each test read.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_submit.h"
#include "sched_fixture.h"

#define KIB 1024u
#define MIB (1024u * KIB)
#define LONG_WAIT 40000000u /* device cycles a test waits for something that must happen */
#define MAX_EV GR_SCHED_TIMELINE_CAP

static unsigned long long seed = 1;
static char uri[160];

/* ---- the fixture ------------------------------------------------------------------------------- */

typedef struct fx {
    gr_adapter_t *ad;
    gr_process_t *proc;
    gr_gpu_device_t *dev;
    gr_context_t ctx[2];
    gr_alloc_t src, dst; /* 2 MiB each, GPU-only */
    gr_alloc_t aux;      /* 64 KiB, GPU-only */
    gr_dma_buffer_t gates; /* host qwords WAIT commands wait on (never opened but at teardown) */
    volatile uint64_t *gate;
    uint64_t gates_va;
    gr_dma_buffer_t rb; /* readback target */
    uint8_t *rb_cpu;
    uint64_t rb_va;
    gr_sched_event_t ev[MAX_EV];
    size_t n;
} fx_t;

static int create_alloc(gr_gpu_device_t *dev, uint64_t bytes, gr_alloc_t *out)
{
    gr_alloc_private_t p;
    memset(&p, 0, sizeof p);
    p.version = GR_ALLOC_PRIVATE_VERSION;
    p.struct_size = sizeof p;
    p.kind = GR_ALLOC_KIND_BUFFER;
    p.cpu_access = GR_CPU_ACCESS_NONE;
    p.buffer_bytes = bytes;
    gr_alloc_desc_t d = {.private_data = &p, .private_size = sizeof p};
    return gr_alloc_create(dev, NULL, &d, 1, out, NULL);
}

static int setup(void **state)
{
    alarm(SF_TEST_SECONDS);
    fx_t *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    int rc = gr_adapter_open(uri, &f->ad);
    if (rc) {
        print_error("gr_adapter_open(%s): %s\n", uri, gr_status_name(rc));
        free(f);
        return -1;
    }
    gr_dma_buffer_info_t gi, ri;
    rc = gr_process_create(f->ad, &f->proc);
    if (!rc)
        rc = gr_gpu_device_create(f->proc, &f->dev);
    for (unsigned i = 0; !rc && i < 2; i++)
        rc = gr_context_create(f->dev, NULL, 0, &f->ctx[i]);
    if (!rc)
        rc = create_alloc(f->dev, 2 * MIB, &f->src);
    if (!rc)
        rc = create_alloc(f->dev, 2 * MIB, &f->dst);
    if (!rc)
        rc = create_alloc(f->dev, 64 * KIB, &f->aux);
    if (!rc)
        rc = sf_dma_buffer(f->dev, f->ctx[0], 4096, &f->gates, &gi);
    if (!rc)
        rc = sf_dma_buffer(f->dev, f->ctx[0], 64 * KIB, &f->rb, &ri);
    /* The engine's own watchdog off: a packet held on a gate waits as long as VidSch lets it,
     * so a TDR here is VidSch's timeout, however slowly the host runs. */
    if (!rc)
        rc = sf_watchdog_off(f->ad);
    if (rc) {
        print_error("fixture: %s\n", gr_status_name(rc));
        gr_adapter_close(f->ad);
        free(f);
        return -1;
    }
    f->gate = gi.cpu;
    f->gates_va = gi.gpu_va;
    f->rb_cpu = ri.cpu;
    f->rb_va = ri.gpu_va;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    sf_gates_release(f->ad, f->gate, 8); /* never leave a packet waiting */
    gr_adapter_close(f->ad);
    free(f);
    alarm(0);
    return 0;
}

/* ---- helpers ----------------------------------------------------------------------------------- */

/* The next event's number: events after it belong to what the test does next. */
static uint64_t mark(fx_t *f)
{
    size_t n = 1;
    uint64_t next = 0;
    assert_int_equal(gr_adapter_timeline(f->ad, 0, NULL, 0, &n, &next), GR_OK);
    assert_int_equal(n, 0);
    return next;
}

static void dump(const fx_t *f)
{
    for (size_t i = 0; i < f->n; i++) {
        const gr_sched_event_t *e = &f->ev[i];
        print_message("#   %4llu @%-10llu %-15s ctx %08x seq %llu fence %u pf %u done %u arg %u %s hw %u\n",
                      (unsigned long long)e->index, (unsigned long long)e->cycles, gr_sched_event_name(e->kind),
                      e->context, (unsigned long long)e->seq, e->fence, e->preempt_fence, e->completed, e->arg,
                      e->status ? gr_status_name(e->status) : "", e->hw_queue);
    }
}

/* Reads every event since m into f->ev and checks what holds for any stretch of the timeline:
 * consecutive numbers, cycles never going back, known kinds. */
static void read_since(fx_t *f, uint64_t m)
{
    uint64_t next = 0;
    f->n = 0;
    assert_int_equal(gr_adapter_timeline(f->ad, m, f->ev, MAX_EV, &f->n, &next), GR_OK);
    assert_true(f->n < MAX_EV); /* every scenario here stays well inside the ring */
    assert_int_equal(next, m + f->n);
    for (size_t i = 0; i < f->n; i++) {
        assert_int_equal(f->ev[i].index, m + i);
        assert_string_not_equal(gr_sched_event_name(f->ev[i].kind), "?");
        if (i)
            assert_true(f->ev[i].cycles >= f->ev[i - 1].cycles);
    }
    if (getenv("TIMELINE_DUMP"))
        dump(f);
}

/* Position of the first event at or after from of this kind (and, when ctx is not 0, this
 * packet), or -1. */
static long find(const fx_t *f, size_t from, uint32_t kind, gr_context_t ctx, uint64_t seq)
{
    for (size_t i = from; i < f->n; i++)
        if (f->ev[i].kind == kind && (!ctx || (f->ev[i].context == ctx && f->ev[i].seq == seq)))
            return (long)i;
    return -1;
}

static unsigned count(const fx_t *f, uint32_t kind, gr_context_t ctx, uint64_t seq)
{
    unsigned n = 0;
    for (size_t i = 0; i < f->n; i++)
        if (f->ev[i].kind == kind && (!ctx || (f->ev[i].context == ctx && f->ev[i].seq == seq)))
            n++;
    return n;
}

/* Asserts that the event is found after from, and returns its position. */
#define EXPECT_AFTER(f, from, kind, ctx, seq)                                                              \
    ({                                                                                                     \
        long at_ = find((f), (size_t)(from), (kind), (ctx), (seq));                                        \
        if (at_ < 0) {                                                                                     \
            print_error("no %s of ctx %08x seq %llu after event %ld\n", gr_sched_event_name(kind), (ctx),   \
                        (unsigned long long)(seq), (long)(from));                                          \
            dump(f);                                                                                       \
        }                                                                                                  \
        assert_true(at_ >= 0);                                                                             \
        at_;                                                                                               \
    })

static uint64_t va_of(fx_t *f, gr_alloc_t a)
{
    gr_alloc_info_t i;
    assert_int_equal(gr_alloc_query(f->dev, a, &i), GR_OK);
    return i.gpu_va;
}

/* FILL bytes of an allocation through its GPU VA, after gate g unless g < 0. */
static uint64_t submit_fill(fx_t *f, gr_context_t ctx, int g, gr_alloc_t a, uint32_t off, uint32_t bytes,
                            uint32_t pattern)
{
    sf_cmd_t c;
    sf_cmd_begin(f->dev, ctx, &c);
    if (g >= 0)
        assert_int_equal(gr_dma_wait(&c.w, GR_DMA_SPACE_GPUVA, f->gates_va + 8u * (unsigned)g, 1), 0);
    assert_int_equal(gr_dma_fill(&c.w, GR_DMA_SPACE_GPUVA, va_of(f, a) + off, bytes, pattern), 0);
    sf_cmd_ref(&c, a, true);
    return sf_cmd_submit(f->dev, ctx, &c);
}

static uint64_t submit_copy(fx_t *f, gr_context_t ctx, gr_alloc_t from, gr_alloc_t to, uint32_t bytes)
{
    sf_cmd_t c;
    sf_cmd_begin(f->dev, ctx, &c);
    assert_int_equal(gr_dma_copy(&c.w, GR_DMA_SPACE_GPUVA, va_of(f, from), GR_DMA_SPACE_GPUVA, va_of(f, to), bytes), 0);
    sf_cmd_ref(&c, from, false);
    sf_cmd_ref(&c, to, true);
    return sf_cmd_submit(f->dev, ctx, &c);
}

/* Bytes of an allocation read back through the engine into f->rb_cpu (on ctx[1]). */
static void readback(fx_t *f, gr_alloc_t a, uint32_t off, uint32_t bytes)
{
    memset(f->rb_cpu, 0xa5, bytes);
    sf_cmd_t c;
    sf_cmd_begin(f->dev, f->ctx[1], &c);
    assert_int_equal(gr_dma_copy(&c.w, GR_DMA_SPACE_GPUVA, va_of(f, a) + off, GR_DMA_SPACE_GPUVA, f->rb_va, bytes), 0);
    sf_cmd_ref(&c, a, false);
    uint64_t s = sf_cmd_submit(f->dev, f->ctx[1], &c);
    assert_int_equal(gr_wait(f->dev, f->ctx[1], s, LONG_WAIT), GR_OK);
}

static bool all_words(const uint8_t *p, uint32_t bytes, uint32_t v)
{
    for (uint32_t i = 0; i < bytes; i += 4) {
        uint32_t w;
        memcpy(&w, p + i, 4);
        if (w != v)
            return false;
    }
    return true;
}

/* ==== scenarios ======================================================================================== */

/* One packet alone: its submission, then its completion, with the same fence, inside the cycles
 * read around them, and nothing else. */
static void submit_then_complete_in_order_within_the_clock(void **state)
{
    fx_t *f = *state;
    const uint64_t m = mark(f);
    const uint64_t c0 = sf_cycles(f->ad);
    const uint64_t s = submit_fill(f, f->ctx[0], -1, f->dst, 0, 64 * KIB, 0x5eed0001u ^ (uint32_t)seed);
    assert_int_equal(gr_wait(f->dev, f->ctx[0], s, LONG_WAIT), GR_OK);
    const uint64_t c1 = sf_cycles(f->ad);
    read_since(f, m);
    if (f->n != 2)
        dump(f);
    assert_int_equal(f->n, 2);
    const gr_sched_event_t *sub = &f->ev[0], *done = &f->ev[1];
    assert_int_equal(sub->kind, GR_SCHED_EV_SUBMIT);
    assert_int_equal(done->kind, GR_SCHED_EV_COMPLETE);
    assert_int_equal(sub->context, f->ctx[0]);
    assert_int_equal(done->context, f->ctx[0]);
    assert_int_equal(sub->seq, s);
    assert_int_equal(done->seq, s);
    assert_true(sub->fence != 0);
    assert_int_equal(done->fence, sub->fence);
    assert_int_equal(sub->hw_queue, 1);
    assert_int_equal(done->hw_queue, 0);
    assert_true(done->completed == sub->fence || (int32_t)(done->completed - sub->fence) > 0);
    assert_int_equal(sub->status, 0);
    /* The clock: inside what was read around it, and the fill took time (64 KiB at most 8 B a
     * cycle is 8192 cycles of bus). */
    assert_true(sub->cycles >= c0);
    assert_true(done->cycles <= c1);
    assert_true(done->cycles - sub->cycles >= 64 * KIB / 8);
}

/* A 2 MiB copy (about 260,000 cycles) with another context waiting and a 20,000-cycle quantum:
 * preempted for the quantum, taken off, resubmitted with a new fence id, and completed; the
 * copy's bytes are right. */
static void long_copy_is_preempted_resubmitted_and_completes(void **state)
{
    fx_t *f = *state;
    const uint32_t pat = 0xc0b1e500u ^ (uint32_t)seed;
    const uint64_t pre = submit_fill(f, f->ctx[0], -1, f->src, 0, 2 * MIB, pat);
    assert_int_equal(gr_wait(f->dev, f->ctx[0], pre, LONG_WAIT), GR_OK);
    sf_set_sched(f->ad, 20000, 4000000);
    const uint64_t m = mark(f);
    const uint64_t lng = submit_copy(f, f->ctx[0], f->src, f->dst, 2 * MIB);
    uint64_t sh[2];
    for (unsigned i = 0; i < 2; i++)
        sh[i] = submit_fill(f, f->ctx[1], -1, f->aux, i * 4096, 4096, 0x51u + i);
    for (unsigned i = 0; i < 2; i++)
        assert_int_equal(gr_wait(f->dev, f->ctx[1], sh[i], LONG_WAIT), GR_OK);
    assert_int_equal(gr_wait(f->dev, f->ctx[0], lng, LONG_WAIT), GR_OK);
    read_since(f, m);

    const gr_context_t L = f->ctx[0];
    long a = EXPECT_AFTER(f, 0, GR_SCHED_EV_SUBMIT, L, lng);
    long p = EXPECT_AFTER(f, a, GR_SCHED_EV_PREEMPT, 0, 0);
    assert_int_equal(f->ev[p].arg, GR_SCHED_PREEMPT_QUANTUM);
    assert_string_equal(gr_sched_preempt_reason_name(f->ev[p].arg), "quantum");
    assert_int_equal(f->ev[p].context, L); /* the copy was at the head of the hardware queue */
    assert_int_equal(f->ev[p].seq, lng);
    assert_true(f->ev[p].preempt_fence != 0);
    /* It ran its quantum first. */
    assert_true(f->ev[p].cycles - f->ev[a].cycles >= 20000);
    long d = EXPECT_AFTER(f, p, GR_SCHED_EV_PREEMPTED, 0, 0);
    assert_int_equal(f->ev[d].preempt_fence, f->ev[p].preempt_fence);
    assert_true(f->ev[d].arg >= 1);         /* taken off: the copy and what was behind it */
    assert_int_equal(f->ev[d].context, L); /* the first taken off is the copy */
    assert_int_equal(f->ev[d].seq, lng);
    long r = EXPECT_AFTER(f, d, GR_SCHED_EV_RESUBMIT, L, lng);
    assert_true(f->ev[r].fence != f->ev[a].fence);
    assert_true((int32_t)(f->ev[r].fence - f->ev[a].fence) > 0);
    long c = EXPECT_AFTER(f, r, GR_SCHED_EV_COMPLETE, L, lng);
    /* It completes under its last fence id, once, and was never cancelled. */
    long last = r;
    for (long k = r; (k = find(f, (size_t)k + 1, GR_SCHED_EV_RESUBMIT, L, lng)) >= 0 && k < c;)
        last = k;
    assert_int_equal(f->ev[c].fence, f->ev[last].fence);
    assert_int_equal(count(f, GR_SCHED_EV_COMPLETE, L, lng), 1);
    assert_int_equal(count(f, GR_SCHED_EV_CANCEL, 0, 0), 0);
    assert_int_equal(count(f, GR_SCHED_EV_TDR, 0, 0), 0);
    for (unsigned i = 0; i < 2; i++) {
        long s = EXPECT_AFTER(f, 0, GR_SCHED_EV_SUBMIT, f->ctx[1], sh[i]);
        (void)EXPECT_AFTER(f, s, GR_SCHED_EV_COMPLETE, f->ctx[1], sh[i]);
        assert_int_equal(count(f, GR_SCHED_EV_COMPLETE, f->ctx[1], sh[i]), 1);
    }
    /* The timeline's count of preemptions is the scheduler's. */
    assert_int_equal(count(f, GR_SCHED_EV_PREEMPT, 0, 0), count(f, GR_SCHED_EV_PREEMPTED, 0, 0));
    /* Restarted from its start: every byte arrived. */
    readback(f, f->dst, 0, 64 * KIB);
    assert_true(all_words(f->rb_cpu, 64 * KIB, pat));
    readback(f, f->dst, 2 * MIB - 64 * KIB, 64 * KIB);
    assert_true(all_words(f->rb_cpu, 64 * KIB, pat));
}

static bool pred_submitted_and_patched(const gr_sched_stats_t *s, const void *arg)
{
    const uint64_t *want = arg; /* submitted, patched */
    return s->submitted >= want[0] && s->patched >= want[1];
}

static bool submitted_and_patched(gr_adapter_t *ad, uint64_t sub, uint64_t patched)
{
    const uint64_t want[2] = {sub, patched};
    return sf_wait_until(ad, pred_submitted_and_patched, want);
}

/* Eight packets, the first held on a gate: four on the hardware, one patched ahead, three only
 * queued. gr_cancel: the patched-ahead one is cancelled and the queued ones dropped at once; the
 * engine is preempted for the cancel; then the four taken off are cancelled. Every packet ends
 * exactly once, none completes, and the counts are the scheduler's. */
static void cancel_shows_its_preemption_cancels_and_drops(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 100000000, 100000000);
    const gr_sched_stats_t before = sf_sched_stats(f->ad);
    const uint64_t m = mark(f);
    enum { N = 8 };
    uint64_t s[N];
    s[0] = submit_fill(f, f->ctx[0], 1, f->dst, 0, 4096, 0x77u);
    for (unsigned i = 1; i < N; i++)
        s[i] = submit_fill(f, f->ctx[0], -1, f->dst, i * 4096, 4096, 0x77u + i);
    assert_true(submitted_and_patched(f->ad, before.submitted + 4, before.patched + 5));
    sf_sleep_ms(20);
    uint32_t cancelled = 0;
    assert_int_equal(gr_cancel(f->dev, f->ctx[0], &cancelled), GR_OK);
    assert_int_equal(cancelled, N);
    read_since(f, m);
    const gr_context_t C = f->ctx[0];
    const gr_sched_stats_t after = sf_sched_stats(f->ad);

    long p = EXPECT_AFTER(f, 0, GR_SCHED_EV_PREEMPT, 0, 0);
    assert_int_equal(f->ev[p].arg, GR_SCHED_PREEMPT_CANCEL);
    assert_int_equal(f->ev[p].context, C);
    assert_int_equal(f->ev[p].seq, s[0]);
    assert_int_equal(f->ev[p].hw_queue, 4);
    long d = EXPECT_AFTER(f, p, GR_SCHED_EV_PREEMPTED, 0, 0);
    assert_int_equal(f->ev[d].arg, 4); /* nothing had completed: all four came off */
    assert_int_equal(f->ev[d].seq, s[0]);
    for (unsigned i = 0; i < N; i++) {
        /* The first four were submitted, then cancelled after the preemption landed. */
        if (i < 4) {
            long a = EXPECT_AFTER(f, 0, GR_SCHED_EV_SUBMIT, C, s[i]);
            assert_true(a < p);
            long c = EXPECT_AFTER(f, d, GR_SCHED_EV_CANCEL, C, s[i]);
            assert_true(f->ev[c].fence == f->ev[a].fence);
        }
        unsigned cancels = count(f, GR_SCHED_EV_CANCEL, C, s[i]), drops = count(f, GR_SCHED_EV_DROP, C, s[i]);
        assert_int_equal(cancels + drops, 1);
        /* Patched ones (the first five) get a CancelCommand; the rest never reached the miniport. */
        assert_int_equal(cancels, i < 5 ? 1 : 0);
        long e = find(f, 0, cancels ? GR_SCHED_EV_CANCEL : GR_SCHED_EV_DROP, C, s[i]);
        assert_int_equal(f->ev[e].status, GR_E_CANCELLED);
        assert_int_equal(f->ev[e].arg, cancels ? 1 : 0); /* the miniport is CancelCommandAware */
        if (!cancels)
            assert_int_equal(f->ev[e].fence, 0);
        assert_int_equal(count(f, GR_SCHED_EV_COMPLETE, C, s[i]), 0);
        assert_int_equal(count(f, GR_SCHED_EV_RESUBMIT, C, s[i]), 0);
    }
    assert_int_equal(count(f, GR_SCHED_EV_CANCEL, 0, 0), after.cancelled - before.cancelled);
    assert_int_equal(count(f, GR_SCHED_EV_DROP, 0, 0), after.dropped - before.dropped);
    assert_int_equal(count(f, GR_SCHED_EV_PREEMPT, 0, 0), after.preemptions - before.preemptions);
    /* The context still works, and its next packet shows up after all this. */
    const uint64_t again = submit_fill(f, C, -1, f->dst, 0, 4096, 0xaf7e0u);
    assert_int_equal(gr_wait(f->dev, C, again, LONG_WAIT), GR_OK);
    const size_t old_n = f->n;
    read_since(f, m);
    long c = EXPECT_AFTER(f, old_n, GR_SCHED_EV_COMPLETE, C, again);
    assert_true(f->ev[c].cycles >= f->ev[old_n - 1].cycles);
}

/* A packet that never finishes (WAIT on a gate nobody opens), TDR timeout 100,000 cycles:
 * preempted at the timeout, resubmitted, preempted at the timeout again, then the TDR blames it
 * and it is cancelled with GR_E_DEVICE_RESET; another context's work runs after the reset. */
static void hang_times_out_twice_then_tdr_and_the_device_works_after(void **state)
{
    fx_t *f = *state;
    const uint64_t tdr = 100000;
    sf_set_sched(f->ad, 20000, tdr);
    const uint64_t m = mark(f);
    const uint64_t h = submit_fill(f, f->ctx[0], 2, f->dst, 0, 4096, 0xbadu);
    assert_int_equal(gr_wait(f->dev, f->ctx[0], h, LONG_WAIT), GR_E_DEVICE_RESET);
    const uint64_t ok = submit_fill(f, f->ctx[1], -1, f->dst, 4096, 4096, 0x600du);
    assert_int_equal(gr_wait(f->dev, f->ctx[1], ok, LONG_WAIT), GR_OK);
    read_since(f, m);
    const gr_context_t H = f->ctx[0];

    long a = EXPECT_AFTER(f, 0, GR_SCHED_EV_SUBMIT, H, h);
    long p1 = EXPECT_AFTER(f, a, GR_SCHED_EV_PREEMPT, H, h);
    assert_int_equal(f->ev[p1].arg, GR_SCHED_PREEMPT_TDR);
    assert_true(f->ev[p1].cycles - f->ev[a].cycles >= tdr); /* it ran the whole timeout */
    long d1 = EXPECT_AFTER(f, p1, GR_SCHED_EV_PREEMPTED, 0, 0);
    assert_int_equal(f->ev[d1].preempt_fence, f->ev[p1].preempt_fence);
    long r = EXPECT_AFTER(f, d1, GR_SCHED_EV_RESUBMIT, H, h);
    long p2 = EXPECT_AFTER(f, r, GR_SCHED_EV_PREEMPT, H, h);
    assert_int_equal(f->ev[p2].arg, GR_SCHED_PREEMPT_TDR);
    assert_true(f->ev[p2].cycles - f->ev[r].cycles >= tdr);
    long d2 = EXPECT_AFTER(f, p2, GR_SCHED_EV_PREEMPTED, 0, 0);
    long t = EXPECT_AFTER(f, d2, GR_SCHED_EV_TDR, 0, 0);
    assert_int_equal(f->ev[t].context, H);
    assert_int_equal(f->ev[t].seq, h);
    assert_int_equal(f->ev[t].fence, f->ev[r].fence);
    long c = EXPECT_AFTER(f, t, GR_SCHED_EV_CANCEL, H, h);
    assert_int_equal(f->ev[c].status, GR_E_DEVICE_RESET);
    assert_int_equal(count(f, GR_SCHED_EV_TDR, 0, 0), 1);
    assert_int_equal(count(f, GR_SCHED_EV_COMPLETE, H, h), 0);
    /* The device after the reset: the other context's packet ran. */
    long s2 = EXPECT_AFTER(f, t, GR_SCHED_EV_SUBMIT, f->ctx[1], ok);
    long c2 = EXPECT_AFTER(f, s2, GR_SCHED_EV_COMPLETE, f->ctx[1], ok);
    assert_true(f->ev[c2].cycles > f->ev[t].cycles);
    assert_int_equal(sf_sched_stats(f->ad).tdrs, 1);
}

/* ==== the reading interface ============================================================================ */

static void bad_arguments_are_refused_and_touch_nothing(void **state)
{
    fx_t *f = *state;
    const uint64_t s = submit_fill(f, f->ctx[0], -1, f->dst, 0, 4096, 1);
    assert_int_equal(gr_wait(f->dev, f->ctx[0], s, LONG_WAIT), GR_OK);
    gr_sched_event_t ev[4];
    memset(ev, 0x5a, sizeof ev);
    size_t n = 77;
    uint64_t next = 88;
    assert_int_equal(gr_adapter_timeline(NULL, 0, ev, 4, &n, &next), GR_E_INVALID);
    assert_int_equal(gr_adapter_timeline(f->ad, 0, ev, 4, NULL, &next), GR_E_INVALID);
    assert_int_equal(gr_adapter_timeline(f->ad, 0, NULL, 4, &n, &next), GR_E_INVALID);
    const uint64_t m = mark(f);
    assert_int_equal(m, 2);
    assert_int_equal(gr_adapter_timeline(f->ad, m + 1, ev, 4, &n, &next), GR_E_RANGE);
    assert_int_equal(n, 77);
    assert_int_equal(next, 88);
    for (size_t i = 0; i < sizeof ev; i++)
        assert_int_equal(((const uint8_t *)ev)[i], 0x5a);
    /* At the newest: nothing, and the same mark. out_next may be NULL. */
    assert_int_equal(gr_adapter_timeline(f->ad, m, ev, 4, &n, &next), GR_OK);
    assert_int_equal(n, 0);
    assert_int_equal(next, m);
    assert_int_equal(gr_adapter_timeline(f->ad, 0, ev, 4, &n, NULL), GR_OK);
    assert_int_equal(n, 2);
    assert_string_equal(gr_sched_event_name(GR_SCHED_EV_TDR), "tdr");
    assert_string_equal(gr_sched_event_name(GR_SCHED_EV_PREEMPT_TIMEOUT), "preempt-timeout");
    assert_string_equal(gr_sched_event_name(0), "?");
    assert_string_equal(gr_sched_event_name(999), "?");
    assert_string_equal(gr_sched_preempt_reason_name(GR_SCHED_PREEMPT_EXPLICIT), "explicit");
    assert_string_equal(gr_sched_preempt_reason_name(0), "?");
}

/* Reading a few at a time gives the same events as one read; and a ring overrun shows as a
 * jump in the numbers, the newest GR_SCHED_TIMELINE_CAP events kept. */
static void incremental_reads_agree_and_an_overrun_shows_in_the_numbers(void **state)
{
    fx_t *f = *state;
    /* One DMA buffer (an 8-byte FILL) submitted over and over: two events a packet. */
    sf_cmd_t c;
    sf_cmd_begin(f->dev, f->ctx[0], &c);
    assert_int_equal(gr_dma_fill(&c.w, GR_DMA_SPACE_GPUVA, va_of(f, f->dst), 8, 0x1234u), 0);
    sf_cmd_ref(&c, f->dst, true);
    const unsigned packets = GR_SCHED_TIMELINE_CAP / 2 + 40;
    uint64_t last = 0;
    for (unsigned i = 0; i < packets; i++) {
        last = sf_cmd_submit(f->dev, f->ctx[0], &c);
        if (i >= 32 && i % 16 == 0) /* keep the queue short */
            assert_int_equal(gr_wait(f->dev, f->ctx[0], last - 16, LONG_WAIT), GR_OK);
    }
    assert_int_equal(gr_wait(f->dev, f->ctx[0], last, LONG_WAIT), GR_OK);
    const uint64_t next = mark(f);
    assert_true(next >= 2ull * packets);
    /* Everything since 0: only the newest CAP are left; the first one's number says how many
     * were lost. */
    size_t n = 0;
    uint64_t nx = 0;
    assert_int_equal(gr_adapter_timeline(f->ad, 0, f->ev, MAX_EV, &n, &nx), GR_OK);
    assert_int_equal(n, GR_SCHED_TIMELINE_CAP);
    assert_int_equal(nx, next);
    assert_int_equal(f->ev[0].index, next - GR_SCHED_TIMELINE_CAP);
    for (size_t i = 1; i < n; i++) {
        assert_int_equal(f->ev[i].index, f->ev[i - 1].index + 1);
        assert_true(f->ev[i].cycles >= f->ev[i - 1].cycles);
    }
    /* Three at a time from an overwritten number: the same events. */
    static gr_sched_event_t step[GR_SCHED_TIMELINE_CAP];
    size_t got = 0;
    uint64_t at = 5;
    for (;;) {
        size_t k = 0;
        uint64_t after = 0;
        assert_int_equal(gr_adapter_timeline(f->ad, at, step + got, got + 3 <= MAX_EV ? 3 : MAX_EV - got, &k, &after),
                         GR_OK);
        if (!k) {
            assert_int_equal(after, next);
            break;
        }
        assert_int_equal(after, step[got + k - 1].index + 1);
        got += k;
        at = after;
    }
    assert_int_equal(got, n);
    assert_memory_equal(step, f->ev, n * sizeof f->ev[0]);
    /* Each packet: submit then complete, pairwise in the kept part (the ring may start inside a
     * pair). */
    unsigned submits = 0, completes = 0;
    for (size_t i = 0; i < n; i++) {
        submits += f->ev[i].kind == GR_SCHED_EV_SUBMIT;
        completes += f->ev[i].kind == GR_SCHED_EV_COMPLETE;
    }
    assert_true(submits + completes == n);
    assert_true(submits >= n / 2 - 8 && completes >= n / 2 - 8);
}

/* ==== main ============================================================================================= */

int main(int argc, char **argv)
{
    seed = sf_start(argc, argv, "test_timeline", uri, sizeof uri);
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(submit_then_complete_in_order_within_the_clock),
        T(long_copy_is_preempted_resubmitted_and_completes),
        T(cancel_shows_its_preemption_cancels_and_drops),
        T(hang_times_out_twice_then_tdr_and_the_device_works_after),
        T(bad_arguments_are_refused_and_touch_nothing),
        T(incremental_reads_agree_and_an_overrun_shows_in_the_numbers),
    };
    int failed = cmocka_run_group_tests_name("timeline", tests, NULL, NULL);
    if (failed)
        printf("# %d failed; replay: test_timeline --seed %llu\n", failed, seed);
    return failed ? 1 : 0;
}
