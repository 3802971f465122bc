/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch_timeline.h: VidSch's timeline, a bounded ring of scheduling events per adapter that
 * gr_adapter_timeline (gpuref/gr_submit.h) reads. Private to host/dxgk; README.md, "VidSch",
 * section "Timeline".
 *
 * The scheduler records each event where it traces it (VS_TRACE) and where a packet retires,
 * with vs->lock held: the ring needs no lock of its own, and events are in the order VidSch
 * made its decisions. Timestamps are vs->now, the scheduler's latest reading of DMA_TIMESTAMP,
 * never decreasing from one event to the next. The ring (vs_timeline_t) is vidsch_objects.h's.
 */
#ifndef GPUREF_DXGK_VIDSCH_TIMELINE_H
#define GPUREF_DXGK_VIDSCH_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuref/gr_status.h"

typedef struct dxgk_vidsch dxgk_vidsch_t;
typedef struct vs_packet vs_packet_t;
typedef struct vs_event vs_event_t;

/* Each is called with vs->lock held, next to the trace of the same event. */
void vs_tl_submit(dxgk_vidsch_t *vs, const vs_packet_t *p, bool resubmission);
void vs_tl_retire(dxgk_vidsch_t *vs, const vs_packet_t *p, gr_status_t result); /* completed or dropped */
void vs_tl_cancel(dxgk_vidsch_t *vs, const vs_packet_t *p, gr_status_t result);
void vs_tl_preempt(dxgk_vidsch_t *vs, uint32_t preempt_fence, int reason);
void vs_tl_preempted(dxgk_vidsch_t *vs, uint32_t last_completed);
void vs_tl_fault(dxgk_vidsch_t *vs, const vs_event_t *ev);
void vs_tl_preempt_timeout(dxgk_vidsch_t *vs);
void vs_tl_tdr(dxgk_vidsch_t *vs, const vs_packet_t *guilty);

#endif
