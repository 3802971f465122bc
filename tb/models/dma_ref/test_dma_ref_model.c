/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_dma_ref_model: the DMA reference model (dma_ref.c) on hand-computed cases, over a small
 * flat host memory and VRAM: every command, every fault kind with its status and address, page
 * sizes and SYSTEM pages, the VPR rule, INDIRECT, WAIT and the watchdog, preemption points,
 * engine reset, ring wrap, counters and the bytes the contract leaves open.
 * TAP through cmocka (CMOCKA_MESSAGE_OUTPUT=TAP). No randomness: no seed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dma_ref.h"
#include "gpuref/gr_dma.h"
#include "ref_walker.h"

/* ---- memory: host bus [HOST_BASE, +HOST_BYTES) and VRAM [0, VRAM_BYTES); the rest errors ---- */
#define HOST_BASE  UINT64_C(0x100000000)
#define HOST_BYTES (256u * 1024u)
#define VRAM_BYTES (8u << 20)

static uint8_t host[HOST_BYTES];
static uint8_t vram[VRAM_BYTES];
static uint64_t stamp_next;

static uint8_t *mem_at(gr_dma_ref_port_t port, uint64_t addr, size_t n)
{
    if (port == GR_DMA_REF_HOST) {
        if (addr < HOST_BASE || addr - HOST_BASE > HOST_BYTES - n)
            return NULL;
        return host + (addr - HOST_BASE);
    }
    if (addr > VRAM_BYTES - n)
        return NULL;
    return vram + addr;
}

static int mem_read(void *ctx, gr_dma_ref_port_t port, uint64_t addr, void *dst, size_t n)
{
    (void)ctx;
    /* The model promises accesses that stay inside one 4 KiB page. */
    assert_true((addr & 0xfff) + n <= 4096);
    uint8_t *p = mem_at(port, addr, n);
    if (!p)
        return -1;
    memcpy(dst, p, n);
    return 0;
}

static int mem_write(void *ctx, gr_dma_ref_port_t port, uint64_t addr, const void *src, size_t n)
{
    (void)ctx;
    assert_true((addr & 0xfff) + n <= 4096);
    uint8_t *p = mem_at(port, addr, n);
    if (!p)
        return -1;
    memcpy(p, src, n);
    return 0;
}

static uint64_t mem_stamp(void *ctx)
{
    (void)ctx;
    return stamp_next += 10;
}

static const gr_dma_ref_bus_t bus = {mem_read, mem_write, mem_stamp, NULL};

/* ---- layout ---------------------------------------------------------------------------------- */
#define RING   (HOST_BASE + 0x0000) /* 16 entries */
#define FENCE  (HOST_BASE + 0x1000)
#define BUF0   (HOST_BASE + 0x2000) /* command buffers, 4 KiB each */
#define BUF1   (HOST_BASE + 0x3000)
#define BUF2   (HOST_BASE + 0x4000)
#define HDATA  (HOST_BASE + 0x10000) /* host data, 64 KiB */
#define HSYS   (HOST_BASE + 0x20000) /* host page behind a SYSTEM PTE */
#define HEND   (HOST_BASE + HOST_BYTES) /* first unmapped host address */

/* Page tables (VRAM) and what they map. */
#define PT_L3   0x100000u
#define PT_L2   0x101000u
#define PT_L1   0x102000u
#define PT_L0   0x103000u
#define PT_64   0x104000u
#define PT2_L3  0x105000u /* a second address space (entry ROOT) */
#define PT2_L2  0x106000u
#define PT2_L1  0x107000u
#define VA_4K   UINT64_C(0x8000000000) /* L0[0] RW 0x110000, [1] RO 0x111000, [2] SYSTEM, [3] unmapped */
#define VA_64K  UINT64_C(0x8000200000) /* PT64[0] RW 0x120000, [1] unmapped */
#define VA_2M   UINT64_C(0x8000400000) /* 2 MiB RW at 0x400000 */
#define PA_4K0  0x110000u
#define PA_4K1  0x111000u
#define PA_64K  0x120000u
#define PA_2M   0x400000u
#define PA2_2M  0x600000u /* VA_4K's 2 MiB page in the second space */

static gr_dma_ref_t *m;
static uint8_t ring_fill; /* entries written so far (the next goes at this index) */

static void put(uint8_t *p, uint64_t v)
{
    gr_dma_put64(p, v);
}

static uint64_t get(const uint8_t *p)
{
    return gr_dma_get64(p);
}

static void pte(uint32_t table, unsigned index, uint64_t value)
{
    put(vram + table + index * 8u, value);
}

static void build_tables(void)
{
    const uint64_t V = GR_PTE_VALID, W = GR_PTE_WRITABLE, S = GR_PTE_SYSTEM;
    pte(PT_L3, 1, PT_L2 | V);
    pte(PT_L2, 0, PT_L1 | V);
    pte(PT_L1, 0, PT_L0 | V);
    pte(PT_L1, 1, PT_64 | V | GR_PTE_PT64);
    pte(PT_L1, 2, PA_2M | V | W | GR_PTE_LEAF);
    pte(PT_L0, 0, PA_4K0 | V | W);
    pte(PT_L0, 1, PA_4K1 | V); /* read-only */
    pte(PT_L0, 2, HSYS | V | W | S);
    pte(PT_64, 0, PA_64K | V | W);
    pte(PT2_L3, 1, PT2_L2 | V);
    pte(PT2_L2, 0, PT2_L1 | V);
    pte(PT2_L1, 0, PA2_2M | V | W | GR_PTE_LEAF);
}

static int setup(void **state)
{
    (void)state;
    memset(host, 0, sizeof host);
    memset(vram, 0, sizeof vram);
    stamp_next = 1000;
    build_tables();
    free(m); /* a test may start over (setup(NULL)) */
    m = calloc(1, sizeof(*m));
    assert_non_null(m);
    gr_dma_ref_init(m, &bus);
    m->ring_base = RING;
    m->fence_addr = FENCE;
    m->enable = true;
    m->mmu_enable = true;
    m->mmu_root = PT_L3;
    ring_fill = 0;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(m);
    m = NULL;
    return 0;
}

static bool g_priv = true;

/* Appends one ring entry and moves TAIL past it. */
static void submit_ex(uint64_t buffer, uint32_t bytes, uint32_t fence, int use_root, uint64_t root,
                      int irq)
{
    uint32_t idx = ring_fill++ & (gr_dma_ref_ring_entries(m) - 1);
    gr_dma_ring_entry(host + (RING - HOST_BASE) + idx * 32u, buffer, bytes, fence, use_root, root, irq);
    if (g_priv) /* the kernel's own entries, unless a test clears it */
        gr_dma_ring_entry_set_priv(host + (RING - HOST_BASE) + idx * 32u);
    m->tail = (idx + 1) & (gr_dma_ref_ring_entries(m) - 1);
}

static void submit(uint64_t buffer, uint32_t bytes, uint32_t fence)
{
    submit_ex(buffer, bytes, fence, 0, 0, 0);
}

/* A command writer over the host buffer at bus address `at`. */
static gr_dma_writer_t cmds(uint64_t at)
{
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, host + (at - HOST_BASE), 4096);
    return w;
}

static uint8_t *H(uint64_t bus_addr)
{
    return host + (bus_addr - HOST_BASE);
}

static uint64_t fence_done(void)
{
    return get(H(FENCE));
}

static void expect_fault(unsigned type, unsigned mmu_type, unsigned write, unsigned entry, uint64_t addr)
{
    assert_true(m->faulted);
    assert_false(m->hung);
    assert_int_equal(GR_DMA_REF_FAULT_TYPE(m->fault_status), type);
    assert_int_equal(GR_DMA_REF_FAULT_MMU_TYPE(m->fault_status), mmu_type);
    assert_int_equal(GR_DMA_REF_FAULT_WRITE(m->fault_status), write);
    assert_int_equal(GR_DMA_REF_FAULT_ENTRY(m->fault_status), entry);
    assert_true(m->fault_addr_known);
    assert_int_equal(m->fault_addr, addr);
    assert_true(m->irq_fault);
}

/* ---- tests ----------------------------------------------------------------------------------- */

static void empty_ring_is_idle_and_writes_nothing(void **state)
{
    (void)state;
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(m->head, 0);
    assert_int_equal(fence_done(), 0);
    assert_int_equal(m->perf_cmds, 0);
}

static void enable_clear_runs_nothing(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_nop(&w);
    submit(BUF0, (uint32_t)w.used, 5);
    m->enable = false;
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(m->head, 0);
    assert_int_equal(fence_done(), 0);
    m->enable = true;
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(m->head, 1);
    assert_int_equal(fence_done(), 5);
}

static void nop_entry_writes_its_fence_and_advances_head(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_nop(&w);
    gr_dma_nop(&w);
    submit(BUF0, (uint32_t)w.used, 0xdeadbeef);
    submit(BUF0, 0, 0x11); /* no commands: completes at once */
    put(H(FENCE) + 8, 0x5555);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(m->head, 2);
    assert_int_equal(m->completed_fence, 0x11);
    assert_int_equal(fence_done(), 0x11);
    assert_int_equal(get(H(FENCE) + 8), 0x5555); /* the preemption qword is left alone */
    assert_int_equal(m->perf_cmds, 2);
    assert_int_equal(m->perf_bytes_min, 0);
    assert_false(m->irq_fence);
}

static void fence_id_is_zero_extended(void **state)
{
    (void)state;
    put(H(FENCE), UINT64_MAX);
    submit(BUF0, 0, 0xfffffffe);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(get(H(FENCE)), UINT64_C(0x00000000fffffffe));
}

static void entry_irq_flag_raises_dma_fence(void **state)
{
    (void)state;
    submit_ex(BUF0, 0, 1, 0, 0, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_true(m->irq_fence);
}

static void fill_repeats_the_pattern_little_endian(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_fill(&w, GR_DMA_SPACE_HOST, HDATA + 8, 24, 0xaabbccdd);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    static const uint8_t want[32] = {0, 0, 0, 0, 0, 0, 0, 0,
                                     0xdd, 0xcc, 0xbb, 0xaa, 0xdd, 0xcc, 0xbb, 0xaa,
                                     0xdd, 0xcc, 0xbb, 0xaa, 0xdd, 0xcc, 0xbb, 0xaa,
                                     0xdd, 0xcc, 0xbb, 0xaa, 0xdd, 0xcc, 0xbb, 0xaa};
    assert_memory_equal(H(HDATA), want, 32);
    assert_int_equal(get(H(HDATA) + 32), 0);
    assert_int_equal(m->perf_bytes_min, 24);
    assert_int_equal(m->perf_bytes_max, 24);
    assert_int_equal(m->perf_cmds, 1);
}

static void copy_vram_to_host_across_a_page_boundary(void **state)
{
    (void)state;
    for (unsigned i = 0; i < 0x3000; i++)
        vram[0x200000 + i] = (uint8_t)(i * 7 + 3);
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_copy(&w, GR_DMA_SPACE_VRAM, 0x200ff8, GR_DMA_SPACE_HOST, HDATA + 0x800, 0x1010);
    gr_dma_copy(&w, GR_DMA_SPACE_VRAM, 0x200000, GR_DMA_SPACE_HOST, HDATA, 0); /* size 0: nothing */
    submit(BUF0, (uint32_t)w.used, 2);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_memory_equal(H(HDATA) + 0x800, vram + 0x200ff8, 0x1010);
    assert_int_equal(H(HDATA)[0x7ff], 0);
    assert_int_equal(H(HDATA)[0x1810], 0);
    assert_int_equal(H(HDATA)[0], 0);
    assert_int_equal(m->perf_bytes_min, 0x1010);
    assert_int_equal(m->perf_cmds, 2);
}

static void fence_command_writes_its_value_and_irq(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_fence(&w, GR_DMA_SPACE_VRAM, 0x200008, UINT64_C(0x0123456789abcdef), 0);
    submit(BUF0, (uint32_t)w.used, 3);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(get(vram + 0x200008), UINT64_C(0x0123456789abcdef));
    assert_false(m->irq_fence);
    w = cmds(BUF1);
    gr_dma_fence(&w, GR_DMA_SPACE_HOST, HDATA, 9, 1);
    submit(BUF1, (uint32_t)w.used, 4);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(get(H(HDATA)), 9);
    assert_true(m->irq_fence);
    assert_int_equal(m->perf_bytes_min, 0); /* FENCE bytes are not COPY/FILL bytes */
}

static void timestamps_take_the_counter_in_order(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_timestamp(&w, GR_DMA_SPACE_HOST, HDATA);
    gr_dma_timestamp(&w, GR_DMA_SPACE_VRAM, 0x200010);
    submit(BUF0, (uint32_t)w.used, 3);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(get(H(HDATA)), 1010);
    assert_int_equal(get(vram + 0x200010), 1020);
    assert_int_equal(m->stamp_count, 2);
    assert_int_equal(m->stamps[0].port, GR_DMA_REF_HOST);
    assert_int_equal(m->stamps[0].addr, HDATA);
    assert_int_equal(m->stamps[1].port, GR_DMA_REF_VRAM);
    assert_int_equal(m->stamps[1].addr, 0x200010);
    assert_int_equal(m->perf_cmds, 2);
}

static void indirect_runs_its_buffer_then_continues(void **state)
{
    (void)state;
    gr_dma_writer_t in = cmds(BUF1);
    gr_dma_fill(&in, GR_DMA_SPACE_HOST, HDATA, 8, 0x11111111);
    gr_dma_fill(&in, GR_DMA_SPACE_HOST, HDATA + 8, 8, 0x22222222);
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_fill(&w, GR_DMA_SPACE_HOST, HDATA, 16, 0x33333333);
    gr_dma_indirect(&w, BUF1, (uint32_t)in.used);
    gr_dma_fill(&w, GR_DMA_SPACE_HOST, HDATA + 8, 8, 0x44444444);
    submit(BUF0, (uint32_t)w.used, 5);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(get(H(HDATA)), UINT64_C(0x1111111111111111));
    assert_int_equal(get(H(HDATA) + 8), UINT64_C(0x4444444444444444));
    /* 2 outer FILLs + the INDIRECT + its 2 FILLs */
    assert_int_equal(m->perf_cmds, 5);
    assert_int_equal(m->perf_bytes_min, 40);
}

static void tlb_invalidate_is_a_command_with_no_memory_effect(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_tlb_invalidate(&w);
    submit(BUF0, (uint32_t)w.used, 6);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(m->perf_cmds, 1);
    assert_int_equal(fence_done(), 6);
}

static void gpu_va_reaches_every_page_size_and_system_pages(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, VA_4K + 0x10, 8, 0x01010101);
    gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, VA_4K + 0x2020, 8, 0x02020202);   /* SYSTEM page */
    gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, VA_64K + 0xfff8, 8, 0x03030303);  /* end of the 64K page */
    gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, VA_2M + 0x1ffff8, 8, 0x04040404); /* end of the 2M page */
    gr_dma_copy(&w, GR_DMA_SPACE_GPUVA, VA_4K + 0x1000, GR_DMA_SPACE_GPUVA, VA_2M + 0x100, 16);
    submit(BUF0, (uint32_t)w.used, 7);
    for (unsigned i = 0; i < 16; i++)
        vram[PA_4K1 + i] = (uint8_t)(0xa0 + i); /* the read-only page is readable */
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(get(vram + PA_4K0 + 0x10), UINT64_C(0x0101010101010101));
    assert_int_equal(get(H(HSYS) + 0x20), UINT64_C(0x0202020202020202));
    assert_int_equal(get(vram + PA_64K + 0xfff8), UINT64_C(0x0303030303030303));
    assert_int_equal(get(vram + PA_2M + 0x1ffff8), UINT64_C(0x0404040404040404));
    assert_memory_equal(vram + PA_2M + 0x100, vram + PA_4K1, 16);
    assert_false(m->mc_fault_valid);
}

static void mmu_off_makes_gpu_va_physical_unless_the_entry_uses_its_root(void **state)
{
    (void)state;
    m->mmu_enable = false;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, 0x300000, 8, 0x55555555); /* VA == VRAM address */
    submit(BUF0, (uint32_t)w.used, 1);
    gr_dma_writer_t w2 = cmds(BUF1);
    gr_dma_fill(&w2, GR_DMA_SPACE_GPUVA, VA_4K + 0x18, 8, 0x66666666);
    submit_ex(BUF1, (uint32_t)w2.used, 2, 1, PT2_L3, 0); /* translated through PT2 */
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(get(vram + 0x300000), UINT64_C(0x5555555555555555));
    assert_int_equal(get(vram + PA2_2M + 0x18), UINT64_C(0x6666666666666666));
    assert_int_equal(get(vram + PA_4K0 + 0x18), 0);
}

static void use_root_entry_does_not_change_the_next_entrys_space(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, VA_4K, 8, 0x77777777);
    submit_ex(BUF0, (uint32_t)w.used, 1, 1, PT2_L3, 0);
    submit(BUF0, (uint32_t)w.used, 2); /* through MMU_ROOT */
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(get(vram + PA2_2M), UINT64_C(0x7777777777777777));
    assert_int_equal(get(vram + PA_4K0), UINT64_C(0x7777777777777777));
}

static void write_to_read_only_page_faults_mmu_type_2(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_fill(&w, GR_DMA_SPACE_HOST, HDATA, 8, 0x12121212);
    gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, VA_4K + 0xff0, 0x20, 0x34343434); /* into the RO page */
    gr_dma_nop(&w);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    expect_fault(GR_DMA_FAULT_MMU, 2, 1, 0, VA_4K + 0x1000);
    assert_int_equal(m->stop_done_min, 0);
    assert_int_equal(m->stop_done_max, 16);
    assert_true(m->mc_fault_valid);
    assert_int_equal(m->mc_fault_type, 2);
    assert_true(m->mc_fault_write);
    assert_int_equal(m->mc_fault_addr, VA_4K + 0x1000);
    assert_int_equal(m->mc_fault_count, 1);
    /* Nothing completes: no fence, HEAD stays, the first FILL counted. */
    assert_int_equal(m->head, 0);
    assert_int_equal(fence_done(), 0);
    assert_int_equal(m->perf_cmds, 1);
    assert_int_equal(get(H(HDATA)), UINT64_C(0x1212121212121212));
    /* The 16 bytes before the fault may or may not be written; the model holds them written. */
    assert_int_equal(get(vram + PA_4K0 + 0xff0), UINT64_C(0x3434343434343434));
    uint8_t other = 0xff;
    assert_true(gr_dma_ref_maybe_byte(m, GR_DMA_REF_VRAM, PA_4K0 + 0xff0, &other));
    assert_int_equal(other, 0);
    assert_true(gr_dma_ref_maybe_byte(m, GR_DMA_REF_VRAM, PA_4K0 + 0xfff, NULL));
    assert_false(gr_dma_ref_maybe_byte(m, GR_DMA_REF_VRAM, PA_4K0 + 0xfef, NULL));
    assert_false(gr_dma_ref_maybe_byte(m, GR_DMA_REF_VRAM, PA_4K1, NULL));
    assert_int_equal(get(vram + PA_4K1), 0);
    assert_int_equal(m->perf_bytes_min, 8);
    assert_int_equal(m->perf_bytes_max, 8 + 16);
    /* Nothing more runs until an engine reset. */
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    assert_int_equal(gr_dma_ref_preempt(m), -1);
}

static void unmapped_read_faults_mmu_type_1_with_read_direction(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_copy(&w, GR_DMA_SPACE_GPUVA, VA_4K + 0x3008, GR_DMA_SPACE_HOST, HDATA, 8);
    submit(BUF0, 0, 1);
    submit(BUF0, (uint32_t)w.used, 2);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    expect_fault(GR_DMA_FAULT_MMU, 1, 0, 1, VA_4K + 0x3008);
    assert_int_equal(m->head, 1);
    assert_int_equal(fence_done(), 1);
    assert_int_equal(m->mc_fault_type, 1);
    assert_false(m->mc_fault_write);
    assert_int_equal(m->maybe_count, 0);
}

static void unmapped_64k_slot_and_table_beyond_vram_fault(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, VA_64K + 0x10000, 8, 1);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    expect_fault(GR_DMA_FAULT_MMU, 1, 1, 0, VA_64K + 0x10000);

    /* A next-table address in VRAM's space but past the memory: the read errors, type 3. */
    setup(NULL);
    pte(PT_L1, 3, 0x20000000u | GR_PTE_VALID);
    w = cmds(BUF0);
    gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, VA_4K + 0x600000, 8, 1);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    expect_fault(GR_DMA_FAULT_MMU, 3, 1, 0, VA_4K + 0x600000);
    assert_int_equal(m->mc_fault_type, 3);
}

static void mc_log_keeps_the_first_fault(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, VA_4K + 0x1000, 8, 1);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    gr_dma_ref_engine_reset(m);
    w = cmds(BUF1);
    gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, VA_4K + 0x3000, 8, 1);
    submit(BUF1, (uint32_t)w.used, 2);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    expect_fault(GR_DMA_FAULT_MMU, 1, 1, 1, VA_4K + 0x3000);
    assert_int_equal(m->mc_fault_type, 2);
    assert_int_equal(m->mc_fault_addr, VA_4K + 0x1000);
    assert_int_equal(m->mc_fault_count, 2);
}

static void vpr_copy_out_faults_at_the_first_protected_qword(void **state)
{
    (void)state;
    m->vpr_enable = true;
    m->vpr_base = 0x201000;
    m->vpr_limit = 0x203000;
    for (unsigned i = 0; i < 0x3000; i++)
        vram[0x200000 + i] = (uint8_t)(i + 1);
    gr_dma_writer_t w = cmds(BUF0);
    /* inside to inside: fine */
    gr_dma_copy(&w, GR_DMA_SPACE_VRAM, 0x201000, GR_DMA_SPACE_VRAM, 0x202000, 0x100);
    /* outside to outside, then into the VPR: fine */
    gr_dma_copy(&w, GR_DMA_SPACE_VRAM, 0x200000, GR_DMA_SPACE_VRAM, 0x202800, 0x100);
    /* from before the VPR into it, out to the host: faults at 0x201000 */
    gr_dma_copy(&w, GR_DMA_SPACE_VRAM, 0x200f00, GR_DMA_SPACE_HOST, HDATA + 0xf00, 0x200);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    expect_fault(GR_DMA_FAULT_VPR_COPY, 0, 0, 0, 0x201000);
    assert_memory_equal(vram + 0x202000, vram + 0x201000, 0x100);
    assert_memory_equal(vram + 0x202800, vram + 0x200000, 0x100);
    assert_true(m->mc_fault_valid);
    assert_int_equal(m->mc_fault_type, 4);
    assert_int_equal(m->mc_fault_addr, 0x201000);
    /* the part before the VPR page may have been copied; nothing of the protected page was */
    assert_true(gr_dma_ref_maybe_byte(m, GR_DMA_REF_HOST, HDATA + 0xf00, NULL));
    assert_false(gr_dma_ref_maybe_byte(m, GR_DMA_REF_HOST, HDATA + 0x1000, NULL));
    assert_int_equal(H(HDATA)[0x1000], 0);
    assert_int_equal(m->stop_done_max, 0x100);
}

static void vpr_copy_out_through_a_gpu_va_reports_the_va(void **state)
{
    (void)state;
    m->vpr_enable = true;
    m->vpr_base = PA_64K;
    m->vpr_limit = PA_64K + 0x10000;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_copy(&w, GR_DMA_SPACE_GPUVA, VA_64K + 0x100, GR_DMA_SPACE_GPUVA, VA_4K + 0x2100, 8);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    expect_fault(GR_DMA_FAULT_VPR_COPY, 0, 0, 0, VA_64K + 0x100);
    assert_int_equal(m->mc_fault_addr, VA_64K + 0x100);
    /* VPR off: the same copy runs */
    setup(NULL);
    w = cmds(BUF0);
    gr_dma_copy(&w, GR_DMA_SPACE_GPUVA, VA_64K + 0x100, GR_DMA_SPACE_GPUVA, VA_4K + 0x2100, 8);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
}

static void read_bus_error_reports_the_address_as_given(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_copy(&w, GR_DMA_SPACE_HOST, HEND - 0x10, GR_DMA_SPACE_VRAM, 0x200000, 0x20);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    expect_fault(GR_DMA_FAULT_BUS, 0, 0, 0, HEND);
    assert_false(m->mc_fault_valid); /* not an MMU or VPR fault */
    assert_true(gr_dma_ref_maybe_byte(m, GR_DMA_REF_VRAM, 0x200000, NULL));
    assert_false(gr_dma_ref_maybe_byte(m, GR_DMA_REF_VRAM, 0x200010, NULL));
    assert_int_equal(m->perf_cmds, 0);
    assert_int_equal(m->perf_cmds_max, 0);
}

static void write_bus_error_keeps_the_bytes_before_it(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_fill(&w, GR_DMA_SPACE_HOST, HEND - 0x18, 0x40, 0x99999999);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    expect_fault(GR_DMA_FAULT_BUS, 0, 1, 0, HEND);
    assert_int_equal(get(H(HEND - 0x18)), UINT64_C(0x9999999999999999));
    assert_int_equal(get(H(HEND - 0x8)), UINT64_C(0x9999999999999999));
    assert_int_equal(m->maybe_count, 0);
    assert_int_equal(m->perf_bytes_min, 0x18);
    assert_int_equal(m->perf_bytes_max, 0x40);
    assert_int_equal(m->perf_cmds, 0);
    assert_int_equal(m->perf_cmds_max, 1);
    assert_int_equal(m->stop_done_min, 0x18);
    assert_int_equal(m->stop_done_max, 0x40);
    /* the engine may have moved on to the end of the buffer before the response came */
    gr_dma_ref_engine_reset(m);
    assert_int_equal(m->stop_offset, 0);
    assert_int_equal(m->stop_offset_max, 24);
}

static void fetch_bus_errors_report_the_fetch_address(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_nop(&w);
    gr_dma_indirect(&w, HEND + 0x100, 16);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    expect_fault(GR_DMA_FAULT_BUS, 0, 0, 0, HEND + 0x100);
    assert_int_equal(m->perf_cmds, 1);
    /* a ring in no memory: the entry's own address */
    setup(NULL);
    m->ring_base = HEND;
    m->tail = 1;
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    expect_fault(GR_DMA_FAULT_BUS, 0, 0, 0, HEND);
}

static void bad_ring_entries_fault_type_6_and_run_nothing(void **state)
{
    (void)state;
    static const struct {
        unsigned qword;
        uint64_t value;
    } bad[] = {
        {0, BUF0 + 4},              /* misaligned buffer */
        {1, (UINT64_C(7) << 32) | 12}, /* length not a multiple of 8 */
        {2, UINT64_C(1) << 1},      /* reserved bit in qword 2 */
        {2, UINT64_C(1) << 52},     /* above ROOT */
        {3, (UINT64_C(1) << 2) | GR_DMA_ENTRY_PRIV}, /* reserved bit in qword 3 (bit 1 is PRIV) */
        {3, UINT64_C(1) << 63},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setup(NULL);
        gr_dma_writer_t w = cmds(BUF0);
        gr_dma_fill(&w, GR_DMA_SPACE_HOST, HDATA, 8, 0x12345678);
        submit(BUF0, (uint32_t)w.used, 1);
        submit(BUF0, (uint32_t)w.used, 2);
        put(H(RING) + 32 + bad[i].qword * 8, bad[i].value);
        put(H(HDATA), 0);
        assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
        expect_fault(GR_DMA_FAULT_BAD_ENTRY, 0, 0, 1, RING + 32);
        assert_int_equal(m->head, 1);
        assert_int_equal(fence_done(), 1);
        assert_int_equal(m->perf_cmds, 1);
        teardown(NULL);
    }
    setup(NULL);
}

/* An entry without PRIV (a user context's): its commands may name GPU VAs only. A physical
 * space (either side), an INDIRECT, or the entry lacking USE_ROOT is a privilege fault (type 7)
 * at the command's (the entry's) host address; nothing of that command runs, the ones before
 * it did. */
static void unprivileged_entries_fault_type_7_on_physical_spaces_and_indirect(void **state)
{
    (void)state;
    for (unsigned k = 0; k < 6; k++) {
        setup(NULL);
        g_priv = false;
        put(H(HDATA), 0x1111111111111111ull);
        gr_dma_writer_t w = cmds(BUF0);
        gr_dma_nop(&w);
        gr_dma_tlb_invalidate(&w);
        const uint64_t at = BUF0 + w.used;
        switch (k) {
        case 0: gr_dma_fill(&w, GR_DMA_SPACE_VRAM, 0x1000, 64, 0xdeadbeef); break;
        case 1: gr_dma_copy(&w, GR_DMA_SPACE_HOST, HDATA, GR_DMA_SPACE_GPUVA, 0x1000, 8); break;
        case 2: gr_dma_fence(&w, GR_DMA_SPACE_HOST, HDATA, 7, 0); break;
        case 3: gr_dma_wait(&w, GR_DMA_SPACE_VRAM, 0, 0); break;
        case 4: gr_dma_timestamp(&w, GR_DMA_SPACE_HOST, HDATA); break;
        default: gr_dma_indirect(&w, BUF1, 8); break;
        }
        put(H(BUF1), gr_dma_header(GR_DMA_OP_FENCE, 0, GR_DMA_SPACE_HOST, 0, 0));
        submit_ex(BUF0, (uint32_t)w.used, 1, 1, 0x1000, 0);
        assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
        expect_fault(GR_DMA_FAULT_PRIVILEGE, 0, 0, 0, at);
        assert_int_equal(m->head, 0);
        assert_int_equal(get(H(HDATA)), 0x1111111111111111ull);
        assert_int_equal(m->perf_cmds, 2); /* the NOP and the TLB_INVALIDATE ran */
        g_priv = true;
    }
    /* without USE_ROOT, at the entry, before any command */
    setup(NULL);
    g_priv = false;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_nop(&w);
    submit_ex(BUF0, (uint32_t)w.used, 1, 0, 0, 0);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    expect_fault(GR_DMA_FAULT_PRIVILEGE, 0, 0, 0, RING);
    assert_int_equal(m->perf_cmds, 0);
    g_priv = true;
}

static void bad_commands_fault_type_4_at_the_command(void **state)
{
    (void)state;
    const uint64_t nop = gr_dma_header(GR_DMA_OP_NOP, 0, 0, 0, 0);
    struct {
        uint64_t q[4];
        unsigned n;
        const char *what;
    } bad[] = {
        {{0x08}, 1, "unknown opcode"},
        {{0xff}, 1, "unknown opcode 0xff"},
        {{nop | (1u << 13)}, 1, "reserved header bit"},
        {{nop | (1u << 31)}, 1, "reserved header bit 31"},
        {{nop | GR_DMA_HDR_IRQ}, 1, "IRQ on a NOP"},
        {{gr_dma_header(GR_DMA_OP_NOP, 1, 0, 0, 0)}, 1, "NOP with a source space"},
        {{gr_dma_header(GR_DMA_OP_FILL, 2, 1, 0, 0), 0x200000, 8}, 3, "FILL with a source space"},
        {{gr_dma_header(GR_DMA_OP_COPY, 3, 1, 0, 0), 0, 0x200000, 8}, 4, "space 3"},
        {{gr_dma_header(GR_DMA_OP_COPY, 1, 1, 0, 0), 0x4, 0x200000, 8}, 4, "COPY source misaligned"},
        {{gr_dma_header(GR_DMA_OP_COPY, 1, 1, 0, 0), 0x0, 0x200004, 8}, 4, "COPY destination misaligned"},
        {{gr_dma_header(GR_DMA_OP_COPY, 1, 1, 0, 0), 0x0, 0x200000, 12}, 4, "COPY size"},
        {{gr_dma_header(GR_DMA_OP_FILL, 0, 1, 0, 0), 0x200000, 4}, 3, "FILL size"},
        {{gr_dma_header(GR_DMA_OP_FENCE, 0, 1, 0, 0), 0x200004, 1}, 3, "FENCE misaligned"},
        {{gr_dma_header(GR_DMA_OP_TIMESTAMP, 0, 1, 0, 0), 0x200002}, 2, "TIMESTAMP misaligned"},
        {{gr_dma_header(GR_DMA_OP_WAIT, 1, 0, 0, 0), 0x200001, 0}, 3, "WAIT misaligned"},
        {{gr_dma_header(GR_DMA_OP_INDIRECT, 0, 0, 0, 0), BUF1 + 4, 8}, 3, "INDIRECT misaligned"},
        {{gr_dma_header(GR_DMA_OP_INDIRECT, 0, 0, 0, 0), BUF1, 12}, 3, "INDIRECT length"},
        {{gr_dma_header(GR_DMA_OP_INDIRECT, 0, 2, 0, 0), BUF1, 8}, 3, "INDIRECT with a space"},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setup(NULL);
        gr_dma_writer_t w = cmds(BUF0);
        gr_dma_nop(&w);
        size_t at = w.used;
        gr_dma_emit(&w, bad[i].q, bad[i].n);
        gr_dma_fill(&w, GR_DMA_SPACE_HOST, HDATA, 8, 0x12345678);
        submit(BUF0, (uint32_t)w.used, 1);
        gr_dma_ref_result_t r = gr_dma_ref_run(m, NULL);
        if (r != GR_DMA_REF_FAULT || GR_DMA_REF_FAULT_TYPE(m->fault_status) != GR_DMA_FAULT_BAD_CMD ||
            m->fault_addr != BUF0 + at)
            fail_msg("%s: result %d status 0x%x addr 0x%llx", bad[i].what, r, m->fault_status,
                     (unsigned long long)m->fault_addr);
        assert_int_equal(get(H(HDATA)), 0); /* the command after it never runs */
        assert_int_equal(m->perf_cmds, 1);
        assert_int_equal(m->stop_done_max, 0);
        teardown(NULL);
    }
    setup(NULL);
}

static void command_must_fit_in_its_buffer(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_nop(&w);
    gr_dma_copy(&w, GR_DMA_SPACE_VRAM, 0x200000, GR_DMA_SPACE_VRAM, 0x201000, 8);
    submit(BUF0, (uint32_t)w.used - 8, 1); /* the COPY's last qword is outside */
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    expect_fault(GR_DMA_FAULT_BAD_CMD, 0, 0, 0, BUF0 + 8);
}

static void nested_indirect_is_a_bad_command_inside_it(void **state)
{
    (void)state;
    gr_dma_writer_t in = cmds(BUF1);
    gr_dma_nop(&in);
    gr_dma_indirect(&in, BUF2, 8);
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_nop(&w);
    gr_dma_indirect(&w, BUF1, (uint32_t)in.used);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_FAULT);
    expect_fault(GR_DMA_FAULT_BAD_CMD, 0, 0, 0, BUF1 + 8);
    assert_int_equal(m->perf_cmds, 2); /* the outer NOP and the inner NOP */
    gr_dma_ref_engine_reset(m);
    assert_int_equal(m->stop_offset, 8); /* the INDIRECT's offset in the entry's buffer */
}

static void wait_passes_when_the_value_is_reached(void **state)
{
    (void)state;
    put(H(HDATA), 100);
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_wait(&w, GR_DMA_SPACE_HOST, HDATA, 100);
    gr_dma_fence(&w, GR_DMA_SPACE_HOST, HDATA + 8, 200, 0);
    gr_dma_wait(&w, GR_DMA_SPACE_HOST, HDATA + 8, 150); /* satisfied by the FENCE before it */
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(m->perf_cmds, 3);
}

static void wait_compares_unsigned(void **state)
{
    (void)state;
    put(H(HDATA), UINT64_C(0x8000000000000000));
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_wait(&w, GR_DMA_SPACE_HOST, HDATA, 1);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
}

static void wait_never_satisfied_hangs_then_reset_removes_the_entries(void **state)
{
    (void)state;
    put(H(HDATA), 5);
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_fill(&w, GR_DMA_SPACE_HOST, HDATA + 8, 8, 0x10101010);
    gr_dma_wait(&w, GR_DMA_SPACE_HOST, HDATA, 6);
    gr_dma_fill(&w, GR_DMA_SPACE_HOST, HDATA + 16, 8, 0x20202020);
    submit(BUF0, 0, 1);
    submit(BUF0, (uint32_t)w.used, 2);
    submit(BUF0, 0, 3);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_HANG);
    assert_true(m->hung);
    assert_false(m->faulted);
    assert_int_equal(GR_DMA_REF_FAULT_TYPE(m->fault_status), GR_DMA_FAULT_HANG);
    assert_int_equal(GR_DMA_REF_FAULT_ENTRY(m->fault_status), 1);
    assert_false(m->fault_addr_known);
    assert_true(m->irq_fault);
    assert_int_equal(m->head, 1);
    assert_int_equal(get(H(HDATA) + 16), 0);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_HANG);

    gr_dma_ref_engine_reset(m);
    assert_false(m->hung);
    assert_int_equal(m->stop_head, 1);
    assert_int_equal(m->stop_tail, 3);
    assert_int_equal(m->stop_offset, 24);
    assert_int_equal(m->stop_done_max, 0);
    assert_int_equal(m->head, 3);
    assert_int_equal(fence_done(), 1); /* no fence written by the reset */
    assert_int_equal(get(H(FENCE) + 8), 0);
    assert_false(m->irq_preempted);
    /* the engine runs again */
    submit(BUF0, 0, 4);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(fence_done(), 4);
}

static void wait_with_watchdog_off_is_stuck(void **state)
{
    (void)state;
    m->watchdog = 0;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_wait(&w, GR_DMA_SPACE_HOST, HDATA, 1);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_STUCK);
    assert_false(m->hung);
    assert_false(m->irq_fault);
}

static void preempt_when_idle_completes_at_once(void **state)
{
    (void)state;
    submit(BUF0, 0, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    m->preempt_fence = 0x77;
    assert_int_equal(gr_dma_ref_preempt(m), 0);
    assert_int_equal(m->stop_head, 1);
    assert_int_equal(m->stop_tail, 1);
    assert_int_equal(m->stop_offset, 0);
    assert_int_equal(m->stop_done_max, 0);
    assert_int_equal(m->head, 1);
    assert_int_equal(get(H(FENCE) + 8), 0x77);
    assert_int_equal(fence_done(), 1);
    assert_true(m->preempted);
    assert_true(m->irq_preempted);
    /* the next entry clears PREEMPTED */
    submit(BUF0, 0, 2);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_false(m->preempted);
}

static void preempt_with_entries_queued_and_engine_disabled_removes_them(void **state)
{
    (void)state;
    m->enable = false;
    submit(BUF0, 0, 1);
    submit(BUF0, 0, 2);
    m->preempt_fence = 9;
    assert_int_equal(gr_dma_ref_preempt(m), 0);
    assert_int_equal(m->stop_head, 0);
    assert_int_equal(m->stop_tail, 2);
    assert_int_equal(m->head, 2);
    assert_int_equal(fence_done(), 0);
    assert_int_equal(get(H(FENCE) + 8), 9);
}

static void stop_point_inside_a_copy_copies_the_bytes_before_it(void **state)
{
    (void)state;
    for (unsigned i = 0; i < 0x2000; i++)
        vram[0x200000 + i] = (uint8_t)(i ^ 0x5a);
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_fill(&w, GR_DMA_SPACE_HOST, HDATA + 0x4000, 8, 0x01020304);
    gr_dma_copy(&w, GR_DMA_SPACE_VRAM, 0x200000, GR_DMA_SPACE_HOST, HDATA, 0x2000);
    submit(BUF0, 0, 1);
    submit(BUF0, (uint32_t)w.used, 2);
    submit(BUF0, 0, 3);
    gr_dma_ref_stop_t stop = {.entry = 1, .cmds = 1, .done = 0x180};
    assert_int_equal(gr_dma_ref_run(m, &stop), GR_DMA_REF_STOPPED);
    m->preempt_fence = 0xabc;
    assert_int_equal(gr_dma_ref_preempt(m), 0);
    assert_int_equal(m->stop_head, 1);
    assert_int_equal(m->stop_tail, 3);
    assert_int_equal(m->stop_offset, 24);
    assert_int_equal(m->stop_done_min, 0x180);
    assert_int_equal(m->stop_done_max, 0x180);
    assert_int_equal(m->head, 3);
    assert_memory_equal(H(HDATA), vram + 0x200000, 0x180);
    assert_int_equal(H(HDATA)[0x180], 0);
    assert_int_equal(fence_done(), 1);
    assert_int_equal(get(H(FENCE) + 8), 0xabc);
    assert_int_equal(m->perf_bytes_min, 8 + 0x180);
    assert_int_equal(m->perf_cmds, 1);
}

static void stop_point_after_the_last_burst_keeps_the_command_uncounted(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_fill(&w, GR_DMA_SPACE_HOST, HDATA, 0x100, 0x0a0b0c0d);
    gr_dma_nop(&w);
    submit(BUF0, (uint32_t)w.used, 1);
    gr_dma_ref_stop_t stop = {.entry = 0, .cmds = 0, .done = 0x100};
    assert_int_equal(gr_dma_ref_run(m, &stop), GR_DMA_REF_STOPPED);
    assert_int_equal(m->perf_cmds, 0);
    assert_int_equal(m->perf_bytes_min, 0x100);
    assert_int_equal(get(H(HDATA) + 0xf8), UINT64_C(0x0a0b0c0d0a0b0c0d));
    assert_int_equal(gr_dma_ref_preempt(m), 0);
    assert_int_equal(m->stop_offset, 0);
    assert_int_equal(m->stop_done_min, 0x100);
}

static void stop_points_at_entry_edges(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_nop(&w);
    submit(BUF0, (uint32_t)w.used, 1);
    submit(BUF0, (uint32_t)w.used, 2);
    /* after entry 0's command, before its completion */
    gr_dma_ref_stop_t stop = {.entry = 0, .cmds = 1, .done = 0};
    assert_int_equal(gr_dma_ref_run(m, &stop), GR_DMA_REF_STOPPED);
    assert_int_equal(gr_dma_ref_preempt(m), 0);
    assert_int_equal(m->stop_head, 0);
    assert_int_equal(m->stop_offset, 8);
    assert_int_equal(fence_done(), 0);

    /* after entry 0 completed, before entry 1 */
    setup(NULL);
    w = cmds(BUF0);
    gr_dma_nop(&w);
    submit(BUF0, (uint32_t)w.used, 1);
    submit(BUF0, (uint32_t)w.used, 2);
    stop = (gr_dma_ref_stop_t){.entry = 1, .cmds = 1, .done = 0};
    assert_int_equal(gr_dma_ref_run(m, &stop), GR_DMA_REF_STOPPED);
    assert_int_equal(gr_dma_ref_preempt(m), 0);
    assert_int_equal(m->stop_head, 1);
    assert_int_equal(m->stop_tail, 2);
    assert_int_equal(m->stop_offset, 0);
    assert_int_equal(fence_done(), 1);
}

static void stop_point_inside_an_indirect_reports_the_indirect(void **state)
{
    (void)state;
    gr_dma_writer_t in = cmds(BUF1);
    gr_dma_fill(&in, GR_DMA_SPACE_HOST, HDATA, 8, 0x11111111);
    gr_dma_fill(&in, GR_DMA_SPACE_HOST, HDATA + 0x100, 0x400, 0x22222222);
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_nop(&w);
    gr_dma_indirect(&w, BUF1, (uint32_t)in.used);
    submit(BUF0, (uint32_t)w.used, 1);
    /* NOP and the first inner FILL completed; the second FILL wrote 0x80 bytes */
    gr_dma_ref_stop_t stop = {.entry = 0, .cmds = 2, .done = 0x80};
    assert_int_equal(gr_dma_ref_run(m, &stop), GR_DMA_REF_STOPPED);
    assert_int_equal(gr_dma_ref_preempt(m), 0);
    assert_int_equal(m->stop_offset, 8);
    assert_int_equal(m->stop_done_min, 0x80);
    assert_int_equal(get(H(HDATA) + 0x100 + 0x78), UINT64_C(0x2222222222222222));
    assert_int_equal(get(H(HDATA) + 0x100 + 0x80), 0);
    assert_int_equal(get(H(HDATA)), UINT64_C(0x1111111111111111));
}

static void impossible_stop_points_are_refused(void **state)
{
    (void)state;
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_nop(&w);
    gr_dma_fill(&w, GR_DMA_SPACE_HOST, HDATA, 0x100, 1);
    submit(BUF0, (uint32_t)w.used, 1);
    gr_dma_ref_stop_t bytes_in_a_nop = {.entry = 0, .cmds = 0, .done = 8};
    assert_int_equal(gr_dma_ref_run(m, &bytes_in_a_nop), GR_DMA_REF_BAD_STOP);
    setup(NULL);
    w = cmds(BUF0);
    gr_dma_nop(&w);
    gr_dma_fill(&w, GR_DMA_SPACE_HOST, HDATA, 0x100, 1);
    submit(BUF0, (uint32_t)w.used, 1);
    gr_dma_ref_stop_t past_the_fill = {.entry = 0, .cmds = 1, .done = 0x108};
    assert_int_equal(gr_dma_ref_run(m, &past_the_fill), GR_DMA_REF_BAD_STOP);
    setup(NULL);
    w = cmds(BUF0);
    gr_dma_nop(&w);
    submit(BUF0, (uint32_t)w.used, 1);
    gr_dma_ref_stop_t too_many = {.entry = 0, .cmds = 5, .done = 0};
    assert_int_equal(gr_dma_ref_run(m, &too_many), GR_DMA_REF_BAD_STOP);
}

static void ring_wraps_modulo_its_size(void **state)
{
    (void)state;
    m->ring_log2 = 2; /* 4 entries */
    ring_fill = 3;
    /* HEAD starts at 3 the way the device's would after three entries: run three empty ones */
    for (unsigned i = 0; i < 3; i++) {
        gr_dma_ring_entry(H(RING) + i * 32u, BUF0, 0, 100 + i, 0, 0, 0);
        gr_dma_ring_entry_set_priv(H(RING) + i * 32u);
    }
    m->tail = 3;
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(m->head, 3);
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_fill(&w, GR_DMA_SPACE_HOST, HDATA, 8, 0xcafef00d);
    submit(BUF0, (uint32_t)w.used, 7); /* index 3 */
    submit(BUF0, 0, 8);                /* index 0 */
    assert_int_equal(m->tail, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_int_equal(m->head, 1);
    assert_int_equal(fence_done(), 8);
    assert_int_equal(get(H(HDATA)), UINT64_C(0xcafef00dcafef00d));
}

static void copy_into_host_through_system_va_and_back(void **state)
{
    (void)state;
    for (unsigned i = 0; i < 64; i++)
        vram[PA_64K + 0x40 + i] = (uint8_t)(0x80 | i);
    gr_dma_writer_t w = cmds(BUF0);
    gr_dma_copy(&w, GR_DMA_SPACE_GPUVA, VA_64K + 0x40, GR_DMA_SPACE_GPUVA, VA_4K + 0x2ff0, 16);
    gr_dma_copy(&w, GR_DMA_SPACE_HOST, HSYS + 0xff0, GR_DMA_SPACE_VRAM, 0x300000, 16);
    submit(BUF0, (uint32_t)w.used, 1);
    assert_int_equal(gr_dma_ref_run(m, NULL), GR_DMA_REF_IDLE);
    assert_memory_equal(H(HSYS) + 0xff0, vram + PA_64K + 0x40, 16);
    assert_memory_equal(vram + 0x300000, vram + PA_64K + 0x40, 16);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(empty_ring_is_idle_and_writes_nothing),
        T(enable_clear_runs_nothing),
        T(nop_entry_writes_its_fence_and_advances_head),
        T(fence_id_is_zero_extended),
        T(entry_irq_flag_raises_dma_fence),
        T(fill_repeats_the_pattern_little_endian),
        T(copy_vram_to_host_across_a_page_boundary),
        T(fence_command_writes_its_value_and_irq),
        T(timestamps_take_the_counter_in_order),
        T(indirect_runs_its_buffer_then_continues),
        T(tlb_invalidate_is_a_command_with_no_memory_effect),
        T(gpu_va_reaches_every_page_size_and_system_pages),
        T(mmu_off_makes_gpu_va_physical_unless_the_entry_uses_its_root),
        T(use_root_entry_does_not_change_the_next_entrys_space),
        T(write_to_read_only_page_faults_mmu_type_2),
        T(unmapped_read_faults_mmu_type_1_with_read_direction),
        T(unmapped_64k_slot_and_table_beyond_vram_fault),
        T(mc_log_keeps_the_first_fault),
        T(vpr_copy_out_faults_at_the_first_protected_qword),
        T(vpr_copy_out_through_a_gpu_va_reports_the_va),
        T(read_bus_error_reports_the_address_as_given),
        T(write_bus_error_keeps_the_bytes_before_it),
        T(fetch_bus_errors_report_the_fetch_address),
        T(bad_ring_entries_fault_type_6_and_run_nothing),
        T(unprivileged_entries_fault_type_7_on_physical_spaces_and_indirect),
        T(bad_commands_fault_type_4_at_the_command),
        T(command_must_fit_in_its_buffer),
        T(nested_indirect_is_a_bad_command_inside_it),
        T(wait_passes_when_the_value_is_reached),
        T(wait_compares_unsigned),
        T(wait_never_satisfied_hangs_then_reset_removes_the_entries),
        T(wait_with_watchdog_off_is_stuck),
        T(preempt_when_idle_completes_at_once),
        T(preempt_with_entries_queued_and_engine_disabled_removes_them),
        T(stop_point_inside_a_copy_copies_the_bytes_before_it),
        T(stop_point_after_the_last_burst_keeps_the_command_uncounted),
        T(stop_points_at_entry_edges),
        T(stop_point_inside_an_indirect_reports_the_indirect),
        T(impossible_stop_points_are_refused),
        T(ring_wraps_modulo_its_size),
        T(copy_into_host_through_system_va_and_back),
    };
#undef T
    return cmocka_run_group_tests_name("dma_ref_model", tests, NULL, NULL);
}
