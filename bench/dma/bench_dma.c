/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_dma: the DMA engine's command path, measured in simulated cycles (bench/dma/README.md).
 *
 *   copy     copy efficiency per size, VRAM->VRAM, host->VRAM, VRAM->host, physical and GPU VA,
 *            bus models quiet (no_random) and with their default random stalls
 *   preempt  cycles from the DMA_CTRL.PREEMPT write to the preemption fence and the interrupt,
 *            during long COPYs and FILLs, over many trigger points
 *   latency  cycles from the ring TAIL write to the fence record, bare (gr_sim + encoders) and
 *            with the miniport in the loop (DxgkDdiSubmitCommand + DxgkDdiInterruptRoutine)
 *   speed    simulated cycles per second on one copy workload: driver over sim://, bare
 *            Verilated model, and Icarus Verilog (bench/dma/bdma_tb.v, run as a child process)
 *
 * Usage: bench_dma [--out DIR] [--quick] [--only SECTION[,SECTION]] [--seed N] [--vvp PATH]
 *        bench_dma --smoke [--vvp PATH]     TAP: a tiny run of each measurement, twice
 * Cycle counts are deterministic for a seed; wall-clock numbers (speed) are never checked.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

#include "d3dkmddi.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_regdesc.h"
#include "gpuref/gr_regmap.h"
#include "gr_link.h"
#include "gr_sim.h"
#include "kmd.h"

#define KIB UINT64_C(1024)
#define MIB (KIB * 1024)
#define K4 UINT64_C(4096)
#define BUS_BYTES 8.0 /* bytes per cycle the data bus can carry */
#define RING_LOG2 8u
#define RING_ENTRIES (1u << RING_LOG2)
#define IRQ_DMA_ALL                                                                                \
    (GPU_REGS__IRQ_STATE__DMA_FENCE_bm | GPU_REGS__IRQ_STATE__DMA_PREEMPTED_bm |                   \
     GPU_REGS__IRQ_STATE__DMA_FAULT_bm)

static uint64_t g_seed = 1;
static bool g_quick;
static FILE *g_md;  /* the tables, also on stdout */
static FILE *g_dat; /* the plot's data */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench_dma: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (seed=%" PRIu64 ")\n", g_seed);
    va_end(ap);
    exit(1);
}

/* Prints to stdout and to the markdown file. */
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
    fflush(stdout);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void fill_random(uint64_t *rng, void *p, size_t n)
{
    uint8_t *b = p;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = splitmix(rng);
        memcpy(b + i, &v, n - i < 8 ? n - i : 8);
    }
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct stats {
    uint64_t min, med, max;
    double mean;
} stats_t;

static stats_t stats_of(uint64_t *v, unsigned n)
{
    stats_t s = {0, 0, 0, 0};
    if (!n)
        return s;
    qsort(v, n, sizeof *v, cmp_u64);
    s.min = v[0];
    s.max = v[n - 1];
    s.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    for (unsigned i = 0; i < n; i++)
        s.mean += (double)v[i];
    s.mean /= n;
    return s;
}

/* ==== the bare device: gr_sim, the ring and fence record in its host memory =================== */

typedef struct bare {
    gr_sim_t *sim;
    uint8_t *ring, *fence, *cmd, *ts;
    uint64_t ring_bus, fence_bus, cmd_bus, ts_bus;
    uint32_t tail;
    uint32_t next_fence;
    uint64_t pt_next; /* page-table bump allocator in VRAM */
    uint64_t root;
} bare_t;

static uint32_t brd(bare_t *b, uint32_t off)
{
    uint32_t v = 0;
    int rc = gr_sim_mmio_read(b->sim, off, &v);
    if (rc)
        die("read of 0x%03x failed: %s", off, gr_strerror(rc));
    return v;
}

static void bwr(bare_t *b, uint32_t off, uint32_t v)
{
    int rc = gr_sim_mmio_write(b->sim, off, v);
    if (rc)
        die("write of 0x%03x failed: %s", off, gr_strerror(rc));
}

static void *bare_alloc(bare_t *b, size_t bytes, uint64_t *bus)
{
    void *cpu = NULL;
    if (gr_sim_dma_alloc(b->sim, bytes, &cpu, bus))
        die("gr_sim_dma_alloc(%zu) failed", bytes);
    return cpu;
}

static void vput(bare_t *b, uint64_t addr, const void *src, size_t n)
{
    if (gr_sim_vram_write(b->sim, addr, src, n))
        die("VRAM write at 0x%" PRIx64 " failed", addr);
}

static void vget(bare_t *b, uint64_t addr, void *dst, size_t n)
{
    if (gr_sim_vram_read(b->sim, addr, dst, n))
        die("VRAM read at 0x%" PRIx64 " failed", addr);
}

static void bare_open(bare_t *b, bool no_random, uint64_t seed)
{
    memset(b, 0, sizeof *b);
    gr_sim_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.seed = seed;
    cfg.no_random = no_random;
    cfg.fst_path = "";
    cfg.axilog_path = "";
    if (gr_sim_create(&cfg, &b->sim))
        die("gr_sim_create failed");
    b->ring = bare_alloc(b, RING_ENTRIES * GR_DMA_RING_ENTRY_BYTES, &b->ring_bus);
    b->fence = bare_alloc(b, K4, &b->fence_bus);
    b->cmd = bare_alloc(b, 64 * KIB, &b->cmd_bus);
    b->ts = bare_alloc(b, K4, &b->ts_bus);
    if (!(brd(b, GR_REG_ID_CAPS) & GPU_REGS__ID_CAPS__DMA_bm))
        die("this build of gpu_core has no DMA engine (ID_CAPS.DMA 0)");
    bwr(b, GR_REG_DMA_RING_BASE_LO, (uint32_t)b->ring_bus);
    bwr(b, GR_REG_DMA_RING_BASE_HI, (uint32_t)(b->ring_bus >> 32));
    bwr(b, GR_REG_DMA_RING_SIZE, RING_LOG2);
    bwr(b, GR_REG_DMA_FENCE_ADDR_LO, (uint32_t)b->fence_bus);
    bwr(b, GR_REG_DMA_FENCE_ADDR_HI, (uint32_t)(b->fence_bus >> 32));
    bwr(b, GR_REG_DMA_WATCHDOG, 0); /* long copies under heavy stalls are not hangs */
    bwr(b, GR_REG_IRQ_ENABLE, IRQ_DMA_ALL);
    bwr(b, GR_REG_DMA_CTRL, GPU_REGS__DMA_CTRL__ENABLE_bm);
    b->next_fence = 1;
    b->root = 0x00100000;
    b->pt_next = b->root + K4;
}

static void bare_close(bare_t *b)
{
    gr_sim_destroy(b->sim);
    memset(b, 0, sizeof *b);
}

/* Writes the next ring entry (not published). Returns its fence id. */
static uint32_t bare_entry(bare_t *b, uint64_t buf, uint32_t bytes, bool use_root, bool irq)
{
    uint32_t id = b->next_fence++;
    gr_dma_ring_entry(b->ring + (b->tail % RING_ENTRIES) * GR_DMA_RING_ENTRY_BYTES, buf, bytes, id,
                      use_root, use_root ? b->root : 0, irq);
    gr_dma_ring_entry_set_priv(b->ring + (b->tail % RING_ENTRIES) * GR_DMA_RING_ENTRY_BYTES);
    b->tail = (b->tail + 1) % RING_ENTRIES;
    return id;
}

/* Publishes the entries written so far; returns the cycle the TAIL write was issued. */
static uint64_t bare_publish(bare_t *b)
{
    uint64_t t = gr_sim_cycle(b->sim);
    bwr(b, GR_REG_DMA_RING_TAIL, b->tail);
    return t;
}

static uint64_t fence_done(bare_t *b)
{
    return gr_dma_get64(b->fence + GR_DMA_FENCE_RECORD_DONE);
}

/* Runs until the fence record says `id`, in steps of `step` cycles; returns the cycle. */
static uint64_t bare_wait_fence(bare_t *b, uint32_t id, unsigned step, uint64_t max_cycles)
{
    uint64_t start = gr_sim_cycle(b->sim);
    while (fence_done(b) != id) {
        if (gr_sim_cycle(b->sim) - start > max_cycles) {
            uint32_t st = brd(b, GR_REG_DMA_STATUS);
            die("fence %u not written after %" PRIu64 " cycles: DMA_STATUS 0x%08x FAULT 0x%08x", id,
                max_cycles, st, brd(b, GR_REG_DMA_FAULT_STATUS));
        }
        gr_sim_run(b->sim, step);
    }
    return gr_sim_cycle(b->sim);
}

/* ---- GPU page tables (rtl/mc/README.md), 4 KiB pages, written through the VRAM backdoor ------ */

#define PTE_VALID 0x1ull
#define PTE_WRITABLE 0x2ull
#define PTE_SYSTEM 0x4ull
#define PTE_PT64 0x20ull
#define PTE_ADDR 0x000ffffffffff000ull

static uint64_t next_table_flags(bare_t *b, uint64_t table, unsigned index, uint64_t flags)
{
    uint8_t q[8];
    vget(b, table + 8ull * index, q, 8);
    uint64_t e = gr_dma_get64(q);
    if (e & PTE_VALID)
        return e & PTE_ADDR;
    uint64_t t = b->pt_next;
    b->pt_next += K4;
    if (b->pt_next > 0x00800000)
        die("page-table area full");
    static const uint8_t zero[4096];
    vput(b, t, zero, sizeof zero);
    gr_dma_put64(q, t | flags | PTE_VALID);
    vput(b, table + 8ull * index, q, 8);
    return t;
}

static uint64_t next_table(bare_t *b, uint64_t table, unsigned index)
{
    return next_table_flags(b, table, index, 0);
}

static void map_range(bare_t *b, uint64_t va, uint64_t pa, uint64_t bytes, uint64_t flags)
{
    for (uint64_t off = 0; off < bytes; off += K4) {
        uint64_t v = va + off;
        uint64_t l2 = next_table(b, b->root, (unsigned)(v >> 39) & 511);
        uint64_t l1 = next_table(b, l2, (unsigned)(v >> 30) & 511);
        uint64_t l0 = next_table(b, l1, (unsigned)(v >> 21) & 511);
        uint8_t q[8];
        gr_dma_put64(q, ((pa + off) & PTE_ADDR) | flags | PTE_VALID);
        vput(b, l0 + 8ull * ((v >> 12) & 511), q, 8);
    }
}

/* The same with 64 KiB pages (an L1 entry with PT64, then a 32-entry table); va and pa 64 KiB
 * aligned, and no 4 KiB mapping in the same 2 MiB. */
static void map_range64(bare_t *b, uint64_t va, uint64_t pa, uint64_t bytes, uint64_t flags)
{
    for (uint64_t off = 0; off < bytes; off += 64 * KIB) {
        uint64_t v = va + off;
        uint64_t l2 = next_table(b, b->root, (unsigned)(v >> 39) & 511);
        uint64_t l1 = next_table(b, l2, (unsigned)(v >> 30) & 511);
        uint64_t p64 = next_table_flags(b, l1, (unsigned)(v >> 21) & 511, PTE_PT64);
        uint8_t q[8];
        gr_dma_put64(q, ((pa + off) & ~(64 * KIB - 1) & PTE_ADDR) | flags | PTE_VALID);
        vput(b, p64 + 8ull * ((v >> 16) & 31), q, 8);
    }
}

/* ==== 1. copy efficiency ====================================================================== */

enum dir { DIR_VV, DIR_HV, DIR_VH, DIR_COUNT };
static const char *const dir_name[DIR_COUNT] = {"VRAM->VRAM", "host->VRAM", "VRAM->host"};
static const char *const dir_tag[DIR_COUNT] = {"vv", "hv", "vh"};

#define VSRC UINT64_C(0x01000000)
#define VDST UINT64_C(0x02000000)
#define VA_VSRC UINT64_C(0x0000100000000000)
#define VA_VDST UINT64_C(0x0000100010000000)
#define VA_HSRC UINT64_C(0x0000100020000000)
#define VA_HDST UINT64_C(0x0000100030000000)
#define VA64 UINT64_C(0x0000100000000000) /* added to each: the 64 KiB-page mappings */

enum addressing { AD_PHYS, AD_VA4K, AD_VA64K, AD_COUNT };
static const char *const ad_name[AD_COUNT] = {"phys", "VA 4K", "VA 64K"};
static const char *const ad_long[AD_COUNT] = {"physical", "GPU VA, 4 KiB pages",
                                              "GPU VA, 64 KiB pages"};
static const char *const ad_tag[AD_COUNT] = {"phys", "va4k", "va64k"};

typedef struct copy_rig {
    bare_t b;
    uint8_t *hsrc, *hdst;
    uint64_t hsrc_bus, hdst_bus;
    uint64_t max_bytes;
    uint64_t rng;
} copy_rig_t;

typedef struct copy_result {
    uint64_t cycles;     /* TIMESTAMP before the COPY to TIMESTAMP after it */
    uint64_t stalls;     /* DMA_PERF_STALLS during the entry */
    uint64_t bytes;      /* DMA_PERF_BYTES during the entry */
    uint64_t tlb_misses; /* MMU_TLB_MISSES during the entry */
} copy_result_t;

static void copy_rig_open(copy_rig_t *r, bool no_random, uint64_t max_bytes)
{
    memset(r, 0, sizeof *r);
    bare_open(&r->b, no_random, g_seed);
    r->max_bytes = max_bytes;
    r->rng = g_seed * 0x2545f4914f6cdd1dull + 7;
    /* host buffers 64 KiB aligned in bus space, for the 64 KiB pages */
    uint64_t bus;
    uint8_t *p = bare_alloc(&r->b, max_bytes + 8 + 64 * KIB, &bus);
    r->hsrc_bus = (bus + 64 * KIB - 1) & ~(64 * KIB - 1);
    r->hsrc = p + (r->hsrc_bus - bus);
    p = bare_alloc(&r->b, max_bytes + 8 + 64 * KIB, &bus);
    r->hdst_bus = (bus + 64 * KIB - 1) & ~(64 * KIB - 1);
    r->hdst = p + (r->hdst_bus - bus);
    map_range(&r->b, VA_VSRC, VSRC, max_bytes + 8, PTE_WRITABLE);
    map_range(&r->b, VA_VDST, VDST, max_bytes + 8, PTE_WRITABLE);
    map_range(&r->b, VA_HSRC, r->hsrc_bus, max_bytes + 8, PTE_SYSTEM);
    map_range(&r->b, VA_HDST, r->hdst_bus, max_bytes + 8, PTE_SYSTEM | PTE_WRITABLE);
    map_range64(&r->b, VA64 + VA_VSRC, VSRC, max_bytes + 8, PTE_WRITABLE);
    map_range64(&r->b, VA64 + VA_VDST, VDST, max_bytes + 8, PTE_WRITABLE);
    map_range64(&r->b, VA64 + VA_HSRC, r->hsrc_bus, max_bytes + 8, PTE_SYSTEM);
    map_range64(&r->b, VA64 + VA_HDST, r->hdst_bus, max_bytes + 8, PTE_SYSTEM | PTE_WRITABLE);
}

static uint64_t perf_bytes(bare_t *b)
{
    uint32_t lo = brd(b, GR_REG_DMA_PERF_BYTES_LO);
    return ((uint64_t)brd(b, GR_REG_DMA_PERF_BYTES_HI) << 32) | lo;
}

/* One COPY of `bytes` in its own entry: [TLB_INVALIDATE][TIMESTAMP][COPY][TIMESTAMP], every
 * destination byte checked, the qword after it untouched. */
static copy_result_t copy_once(copy_rig_t *r, enum dir d, enum addressing ad, uint64_t bytes)
{
    const bool gpuva = ad != AD_PHYS;
    bare_t *b = &r->b;
    static uint8_t src[4 * MIB + 8], got[4 * MIB + 8];
    static const uint8_t zero[4 * MIB + 8];
    if (bytes > r->max_bytes || bytes > 4 * MIB)
        die("copy of %" PRIu64 " bytes is past the rig", bytes);
    fill_random(&r->rng, src, bytes);
    /* sources in place, destinations cleared (one qword further) */
    if (d == DIR_HV)
        memcpy(r->hsrc, src, bytes);
    else
        vput(b, VSRC, src, bytes);
    if (d == DIR_VH)
        memset(r->hdst, 0, bytes + 8);
    else
        vput(b, VDST, zero, bytes + 8);

    enum gr_dma_space ss, ds;
    uint64_t sa, da;
    if (gpuva) {
        ss = ds = GR_DMA_SPACE_GPUVA;
        sa = (d == DIR_HV ? VA_HSRC : VA_VSRC) + (ad == AD_VA64K ? VA64 : 0);
        da = (d == DIR_VH ? VA_HDST : VA_VDST) + (ad == AD_VA64K ? VA64 : 0);
    } else {
        ss = d == DIR_HV ? GR_DMA_SPACE_HOST : GR_DMA_SPACE_VRAM;
        ds = d == DIR_VH ? GR_DMA_SPACE_HOST : GR_DMA_SPACE_VRAM;
        sa = d == DIR_HV ? r->hsrc_bus : VSRC;
        da = d == DIR_VH ? r->hdst_bus : VDST;
    }
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, b->cmd, 64 * KIB);
    gr_dma_tlb_invalidate(&w); /* every size starts with a cold TLB */
    gr_dma_timestamp(&w, GR_DMA_SPACE_HOST, b->ts_bus);
    gr_dma_copy(&w, ss, sa, ds, da, bytes);
    gr_dma_timestamp(&w, GR_DMA_SPACE_HOST, b->ts_bus + 8);
    if (w.overflow)
        die("command buffer overflow");

    uint64_t bytes0 = perf_bytes(b);
    uint32_t stalls0 = brd(b, GR_REG_DMA_PERF_STALLS);
    uint32_t miss0 = brd(b, GR_REG_MMU_TLB_MISSES);
    uint32_t id = bare_entry(b, b->cmd_bus, (uint32_t)w.used, gpuva, false);
    bare_publish(b);
    bare_wait_fence(b, id, 256, 200 * bytes + 100000);

    copy_result_t res;
    res.cycles = gr_dma_get64(b->ts + 8) - gr_dma_get64(b->ts);
    res.bytes = perf_bytes(b) - bytes0;
    res.stalls = (uint32_t)(brd(b, GR_REG_DMA_PERF_STALLS) - stalls0);
    res.tlb_misses = (uint32_t)(brd(b, GR_REG_MMU_TLB_MISSES) - miss0);
    if (res.bytes != bytes)
        die("%s copy of %" PRIu64 ": DMA_PERF_BYTES moved %" PRIu64, dir_name[d], bytes, res.bytes);
    if (d == DIR_VH)
        memcpy(got, r->hdst, bytes + 8);
    else
        vget(b, VDST, got, bytes + 8);
    if (memcmp(got, src, bytes) || memcmp(got + bytes, zero, 8))
        die("%s copy of %" PRIu64 " bytes (%s): destination differs", dir_name[d], bytes,
            ad_long[ad]);
    return res;
}

static const uint64_t copy_sizes[] = {64,       256,       1 * KIB, 4 * KIB, 16 * KIB,
                                      64 * KIB, 256 * KIB, 1 * MIB, 4 * MIB};
#define NSIZES (sizeof copy_sizes / sizeof copy_sizes[0])

static void size_label(uint64_t s, char *buf, size_t n)
{
    if (s >= MIB)
        snprintf(buf, n, "%" PRIu64 " MiB", s / MIB);
    else if (s >= KIB)
        snprintf(buf, n, "%" PRIu64 " KiB", s / KIB);
    else
        snprintf(buf, n, "%" PRIu64 " B", s);
}

static void section_copy(void)
{
    const unsigned nsizes = g_quick ? NSIZES - 2 : NSIZES; /* quick: up to 256 KiB */
    const uint64_t max = copy_sizes[nsizes - 1];
    /* [mode][gpuva][dir][size] */
    static copy_result_t res[2][AD_COUNT][DIR_COUNT][NSIZES];
    for (int mode = 0; mode < 2; mode++) {
        copy_rig_t r;
        copy_rig_open(&r, mode == 0, max);
        for (int va = 0; va < AD_COUNT; va++)
            for (int d = 0; d < DIR_COUNT; d++)
                for (unsigned s = 0; s < nsizes; s++)
                    res[mode][va][d][s] =
                        copy_once(&r, (enum dir)d, (enum addressing)va, copy_sizes[s]);
        bare_close(&r.b);
    }

    out("\n## Copy efficiency\n\n");
    out("One COPY per ring entry, timed by TIMESTAMP commands just before and after it (so the "
        "cycles include the COPY's fetch, its address translation and waiting for its last write "
        "response); efficiency = bytes per cycle against the 8-byte data bus (100%% = 8 B/cycle). "
        "GPU VA with 4 KiB or 64 KiB pages (host pages through SYSTEM PTEs), the TLB and the "
        "page-walk cache emptied first (TLB_INVALIDATE). Every destination byte checked, "
        "DMA_PERF_BYTES exact.\n\n");
    for (int mode = 0; mode < 2; mode++) {
        out("%s:\n\n", mode == 0 ? "**Bus models quiet** (no_random: no stalls, no latency)"
                                 : "**Default random stalls** (25% of cycles per channel, 0..8 "
                                   "cycles latency)");
        out("| size |");
        for (int va = 0; va < AD_COUNT; va++)
            for (int d = 0; d < DIR_COUNT; d++)
                out(" %s %s |", dir_name[d], ad_name[va]);
        out("\n|---:|");
        for (int i = 0; i < AD_COUNT * DIR_COUNT; i++)
            out("---:|");
        out("\n");
        for (unsigned s = 0; s < nsizes; s++) {
            char sz[32];
            size_label(copy_sizes[s], sz, sizeof sz);
            out("| %s |", sz);
            for (int va = 0; va < AD_COUNT; va++)
                for (int d = 0; d < DIR_COUNT; d++) {
                    const copy_result_t *c = &res[mode][va][d][s];
                    double bpc = (double)copy_sizes[s] / (double)c->cycles;
                    out(" %.1f%% |", 100.0 * bpc / BUS_BYTES);
                }
            out("\n");
        }
        out("\n");
    }
    /* details for the largest size */
    char sz[32];
    size_label(max, sz, sizeof sz);
    out("Cycles, stall cycles (DMA_PERF_STALLS: cycles without a write beat between the COPY's "
        "first and last) and TLB misses at %s:\n\n",
        sz);
    out("| mode | copy | addressing | cycles | ideal (size/8) | stall cycles | TLB misses | "
        "efficiency |\n|---|---|---|---:|---:|---:|---:|---:|\n");
    for (int mode = 0; mode < 2; mode++)
        for (int va = 0; va < AD_COUNT; va++)
            for (int d = 0; d < DIR_COUNT; d++) {
                const copy_result_t *c = &res[mode][va][d][nsizes - 1];
                out("| %s | %s | %s | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64
                    " | %.1f%% |\n",
                    mode ? "random" : "quiet", dir_name[d], ad_long[va], c->cycles, max / 8,
                    c->stalls, c->tlb_misses, 100.0 * (double)max / 8.0 / (double)c->cycles);
            }
    out("\n");

    /* plot data: index 0 quiet, index 1 random; column per (addressing, direction) */
    for (int mode = 0; mode < 2; mode++) {
        fprintf(g_dat, "# copy efficiency %% (%s)\nbytes", mode ? "random" : "quiet");
        for (int va = 0; va < AD_COUNT; va++)
            for (int d = 0; d < DIR_COUNT; d++)
                fprintf(g_dat, " %s_%s", dir_tag[d], ad_tag[va]);
        fprintf(g_dat, "\n");
        for (unsigned s = 0; s < nsizes; s++) {
            fprintf(g_dat, "%" PRIu64, copy_sizes[s]);
            for (int va = 0; va < AD_COUNT; va++)
                for (int d = 0; d < DIR_COUNT; d++)
                    fprintf(g_dat, " %.3f",
                            100.0 * (double)copy_sizes[s] / BUS_BYTES /
                                (double)res[mode][va][d][s].cycles);
            fprintf(g_dat, "\n");
        }
        fprintf(g_dat, "\n\n");
    }
}

/* ==== 2. preemption latency =================================================================== */

typedef struct preempt_cfg {
    const char *name;
    const char *tag;
    bool fill;
    enum dir d;
} preempt_cfg_t;

static const preempt_cfg_t preempt_cfgs[] = {
    {"COPY VRAM->VRAM", "copy_vv", false, DIR_VV},
    {"COPY host->VRAM", "copy_hv", false, DIR_HV},
    {"COPY VRAM->host", "copy_vh", false, DIR_VH},
    {"FILL VRAM", "fill_v", true, DIR_VV},
};
#define NPCFG (sizeof preempt_cfgs / sizeof preempt_cfgs[0])

typedef struct preempt_sample {
    uint64_t to_fence, to_irq;
    uint32_t done;
} preempt_sample_t;

/* Submits the long command, lets it run `after` cycles past the TAIL write, preempts, and measures
 * from the PREEMPT write's issue to the preemption fence in memory and to irq_o. */
static preempt_sample_t preempt_once(copy_rig_t *r, const preempt_cfg_t *c, uint64_t bytes,
                                     uint64_t after, uint32_t preempt_id)
{
    bare_t *b = &r->b;
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, b->cmd, 64 * KIB);
    if (c->fill)
        gr_dma_fill(&w, GR_DMA_SPACE_VRAM, VDST, bytes, 0x600dcafeu);
    else
        gr_dma_copy(&w, c->d == DIR_HV ? GR_DMA_SPACE_HOST : GR_DMA_SPACE_VRAM,
                    c->d == DIR_HV ? r->hsrc_bus : VSRC,
                    c->d == DIR_VH ? GR_DMA_SPACE_HOST : GR_DMA_SPACE_VRAM,
                    c->d == DIR_VH ? r->hdst_bus : VDST, bytes);
    bwr(b, GR_REG_DMA_PREEMPT_FENCE, preempt_id);
    bare_entry(b, b->cmd_bus, (uint32_t)w.used, false, true);
    uint64_t t_tail = bare_publish(b);
    uint64_t now = gr_sim_cycle(b->sim);
    if (t_tail + after > now)
        gr_sim_run(b->sim, t_tail + after - now);
    uint64_t t0 = gr_sim_cycle(b->sim);
    bwr(b, GR_REG_DMA_CTRL, GPU_REGS__DMA_CTRL__ENABLE_bm | GPU_REGS__DMA_CTRL__PREEMPT_bm);
    preempt_sample_t s = {0, 0, 0};
    uint64_t t_fence = 0, t_irq = 0;
    for (;;) {
        uint64_t t = gr_sim_cycle(b->sim);
        if (!t_fence && gr_dma_get64(b->fence + GR_DMA_FENCE_RECORD_PREEMPT) == preempt_id)
            t_fence = t;
        if (!t_irq && gr_sim_irq(b->sim))
            t_irq = t;
        if (t_fence && t_irq)
            break;
        if (t - t0 > 100000)
            die("%s: no preemption 100000 cycles after the request", c->name);
        gr_sim_run(b->sim, 1);
    }
    uint32_t irq = brd(b, GR_REG_IRQ_STATE);
    uint32_t st = brd(b, GR_REG_DMA_STATUS);
    if ((irq & IRQ_DMA_ALL) != GPU_REGS__IRQ_STATE__DMA_PREEMPTED_bm ||
        (st & 0x1f) != (GPU_REGS__DMA_STATUS__IDLE_bm | GPU_REGS__DMA_STATUS__PREEMPTED_bm))
        die("%s preempted after %" PRIu64 " cycles: IRQ_STATE 0x%x DMA_STATUS 0x%x (the command "
            "must still be running when preempted)",
            c->name, after, irq, st);
    s.done = brd(b, GR_REG_DMA_STOP_DONE);
    if (s.done % 8 || s.done >= bytes)
        die("%s: STOP_DONE %u of %" PRIu64, c->name, s.done, bytes);
    bwr(b, GR_REG_IRQ_STATE, IRQ_DMA_ALL);
    s.to_fence = t_fence - t0;
    s.to_irq = t_irq - t0;
    return s;
}

static void section_preempt(void)
{
    const uint64_t bytes = 256 * KIB;
    const unsigned trials = g_quick ? 9 : 41;
    stats_t fs[2][NPCFG], is[2][NPCFG];
    uint64_t full[2][NPCFG];
    for (int mode = 0; mode < 2; mode++) {
        copy_rig_t r;
        copy_rig_open(&r, mode == 0, bytes);
        for (unsigned ci = 0; ci < NPCFG; ci++) {
            const preempt_cfg_t *c = &preempt_cfgs[ci];
            /* How long the command runs unpreempted: the trigger points spread over it. */
            gr_dma_writer_t w;
            gr_dma_writer_init(&w, r.b.cmd, 64 * KIB);
            gr_dma_timestamp(&w, GR_DMA_SPACE_HOST, r.b.ts_bus);
            if (c->fill)
                gr_dma_fill(&w, GR_DMA_SPACE_VRAM, VDST, bytes, 0x600dcafeu);
            else
                gr_dma_copy(&w, c->d == DIR_HV ? GR_DMA_SPACE_HOST : GR_DMA_SPACE_VRAM,
                            c->d == DIR_HV ? r.hsrc_bus : VSRC,
                            c->d == DIR_VH ? GR_DMA_SPACE_HOST : GR_DMA_SPACE_VRAM,
                            c->d == DIR_VH ? r.hdst_bus : VDST, bytes);
            gr_dma_timestamp(&w, GR_DMA_SPACE_HOST, r.b.ts_bus + 8);
            uint32_t id = bare_entry(&r.b, r.b.cmd_bus, (uint32_t)w.used, false, false);
            bare_publish(&r.b);
            bare_wait_fence(&r.b, id, 256, 100 * bytes);
            full[mode][ci] = gr_dma_get64(r.b.ts + 8) - gr_dma_get64(r.b.ts);

            uint64_t tf[64], ti[64];
            uint64_t rng = g_seed ^ (0x51ed27 + ci);
            for (unsigned k = 0; k < trials; k++) {
                /* evenly over [5%, 90%] of the run, each point moved by up to 16 cycles so the
                 * triggers fall on every phase of a burst */
                uint64_t span = full[mode][ci] * 85 / 100;
                uint64_t after =
                    full[mode][ci] * 5 / 100 + span * k / (trials - 1) + splitmix(&rng) % 16;
                preempt_sample_t s = preempt_once(&r, c, bytes, after, 0x0bad0000u + k);
                tf[k] = s.to_fence;
                ti[k] = s.to_irq;
            }
            fs[mode][ci] = stats_of(tf, trials);
            is[mode][ci] = stats_of(ti, trials);
        }
        bare_close(&r.b);
    }
    out("\n## Preemption latency\n\n");
    out("Cycles from the issue of the DMA_CTRL.PREEMPT register write (a CSR write, part of the "
        "latency) to the preemption fence in the fence record (memory) and to irq_o, during a "
        "256 KiB command, physical addresses; %u trigger points spread over 5..90%% of the "
        "command's run, each shifted by 0..15 cycles.\n\n",
        trials);
    out("| mode | command | unpreempted run | to fence min | median | max | to IRQ min | median | "
        "max |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int mode = 0; mode < 2; mode++)
        for (unsigned ci = 0; ci < NPCFG; ci++)
            out("| %s | %s | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64
                " | %" PRIu64 " | %" PRIu64 " |\n",
                mode ? "random" : "quiet", preempt_cfgs[ci].name, full[mode][ci], fs[mode][ci].min,
                fs[mode][ci].med, fs[mode][ci].max, is[mode][ci].min, is[mode][ci].med,
                is[mode][ci].max);
    out("\n");
    fprintf(g_dat, "# preemption latency to IRQ: label min median max (quiet, then random)\n");
    for (int mode = 0; mode < 2; mode++)
        for (unsigned ci = 0; ci < NPCFG; ci++)
            fprintf(g_dat, "%s_%s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", preempt_cfgs[ci].tag,
                    mode ? "rnd" : "quiet", is[mode][ci].min, is[mode][ci].med, is[mode][ci].max);
    fprintf(g_dat, "\n\n");
}

/* ==== 3. submit-to-fence latency ============================================================== */

typedef struct packet_kind {
    const char *name;
    const char *tag;
} packet_kind_t;

static const packet_kind_t packet_kinds[] = {
    {"empty (0 bytes)", "empty"},         {"NOP", "nop"},
    {"FENCE to host", "fence"},           {"FILL 64 B VRAM", "fill64"},
    {"COPY 256 B VRAM->VRAM", "copy256"},
};
#define NKINDS (sizeof packet_kinds / sizeof packet_kinds[0])

/* Encodes packet kind k into buf; returns its length. */
static uint32_t encode_packet(unsigned k, uint8_t *buf, uint64_t host_scratch_bus)
{
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, buf, 256);
    switch (k) {
    case 1:
        gr_dma_nop(&w);
        break;
    case 2:
        gr_dma_fence(&w, GR_DMA_SPACE_HOST, host_scratch_bus, 0x1234, 0);
        break;
    case 3:
        gr_dma_fill(&w, GR_DMA_SPACE_VRAM, 0x03000000, 64, 0x11223344u);
        break;
    case 4:
        gr_dma_copy(&w, GR_DMA_SPACE_VRAM, 0x03001000, GR_DMA_SPACE_VRAM, 0x03002000, 256);
        break;
    default:
        break;
    }
    if (w.overflow)
        die("packet overflow");
    return (uint32_t)w.used;
}

typedef struct lat_stats {
    stats_t fence, irq;
} lat_stats_t;

static lat_stats_t latency_bare(bool no_random, unsigned k, unsigned reps)
{
    bare_t b;
    bare_open(&b, no_random, g_seed);
    uint64_t tf[64], ti[64];
    uint32_t len = encode_packet(k, b.cmd, b.ts_bus);
    for (unsigned i = 0; i < reps; i++) {
        uint32_t id = bare_entry(&b, b.cmd_bus, len, false, true);
        uint64_t t0 = bare_publish(&b);
        uint64_t t_fence = 0, t_irq = 0;
        for (;;) {
            uint64_t t = gr_sim_cycle(b.sim);
            if (!t_fence && fence_done(&b) == id)
                t_fence = t;
            if (!t_irq && gr_sim_irq(b.sim))
                t_irq = t;
            if (t_fence && t_irq)
                break;
            if (t - t0 > 100000)
                die("packet %s: no fence", packet_kinds[k].name);
            gr_sim_run(b.sim, 1);
        }
        bwr(&b, GR_REG_IRQ_STATE, IRQ_DMA_ALL);
        tf[i] = t_fence - t0;
        ti[i] = t_irq - t0;
        gr_sim_run(b.sim, 50); /* idle between packets */
    }
    bare_close(&b);
    lat_stats_t s = {stats_of(tf, reps), stats_of(ti, reps)};
    return s;
}

/* ---- the miniport in the loop: sim://, our own DXGKRNL_INTERFACE as test_kmd_submit has ------ */

typedef struct kmd_rig {
    gr_link_t *link;
    pthread_mutex_t link_lock;
    DXGKRNL_INTERFACE kif;
    HANDLE ad, dev, ctx;
    int dpc_queued;
    uint32_t completed; /* newest DMA_COMPLETED fence reported */
    unsigned completions;
    gr_dma_buf_t cmd, scratch;
    uint8_t priv[GR_KMD_DMA_PRIVATE_BYTES];
    uint32_t ts_cost; /* cycles between two back-to-back DMA_TIMESTAMP_LO reads */
} kmd_rig_t;

static VOID APIENTRY kcb_notify_interrupt(IN_CONST_HANDLE h,
                                          IN_CONST_PDXGKARGCB_NOTIFY_INTERRUPT_DATA d)
{
    kmd_rig_t *k = h;
    if (d->InterruptType == DXGK_INTERRUPT_DMA_COMPLETED) {
        k->completed = d->DmaCompleted.SubmissionFenceId;
        k->completions++;
    }
}

static BOOLEAN APIENTRY kcb_queue_dpc(HANDLE h)
{
    kmd_rig_t *k = h;
    BOOLEAN first = !k->dpc_queued;
    k->dpc_queued = 1;
    return first;
}

static VOID APIENTRY kcb_notify_dpc(IN_CONST_HANDLE h)
{
    (void)h;
}

/* No allocations are opened here: no kernel handle has data. */
static VOID *APIENTRY kcb_get_handle_data(IN_CONST_PDXGKARGCB_GETHANDLEDATA a)
{
    (void)a;
    return NULL;
}

static uint32_t krd(kmd_rig_t *k, uint32_t off)
{
    uint32_t v = 0;
    pthread_mutex_lock(&k->link_lock);
    int rc = gr_link_read32(k->link, off, &v);
    pthread_mutex_unlock(&k->link_lock);
    if (rc)
        die("link read of 0x%03x: %s", off, gr_strerror(rc));
    return v;
}

static void kmd_open(kmd_rig_t *k, bool no_random)
{
    memset(k, 0, sizeof *k);
    pthread_mutex_init(&k->link_lock, NULL);
    char uri[128];
    snprintf(uri, sizeof uri, "sim://?seed=%" PRIu64 "%s", g_seed, no_random ? "&norandom=1" : "");
    if (gr_link_open(uri, &k->link))
        die("gr_link_open(%s): %s", uri, gr_link_error());
    k->kif.Size = sizeof k->kif;
    k->kif.Version = DXGKDDI_INTERFACE_VERSION;
    k->kif.DeviceHandle = k;
    k->kif.DxgkCbNotifyInterrupt = kcb_notify_interrupt;
    k->kif.DxgkCbQueueDpc = kcb_queue_dpc;
    k->kif.DxgkCbNotifyDpc = kcb_notify_dpc;
    k->kif.DxgkCbGetHandleData = kcb_get_handle_data;
    gr_kmd_start_info_t si = {k->link, &k->link_lock, &k->kif};
    if (gr_kmd_start_adapter(&si, &k->ad) || !gr_kmd_engine_ready(k->ad))
        die("the miniport did not start with its DMA engine");
    if (gr_kmd_create_device(k->ad, (HANDLE)k, &k->dev))
        die("gr_kmd_create_device failed");
    /* The system context, whose packets may name physical addresses (only the kernel's own
     * packets may: host/kmd/README.md, "Isolation"); this bench measures the engine with them. */
    DXGKARG_CREATECONTEXT c;
    memset(&c, 0, sizeof c);
    c.Flags.SystemContext = 1;
    if (DxgkDdiCreateContext(k->dev, &c))
        die("DxgkDdiCreateContext failed");
    k->ctx = c.hContext;
    if (gr_link_dma_alloc(k->link, 64 * KIB, &k->cmd) ||
        gr_link_dma_alloc(k->link, K4, &k->scratch))
        die("gr_link_dma_alloc failed");
    /* The cost of one DMA_TIMESTAMP_LO read, to take out of the differences below: constant with
     * quiet models, the median of 31 with random CSR delays. */
    uint64_t cost[31];
    for (unsigned i = 0; i < 31; i++) {
        uint32_t a = krd(k, GR_REG_DMA_TIMESTAMP_LO);
        cost[i] = (uint32_t)(krd(k, GR_REG_DMA_TIMESTAMP_LO) - a);
    }
    k->ts_cost = (uint32_t)stats_of(cost, 31).med;
}

static void kmd_close(kmd_rig_t *k)
{
    (void)DxgkDdiDestroyContext(k->ctx);
    (void)gr_kmd_destroy_device(k->dev);
    gr_kmd_stop_adapter(k->ad);
    (void)gr_link_dma_free(k->link, &k->cmd);
    (void)gr_link_dma_free(k->link, &k->scratch);
    gr_link_close(k->link);
    pthread_mutex_destroy(&k->link_lock);
}

static void kmd_submit(kmd_rig_t *k, uint32_t start, uint32_t end, uint32_t fence)
{
    DXGKARG_SUBMITCOMMAND s;
    memset(&s, 0, sizeof s);
    memset(k->priv, 0, sizeof k->priv);
    s.hContext = k->ctx;
    s.DmaBufferPhysicalAddress.QuadPart = (LONGLONG)k->cmd.bus;
    s.DmaBufferSize = (UINT)k->cmd.bytes;
    s.DmaBufferSubmissionStartOffset = start;
    s.DmaBufferSubmissionEndOffset = end;
    s.pDmaBufferPrivateData = k->priv;
    s.DmaBufferPrivateDataSize = sizeof k->priv;
    s.DmaBufferPrivateDataSubmissionEndOffset = sizeof k->priv;
    s.SubmissionFenceId = fence;
    NTSTATUS st = DxgkDdiSubmitCommand(k->ad, &s);
    if (st)
        die("DxgkDdiSubmitCommand: 0x%08x", (unsigned)st);
}

/* The OS's side of an interrupt: wait for the line, ISR (without the link lock), DPC. */
static void kmd_service(kmd_rig_t *k, uint32_t us)
{
    bool raised = false;
    pthread_mutex_lock(&k->link_lock);
    int rc = gr_link_wait_irq(k->link, us, &raised);
    pthread_mutex_unlock(&k->link_lock);
    if (rc)
        die("wait_irq: %s", gr_strerror(rc));
    if (raised)
        (void)DxgkDdiInterruptRoutine(k->ad, 0);
    if (k->dpc_queued) {
        k->dpc_queued = 0;
        DxgkDdiDpcRoutine(k->ad);
    }
}

typedef struct kmd_lat {
    stats_t irq, notify, ddi;
} kmd_lat_t;

static kmd_lat_t latency_kmd(bool no_random, unsigned kind, unsigned reps, uint32_t *out_ts_cost)
{
    kmd_rig_t k;
    kmd_open(&k, no_random);
    uint32_t len = encode_packet(kind, k.cmd.cpu, k.scratch.bus);
    uint64_t vi[64], vn[64], vd[64];
    for (unsigned i = 0; i < reps; i++) {
        const uint32_t fence = 100 + i;
        /* DDI cost alone: a timestamp read on either side of the call. */
        uint32_t t0 = krd(&k, GR_REG_DMA_TIMESTAMP_LO);
        kmd_submit(&k, 0, len, fence);
        uint32_t t1 = krd(&k, GR_REG_DMA_TIMESTAMP_LO);
        /* wait_irq returns in the cycle the line rises; the next read starts there */
        bool raised = false;
        pthread_mutex_lock(&k.link_lock);
        (void)gr_link_wait_irq(k.link, 1000, &raised);
        pthread_mutex_unlock(&k.link_lock);
        uint32_t t2 = krd(&k, GR_REG_DMA_TIMESTAMP_LO);
        if (!raised)
            die("miniport packet %s: no interrupt", packet_kinds[kind].name);
        (void)DxgkDdiInterruptRoutine(k.ad, 0);
        uint32_t t3 = krd(&k, GR_REG_DMA_TIMESTAMP_LO);
        if (k.completed != fence)
            die("miniport packet %s: DMA_COMPLETED %u, want %u", packet_kinds[kind].name,
                k.completed, fence);
        if (k.dpc_queued) {
            k.dpc_queued = 0;
            DxgkDdiDpcRoutine(k.ad);
        }
        /* Each difference of two reads is the time between their starts. The DDI starts when t0's
         * read ends (ts_cost after its start); t1's read runs while the engine works and delays
         * nothing; t2's read starts in the cycle the line rose and delays the ISR by ts_cost; t3's
         * read starts when the ISR has returned. */
        int64_t d = (int64_t)(uint32_t)(t1 - t0) - k.ts_cost;
        int64_t q = (int64_t)(uint32_t)(t2 - t0) - k.ts_cost;
        int64_t n = (int64_t)(uint32_t)(t3 - t0) - 2 * (int64_t)k.ts_cost;
        /* with random CSR delays a read may cost less than the median: never below 0 */
        vd[i] = d > 0 ? (uint64_t)d : 0;
        vi[i] = q > 0 ? (uint64_t)q : 0;
        vn[i] = n > 0 ? (uint64_t)n : 0;
        pthread_mutex_lock(&k.link_lock);
        (void)gr_link_wait_irq(k.link, 1, &raised); /* idle between packets */
        pthread_mutex_unlock(&k.link_lock);
    }
    if (out_ts_cost)
        *out_ts_cost = k.ts_cost;
    kmd_close(&k);
    kmd_lat_t s = {stats_of(vi, reps), stats_of(vn, reps), stats_of(vd, reps)};
    return s;
}

static void section_latency(void)
{
    const unsigned reps = g_quick ? 5 : 21;
    lat_stats_t bare[2][NKINDS];
    kmd_lat_t kmd[2][NKINDS];
    uint32_t ts_cost[2] = {0, 0};
    for (int mode = 0; mode < 2; mode++)
        for (unsigned k = 0; k < NKINDS; k++) {
            bare[mode][k] = latency_bare(mode == 0, k, reps);
            kmd[mode][k] = latency_kmd(mode == 0, k, reps, &ts_cost[mode]);
        }
    out("\n## Submit-to-fence latency\n\n");
    out("Bare: gr_sim and the encoders, cycles from the issue of the ring TAIL write to the first "
        "cycle the fence record in host memory holds the entry's fence id, and to irq_o. Miniport: "
        "DxgkDdiSubmitCommand (its only register access is the TAIL write) and "
        "DxgkDdiInterruptRoutine over sim://, timed with DMA_TIMESTAMP_LO reads (the cost of a "
        "read, %u cycles quiet, a median %u with stalls, taken out; with stalls these columns are "
        "good to a few cycles, the CSR driver delaying each access by 0..4 cycles at random): from "
        "the DDI's start to irq_o, and to the end of the interrupt routine (which reads IRQ_STATE, "
        "acknowledges it, reads the fence record and reports DMA_COMPLETED). %u packets each, "
        "median (min..max).\n\n",
        ts_cost[0], ts_cost[1], reps);
    out("| mode | packet | bare: TAIL to fence | bare: TAIL to IRQ | miniport: SubmitCommand | "
        "miniport: submit to IRQ | miniport: submit to DMA_COMPLETED |\n"
        "|---|---|---:|---:|---:|---:|---:|\n");
    for (int mode = 0; mode < 2; mode++)
        for (unsigned k = 0; k < NKINDS; k++) {
            const lat_stats_t *b = &bare[mode][k];
            const kmd_lat_t *m = &kmd[mode][k];
            char c[5][48];
            const stats_t *v[5] = {&b->fence, &b->irq, &m->ddi, &m->irq, &m->notify};
            for (int i = 0; i < 5; i++) {
                if (v[i]->min == v[i]->max)
                    snprintf(c[i], sizeof c[i], "%" PRIu64, v[i]->med);
                else
                    snprintf(c[i], sizeof c[i], "%" PRIu64 " (%" PRIu64 "..%" PRIu64 ")", v[i]->med,
                             v[i]->min, v[i]->max);
            }
            out("| %s | %s | %s | %s | %s | %s | %s |\n", mode ? "random" : "quiet",
                packet_kinds[k].name, c[0], c[1], c[2], c[3], c[4]);
        }
    out("\n");
    fprintf(g_dat, "# submit latency, median cycles: packet bare_fence_quiet bare_irq_quiet "
                   "kmd_completed_quiet bare_fence_rnd bare_irq_rnd kmd_completed_rnd\n");
    for (unsigned k = 0; k < NKINDS; k++)
        fprintf(g_dat,
                "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                packet_kinds[k].tag, bare[0][k].fence.med, bare[0][k].irq.med, kmd[0][k].notify.med,
                bare[1][k].fence.med, bare[1][k].irq.med, kmd[1][k].notify.med);
    fprintf(g_dat, "\n\n");
}

/* ==== 4. simulation speed ===================================================================== */

/* The workload, as bench/dma/bdma_tb.v runs it: one DMA buffer per ring entry with COPY VRAM->VRAM
 * 16 KiB, COPY host->VRAM 8 KiB, COPY VRAM->host 8 KiB, FILL VRAM 8 KiB, interrupt on completion;
 * each entry retired on its interrupt. */
#define W_VSRC 0x00010000u
#define W_VDST 0x00020000u
#define W_VDST2 0x00030000u
#define W_VFILL 0x00040000u
#define W_PATTERN 0xc0ffee11u
#define W_BYTES (16 * KIB + 3 * 8 * KIB)

static uint32_t encode_workload(uint8_t *buf, uint64_t hsrc, uint64_t hdst)
{
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, buf, 256);
    gr_dma_copy(&w, GR_DMA_SPACE_VRAM, W_VSRC, GR_DMA_SPACE_VRAM, W_VDST, 16 * KIB);
    gr_dma_copy(&w, GR_DMA_SPACE_HOST, hsrc, GR_DMA_SPACE_VRAM, W_VDST2, 8 * KIB);
    gr_dma_copy(&w, GR_DMA_SPACE_VRAM, W_VSRC, GR_DMA_SPACE_HOST, hdst, 8 * KIB);
    gr_dma_fill(&w, GR_DMA_SPACE_VRAM, W_VFILL, 8 * KIB, W_PATTERN);
    if (w.overflow || w.used != 120)
        die("workload encoding");
    return (uint32_t)w.used;
}

typedef struct speed {
    uint64_t iters, cycles;
    double wall, cpu;
    uint64_t cycles_per_iter;
} speed_t;

/* Runs entries until max_iters, or (min_wall > 0) until min_wall seconds have passed. */

/* Checks the workload's destinations given where each lives. */
static void check_workload(const uint8_t *vsrc, const uint8_t *hsrc, const uint8_t *vdst,
                           const uint8_t *vdst2, const uint8_t *hdst, const uint8_t *vfill,
                           const char *who)
{
    if (memcmp(vdst, vsrc, 16 * KIB) || memcmp(vdst2, hsrc, 8 * KIB) || memcmp(hdst, vsrc, 8 * KIB))
        die("%s: a workload copy differs", who);
    for (unsigned i = 0; i < 8 * KIB; i += 4) {
        uint32_t v;
        memcpy(&v, vfill + i, 4);
        if (v != W_PATTERN)
            die("%s: the workload's FILL differs at %u", who, i);
    }
}

static speed_t speed_bare(double min_wall, uint64_t max_iters)
{
    bare_t b;
    bare_open(&b, true, g_seed);
    static uint8_t vsrc[16 * KIB], vdst[16 * KIB], vdst2[8 * KIB], vfill[8 * KIB];
    uint64_t hsrc_bus, hdst_bus, rng = g_seed;
    uint8_t *hsrc = bare_alloc(&b, 8 * KIB, &hsrc_bus), *hdst = bare_alloc(&b, 8 * KIB, &hdst_bus);
    fill_random(&rng, vsrc, sizeof vsrc);
    fill_random(&rng, hsrc, 8 * KIB);
    vput(&b, W_VSRC, vsrc, sizeof vsrc);
    uint32_t len = encode_workload(b.cmd, hsrc_bus, hdst_bus);
    speed_t s = {0, 0, 0, 0, 0};
    double w0 = wall_now(), c0 = cpu_now();
    uint64_t cyc0 = gr_sim_cycle(b.sim);
    while (s.iters < max_iters && !(min_wall > 0 && s.iters > 0 && wall_now() - w0 >= min_wall)) {
        uint32_t id = bare_entry(&b, b.cmd_bus, len, false, true);
        bare_publish(&b);
        bool raised = false;
        gr_sim_wait_irq(b.sim, 1000000, &raised);
        uint32_t st = brd(&b, GR_REG_IRQ_STATE);
        bwr(&b, GR_REG_IRQ_STATE, st);
        if (!raised || (st & GPU_REGS__IRQ_STATE__DMA_FAULT_bm) || fence_done(&b) != id)
            die("bare workload: entry %u did not complete", id);
        s.iters++;
    }
    s.cycles = gr_sim_cycle(b.sim) - cyc0;
    s.wall = wall_now() - w0;
    s.cpu = cpu_now() - c0;
    s.cycles_per_iter = s.cycles / s.iters;
    vget(&b, W_VDST, vdst, sizeof vdst);
    vget(&b, W_VDST2, vdst2, sizeof vdst2);
    vget(&b, W_VFILL, vfill, sizeof vfill);
    check_workload(vsrc, hsrc, vdst, vdst2, hdst, vfill, "bare");
    if (perf_bytes(&b) != s.iters * W_BYTES)
        die("bare workload: DMA_PERF_BYTES");
    bare_close(&b);
    return s;
}

static speed_t speed_kmd(double min_wall, uint64_t max_iters)
{
    kmd_rig_t k;
    kmd_open(&k, true);
    static uint8_t vsrc[16 * KIB], vdst[16 * KIB], vdst2[8 * KIB], vfill[8 * KIB];
    gr_dma_buf_t hsrc, hdst;
    if (gr_link_dma_alloc(k.link, 8 * KIB, &hsrc) || gr_link_dma_alloc(k.link, 8 * KIB, &hdst))
        die("gr_link_dma_alloc failed");
    uint64_t rng = g_seed;
    fill_random(&rng, vsrc, sizeof vsrc);
    fill_random(&rng, hsrc.cpu, 8 * KIB);
    if (gr_link_ap_write(k.link, W_VSRC, vsrc, sizeof vsrc))
        die("aperture write failed");
    uint32_t len = encode_workload(k.cmd.cpu, hsrc.bus, hdst.bus);
    speed_t s = {0, 0, 0, 0, 0};
    double w0 = wall_now(), c0 = cpu_now();
    uint32_t ts0 = krd(&k, GR_REG_DMA_TIMESTAMP_LO);
    uint64_t cycles = 0;
    while (s.iters < max_iters && !(min_wall > 0 && s.iters > 0 && wall_now() - w0 >= min_wall)) {
        const uint32_t fence = 1000 + (uint32_t)s.iters;
        kmd_submit(&k, 0, len, fence);
        for (unsigned n = 0; k.completed != fence; n++) {
            if (n > 10000)
                die("miniport workload: fence %u not reported", fence);
            kmd_service(&k, 1000);
        }
        s.iters++;
        /* the 32-bit timestamp wraps after 42 s of simulated time: accumulate */
        uint32_t ts = krd(&k, GR_REG_DMA_TIMESTAMP_LO);
        cycles += (uint32_t)(ts - ts0);
        ts0 = ts;
    }
    s.cycles = cycles;
    s.wall = wall_now() - w0;
    s.cpu = cpu_now() - c0;
    s.cycles_per_iter = s.cycles / s.iters;
    if (gr_link_ap_read(k.link, W_VDST, vdst, sizeof vdst) ||
        gr_link_ap_read(k.link, W_VDST2, vdst2, sizeof vdst2) ||
        gr_link_ap_read(k.link, W_VFILL, vfill, sizeof vfill))
        die("aperture read failed");
    check_workload(vsrc, hsrc.cpu, vdst, vdst2, hdst.cpu, vfill, "miniport");
    (void)gr_link_dma_free(k.link, &hsrc);
    (void)gr_link_dma_free(k.link, &hdst);
    kmd_close(&k);
    return s;
}

/* Runs the Icarus testbench once; returns its cycles, or dies. */
static uint64_t run_vvp(const char *vvp, uint64_t iters, double *out_wall, double *out_cpu)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "vvp -n '%s' +iters=%" PRIu64 " 2>&1", vvp, iters);
    struct rusage r0, r1;
    getrusage(RUSAGE_CHILDREN, &r0);
    double w0 = wall_now();
    FILE *p = popen(cmd, "r");
    if (!p)
        die("cannot run %s", cmd);
    char line[512];
    uint64_t cycles = 0, got_iters = 0;
    bool pass = false;
    while (fgets(line, sizeof line, p)) {
        const char *c = strstr(line, "cycles=");
        const char *i = strstr(line, "iters=");
        if (strstr(line, "bdma_tb:") && c && i && strstr(line, "PASS")) {
            cycles = strtoull(c + 7, NULL, 10);
            got_iters = strtoull(i + 6, NULL, 10);
            pass = true;
        } else {
            fprintf(stderr, "vvp: %s", line);
        }
    }
    int rc = pclose(p);
    *out_wall = wall_now() - w0;
    getrusage(RUSAGE_CHILDREN, &r1);
    *out_cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
               1e-6 * (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) +
               (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
               1e-6 * (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec);
    if (rc != 0 || !pass || got_iters != iters || cycles == 0)
        die("%s: no PASS line (exit %d)", cmd, rc);
    return cycles;
}

/* Two runs, `lo` and `hi` entries: the difference takes out vvp's start and the setup. */
static speed_t speed_icarus(const char *vvp, uint64_t lo, uint64_t hi)
{
    double wl, cl, wh, ch;
    uint64_t cyl = run_vvp(vvp, lo, &wl, &cl);
    uint64_t cyh = run_vvp(vvp, hi, &wh, &ch);
    speed_t s;
    s.iters = hi - lo;
    s.cycles = cyh - cyl;
    s.wall = wh - wl;
    s.cpu = ch - cl;
    s.cycles_per_iter = s.cycles / s.iters;
    return s;
}

static void section_speed(const char *vvp)
{
    const double min_wall = g_quick ? 0.3 : 1.5;
    speed_t kmd = speed_kmd(min_wall, 100000);
    speed_t bare = speed_bare(min_wall, 100000);
    speed_t ica = {0, 0, 0, 0, 0};
    if (vvp)
        ica = speed_icarus(vvp, 1, g_quick ? 2 : 3);
    out("\n## Simulation speed\n\n");
    out("One workload entry: COPY VRAM->VRAM 16 KiB, COPY host->VRAM 8 KiB, COPY VRAM->host 8 KiB, "
        "FILL VRAM 8 KiB, interrupt on completion, retired on the interrupt; entries run back to "
        "back, bus models quiet. Simulated cycles per second of wall time and of CPU time (this "
        "machine, noisy; never checked). Icarus: `bench/dma/bdma_tb.v` with behavioural memories, "
        "two runs (1 and %u entries) subtracted so that vvp's start and the setup do not "
        "count.\n\n",
        g_quick ? 2u : 3u);
    out("| simulator | entries | cycles/entry | wall s | cycles/s (wall) | cycles/s (CPU) | vs "
        "bare Verilator |\n|---|---:|---:|---:|---:|---:|---:|\n");
    const speed_t *rows[3] = {&kmd, &bare, &ica};
    const char *names[3] = {"Verilator, driver in the loop (sim://, miniport)",
                            "Verilator, bare (gr_sim)", "Icarus Verilog 11 (vvp)"};
    double base = bare.cycles / bare.wall;
    for (int i = 0; i < 3; i++) {
        const speed_t *s = rows[i];
        if (!s->iters) {
            out("| %s | not run (no --vvp) | | | | | |\n", names[i]);
            continue;
        }
        double cps = s->cycles / s->wall;
        out("| %s | %" PRIu64 " | %" PRIu64 " | %.2f | %.0f | %.0f | %.3gx |\n", names[i], s->iters,
            s->cycles_per_iter, s->wall, cps, s->cycles / s->cpu, cps / base);
    }
    out("\n");
    fprintf(g_dat, "# simulation speed, cycles per wall second\n");
    fprintf(g_dat, "\"driver+sim://\" %.0f\n\"bare Verilator\" %.0f\n", kmd.cycles / kmd.wall,
            base);
    if (ica.iters)
        fprintf(g_dat, "\"Icarus\" %.0f\n", ica.cycles / ica.wall);
    fprintf(g_dat, "\n\n");
}

/* ==== smoke: a tiny run of each measurement, twice, as TAP ==================================== */

static unsigned g_tap;
static unsigned g_failed;

static void tap(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tap(bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%sok %u - ", ok ? "" : "not ", ++g_tap);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    g_failed += !ok;
}

static int smoke(const char *vvp)
{
    printf("1..%u\n# seed=%" PRIu64 " (bench_dma --smoke --seed %" PRIu64 ")\n", vvp ? 7u : 6u,
           g_seed, g_seed);
    fflush(stdout);
    /* 1, 2: copies (copy_once dies on a wrong byte or a wrong DMA_PERF_BYTES) */
    for (int mode = 0; mode < 2; mode++) {
        copy_result_t c[2];
        for (int run = 0; run < 2; run++) {
            copy_rig_t r;
            copy_rig_open(&r, mode == 0, 16 * KIB);
            c[run] = copy_once(&r, mode ? DIR_HV : DIR_VV, mode ? AD_VA4K : AD_PHYS, 16 * KIB);
            bare_close(&r.b);
        }
        /* DMA_PERF_STALLS counts bubbles between the COPY's first and last write beats, inside
         * the TIMESTAMPs: at most the cycles beyond one per beat */
        tap(c[0].bytes == 16 * KIB && c[0].cycles > 0 && c[0].cycles == c[1].cycles &&
                c[0].stalls == c[1].stalls && c[0].cycles >= 16 * KIB / 8 &&
                c[0].stalls <= c[0].cycles - 16 * KIB / 8,
            "copy %s %s 16 KiB: %" PRIu64 " bytes exact, %" PRIu64 " and %" PRIu64
            " cycles, %" PRIu64 " stall cycles",
            mode ? "host->VRAM GPU VA" : "VRAM->VRAM physical", mode ? "random" : "quiet",
            c[0].bytes, c[0].cycles, c[1].cycles, c[0].stalls);
    }
    /* 3: preemption of a 64 KiB FILL at one trigger point */
    {
        preempt_sample_t p[2];
        for (int run = 0; run < 2; run++) {
            copy_rig_t r;
            copy_rig_open(&r, false, 64 * KIB);
            p[run] = preempt_once(&r, &preempt_cfgs[3], 64 * KIB, 3000, 0x0bad0001u);
            /* exactly the first STOP_DONE bytes were written */
            static uint8_t got[64 * KIB];
            vget(&r.b, VDST, got, sizeof got);
            for (uint32_t i = 0; i < sizeof got; i += 4) {
                uint32_t v;
                memcpy(&v, got + i, 4);
                if (v != (i < p[run].done ? 0x600dcafeu : 0u))
                    p[run].done = UINT32_MAX;
            }
            bare_close(&r.b);
        }
        tap(p[0].done != UINT32_MAX && p[0].done > 0 && p[0].to_fence > 0 && p[0].to_irq > 0 &&
                !memcmp(&p[0], &p[1], sizeof p[0]),
            "preempt a FILL (random): %u bytes written exactly, %" PRIu64 "/%" PRIu64
            " cycles to fence/IRQ, twice the same",
            p[0].done, p[0].to_fence, p[0].to_irq);
    }
    /* 4: bare submit latency */
    {
        lat_stats_t l[2];
        for (int run = 0; run < 2; run++)
            l[run] = latency_bare(false, 4, 3);
        tap(l[0].fence.min > 0 && l[0].irq.min >= l[0].fence.min &&
                !memcmp(&l[0], &l[1], sizeof l[0]),
            "bare TAIL-to-fence, COPY 256 B (random): median %" PRIu64 " cycles, twice the same",
            l[0].fence.med);
    }
    /* 5: with the miniport */
    {
        kmd_lat_t l[2];
        for (int run = 0; run < 2; run++)
            l[run] = latency_kmd(true, 0, 3, NULL);
        tap(l[0].notify.min > 0 && l[0].irq.min > 0 && l[0].notify.min > l[0].irq.min &&
                !memcmp(&l[0], &l[1], sizeof l[0]),
            "miniport submit-to-DMA_COMPLETED, empty packet (quiet): %" PRIu64
            " cycles, twice the same",
            l[0].notify.med);
    }
    /* 6: the speed workload, bare and with the miniport, two entries (bytes checked inside) */
    {
        speed_t a = speed_bare(0, 2), b2 = speed_bare(0, 2), k = speed_kmd(0, 2);
        tap(a.iters == 2 && a.cycles > 0 && a.cycles == b2.cycles && k.iters == 2 && k.cycles > 0,
            "speed workload: bare %" PRIu64 " cycles/entry (twice the same), miniport %" PRIu64
            " cycles/entry, bytes exact",
            a.cycles_per_iter, k.cycles_per_iter);
    }
    /* 7: the Icarus testbench */
    if (vvp) {
        double w, c;
        uint64_t x = run_vvp(vvp, 1, &w, &c), y = run_vvp(vvp, 1, &w, &c);
        tap(x > 0 && x == y,
            "icarus testbench: 1 entry PASS (bytes checked), %" PRIu64 " cycles, twice the same",
            x);
    }
    return g_failed ? 1 : 0;
}

/* ==== main ==================================================================================== */

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [--out DIR] [--quick] [--only copy,preempt,latency,speed] [--seed N] "
            "[--vvp PATH]\n"
            "       %s --smoke [--vvp PATH] [--seed N]\n",
            argv0, argv0);
}

int main(int argc, char **argv)
{
    const char *outdir = NULL, *only = NULL, *vvp = NULL;
    bool smoke_mode = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            outdir = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--vvp") && i + 1 < argc)
            vvp = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            g_seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--quick"))
            g_quick = true;
        else if (!strcmp(argv[i], "--smoke"))
            smoke_mode = true;
        else {
            usage(argv[0]);
            return 2;
        }
    }
    if (!g_seed)
        g_seed = 1;
    if (smoke_mode)
        return smoke(vvp);

    char path[1024];
    if (outdir) {
        snprintf(path, sizeof path, "%s/dma.md", outdir);
        g_md = fopen(path, "w");
        snprintf(path, sizeof path, "%s/dma.dat", outdir);
        g_dat = fopen(path, "w");
        if (!g_md || !g_dat)
            die("cannot write %s/dma.{md,dat}", outdir);
    } else {
        g_dat = fopen("/dev/null", "w");
    }
    out("# bench_dma: the DMA engine's command path in simulated cycles\n\n");
    out("gpu_core (Verilator, 8-byte data bus), seed %" PRIu64 "%s. Cycles are exact and "
        "repeatable for a seed; only the speed table depends on the machine.\n",
        g_seed, g_quick ? ", quick run" : "");
#define WANT(s) (!only || strstr(only, s))
    if (WANT("copy"))
        section_copy();
    if (WANT("preempt"))
        section_preempt();
    if (WANT("latency"))
        section_latency();
    if (WANT("speed"))
        section_speed(vvp);
    if (g_md)
        fclose(g_md);
    fclose(g_dat);
    return 0;
}
