/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_policy.c: ordinary allocations kept below the pinned range, and room made in a range by
 * moving movable blocks out of it (vidmm_policy.h; SEGMENT.md, "Pinned ranges").
 */
#include "vidmm_policy.h"

#include <stdlib.h>

/* Frees a block this file knows is live (reported by the walk, or just allocated). */
static void free_known(gr_seg_t *seg, uint64_t offset)
{
    gr_status_t rc = gr_seg_free(seg, offset);
    (void)rc;
}

/* An unrestricted allocation, without moving anything: the keep window first. */
static gr_status_t place_plain(gr_seg_t *seg, const gr_vpol_t *pol, uint64_t size, uint64_t alignment,
                               uint32_t flags, uint64_t *out_offset)
{
    uint32_t f = (flags & GR_SEG_TOP_DOWN) ? (flags & ~GR_SEG_TOP_DOWN) | GR_SEG_HIGH_FIT : flags;
    if (pol->keep_lo < pol->keep_hi) {
        gr_status_t rc = gr_seg_alloc(seg, size, alignment, pol->keep_lo, pol->keep_hi, f, out_offset);
        if (rc != GR_E_NO_MEMORY)
            return rc;
    }
    return gr_seg_alloc(seg, size, alignment, 0, GR_SEG_END, f, out_offset);
}

enum { EL_FREE, EL_MOVABLE, EL_FIXED };

typedef struct el {
    uint64_t off, size, align;
    uint32_t flags;
    uint8_t kind;
} el_t;

typedef struct collect {
    el_t *v;
    size_t n, cap;
    gr_vpol_movable_fn movable;
    void *ctx;
    bool oom;
} collect_t;

static bool collect_el(void *ctx, uint64_t offset, uint64_t size, bool is_free)
{
    collect_t *c = ctx;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        el_t *v = realloc(c->v, cap * sizeof *v);
        if (v == NULL) {
            c->oom = true;
            return false;
        }
        c->v = v;
        c->cap = cap;
    }
    el_t *e = &c->v[c->n++];
    *e = (el_t){.off = offset, .size = size, .kind = EL_FREE};
    if (!is_free)
        e->kind = c->movable(c->ctx, offset, &e->align, &e->flags) ? EL_MOVABLE : EL_FIXED;
    return true;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

gr_status_t gr_vpol_make_room(gr_seg_t *seg, const gr_vpol_t *pol, uint64_t size, uint64_t alignment,
                              uint64_t range_lo, uint64_t range_hi, uint32_t flags, uint64_t max_bytes,
                              uint64_t *out_offset, gr_vpol_cost_t *out_cost)
{
    gr_seg_stats_t st;
    if (seg == NULL || pol == NULL || pol->movable == NULL || pol->moved == NULL || out_offset == NULL ||
        gr_seg_stats(seg, &st) != GR_OK)
        return GR_E_INVALID;
    if (alignment == 0)
        alignment = GR_SEG_UNIT;
    uint64_t hi = range_hi == GR_SEG_END ? st.size : range_hi;
    size = align_up(size, GR_SEG_UNIT);
    if (size == 0 || alignment < GR_SEG_UNIT || (alignment & (alignment - 1)) || range_lo % GR_SEG_UNIT ||
        hi % GR_SEG_UNIT || range_lo >= hi || hi > st.size || (flags & ~GR_SEG_PINNED))
        return GR_E_INVALID;
    /* Pinned blocks never move: when they leave no window, no walk is needed to say so (most
     * failed pinned requests end here, in about the time of an allocation). */
    gr_status_t rc = gr_seg_fit_unpinned(seg, size, alignment, range_lo, hi);
    if (rc != GR_OK)
        return rc;

    collect_t c = {.movable = pol->movable, .ctx = pol->ctx};
    rc = gr_seg_walk_range(seg, range_lo, hi, collect_el, &c);
    if (rc == GR_OK && c.oom)
        rc = GR_E_NO_MEMORY;
    uint64_t *mov = NULL;
    uint32_t *fix = NULL;
    uint64_t *moved_to = NULL, *res = NULL;
    size_t n_res = 0, n_to = 0;
    if (rc != GR_OK)
        goto out;
    rc = GR_E_NO_MEMORY;
    mov = malloc((c.n + 1) * sizeof *mov);
    fix = malloc((c.n + 1) * sizeof *fix);
    if (mov == NULL || fix == NULL)
        goto out;
    mov[0] = 0;
    fix[0] = 0;
    for (size_t i = 0; i < c.n; i++) {
        mov[i + 1] = mov[i] + (c.v[i].kind == EL_MOVABLE ? c.v[i].size : 0);
        fix[i + 1] = fix[i] + (c.v[i].kind == EL_FIXED);
    }

    /* The cheapest window: candidate starts are the elements' starts aligned up (a window that
     * starts anywhere else can slide down to one of them without taking in anything new); the
     * elements it overlaps, [a, b], move with it, so both ends only go forward. */
    size_t best_a = 0, best_b = 0, a = 0, b = 0;
    uint64_t best_s = 0, best_cost = UINT64_MAX;
    for (size_t i = 0; i < c.n; i++) {
        uint64_t s = align_up(c.v[i].off > range_lo ? c.v[i].off : range_lo, alignment);
        if (s + size > hi)
            break;
        while (c.v[a].off + c.v[a].size <= s)
            a++;
        if (b < a)
            b = a;
        while (b + 1 < c.n && c.v[b + 1].off < s + size)
            b++;
        if (fix[b + 1] != fix[a])
            continue;
        uint64_t cost = mov[b + 1] - mov[a];
        if (cost < best_cost) {
            best_cost = cost;
            best_s = s;
            best_a = a;
            best_b = b;
        }
    }
    if (best_cost == UINT64_MAX || (max_bytes && best_cost > max_bytes))
        goto out;

    /* Take the window's free pages first, so that no moved block lands in it; then give every
     * movable block of the window a new place; only when all have one does anything move. */
    size_t n_el = best_b - best_a + 1;
    res = malloc(n_el * sizeof *res);
    moved_to = malloc(n_el * sizeof *moved_to);
    if (res == NULL || moved_to == NULL)
        goto out;
    const uint64_t ws = best_s, we = best_s + size;
    for (size_t i = best_a; i <= best_b; i++) {
        const el_t *e = &c.v[i];
        if (e->kind != EL_FREE)
            continue;
        uint64_t rlo = e->off > ws ? e->off : ws, rhi = e->off + e->size < we ? e->off + e->size : we;
        if (rlo >= rhi)
            continue;
        if (gr_seg_alloc(seg, rhi - rlo, GR_SEG_UNIT, rlo, rhi, 0, &res[n_res]) != GR_OK)
            goto unwind;
        n_res++;
    }
    for (size_t i = best_a; i <= best_b; i++) {
        const el_t *e = &c.v[i];
        if (e->kind != EL_MOVABLE)
            continue;
        if (place_plain(seg, pol, e->size, e->align, e->flags, &moved_to[n_to]) != GR_OK)
            goto unwind;
        n_to++;
    }
    gr_vpol_cost_t cost = {0, 0};
    for (size_t i = best_a, k = 0; i <= best_b; i++) {
        const el_t *e = &c.v[i];
        if (e->kind != EL_MOVABLE)
            continue;
        pol->moved(pol->ctx, e->off, moved_to[k++], e->size);
        free_known(seg, e->off);
        cost.moves++;
        cost.bytes += e->size;
    }
    for (size_t k = 0; k < n_res; k++)
        free_known(seg, res[k]);
    /* The window is free now, and the segment holds fewer blocks than before: this cannot fail
     * for want of room or of host memory. */
    rc = gr_seg_alloc(seg, size, alignment, ws, we, flags, out_offset);
    if (rc == GR_OK && out_cost)
        *out_cost = cost;
    goto out;

unwind:
    for (size_t k = 0; k < n_to; k++)
        free_known(seg, moved_to[k]);
    for (size_t k = 0; k < n_res; k++)
        free_known(seg, res[k]);
    rc = GR_E_NO_MEMORY;
out:
    free(c.v);
    free(mov);
    free(fix);
    free(res);
    free(moved_to);
    return rc;
}

typedef struct span {
    uint64_t off, len;
} span_t;

typedef struct spans {
    span_t *v;
    size_t n, cap;
    bool oom;
} spans_t;

static bool add_span(void *ctx, uint64_t offset, uint64_t size, bool is_free)
{
    spans_t *sp = ctx;
    (void)is_free;
    if (sp->n == sp->cap) {
        size_t cap = sp->cap ? sp->cap * 2 : 64;
        span_t *v = realloc(sp->v, cap * sizeof *v);
        if (v == NULL) {
            sp->oom = true;
            return false;
        }
        sp->v = v;
        sp->cap = cap;
    }
    sp->v[sp->n++] = (span_t){offset, size};
    return true;
}

static int cmp_span(const void *a, const void *b)
{
    const span_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

gr_status_t gr_vpol_place(gr_seg_t *seg, const gr_vpol_t *pol, uint64_t size, uint64_t alignment,
                          uint64_t range_lo, uint64_t range_hi, uint32_t flags, uint64_t *out_offset,
                          gr_vpol_cost_t *out_cost)
{
    gr_seg_stats_t st;
    if (seg == NULL || pol == NULL || out_offset == NULL || gr_seg_stats(seg, &st) != GR_OK ||
        (flags & ~(GR_SEG_TOP_DOWN | GR_SEG_PINNED)))
        return GR_E_INVALID;
    gr_vpol_cost_t none = {0, 0};
    bool whole = range_lo == 0 && (range_hi == GR_SEG_END || range_hi == st.size);
    gr_status_t rc = whole ? place_plain(seg, pol, size, alignment, flags, out_offset)
                           : gr_seg_alloc(seg, size, alignment, range_lo, range_hi, flags, out_offset);
    if (rc == GR_OK && out_cost)
        *out_cost = none;
    if (rc != GR_E_NO_MEMORY || pol->movable == NULL || pol->moved == NULL)
        return rc;
    if (!whole)
        return gr_vpol_make_room(seg, pol, size, alignment, range_lo, range_hi, flags & GR_SEG_PINNED, 0,
                                 out_offset, out_cost);
    /* Unrestricted: look for room only where the free space is densest (the large free ranges
     * say where: a window of the request's size that holds most free bytes), and walk only
     * around it, so that this costs about a walk of twice the request, not of the segment. */
    size = align_up(size, GR_SEG_UNIT);
    if (size > st.free_bytes)
        return GR_E_NO_MEMORY;
    const uint64_t budget = size / 2; /* move at most half the request */
    spans_t sp = {0};
    if (gr_seg_walk_free(seg, size / 32, add_span, &sp) != GR_OK || sp.oom) {
        free(sp.v);
        return GR_E_NO_MEMORY;
    }
    qsort(sp.v, sp.n, sizeof *sp.v, cmp_span);
    uint64_t best_s = 0, best_free = 0, in = 0;
    for (size_t i = 0, j = 0; i < sp.n; i++) {
        /* [s, s + size) from the start of free range i: ranges i..j-1 start inside it. */
        const uint64_t s0 = sp.v[i].off, e0 = s0 + size;
        if (j < i) {
            j = i;
            in = 0;
        }
        while (j < sp.n && sp.v[j].off < e0) {
            in += sp.v[j].len;
            j++;
        }
        const span_t *last = &sp.v[j - 1];
        uint64_t over = last->off + last->len > e0 ? last->off + last->len - e0 : 0;
        if (in - over > best_free) {
            best_free = in - over;
            best_s = s0;
        }
        in -= sp.v[i].len;
    }
    free(sp.v);
    if (best_free + budget < size)
        return GR_E_NO_MEMORY;
    uint64_t lo = best_s > size / 2 ? align_up(best_s - size / 2, GR_SEG_UNIT) : 0;
    uint64_t hi = st.size - best_s > size + size / 2 ? align_up(best_s + size + size / 2, GR_SEG_UNIT) : st.size;
    return gr_vpol_make_room(seg, pol, size, alignment, lo, hi, flags & GR_SEG_PINNED, budget, out_offset,
                             out_cost);
}
