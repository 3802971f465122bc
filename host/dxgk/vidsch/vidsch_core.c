/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch_core.c: VidSch's adapter state: start and stop, the interrupt and DPC threads, the
 * DXGKRNL_INTERFACE callbacks of the command path, the knobs and counters. The top of VidSch
 * but for the submission API (vidsch_api.c): it starts the scheduler thread (vidsch_sched.c);
 * the waits, locks and clock every file of VidSch uses are in vidsch_sync.c, below them all.
 */
#define _GNU_SOURCE /* pthread spin locks, recursive mutexes */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dxgk_handle.h"
#include "dxgk_threading.h"
#include "gpuref/gr_regmap.h"
#include "gr_broker.h"
#include "gr_link.h"
#include "vidsch.h"
#include "vidsch_ddi.h"
#include "vidsch_objects.h"
#include "vidsch_paging.h"
#include "vidsch_sched.h"
#include "vidsch_sync.h"
#include "vidsch_testing.h"

/* ---- callbacks ------------------------------------------------------------------------------- */

static dxgk_vidsch_t *vs_of(HANDLE h)
{
    gr_adapter_t *ad = h;
    return ad ? ad->vidsch : NULL;
}

/* DxgkCbNotifyInterrupt: records the event for the scheduler. Interrupt level: no waiting, only
 * a spin lock around a fixed ring; completions merge into the newest completion. */
static VOID APIENTRY cb_notify_interrupt(IN_CONST_HANDLE hAdapter, IN_CONST_PDXGKARGCB_NOTIFY_INTERRUPT_DATA d)
{
    dxgk_vidsch_t *vs = vs_of((HANDLE)hAdapter);
    if (!vs || !d)
        return;
    dxgk_thr_callback(vs->ad->thr, DXGK_CB_NOTIFY_INTERRUPT);
    vs_event_t ev;
    memset(&ev, 0, sizeof ev);
    switch (d->InterruptType) {
    case DXGK_INTERRUPT_DMA_COMPLETED:
        ev.kind = VS_EV_COMPLETED;
        ev.fence = d->DmaCompleted.SubmissionFenceId;
        ev.fence_valid = true;
        break;
    case DXGK_INTERRUPT_DMA_PREEMPTED:
        ev.kind = VS_EV_PREEMPTED;
        ev.preempt_fence = d->DmaPreempted.PreemptionFenceId;
        ev.fence = d->DmaPreempted.LastCompletedFenceId;
        ev.fence_valid = true;
        break;
    case DXGK_INTERRUPT_DMA_FAULTED:
        ev.kind = VS_EV_FAULT;
        ev.fence = d->DmaFaulted.FaultedFenceId;
        ev.fence_valid = true;
        break;
    case DXGK_INTERRUPT_DMA_PAGE_FAULTED:
        ev.kind = VS_EV_FAULT;
        ev.fence = d->DmaPageFaulted.FaultedFenceId;
        ev.fence_valid = !(d->DmaPageFaulted.PageFaultFlags & DXGK_PAGE_FAULT_FENCE_INVALID);
        break;
    case DXGK_INTERRUPT_GPU_ENGINE_TIMEOUT:
        ev.kind = VS_EV_TIMEOUT;
        break;
    default:
        return; /* display interrupts: there is no display */
    }
    pthread_spin_lock(&vs->ev_lock);
    if (ev.kind == VS_EV_COMPLETED && vs->ev_n && vs->ev[vs->ev_n - 1].kind == VS_EV_COMPLETED) {
        if (!vs_fence_done(ev.fence, vs->ev[vs->ev_n - 1].fence))
            vs->ev[vs->ev_n - 1].fence = ev.fence;
    } else if (vs->ev_n < VS_EVENTS) {
        vs->ev[vs->ev_n++] = ev;
    }
    /* Full: the event is dropped. The scheduler polls the fence; a lost preemption times out. */
    pthread_spin_unlock(&vs->ev_lock);
}

/* DxgkCbQueueDpc: one DPC per adapter; FALSE when it is queued already. Any IRQL: an atomic
 * and a semaphore post, nothing that waits. */
static BOOLEAN APIENTRY cb_queue_dpc(HANDLE DeviceHandle)
{
    dxgk_vidsch_t *vs = vs_of(DeviceHandle);
    if (!vs)
        return FALSE;
    dxgk_thr_callback(vs->ad->thr, DXGK_CB_QUEUE_DPC);
    if (atomic_exchange(&vs->dpc_queued, true))
        return FALSE;
    sem_post(&vs->dpc_sem);
    return TRUE;
}

/* DxgkCbNotifyDpc: DPC time; the scheduler takes the events from here. */
static VOID APIENTRY cb_notify_dpc(IN_CONST_HANDLE hAdapter)
{
    dxgk_vidsch_t *vs = vs_of((HANDLE)hAdapter);
    if (!vs)
        return;
    dxgk_thr_callback(vs->ad->thr, DXGK_CB_NOTIFY_DPC);
    atomic_store(&vs->kick, true);
    pthread_cond_broadcast(&vs->cond);
}

/* DxgkCbSynchronizeExecution: runs the routine under the interrupt lock at DIRQL. */
static NTSTATUS APIENTRY cb_synchronize_execution(HANDLE DeviceHandle, PKSYNCHRONIZE_ROUTINE routine, PVOID context,
                                                  ULONG MessageNumber, PBOOLEAN ReturnValue)
{
    dxgk_vidsch_t *vs = vs_of(DeviceHandle);
    if (!vs || !routine || MessageNumber != 0)
        return STATUS_INVALID_PARAMETER;
    dxgk_thr_callback(vs->ad->thr, DXGK_CB_SYNCHRONIZE_EXECUTION);
    pthread_mutex_lock(&vs->irq_lock);
    dxgk_irql_t old = dxgk_thr_raise(DXGK_DIRQL);
    BOOLEAN r = routine(context);
    dxgk_thr_lower(old);
    pthread_mutex_unlock(&vs->irq_lock);
    if (ReturnValue)
        *ReturnValue = r;
    return STATUS_SUCCESS;
}

void dxgk_vidsch_fill_callbacks(gr_adapter_t *ad, DXGKRNL_INTERFACE *cb)
{
    (void)ad;
    cb->DxgkCbNotifyInterrupt = cb_notify_interrupt;
    cb->DxgkCbQueueDpc = cb_queue_dpc;
    cb->DxgkCbNotifyDpc = cb_notify_dpc;
    cb->DxgkCbSynchronizeExecution = cb_synchronize_execution;
}

/* ---- threads --------------------------------------------------------------------------------- */

static bool busy(dxgk_vidsch_t *vs)
{
    pthread_mutex_lock(&vs->lock);
    bool b = vs->hw_count || vs->preempt_reason != VS_PR_NONE || vs->tdr_pending || vs->requests;
    pthread_mutex_unlock(&vs->lock);
    return b;
}

/* The interrupt routine for a raised line; sleeps after a run of levels nobody claims. */
static void run_isr(dxgk_vidsch_t *vs, uint32_t *unclaimed)
{
    pthread_mutex_lock(&vs->irq_lock);
    BOOLEAN claimed = vs_ddi_interrupt(vs->ad);
    pthread_mutex_unlock(&vs->irq_lock);
    if (claimed) {
        atomic_fetch_add(&vs->n_interrupts, 1);
        *unclaimed = 0;
    } else if (++*unclaimed > 8) {
        /* A level the miniport does not claim (another block's interrupt): do not spin. */
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
}

/*
 * The interrupt thread on a link that tells its line's changes (a byte-stream link's IRQ
 * messages): it waits for the device to say the line is high, with no round trip and without
 * the link lock, so waiting costs the link nothing however long the device works. A link that is
 * down tells the scheduler, whose clock reads then watch it (dead_ms).
 */
static void int_events(dxgk_vidsch_t *vs)
{
    uint32_t unclaimed = 0;
    while (!atomic_load(&vs->stop)) {
        bool raised = false;
        int rc = gr_link_wait_irq_event(vs->ad->link, VS_EVENT_WAIT_US, &raised);
        if (rc) {
            atomic_store(&vs->link_trouble, true);
            vs_wake(vs);
            struct timespec ts = {0, 5000000L};
            nanosleep(&ts, NULL);
            continue;
        }
        if (raised)
            run_isr(vs, &unclaimed);
    }
}

/*
 * The interrupt thread: samples the interrupt line; while work is on the hardware it waits on it
 * in short slices of device time, which on sim:// is what makes the device run at all. It holds
 * the link lock only inside wait_irq, never around the interrupt routine (which uses the link).
 */
static void *int_main(void *arg)
{
    dxgk_vidsch_t *vs = arg;
    gr_adapter_t *ad = vs->ad;
    uint32_t unclaimed = 0;
    if (vs->irq_events) {
        int_events(vs);
        return NULL;
    }
    while (!atomic_load(&vs->stop)) {
        bool b = busy(vs);
        if (!b) {
            pthread_mutex_lock(&vs->idle_lock);
            if (!atomic_load(&vs->stop)) {
                struct timespec ts = vs_deadline_ns(VS_IDLE_POLL_NS);
                (void)pthread_cond_timedwait(&vs->idle_cond, &vs->idle_lock, &ts);
            }
            pthread_mutex_unlock(&vs->idle_lock);
            if (atomic_load(&vs->stop))
                break;
        }
        if (b && atomic_load(&vs->slices_unseen) >= VS_LEASH_SLICES) {
            /* The scheduler has not looked for a while: let it catch up before the device runs on. */
            vs_wake(vs);
            struct timespec ts = {0, 20000L};
            nanosleep(&ts, NULL);
            continue;
        }
        bool raised = false;
        pthread_mutex_lock(&ad->link_lock);
        int rc = gr_link_wait_irq(ad->link, b ? VS_SLICE_US : 0, &raised);
        pthread_mutex_unlock(&ad->link_lock);
        if (b)
            atomic_fetch_add(&vs->slices_unseen, 1);
        if (rc) {
            struct timespec ts = {0, 1000000L};
            nanosleep(&ts, NULL);
            continue;
        }
        if (raised)
            run_isr(vs, &unclaimed);
        /* Let the miniport's link users in between slices. */
        sched_yield();
    }
    return NULL;
}

/* The DPC thread: DxgkDdiDpcRoutine once per DxgkCbQueueDpc, never two at once. */
static void *dpc_main(void *arg)
{
    dxgk_vidsch_t *vs = arg;
    while (!atomic_load(&vs->stop)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 5000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_nsec -= 1000000000L;
            ts.tv_sec++;
        }
        if (sem_timedwait(&vs->dpc_sem, &ts) && errno != EINTR)
            continue;
        if (!atomic_exchange(&vs->dpc_queued, false))
            continue;
        atomic_store(&vs->dpc_running, true);
        vs_ddi_dpc(vs->ad);
        atomic_store(&vs->dpc_running, false);
        atomic_fetch_add(&vs->n_dpcs, 1);
        vs_wake(vs);
    }
    return NULL;
}

/* ---- life cycle ------------------------------------------------------------------------------ */

gr_status_t dxgk_vidsch_init(gr_adapter_t *ad)
{
    dxgk_vidsch_t *vs = calloc(1, sizeof *vs);
    if (!vs)
        return GR_E_NO_MEMORY;
    vs->ad = ad;
    vs->params.quantum_cycles = VS_DEFAULT_QUANTUM;
    vs->params.tdr_timeout_cycles = VS_DEFAULT_TDR;
    const char *tr = getenv("GR_VIDSCH_TRACE");
    vs->trace = tr && *tr && strcmp(tr, "0") != 0;
    pthread_mutexattr_t ma;
    if (pthread_mutexattr_init(&ma))
        goto fail_free;
    /* The interrupt lock is recursive: an ISR may synchronize with itself. */
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    int e = pthread_mutex_init(&vs->irq_lock, &ma);
    pthread_mutexattr_destroy(&ma);
    if (e)
        goto fail_free;
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca))
        goto fail_irq;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    bool ok = !pthread_mutex_init(&vs->lock, NULL);
    ok = ok && !pthread_cond_init(&vs->cond, &ca);
    ok = ok && !pthread_mutex_init(&vs->idle_lock, NULL);
    ok = ok && !pthread_cond_init(&vs->idle_cond, &ca);
    ok = ok && !pthread_spin_init(&vs->ev_lock, PTHREAD_PROCESS_PRIVATE);
    ok = ok && !sem_init(&vs->dpc_sem, 0, 0);
    pthread_condattr_destroy(&ca);
    if (!ok)
        goto fail_irq; /* only on resource exhaustion at open; what was made leaks with the process */
    ad->vidsch = vs;
    return GR_OK;
fail_irq:
    pthread_mutex_destroy(&vs->irq_lock);
fail_free:
    free(vs);
    return GR_E_NO_MEMORY;
}

gr_status_t dxgk_vidsch_start(gr_adapter_t *ad)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    const DXGK_VIDSCHCAPS c = ad->caps.SchedulingCaps;
    /* DXGK_VIDSCHCAPS: "the operating system will halt the driver initialization process". */
    if ((c.PreemptionAware && !c.MultiEngineAware) || (c.NoDmaPatching && !(c.PreemptionAware && c.MultiEngineAware)) ||
        (c.CancelCommandAware && !c.MultiEngineAware))
        return GR_E_MISMATCH;
    vs->caps = c;
    vs->hw_cap = c.HwQueuePacketCap ? c.HwQueuePacketCap : VS_DEFAULT_HW_CAP;
    if (ad->caps.GpuEngineTopology.NbAsymetricProcessingNodes < 1 || !c.MultiEngineAware)
        return GR_OK; /* no engine: the allocation path only */
    /* The clock must answer (DMA_TIMESTAMP exists with the engine). */
    uint32_t lo = 0;
    pthread_mutex_lock(&ad->link_lock);
    int rc = gr_link_read32(ad->link, GR_REG_DMA_TIMESTAMP_LO, &lo);
    pthread_mutex_unlock(&ad->link_lock);
    if (rc)
        return GR_OK;
    vs->engine = true;
    bool raised = false;
    vs->irq_events = gr_link_wait_irq_event(ad->link, 0, &raised) != GR_E_UNSUPPORTED;
    (void)vs_clock(vs);
    if (vs->irq_events) {
        /* A first measure of the clock's rate, so that the first deadlines are not checked at
         * the 1 GHz a device never runs at (one more round trip, here rather than in a wait). */
        struct timespec ts = {0, (long)VS_RATE_FIRST_NS};
        nanosleep(&ts, NULL);
        (void)vs_clock(vs);
    }
    atomic_store(&vs->stop, false);
    if (pthread_create(&vs->int_thread, NULL, int_main, vs))
        goto fail;
    if (pthread_create(&vs->dpc_thread, NULL, dpc_main, vs)) {
        atomic_store(&vs->stop, true);
        vs_wake(vs);
        pthread_join(vs->int_thread, NULL);
        goto fail;
    }
    if (pthread_create(&vs->sched_thread, NULL, vs_sched_main, vs)) {
        atomic_store(&vs->stop, true);
        vs_wake(vs);
        pthread_join(vs->int_thread, NULL);
        pthread_join(vs->dpc_thread, NULL);
        goto fail;
    }
    vs->running = true;
    return GR_OK;
fail:
    vs->engine = false;
    return GR_E_NO_MEMORY;
}

void dxgk_vidsch_stop(gr_adapter_t *ad)
{
    dxgk_vidsch_t *vs = ad ? ad->vidsch : NULL;
    if (!vs || !vs->running)
        return;
    atomic_store(&vs->stop, true);
    vs_wake(vs);
    sem_post(&vs->dpc_sem);
    pthread_join(vs->sched_thread, NULL);
    pthread_join(vs->int_thread, NULL);
    pthread_join(vs->dpc_thread, NULL);
    vs->running = false;
    vs->engine = false;
    vs_paging_free_pool(vs); /* VidMm waits for its paging packets: all are idle by now */
}

void dxgk_vidsch_fini(gr_adapter_t *ad)
{
    dxgk_vidsch_t *vs = ad ? ad->vidsch : NULL;
    if (!vs)
        return;
    dxgk_vidsch_stop(ad);
    sem_destroy(&vs->dpc_sem);
    pthread_spin_destroy(&vs->ev_lock);
    pthread_cond_destroy(&vs->idle_cond);
    pthread_mutex_destroy(&vs->idle_lock);
    pthread_cond_destroy(&vs->cond);
    pthread_mutex_destroy(&vs->lock);
    pthread_mutex_destroy(&vs->irq_lock);
    free(vs);
    ad->vidsch = NULL;
}

/* ---- knobs and counters ------------------------------------------------------------------------ */

gr_status_t gr_adapter_set_scheduling(gr_adapter_t *ad, const gr_sched_params_t *p)
{
    if (ad && ad->broker)
        return gr_brk_set_scheduling(ad, p);
    if (!ad || !ad->vidsch || !p)
        return GR_E_INVALID;
    if (p->tdr_timeout_cycles && p->tdr_timeout_cycles < VS_MIN_TDR)
        return GR_E_RANGE;
    dxgk_vidsch_t *vs = ad->vidsch;
    pthread_mutex_lock(&vs->lock);
    if (p->quantum_cycles)
        vs->params.quantum_cycles = p->quantum_cycles;
    if (p->tdr_timeout_cycles)
        vs->params.tdr_timeout_cycles = p->tdr_timeout_cycles;
    pthread_mutex_unlock(&vs->lock);
    vs_wake(vs);
    return GR_OK;
}

gr_status_t gr_adapter_sched_stats(gr_adapter_t *ad, gr_sched_stats_t *out)
{
    if (ad && ad->broker)
        return gr_brk_sched_stats(ad, out);
    if (!ad || !ad->vidsch || !out)
        return GR_E_INVALID;
    dxgk_vidsch_t *vs = ad->vidsch;
    pthread_mutex_lock(&vs->lock);
    gr_sched_stats_t s = vs->st;
    s.live_packets = vs->live_packets;
    s.live_contexts = vs->live_contexts;
    pthread_mutex_unlock(&vs->lock);
    s.interrupts = atomic_load(&vs->n_interrupts);
    s.dpcs = atomic_load(&vs->n_dpcs);
    s.threading_violations = dxgk_thr_violations(vs->ad->thr);
    s.link_lost = atomic_load(&vs->link_lost);
    *out = s;
    return GR_OK;
}

gr_status_t gr_adapter_cycles(gr_adapter_t *ad, uint64_t *out_cycles)
{
    if (ad && ad->broker)
        return gr_brk_cycles(ad, out_cycles);
    if (!ad || !ad->vidsch || !out_cycles)
        return GR_E_INVALID;
    if (!ad->vidsch->engine)
        return GR_E_UNSUPPORTED;
    *out_cycles = vs_clock(ad->vidsch);
    return GR_OK;
}

/* ---- test hooks (vidsch_testing.h) --------------------------------------------------------------- */

gr_dxgk_ddi_table_t *gr_vidsch_test_ddi(gr_adapter_t *ad)
{
    return ad && ad->vidsch ? &ad->ddi : NULL;
}

dxgk_thr_t *gr_vidsch_test_thr(gr_adapter_t *ad)
{
    return ad && ad->vidsch ? ad->thr : NULL;
}

HANDLE gr_vidsch_test_hcontext(gr_gpu_device_t *dev, gr_context_t h)
{
    if (!dev)
        return NULL;
    gr_process_t *p = dev->process;
    pthread_mutex_lock(&p->lock);
    vs_context_t *c = dxgk_htab_lookup(&p->handles, h, DXGK_HT_CONTEXT);
    HANDLE r = c && c->magic == VS_MAGIC_CONTEXT && c->device == dev ? c->hContext : NULL;
    pthread_mutex_unlock(&p->lock);
    return r;
}

NTSTATUS gr_vidsch_test_preempt_unserialized(gr_adapter_t *ad, UINT fence)
{
    if (!ad || !ad->vidsch)
        return STATUS_INVALID_PARAMETER;
    DXGKARG_PREEMPTCOMMAND a;
    memset(&a, 0, sizeof a);
    a.PreemptionFenceId = fence;
    return vs_ddi_preempt(ad, &a);
}
