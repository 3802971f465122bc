/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gpuva_sim: the page tables host/dxgk/vidmm/vidmm_gpuva.c builds, walked by the real RTL MMU on
 * sim://. Tables are written through the BAR1 aperture (vidmm_gpuva_dev.c); every check drives
 * the MMU probe (MMU_PROBE_*) and compares its answer with gr_gpuva_lookup(), the fault unit
 * (MC_FAULT_*) and the TLB counters. Usage: test_gpuva_sim [--seed N] (default $GR_TEST_SEED,
 * else 1); the seed picks the bus models' timing and the random VAs and mappings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuref/gr_device.h"
#include "gpuref/gr_regdesc.h"
#include "vidmm_gpuva.h"
#include "vidmm_gpuva_dev.h"

#define K4 UINT64_C(0x1000)
#define K64 UINT64_C(0x10000)
#define M2 UINT64_C(0x200000)
#define PT_OFFSET (UINT64_C(64) << 20) /* table pages: 2 MiB at 64 MiB into the window */
#define PT_BYTES (UINT64_C(2) << 20)

static unsigned long long seed = 1;
static char uri[128];
static unsigned long probes; /* MMU probes driven, for the closing line */

typedef struct fixture {
    gr_device_t *dev;
    gr_gpuva_dev_t *pool;
    gr_gpuva_space_t *space;
    bool hold_invalidate; /* the library's invalidates are swallowed (stale-TLB control) */
    unsigned invalidates; /* the library's invalidate calls */
    uint64_t rng;
} fixture_t;

/* The device's ops, with the invalidate observable and, for one control case, withheld. */
static gr_status_t fx_alloc(void *user, uint64_t *out_pa)
{
    return gr_gpuva_dev_ops.alloc_pt_page(((fixture_t *)user)->pool, out_pa);
}

static void fx_free(void *user, uint64_t pa)
{
    gr_gpuva_dev_ops.free_pt_page(((fixture_t *)user)->pool, pa);
}

static gr_status_t fx_write(void *user, uint64_t pa, const void *src, size_t bytes)
{
    return gr_gpuva_dev_ops.write_vram(((fixture_t *)user)->pool, pa, src, bytes);
}

static gr_status_t fx_read(void *user, uint64_t pa, void *dst, size_t bytes)
{
    return gr_gpuva_dev_ops.read_vram(((fixture_t *)user)->pool, pa, dst, bytes);
}

static gr_status_t fx_invalidate(void *user)
{
    fixture_t *f = user;
    f->invalidates++;
    return f->hold_invalidate ? GR_OK : gr_gpuva_dev_ops.invalidate(f->pool);
}

static const gr_gpuva_ops_t fx_ops = {
    .alloc_pt_page = fx_alloc,
    .free_pt_page = fx_free,
    .write_vram = fx_write,
    .read_vram = fx_read,
    .invalidate = fx_invalidate,
};

static uint64_t rnd(fixture_t *f)
{
    f->rng ^= f->rng << 13;
    f->rng ^= f->rng >> 7;
    f->rng ^= f->rng << 17;
    return f->rng;
}

static uint32_t rd(fixture_t *f, uint32_t reg)
{
    uint32_t v = 0;
    assert_int_equal(gr_reg_read(f->dev, reg, &v), GR_OK);
    return v;
}

static void wr(fixture_t *f, uint32_t reg, uint32_t v)
{
    assert_int_equal(gr_reg_write(f->dev, reg, v), GR_OK);
}

/* ---- the probe ---------------------------------------------------------------------------- */

typedef struct probe {
    bool fault;
    unsigned type;
    uint64_t pa;
    unsigned shift;
    bool system, cacheable;
} probe_t;

static probe_t probe(fixture_t *f, uint64_t va, bool write)
{
    probes++;
    wr(f, GR_REG_MMU_PROBE_VA_LO, (uint32_t)va);
    wr(f, GR_REG_MMU_PROBE_VA_HI, (uint32_t)(va >> 32) & 0xffffu);
    wr(f, GR_REG_MMU_PROBE_CTRL,
       GR_FIELD_SET(MMU_PROBE_CTRL, GO, 1) | GR_FIELD_SET(MMU_PROBE_CTRL, WRITE, write));
    uint32_t st = 0;
    int polls = 0;
    do {
        st = rd(f, GR_REG_MMU_PROBE_STATUS);
        if (++polls > 1000)
            fail_msg("probe of va 0x%llx never finished (status 0x%x, seed %llu)",
                     (unsigned long long)va, st, seed);
    } while (GR_FIELD_GET(MMU_PROBE_STATUS, BUSY, st) || !GR_FIELD_GET(MMU_PROBE_STATUS, DONE, st));
    probe_t p = {
        .fault = GR_FIELD_GET(MMU_PROBE_STATUS, FAULT, st),
        .type = GR_FIELD_GET(MMU_PROBE_STATUS, FAULT_TYPE, st),
        .shift = GR_FIELD_GET(MMU_PROBE_STATUS, PAGE_SHIFT, st),
        .system = GR_FIELD_GET(MMU_PROBE_STATUS, SYSTEM, st),
        .cacheable = GR_FIELD_GET(MMU_PROBE_STATUS, CACHEABLE, st),
    };
    p.pa = rd(f, GR_REG_MMU_PROBE_PA_LO) |
           (uint64_t)GR_FIELD_GET(MMU_PROBE_PA_HI, PA, rd(f, GR_REG_MMU_PROBE_PA_HI)) << 32;
    return p;
}

/* A fault must be held in MC_FAULT_* exactly as the probe saw it; then it is released (W1C). */
static void expect_fault_logged(fixture_t *f, uint64_t va, bool write, unsigned type)
{
    uint32_t st = rd(f, GR_REG_MC_FAULT_STATUS);
    uint64_t addr = rd(f, GR_REG_MC_FAULT_ADDR_LO) |
                    (uint64_t)GR_FIELD_GET(MC_FAULT_ADDR_HI, ADDR, rd(f, GR_REG_MC_FAULT_ADDR_HI))
                        << 32;
    if (!GR_FIELD_GET(MC_FAULT_STATUS, VALID, st) || GR_FIELD_GET(MC_FAULT_STATUS, TYPE, st) != type ||
        GR_FIELD_GET(MC_FAULT_STATUS, SOURCE, st) != 1 ||
        GR_FIELD_GET(MC_FAULT_STATUS, WRITE, st) != write || addr != va)
        fail_msg("MC_FAULT_STATUS 0x%x ADDR 0x%llx after a %s probe of va 0x%llx (type %u "
                 "expected, seed %llu)",
                 st, (unsigned long long)addr, write ? "write" : "read", (unsigned long long)va,
                 type, seed);
    wr(f, GR_REG_MC_FAULT_STATUS, GR_FIELD_SET(MC_FAULT_STATUS, VALID, 1));
    assert_int_equal(GR_FIELD_GET(MC_FAULT_STATUS, VALID, rd(f, GR_REG_MC_FAULT_STATUS)), 0);
}

static void expect_no_fault_logged(fixture_t *f, uint64_t va)
{
    uint32_t st = rd(f, GR_REG_MC_FAULT_STATUS);
    if (GR_FIELD_GET(MC_FAULT_STATUS, VALID, st))
        fail_msg("a fault is held (0x%x) after probing va 0x%llx (seed %llu)", st,
                 (unsigned long long)va, seed);
}

/* Read and write probes of one VA agree with the library's own walk of its tables. */
static void check_va(fixture_t *f, uint64_t va)
{
    uint64_t pa = 0;
    unsigned flags = 0, shift = 0;
    gr_status_t rc = gr_gpuva_lookup(f->space, va, &pa, &flags, &shift);
    for (int write = 0; write <= 1; write++) {
        probe_t p = probe(f, va, write);
        if (rc == GR_E_NOT_FOUND) {
            if (!p.fault || p.type != 1 || p.pa || p.shift)
                fail_msg("%s probe of unmapped va 0x%llx: fault %d type %u pa 0x%llx shift %u "
                         "(seed %llu)",
                         write ? "write" : "read", (unsigned long long)va, p.fault, p.type,
                         (unsigned long long)p.pa, p.shift, seed);
            expect_fault_logged(f, va, write, 1);
            continue;
        }
        assert_int_equal(rc, GR_OK);
        if (write && !(flags & GR_GPUVA_WRITABLE)) {
            if (!p.fault || p.type != 2 || p.pa || p.shift)
                fail_msg("write probe of read-only va 0x%llx: fault %d type %u pa 0x%llx "
                         "(seed %llu)",
                         (unsigned long long)va, p.fault, p.type, (unsigned long long)p.pa, seed);
            expect_fault_logged(f, va, true, 2);
            continue;
        }
        if (p.fault || p.pa != pa || p.shift != shift || p.system != !!(flags & GR_GPUVA_SYSTEM) ||
            p.cacheable != !!(flags & GR_GPUVA_CACHEABLE))
            fail_msg("%s probe of va 0x%llx: fault %d type %u pa 0x%llx shift %u sys %d cache %d; "
                     "tables say pa 0x%llx shift %u flags 0x%x (seed %llu)",
                     write ? "write" : "read", (unsigned long long)va, p.fault, p.type,
                     (unsigned long long)p.pa, p.shift, p.system, p.cacheable,
                     (unsigned long long)pa, shift, flags, seed);
        expect_no_fault_logged(f, va);
    }
}

/* ---- the layout: every page size, writable and read-only, system and cacheable ------------ */

typedef struct layout_map {
    uint64_t va, pa, size;
    unsigned flags;
    unsigned shift; /* the page size the policy must pick */
} layout_map_t;

#define VA_BASE UINT64_C(0x0000004000000000) /* L3 0, L2 256 */
static const layout_map_t layout[] = {
    /* 2 MiB pages, writable, cacheable */
    {VA_BASE, 0x04000000, 2 * M2, GR_GPUVA_WRITABLE | GR_GPUVA_CACHEABLE, 21},
    /* 64 KiB pages (PA not 2 MiB aligned), read-only */
    {VA_BASE + 2 * M2, 0x01230000, M2, 0, 16},
    /* 64 KiB pages with holes in the slot, system + cacheable, host address above 4 GiB */
    {VA_BASE + 3 * M2 + 3 * K64, UINT64_C(0x000abcdef0120000), 5 * K64,
     GR_GPUVA_SYSTEM | GR_GPUVA_CACHEABLE | GR_GPUVA_WRITABLE, 16},
    /* 4 KiB pages (VA only 4 KiB aligned), system, writable */
    {VA_BASE + 4 * M2 + K4, UINT64_C(0x0000000fedcba000), 10 * K4,
     GR_GPUVA_SYSTEM | GR_GPUVA_WRITABLE, 12},
    /* one slot, two mappings: a 64 KiB-aligned one and a 4 KiB one force 4 KiB pages */
    {VA_BASE + 5 * M2, 0x02000000, 4 * K64, GR_GPUVA_WRITABLE | GR_GPUVA_CACHEABLE, 12},
    {VA_BASE + 5 * M2 + 5 * K64 + 3 * K4, 0x03005000, 2 * K4, 0, 12},
    /* DisableLargePageMapping on a 2 MiB-aligned range, in the last slot of the space */
    {UINT64_C(0x0000ffffffe00000), 0x0a000000, M2, GR_GPUVA_WRITABLE | GR_GPUVA_NO_LARGE_PAGES, 12},
    /* a read-only system 2 MiB page at the top of the 52-bit bus, in another L3 entry */
    {UINT64_C(0x0000008000000000), UINT64_C(0x000fffffffe00000), M2,
     GR_GPUVA_SYSTEM | GR_GPUVA_CACHEABLE, 21},
};
#define LAYOUT_COUNT (sizeof(layout) / sizeof(layout[0]))

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    f->rng = seed * 0x9e3779b97f4a7c15ull + 7;
    if (gr_device_open(uri, 0, &f->dev)) {
        print_error("open %s: %s\n", uri, gr_device_error());
        free(f);
        return -1;
    }
    uint32_t ap_base = 0, ap_size = 0;
    if (gr_reg_read(f->dev, GR_REG_MC_AP_BASE, &ap_base) ||
        gr_reg_read(f->dev, GR_REG_MC_AP_SIZE, &ap_size) || ap_size < PT_OFFSET + PT_BYTES) {
        print_error("aperture base 0x%x size 0x%x: too small for the table pages\n", ap_base,
                    ap_size);
        return -1;
    }
    uint64_t pt_base = ap_base + PT_OFFSET;
    if (gr_gpuva_dev_create(f->dev, pt_base, pt_base + PT_BYTES, &f->pool) ||
        gr_gpuva_create(&fx_ops, f, &f->space))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    gr_status_t rc = gr_gpuva_dev_deactivate(f->dev);
    gr_gpuva_destroy(f->space);
    bool leak = gr_gpuva_dev_free_pages(f->pool) != PT_BYTES / K4;
    gr_gpuva_dev_destroy(f->pool);
    gr_device_close(f->dev);
    free(f);
    return rc || leak ? -1 : 0;
}

static void map_layout(fixture_t *f)
{
    for (size_t i = 0; i < LAYOUT_COUNT; i++) {
        const layout_map_t *m = &layout[i];
        assert_int_equal(gr_gpuva_map(f->space, m->va, m->pa, m->size, m->flags), GR_OK);
    }
    for (size_t i = 0; i < LAYOUT_COUNT; i++) {
        unsigned shift = 0;
        assert_int_equal(gr_gpuva_lookup(f->space, layout[i].va, NULL, NULL, &shift), GR_OK);
        assert_int_equal(shift, layout[i].shift);
    }
    assert_int_equal(gr_gpuva_check(f->space), GR_OK); /* VRAM holds what the shadow says */
    assert_int_equal(gr_gpuva_dev_activate(f->dev, f->space), GR_OK);
}

/* ---- tests -------------------------------------------------------------------------------- */

/* A VA of a layout mapping: the tables say what the mapping said, and the MMU agrees. */
static void check_layout_va(fixture_t *f, const layout_map_t *m, uint64_t va)
{
    uint64_t pa = 0;
    unsigned flags = 0, shift = 0;
    assert_int_equal(gr_gpuva_lookup(f->space, va, &pa, &flags, &shift), GR_OK);
    assert_int_equal(pa, m->pa + (va - m->va));
    assert_int_equal(flags, m->flags & (GR_GPUVA_WRITABLE | GR_GPUVA_SYSTEM | GR_GPUVA_CACHEABLE));
    assert_int_equal(shift, m->shift);
    check_va(f, va);
}

static void probes_translate_every_page_size_as_the_tables_say(void **state)
{
    fixture_t *f = *state;
    map_layout(f);
    for (size_t i = 0; i < LAYOUT_COUNT; i++) {
        const layout_map_t *m = &layout[i];
        uint64_t page = UINT64_C(1) << m->shift;
        check_layout_va(f, m, m->va);
        check_layout_va(f, m, m->va + m->size - 8);
        check_layout_va(f, m, m->va + page - 8 < m->va + m->size ? m->va + page - 8 : m->va + 8);
        if (m->size > page)
            check_layout_va(f, m, m->va + page + 0x18);
        for (int k = 0; k < 8; k++)
            check_layout_va(f, m, m->va + (rnd(f) % m->size & ~UINT64_C(7)));
        check_va(f, m->va - 8); /* the edges: unmapped unless a neighbour is there */
        if (m->va + m->size < (UINT64_C(1) << 48))
            check_va(f, m->va + m->size);
    }
    /* holes: inside the PT64 slot, the 4 KiB slot, empty L1/L2/L3 entries */
    check_va(f, VA_BASE + 3 * M2);
    check_va(f, VA_BASE + 3 * M2 + 9 * K64);
    check_va(f, VA_BASE + 5 * M2 + 4 * K64);
    check_va(f, VA_BASE + 64 * M2);
    check_va(f, UINT64_C(0x0000000080000000));
    check_va(f, UINT64_C(0x0000500000000000));
    for (int k = 0; k < 32; k++)
        check_va(f, rnd(f) & UINT64_C(0x0000fffffffffff8));
}

static void read_only_write_faults_type_2_with_the_va_logged(void **state)
{
    fixture_t *f = *state;
    map_layout(f);
    uint64_t va = layout[1].va + 0x1234 * 8;
    uint32_t count0 = rd(f, GR_REG_MC_FAULT_COUNT);
    probe_t p = probe(f, va, false);
    assert_false(p.fault);
    assert_int_equal(p.pa, layout[1].pa + 0x1234 * 8);
    p = probe(f, va, true);
    assert_true(p.fault);
    assert_int_equal(p.type, 2);
    /* The first fault is held; a second one is only counted. */
    probe_t q = probe(f, layout[5].va + 8, true);
    assert_int_equal(q.type, 2);
    assert_int_equal(rd(f, GR_REG_MC_FAULT_COUNT), count0 + 2);
    expect_fault_logged(f, va, true, 2);
    /* An unmapped VA faults type 1, read or write. */
    uint64_t hole = VA_BASE + 3 * M2 + 20 * K64 + 0x40;
    p = probe(f, hole, false);
    assert_true(p.fault);
    assert_int_equal(p.type, 1);
    expect_fault_logged(f, hole, false, 1);
    p = probe(f, hole, true);
    assert_int_equal(p.type, 1);
    expect_fault_logged(f, hole, true, 1);
    assert_int_equal(rd(f, GR_REG_MC_FAULT_COUNT), count0 + 4);
}

static void tlb_counters_move_as_hits_and_misses(void **state)
{
    fixture_t *f = *state;
    map_layout(f);
    wr(f, GR_REG_MMU_INVALIDATE, GR_FIELD_SET(MMU_INVALIDATE, ALL, 1));
    uint32_t h0 = rd(f, GR_REG_MMU_TLB_HITS), m0 = rd(f, GR_REG_MMU_TLB_MISSES);
#define EXPECT_COUNTS(dh, dm)                                                  \
    do {                                                                       \
        assert_int_equal(rd(f, GR_REG_MMU_TLB_HITS) - h0, (uint32_t)(dh));     \
        assert_int_equal(rd(f, GR_REG_MMU_TLB_MISSES) - m0, (uint32_t)(dm));   \
    } while (0)
    uint64_t big = layout[0].va;
    assert_false(probe(f, big + 0x100, false).fault);
    EXPECT_COUNTS(0, 1);
    assert_false(probe(f, big + 0x100, false).fault); /* the same page: a hit */
    EXPECT_COUNTS(1, 1);
    assert_false(probe(f, big + M2 - 8, true).fault); /* the same 2 MiB page, a write */
    EXPECT_COUNTS(2, 1);
    assert_false(probe(f, big + M2, false).fault);    /* the next 2 MiB page: a walk */
    EXPECT_COUNTS(2, 2);
    uint64_t small = layout[3].va;
    assert_false(probe(f, small, false).fault);
    assert_false(probe(f, small + K4, false).fault);  /* 4 KiB pages: one walk each */
    assert_false(probe(f, small + 8, false).fault);
    EXPECT_COUNTS(3, 4);
    uint64_t ro = layout[1].va + 3 * K64;
    assert_false(probe(f, ro, false).fault);
    assert_int_equal(probe(f, ro + 8, true).type, 2); /* the write check from the TLB */
    EXPECT_COUNTS(4, 5);
    expect_fault_logged(f, ro + 8, true, 2);
    uint64_t hole = VA_BASE + 64 * M2;
    assert_int_equal(probe(f, hole, false).type, 1);
    assert_int_equal(probe(f, hole, false).type, 1);  /* faults are never cached */
    EXPECT_COUNTS(4, 7);
    expect_fault_logged(f, hole, false, 1);
    wr(f, GR_REG_MMU_INVALIDATE, GR_FIELD_SET(MMU_INVALIDATE, ALL, 1));
    assert_false(probe(f, big + 0x100, false).fault); /* walked again after an invalidate */
    EXPECT_COUNTS(4, 8);
#undef EXPECT_COUNTS
}

static void unmap_and_invalidate_reach_the_tlb(void **state)
{
    fixture_t *f = *state;
    map_layout(f);
    const layout_map_t *m = &layout[0];
    uint64_t va = m->va + M2 + 0x777 * 8;
    probe_t p = probe(f, va, false);
    assert_false(p.fault);
    assert_int_equal(p.pa, m->pa + M2 + 0x777 * 8);

    /* Control: with the invalidate withheld, the TLB still answers for the unmapped page. */
    unsigned inv = f->invalidates;
    f->hold_invalidate = true;
    assert_int_equal(gr_gpuva_unmap(f->space, m->va, m->size), GR_OK);
    f->hold_invalidate = false;
    assert_int_equal(f->invalidates, inv + 1);
    uint32_t hits = rd(f, GR_REG_MMU_TLB_HITS);
    p = probe(f, va, false);
    assert_false(p.fault);
    assert_int_equal(p.pa, m->pa + M2 + 0x777 * 8);
    assert_int_equal(rd(f, GR_REG_MMU_TLB_HITS), hits + 1);
    /* The library's invalidate (the op it was given) makes the VA fault. */
    assert_int_equal(gr_gpuva_dev_ops.invalidate(f->pool), GR_OK);
    p = probe(f, va, false);
    assert_true(p.fault);
    assert_int_equal(p.type, 1);
    expect_fault_logged(f, va, false, 1);

    /* The ordinary path: map elsewhere, cache it, unmap, fault at once. */
    assert_int_equal(gr_gpuva_map(f->space, m->va, 0x06000000, m->size, GR_GPUVA_WRITABLE), GR_OK);
    p = probe(f, va, true);
    assert_false(p.fault);
    assert_int_equal(p.pa, 0x06000000 + M2 + 0x777 * 8);
    assert_int_equal(gr_gpuva_unmap(f->space, m->va, m->size), GR_OK);
    p = probe(f, va, true);
    assert_int_equal(p.type, 1);
    expect_fault_logged(f, va, true, 1);

    /* protect: a cached writable page becomes read-only (a read-only open). */
    const layout_map_t *w = &layout[4];
    assert_false(probe(f, w->va + 8, true).fault);
    assert_int_equal(gr_gpuva_protect(f->space, w->va, w->size, GR_GPUVA_CACHEABLE), GR_OK);
    p = probe(f, w->va + 8, true);
    assert_int_equal(p.type, 2);
    expect_fault_logged(f, w->va + 8, true, 2);
    p = probe(f, w->va + 8, false);
    assert_false(p.fault);
    assert_true(p.cacheable);
}

static void a_4k_piece_turns_a_cached_64k_slot_to_4k_pages(void **state)
{
    fixture_t *f = *state;
    map_layout(f);
    const layout_map_t *m = &layout[2]; /* 64 KiB pages, holes around */
    uint64_t va = m->va + K64 + 5 * K4 + 0x10;
    probe_t p = probe(f, va, false);
    assert_int_equal(p.shift, 16);
    unsigned inv = f->invalidates;
    assert_int_equal(gr_gpuva_map(f->space, m->va + 6 * K64 + K4, 0x03000000, K4, 0), GR_OK);
    assert_int_equal(f->invalidates, inv + 1);
    p = probe(f, va, false);
    assert_false(p.fault);
    assert_int_equal(p.shift, 12);
    assert_int_equal(p.pa, m->pa + K64 + 5 * K4 + 0x10);
    check_va(f, m->va + 6 * K64 + K4 + 0x20);
    assert_int_equal(gr_gpuva_unmap(f->space, m->va + 6 * K64 + K4, K4), GR_OK);
    assert_int_equal(probe(f, va, false).shift, 16);
    check_va(f, m->va + 6 * K64 + K4 + 0x20);
    assert_int_equal(gr_gpuva_check(f->space), GR_OK);
}

/* A seeded walk of maps and unmaps on the live MMU; each step probed against the tables. */
static void random_maps_and_unmaps_probe_as_the_tables_say(void **state)
{
    fixture_t *f = *state;
    assert_int_equal(gr_gpuva_dev_activate(f->dev, f->space), GR_OK);
    struct {
        uint64_t va, size;
    } live[16];
    unsigned n = 0;
    static const uint64_t grain[] = {K4, K64, M2};
    const uint64_t vram = rd(f, GR_REG_MC_VRAM_SIZE_LO) | (uint64_t)rd(f, GR_REG_MC_VRAM_SIZE_HI) << 32;
    for (int step = 0; step < 120; step++) {
        if (n == 16 || (n && rnd(f) % 3 == 0)) {
            unsigned i = (unsigned)(rnd(f) % n);
            uint64_t probe_va = live[i].va + (rnd(f) % live[i].size & ~UINT64_C(7));
            check_va(f, probe_va); /* cached (or not) before the unmap */
            assert_int_equal(gr_gpuva_unmap(f->space, live[i].va, live[i].size), GR_OK);
            check_va(f, probe_va); /* must fault now */
            live[i] = live[--n];
            continue;
        }
        uint64_t g = grain[rnd(f) % 3];
        uint64_t va = VA_BASE + (rnd(f) % (8 * M2) & ~(g - 1));
        uint64_t size = g * (1 + rnd(f) % (g == M2 ? 2 : 20)) + (rnd(f) % 4 ? 0 : K4);
        unsigned flags = (unsigned)(rnd(f) % 16);
        /* A VRAM page lies inside MC_VRAM_SIZE (past it the MMU answers a decode error); a
         * host page anywhere. */
        uint64_t pa = (rnd(f) % ((flags & GR_GPUVA_SYSTEM) ? UINT64_C(1) << 31 : vram - size)) & ~(g - 1);
        if (flags & GR_GPUVA_SYSTEM)
            pa |= (rnd(f) % 0xfff00) << 32;
        gr_status_t rc = gr_gpuva_map(f->space, va, pa, size, flags);
        if (rc == GR_E_BUSY)
            continue;
        assert_int_equal(rc, GR_OK);
        live[n].va = va;
        live[n].size = size;
        n++;
        check_va(f, va);
        check_va(f, va + size - 8);
        check_va(f, va + (rnd(f) % size & ~UINT64_C(7)));
        for (unsigned i = 0; i < n; i++) /* the others, after any table changes */
            check_va(f, live[i].va + (rnd(f) % live[i].size & ~UINT64_C(7)));
    }
    while (n) {
        assert_int_equal(gr_gpuva_unmap(f->space, live[n - 1].va, live[n - 1].size), GR_OK);
        check_va(f, live[n - 1].va);
        n--;
    }
    gr_gpuva_stats_t st;
    assert_int_equal(gr_gpuva_stats(f->space, &st), GR_OK);
    assert_int_equal(st.table_pages, 1);
    assert_int_equal(gr_gpuva_dev_free_pages(f->pool), PT_BYTES / K4 - 1);
}

static void pool_rejects_ranges_outside_the_window(void **state)
{
    fixture_t *f = *state;
    gr_gpuva_dev_t *pool = (gr_gpuva_dev_t *)(uintptr_t)1;
    uint32_t ap_base = rd(f, GR_REG_MC_AP_BASE), ap_size = rd(f, GR_REG_MC_AP_SIZE);
    uint64_t end = (uint64_t)ap_base + ap_size;
    assert_int_equal(gr_gpuva_dev_create(f->dev, end - K4, end + K4, &pool), GR_E_RANGE);
    assert_int_equal(gr_gpuva_dev_create(f->dev, end, end + K4, &pool), GR_E_RANGE);
    assert_int_equal(gr_gpuva_dev_create(f->dev, ap_base + 8, ap_base + K4, &pool), GR_E_INVALID);
    assert_int_equal(gr_gpuva_dev_create(f->dev, ap_base + K4, ap_base + K4, &pool), GR_E_INVALID);
    assert_ptr_equal(pool, (gr_gpuva_dev_t *)(uintptr_t)1);
    assert_int_equal(gr_gpuva_dev_activate(f->dev, NULL), GR_E_INVALID);
}

int main(int argc, char **argv)
{
    const char *env = getenv("GR_TEST_SEED");
    if (env)
        seed = strtoull(env, NULL, 0);
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
    snprintf(uri, sizeof uri, "sim://?seed=%llu", seed);
    printf("# seed=%llu (replay: test_gpuva_sim --seed %llu)\n", seed, seed);
    fflush(stdout);
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(probes_translate_every_page_size_as_the_tables_say),
        T(read_only_write_faults_type_2_with_the_va_logged),
        T(tlb_counters_move_as_hits_and_misses),
        T(unmap_and_invalidate_reach_the_tlb),
        T(a_4k_piece_turns_a_cached_64k_slot_to_4k_pages),
        T(random_maps_and_unmaps_probe_as_the_tables_say),
        T(pool_rejects_ranges_outside_the_window),
    };
#undef T
    int failed = cmocka_run_group_tests_name("gpuva_sim", tests, NULL, NULL);
    printf("# %lu MMU probes\n", probes);
    return failed;
}
