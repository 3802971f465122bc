/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_board_smoke: the DDI smoke test on one device, small enough for a board's own VRAM
 * (the LimeSDR Mini v2 top has 128 KiB) and for a simulated 3 Mbaud line. TAP on stdout.
 * Through the WDDM-shaped calls (gr_easy.h over gr_alloc.h, gr_submit.h):
 *   1. allocate two GPU-only buffers and a CPU-readable one;
 *   2. FILL one, COPY it to the other, COPY both ends of that into the read-back buffer, read
 *      it through a CPU lock: every word the pattern;
 *   3. a long packet (FILLs over a buffer, many times over) preempted by gr_preempt while it
 *      runs, then cancelled by gr_cancel: one packet cancelled, its wait GR_E_CANCELLED;
 *   4. a packet that WAITs for a value nobody writes, reset by TDR (a short TDR timeout): its
 *      wait GR_E_DEVICE_RESET, one TDR counted, its context lost, a CPU-written allocation it
 *      would have filled intact, and a new context's FILL and COPY right afterwards.
 * Usage: test_board_smoke [--no-preempt] URI   (or $GR_TEST_DEVICE). Exit status 0 when every
 * test passed. --no-preempt leaves step 3 out: where a preemption lands depends on the link's
 * latency and the bus models' seed, and so does the resumed packet the ring then holds, so a run
 * whose transaction log is compared with another's (gpuctl tracediff, tb/system/test_tracediff.sh)
 * runs without it.
 * Nothing random happens here: the device's seed is the server's (the suite prints it).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuref/gr_easy.h"

#define KIB 1024u
#define BUF_BYTES (16u * KIB) /* each GPU-only buffer */
#define RB_BYTES (1u * KIB)   /* the read-back: 4 KiB would cross a 3 Mbaud line in 1.4 M cycles */
#define LONG_FILLS 64u        /* the long packet: 64 FILLs of BUF_BYTES */
/* Long enough for every wait over a slow link (a UART moves a 4 KiB page in 1.4 M cycles):
 * 2 s of device time, as Windows' TdrDelay. The TDR test sets its own short one. */
#define WAIT_CYCLES 200000000ull
#define TDR_NORMAL 200000000ull
#define TDR_SHORT 200000ull

static int n_test, n_fail;
static struct timespec t_last;

/* Wall seconds since the last result, printed as a comment (never asserted): where a slow
 * link spends its time. */
static double lap(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double d = (double)(t.tv_sec - t_last.tv_sec) + (double)(t.tv_nsec - t_last.tv_nsec) / 1e9;
    t_last = t;
    return d;
}

static void tap(bool ok, const char *what, gr_status_t rc)
{
    printf("# %.1f s\n", lap());
    ++n_test;
    if (ok) {
        printf("ok %d - %s\n", n_test, what);
    } else {
        ++n_fail;
        printf("not ok %d - %s (%s%s%s)\n", n_test, what, gr_status_name(rc), gr_last_error()[0] ? ": " : "",
               gr_last_error());
    }
    fflush(stdout);
}

static bool all_words(const uint8_t *p, size_t bytes, uint32_t v)
{
    for (size_t i = 0; i < bytes; i += 4) {
        uint32_t w;
        memcpy(&w, p + i, 4);
        if (w != v)
            return false;
    }
    return true;
}

static uint64_t gpu_va(gr_gpu_device_t *dev, gr_alloc_t a)
{
    gr_alloc_info_t i;
    return gr_alloc_query(dev, a, &i) == GR_OK ? i.gpu_va : 0;
}

/* FILL dst, COPY dst -> mid, COPY mid's first and last RB_BYTES/2 into rb, read rb back:
 * every word must be the pattern. */
static gr_status_t fill_copy_check(gr_gpu_device_t *dev, gr_context_t ctx, gr_alloc_t a, gr_alloc_t b, gr_alloc_t rb,
                                   uint32_t pattern, bool *out_match)
{
    gr_cmd_t *cmd = NULL;
    gr_status_t rc = gr_cmd_create(dev, ctx, 0, &cmd);
    if (rc)
        return rc;
    const uint64_t half = RB_BYTES / 2;
    if (!(rc = gr_cmd_fill(cmd, a, 0, BUF_BYTES, pattern)) && !(rc = gr_cmd_copy(cmd, a, 0, b, 0, BUF_BYTES)) &&
        !(rc = gr_cmd_copy(cmd, b, 0, rb, 0, half)) && !(rc = gr_cmd_copy(cmd, b, BUF_BYTES - half, rb, half, half)))
        rc = gr_cmd_submit_wait(cmd, WAIT_CYCLES);
    gr_status_t drc = gr_cmd_destroy(cmd);
    if (!rc)
        rc = drc;
    static uint8_t got[RB_BYTES];
    if (!rc)
        rc = gr_buffer_read(dev, rb, 0, got, RB_BYTES);
    if (!rc)
        *out_match = all_words(got, RB_BYTES, pattern);
    return rc;
}

int main(int argc, char **argv)
{
    const bool preempt = !(argc > 1 && !strcmp(argv[1], "--no-preempt"));
    if (!preempt) {
        argc--;
        argv++;
    }
    const char *uri = argc > 1 ? argv[1] : getenv("GR_TEST_DEVICE");
    if (!uri || !*uri || argc > 2) {
        fprintf(stderr, "usage: test_board_smoke [--no-preempt] URI (or $GR_TEST_DEVICE)\n");
        return 2;
    }
    printf("TAP version 13\n1..%d\n# device %s\n", preempt ? 10 : 7, uri);
    (void)lap();
    gr_session_t *s = NULL;
    gr_status_t rc = gr_session_open(uri, &s);
    if (rc) {
        printf("Bail out! gr_session_open(%s): %s: %s\n", uri, gr_status_name(rc), gr_last_error());
        return 1;
    }
    gr_gpu_device_t *dev = gr_session_device(s);
    gr_adapter_t *ad = gr_session_adapter(s);
    gr_context_t ctx = gr_session_context(s);
    const gr_sched_params_t normal = {.tdr_timeout_cycles = TDR_NORMAL};
    rc = gr_adapter_set_scheduling(ad, &normal);

    /* 1. allocate */
    gr_alloc_t a = 0, b = 0, rb = 0, keep = 0;
    if (!rc && !(rc = gr_buffer_create(dev, BUF_BYTES, 0, &a)) && !(rc = gr_buffer_create(dev, BUF_BYTES, 0, &b)) &&
        !(rc = gr_buffer_create(dev, RB_BYTES, GR_BUF_CPU_READ, &rb)))
        rc = gr_buffer_create(dev, RB_BYTES, GR_BUF_CPU_READ | GR_BUF_CPU_WRITE, &keep);
    tap(!rc, "allocate two 16 KiB GPU-only buffers and two 1 KiB CPU-visible ones", rc);

    /* 2. fill and copy */
    bool match = false;
    if (!rc)
        rc = fill_copy_check(dev, ctx, a, b, rb, 0x600dcafeu, &match);
    tap(!rc && match, "FILL 0x600dcafe, COPY it, COPY both ends to a read-back: every word read back", rc);

    /* 3. a long packet preempted, then cancelled */
    gr_context_t c_long = 0;
    gr_cmd_t *lp = NULL;
    uint64_t fence = 0;
    gr_sched_stats_t st0, st1;
    memset(&st0, 0, sizeof st0);
    memset(&st1, 0, sizeof st1);
    gr_status_t r3 = preempt ? gr_context_create(dev, NULL, 0, &c_long) : GR_OK;
    if (preempt) {
        if (!r3)
            r3 = gr_cmd_create(dev, c_long, 0, &lp);
        for (uint32_t i = 0; !r3 && i < LONG_FILLS; i++)
            r3 = gr_cmd_fill(lp, a, 0, BUF_BYTES, 0x10a90000u + i);
        if (!r3)
            r3 = gr_adapter_sched_stats(ad, &st0);
        if (!r3)
            r3 = gr_cmd_submit(lp, &fence);
        /* On the hardware first (DxgkDdiSubmitCommand): over a slow link VidSch may still be
         * patching it when 30,000 device cycles have passed, and then there is nothing to preempt. */
        for (unsigned i = 0; !r3 && i < 2000; i++) {
            gr_sched_stats_t st;
            r3 = gr_adapter_sched_stats(ad, &st);
            if (r3 || st.submitted > st0.submitted)
                break;
            gr_status_t w = gr_wait(dev, c_long, fence, 1000);
            if (w != GR_E_TIMEOUT)
                r3 = w == GR_OK ? GR_E_TIMEOUT : w; /* it ran already: too short to preempt */
        }
        gr_status_t early = r3 ? r3 : gr_wait(dev, c_long, fence, 30000);
        tap(!r3 && early == GR_E_TIMEOUT, "a packet of 64 FILLs, on the engine, is still running 30,000 cycles later",
            r3 ? r3 : early);
        if (!r3)
            r3 = gr_preempt(dev, c_long);
        if (!r3)
            r3 = gr_adapter_sched_stats(ad, &st1);
        tap(!r3 && st1.preemptions > st0.preemptions && st1.preempted > st0.preempted,
            "gr_preempt takes it off the engine (DxgkDdiPreemptCommand)", r3);
        uint32_t cancelled = 0;
        if (!r3)
            r3 = gr_cancel(dev, c_long, &cancelled);
        gr_status_t after = r3 ? r3 : gr_wait(dev, c_long, fence, 0);
        if (!r3)
            r3 = gr_adapter_sched_stats(ad, &st1);
        tap(!r3 && cancelled == 1 && after == GR_E_CANCELLED && st1.cancelled > st0.cancelled,
            "gr_cancel cancels it once (DxgkDdiCancelCommand); its wait says GR_E_CANCELLED", r3 ? r3 : after);
        if (lp) {
            gr_status_t drc = gr_cmd_destroy(lp);
            if (!r3)
                r3 = drc;
        }
    }

    /* 4. a hang reset by TDR */
    const uint32_t kept = 0x4b454550u; /* "KEEP" */
    static uint8_t words[RB_BYTES];
    for (size_t i = 0; i < RB_BYTES; i += 4)
        memcpy(words + i, &kept, 4);
    gr_context_t c_hang = 0;
    gr_dma_buffer_t hb = 0;
    gr_dma_buffer_info_t hi;
    memset(&hi, 0, sizeof hi);
    gr_status_t r4 = gr_buffer_write(dev, keep, 0, words, RB_BYTES);
    if (!r4)
        r4 = gr_context_create(dev, NULL, 0, &c_hang);
    if (!r4)
        r4 = gr_dma_buffer_create(dev, c_hang, 4096, &hb);
    if (!r4)
        r4 = gr_dma_buffer_info(dev, hb, &hi);
    gr_dma_writer_t w;
    uint64_t hfence = 0;
    if (!r4) {
        /* The qword it waits on is in its own DMA buffer, zero, and nobody writes it. */
        gr_dma_writer_init(&w, hi.cpu, 2048);
        (void)gr_dma_wait(&w, GR_DMA_SPACE_GPUVA, hi.gpu_va + 2048, 1);
        (void)gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, gpu_va(dev, keep), RB_BYTES, 0xdeadu);
        gr_alloc_ref_t ref = {.handle = keep, .flags = GR_ALLOC_REF_WRITE};
        gr_submission_t sub = {.buffer = hb, .start = 0, .end = (uint32_t)w.used, .allocs = &ref, .alloc_count = 1};
        const gr_sched_params_t short_tdr = {.tdr_timeout_cycles = TDR_SHORT};
        if (!(r4 = gr_adapter_set_scheduling(ad, &short_tdr)) && !(r4 = gr_adapter_sched_stats(ad, &st0)))
            r4 = gr_submit(dev, c_hang, &sub, &hfence);
    }
    gr_status_t hang = r4 ? r4 : gr_wait(dev, c_hang, hfence, WAIT_CYCLES);
    if (!r4)
        r4 = gr_adapter_sched_stats(ad, &st1);
    tap(!r4 && hang == GR_E_DEVICE_RESET && st1.tdrs == st0.tdrs + 1,
        "a WAIT that never ends: TDR resets the GPU, its wait says GR_E_DEVICE_RESET", r4 ? r4 : hang);
    gr_context_info_t ci;
    memset(&ci, 0, sizeof ci);
    gr_status_t r5 = r4 ? r4 : gr_context_info(dev, c_hang, &ci);
    tap(!r5 && ci.lost, "its context is lost", r5);
    static uint8_t got[RB_BYTES];
    gr_status_t r6 = gr_buffer_read(dev, keep, 0, got, RB_BYTES);
    tap(!r6 && all_words(got, RB_BYTES, kept), "the allocation it would have filled is intact", r6);
    gr_status_t r7 = gr_adapter_set_scheduling(ad, &normal);
    gr_context_t c_after = 0;
    match = false;
    if (!r7)
        r7 = gr_context_create(dev, NULL, 0, &c_after);
    if (!r7)
        r7 = fill_copy_check(dev, c_after, a, b, rb, 0x0a6a1000u, &match);
    tap(!r7 && match, "after the reset a new context's FILL and COPYs read back right", r7);
    /* 5. free */
    gr_status_t r8 = hb ? gr_dma_buffer_destroy(dev, hb) : GR_OK;
    gr_alloc_t all[4] = {a, b, rb, keep};
    for (int i = 0; i < 4; i++)
        if (all[i]) {
            gr_status_t r = gr_alloc_destroy(dev, all[i]);
            if (!r8)
                r8 = r;
        }
    tap(!r8, "every allocation destroyed", r8);
    gr_session_close(s);
    printf("# %d of %d passed\n", n_test - n_fail, n_test);
    return n_fail ? 1 : 0;
}
