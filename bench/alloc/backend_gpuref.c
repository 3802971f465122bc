/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_gpuref.c: VidMm's placement in one segment under bench_alloc: the segment allocator
 * (host/dxgk/vidmm/vidmm_segment.c) with VidMm's policy around the pinned range
 * (host/dxgk/vidmm/vidmm_policy.c): ordinary requests kept out of the trace's two ranges while
 * they fit elsewhere, and a request that does not fit gets room by moving ordinary (movable)
 * allocations (gr_vpol_place). Moves are reported to the harness (bench_alloc.h).
 */
#include <stdlib.h>
#include <string.h>

#include "bench_alloc.h"
#include "vidmm_policy.h"
#include "vidmm_segment.h"

#define PAGE GR_SEG_UNIT
#define NO_ID UINT32_MAX

typedef struct gpuref_be {
    gr_seg_t *seg;
    gr_vpol_t pol;
    uint64_t *offset; /* by trace id */
    const bench_req_t **req; /* by trace id: how each live block was asked for */
    uint32_t *id_at;  /* by first page of each live block: its trace id */
    bench_move_fn on_move;
    void *move_ctx;
} gpuref_be_t;

static bool be_movable(void *ctx, uint64_t offset, uint64_t *out_align, uint32_t *out_flags);
static void be_moved(void *ctx, uint64_t from, uint64_t to, uint64_t size);

static void *gpuref_create(uint64_t seg_pages, uint32_t max_ids)
{
    gpuref_be_t *b = calloc(1, sizeof *b);
    if (b == NULL)
        return NULL;
    b->offset = calloc(max_ids ? max_ids : 1, sizeof *b->offset);
    b->req = calloc(max_ids ? max_ids : 1, sizeof *b->req);
    b->id_at = malloc(seg_pages * sizeof *b->id_at);
    if (b->offset == NULL || b->req == NULL || b->id_at == NULL ||
        gr_seg_init(seg_pages * PAGE, &b->seg) != GR_OK) {
        free(b->offset);
        free(b->req);
        free(b->id_at);
        free(b);
        return NULL;
    }
    /* Touched now, not on first use inside a timed operation (a page fault costs microseconds). */
    memset(b->id_at, 0xff, seg_pages * sizeof *b->id_at);
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
    free(b->id_at);
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
    const bench_req_t *q = b->req[b->id_at[offset / PAGE]];
    if (q->ranged)
        return false;
    *out_align = q->align * PAGE;
    *out_flags = q->top_down ? GR_SEG_TOP_DOWN : 0;
    return true;
}

static void be_moved(void *ctx, uint64_t from, uint64_t to, uint64_t size)
{
    gpuref_be_t *b = ctx;
    uint32_t id = b->id_at[from / PAGE];
    b->id_at[to / PAGE] = id;
    b->offset[id] = to;
    if (b->on_move)
        b->on_move(b->move_ctx, id, to / PAGE, size / PAGE);
}

static bool gpuref_alloc(void *p, uint32_t id, const bench_req_t *r, uint64_t *out_start)
{
    gpuref_be_t *b = p;
    uint64_t off;
    if (gr_vpol_place(b->seg, &b->pol, r->pages * PAGE, r->align * PAGE, r->lo * PAGE, r->hi * PAGE,
                      (r->top_down ? GR_SEG_TOP_DOWN : 0) | (r->ranged ? GR_SEG_PINNED : 0), &off, NULL) != GR_OK)
        return false;
    b->offset[id] = off;
    b->req[id] = r;
    b->id_at[off / PAGE] = id;
    *out_start = off / PAGE;
    return true;
}

static void gpuref_free(void *p, uint32_t id)
{
    gpuref_be_t *b = p;
    if (gr_seg_free(b->seg, b->offset[id]) != GR_OK)
        abort(); /* the bench only frees what it allocated */
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

const bench_backend_t bench_gpuref = {
    .name = "gpuref",
    .create = gpuref_create,
    .destroy = gpuref_destroy,
    .alloc = gpuref_alloc,
    .free = gpuref_free,
    .free_ranges = gpuref_free_ranges,
    .set_mover = gpuref_set_mover,
};
