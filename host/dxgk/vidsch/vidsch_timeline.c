/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch_timeline.c: VidSch's timeline (vidsch_timeline.h): the ring the scheduler records its
 * events in, and gr_adapter_timeline, which reads it. README.md, "VidSch", section "Timeline".
 */
#define _GNU_SOURCE /* pthread spin locks (vidsch_objects.h) */
#include <string.h>

#include "gr_broker.h"
#include "vidsch_objects.h"
#include "vidsch_sync.h"
#include "vidsch_timeline.h"

_Static_assert(GR_SCHED_TIMELINE_CAP == VS_TIMELINE_CAP, "the public capacity is the ring's");
_Static_assert((int)GR_SCHED_PREEMPT_QUANTUM == (int)VS_PR_QUANTUM &&
                   (int)GR_SCHED_PREEMPT_EXPLICIT == (int)VS_PR_EXPLICIT &&
                   (int)GR_SCHED_PREEMPT_CANCEL == (int)VS_PR_CANCEL && (int)GR_SCHED_PREEMPT_TDR == (int)VS_PR_TDR &&
                   (int)GR_SCHED_PREEMPT_PAGING == (int)VS_PR_PAGING,
               "public preemption reasons are VidSch's");

/* A new event, packet fields from p (may be NULL). vs->lock held. */
static gr_sched_event_t *tl_push(dxgk_vidsch_t *vs, gr_sched_event_kind_t kind, const vs_packet_t *p)
{
    vs_timeline_t *t = &vs->timeline;
    gr_sched_event_t *e = &t->ev[t->next % VS_TIMELINE_CAP];
    memset(e, 0, sizeof *e);
    e->index = t->next++;
    /* vs->now only grows, but another thread may advance it between two events of this one:
     * clamping keeps the ring's order and its clock in agreement. */
    uint64_t now = atomic_load(&vs->now);
    if (now < t->last_cycles)
        now = t->last_cycles;
    t->last_cycles = now;
    e->cycles = now;
    e->kind = (uint32_t)kind;
    if (p) {
        e->context = p->ctx ? p->ctx->handle : 0;
        e->seq = p->seq;
        e->fence = p->patched ? p->fence : 0;
    }
    e->completed = vs->completed;
    e->hw_queue = vs->hw_count;
    return e;
}

void vs_tl_submit(dxgk_vidsch_t *vs, const vs_packet_t *p, bool resubmission)
{
    tl_push(vs, resubmission ? GR_SCHED_EV_RESUBMIT : GR_SCHED_EV_SUBMIT, p);
}

void vs_tl_retire(dxgk_vidsch_t *vs, const vs_packet_t *p, gr_status_t result)
{
    if (result == GR_OK) {
        tl_push(vs, GR_SCHED_EV_COMPLETE, p);
    } else if (!p->patched) {
        gr_sched_event_t *e = tl_push(vs, GR_SCHED_EV_DROP, p);
        e->status = (int32_t)result;
    }
    /* A patched packet that did not complete was recorded by its cancel (vs_tl_cancel). */
}

void vs_tl_cancel(dxgk_vidsch_t *vs, const vs_packet_t *p, gr_status_t result)
{
    gr_sched_event_t *e = tl_push(vs, GR_SCHED_EV_CANCEL, p);
    e->arg = vs->caps.CancelCommandAware ? 1u : 0u;
    e->status = (int32_t)result;
}

void vs_tl_preempt(dxgk_vidsch_t *vs, uint32_t preempt_fence, int reason)
{
    gr_sched_event_t *e = tl_push(vs, GR_SCHED_EV_PREEMPT, vs->hw_head);
    e->preempt_fence = preempt_fence;
    e->arg = (uint32_t)reason;
}

/* Called before the scheduler acts on the answer: the hardware queue is still as it was, so the
 * packets past last_completed are the ones the preemption takes off. */
void vs_tl_preempted(dxgk_vidsch_t *vs, uint32_t last_completed)
{
    const vs_packet_t *first = NULL;
    uint32_t off = 0;
    for (const vs_packet_t *p = vs->hw_head; p; p = p->hw_next) {
        if (vs->any_submitted && vs_fence_done(p->fence, last_completed))
            continue;
        if (!first)
            first = p;
        off++;
    }
    gr_sched_event_t *e = tl_push(vs, GR_SCHED_EV_PREEMPTED, first);
    e->preempt_fence = vs->preempt_fence;
    e->completed = last_completed;
    e->arg = off;
}

void vs_tl_fault(dxgk_vidsch_t *vs, const vs_event_t *ev)
{
    const vs_packet_t *p = NULL;
    if (ev->fence_valid)
        for (p = vs->hw_head; p && p->fence != ev->fence; p = p->hw_next) {
        }
    gr_sched_event_t *e = tl_push(vs, ev->kind == VS_EV_TIMEOUT ? GR_SCHED_EV_ENGINE_TIMEOUT : GR_SCHED_EV_FAULT, p);
    if (ev->kind != VS_EV_TIMEOUT && ev->fence_valid)
        e->fence = ev->fence;
}

void vs_tl_preempt_timeout(dxgk_vidsch_t *vs)
{
    gr_sched_event_t *e = tl_push(vs, GR_SCHED_EV_PREEMPT_TIMEOUT, vs->hw_head);
    e->preempt_fence = vs->preempt_fence;
}

void vs_tl_tdr(dxgk_vidsch_t *vs, const vs_packet_t *guilty)
{
    tl_push(vs, GR_SCHED_EV_TDR, guilty);
}

/* ---- the public side ------------------------------------------------------------------------- */

gr_status_t gr_adapter_timeline(gr_adapter_t *ad, uint64_t since, gr_sched_event_t *out_events, size_t cap,
                                size_t *out_n, uint64_t *out_next)
{
    if (ad && ad->broker)
        return gr_brk_timeline(ad, since, out_events, cap, out_n, out_next);
    if (!ad || !ad->vidsch || !out_n || (cap && !out_events))
        return GR_E_INVALID;
    dxgk_vidsch_t *vs = ad->vidsch;
    pthread_mutex_lock(&vs->lock);
    const vs_timeline_t *t = &vs->timeline;
    if (since > t->next) {
        pthread_mutex_unlock(&vs->lock);
        return GR_E_RANGE;
    }
    const uint64_t oldest = t->next > VS_TIMELINE_CAP ? t->next - VS_TIMELINE_CAP : 0;
    uint64_t i = since > oldest ? since : oldest;
    size_t n = 0;
    for (; i < t->next && n < cap; i++)
        out_events[n++] = t->ev[i % VS_TIMELINE_CAP];
    const uint64_t next = n ? i : t->next;
    pthread_mutex_unlock(&vs->lock);
    *out_n = n;
    if (out_next)
        *out_next = next;
    return GR_OK;
}

const char *gr_sched_event_name(uint32_t kind)
{
    static const char *const names[] = {
        [GR_SCHED_EV_SUBMIT] = "submit",
        [GR_SCHED_EV_RESUBMIT] = "resubmit",
        [GR_SCHED_EV_COMPLETE] = "complete",
        [GR_SCHED_EV_PREEMPT] = "preempt",
        [GR_SCHED_EV_PREEMPTED] = "preempted",
        [GR_SCHED_EV_CANCEL] = "cancel",
        [GR_SCHED_EV_DROP] = "drop",
        [GR_SCHED_EV_FAULT] = "fault",
        [GR_SCHED_EV_ENGINE_TIMEOUT] = "engine-timeout",
        [GR_SCHED_EV_PREEMPT_TIMEOUT] = "preempt-timeout",
        [GR_SCHED_EV_TDR] = "tdr",
    };
    return kind < sizeof names / sizeof names[0] && names[kind] ? names[kind] : "?";
}

const char *gr_sched_preempt_reason_name(uint32_t reason)
{
    static const char *const names[] = {
        [GR_SCHED_PREEMPT_QUANTUM] = "quantum",
        [GR_SCHED_PREEMPT_EXPLICIT] = "explicit",
        [GR_SCHED_PREEMPT_CANCEL] = "cancel",
        [GR_SCHED_PREEMPT_TDR] = "tdr",
        [GR_SCHED_PREEMPT_PAGING] = "paging",
    };
    return reason < sizeof names / sizeof names[0] && names[reason] ? names[reason] : "?";
}
