/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dxgk_kernel.h: the bottom of the OS stand-in (dxgk_kernel.c): the process-wide kernel handle
 * table with the DXGKRNL_INTERFACE callbacks that read it, and the translation of a DDI's
 * NTSTATUS into a gr_status_t. Private to host/dxgk.
 */
#ifndef GPUREF_DXGK_KERNEL_H
#define GPUREF_DXGK_KERNEL_H

#include "d3dkmddi.h"
#include "dxgk_handle.h"
#include "gpuref/gr_status.h"

/* The kernel handle table behind DxgkCbGetHandleData (process-wide: the callback has no
 * adapter argument); NULL when it could not be made. */
dxgk_htab_t *dxgk_kernel_handles(void);
/* DxgkCbGetHandleData and DxgkCbGetHandleParent, into the table the miniport gets at start. */
void dxgk_kernel_fill_callbacks(DXGKRNL_INTERFACE *cb);

/* A DDI's NTSTATUS as a gr_status_t. */
gr_status_t dxgk_status_from_nt(NTSTATUS st);

#endif
