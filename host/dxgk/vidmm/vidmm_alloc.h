/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_alloc.h: what the adapter (dxgk_adapter.c) takes from VidMm's allocation API
 * (vidmm_alloc.c, whose public calls are gpuref/gr_alloc.h): the page-table callbacks a device's
 * address space is created with, and the release of a device's handles. Private to host/dxgk.
 */
#ifndef GPUREF_DXGK_VIDMM_ALLOC_H
#define GPUREF_DXGK_VIDMM_ALLOC_H

#include "gpuref/gr_alloc.h"
#include "vidmm_gpuva.h"

/* The page-table callbacks of a device's address space (they take pages from the residency
 * reserve when the heaps are full); user is the device. */
extern const gr_gpuva_ops_t dxgk_gpuva_ops;

/* Closes or destroys every handle of a device; process lock held. */
void dxgk_device_release_all(gr_gpu_device_t *dev);

#endif
