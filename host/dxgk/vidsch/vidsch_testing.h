/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch_testing.h: hooks for tests of VidSch (not part of the public API).
 */
#ifndef GPUREF_DXGK_VIDSCH_TESTING_H
#define GPUREF_DXGK_VIDSCH_TESTING_H

#include "d3dkmddi.h"
#include "dxgk_ddi_table.h"
#include "dxgk_threading.h"
#include "gpuref/gr_submit.h"

/**
 * The adapter's DDI table. A test may replace an entry with a shim that calls the entry it
 * replaced (saved first); change it only while no submission is in flight, and restore it
 * before gr_adapter_close.
 */
gr_dxgk_ddi_table_t *gr_vidsch_test_ddi(gr_adapter_t *adapter);

/** The adapter's threading checker. */
dxgk_thr_t *gr_vidsch_test_thr(gr_adapter_t *adapter);

/** The miniport's hContext of a context (to match DDI arguments to contexts), or NULL. */
HANDLE gr_vidsch_test_hcontext(gr_gpu_device_t *device, gr_context_t context);

/**
 * Calls DxgkDdiPreemptCommand through the threading checker from the calling thread, *without*
 * the scheduler-class lock the OS always holds for first-level DDIs: concurrent with the
 * scheduler's own first-level calls, this is the violation the checker must report.
 */
NTSTATUS gr_vidsch_test_preempt_unserialized(gr_adapter_t *adapter, UINT preemption_fence);

#endif
