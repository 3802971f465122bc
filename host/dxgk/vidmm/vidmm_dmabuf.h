/*
 * vidmm_dmabuf: DMA buffers in their device's GPU virtual address space.
 *
 * A user context's packets run unprivileged: the engine lets them name GPU virtual addresses
 * only (rtl/dma/README.md, "Privilege"). So that a packet can still write timestamps and read
 * back into its own DMA buffer, or WAIT on a qword there, each DMA buffer is mapped, read-write
 * with SYSTEM PTEs, into the address space of the device that created it, as a UMD's command
 * buffers are GPU-VA allocations under WDDM 2.0. No other device's space maps it, and nothing
 * else in host memory (the ring, the fence record, other DMA buffers, paging buffers) is mapped
 * in any process's space.
 */
#ifndef DXGK_VIDMM_DMABUF_H
#define DXGK_VIDMM_DMABUF_H

#include <stdint.h>

#include "dxgk_internal.h"

/**
 * Maps [bus, bus + bytes) (page aligned, as gr_link dma_alloc gives it) at a new VA of dev.
 * @param[out] out_va  untouched on failure
 * @return GR_OK, GR_E_INVALID (not page aligned), GR_E_NO_MEMORY (no page-table pages)
 */
gr_status_t dxgk_dmabuf_map(gr_gpu_device_t *dev, uint64_t bus, uint64_t bytes, uint64_t *out_va);

/** Unmaps what dxgk_dmabuf_map mapped (va 0: nothing). */
void dxgk_dmabuf_unmap(gr_gpu_device_t *dev, uint64_t va, uint64_t bytes);

#endif
