/* gr_link_sim.c: the sim:// backend over tb/harness (see gr_link_sim.h for its contract). */
#include "gr_link_sim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sim_ctx {
    gr_sim_t *sim;
    gr_sim_config_t cfg;
} sim_ctx_t;

static const char *const sim_keys[] = {"seed", "stall", "latency", "norandom", "vram",
                                       "fst",  "txlog", NULL};

static int parse_u64(const char *key, const char *text, uint64_t max, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    uint64_t scale = 1;
    if (end && *end && strcmp(key, "vram") == 0) {
        scale = *end == 'K' ? 1ull << 10 : *end == 'M' ? 1ull << 20 : *end == 'G' ? 1ull << 30 : 0;
        end += scale ? 1 : 0;
    }
    if (errno || !*text || !end || *end || scale == 0 || v > max / scale) {
        gr_link_set_error("sim://: bad value '%s' for %s", text, key);
        return GR_E_BAD_URI;
    }
    *out = (uint64_t)v * scale;
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
    if (!rc && (s = gr_uri_param(uri, "seed")) && !(rc = parse_u64("seed", s, UINT64_MAX, &v)))
        c->cfg.seed = v;
    if (!rc && (s = gr_uri_param(uri, "stall")) && !(rc = parse_u64("stall", s, 90, &v)))
        c->cfg.stall_pct = (unsigned)v;
    if (!rc && (s = gr_uri_param(uri, "latency")) && !(rc = parse_u64("latency", s, 1000, &v)))
        c->cfg.max_latency = (unsigned)v;
    if (!rc && (s = gr_uri_param(uri, "norandom")) && !(rc = parse_u64("norandom", s, 1, &v)))
        c->cfg.no_random = v != 0;
    if (!rc && (s = gr_uri_param(uri, "vram")) && !(rc = parse_u64("vram", s, 1ull << 40, &v)))
        c->cfg.vram_bytes = v;
    c->cfg.fst_path = gr_uri_param(uri, "fst");
    c->cfg.txlog_path = gr_uri_param(uri, "txlog");
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
    c->cfg.txlog_path = NULL;
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

static uint32_t sim_caps(void *ctx)
{
    (void)ctx;
    return GR_LINK_CAP_DMA | GR_LINK_CAP_IRQ | GR_LINK_CAP_WAVEFORM | GR_LINK_CAP_SIMULATED;
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
};
