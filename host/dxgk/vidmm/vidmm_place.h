/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_place.h: where an allocation lives (vidmm_place.c): placement in the segments, the
 * stale pages a new allocation must not see, page-table pages from the segments' heaps, and the
 * GPU VA mapping of an open. Residency (vidmm_residency.c) and the allocation API
 * (vidmm_alloc.c) call down into it. Private to host/dxgk/vidmm.
 */
#ifndef GPUREF_DXGK_VIDMM_PLACE_H
#define GPUREF_DXGK_VIDMM_PLACE_H

#include <stdbool.h>
#include <stdint.h>

#include "d3dkmddi.h"
#include "dxgk_objects.h"

/* Placement (vidmm_lock held). dxgk_place sets segment, offset, vram and in_vpr,
 * or fails with GR_E_NO_MEMORY changing nothing; dxgk_unplace gives the space back. */
gr_status_t dxgk_place(gr_adapter_t *ad, dxgk_kalloc_t *ka);
void dxgk_unplace(gr_adapter_t *ad, dxgk_kalloc_t *ka);
/* Relocation inside ka's segment (vidmm_lock held). dxgk_place_outside books a new place for
 * ka in its window but outside [lo, hi) and gives its offset (ka unchanged), GR_E_NO_MEMORY
 * when there is none; dxgk_move_to moves ka's bookkeeping there once its content is copied
 * (the old pages become stale, the new ones are not); dxgk_place_drop gives a booked place
 * back when the copy failed (its pages are stale). */
gr_status_t dxgk_place_outside(gr_adapter_t *ad, const dxgk_kalloc_t *ka, uint64_t lo, uint64_t hi, uint64_t *out_off);
void dxgk_move_to(gr_adapter_t *ad, dxgk_kalloc_t *ka, uint64_t off);
void dxgk_place_drop(gr_adapter_t *ad, const dxgk_kalloc_t *ka, uint64_t off);
/* The next run of ka's stale pages (dxgk_segment_t.stale) at or after byte *from of ka, as a
 * byte offset into ka and a length; the run is no longer stale (the caller zeroes it, or
 * unplaces ka, which marks all of ka stale again). False when no stale page is left. */
bool dxgk_stale_next(gr_adapter_t *ad, const dxgk_kalloc_t *ka, uint64_t *from, uint64_t *out_off, uint64_t *out_len);
/* ka's pages are no longer stale: a page-in writes all of them. */
void dxgk_stale_clear(gr_adapter_t *ad, const dxgk_kalloc_t *ka);
/* Where in a segment placement may put ka: [*lo, *hi); false when it may not use the segment
 * (not in its set) or takes no ordinary segment space (VPR, caller-backed). */
bool dxgk_place_window(const gr_adapter_t *ad, const dxgk_kalloc_t *ka, uint32_t segment, uint64_t *lo, uint64_t *hi);
/* ExistingSysMem / ExistingKernelSysMem: the caller's memory is the backing store. */
bool dxgk_caller_backed(const dxgk_kalloc_t *ka);
bool dxgk_flags_caller_backed(DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 fl);
/* Bytes the allocation takes: its size in whole pages. */
uint64_t dxgk_alloc_bytes(const dxgk_kalloc_t *ka);
/* One 4 KiB page-table page from the heaps (the CPU-invisible segment first); not zeroed:
 * *out_stale (may be NULL) says whether it may hold what an allocation or a table left. */
gr_status_t dxgk_pt_page_alloc(gr_adapter_t *ad, uint64_t *out_pa, bool *out_stale);
/* The same with vidmm_lock held, and a page back to its heap (vidmm_lock held). */
gr_status_t dxgk_pt_page_alloc_locked(gr_adapter_t *ad, uint64_t *out_pa, bool *out_stale);
void dxgk_pt_page_free_locked(gr_adapter_t *ad, uint64_t pa);

/* GPU VA of an open (residency lock held). map: gives the open a VA if it has
 * none and maps it to where the allocation is now (an evicted allocation keeps its VA
 * unmapped: an access faults); unmap: takes the mapping away, the VA stays the open's. */
gr_status_t dxgk_gpuva_map_open(dxgk_open_t *op);
void dxgk_gpuva_unmap_open(dxgk_open_t *op);

#endif
