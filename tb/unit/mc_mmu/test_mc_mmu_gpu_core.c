/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_mc_mmu_gpu_core: the MMU's page-walk cache in gpu_core (rtl/mc/README.md, "Page-walk cache"),
 * through the registers and the DMA engine on the Verilated model (gr_sim): every way the
 * memory controller drops it must drop it. An L1 entry is pointed at another L0 table, then a
 * TLB miss in the same 2 MiB region must find the new table after MMU_INVALIDATE, after the DMA
 * engine's TLB_INVALIDATE, after a change of MMU_ROOT and after a ring entry with another ROOT.
 * Before each of those (no invalidate) the walk may and here does start from the old pointer,
 * which shows that the cache is there to be dropped.
 *
 * Output: TAP. Options: --seed N (the bus models' random stalls and latencies; default 1).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuref/gr_dma.h"
#include "gpuref/gr_regmap.h"
#include "gpuref/gr_regs.h"
#include "gpuref/gr_status.h"
#include "gr_sim.h"

#define K4 UINT64_C(0x1000)
#define PTE_VALID UINT64_C(0x1)
#define PTE_WRITABLE UINT64_C(0x2)

/* One 2 MiB region of GPU VA, translated through two roots. */
#define VA UINT64_C(0x0000004000000000)
#define R1 UINT64_C(0x00100000) /* root 1: L3, L2, L1 tables, then L0 tables T1 and T2 */
#define R1_L2 UINT64_C(0x00101000)
#define R1_L1 UINT64_C(0x00102000)
#define T1 UINT64_C(0x00103000)
#define T2 UINT64_C(0x00104000)
#define R2 UINT64_C(0x00105000) /* root 2: its own tables, then L0 tables T3 and T4 */
#define R2_L2 UINT64_C(0x00106000)
#define R2_L1 UINT64_C(0x00107000)
#define T3 UINT64_C(0x00108000)
#define T4 UINT64_C(0x00109000)
/* Page i of the region in table Tn maps to PAGES(n) + i * 4 KiB. */
#define PAGES(n) (UINT64_C(0x01000000) + (uint64_t)((n)-1) * UINT64_C(0x00200000))

#define RING_LOG2 4u

static gr_sim_t *g_sim;
static unsigned g_test, g_failed;
static uint8_t *g_ring, *g_fence, *g_cmd;
static uint64_t g_ring_bus, g_fence_bus, g_cmd_bus;
static uint32_t g_tail, g_next_fence = 1;

static void bail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void bail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("Bail out! ");
    vprintf(fmt, ap);
    printf(" (seed=%" PRIu64 ")\n", gr_sim_seed(g_sim));
    va_end(ap);
    exit(1);
}

static void check(bool ok, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void check(bool ok, const char *name, const char *fmt, ...)
{
    va_list ap;
    printf("%s %u - %s\n", ok ? "ok" : "not ok", ++g_test, name);
    if (!ok) {
        g_failed++;
        printf("#   ");
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
    }
}

static uint32_t rd(uint32_t off)
{
    uint32_t v = 0;
    int rc = gr_sim_mmio_read(g_sim, off, &v);
    if (rc)
        bail("read of 0x%03x: %s", off, gr_strerror(rc));
    return v;
}

static void wr(uint32_t off, uint32_t v)
{
    int rc = gr_sim_mmio_write(g_sim, off, v);
    if (rc)
        bail("write of 0x%03x: %s", off, gr_strerror(rc));
}

static void put_entry(uint64_t table, unsigned index, uint64_t entry)
{
    uint8_t q[8];
    gr_dma_put64(q, entry);
    if (gr_sim_vram_write(g_sim, table + (uint64_t)8 * index, q, 8))
        bail("VRAM write at 0x%" PRIx64, table + (uint64_t)8 * index);
}

static uint64_t vram64(uint64_t addr)
{
    uint8_t q[8];
    if (gr_sim_vram_read(g_sim, addr, q, 8))
        bail("VRAM read at 0x%" PRIx64, addr);
    return gr_dma_get64(q);
}

static unsigned idx(uint64_t va, unsigned level)
{
    return (unsigned)(va >> (12 + 9 * level)) & 511;
}

/* Root -> L2 -> L1 for VA; the L1 entry of VA's 2 MiB region points at `l0`. */
static void build_root(uint64_t root, uint64_t l2, uint64_t l1, uint64_t l0)
{
    put_entry(root, idx(VA, 3), l2 | PTE_VALID);
    put_entry(l2, idx(VA, 2), l1 | PTE_VALID);
    put_entry(l1, idx(VA, 1), l0 | PTE_VALID);
}

/* Every page of the region in table n, writable. */
static void build_l0(uint64_t table, unsigned n)
{
    for (unsigned i = 0; i < 512; i++)
        put_entry(table, i, (PAGES(n) + i * K4) | PTE_WRITABLE | PTE_VALID);
}

/* Translates va with the probe (through MMU_ROOT); returns the PA, or ~0 on a fault. */
static uint64_t probe(uint64_t va)
{
    wr(GR_REG_MMU_PROBE_VA_LO, (uint32_t)va);
    wr(GR_REG_MMU_PROBE_VA_HI, (uint32_t)(va >> 32));
    wr(GR_REG_MMU_PROBE_CTRL, GPU_REGS__MMU_PROBE_CTRL__GO_bm);
    for (unsigned i = 0; i < 1000; i++) {
        uint32_t st = rd(GR_REG_MMU_PROBE_STATUS);
        if (st & GPU_REGS__MMU_PROBE_STATUS__DONE_bm) {
            if (st & GPU_REGS__MMU_PROBE_STATUS__FAULT_bm)
                return ~UINT64_C(0);
            return ((uint64_t)rd(GR_REG_MMU_PROBE_PA_HI) << 32) | rd(GR_REG_MMU_PROBE_PA_LO);
        }
    }
    bail("the MMU probe of 0x%" PRIx64 " did not finish", va);
}

/* Runs one ring entry whose buffer is the commands in `w`; waits for its fence. */
static void run_entry(const gr_dma_writer_t *w, bool use_root, uint64_t root)
{
    uint32_t id = g_next_fence++;
    gr_dma_ring_entry(g_ring + (g_tail % (1u << RING_LOG2)) * GR_DMA_RING_ENTRY_BYTES, g_cmd_bus,
                      (uint32_t)w->used, id, use_root, root, 0);
    gr_dma_ring_entry_set_priv(g_ring + (g_tail % (1u << RING_LOG2)) * GR_DMA_RING_ENTRY_BYTES);
    g_tail = (g_tail + 1) % (1u << RING_LOG2);
    wr(GR_REG_DMA_RING_TAIL, g_tail);
    for (unsigned i = 0; gr_dma_get64(g_fence + GR_DMA_FENCE_RECORD_DONE) != id; i++) {
        if (i > 2000)
            bail("fence %u not written: DMA_STATUS 0x%08x DMA_FAULT_STATUS 0x%08x", id,
                 rd(GR_REG_DMA_STATUS), rd(GR_REG_DMA_FAULT_STATUS));
        gr_sim_run(g_sim, 10);
    }
}

/* A FILL of one qword at GPU VA `va`, optionally after a TLB_INVALIDATE, as one entry. */
static void fill_va(uint64_t va, uint32_t pattern, bool invalidate, bool use_root, uint64_t root)
{
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, g_cmd, 4096);
    if (invalidate && gr_dma_tlb_invalidate(&w))
        bail("command buffer full");
    if (gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, va, 8, pattern))
        bail("command buffer full");
    run_entry(&w, use_root, root);
}

static uint64_t pat64(uint32_t p)
{
    return ((uint64_t)p << 32) | p;
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: %s [--seed N]\n", argv[0]);
            return 2;
        }
    }
    gr_sim_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.seed = seed;
    cfg.fst_path = NULL;
    if (gr_sim_create(&cfg, &g_sim))
        bail("gr_sim_create failed");
    printf("1..6\n# seed=%" PRIu64 "\n", gr_sim_seed(g_sim));

    void *p;
    if (gr_sim_dma_alloc(g_sim, 4096, &p, &g_ring_bus))
        bail("dma_alloc");
    g_ring = p;
    if (gr_sim_dma_alloc(g_sim, 4096, &p, &g_fence_bus))
        bail("dma_alloc");
    g_fence = p;
    if (gr_sim_dma_alloc(g_sim, 4096, &p, &g_cmd_bus))
        bail("dma_alloc");
    g_cmd = p;

    build_l0(T1, 1);
    build_l0(T2, 2);
    build_l0(T3, 3);
    build_l0(T4, 4);
    build_root(R1, R1_L2, R1_L1, T1);
    build_root(R2, R2_L2, R2_L1, T3);
    wr(GR_REG_MMU_ROOT, (uint32_t)R1);
    wr(GR_REG_MMU_CTRL, GPU_REGS__MMU_CTRL__ENABLE_bm);
    wr(GR_REG_MMU_INVALIDATE, GPU_REGS__MMU_INVALIDATE__ALL_bm);
    wr(GR_REG_DMA_RING_BASE_LO, (uint32_t)g_ring_bus);
    wr(GR_REG_DMA_RING_BASE_HI, (uint32_t)(g_ring_bus >> 32));
    wr(GR_REG_DMA_RING_SIZE, RING_LOG2);
    wr(GR_REG_DMA_FENCE_ADDR_LO, (uint32_t)g_fence_bus);
    wr(GR_REG_DMA_FENCE_ADDR_HI, (uint32_t)(g_fence_bus >> 32));
    wr(GR_REG_DMA_CTRL, GPU_REGS__DMA_CTRL__ENABLE_bm);

    /* 1: the probe walks page 0, then page 1 of the region (a TLB miss) from the cache. */
    uint64_t a0 = probe(VA), a1 = probe(VA + K4);
    check(a0 == PAGES(1) && a1 == PAGES(1) + K4, "MMU probe through MMU_ROOT: pages 0 and 1",
          "PA 0x%" PRIx64 " 0x%" PRIx64, a0, a1);

    /* 2: R1's L1 entry moves to T2. Without an invalidate page 2 still walks through T1; after
     * MMU_INVALIDATE page 3 must be found through T2. */
    put_entry(R1_L1, idx(VA, 1), T2 | PTE_VALID);
    uint64_t s2 = probe(VA + 2 * K4);
    wr(GR_REG_MMU_INVALIDATE, GPU_REGS__MMU_INVALIDATE__ALL_bm);
    uint64_t n3 = probe(VA + 3 * K4);
    check(s2 == PAGES(1) + 2 * K4 && n3 == PAGES(2) + 3 * K4,
          "MMU_INVALIDATE drops the page-walk cache: a moved L0 table is found after it (the old one used before)",
          "PA before 0x%" PRIx64 " (cached 0x%" PRIx64 "), after 0x%" PRIx64 " (want 0x%" PRIx64 ")",
          s2, PAGES(1) + 2 * K4, n3, PAGES(2) + 3 * K4);

    /* 3: MMU_ROOT changes to R2, no invalidate: page 4 through R2's tables. */
    wr(GR_REG_MMU_ROOT, (uint32_t)R2);
    uint64_t r4 = probe(VA + 4 * K4);
    check(r4 == PAGES(3) + 4 * K4,
          "a change of MMU_ROOT drops the page-walk cache (no invalidate): the new root's tables",
          "PA 0x%" PRIx64 ", want 0x%" PRIx64, r4, PAGES(3) + 4 * K4);

    /* 4: the DMA engine (MMU_ROOT R2): a FILL on page 5; R2's L1 entry moves to T4; a FILL on
     * page 6 without TLB_INVALIDATE still lands through T3, one on page 7 after it through T4. */
    fill_va(VA + 5 * K4, 0x11111111u, false, false, 0);
    put_entry(R2_L1, idx(VA, 1), T4 | PTE_VALID);
    fill_va(VA + 6 * K4, 0x22222222u, false, false, 0);
    fill_va(VA + 7 * K4, 0x33333333u, true, false, 0);
    uint64_t d5 = vram64(PAGES(3) + 5 * K4), d6 = vram64(PAGES(3) + 6 * K4);
    uint64_t d7 = vram64(PAGES(4) + 7 * K4), d7old = vram64(PAGES(3) + 7 * K4);
    check(d5 == pat64(0x11111111u) && d6 == pat64(0x22222222u) && d7 == pat64(0x33333333u) &&
              d7old == 0,
          "the DMA engine's TLB_INVALIDATE drops the page-walk cache: a FILL after it lands through the moved table",
          "page 5 0x%" PRIx64 ", page 6 (old table) 0x%" PRIx64 ", page 7 new 0x%" PRIx64
          " old 0x%" PRIx64,
          d5, d6, d7, d7old);

    /* 5: a ring entry with USE_ROOT R1 (whose L1 entry points at T2), then one with R2 again:
     * each root change drops the cache. */
    fill_va(VA + 8 * K4, 0x44444444u, false, true, R1);
    fill_va(VA + 9 * K4, 0x55555555u, false, true, R2);
    uint64_t e8 = vram64(PAGES(2) + 8 * K4), e8bad = vram64(PAGES(4) + 8 * K4);
    uint64_t e9 = vram64(PAGES(4) + 9 * K4), e9bad = vram64(PAGES(2) + 9 * K4);
    check(e8 == pat64(0x44444444u) && e8bad == 0 && e9 == pat64(0x55555555u) && e9bad == 0,
          "a ring entry's ROOT (USE_ROOT) different from the last one drops the page-walk cache, each way",
          "root 1: 0x%" PRIx64 " (other 0x%" PRIx64 "); root 2: 0x%" PRIx64 " (other 0x%" PRIx64 ")",
          e8, e8bad, e9, e9bad);

    /* 6: nothing faulted on the way. */
    uint32_t dst = rd(GR_REG_DMA_STATUS), mcf = rd(GR_REG_MC_FAULT_STATUS);
    check(!(dst & (GPU_REGS__DMA_STATUS__FAULTED_bm | GPU_REGS__DMA_STATUS__HUNG_bm)) &&
              !(mcf & GPU_REGS__MC_FAULT_STATUS__VALID_bm),
          "no DMA or memory-controller fault", "DMA_STATUS 0x%08x MC_FAULT_STATUS 0x%08x", dst,
          mcf);

    gr_sim_destroy(g_sim);
    if (g_failed)
        printf("# %u of %u failed; replay: --seed %" PRIu64 "\n", g_failed, g_test, seed);
    return g_failed ? 1 : 0;
}
