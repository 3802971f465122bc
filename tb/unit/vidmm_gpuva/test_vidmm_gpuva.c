/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_vidmm_gpuva: host/dxgk/vidmm/vidmm_gpuva.c against an in-memory VRAM, with every translation
 * predicted by the reference walker of tb/models/mmu_ref/ref_walker.c (written from
 * rtl/mc/README.md, not from the library) and the page-size policy restated from
 * vidmm_gpuva.h. Usage: test_vidmm_gpuva [--seed N] [--steps N] (default $GR_TEST_SEED, else 1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ref_walker.h"
#include "vidmm_gpuva.h"

/* The library's entry bits are the format's (the walker has them from rtl/mc/README.md too). */
_Static_assert(GR_GPUVA_PTE_VALID == GR_PTE_VALID && GR_GPUVA_PTE_WRITABLE == GR_PTE_WRITABLE &&
                   GR_GPUVA_PTE_SYSTEM == GR_PTE_SYSTEM && GR_GPUVA_PTE_CACHEABLE == GR_PTE_CACHEABLE &&
                   GR_GPUVA_PTE_LEAF == GR_PTE_LEAF && GR_GPUVA_PTE_PT64 == GR_PTE_PT64 &&
                   GR_GPUVA_PTE_ADDR_MASK == GR_PTE_ADDR_MASK,
               "entry bits differ from rtl/mc/README.md");

/* ---- in-memory VRAM and its table-page pool ------------------------------------------------ */

#define VRAM_BYTES (UINT64_C(24) << 20)
#define PT_BASE (UINT64_C(8) << 20) /* table pages live in [PT_BASE, VRAM_BYTES) */
#define PT_PAGES ((VRAM_BYTES - PT_BASE) / 4096)
#define MIB (UINT64_C(1) << 20)
#define K4 UINT64_C(0x1000)
#define K64 UINT64_C(0x10000)
#define M2 UINT64_C(0x200000)

typedef struct vram {
    uint8_t *mem;
    uint64_t free_pages[PT_PAGES];
    unsigned nfree;
    bool in_use[PT_PAGES];
    unsigned live;        /* table pages handed out */
    unsigned allocs, writes, invalidates;
    int alloc_fail_at;    /* fail the N-th next alloc (0: the next one); -1: never */
    int write_fail_at;    /* likewise for write_vram */
    int inval_fail_at;    /* likewise for invalidate */
    unsigned bad_writes;  /* writes outside a live table page: must stay 0 */
    unsigned bad_frees;   /* frees of pages not handed out: must stay 0 */
    void (*after_write)(struct vram *v); /* runs after every write (see watch_stable) */
} vram_t;

static bool inject(int *at)
{
    if (*at < 0)
        return false;
    if ((*at)-- == 0)
        return true;
    return false;
}

static gr_status_t vram_alloc(void *user, uint64_t *out_pa)
{
    vram_t *v = user;
    if (inject(&v->alloc_fail_at) || !v->nfree)
        return GR_E_NO_MEMORY;
    uint64_t pa = v->free_pages[--v->nfree];
    v->in_use[(pa - PT_BASE) / 4096] = true;
    v->live++;
    v->allocs++;
    *out_pa = pa;
    return GR_OK;
}

static void vram_free(void *user, uint64_t pa)
{
    vram_t *v = user;
    if (pa < PT_BASE || pa >= VRAM_BYTES || (pa & 0xfff) || !v->in_use[(pa - PT_BASE) / 4096]) {
        v->bad_frees++;
        return;
    }
    v->in_use[(pa - PT_BASE) / 4096] = false;
    /* Freed pages go back zeroed, so a failed call that allocated and freed leaves no trace. */
    memset(v->mem + pa, 0, 4096);
    v->free_pages[v->nfree++] = pa;
    v->live--;
}

static gr_status_t vram_write(void *user, uint64_t pa, const void *src, size_t bytes)
{
    vram_t *v = user;
    if (inject(&v->write_fail_at))
        return GR_E_IO;
    if (pa < PT_BASE || pa + bytes > VRAM_BYTES || bytes == 0 ||
        (pa >> 12) != ((pa + bytes - 1) >> 12) || !v->in_use[(pa - PT_BASE) / 4096]) {
        v->bad_writes++;
        return GR_E_RANGE;
    }
    memcpy(v->mem + pa, src, bytes);
    v->writes++;
    if (v->after_write)
        v->after_write(v);
    return GR_OK;
}

static gr_status_t vram_read(void *user, uint64_t pa, void *dst, size_t bytes)
{
    vram_t *v = user;
    if (pa + bytes > VRAM_BYTES)
        return GR_E_RANGE;
    memcpy(dst, v->mem + pa, bytes);
    return GR_OK;
}

static gr_status_t vram_invalidate(void *user)
{
    vram_t *v = user;
    if (inject(&v->inval_fail_at))
        return GR_E_IO;
    v->invalidates++;
    return GR_OK;
}

static const gr_gpuva_ops_t vram_ops = {
    .alloc_pt_page = vram_alloc,
    .free_pt_page = vram_free,
    .write_vram = vram_write,
    .read_vram = vram_read,
    .invalidate = vram_invalidate,
};

static int ref_read64(void *ctx, uint64_t addr, uint64_t *out)
{
    vram_t *v = ctx;
    if (addr + 8 > VRAM_BYTES)
        return 1;
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--)
        x = (x << 8) | v->mem[addr + i];
    *out = x;
    return 0;
}

/* ---- the model: what was mapped, and what the policy says about it ------------------------ */

typedef struct mapping {
    uint64_t va, size, pa;
    unsigned flags;
} mapping_t;

#define MAX_MAPS 256

typedef struct fixture {
    vram_t vram; /* first: the write hook finds the fixture from it */
    gr_gpuva_space_t *space;
    mapping_t maps[MAX_MAPS];
    unsigned nmaps;
    uint64_t rng;
    unsigned n_map, n_busy, n_unmap, n_cut, n_protect, n_pages[3]; /* what the walk did */
    uint64_t busy_lo, busy_hi;  /* the VA range the call under way changes */
    unsigned unstable;          /* writes after which another mapping did not translate */
} fixture_t;

static unsigned long long seed = 1;
static unsigned long steps = 2500;

static uint64_t rnd(fixture_t *f)
{
    f->rng ^= f->rng << 13;
    f->rng ^= f->rng >> 7;
    f->rng ^= f->rng << 17;
    return f->rng;
}

static uint64_t rnd_below(fixture_t *f, uint64_t n)
{
    return n ? rnd(f) % n : 0;
}

static const mapping_t *model_find(const fixture_t *f, uint64_t va)
{
    for (unsigned i = 0; i < f->nmaps; i++)
        if (va >= f->maps[i].va && va < f->maps[i].va + f->maps[i].size)
            return &f->maps[i];
    return NULL;
}

static bool model_overlaps(const fixture_t *f, uint64_t va, uint64_t size)
{
    for (unsigned i = 0; i < f->nmaps; i++)
        if (va < f->maps[i].va + f->maps[i].size && f->maps[i].va < va + size)
            return true;
    return false;
}

/* The header's policy, restated: the page size for the slot holding @p va. */
static unsigned policy_shift(const fixture_t *f, uint64_t va)
{
    uint64_t base = va & ~(M2 - 1), end = base + M2;
    unsigned pieces = 0;
    bool all64 = true;
    const mapping_t *only = NULL;
    for (unsigned i = 0; i < f->nmaps; i++) {
        const mapping_t *m = &f->maps[i];
        if (m->va >= end || m->va + m->size <= base)
            continue;
        pieces++;
        only = m;
        uint64_t lo = m->va > base ? m->va : base;
        uint64_t hi = m->va + m->size < end ? m->va + m->size : end;
        uint64_t pa_lo = m->pa + (lo - m->va);
        if ((m->flags & GR_GPUVA_NO_LARGE_PAGES) || lo % K64 || hi % K64 || pa_lo % K64)
            all64 = false;
    }
    if (pieces == 1 && !(only->flags & GR_GPUVA_NO_LARGE_PAGES) && only->va <= base &&
        only->va + only->size >= end && (only->pa + (base - only->va)) % M2 == 0)
        return 21;
    return all64 ? 16 : 12;
}

/* Every table page the policy needs: the root, L2s, L1s, and one per slot not a 2 MiB page. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static unsigned count_unique(uint64_t *v, unsigned n)
{
    qsort(v, n, sizeof(*v), cmp_u64);
    unsigned u = 0;
    for (unsigned i = 0; i < n; i++)
        if (i == 0 || v[i] != v[i - 1])
            u++;
    return u;
}

static unsigned policy_table_pages(const fixture_t *f)
{
    enum { MAX_SLOTS = 8192 };
    static uint64_t l2[MAX_SLOTS], l1[MAX_SLOTS], l0[MAX_SLOTS];
    unsigned n2 = 0, n1 = 0, n0 = 0;
    for (unsigned i = 0; i < f->nmaps; i++) {
        const mapping_t *m = &f->maps[i];
        for (uint64_t s = m->va & ~(M2 - 1); s < m->va + m->size; s += M2) {
            assert_true(n2 < MAX_SLOTS);
            l2[n2++] = s >> 39;
            l1[n1++] = s >> 30;
            if (policy_shift(f, s > m->va ? s : m->va) != 21)
                l0[n0++] = s >> 21;
        }
    }
    return 1 + count_unique(l2, n2) + count_unique(l1, n1) + count_unique(l0, n0);
}

/* ---- checks ------------------------------------------------------------------------------- */

/* One VA, read and write: the reference walk over VRAM, the library's lookup and the model agree. */
static void check_va(fixture_t *f, uint64_t va)
{
    gr_ref_mmu_t mmu = {.vram_addr_bits = 48, .root = gr_gpuva_root(f->space), .enable = true,
                        .read64 = ref_read64, .ctx = &f->vram};
    gr_ref_result_t rd, wr;
    gr_ref_translate(&mmu, va, false, false, &rd);
    gr_ref_translate(&mmu, va, true, false, &wr);
    const mapping_t *m = model_find(f, va);
    uint64_t pa = 0x5a5a;
    unsigned flags = 0x5a, shift = 0x5a;
    gr_status_t rc = gr_gpuva_lookup(f->space, va, &pa, &flags, &shift);
    if (!m) {
        if (rd.fault != GR_REF_FAULT_UNMAPPED || wr.fault != GR_REF_FAULT_UNMAPPED ||
            rc != GR_E_NOT_FOUND)
            fail_msg("va 0x%llx unmapped in the model: ref faults %u/%u, lookup %s (seed %llu)",
                     (unsigned long long)va, rd.fault, wr.fault, gr_status_name(rc), seed);
        assert_int_equal(pa, 0x5a5a); /* untouched on failure */
        assert_int_equal(flags, 0x5a);
        return;
    }
    uint64_t want_pa = m->pa + (va - m->va);
    unsigned want_shift = policy_shift(f, va);
    bool w = m->flags & GR_GPUVA_WRITABLE;
    if (rd.fault || rd.pa != want_pa || rd.page_shift != want_shift ||
        rd.system != !!(m->flags & GR_GPUVA_SYSTEM) ||
        rd.cacheable != !!(m->flags & GR_GPUVA_CACHEABLE) ||
        wr.fault != (w ? GR_REF_FAULT_NONE : GR_REF_FAULT_READ_ONLY))
        fail_msg("va 0x%llx (mapping va 0x%llx size 0x%llx pa 0x%llx flags 0x%x): ref fault %u pa "
                 "0x%llx shift %u sys %d cache %d, write fault %u; want pa 0x%llx shift %u "
                 "(seed %llu)",
                 (unsigned long long)va, (unsigned long long)m->va, (unsigned long long)m->size,
                 (unsigned long long)m->pa, m->flags, rd.fault, (unsigned long long)rd.pa,
                 rd.page_shift, rd.system, rd.cacheable, wr.fault, (unsigned long long)want_pa,
                 want_shift, seed);
    assert_int_equal(rc, GR_OK);
    assert_int_equal(pa, want_pa);
    assert_int_equal(shift, want_shift);
    assert_int_equal(flags, m->flags & (GR_GPUVA_WRITABLE | GR_GPUVA_SYSTEM | GR_GPUVA_CACHEABLE));
}

static void check_all(fixture_t *f)
{
    for (unsigned i = 0; i < f->nmaps; i++) {
        const mapping_t *m = &f->maps[i];
        check_va(f, m->va);
        check_va(f, m->va + m->size - 1);
        check_va(f, m->va + (rnd_below(f, m->size) & ~UINT64_C(7)));
        if (m->va >= K4)
            check_va(f, m->va - K4);
        if (m->va + m->size < (UINT64_C(1) << 48))
            check_va(f, m->va + m->size);
    }
    for (int i = 0; i < 8; i++)
        check_va(f, rnd(f) & ((UINT64_C(1) << 48) - 1));
    gr_gpuva_stats_t st;
    assert_int_equal(gr_gpuva_stats(f->space, &st), GR_OK);
    assert_int_equal(st.mappings, f->nmaps);
    assert_int_equal(st.table_pages, policy_table_pages(f));
    assert_int_equal(f->vram.live, st.table_pages);
    assert_int_equal(f->vram.bad_writes, 0);
    assert_int_equal(f->vram.bad_frees, 0);
}

/* After every VRAM write of a call: each mapping outside the range the call changes still
 * translates (the MMU may walk at any moment, so no write may expose a half-built table). */
static void watch_stable(vram_t *v)
{
    fixture_t *f = (fixture_t *)v;
    gr_ref_mmu_t mmu = {.vram_addr_bits = 48, .root = gr_gpuva_root(f->space), .enable = true,
                        .read64 = ref_read64, .ctx = v};
    for (unsigned i = 0; i < f->nmaps; i++) {
        const mapping_t *m = &f->maps[i];
        if (m->va < f->busy_hi && f->busy_lo < m->va + m->size)
            continue;
        for (uint64_t off = 0; off < m->size; off += m->size - K4 ? m->size - K4 : 1) {
            gr_ref_result_t r;
            gr_ref_translate(&mmu, m->va + off, false, false, &r);
            if (r.fault || r.pa != m->pa + off)
                f->unstable++;
        }
    }
}

static void watch(fixture_t *f, uint64_t va, uint64_t size)
{
    f->busy_lo = va;
    f->busy_hi = va + size;
    f->unstable = 0;
    f->vram.after_write = watch_stable;
}

static void unwatch(fixture_t *f)
{
    f->vram.after_write = NULL;
    if (f->unstable)
        fail_msg("%u writes left a mapping outside [0x%llx, 0x%llx) untranslatable (seed %llu)",
                 f->unstable, (unsigned long long)f->busy_lo, (unsigned long long)f->busy_hi,
                 seed);
}

static void model_add(fixture_t *f, uint64_t va, uint64_t pa, uint64_t size, unsigned flags)
{
    assert_true(f->nmaps < MAX_MAPS);
    f->maps[f->nmaps++] = (mapping_t){.va = va, .size = size, .pa = pa, .flags = flags};
}

static void model_remove(fixture_t *f, const mapping_t *m)
{
    f->maps[m - f->maps] = f->maps[--f->nmaps];
}

static void map_ok(fixture_t *f, uint64_t va, uint64_t pa, uint64_t size, unsigned flags)
{
    watch(f, va, size);
    gr_status_t rc = gr_gpuva_map(f->space, va, pa, size, flags);
    unwatch(f);
    if (rc)
        fail_msg("map va 0x%llx pa 0x%llx size 0x%llx flags 0x%x: %s", (unsigned long long)va,
                 (unsigned long long)pa, (unsigned long long)size, flags, gr_status_name(rc));
    model_add(f, va, pa, size, flags);
}

static void unmap_ok(fixture_t *f, uint64_t va)
{
    const mapping_t *m = model_find(f, va);
    assert_non_null(m);
    watch(f, m->va, m->size);
    assert_int_equal(gr_gpuva_unmap(f->space, m->va, m->size), GR_OK);
    unwatch(f);
    model_remove(f, m);
}

/* ---- fixtures ----------------------------------------------------------------------------- */

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    f->vram.mem = calloc(1, VRAM_BYTES);
    if (!f->vram.mem)
        return -1;
    for (uint64_t i = 0; i < PT_PAGES; i++)
        f->vram.free_pages[f->vram.nfree++] = VRAM_BYTES - (i + 1) * 4096;
    f->vram.alloc_fail_at = f->vram.write_fail_at = f->vram.inval_fail_at = -1;
    f->rng = seed * 0x9e3779b97f4a7c15ull + 1;
    if (gr_gpuva_create(&vram_ops, &f->vram, &f->space))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    gr_gpuva_destroy(f->space);
    int bad = f->vram.live != 0 || f->vram.bad_frees != 0;
    free(f->vram.mem);
    free(f);
    return bad ? -1 : 0;
}

static unsigned shift_at(fixture_t *f, uint64_t va)
{
    unsigned shift = 0;
    assert_int_equal(gr_gpuva_lookup(f->space, va, NULL, NULL, &shift), GR_OK);
    return shift;
}

/* ---- tests -------------------------------------------------------------------------------- */

static void empty_space_has_one_zeroed_root_and_translates_nothing(void **state)
{
    fixture_t *f = *state;
    uint64_t root = gr_gpuva_root(f->space);
    assert_true(root >= PT_BASE && root < VRAM_BYTES && (root & 0xfff) == 0);
    for (unsigned i = 0; i < 4096; i++)
        assert_int_equal(f->vram.mem[root + i], 0);
    assert_int_equal(f->vram.live, 1);
    check_all(f);
    assert_int_equal(gr_gpuva_check(f->space), GR_OK);
}

static void two_mib_pages_where_va_pa_and_range_are_aligned(void **state)
{
    fixture_t *f = *state;
    map_ok(f, 5 * M2, 100 * M2, 3 * M2, GR_GPUVA_WRITABLE | GR_GPUVA_CACHEABLE);
    gr_gpuva_stats_t st;
    assert_int_equal(gr_gpuva_stats(f->space, &st), GR_OK);
    assert_int_equal(st.pages_2m, 3);
    assert_int_equal(st.pages_64k + st.pages_4k, 0);
    assert_int_equal(st.table_pages, 3); /* L3, L2, L1: no L0 at all */
    assert_int_equal(shift_at(f, 6 * M2 + 0x12345), 21);
    /* Unaligned range ends: 2 MiB in the middle, 64 KiB on the edges. */
    map_ok(f, 64 * M2 - 2 * K64, 200 * M2 - 2 * K64, M2 + 4 * K64, GR_GPUVA_SYSTEM);
    assert_int_equal(shift_at(f, 64 * M2 - K64), 16);
    assert_int_equal(shift_at(f, 64 * M2), 21);
    assert_int_equal(shift_at(f, 65 * M2 + K64), 16);
    check_all(f);
    assert_int_equal(gr_gpuva_check(f->space), GR_OK);
}

static void sixty_four_kib_pages_when_pa_is_not_2mib_aligned(void **state)
{
    fixture_t *f = *state;
    map_ok(f, 8 * M2, 100 * M2 + K64, M2, GR_GPUVA_WRITABLE);   /* whole slot, PA 64K */
    map_ok(f, 9 * M2, 120 * M2 + K4, M2, GR_GPUVA_WRITABLE);    /* whole slot, PA 4K */
    map_ok(f, 10 * M2 + 3 * K64, 7 * K64, 5 * K64, 0);          /* pieces with holes */
    map_ok(f, 10 * M2 + 12 * K64, 30 * K64, 2 * K64, GR_GPUVA_CACHEABLE);
    assert_int_equal(shift_at(f, 8 * M2 + 0x4321), 16);
    assert_int_equal(shift_at(f, 9 * M2 + 0x4321), 12);
    assert_int_equal(shift_at(f, 10 * M2 + 3 * K64), 16);
    assert_int_equal(shift_at(f, 10 * M2 + 13 * K64), 16);
    gr_gpuva_stats_t st;
    assert_int_equal(gr_gpuva_stats(f->space, &st), GR_OK);
    assert_int_equal(st.pages_64k, 32 + 5 + 2);
    assert_int_equal(st.pages_4k, 512);
    check_all(f);
}

static void a_4k_piece_turns_the_slot_to_4k_and_unmapping_it_turns_it_back(void **state)
{
    fixture_t *f = *state;
    map_ok(f, 20 * M2, 50 * M2, 8 * K64, GR_GPUVA_WRITABLE);
    assert_int_equal(shift_at(f, 20 * M2), 16);
    unsigned inval = f->vram.invalidates;
    unsigned pages = f->vram.live;
    map_ok(f, 20 * M2 + 9 * K64 + K4, 60 * M2, 3 * K4, 0);
    assert_int_equal(shift_at(f, 20 * M2), 12); /* the 64 KiB pages became 16 PTEs each */
    assert_int_equal(shift_at(f, 20 * M2 + 9 * K64 + K4), 12);
    assert_int_equal(f->vram.invalidates, inval + 1); /* a valid L1 entry changed */
    assert_int_equal(f->vram.live, pages);           /* new table in, old table out */
    check_all(f);
    unmap_ok(f, 20 * M2 + 9 * K64 + K4);
    assert_int_equal(shift_at(f, 20 * M2 + 7 * K64), 16);
    assert_int_equal(f->vram.invalidates, inval + 2);
    check_all(f);
    /* The same with a NO_LARGE_PAGES neighbour, even when it is 64 KiB aligned. */
    map_ok(f, 20 * M2 + 16 * K64, 70 * M2, K64, GR_GPUVA_NO_LARGE_PAGES);
    assert_int_equal(shift_at(f, 20 * M2), 12);
    check_all(f);
    assert_int_equal(gr_gpuva_check(f->space), GR_OK);
}

static void no_large_pages_maps_with_4k_ptes_only(void **state)
{
    fixture_t *f = *state;
    map_ok(f, 30 * M2, 90 * M2, 2 * M2, GR_GPUVA_NO_LARGE_PAGES | GR_GPUVA_WRITABLE);
    map_ok(f, 40 * M2 + K64, 95 * M2 + K64, 4 * K64, GR_GPUVA_NO_LARGE_PAGES);
    gr_gpuva_stats_t st;
    assert_int_equal(gr_gpuva_stats(f->space, &st), GR_OK);
    assert_int_equal(st.pages_2m + st.pages_64k, 0);
    assert_int_equal(st.pages_4k, 1024 + 64);
    for (uint64_t va = 30 * M2; va < 32 * M2; va += 37 * K4)
        assert_int_equal(shift_at(f, va), 12);
    check_all(f);
}

static void map_rejects_bad_arguments_and_changes_nothing(void **state)
{
    fixture_t *f = *state;
    gr_gpuva_space_t *s = f->space;
    const uint64_t top = UINT64_C(1) << 48;
    map_ok(f, 4 * M2, 4 * M2, M2, GR_GPUVA_WRITABLE);
    unsigned writes = f->vram.writes, allocs = f->vram.allocs, inval = f->vram.invalidates;
    assert_int_equal(gr_gpuva_map(NULL, 0, 0, K4, 0), GR_E_INVALID);
    assert_int_equal(gr_gpuva_map(s, K4 + 8, 0, K4, 0), GR_E_INVALID);
    assert_int_equal(gr_gpuva_map(s, K4, 0x800, K4, 0), GR_E_INVALID);
    assert_int_equal(gr_gpuva_map(s, K4, 0, K4 + 1, 0), GR_E_INVALID);
    assert_int_equal(gr_gpuva_map(s, K4, 0, 0, 0), GR_E_INVALID);
    assert_int_equal(gr_gpuva_map(s, top, 0, K4, 0), GR_E_INVALID);
    assert_int_equal(gr_gpuva_map(s, top - K4, 0, 2 * K4, 0), GR_E_INVALID);
    assert_int_equal(gr_gpuva_map(s, 0, (UINT64_C(1) << 52) - K4, 2 * K4, 0), GR_E_INVALID);
    assert_int_equal(gr_gpuva_map(s, 0, 0, K4, 1u << 7), GR_E_INVALID);
    assert_int_equal(gr_gpuva_map(s, 4 * M2 + M2 - K4, 0, 2 * K4, 0), GR_E_BUSY);
    assert_int_equal(gr_gpuva_map(s, 3 * M2, 0, 2 * M2, 0), GR_E_BUSY);
    assert_int_equal(gr_gpuva_map(s, 0, 0, 16 * M2, 0), GR_E_BUSY);
    /* unmap and protect take whole mappings only */
    assert_int_equal(gr_gpuva_unmap(s, 4 * M2, M2 - K4), GR_E_INVALID);
    assert_int_equal(gr_gpuva_unmap(s, 4 * M2 + K4, M2 - K4), GR_E_INVALID);
    assert_int_equal(gr_gpuva_unmap(s, 4 * M2, M2 + K4), GR_E_INVALID);
    assert_int_equal(gr_gpuva_unmap(s, 8 * M2, K4), GR_E_INVALID);
    assert_int_equal(gr_gpuva_unmap(s, 4 * M2, 0), GR_E_INVALID);
    assert_int_equal(gr_gpuva_protect(s, 4 * M2, M2, GR_GPUVA_SYSTEM), GR_E_INVALID);
    assert_int_equal(gr_gpuva_protect(s, 4 * M2, M2, GR_GPUVA_NO_LARGE_PAGES), GR_E_INVALID);
    assert_int_equal(gr_gpuva_protect(s, 4 * M2, K4, 0), GR_E_INVALID);
    assert_int_equal(gr_gpuva_lookup(s, top, NULL, NULL, NULL), GR_E_INVALID);
    assert_int_equal(gr_gpuva_lookup(NULL, 0, NULL, NULL, NULL), GR_E_INVALID);
    assert_int_equal(f->vram.writes, writes);
    assert_int_equal(f->vram.allocs, allocs);
    assert_int_equal(f->vram.invalidates, inval);
    /* a hole inside an unmap range */
    map_ok(f, 6 * M2, 6 * M2, M2, 0);
    assert_int_equal(gr_gpuva_unmap(s, 4 * M2, 3 * M2), GR_E_INVALID);
    /* two adjacent whole mappings go in one call */
    map_ok(f, 5 * M2, 5 * M2, M2, 0);
    assert_int_equal(gr_gpuva_unmap(s, 4 * M2, 3 * M2), GR_OK);
    f->nmaps = 0;
    check_all(f);
    gr_gpuva_space_t *other = (gr_gpuva_space_t *)(uintptr_t)1;
    gr_gpuva_ops_t no_write = vram_ops;
    no_write.write_vram = NULL;
    assert_int_equal(gr_gpuva_create(&no_write, &f->vram, &other), GR_E_INVALID);
    assert_int_equal(gr_gpuva_create(NULL, &f->vram, &other), GR_E_INVALID);
    assert_ptr_equal(other, (gr_gpuva_space_t *)(uintptr_t)1);
}

static void protect_changes_writable_and_cacheable_only(void **state)
{
    fixture_t *f = *state;
    map_ok(f, 12 * M2, 12 * M2, M2, GR_GPUVA_WRITABLE | GR_GPUVA_SYSTEM);
    map_ok(f, 13 * M2, 14 * M2 + K64, 4 * K64, GR_GPUVA_WRITABLE);
    map_ok(f, 13 * M2 + 4 * K64, 3 * K4, 3 * K4, GR_GPUVA_CACHEABLE | GR_GPUVA_WRITABLE);
    unsigned inval = f->vram.invalidates;
    assert_int_equal(gr_gpuva_protect(f->space, 12 * M2, M2, GR_GPUVA_CACHEABLE), GR_OK);
    f->maps[0].flags = GR_GPUVA_SYSTEM | GR_GPUVA_CACHEABLE;
    assert_int_equal(f->vram.invalidates, inval + 1);
    /* Two adjacent mappings at once (read-only open of both). */
    assert_int_equal(gr_gpuva_protect(f->space, 13 * M2, 4 * K64 + 3 * K4, 0), GR_OK);
    f->maps[1].flags = 0;
    f->maps[2].flags = 0;
    assert_int_equal(f->vram.invalidates, inval + 2);
    /* Setting what is already there writes nothing and needs no invalidate. */
    unsigned writes = f->vram.writes;
    assert_int_equal(gr_gpuva_protect(f->space, 13 * M2, 4 * K64, 0), GR_OK);
    assert_int_equal(f->vram.writes, writes);
    assert_int_equal(f->vram.invalidates, inval + 2);
    check_all(f);
    assert_int_equal(gr_gpuva_check(f->space), GR_OK);
}

/* A state with every table kind, then a big map that must allocate tables at every level and
 * convert a PT64 slot: each injected failure point must leave VRAM byte-identical. */
static void populate(fixture_t *f)
{
    map_ok(f, 2 * M2, 40 * M2, 2 * M2, GR_GPUVA_WRITABLE);
    map_ok(f, 16 * M2 + K64, 17 * K64, 8 * K64, 0);
    map_ok(f, 17 * M2 + K4, 3 * K4, 5 * K4, GR_GPUVA_NO_LARGE_PAGES);
}

typedef gr_status_t (*op_fn)(fixture_t *f);

static gr_status_t op_big_map(fixture_t *f)
{
    /* New L2, L1 and level-0 tables on both sides of the L3 boundary at 2^47 (a PT64 slot, a
     * 2 MiB page, a PT64 slot), then a 4 KiB piece that turns the PT64 slot at 32 MiB to 4 KiB. */
    gr_status_t rc = gr_gpuva_map(f->space, (UINT64_C(1) << 47) - M2 - 3 * K64,
                                  80 * M2 - 3 * K64, 2 * M2 + 7 * K64, GR_GPUVA_WRITABLE);
    if (rc)
        return rc;
    return gr_gpuva_map(f->space, 16 * M2 + 20 * K64 + K4, 9 * K4, K4, 0);
}

static gr_status_t op_unmap(fixture_t *f)
{
    return gr_gpuva_unmap(f->space, 17 * M2 + K4, 5 * K4); /* PT4K slot goes away */
}

static gr_status_t op_protect_ro(fixture_t *f)
{
    return gr_gpuva_protect(f->space, 2 * M2, 2 * M2, GR_GPUVA_CACHEABLE);
}

static gr_status_t op_protect_rw(fixture_t *f)
{
    return gr_gpuva_protect(f->space, 2 * M2, 2 * M2, GR_GPUVA_CACHEABLE | GR_GPUVA_WRITABLE);
}

static void check_rollback(fixture_t *f, op_fn op, int *fail_at, gr_status_t want_error)
{
    uint8_t *before = malloc(VRAM_BYTES);
    assert_non_null(before);
    unsigned failures = 0;
    for (int k = 0;; k++) {
        memcpy(before, f->vram.mem, VRAM_BYTES);
        unsigned live = f->vram.live;
        gr_gpuva_stats_t st0, st1;
        assert_int_equal(gr_gpuva_stats(f->space, &st0), GR_OK);
        *fail_at = k;
        gr_status_t rc = op(f);
        bool injected = *fail_at < 0;
        *fail_at = -1;
        if (!injected) {
            assert_int_equal(rc, GR_OK);
            break;
        }
        /* op_big_map is two calls: the first may have succeeded; undo it to compare. */
        if (rc != GR_OK && op == op_big_map && gr_gpuva_lookup(f->space, (UINT64_C(1) << 47) - M2,
                                                              NULL, NULL, NULL) == GR_OK) {
            assert_int_equal(rc, want_error);
            assert_int_equal(gr_gpuva_unmap(f->space, (UINT64_C(1) << 47) - M2 - 3 * K64,
                                            2 * M2 + 7 * K64),
                             GR_OK);
        } else {
            assert_int_equal(rc, want_error);
        }
        if (memcmp(before, f->vram.mem, VRAM_BYTES))
            fail_msg("failure injected at %d: VRAM changed", k);
        assert_int_equal(f->vram.live, live);
        assert_int_equal(gr_gpuva_stats(f->space, &st1), GR_OK);
        assert_int_equal(st1.table_pages, st0.table_pages);
        assert_int_equal(st1.pages_4k, st0.pages_4k);
        assert_int_equal(st1.pages_64k, st0.pages_64k);
        assert_int_equal(st1.pages_2m, st0.pages_2m);
        assert_int_equal(gr_gpuva_check(f->space), GR_OK);
        check_all(f); /* the model did not change either */
        failures++;
    }
    assert_true(failures >= 1);
    free(before);
}

static void failed_alloc_leaves_vram_byte_identical(void **state)
{
    fixture_t *f = *state;
    populate(f);
    check_rollback(f, op_big_map, &f->vram.alloc_fail_at, GR_E_NO_MEMORY);
    model_add(f, (UINT64_C(1) << 47) - M2 - 3 * K64, 80 * M2 - 3 * K64, 2 * M2 + 7 * K64,
              GR_GPUVA_WRITABLE);
    model_add(f, 16 * M2 + 20 * K64 + K4, 9 * K4, K4, 0);
    assert_int_equal(shift_at(f, 16 * M2 + K64), 12);
    check_all(f);
}

static void failed_write_or_invalidate_leaves_vram_byte_identical(void **state)
{
    fixture_t *f = *state;
    populate(f);
    check_rollback(f, op_big_map, &f->vram.write_fail_at, GR_E_IO);
    model_add(f, (UINT64_C(1) << 47) - M2 - 3 * K64, 80 * M2 - 3 * K64, 2 * M2 + 7 * K64,
              GR_GPUVA_WRITABLE);
    model_add(f, 16 * M2 + 20 * K64 + K4, 9 * K4, K4, 0);
    check_rollback(f, op_protect_ro, &f->vram.write_fail_at, GR_E_IO);
    f->maps[0].flags = GR_GPUVA_CACHEABLE;
    check_rollback(f, op_protect_rw, &f->vram.inval_fail_at, GR_E_IO);
    f->maps[0].flags = GR_GPUVA_CACHEABLE | GR_GPUVA_WRITABLE;
    check_rollback(f, op_unmap, &f->vram.inval_fail_at, GR_E_IO);
    model_remove(f, model_find(f, 17 * M2 + K4));
    check_all(f);
}

/* The random walk: map, unmap, protect; every step checked against the reference walker. */
static const uint64_t regions[] = {
    UINT64_C(0),                    /* L3 0, L2 0 */
    UINT64_C(0x0000004000000000),   /* L3 0, L2 256 */
    UINT64_C(0x00007fffff000000),   /* last L3 entry, last L2, last L1 slots */
};

static void random_step(fixture_t *f)
{
    unsigned what = (unsigned)rnd_below(f, 10);
    if (f->nmaps > 48)
        what = 6 + (unsigned)rnd_below(f, 4); /* keep the model small: unmap more */
    if (what < 6 || f->nmaps == 0) {
        static const uint64_t gran[] = {K4, K64, M2};
        unsigned g = (unsigned)rnd_below(f, 10);
        uint64_t grain = gran[g < 4 ? 0 : g < 8 ? 1 : 2];
        uint64_t region = regions[rnd_below(f, 3)];
        uint64_t va = region + (rnd_below(f, 16 * MIB) & ~(grain - 1));
        if (f->nmaps && rnd_below(f, 3) == 0) { /* right after an existing mapping */
            const mapping_t *m = &f->maps[rnd_below(f, f->nmaps)];
            va = m->va + m->size;
        }
        uint64_t size = grain * (1 + rnd_below(f, grain == M2 ? 3 : grain == K64 ? 40 : 48));
        if (rnd_below(f, 5) == 0)
            size += K4 * (1 + rnd_below(f, 15));
        uint64_t pa = rnd_below(f, UINT64_C(1) << 36) & ~(grain - 1);
        if (rnd_below(f, 6) == 0)
            pa += K4 * (1 + rnd_below(f, 15));
        unsigned flags = (unsigned)rnd_below(f, 16);
        if (rnd_below(f, 3))
            flags &= ~(unsigned)GR_GPUVA_NO_LARGE_PAGES;
        if (flags & GR_GPUVA_SYSTEM)
            pa |= rnd_below(f, (1u << 16) - 2) << 36; /* host bus addresses up to 52 bits */
        if (va + size > (UINT64_C(1) << 48))
            return;
        unsigned inval = f->vram.invalidates;
        watch(f, va, size);
        gr_status_t rc = gr_gpuva_map(f->space, va, pa, size, flags);
        unwatch(f);
        bool overlap = model_overlaps(f, va, size);
        if (rc != (overlap ? GR_E_BUSY : GR_OK))
            fail_msg("map va 0x%llx pa 0x%llx size 0x%llx flags 0x%x: %s, overlap %d (seed %llu)",
                     (unsigned long long)va, (unsigned long long)pa, (unsigned long long)size,
                     flags, gr_status_name(rc), overlap, seed);
        assert_true(f->vram.invalidates <= inval + 1);
        if (!rc)
            model_add(f, va, pa, size, flags);
        f->n_map += !rc;
        f->n_busy += rc == GR_E_BUSY;
    } else if (what < 8) {
        const mapping_t *m = &f->maps[rnd_below(f, f->nmaps)];
        const mapping_t *next = model_find(f, m->va + m->size);
        uint64_t va = m->va, first_size = m->size, size = m->size;
        if (next && next->va == va + first_size && rnd_below(f, 2))
            size += next->size; /* two adjacent whole mappings in one call */
        if (first_size > K4 && rnd_below(f, 6) == 0) { /* cut one: refused, nothing changes */
            unsigned writes = f->vram.writes;
            assert_int_equal(gr_gpuva_unmap(f->space, va, first_size - K4), GR_E_INVALID);
            assert_int_equal(f->vram.writes, writes);
            f->n_cut++;
            return;
        }
        unsigned inval = f->vram.invalidates;
        watch(f, va, size);
        assert_int_equal(gr_gpuva_unmap(f->space, va, size), GR_OK);
        unwatch(f);
        f->n_unmap++;
        assert_int_equal(f->vram.invalidates, inval + 1);
        model_remove(f, model_find(f, va));
        if (size != first_size)
            model_remove(f, model_find(f, va + first_size));
    } else {
        mapping_t *m = &f->maps[rnd_below(f, f->nmaps)];
        unsigned flags = (unsigned)rnd_below(f, 2) * GR_GPUVA_WRITABLE |
                         (unsigned)rnd_below(f, 2) * GR_GPUVA_CACHEABLE;
        unsigned inval = f->vram.invalidates;
        watch(f, m->va, m->size);
        assert_int_equal(gr_gpuva_protect(f->space, m->va, m->size, flags), GR_OK);
        unwatch(f);
        f->n_protect++;
        unsigned old = m->flags;
        m->flags = (m->flags & ~(unsigned)(GR_GPUVA_WRITABLE | GR_GPUVA_CACHEABLE)) | flags;
        assert_int_equal(f->vram.invalidates, inval + (old != m->flags));
    }
}

static void random_map_unmap_protect_translate_as_the_reference(void **state)
{
    fixture_t *f = *state;
    for (unsigned long i = 0; i < steps; i++) {
        random_step(f);
        check_all(f);
        gr_gpuva_stats_t now;
        assert_int_equal(gr_gpuva_stats(f->space, &now), GR_OK);
        f->n_pages[0] += now.pages_4k != 0;
        f->n_pages[1] += now.pages_64k != 0;
        f->n_pages[2] += now.pages_2m != 0;
        if (i % 64 == 0)
            assert_int_equal(gr_gpuva_check(f->space), GR_OK);
    }
    assert_int_equal(gr_gpuva_check(f->space), GR_OK);
    printf("# %lu steps: %u maps, %u refused as overlapping, %u unmaps, %u refused cuts, "
           "%u protects; steps with 4K/64K/2M pages present: %u/%u/%u\n",
           steps, f->n_map, f->n_busy, f->n_unmap, f->n_cut, f->n_protect, f->n_pages[0],
           f->n_pages[1], f->n_pages[2]);
    /* Unmapping everything frees every table but the root. */
    while (f->nmaps)
        unmap_ok(f, f->maps[rnd_below(f, f->nmaps)].va);
    gr_gpuva_stats_t st;
    assert_int_equal(gr_gpuva_stats(f->space, &st), GR_OK);
    assert_int_equal(st.table_pages, 1);
    assert_int_equal(f->vram.live, 1);
    assert_int_equal(st.pages_4k + st.pages_64k + st.pages_2m, 0);
    for (uint64_t a = 0; a < 4096; a++)
        assert_int_equal(f->vram.mem[gr_gpuva_root(f->space) + a], 0);
    check_all(f);
}

int main(int argc, char **argv)
{
    const char *env = getenv("GR_TEST_SEED");
    if (env)
        seed = strtoull(env, NULL, 0);
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--steps"))
            steps = strtoul(argv[i + 1], NULL, 0);
    }
    printf("# seed=%llu (replay: test_vidmm_gpuva --seed %llu)\n", seed, seed);
    fflush(stdout);
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(empty_space_has_one_zeroed_root_and_translates_nothing),
        T(two_mib_pages_where_va_pa_and_range_are_aligned),
        T(sixty_four_kib_pages_when_pa_is_not_2mib_aligned),
        T(a_4k_piece_turns_the_slot_to_4k_and_unmapping_it_turns_it_back),
        T(no_large_pages_maps_with_4k_ptes_only),
        T(map_rejects_bad_arguments_and_changes_nothing),
        T(protect_changes_writable_and_cacheable_only),
        T(failed_alloc_leaves_vram_byte_identical),
        T(failed_write_or_invalidate_leaves_vram_byte_identical),
        T(random_map_unmap_protect_translate_as_the_reference),
    };
#undef T
    return cmocka_run_group_tests_name("vidmm_gpuva", tests, NULL, NULL);
}
