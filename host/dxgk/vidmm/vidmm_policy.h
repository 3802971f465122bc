/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_policy.h: VidMm's placement inside one segment, on top of the range allocator
 * (vidmm_segment.h): ordinary allocations kept out of the ranges that range-restricted
 * requests need (Overlay/Capture in the last 20% of a segment), and room made for a request
 * that does not fit by moving movable allocations. Private to host/dxgk/vidmm; bench/alloc
 * runs the same code. Design and measurements: SEGMENT.md, "Placement around pinned ranges".
 *
 * Every call returns a gr_status_t; a failed call changes nothing (and reports no move). Not
 * thread-safe: VidMm holds its segment lock around every call.
 */
#ifndef GPUREF_DXGK_VIDMM_POLICY_H
#define GPUREF_DXGK_VIDMM_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "vidmm_segment.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Whether the allocation at @p offset may be moved now, and how it was asked for (its alignment,
 * and 0 or GR_SEG_TOP_DOWN), so that it is placed again as gr_vpol_place would place it.
 */
typedef bool (*gr_vpol_movable_fn)(void *ctx, uint64_t offset, uint64_t *out_alignment, uint32_t *out_flags);

/** The allocation that was at @p from is now at @p to; the caller copies its size bytes. */
typedef void (*gr_vpol_moved_fn)(void *ctx, uint64_t from, uint64_t to, uint64_t size);

/** How VidMm places in one segment. */
typedef struct gr_vpol {
    /** Ordinary (unrestricted) allocations go in [keep_lo, keep_hi) first (multiples of
     *  GR_SEG_UNIT, else GR_E_INVALID), and in the rest of
     *  the segment only when that window cannot hold them; keep_lo = keep_hi = 0 turns it off. */
    uint64_t keep_lo, keep_hi;
    /** NULL: nothing ever moves (a failed request just fails). */
    gr_vpol_movable_fn movable;
    gr_vpol_moved_fn moved;
    void *ctx;
} gr_vpol_t;

/** What one gr_vpol_place moved. */
typedef struct gr_vpol_cost {
    uint64_t moves; /**< allocations moved */
    uint64_t bytes; /**< bytes they hold */
} gr_vpol_cost_t;

/**
 * Places one allocation.
 *  - Unrestricted ([range_lo, range_hi) is the whole segment): in [keep_lo, keep_hi) first, then
 *    anywhere; in the direction asked for: 0 is bottom-up (segregated fit), GR_SEG_TOP_DOWN the
 *    high end of the window by segregated fit (GR_SEG_HIGH_FIT: the highest hole of the
 *    smallest size class that holds it, and the highest offset in that hole).
 *  - Restricted: inside the range, as asked.
 *  - GR_SEG_PINNED (or-ed into flags): the block never moves (gr_seg_alloc); the movable
 *    callback must say false for it.
 *  - When that fails and pol->movable is set: room is made by moving movable allocations out
 *    of the cheapest window that holds the request (gr_vpol_make_room); for an unrestricted
 *    request only around the largest free range, and only up to half its size in moves.
 * @param[out] out_offset  untouched on failure
 * @param[out] out_cost    what was moved (zero when nothing moved); may be NULL
 * @return as gr_seg_alloc
 */
GR_API gr_status_t gr_vpol_place(gr_seg_t *seg, const gr_vpol_t *pol, uint64_t size, uint64_t alignment,
                                 uint64_t range_lo, uint64_t range_hi, uint32_t flags, uint64_t *out_offset,
                                 gr_vpol_cost_t *out_cost);

/**
 * Makes room for a block in [range_lo, range_hi) by moving movable allocations. The window is
 * the aligned [s, s + size) inside the range that no unmovable allocation overlaps and that
 * holds the fewest bytes of movable ones (one that overlaps the window moves whole); the lowest
 * such window on ties. Each of its movable allocations is placed again outside the window as
 * gr_vpol_place places an unrestricted one (without moving others), pol->moved is called for
 * it, and the block goes at s. O(allocations and free ranges in the range) plus one placement
 * per move.
 * First asks gr_seg_fit_unpinned: when the pinned blocks leave no window it fails at once.
 * @param flags      0, or GR_SEG_PINNED for a block that never moves (the request's own)
 * @param max_bytes  move at most this many bytes (0: no limit)
 * @return GR_OK; GR_E_INVALID (bad arguments, as gr_seg_alloc, or no pol->movable/moved);
 *         GR_E_NO_MEMORY (no window, more than max_bytes to move, or its allocations do not all
 *         fit elsewhere). Nothing changes on failure.
 */
GR_API gr_status_t gr_vpol_make_room(gr_seg_t *seg, const gr_vpol_t *pol, uint64_t size, uint64_t alignment,
                                     uint64_t range_lo, uint64_t range_hi, uint32_t flags, uint64_t max_bytes,
                                     uint64_t *out_offset, gr_vpol_cost_t *out_cost);

#ifdef __cplusplus
}
#endif

#endif
