/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch.h: what the adapter (dxgk_adapter.c) calls in VidSch, the GPU scheduler: its life with
 * the adapter's and device teardown (README.md, "VidSch"). What VidMm may ask of VidSch is
 * vidsch_paging.h. Private to host/dxgk.
 */
#ifndef GPUREF_DXGK_VIDSCH_H
#define GPUREF_DXGK_VIDSCH_H

#include "d3dkmddi.h"
#include "gpuref/gr_alloc.h"

/**
 * First step of adapter open, before any DDI: the threading checker, the DDI table (the
 * miniport's functions) and VidSch's state (no threads yet).
 * @return GR_OK, GR_E_NO_MEMORY
 */
gr_status_t dxgk_vidsch_init(gr_adapter_t *ad);

/** The callbacks VidSch implements, into the table the miniport gets at start. */
void dxgk_vidsch_fill_callbacks(gr_adapter_t *ad, DXGKRNL_INTERFACE *cb);

/**
 * After the adapter started and its caps are known: checks the scheduling caps and, when the
 * miniport reports an engine node, starts the interrupt, DPC and scheduler threads.
 * @return GR_OK (also without an engine: submission then answers GR_E_UNSUPPORTED),
 *         GR_E_MISMATCH (caps that break a documented rule), GR_E_NO_MEMORY
 */
gr_status_t dxgk_vidsch_start(gr_adapter_t *ad);

/** Stops the threads (every context is gone by then). */
void dxgk_vidsch_stop(gr_adapter_t *ad);

/** Frees what dxgk_vidsch_init made. */
void dxgk_vidsch_fini(gr_adapter_t *ad);

/**
 * Destroys every context and DMA buffer of a device (its work cancelled), before its
 * allocations are released. Process lock held.
 */
void dxgk_vidsch_device_teardown(gr_gpu_device_t *dev);

#endif
