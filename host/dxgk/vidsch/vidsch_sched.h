/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch_sched.h: the scheduler thread (vidsch_sched.c): its main loop, which VidSch's start
 * runs, and the requests an API call makes of it. Private to host/dxgk/vidsch.
 */
#ifndef GPUREF_DXGK_VIDSCH_SCHED_H
#define GPUREF_DXGK_VIDSCH_SCHED_H

#include <stdint.h>

#include "gpuref/gr_status.h"
#include "vidsch_objects.h"

/* The scheduler thread (arg: the adapter's dxgk_vidsch_t). */
void *vs_sched_main(void *arg);
/* Makes a request of the scheduler and waits for it (vs->lock held). */
gr_status_t vs_request(dxgk_vidsch_t *vs, vs_req_kind_t kind, vs_context_t *ctx, uint32_t *out_count);

#endif
