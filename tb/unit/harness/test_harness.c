/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_harness.c: tests of the gr_sim C API against the real, Verilated gpu_core.
 * TAP through cmocka (run with CMOCKA_MESSAGE_OUTPUT=TAP). Options:
 *   --seed N      base seed (decimal or 0x hex; default $GR_TEST_SEED, else $GR_SIM_SEED, else 1);
 *                 every sim here derives from it
 *   --outdir DIR  where waveforms and logs go (default: a fresh directory under /tmp)
 * The GR_SIM_* environment variables are cleared once the seed is read: the tests set what they
 * need.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

/* The FST reader that ships with Verilator; libgr_sim.a holds it (Verilator's FST writer
 * compiles it in), so the test can open the waveform it asked for. */
#include "gtkwave/fstapi.h"

#include "gpuref/gr_regmap.h"
#include "gr_sim.h"

#define ID_MAGIC_VALUE 0x47505552u /* "GPUR" */

static uint64_t g_seed = 1;
static char g_outdir[4096];

static const char *status_name(int status)
{
    switch (status) {
#define GR_TEST_CASE(name, value, msg) \
    case value: return #name;
        GR_STATUS_LIST(GR_TEST_CASE)
#undef GR_TEST_CASE
    default: return "GR_E_UNKNOWN";
    }
}

#define assert_status(expr, want)                                                                          \
    do {                                                                                                   \
        int rc_ = (expr);                                                                                  \
        if (rc_ != (want))                                                                                 \
            fail_msg("%s: got %s, want %s (seed=%" PRIu64 ")", #expr, status_name(rc_), status_name(want), \
                     g_seed);                                                                              \
    } while (0)

/* splitmix64, for test data only (the harness has its own generator). */
static uint64_t test_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void out_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", g_outdir, name);
}

static gr_sim_t *sim_with(const gr_sim_config_t *cfg)
{
    gr_sim_t *sim = NULL;
    assert_status(gr_sim_create(cfg, &sim), GR_OK);
    assert_non_null(sim);
    return sim;
}

static gr_sim_t *sim_seeded(uint64_t seed)
{
    gr_sim_config_t cfg = {0};
    cfg.seed = seed;
    return sim_with(&cfg);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* The whole file as a string (caller frees). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static unsigned count_substr(const char *hay, const char *needle)
{
    unsigned n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        ++n;
    return n;
}

/* ---- create / destroy -------------------------------------------------------------------- */

static void test_create_resets_for_8_cycles_and_reports_seed(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_seeded(g_seed);
    assert_int_equal(gr_sim_seed(sim), g_seed);
    assert_int_equal(gr_sim_cycle(sim), 8);
    assert_false(gr_sim_irq(sim));
    gr_sim_destroy(sim);
    gr_sim_destroy(NULL); /* allowed */
}

static void test_create_with_null_config_uses_defaults(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_with(NULL);
    assert_int_equal(gr_sim_seed(sim), 1);
    assert_status(gr_sim_trace(sim, true), GR_E_UNSUPPORTED); /* no waveform by default */
    gr_sim_destroy(sim);
}

static void test_create_rejects_bad_config_and_leaves_output_untouched(void **state)
{
    (void)state;
    gr_sim_t *const sentinel = (gr_sim_t *)(uintptr_t)0x1234;
    gr_sim_t *sim = sentinel;
    gr_sim_config_t cfg = {0};
    cfg.seed = g_seed;

    assert_status(gr_sim_create(&cfg, NULL), GR_E_INVALID);
    cfg.stall_pct = 91;
    assert_status(gr_sim_create(&cfg, &sim), GR_E_INVALID);
    cfg.stall_pct = 0;
    cfg.max_latency = 1001;
    assert_status(gr_sim_create(&cfg, &sim), GR_E_INVALID);
    cfg.max_latency = 0;
    cfg.vram_bytes = 4097; /* not whole pages */
    assert_status(gr_sim_create(&cfg, &sim), GR_E_INVALID);
    cfg.vram_bytes = 8ull << 30; /* past the 32-bit VRAM address space */
    assert_status(gr_sim_create(&cfg, &sim), GR_E_INVALID);
    cfg.vram_bytes = 0;
    cfg.fst_path = "/nonexistent-gpuref-dir/x.fst";
    assert_status(gr_sim_create(&cfg, &sim), GR_E_IO);
    cfg.fst_path = NULL;
    cfg.axilog_path = "/nonexistent-gpuref-dir/x.log";
    assert_status(gr_sim_create(&cfg, &sim), GR_E_IO);
    cfg.axilog_path = NULL;
    setenv("GR_SIM_REORDER", "yes", 1);
    assert_status(gr_sim_create(&cfg, &sim), GR_E_INVALID);
    unsetenv("GR_SIM_REORDER");
    setenv("GR_SIM_AXI", "awaitv", 1);
    assert_status(gr_sim_create(&cfg, &sim), GR_E_INVALID);
    unsetenv("GR_SIM_AXI");
    setenv("GR_SIM_STALL_RUN", "1001", 1);
    assert_status(gr_sim_create(&cfg, &sim), GR_E_INVALID);
    unsetenv("GR_SIM_STALL_RUN");
    cfg.axi_order = (gr_sim_axi_order_t)(GR_SIM_AXI_WAWAITAW + 1);
    assert_status(gr_sim_create(&cfg, &sim), GR_E_INVALID);
    cfg.axi_order = GR_SIM_AXI_DEFAULT;
    cfg.stall_run = 1001;
    assert_status(gr_sim_create(&cfg, &sim), GR_E_INVALID);
    cfg.stall_run = 0;
    assert_ptr_equal(sim, sentinel);
}

static void test_seed_comes_from_config_then_env_then_1(void **state)
{
    (void)state;
    gr_sim_t *sim;

    setenv("GR_SIM_SEED", "0x1234", 1);
    sim = sim_with(NULL);
    assert_int_equal(gr_sim_seed(sim), 0x1234);
    gr_sim_destroy(sim);

    setenv("GR_SIM_SEED", "987654321", 1);
    sim = sim_with(NULL);
    assert_int_equal(gr_sim_seed(sim), 987654321);
    gr_sim_destroy(sim);

    sim = sim_seeded(77); /* the config wins over the environment */
    assert_int_equal(gr_sim_seed(sim), 77);
    gr_sim_destroy(sim);

    setenv("GR_SIM_SEED", "12abc", 1);
    sim = NULL;
    assert_status(gr_sim_create(NULL, &sim), GR_E_INVALID);
    assert_null(sim);

    unsetenv("GR_SIM_SEED");
    sim = sim_with(NULL);
    assert_int_equal(gr_sim_seed(sim), 1);
    gr_sim_destroy(sim);
}

static void test_two_instances_are_independent(void **state)
{
    (void)state;
    gr_sim_t *a = sim_seeded(g_seed);
    gr_sim_t *b = sim_seeded(g_seed + 1);
    uint32_t v = 0;

    assert_status(gr_sim_mmio_write(a, GR_REG_SCRATCH, 0xaaaa0001u), GR_OK);
    assert_status(gr_sim_mmio_write(b, GR_REG_SCRATCH, 0xbbbb0002u), GR_OK);
    assert_status(gr_sim_mmio_read(a, GR_REG_SCRATCH, &v), GR_OK);
    assert_int_equal(v, 0xaaaa0001u);
    assert_status(gr_sim_mmio_read(b, GR_REG_SCRATCH, &v), GR_OK);
    assert_int_equal(v, 0xbbbb0002u);

    const uint64_t b_cycle = gr_sim_cycle(b);
    gr_sim_run(a, 500);
    assert_int_equal(gr_sim_cycle(b), b_cycle);

    /* an interrupt in one is not seen in the other */
    assert_status(gr_sim_mmio_write(a, GR_REG_IRQ_ENABLE, 1), GR_OK);
    assert_status(gr_sim_mmio_write(a, GR_REG_IRQ_TEST, 1), GR_OK);
    gr_sim_run(a, 4);
    assert_true(gr_sim_irq(a));
    assert_false(gr_sim_irq(b));

    gr_sim_destroy(a);
    assert_status(gr_sim_mmio_read(b, GR_REG_ID_MAGIC, &v), GR_OK);
    assert_int_equal(v, ID_MAGIC_VALUE);
    gr_sim_destroy(b);
}

/* ---- CSR port ------------------------------------------------------------------------------ */

static void test_id_magic_reads_gpur_under_random_stalls_for_several_seeds(void **state)
{
    (void)state;
    static const unsigned stalls[] = {1, 25, 50, 90};
    for (unsigned i = 0; i < 8; ++i) {
        gr_sim_config_t cfg = {0};
        cfg.seed = g_seed + i;
        cfg.stall_pct = stalls[i % 4];
        cfg.max_latency = 1 + 7 * i;
        gr_sim_t *sim = sim_with(&cfg);
        for (unsigned n = 0; n < 20; ++n) {
            uint32_t v = 0;
            assert_status(gr_sim_mmio_read(sim, GR_REG_ID_MAGIC, &v), GR_OK);
            assert_int_equal(v, ID_MAGIC_VALUE);
            assert_status(gr_sim_mmio_read(sim, GR_REG_ID_REGMAP, &v), GR_OK);
            assert_int_equal(v, GR_REGMAP_HASH);
        }
        gr_sim_destroy(sim);
    }
}

static void test_scratch_write_read_round_trip(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_seeded(g_seed);
    uint64_t rs = g_seed;
    uint32_t v = 1;
    assert_status(gr_sim_mmio_read(sim, GR_REG_SCRATCH, &v), GR_OK);
    assert_int_equal(v, 0); /* reset value */
    for (unsigned i = 0; i < 50; ++i) {
        const uint32_t x = (uint32_t)test_rand(&rs);
        assert_status(gr_sim_mmio_write(sim, GR_REG_SCRATCH, x), GR_OK);
        assert_status(gr_sim_mmio_read(sim, GR_REG_SCRATCH, &v), GR_OK);
        assert_int_equal(v, x);
    }
    gr_sim_destroy(sim);
}

static void test_unmapped_offset_0x100_answers_bus_error(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_seeded(g_seed);
    uint32_t v = 0xdeadbeefu;
    assert_status(gr_sim_mmio_read(sim, 0x100, &v), GR_E_BUS);
    assert_int_equal(v, 0xdeadbeefu); /* untouched on failure */
    assert_status(gr_sim_mmio_write(sim, 0x100, 1), GR_E_BUS);
    assert_status(gr_sim_mmio_read(sim, GR_REGMAP_BAR0_BYTES - 4, &v), GR_E_BUS);
    /* the port still works afterwards */
    assert_status(gr_sim_mmio_read(sim, GR_REG_ID_MAGIC, &v), GR_OK);
    assert_int_equal(v, ID_MAGIC_VALUE);
    gr_sim_destroy(sim);
}

static void test_misaligned_offset_answers_align_without_bus_cycles(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_seeded(g_seed);
    uint32_t v = 0x5a5a5a5au;
    const uint64_t c = gr_sim_cycle(sim);
    assert_status(gr_sim_mmio_read(sim, GR_REG_ID_MAGIC + 2, &v), GR_E_ALIGN);
    assert_status(gr_sim_mmio_write(sim, GR_REG_SCRATCH + 1, 1), GR_E_ALIGN);
    assert_status(gr_sim_mmio_write_strb(sim, GR_REG_SCRATCH + 3, 1, 0xf), GR_E_ALIGN);
    assert_int_equal(v, 0x5a5a5a5au);
    assert_int_equal(gr_sim_cycle(sim), c);
    gr_sim_destroy(sim);
}

static void test_offset_0x10000_and_past_answers_range_without_bus_cycles(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_seeded(g_seed);
    uint32_t v = 0x5a5a5a5au;
    const uint64_t c = gr_sim_cycle(sim);
    assert_status(gr_sim_mmio_read(sim, 0x10000, &v), GR_E_RANGE);
    assert_status(gr_sim_mmio_write(sim, 0x10000, 1), GR_E_RANGE);
    assert_status(gr_sim_mmio_read(sim, 0x10020, &v), GR_E_RANGE); /* would alias SCRATCH */
    assert_status(gr_sim_mmio_read(sim, 0xfffffffcu, &v), GR_E_RANGE);
    assert_int_equal(v, 0x5a5a5a5au);
    assert_int_equal(gr_sim_cycle(sim), c);
    gr_sim_destroy(sim);
}

static void test_partial_strobe_write_answers_bus_error_and_keeps_scratch(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_seeded(g_seed);
    uint32_t v = 0;
    assert_status(gr_sim_mmio_write(sim, GR_REG_SCRATCH, 0x11223344u), GR_OK);
    static const uint8_t strbs[] = {0x1, 0x3, 0x7, 0xe, 0x8, 0x0};
    for (unsigned i = 0; i < sizeof strbs; ++i) {
        assert_status(gr_sim_mmio_write_strb(sim, GR_REG_SCRATCH, 0xaabbccddu, strbs[i]), GR_E_BUS);
        assert_status(gr_sim_mmio_read(sim, GR_REG_SCRATCH, &v), GR_OK);
        assert_int_equal(v, 0x11223344u);
    }
    assert_status(gr_sim_mmio_write_strb(sim, GR_REG_SCRATCH, 0xaabbccddu, 0x10), GR_E_INVALID);
    assert_status(gr_sim_mmio_write_strb(sim, GR_REG_SCRATCH, 0xaabbccddu, 0xf), GR_OK);
    assert_status(gr_sim_mmio_read(sim, GR_REG_SCRATCH, &v), GR_OK);
    assert_int_equal(v, 0xaabbccddu);
    gr_sim_destroy(sim);
}

static void test_soft_reset_clears_scratch_and_sets_reset_done(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_seeded(g_seed);
    uint32_t v = 0;
    assert_status(gr_sim_mmio_write(sim, GR_REG_SCRATCH, 0x12345678u), GR_OK);
    assert_status(gr_sim_mmio_write(sim, GR_REG_RESET_CTRL, 1), GR_OK);
    gr_sim_run(sim, 10);
    assert_status(gr_sim_mmio_read(sim, GR_REG_SCRATCH, &v), GR_OK);
    assert_int_equal(v, 0);
    assert_status(gr_sim_mmio_read(sim, GR_REG_IRQ_STATE, &v), GR_OK);
    assert_int_equal(v, 1);
    gr_sim_destroy(sim);
}

/* ---- interrupts ---------------------------------------------------------------------------- */

static void test_irq_test_raises_irq_and_w1c_of_irq_state_drops_it(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_seeded(g_seed);
    bool raised = true;
    uint32_t v = 0;

    assert_status(gr_sim_wait_irq(sim, 50, &raised), GR_OK);
    assert_false(raised);

    assert_status(gr_sim_mmio_write(sim, GR_REG_IRQ_ENABLE, 1), GR_OK);
    assert_status(gr_sim_mmio_write(sim, GR_REG_IRQ_TEST, 1), GR_OK);
    assert_status(gr_sim_wait_irq(sim, 100, &raised), GR_OK);
    assert_true(raised);
    assert_true(gr_sim_irq(sim));
    assert_status(gr_sim_mmio_read(sim, GR_REG_IRQ_STATE, &v), GR_OK);
    assert_int_equal(v, 1);
    /* a level: it stays up */
    gr_sim_run(sim, 100);
    assert_true(gr_sim_irq(sim));

    assert_status(gr_sim_mmio_write(sim, GR_REG_IRQ_STATE, 1), GR_OK); /* W1C */
    gr_sim_run(sim, 2);
    assert_false(gr_sim_irq(sim));
    assert_status(gr_sim_mmio_read(sim, GR_REG_IRQ_STATE, &v), GR_OK);
    assert_int_equal(v, 0);
    gr_sim_destroy(sim);
}

static void test_irq_stays_low_while_disabled(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_seeded(g_seed);
    bool raised = true;
    uint32_t v = 0;
    assert_status(gr_sim_mmio_write(sim, GR_REG_IRQ_TEST, 1), GR_OK);
    assert_status(gr_sim_wait_irq(sim, 100, &raised), GR_OK);
    assert_false(raised);
    assert_status(gr_sim_mmio_read(sim, GR_REG_IRQ_STATE, &v), GR_OK);
    assert_int_equal(v, 1); /* pending, only masked */
    assert_status(gr_sim_mmio_write(sim, GR_REG_IRQ_ENABLE, 1), GR_OK);
    assert_status(gr_sim_wait_irq(sim, 100, &raised), GR_OK);
    assert_true(raised);
    gr_sim_destroy(sim);
}

static void test_wait_irq_without_irq_runs_exactly_max_cycles(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_seeded(g_seed);
    bool raised = true;
    const uint64_t c = gr_sim_cycle(sim);
    assert_status(gr_sim_wait_irq(sim, 123, &raised), GR_OK);
    assert_false(raised);
    assert_int_equal(gr_sim_cycle(sim), c + 123);
    gr_sim_run(sim, 1000);
    assert_int_equal(gr_sim_cycle(sim), c + 1123);
    gr_sim_destroy(sim);
}

/* ---- waveform and transaction log --------------------------------------------------------- */

static void test_fst_file_is_written_when_configured(void **state)
{
    (void)state;
    char path[4200];
    out_path(path, sizeof path, "waves.fst");
    gr_sim_config_t cfg = {0};
    cfg.seed = g_seed;
    cfg.fst_path = path;
    gr_sim_t *sim = sim_with(&cfg);
    uint32_t v = 0;
    assert_status(gr_sim_mmio_read(sim, GR_REG_ID_MAGIC, &v), GR_OK);
    assert_status(gr_sim_trace(sim, false), GR_OK);
    gr_sim_run(sim, 1000);
    assert_status(gr_sim_trace(sim, true), GR_OK);
    assert_status(gr_sim_mmio_write(sim, GR_REG_SCRATCH, 0xcafef00du), GR_OK);
    const uint64_t cycles = gr_sim_cycle(sim);
    gr_sim_destroy(sim);
    assert_true(file_size(path) > 100);

    /* A readable FST: picoseconds, every port of gpu_core, from time 0 to the last clock
     * edge (10 ns cycles, the rising edge 5 ns into each). */
    void *fst = fstReaderOpen(path);
    assert_non_null(fst);
    assert_int_equal(fstReaderGetTimescale(fst), -12);
    assert_int_equal(fstReaderGetStartTime(fst), 0);
    assert_int_equal(fstReaderGetEndTime(fst), cycles * 10000 - 5000);
    assert_true(fstReaderGetVarCount(fst) > 150);
    fstReaderClose(fst);
}

static void test_fst_path_from_env_and_empty_path_means_none(void **state)
{
    (void)state;
    char path[4200];
    out_path(path, sizeof path, "env.fst");
    setenv("GR_SIM_FST", path, 1);
    gr_sim_config_t cfg = {0};
    cfg.seed = g_seed;
    gr_sim_t *sim = sim_with(&cfg);
    assert_status(gr_sim_trace(sim, true), GR_OK);
    gr_sim_run(sim, 20);
    gr_sim_destroy(sim);
    assert_true(file_size(path) > 0);

    cfg.fst_path = ""; /* overrides the environment: no waveform */
    sim = sim_with(&cfg);
    assert_status(gr_sim_trace(sim, true), GR_E_UNSUPPORTED);
    gr_sim_destroy(sim);
    unsetenv("GR_SIM_FST");
}

static void test_trace_without_fst_path_is_unsupported(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_seeded(g_seed);
    assert_status(gr_sim_trace(sim, true), GR_E_UNSUPPORTED);
    assert_status(gr_sim_trace(sim, false), GR_E_UNSUPPORTED);
    assert_status(gr_sim_trace(NULL, true), GR_E_INVALID);
    gr_sim_destroy(sim);
}

/* ---- waveform windows, VCD, the GTKWave save file ------------------------------------------- */

/* What a VCD holds: its timestamps and its signals' full names ("TOP.gpu_core.u_dma.state_o[3:0]",
 * as GTKWave names them). */
typedef struct vcd_summary {
    uint64_t first, last; /* timestamps, ps */
    unsigned stamps;
    char **names;
    unsigned nnames;
} vcd_summary_t;

static void vcd_read(const char *path, vcd_summary_t *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    char line[512], scope[1024] = "";
    size_t cap = 0;
    bool defs = true;
    while (fgets(line, sizeof line, f)) {
        if (defs) {
            char a[256], b[256], c[256], d[256], e[64];
            if (sscanf(line, "$scope %255s %255s", a, b) == 2) {
                strncat(scope, scope[0] ? "." : "", sizeof scope - strlen(scope) - 1);
                strncat(scope, b, sizeof scope - strlen(scope) - 1);
            } else if (!strncmp(line, "$upscope", 8)) {
                char *dot = strrchr(scope, '.');
                *(dot ? dot : scope) = '\0';
            } else if (sscanf(line, "$var %255s %255s %255s %255s %63s", a, b, c, d, e) == 5) {
                if (out->nnames == cap) {
                    cap = cap ? 2 * cap : 1024;
                    out->names = realloc(out->names, cap * sizeof *out->names);
                    assert_non_null(out->names);
                }
                char *n = malloc(strlen(scope) + strlen(d) + strlen(e) + 2);
                assert_non_null(n);
                sprintf(n, "%s.%s%s", scope, d, strcmp(e, "$end") ? e : "");
                out->names[out->nnames++] = n;
            } else if (!strncmp(line, "$enddefinitions", 15)) {
                defs = false;
            }
        } else if (line[0] == '#') {
            const uint64_t t = strtoull(line + 1, NULL, 10);
            if (!out->stamps++)
                out->first = t;
            out->last = t;
        }
    }
    fclose(f);
}

static bool vcd_has(const vcd_summary_t *v, const char *name)
{
    for (unsigned i = 0; i < v->nnames; i++)
        if (!strcmp(v->names[i], name))
            return true;
    return false;
}

static void vcd_free(vcd_summary_t *v)
{
    for (unsigned i = 0; i < v->nnames; i++)
        free(v->names[i]);
    free(v->names);
}

/* Signals every waveform must carry: a port of each bus, the DMA engine's and the MMU's state. */
static const char *const k_expected_signals[] = {
    "TOP.gpu_core.clk_i",
    "TOP.gpu_core.m_host_awvalid_o",
    "TOP.gpu_core.m_vram_rdata_i[63:0]",
    "TOP.gpu_core.s_csr_araddr_i[15:0]",
    "TOP.gpu_core.u_dma.state_o[3:0]",
    "TOP.gpu_core.u_mc.u_mmu.req_va_i[47:0]",
};

static void test_vcd_window_records_only_its_cycles(void **state)
{
    (void)state;
    char path[4200];
    out_path(path, sizeof path, "window.vcd");
    gr_sim_config_t cfg = {0};
    cfg.seed = g_seed;
    cfg.fst_path = path;
    cfg.trace_from = 100;
    cfg.trace_to = 300;
    gr_sim_t *sim = sim_with(&cfg);
    gr_sim_trace_info_t info;
    assert_status(gr_sim_trace_info(sim, &info), GR_OK);
    assert_true(info.open && info.vcd);
    assert_false(info.recorded); /* reset is cycles 0..7: before the window */
    gr_sim_run(sim, 1000);
    assert_status(gr_sim_trace_info(sim, &info), GR_OK);
    assert_int_equal(info.first_cycle, 100);
    assert_int_equal(info.last_cycle, 300);
    gr_sim_destroy(sim); /* the VCD is written now */

    vcd_summary_t v;
    vcd_read(path, &v);
    /* Cycle c is the falling edge at c * 10 ns and the rising one 5 ns later (ps); the clock
     * changes at each, so every one of the 201 cycles shows twice. */
    assert_int_equal(v.first, 100ull * 10000);
    assert_int_equal(v.last, 300ull * 10000 + 5000);
    assert_int_equal(v.stamps, 2 * 201);
    for (size_t i = 0; i < sizeof k_expected_signals / sizeof *k_expected_signals; i++)
        if (!vcd_has(&v, k_expected_signals[i]))
            fail_msg("%s is not in %s (%u signals)", k_expected_signals[i], path, v.nnames);
    vcd_free(&v);
    /* The recorded FST beside it is gone. */
    char part[4300];
    snprintf(part, sizeof part, "%s.part.fst", path);
    assert_int_equal(file_size(part), -1);
}

/* fstReaderIterateHier's walk: is there a variable of that name (no range) in that scope? */
static bool fst_has(void *fst, const char *scope_path, const char *var)
{
    char scope[1024] = "";
    bool found = false;
    fstReaderIterateHierRewind(fst);
    for (struct fstHier *h; !found && (h = fstReaderIterateHier(fst));) {
        if (h->htyp == FST_HT_SCOPE) {
            strncat(scope, scope[0] ? "." : "", sizeof scope - strlen(scope) - 1);
            strncat(scope, h->u.scope.name, sizeof scope - strlen(scope) - 1);
        } else if (h->htyp == FST_HT_UPSCOPE) {
            char *dot = strrchr(scope, '.');
            *(dot ? dot : scope) = '\0';
        } else if (h->htyp == FST_HT_VAR && !strcmp(scope, scope_path)) {
            found = !strncmp(h->u.var.name, var, strlen(var)) &&
                    (h->u.var.name[strlen(var)] == '\0' || h->u.var.name[strlen(var)] == ' ' ||
                     h->u.var.name[strlen(var)] == '[');
        }
    }
    return found;
}

static void test_fst_window_records_only_its_cycles(void **state)
{
    (void)state;
    char path[4200];
    out_path(path, sizeof path, "window.fst");
    gr_sim_config_t cfg = {0};
    cfg.seed = g_seed;
    cfg.fst_path = path;
    cfg.trace_from = 500;
    cfg.trace_to = 520;
    gr_sim_t *sim = sim_with(&cfg);
    gr_sim_run(sim, 2000);
    gr_sim_destroy(sim);
    assert_true(file_size(path) > 100);
    void *fst = fstReaderOpen(path);
    assert_non_null(fst);
    assert_int_equal(fstReaderGetStartTime(fst), 500ull * 10000);
    assert_int_equal(fstReaderGetEndTime(fst), 520ull * 10000 + 5000);
    assert_true(fst_has(fst, "TOP.gpu_core", "m_host_awvalid_o"));
    assert_true(fst_has(fst, "TOP.gpu_core.u_dma", "state_o"));
    assert_true(fst_has(fst, "TOP.gpu_core.u_mc.u_mmu", "req_va_i"));
    assert_false(fst_has(fst, "TOP.gpu_core.u_dma", "no_such_signal_o"));
    fstReaderClose(fst);
}

static void test_gtkw_next_to_the_trace_names_signals_it_holds(void **state)
{
    (void)state;
    char path[4200], gtkw[4200];
    out_path(path, sizeof path, "named.vcd");
    out_path(gtkw, sizeof gtkw, "named.gtkw");
    gr_sim_config_t cfg = {0};
    cfg.seed = g_seed;
    cfg.fst_path = path;
    cfg.trace_to = 40;
    gr_sim_t *sim = sim_with(&cfg);
    gr_sim_run(sim, 50);
    gr_sim_destroy(sim);
    vcd_summary_t v;
    vcd_read(path, &v);
    char *text = slurp(gtkw);
    char want[4300];
    snprintf(want, sizeof want, "[dumpfile] \"%s\"", path);
    assert_non_null(strstr(text, want));
    /* Groups (GTKWave's GRP_BEGIN comment lines) for the ports, the DMA engine and the MMU. */
    assert_non_null(strstr(text, "@800200\n-DMA engine (u_dma)\n"));
    assert_non_null(strstr(text, "@800200\n-MMU (u_mc.u_mmu)\n"));
    assert_non_null(strstr(text, "@800200\n-m_host: host memory (AXI4 master)\n"));
    assert_non_null(strstr(text, "@800200\n-m_vram: VRAM (AXI4 master)\n"));
    assert_non_null(strstr(text, "@800200\n-s_csr: BAR0 (AXI4-Lite)\n"));
    assert_int_equal(count_substr(text, "@800200"), count_substr(text, "@1000200"));
    unsigned named = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "TOP.", 4))
            continue;
        named++;
        if (!vcd_has(&v, line))
            fail_msg("%s names '%s', which %s does not hold", gtkw, line, path);
    }
    assert_true(named >= 90);
    free(text);
    vcd_free(&v);
}

static void test_trace_started_and_stopped_at_run_time(void **state)
{
    (void)state;
    char path[4200], fst_path[4200];
    out_path(path, sizeof path, "runtime.vcd");
    out_path(fst_path, sizeof fst_path, "runtime2.fst");
    gr_sim_t *sim = sim_seeded(g_seed); /* no waveform at creation */
    gr_sim_trace_info_t info;
    memset(&info, 0x5a, sizeof info);
    assert_status(gr_sim_trace_stop(sim, &info), GR_E_UNSUPPORTED);
    assert_status(gr_sim_trace_info(sim, &info), GR_OK);
    assert_false(info.open);
    gr_sim_run(sim, 42); /* cycle 50 */
    assert_status(gr_sim_trace_start(sim, path, 0, 0), GR_OK);
    assert_status(gr_sim_trace_start(sim, fst_path, 0, 0), GR_E_BUSY);
    assert_non_null(strstr(gr_sim_error(), "runtime.vcd"));
    gr_sim_run(sim, 100);
    assert_status(gr_sim_trace_stop(sim, &info), GR_OK);
    assert_false(info.open);
    assert_true(info.vcd && info.recorded);
    assert_string_equal(info.path, path);
    assert_int_equal(info.first_cycle, 50);
    assert_int_equal(info.last_cycle, 149);
    assert_status(gr_sim_trace_stop(sim, NULL), GR_E_UNSUPPORTED);
    vcd_summary_t v;
    vcd_read(path, &v);
    assert_int_equal(v.first, 50ull * 10000);
    assert_int_equal(v.last, 149ull * 10000 + 5000);
    vcd_free(&v);

    /* A second waveform on the same simulation, an FST with a window inside the run. */
    const uint64_t now = gr_sim_cycle(sim);
    assert_status(gr_sim_trace_start(sim, fst_path, now + 10, now + 19), GR_OK);
    gr_sim_run(sim, 100);
    assert_status(gr_sim_trace_stop(sim, &info), GR_OK);
    assert_false(info.vcd);
    assert_int_equal(info.first_cycle, now + 10);
    assert_int_equal(info.last_cycle, now + 19);
    void *fst = fstReaderOpen(fst_path);
    assert_non_null(fst);
    assert_int_equal(fstReaderGetStartTime(fst), (now + 10) * 10000);
    fstReaderClose(fst);

    /* Bad requests change nothing. */
    assert_status(gr_sim_trace_start(sim, "/nonexistent-gpuref-dir/x.vcd", 0, 0), GR_E_IO);
    assert_non_null(strstr(gr_sim_error(), "cannot open VCD file '/nonexistent-gpuref-dir/x.vcd'"));
    assert_status(gr_sim_trace_start(sim, path, 20, 10), GR_E_INVALID);
    assert_status(gr_sim_trace_start(sim, "", 0, 0), GR_E_INVALID);
    assert_status(gr_sim_trace_start(NULL, path, 0, 0), GR_E_INVALID);
    assert_status(gr_sim_trace_info(sim, &info), GR_OK);
    assert_false(info.open);
    gr_sim_destroy(sim);

    gr_sim_config_t cfg = {0};
    cfg.seed = g_seed;
    cfg.fst_path = path;
    cfg.trace_from = 9;
    cfg.trace_to = 8;
    gr_sim_t *bad = (gr_sim_t *)(uintptr_t)0x1;
    assert_status(gr_sim_create(&cfg, &bad), GR_E_INVALID);
    assert_ptr_equal(bad, (gr_sim_t *)(uintptr_t)0x1);
}

static void test_txlog_has_a_line_per_csr_handshake(void **state)
{
    (void)state;
    char path[4200];
    out_path(path, sizeof path, "csr.txlog");
    gr_sim_config_t cfg = {0};
    cfg.seed = g_seed;
    cfg.axilog_path = path;
    gr_sim_t *sim = sim_with(&cfg);
    uint32_t v = 0;
    assert_status(gr_sim_mmio_read(sim, GR_REG_ID_MAGIC, &v), GR_OK);
    assert_status(gr_sim_mmio_write(sim, GR_REG_SCRATCH, 0xcafef00du), GR_OK);
    assert_status(gr_sim_mmio_read(sim, 0x100, &v), GR_E_BUS);
    gr_sim_destroy(sim);

    char *log = slurp(path);
    char seed_line[64];
    snprintf(seed_line, sizeof seed_line, "seed=0x%" PRIx64 "\n", g_seed);
    assert_non_null(strstr(log, seed_line));
    assert_int_equal(count_substr(log, " csr ar addr=0x0000 prot=0\n"), 1);
    assert_int_equal(count_substr(log, " csr r data=0x47505552 resp=OKAY\n"), 1);
    assert_int_equal(count_substr(log, " csr aw addr=0x0020 prot=0\n"), 1);
    assert_int_equal(count_substr(log, " csr w data=0xcafef00d strb=0xf\n"), 1);
    assert_int_equal(count_substr(log, " csr b resp=OKAY\n"), 1);
    assert_int_equal(count_substr(log, " csr ar addr=0x0100 prot=0\n"), 1);
    assert_int_equal(count_substr(log, " csr r data=0x00000000 resp=SLVERR\n"), 1);
    assert_int_equal(count_substr(log, " csr "), 7);
    /* the idle masters make no traffic; nothing broke a rule */
    assert_int_equal(count_substr(log, " host "), 0);
    assert_int_equal(count_substr(log, " vram "), 0);
    assert_null(strstr(log, "violation"));
    free(log);
}

static void test_axilog_path_from_env_is_flushed_after_each_call(void **state)
{
    (void)state;
    char path[4200];
    out_path(path, sizeof path, "env.txlog");
    setenv("GR_SIM_AXILOG", path, 1);
    gr_sim_t *sim = sim_seeded(g_seed);
    unsetenv("GR_SIM_AXILOG");
    uint32_t v = 0;
    assert_status(gr_sim_mmio_read(sim, GR_REG_ID_VERSION, &v), GR_OK);
    char *log = slurp(path); /* before destroy: a crash later must not lose it */
    assert_int_equal(count_substr(log, " csr ar addr=0x0004 prot=0\n"), 1);
    assert_int_equal(count_substr(log, " csr r "), 1);
    free(log);
    gr_sim_destroy(sim);
}

static void test_no_protocol_violation_in_txlog_after_stressed_accesses(void **state)
{
    (void)state;
    char path[4200];
    out_path(path, sizeof path, "stress.txlog");
    gr_sim_config_t cfg = {0};
    cfg.seed = g_seed;
    cfg.stall_pct = 90;
    cfg.axilog_path = path;
    gr_sim_t *sim = sim_with(&cfg);
    uint64_t rs = g_seed ^ 0x5555;
    static const uint32_t offs[] = {GR_REG_ID_MAGIC, GR_REG_SCRATCH, GR_REG_IRQ_ENABLE, 0x100, 0x14};
    for (unsigned i = 0; i < 300; ++i) {
        const uint32_t off = offs[test_rand(&rs) % 5];
        uint32_t v;
        if (test_rand(&rs) & 1)
            (void)gr_sim_mmio_read(sim, off, &v);
        else
            (void)gr_sim_mmio_write(sim, off == GR_REG_IRQ_ENABLE ? off : GR_REG_SCRATCH, (uint32_t)i);
    }
    gr_sim_destroy(sim);
    char *log = slurp(path);
    assert_null(strstr(log, "violation"));
    assert_true(count_substr(log, " csr b ") + count_substr(log, " csr r ") == 300);
    free(log);
}

/* ---- determinism --------------------------------------------------------------------------- */

/* A fixed sequence of accesses; the cycle count after each goes to out[0..n). */
static void access_sequence(gr_sim_t *sim, uint64_t *out, unsigned n)
{
    for (unsigned i = 0; i < n; ++i) {
        uint32_t v;
        switch (i % 4) {
        case 0: assert_status(gr_sim_mmio_read(sim, GR_REG_ID_MAGIC, &v), GR_OK); break;
        case 1: assert_status(gr_sim_mmio_write(sim, GR_REG_SCRATCH, i), GR_OK); break;
        case 2: assert_status(gr_sim_mmio_read(sim, GR_REG_SCRATCH, &v), GR_OK); break;
        default: assert_status(gr_sim_mmio_read(sim, 0x100, &v), GR_E_BUS); break;
        }
        out[i] = gr_sim_cycle(sim);
    }
}

#define SEQ 40

static void test_same_seed_gives_identical_cycle_counts(void **state)
{
    (void)state;
    uint64_t a[SEQ], b[SEQ];
    gr_sim_t *sim = sim_seeded(g_seed);
    access_sequence(sim, a, SEQ);
    gr_sim_destroy(sim);
    sim = sim_seeded(g_seed);
    access_sequence(sim, b, SEQ);
    gr_sim_destroy(sim);
    assert_memory_equal(a, b, sizeof a);
}

static void test_different_seeds_give_different_cycle_counts(void **state)
{
    (void)state;
    uint64_t a[SEQ], b[SEQ];
    gr_sim_t *sim = sim_seeded(g_seed);
    access_sequence(sim, a, SEQ);
    gr_sim_destroy(sim);
    sim = sim_seeded(g_seed + 1);
    access_sequence(sim, b, SEQ);
    gr_sim_destroy(sim);
    assert_true(memcmp(a, b, sizeof a) != 0);
}

static void test_no_random_gives_the_same_short_timing_for_every_seed(void **state)
{
    (void)state;
    uint64_t a[SEQ], b[SEQ];
    gr_sim_config_t cfg = {0};
    cfg.no_random = true;
    cfg.stall_pct = 90; /* ignored */
    cfg.seed = g_seed;
    gr_sim_t *sim = sim_with(&cfg);
    access_sequence(sim, a, SEQ);
    gr_sim_destroy(sim);
    cfg.seed = g_seed + 1;
    sim = sim_with(&cfg);
    access_sequence(sim, b, SEQ);
    gr_sim_destroy(sim);
    assert_memory_equal(a, b, sizeof a);
    /* no stalls: every access costs the same few cycles of the CSR port's pipeline */
    for (unsigned i = 1; i < SEQ; ++i)
        assert_in_range(a[i] - a[i - 1], 2, 4);
}

/* ---- host memory and VRAM ------------------------------------------------------------------ */

static void test_dma_alloc_gives_zeroed_pages_at_distinct_bus_addresses(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_seeded(g_seed);
    void *cpu1 = NULL, *cpu2 = NULL;
    uint64_t bus1 = 0, bus2 = 0;

    assert_status(gr_sim_dma_alloc(sim, 1, &cpu1, &bus1), GR_OK);
    assert_status(gr_sim_dma_alloc(sim, 3 * 4096 + 5, &cpu2, &bus2), GR_OK);
    assert_int_equal((uintptr_t)cpu1 % 4096, 0);
    assert_int_equal((uintptr_t)cpu2 % 4096, 0);
    assert_int_equal(bus1 % 4096, 0);
    assert_int_equal(bus2 % 4096, 0);
    assert_true(bus1 >= 0x100000000ull);                         /* above 4 GiB: 32-bit truncation shows */
    assert_true(bus2 >= bus1 + 4096 || bus1 >= bus2 + 4 * 4096); /* no overlap */
    const uint8_t *p = cpu2;
    for (unsigned i = 0; i < 4 * 4096; ++i)
        assert_int_equal(p[i], 0);
    memset(cpu1, 0xa5, 4096); /* the whole page is usable */
    memset(cpu2, 0x5a, 4 * 4096);

    assert_status(gr_sim_dma_free(sim, bus1), GR_OK);
    assert_status(gr_sim_dma_free(sim, bus1), GR_E_NOT_FOUND);
    assert_status(gr_sim_dma_free(sim, bus2 + 8), GR_E_NOT_FOUND);
    assert_status(gr_sim_dma_free(sim, 0), GR_E_NOT_FOUND);

    void *cpu3 = NULL;
    uint64_t bus3 = 0;
    assert_status(gr_sim_dma_alloc(sim, 4096, &cpu3, &bus3), GR_OK);
    assert_true(bus3 != bus1); /* a freed bus address is not handed out again */

    void *untouched = (void *)(uintptr_t)0x77;
    uint64_t ubus = 0x77;
    assert_status(gr_sim_dma_alloc(sim, 0, &untouched, &ubus), GR_E_INVALID);
    assert_status(gr_sim_dma_alloc(sim, 16, NULL, &ubus), GR_E_INVALID);
    assert_status(gr_sim_dma_alloc(sim, 16, &untouched, NULL), GR_E_INVALID);
    assert_status(gr_sim_dma_alloc(sim, SIZE_MAX, &untouched, &ubus), GR_E_NO_MEMORY);
    assert_ptr_equal(untouched, (void *)(uintptr_t)0x77);
    assert_int_equal(ubus, 0x77);
    gr_sim_destroy(sim); /* frees what is left */
}

static void test_host_backdoor_reads_a_live_buffer_by_bus_address_only(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_seeded(g_seed);
    void *cpu = NULL;
    uint64_t bus = 0;
    assert_status(gr_sim_dma_alloc(sim, 8192, &cpu, &bus), GR_OK);
    for (unsigned i = 0; i < 8192; ++i)
        ((uint8_t *)cpu)[i] = (uint8_t)(i * 7);
    uint8_t got[64], keep[64];
    assert_status(gr_sim_host_read(sim, bus + 4090, got, 64), GR_OK); /* across the page inside it */
    for (unsigned i = 0; i < 64; ++i)
        assert_int_equal(got[i], (uint8_t)((4090 + i) * 7));
    memset(keep, 0x3c, sizeof keep);
    memcpy(got, keep, sizeof got);
    assert_status(gr_sim_host_read(sim, bus + 8192 - 8, got, 16), GR_E_RANGE); /* into the guard page */
    assert_status(gr_sim_host_read(sim, 0x1000, got, 8), GR_E_RANGE);
    assert_status(gr_sim_host_read(sim, bus, got, 0), GR_E_INVALID);
    assert_status(gr_sim_host_read(sim, bus, NULL, 8), GR_E_INVALID);
    assert_status(gr_sim_host_read(NULL, bus, got, 8), GR_E_INVALID);
    assert_memory_equal(got, keep, sizeof got); /* untouched on failure */
    assert_status(gr_sim_dma_free(sim, bus), GR_OK);
    assert_status(gr_sim_host_read(sim, bus, got, 8), GR_E_RANGE); /* freed */
    gr_sim_destroy(sim);
}

static void test_vram_backdoor_reads_zero_until_written_and_checks_range(void **state)
{
    (void)state;
    gr_sim_config_t cfg = {0};
    cfg.seed = g_seed;
    cfg.vram_bytes = 1u << 20;
    gr_sim_t *sim = sim_with(&cfg);
    uint8_t buf[64], pat[64];

    memset(buf, 0xff, sizeof buf);
    assert_status(gr_sim_vram_read(sim, 0x8000, buf, sizeof buf), GR_OK);
    for (unsigned i = 0; i < sizeof buf; ++i)
        assert_int_equal(buf[i], 0);

    for (unsigned i = 0; i < sizeof pat; ++i)
        pat[i] = (uint8_t)(i * 7 + 1);
    assert_status(gr_sim_vram_write(sim, 0x1000 - 20, pat, sizeof pat), GR_OK); /* across a page */
    assert_status(gr_sim_vram_read(sim, 0x1000 - 20, buf, sizeof buf), GR_OK);
    assert_memory_equal(buf, pat, sizeof pat);
    assert_status(gr_sim_vram_read(sim, 0x1000 - 21, buf, 1), GR_OK);
    assert_int_equal(buf[0], 0);

    assert_status(gr_sim_vram_write(sim, (1u << 20) - 1, pat, 1), GR_OK);
    assert_status(gr_sim_vram_read(sim, (1u << 20) - 1, buf, 1), GR_OK);
    assert_int_equal(buf[0], pat[0]);
    assert_status(gr_sim_vram_read(sim, 1u << 20, buf, 1), GR_E_RANGE);
    assert_status(gr_sim_vram_write(sim, (1u << 20) - 1, pat, 2), GR_E_RANGE);
    assert_status(gr_sim_vram_read(sim, UINT64_MAX, buf, 2), GR_E_RANGE);
    assert_status(gr_sim_vram_read(sim, 0, buf, 0), GR_E_INVALID);
    assert_status(gr_sim_vram_write(sim, 0, NULL, 4), GR_E_INVALID);
    assert_status(gr_sim_vram_read(sim, 0, NULL, 4), GR_E_INVALID);
    gr_sim_destroy(sim);
}

static void test_default_vram_is_512_mib(void **state)
{
    (void)state;
    gr_sim_t *sim = sim_seeded(g_seed);
    uint8_t b = 1;
    assert_status(gr_sim_vram_write(sim, (512u << 20) - 1, &b, 1), GR_OK);
    assert_status(gr_sim_vram_read(sim, 512u << 20, &b, 1), GR_E_RANGE);
    gr_sim_destroy(sim);
}

static void test_null_sim_and_null_outputs_answer_invalid(void **state)
{
    (void)state;
    uint32_t v = 0;
    bool raised = false;
    void *cpu;
    uint64_t bus;
    uint8_t b = 0;
    assert_status(gr_sim_mmio_read(NULL, 0, &v), GR_E_INVALID);
    assert_status(gr_sim_mmio_write(NULL, GR_REG_SCRATCH, 1), GR_E_INVALID);
    assert_status(gr_sim_mmio_write_strb(NULL, GR_REG_SCRATCH, 1, 0xf), GR_E_INVALID);
    assert_status(gr_sim_wait_irq(NULL, 10, &raised), GR_E_INVALID);
    assert_status(gr_sim_dma_alloc(NULL, 4096, &cpu, &bus), GR_E_INVALID);
    assert_status(gr_sim_dma_free(NULL, 0x100000000ull), GR_E_INVALID);
    assert_status(gr_sim_vram_read(NULL, 0, &b, 1), GR_E_INVALID);
    assert_status(gr_sim_vram_write(NULL, 0, &b, 1), GR_E_INVALID);
    assert_int_equal(gr_sim_seed(NULL), 0);
    assert_int_equal(gr_sim_cycle(NULL), 0);
    assert_false(gr_sim_irq(NULL));
    gr_sim_run(NULL, 10);

    gr_sim_t *sim = sim_seeded(g_seed);
    assert_status(gr_sim_mmio_read(sim, 0, NULL), GR_E_INVALID);
    assert_status(gr_sim_wait_irq(sim, 10, NULL), GR_E_INVALID);
    gr_sim_destroy(sim);
}

/* ---- main ---------------------------------------------------------------------------------- */

static int parse_u64(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    const int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    unsigned long long v = strtoull(hex ? s + 2 : s, &end, hex ? 16 : 10);
    if (errno || !*s || *end || s[0] == '-') return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* The base seed: --seed, else $GR_TEST_SEED, else $GR_SIM_SEED, else 1. */
    const char *env_seed = getenv("GR_TEST_SEED");
    if (!env_seed || !*env_seed) env_seed = getenv("GR_SIM_SEED");
    if (env_seed && *env_seed && (parse_u64(env_seed, &g_seed) || g_seed == 0)) {
        fprintf(stderr, "bad seed '%s' in the environment\n", env_seed);
        return 2;
    }
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            if (parse_u64(argv[++i], &g_seed) || g_seed == 0) {
                fprintf(stderr, "bad --seed '%s' (want a nonzero decimal or 0x hex number)\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--outdir") && i + 1 < argc) {
            snprintf(g_outdir, sizeof g_outdir, "%s", argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--seed N] [--outdir DIR]\n", argv[0]);
            return 2;
        }
    }
    if (!g_outdir[0]) {
        snprintf(g_outdir, sizeof g_outdir, "/tmp/gr_harness.XXXXXX");
        if (!mkdtemp(g_outdir)) {
            perror("mkdtemp");
            return 2;
        }
    }
    unsetenv("GR_SIM_SEED");
    unsetenv("GR_SIM_FST");
    unsetenv("GR_SIM_AXILOG");
    unsetenv("GR_SIM_REORDER");
    unsetenv("GR_SIM_AXI");
    unsetenv("GR_SIM_STALL_RUN");
    printf("# seed=%" PRIu64 " (rerun with --seed %" PRIu64 "); files in %s\n", g_seed, g_seed, g_outdir);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_resets_for_8_cycles_and_reports_seed),
        cmocka_unit_test(test_create_with_null_config_uses_defaults),
        cmocka_unit_test(test_create_rejects_bad_config_and_leaves_output_untouched),
        cmocka_unit_test(test_seed_comes_from_config_then_env_then_1),
        cmocka_unit_test(test_two_instances_are_independent),
        cmocka_unit_test(test_id_magic_reads_gpur_under_random_stalls_for_several_seeds),
        cmocka_unit_test(test_scratch_write_read_round_trip),
        cmocka_unit_test(test_unmapped_offset_0x100_answers_bus_error),
        cmocka_unit_test(test_misaligned_offset_answers_align_without_bus_cycles),
        cmocka_unit_test(test_offset_0x10000_and_past_answers_range_without_bus_cycles),
        cmocka_unit_test(test_partial_strobe_write_answers_bus_error_and_keeps_scratch),
        cmocka_unit_test(test_soft_reset_clears_scratch_and_sets_reset_done),
        cmocka_unit_test(test_irq_test_raises_irq_and_w1c_of_irq_state_drops_it),
        cmocka_unit_test(test_irq_stays_low_while_disabled),
        cmocka_unit_test(test_wait_irq_without_irq_runs_exactly_max_cycles),
        cmocka_unit_test(test_fst_file_is_written_when_configured),
        cmocka_unit_test(test_fst_path_from_env_and_empty_path_means_none),
        cmocka_unit_test(test_trace_without_fst_path_is_unsupported),
        cmocka_unit_test(test_vcd_window_records_only_its_cycles),
        cmocka_unit_test(test_fst_window_records_only_its_cycles),
        cmocka_unit_test(test_gtkw_next_to_the_trace_names_signals_it_holds),
        cmocka_unit_test(test_trace_started_and_stopped_at_run_time),
        cmocka_unit_test(test_txlog_has_a_line_per_csr_handshake),
        cmocka_unit_test(test_axilog_path_from_env_is_flushed_after_each_call),
        cmocka_unit_test(test_no_protocol_violation_in_txlog_after_stressed_accesses),
        cmocka_unit_test(test_same_seed_gives_identical_cycle_counts),
        cmocka_unit_test(test_different_seeds_give_different_cycle_counts),
        cmocka_unit_test(test_no_random_gives_the_same_short_timing_for_every_seed),
        cmocka_unit_test(test_dma_alloc_gives_zeroed_pages_at_distinct_bus_addresses),
        cmocka_unit_test(test_host_backdoor_reads_a_live_buffer_by_bus_address_only),
        cmocka_unit_test(test_vram_backdoor_reads_zero_until_written_and_checks_range),
        cmocka_unit_test(test_default_vram_is_512_mib),
        cmocka_unit_test(test_null_sim_and_null_outputs_answer_invalid),
    };
    const int failed = cmocka_run_group_tests_name("harness", tests, NULL, NULL);
    if (failed) printf("# %d failed; seed=%" PRIu64 "\n", failed, g_seed);
    return failed ? 1 : 0;
}
