/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_segment.h: VidMm's range allocator for one VRAM segment (private to host/dxgk).
 *
 * A segment is [0, size) bytes handed out in 4 KiB units. Each allocation is one contiguous,
 * aligned block, optionally restricted to a range [range_lo, range_hi) and placed from the top
 * (FromEndOfSegment) or from the bottom. Placement is exact and deterministic:
 *   - bottom-up: segregated fit: among the free ranges that can hold the block (aligned, inside
 *     the range), those in the smallest size bin (free-range lengths binned by half-octaves:
 *     [2^k, 1.5*2^k) and [1.5*2^k, 2^(k+1)) pages), the lowest of these; the block goes at its
 *     lowest aligned offset;
 *   - top-down:  the highest aligned offset at which the block fits inside the range.
 * Freed blocks coalesce with free neighbours at once, so free space is always a set of maximal
 * free ranges. Design and costs: host/dxgk/vidmm/SEGMENT.md.
 *
 * Every fallible call returns a gr_status_t; outputs go through out_ pointers and are left
 * untouched on failure, and a failed call changes nothing. Not thread-safe: VidMm holds its
 * segment lock around every call.
 */
#ifndef GPUREF_DXGK_VIDMM_SEGMENT_H
#define GPUREF_DXGK_VIDMM_SEGMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuref/gr_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GR_API
#define GR_API __attribute__((warn_unused_result))
#endif

/** The allocation unit (and the smallest alignment): one 4 KiB page. */
#define GR_SEG_UNIT UINT64_C(4096)
/** Largest segment size accepted by gr_seg_init (1 TiB: page numbers and keys fit 32 bits). */
#define GR_SEG_MAX_SIZE (UINT64_C(1) << 40)
/** gr_seg_alloc flag: place the block as high as possible (FromEndOfSegment). */
#define GR_SEG_TOP_DOWN 0x1u
/**
 * gr_seg_alloc flag: segregated fit from the top: in the smallest bin that holds the block, the
 * highest hole, and in it the highest aligned offset (as cheap as bottom-up; not the highest
 * offset of the segment). Not with GR_SEG_TOP_DOWN.
 */
#define GR_SEG_HIGH_FIT 0x2u
/**
 * gr_seg_alloc flag, with any of the others: the block never moves while it lives (Overlay/
 * Capture, VPR content). Pinned blocks are kept in an index of their own, so that
 * gr_seg_fit_unpinned answers without a walk; freed as any other.
 */
#define GR_SEG_PINNED 0x4u
/** As range_hi of gr_seg_alloc: the end of the segment. */
#define GR_SEG_END UINT64_C(0)

typedef struct gr_seg gr_seg_t;

/** A snapshot of the segment's counters (every field is kept up to date; reading is O(1)). */
typedef struct gr_seg_stats {
    uint64_t size;           /**< segment size in bytes */
    uint64_t free_bytes;     /**< sum of all free ranges */
    uint64_t largest_free;   /**< size of the largest free range (0 when full) */
    uint64_t free_fragments; /**< number of maximal free ranges */
    uint64_t allocations;    /**< number of live allocations */
} gr_seg_stats_t;

/**
 * Callback of gr_seg_walk: one allocation (is_free false) or one maximal free range (is_free
 * true). Return false to stop the walk.
 */
typedef bool (*gr_seg_walk_fn)(void *ctx, uint64_t offset, uint64_t size, bool is_free);

/**
 * Creates an allocator for a segment of @p size bytes, all free.
 * @param size  a multiple of GR_SEG_UNIT in [GR_SEG_UNIT, GR_SEG_MAX_SIZE]
 * @param[out] out_seg  the new allocator; untouched on failure
 * @return GR_OK, GR_E_INVALID (bad size or NULL out_seg), GR_E_NO_MEMORY (host malloc failed)
 */
GR_API gr_status_t gr_seg_init(uint64_t size, gr_seg_t **out_seg);

/** Destroys the allocator and forgets every allocation in it; NULL is allowed. */
void gr_seg_fini(gr_seg_t *seg);

/**
 * Allocates one contiguous block. An unrestricted bottom-up request costs O(log n) for n free
 * ranges when the alignment is 4 KiB, 64 KiB or 2 MiB (other alignments prune with the class
 * below them); top-down and range-restricted requests cost O(bins * log n) at worst, bins <= 58
 * (usually one or two descents).
 * @param size       bytes, > 0; rounded up to a multiple of GR_SEG_UNIT
 * @param alignment  bytes, a power of two >= GR_SEG_UNIT; 0 means GR_SEG_UNIT
 * @param range_lo   the block starts at or above this offset (a multiple of GR_SEG_UNIT)
 * @param range_hi   the block ends at or below this offset (a multiple of GR_SEG_UNIT);
 *                   GR_SEG_END (0) means the end of the segment
 * @param flags      0 (bottom-up: segregated fit, see above), GR_SEG_TOP_DOWN (the highest
 *                   fitting offset) or GR_SEG_HIGH_FIT; or-ed with GR_SEG_PINNED for a block
 *                   that never moves
 * @param[out] out_offset  the block's offset in bytes; untouched on failure
 * @return GR_OK; GR_E_INVALID (NULL pointer, zero size, alignment not a power of two or below
 *         4 KiB, range unaligned, empty or past the end, unknown flag, TOP_DOWN with HIGH_FIT);
 *         GR_E_NO_MEMORY (no free range holds the block with that alignment in that range, or
 *         host memory for the bookkeeping ran out). Nothing changes on failure.
 */
GR_API gr_status_t gr_seg_alloc(gr_seg_t *seg, uint64_t size, uint64_t alignment, uint64_t range_lo,
                                uint64_t range_hi, uint32_t flags, uint64_t *out_offset);

/**
 * Frees the block that starts at @p offset and merges it with the free ranges next to it.
 * O(log n); never allocates host memory, so it cannot fail for a valid offset.
 * @return GR_OK, GR_E_INVALID (NULL seg, or no live block starts at offset: unknown offset,
 *         offset inside a block, double free). Nothing changes on failure.
 */
GR_API gr_status_t gr_seg_free(gr_seg_t *seg, uint64_t offset);

/**
 * Whether an aligned block of @p size could be placed in [range_lo, range_hi) if every block
 * but the pinned ones (GR_SEG_PINNED) were moved away: some aligned [s, s + size) inside the
 * range overlaps no pinned block. What VidMm asks before it looks for allocations to move.
 * O(bins * log p) for p pinned blocks; O(1) when there are none.
 * @return GR_OK (such a window exists), GR_E_NO_MEMORY (none does), GR_E_INVALID (arguments as
 *         gr_seg_alloc's)
 */
GR_API gr_status_t gr_seg_fit_unpinned(const gr_seg_t *seg, uint64_t size, uint64_t alignment, uint64_t range_lo,
                                       uint64_t range_hi);

/**
 * The segment's counters.
 * @param[out] out_stats  untouched on failure
 * @return GR_OK, GR_E_INVALID (NULL pointer)
 */
GR_API gr_status_t gr_seg_stats(const gr_seg_t *seg, gr_seg_stats_t *out_stats);

/**
 * The size of the live block that starts at @p offset (as rounded by gr_seg_alloc). O(1).
 * @param[out] out_size  untouched on failure
 * @return GR_OK, GR_E_INVALID (NULL pointer, or no live block starts there)
 */
GR_API gr_status_t gr_seg_block_size(const gr_seg_t *seg, uint64_t offset, uint64_t *out_size);

/**
 * Calls @p fn for every allocation and every maximal free range in address order; together
 * they tile [0, size) (for drawing a segment map). O(n). The segment must not change during
 * the walk.
 * @return GR_OK (also when fn stopped the walk), GR_E_INVALID (NULL seg or fn)
 */
GR_API gr_status_t gr_seg_walk(const gr_seg_t *seg, gr_seg_walk_fn fn, void *ctx);

/**
 * Calls @p fn (is_free true) for every maximal free range of at least @p min_size bytes, in
 * no particular order (by size class, each class in address order). O(bins + k log n) for k
 * ranges reported: the size index skips the subtrees with nothing that long.
 * @return GR_OK (also when fn stopped), GR_E_INVALID (NULL seg or fn)
 */
GR_API gr_status_t gr_seg_walk_free(const gr_seg_t *seg, uint64_t min_size, gr_seg_walk_fn fn, void *ctx);

/**
 * Calls @p fn, in address order, for every allocation and maximal free range that overlaps
 * [lo, hi) (the first and the last may reach past it). O(bins * log n) to find where to start,
 * then O(1) per element from the highest free range that starts at or below lo (the blocks
 * between it and lo are stepped over). The segment must not change during the walk.
 * @param hi  GR_SEG_END (0) means the end of the segment
 * @return GR_OK (also when fn stopped the walk), GR_E_INVALID (NULL seg or fn, bounds not
 *         multiples of GR_SEG_UNIT, empty or past the end)
 */
GR_API gr_status_t gr_seg_walk_range(const gr_seg_t *seg, uint64_t lo, uint64_t hi, gr_seg_walk_fn fn,
                                     void *ctx);

/**
 * Verifies every internal invariant (the bins' arrays in order, tree order and balance, the size
 * indexes, counters, no two free ranges touching, blocks tiling the segment). O(n): for tests
 * and debug builds.
 * @return GR_OK, or GR_E_INVALID when seg is NULL or an invariant is broken
 */
GR_API gr_status_t gr_seg_check(const gr_seg_t *seg);

#ifdef __cplusplus
}
#endif

#endif
