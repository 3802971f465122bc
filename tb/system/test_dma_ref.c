/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_dma_ref: random command streams on the real DMA engine (gpu_core over the gr_sim C API),
 * checked byte for byte against the C reference model (tb/models/dma_ref).
 *
 * Each stream builds its own device and world from its seed: page tables in VRAM (backdoor
 * writes) for two address spaces (MMU_ROOT and an entry's ROOT) with 2 MiB, 64 KiB and 4 KiB
 * pages, read-only pages, SYSTEM pages in host memory, unmapped holes and a table beyond VRAM;
 * a ring, command buffers and data in host memory (gr_sim_dma_alloc); maybe a VPR, the MMU off;
 * the bus models' stalls, latencies and reordering. It then writes batches of ring entries
 * (every command, INDIRECT, page-table updates followed by TLB_INVALIDATE, WAITs on fences),
 * runs each batch on the device until it is idle or stopped, and compares every byte of every
 * region the stream can reach, the fence record, HEAD, COMPLETED_FENCE, DMA_STATUS,
 * DMA_FAULT_*, PERF_CMDS, PERF_BYTES, IRQ_STATE and MC_FAULT_* with the model. Timestamps are
 * checked to lie between the counter's values read before and after a batch, in order.
 *
 * One test per kind of stream: clean streams, streams preempted at a random moment (the model
 * is run to the point the device reports, then the removed entries are resubmitted), and
 * streams that end in each fault (bad ring entry, bad command, MMU unmapped / read-only /
 * page-table read error, VPR copy, bus error on a read and on a write, a WAIT hang, a privilege
 * fault: the last entry written without PRIV). Every other entry is a kernel one (PRIV). After a
 * fault the engine is reset (STOP_* checked) and one more batch must run.
 *
 * Usage: test_dma_ref [--seed N] [--streams K] [--verbose] [--no-raw]: stream i of every kind
 * uses seed N + i (default N: $GR_TEST_SEED, else 1; K default 3). A failing stream prints its
 * seed, kind and commands; `--seed S --streams 1` replays it. --verbose prints every stream;
 * --no-raw keeps reads off bytes an earlier command of the same entry wrote (unless a FENCE or
 * TIMESTAMP lies between). TAP through cmocka (CMOCKA_MESSAGE_OUTPUT=TAP).
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

#include <cmocka.h>

#include "dma_ref.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_regdesc.h"
#include "gpuref/gr_regmap.h"
#include "gr_sim.h"
#include "ref_walker.h"

#define K4  UINT64_C(0x1000)
#define K64 UINT64_C(0x10000)
#define M2  UINT64_C(0x200000)

/* VRAM layout (physical). */
#define VRAM_BYTES UINT64_C(0x20000000) /* the sim's default: 512 MiB */
#define PT_POOL    UINT64_C(0x00100000) /* page tables, 16 pages */
#define POOL_64K   UINT64_C(0x01000000) /* 16 pages of 64 KiB */
#define POOL_4K    UINT64_C(0x01800000) /* 96 pages of 4 KiB (64 mapped at most, the rest spare) */
#define POOL_4K_N  96u
#define VRAM_PHYS  UINT64_C(0x03000000) /* data reached physically, 256 KiB */
#define VRAM_PHYS_BYTES UINT64_C(0x40000)
#define VPR_OFF    UINT64_C(0x20000)    /* VPR (when on): VRAM_PHYS + [0x20000, 0x30000) */
#define VPR_BYTES  UINT64_C(0x10000)
#define VSEM       UINT64_C(0x03100000) /* VRAM semaphores (0x000..0x7ff) and stamps (0x800..) */
#define PAGES_2M   UINT64_C(0x04000000) /* 2 MiB pages: [0] RW slot, [1] RO slot, [2] space B */
#define BAD_TABLE  UINT64_C(0x30000000) /* a table address inside VRAM's space, past its memory */

#define SEM_SLOTS   32u
#define STAMP_SLOTS 128u
#define CMD_PAGES   48u
#define MAX_REGIONS 24u
#define MAX_PIECES  32u
#define MAX_PEND    512u
#define WATCHDOG    4000u
#define RUN_LIMIT   3000000u

enum kind {
    K_CLEAN,
    K_PREEMPT,
    K_BAD_ENTRY,
    K_BAD_CMD,
    K_MMU_UNMAPPED,
    K_MMU_READONLY,
    K_MMU_DECODE,
    K_VPR,
    K_BUS_READ,
    K_BUS_WRITE,
    K_HANG,
    K_PRIV,
};

static const char *const kind_name[] = {
    "clean", "preempt", "bad-entry", "bad-cmd", "mmu-unmapped", "mmu-read-only",
    "mmu-decode", "vpr-copy", "bus-read", "bus-write", "hang", "privilege",
};

static uint64_t g_seed = 1;
static unsigned g_streams = 3;
static bool g_verbose;
/* "Commands run in order": a command's reads see the writes of the commands before it, so the
 * streams read what earlier commands of the same entry wrote. --no-raw: they do not, unless a
 * FENCE or TIMESTAMP (which wait for the earlier writes' responses) lies between. */
static bool g_no_raw;
static unsigned long g_cmds_total, g_entries_total, g_bytes_total;
static unsigned long g_faulted[16], g_streams_run[16]; /* per kind: streams, and those that ended so */
static unsigned long g_preempt_mid, g_preempt_resubmitted, g_remaps;
/* Known RTL disagreement, expected to fail (tb/system/test_dma.c has the directed case):
 * after a bad ring entry, DMA_STOP_OFFSET keeps the previous entry's last position instead of 0.
 * Tolerated here alone, counted and printed, so the streams still check everything else. */

/* ---- the world -------------------------------------------------------------------------------- */

typedef struct region {
    const char *name;
    gr_dma_ref_port_t port;
    uint64_t base, size;
    uint8_t *shadow;  /* the model's memory */
    uint8_t *cpu;     /* host: the device's memory as the CPU sees it; VRAM: NULL (backdoor) */
    bool fixed;       /* written by the test only (ring, command buffers): not snapshot */
} region_t;

enum slot_type { S_NONE, S_2M_RW, S_2M_RO, S_2M_SYS, S_64K, S_4K };

typedef struct ectx {
    bool use_root;
    uint64_t root;
} ectx_t;

typedef struct piece {
    gr_dma_ref_port_t port;
    uint64_t pa;
    uint64_t off; /* offset in the command's range */
    uint32_t n;
    bool vpr;
} piece_t;

typedef struct span {
    unsigned n;
    piece_t p[MAX_PIECES];
    unsigned fault;     /* 0, an MMU fault type, or 9: outside every region (bus error) */
    uint64_t fault_off; /* where the first problem is */
} span_t;

typedef struct wrange {
    gr_dma_ref_port_t port;
    uint64_t pa, n;
} wrange_t;

typedef struct fx {
    uint64_t seed;
    enum kind kind;
    uint64_t rng;
    gr_sim_t *sim;
    gr_dma_ref_t *m;
    region_t reg[MAX_REGIONS];
    unsigned nreg;

    /* host */
    uint8_t *ring;
    uint64_t ring_bus;
    unsigned ring_log2;
    uint32_t tail; /* the next ring index (free-running; modulo the size when used) */
    uint64_t fence_bus;
    uint8_t *fence;
    uint8_t *cmd;
    uint64_t cmd_bus;
    unsigned cmd_next;  /* next free command page in this batch */
    uint64_t staging_bus; /* a page of values the stream copies into page tables */
    uint8_t *staging;
    unsigned staging_next;
    uint64_t hdata_bus, hdata_end; /* host data reached physically; hdata_end: its guard page */
    uint64_t hsem_bus;             /* host semaphores (0x000..0x7ff) and stamps (0x800..) */
    uint64_t sys4k_bus, sys64k_bus, sys2m_bus; /* SYSTEM page backing (aligned bases) */

    /* the address spaces */
    bool mmu_on, vpr_on;
    uint64_t va_base; /* window of 4 slots of 2 MiB, slot 4 maps a table past VRAM */
    enum slot_type slot[4];
    uint64_t root_a, root_b;
    uint64_t l0_table; /* the 4 KiB-page table (VRAM) */
    bool pool4k_used[POOL_4K_N];
    int l0_page[64]; /* POOL_4K index behind L0 entry i (-1: not a VRAM page) */

    /* stream state */
    uint32_t fence_id;
    uint64_t semv[2][SEM_SLOTS]; /* [0] host, [1] VRAM: values only grow */
    unsigned stamp_next[2];
    bool tlb_dirty;
    uint64_t remap_va;   /* the page whose entry changed: read before and after the change */
    bool remap_use_root; /* the entry after uses the same address space (no TLB drop) */
    uint32_t preempt_fence;

    /* device baselines */
    uint32_t perf_cmds0, mc_count0;
    uint64_t perf_bytes0;
    uint64_t last_stamp;
    unsigned stamps_seen;

    /* what the stream did, for a failure message */
    char *log;
    size_t log_len, log_cap;
} fx_t;

static fx_t *g_fx; /* for the model's callbacks' failure messages */

/* ---- small helpers ---------------------------------------------------------------------------- */

static uint64_t rnd(fx_t *f)
{
    uint64_t z = (f->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t below(fx_t *f, uint64_t n)
{
    return n ? rnd(f) % n : 0;
}

static bool chance(fx_t *f, unsigned pct)
{
    return below(f, 100) < pct;
}

static void logf_(fx_t *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(fx_t *f, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = sizeof line - 1;
    if (f->log_len + (size_t)n + 1 > f->log_cap) {
        size_t cap = f->log_cap ? f->log_cap * 2 : 65536;
        while (cap < f->log_len + (size_t)n + 1)
            cap *= 2;
        char *p = realloc(f->log, cap);
        if (!p)
            return;
        f->log = p;
        f->log_cap = cap;
    }
    memcpy(f->log + f->log_len, line, (size_t)n + 1);
    f->log_len += (size_t)n;
}

/* Prints the stream so far (as TAP comments) and fails. */
static void fail_stream(fx_t *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_stream(fx_t *f, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("# ---- stream (seed=%" PRIu64 " kind=%s) ----\n", f->seed, kind_name[f->kind]);
    if (f->log) {
        const char *p = f->log;
        while (*p) {
            const char *e = strchr(p, '\n');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            printf("#   %.*s\n", (int)n, p);
            p += n + (e ? 1 : 0);
        }
    }
    fflush(stdout);
    fail_msg("%s (seed=%" PRIu64 " kind=%s; replay: test_dma_ref --seed %" PRIu64
             " --streams 1)",
             msg, f->seed, kind_name[f->kind], f->seed);
}

static uint32_t rd(fx_t *f, uint32_t off)
{
    uint32_t v = 0;
    int rc = gr_sim_mmio_read(f->sim, off, &v);
    if (rc)
        fail_stream(f, "read of 0x%03x failed: %d", off, rc);
    return v;
}

static void wr(fx_t *f, uint32_t off, uint32_t v)
{
    int rc = gr_sim_mmio_write(f->sim, off, v);
    if (rc)
        fail_stream(f, "write of 0x%03x failed: %d", off, rc);
}

static uint64_t rd_timestamp(fx_t *f)
{
    uint32_t lo = rd(f, GR_REG_DMA_TIMESTAMP_LO);
    return lo | (uint64_t)rd(f, GR_REG_DMA_TIMESTAMP_HI) << 32;
}

static uint64_t rd_perf_bytes(fx_t *f)
{
    uint32_t lo = rd(f, GR_REG_DMA_PERF_BYTES_LO);
    return lo | (uint64_t)rd(f, GR_REG_DMA_PERF_BYTES_HI) << 32;
}

static const char *space_name(unsigned s)
{
    return s == GR_DMA_SPACE_GPUVA ? "va" : s == GR_DMA_SPACE_VRAM ? "vram" : "host";
}

static const char *port_name(gr_dma_ref_port_t p)
{
    return p == GR_DMA_REF_HOST ? "host" : "vram";
}

/* ---- regions ---------------------------------------------------------------------------------- */

static region_t *find_region(fx_t *f, gr_dma_ref_port_t port, uint64_t addr, uint64_t n)
{
    for (unsigned i = 0; i < f->nreg; i++) {
        region_t *r = &f->reg[i];
        if (r->port == port && addr >= r->base && addr - r->base <= r->size - n && n <= r->size)
            return r;
    }
    return NULL;
}

static region_t *add_region(fx_t *f, const char *name, gr_dma_ref_port_t port, uint64_t base,
                            uint64_t size, uint8_t *cpu, bool fixed)
{
    assert_true(f->nreg < MAX_REGIONS);
    region_t *r = &f->reg[f->nreg++];
    r->name = name;
    r->port = port;
    r->base = base;
    r->size = size;
    r->cpu = cpu;
    r->fixed = fixed;
    r->shadow = malloc(size);
    assert_non_null(r->shadow);
    if (cpu)
        memcpy(r->shadow, cpu, size); /* as allocated (zero) */
    else
        memset(r->shadow, 0, size); /* the caller writes both sides */
    return r;
}

/* Random content in the model and the device alike. */
static void region_randomize(fx_t *f, region_t *r)
{
    for (uint64_t i = 0; i < r->size; i += 8) {
        uint64_t v = rnd(f);
        memcpy(r->shadow + i, &v, 8);
    }
    if (r->cpu)
        memcpy(r->cpu, r->shadow, r->size);
    else
        assert_int_equal(gr_sim_vram_write(f->sim, r->base, r->shadow, r->size), GR_OK);
}

static void region_zero(fx_t *f, region_t *r)
{
    memset(r->shadow, 0, r->size);
    if (r->cpu)
        memset(r->cpu, 0, r->size);
    else
        assert_int_equal(gr_sim_vram_write(f->sim, r->base, r->shadow, r->size), GR_OK);
}

/* The test writes memory both sides see (page tables, ring, command buffers). */
static void poke(fx_t *f, gr_dma_ref_port_t port, uint64_t addr, const void *src, size_t n)
{
    region_t *r = find_region(f, port, addr, n);
    assert_non_null(r);
    memcpy(r->shadow + (addr - r->base), src, n);
    if (r->cpu)
        memcpy(r->cpu + (addr - r->base), src, n);
    else
        assert_int_equal(gr_sim_vram_write(f->sim, addr, src, n), GR_OK);
}

static void poke64(fx_t *f, gr_dma_ref_port_t port, uint64_t addr, uint64_t v)
{
    uint8_t b[8];
    gr_dma_put64(b, v);
    poke(f, port, addr, b, 8);
}

/* The test's writes into ring and command pages reach the model's copy. */
static void sync_fixed(fx_t *f)
{
    for (unsigned i = 0; i < f->nreg; i++)
        if (f->reg[i].fixed)
            memcpy(f->reg[i].shadow, f->reg[i].cpu, f->reg[i].size);
}

/* ---- the model's bus -------------------------------------------------------------------------- */

static int m_read(void *ctx, gr_dma_ref_port_t port, uint64_t addr, void *dst, size_t n)
{
    fx_t *f = ctx;
    region_t *r = find_region(f, port, addr, n);
    if (!r) {
        if (port == GR_DMA_REF_VRAM && addr < VRAM_BYTES && n <= VRAM_BYTES - addr)
            fail_stream(f, "the stream reached VRAM 0x%" PRIx64 " outside every region", addr);
        return -1; /* DECERR: no host buffer there, or past VRAM */
    }
    memcpy(dst, r->shadow + (addr - r->base), n);
    return 0;
}

static int m_write(void *ctx, gr_dma_ref_port_t port, uint64_t addr, const void *src, size_t n)
{
    fx_t *f = ctx;
    region_t *r = find_region(f, port, addr, n);
    if (!r) {
        if (port == GR_DMA_REF_VRAM && addr < VRAM_BYTES && n <= VRAM_BYTES - addr)
            fail_stream(f, "the stream wrote VRAM 0x%" PRIx64 " outside every region", addr);
        return -1;
    }
    if (r->fixed)
        fail_stream(f, "the stream wrote %s 0x%" PRIx64 " (%s)", port_name(port), addr, r->name);
    memcpy(r->shadow + (addr - r->base), src, n);
    return 0;
}

/* "some value": the device's counter is checked for bounds and order instead. */
static uint64_t m_stamp(void *ctx)
{
    (void)ctx;
    return 0;
}

/* ---- translation for the generator (the same walker the model uses, over the model's memory) -- */

static int pt_read64(void *ctx, uint64_t addr, uint64_t *out)
{
    uint8_t b[8];
    if (m_read(ctx, GR_DMA_REF_VRAM, addr, b, 8) != 0)
        return -1;
    *out = gr_dma_get64(b);
    return 0;
}

static bool in_vpr(fx_t *f, gr_dma_ref_port_t port, uint64_t pa)
{
    return f->vpr_on && port == GR_DMA_REF_VRAM && pa >= VRAM_PHYS + VPR_OFF &&
           pa < VRAM_PHYS + VPR_OFF + VPR_BYTES;
}

/* Splits [addr, addr + len) of a space at its 4 KiB pages and translates each; stops at the
 * first page that faults or lies outside every region. */
static bool resolve(fx_t *f, const ectx_t *e, unsigned space, uint64_t addr, uint64_t len, bool write,
                    span_t *s)
{
    s->n = 0;
    s->fault = 0;
    s->fault_off = 0;
    for (uint64_t off = 0; off < len;) {
        uint64_t a = addr + off;
        uint64_t n = K4 - (a & (K4 - 1));
        if (n > len - off)
            n = len - off;
        piece_t p = {.off = off, .n = (uint32_t)n};
        if (space == GR_DMA_SPACE_HOST) {
            p.port = GR_DMA_REF_HOST;
            p.pa = a;
        } else if (space == GR_DMA_SPACE_VRAM) {
            p.port = GR_DMA_REF_VRAM;
            p.pa = a;
        } else {
            gr_ref_mmu_t mmu = {
                .vram_addr_bits = 32,
                .root = e->use_root ? e->root : f->root_a,
                .enable = e->use_root || f->mmu_on,
                .read64 = pt_read64,
                .ctx = f,
            };
            gr_ref_result_t r;
            gr_ref_translate(&mmu, a, write, false, &r);
            if (r.fault) {
                s->fault = r.fault;
                s->fault_off = off;
                return false;
            }
            p.port = r.system ? GR_DMA_REF_HOST : GR_DMA_REF_VRAM;
            p.pa = r.pa;
        }
        if (!find_region(f, p.port, p.pa, n)) {
            s->fault = 9;
            s->fault_off = off;
            return false;
        }
        p.vpr = in_vpr(f, p.port, p.pa);
        if (s->n >= MAX_PIECES) {
            s->fault = 9;
            s->fault_off = off;
            return false;
        }
        s->p[s->n++] = p;
        off += n;
    }
    return true;
}

static bool ranges_overlap(gr_dma_ref_port_t pa_, uint64_t a, uint64_t an, gr_dma_ref_port_t pb,
                           uint64_t b, uint64_t bn)
{
    return pa_ == pb && a < b + bn && b < a + an;
}

static bool spans_overlap(const span_t *x, const span_t *y)
{
    for (unsigned i = 0; i < x->n; i++)
        for (unsigned j = 0; j < y->n; j++)
            if (ranges_overlap(x->p[i].port, x->p[i].pa, x->p[i].n, y->p[j].port, y->p[j].pa, y->p[j].n))
                return true;
    return false;
}

/* Whether a byte from a protected source lands outside the VPR. */
static bool vpr_violation(const span_t *src, const span_t *dst, uint64_t *out_off)
{
    for (unsigned i = 0; i < src->n; i++) {
        if (!src->p[i].vpr)
            continue;
        for (unsigned j = 0; j < dst->n; j++) {
            const piece_t *a = &src->p[i], *b = &dst->p[j];
            uint64_t lo = a->off > b->off ? a->off : b->off;
            uint64_t hi = a->off + a->n < b->off + b->n ? a->off + a->n : b->off + b->n;
            if (lo < hi && !b->vpr) {
                if (out_off)
                    *out_off = lo;
                return true;
            }
        }
    }
    return false;
}

/* ---- per-entry hazards (--no-raw): reads never meet a write of the same entry still in flight */

typedef struct pend {
    unsigned n;
    wrange_t w[MAX_PEND];
    bool full;
} pend_t;

static void pend_add(pend_t *p, const span_t *s)
{
    for (unsigned i = 0; i < s->n; i++) {
        if (p->n >= MAX_PEND) {
            p->full = true;
            return;
        }
        p->w[p->n++] = (wrange_t){s->p[i].port, s->p[i].pa, s->p[i].n};
    }
}

static bool pend_hits(const pend_t *p, const span_t *s)
{
    if (!g_no_raw)
        return false;
    if (p->full)
        return true;
    for (unsigned i = 0; i < p->n; i++)
        for (unsigned j = 0; j < s->n; j++)
            if (ranges_overlap(p->w[i].port, p->w[i].pa, p->w[i].n, s->p[j].port, s->p[j].pa, s->p[j].n))
                return true;
    return false;
}

/* "FENCE and TIMESTAMP write only after every earlier write of the entry has its response" */
static void pend_clear(pend_t *p)
{
    p->n = 0;
    p->full = false;
}

typedef struct where {
    unsigned space;
    uint64_t addr;
} where_t;

/* ---- the world: layout, page tables, registers ------------------------------------------------ */

static void *halloc(fx_t *f, size_t bytes, uint64_t *bus)
{
    void *cpu = NULL;
    assert_int_equal(gr_sim_dma_alloc(f->sim, bytes, &cpu, bus), GR_OK);
    return cpu;
}

static uint64_t pte_junk(fx_t *f)
{
    /* bits 11:6 and 63:52 are ignored by the MMU */
    if (!chance(f, 25))
        return 0;
    return (rnd(f) & UINT64_C(0xfff0000000000fc0));
}

static uint64_t leaf_bits(fx_t *f, bool writable, bool system)
{
    return GR_PTE_VALID | (writable ? GR_PTE_WRITABLE : 0) | (system ? GR_PTE_SYSTEM : 0) |
           (chance(f, 30) ? GR_PTE_CACHEABLE : 0) | pte_junk(f);
}

static int take_4k_page(fx_t *f)
{
    for (unsigned tries = 0; tries < 1000; tries++) {
        unsigned i = (unsigned)below(f, POOL_4K_N);
        if (!f->pool4k_used[i]) {
            f->pool4k_used[i] = true;
            return (int)i;
        }
    }
    for (unsigned i = 0; i < POOL_4K_N; i++)
        if (!f->pool4k_used[i]) {
            f->pool4k_used[i] = true;
            return (int)i;
        }
    return -1;
}

static void build_world(fx_t *f)
{
    /* ---- host memory ---- */
    f->ring = halloc(f, K4, &f->ring_bus);
    add_region(f, "ring", GR_DMA_REF_HOST, f->ring_bus, K4, f->ring, true);
    f->fence = halloc(f, K4, &f->fence_bus);
    add_region(f, "fence record", GR_DMA_REF_HOST, f->fence_bus, K4, f->fence, false);
    f->cmd = halloc(f, CMD_PAGES * K4, &f->cmd_bus);
    add_region(f, "command buffers", GR_DMA_REF_HOST, f->cmd_bus, CMD_PAGES * K4, f->cmd, true);
    f->staging = halloc(f, K4, &f->staging_bus);
    add_region(f, "pte staging", GR_DMA_REF_HOST, f->staging_bus, K4, f->staging, true);
    uint8_t *p = halloc(f, K64, &f->hdata_bus);
    f->hdata_end = f->hdata_bus + K64; /* the guard page: DECERR */
    region_randomize(f, add_region(f, "host data", GR_DMA_REF_HOST, f->hdata_bus, K64, p, false));
    p = halloc(f, K4, &f->hsem_bus);
    region_zero(f, add_region(f, "host sems+stamps", GR_DMA_REF_HOST, f->hsem_bus, K4, p, false));
    p = halloc(f, 4 * K4, &f->sys4k_bus);
    region_randomize(f, add_region(f, "host system 4K", GR_DMA_REF_HOST, f->sys4k_bus, 4 * K4, p, false));
    uint64_t b;
    p = halloc(f, 3 * K64, &b);
    region_randomize(f, add_region(f, "host system 64K", GR_DMA_REF_HOST, b, 3 * K64, p, false));
    f->sys64k_bus = (b + K64 - 1) & ~(K64 - 1); /* two aligned 64 KiB pages inside */
    f->sys2m_bus = 0;

    /* ---- the choices of this stream ---- */
    f->ring_log2 = 2 + (unsigned)below(f, 3);
    f->mmu_on = !chance(f, 20);
    f->vpr_on = f->kind == K_VPR || chance(f, 35);
    f->slot[0] = S_2M_RW;
    f->slot[1] = S_64K;
    f->slot[2] = S_4K;
    unsigned x = (unsigned)below(f, 3);
    f->slot[3] = x == 0 ? S_NONE : x == 1 ? S_2M_RO : S_2M_SYS;
    for (unsigned i = 3; i > 0; i--) { /* shuffle */
        unsigned j = (unsigned)below(f, i + 1);
        enum slot_type t = f->slot[i];
        f->slot[i] = f->slot[j];
        f->slot[j] = t;
    }
    f->va_base = ((1 + below(f, 255)) << 39) | (below(f, 512) << 30) | (below(f, 500) << 21);

    /* ---- VRAM regions ---- */
    region_t *pt = add_region(f, "page tables", GR_DMA_REF_VRAM, PT_POOL, 16 * K4, NULL, false);
    region_zero(f, pt);
    region_randomize(f, add_region(f, "vram 64K pages", GR_DMA_REF_VRAM, POOL_64K, 16 * K64, NULL, false));
    region_randomize(f, add_region(f, "vram 4K pages", GR_DMA_REF_VRAM, POOL_4K, POOL_4K_N * K4, NULL, false));
    region_randomize(f, add_region(f, "vram phys data", GR_DMA_REF_VRAM, VRAM_PHYS, VRAM_PHYS_BYTES, NULL, false));
    region_zero(f, add_region(f, "vram sems+stamps", GR_DMA_REF_VRAM, VSEM, K4, NULL, false));
    region_randomize(f, add_region(f, "vram 2M pages", GR_DMA_REF_VRAM, PAGES_2M, 3 * M2, NULL, false));

    /* ---- page tables ---- */
    const uint64_t l3a = PT_POOL, l2a = PT_POOL + K4, l1a = PT_POOL + 2 * K4, l0 = PT_POOL + 3 * K4,
                   pt64 = PT_POOL + 4 * K4, l3b = PT_POOL + 5 * K4, l2b = PT_POOL + 6 * K4,
                   l1b = PT_POOL + 7 * K4;
    f->root_a = l3a;
    f->root_b = l3b;
    f->l0_table = l0;
    const unsigned i3 = (unsigned)(f->va_base >> 39) & 511, i2 = (unsigned)(f->va_base >> 30) & 511,
                   i1 = (unsigned)(f->va_base >> 21) & 511;
    poke64(f, GR_DMA_REF_VRAM, l3a + i3 * 8, l2a | GR_PTE_VALID | pte_junk(f));
    poke64(f, GR_DMA_REF_VRAM, l2a + i2 * 8, l1a | GR_PTE_VALID | pte_junk(f));
    poke64(f, GR_DMA_REF_VRAM, l3b + i3 * 8, l2b | GR_PTE_VALID | pte_junk(f));
    poke64(f, GR_DMA_REF_VRAM, l2b + i2 * 8, l1b | GR_PTE_VALID | pte_junk(f));

    /* the 4 KiB-page table: entries 0..63; 10 RW then 11 RO, 20 RW then 21 unmapped, always */
    unsigned sys4k = 0;
    for (unsigned i = 0; i < 64; i++) {
        f->l0_page[i] = -1;
        unsigned c = (unsigned)below(f, 100);
        if (i == 10 || i == 20)
            c = 0;
        else if (i == 11)
            c = 65;
        else if (i == 21)
            c = 95;
        uint64_t e = 0;
        if (c < 60 || (c >= 80 && c < 90 && sys4k >= 4)) {
            int k = take_4k_page(f);
            f->l0_page[i] = k;
            e = (POOL_4K + (uint64_t)k * K4) | leaf_bits(f, true, false);
        } else if (c < 75) {
            int k = take_4k_page(f);
            f->l0_page[i] = k;
            e = (POOL_4K + (uint64_t)k * K4) | leaf_bits(f, false, false);
        } else if (c < 80 && f->vpr_on) {
            /* a page inside the VPR */
            e = (VRAM_PHYS + VPR_OFF + below(f, VPR_BYTES / K4) * K4) | leaf_bits(f, true, false);
        } else if (c < 90) {
            e = (f->sys4k_bus + sys4k++ * K4) | leaf_bits(f, chance(f, 80), true);
        } else {
            e = chance(f, 50) ? 0 : (rnd(f) & ~GR_PTE_VALID); /* invalid: other bits ignored */
        }
        poke64(f, GR_DMA_REF_VRAM, l0 + i * 8, e);
    }
    /* the 64 KiB-page table: entries 0..7 */
    unsigned sys64 = 0;
    for (unsigned i = 0; i < 32; i++) {
        uint64_t e = 0;
        unsigned c = i < 8 ? (unsigned)below(f, 100) : 99;
        if (c < 60 || (c >= 75 && c < 90 && sys64 >= 2))
            e = (POOL_64K + i * K64) | leaf_bits(f, true, false);
        else if (c < 75)
            e = (POOL_64K + i * K64) | leaf_bits(f, false, false);
        else if (c < 90)
            e = (f->sys64k_bus + sys64++ * K64) | leaf_bits(f, chance(f, 80), true);
        poke64(f, GR_DMA_REF_VRAM, pt64 + i * 8, e);
    }
    for (unsigned s = 0; s < 5; s++) {
        uint64_t ea = 0, eb = 0;
        enum slot_type t = s < 4 ? f->slot[s] : S_NONE;
        switch (t) {
        case S_2M_RW:
            ea = PAGES_2M | GR_PTE_LEAF | leaf_bits(f, true, false);
            eb = (PAGES_2M + 2 * M2) | GR_PTE_LEAF | leaf_bits(f, true, false); /* B: elsewhere */
            break;
        case S_2M_RO:
            ea = eb = (PAGES_2M + M2) | GR_PTE_LEAF | leaf_bits(f, false, false);
            break;
        case S_2M_SYS: {
            uint8_t *c = halloc(f, 2 * M2, &b);
            f->sys2m_bus = (b + M2 - 1) & ~(M2 - 1);
            region_randomize(f, add_region(f, "host system 2M", GR_DMA_REF_HOST, b, 2 * M2, c, false));
            ea = eb = f->sys2m_bus | GR_PTE_LEAF | leaf_bits(f, true, true);
            break;
        }
        case S_64K: ea = eb = pt64 | GR_PTE_VALID | GR_PTE_PT64 | pte_junk(f); break;
        case S_4K: ea = eb = l0 | GR_PTE_VALID | pte_junk(f); break;
        case S_NONE:
            /* slot 4: a table past VRAM's memory (the walk's read answers DECERR) */
            ea = eb = s == 4 ? (BAD_TABLE | GR_PTE_VALID) : 0;
            break;
        }
        poke64(f, GR_DMA_REF_VRAM, l1a + (i1 + s) * 8, ea);
        poke64(f, GR_DMA_REF_VRAM, l1b + (i1 + s) * 8, eb);
    }

    /* ---- registers ---- */
    gr_dma_ref_t *m = f->m;
    m->ring_base = f->ring_bus;
    m->ring_log2 = f->ring_log2;
    m->fence_addr = f->fence_bus;
    m->preempt_fence = f->preempt_fence = (uint32_t)rnd(f);
    m->watchdog = WATCHDOG;
    m->mmu_enable = f->mmu_on;
    m->mmu_root = f->root_a;
    m->vpr_enable = f->vpr_on;
    m->vpr_base = VRAM_PHYS + VPR_OFF;
    m->vpr_limit = VRAM_PHYS + VPR_OFF + VPR_BYTES;
    m->enable = true;
    wr(f, GR_REG_DMA_RING_BASE_LO, (uint32_t)f->ring_bus);
    wr(f, GR_REG_DMA_RING_BASE_HI, (uint32_t)(f->ring_bus >> 32));
    wr(f, GR_REG_DMA_RING_SIZE, f->ring_log2);
    wr(f, GR_REG_DMA_FENCE_ADDR_LO, (uint32_t)f->fence_bus);
    wr(f, GR_REG_DMA_FENCE_ADDR_HI, (uint32_t)(f->fence_bus >> 32));
    wr(f, GR_REG_DMA_PREEMPT_FENCE, f->preempt_fence);
    wr(f, GR_REG_DMA_WATCHDOG, WATCHDOG);
    wr(f, GR_REG_MMU_ROOT, (uint32_t)f->root_a);
    wr(f, GR_REG_MMU_CTRL, f->mmu_on ? GPU_REGS__MMU_CTRL__ENABLE_bm : 0);
    wr(f, GR_REG_VPR_BASE, (uint32_t)(VRAM_PHYS + VPR_OFF));
    wr(f, GR_REG_VPR_LIMIT, (uint32_t)(VRAM_PHYS + VPR_OFF + VPR_BYTES));
    wr(f, GR_REG_VPR_CTRL, f->vpr_on ? GPU_REGS__VPR_CTRL__ENABLE_bm : 0);
    wr(f, GR_REG_DMA_CTRL, GPU_REGS__DMA_CTRL__ENABLE_bm);
    f->perf_cmds0 = rd(f, GR_REG_DMA_PERF_CMDS);
    f->perf_bytes0 = rd_perf_bytes(f);
    f->mc_count0 = rd(f, GR_REG_MC_FAULT_COUNT);
    f->fence_id = (uint32_t)rnd(f);

    logf_(f, "world: ring 2^%u at 0x%" PRIx64 ", mmu %s, vpr %s, va window 0x%" PRIx64
             " slots %d %d %d %d (0 none 1 2M 2 2M-RO 3 2M-sys 4 64K 5 4K), slot 4 bad table\n",
          f->ring_log2, f->ring_bus, f->mmu_on ? "on" : "off", f->vpr_on ? "on" : "off", f->va_base,
          f->slot[0], f->slot[1], f->slot[2], f->slot[3]);
}

/* ---- choosing addresses ----------------------------------------------------------------------- */

/* A random start in one of the data areas the entry can reach, for `len` bytes. */
static where_t pick(fx_t *f, const ectx_t *e, uint64_t len)
{
    bool translating = e->use_root || f->mmu_on;
    for (;;) {
        unsigned c = (unsigned)below(f, translating ? 10 : 4);
        uint64_t base, size;
        unsigned space;
        if (c < 2) {
            space = GR_DMA_SPACE_VRAM;
            base = VRAM_PHYS;
            size = VRAM_PHYS_BYTES;
        } else if (c < 4) {
            space = c == 2 ? GR_DMA_SPACE_HOST : (translating ? GR_DMA_SPACE_HOST : GR_DMA_SPACE_GPUVA);
            if (space == GR_DMA_SPACE_GPUVA) { /* MMU off: a GPU VA is a VRAM address */
                base = VRAM_PHYS;
                size = VRAM_PHYS_BYTES;
            } else {
                base = f->hdata_bus;
                size = K64;
            }
        } else {
            unsigned s = (unsigned)below(f, 4);
            space = GR_DMA_SPACE_GPUVA;
            base = f->va_base + s * M2;
            switch (f->slot[s]) {
            case S_64K: size = 8 * K64; break;
            case S_4K: size = 64 * K4; break;
            case S_NONE: continue;
            default: size = M2; break;
            }
        }
        if (len > size)
            continue;
        uint64_t off;
        if (chance(f, 30)) { /* close to a page boundary */
            uint64_t pages = size / K4;
            uint64_t edge = (1 + below(f, pages > 1 ? pages - 1 : 1)) * K4;
            uint64_t back = below(f, len / 8 + 1) * 8;
            off = edge > back ? edge - back : 0;
        } else {
            off = below(f, (size - len) / 8 + 1) * 8;
        }
        if (off + len > size)
            off = size - len;
        return (where_t){space, base + off};
    }
}

static uint64_t pick_len(fx_t *f)
{
    unsigned c = (unsigned)below(f, 100);
    if (c < 10)
        return 8;
    if (c < 60)
        return 8 * (1 + below(f, 64));
    if (c < 92)
        return 8 * (1 + below(f, 512));
    return 8 * (1 + below(f, 2048));
}

/* ---- commands --------------------------------------------------------------------------------- */

typedef struct gen {
    fx_t *f;
    ectx_t e;
    pend_t pend;
    gr_dma_writer_t *w;
    bool nested;
    bool no_tail; /* the faulting command must be the entry's last */
    bool have_last; /* the last COPY/FILL destination of this entry, to read it back */
    where_t last;
    uint64_t last_len;
} gen_t;

static bool gen_copy(gen_t *g)
{
    fx_t *f = g->f;
    for (unsigned t = 0; t < 60; t++) {
        uint64_t len = pick_len(f);
        where_t s = pick(f, &g->e, len), d = pick(f, &g->e, len);
        if (g->have_last && !g_no_raw && chance(f, 25)) { /* read back what was just written */
            s = g->last;
            len = g->last_len;
        }
        span_t ss, ds;
        if (!resolve(f, &g->e, s.space, s.addr, len, false, &ss) ||
            !resolve(f, &g->e, d.space, d.addr, len, true, &ds))
            continue;
        if (spans_overlap(&ss, &ds) || pend_hits(&g->pend, &ss) || vpr_violation(&ss, &ds, NULL))
            continue;
        logf_(f, "    +0x%03zx COPY %s 0x%" PRIx64 " -> %s 0x%" PRIx64 " 0x%" PRIx64 "\n", g->w->used,
              space_name(s.space), s.addr, space_name(d.space), d.addr, len);
        gr_dma_copy(g->w, (enum gr_dma_space)s.space, s.addr, (enum gr_dma_space)d.space, d.addr, len);
        pend_add(&g->pend, &ds);
        g->have_last = true;
        g->last = d;
        g->last_len = len;
        g_bytes_total += len;
        return true;
    }
    return false;
}

static bool gen_fill(gen_t *g)
{
    fx_t *f = g->f;
    for (unsigned t = 0; t < 60; t++) {
        uint64_t len = pick_len(f);
        where_t d = pick(f, &g->e, len);
        span_t ds;
        if (!resolve(f, &g->e, d.space, d.addr, len, true, &ds))
            continue;
        uint32_t pat = (uint32_t)rnd(f);
        logf_(f, "    +0x%03zx FILL %s 0x%" PRIx64 " 0x%" PRIx64 " pattern 0x%08x\n", g->w->used,
              space_name(d.space), d.addr, len, pat);
        gr_dma_fill(g->w, (enum gr_dma_space)d.space, d.addr, len, pat);
        pend_add(&g->pend, &ds);
        g->have_last = true;
        g->last = d;
        g->last_len = len;
        g_bytes_total += len;
        return true;
    }
    return false;
}

static uint64_t sem_addr(fx_t *f, unsigned side, unsigned i)
{
    return (side ? VSEM : f->hsem_bus) + i * 8u;
}

static void gen_fence(gen_t *g)
{
    fx_t *f = g->f;
    bool irq = chance(f, 30);
    if (chance(f, 60)) { /* a semaphore: values only grow */
        unsigned side = (unsigned)below(f, 2), i = (unsigned)below(f, SEM_SLOTS);
        uint64_t v = f->semv[side][i] + 1 + below(f, 1000);
        f->semv[side][i] = v;
        unsigned space = side ? GR_DMA_SPACE_VRAM : GR_DMA_SPACE_HOST;
        logf_(f, "    +0x%03zx FENCE %s 0x%" PRIx64 " = %" PRIu64 "%s\n", g->w->used, space_name(space),
              sem_addr(f, side, i), v, irq ? " irq" : "");
        gr_dma_fence(g->w, (enum gr_dma_space)space, sem_addr(f, side, i), v, irq);
        pend_clear(&g->pend);
        return;
    }
    for (unsigned t = 0; t < 40; t++) {
        where_t d = pick(f, &g->e, 8);
        span_t ds;
        if (!resolve(f, &g->e, d.space, d.addr, 8, true, &ds))
            continue;
        uint64_t v = rnd(f);
        logf_(f, "    +0x%03zx FENCE %s 0x%" PRIx64 " = 0x%" PRIx64 "%s\n", g->w->used,
              space_name(d.space), d.addr, v, irq ? " irq" : "");
        gr_dma_fence(g->w, (enum gr_dma_space)d.space, d.addr, v, irq);
        pend_clear(&g->pend);
        pend_add(&g->pend, &ds);
        return;
    }
    gr_dma_nop(g->w);
}

static void gen_stamp(gen_t *g)
{
    fx_t *f = g->f;
    unsigned side = (unsigned)below(f, 2);
    if (f->stamp_next[side] >= STAMP_SLOTS)
        side ^= 1;
    if (f->stamp_next[side] >= STAMP_SLOTS) {
        gr_dma_nop(g->w);
        return;
    }
    uint64_t a = (side ? VSEM : f->hsem_bus) + 0x800 + f->stamp_next[side]++ * 8u;
    unsigned space = side ? GR_DMA_SPACE_VRAM : GR_DMA_SPACE_HOST;
    logf_(f, "    +0x%03zx TIMESTAMP %s 0x%" PRIx64 "\n", g->w->used, space_name(space), a);
    gr_dma_timestamp(g->w, (enum gr_dma_space)space, a);
    pend_clear(&g->pend);
}

static void gen_wait(gen_t *g)
{
    fx_t *f = g->f;
    unsigned side = (unsigned)below(f, 2), i = (unsigned)below(f, SEM_SLOTS);
    uint64_t v = f->semv[side][i] ? below(f, f->semv[side][i] + 1) : 0;
    unsigned space = side ? GR_DMA_SPACE_VRAM : GR_DMA_SPACE_HOST;
    logf_(f, "    +0x%03zx WAIT %s 0x%" PRIx64 " >= %" PRIu64 "\n", g->w->used, space_name(space),
          sem_addr(f, side, i), v);
    gr_dma_wait(g->w, (enum gr_dma_space)space, sem_addr(f, side, i), v);
}

/* A command page for this batch, and an 8-aligned start in it. */
static uint8_t *take_cmd_page(fx_t *f, size_t *out_room)
{
    assert_true(f->cmd_next < CMD_PAGES);
    uint8_t *p = f->cmd + (size_t)f->cmd_next++ * K4;
    size_t skip = chance(f, 30) ? (size_t)below(f, 64) * 8 : 0;
    *out_room = K4 - skip;
    return p + skip;
}

static void gen_simple(gen_t *g);

static void gen_indirect(gen_t *g)
{
    fx_t *f = g->f;
    if (f->cmd_next + 6 >= CMD_PAGES) { /* keep pages for the batch's other entries */
        gr_dma_nop(g->w);
        return;
    }
    size_t room;
    uint8_t *p = take_cmd_page(f, &room);
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, p, room);
    uint64_t bus = f->cmd_bus + (uint64_t)(p - f->cmd);
    size_t at = g->w->used;
    gr_dma_indirect(g->w, bus, 0);
    logf_(f, "    +0x%03zx INDIRECT 0x%" PRIx64 " {\n", at, bus);
    gr_dma_writer_t *outer = g->w;
    g->w = &w;
    g->nested = true;
    unsigned n = (unsigned)below(f, 6);
    for (unsigned i = 0; i < n; i++)
        gen_simple(g);
    g->w = outer;
    g->nested = false;
    gr_dma_put64(outer->buf + at + 16, w.used);
    logf_(f, "      } 0x%zx bytes\n", w.used);
    g_cmds_total += n + 1;
}

/* One command that does not end the stream. */
static void gen_simple(gen_t *g)
{
    fx_t *f = g->f;
    unsigned c = (unsigned)below(f, 100);
    if (c < 30) {
        if (!gen_copy(g))
            gr_dma_nop(g->w);
    } else if (c < 52) {
        if (!gen_fill(g))
            gr_dma_nop(g->w);
    } else if (c < 64) {
        gen_fence(g);
    } else if (c < 72) {
        gen_stamp(g);
    } else if (c < 80) {
        gen_wait(g);
    } else if (c < 86) {
        logf_(f, "    +0x%03zx NOP\n", g->w->used);
        gr_dma_nop(g->w);
    } else if (c < 91) {
        logf_(f, "    +0x%03zx TLB_INVALIDATE\n", g->w->used);
        gr_dma_tlb_invalidate(g->w);
    } else if (!g->nested) {
        gen_indirect(g);
        return;
    } else {
        gr_dma_nop(g->w);
    }
    g_cmds_total++;
}

static bool pick_ok(gen_t *g, uint64_t len, bool write, const span_t *other, where_t *out, span_t *out_span);

/* A COPY of a few bytes of the remapped page's VA somewhere else: through the TLB. */
static void read_remapped(gen_t *g)
{
    fx_t *f = g->f;
    uint64_t len = 8 * (1 + below(f, 32));
    uint64_t va = f->remap_va + below(f, (K4 - len) / 8 + 1) * 8;
    span_t s, d;
    where_t w;
    if (!resolve(f, &g->e, GR_DMA_SPACE_GPUVA, va, len, false, &s) || pend_hits(&g->pend, &s) ||
        !pick_ok(g, len, true, &s, &w, &d))
        return;
    logf_(f, "    +0x%03zx COPY va 0x%" PRIx64 " -> %s 0x%" PRIx64 " 0x%" PRIx64 " (the remapped page)\n",
          g->w->used, va, space_name(w.space), w.addr, len);
    gr_dma_copy(g->w, GR_DMA_SPACE_GPUVA, va, (enum gr_dma_space)w.space, w.addr, len);
    pend_add(&g->pend, &d);
    g_cmds_total++;
}

/* Points a mapped 4 KiB page at a spare one: a read of it (filling the TLB), then the COPY of the
 * new entry into the table (the last command of the entry); the next entry starts with
 * TLB_INVALIDATE and reads the page again, in the same address space. */
static bool gen_remap(gen_t *g)
{
    fx_t *f = g->f;
    unsigned i = (unsigned)below(f, 64), s4 = 0;
    while (f->slot[s4] != S_4K)
        s4++;
    if (f->l0_page[i] < 0 || f->staging_next >= K4 / 8)
        return false;
    f->remap_va = f->va_base + s4 * M2 + i * K4;
    f->remap_use_root = g->e.use_root;
    read_remapped(g);
    int k = take_4k_page(f);
    if (k < 0)
        return false;
    f->pool4k_used[f->l0_page[i]] = false;
    f->l0_page[i] = k;
    uint64_t e = (POOL_4K + (uint64_t)k * K4) | leaf_bits(f, chance(f, 80), false);
    uint64_t src = f->staging_bus + f->staging_next++ * 8u;
    poke64(f, GR_DMA_REF_HOST, src, e);
    logf_(f, "    +0x%03zx COPY host 0x%" PRIx64 " -> vram 0x%" PRIx64 " 8 (L0[%u] = 0x%" PRIx64 ")\n",
          g->w->used, src, f->l0_table + i * 8u, i, e);
    gr_dma_copy(g->w, GR_DMA_SPACE_HOST, src, GR_DMA_SPACE_VRAM, f->l0_table + i * 8u, 8);
    f->tlb_dirty = true;
    g_remaps++;
    g_cmds_total++;
    return true;
}

/* ---- faulting commands ------------------------------------------------------------------------ */

/* Two 4 KiB pages in a row of the VA window: the first accessible (readable, or writable when
 * `write`), the second faulting with MMU type `want`. */
static bool find_fault_edge(fx_t *f, const ectx_t *e, bool write, unsigned want, uint64_t *out_va,
                            bool *out_prev_ok)
{
    bool found = false;
    for (unsigned t = 0; t < 4000; t++) {
        uint64_t va = f->va_base + below(f, 5 * 512) * K4;
        span_t a, b;
        resolve(f, e, GR_DMA_SPACE_GPUVA, va, 8, write, &b);
        if (b.fault != want)
            continue;
        if (!found) { /* the faulting page alone, if no better one turns up */
            found = true;
            *out_va = va;
            *out_prev_ok = false;
        }
        if (va != f->va_base && resolve(f, e, GR_DMA_SPACE_GPUVA, va - K4, K4, write, &a) &&
            !a.p[0].vpr) {
            *out_va = va;
            *out_prev_ok = true;
            return true;
        }
    }
    return found;
}

/* The bytes of a COPY's other side: `len` bytes anywhere accessible, not overlapping `other`. */
static bool pick_ok(gen_t *g, uint64_t len, bool write, const span_t *other, where_t *out, span_t *out_span)
{
    for (unsigned t = 0; t < 200; t++) {
        where_t w = pick(g->f, &g->e, len);
        if (!resolve(g->f, &g->e, w.space, w.addr, len, write, out_span))
            continue;
        if (other && spans_overlap(other, out_span))
            continue;
        bool vpr = false;
        for (unsigned i = 0; i < out_span->n; i++)
            vpr |= out_span->p[i].vpr;
        if (vpr)
            continue;
        if (!write && pend_hits(&g->pend, out_span))
            continue;
        *out = w;
        return true;
    }
    return false;
}

/* The command that ends the stream with an MMU fault of type `want`. */
static bool gen_mmu_fault(gen_t *g, unsigned want)
{
    fx_t *f = g->f;
    bool use_translation = g->e.use_root || f->mmu_on;
    if (!use_translation)
        return false;
    unsigned how = (unsigned)below(f, want == 2 ? 3 : 5); /* 0 FILL 1 COPY-dst 2 FENCE/TIMESTAMP 3 COPY-src 4 WAIT */
    bool write = how < 3;
    uint64_t edge;
    bool prev_ok;
    if (!find_fault_edge(f, &g->e, write, want, &edge, &prev_ok))
        return false;
    uint64_t before = prev_ok && below(f, 2) ? below(f, 256) * 8 : 0, after = 8 * (1 + below(f, 64));
    uint64_t start = edge - before, len = before + after;
    span_t okspan;
    where_t o;
    switch (how) {
    case 0:
        logf_(f, "    +0x%03zx FILL va 0x%" PRIx64 " 0x%" PRIx64 " (faults at 0x%" PRIx64 ")\n",
              g->w->used, start, len, edge);
        gr_dma_fill(g->w, GR_DMA_SPACE_GPUVA, start, len, (uint32_t)rnd(f));
        return true;
    case 1: {
        span_t d;
        resolve(f, &g->e, GR_DMA_SPACE_GPUVA, start, before, true, &d);
        if (!pick_ok(g, len, false, &d, &o, &okspan))
            return false;
        logf_(f, "    +0x%03zx COPY %s 0x%" PRIx64 " -> va 0x%" PRIx64 " 0x%" PRIx64 " (faults at 0x%" PRIx64 ")\n",
              g->w->used, space_name(o.space), o.addr, start, len, edge);
        gr_dma_copy(g->w, (enum gr_dma_space)o.space, o.addr, GR_DMA_SPACE_GPUVA, start, len);
        return true;
    }
    case 2:
        logf_(f, "    +0x%03zx FENCE/TIMESTAMP va 0x%" PRIx64 " (faults)\n", g->w->used, edge);
        if (chance(f, 50))
            gr_dma_fence(g->w, GR_DMA_SPACE_GPUVA, edge + below(f, 16) * 8, rnd(f), chance(f, 50));
        else
            gr_dma_timestamp(g->w, GR_DMA_SPACE_GPUVA, edge + below(f, 16) * 8);
        return true;
    case 3: {
        span_t s;
        resolve(f, &g->e, GR_DMA_SPACE_GPUVA, start, before, false, &s);
        if (pend_hits(&g->pend, &s) || !pick_ok(g, len, true, &s, &o, &okspan))
            return false;
        logf_(f, "    +0x%03zx COPY va 0x%" PRIx64 " -> %s 0x%" PRIx64 " 0x%" PRIx64 " (faults at 0x%" PRIx64 ")\n",
              g->w->used, start, space_name(o.space), o.addr, len, edge);
        gr_dma_copy(g->w, GR_DMA_SPACE_GPUVA, start, (enum gr_dma_space)o.space, o.addr, len);
        return true;
    }
    default:
        logf_(f, "    +0x%03zx WAIT va 0x%" PRIx64 " (faults)\n", g->w->used, edge);
        gr_dma_wait(g->w, GR_DMA_SPACE_GPUVA, edge + below(f, 16) * 8, 0);
        return true;
    }
}

/* A COPY out of the VPR: the bytes before the protected page come from outside it, the
 * destination keeps the source's page offset. */
static bool gen_vpr_fault(gen_t *g)
{
    fx_t *f = g->f;
    uint64_t before = below(f, 2) ? below(f, 300) * 8 : 0, after = 8 * (1 + below(f, 300));
    uint64_t src = VRAM_PHYS + VPR_OFF - before, len = before + after;
    unsigned space = GR_DMA_SPACE_VRAM;
    if (!(g->e.use_root || f->mmu_on) && chance(f, 50))
        space = GR_DMA_SPACE_GPUVA; /* MMU off: a VA is the VRAM address */
    span_t ss;
    resolve(f, &g->e, space, src, len, false, &ss);
    if (pend_hits(&g->pend, &ss))
        return false;
    for (unsigned t = 0; t < 400; t++) {
        where_t d = pick(f, &g->e, len + K4);
        d.addr = (d.addr & ~(K4 - 1)) + (src & (K4 - 1));
        span_t ds;
        if (!resolve(f, &g->e, d.space, d.addr, len, true, &ds) || spans_overlap(&ss, &ds))
            continue;
        bool out = true;
        for (unsigned i = 0; i < ds.n; i++)
            out &= !ds.p[i].vpr;
        if (!out)
            continue;
        logf_(f, "    +0x%03zx COPY %s 0x%" PRIx64 " -> %s 0x%" PRIx64 " 0x%" PRIx64 " (out of the VPR at 0x%" PRIx64 ")\n",
              g->w->used, space_name(space), src, space_name(d.space), d.addr, len, VRAM_PHYS + VPR_OFF);
        gr_dma_copy(g->w, (enum gr_dma_space)space, src, (enum gr_dma_space)d.space, d.addr, len);
        return true;
    }
    return false;
}

/* Reads that run into the host data buffer's guard page (DECERR): at most one burst there. */
static bool gen_bus_read(gen_t *g)
{
    fx_t *f = g->f;
    unsigned how = (unsigned)below(f, g->nested ? 2 : 3); /* an INDIRECT inside one is a bad command */
    uint64_t before = below(f, 2) ? below(f, 256) * 8 : 0, after = 8 * (1 + below(f, 16));
    if (how == 0) {
        uint64_t src = f->hdata_end - before, len = before + after;
        span_t s, o;
        where_t d;
        resolve(f, &g->e, GR_DMA_SPACE_HOST, src, before, false, &s);
        if (pend_hits(&g->pend, &s) || !pick_ok(g, len, true, &s, &d, &o))
            return false;
        logf_(f, "    +0x%03zx COPY host 0x%" PRIx64 " -> %s 0x%" PRIx64 " 0x%" PRIx64 " (DECERR at 0x%" PRIx64 ")\n",
              g->w->used, src, space_name(d.space), d.addr, len, f->hdata_end);
        gr_dma_copy(g->w, GR_DMA_SPACE_HOST, src, (enum gr_dma_space)d.space, d.addr, len);
    } else if (how == 1) {
        uint64_t a = f->hdata_end + below(f, 16) * 8;
        logf_(f, "    +0x%03zx WAIT host 0x%" PRIx64 " (DECERR)\n", g->w->used, a);
        gr_dma_wait(g->w, GR_DMA_SPACE_HOST, a, 0);
    } else {
        logf_(f, "    +0x%03zx INDIRECT host 0x%" PRIx64 " (DECERR)\n", g->w->used, f->hdata_end);
        gr_dma_indirect(g->w, f->hdata_end, (uint32_t)(8 * (1 + below(f, 16))));
    }
    return true;
}

/* Writes that run into the guard page: the last command of its entry (its error comes back
 * with the write response; the entry's completion waits for it). */
static bool gen_bus_write(gen_t *g)
{
    fx_t *f = g->f;
    unsigned how = (unsigned)below(f, 3);
    uint64_t before = below(f, 2) ? below(f, 256) * 8 : 0, after = 8 * (1 + below(f, 16));
    uint64_t dst = f->hdata_end - before, len = before + after;
    if (how == 0) {
        logf_(f, "    +0x%03zx FILL host 0x%" PRIx64 " 0x%" PRIx64 " (DECERR at 0x%" PRIx64 ")\n",
              g->w->used, dst, len, f->hdata_end);
        gr_dma_fill(g->w, GR_DMA_SPACE_HOST, dst, len, (uint32_t)rnd(f));
    } else if (how == 1) {
        span_t d, o;
        where_t s;
        resolve(f, &g->e, GR_DMA_SPACE_HOST, dst, before, true, &d);
        if (!pick_ok(g, len, false, &d, &s, &o))
            return false;
        logf_(f, "    +0x%03zx COPY %s 0x%" PRIx64 " -> host 0x%" PRIx64 " 0x%" PRIx64 " (DECERR at 0x%" PRIx64 ")\n",
              g->w->used, space_name(s.space), s.addr, dst, len, f->hdata_end);
        gr_dma_copy(g->w, (enum gr_dma_space)s.space, s.addr, GR_DMA_SPACE_HOST, dst, len);
    } else {
        uint64_t a = f->hdata_end + below(f, 16) * 8;
        logf_(f, "    +0x%03zx FENCE host 0x%" PRIx64 " (DECERR)\n", g->w->used, a);
        gr_dma_fence(g->w, GR_DMA_SPACE_HOST, a, rnd(f), chance(f, 50));
    }
    return true;
}

static void gen_bad_cmd(gen_t *g, size_t *io_entry_len_cut)
{
    fx_t *f = g->f;
    const uint64_t nop = gr_dma_header(GR_DMA_OP_NOP, 0, 0, 0, 0);
    uint64_t q[4] = {0};
    unsigned n = 1;
    const char *what;
    switch (below(f, 12)) {
    case 0: q[0] = 0x08 + below(f, 0xf8); what = "unknown opcode"; break;
    case 1: q[0] = nop | (UINT64_C(1) << (13 + below(f, 19))); what = "reserved header bit"; break;
    case 2: q[0] = nop | GR_DMA_HDR_IRQ; what = "IRQ on a NOP"; break;
    case 3: q[0] = gr_dma_header(GR_DMA_OP_TLB_INVALIDATE, 0, 1 + (unsigned)below(f, 2), 0, 0); what = "unused space set"; break;
    case 4:
        q[0] = gr_dma_header(GR_DMA_OP_COPY, 3, 1, 0, 0);
        q[1] = VRAM_PHYS, q[2] = VRAM_PHYS + K4, q[3] = 8, n = 4;
        what = "space 3";
        break;
    case 5:
        q[0] = gr_dma_header(GR_DMA_OP_COPY, 1, 1, 0, 0);
        q[1] = VRAM_PHYS + 4 * below(f, 2), q[2] = VRAM_PHYS + K4 + 4, q[3] = 16, n = 4;
        what = "COPY misaligned";
        break;
    case 6:
        q[0] = gr_dma_header(GR_DMA_OP_FILL, 0, 2, 0, 1);
        q[1] = f->hdata_bus, q[2] = 8 * below(f, 4) + 4, n = 3;
        what = "FILL size";
        break;
    case 7:
        q[0] = gr_dma_header(GR_DMA_OP_FENCE, 0, 2, 0, 0);
        q[1] = f->hdata_bus + 1 + below(f, 7), q[2] = 1, n = 3;
        what = "FENCE misaligned";
        break;
    case 8:
        q[0] = gr_dma_header(GR_DMA_OP_WAIT, 1, 0, 0, 0);
        q[1] = VSEM + 4, n = 3;
        what = "WAIT misaligned";
        break;
    case 9:
        q[0] = gr_dma_header(GR_DMA_OP_INDIRECT, 0, 0, 0, 0);
        q[1] = f->cmd_bus, q[2] = 8 * below(f, 4) + 4, n = 3;
        what = "INDIRECT length";
        break;
    case 10:
        if (g->nested) {
            q[0] = gr_dma_header(GR_DMA_OP_INDIRECT, 0, 0, 0, 0);
            q[1] = f->cmd_bus, q[2] = 8, n = 3;
            what = "nested INDIRECT";
        } else {
            q[0] = gr_dma_header(GR_DMA_OP_TIMESTAMP, 0, 1, 0, 0);
            q[1] = VSEM + 0x804, n = 2;
            what = "TIMESTAMP misaligned";
        }
        break;
    default:
        /* a COPY whose last qwords lie past the end of the buffer */
        q[0] = gr_dma_header(GR_DMA_OP_COPY, 1, 1, 0, 0);
        q[1] = VRAM_PHYS, q[2] = VRAM_PHYS + K4, q[3] = 8, n = 4;
        what = "does not fit";
        if (!g->nested && io_entry_len_cut) {
            *io_entry_len_cut = 8 * (1 + below(f, 3));
            g->no_tail = true;
        } else {
            q[0] = gr_dma_header(GR_DMA_OP_COPY, 1, 1, 0, 0) | (UINT64_C(1) << 20);
            what = "reserved header bit (COPY)";
        }
        break;
    }
    logf_(f, "    +0x%03zx bad command: %s (0x%016" PRIx64 ")\n", g->w->used, what, q[0]);
    gr_dma_emit(g->w, q, n);
}

/* ---- running on the device -------------------------------------------------------------------- */

/* Runs until the engine is idle with HEAD == TAIL, or hung or faulted. */
static uint32_t run_device(fx_t *f)
{
    uint32_t st = 0;
    uint32_t want_head = f->tail & ((1u << f->ring_log2) - 1);
    for (uint64_t c = 0; c < RUN_LIMIT; c += 300) {
        gr_sim_run(f->sim, 300);
        st = rd(f, GR_REG_DMA_STATUS);
        if (st & (GPU_REGS__DMA_STATUS__HUNG_bm | GPU_REGS__DMA_STATUS__FAULTED_bm))
            return st;
        if ((st & GPU_REGS__DMA_STATUS__IDLE_bm) && rd(f, GR_REG_DMA_RING_HEAD) == want_head)
            return st;
    }
    fail_stream(f, "the engine neither finished nor stopped in %u cycles: DMA_STATUS 0x%08x HEAD %u",
                RUN_LIMIT, st, rd(f, GR_REG_DMA_RING_HEAD));
    return st;
}

/* ---- comparing -------------------------------------------------------------------------------- */

static void check_stamps(fx_t *f, uint64_t t0, uint64_t t1)
{
    gr_dma_ref_t *m = f->m;
    if (m->stamps_overflow)
        fail_stream(f, "more timestamps than the model keeps");
    for (unsigned i = f->stamps_seen; i < m->stamp_count; i++) {
        const gr_dma_ref_stamp_t *s = &m->stamps[i];
        region_t *r = find_region(f, s->port, s->addr, 8);
        assert_non_null(r);
        uint8_t b[8];
        if (r->cpu)
            memcpy(b, r->cpu + (s->addr - r->base), 8);
        else
            assert_int_equal(gr_sim_vram_read(f->sim, s->addr, b, 8), GR_OK);
        uint64_t v = gr_dma_get64(b);
        if (v <= t0 || v >= t1 || v <= f->last_stamp)
            fail_stream(f, "TIMESTAMP at %s 0x%" PRIx64 " wrote %" PRIu64 ": not in (%" PRIu64
                        ", %" PRIu64 ") after the previous %" PRIu64,
                        port_name(s->port), s->addr, v, t0, t1, f->last_stamp);
        f->last_stamp = v;
        memcpy(r->shadow + (s->addr - r->base), b, 8); /* the model wrote "some value" */
    }
    f->stamps_seen = m->stamp_count;
}

/* Every byte of every region, the device's against the model's. */
static void check_memory(fx_t *f)
{
    gr_dma_ref_t *m = f->m;
    if (m->maybe_overflow)
        fail_stream(f, "a faulting command had more pieces than the model keeps");
    uint8_t *buf = NULL;
    for (unsigned i = 0; i < f->nreg; i++) {
        region_t *r = &f->reg[i];
        const uint8_t *dev = r->cpu;
        if (!dev) {
            buf = realloc(buf, r->size);
            assert_non_null(buf);
            assert_int_equal(gr_sim_vram_read(f->sim, r->base, buf, r->size), GR_OK);
            dev = buf;
        }
        if (!memcmp(dev, r->shadow, r->size))
            continue;
        for (uint64_t o = 0; o < r->size; o++) {
            if (dev[o] == r->shadow[o])
                continue;
            uint8_t other;
            if (gr_dma_ref_maybe_byte(m, r->port, r->base + o, &other) && dev[o] == other) {
                r->shadow[o] = dev[o]; /* not written: allowed before a fault */
                continue;
            }
            uint64_t a = r->base + o;
            uint64_t q = a & ~UINT64_C(7);
            uint64_t dq = 0, mq = 0;
            for (unsigned k = 0; k < 8 && q - r->base + k < r->size; k++) {
                dq |= (uint64_t)dev[q - r->base + k] << (8 * k);
                mq |= (uint64_t)r->shadow[q - r->base + k] << (8 * k);
            }
            free(buf);
            fail_stream(f, "%s 0x%" PRIx64 " (%s + 0x%" PRIx64 "): device 0x%02x, model 0x%02x "
                        "(qword at 0x%" PRIx64 ": device 0x%016" PRIx64 ", model 0x%016" PRIx64 ")",
                        port_name(r->port), a, r->name, o, dev[o], r->shadow[o], q, dq, mq);
        }
    }
    free(buf);
    m->maybe_count = 0;
}

#define FIELD(reg, field, v) GR_FIELD_GET(reg, field, v)

/* `counters`: PERF_* too (not while a fault's writes may still be draining: they count as they
 * complete). */
static void check_regs(fx_t *f, bool counters)
{
    gr_dma_ref_t *m = f->m;
    uint32_t st = rd(f, GR_REG_DMA_STATUS);
    uint32_t head = rd(f, GR_REG_DMA_RING_HEAD);
    uint32_t done = rd(f, GR_REG_DMA_COMPLETED_FENCE);
    if (head != m->head || done != m->completed_fence)
        fail_stream(f, "HEAD %u COMPLETED_FENCE 0x%08x, model %u 0x%08x", head, done, m->head,
                    m->completed_fence);
    if (FIELD(DMA_STATUS, HUNG, st) != m->hung || FIELD(DMA_STATUS, FAULTED, st) != m->faulted ||
        FIELD(DMA_STATUS, PREEMPTED, st) != m->preempted || FIELD(DMA_STATUS, RESETTING, st) ||
        (!m->hung && !m->faulted && !FIELD(DMA_STATUS, IDLE, st)))
        fail_stream(f, "DMA_STATUS 0x%08x; model hung %d faulted %d preempted %d", st, m->hung,
                    m->faulted, m->preempted);
    if (m->hung || m->faulted) {
        uint32_t fs = rd(f, GR_REG_DMA_FAULT_STATUS);
        uint64_t fa = rd(f, GR_REG_DMA_FAULT_ADDR_LO) | (uint64_t)rd(f, GR_REG_DMA_FAULT_ADDR_HI) << 32;
        if (fs != m->fault_status || (m->fault_addr_known && fa != m->fault_addr))
            fail_stream(f, "DMA_FAULT_STATUS 0x%08x ADDR 0x%" PRIx64 "; model 0x%08x 0x%" PRIx64 "%s",
                        fs, fa, m->fault_status, m->fault_addr,
                        m->fault_addr_known ? "" : " (address not compared)");
    }
    uint32_t cmds = rd(f, GR_REG_DMA_PERF_CMDS) - f->perf_cmds0;
    uint64_t bytes = rd_perf_bytes(f) - f->perf_bytes0;
    if (!counters)
        goto irq;
    if (cmds < (uint32_t)m->perf_cmds || cmds > (uint32_t)m->perf_cmds_max)
        fail_stream(f, "PERF_CMDS moved by %u; model %" PRIu64 "..%" PRIu64, cmds, m->perf_cmds,
                    m->perf_cmds_max);
    if (bytes < m->perf_bytes_min || bytes > m->perf_bytes_max)
        fail_stream(f, "PERF_BYTES moved by %" PRIu64 "; model %" PRIu64 "..%" PRIu64, bytes,
                    m->perf_bytes_min, m->perf_bytes_max);
    /* the contract leaves these open after a fault: take the device's from here on */
    m->perf_cmds = m->perf_cmds_max = cmds;
    m->perf_bytes_min = m->perf_bytes_max = bytes;

irq:;
    uint32_t irq = rd(f, GR_REG_IRQ_STATE);
    if (FIELD(IRQ_STATE, DMA_FENCE, irq) != m->irq_fence ||
        FIELD(IRQ_STATE, DMA_PREEMPTED, irq) != m->irq_preempted ||
        FIELD(IRQ_STATE, DMA_FAULT, irq) != m->irq_fault ||
        FIELD(IRQ_STATE, MC_FAULT, irq) != (m->mc_fault_count != 0))
        fail_stream(f, "IRQ_STATE 0x%08x; model fence %d preempted %d fault %d mc faults %u", irq,
                    m->irq_fence, m->irq_preempted, m->irq_fault, m->mc_fault_count);
    wr(f, GR_REG_IRQ_STATE, irq);
    m->irq_fence = m->irq_preempted = m->irq_fault = false;

    uint32_t mc = rd(f, GR_REG_MC_FAULT_STATUS);
    uint32_t mc_count = rd(f, GR_REG_MC_FAULT_COUNT) - f->mc_count0;
    if (FIELD(MC_FAULT_STATUS, VALID, mc) != m->mc_fault_valid || mc_count != m->mc_fault_count)
        fail_stream(f, "MC_FAULT_STATUS 0x%08x COUNT +%u; model valid %d count %u", mc, mc_count,
                    m->mc_fault_valid, m->mc_fault_count);
    if (m->mc_fault_valid) {
        uint64_t a = rd(f, GR_REG_MC_FAULT_ADDR_LO) |
                     (uint64_t)FIELD(MC_FAULT_ADDR_HI, ADDR, rd(f, GR_REG_MC_FAULT_ADDR_HI)) << 32;
        if (FIELD(MC_FAULT_STATUS, TYPE, mc) != m->mc_fault_type || FIELD(MC_FAULT_STATUS, SOURCE, mc) != 2 ||
            FIELD(MC_FAULT_STATUS, WRITE, mc) != m->mc_fault_write || a != m->mc_fault_addr)
            fail_stream(f, "MC_FAULT_STATUS 0x%08x ADDR 0x%" PRIx64 "; model type %u source 2 write %d addr 0x%" PRIx64,
                        mc, a, m->mc_fault_type, m->mc_fault_write, m->mc_fault_addr);
        wr(f, GR_REG_MC_FAULT_STATUS, GPU_REGS__MC_FAULT_STATUS__VALID_bm);
        m->mc_fault_valid = false;
    }
    f->mc_count0 += mc_count;
    m->mc_fault_count = 0;
}

static void check_all(fx_t *f, uint64_t t0)
{
    uint64_t t1 = rd_timestamp(f);
    check_stamps(f, t0, t1);
    check_memory(f);
    check_regs(f, true);
}

/* ---- batches ---------------------------------------------------------------------------------- */

static uint32_t ring_mask(const fx_t *f)
{
    return (1u << f->ring_log2) - 1;
}

/* Writes one entry at TAIL (ring memory only) and runs it on the model. `fault` != K_CLEAN:
 * this entry ends the stream that way. `expect`: how the model's run must end (K_CLEAN: idle;
 * a fault kind: stopped so, by this entry or an earlier one). Returns the model's result. */
static gr_dma_ref_result_t add_entry(fx_t *f, enum kind fault, bool allow_remap, enum kind expect)
{
    size_t room;
    uint8_t *buf = take_cmd_page(f, &room);
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, buf, room);
    uint64_t bus = f->cmd_bus + (uint64_t)(buf - f->cmd);
    gen_t g = {.f = f, .w = &w};
    g.e.use_root = chance(f, 25);
    g.e.root = f->root_b;
    if (!f->mmu_on && (fault == K_MMU_UNMAPPED || fault == K_MMU_READONLY || fault == K_MMU_DECODE))
        g.e.use_root = true; /* MMU faults need a translating entry */
    bool irq = chance(f, 30);
    uint32_t id = ++f->fence_id;
    uint32_t idx = f->tail & ring_mask(f);
    logf_(f, "  entry [%u] fence 0x%08x buffer 0x%" PRIx64 "%s%s\n", idx, id, bus,
          g.e.use_root ? " ROOT=B" : "", irq ? " irq" : "");

    bool do_remap = fault == K_CLEAN && allow_remap && chance(f, 15);
    if (do_remap && !f->mmu_on)
        g.e.use_root = true;
    if (f->tlb_dirty) {
        g.e.use_root = f->remap_use_root;
        logf_(f, "    +0x%03zx TLB_INVALIDATE (after a table update)%s\n", w.used,
              g.e.use_root ? " ROOT=B" : "");
        gr_dma_tlb_invalidate(&w);
        f->tlb_dirty = false;
        g_cmds_total++;
        read_remapped(&g);
    }
    unsigned n = (unsigned)below(f, fault == K_CLEAN ? 9 : 4);
    for (unsigned i = 0; i < n; i++)
        gen_simple(&g);

    size_t cut = 0;
    bool ok = true;
    if (fault != K_CLEAN && fault != K_BAD_ENTRY) {
        /* sometimes the faulting command sits in an INDIRECT buffer */
        gr_dma_writer_t iw;
        size_t at = 0;
        bool in_ind = fault != K_BUS_WRITE && chance(f, 30) && f->cmd_next < CMD_PAGES;
        if (in_ind) {
            size_t r2;
            uint8_t *p = take_cmd_page(f, &r2);
            gr_dma_writer_init(&iw, p, r2);
            at = w.used;
            gr_dma_indirect(&w, f->cmd_bus + (uint64_t)(p - f->cmd), 0);
            logf_(f, "    +0x%03zx INDIRECT 0x%" PRIx64 " {\n", at, f->cmd_bus + (uint64_t)(p - f->cmd));
            g.w = &iw;
            g.nested = true;
            unsigned k = (unsigned)below(f, 3);
            for (unsigned i = 0; i < k; i++)
                gen_simple(&g);
        }
        switch (fault) {
        case K_BAD_CMD: gen_bad_cmd(&g, in_ind ? NULL : &cut); break;
        case K_MMU_UNMAPPED: ok = gen_mmu_fault(&g, 1); break;
        case K_MMU_READONLY: ok = gen_mmu_fault(&g, 2); break;
        case K_MMU_DECODE: ok = gen_mmu_fault(&g, 3); break;
        case K_VPR: ok = gen_vpr_fault(&g); break;
        case K_BUS_READ: ok = gen_bus_read(&g); break;
        case K_BUS_WRITE: ok = gen_bus_write(&g); break;
        case K_HANG: {
            unsigned side = (unsigned)below(f, 2), i = (unsigned)below(f, SEM_SLOTS);
            uint64_t v = f->semv[side][i] + 1 + below(f, 5);
            unsigned space = side ? GR_DMA_SPACE_VRAM : GR_DMA_SPACE_HOST;
            logf_(f, "    +0x%03zx WAIT %s 0x%" PRIx64 " >= %" PRIu64 " (never)\n", g.w->used,
                  space_name(space), sem_addr(f, side, i), v);
            gr_dma_wait(g.w, (enum gr_dma_space)space, sem_addr(f, side, i), v);
            break;
        }
        case K_PRIV: {
            /* the entry is written without PRIV: this host-physical FILL (or an earlier physical
             * command, an INDIRECT, or the entry itself when it has no USE_ROOT) faults */
            unsigned i = (unsigned)below(f, SEM_SLOTS);
            logf_(f, "    +0x%03zx FILL host 0x%" PRIx64 " 8 (needs PRIV)\n", g.w->used, sem_addr(f, 0, i));
            gr_dma_fill(g.w, GR_DMA_SPACE_HOST, sem_addr(f, 0, i), 8, 0x0badf00du);
            break;
        }
        default: break;
        }
        if (ok && fault != K_BUS_WRITE && !g.no_tail) {
            unsigned k = (unsigned)below(f, 3); /* never run */
            for (unsigned i = 0; i < k; i++)
                gen_simple(&g);
        }
        if (in_ind) {
            g.w = &w;
            g.nested = false;
            gr_dma_put64(w.buf + at + 16, iw.used);
            logf_(f, "      } 0x%zx bytes\n", iw.used);
        }
        if (ok && fault != K_BUS_WRITE && !g.no_tail) {
            unsigned k = (unsigned)below(f, 3);
            for (unsigned i = 0; i < k; i++)
                gen_simple(&g);
        }
        if (!ok) {
            logf_(f, "    (no faulting command fits this entry)\n");
            fault = K_CLEAN;
            expect = K_CLEAN;
        }
    } else if (do_remap) {
        gen_remap(&g);
    }
    assert_false(w.overflow);

    uint32_t len = (uint32_t)w.used;
    if (fault == K_BUS_READ && chance(f, 20)) {
        /* the entry's own buffer in no memory: its first command's fetch answers DECERR */
        bus = f->hdata_end + below(f, 64) * 8;
        if (!len)
            len = 8;
        logf_(f, "    (the entry's buffer moved to 0x%" PRIx64 ": DECERR on the first fetch)\n", bus);
    }
    if (cut) {
        len -= (uint32_t)cut;
        logf_(f, "    (entry length cut to 0x%x: the last command does not fit)\n", len);
    }
    gr_dma_ring_entry(f->ring + idx * GR_DMA_RING_ENTRY_BYTES, bus, len, id, g.e.use_root, g.e.root, irq);
    /* the streams are the kernel's own packets (physical spaces, INDIRECT), but for K_PRIV */
    if (fault != K_PRIV)
        gr_dma_ring_entry_set_priv(f->ring + idx * GR_DMA_RING_ENTRY_BYTES);
    else
        logf_(f, "    (entry without PRIV%s)\n", g.e.use_root ? "" : " and without USE_ROOT");
    if (fault == K_BAD_ENTRY) {
        unsigned q = (unsigned)below(f, 5);
        uint8_t *e = f->ring + idx * GR_DMA_RING_ENTRY_BYTES;
        switch (q) {
        case 0: gr_dma_put64(e, gr_dma_get64(e) + 4); break; /* misaligned buffer */
        case 1: gr_dma_put64(e + 8, gr_dma_get64(e + 8) + 4); break; /* length */
        case 2: gr_dma_put64(e + 16, gr_dma_get64(e + 16) | (UINT64_C(1) << (1 + below(f, 11)))); break;
        case 3: gr_dma_put64(e + 16, gr_dma_get64(e + 16) | (UINT64_C(1) << (52 + below(f, 12)))); break;
        default: gr_dma_put64(e + 24, gr_dma_get64(e + 24) | (UINT64_C(1) << (2 + below(f, 62)))); break;
        }
        logf_(f, "    (bad ring entry: variant %u)\n", q);
    }
    f->tail++;
    f->m->tail = f->tail & ring_mask(f);
    sync_fixed(f);
    g_entries_total++;
    gr_dma_ref_result_t r = gr_dma_ref_run(f->m, NULL);
    static const gr_dma_ref_result_t want[] = {
        [K_CLEAN] = GR_DMA_REF_IDLE,       [K_PREEMPT] = GR_DMA_REF_IDLE,
        [K_BAD_ENTRY] = GR_DMA_REF_FAULT,  [K_BAD_CMD] = GR_DMA_REF_FAULT,
        [K_MMU_UNMAPPED] = GR_DMA_REF_FAULT, [K_MMU_READONLY] = GR_DMA_REF_FAULT,
        [K_MMU_DECODE] = GR_DMA_REF_FAULT, [K_VPR] = GR_DMA_REF_FAULT,
        [K_BUS_READ] = GR_DMA_REF_FAULT,   [K_BUS_WRITE] = GR_DMA_REF_FAULT,
        [K_HANG] = GR_DMA_REF_HANG,        [K_PRIV] = GR_DMA_REF_FAULT,
    };
    static const unsigned want_type[] = {
        [K_BAD_ENTRY] = GR_DMA_FAULT_BAD_ENTRY, [K_BAD_CMD] = GR_DMA_FAULT_BAD_CMD,
        [K_MMU_UNMAPPED] = GR_DMA_FAULT_MMU,    [K_MMU_READONLY] = GR_DMA_FAULT_MMU,
        [K_MMU_DECODE] = GR_DMA_FAULT_MMU,      [K_VPR] = GR_DMA_FAULT_VPR_COPY,
        [K_BUS_READ] = GR_DMA_FAULT_BUS,        [K_BUS_WRITE] = GR_DMA_FAULT_BUS,
        [K_HANG] = GR_DMA_FAULT_HANG,           [K_PRIV] = GR_DMA_FAULT_PRIVILEGE,
    };
    if (r != want[expect] ||
        (expect > K_PREEMPT && GR_DMA_REF_FAULT_TYPE(f->m->fault_status) != want_type[expect]))
        fail_stream(f, "the model ran this entry to %d (fault status 0x%08x), not as generated", r,
                    f->m->fault_status);
    return r;
}

/* Starts a batch: command pages are reused once the device finished the previous batch. */
static void begin_batch(fx_t *f)
{
    f->cmd_next = 0;
}

static void submit(fx_t *f)
{
    wr(f, GR_REG_DMA_RING_TAIL, f->tail & ring_mask(f));
}

static unsigned batch_room(const fx_t *f)
{
    return (1u << f->ring_log2) - 1;
}

/* A batch of clean entries, run on both and compared. */
static void clean_batch(fx_t *f, unsigned max_entries)
{
    begin_batch(f);
    unsigned n = 1 + (unsigned)below(f, max_entries < batch_room(f) ? max_entries : batch_room(f));
    logf_(f, "batch of %u\n", n);
    for (unsigned i = 0; i < n && f->cmd_next + 3 <= CMD_PAGES; i++)
        add_entry(f, K_CLEAN, i + 1 < n, K_CLEAN);
    uint64_t t0 = rd_timestamp(f);
    submit(f);
    run_device(f);
    check_all(f, t0);
}

/* ---- snapshots (for preemption: the model is run again to where the device stopped) --------- */

typedef struct snap {
    uint8_t *data[MAX_REGIONS];
    gr_dma_ref_t *m;
    unsigned stamps_seen;
} snap_t;

static void snap_take(fx_t *f, snap_t *s)
{
    for (unsigned i = 0; i < f->nreg; i++) {
        s->data[i] = NULL;
        if (f->reg[i].fixed)
            continue;
        s->data[i] = malloc(f->reg[i].size);
        assert_non_null(s->data[i]);
        memcpy(s->data[i], f->reg[i].shadow, f->reg[i].size);
    }
    s->m = malloc(sizeof *s->m);
    assert_non_null(s->m);
    memcpy(s->m, f->m, sizeof *s->m);
    s->stamps_seen = f->stamps_seen;
}

static void snap_restore(fx_t *f, snap_t *s)
{
    for (unsigned i = 0; i < f->nreg; i++)
        if (s->data[i])
            memcpy(f->reg[i].shadow, s->data[i], f->reg[i].size);
    uint32_t tail = f->m->tail;
    memcpy(f->m, s->m, sizeof *s->m);
    f->m->tail = tail;
    f->stamps_seen = s->stamps_seen;
}

static void snap_free(fx_t *f, snap_t *s)
{
    for (unsigned i = 0; i < f->nreg; i++)
        free(s->data[i]);
    free(s->m);
}

/* A clean batch preempted at a random moment; the model runs to where the device says it
 * stopped; then the removed entries are resubmitted and both run them to the end. */
static void preempt_batch(fx_t *f)
{
    snap_t s;
    snap_take(f, &s);
    begin_batch(f);
    unsigned n = 1 + (unsigned)below(f, batch_room(f));
    logf_(f, "batch of %u, to be preempted\n", n);
    for (unsigned i = 0; i < n && f->cmd_next + 3 <= CMD_PAGES; i++) {
        add_entry(f, K_CLEAN, false, K_CLEAN);
    }
    uint64_t t0 = rd_timestamp(f);
    submit(f);
    uint64_t wait = below(f, 4) == 0 ? 0 : below(f, 6000);
    gr_sim_run(f->sim, wait);
    wr(f, GR_REG_DMA_CTRL, GPU_REGS__DMA_CTRL__ENABLE_bm | GPU_REGS__DMA_CTRL__PREEMPT_bm);
    uint32_t st = 0;
    for (uint64_t c = 0;; c += 100) {
        if (c > RUN_LIMIT)
            fail_stream(f, "the preemption did not complete: DMA_STATUS 0x%08x", st);
        gr_sim_run(f->sim, 100);
        st = rd(f, GR_REG_DMA_STATUS);
        if (FIELD(DMA_STATUS, PREEMPTED, st) && FIELD(DMA_STATUS, IDLE, st))
            break;
    }
    uint32_t sh = rd(f, GR_REG_DMA_STOP_HEAD), stl = rd(f, GR_REG_DMA_STOP_TAIL);
    uint32_t so = rd(f, GR_REG_DMA_STOP_OFFSET), sd = rd(f, GR_REG_DMA_STOP_DONE);
    uint32_t cmds = rd(f, GR_REG_DMA_PERF_CMDS) - f->perf_cmds0;
    if (sd)
        g_preempt_mid++;
    if ((stl - sh) & ring_mask(f))
        g_preempt_resubmitted++;
    logf_(f, "preempted after %" PRIu64 " cycles: STOP_HEAD %u STOP_TAIL %u STOP_OFFSET 0x%x STOP_DONE 0x%x, "
             "%u commands since the start\n", wait, sh, stl, so, sd, cmds);

    /* the model, from the batch's start, to the device's stop point */
    snap_restore(f, &s);
    snap_free(f, &s);
    gr_dma_ref_stop_t stop = {.entry = sh, .cmds = cmds, .done = sd};
    gr_dma_ref_result_t r = gr_dma_ref_run(f->m, &stop);
    if (r != GR_DMA_REF_STOPPED)
        fail_stream(f, "the device stopped where the model cannot (STOP_HEAD %u, %u commands, STOP_DONE "
                    "0x%x): the model %s",
                    sh, cmds, sd, r == GR_DMA_REF_BAD_STOP ? "passes no such point" : "ran differently");
    assert_int_equal(gr_dma_ref_preempt(f->m), 0);
    if (stl != f->m->stop_tail || so != f->m->stop_offset || sd < f->m->stop_done_min ||
        sd > f->m->stop_done_max || sh != f->m->stop_head)
        fail_stream(f, "STOP_HEAD %u STOP_TAIL %u STOP_OFFSET 0x%x STOP_DONE 0x%x; model %u %u 0x%x "
                    "0x%" PRIx64,
                    sh, stl, so, sd, f->m->stop_head, f->m->stop_tail, f->m->stop_offset,
                    f->m->stop_done_min);
    check_all(f, t0);

    /* the host resubmits the removed entries, from their start */
    unsigned removed = (stl - sh) & ring_mask(f);
    if (!removed)
        return;
    uint8_t saved[16 * GR_DMA_RING_ENTRY_BYTES];
    for (unsigned i = 0; i < removed; i++)
        memcpy(saved + i * 32u, f->ring + ((sh + i) & ring_mask(f)) * 32u, 32);
    logf_(f, "resubmitting %u entries at [%u]\n", removed, f->tail & ring_mask(f));
    for (unsigned i = 0; i < removed; i++) {
        memcpy(f->ring + (f->tail & ring_mask(f)) * 32u, saved + i * 32u, 32);
        f->tail++;
    }
    f->m->tail = f->tail & ring_mask(f);
    sync_fixed(f);
    if (gr_dma_ref_run(f->m, NULL) != GR_DMA_REF_IDLE)
        fail_stream(f, "the model did not run the resubmitted entries to the end");
    t0 = rd_timestamp(f);
    submit(f);
    run_device(f);
    check_all(f, t0);
}

/* The batch that ends in a fault (or hang), then the engine reset and a batch after it. */
static void fault_batch(fx_t *f, enum kind kind)
{
    begin_batch(f);
    unsigned room = batch_room(f);
    unsigned before = (unsigned)below(f, room > 1 ? room - 1 : 1);
    unsigned after = (unsigned)below(f, room - before);
    logf_(f, "batch: %u clean, the %s entry, %u more\n", before, kind_name[kind], after);
    for (unsigned i = 0; i < before; i++)
        add_entry(f, K_CLEAN, false, K_CLEAN);
    /* (when no faulting command fits, the entry is clean and so is the rest) */
    enum kind got = add_entry(f, kind, false, kind) == GR_DMA_REF_IDLE ? K_CLEAN : kind;
    if (got == kind)
        g_faulted[kind]++;
    for (unsigned i = 0; i < after && f->cmd_next + 3 <= CMD_PAGES; i++)
        add_entry(f, K_CLEAN, false, got); /* never runs after a stop */
    uint64_t t0 = rd_timestamp(f);
    submit(f);
    run_device(f);
    /* The fault as reported; memory only once the reset drained the bus: writes issued before
     * the fault may still land after FAULTED shows. */
    check_regs(f, false);

    /* engine reset: the removed entries and the stopped command are reported, nothing written */
    wr(f, GR_REG_DMA_CTRL, GPU_REGS__DMA_CTRL__ENABLE_bm | GPU_REGS__DMA_CTRL__RESET_bm);
    uint32_t st = 0;
    for (uint64_t c = 0;; c += 100) {
        if (c > RUN_LIMIT)
            fail_stream(f, "the engine reset did not finish: DMA_STATUS 0x%08x", st);
        gr_sim_run(f->sim, 100);
        st = rd(f, GR_REG_DMA_STATUS);
        if (!FIELD(DMA_STATUS, RESETTING, st) && FIELD(DMA_STATUS, IDLE, st))
            break;
    }
    gr_dma_ref_engine_reset(f->m);
    uint32_t sh = rd(f, GR_REG_DMA_STOP_HEAD), stl = rd(f, GR_REG_DMA_STOP_TAIL);
    uint32_t so = rd(f, GR_REG_DMA_STOP_OFFSET), sd = rd(f, GR_REG_DMA_STOP_DONE);
    logf_(f, "engine reset: STOP_HEAD %u STOP_TAIL %u STOP_OFFSET 0x%x STOP_DONE 0x%x\n", sh, stl, so, sd);
    /* after a write's error response the engine may have moved past the command (then it
     * reports no bytes of it) */
    bool moved_on = so > f->m->stop_offset && so <= f->m->stop_offset_max && sd == 0;
    if (sh != f->m->stop_head || stl != f->m->stop_tail ||
        (!moved_on && (so != f->m->stop_offset || sd < f->m->stop_done_min || sd > f->m->stop_done_max)))
        fail_stream(f, "after the engine reset STOP_HEAD %u STOP_TAIL %u STOP_OFFSET 0x%x STOP_DONE 0x%x; "
                    "model %u %u 0x%x (..0x%x) 0x%" PRIx64 "..0x%" PRIx64,
                    sh, stl, so, sd, f->m->stop_head, f->m->stop_tail, f->m->stop_offset,
                    f->m->stop_offset_max, f->m->stop_done_min, f->m->stop_done_max);
    /* what the entries that never ran would have written to the semaphores did not happen */
    for (unsigned side = 0; side < 2; side++)
        for (unsigned i = 0; i < SEM_SLOTS; i++) {
            region_t *r = find_region(f, side ? GR_DMA_REF_VRAM : GR_DMA_REF_HOST, sem_addr(f, side, i), 8);
            uint64_t v = gr_dma_get64(r->shadow + (sem_addr(f, side, i) - r->base));
            f->semv[side][i] = v;
        }
    if (rd(f, GR_REG_DMA_RING_HEAD) != (f->tail & ring_mask(f)))
        fail_stream(f, "HEAD %u after the engine reset, TAIL %u", rd(f, GR_REG_DMA_RING_HEAD),
                    f->tail & ring_mask(f));
    check_all(f, t0);
}

/* ---- one stream --------------------------------------------------------------------------------- */

static void run_stream(uint64_t seed, enum kind kind)
{
    fx_t *f = calloc(1, sizeof *f);
    assert_non_null(f);
    g_fx = f;
    f->seed = seed;
    f->kind = kind;
    f->rng = seed * 0x9e3779b97f4a7c15ull + (uint64_t)kind * 0x632be59bd9b4e019ull;
    f->m = calloc(1, sizeof *f->m);
    assert_non_null(f->m);
    gr_sim_config_t cfg = {0};
    cfg.seed = seed * 16 + (uint64_t)kind;
    if (chance(f, 15)) {
        cfg.no_random = true;
    } else {
        cfg.stall_pct = 1 + (unsigned)below(f, 60);
        cfg.max_latency = 1 + (unsigned)below(f, 40);
    }
    g_streams_run[kind]++;
    printf("# seed=%" PRIu64 " kind=%s (sim seed %" PRIu64 ", stalls %u%%, latency %u%s)\n", seed,
           kind_name[kind], cfg.seed, cfg.stall_pct, cfg.max_latency, cfg.no_random ? ", no randomness" : "");
    fflush(stdout);
    assert_int_equal(gr_sim_create(&cfg, &f->sim), GR_OK);
    if (!(rd(f, GR_REG_ID_CAPS) & GPU_REGS__ID_CAPS__DMA_bm))
        fail_stream(f, "ID_CAPS.DMA is 0: no DMA engine in this build");
    const gr_dma_ref_bus_t bus = {m_read, m_write, m_stamp, f};
    gr_dma_ref_init(f->m, &bus);
    build_world(f);
    f->last_stamp = rd_timestamp(f);

    switch (kind) {
    case K_CLEAN:
        for (unsigned i = 0, n = 2 + (unsigned)below(f, 2); i < n; i++)
            clean_batch(f, 6);
        break;
    case K_PREEMPT:
        if (chance(f, 50))
            clean_batch(f, 3);
        preempt_batch(f);
        preempt_batch(f);
        break;
    default:
        if (chance(f, 50))
            clean_batch(f, 3);
        fault_batch(f, kind);
        clean_batch(f, 3); /* the engine runs again after its reset */
        break;
    }
    if (g_verbose)
        printf("%s", f->log ? f->log : "");

    gr_sim_destroy(f->sim);
    for (unsigned i = 0; i < f->nreg; i++)
        free(f->reg[i].shadow);
    free(f->m);
    free(f->log);
    free(f);
    g_fx = NULL;
}

static void run_kind(enum kind kind)
{
    for (unsigned i = 0; i < g_streams; i++)
        run_stream(g_seed + i, kind);
}

#define KIND_TEST(fn, kind)      \
    static void fn(void **state) \
    {                            \
        (void)state;             \
        run_kind(kind);          \
    }
KIND_TEST(clean_streams_match_the_model_byte_for_byte, K_CLEAN)
KIND_TEST(preempted_streams_stop_where_the_model_can_and_resubmit_cleanly, K_PREEMPT)
KIND_TEST(streams_ending_in_a_bad_ring_entry_match_the_model, K_BAD_ENTRY)
KIND_TEST(streams_ending_in_a_bad_command_match_the_model, K_BAD_CMD)
KIND_TEST(streams_ending_in_an_unmapped_gpu_va_match_the_model, K_MMU_UNMAPPED)
KIND_TEST(streams_ending_in_a_write_to_a_read_only_page_match_the_model, K_MMU_READONLY)
KIND_TEST(streams_ending_in_a_page_table_read_error_match_the_model, K_MMU_DECODE)
KIND_TEST(streams_ending_in_a_vpr_copy_match_the_model, K_VPR)
KIND_TEST(streams_ending_in_a_read_bus_error_match_the_model, K_BUS_READ)
KIND_TEST(streams_ending_in_a_write_bus_error_match_the_model, K_BUS_WRITE)
KIND_TEST(streams_ending_in_a_wait_hang_match_the_model, K_HANG)
KIND_TEST(streams_ending_in_a_privilege_fault_match_the_model, K_PRIV)

int main(int argc, char **argv)
{
    const char *env = getenv("GR_TEST_SEED");
    if (env)
        g_seed = strtoull(env, NULL, 0);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            g_seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--streams") && i + 1 < argc)
            g_streams = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--verbose"))
            g_verbose = true;
        else if (!strcmp(argv[i], "--no-raw"))
            g_no_raw = true;
    }
    /* The streams pick their own bus randomness. */
    unsetenv("GR_SIM_SEED");
    printf("# seed=%" PRIu64 " streams=%u per kind (replay one: --seed S --streams 1)\n", g_seed, g_streams);
    fflush(stdout);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clean_streams_match_the_model_byte_for_byte),
        cmocka_unit_test(preempted_streams_stop_where_the_model_can_and_resubmit_cleanly),
        cmocka_unit_test(streams_ending_in_a_bad_ring_entry_match_the_model),
        cmocka_unit_test(streams_ending_in_a_bad_command_match_the_model),
        cmocka_unit_test(streams_ending_in_an_unmapped_gpu_va_match_the_model),
        cmocka_unit_test(streams_ending_in_a_write_to_a_read_only_page_match_the_model),
        cmocka_unit_test(streams_ending_in_a_page_table_read_error_match_the_model),
        cmocka_unit_test(streams_ending_in_a_vpr_copy_match_the_model),
        cmocka_unit_test(streams_ending_in_a_read_bus_error_match_the_model),
        cmocka_unit_test(streams_ending_in_a_write_bus_error_match_the_model),
        cmocka_unit_test(streams_ending_in_a_wait_hang_match_the_model),
        cmocka_unit_test(streams_ending_in_a_privilege_fault_match_the_model),
    };
    int failed = cmocka_run_group_tests_name("dma_ref", tests, NULL, NULL);
    printf("# %lu entries, %lu commands, %lu COPY/FILL bytes generated; %lu page-table updates; "
           "%lu preemptions inside a COPY/FILL, %lu with entries resubmitted\n",
           g_entries_total, g_cmds_total, g_bytes_total, g_remaps, g_preempt_mid, g_preempt_resubmitted);
    for (unsigned k = K_BAD_ENTRY; k <= K_PRIV; k++)
        printf("# %s: %lu of %lu streams ended that way\n", kind_name[k], g_faulted[k], g_streams_run[k]);
    return failed;
}
