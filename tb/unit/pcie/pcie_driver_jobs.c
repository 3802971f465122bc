/* SPDX-License-Identifier: Apache-2.0 */
/* pcie_driver_jobs.c: the driver's work that test_pcie_driver.py runs over cocotb:// (through
 * gr_link_cocotb_run): the register conformance suite, a DDI smoke test, and the link
 * benchmark (bench/link). Each job fills a result the test reads with ctypes. The conformance
 * and smoke jobs open $PCIE_JOB_DEVICE when it is set (tb/system/test_pcie_jobs.c runs them on
 * pcie:// over the VFIO emulation), else cocotb://. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_link.h"
#include "gr_conformance.h"
#include "gr_link.h"
#include "gpuref/gr_alloc.h"
#include "gpuref/gr_device.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_easy.h"
#include "gpuref/gr_status.h"
#include "gpuref/gr_submit.h"

/** Result of a job (mirrored by test_pcie_driver.py's JobResult). */
typedef struct pcie_job_result {
    unsigned passed;
    unsigned failed;
    unsigned registers;
    int rc;            /* the job's status: GR_OK when it ran to its end */
    uint32_t seed;     /* in: the data's seed */
    char log[16384];   /* conformance: one line per failed check; smoke: one per check;
                          then the job's last error */
} pcie_job_result_t;

static void note(pcie_job_result_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(pcie_job_result_t *r, const char *fmt, ...)
{
    size_t n = strlen(r->log);
    if (n + 1 >= sizeof r->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->log + n, sizeof r->log - n, fmt, ap);
    va_end(ap);
}

/* The device the conformance and smoke jobs open. */
static const char *job_device(void)
{
    const char *d = getenv("PCIE_JOB_DEVICE");
    return d && *d ? d : "cocotb://";
}

static void conf_emit(void *user, bool ok, const char *reg, const char *check, const char *detail)
{
    if (!ok)
        note(user, "not ok: %s %s: %s\n", reg, check, detail ? detail : "");
}

/** gr_conformance_run on cocotb:// (or $PCIE_JOB_DEVICE). */
int pcie_job_conformance(void *arg)
{
    pcie_job_result_t *r = arg;
    gr_device_t *dev;
    int rc = gr_device_open(job_device(), 0, &dev);
    if (rc) {
        note(r, "gr_device_open(%s): %s (%s)\n", job_device(), gr_strerror(rc), gr_last_error());
        return r->rc = rc;
    }
    gr_conf_result_t res = {0};
    rc = gr_conformance_run(dev, conf_emit, r, &res);
    r->passed = res.passed;
    r->failed = res.failed;
    r->registers = res.registers;
    if (rc)
        note(r, "gr_conformance_run stopped: %s (%s)\n", gr_strerror(rc), gr_last_error());
    gr_device_close(dev);
    return r->rc = rc;
}

/* ---- the DDI smoke test ------------------------------------------------------------------- */

/* Records one smoke check: a line "ok: name" or "not ok: name (detail)". */
static bool check(pcie_job_result_t *r, bool ok, const char *name, int rc)
{
    if (ok)
        r->passed++;
    else
        r->failed++;
    if (ok)
        note(r, "ok: %s\n", name);
    else
        note(r, "not ok: %s (%s: %s)\n", name, gr_status_name(rc), gr_last_error());
    return ok;
}

#define SMOKE_BYTES 8192u
#define WAIT_CYCLES 4000000u /* device cycles: far more than any packet here needs */

/* xorshift32: the data of a seed. */
static uint32_t rnd(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* A writer on ctx whose packet waits for the gate's first qword to be 1 (GR_DMA_OP_WAIT), then
 * fills 4 KiB of dst. */
static int gated_fill(gr_gpu_device_t *dev, gr_context_t ctx, gr_alloc_t gate, gr_alloc_t dst,
                      uint32_t pattern, gr_cmd_t **out_cmd)
{
    gr_alloc_info_t gi;
    gr_cmd_t *c;
    int rc = gr_alloc_query(dev, gate, &gi);
    if (rc || (rc = gr_cmd_create(dev, ctx, 0, &c)))
        return rc;
    if ((rc = gr_cmd_use(c, gate, 0)) ||
        (rc = gr_dma_wait(gr_cmd_writer(c), GR_DMA_SPACE_GPUVA, gi.gpu_va, 1) ? GR_E_RANGE : GR_OK) ||
        (rc = gr_cmd_fill(c, dst, 0, 4096, pattern)) || (rc = gr_cmd_submit(c, NULL))) {
        if (gr_cmd_destroy(c) != GR_OK) /* not in flight: it cannot refuse */
            rc = GR_E_BUSY;
        return rc;
    }
    *out_cmd = c;
    return GR_OK;
}

/* Frees a writer; a refusal (still in flight) is a failed check. */
static void drop(pcie_job_result_t *r, gr_cmd_t *c)
{
    int rc = c ? gr_cmd_destroy(c) : GR_OK;
    if (rc)
        check(r, false, "gr_cmd_destroy of a retired writer", rc);
}

/* The gate's first qword. */
static int set_gate(gr_gpu_device_t *dev, gr_alloc_t gate, uint64_t v)
{
    return gr_buffer_write(dev, gate, 0, &v, sizeof v);
}

/** The DDI smoke test on cocotb:// (or $PCIE_JOB_DEVICE), through libgpuref's public API: allocate, fill and copy on
 *  the DMA engine, preempt, cancel, TDR and recovery. */
int pcie_job_smoke(void *arg)
{
    pcie_job_result_t *r = arg;
    uint32_t s = r->seed ? r->seed : 1;
    static uint8_t src[SMOKE_BYTES], back[SMOKE_BYTES], want[SMOKE_BYTES];
    gr_session_t *ss;
    int rc = gr_session_open(job_device(), &ss);
    if (!check(r, rc == GR_OK, "gr_session_open: adapter, process, device, context", rc))
        return r->rc = rc;
    gr_gpu_device_t *dev = gr_session_device(ss);
    gr_context_t ctx = gr_session_context(ss);
    gr_adapter_t *ad = gr_session_adapter(ss);
    gr_alloc_t a_src = 0, a_mid = 0, a_dst = 0, gate = 0;
    rc = gr_buffer_create(dev, SMOKE_BYTES, GR_BUF_CPU_WRITE, &a_src);
    if (!rc)
        rc = gr_buffer_create(dev, SMOKE_BYTES, 0, &a_mid);
    if (!rc)
        rc = gr_buffer_create(dev, SMOKE_BYTES, GR_BUF_CPU_READ, &a_dst);
    if (!rc)
        rc = gr_buffer_create(dev, 4096, GR_BUF_CPU_READ | GR_BUF_CPU_WRITE, &gate);
    if (!check(r, rc == GR_OK, "gr_buffer_create: a CPU-written, a GPU-only, a CPU-read buffer and a gate", rc))
        goto out;

    /* Fill and copy: mid[0, 4K) = FILL pattern, mid[4K, 8K) = COPY of src[4K, 8K), then COPY
     * mid -> dst, read back by the CPU. */
    for (unsigned i = 0; i < SMOKE_BYTES; i++)
        src[i] = (uint8_t)rnd(&s);
    uint32_t pattern = rnd(&s);
    for (unsigned i = 0; i < 4096; i++)
        want[i] = (uint8_t)(pattern >> (8 * (i & 3)));
    memcpy(want + 4096, src + 4096, 4096);
    gr_cmd_t *c = NULL;
    rc = gr_buffer_write(dev, a_src, 0, src, SMOKE_BYTES);
    if (!rc)
        rc = gr_cmd_create(dev, ctx, 0, &c);
    if (!rc)
        rc = gr_cmd_fill(c, a_mid, 0, 4096, pattern);
    if (!rc)
        rc = gr_cmd_copy(c, a_src, 4096, a_mid, 4096, 4096);
    if (!rc)
        rc = gr_cmd_copy(c, a_mid, 0, a_dst, 0, SMOKE_BYTES);
    if (!rc)
        rc = gr_cmd_submit_wait(c, WAIT_CYCLES);
    check(r, rc == GR_OK, "gr_cmd_submit_wait: a FILL and two COPYs retire", rc);
    if (!rc)
        rc = gr_buffer_read(dev, a_dst, 0, back, SMOKE_BYTES);
    check(r, rc == GR_OK && memcmp(back, want, SMOKE_BYTES) == 0,
          "the FILL's pattern and the COPYs' bytes read back exact", rc);
    drop(r, c);

    /* Preempt: a packet held at its WAIT is taken off the engine; once the gate opens it runs
     * again from where it stopped and completes. */
    gr_sched_stats_t st0, st1;
    gr_cmd_t *g = NULL;
    rc = set_gate(dev, gate, 0);
    if (!rc)
        rc = gr_adapter_sched_stats(ad, &st0);
    if (!rc)
        rc = gated_fill(dev, ctx, gate, a_dst, 0x600d0001u, &g);
    if (!rc)
        rc = gr_cmd_wait(g, 5000) == GR_E_TIMEOUT ? GR_OK : GR_E_INVALID;
    check(r, rc == GR_OK, "a packet waiting on a closed gate does not retire", rc);
    /* It is on the engine once VidSch has submitted it (DxgkDdiSubmitCommand). That is VidSch's
     * thread's work, which on a loaded machine can trail the wait above; a preemption before it
     * would find nothing to take off. */
    for (unsigned i = 0; !rc && i < 200; i++) {
        rc = gr_adapter_sched_stats(ad, &st1);
        if (rc || st1.submitted > st0.submitted)
            break;
        rc = gr_cmd_wait(g, 1000) == GR_E_TIMEOUT ? GR_OK : GR_E_INVALID;
    }
    check(r, rc == GR_OK && st1.submitted > st0.submitted, "VidSch submits it to the engine", rc);
    if (!rc)
        rc = gr_preempt(dev, ctx);
    if (!rc)
        rc = gr_adapter_sched_stats(ad, &st1);
    check(r, rc == GR_OK && st1.preemptions > st0.preemptions,
          "gr_preempt takes it off the engine (DxgkDdiPreemptCommand)", rc);
    if (!rc)
        rc = set_gate(dev, gate, 1);
    if (!rc)
        rc = gr_cmd_wait(g, WAIT_CYCLES);
    uint32_t w = 0;
    if (!rc)
        rc = gr_buffer_read(dev, a_dst, 4092, &w, 4);
    check(r, rc == GR_OK && w == 0x600d0001u, "the preempted packet runs again once the gate opens and completes", rc);
    drop(r, g);

    /* Cancel: a packet held at its WAIT is cancelled; its wait says so; the context stays usable. */
    g = NULL;
    uint32_t cancelled = 0;
    rc = set_gate(dev, gate, 0);
    if (!rc)
        rc = gated_fill(dev, ctx, gate, a_dst, 0xbad0bad0u, &g);
    if (!rc)
        rc = gr_cancel(dev, ctx, &cancelled);
    int wrc = g ? gr_cmd_wait(g, WAIT_CYCLES) : GR_E_INVALID;
    check(r, rc == GR_OK && cancelled == 1 && wrc == GR_E_CANCELLED,
          "gr_cancel cancels the held packet: one cancelled, its wait GR_E_CANCELLED", rc ? rc : wrc);
    drop(r, g);
    w = 0;
    rc = gr_buffer_read(dev, a_dst, 0, &w, 4);
    check(r, rc == GR_OK && w == 0x600d0001u, "the cancelled packet wrote nothing", rc);

    /* TDR: a packet that never finishes (the gate stays closed) is preempted at the timeout,
     * times out again, and the GPU is reset; its context is lost, the device works on. */
    gr_sched_params_t sp = {.quantum_cycles = 10000, .tdr_timeout_cycles = 10000};
    g = NULL;
    rc = gr_adapter_set_scheduling(ad, &sp);
    if (!rc)
        rc = gr_adapter_sched_stats(ad, &st0);
    if (!rc)
        rc = gated_fill(dev, ctx, gate, a_dst, 0xbad1bad1u, &g);
    wrc = g ? gr_cmd_wait(g, WAIT_CYCLES) : GR_E_INVALID;
    if (!rc)
        rc = gr_adapter_sched_stats(ad, &st1);
    check(r, rc == GR_OK && wrc == GR_E_DEVICE_RESET && st1.tdrs == st0.tdrs + 1,
          "a hung packet is a TDR: its wait GR_E_DEVICE_RESET, one DxgkDdiResetFromTimeout", rc ? rc : wrc);
    drop(r, g);
    gr_context_t ctx2 = 0;
    c = NULL;
    rc = gr_context_create(dev, NULL, 0, &ctx2);
    if (!rc)
        rc = gr_cmd_create(dev, ctx2, 0, &c);
    if (!rc)
        rc = gr_cmd_copy(c, a_src, 0, a_dst, 0, 4096);
    if (!rc)
        rc = gr_cmd_submit_wait(c, WAIT_CYCLES);
    if (!rc)
        rc = gr_buffer_read(dev, a_dst, 0, back, 4096);
    check(r, rc == GR_OK && memcmp(back, src, 4096) == 0,
          "after the reset a new context's COPY retires and reads back exact", rc);
    drop(r, c);
    rc = GR_OK;
out:
    gr_session_close(ss);
    return r->rc = rc;
}

/* ---- the link benchmark -------------------------------------------------------------------- */

/** bench/link's measurements on cocotb:// (and sim:// beside it, as the other links' reference):
 *  bench_link_main with the options in $PCIE_BENCH_ARGS (split at spaces; e.g. "--out
 *  build/bench/link-pcie.md --quick"), the seed r->seed unless they name one. Its tables go to
 *  stdout (the simulation's log) and to --out. */
int pcie_job_bench(void *arg)
{
    pcie_job_result_t *r = arg;
    static char args[1024], seed[24];
    const char *env = getenv("PCIE_BENCH_ARGS");
    snprintf(args, sizeof args, "%s", env ? env : "");
    snprintf(seed, sizeof seed, "%u", r->seed ? r->seed : 1u);
    char *argv[34] = {"bench_link", "--seed", seed};
    int argc = 3;
    for (char *save = NULL, *t = strtok_r(args, " ", &save); t && argc < 33; t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    argv[argc] = NULL;
    fflush(stdout);
    int st = bench_link_main(argc, argv);
    fflush(stdout);
    if (st)
        note(r, "bench_link_main ended %d (its failures are on stderr)\n", st);
    return r->rc = st ? GR_E_IO : GR_OK;
}

/* ---- the registry (no simulation needed) ---------------------------------------------------- */

static int never_open(const gr_uri_t *uri, void **out_ctx)
{
    (void)uri;
    (void)out_ctx;
    return GR_E_UNSUPPORTED;
}
static void never_close(void *ctx)
{
    (void)ctx;
}
static int never_read32(void *ctx, uint32_t offset, uint32_t *out_value)
{
    (void)ctx, (void)offset, (void)out_value;
    return GR_E_UNSUPPORTED;
}
static int never_write32(void *ctx, uint32_t offset, uint32_t value)
{
    (void)ctx, (void)offset, (void)value;
    return GR_E_UNSUPPORTED;
}
static uint32_t never_caps(void *ctx)
{
    (void)ctx;
    return 0;
}
static void never_describe(void *ctx, char *buf, size_t len)
{
    (void)ctx;
    snprintf(buf, len, "never");
}

/** gr_link_register and cocotb:// outside a run, after gr_link_cocotb_install: bad tables are
 *  refused and change nothing, the added scheme is listed and opens, its operations outside
 *  gr_link_cocotb_run fail with GR_E_LINK. Called directly (not through gr_link_cocotb_run). */
int pcie_job_registry(void *arg)
{
    pcie_job_result_t *r = arg;
    gr_link_ops_t taken = {.scheme = "sim", .open = never_open, .close = never_close,
                           .read32 = never_read32, .write32 = never_write32,
                           .caps = never_caps, .describe = never_describe};
    gr_link_ops_t partial = taken;
    partial.scheme = "never";
    partial.read32 = NULL;
    char before[256];
    snprintf(before, sizeof before, "%s", gr_link_schemes());
    int rc = gr_link_register(NULL);
    check(r, rc == GR_E_INVALID, "gr_link_register(NULL) is refused (GR_E_INVALID)", rc);
    rc = gr_link_register(&partial);
    check(r, rc == GR_E_INVALID && strstr(gr_last_error(), "mandatory"),
          "a table without read32 is refused (GR_E_INVALID), the message says why", rc);
    rc = gr_link_register(&taken);
    check(r, rc == GR_E_BUSY && strstr(gr_last_error(), "'sim://' is taken"),
          "a second table for sim:// is refused (GR_E_BUSY), the message names the scheme", rc);
    check(r, strcmp(before, gr_link_schemes()) == 0 && strstr(before, "cocotb://"),
          "the refusals change nothing; gr_link_schemes lists cocotb://", GR_OK);
    gr_link_t *l = NULL;
    rc = gr_link_open("cocotb://x", &l);
    check(r, rc == GR_E_BAD_URI && !l, "cocotb:// with a path is refused (GR_E_BAD_URI)", rc);
    rc = gr_link_open("cocotb://?seed=1", &l);
    check(r, rc == GR_E_BAD_URI && !l, "cocotb:// with a parameter is refused (GR_E_BAD_URI)", rc);
    rc = gr_link_open("cocotb://", &l);
    uint32_t v = 0x5a5a5a5au;
    int rrc = rc ? rc : gr_link_read32(l, 0, &v);
    check(r, rc == GR_OK && rrc == GR_E_LINK && v == 0x5a5a5a5au &&
                 strstr(gr_last_error(), "outside gr_link_cocotb_run"),
          "cocotb:// opens; a read outside gr_link_cocotb_run fails with GR_E_LINK and writes nothing",
          rc ? rc : rrc);
    gr_link_close(l);
    return r->rc = GR_OK;
}
