/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dxgk_ddi.h: the DDI calls of the OS stand-in (dxgk_ddi.c): every call into the miniport the
 * adapter and VidMm make goes through the adapter's DDI table (dxgk_ddi_table.h) under the
 * threading checker (dxgk_threading.h), with the DDI's documented level. VidSch's own DDI calls
 * are vidsch/vidsch_ddi.h. Private to host/dxgk.
 */
#ifndef GPUREF_DXGK_DDI_H
#define GPUREF_DXGK_DDI_H

#include <stdint.h>

#include "d3dkmddi.h"
#include "gpuref/gr_alloc.h"
#include "kmd.h"

/**
 * First step of adapter open, before any DDI: the DDI table (the miniport's functions), the
 * threading checker and the scheduler-class lock.
 * @return GR_OK, GR_E_NO_MEMORY
 */
gr_status_t dxgk_ddi_init(gr_adapter_t *ad);
/** Frees what dxgk_ddi_init made (nothing when it failed or did not run). */
void dxgk_ddi_fini(gr_adapter_t *ad);

/*
 * The DDIs VidMm and the adapter code call, through the adapter's DDI table (or, for the gpuref
 * stand-ins that are not DDIs, directly) under the threading checker with their documented
 * level. process: the calling process, NULL for the OS's own threads.
 */
NTSTATUS dxgk_call_start_adapter(gr_adapter_t *ad, const gr_kmd_start_info_t *si);
void dxgk_call_stop_adapter(gr_adapter_t *ad);
NTSTATUS dxgk_call_set_vpr(gr_adapter_t *ad, uint64_t base, uint64_t limit);
NTSTATUS dxgk_call_query_adapter_info(gr_adapter_t *ad, const DXGKARG_QUERYADAPTERINFO *q);
NTSTATUS dxgk_call_create_device(gr_process_t *p, gr_gpu_device_t *d);
NTSTATUS dxgk_call_destroy_device(gr_process_t *p, gr_gpu_device_t *d);
NTSTATUS dxgk_call_counts(gr_adapter_t *ad, gr_kmd_counts_t *out);
NTSTATUS dxgk_call_create_allocation(gr_adapter_t *ad, gr_process_t *p, DXGKARG_CREATEALLOCATION *c);
NTSTATUS dxgk_call_open_allocation(gr_gpu_device_t *dev, const DXGKARG_OPENALLOCATION *o);
NTSTATUS dxgk_call_close_allocation(gr_gpu_device_t *dev, const DXGKARG_CLOSEALLOCATION *c);
NTSTATUS dxgk_call_destroy_allocation(gr_adapter_t *ad, const DXGKARG_DESTROYALLOCATION *d);
NTSTATUS dxgk_call_flush_tlb(gr_adapter_t *ad);
/* The CPU-window pair: only inside dxgk_frame_buffer_hold (they do not take the gate again). */
NTSTATUS dxgk_call_acquire_cpu_window(gr_adapter_t *ad, uint64_t vram, uint64_t bytes, uint64_t *out_ap_offset,
                                      uint64_t *out_ap_bytes);
NTSTATUS dxgk_call_release_cpu_window(gr_adapter_t *ad);
/* Holds off a reset (third level) around the OS's own use of the frame buffer through BAR1. */
void dxgk_frame_buffer_hold(gr_adapter_t *ad);
void dxgk_frame_buffer_unhold(gr_adapter_t *ad);

/** The scheduler-class lock (first-level DDIs made outside the scheduler thread take it). */
void dxgk_vidsch_class_lock(gr_adapter_t *ad);
void dxgk_vidsch_class_unlock(gr_adapter_t *ad);

/*
 * DxgkDdiBuildPagingBuffer through the DDI table: first level, so under the scheduler-class
 * lock, from VidMm's thread (no process).
 */
NTSTATUS dxgk_call_build_paging_buffer(gr_adapter_t *ad, DXGKARG_BUILDPAGINGBUFFER *a);

#endif
