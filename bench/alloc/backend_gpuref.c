/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_gpuref.c: VidMm's placement in one segment under bench_alloc: the segment allocator
 * (host/dxgk/vidmm/vidmm_segment.c) with VidMm's policy around the pinned range
 * (host/dxgk/vidmm/vidmm_policy.c): ordinary requests kept out of the trace's two ranges while
 * they fit elsewhere, and a request that does not fit gets room by moving ordinary (movable)
 * allocations (gr_vpol_place). Moves are reported to the harness (bench_alloc.h).
 */
#include <stdlib.h>

#include "bench_alloc.h"
#include "vidmm_policy.h"
#include "vidmm_segment.h"

#define PAGE GR_SEG_UNIT

/* Which trace id owns the live block that starts at a page: an open-addressing table (linear
 * probing, backward-shift deletion) kept at most half full, so it stays the size of the live
 * blocks (tens of KiB), not of the segment. Read only when blocks move. */
typedef struct owner_slot {
    uint32_t page; /* OWNER_EMPTY: free slot */
    uint32_t id;
} owner_slot_t;
#define OWNER_EMPTY UINT32_MAX

typedef struct gpuref_be {
    gr_seg_t *seg;
    gr_vpol_t pol;
    uint64_t *offset; /* by trace id */
    const bench_req_t **req; /* by trace id: how each live block was asked for */
    owner_slot_t *owner;     /* first page of each live block -> its trace id */
    uint32_t owner_mask, n_owner;
    bench_move_fn on_move;
    void *move_ctx;
} gpuref_be_t;

static inline uint32_t owner_home(const gpuref_be_t *b, uint32_t page)
{
    return (uint32_t)((page * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & b->owner_mask;
}

static uint32_t owner_find(const gpuref_be_t *b, uint32_t page)
{
    uint32_t i = owner_home(b, page);
    while (b->owner[i].page != page)
        i = (i + 1) & b->owner_mask; /* callers ask only for live blocks */
    return i;
}

static void owner_put_slot(owner_slot_t *tab, uint32_t mask, uint32_t page, uint32_t id)
{
    uint32_t i = (uint32_t)((page * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & mask;
    while (tab[i].page != OWNER_EMPTY)
        i = (i + 1) & mask;
    tab[i] = (owner_slot_t){page, id};
}

static bool owner_alloc(uint32_t cap, owner_slot_t **out)
{
    owner_slot_t *t = malloc((size_t)cap * sizeof *t);
    if (t == NULL)
        return false;
    for (uint32_t i = 0; i < cap; i++)
        t[i].page = OWNER_EMPTY;
    *out = t;
    return true;
}

/* Room for one more key; doubles (amortized O(1)). */
static bool owner_reserve(gpuref_be_t *b)
{
    uint32_t cap = b->owner_mask + 1;
    if ((b->n_owner + 1) * 2 <= cap)
        return true;
    owner_slot_t *t;
    if (!owner_alloc(cap * 2, &t))
        return false;
    for (uint32_t i = 0; i < cap; i++)
        if (b->owner[i].page != OWNER_EMPTY)
            owner_put_slot(t, cap * 2 - 1, b->owner[i].page, b->owner[i].id);
    free(b->owner);
    b->owner = t;
    b->owner_mask = cap * 2 - 1;
    return true;
}

static void owner_put(gpuref_be_t *b, uint32_t page, uint32_t id)
{
    owner_put_slot(b->owner, b->owner_mask, page, id);
    b->n_owner++;
}

static void owner_remove(gpuref_be_t *b, uint32_t page)
{
    uint32_t i = owner_find(b, page), j = i;
    for (;;) {
        j = (j + 1) & b->owner_mask;
        if (b->owner[j].page == OWNER_EMPTY)
            break;
        uint32_t home = owner_home(b, b->owner[j].page);
        bool stays = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
        if (!stays) {
            b->owner[i] = b->owner[j];
            i = j;
        }
    }
    b->owner[i].page = OWNER_EMPTY;
    b->n_owner--;
}

static bool be_movable(void *ctx, uint64_t offset, uint64_t *out_align, uint32_t *out_flags);
static void be_moved(void *ctx, uint64_t from, uint64_t to, uint64_t size);

static void *gpuref_create(uint64_t seg_pages, uint32_t max_ids)
{
    gpuref_be_t *b = calloc(1, sizeof *b);
    if (b == NULL)
        return NULL;
    b->offset = calloc(max_ids ? max_ids : 1, sizeof *b->offset);
    b->req = calloc(max_ids ? max_ids : 1, sizeof *b->req);
    b->owner_mask = 1023;
    if (b->offset == NULL || b->req == NULL || !owner_alloc(b->owner_mask + 1, &b->owner) ||
        gr_seg_init(seg_pages * PAGE, &b->seg) != GR_OK) {
        free(b->offset);
        free(b->req);
        free(b->owner);
        free(b);
        return NULL;
    }
    bench_touch(b->offset, (max_ids ? max_ids : 1) * sizeof *b->offset);
    bench_touch(b->req, (max_ids ? max_ids : 1) * sizeof *b->req);
    /* Ordinary allocations stay out of the two ranges the trace restricts requests to
     * (gen_req): the VPR (the first 1/16) and the Overlay/Capture range (the last 20%). */
    b->pol = (gr_vpol_t){.keep_lo = seg_pages / 16 * PAGE,
                         .keep_hi = seg_pages / 5 * 4 * PAGE,
                         .movable = be_movable,
                         .moved = be_moved,
                         .ctx = b};
    return b;
}

static void gpuref_destroy(void *p)
{
    gpuref_be_t *b = p;
    gr_seg_fini(b->seg);
    free(b->offset);
    free(b->req);
    free(b->owner);
    free(b);
}

static void gpuref_set_mover(void *p, bench_move_fn fn, void *ctx)
{
    gpuref_be_t *b = p;
    b->on_move = fn;
    b->move_ctx = ctx;
}

/* Ordinary (unranged) allocations may move; pinned and VPR ones never do. */
static bool be_movable(void *ctx, uint64_t offset, uint64_t *out_align, uint32_t *out_flags)
{
    gpuref_be_t *b = ctx;
    const bench_req_t *q = b->req[b->owner[owner_find(b, (uint32_t)(offset / PAGE))].id];
    if (q->ranged)
        return false;
    *out_align = q->align * PAGE;
    *out_flags = q->top_down ? GR_SEG_TOP_DOWN : 0;
    return true;
}

static void be_moved(void *ctx, uint64_t from, uint64_t to, uint64_t size)
{
    gpuref_be_t *b = ctx;
    uint32_t id = b->owner[owner_find(b, (uint32_t)(from / PAGE))].id;
    owner_remove(b, (uint32_t)(from / PAGE));
    owner_put(b, (uint32_t)(to / PAGE), id); /* one out, one in: no room needed */
    b->offset[id] = to;
    if (b->on_move)
        b->on_move(b->move_ctx, id, to / PAGE, size / PAGE);
}

static bool gpuref_alloc(void *p, uint32_t id, const bench_req_t *r, uint64_t *out_start)
{
    gpuref_be_t *b = p;
    uint64_t off;
    if (!owner_reserve(b))
        return false;
    if (gr_vpol_place(b->seg, &b->pol, r->pages * PAGE, r->align * PAGE, r->lo * PAGE, r->hi * PAGE,
                      (r->top_down ? GR_SEG_TOP_DOWN : 0) | (r->ranged ? GR_SEG_PINNED : 0), &off, NULL) != GR_OK)
        return false;
    b->offset[id] = off;
    b->req[id] = r;
    owner_put(b, (uint32_t)(off / PAGE), id);
    *out_start = off / PAGE;
    return true;
}

static void gpuref_free(void *p, uint32_t id)
{
    gpuref_be_t *b = p;
    if (gr_seg_free(b->seg, b->offset[id]) != GR_OK)
        abort(); /* the bench only frees what it allocated */
    owner_remove(b, (uint32_t)(b->offset[id] / PAGE));
}

struct walk_ctx {
    bench_range_fn fn;
    void *ctx;
};

static bool walk_free(void *ctx, uint64_t offset, uint64_t size, bool is_free)
{
    struct walk_ctx *w = ctx;
    if (is_free)
        w->fn(w->ctx, offset / PAGE, size / PAGE);
    return true;
}

static void gpuref_free_ranges(void *p, bench_range_fn fn, void *ctx)
{
    gpuref_be_t *b = p;
    struct walk_ctx w = {fn, ctx};
    if (gr_seg_walk(b->seg, walk_free, &w) != GR_OK)
        abort();
}

/* The segment allocator's own invariants (gr_seg_check: trees, indexes, table, pinned list). */
static bool gpuref_check(void *p)
{
    gpuref_be_t *b = p;
    return gr_seg_check(b->seg) == GR_OK;
}

const bench_backend_t bench_gpuref = {
    .name = "gpuref",
    .create = gpuref_create,
    .destroy = gpuref_destroy,
    .alloc = gpuref_alloc,
    .free = gpuref_free,
    .free_ranges = gpuref_free_ranges,
    .set_mover = gpuref_set_mover,
    .check = gpuref_check,
};
