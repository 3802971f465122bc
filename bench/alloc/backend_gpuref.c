/* SPDX-License-Identifier: Apache-2.0 */
/* backend_gpuref.c: VidMm's segment allocator (host/dxgk/vidmm/vidmm_segment.c) under bench_alloc. */
#include <stdlib.h>

#include "bench_alloc.h"
#include "vidmm_segment.h"

#define PAGE GR_SEG_UNIT

typedef struct gpuref_be {
    gr_seg_t *seg;
    uint64_t *offset; /* by trace id */
} gpuref_be_t;

static void *gpuref_create(uint64_t seg_pages, uint32_t max_ids)
{
    gpuref_be_t *b = calloc(1, sizeof *b);
    if (b == NULL)
        return NULL;
    b->offset = calloc(max_ids ? max_ids : 1, sizeof *b->offset);
    if (b->offset == NULL || gr_seg_init(seg_pages * PAGE, &b->seg) != GR_OK) {
        free(b->offset);
        free(b);
        return NULL;
    }
    return b;
}

static void gpuref_destroy(void *p)
{
    gpuref_be_t *b = p;
    gr_seg_fini(b->seg);
    free(b->offset);
    free(b);
}

static bool gpuref_alloc(void *p, uint32_t id, const bench_req_t *r, uint64_t *out_start)
{
    gpuref_be_t *b = p;
    uint64_t off;
    if (gr_seg_alloc(b->seg, r->pages * PAGE, r->align * PAGE, r->lo * PAGE, r->hi * PAGE,
                     r->top_down ? GR_SEG_TOP_DOWN : 0, &off) != GR_OK)
        return false;
    b->offset[id] = off;
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
};
