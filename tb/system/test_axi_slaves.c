/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_axi_slaves: gpu_core's AXI4 write masters against every write order a legal slave may
 * impose (IHI0022E A3.3.1: a slave may hold AWREADY until it has seen WVALID, or the whole
 * burst's data, or hold WREADY until it has the AW; a master must not wait for AWREADY before
 * WVALID). The memory models on m_host and m_vram take each order in turn (gr_sim_config_t
 * axi_order, as sim://?axi= does), with random stalls in single cycles and in long stretches.
 * Each run sends real traffic through the DMA engine (m_host, and m_vram through the memory
 * controller's arbiter) while the BAR1 aperture writes VRAM through the same arbiter: FILLs,
 * COPYs between VRAM and host memory, FENCEs and the entries' fence records, every byte
 * checked. A master that waits for AWREADY before presenting its data hangs here.
 * Then a 4 MiB VRAM-to-VRAM copy with quiet models in every order: the engine keeps the bus
 * busy whatever the slave's order.
 * TAP through cmocka (CMOCKA_MESSAGE_OUTPUT=TAP). Usage: test_axi_slaves [--seed N] (default
 * $GR_TEST_SEED, else 1); the seed drives the models' stalls and latencies and the data.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuref/gr_dma.h"
#include "gpuref/gr_regdesc.h"
#include "gpuref/gr_regmap.h"
#include "gr_sim.h"

#define K4 UINT64_C(0x1000)
#define RING_LOG2 4u
#define RING_ENTRIES (1u << RING_LOG2)
#define QUIET_TIMEOUT 300000u /* cycles to wait for the engine to finish random traffic */
#define BIG_BYTES (4u << 20)  /* the throughput copy */

static uint64_t g_seed = 1;

typedef struct fixture {
    gr_sim_t *sim;
    gr_sim_axi_order_t order;
    uint8_t *ring;
    uint64_t ring_bus;
    uint8_t *fence;
    uint64_t fence_bus;
    uint32_t tail;
    uint64_t rng;
} fixture_t;

static uint64_t rnd(fixture_t *f)
{
    uint64_t z = (f->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void fill_random(fixture_t *f, void *p, size_t n)
{
    uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)rnd(f);
}

static uint32_t rd(fixture_t *f, uint32_t off)
{
    uint32_t v = 0;
    int rc = gr_sim_mmio_read(f->sim, off, &v);
    if (rc)
        fail_msg("read of 0x%03x failed: %d (axi=%s, seed=%" PRIu64 ")", off, rc,
                 gr_sim_axi_order_name(f->order), g_seed);
    return v;
}

static void wr(fixture_t *f, uint32_t off, uint32_t v)
{
    int rc = gr_sim_mmio_write(f->sim, off, v);
    if (rc)
        fail_msg("write of 0x%03x failed: %d (axi=%s, seed=%" PRIu64 ")", off, rc,
                 gr_sim_axi_order_name(f->order), g_seed);
}

static void *host_alloc(fixture_t *f, size_t bytes, uint64_t *bus)
{
    void *cpu = NULL;
    assert_int_equal(gr_sim_dma_alloc(f->sim, bytes, &cpu, bus), GR_OK);
    return cpu;
}

static fixture_t *make_fixture(gr_sim_axi_order_t order, bool quiet, unsigned stall_run)
{
    fixture_t *f = calloc(1, sizeof *f);
    assert_non_null(f);
    gr_sim_config_t cfg = {0};
    cfg.seed = g_seed;
    cfg.no_random = quiet;
    cfg.axi_order = order;
    cfg.stall_run = stall_run;
    assert_int_equal(gr_sim_create(&cfg, &f->sim), GR_OK);
    f->order = order;
    f->rng = g_seed * 0x2545f4914f6cdd1dull + (uint64_t)order * 131u + stall_run;
    f->ring = host_alloc(f, K4, &f->ring_bus);
    f->fence = host_alloc(f, K4, &f->fence_bus);
    wr(f, GR_REG_DMA_RING_BASE_LO, (uint32_t)f->ring_bus);
    wr(f, GR_REG_DMA_RING_BASE_HI, (uint32_t)(f->ring_bus >> 32));
    wr(f, GR_REG_DMA_RING_SIZE, RING_LOG2);
    wr(f, GR_REG_DMA_FENCE_ADDR_LO, (uint32_t)f->fence_bus);
    wr(f, GR_REG_DMA_FENCE_ADDR_HI, (uint32_t)(f->fence_bus >> 32));
    wr(f, GR_REG_DMA_CTRL, GPU_REGS__DMA_CTRL__ENABLE_bm);
    return f;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    gr_sim_destroy(f->sim);
    free(f);
    return 0;
}

static void submit(fixture_t *f, uint64_t buf, uint32_t bytes, uint32_t fence_id)
{
    uint32_t idx = f->tail % RING_ENTRIES;
    gr_dma_ring_entry(f->ring + idx * GR_DMA_RING_ENTRY_BYTES, buf, bytes, fence_id, 0, 0, 0);
    gr_dma_ring_entry_set_priv(f->ring + idx * GR_DMA_RING_ENTRY_BYTES); /* the kernel's own packet: physical addresses */
    f->tail = (f->tail + 1) % RING_ENTRIES;
    wr(f, GR_REG_DMA_RING_TAIL, f->tail);
}

/* Runs until the engine is idle with HEAD == TAIL; fails (naming the order) on a hang. */
static void run_until_quiet(fixture_t *f, uint64_t max_cycles)
{
    uint32_t st = 0;
    for (uint64_t n = 0; n < max_cycles / 500; n++) {
        gr_sim_run(f->sim, 500);
        st = rd(f, GR_REG_DMA_STATUS);
        if (st & (GPU_REGS__DMA_STATUS__HUNG_bm | GPU_REGS__DMA_STATUS__FAULTED_bm))
            fail_msg("the engine stopped: DMA_STATUS 0x%08x, FAULT_STATUS 0x%08x (axi=%s, seed=%" PRIu64 ")",
                     st, rd(f, GR_REG_DMA_FAULT_STATUS), gr_sim_axi_order_name(f->order), g_seed);
        if ((st & GPU_REGS__DMA_STATUS__IDLE_bm) && rd(f, GR_REG_DMA_RING_HEAD) == f->tail)
            return;
    }
    fail_msg("the engine did not finish in %" PRIu64 " cycles: DMA_STATUS 0x%08x, HEAD %u, TAIL %u "
             "(axi=%s, seed=%" PRIu64 "): a write master waiting for AWREADY before WVALID hangs so",
             max_cycles, st, rd(f, GR_REG_DMA_RING_HEAD), f->tail, gr_sim_axi_order_name(f->order), g_seed);
}

static void check_vram(fixture_t *f, uint64_t addr, const uint8_t *want, size_t n, const char *what)
{
    uint8_t *got = malloc(n);
    assert_non_null(got);
    assert_int_equal(gr_sim_vram_read(f->sim, addr, got, n), GR_OK);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s: VRAM byte 0x%" PRIx64 " is 0x%02x, want 0x%02x (axi=%s, seed=%" PRIu64 ")", what,
                     addr + i, got[i], want[i], gr_sim_axi_order_name(f->order), g_seed);
    free(got);
}

static void check_host(fixture_t *f, const uint8_t *got, const uint8_t *want, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s: host byte %zu is 0x%02x, want 0x%02x (axi=%s, seed=%" PRIu64 ")", what, i, got[i],
                     want[i], gr_sim_axi_order_name(f->order), g_seed);
}

static void put_pattern(uint8_t *dst, size_t n, uint32_t pattern)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (uint8_t)(pattern >> (8 * (i % 4)));
}

/* ---- real traffic ------------------------------------------------------------------------------ */

enum {
    V_SRC = 0x00100000,   /* VRAM source, 16 KiB */
    V_DST = 0x00200000,   /* VRAM->VRAM destination */
    V_FROM_HOST = 0x00300000,
    V_FILL = 0x00400000,
    V_FENCE = 0x00500000,
    V_AP = 0x00600000,    /* written through BAR1 while the engine runs */
    AP_BYTES = 0x1800,
};

static void traffic(fixture_t *f)
{
    static uint8_t src[0x4000], hsrc_want[0x2000], want[0x4000];
    uint64_t cmd_bus, cmd2_bus, hsrc_bus, hdst_bus, hfill_bus;
    uint8_t *cmd = host_alloc(f, K4, &cmd_bus);
    uint8_t *cmd2 = host_alloc(f, K4, &cmd2_bus);
    uint8_t *hsrc = host_alloc(f, 0x2000, &hsrc_bus);
    uint8_t *hdst = host_alloc(f, 0x4000, &hdst_bus);
    uint8_t *hfill = host_alloc(f, K4, &hfill_bus);

    fill_random(f, src, sizeof src);
    fill_random(f, hsrc, 0x2000);
    memcpy(hsrc_want, hsrc, sizeof hsrc_want);
    assert_int_equal(gr_sim_vram_write(f->sim, V_SRC, src, sizeof src), GR_OK);
    const uint32_t pat_v = (uint32_t)rnd(f), pat_h = (uint32_t)rnd(f);
    const uint64_t fence_v = rnd(f), fence_h = rnd(f);

    /* Entry 1: VRAM->VRAM (unaligned to bursts), FILLs on both ports, VRAM<->host copies. */
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, cmd, K4);
    gr_dma_copy(&w, GR_DMA_SPACE_VRAM, V_SRC + 0x18, GR_DMA_SPACE_VRAM, V_DST + 0x48, 0x3f00);
    gr_dma_fill(&w, GR_DMA_SPACE_VRAM, V_FILL + 0x38, 0x1f08, pat_v);
    gr_dma_fill(&w, GR_DMA_SPACE_HOST, hfill_bus + 0x10, 0xfe0, pat_h);
    gr_dma_copy(&w, GR_DMA_SPACE_HOST, hsrc_bus + 0x28, GR_DMA_SPACE_VRAM, V_FROM_HOST + 0xff0, 0x1fd0);
    gr_dma_copy(&w, GR_DMA_SPACE_VRAM, V_SRC, GR_DMA_SPACE_HOST, hdst_bus + 0x40, 0x3fc0);
    submit(f, cmd_bus, (uint32_t)w.used, 0x100 + f->order);
    /* Entry 2: FENCEs on both ports (each after every earlier write's response). */
    gr_dma_writer_init(&w, cmd2, K4);
    gr_dma_fence(&w, GR_DMA_SPACE_VRAM, V_FENCE + 8, fence_v, 0);
    gr_dma_fence(&w, GR_DMA_SPACE_HOST, hfill_bus + 0xff8, fence_h, 0);
    submit(f, cmd2_bus, (uint32_t)w.used, 0x200 + f->order);

    /* BAR1 writes into VRAM while the engine's writes contend for the arbiter: bursts of up to
     * 16 beats, W before or after AW as the CPU master's random gaps fall. */
    static uint8_t ap[AP_BYTES], ap_back[AP_BYTES];
    fill_random(f, ap, sizeof ap);
    int rc = gr_sim_ap_write(f->sim, V_AP + 0x8, ap, sizeof ap);
    if (rc)
        fail_msg("BAR1 write failed: %d (axi=%s, seed=%" PRIu64 ")", rc, gr_sim_axi_order_name(f->order), g_seed);

    run_until_quiet(f, QUIET_TIMEOUT);

    /* Every byte. */
    check_vram(f, V_DST + 0x48, src + 0x18, 0x3f00, "COPY VRAM->VRAM");
    put_pattern(want, 0x1f08, pat_v);
    check_vram(f, V_FILL + 0x38, want, 0x1f08, "FILL VRAM");
    check_vram(f, V_FROM_HOST + 0xff0, hsrc_want + 0x28, 0x1fd0, "COPY host->VRAM");
    check_host(f, hdst + 0x40, src, 0x3fc0, "COPY VRAM->host");
    put_pattern(want, 0xfe0, pat_h);
    check_host(f, hfill + 0x10, want, 0xfe0, "FILL host");
    uint8_t q[8];
    gr_dma_put64(q, fence_v);
    check_vram(f, V_FENCE + 8, q, 8, "FENCE VRAM");
    assert_int_equal(gr_dma_get64(hfill + 0xff8), fence_h);
    assert_int_equal(gr_dma_get64(f->fence), 0x200 + f->order);
    assert_int_equal(rd(f, GR_REG_DMA_COMPLETED_FENCE), 0x200 + f->order);
    check_vram(f, V_AP + 0x8, ap, sizeof ap, "BAR1 write");
    rc = gr_sim_ap_read(f->sim, V_AP + 0x8, ap_back, sizeof ap_back);
    assert_int_equal(rc, GR_OK);
    assert_memory_equal(ap_back, ap, sizeof ap);
    /* Neighbours untouched: a qword before and after each VRAM destination. */
    uint8_t zero[8] = {0};
    check_vram(f, V_DST + 0x40, zero, 8, "before COPY VRAM->VRAM");
    check_vram(f, V_DST + 0x48 + 0x3f00, zero, 8, "after COPY VRAM->VRAM");
    check_vram(f, V_AP, zero, 8, "before the BAR1 write");
    check_vram(f, V_AP + 0x8 + AP_BYTES, zero, 8, "after the BAR1 write");
    if (gr_sim_violations(f->sim))
        fail_msg("%" PRIu64 " AXI violations (stderr names the first; axi=%s, seed=%" PRIu64 ")",
                 gr_sim_violations(f->sim), gr_sim_axi_order_name(f->order), g_seed);
}

/* One test per order and stall length: short (1 cycle) and long (up to 64 cycles) READY stalls. */
#define TRAFFIC_TEST(name, order, run)                                                                    \
    static int setup_##name(void **state)                                                                  \
    {                                                                                                      \
        *state = make_fixture(order, false, run);                                                          \
        return 0;                                                                                          \
    }                                                                                                      \
    static void name(void **state) { traffic(*state); }

TRAFFIC_TEST(traffic_completes_against_memories_taking_aw_and_w_in_any_order, GR_SIM_AXI_ANY, 1)
TRAFFIC_TEST(traffic_completes_against_memories_holding_awready_until_wvalid, GR_SIM_AXI_AWAITW, 1)
TRAFFIC_TEST(traffic_completes_against_memories_holding_awready_until_wlast, GR_SIM_AXI_AWAITWLAST, 1)
TRAFFIC_TEST(traffic_completes_against_memories_holding_wready_until_aw, GR_SIM_AXI_WAWAITAW, 1)
TRAFFIC_TEST(traffic_completes_against_awaitw_memories_with_long_ready_stalls, GR_SIM_AXI_AWAITW, 64)
TRAFFIC_TEST(traffic_completes_against_awaitwlast_memories_with_long_ready_stalls, GR_SIM_AXI_AWAITWLAST, 64)
TRAFFIC_TEST(traffic_completes_against_wawaitaw_memories_with_long_ready_stalls, GR_SIM_AXI_WAWAITAW, 64)

/* ---- throughput ---------------------------------------------------------------------------------- */

static void big_copy(fixture_t *f)
{
    uint64_t cmd_bus;
    uint8_t *cmd = host_alloc(f, K4, &cmd_bus);
    uint8_t *src = malloc(BIG_BYTES);
    assert_non_null(src);
    fill_random(f, src, BIG_BYTES);
    assert_int_equal(gr_sim_vram_write(f->sim, 0x01000000, src, BIG_BYTES), GR_OK);
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, cmd, K4);
    gr_dma_copy(&w, GR_DMA_SPACE_VRAM, 0x01000000, GR_DMA_SPACE_VRAM, 0x02000000, BIG_BYTES);
    submit(f, cmd_bus, (uint32_t)w.used, 7);
    run_until_quiet(f, BIG_BYTES / 8 + 20000);
    check_vram(f, 0x02000000, src, BIG_BYTES, "4 MiB COPY VRAM->VRAM");
    free(src);
    const uint32_t cycles = rd(f, GR_REG_DMA_PERF_LAST_CMD);
    const uint32_t stalls = rd(f, GR_REG_DMA_PERF_STALLS);
    printf("# 4 MiB VRAM->VRAM copy, quiet models, axi=%s: %u cycles from fetch to completion "
           "(%u beats), %u stall cycles\n",
           gr_sim_axi_order_name(f->order), cycles, BIG_BYTES / 8, stalls);
    /* One beat per cycle from the first W beat to the last, whatever the order; the rest is the
     * command's fetch, the first read burst and the last write response. */
    assert_int_equal(stalls, 0);
    assert_true(cycles <= BIG_BYTES / 8 + 64);
}

#define BIG_TEST(name, order)                                                                            \
    static int setup_##name(void **state)                                                                  \
    {                                                                                                      \
        *state = make_fixture(order, true, 1);                                                             \
        return 0;                                                                                          \
    }                                                                                                      \
    static void name(void **state) { big_copy(*state); }

BIG_TEST(a_4mib_vram_copy_streams_against_memories_taking_aw_and_w_in_any_order, GR_SIM_AXI_ANY)
BIG_TEST(a_4mib_vram_copy_streams_against_memories_holding_awready_until_wvalid, GR_SIM_AXI_AWAITW)
BIG_TEST(a_4mib_vram_copy_streams_against_memories_holding_awready_until_wlast, GR_SIM_AXI_AWAITWLAST)
BIG_TEST(a_4mib_vram_copy_streams_against_memories_holding_wready_until_aw, GR_SIM_AXI_WAWAITAW)

/* ---- the knobs themselves ------------------------------------------------------------------------ */

static void the_write_order_names_round_trip_and_bad_ones_are_refused(void **state)
{
    (void)state;
    for (int o = GR_SIM_AXI_ANY; o <= GR_SIM_AXI_WAWAITAW; o++) {
        gr_sim_axi_order_t back = GR_SIM_AXI_DEFAULT;
        const char *name = gr_sim_axi_order_name((gr_sim_axi_order_t)o);
        assert_non_null(name);
        assert_int_equal(gr_sim_axi_order_parse(name, &back), GR_OK);
        assert_int_equal(back, o);
    }
    gr_sim_axi_order_t keep = GR_SIM_AXI_AWAITW;
    assert_int_equal(gr_sim_axi_order_parse("awaitW", &keep), GR_E_INVALID);
    assert_int_equal(keep, GR_SIM_AXI_AWAITW);
    assert_null(gr_sim_axi_order_name(GR_SIM_AXI_DEFAULT));
    gr_sim_t *sim = NULL;
    gr_sim_config_t cfg = {0};
    cfg.axi_order = (gr_sim_axi_order_t)99;
    assert_int_equal(gr_sim_create(&cfg, &sim), GR_E_INVALID);
    cfg.axi_order = GR_SIM_AXI_ANY;
    cfg.stall_run = 1001;
    assert_int_equal(gr_sim_create(&cfg, &sim), GR_E_INVALID);
    assert_null(sim);
}

int main(int argc, char **argv)
{
    const char *env = getenv("GR_TEST_SEED");
    if (env && *env)
        g_seed = strtoull(env, NULL, 0);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            g_seed = strtoull(argv[++i], NULL, 0);
        } else {
            fprintf(stderr, "usage: %s [--seed N]\n", argv[0]);
            return 2;
        }
    }
    if (!g_seed)
        g_seed = 1;
    printf("# seed=%" PRIu64 " (rerun with --seed %" PRIu64 ")\n", g_seed, g_seed);
#define T(name) cmocka_unit_test_setup_teardown(name, setup_##name, teardown)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_write_order_names_round_trip_and_bad_ones_are_refused),
        T(traffic_completes_against_memories_taking_aw_and_w_in_any_order),
        T(traffic_completes_against_memories_holding_awready_until_wvalid),
        T(traffic_completes_against_memories_holding_awready_until_wlast),
        T(traffic_completes_against_memories_holding_wready_until_aw),
        T(traffic_completes_against_awaitw_memories_with_long_ready_stalls),
        T(traffic_completes_against_awaitwlast_memories_with_long_ready_stalls),
        T(traffic_completes_against_wawaitaw_memories_with_long_ready_stalls),
        T(a_4mib_vram_copy_streams_against_memories_taking_aw_and_w_in_any_order),
        T(a_4mib_vram_copy_streams_against_memories_holding_awready_until_wvalid),
        T(a_4mib_vram_copy_streams_against_memories_holding_awready_until_wlast),
        T(a_4mib_vram_copy_streams_against_memories_holding_wready_until_aw),
    };
#undef T
    int failed = cmocka_run_group_tests_name("axi_slaves", tests, NULL, NULL);
    if (failed)
        printf("# %d failed; seed=%" PRIu64 "\n", failed, g_seed);
    return failed ? 1 : 0;
}
