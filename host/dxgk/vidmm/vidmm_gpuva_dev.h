/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_gpuva_dev.h: gr_gpuva_ops_t over a gr_device_t, and turning the MMU on for a space.
 *
 * Table pages come from a VRAM range [pt_base, pt_limit) the caller sets aside inside the
 * CPU-visible window (a free list of 4 KiB pages, lowest address first). Page-table bytes are
 * written through the BAR1 aperture (gr_link_ap_write at pa - MC_AP_BASE), so the window must
 * stay where it was at gr_gpuva_dev_create while the library writes. The TLB invalidate is
 * MMU_INVALIDATE.ALL. Not thread-safe (one gr_link user at a time, as gr_link.h says).
 */
#ifndef GPUREF_DXGK_VIDMM_GPUVA_DEV_H
#define GPUREF_DXGK_VIDMM_GPUVA_DEV_H

#include <stdint.h>

#include "gpuref/gr_device.h"
#include "vidmm_gpuva.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gr_gpuva_dev gr_gpuva_dev_t;

/** The ops; their `user` is a gr_gpuva_dev_t from gr_gpuva_dev_create. read_vram is set. */
extern const gr_gpuva_ops_t gr_gpuva_dev_ops;

/**
 * Reads MC_AP_BASE and MC_AP_SIZE and sets up the table-page pool.
 * @param pt_base, pt_limit  VRAM range for table pages: 4 KiB aligned, non-empty, inside
 *                           [MC_AP_BASE, MC_AP_BASE + MC_AP_SIZE)
 * @param[out] out_pool  untouched on failure
 * @return GR_OK, GR_E_INVALID (NULL, empty or misaligned range), GR_E_RANGE (the range is not
 *         inside the CPU-visible window), GR_E_NO_MEMORY (host memory), or a register error
 */
GR_API gr_status_t gr_gpuva_dev_create(gr_device_t *dev, uint64_t pt_base, uint64_t pt_limit,
                                       gr_gpuva_dev_t **out_pool);

/** Frees the pool (not the VRAM behind it, which was the caller's); NULL is allowed. */
void gr_gpuva_dev_destroy(gr_gpuva_dev_t *pool);

/** Table pages still free in the pool. */
uint64_t gr_gpuva_dev_free_pages(const gr_gpuva_dev_t *pool);

/**
 * Points the MMU at a space: MMU_ROOT = its L3 table, MMU_INVALIDATE.ALL (the TLB may hold
 * another space's pages), then MMU_CTRL.ENABLE = 1.
 * @return GR_OK, GR_E_INVALID (NULL), GR_E_RANGE (the root is above the 32 bits of MMU_ROOT),
 *         or a register error
 */
GR_API gr_status_t gr_gpuva_dev_activate(gr_device_t *dev, const gr_gpuva_space_t *space);

/** MMU_CTRL.ENABLE = 0 (every access physical), then MMU_INVALIDATE.ALL. */
GR_API gr_status_t gr_gpuva_dev_deactivate(gr_device_t *dev);

#ifdef __cplusplus
}
#endif

#endif
