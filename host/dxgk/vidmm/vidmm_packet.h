/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_packet.h: what VidSch asks of VidMm, and all it may ask (the one header of VidMm that
 * VidSch includes; README.md, "Layout"): make a packet's allocation list resident before the
 * packet is queued and release it after, and map a DMA buffer into its device's GPU virtual
 * address space (vidmm_residency.c, vidmm_dmabuf.c).
 *
 * DMA buffers in their device's GPU virtual address space:
 * A user context's packets run unprivileged: the engine lets them name GPU virtual addresses
 * only (rtl/dma/README.md, "Privilege"). So that a packet can still write timestamps and read
 * back into its own DMA buffer, or WAIT on a qword there, each DMA buffer is mapped, read-write
 * with SYSTEM PTEs, into the address space of the device that created it, as a UMD's command
 * buffers are GPU-VA allocations under WDDM 2.0. No other device's space maps it, and nothing
 * else in host memory (the ring, the fence record, other DMA buffers, paging buffers) is mapped
 * in any process's space.
 */
#ifndef GPUREF_DXGK_VIDMM_PACKET_H
#define GPUREF_DXGK_VIDMM_PACKET_H

#include <stdint.h>

#include "d3dkmddi.h"
#include "dxgk_objects.h"

/**
 * Maps [bus, bus + bytes) (page aligned, as gr_link dma_alloc gives it) at a new VA of dev.
 * @param[out] out_va  untouched on failure
 * @return GR_OK, GR_E_INVALID (not page aligned), GR_E_NO_MEMORY (no page-table pages)
 */
gr_status_t dxgk_dmabuf_map(gr_gpu_device_t *dev, uint64_t bus, uint64_t bytes, uint64_t *out_va);

/** Unmaps what dxgk_dmabuf_map mapped (va 0: nothing). */
void dxgk_dmabuf_unmap(gr_gpu_device_t *dev, uint64_t va, uint64_t bytes);

/* ---- a packet's allocations (vidmm_residency.c) ---- */

/**
 * Before a packet is queued: pages in every allocation of the list (evicting others, waiting
 * for packets in flight to retire when only they stand in the way), marks them used now and,
 * for written ones, dirty, and writes each one's SegmentId and PhysicalAddress into the
 * allocation list. On GR_OK the residency lock is held: the caller takes the packet's GPU
 * references, then calls dxgk_res_submit_end.
 * @return GR_OK, GR_E_NO_MEMORY (the list cannot be resident at once), paging errors
 */
gr_status_t dxgk_res_submit_begin(gr_adapter_t *ad, dxgk_open_t *const *opens, DXGK_ALLOCATIONLIST *alist, uint32_t n);
void dxgk_res_submit_end(gr_adapter_t *ad);

#endif
