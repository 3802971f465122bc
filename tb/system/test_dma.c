/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_dma: directed tests of the DMA engine's stops and side effects on gpu_core over the gr_sim
 * C API, each against the contract (rtl/dma/README.md): preemption inside a COPY and with nothing
 * running, a WAIT hang caught by the watchdog and the engine reset after it, an engine reset during
 * a long copy under heavy stalls, lost interrupts, the performance counters, a VPR copy fault and
 * a write to a read-only page (logged by the MC fault unit with SOURCE 2).
 * TAP through cmocka (CMOCKA_MESSAGE_OUTPUT=TAP). Usage: test_dma [--seed N] (default
 * $GR_TEST_SEED, else 1); the seed drives the bus models' stalls and latencies, the data, and
 * when the stops are requested.
 */
#define _POSIX_C_SOURCE 200809L /* unsetenv */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuref/gr_dma.h"
#include "gpuref/gr_regdesc.h"
#include "gpuref/gr_regmap.h"
#include "gr_sim.h"

#define K4 UINT64_C(0x1000)
#define RING_LOG2 3u
#define RING_N (1u << RING_LOG2)
#define BURST_BYTES 128u /* 16 beats of the 8-byte bus */
#define PREEMPT_ID 0x50e0f00du
#define LIMIT 4000000u

#define FIELD(reg, field, v) GR_FIELD_GET(reg, field, v)
#define BIT(reg, field) GPU_REGS__##reg##__##field##_bm

static uint64_t g_seed = 1;

typedef struct fx {
    gr_sim_t *sim;
    uint8_t *ring;
    uint64_t ring_bus;
    uint8_t *fence; /* qword 0 completed, qword 1 preempted */
    uint64_t fence_bus;
    uint8_t *cmd; /* RING_N pages of commands, one per ring slot, + 4 spare */
    uint64_t cmd_bus;
    uint32_t tail;
    uint32_t next_id;
    uint64_t rng;
} fx_t;

static uint64_t rnd(fx_t *f)
{
    uint64_t z = (f->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rd(fx_t *f, uint32_t off)
{
    uint32_t v = 0;
    int rc = gr_sim_mmio_read(f->sim, off, &v);
    if (rc)
        fail_msg("read of 0x%03x failed: %d (seed=%" PRIu64 ")", off, rc, g_seed);
    return v;
}

static void wr(fx_t *f, uint32_t off, uint32_t v)
{
    int rc = gr_sim_mmio_write(f->sim, off, v);
    if (rc)
        fail_msg("write of 0x%03x failed: %d (seed=%" PRIu64 ")", off, rc, g_seed);
}

#define expect_eq(what, got, want)                                                                    \
    do {                                                                                              \
        uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                                         \
        if (g_ != w_)                                                                                 \
            fail_msg("%s: 0x%" PRIx64 ", want 0x%" PRIx64 " (seed=%" PRIu64 ")", what, g_, w_, g_seed); \
    } while (0)

static void *halloc(fx_t *f, size_t bytes, uint64_t *bus)
{
    void *cpu = NULL;
    assert_int_equal(gr_sim_dma_alloc(f->sim, bytes, &cpu, bus), GR_OK);
    return cpu;
}

static void fill_random(fx_t *f, void *p, size_t n)
{
    uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)rnd(f);
}

static void vram_put(fx_t *f, uint64_t a, const void *src, size_t n)
{
    assert_int_equal(gr_sim_vram_write(f->sim, a, src, n), GR_OK);
}

static void vram_get(fx_t *f, uint64_t a, void *dst, size_t n)
{
    assert_int_equal(gr_sim_vram_read(f->sim, a, dst, n), GR_OK);
}

static uint64_t rd_perf_bytes(fx_t *f)
{
    uint32_t lo = rd(f, GR_REG_DMA_PERF_BYTES_LO);
    return lo | (uint64_t)rd(f, GR_REG_DMA_PERF_BYTES_HI) << 32;
}

/* A device with the ring programmed and the engine enabled; interrupts as asked; the AXI
 * transaction log to `txlog` when not NULL. */
static fx_t *make_logged(unsigned stall_pct, unsigned max_latency, bool no_random, uint32_t irq_enable,
                         const char *txlog)
{
    fx_t *f = calloc(1, sizeof *f);
    assert_non_null(f);
    gr_sim_config_t cfg = {0};
    cfg.seed = g_seed;
    cfg.stall_pct = stall_pct;
    cfg.max_latency = max_latency;
    cfg.no_random = no_random;
    cfg.axilog_path = txlog ? txlog : "";
    assert_int_equal(gr_sim_create(&cfg, &f->sim), GR_OK);
    f->rng = g_seed * 0x2545f4914f6cdd1dull + stall_pct;
    expect_eq("ID_CAPS.DMA", FIELD(ID_CAPS, DMA, rd(f, GR_REG_ID_CAPS)), 1);
    f->ring = halloc(f, K4, &f->ring_bus);
    f->fence = halloc(f, K4, &f->fence_bus);
    f->cmd = halloc(f, (RING_N + 4) * K4, &f->cmd_bus);
    gr_dma_put64(f->fence + 8, 0x5e5e5e5eu); /* the preemption qword: a sentinel */
    wr(f, GR_REG_DMA_RING_BASE_LO, (uint32_t)f->ring_bus);
    wr(f, GR_REG_DMA_RING_BASE_HI, (uint32_t)(f->ring_bus >> 32));
    wr(f, GR_REG_DMA_RING_SIZE, RING_LOG2);
    wr(f, GR_REG_DMA_FENCE_ADDR_LO, (uint32_t)f->fence_bus);
    wr(f, GR_REG_DMA_FENCE_ADDR_HI, (uint32_t)(f->fence_bus >> 32));
    wr(f, GR_REG_DMA_PREEMPT_FENCE, PREEMPT_ID);
    wr(f, GR_REG_IRQ_ENABLE, irq_enable);
    wr(f, GR_REG_DMA_CTRL, BIT(DMA_CTRL, ENABLE));
    f->next_id = 0x100;
    return f;
}

static fx_t *make(unsigned stall_pct, unsigned max_latency, bool no_random, uint32_t irq_enable)
{
    return make_logged(stall_pct, max_latency, no_random, irq_enable, NULL);
}

static void destroy(fx_t *f)
{
    gr_sim_destroy(f->sim);
    free(f);
}

/* The command page of ring slot `slot` (spare pages: RING_N..). */
static gr_dma_writer_t cmds(fx_t *f, unsigned page)
{
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, f->cmd + (size_t)page * K4, K4);
    return w;
}

static uint64_t cmd_bus(fx_t *f, unsigned page)
{
    return f->cmd_bus + (uint64_t)page * K4;
}

/* Writes an entry for the commands in slot page `tail` and publishes TAIL; returns its fence id. */
static uint32_t submit(fx_t *f, const gr_dma_writer_t *w, bool irq)
{
    uint32_t idx = f->tail & (RING_N - 1);
    assert_false(w->overflow);
    uint64_t buf = f->cmd_bus + (uint64_t)(w->buf - f->cmd);
    uint32_t id = f->next_id++;
    gr_dma_ring_entry(f->ring + idx * GR_DMA_RING_ENTRY_BYTES, buf, (uint32_t)w->used, id, 0, 0, irq);
    gr_dma_ring_entry_set_priv(f->ring + idx * GR_DMA_RING_ENTRY_BYTES); /* physical spaces: a kernel entry */
    f->tail++;
    wr(f, GR_REG_DMA_RING_TAIL, f->tail & (RING_N - 1));
    return id;
}

/* Several entries published with one TAIL write. */
static uint32_t queue(fx_t *f, const gr_dma_writer_t *w, bool irq)
{
    uint32_t idx = f->tail & (RING_N - 1);
    uint64_t buf = f->cmd_bus + (uint64_t)(w->buf - f->cmd);
    uint32_t id = f->next_id++;
    gr_dma_ring_entry(f->ring + idx * GR_DMA_RING_ENTRY_BYTES, buf, (uint32_t)w->used, id, 0, 0, irq);
    gr_dma_ring_entry_set_priv(f->ring + idx * GR_DMA_RING_ENTRY_BYTES); /* physical spaces: a kernel entry */
    f->tail++;
    return id;
}

static void publish(fx_t *f)
{
    wr(f, GR_REG_DMA_RING_TAIL, f->tail & (RING_N - 1));
}

static uint64_t done_fence(fx_t *f)
{
    return gr_dma_get64(f->fence);
}

/* Runs until the engine is idle with HEAD == TAIL, or hung/faulted; returns DMA_STATUS. */
static uint32_t run_quiet(fx_t *f)
{
    uint32_t st = 0;
    for (unsigned c = 0; c < LIMIT; c += 200) {
        gr_sim_run(f->sim, 200);
        st = rd(f, GR_REG_DMA_STATUS);
        if (st & (BIT(DMA_STATUS, HUNG) | BIT(DMA_STATUS, FAULTED)))
            return st;
        if ((st & BIT(DMA_STATUS, IDLE)) && rd(f, GR_REG_DMA_RING_HEAD) == (f->tail & (RING_N - 1)))
            return st;
    }
    fail_msg("the engine never went quiet: DMA_STATUS 0x%08x (seed=%" PRIu64 ")", st, g_seed);
    return st;
}

/* Runs until `pred` bits are set (all of them) in DMA_STATUS and `clear` bits are clear. */
static uint32_t run_status(fx_t *f, uint32_t set, uint32_t clear)
{
    uint32_t st = 0;
    for (unsigned c = 0; c < LIMIT; c += 50) {
        gr_sim_run(f->sim, 50);
        st = rd(f, GR_REG_DMA_STATUS);
        if ((st & set) == set && !(st & clear))
            return st;
    }
    fail_msg("DMA_STATUS never reached set 0x%x clear 0x%x: 0x%08x (seed=%" PRIu64 ")", set, clear, st,
             g_seed);
    return st;
}

static void engine_reset(fx_t *f)
{
    wr(f, GR_REG_DMA_CTRL, BIT(DMA_CTRL, ENABLE) | BIT(DMA_CTRL, RESET));
    run_status(f, BIT(DMA_STATUS, IDLE), BIT(DMA_STATUS, RESETTING));
}

/* ---- preemption -------------------------------------------------------------------------------- */

static void preemption_inside_a_copy_stops_at_a_burst_boundary_and_removes_the_rest(void **state)
{
    (void)state;
    fx_t *f = make(30, 12, false, BIT(IRQ_STATE, DMA_PREEMPTED));
    const uint64_t SIZE = 0x40000, SRC = 0x01000000, DST = 0x02000000;
    uint8_t *src = malloc(SIZE), *old = malloc(SIZE), *got = malloc(SIZE);
    assert_non_null(src);
    assert_non_null(old);
    assert_non_null(got);
    fill_random(f, src, SIZE);
    fill_random(f, old, SIZE);
    vram_put(f, SRC, src, SIZE);
    vram_put(f, DST, old, SIZE);

    gr_dma_writer_t w0 = cmds(f, 0), w1 = cmds(f, 1), w2 = cmds(f, 2);
    gr_dma_fill(&w0, GR_DMA_SPACE_VRAM, 0x03000000, 0x100, 0x11111111);
    gr_dma_nop(&w1);
    gr_dma_fill(&w1, GR_DMA_SPACE_VRAM, 0x03001000, 0x100, 0x22222222);
    const uint32_t copy_at = (uint32_t)w1.used;
    gr_dma_copy(&w1, GR_DMA_SPACE_VRAM, SRC, GR_DMA_SPACE_VRAM, DST, SIZE);
    gr_dma_fill(&w1, GR_DMA_SPACE_VRAM, 0x03002000, 0x100, 0x33333333);
    gr_dma_fill(&w2, GR_DMA_SPACE_VRAM, 0x03003000, 0x100, 0x44444444);
    uint32_t id0 = queue(f, &w0, false);
    queue(f, &w1, false);
    queue(f, &w2, false);
    uint32_t cmds0 = rd(f, GR_REG_DMA_PERF_CMDS);
    uint64_t bytes0 = rd_perf_bytes(f);
    publish(f);

    /* into the copy: a random amount of it moved */
    uint64_t want = 0x200 + 0x1000 + rnd(f) % (SIZE / 2);
    for (unsigned c = 0; rd_perf_bytes(f) - bytes0 < want; c++) {
        if (c > LIMIT / 100)
            fail_msg("the copy never got going (seed=%" PRIu64 ")", g_seed);
        gr_sim_run(f->sim, 100);
    }
    wr(f, GR_REG_DMA_CTRL, BIT(DMA_CTRL, ENABLE) | BIT(DMA_CTRL, PREEMPT));
    bool raised = false;
    assert_int_equal(gr_sim_wait_irq(f->sim, LIMIT, &raised), GR_OK);
    if (!raised)
        fail_msg("no DMA_PREEMPTED interrupt (seed=%" PRIu64 ")", g_seed);
    uint32_t st = rd(f, GR_REG_DMA_STATUS);
    expect_eq("IRQ_STATE", rd(f, GR_REG_IRQ_STATE) & 0x1c, BIT(IRQ_STATE, DMA_PREEMPTED));
    expect_eq("DMA_STATUS.PREEMPTED", FIELD(DMA_STATUS, PREEMPTED, st), 1);
    expect_eq("DMA_STATUS.IDLE", FIELD(DMA_STATUS, IDLE, st), 1);

    uint32_t done = rd(f, GR_REG_DMA_STOP_DONE);
    expect_eq("STOP_HEAD (the entry with the copy)", rd(f, GR_REG_DMA_STOP_HEAD), 1);
    expect_eq("STOP_TAIL", rd(f, GR_REG_DMA_STOP_TAIL), 3);
    expect_eq("STOP_OFFSET (the COPY)", rd(f, GR_REG_DMA_STOP_OFFSET), copy_at);
    if (done == 0 || done > SIZE || done % BURST_BYTES)
        fail_msg("STOP_DONE 0x%x: not a positive multiple of %u up to 0x%" PRIx64 " (seed=%" PRIu64 ")",
                 done, BURST_BYTES, SIZE, g_seed);
    expect_eq("HEAD == TAIL", rd(f, GR_REG_DMA_RING_HEAD), 3);
    expect_eq("COMPLETED_FENCE", rd(f, GR_REG_DMA_COMPLETED_FENCE), id0);
    expect_eq("fence record: completed", done_fence(f), id0);
    expect_eq("fence record: preempted", gr_dma_get64(f->fence + 8), PREEMPT_ID);
    /* the copy's first STOP_DONE bytes moved, none after them; nothing of the rest ran */
    vram_get(f, DST, got, SIZE);
    if (memcmp(got, src, done))
        fail_msg("bytes before STOP_DONE 0x%x not copied (seed=%" PRIu64 ")", done, g_seed);
    if (memcmp(got + done, old + done, SIZE - done))
        fail_msg("bytes after STOP_DONE 0x%x written (seed=%" PRIu64 ")", done, g_seed);
    uint8_t b[8];
    vram_get(f, 0x03002000, b, 8);
    expect_eq("the FILL after the COPY did not run", gr_dma_get64(b), 0);
    vram_get(f, 0x03003000, b, 8);
    expect_eq("the next entry did not run", gr_dma_get64(b), 0);
    /* NOP and FILL of entry 1, FILL of entry 0 completed; the COPY did not */
    expect_eq("PERF_CMDS", rd(f, GR_REG_DMA_PERF_CMDS) - cmds0, 3);
    expect_eq("PERF_BYTES", rd_perf_bytes(f) - bytes0, 0x200 + done);

    /* the host resubmits the removed entries; PREEMPTED clears when one starts */
    wr(f, GR_REG_IRQ_STATE, BIT(IRQ_STATE, DMA_PREEMPTED));
    uint32_t id1 = queue(f, &w1, false);
    uint32_t id2 = queue(f, &w2, false);
    publish(f);
    st = run_quiet(f);
    expect_eq("DMA_STATUS after the resubmission", st & 0x1f, BIT(DMA_STATUS, IDLE));
    expect_eq("fence record", done_fence(f), id2);
    (void)id1;
    vram_get(f, DST, got, SIZE);
    if (memcmp(got, src, SIZE))
        fail_msg("the resubmitted copy is not whole (seed=%" PRIu64 ")", g_seed);
    vram_get(f, 0x03003000, b, 8);
    expect_eq("the resubmitted FILL", gr_dma_get64(b), 0x4444444444444444ull);
    free(src);
    free(old);
    free(got);
    destroy(f);
}

static void preemption_with_nothing_running_completes_at_once(void **state)
{
    (void)state;
    fx_t *f = make(20, 8, false, BIT(IRQ_STATE, DMA_PREEMPTED));
    gr_dma_writer_t w = cmds(f, 0);
    gr_dma_nop(&w);
    uint32_t id = submit(f, &w, false);
    run_quiet(f);
    expect_eq("fence", done_fence(f), id);
    wr(f, GR_REG_DMA_CTRL, BIT(DMA_CTRL, ENABLE) | BIT(DMA_CTRL, PREEMPT));
    bool raised = false;
    assert_int_equal(gr_sim_wait_irq(f->sim, 20000, &raised), GR_OK);
    if (!raised)
        fail_msg("no DMA_PREEMPTED interrupt for an idle preemption (seed=%" PRIu64 ")", g_seed);
    expect_eq("STOP_HEAD", rd(f, GR_REG_DMA_STOP_HEAD), 1);
    expect_eq("STOP_TAIL", rd(f, GR_REG_DMA_STOP_TAIL), 1);
    expect_eq("STOP_DONE", rd(f, GR_REG_DMA_STOP_DONE), 0);
    expect_eq("HEAD", rd(f, GR_REG_DMA_RING_HEAD), 1);
    expect_eq("fence record: preempted", gr_dma_get64(f->fence + 8), PREEMPT_ID);
    expect_eq("fence record: completed", done_fence(f), id);
    expect_eq("DMA_STATUS", rd(f, GR_REG_DMA_STATUS) & 0x1f, BIT(DMA_STATUS, IDLE) | BIT(DMA_STATUS, PREEMPTED));

    /* with the engine disabled and two entries queued: both removed, none run */
    wr(f, GR_REG_IRQ_STATE, BIT(IRQ_STATE, DMA_PREEMPTED));
    wr(f, GR_REG_DMA_CTRL, 0);
    gr_dma_writer_t w2 = cmds(f, 2);
    gr_dma_fill(&w2, GR_DMA_SPACE_VRAM, 0x03000000, 8, 0x77777777);
    queue(f, &w2, false);
    queue(f, &w2, false);
    publish(f);
    gr_sim_run(f->sim, 500);
    expect_eq("HEAD while disabled", rd(f, GR_REG_DMA_RING_HEAD), 1);
    gr_dma_put64(f->fence + 8, 0);
    wr(f, GR_REG_DMA_CTRL, BIT(DMA_CTRL, PREEMPT));
    raised = false;
    assert_int_equal(gr_sim_wait_irq(f->sim, 20000, &raised), GR_OK);
    if (!raised)
        fail_msg("no DMA_PREEMPTED interrupt with the engine disabled (seed=%" PRIu64 ")", g_seed);
    expect_eq("STOP_HEAD", rd(f, GR_REG_DMA_STOP_HEAD), 1);
    expect_eq("STOP_TAIL", rd(f, GR_REG_DMA_STOP_TAIL), 3);
    expect_eq("HEAD", rd(f, GR_REG_DMA_RING_HEAD), 3);
    expect_eq("fence record: preempted", gr_dma_get64(f->fence + 8), PREEMPT_ID);
    expect_eq("fence record: completed", done_fence(f), id);
    uint8_t b[8];
    vram_get(f, 0x03000000, b, 8);
    expect_eq("the removed FILL never ran", gr_dma_get64(b), 0);
    expect_eq("DMA_CTRL.ENABLE stays clear", FIELD(DMA_CTRL, ENABLE, rd(f, GR_REG_DMA_CTRL)), 0);
    destroy(f);
}

/* ---- watchdog, engine reset ---------------------------------------------------------------------- */

static void wait_never_satisfied_hangs_at_the_watchdog_and_reset_removes_the_entries(void **state)
{
    (void)state;
    const uint32_t WD = 1500;
    fx_t *f = make(25, 10, false, BIT(IRQ_STATE, DMA_FAULT));
    uint64_t sem_bus;
    uint8_t *sem = halloc(f, K4, &sem_bus);
    gr_dma_put64(sem, 4);
    wr(f, GR_REG_DMA_WATCHDOG, WD);

    gr_dma_writer_t w0 = cmds(f, 0), w1 = cmds(f, 1), w2 = cmds(f, 2);
    gr_dma_nop(&w0);
    gr_dma_fill(&w1, GR_DMA_SPACE_VRAM, 0x03000000, 0x80, 0x12345678);
    const uint32_t wait_at = (uint32_t)w1.used;
    gr_dma_wait(&w1, GR_DMA_SPACE_HOST, sem_bus, 5);
    gr_dma_fill(&w1, GR_DMA_SPACE_VRAM, 0x03001000, 0x80, 0x9abcdef0);
    gr_dma_fill(&w2, GR_DMA_SPACE_VRAM, 0x03002000, 0x80, 0x0fedcba9);
    uint32_t id0 = queue(f, &w0, true);
    queue(f, &w1, true);
    queue(f, &w2, true);
    uint8_t ring_before[RING_N * GR_DMA_RING_ENTRY_BYTES];
    memcpy(ring_before, f->ring, sizeof ring_before);
    uint64_t c0 = gr_sim_cycle(f->sim);
    publish(f);
    uint32_t st = run_status(f, BIT(DMA_STATUS, HUNG), 0);
    uint64_t took = gr_sim_cycle(f->sim) - c0;
    if (took < WD)
        fail_msg("HUNG after %" PRIu64 " cycles, before the watchdog's %u (seed=%" PRIu64 ")", took, WD, g_seed);
    if (took > 4 * WD + 2000)
        fail_msg("HUNG only after %" PRIu64 " cycles (watchdog %u) (seed=%" PRIu64 ")", took, WD, g_seed);
    expect_eq("DMA_STATUS.FAULTED", FIELD(DMA_STATUS, FAULTED, st), 0);
    uint32_t fs = rd(f, GR_REG_DMA_FAULT_STATUS);
    expect_eq("DMA_FAULT_STATUS.TYPE (hang)", FIELD(DMA_FAULT_STATUS, TYPE, fs), 1);
    expect_eq("DMA_FAULT_STATUS.ENTRY", FIELD(DMA_FAULT_STATUS, ENTRY, fs), 1);
    expect_eq("IRQ_STATE", rd(f, GR_REG_IRQ_STATE) & 0x1c, BIT(IRQ_STATE, DMA_FENCE) | BIT(IRQ_STATE, DMA_FAULT));
    if (!gr_sim_irq(f->sim))
        fail_msg("irq_o low with DMA_FAULT enabled and set (seed=%" PRIu64 ")", g_seed);
    expect_eq("HEAD (the hung entry)", rd(f, GR_REG_DMA_RING_HEAD), 1);
    expect_eq("fence record", done_fence(f), id0);
    /* hung: nothing more is issued, however long */
    gr_sim_run(f->sim, 3 * WD);
    uint8_t b[8];
    vram_get(f, 0x03001000, b, 8);
    expect_eq("the FILL after the WAIT", gr_dma_get64(b), 0);
    gr_dma_put64(sem, 5); /* satisfying it now changes nothing: the engine waits for a reset */
    gr_sim_run(f->sim, 2000);
    vram_get(f, 0x03001000, b, 8);
    expect_eq("the FILL after the WAIT, semaphore reached", gr_dma_get64(b), 0);
    expect_eq("still hung", FIELD(DMA_STATUS, HUNG, rd(f, GR_REG_DMA_STATUS)), 1);

    /* engine reset */
    uint32_t cmds0 = rd(f, GR_REG_DMA_PERF_CMDS);
    engine_reset(f);
    st = rd(f, GR_REG_DMA_STATUS);
    expect_eq("DMA_STATUS after the reset", st & 0x1f, BIT(DMA_STATUS, IDLE));
    expect_eq("STOP_HEAD", rd(f, GR_REG_DMA_STOP_HEAD), 1);
    expect_eq("STOP_TAIL", rd(f, GR_REG_DMA_STOP_TAIL), 3);
    expect_eq("STOP_OFFSET (the WAIT)", rd(f, GR_REG_DMA_STOP_OFFSET), wait_at);
    expect_eq("STOP_DONE", rd(f, GR_REG_DMA_STOP_DONE), 0);
    expect_eq("HEAD == TAIL", rd(f, GR_REG_DMA_RING_HEAD), 3);
    expect_eq("COMPLETED_FENCE", rd(f, GR_REG_DMA_COMPLETED_FENCE), id0);
    expect_eq("no fence written: completed", done_fence(f), id0);
    expect_eq("no fence written: preempted", gr_dma_get64(f->fence + 8), 0x5e5e5e5eu);
    expect_eq("ring base lo", rd(f, GR_REG_DMA_RING_BASE_LO), (uint32_t)f->ring_bus);
    expect_eq("ring base hi", rd(f, GR_REG_DMA_RING_BASE_HI), (uint32_t)(f->ring_bus >> 32));
    expect_eq("ring size", rd(f, GR_REG_DMA_RING_SIZE), RING_LOG2);
    expect_eq("DMA_CTRL.ENABLE unchanged", FIELD(DMA_CTRL, ENABLE, rd(f, GR_REG_DMA_CTRL)), 1);
    if (memcmp(ring_before, f->ring, sizeof ring_before))
        fail_msg("the ring's memory changed (seed=%" PRIu64 ")", g_seed);
    gr_sim_run(f->sim, 2000);
    vram_get(f, 0x03002000, b, 8);
    expect_eq("the removed entry never ran", gr_dma_get64(b), 0);
    expect_eq("nothing ran after the reset", rd(f, GR_REG_DMA_PERF_CMDS), cmds0);

    /* the engine runs again */
    wr(f, GR_REG_IRQ_STATE, 0x1c);
    gr_dma_writer_t w3 = cmds(f, 3);
    gr_dma_fill(&w3, GR_DMA_SPACE_VRAM, 0x03003000, 8, 0x55aa55aa);
    uint32_t id3 = submit(f, &w3, false);
    st = run_quiet(f);
    expect_eq("DMA_STATUS", st & 0x1f, BIT(DMA_STATUS, IDLE));
    expect_eq("fence record after the reset", done_fence(f), id3);
    vram_get(f, 0x03003000, b, 8);
    expect_eq("a later entry runs", gr_dma_get64(b), 0x55aa55aa55aa55aaull);
    destroy(f);
}

static void wait_with_watchdog_off_waits_until_the_value_arrives(void **state)
{
    (void)state;
    fx_t *f = make(25, 10, false, 0);
    uint64_t sem_bus;
    uint8_t *sem = halloc(f, K4, &sem_bus);
    wr(f, GR_REG_DMA_WATCHDOG, 0);
    gr_dma_writer_t w = cmds(f, 0);
    gr_dma_wait(&w, GR_DMA_SPACE_HOST, sem_bus, 0x8000000000000000ull);
    gr_dma_fill(&w, GR_DMA_SPACE_VRAM, 0x03000000, 8, 0x01020304);
    uint32_t id = submit(f, &w, false);
    gr_sim_run(f->sim, 20000);
    uint32_t st = rd(f, GR_REG_DMA_STATUS);
    expect_eq("not hung with the watchdog off", st & (BIT(DMA_STATUS, HUNG) | BIT(DMA_STATUS, FAULTED)), 0);
    expect_eq("HEAD", rd(f, GR_REG_DMA_RING_HEAD), 0);
    gr_dma_put64(sem, 0x7fffffffffffffffull); /* still below, unsigned */
    gr_sim_run(f->sim, 2000);
    expect_eq("HEAD", rd(f, GR_REG_DMA_RING_HEAD), 0);
    gr_dma_put64(sem, 0x8000000000000001ull);
    run_quiet(f);
    expect_eq("fence", done_fence(f), id);
    uint8_t b[8];
    vram_get(f, 0x03000000, b, 8);
    expect_eq("the FILL after the WAIT", gr_dma_get64(b), 0x0102030401020304ull);
    destroy(f);
}

static void engine_reset_during_a_long_copy_under_heavy_stalls_drains_and_recovers(void **state)
{
    (void)state;
    char txlog[256];
    snprintf(txlog, sizeof txlog, "/tmp/gr_test_dma_reset_%ld_%" PRIu64 ".log", (long)getpid(), g_seed);
    fx_t *f = make_logged(85, 200, false, 0, txlog);
    const uint64_t SIZE = 0x20000, DST = 0x01000000;
    uint64_t src_bus;
    uint8_t *src = halloc(f, SIZE, &src_bus);
    uint8_t *old = malloc(SIZE), *got = malloc(SIZE);
    assert_non_null(old);
    assert_non_null(got);
    fill_random(f, src, SIZE);
    fill_random(f, old, SIZE);
    vram_put(f, DST, old, SIZE);
    gr_dma_writer_t w = cmds(f, 0), w1 = cmds(f, 1);
    gr_dma_copy(&w, GR_DMA_SPACE_HOST, src_bus, GR_DMA_SPACE_VRAM, DST, SIZE);
    gr_dma_fill(&w1, GR_DMA_SPACE_VRAM, 0x03000000, 8, 0x66666666);
    uint32_t id_before = (uint32_t)done_fence(f);
    queue(f, &w, true);
    queue(f, &w1, true);
    uint64_t bytes0 = rd_perf_bytes(f);
    publish(f);
    uint64_t want = 0x800 + rnd(f) % (SIZE / 2);
    for (unsigned c = 0; rd_perf_bytes(f) - bytes0 < want; c++) {
        if (c > LIMIT / 100)
            fail_msg("the copy never got going (seed=%" PRIu64 ")", g_seed);
        gr_sim_run(f->sim, 100);
    }
    wr(f, GR_REG_DMA_CTRL, BIT(DMA_CTRL, ENABLE) | BIT(DMA_CTRL, RESET));
    /* draining: RESETTING until every outstanding burst is answered */
    uint32_t st = rd(f, GR_REG_DMA_STATUS);
    bool saw_resetting = FIELD(DMA_STATUS, RESETTING, st);
    for (unsigned c = 0; !(FIELD(DMA_STATUS, IDLE, st) && !FIELD(DMA_STATUS, RESETTING, st)); c += 20) {
        if (c > LIMIT)
            fail_msg("the engine reset never finished: DMA_STATUS 0x%08x (seed=%" PRIu64 ")", st, g_seed);
        gr_sim_run(f->sim, 20);
        st = rd(f, GR_REG_DMA_STATUS);
        saw_resetting |= FIELD(DMA_STATUS, RESETTING, st);
    }
    if (!saw_resetting)
        fail_msg("DMA_STATUS.RESETTING never seen while the bus drained (seed=%" PRIu64 ")", g_seed);
    expect_eq("DMA_STATUS after the reset", st & 0x1f, BIT(DMA_STATUS, IDLE));
    expect_eq("STOP_HEAD", rd(f, GR_REG_DMA_STOP_HEAD), 0);
    expect_eq("STOP_TAIL", rd(f, GR_REG_DMA_STOP_TAIL), 2);
    expect_eq("STOP_OFFSET", rd(f, GR_REG_DMA_STOP_OFFSET), 0);
    /* a burst cut by the reset keeps the beats it had sent: STOP_DONE counts qwords */
    uint32_t done = rd(f, GR_REG_DMA_STOP_DONE);
    if (done > SIZE || done % 8)
        fail_msg("STOP_DONE 0x%x (seed=%" PRIu64 ")", done, g_seed);
    expect_eq("HEAD == TAIL", rd(f, GR_REG_DMA_RING_HEAD), 2);
    expect_eq("no fence written", done_fence(f), id_before);
    expect_eq("no fence interrupt", rd(f, GR_REG_IRQ_STATE) & 0x1c, 0);
    /* exactly the first STOP_DONE bytes were written (the rest of a cut burst had no strobes),
     * and nothing moves any more */
    vram_get(f, DST, got, SIZE);
    for (uint64_t i = 0; i < SIZE; i++)
        if (got[i] != (i < done ? src[i] : old[i]))
            fail_msg("byte 0x%" PRIx64 " of the copy is %s, STOP_DONE 0x%x (seed=%" PRIu64 ")", i,
                     got[i] == src[i] ? "copied" : got[i] == old[i] ? "old" : "neither old nor copied", done,
                     g_seed);
    gr_sim_run(f->sim, 5000);
    uint8_t *again = malloc(SIZE);
    assert_non_null(again);
    vram_get(f, DST, again, SIZE);
    if (memcmp(got, again, SIZE))
        fail_msg("the copy went on after the reset (seed=%" PRIu64 ")", g_seed);
    uint8_t b[8];
    vram_get(f, 0x03000000, b, 8);
    expect_eq("the removed entry never ran", gr_dma_get64(b), 0);

    /* a later submission works, the copy in full */
    uint32_t id = submit(f, &w, false);
    st = run_quiet(f);
    expect_eq("DMA_STATUS", st & 0x1f, BIT(DMA_STATUS, IDLE));
    expect_eq("fence", done_fence(f), id);
    vram_get(f, DST, got, SIZE);
    if (memcmp(got, src, SIZE))
        fail_msg("the copy after the reset is not whole (seed=%" PRIu64 ")", g_seed);
    free(old);
    free(got);
    free(again);
    destroy(f);

    /* the bus: no AXI rule broken while draining; a burst cut by the reset (STOP_DONE not on a
     * burst boundary) finished with zero-strobe beats */
    FILE *log = fopen(txlog, "r");
    assert_non_null(log);
    char line[512];
    unsigned long violations = 0, zero_strobes = 0;
    while (fgets(line, sizeof line, log)) {
        if (strstr(line, " violation: "))
            violations++;
        if (strstr(line, " vram w ") && strstr(line, " strb=0x00 "))
            zero_strobes++;
    }
    fclose(log);
    remove(txlog);
    if (violations)
        fail_msg("%lu AXI protocol violations in the transaction log (seed=%" PRIu64 ")", violations, g_seed);
    if (done % BURST_BYTES && !zero_strobes)
        fail_msg("STOP_DONE 0x%x cuts a burst, but no W beat went with zero strobes (seed=%" PRIu64 ")", done,
                 g_seed);
}

/* ---- interrupts, counters ------------------------------------------------------------------------ */

static void lost_interrupts_do_not_lose_fences(void **state)
{
    (void)state;
    fx_t *f = make(25, 8, false, 0); /* IRQ_ENABLE off */
    gr_dma_writer_t w0 = cmds(f, 0), w1 = cmds(f, 1);
    gr_dma_fence(&w0, GR_DMA_SPACE_VRAM, 0x03000000, 0x1234, 1);
    gr_dma_nop(&w1);
    queue(f, &w0, true);
    uint32_t id1 = queue(f, &w1, true);
    publish(f);
    run_quiet(f);
    expect_eq("fence record advanced without an interrupt", done_fence(f), id1);
    expect_eq("COMPLETED_FENCE", rd(f, GR_REG_DMA_COMPLETED_FENCE), id1);
    if (gr_sim_irq(f->sim))
        fail_msg("irq_o high with IRQ_ENABLE clear (seed=%" PRIu64 ")", g_seed);
    expect_eq("IRQ_STATE still records it", rd(f, GR_REG_IRQ_STATE) & 0x1c, BIT(IRQ_STATE, DMA_FENCE));
    wr(f, GR_REG_IRQ_ENABLE, BIT(IRQ_STATE, DMA_FENCE));
    gr_sim_run(f->sim, 4);
    if (!gr_sim_irq(f->sim))
        fail_msg("irq_o low once DMA_FENCE is enabled (seed=%" PRIu64 ")", g_seed);
    wr(f, GR_REG_IRQ_STATE, BIT(IRQ_STATE, DMA_FENCE));
    gr_sim_run(f->sim, 4);
    if (gr_sim_irq(f->sim))
        fail_msg("irq_o high after the W1C (seed=%" PRIu64 ")", g_seed);
    /* an entry without IRQ and no FENCE with IRQ: no DMA_FENCE */
    gr_dma_writer_t w2 = cmds(f, 2);
    gr_dma_fence(&w2, GR_DMA_SPACE_VRAM, 0x03000008, 0x5678, 0);
    uint32_t id2 = submit(f, &w2, false);
    run_quiet(f);
    expect_eq("fence", done_fence(f), id2);
    expect_eq("no DMA_FENCE for an entry without IRQ", rd(f, GR_REG_IRQ_STATE) & 0x1c, 0);
    destroy(f);
}

static void performance_counters_count_bytes_and_commands_exactly(void **state)
{
    (void)state;
    fx_t *f = make(40, 16, false, 0);
    uint64_t data_bus;
    uint8_t *data = halloc(f, 4 * K4, &data_bus);
    fill_random(f, data, 4 * K4);
    gr_dma_writer_t in = cmds(f, RING_N);
    gr_dma_fill(&in, GR_DMA_SPACE_VRAM, 0x03010000, 0x100, 0xabababab);
    gr_dma_copy(&in, GR_DMA_SPACE_VRAM, 0x03010000, GR_DMA_SPACE_HOST, data_bus + 0x3000, 0x0);
    gr_dma_writer_t w = cmds(f, 0);
    gr_dma_nop(&w);
    gr_dma_fill(&w, GR_DMA_SPACE_VRAM, 0x03000000, 0x1008, 0x01010101);
    gr_dma_copy(&w, GR_DMA_SPACE_HOST, data_bus + 8, GR_DMA_SPACE_VRAM, 0x03004000, 0x2340);
    gr_dma_fence(&w, GR_DMA_SPACE_HOST, data_bus + 0x3ff0, 7, 0);
    gr_dma_timestamp(&w, GR_DMA_SPACE_HOST, data_bus + 0x3ff8);
    gr_dma_tlb_invalidate(&w);
    gr_dma_indirect(&w, cmd_bus(f, RING_N), (uint32_t)in.used);
    gr_dma_wait(&w, GR_DMA_SPACE_HOST, data_bus + 0x3ff0, 7);
    uint32_t cmds0 = rd(f, GR_REG_DMA_PERF_CMDS), busy0 = rd(f, GR_REG_DMA_PERF_BUSY);
    uint32_t stalls0 = rd(f, GR_REG_DMA_PERF_STALLS);
    uint64_t bytes0 = rd_perf_bytes(f);
    uint64_t c0 = gr_sim_cycle(f->sim);
    uint32_t id = submit(f, &w, false);
    run_quiet(f);
    uint64_t elapsed = gr_sim_cycle(f->sim) - c0;
    expect_eq("fence", done_fence(f), id);
    /* 8 at the top level (the INDIRECT once) + 2 in the indirect buffer */
    expect_eq("PERF_CMDS", rd(f, GR_REG_DMA_PERF_CMDS) - cmds0, 10);
    /* COPY and FILL bytes only (a size-0 COPY moves none; FENCE and TIMESTAMP are not counted) */
    expect_eq("PERF_BYTES", rd_perf_bytes(f) - bytes0, 0x1008 + 0x2340 + 0x100);
    uint32_t busy = rd(f, GR_REG_DMA_PERF_BUSY) - busy0, stalls = rd(f, GR_REG_DMA_PERF_STALLS) - stalls0;
    uint32_t last = rd(f, GR_REG_DMA_PERF_LAST_CMD);
    if (busy == 0 || busy > elapsed)
        fail_msg("PERF_BUSY moved by %u in %" PRIu64 " cycles (seed=%" PRIu64 ")", busy, elapsed, g_seed);
    if (stalls == 0 || stalls > busy)
        fail_msg("PERF_STALLS moved by %u with %u busy cycles under 40%% stalls (seed=%" PRIu64 ")", stalls,
                 busy, g_seed);
    if (last == 0 || last > busy)
        fail_msg("PERF_LAST_CMD %u, busy %u (seed=%" PRIu64 ")", last, busy, g_seed);
    /* idle: BUSY does not move */
    uint32_t b1 = rd(f, GR_REG_DMA_PERF_BUSY);
    gr_sim_run(f->sim, 1000);
    expect_eq("PERF_BUSY while idle", rd(f, GR_REG_DMA_PERF_BUSY), b1);
    destroy(f);
}

/* ---- faults ------------------------------------------------------------------------------------ */

static void copy_out_of_the_vpr_faults_and_moves_nothing_of_it(void **state)
{
    (void)state;
    fx_t *f = make(25, 8, false, BIT(IRQ_STATE, DMA_FAULT) | BIT(IRQ_STATE, MC_FAULT));
    const uint64_t VPR = 0x02000000, VPR_END = 0x02004000, OUT = 0x03000000;
    uint8_t secret[0x4000], b[0x4000];
    fill_random(f, secret, sizeof secret);
    vram_put(f, VPR, secret, sizeof secret);
    wr(f, GR_REG_VPR_BASE, (uint32_t)VPR);
    wr(f, GR_REG_VPR_LIMIT, (uint32_t)VPR_END);
    wr(f, GR_REG_VPR_CTRL, BIT(VPR_CTRL, ENABLE));
    uint64_t host_bus;
    uint8_t *host = halloc(f, K4, &host_bus);
    memset(host, 0xee, K4);

    /* allowed: inside to inside, outside into it */
    gr_dma_writer_t w0 = cmds(f, 0);
    gr_dma_copy(&w0, GR_DMA_SPACE_VRAM, VPR, GR_DMA_SPACE_VRAM, VPR + 0x3000, 0x100);
    gr_dma_fill(&w0, GR_DMA_SPACE_VRAM, OUT, 0x100, 0x5a5a5a5a);
    gr_dma_copy(&w0, GR_DMA_SPACE_VRAM, OUT, GR_DMA_SPACE_VRAM, VPR + 0x3800, 0x100);
    uint32_t id0 = submit(f, &w0, false);
    uint32_t st = run_quiet(f);
    expect_eq("DMA_STATUS (copies inside the VPR)", st & 0x1f, BIT(DMA_STATUS, IDLE));
    expect_eq("fence", done_fence(f), id0);
    vram_get(f, VPR + 0x3000, b, 0x100);
    if (memcmp(b, secret, 0x100))
        fail_msg("VPR to VPR copy wrong (seed=%" PRIu64 ")", g_seed);

    /* out of it, to the host: faults before a byte of the protected page moves */
    gr_dma_writer_t w1 = cmds(f, 1);
    gr_dma_nop(&w1);
    const uint32_t at = (uint32_t)w1.used;
    gr_dma_copy(&w1, GR_DMA_SPACE_VRAM, VPR + 0x1000, GR_DMA_SPACE_HOST, host_bus, 0x800);
    gr_dma_fill(&w1, GR_DMA_SPACE_VRAM, OUT + 0x1000, 8, 1);
    submit(f, &w1, false);
    st = run_quiet(f);
    expect_eq("DMA_STATUS.FAULTED", FIELD(DMA_STATUS, FAULTED, st), 1);
    uint32_t fs = rd(f, GR_REG_DMA_FAULT_STATUS);
    expect_eq("DMA_FAULT_STATUS.TYPE (VPR copy)", FIELD(DMA_FAULT_STATUS, TYPE, fs), 5);
    expect_eq("DMA_FAULT_STATUS.ENTRY", FIELD(DMA_FAULT_STATUS, ENTRY, fs), 1);
    expect_eq("DMA_FAULT_ADDR", rd(f, GR_REG_DMA_FAULT_ADDR_LO) | (uint64_t)rd(f, GR_REG_DMA_FAULT_ADDR_HI) << 32,
              VPR + 0x1000);
    uint32_t mc = rd(f, GR_REG_MC_FAULT_STATUS);
    expect_eq("MC_FAULT_STATUS.VALID", FIELD(MC_FAULT_STATUS, VALID, mc), 1);
    expect_eq("MC_FAULT_STATUS.TYPE (VPR)", FIELD(MC_FAULT_STATUS, TYPE, mc), 4);
    expect_eq("MC_FAULT_STATUS.SOURCE (DMA)", FIELD(MC_FAULT_STATUS, SOURCE, mc), 2);
    expect_eq("MC_FAULT_ADDR", rd(f, GR_REG_MC_FAULT_ADDR_LO), (uint32_t)(VPR + 0x1000));
    expect_eq("IRQ_STATE", rd(f, GR_REG_IRQ_STATE) & 0x12, BIT(IRQ_STATE, DMA_FAULT) | BIT(IRQ_STATE, MC_FAULT));
    if (!gr_sim_irq(f->sim))
        fail_msg("irq_o low (seed=%" PRIu64 ")", g_seed);
    engine_reset(f);
    expect_eq("STOP_OFFSET (the COPY)", rd(f, GR_REG_DMA_STOP_OFFSET), at);
    expect_eq("STOP_DONE", rd(f, GR_REG_DMA_STOP_DONE), 0);
    for (unsigned i = 0; i < K4; i++)
        if (host[i] != 0xee)
            fail_msg("protected byte %u reached the host (seed=%" PRIu64 ")", i, g_seed);
    vram_get(f, OUT + 0x1000, b, 8);
    expect_eq("the command after the fault did not run", gr_dma_get64(b), 0);
    destroy(f);
}

static void write_to_a_read_only_page_faults_and_is_logged_with_source_2(void **state)
{
    (void)state;
    fx_t *f = make(25, 8, false, BIT(IRQ_STATE, DMA_FAULT));
    /* one address space: VA 0x0000_0040_0000_0000 + 4 KiB pages: [0] RW, [1] RO */
    const uint64_t L3 = 0x00100000, L2 = 0x00101000, L1 = 0x00102000, L0 = 0x00103000;
    const uint64_t RW = 0x00200000, RO = 0x00201000, VA = UINT64_C(0x0000004000000000);
    uint64_t e;
    e = L2 | 1; vram_put(f, L3 + ((VA >> 39) & 511) * 8, &e, 8);
    e = L1 | 1; vram_put(f, L2 + ((VA >> 30) & 511) * 8, &e, 8);
    e = L0 | 1; vram_put(f, L1 + ((VA >> 21) & 511) * 8, &e, 8);
    e = RW | 3; vram_put(f, L0 + 0 * 8, &e, 8);
    e = RO | 1; vram_put(f, L0 + 1 * 8, &e, 8);
    uint8_t ro[K4], b[K4];
    fill_random(f, ro, K4);
    vram_put(f, RO, ro, K4);
    wr(f, GR_REG_MMU_ROOT, (uint32_t)L3);
    wr(f, GR_REG_MMU_CTRL, BIT(MMU_CTRL, ENABLE));

    gr_dma_writer_t w = cmds(f, 0);
    gr_dma_copy(&w, GR_DMA_SPACE_GPUVA, VA + K4 + 0x100, GR_DMA_SPACE_GPUVA, VA + 0x100, 0x40); /* reading RO: fine */
    const uint32_t at = (uint32_t)w.used;
    gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, VA + K4 - 0x80, 0x100, 0xdeadbeef);               /* into RO */
    submit(f, &w, false);
    uint32_t st = run_quiet(f);
    expect_eq("DMA_STATUS.FAULTED", FIELD(DMA_STATUS, FAULTED, st), 1);
    uint32_t fs = rd(f, GR_REG_DMA_FAULT_STATUS);
    expect_eq("DMA_FAULT_STATUS.TYPE (MMU)", FIELD(DMA_FAULT_STATUS, TYPE, fs), 2);
    expect_eq("DMA_FAULT_STATUS.MMU_TYPE (read-only)", FIELD(DMA_FAULT_STATUS, MMU_TYPE, fs), 2);
    expect_eq("DMA_FAULT_STATUS.WRITE", FIELD(DMA_FAULT_STATUS, WRITE, fs), 1);
    expect_eq("DMA_FAULT_ADDR", rd(f, GR_REG_DMA_FAULT_ADDR_LO) | (uint64_t)rd(f, GR_REG_DMA_FAULT_ADDR_HI) << 32,
              VA + K4);
    uint32_t mc = rd(f, GR_REG_MC_FAULT_STATUS);
    expect_eq("MC_FAULT_STATUS.VALID", FIELD(MC_FAULT_STATUS, VALID, mc), 1);
    expect_eq("MC_FAULT_STATUS.TYPE (write to read-only)", FIELD(MC_FAULT_STATUS, TYPE, mc), 2);
    expect_eq("MC_FAULT_STATUS.SOURCE (DMA)", FIELD(MC_FAULT_STATUS, SOURCE, mc), 2);
    expect_eq("MC_FAULT_STATUS.WRITE", FIELD(MC_FAULT_STATUS, WRITE, mc), 1);
    expect_eq("MC_FAULT_ADDR", rd(f, GR_REG_MC_FAULT_ADDR_LO) |
                                   (uint64_t)FIELD(MC_FAULT_ADDR_HI, ADDR, rd(f, GR_REG_MC_FAULT_ADDR_HI)) << 32,
              VA + K4);
    engine_reset(f);
    expect_eq("STOP_OFFSET (the FILL)", rd(f, GR_REG_DMA_STOP_OFFSET), at);
    vram_get(f, RO, b, K4);
    if (memcmp(b, ro, K4))
        fail_msg("the read-only page changed (seed=%" PRIu64 ")", g_seed);
    vram_get(f, RW + 0x100, b, 0x40);
    if (memcmp(b, ro + 0x100, 0x40))
        fail_msg("the copy out of the read-only page is wrong (seed=%" PRIu64 ")", g_seed);
    destroy(f);
}

/* ---- a bad ring entry ---------------------------------------------------------------------------- */

/*
 * A bad ring entry runs nothing of its buffer, so DMA_STOP_OFFSET is 0, not the previous entry's
 * last position (dma_seq once kept it).
 */
static void bad_ring_entry_stops_at_offset_0(void **state)
{
    (void)state;
    fx_t *f = make(20, 8, false, 0);
    gr_dma_writer_t w0 = cmds(f, 0), w1 = cmds(f, 1);
    for (unsigned i = 0; i < 5; i++)
        gr_dma_nop(&w0);
    gr_dma_nop(&w1);
    uint32_t id0 = queue(f, &w0, false);
    uint32_t idx1 = f->tail & (RING_N - 1);
    queue(f, &w1, false);
    gr_dma_put64(f->ring + idx1 * 32u + 24, 1ull << 40); /* a reserved bit in qword 3 */
    publish(f);
    uint32_t st = run_quiet(f);
    expect_eq("DMA_STATUS.FAULTED", FIELD(DMA_STATUS, FAULTED, st), 1);
    uint32_t fs = rd(f, GR_REG_DMA_FAULT_STATUS);
    expect_eq("DMA_FAULT_STATUS.TYPE (bad ring entry)", FIELD(DMA_FAULT_STATUS, TYPE, fs), 6);
    expect_eq("DMA_FAULT_STATUS.ENTRY", FIELD(DMA_FAULT_STATUS, ENTRY, fs), idx1);
    expect_eq("DMA_FAULT_ADDR (the entry)", rd(f, GR_REG_DMA_FAULT_ADDR_LO) | (uint64_t)rd(f, GR_REG_DMA_FAULT_ADDR_HI) << 32,
              f->ring_bus + idx1 * 32u);
    expect_eq("fence", done_fence(f), id0);
    engine_reset(f);
    expect_eq("STOP_HEAD", rd(f, GR_REG_DMA_STOP_HEAD), idx1);
    expect_eq("STOP_TAIL", rd(f, GR_REG_DMA_STOP_TAIL), idx1 + 1);
    expect_eq("STOP_DONE", rd(f, GR_REG_DMA_STOP_DONE), 0);
    expect_eq("STOP_OFFSET", rd(f, GR_REG_DMA_STOP_OFFSET), 0);
    destroy(f);
}

int main(int argc, char **argv)
{
    const char *env = getenv("GR_TEST_SEED");
    if (env)
        g_seed = strtoull(env, NULL, 0);
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--seed"))
            g_seed = strtoull(argv[i + 1], NULL, 0);
    unsetenv("GR_SIM_SEED");
    printf("# seed=%" PRIu64 " (replay: test_dma --seed %" PRIu64 ")\n", g_seed, g_seed);
    fflush(stdout);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(preemption_inside_a_copy_stops_at_a_burst_boundary_and_removes_the_rest),
        cmocka_unit_test(preemption_with_nothing_running_completes_at_once),
        cmocka_unit_test(wait_never_satisfied_hangs_at_the_watchdog_and_reset_removes_the_entries),
        cmocka_unit_test(wait_with_watchdog_off_waits_until_the_value_arrives),
        cmocka_unit_test(engine_reset_during_a_long_copy_under_heavy_stalls_drains_and_recovers),
        cmocka_unit_test(lost_interrupts_do_not_lose_fences),
        cmocka_unit_test(performance_counters_count_bytes_and_commands_exactly),
        cmocka_unit_test(copy_out_of_the_vpr_faults_and_moves_nothing_of_it),
        cmocka_unit_test(write_to_a_read_only_page_faults_and_is_logged_with_source_2),
        cmocka_unit_test(bad_ring_entry_stops_at_offset_0),
    };
    return cmocka_run_group_tests_name("dma", tests, NULL, NULL);
}
