/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch_paging.h: what VidMm asks of VidSch, and all it may ask (the one header of VidSch that
 * VidMm includes; README.md, "Layout"): run a paging buffer and wait for its fence, and wait
 * until the GPU is done with an allocation or an open (vidsch_paging.c). Its last section is the
 * paging queue's side that the scheduler serves, for VidSch's own files. Private to host/dxgk.
 */
#ifndef GPUREF_DXGK_VIDSCH_PAGING_H
#define GPUREF_DXGK_VIDSCH_PAGING_H

#include <stdbool.h>
#include <stdint.h>

#include "dxgk_objects.h"
#include "gpuref/gr_status.h"

/** Waits until no packet in flight names this open (before DxgkDdiCloseAllocation). */
void dxgk_vidsch_wait_open_idle(gr_adapter_t *ad, dxgk_open_t *op);

/** Waits until no packet in flight names this allocation (before DxgkDdiDestroyAllocation). */
void dxgk_vidsch_wait_alloc_idle(gr_adapter_t *ad, dxgk_kalloc_t *ka);

/* ---- the paging queue (vidsch_paging.c; README.md, "Residency") ------------------------------ */

/**
 * A paging buffer VidMm fills with DxgkDdiBuildPagingBuffer: host memory the engine reads
 * (DXGK_QUERYSEGMENTOUT4.PagingBufferSize bytes; segment 0 = contiguous system memory) and its
 * private data (PagingBufferPrivateDataSize bytes).
 */
typedef struct dxgk_pgbuf {
    void *cpu;
    uint32_t size;
    void *priv;
    uint32_t priv_size;
} dxgk_pgbuf_t;

/** What VidMm waits for: the paging packets of one operation (counted under VidSch's lock). */
typedef struct dxgk_paging_job {
    uint32_t outstanding; /* submitted, not retired */
    gr_status_t status;   /* GR_OK, or the first failure (GR_E_DEVICE_RESET: lost in a TDR) */
} dxgk_paging_job_t;

/** Whether paging buffers can run (the adapter has an engine and the miniport a paging buffer size). */
bool dxgk_vidsch_paging_ready(gr_adapter_t *ad);

/**
 * An idle paging buffer (the pool grows on demand).
 * @return GR_OK, GR_E_UNSUPPORTED (no engine), GR_E_NO_MEMORY, link errors
 */
gr_status_t dxgk_vidsch_paging_get(gr_adapter_t *ad, dxgk_pgbuf_t **out);

/** Gives back a buffer that was not submitted. */
void dxgk_vidsch_paging_put(gr_adapter_t *ad, dxgk_pgbuf_t *b);

/**
 * Queues [0, bytes) of a paging buffer as a paging packet of job: VidSch patches and submits it
 * with Flags.Paging and hContext NULL before any context's work, on the fence sequence of the
 * node; a preemption resubmits it with the same fence id. The buffer goes back to the pool when
 * the packet retires. On failure the buffer is back in the pool and job is unchanged.
 * @return GR_OK, GR_E_INVALID (bytes 0, past the buffer, not a multiple of 8), GR_E_UNSUPPORTED,
 *         GR_E_NO_MEMORY
 */
gr_status_t dxgk_vidsch_paging_submit(gr_adapter_t *ad, dxgk_paging_job_t *job, dxgk_pgbuf_t *b, uint32_t bytes);

/**
 * Waits until every packet of job has retired.
 * @return job->status: GR_OK when all ran to completion
 */
gr_status_t dxgk_vidsch_paging_wait(gr_adapter_t *ad, dxgk_paging_job_t *job);

/** Packets in flight that list the allocation (VidSch's count, read under its lock). */
uint32_t dxgk_vidsch_gpu_refs(gr_adapter_t *ad, const dxgk_kalloc_t *ka);

/**
 * Waits up to ns of wall time for a packet to retire while the retirement count is gen (a value
 * this returned before; 0 the first time).
 * @return the retirement count now (it differs from gen when a packet retired)
 */
uint64_t dxgk_vidsch_wait_retire(gr_adapter_t *ad, uint64_t gen, long ns);

/* ---- the queue's scheduler side (VidSch's own files: vidsch_sched.c, vidsch_core.c) ----------- */

typedef struct dxgk_vidsch dxgk_vidsch_t;
typedef struct vs_packet vs_packet_t;

/* The next paging packet to put on the hardware (queued, or taken off by a preemption), or NULL. */
vs_packet_t *vs_paging_next(dxgk_vidsch_t *vs);
/* vs_retire's part for a paging packet (vs->lock held): unlinks, tells its job, frees it. */
void vs_paging_retire(dxgk_vidsch_t *vs, vs_packet_t *p, gr_status_t result);
/* Frees the idle paging buffers (threads stopped). */
void vs_paging_free_pool(dxgk_vidsch_t *vs);

#endif
