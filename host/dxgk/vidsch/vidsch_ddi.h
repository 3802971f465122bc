/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch_ddi.h: the DDI calls VidSch makes (vidsch_ddi.c), through the adapter's DDI table
 * (dxgk_ddi_table.h), each under the threading checker with the DDI's documented level. Private
 * to host/dxgk/vidsch.
 */
#ifndef GPUREF_DXGK_VIDSCH_DDI_H
#define GPUREF_DXGK_VIDSCH_DDI_H

#include <stdint.h>

#include "d3dkmddi.h"
#include "gpuref/gr_alloc.h"
#include "kmd.h"

NTSTATUS vs_ddi_create_context(gr_adapter_t *ad, gr_gpu_device_t *dev, DXGKARG_CREATECONTEXT *a);
NTSTATUS vs_ddi_destroy_context(gr_adapter_t *ad, gr_gpu_device_t *dev, HANDLE hContext);
void vs_ddi_set_root_page_table(gr_adapter_t *ad, const void *process, const DXGKARG_SETROOTPAGETABLE *a);
NTSTATUS vs_ddi_patch(gr_adapter_t *ad, const DXGKARG_PATCH *a);
NTSTATUS vs_ddi_submit(gr_adapter_t *ad, const DXGKARG_SUBMITCOMMAND *a);
NTSTATUS vs_ddi_preempt(gr_adapter_t *ad, const DXGKARG_PREEMPTCOMMAND *a);
NTSTATUS vs_ddi_cancel(gr_adapter_t *ad, const DXGKARG_CANCELCOMMAND *a);
NTSTATUS vs_ddi_query_fence(gr_adapter_t *ad, DXGKARG_QUERYCURRENTFENCE *a);
NTSTATUS vs_ddi_packet_progress(gr_adapter_t *ad, uint32_t fence, gr_kmd_packet_progress_t *out);
NTSTATUS vs_ddi_reset(gr_adapter_t *ad);
NTSTATUS vs_ddi_restart(gr_adapter_t *ad);
BOOLEAN vs_ddi_interrupt(gr_adapter_t *ad);
void vs_ddi_dpc(gr_adapter_t *ad);

#endif
