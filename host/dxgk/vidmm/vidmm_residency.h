/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_residency.h: VidMm's residency and eviction (private to host/dxgk; README.md,
 * "Residency").
 *
 * Every kernel allocation that lives in a segment is either resident (segment + offset: what
 * placement gave it) or evicted: its content in host memory the DMA engine reaches (a backing
 * store from the link's DMA allocator, or the PermanentSysMem copy), its segment space given
 * back, its GPU VAs unmapped in every device that has it open (an access faults), the
 * miniport told (NOTIFY_RESIDENCY) when it asked to be. Content moves only on the DMA engine:
 * VidMm builds paging buffers with DxgkDdiBuildPagingBuffer (TRANSFER between the segment and an
 * MDL of the host pages, or DISCARD_CONTENT for a clean PermanentSysMem allocation) and runs
 * them through VidSch's paging queue, waiting for their fences.
 *
 * When: placement that finds no room evicts least-recently-used allocations from the segments
 * the new one may use (only where evicting can make room), or, when the new one may use only
 * part of a segment (Overlay/Capture), first moves them out of that part inside the segment
 * (a VRAM -> VRAM TRANSFER: relocation); a submission pages in every
 * allocation it lists before the packet is queued, and the packet's GPU references keep them
 * resident until it retires; a lock pages an evicted allocation in (PermanentSysMem returns
 * its copy); gr_alloc_make_resident / gr_alloc_evict ask explicitly. Never evicted (pinned):
 * Overlay/Capture, VPR allocations (CreateInVpr/HardwareProtected), locked ones, caller-backed
 * ones (they live in system memory), and any allocation a packet in flight lists.
 *
 * The residency lock guards every allocation's residency state, its list of opens and every
 * device's GPU VA space (page tables follow residency). Order: process->lock, the residency
 * lock, VidSch's locks, vidmm_lock, ... (dxgk_objects.h). VidMm holds it while it waits for a
 * paging buffer; the scheduler, interrupt and DPC threads never take it. A submission that
 * must wait for packets in flight to retire releases it while it waits.
 */
#ifndef GPUREF_DXGK_VIDMM_RESIDENCY_H
#define GPUREF_DXGK_VIDMM_RESIDENCY_H

#include <stdbool.h>
#include <stdint.h>

#include "d3dkmddi.h"
#include "dxgk_objects.h"
#include "gpuref/gr_alloc.h"

/* Bytes of one TRANSFER (one MDL, one paging packet): bounds a paging packet's run time far
 * below the TDR timeout (4 MiB is about 0.7 M cycles on sim:// with stalling bus models). */
#define DXGK_RES_TRANSFER_CHUNK (UINT64_C(4) << 20)
/* Page-table pages kept aside so that a page-in can map its VAs when the heaps are full. */
#define DXGK_RES_PT_RESERVE 8u
#define DXGK_RES_PT_RESERVE_MAX 64u

/* ---- adapter life ---- */

/** After the segments are known: the lock, the lists, the page-table reserve. */
gr_status_t dxgk_res_init(gr_adapter_t *ad);
/** Every allocation is gone: frees what dxgk_res_init made. NULL-safe. */
void dxgk_res_fini(gr_adapter_t *ad);

void dxgk_res_lock(gr_adapter_t *ad);
void dxgk_res_unlock(gr_adapter_t *ad);

/* ---- creation and destruction (residency lock held) ---- */

/**
 * Places ka (vidmm_lock taken inside), relocating or evicting least-recently-used allocations
 * from its segments while it does not fit and that can make room. Never waits for the GPU.
 * @return GR_OK, GR_E_NO_MEMORY (nothing evictable makes room; nothing was evicted when no
 *         segment could ever hold it), paging errors
 */
gr_status_t dxgk_res_place(gr_adapter_t *ad, dxgk_kalloc_t *ka);

/**
 * Zeroes the stale pages (dxgk_segment_t.stale) of allocations just placed, with FILL paging
 * operations on the engine, and waits for them: VRAM keeps what earlier allocations, processes
 * and users of the device left there, and no process may read what another wrote. Pages no
 * allocation has used since the device was made cost nothing.
 * @return GR_OK, GR_E_UNSUPPORTED (no paging: the caller zeroes through the aperture), or the
 *         paging error (the caller unplaces the allocations, which makes their pages stale again)
 */
gr_status_t dxgk_res_zero_stale(gr_adapter_t *ad, dxgk_kalloc_t *const *kas, uint32_t count);

/** A placed VRAM allocation joins the residency list (NOTIFY_RESIDENCY committed, if asked). */
void dxgk_res_track(gr_adapter_t *ad, dxgk_kalloc_t *ka);

/** A dying allocation leaves the list: no longer a victim. */
void dxgk_res_untrack(gr_adapter_t *ad, dxgk_kalloc_t *ka);

/** After DxgkDdiDestroyAllocation: gives back its segment space or its backing store. */
void dxgk_res_release(gr_adapter_t *ad, dxgk_kalloc_t *ka);

/** Tops the page-table reserve up to pages (at least DXGK_RES_PT_RESERVE), evicting if needed. */
void dxgk_res_reserve_pt(gr_adapter_t *ad, uint32_t pages);

/**
 * A PermanentSysMem copy of bytes: host memory the engine reaches (the link's DMA allocator),
 * zeroed; plain memory when the link has none (then nothing is ever evicted).
 */
gr_status_t dxgk_res_sys_copy_alloc(gr_adapter_t *ad, dxgk_kalloc_t *ka, uint64_t bytes);
void dxgk_res_sys_copy_free(gr_adapter_t *ad, dxgk_kalloc_t *ka);

/* ---- opens (take the residency lock) ---- */

/** Gives the open its GPU VA (mapped if the allocation is resident) and lists it on ka. */
gr_status_t dxgk_res_attach_open(gr_adapter_t *ad, dxgk_open_t *op);
/** Unmaps the open and takes it off ka's list. */
void dxgk_res_detach_open(gr_adapter_t *ad, dxgk_open_t *op);

/* ---- use ---- */

/** Pages ka in if it is evicted (residency lock held). @return as dxgk_res_submit_begin
 * (vidmm_packet.h) */
gr_status_t dxgk_res_page_in(gr_adapter_t *ad, dxgk_kalloc_t *ka);

/** Marks ka used now (LRU; residency lock held). */
void dxgk_res_touch(gr_adapter_t *ad, dxgk_kalloc_t *ka);

/** Why ka cannot be evicted now: GR_PIN_* bits, 0 if it can (residency lock held). */
uint32_t dxgk_res_pin_reasons(gr_adapter_t *ad, const dxgk_kalloc_t *ka);

/** gr_alloc_info_t.residency of ka (residency lock held). */
uint32_t dxgk_res_state(const dxgk_kalloc_t *ka);

/** A page-table page from the reserve when the heaps are full (vidmm_lock held), a zero one if
 *  it has one (*out_zeroed; dxgk_res_zero_stale clears the reserve's stale pages with FILLs in
 *  the creation's paging packet). */
bool dxgk_res_pt_take(gr_adapter_t *ad, uint64_t *out_pa, bool *out_zeroed);
/** A zero page of the reserve for pa, which may hold an old table and takes its place there
 *  (cleared by the next creation's packet); false when the reserve has no zero page. */
bool dxgk_res_pt_swap(gr_adapter_t *ad, uint64_t pa, uint64_t *out_pa);

/** The residency counters into gr_adapter_stats_t. */
void dxgk_res_stats(gr_adapter_t *ad, gr_adapter_stats_t *out);

/* ---- test hooks (tb/system/test_residency.c) ---- */

/**
 * Takes every free byte of a segment but leave_bytes (the low end of its largest free range)
 * out of use, as if something VidMm cannot evict held it: a small window of one segment for
 * tests, with the other segments' layout kept. Undone by gr_vidmm_test_unreserve or adapter close.
 * @return GR_OK, GR_E_INVALID (no such segment), GR_E_NO_MEMORY (less than leave_bytes free
 *         in one range), GR_E_RANGE (too many reserved blocks)
 */
gr_status_t gr_vidmm_test_reserve(gr_adapter_t *adapter, uint32_t segment, uint64_t leave_bytes);
/** The same inside [lo, hi) of the segment only (bytes, multiples of 4 KiB): the rest of it keeps its free space. */
gr_status_t gr_vidmm_test_reserve_range(gr_adapter_t *adapter, uint32_t segment, uint64_t lo, uint64_t hi,
                                        uint64_t leave_bytes);
void gr_vidmm_test_unreserve(gr_adapter_t *adapter);

/**
 * Makes every paging buffer look only bytes long to DxgkDdiBuildPagingBuffer (0: its real
 * size), so operations take several buffers (MultipassOffset).
 */
void gr_vidmm_test_set_paging_buffer_bytes(gr_adapter_t *adapter, uint32_t bytes);

/** The miniport's hAllocation behind a handle (for gr_kmd_alloc_residency), or NULL. */
HANDLE gr_vidmm_test_hallocation(gr_gpu_device_t *device, gr_alloc_t handle);

#endif
