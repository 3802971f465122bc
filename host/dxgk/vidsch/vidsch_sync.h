/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch_sync.h: the bottom of VidSch (vidsch_sync.c), which every other file of it calls:
 * fence comparison, VidSch's condition wait and wake-up, the trace, the device clock. Private to
 * host/dxgk/vidsch.
 */
#ifndef GPUREF_DXGK_VIDSCH_SYNC_H
#define GPUREF_DXGK_VIDSCH_SYNC_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

typedef struct dxgk_vidsch dxgk_vidsch_t;

/* Scheduling trace ($GR_VIDSCH_TRACE=1), for debugging a run. */
#define VS_TRACE(vs, ...)                                                                                              \
    do {                                                                                                               \
        if ((vs)->trace)                                                                                               \
            vs_trace((vs), __VA_ARGS__);                                                                               \
    } while (0)
void vs_trace(dxgk_vidsch_t *vs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

uint64_t vs_clock(dxgk_vidsch_t *vs); /* reads DMA_TIMESTAMP (link lock) */
/* The same, with the read's status: GR_OK (out_now is the new reading) or the link's error
 * (out_now: the last good one). */
int vs_clock_read(dxgk_vidsch_t *vs, uint64_t *out_now);
/* Event mode: the device's time now without a read: the last reading plus the wall time since
 * at margin times the fastest rate measured (VS_RATE_DEFAULT before any). With VS_BOUND_SURE it
 * is an upper bound unless the device runs twice as fast as it ever has; VS_BOUND_EXPECT is
 * when a deadline is expected, so that a check reads the clock about once. On other links
 * (clock reads are cheap, or drive the device) it is vs->now. */
#define VS_BOUND_SURE 2.0
#define VS_BOUND_EXPECT 1.0
uint64_t vs_clock_bound(dxgk_vidsch_t *vs, double margin);
uint64_t vs_wall_ms(void);       /* CLOCK_MONOTONIC in ms */
void vs_wake(dxgk_vidsch_t *vs); /* wakes the scheduler and the interrupt thread */
bool vs_fence_done(uint32_t fence, uint32_t completed);
/* Runs under vs->lock: waits on vs->cond for at most ns of wall time. */
void vs_cond_wait_ns(dxgk_vidsch_t *vs, long ns);
/* CLOCK_MONOTONIC now plus ns (the clock vs->cond waits on). */
struct timespec vs_deadline_ns(long ns);

#endif
