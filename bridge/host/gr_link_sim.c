/* SPDX-License-Identifier: Apache-2.0 */
/* gr_link_sim.c: the sim:// backend over sim/harness (see gr_link_sim.h for its contract). */
#include "gr_link_sim.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr_txlog.h"

typedef struct sim_ctx {
    gr_sim_t *sim;
    gr_sim_config_t cfg;
    bool stale; /* ?freshvram=0: no GR_LINK_CAP_FRESH_VRAM */
} sim_ctx_t;

/* vram= is gpu_core's VRAM size strap: whole 64 KiB granules, from 128 KiB (the least the
 * driver runs in) to the VramBytes gpu_core is verilated with (512 MiB). The harness refuses
 * anything else. */
#define SIM_VRAM_GRANULE (64u << 10)
#define SIM_VRAM_MIN (128u << 10)
#define SIM_VRAM_MAX (512ull << 20)

static const char *const sim_keys[] = {"seed",  "stall",    "latency",    "norandom", "vram",
                                       "fst",   "trace",    "trace_from", "trace_to", "axilog",
                                       "axi",   "stallrun", "freshvram", NULL};

/* Decimal digits, or 0x and hex digits; nothing else. Digits are read here rather than by
 * strtoull, which also takes a sign, leading space and a second "0x" after the first. */
static bool parse_number(const char *text, uint64_t *out, const char **out_end)
{
    unsigned base = 10;
    const char *p = text;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    uint64_t v = 0;
    const char *start = p;
    for (;; p++) {
        const int c = (unsigned char)*p;
        unsigned digit;
        if (isdigit(c))
            digit = (unsigned)(c - '0');
        else if (base == 16 && isxdigit(c))
            digit = (unsigned)(tolower(c) - 'a' + 10);
        else
            break;
        if (v > (UINT64_MAX - digit) / base)
            return false;
        v = v * base + digit;
    }
    if (p == start)
        return false;
    *out = v;
    *out_end = p;
    return true;
}

/* A number in [min, max]; vram also takes a K, M or G suffix and must be whole 64 KiB. The
 * message names the key (or variable) and the accepted range. */
static int parse_u64(const char *key, const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    const bool size = strcmp(key, "vram") == 0;
    uint64_t v = 0;
    const char *end = NULL;
    bool ok = parse_number(text, &v, &end);
    if (ok && size && *end) {
        unsigned shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
        ok = shift && !end[1] && v <= (UINT64_MAX >> shift);
        v <<= shift;
        end++;
    }
    ok = ok && !*end && v >= min && v <= max && (!size || v % SIM_VRAM_GRANULE == 0);
    if (!ok) {
        if (size)
            gr_link_set_error("sim://: bad value '%s' for %s (accepted: 128K..512M in whole 64K; "
                              "bytes, or a K, M or G suffix)", text, key);
        else
            gr_link_set_error("sim://: bad value '%s' for %s (accepted: %llu..%llu, decimal or 0x hex)",
                              text, key, (unsigned long long)min, (unsigned long long)max);
        return GR_E_BAD_URI;
    }
    *out = v;
    return GR_OK;
}

static int sim_open(const gr_uri_t *uri, void **out_ctx)
{
    if (uri->path[0]) {
        gr_link_set_error("sim:// takes no path (got '%s'); options go after '?'", uri->path);
        return GR_E_BAD_URI;
    }
    sim_ctx_t *c = calloc(1, sizeof *c);
    if (!c)
        return GR_E_NO_MEMORY;
    uint64_t v = 0;
    const char *s;
    int rc = GR_OK;
    /* Seed 0 would mean "the default" to the harness: a seed given is a real one. */
    if (!rc && (s = gr_uri_param(uri, "seed")) && !(rc = parse_u64("seed", s, 1, UINT64_MAX, &v)))
        c->cfg.seed = v;
    /* Without ?seed the harness reads $GR_SIM_SEED; a bad one is named here rather than ending
     * as "cannot start the simulation". */
    const char *env = getenv("GR_SIM_SEED");
    if (!rc && !gr_uri_param(uri, "seed") && env && *env && (rc = parse_u64("seed", env, 0, UINT64_MAX, &v))) {
        gr_link_set_error("GR_SIM_SEED='%s' is not a seed (accepted: 0..%llu, decimal or 0x hex; 0: 1)", env,
                          (unsigned long long)UINT64_MAX);
    }
    if (!rc && (s = gr_uri_param(uri, "stall")) && !(rc = parse_u64("stall", s, 0, 90, &v)))
        c->cfg.stall_pct = (unsigned)v;
    if (!rc && (s = gr_uri_param(uri, "latency")) && !(rc = parse_u64("latency", s, 0, 1000, &v)))
        c->cfg.max_latency = (unsigned)v;
    if (!rc && (s = gr_uri_param(uri, "norandom")) && !(rc = parse_u64("norandom", s, 0, 1, &v)))
        c->cfg.no_random = v != 0;
    if (!rc && (s = gr_uri_param(uri, "vram")) && !(rc = parse_u64("vram", s, SIM_VRAM_MIN, SIM_VRAM_MAX, &v)))
        c->cfg.vram_bytes = v;
    if (!rc && (s = gr_uri_param(uri, "freshvram")) && !(rc = parse_u64("freshvram", s, 0, 1, &v)))
        c->stale = v == 0;
    if (!rc && (s = gr_uri_param(uri, "stallrun")) && !(rc = parse_u64("stallrun", s, 1, 1000, &v)))
        c->cfg.stall_run = (unsigned)v;
    if (!rc && (s = gr_uri_param(uri, "axi")) && gr_sim_axi_order_parse(s, &c->cfg.axi_order) != GR_OK) {
        gr_link_set_error("sim://: bad value '%s' for axi (any, awaitw, awaitwlast, wawaitaw)", s);
        rc = GR_E_BAD_URI;
    }
    /* trace= and fst= are one key under two names (fst= came first, when FST was the only format). */
    const char *trace = gr_uri_param(uri, "trace"), *fst = gr_uri_param(uri, "fst");
    if (!rc && trace && fst) {
        gr_link_set_error("sim://: trace= and fst= both name the waveform file ('%s', '%s'): give one", trace, fst);
        rc = GR_E_BAD_URI;
    }
    c->cfg.fst_path = trace ? trace : fst;
    if (!rc && (s = gr_uri_param(uri, "trace_from")) && !(rc = parse_u64("trace_from", s, 0, UINT64_MAX, &v)))
        c->cfg.trace_from = v;
    if (!rc && (s = gr_uri_param(uri, "trace_to")) && !(rc = parse_u64("trace_to", s, 0, UINT64_MAX, &v)))
        c->cfg.trace_to = v;
    if (!rc && c->cfg.trace_to && c->cfg.trace_from > c->cfg.trace_to) {
        gr_link_set_error("sim://: trace_from=%llu is after trace_to=%llu (the window records both cycles and "
                          "those between)", (unsigned long long)c->cfg.trace_from,
                          (unsigned long long)c->cfg.trace_to);
        rc = GR_E_BAD_URI;
    }
    const char *env_fst = getenv("GR_SIM_FST");
    if (!rc && (c->cfg.trace_from || c->cfg.trace_to) && !c->cfg.fst_path && !(env_fst && *env_fst)) {
        gr_link_set_error("sim://: trace_from and trace_to need a waveform file (trace=PATH, or $GR_SIM_FST)");
        rc = GR_E_BAD_URI;
    }
    c->cfg.axilog_path = gr_uri_param(uri, "axilog");
    if (rc) {
        free(c);
        return rc;
    }
    rc = gr_sim_create(&c->cfg, &c->sim);
    if (rc) {
        gr_link_set_error("sim://: %s", gr_sim_error());
        free(c);
        return rc;
    }
    /* The paths pointed into the URI, which the caller owns; the harness has opened them. */
    c->cfg.fst_path = NULL;
    c->cfg.axilog_path = NULL;
    *out_ctx = c;
    return GR_OK;
}

static void sim_close(void *ctx)
{
    sim_ctx_t *c = ctx;
    gr_sim_destroy(c->sim);
    free(c);
}

static int sim_read32(void *ctx, uint32_t offset, uint32_t *out_value)
{
    return gr_sim_mmio_read(((sim_ctx_t *)ctx)->sim, offset, out_value);
}

static int sim_write32(void *ctx, uint32_t offset, uint32_t value)
{
    return gr_sim_mmio_write(((sim_ctx_t *)ctx)->sim, offset, value);
}

static int sim_ap_read(void *ctx, uint64_t offset, void *dst, size_t bytes)
{
    return gr_sim_ap_read(((sim_ctx_t *)ctx)->sim, offset, dst, bytes);
}

static int sim_ap_write(void *ctx, uint64_t offset, const void *src, size_t bytes)
{
    return gr_sim_ap_write(((sim_ctx_t *)ctx)->sim, offset, src, bytes);
}

static int sim_dma_alloc(void *ctx, size_t bytes, gr_dma_buf_t *out_buf)
{
    void *cpu = NULL;
    uint64_t bus = 0;
    int rc = gr_sim_dma_alloc(((sim_ctx_t *)ctx)->sim, bytes, &cpu, &bus);
    if (rc)
        return rc;
    out_buf->cpu = cpu;
    out_buf->bus = bus;
    out_buf->bytes = bytes;
    return GR_OK;
}

static int sim_dma_free(void *ctx, const gr_dma_buf_t *buf)
{
    return gr_sim_dma_free(((sim_ctx_t *)ctx)->sim, buf->bus);
}

static int sim_wait_irq(void *ctx, uint32_t timeout_us, bool *out_raised)
{
    return gr_sim_wait_irq(((sim_ctx_t *)ctx)->sim,
                           (uint64_t)timeout_us * GR_LINK_SIM_CYCLES_PER_US, out_raised);
}

/* The device's m_host bursts are its DMA requests: on a byte-stream link each is one
 * DMA_RD/DMA_WR (PROTOCOL.md), so the two logs have the same lines. */
static void sim_host_burst(void *arg, bool write, uint64_t bus, const uint8_t *data, size_t bytes, bool ok)
{
    gr_txlog_dma(arg, write, bus, data, bytes, ok);
}

static void sim_set_txlog(void *ctx, gr_txlog_t *log)
{
    gr_sim_set_host_observer(((sim_ctx_t *)ctx)->sim, log ? sim_host_burst : NULL, log);
}

static uint32_t sim_caps(void *ctx)
{
    return GR_LINK_CAP_DMA | GR_LINK_CAP_IRQ | GR_LINK_CAP_WAVEFORM | GR_LINK_CAP_SIMULATED |
           (((sim_ctx_t *)ctx)->stale ? 0 : GR_LINK_CAP_FRESH_VRAM);
}

static void sim_describe(void *ctx, char *buf, size_t len)
{
    sim_ctx_t *c = ctx;
    snprintf(buf, len, "sim (Verilator, seed=%llu, cycle=%llu)",
             (unsigned long long)gr_sim_seed(c->sim), (unsigned long long)gr_sim_cycle(c->sim));
}

const gr_link_ops_t gr_link_sim_ops = {
    .scheme = "sim",
    .summary = "gpu_core under Verilator in this process",
    .param_keys = sim_keys,
    .open = sim_open,
    .close = sim_close,
    .read32 = sim_read32,
    .write32 = sim_write32,
    .ap_read = sim_ap_read,
    .ap_write = sim_ap_write,
    .dma_alloc = sim_dma_alloc,
    .dma_free = sim_dma_free,
    .wait_irq = sim_wait_irq,
    .caps = sim_caps,
    .describe = sim_describe,
    .set_txlog = sim_set_txlog,
};

gr_sim_t *gr_link_sim_of(gr_link_t *link)
{
    sim_ctx_t *c = gr_link_backend_ctx(link, &gr_link_sim_ops);
    return c ? c->sim : NULL;
}

typedef struct {
    const char *path;          /* trace_start */
    gr_sim_trace_info_t *info; /* every call */
    uint64_t *cycle;           /* trace_start */
} sim_trace_call_t;

static int trace_start_locked(void *ctx, void *arg)
{
    sim_ctx_t *c = ctx;
    sim_trace_call_t *a = arg;
    int rc = gr_sim_trace_start(c->sim, a->path, 0, 0);
    if (rc)
        return rc;
    *a->cycle = gr_sim_cycle(c->sim);
    return gr_sim_trace_info(c->sim, a->info);
}

static int trace_stop_locked(void *ctx, void *arg)
{
    return gr_sim_trace_stop(((sim_ctx_t *)ctx)->sim, ((sim_trace_call_t *)arg)->info);
}

static int trace_info_locked(void *ctx, void *arg)
{
    return gr_sim_trace_info(((sim_ctx_t *)ctx)->sim, ((sim_trace_call_t *)arg)->info);
}

int gr_link_sim_trace_start(gr_link_t *link, const char *path, gr_sim_trace_info_t *out_info, uint64_t *out_cycle)
{
    if (!out_info || !out_cycle)
        return GR_E_INVALID;
    sim_trace_call_t a = {path, out_info, out_cycle};
    return gr_link_backend_call(link, &gr_link_sim_ops, trace_start_locked, &a);
}

int gr_link_sim_trace_stop(gr_link_t *link, gr_sim_trace_info_t *out_info)
{
    sim_trace_call_t a = {NULL, out_info, NULL};
    return gr_link_backend_call(link, &gr_link_sim_ops, trace_stop_locked, &a);
}

int gr_link_sim_trace_info(gr_link_t *link, gr_sim_trace_info_t *out_info)
{
    if (!out_info)
        return GR_E_INVALID;
    sim_trace_call_t a = {NULL, out_info, NULL};
    return gr_link_backend_call(link, &gr_link_sim_ops, trace_info_locked, &a);
}
