/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_drm_buddy.c: Linux's drm_buddy (drivers/gpu/drm/drm_buddy.c, extracted from
 * linux-source-6.1 at build time), driven the way amdgpu_vram_mgr_new and
 * i915_ttm_buddy_man_alloc drive it. Built with the kernel shim (kshim/), -std=gnu11.
 *
 * Two backends:
 *  - drm_buddy: contiguous placement (TTM_PL_FLAG_CONTIGUOUS), the service a WDDM segment
 *    gives: size rounded up to the alignment and then to a power of two, min_block_size = that
 *    size (so one block, naturally aligned), then drm_buddy_block_trim() back to the requested
 *    size, as both drivers do.
 *  - drm_buddy-sg: amdgpu's default, non-contiguous placement: min_block_size = the alignment
 *    (4 KiB default), or 2 MiB (pages_per_block) for buffers of 2 MiB and more; size rounded up
 *    to min_block_size; the last block trimmed back. It returns a list of blocks that only a
 *    GPU page table can stitch together, so it is not a drop-in for a segment allocator
 *    (AccessedPhysically, scanout): it is measured for reference.
 * Both set DRM_BUDDY_TOPDOWN_ALLOCATION for top-down and DRM_BUDDY_RANGE_ALLOCATION when the
 * range is not the whole segment, as the drivers do for TTM_PL_FLAG_TOPDOWN and fpfn/lpfn.
 */
#include <drm/drm_buddy.h>

#include "bench_alloc.h"

#define BPAGE 4096ull

struct buddy_be {
    struct drm_buddy mm;
    struct list_head *blocks; /* by trace id */
    u64 size;
    bool contiguous;
};

static void *buddy_create_mode(uint64_t seg_pages, uint32_t max_ids, bool contiguous)
{
    struct buddy_be *b = calloc(1, sizeof(*b));
    if (!b)
        return NULL;
    b->blocks = calloc(max_ids ? max_ids : 1, sizeof(*b->blocks));
    b->size = seg_pages * BPAGE;
    b->contiguous = contiguous;
    if (!b->blocks || drm_buddy_init(&b->mm, b->size, BPAGE)) {
        free(b->blocks);
        free(b);
        return NULL;
    }
    bench_touch(b->blocks, (max_ids ? max_ids : 1) * sizeof(*b->blocks));
    return b;
}

static void *buddy_create(uint64_t seg_pages, uint32_t max_ids)
{
    return buddy_create_mode(seg_pages, max_ids, true);
}

static void *buddy_sg_create(uint64_t seg_pages, uint32_t max_ids)
{
    return buddy_create_mode(seg_pages, max_ids, false);
}

static void buddy_destroy(void *p)
{
    struct buddy_be *b = p;

    drm_buddy_fini(&b->mm);
    free(b->blocks);
    free(b);
}

static bool buddy_alloc(void *p, uint32_t id, const bench_req_t *r, uint64_t *out_start)
{
    struct buddy_be *b = p;
    struct list_head *blocks = &b->blocks[id];
    unsigned long flags = 0;
    u64 start = r->lo * BPAGE, end = r->hi * BPAGE;
    u64 want = r->pages * BPAGE, size, min_block;

    INIT_LIST_HEAD(blocks);
    if (r->top_down)
        flags |= DRM_BUDDY_TOPDOWN_ALLOCATION;
    if (r->ranged)
        flags |= DRM_BUDDY_RANGE_ALLOCATION;

    if (b->contiguous) {
        size = roundup_pow_of_two(round_up(want, r->align * BPAGE));
        min_block = size;
        if (size > end - start)
            return false; /* i915: -E2BIG */
    } else {
        u64 pages_per_block = max_t(u64, 512, r->align);

        min_block = r->align * BPAGE;
        if (want >= pages_per_block * BPAGE)
            min_block = pages_per_block * BPAGE;
        size = round_up(want, min_block);
    }
    if (drm_buddy_alloc_blocks(&b->mm, start, end, size, min_block, blocks, flags))
        return false;

    if (size != want) {
        /* Give back what the rounding took: the whole block (contiguous), or the last one. */
        struct drm_buddy_block *last;
        LIST_HEAD(temp);
        struct list_head *trim = blocks;
        u64 keep = want;

        if (!list_is_singular(blocks)) {
            last = list_last_entry(blocks, struct drm_buddy_block, link);
            list_move_tail(&last->link, &temp);
            trim = &temp;
            keep = drm_buddy_block_size(&b->mm, last) - (size - want);
        }
        drm_buddy_block_trim(&b->mm, keep, trim);
        if (!list_empty(&temp))
            list_splice_tail(trim, blocks);
    }
    if (b->contiguous)
        *out_start =
            drm_buddy_block_offset(list_first_entry(blocks, struct drm_buddy_block, link)) / BPAGE;
    else
        *out_start = UINT64_MAX;
    return true;
}

static void buddy_free(void *p, uint32_t id)
{
    struct buddy_be *b = p;

    drm_buddy_free_list(&b->mm, &b->blocks[id]);
}

static void buddy_free_ranges(void *p, bench_range_fn fn, void *ctx)
{
    struct buddy_be *b = p;
    struct drm_buddy_block *block;
    unsigned int order;

    for (order = 0; order <= b->mm.max_order; order++)
        list_for_each_entry(block, &b->mm.free_list[order], link)
            fn(ctx, drm_buddy_block_offset(block) / BPAGE,
               drm_buddy_block_size(&b->mm, block) / BPAGE);
}

const bench_backend_t bench_drm_buddy = {
    .name = "drm_buddy",
    .create = buddy_create,
    .destroy = buddy_destroy,
    .alloc = buddy_alloc,
    .free = buddy_free,
    .free_ranges = buddy_free_ranges,
};

const bench_backend_t bench_drm_buddy_scatter = {
    .name = "drm_buddy-sg",
    .create = buddy_sg_create,
    .destroy = buddy_destroy,
    .alloc = buddy_alloc,
    .free = buddy_free,
    .free_ranges = buddy_free_ranges,
};
