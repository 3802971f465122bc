/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_drm_mm.c: Linux's drm_mm (drivers/gpu/drm/drm_mm.c, extracted from linux-source-6.1 at
 * build time) driven the way TTM's range manager drives it (ttm_range_man_alloc): one node per
 * buffer, in page units, DRM_MM_INSERT_BEST, or DRM_MM_INSERT_HIGH for TTM_PL_FLAG_TOPDOWN,
 * with the placement's [fpfn, lpfn) as the range and the buffer's page_alignment.
 * Built with the kernel shim (kshim/), -std=gnu11.
 */
#include <drm/drm_mm.h>

#include "bench_alloc.h"

struct mm_be {
    struct drm_mm mm;
    struct drm_mm_node *nodes; /* by trace id, as TTM embeds one in each resource */
};

static void *mm_create(uint64_t seg_pages, uint32_t max_ids)
{
    struct mm_be *b = calloc(1, sizeof(*b));
    if (!b)
        return NULL;
    b->nodes = calloc(max_ids ? max_ids : 1, sizeof(*b->nodes));
    if (!b->nodes) {
        free(b);
        return NULL;
    }
    bench_touch(b->nodes, (max_ids ? max_ids : 1) * sizeof(*b->nodes));
    drm_mm_init(&b->mm, 0, seg_pages);
    return b;
}

static void mm_destroy(void *p)
{
    struct mm_be *b = p;
    struct drm_mm_node *node, *next;

    drm_mm_for_each_node_safe(node, next, &b->mm) drm_mm_remove_node(node);
    drm_mm_takedown(&b->mm);
    free(b->nodes);
    free(b);
}

static bool mm_alloc(void *p, uint32_t id, const bench_req_t *r, uint64_t *out_start)
{
    struct mm_be *b = p;
    struct drm_mm_node *node = &b->nodes[id];

    /* TTM hands drm_mm a zeroed node (kzalloc of the resource). */
    memset(node, 0, sizeof(*node));
    if (drm_mm_insert_node_in_range(&b->mm, node, r->pages, r->align, 0, r->lo, r->hi,
                                    r->top_down ? DRM_MM_INSERT_HIGH : DRM_MM_INSERT_BEST))
        return false;
    *out_start = node->start;
    return true;
}

static void mm_free(void *p, uint32_t id)
{
    struct mm_be *b = p;

    drm_mm_remove_node(&b->nodes[id]);
}

static void mm_free_ranges(void *p, bench_range_fn fn, void *ctx)
{
    struct mm_be *b = p;
    struct drm_mm_node *pos;
    u64 hole_start, hole_end;

    drm_mm_for_each_hole(pos, &b->mm, hole_start, hole_end)
        fn(ctx, hole_start, hole_end - hole_start);
}

const bench_backend_t bench_drm_mm = {
    .name = "drm_mm",
    .create = mm_create,
    .destroy = mm_destroy,
    .alloc = mm_alloc,
    .free = mm_free,
    .free_ranges = mm_free_ranges,
};
