/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_link: what each gr_link transport costs, measured through the link itself
 * (bench/link/README.md has the method and results).
 *
 * Links: sim:// (in this process, quiet bus models), simd:// to gpuref-simd with each board
 * kind built (stream, ft601, ft2232h, uart; the FT601 board also --quiet, without the
 * harness's randomness), uart:// on gpuref-simd --pty, and, in the
 * bench_link_usb build of this file (GR_BENCH_USB), usb://ft601 and usb://ft2232h on the
 * emulated chips (sim/usb), and, in the PCIe build (GR_BENCH_COCOTB, linked into the
 * cocotb test's library by tb/tb.mk and run as its job pcie_job_bench),
 * cocotb:// through cocotbext-pcie's root complex, pcie_shell and gpu_core. Per link:
 *   - MMIO round trip: SCRATCH reads, in device cycles (DMA_TIMESTAMP_LO read before and after
 *     a batch) and in wall time; posted writes likewise (the batch ends with a read);
 *   - BAR1 write and read throughput in simulated time, against the link's ceiling (the
 *     fastest of AP_RUNS runs each way);
 *   - DMA (the device reading and writing host memory): a COPY host->VRAM and VRAM->host
 *     through the driver (gr_submit), timed by TIMESTAMP commands around the COPY;
 *   - what public calls cost: round trips, frames and bytes from the protocol engine's
 *     counters (gr_link_proto, gr_proto_counters), device cycles and wall time;
 *   - simulation speed: device cycles per wall second while the link idles one second;
 *   - on an FT601 link: the share of FIFO clock cycles that carried a word during a BAR1
 *     transfer, against the 95% target.
 * Nothing is asserted about wall time; --smoke checks bytes read back and that cycles counted.
 *
 * Usage: bench_link [--seed N] [--simd PATH] [--quick] [--smoke] [--rtrips] [--only a,b] [--out FILE]
 * (the PCIe build takes the same options from bench_link_main's argv).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_regmap.h"
#include "gpuref/gr_status.h"
#include "gpuref/gr_submit.h"
#include "gr_link.h"
#include "gr_proto.h"

#include "bench_link.h"

#ifdef GR_BENCH_USB
#include "gr_board.h"
#include "gr_usb_emu.h"
#elif defined(GR_BENCH_COCOTB)
#include "gr_link_cocotb.h"
#elif defined(GR_BENCH_VFIO)
#include "gr_vfio_emu.h"
#else
#define GR_BENCH_SIMD 1 /* the links through gpuref-simd */
#endif

#define CORE_HZ 100000000.0 /* every board's core clock, and sim://'s nominal one */
#define PCIE_HZ 250000000.0 /* the PCIe hard IP's user_clk, which gpu_core shares (tb_pcie_shell) */
#define FT601_CLK_NS 9.97   /* the board's FT601 clock (sim/board/README.md) */
#define CMD_AREA 4096u      /* a packet's commands; the DMA data follows */
#define TS_AT (CMD_AREA - 16u)
#define MAX_LINKS 8

static uint64_t g_seed = 1;
static bool g_quick, g_smoke;
/* --rtrips: the public calls only, and their round trips checked against RTRIPS_MAX (TAP). */
static bool g_rtrips;
#define RTRIPS_MAX 6u
static const char *g_simd = "build/bin/gpuref-simd";
static const char *g_only;
static FILE *g_md; /* --out: the tables again */
static int g_failures;

/* ---- output ---------------------------------------------------------------------------- */

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (g_md) {
        va_start(ap, fmt);
        vfprintf(g_md, fmt, ap);
        va_end(ap);
    }
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench_link: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    g_failures++;
}

static double wall_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- one link's results ------------------------------------------------------------------ */

typedef struct call_cost {
    const char *name;
    bool done;
    uint64_t round_trips, tx_frames, rx_frames, tx_bytes, rx_bytes;
    uint64_t cycles;
    double wall_ms;
} call_cost_t;

enum { CALL_ADAPTER, CALL_ALLOC, CALL_SUBMIT, CALL_COPY_IN, CALL_COPY_OUT, CALL_COUNT };

typedef struct link_res {
    char name[32];
    char uri[512];
    double ceiling_mbs;  /* the link's ceiling, MB/s */
    const char *ceiling_why;
    double core_hz;      /* gpu_core's clock: its cycles are the device cycles */
    size_t alloc_bytes;  /* the buffer of gr_alloc_create */
    bool ok, has_proto, ft601; /* has_proto: counters() counts (an engine's, or cocotb://'s TLPs) */
    double rd_cycles, rd_us, wr_cycles, wr_us;
    size_t ap_bytes;
    double ap_wr_cycles, ap_rd_cycles;
    uint64_t ap_wr_wire, ap_rd_wire; /* bytes both ways on the host end's pipe */
    bool board_counts;               /* the board's own count of the BAR1 transfers (usb://) */
    uint64_t ap_wr_bcycles, ap_rd_bcycles, ap_wr_bbytes, ap_rd_bbytes;
    size_t dma_bytes;
    double dma_in_cycles, dma_out_cycles;
    double speed;     /* device cycles per wall second */
    double speed_cpu; /* device cycles per CPU second of the simulating process */
    call_cost_t calls[CALL_COUNT];
} link_res_t;

static link_res_t g_res[MAX_LINKS];

/* The board behind the link when it runs in this process (usb://): its core cycles and the
 * bulk bytes that crossed the chip both ways. NULL otherwise. */
static uint64_t (*g_board_cycles)(void);
static uint64_t (*g_board_bytes)(void);
static unsigned g_nres;

/* ---- device time through the link -------------------------------------------------------- */

static int ts_read(gr_link_t *l, uint32_t *out_ts)
{
    return gr_link_read32(l, GR_REG_DMA_TIMESTAMP_LO, out_ts);
}

static void counters(gr_link_t *l, gr_proto_counters_t *c)
{
    memset(c, 0, sizeof *c);
    gr_proto_t *p;
    if (gr_link_proto(l, &p) == GR_OK)
        gr_proto_counters(p, c);
#ifdef GR_BENCH_COCOTB
    /* PCIe has no engine: a round trip is a non-posted request the host waited for, a frame
     * a TLP on the root port (the device's DMA requests and their completions included) */
    gr_link_cocotb_counts_t k;
    if (!strcmp(gr_link_scheme(l), "cocotb") && gr_link_cocotb_counts(&k) == GR_OK) {
        c->round_trips = k.round_trips;
        c->link.tx_frames = k.tlps_down;
        c->link.rx_frames = k.tlps_up;
        c->link.tx_bytes = k.bytes_down;
        c->link.rx_bytes = k.bytes_up;
    }
#elif defined(GR_BENCH_VFIO)
    /* pcie:// on the VFIO emulation: a round trip is a BAR read (a pread or a mapped load the
     * host waited for), a frame a TLP on the card's four streams */
    if (!strcmp(gr_link_scheme(l), "pcie")) {
        gr_vfio_emu_stats_t k;
        gr_vfio_emu_stats(&k);
        c->round_trips = k.bar_reads;
        c->link.tx_frames = k.cq_tlps + k.rc_tlps;
        c->link.rx_frames = k.cc_tlps + k.rq_tlps;
        c->link.tx_bytes = k.bytes_down;
        c->link.rx_bytes = k.bytes_up;
    }
#endif
}

/* The link counts round trips and frames (the protocol engine, or cocotb://'s TLPs). */
static bool link_counts(gr_link_t *l)
{
    gr_proto_t *p;
    if (gr_link_proto(l, &p) == GR_OK)
        return true;
#ifdef GR_BENCH_COCOTB
    gr_link_cocotb_counts_t k;
    return !strcmp(gr_link_scheme(l), "cocotb") && gr_link_cocotb_counts(&k) == GR_OK;
#elif defined(GR_BENCH_VFIO)
    gr_vfio_emu_stats_t k;
    gr_vfio_emu_stats(&k);
    return !strcmp(gr_link_scheme(l), "pcie") && k.shell;
#else
    return false;
#endif
}

/* MMIO: reads of SCRATCH back to back, then posted writes ended by one read. */
static int bench_mmio(gr_link_t *l, link_res_t *r, unsigned n)
{
    uint32_t t0, t1, v;
    int rc = ts_read(l, &t0);
    double w0 = wall_s();
    for (unsigned i = 0; i < n && !rc; i++)
        rc = gr_link_read32(l, GR_REG_SCRATCH, &v);
    double w1 = wall_s();
    if (!rc)
        rc = ts_read(l, &t1);
    if (rc)
        return rc;
    /* n reads plus the second TIMESTAMP read's way to the device and the first's way back */
    r->rd_cycles = (double)(uint32_t)(t1 - t0) / (n + 1);
    r->rd_us = (w1 - w0) * 1e6 / n;
    rc = ts_read(l, &t0);
    w0 = wall_s();
    for (unsigned i = 0; i < n && !rc; i++)
        rc = gr_link_write32(l, GR_REG_SCRATCH, 0x5a000000u + i);
    w1 = wall_s(); /* what the caller waits for: posted writes queue (the read below sends them) */
    if (!rc)
        rc = gr_link_read32(l, GR_REG_SCRATCH, &v);
    if (!rc)
        rc = ts_read(l, &t1);
    if (rc)
        return rc;
    if (v != 0x5a000000u + n - 1)
        fail("%s: SCRATCH reads 0x%08x after the writes, not 0x%08x", r->name, v, 0x5a000000u + n - 1);
    /* the closing read and the TIMESTAMP read cost about two round trips */
    double wc = (double)(uint32_t)(t1 - t0) - 2.0 * r->rd_cycles;
    r->wr_cycles = (wc > 0 ? wc : 0) / n;
    r->wr_us = (w1 - w0) * 1e6 / n;
    return GR_OK;
}

/* BAR1 runs of each direction: a host's turnarounds (the TIMESTAMP reads around a transfer are
 * round trips) only ever add device cycles, so the least of a few runs is the transfer's own
 * time and the best estimate of what the device does. */
#define AP_RUNS 5

/* The least round trip of a TIMESTAMP read: two reads back to back, their difference. */
static int ts_round_trip_min(gr_link_t *l, double *out)
{
    double best = 0;
    for (int i = 0; i < 2 * AP_RUNS; i++) {
        uint32_t t0, t1;
        int rc = ts_read(l, &t0);
        if (!rc)
            rc = ts_read(l, &t1);
        if (rc)
            return rc;
        const double c = (double)(uint32_t)(t1 - t0);
        if (i == 0 || c < best)
            best = c;
    }
    *out = best;
    return GR_OK;
}

/* One BAR1 transfer timed: device cycles between the TIMESTAMP reads around it less one round
 * trip, the bytes both ways on the host end's pipe, and the board's own count where it runs in
 * this process. */
typedef struct ap_run {
    double cycles;
    uint64_t wire, bcycles, bbytes;
} ap_run_t;

static int ap_timed(gr_link_t *l, bool write, uint64_t at, uint8_t *buf, size_t bytes, double rt, ap_run_t *out)
{
    gr_proto_counters_t c0, c1;
    uint32_t t0, t1;
    uint64_t b0 = 0, b1 = 0, y0 = 0, y1 = 0;
    int rc = ts_read(l, &t0);
    counters(l, &c0);
    if (g_board_cycles)
        b0 = g_board_cycles(), y0 = g_board_bytes();
    if (!rc)
        rc = write ? gr_link_ap_write(l, at, buf, bytes) : gr_link_ap_read(l, at, buf, bytes);
    if (g_board_cycles)
        b1 = g_board_cycles(), y1 = g_board_bytes();
    counters(l, &c1);
    if (!rc)
        rc = ts_read(l, &t1);
    if (rc)
        return rc;
    out->cycles = (double)(uint32_t)(t1 - t0) - rt;
    out->wire = (c1.link.tx_bytes - c0.link.tx_bytes) + (c1.link.rx_bytes - c0.link.rx_bytes);
    out->bcycles = b1 - b0;
    out->bbytes = y1 - y0;
    return GR_OK;
}

/* BAR1: `bytes` written and read back, AP_RUNS times each where the board runs freely (once
 * elsewhere and with --smoke), every read compared; each direction's figures are its fastest
 * run's. */
static int bench_ap(gr_link_t *l, link_res_t *r, size_t bytes)
{
    uint8_t *src = malloc(bytes), *dst = malloc(bytes);
    if (!src || !dst) {
        free(src);
        free(dst);
        return GR_E_NO_MEMORY;
    }
    uint64_t x = g_seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < bytes; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        src[i] = (uint8_t)x;
    }
    const uint64_t at = 1u << 20; /* well inside the aperture, away from what the driver uses */
    /* Only where the board runs freely (simd://, uart://) does a host's turnaround cost device
     * time; elsewhere time passes only inside calls and every run is the same. */
    const char *scheme = gr_link_scheme(l);
    const bool free_running = !strcmp(scheme, "simd") || !strcmp(scheme, "uart");
    const int runs = g_smoke || !free_running ? 1 : AP_RUNS;
    double rt = r->rd_cycles;
    int rc = runs == 1 ? GR_OK : ts_round_trip_min(l, &rt);
    ap_run_t w = {0}, rd = {0};
    for (int i = 0; i < runs && !rc; i++) {
        ap_run_t a, b;
        rc = ap_timed(l, true, at, src, bytes, rt, &a);
        if (!rc) {
            memset(dst, 0, bytes);
            rc = ap_timed(l, false, at, dst, bytes, rt, &b);
        }
        if (rc)
            break;
        if (memcmp(src, dst, bytes))
            fail("%s: BAR1 read back differs from what was written (%zu bytes, run %d)", r->name, bytes, i + 1);
        if (i == 0 || (g_board_cycles ? a.bcycles < w.bcycles : a.cycles < w.cycles))
            w = a;
        if (i == 0 || (g_board_cycles ? b.bcycles < rd.bcycles : b.cycles < rd.cycles))
            rd = b;
    }
    if (!rc) {
        r->ap_wr_cycles = w.cycles;
        r->ap_rd_cycles = rd.cycles;
        r->ap_wr_wire = w.wire;
        r->ap_rd_wire = rd.wire;
        r->ap_wr_bcycles = w.bcycles;
        r->ap_rd_bcycles = rd.bcycles;
        r->ap_wr_bbytes = w.bbytes;
        r->ap_rd_bbytes = rd.bbytes;
        r->board_counts = g_board_cycles != NULL;
        r->ap_bytes = bytes;
    }
    free(src);
    free(dst);
    return rc;
}

static pid_t g_server; /* gpuref-simd while one runs */

/* CPU seconds of the process that simulates: gpuref-simd when it runs, else this one. */
static double cpu_s(void)
{
    if (g_server > 0) {
        char path[64], buf[1024];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)g_server);
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose(f);
        buf[n] = 0;
        const char *p = strrchr(buf, ')'); /* fields after the command name */
        unsigned long ut = 0, st = 0;
        if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
            return 0;
        return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
    }
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Device cycles one wall second of an idle link covers (sim://: time runs in the call). */
static int bench_speed(gr_link_t *l, link_res_t *r)
{
    uint32_t t0, t1;
    bool raised;
    int rc = ts_read(l, &t0);
    const double c0 = cpu_s();
    double w0 = wall_s(), w1 = w0;
    if (gr_link_caps(l) & GR_LINK_CAP_SIMULATED && !strcmp(gr_link_scheme(l), "sim")) {
        /* sim:// waits in simulated time: 2M cycles, however long that takes */
        if (!rc)
            rc = gr_link_wait_irq(l, g_smoke ? 2000 : 20000, &raised);
    } else if (!strcmp(gr_link_scheme(l), "cocotb")) {
        /* so does cocotb://, in simulated microseconds, under an event-driven simulator: 20 us
         * (5000 cycles at 250 MHz) */
        if (!rc)
            rc = gr_link_wait_irq(l, g_smoke ? 2 : 20, &raised);
    } else {
        while (!rc && (w1 = wall_s()) - w0 < (g_smoke ? 0.2 : 1.0))
            rc = gr_link_wait_irq(l, 50000, &raised);
    }
    w1 = wall_s();
    const double c1 = cpu_s();
    if (!rc)
        rc = ts_read(l, &t1);
    if (!rc) {
        r->speed = (double)(uint32_t)(t1 - t0) / (w1 - w0);
        r->speed_cpu = c1 > c0 ? (double)(uint32_t)(t1 - t0) / (c1 - c0) : 0;
    }
    return rc;
}

/* ---- the public calls, through the driver -------------------------------------------------- */

typedef struct drv {
    gr_adapter_t *ad;
    gr_process_t *proc;
    gr_gpu_device_t *gdev;
    gr_context_t ctx;
} drv_t;

typedef struct snap {
    gr_proto_counters_t c;
    uint32_t ts;
    double w;
} snap_t;

static int snap_take(gr_link_t *l, snap_t *s)
{
    int rc = ts_read(l, &s->ts);
    s->w = wall_s();
    counters(l, &s->c);
    return rc;
}

static int snap_end(gr_link_t *l, const snap_t *s0, call_cost_t *cc, double rt_cycles)
{
    snap_t s1;
    counters(l, &s1.c);
    s1.w = wall_s();
    int rc = ts_read(l, &s1.ts);
    if (rc)
        return rc;
    cc->done = true;
    cc->round_trips = s1.c.round_trips - s0->c.round_trips;
    cc->tx_frames = s1.c.link.tx_frames - s0->c.link.tx_frames;
    cc->rx_frames = s1.c.link.rx_frames - s0->c.link.rx_frames;
    cc->tx_bytes = s1.c.link.tx_bytes - s0->c.link.tx_bytes;
    cc->rx_bytes = s1.c.link.rx_bytes - s0->c.link.rx_bytes;
    const double c = (double)(uint32_t)(s1.ts - s0->ts) - rt_cycles;
    cc->cycles = c > 0 ? (uint64_t)c : 0;
    cc->wall_ms = (s1.w - s0->w) * 1e3;
    return GR_OK;
}

/* One packet: [TIMESTAMP][COPY][TIMESTAMP], or just a TIMESTAMP when bytes is 0. */
static int run_packet(drv_t *d, gr_alloc_t a, uint64_t gpu_va, size_t bytes, bool to_vram, double *out_cycles,
                      bool check)
{
    gr_dma_buffer_t buf;
    int rc = gr_dma_buffer_create(d->gdev, d->ctx, (uint32_t)(CMD_AREA + (bytes ? bytes : 8)), &buf);
    if (rc)
        return rc;
    gr_dma_buffer_info_t bi;
    rc = gr_dma_buffer_info(d->gdev, buf, &bi);
    if (rc)
        goto out;
    uint8_t *data = (uint8_t *)bi.cpu + CMD_AREA;
    for (size_t i = 0; i < bytes; i++)
        data[i] = to_vram ? (uint8_t)(i * 7u + 3u) : 0;
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, bi.cpu, TS_AT);
    gr_dma_put64((uint8_t *)bi.cpu + TS_AT, 0);
    gr_dma_put64((uint8_t *)bi.cpu + TS_AT + 8, 0);
    gr_alloc_ref_t ref = {.handle = a, .flags = to_vram ? GR_ALLOC_REF_WRITE : 0};
    (void)gr_dma_timestamp(&w, GR_DMA_SPACE_GPUVA, bi.gpu_va + TS_AT);
    if (bytes) {
        if (to_vram)
            (void)gr_dma_copy(&w, GR_DMA_SPACE_GPUVA, bi.gpu_va + CMD_AREA, GR_DMA_SPACE_GPUVA, gpu_va, bytes);
        else
            (void)gr_dma_copy(&w, GR_DMA_SPACE_GPUVA, gpu_va, GR_DMA_SPACE_GPUVA, bi.gpu_va + CMD_AREA, bytes);
        (void)gr_dma_timestamp(&w, GR_DMA_SPACE_GPUVA, bi.gpu_va + TS_AT + 8);
    }
    gr_submission_t sub = {.buffer = buf, .start = 0, .end = (uint32_t)w.used, .allocs = &ref, .alloc_count = 1};
    uint64_t fence;
    rc = gr_submit(d->gdev, d->ctx, &sub, &fence);
    if (!rc)
        rc = gr_wait(d->gdev, d->ctx, fence, 4000000000ull);
    if (!rc && bytes) {
        const uint64_t a0 = gr_dma_get64((uint8_t *)bi.cpu + TS_AT), a1 = gr_dma_get64((uint8_t *)bi.cpu + TS_AT + 8);
        *out_cycles = (double)(a1 - a0);
        for (size_t i = 0; check && i < bytes; i++)
            if (data[i] != (uint8_t)(i * 7u + 3u)) {
                fail("DMA VRAM->host: byte %zu reads 0x%02x", i, data[i]);
                break;
            }
    }
out:
    if (gr_dma_buffer_destroy(d->gdev, buf) && !rc)
        rc = GR_E_INVALID;
    return rc;
}

static int bench_driver(gr_link_t *l, link_res_t *r, size_t copy_bytes)
{
    drv_t d;
    memset(&d, 0, sizeof d);
    snap_t s;
    call_cost_t *cc = r->calls;
    cc[CALL_ADAPTER].name = "adapter start (gr_adapter_open_link, process, device, context)";
    cc[CALL_ALLOC].name = "gr_alloc_create";
    cc[CALL_SUBMIT].name = "gr_submit + gr_wait (one TIMESTAMP)";
    cc[CALL_COPY_IN].name = "COPY host->VRAM (gr_submit + gr_wait)";
    cc[CALL_COPY_OUT].name = "COPY VRAM->host (gr_submit + gr_wait)";
    int rc = snap_take(l, &s);
    if (!rc)
        rc = gr_adapter_open_link(l, &d.ad);
    if (!rc)
        rc = gr_process_create(d.ad, &d.proc);
    if (!rc)
        rc = gr_gpu_device_create(d.proc, &d.gdev);
    if (!rc)
        rc = gr_context_create(d.gdev, NULL, 0, &d.ctx);
    if (!rc)
        rc = snap_end(l, &s, &cc[CALL_ADAPTER], r->rd_cycles);
    if (rc) {
        fail("%s: the driver does not start: %s (%s)", r->name, gr_status_name(rc), gr_link_error());
        gr_adapter_close(d.ad);
        return rc;
    }
    gr_alloc_private_t p;
    memset(&p, 0, sizeof p);
    p.version = GR_ALLOC_PRIVATE_VERSION;
    p.struct_size = sizeof p;
    p.kind = GR_ALLOC_KIND_BUFFER;
    p.cpu_access = GR_CPU_ACCESS_NONE;
    p.buffer_bytes = (uint32_t)r->alloc_bytes;
    gr_alloc_desc_t desc = {.private_data = &p, .private_size = sizeof p};
    gr_alloc_t a = 0;
    gr_alloc_info_t ai;
    rc = snap_take(l, &s);
    if (!rc)
        rc = gr_alloc_create(d.gdev, NULL, &desc, 1, &a, NULL);
    if (!rc)
        rc = snap_end(l, &s, &cc[CALL_ALLOC], r->rd_cycles);
    if (!rc)
        rc = gr_alloc_query(d.gdev, a, &ai);
    double dummy = 0;
    if (!rc)
        rc = snap_take(l, &s);
    if (!rc)
        rc = run_packet(&d, a, ai.gpu_va, 0, true, &dummy, false);
    if (!rc)
        rc = snap_end(l, &s, &cc[CALL_SUBMIT], r->rd_cycles);
    if (!rc)
        rc = snap_take(l, &s);
    if (!rc)
        rc = run_packet(&d, a, ai.gpu_va, copy_bytes, true, &r->dma_in_cycles, false);
    if (!rc)
        rc = snap_end(l, &s, &cc[CALL_COPY_IN], r->rd_cycles);
    if (!rc)
        rc = snap_take(l, &s);
    if (!rc)
        rc = run_packet(&d, a, ai.gpu_va, copy_bytes, false, &r->dma_out_cycles, true);
    if (!rc)
        rc = snap_end(l, &s, &cc[CALL_COPY_OUT], r->rd_cycles);
    if (!rc)
        r->dma_bytes = copy_bytes;
    else
        fail("%s: driver calls: %s (%s)", r->name, gr_status_name(rc), gr_link_error());
    gr_adapter_close(d.ad);
    return rc;
}

/* ---- one link, start to end --------------------------------------------------------------- */

typedef struct link_plan {
    const char *name;
    double ceiling_mbs;
    const char *ceiling_why;
    unsigned mmio_n;
    size_t ap_bytes, copy_bytes;
    bool ft601;
    double core_hz;
    size_t alloc_bytes; /* the buffer gr_alloc_create makes (and the copies use) */
} link_plan_t;

static bool wanted(const char *name)
{
    if (!g_only)
        return true;
    size_t n = strlen(name);
    for (const char *p = g_only; (p = strstr(p, name)); p += n)
        if ((p == g_only || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
            return true;
    return false;
}

static void run_link(const link_plan_t *pl, const char *uri)
{
    if (g_nres == MAX_LINKS)
        return;
    link_res_t *r = &g_res[g_nres++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", pl->name);
    snprintf(r->uri, sizeof r->uri, "%s", uri);
    r->ceiling_mbs = pl->ceiling_mbs;
    r->ceiling_why = pl->ceiling_why;
    r->core_hz = pl->core_hz;
    r->alloc_bytes = pl->alloc_bytes;
    r->ft601 = pl->ft601;
    fprintf(stderr, "bench_link: %s (%s)\n", pl->name, uri);
    gr_link_t *l;
    int rc = gr_link_open(uri, &l);
    if (rc) {
        fail("%s: cannot open %s: %s (%s)", pl->name, uri, gr_status_name(rc), gr_link_error());
        return;
    }
    r->has_proto = link_counts(l);
    rc = g_rtrips ? GR_OK : bench_speed(l, r);
    if (!rc)
        rc = bench_mmio(l, r, g_rtrips ? 4 : pl->mmio_n);
    if (!rc && !g_rtrips)
        rc = bench_ap(l, r, pl->ap_bytes);
    if (rc)
        fail("%s: %s (%s)", pl->name, gr_status_name(rc), gr_link_error());
    else if (!bench_driver(l, r, pl->copy_bytes))
        r->ok = true;
    gr_link_close(l);
}

/* ---- gpuref-simd ----------------------------------------------------------------------------- */

static char g_dir[64];
#ifdef GR_BENCH_SIMD

static void server_stop(void)
{
    if (g_server > 0) {
        kill(g_server, SIGTERM);
        waitpid(g_server, NULL, 0);
    }
    g_server = 0;
}

/* Interrupted: the server goes too (it would serve on forever). */
static void on_signal(int sig)
{
    if (g_server > 0)
        kill(g_server, SIGTERM);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Starts gpuref-simd with args and waits (60 s at most) for the banner of a ready server. */
static bool server_start(const char *const *args)
{
    static unsigned starts;
    char log[128];
    /* a log per start: the banner of an earlier server must not count */
    snprintf(log, sizeof log, "%s/server%u.log", g_dir, starts++);
    unlink(log);
    const char *argv[24];
    unsigned n = 0;
    char seed[32];
    snprintf(seed, sizeof seed, "%" PRIu64, g_seed);
    argv[n++] = g_simd;
    argv[n++] = "--seed";
    argv[n++] = seed;
    for (; *args && n < 22; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    fflush(stdout); /* the child must not write this process's buffered output again */
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(log, "w", stdout) || !freopen(log, "a", stderr))
            _exit(127);
        execv(g_simd, (char *const *)argv);
        _exit(127);
    }
    if (pid < 0)
        return false;
    g_server = pid;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    for (int i = 0; i < 600; i++) {
        char line[512];
        FILE *f = fopen(log, "r");
        bool ready = false;
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "gpuref-simd: ", 13) && (strstr(line, "serving ") || strstr(line, " board on /")))
                ready = true;
        if (f)
            fclose(f);
        if (ready)
            return true;
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            g_server = 0;
            break;
        }
        usleep(100000);
    }
    fail("gpuref-simd %s did not start (log: %s)", args[0] ? args[0] : "", log);
    server_stop();
    return false;
}

/* The kinds this gpuref-simd has ("Built-in board kinds: ..." in its --help). */
static void server_kinds(char *buf, size_t len)
{
    buf[0] = 0;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "'%s' --help 2>/dev/null", g_simd);
    FILE *f = popen(cmd, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "Built-in board kinds: ", 22))
            snprintf(buf, len, "%.200s", line + 22);
    if (f)
        pclose(f);
}

static bool has_word(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; (p = strstr(p, w)); p += n)
        if ((p == list || p[-1] == ' ' || p[-1] == ',') && (p[n] == ' ' || p[n] == ',' || p[n] == '\n' || !p[n]))
            return !strstr(list, "none");
    return false;
}

#endif

/* ---- the links ------------------------------------------------------------------------------ */

/* Sizes: BAR1 transfers and copies scale with the link (a 3 Mbaud line moves 300 KB/s). */
#define KB 1024u
static link_plan_t plan_sim = {"sim://", 800.0, "8 B x 100 MHz data bus", 200, 64 * KB, 1024 * KB, false, CORE_HZ, 1024 * KB};
#ifdef GR_BENCH_SIMD
static link_plan_t plan_stream = {"simd:// stream", 400.0, "4 B x 100 MHz engine words", 100, 64 * KB, 1024 * KB, false, CORE_HZ, 1024 * KB};
static link_plan_t plan_ft601 = {"simd:// ft601", 400.0, "FT601 4 B x 100 MHz, both ways", 100, 64 * KB, 1024 * KB, true, CORE_HZ, 1024 * KB};
/* The same board with --quiet: VRAM at once and a host side that takes every IN word, the
 * FT601 link at its best (the 95% FIFO target is the RTL's, not the harness host's). */
static link_plan_t plan_ft601q = {"simd:// ft601 quiet", 400.0, "FT601 4 B x 100 MHz, both ways", 100, 64 * KB, 1024 * KB, true, CORE_HZ, 1024 * KB};
static link_plan_t plan_ft2232h = {"simd:// ft2232h", 60.0, "FT2232H 60 MB/s", 100, 64 * KB, 1024 * KB, false, CORE_HZ, 1024 * KB};
static link_plan_t plan_uart = {"simd:// uart", 0.3, "3 Mbaud / 10", 20, 1 * KB, 4 * KB, false, CORE_HZ, 1024 * KB};
static link_plan_t plan_pty = {"uart:// pty", 0.3, "3 Mbaud / 10", 20, 1 * KB, 4 * KB, false, CORE_HZ, 1024 * KB};
#elif defined(GR_BENCH_USB)
static link_plan_t plan_usb601 = {"usb://ft601", 400.0, "FT601 4 B x 100 MHz, both ways", 100, 64 * KB, 1024 * KB, true, CORE_HZ, 1024 * KB};
static link_plan_t plan_usb2232 = {"usb://ft2232h", 60.0, "FT2232H 60 MB/s", 100, 64 * KB, 1024 * KB, false, CORE_HZ, 1024 * KB};
#elif defined(GR_BENCH_VFIO)
/* pcie:// on the VFIO emulation (sim/vfio): pcie_core under Verilator behind the emulation's
 * root complex, which drives the hard IP's 64-bit interface every cycle it has a beat (taken as
 * the 250 MHz user_clk of Gen3 x2, the cocotb:// row's link) and answers a read 100 cycles
 * after its request. */
static link_plan_t plan_vfio = {"pcie:// vfio", 1969.2, "Gen3 x2, 64-bit at 250 MHz, each way", 100, 64 * KB,
                                1024 * KB, false, PCIE_HZ, 1024 * KB};
#else
/* PCIe in simulation, with smaller copies and buffer than the others (256 KiB: Icarus runs
 * gpu_core, the shell and the hard IP model at a few thousand cycles per CPU second, and every
 * byte of a new buffer is zeroed by a paging FILL first): the link cocotbext-pcie's UltraScale+
 * model trains with a 64-bit interface at a 250 MHz user_clk, Gen3 x2: 2 lanes x 8 GT/s x
 * 128/130 / 8 = 1969 MB/s each way (the interface, 8 B x 250 MHz = 2000 MB/s, is a little
 * wider). */
static link_plan_t plan_pcie = {"cocotb:// pcie", 1969.2, "Gen3 x2, 64-bit at 250 MHz, each way", 50, 64 * KB, 256 * KB,
                                false, PCIE_HZ, 256 * KB};
#endif

static void scale(link_plan_t *p)
{
    if (g_smoke) {
        p->mmio_n = p->mmio_n > 20 ? 20 : p->mmio_n;
        p->ap_bytes = p->ap_bytes > 4 * KB ? 4 * KB : p->ap_bytes;
        p->copy_bytes = p->copy_bytes > 16 * KB ? 16 * KB : p->copy_bytes;
    } else if (g_quick) {
        p->copy_bytes = p->copy_bytes > 256 * KB ? 256 * KB : p->copy_bytes;
    }
    if (g_rtrips)
        p->copy_bytes = p->copy_bytes > 4 * KB ? 4 * KB : p->copy_bytes;
}

#define SLOW "replay_ms=5000&dead_ms=60000&timeout_ms=120000&keepalive_ms=2000"

#ifdef GR_BENCH_SIMD
static void run_simd_links(void)
{
    char kinds[256];
    server_kinds(kinds, sizeof kinds);
    struct {
        const char *kind, *want;
        link_plan_t *plan;
        bool quiet;
    } ks[] = {{"stream", "stream", &plan_stream, false},     {"ft601", "ft601", &plan_ft601, false},
              {"ft601", "ft601-quiet", &plan_ft601q, true}, {"ft2232h", "ft2232h", &plan_ft2232h, false},
              {"uart", "uart", &plan_uart, false}};
    for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
        if (!wanted(ks[k].want))
            continue;
        if (!has_word(kinds, ks[k].kind)) {
            printf("# simd:// %s: no %s board in this build of gpuref-simd (skipped)\n", ks[k].kind, ks[k].kind);
            continue;
        }
        char sock[128], uri[512];
        snprintf(sock, sizeof sock, "%s/%s.sock", g_dir, ks[k].want);
        const char *args[] = {"--socket", sock, "--board", ks[k].kind, ks[k].quiet ? "--quiet" : NULL, NULL};
        if (!server_start(args))
            continue;
        snprintf(uri, sizeof uri, "simd://%s?%s", sock, SLOW);
        scale(ks[k].plan);
        run_link(ks[k].plan, uri);
        server_stop();
    }
    if (!wanted("pty"))
        return;
    if (!has_word(kinds, "uart")) {
        printf("# uart:// pty: no uart board in this build of gpuref-simd (skipped)\n");
        return;
    }
    char link[128];
    snprintf(link, sizeof link, "%s/pty", g_dir);
    const char *args[] = {"--pty", "--pty-link", link, NULL};
    if (!server_start(args))
        return;
    char tty[256] = "", uri[512];
    FILE *f = fopen(link, "r");
    if (f) {
        if (!fgets(tty, sizeof tty, f))
            tty[0] = 0;
        fclose(f);
    }
    tty[strcspn(tty, "\r\n")] = 0;
    if (tty[0]) {
        snprintf(uri, sizeof uri, "uart://%s?%s", tty, SLOW);
        scale(&plan_pty);
        run_link(&plan_pty, uri);
    } else {
        fail("gpuref-simd --pty wrote no slave path to %s", link);
    }
    server_stop();
}
#endif

/* ---- tables ------------------------------------------------------------------------------- */

/* MB/s of `bytes` in `cycles` of the link's gpu_core clock */
static double mbs(const link_res_t *r, size_t bytes, double cycles)
{
    return cycles > 0 ? (double)bytes / (cycles / r->core_hz) / 1e6 : 0;
}

static const link_res_t *ref_sim(void)
{
    for (unsigned i = 0; i < g_nres; i++)
        if (!strcmp(g_res[i].name, "sim://") && g_res[i].ok)
            return &g_res[i];
    return NULL;
}

/* "2.5x", or "-" without a reference */
static const char *ratio(double a, double ref, char *buf, size_t n)
{
    if (ref > 0)
        snprintf(buf, n, "%.2fx", a / ref);
    else
        snprintf(buf, n, "-");
    return buf;
}

static void size_str(size_t b, char *s, size_t n)
{
    if (b >= 1024 * 1024)
        snprintf(s, n, "%zu MiB", b >> 20);
    else
        snprintf(s, n, "%zu KiB", b >> 10);
}

static void print_tables(void)
{
    const link_res_t *sim = ref_sim();
    out("\n### MMIO round trip (SCRATCH; device cycles of gpu_core's clock: 100 MHz, PCIe 250 MHz; wall time)\n\n");
    out("| link | read: cycles | read: device ns | read: wall us | x sim:// cycles | posted write: device cycles | posted write: caller's wall us |\n");
    out("|---|---:|---:|---:|---:|---:|---:|\n");
    for (unsigned i = 0; i < g_nres; i++) {
        const link_res_t *r = &g_res[i];
        if (!r->ok) {
            out("| %s | failed | | | | | |\n", r->name);
            continue;
        }
        char x[32];
        out("| %s | %.0f | %.0f | %.1f | %s | %.1f | %.2f |\n", r->name, r->rd_cycles, r->rd_cycles * 1e9 / r->core_hz,
            r->rd_us, ratio(r->rd_cycles, sim ? sim->rd_cycles : 0, x, sizeof x), r->wr_cycles, r->wr_us);
    }
    out("\n### Throughput in simulated time, against the link's ceiling\n\n");
    out("| link | ceiling | BAR1 size | BAR1 write MB/s | %% | BAR1 read MB/s | %% | DMA size | DMA host->VRAM MB/s | %% | DMA VRAM->host MB/s | %% |\n");
    out("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (unsigned i = 0; i < g_nres; i++) {
        const link_res_t *r = &g_res[i];
        if (!r->ok)
            continue;
        char as[32], ds[32];
        size_str(r->ap_bytes, as, sizeof as);
        size_str(r->dma_bytes, ds, sizeof ds);
        const double aw = mbs(r, r->ap_bytes, r->ap_wr_cycles), ar = mbs(r, r->ap_bytes, r->ap_rd_cycles);
        const double di = mbs(r, r->dma_bytes, r->dma_in_cycles), dout = mbs(r, r->dma_bytes, r->dma_out_cycles);
        out("| %s | %.1f MB/s (%s) | %s | %.2f | %.1f%% | %.2f | %.1f%% | %s | %.2f | %.1f%% | %.2f | %.1f%% |\n", r->name,
            r->ceiling_mbs, r->ceiling_why, as, aw, 100 * aw / r->ceiling_mbs, ar, 100 * ar / r->ceiling_mbs, ds, di,
            100 * di / r->ceiling_mbs, dout, 100 * dout / r->ceiling_mbs);
    }
    out("\n### What public calls cost (protocol engine counters; cocotb:// pcie: TLPs on the root port, "
        "wire bytes; sim:// has neither)\n\n");
    out("| link | call | round trips | frames out/in | bytes out/in | device cycles | wall ms |\n");
    out("|---|---|---:|---:|---:|---:|---:|\n");
    for (unsigned i = 0; i < g_nres; i++) {
        const link_res_t *r = &g_res[i];
        for (unsigned k = 0; k < CALL_COUNT; k++) {
            const call_cost_t *c = &r->calls[k];
            if (!c->done)
                continue;
            char nm[96];
            snprintf(nm, sizeof nm, "%s", c->name);
            if (k == CALL_COPY_IN || k == CALL_COPY_OUT) {
                char ds[32];
                size_str(r->dma_bytes, ds, sizeof ds);
                snprintf(nm, sizeof nm, "%s %s", ds, c->name);
            } else if (k == CALL_ALLOC) {
                char as[32];
                size_str(r->alloc_bytes, as, sizeof as);
                snprintf(nm, sizeof nm, "%s (%s buffer)", c->name, as);
            }
            if (r->has_proto)
                out("| %s | %s | %" PRIu64 " | %" PRIu64 "/%" PRIu64 " | %" PRIu64 "/%" PRIu64 " | %" PRIu64 " | %.1f |\n",
                    r->name, nm, c->round_trips, c->tx_frames, c->rx_frames, c->tx_bytes, c->rx_bytes, c->cycles,
                    c->wall_ms);
            else
                out("| %s | %s | - | - | - | %" PRIu64 " | %.1f |\n", r->name, nm, c->cycles, c->wall_ms);
        }
    }
    out("\n### Simulation speed (device cycles per second, the link idle; CPU: the simulating process)\n\n");
    out("| link | cycles/wall s | x sim:// | cycles/CPU s | x sim:// |\n|---|---:|---:|---:|---:|\n");
    for (unsigned i = 0; i < g_nres; i++) {
        const link_res_t *r = &g_res[i];
        if (!r->ok)
            continue;
        char x[32], y[32];
        out("| %s | %.0f | %s | %.0f | %s |\n", r->name, r->speed, ratio(r->speed, sim ? sim->speed : 0, x, sizeof x),
            r->speed_cpu, ratio(r->speed_cpu, sim ? sim->speed_cpu : 0, y, sizeof y));
    }
    bool any = false;
    for (unsigned i = 0; i < g_nres; i++) {
        const link_res_t *r = &g_res[i];
        if (!r->ok || !r->ft601)
            continue;
        if (!any) {
            out("\n### FT601 FIFO cycles carrying a word (target: at least 95%% on 64 KiB transfers)\n\n");
            out("| link | transfer | counted from | FIFO cycles | words both ways | word share | payload words | payload share | MB/s of 400 | target 95%% |\n");
            out("|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
            any = true;
        }
        for (int dir = 0; dir < 2; dir++) {
            double cyc = dir ? r->ap_rd_cycles : r->ap_wr_cycles;
            double words = (double)(dir ? r->ap_rd_wire : r->ap_wr_wire) / 4.0;
            const char *how = "TIMESTAMP, host bytes";
            if (r->board_counts) {
                /* the board's own cycle count and the bytes the chip moved: no round trip to subtract */
                cyc = (double)(dir ? r->ap_rd_bcycles : r->ap_wr_bcycles);
                words = (double)(dir ? r->ap_rd_bbytes : r->ap_wr_bbytes) / 4.0;
                how = "board cycles, chip bytes";
            }
            const double fifo = cyc * 10.0 / FT601_CLK_NS;
            const double pw = (double)r->ap_bytes / 4.0;
            char as[32];
            size_str(r->ap_bytes, as, sizeof as);
            out("| %s | BAR1 %s %s | %s | %.0f | %.0f | %.1f%% | %.0f | %.1f%% | %.1f | %s |\n", r->name,
                dir ? "read" : "write", as, how, fifo, words, fifo > 0 ? 100 * words / fifo : 0.0, pw,
                fifo > 0 ? 100 * pw / fifo : 0.0, mbs(r, r->ap_bytes, cyc), fifo > 0 && 100 * pw / fifo >= 95.0 ? "met" : "not met");
        }
    }
}

/* ---- main ---------------------------------------------------------------------------------- */

#ifdef GR_BENCH_USB
static gr_usb_emu_t *g_emu;
static unsigned g_emu_index;

static uint64_t emu_cycles(void)
{
    return gr_usb_emu_cycles(g_emu, g_emu_index);
}

static uint64_t emu_bytes(void)
{
    gr_usb_emu_stats_t st;
    if (gr_usb_emu_stats(g_emu, g_emu_index, &st))
        return 0;
    return st.bytes_out + st.bytes_in;
}
#endif

static int usage(void)
{
    fprintf(stderr, "usage: bench_link [--seed N] [--simd PATH] [--quick] [--smoke] [--rtrips] [--only LIST] [--out FILE]\n"
                    "  LIST: comma-separated of sim, stream, ft601, ft601-quiet, ft2232h, uart, pty\n"
                    "        (bench_link_usb: ft601, ft2232h; the PCIe builds: sim, pcie)\n");
    return 2;
}

int bench_link_main(int argc, char **argv)
{
    const char *outpath = NULL;
    const char *env = getenv("GR_TEST_SEED");
    if (env)
        g_seed = strtoull(env, NULL, 0);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            g_seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--simd") && i + 1 < argc)
            g_simd = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            g_only = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            outpath = argv[++i];
        else if (!strcmp(argv[i], "--quick"))
            g_quick = true;
        else if (!strcmp(argv[i], "--smoke"))
            g_smoke = true;
        else if (!strcmp(argv[i], "--rtrips"))
            g_rtrips = true;
        else
            return usage();
    }
    if (!g_seed)
        g_seed = 1;
    if (outpath && !(g_md = fopen(outpath, g_smoke ? "w" : "a"))) {
        fprintf(stderr, "bench_link: cannot write %s: %s\n", outpath, strerror(errno));
        return 2;
    }
    snprintf(g_dir, sizeof g_dir, "/tmp/gr-bench-link.XXXXXX");
    if (!mkdtemp(g_dir)) {
        fprintf(stderr, "bench_link: no temporary directory: %s\n", strerror(errno));
        return 2;
    }
    printf("# bench_link seed=%" PRIu64 "%s%s\n", g_seed, g_smoke ? " --smoke" : "", g_quick ? " --quick" : "");
#ifdef GR_BENCH_USB
    /* the emulation first (before anything could initialise libusb), then the sim:// reference */
    gr_usb_emu_t *emu;
    int rc = gr_usb_emu_create(&emu);
    if (rc) {
        fprintf(stderr, "bench_link_usb: umockdev's preload library is not in this process (%s)\n", gr_status_name(rc));
        return 1;
    }
    struct {
        gr_board_kind_t kind;
        const char *name, *serial;
        link_plan_t *plan;
    } chips[] = {{GR_BOARD_FT601, "ft601", "GRBENCH601", &plan_usb601},
                 {GR_BOARD_FT2232H, "ft2232h", "GRBENCH2232", &plan_usb2232}};
    for (size_t k = 0; k < 2; k++) {
        if (!wanted(chips[k].name))
            continue;
        if (!gr_board_kind_built(chips[k].kind)) {
            fail("usb://%s: no %s board in this build (sim/sim.mk builds every kind)", chips[k].name, chips[k].name);
            continue;
        }
        gr_board_config_t cfg = {.kind = chips[k].kind, .seed = g_seed};
        unsigned index = 0;
        if ((rc = gr_usb_emu_add(emu, &cfg, chips[k].serial, &index))) {
            fail("cannot add the %s to the emulated bus: %s", chips[k].name, gr_status_name(rc));
            continue;
        }
        char uri[512];
        snprintf(uri, sizeof uri, "usb://%s?serial=%s&%s", chips[k].name, chips[k].serial, SLOW);
        scale(chips[k].plan);
        g_emu = emu;
        g_emu_index = index;
        g_board_cycles = emu_cycles;
        g_board_bytes = emu_bytes;
        run_link(chips[k].plan, uri);
        g_board_cycles = g_board_bytes = NULL;
    }
#endif
    if (wanted("sim")) {
        char uri[128];
        snprintf(uri, sizeof uri, "sim://?seed=%" PRIu64 "&norandom=1", g_seed);
        scale(&plan_sim);
        run_link(&plan_sim, uri);
    }
#ifdef GR_BENCH_SIMD
    run_simd_links();
#elif defined(GR_BENCH_COCOTB)
    if (wanted("pcie")) {
        scale(&plan_pcie);
        run_link(&plan_pcie, "cocotb://");
    }
#elif defined(GR_BENCH_VFIO)
    if (wanted("pcie")) {
        const char *root = getenv("GR_VFIO_EMU");
        if (!root || !*root) {
            fail("pcie:// vfio: GR_VFIO_EMU=DIR must name the emulation's tree when the program starts");
        } else {
            char uri[512];
            snprintf(uri, sizeof uri, "pcie://%s?root=%s", GR_VFIO_EMU_BDF, root);
            scale(&plan_vfio);
            run_link(&plan_vfio, uri);
        }
    }
#endif
    if (g_nres)
        print_tables();
    else
        printf("# no link was measured\n");
#ifdef GR_BENCH_USB
    gr_usb_emu_destroy(emu);
#endif
    for (unsigned i = 0; i < 16; i++) {
        char f[128];
        snprintf(f, sizeof f, "%s/server%u.log", g_dir, i);
        unlink(f);
    }
    char f[128];
    snprintf(f, sizeof f, "%s/pty", g_dir);
    unlink(f);
    rmdir(g_dir);
    if (g_md)
        fclose(g_md);
    if (g_smoke) {
        /* TAP: one line per link measured */
        printf("1..%u\n", g_nres ? g_nres : 1);
        if (!g_nres)
            printf("not ok 1 - no link to measure\n");
        for (unsigned i = 0; i < g_nres; i++) {
            const link_res_t *r = &g_res[i];
            const bool good = r->ok && r->rd_cycles > 0 && r->ap_wr_cycles > 0 && r->ap_rd_cycles > 0 &&
                              r->dma_in_cycles > 0 && r->dma_out_cycles > 0;
            printf("%s %u - %s: MMIO, BAR1 and DMA measured, bytes read back exact\n", good && !g_failures ? "ok" : "not ok",
                   i + 1, r->name);
        }
    }
    unsigned bad = 0;
    if (g_rtrips) {
        /* TAP: gr_alloc_create of 1 MiB and the 4 KiB copy (gr_submit + gr_wait, its DMA buffer
         * made and destroyed) on every link measured, in at most RTRIPS_MAX round trips: counted by the protocol engine, so the same on a quiet or a loaded machine. */
        unsigned n = 0;
        for (unsigned i = 0; i < g_nres; i++)
            n += 1u + (g_res[i].dma_bytes && g_res[i].dma_bytes <= 4 * KB ? 1u : 0u);
        printf("1..%u\n", n ? n : 1);
        if (!n)
            printf("not ok 1 - no link to measure\n");
        unsigned k = 0;
        for (unsigned i = 0; i < g_nres; i++) {
            const link_res_t *r = &g_res[i];
            const call_cost_t *a = &r->calls[CALL_ALLOC], *c = &r->calls[CALL_COPY_IN];
            const bool ga = r->ok && r->has_proto && a->done && a->round_trips <= RTRIPS_MAX;
            bad += !ga;
            printf("%s %u - %s: gr_alloc_create (%zu KiB) in %" PRIu64 " round trips (at most %u)\n",
                   ga ? "ok" : "not ok", ++k, r->name, r->alloc_bytes / KB, a->round_trips, RTRIPS_MAX);
            if (r->dma_bytes && r->dma_bytes <= 4 * KB) {
                const bool gc = r->ok && c->done && c->round_trips <= RTRIPS_MAX;
                bad += !gc;
                printf("%s %u - %s: %zu KiB COPY host->VRAM (gr_submit + gr_wait) in %" PRIu64
                       " round trips (at most %u)\n",
                       gc ? "ok" : "not ok", ++k, r->name, r->dma_bytes / KB, c->round_trips, RTRIPS_MAX);
            }
        }
    }
    return g_failures || bad || ((g_smoke || g_rtrips) && !g_nres) ? 1 : 0;
}

#ifndef GR_BENCH_COCOTB
int main(int argc, char **argv)
{
    return bench_link_main(argc, argv);
}
#endif
