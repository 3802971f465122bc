/*
 * dxgk_testing.h: hooks for tests of the OS stand-in (not part of the public API).
 */
#ifndef GPUREF_DXGK_TESTING_H
#define GPUREF_DXGK_TESTING_H

#include "d3dkmddi.h"
#include "gpuref/gr_alloc.h"
#include "gpuref/gr_status.h"
#include <stdint.h>

/**
 * Installs fn to edit the miniport's DXGK_ALLOCATIONINFO answers of every later
 * DxgkDdiCreateAllocation before VidMm checks them, as a buggy miniport would return them.
 * NULL removes it. Not synchronised with concurrent creates.
 */
void gr_dxgk_test_set_create_hook(gr_adapter_t *adapter,
                                  void (*fn)(void *ctx, DXGK_ALLOCATIONINFO *infos, UINT count), void *ctx);

/** The adapter's miniport context (hAdapter) and driver caps, for DDI-level tests. */
HANDLE gr_dxgk_test_hadapter(gr_adapter_t *adapter);
const DXGK_DRIVERCAPS *gr_dxgk_test_caps(gr_adapter_t *adapter);

/** gr_gpuva_lookup / gr_gpuva_check on a device's address space (vidmm_gpuva.h). */
gr_status_t gr_dxgk_test_gpuva_lookup(gr_gpu_device_t *dev, uint64_t va, uint64_t *out_pa, unsigned *out_flags,
                                      unsigned *out_page_shift);
gr_status_t gr_dxgk_test_gpuva_check(gr_gpu_device_t *dev);

#endif
