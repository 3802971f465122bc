/* SPDX-License-Identifier: Apache-2.0 */
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

/**
 * Replaces the driver caps VidMm checks allocations against, as if the miniport had reported
 * these from DXGKQAITYPE_DRIVERCAPS (the flag rules read MapAperture2Supported and
 * NoCacheCoherentApertureMemory). Not synchronised with concurrent creates.
 */
void gr_dxgk_test_set_caps(gr_adapter_t *adapter, const DXGK_DRIVERCAPS *caps);

/**
 * Switches flag rules off in VidMm's check of every later DxgkDdiCreateAllocation answer:
 * the mask goes to gr_vidmm_check_allocation_flags_masked (GR_VIDMM_RULE_BIT(id) skips rule
 * id; 0, the default, checks them all). Shows that each rule matters at the VidMm level. Not
 * synchronised with concurrent creates.
 */
void gr_dxgk_test_set_disabled_rules(gr_adapter_t *adapter, uint64_t mask);

/**
 * Runs VidMm's check of one DXGK_ALLOCATIONINFO, the one gr_alloc_create makes on each answer
 * of DxgkDdiCreateAllocation (the flag rules with the adapter's caps and disabled rules, then
 * VidMm's own checks: size, alignment, the caller's system memory in desc), without creating
 * anything. info->hAllocation must be non-NULL, as the miniport returns it.
 * @param[out] out_rule  may be NULL; the first broken flag rule's name when one is broken
 * @return GR_OK, GR_E_INVALID, GR_E_NOT_FOUND, as gr_alloc_create would fail
 */
gr_status_t gr_dxgk_test_check_answer(gr_gpu_device_t *dev, const DXGK_ALLOCATIONINFO *info,
                                      const gr_alloc_desc_t *desc, const char **out_rule);

/** The adapter's miniport context (hAdapter) and driver caps, for DDI-level tests. */
HANDLE gr_dxgk_test_hadapter(gr_adapter_t *adapter);
const DXGK_DRIVERCAPS *gr_dxgk_test_caps(gr_adapter_t *adapter);

/** gr_gpuva_lookup / gr_gpuva_check on a device's address space (vidmm_gpuva.h). */
gr_status_t gr_dxgk_test_gpuva_lookup(gr_gpu_device_t *dev, uint64_t va, uint64_t *out_pa, unsigned *out_flags,
                                      unsigned *out_page_shift);
gr_status_t gr_dxgk_test_gpuva_check(gr_gpu_device_t *dev);

#endif
