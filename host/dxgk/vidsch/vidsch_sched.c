/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch_sched.c: the scheduler thread (one per adapter): patches and submits packets, retires
 * them on completion, preempts (quantum, request, cancellation, timeout), cancels, and runs the
 * TDR sequence. It is the only caller of the GPU scheduler class DDIs (and CancelCommand) on the
 * command path, and calls each with vs->lock released and the scheduler-class lock held.
 * README.md, "VidSch", has the rules this file keeps.
 */
#define _GNU_SOURCE /* pthread spin locks (vidsch_objects.h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dxgk_ddi.h"
#include "gpuref/gr_status.h"
#include "gr_link.h"
#include "vidsch_ddi.h"
#include "vidsch_objects.h"
#include "vidsch_paging.h"
#include "vidsch_sched.h"
#include "vidsch_sync.h"
#include "vidsch_timeline.h"

/* ---- helpers ---------------------------------------------------------------------------------- */

/* a after b, modulo 2^32. */
static bool fence_after(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) > 0;
}

static void hw_append(dxgk_vidsch_t *vs, vs_packet_t *p)
{
    p->hw_next = NULL;
    p->hw_prev = vs->hw_tail;
    if (vs->hw_tail)
        vs->hw_tail->hw_next = p;
    else
        vs->hw_head = p;
    vs->hw_tail = p;
    vs->hw_count++;
}

static void hw_remove(dxgk_vidsch_t *vs, vs_packet_t *p)
{
    if (p->hw_prev)
        p->hw_prev->hw_next = p->hw_next;
    else
        vs->hw_head = p->hw_next;
    if (p->hw_next)
        p->hw_next->hw_prev = p->hw_prev;
    else
        vs->hw_tail = p->hw_prev;
    p->hw_next = p->hw_prev = NULL;
    vs->hw_count--;
}

static void ctx_add_result(vs_context_t *c, uint64_t seq, gr_status_t st)
{
    if (c->bad_n == c->bad_cap) {
        uint32_t cap = c->bad_cap ? c->bad_cap * 2 : 16;
        vs_result_t *n = realloc(c->bad, cap * sizeof *n);
        if (!n)
            return; /* the wait then reports GR_OK for it: out of memory only */
        c->bad = n;
        c->bad_cap = cap;
    }
    c->bad[c->bad_n].seq = seq;
    c->bad[c->bad_n].status = st;
    c->bad_n++;
}

/* Retires a packet (vs->lock held): releases its references, records its result, frees it. */
static void vs_retire(dxgk_vidsch_t *vs, vs_packet_t *p, gr_status_t result)
{
    vs_context_t *c = p->ctx;
    if (p->state == VS_PKT_ON_HW)
        hw_remove(vs, p);
    if (vs->ahead == p)
        vs->ahead = NULL;
    if (p->paging) {
        vs_paging_retire(vs, p, result);
        return;
    }
    if (p->prev)
        p->prev->next = p->next;
    else
        c->head = p->next;
    if (p->next)
        p->next->prev = p->prev;
    else
        c->tail = p->prev;
    c->queued--;
    c->retired_seq = c->head ? c->head->seq - 1 : c->next_seq;
    if (result != GR_OK)
        ctx_add_result(c, p->seq, result);
    p->state = VS_PKT_RETIRED;
    p->buf->in_flight--;
    for (uint32_t i = 0; i < p->alist_n; i++) {
        p->opens[i]->gpu_refs--;
        p->opens[i]->ka->gpu_refs--;
    }
    vs_tl_retire(vs, p, result);
    if (result == GR_OK)
        vs->st.completed++;
    vs->live_packets--;
    vs->retire_gen++;
    p->magic = VS_MAGIC_DEAD;
    free(p->priv);
    free(p->alist);
    free(p->plist);
    free(p->opens);
    free(p);
    pthread_cond_broadcast(&vs->cond);
}

/* Every packet on the hardware whose fence has completed, in order. */
static bool retire_completed(dxgk_vidsch_t *vs)
{
    bool any = false;
    while (vs->hw_head && !vs->hw_head->busy && vs->any_submitted &&
           vs_fence_done(vs->hw_head->fence, vs->completed)) {
        vs_retire(vs, vs->hw_head, GR_OK);
        any = true;
    }
    if (any && vs->hw_head)
        vs->hw_head->running = false; /* its run starts now (timed at the next look) */
    return any;
}

static void note_completed(dxgk_vidsch_t *vs, uint32_t fence)
{
    if (!vs->any_submitted)
        return;
    /* Never past what was submitted (a stale record after a reset, for one). */
    if (fence_after(fence, vs->last_submitted))
        fence = vs->last_submitted;
    if (fence_after(fence, vs->completed))
        vs->completed = fence;
}

/* ---- DDI calls (vs->lock held on entry and exit, released around the call) --------------------- */

static void fill_patch_args(const vs_packet_t *p, uint32_t fence, DXGKARG_PATCH *a)
{
    memset(a, 0, sizeof *a);
    a->hContext = p->ctx ? p->ctx->hContext : NULL; /* a paging buffer has no context */
    a->DmaBufferSegmentId = 0;
    a->DmaBufferPhysicalAddress.QuadPart = (LONGLONG)p->buf->mem.bus;
    a->pDmaBuffer = p->buf->mem.cpu;
    a->DmaBufferSize = p->buf->size;
    a->DmaBufferSubmissionStartOffset = p->start;
    a->DmaBufferSubmissionEndOffset = p->end;
    a->pDmaBufferPrivateData = p->priv;
    a->DmaBufferPrivateDataSize = p->priv_size;
    a->DmaBufferPrivateDataSubmissionStartOffset = 0;
    a->DmaBufferPrivateDataSubmissionEndOffset = p->priv_size;
    a->pAllocationList = p->alist;
    a->AllocationListSize = p->alist_n;
    a->pPatchLocationList = p->plist;
    a->PatchLocationListSize = p->plist_n;
    a->PatchLocationListSubmissionStart = 0;
    a->PatchLocationListSubmissionLength = p->plist_n;
    a->SubmissionFenceId = fence;
    a->Flags.Value = 0;
    a->Flags.Paging = p->paging;
    a->EngineOrdinal = 0;
}

/* CancelCommand with exactly what Patch was given, then retire. The packet was patched. */
static void cancel_packet(dxgk_vidsch_t *vs, vs_packet_t *p, gr_status_t result)
{
    gr_adapter_t *ad = vs->ad;
    if (vs->ahead == p)
        vs->ahead = NULL;
    DXGKARG_CANCELCOMMAND c;
    memset(&c, 0, sizeof c);
    c.hContext = p->ctx->hContext;
    c.pDmaBuffer = p->buf->mem.cpu;
    c.DmaBufferSize = p->buf->size;
    c.DmaBufferSubmissionStartOffset = p->start;
    c.DmaBufferSubmissionEndOffset = p->end;
    c.pDmaBufferPrivateData = p->priv;
    c.DmaBufferPrivateDataSize = p->priv_size;
    c.DmaBufferPrivateDataSubmissionStartOffset = 0;
    c.DmaBufferPrivateDataSubmissionEndOffset = p->priv_size;
    c.pAllocationList = p->alist;
    c.AllocationListSize = p->alist_n;
    c.pPatchLocationList = p->plist;
    c.PatchLocationListSize = p->plist_n;
    c.PatchLocationListSubmissionStart = 0;
    c.PatchLocationListSubmissionLength = p->plist_n;
    c.DmaBufferVirtualAddress = 0;
    c.DmaBufferUmdPrivateDataSize = 0;
    if (vs->caps.CancelCommandAware) {
        p->busy = true;
        pthread_mutex_unlock(&vs->lock);
        dxgk_vidsch_class_lock(ad);
        /* The WDK bugchecks on an error here; the status is documented to be success. */
        (void)vs_ddi_cancel(ad, &c);
        dxgk_vidsch_class_unlock(ad);
        pthread_mutex_lock(&vs->lock);
        p->busy = false;
        vs->st.cancelled++;
    }
    VS_TRACE(vs, "cancel ctx %u seq %llu fence %u", p->ctx->handle, (unsigned long long)p->seq, p->fence);
    vs_tl_cancel(vs, p, result);
    vs_retire(vs, p, result);
}

/* Drops or cancels a packet that is not on the hardware, as its state requires. */
static void remove_packet(dxgk_vidsch_t *vs, vs_packet_t *p, gr_status_t result)
{
    /* Paging packets are not tagged: no CancelCommand can name them (host/kmd/README.md). */
    if (p->patched && !p->paging) {
        cancel_packet(vs, p, result);
    } else {
        vs->st.dropped++;
        vs_retire(vs, p, result);
    }
}

/* Patch with a new fence id. false: the miniport refused (the packet was retired). */
static bool patch_packet(dxgk_vidsch_t *vs, vs_packet_t *p)
{
    gr_adapter_t *ad = vs->ad;
    uint32_t fence = ++vs->last_fence;
    DXGKARG_PATCH a;
    fill_patch_args(p, fence, &a);
    p->busy = true;
    pthread_mutex_unlock(&vs->lock);
    dxgk_vidsch_class_lock(ad);
    NTSTATUS st = vs_ddi_patch(ad, &a);
    dxgk_vidsch_class_unlock(ad);
    pthread_mutex_lock(&vs->lock);
    p->busy = false;
    vs->st.patched++;
    if (st) {
        /* Refused: it cannot run. If an earlier Patch succeeded the miniport holds its state. */
        remove_packet(vs, p, GR_E_INVALID);
        return false;
    }
    p->patched = true;
    p->fence = fence;
    p->state = VS_PKT_PATCHED;
    return true;
}

static bool submit_packet(dxgk_vidsch_t *vs, vs_packet_t *p)
{
    gr_adapter_t *ad = vs->ad;
    DXGKARG_SUBMITCOMMAND s;
    memset(&s, 0, sizeof s);
    s.hContext = p->ctx ? p->ctx->hContext : NULL;
    s.DmaBufferSegmentId = 0;
    s.DmaBufferPhysicalAddress.QuadPart = (LONGLONG)p->buf->mem.bus;
    s.DmaBufferSize = p->buf->size;
    s.DmaBufferSubmissionStartOffset = p->start;
    s.DmaBufferSubmissionEndOffset = p->end;
    s.pDmaBufferPrivateData = p->priv;
    s.DmaBufferPrivateDataSize = p->priv_size;
    s.DmaBufferPrivateDataSubmissionStartOffset = 0;
    s.DmaBufferPrivateDataSubmissionEndOffset = p->priv_size;
    s.SubmissionFenceId = p->fence;
    s.Flags.Resubmission = p->resubmit;
    s.Flags.Paging = p->paging;
    s.EngineOrdinal = 0;
    s.NodeOrdinal = 0;
    p->busy = true;
    pthread_mutex_unlock(&vs->lock);
    dxgk_vidsch_class_lock(ad);
    NTSTATUS st = vs_ddi_submit(ad, &s);
    dxgk_vidsch_class_unlock(ad);
    pthread_mutex_lock(&vs->lock);
    p->busy = false;
    if (st) {
        /* The WDK bugchecks here. The packet never reached the hardware: cancel it. A device
         * that cannot be read either failed it through its link: that is the link's error. */
        p->busy = true;
        pthread_mutex_unlock(&vs->lock);
        uint64_t now;
        const gr_status_t why = vs_clock_read(vs, &now) ? GR_E_LINK : GR_E_IO;
        pthread_mutex_lock(&vs->lock);
        p->busy = false;
        if (p->paging)
            vs_retire(vs, p, why);
        else
            cancel_packet(vs, p, why);
        return false;
    }
    vs->st.submitted++;
    if (p->resubmit)
        vs->st.resubmitted++;
    p->resubmit = true;
    p->state = VS_PKT_ON_HW;
    p->running = false;
    hw_append(vs, p);
    /* A paging packet resubmitted after a preemption keeps its (older) fence id. */
    if (!vs->any_submitted || fence_after(p->fence, vs->last_submitted))
        vs->last_submitted = p->fence;
    vs->any_submitted = true;
    VS_TRACE(vs, "submit %s %u seq %llu fence %u%s (hw %u)", p->paging ? "paging" : "ctx", p->ctx ? p->ctx->handle : 0,
             (unsigned long long)p->seq, p->fence,
             s.Flags.Resubmission ? " resubmission" : "", vs->hw_count);
    vs_tl_submit(vs, p, s.Flags.Resubmission);
    return true;
}

static void issue_preempt(dxgk_vidsch_t *vs, vs_preempt_reason_t why, uint64_t now)
{
    gr_adapter_t *ad = vs->ad;
    uint32_t fence = ++vs->last_fence;
    vs->preempt_reason = why;
    vs->preempt_fence = fence;
    vs->preempt_at = now;
    vs->st.preemptions++;
    VS_TRACE(vs, "preempt fence %u reason %d (hw %u)", fence, (int)why, vs->hw_count);
    vs_tl_preempt(vs, fence, (int)why);
    DXGKARG_PREEMPTCOMMAND a;
    memset(&a, 0, sizeof a);
    a.PreemptionFenceId = fence;
    a.NodeOrdinal = 0;
    a.EngineOrdinal = 0;
    pthread_mutex_unlock(&vs->lock);
    dxgk_vidsch_class_lock(ad);
    NTSTATUS st = vs_ddi_preempt(ad, &a);
    dxgk_vidsch_class_unlock(ad);
    if (vs->irq_events && !vs->now_fresh) {
        /* The look's now is an old reading: the timeout counts from a fresh one. */
        uint64_t t;
        if (!vs_clock_read(vs, &t) && t > now)
            now = t;
    }
    pthread_mutex_lock(&vs->lock);
    if (vs->preempt_fence == fence && now > vs->preempt_at)
        vs->preempt_at = now;
    if (st && vs->preempt_fence == fence) {
        /* The WDK bugchecks here; the engine cannot be trusted to stop: reset it. */
        vs->tdr_pending = true;
    }
}

/* ---- scheduling -------------------------------------------------------------------------------- */

static bool schedulable(const vs_context_t *c)
{
    return !c->lost && !c->cancelling && !c->dead;
}

/* The context's next packet to put on the hardware, or NULL. */
static vs_packet_t *next_of(vs_context_t *c)
{
    for (vs_packet_t *p = c->head; p; p = p->next) {
        if (p->state == VS_PKT_ON_HW)
            continue;
        return p->busy ? NULL : p;
    }
    return NULL;
}

/* Round robin: the first context after the last one served that has a packet ready. commit:
 * this is the one served now (else only a look ahead). */
static vs_packet_t *pick_next(dxgk_vidsch_t *vs, bool commit)
{
    if (!vs->contexts)
        return NULL;
    vs_context_t *start = vs->rr_last && vs->rr_last->next ? vs->rr_last->next : vs->contexts;
    vs_context_t *c = start;
    do {
        if (schedulable(c)) {
            vs_packet_t *p = next_of(c);
            if (p) {
                if (commit)
                    vs->rr_last = c;
                return p;
            }
        }
        c = c->next ? c->next : vs->contexts;
    } while (c != start);
    return NULL;
}

static bool schedule(dxgk_vidsch_t *vs)
{
    bool did = false;
    while (!vs->tdr_pending && vs->preempt_reason == VS_PR_NONE && !atomic_load(&vs->stop)) {
        /* Paging first ("the paging commands will be scheduled prior to any other commands on
         * that engine", GPU preemption page): patched once; after a preemption or a reset it is
         * resubmitted with the fence id it was first given (vidsch_paging.c). */
        vs_packet_t *pg = vs_paging_next(vs);
        if (pg) {
            if (vs->hw_count >= vs->hw_cap)
                break;
            if (pg->state == VS_PKT_QUEUED && !patch_packet(vs, pg)) {
                did = true;
                continue;
            }
            submit_packet(vs, pg);
            did = true;
            continue;
        }
        vs_packet_t *p = NULL;
        if (vs->ahead) {
            p = vs->ahead;
            if (!schedulable(p->ctx) || p->busy)
                break; /* its context is being cancelled: the request handles it */
        }
        if (vs->hw_count >= vs->hw_cap) {
            /* Full: prepare the next one so it is ready the moment there is room. */
            if (!vs->ahead) {
                p = pick_next(vs, false);
                if (p && p->state == VS_PKT_QUEUED && patch_packet(vs, p)) {
                    vs->ahead = p;
                    did = true;
                }
            }
            break;
        }
        if (!p)
            p = pick_next(vs, true);
        else
            vs->rr_last = p->ctx;
        if (!p)
            break;
        vs->ahead = NULL;
        /* Patch and SubmitCommand get the same fence id, strictly after every one submitted:
         * a packet not yet patched, preempted earlier, or patched before others went ahead of
         * it is patched (again) with a new one. */
        if (p->state == VS_PKT_QUEUED || p->resubmit || !p->patched ||
            (vs->any_submitted && !fence_after(p->fence, vs->last_submitted))) {
            if (!patch_packet(vs, p)) {
                did = true;
                continue;
            }
        }
        if (!schedulable(p->ctx))
            break; /* cancelled while it was being patched: the request cancels it */
        submit_packet(vs, p);
        did = true;
    }
    return did;
}

/* ---- events, polling, preemption -------------------------------------------------------------- */

/* All on the hardware after a preemption (or a reset) went back to their queues, patched. */
static void take_off_hw(dxgk_vidsch_t *vs, vs_preempt_reason_t why)
{
    bool first = true;
    /* A packet patched ahead is no longer its context's next one when earlier packets of that
     * context come back here: the contexts' queues decide again (it is patched anew in turn). */
    vs->ahead = NULL;
    while (vs->hw_head) {
        vs_packet_t *p = vs->hw_head;
        hw_remove(vs, p);
        p->state = VS_PKT_PATCHED;
        if (first && p->running) {
            p->preemptions++;
            if (why == VS_PR_QUANTUM || why == VS_PR_EXPLICIT) {
                /* It ran its quantum and did not finish (a miniport may have to restart it
                 * from its start): give it longer next time, so it cannot starve. */
                p->quantum = p->quantum < (UINT64_MAX >> 1) ? p->quantum * 2 : p->quantum;
                /* Round robin goes on after its context: the work it kept waiting runs first. */
                vs->rr_last = p->ctx;
            } else if (why == VS_PR_TDR) {
                p->strikes++;
            }
        }
        p->running = false;
        first = false;
        vs->st.preempted++;
    }
}

/*
 * A request is answered only here: unlinked first, then marked done (under vs->lock), so its
 * waiter, which owns it, never returns while the list still points at it.
 */
static void req_finish(dxgk_vidsch_t *vs, vs_request_t *r, gr_status_t st)
{
    for (vs_request_t **rp = &vs->requests; *rp; rp = &(*rp)->next)
        if (*rp == r) {
            *rp = r->next;
            break;
        }
    r->next = NULL;
    r->status = st;
    r->done = true;
    pthread_cond_broadcast(&vs->cond);
}

/* Explicit preemptions that were waiting for the one that just ended (or for a reset). */
static void finish_preempt_requests(dxgk_vidsch_t *vs, gr_status_t st)
{
    vs_request_t *next;
    for (vs_request_t *r = vs->requests; r; r = next) {
        next = r->next;
        if (r->kind == VS_REQ_PREEMPT && r->count)
            req_finish(vs, r, r->ctx->lost ? GR_E_DEVICE_RESET : st);
    }
}

static void preempt_done(dxgk_vidsch_t *vs, uint32_t last_completed)
{
    VS_TRACE(vs, "preempted, last completed %u (hw %u)", last_completed, vs->hw_count);
    vs_tl_preempted(vs, last_completed);
    note_completed(vs, last_completed);
    retire_completed(vs);
    vs_preempt_reason_t why = vs->preempt_reason;
    vs_packet_t *head = vs->hw_head;
    if (head && !head->running && why == VS_PR_TDR)
        head->running = true; /* it was the one timing out */
    /* It honoured the preemption in time. Long is not hung ("TDR changes in Windows 8"): a
     * packet the miniport says moved on since it started resumes there, and only one that ran
     * whole timeouts without moving is reset. */
    bool moved = false;
    if (why == VS_PR_TDR && head) {
        gr_kmd_packet_progress_t pr;
        memset(&pr, 0, sizeof pr);
        const uint32_t fence = head->fence;
        pthread_mutex_unlock(&vs->lock);
        NTSTATUS st = vs_ddi_packet_progress(vs->ad, fence, &pr);
        pthread_mutex_lock(&vs->lock);
        moved = st == STATUS_SUCCESS && pr.advanced;
        VS_TRACE(vs, "fence %u %s (resumes at %u + %llu)", fence, moved ? "moved on" : "made no progress",
                 pr.resume_offset, (unsigned long long)pr.resume_done);
    }
    take_off_hw(vs, why);
    vs->preempt_reason = VS_PR_NONE;
    vs->preempt_fence = 0;
    if (moved)
        head->strikes = 0;
    if (why == VS_PR_TDR && head && head->strikes >= VS_TDR_STRIKES && !vs->tdr_pending) {
        /* Preempted in time, but timeout after timeout it did not move: it cannot finish. */
        vs->tdr_pending = true;
        vs->tdr_fence = head->fence;
    }
    finish_preempt_requests(vs, GR_OK);
}

static bool process_events(dxgk_vidsch_t *vs)
{
    vs_event_t ev[VS_EVENTS];
    uint32_t n;
    pthread_spin_lock(&vs->ev_lock);
    n = vs->ev_n;
    memcpy(ev, vs->ev, n * sizeof ev[0]);
    vs->ev_n = 0;
    pthread_spin_unlock(&vs->ev_lock);
    for (uint32_t i = 0; i < n; i++) {
        switch (ev[i].kind) {
        case VS_EV_COMPLETED:
            note_completed(vs, ev[i].fence);
            retire_completed(vs);
            break;
        case VS_EV_PREEMPTED:
            /* Only our own request's answer says what left the hardware. */
            if (vs->preempt_reason != VS_PR_NONE && ev[i].preempt_fence == vs->preempt_fence)
                preempt_done(vs, ev[i].fence);
            else
                note_completed(vs, ev[i].fence);
            break;
        case VS_EV_FAULT:
        case VS_EV_TIMEOUT:
            VS_TRACE(vs, "%s, fence %u", ev[i].kind == VS_EV_FAULT ? "fault" : "engine timeout", ev[i].fence);
            vs_tl_fault(vs, &ev[i]);
            if (!vs->tdr_pending) {
                vs->tdr_pending = true;
                vs->tdr_fence = ev[i].fence_valid ? ev[i].fence : 0;
            }
            break;
        }
    }
    return n != 0;
}

/* QueryCurrentFence: the fence record is the truth; an interrupt may have been lost. */
static bool poll_fence(dxgk_vidsch_t *vs)
{
    DXGKARG_QUERYCURRENTFENCE q;
    memset(&q, 0, sizeof q);
    pthread_mutex_unlock(&vs->lock);
    NTSTATUS st = vs_ddi_query_fence(vs->ad, &q);
    pthread_mutex_lock(&vs->lock);
    vs->st.fence_polls++;
    if (st)
        return false;
    /* What the miniport reported to DxgkCbNotifyInterrupt while answering counts as learnt
     * by this poll too (the query's rule is to report a missed fence that way). */
    uint32_t before = vs->completed;
    process_events(vs);
    note_completed(vs, q.CurrentFence);
    if (vs->completed != before)
        vs->st.fence_by_poll++;
    return retire_completed(vs);
}

/* Another context has work that the head's context is keeping off the engine. */
static bool others_waiting(dxgk_vidsch_t *vs, const vs_context_t *mine)
{
    for (vs_packet_t *p = vs->hw_head; p; p = p->hw_next)
        if (p->ctx != mine)
            return true;
    for (vs_context_t *c = vs->contexts; c; c = c->next)
        if (c != mine && schedulable(c) && next_of(c))
            return true;
    return false;
}

static bool check_timeouts(dxgk_vidsch_t *vs, uint64_t now)
{
    vs_packet_t *h = vs->hw_head;
    const uint64_t tdr = vs->params.tdr_timeout_cycles;
    if (vs->tdr_pending)
        return false;
    if (vs->preempt_reason != VS_PR_NONE) {
        /* preempt_at may be a reading newer than this look's now (issue_preempt's, event mode). */
        if (now > vs->preempt_at && now - vs->preempt_at > tdr) {
            VS_TRACE(vs, "preemption %u not done in %llu cycles", vs->preempt_fence, (unsigned long long)tdr);
            vs_tl_preempt_timeout(vs);
            /* Not preempted within the timeout: the GPU is hung. */
            vs->tdr_pending = true;
            vs->tdr_fence = h ? h->fence : 0;
            return true;
        }
        return false;
    }
    if (!h)
        return false;
    if (!h->running) {
        h->running = true;
        h->run_start = now;
        return false;
    }
    const uint64_t ran = now > h->run_start ? now - h->run_start : 0;
    if (ran > tdr) {
        if (vs->caps.PreemptionAware) {
            issue_preempt(vs, VS_PR_TDR, now);
        } else {
            vs->tdr_pending = true;
            vs->tdr_fence = h->fence;
        }
        return true;
    }
    if (vs->caps.PreemptionAware && !h->paging && vs->pg_head) {
        /* A paging packet waits (queued, or on the hardware behind this one): the engine goes
         * to it now. Not the packet's doing: its quantum stays as it was. */
        issue_preempt(vs, VS_PR_PAGING, now);
        return true;
    }
    if (vs->caps.PreemptionAware && !h->paging && ran > h->quantum && others_waiting(vs, h->ctx)) {
        issue_preempt(vs, VS_PR_QUANTUM, now);
        return true;
    }
    return false;
}

/*
 * Event mode (vs->irq_events): whether this look needs a fresh reading of the device's clock. A
 * packet that starts running, a paging packet waiting behind a context's, a link in trouble
 * (reads failing: watch_link) or a deadline that the device's time is expected to have reached
 * (vs_clock_bound) do; anything else decides on the last reading, which is never later than the
 * device's time, so no deadline fires early (a late one by as much as the device runs faster than
 * it has been measured to). Other links read the clock at every look.
 */
static bool clock_needed(dxgk_vidsch_t *vs, uint64_t fail_since)
{
    if (!vs->irq_events || fail_since || atomic_exchange(&vs->link_trouble, false))
        return true;
    if (vs->tdr_pending || atomic_load(&vs->link_lost))
        return false;
    const uint64_t tdr = vs->params.tdr_timeout_cycles;
    uint64_t at = UINT64_MAX;
    vs_packet_t *h = vs->hw_head;
    if (vs->preempt_reason != VS_PR_NONE) {
        at = vs->preempt_at + tdr + 1;
    } else if (h) {
        if (!h->running)
            return true;
        at = h->run_start + tdr + 1;
        if (vs->caps.PreemptionAware && !h->paging && vs->pg_head)
            return true;
        if (vs->caps.PreemptionAware && !h->paging && others_waiting(vs, h->ctx) && h->run_start + h->quantum + 1 < at)
            at = h->run_start + h->quantum + 1;
    }
    return at != UINT64_MAX && vs_clock_bound(vs, VS_BOUND_EXPECT) >= at;
}

/* ---- requests ------------------------------------------------------------------------------------ */

static bool ctx_on_hw(const dxgk_vidsch_t *vs, const vs_context_t *c)
{
    for (const vs_packet_t *p = vs->hw_head; p; p = p->hw_next)
        if (p->ctx == c)
            return true;
    return false;
}

/* One step of a cancellation; true when it is complete. */
static bool cancel_step(dxgk_vidsch_t *vs, vs_request_t *r, uint64_t now)
{
    vs_context_t *c = r->ctx;
    c->cancelling = true;
    /* Not on the hardware: dropped or cancelled now (restart the walk after each DDI). */
    for (bool again = true; again;) {
        again = false;
        for (vs_packet_t *p = c->head; p; p = p->next) {
            if (p->state == VS_PKT_ON_HW || p->busy)
                continue;
            r->count++;
            remove_packet(vs, p, GR_E_CANCELLED);
            again = true;
            break;
        }
    }
    if (ctx_on_hw(vs, c) && !vs->tdr_pending) {
        if (vs->preempt_reason == VS_PR_NONE && vs->caps.PreemptionAware)
            issue_preempt(vs, VS_PR_CANCEL, now);
        /* Without preemption the packets on the hardware run to completion. */
        return false;
    }
    if (c->queued)
        return false;
    c->cancelling = false;
    return true;
}

/*
 * Only this thread unlinks requests (req_finish); API threads append under vs->lock. So the
 * next request stays valid across the DDI calls a step makes with the lock released.
 */
static bool process_requests(dxgk_vidsch_t *vs, uint64_t now)
{
    bool did = false;
    vs_request_t *next;
    for (vs_request_t *r = vs->requests; r; r = next) {
        next = r->next;
        if (r->kind == VS_REQ_CANCEL) {
            if (cancel_step(vs, r, now)) {
                next = r->next;
                req_finish(vs, r, GR_OK);
                did = true;
            }
        } else if (r->count == 0) {
            /* Preempt: now, if the context has work on the engine; done when it lands. */
            if (!ctx_on_hw(vs, r->ctx) || !vs->caps.PreemptionAware) {
                next = r->next;
                req_finish(vs, r, vs->caps.PreemptionAware ? GR_OK : GR_E_UNSUPPORTED);
                did = true;
            } else if (!vs->tdr_pending) {
                r->count = 1;
                if (vs->preempt_reason == VS_PR_NONE)
                    issue_preempt(vs, VS_PR_EXPLICIT, now);
                did = true;
            }
        }
    }
    return did;
}

gr_status_t vs_request(dxgk_vidsch_t *vs, vs_req_kind_t kind, vs_context_t *ctx, uint32_t *out_count)
{
    vs_request_t r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.ctx = ctx;
    vs_request_t **tail = &vs->requests;
    while (*tail)
        tail = &(*tail)->next;
    *tail = &r;
    vs_wake(vs);
    while (!r.done)
        vs_cond_wait_ns(vs, 2000000L);
    if (out_count)
        *out_count = r.count;
    return r.status;
}

/* ---- TDR ------------------------------------------------------------------------------------------ */

static void flush_dpcs(dxgk_vidsch_t *vs)
{
    pthread_mutex_unlock(&vs->lock);
    while (atomic_load(&vs->dpc_queued) || atomic_load(&vs->dpc_running)) {
        struct timespec ts = {0, 100000L};
        nanosleep(&ts, NULL);
        if (atomic_load(&vs->stop))
            break;
    }
    pthread_mutex_lock(&vs->lock);
}

/* The packet a TDR blames: the faulted fence's, else the head of the hardware queue. */
static vs_packet_t *find_guilty(dxgk_vidsch_t *vs)
{
    if (vs->tdr_fence) {
        for (vs_packet_t *p = vs->hw_head; p; p = p->hw_next)
            if (p->fence == vs->tdr_fence)
                return p;
        for (vs_context_t *c = vs->contexts; c; c = c->next)
            for (vs_packet_t *p = c->head; p; p = p->next)
                if (p->patched && p->fence == vs->tdr_fence && p->state != VS_PKT_QUEUED)
                    return p;
        for (vs_packet_t *p = vs->pg_head; p; p = p->next) /* a paging packet preempted off */
            if (p->patched && p->fence == vs->tdr_fence && p->state != VS_PKT_QUEUED)
                return p;
    }
    return vs->hw_head;
}

static void do_tdr(dxgk_vidsch_t *vs)
{
    gr_adapter_t *ad = vs->ad;
    /* 1. What completed is completed (the scheduler's snapshot of the last completed fence). */
    poll_fence(vs);
    flush_dpcs(vs);
    process_events(vs);
    /* Nobody to blame (the hung packet finished meanwhile): still reset, a faulted or hung
     * engine issues nothing until it is. */
    vs_packet_t *guilty = vs->tdr_external ? NULL : find_guilty(vs);
    vs_context_t *gctx = guilty ? guilty->ctx : NULL;
    /* A paging packet is named again by its fence below: the packet may retire meanwhile. */
    const bool gpaging = guilty && guilty->paging;
    const uint32_t gfence = guilty ? guilty->fence : 0;
    VS_TRACE(vs, "TDR: guilty ctx %u seq %llu fence %u", gctx ? gctx->handle : 0,
             guilty ? (unsigned long long)guilty->seq : 0ull, guilty ? guilty->fence : 0);
    vs_tl_tdr(vs, guilty);

    /* 2. Reset: alone in the miniport (the gate), nothing passing through the scheduler. */
    pthread_mutex_unlock(&vs->lock);
    dxgk_vidsch_class_lock(ad);
    (void)vs_ddi_reset(ad);
    dxgk_vidsch_class_unlock(ad);
    pthread_mutex_lock(&vs->lock);
    vs->st.tdrs++;
    /* Interrupt-time news from before the reset: completions count, a preemption is void. */
    process_events(vs);
    vs->preempt_reason = VS_PR_NONE;
    vs->preempt_fence = 0;

    /* 3. Cleanup: everything left the hardware. The guilty context's patched packets are
     * cancelled, its others dropped; the rest go back to their queues to be resubmitted (and a
     * packet patched ahead waits for its turn there, as after a preemption). */
    vs->ahead = NULL;
    while (vs->hw_head) {
        vs_packet_t *p = vs->hw_head;
        hw_remove(vs, p);
        p->state = VS_PKT_PATCHED;
        p->running = false;
        /* Reset by someone else (the counter restarted): the device dropped what it held, and
         * what it had half done cannot be told from what it had not begun. */
        if (vs->tdr_external)
            remove_packet(vs, p, GR_E_DEVICE_RESET);
    }
    vs->tdr_external = false;
    /* A guilty paging packet has no context to lose: its operation failed and VidMm, waiting for
     * it, undoes it. Innocent paging packets are resubmitted first, with their fence ids. */
    for (vs_packet_t *p = gpaging ? vs->pg_head : NULL; p; p = p->next)
        if (p->patched && p->fence == gfence && !p->busy) {
            vs_retire(vs, p, GR_E_DEVICE_RESET);
            break;
        }
    if (gctx) {
        gctx->lost = true;
        for (bool again = true; again;) {
            again = false;
            for (vs_packet_t *p = gctx->head; p; p = p->next) {
                if (p->busy)
                    continue;
                remove_packet(vs, p, GR_E_DEVICE_RESET);
                again = true;
                break;
            }
        }
    }

    /* 4. Restart: the hardware queue is empty. */
    pthread_mutex_unlock(&vs->lock);
    dxgk_vidsch_class_lock(ad);
    (void)vs_ddi_restart(ad);
    dxgk_vidsch_class_unlock(ad);
    pthread_mutex_lock(&vs->lock);
    vs->tdr_pending = false;
    vs->tdr_fence = 0;
    finish_preempt_requests(vs, GR_OK);
    pthread_cond_broadcast(&vs->cond);
}

/* ---- a lost device -------------------------------------------------------------------------------- */

/*
 * The link failed every clock read for gr_link_dead_ms (the server or board is gone): every
 * packet retires with GR_E_LINK, every request is answered, nothing reaches the hardware again
 * (schedule is not called). No DDI is made: over a dead link it could only fail.
 */
static bool lose_device(dxgk_vidsch_t *vs)
{
    bool did = false;
    vs->ahead = NULL;
    vs->tdr_pending = false;
    vs->tdr_external = false;
    vs->preempt_reason = VS_PR_NONE;
    vs->preempt_fence = 0;
    while (vs->hw_head) {
        vs_retire(vs, vs->hw_head, GR_E_LINK);
        did = true;
    }
    for (vs_context_t *c = vs->contexts; c; c = c->next) {
        c->cancelling = false;
        while (c->head) {
            vs_retire(vs, c->head, GR_E_LINK);
            did = true;
        }
    }
    while (vs->pg_head) {
        vs_retire(vs, vs->pg_head, GR_E_LINK);
        did = true;
    }
    while (vs->requests) {
        req_finish(vs, vs->requests, GR_E_LINK);
        did = true;
    }
    return did;
}

/* A clock read's result: a run of failures as long as the link's dead_ms loses the device. */
static void watch_link(dxgk_vidsch_t *vs, int rc, uint64_t *fail_since)
{
    if (!rc) {
        *fail_since = 0;
        return;
    }
    const uint64_t t = vs_wall_ms();
    if (!*fail_since) {
        *fail_since = t;
        return;
    }
    const uint32_t bound = gr_link_dead_ms(vs->ad->link);
    if (bound && t - *fail_since >= bound && !atomic_load(&vs->link_lost)) {
        snprintf(vs->lost_reason, sizeof vs->lost_reason,
                 "the device is lost: every read of it failed for %u ms (the last: %s: %s)", bound,
                 gr_strerror(rc), gr_link_error());
        VS_TRACE(vs, "%s", vs->lost_reason);
        atomic_store(&vs->link_lost, true);
    }
}

/* ---- the thread ----------------------------------------------------------------------------------- */

void *vs_sched_main(void *arg)
{
    dxgk_vidsch_t *vs = arg;
    struct timespec last_poll = {0, 0};
    uint64_t fail_since = 0;
    pthread_mutex_lock(&vs->lock);
    while (!atomic_load(&vs->stop)) {
        bool did = false;
        bool kicked = atomic_exchange(&vs->kick, false);
        const bool need = clock_needed(vs, fail_since);
        pthread_mutex_unlock(&vs->lock);
        uint64_t now = atomic_load(&vs->now);
        const bool lost = atomic_load(&vs->link_lost);
        bool fresh = false;
        if (!lost && need) {
            const int crc = vs_clock_read(vs, &now);
            watch_link(vs, crc, &fail_since);
            fresh = crc == GR_OK;
        }
        atomic_store(&vs->slices_unseen, 0); /* this look covers the device's time up to now */
        pthread_mutex_lock(&vs->lock);
        vs->now_fresh = fresh;
        if (lost || atomic_load(&vs->link_lost)) {
            if (!lose_device(vs) && !atomic_load(&vs->kick))
                vs_cond_wait_ns(vs, 5000000L);
            continue;
        }
        if (atomic_exchange(&vs->clock_restarted, false) && !vs->tdr_pending) {
            /* Someone reset the core: the engine must be set up again, its work is gone. */
            VS_TRACE(vs, "the device's clock restarted: a reset from outside");
            vs->st.tdrs_external++;
            vs->tdr_pending = true;
            vs->tdr_external = true;
            vs->tdr_fence = 0;
        }

        did |= process_events(vs);
        const bool work = vs->hw_count || vs->preempt_reason != VS_PR_NONE;
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long since = (t.tv_sec - last_poll.tv_sec) * 1000000000L + (t.tv_nsec - last_poll.tv_nsec);
        if (work && (kicked || since >= VS_POLL_NS)) {
            did |= poll_fence(vs);
            last_poll = t;
        }
        did |= process_requests(vs, now);
        did |= check_timeouts(vs, now);
        if (vs->tdr_pending) {
            do_tdr(vs);
            did = true;
        }
        did |= schedule(vs);
        if (!did && !atomic_load(&vs->kick))
            vs_cond_wait_ns(vs, vs->hw_count || vs->requests ? VS_POLL_NS : 5000000L);
    }
    pthread_mutex_unlock(&vs->lock);
    return NULL;
}
