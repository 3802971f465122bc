/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dxgk_sysmem.h: host memory a process hands the device as the backing store of ExistingSysMem /
 * ExistingKernelSysMem allocations (dxgk_sysmem.c, which says how it lives; gr_sysmem_alloc and
 * gr_sysmem_free are its public calls). Private to host/dxgk.
 */
#ifndef GPUREF_DXGK_SYSMEM_H
#define GPUREF_DXGK_SYSMEM_H

#include <stdint.h>

#include "gpuref/gr_alloc.h"

/* One buffer of a process (opaque). */
typedef struct dxgk_sysmem dxgk_sysmem_t;

/* Lookup: the process's buffer that holds all of [cpu, cpu+bytes) and the bus address of cpu
 * (process lock held; GR_E_NOT_FOUND). get/put: references (the process's own, one per
 * allocation backed by it); the last put frees the buffer through the link.
 * dxgk_process_free_sysmem: drops the process's references, at its end. */
gr_status_t dxgk_sysmem_lookup(gr_process_t *p, const void *cpu, uint64_t bytes, dxgk_sysmem_t **out_buf,
                               uint64_t *out_bus);
void dxgk_sysmem_get(gr_adapter_t *ad, dxgk_sysmem_t *m);
void dxgk_sysmem_put(gr_adapter_t *ad, dxgk_sysmem_t *m);
void dxgk_process_free_sysmem(gr_process_t *p);

#endif
