/* SPDX-License-Identifier: Apache-2.0 */
/* dxgk_threading.c: threading levels (see dxgk_threading.h). */
#define _GNU_SOURCE /* the reader-preferring rwlock */
#include "dxgk_threading.h"

#include <pthread.h>
#include <stdatomic.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DXGK_THR_MAX_PROCS 64u

struct dxgk_thr {
    pthread_rwlock_t gate;
    unsigned mode;
    atomic_uint_fast64_t violations;
    atomic_uint notifies_unacked; /* DxgkCbNotifyInterrupt calls no DxgkCbNotifyDpc followed yet */
#ifdef GR_DEBUG_THREADING
    pthread_mutex_t lock; /* the bookkeeping below */
    uint32_t inside;      /* threads inside non-interrupt DDIs */
    uint32_t in_class[DXGK_CLASS_COUNT];
    dxgk_ddi_t class_ddi[DXGK_CLASS_COUNT];
    pthread_t class_thread[DXGK_CLASS_COUNT];
    bool third_active;
    dxgk_ddi_t third_ddi;
    pthread_t third_thread;
    uint32_t in_isr, in_dpc;
    struct {
        const void *process;
        pthread_t thread;
        dxgk_ddi_t ddi;
        uint32_t depth;
    } procs[DXGK_THR_MAX_PROCS];
#endif
};

static const struct {
    const char *name;
    dxgk_level_t level;
    dxgk_class_t cls;
    dxgk_irql_t irql;
} ddi_info[DXGK_DDI_COUNT] = {
#define DXGK_DDI_INFO(id, n, lvl, c, i) [DXGK_DDI_##id] = {n, lvl, c, i},
    DXGK_DDI_LIST(DXGK_DDI_INFO)
#undef DXGK_DDI_INFO
};

#ifdef GR_DEBUG_THREADING
static const char *const cb_names[] = {
    [DXGK_CB_GET_HANDLE_DATA] = "DxgkCbGetHandleData",
    [DXGK_CB_GET_HANDLE_PARENT] = "DxgkCbGetHandleParent",
    [DXGK_CB_NOTIFY_INTERRUPT] = "DxgkCbNotifyInterrupt",
    [DXGK_CB_NOTIFY_DPC] = "DxgkCbNotifyDpc",
    [DXGK_CB_QUEUE_DPC] = "DxgkCbQueueDpc",
    [DXGK_CB_SYNCHRONIZE_EXECUTION] = "DxgkCbSynchronizeExecution",
};

static const char *irql_name(dxgk_irql_t i)
{
    return i == DXGK_PASSIVE ? "PASSIVE_LEVEL" : i == DXGK_DISPATCH ? "DISPATCH_LEVEL" : "DIRQL";
}
#endif

/* ---- the thread's modelled state ---------------------------------------------------------- */

static _Thread_local dxgk_irql_t tls_irql = DXGK_PASSIVE;
#ifdef GR_DEBUG_THREADING
/* ISR protocol: NotifyInterrupt called and no DPC queued after it yet. */
static _Thread_local bool tls_isr_notify_pending;
/* DPC protocol: this DPC called NotifyDpc. */
static _Thread_local bool tls_dpc_notified;
#endif

dxgk_irql_t dxgk_thr_irql(void)
{
    return tls_irql;
}

dxgk_irql_t dxgk_thr_raise(dxgk_irql_t irql)
{
    dxgk_irql_t old = tls_irql;
    if (irql > tls_irql)
        tls_irql = irql;
    return old;
}

void dxgk_thr_lower(dxgk_irql_t old)
{
    tls_irql = old;
}

/* ---- violations ------------------------------------------------------------------------------ */

static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;
static dxgk_thr_violation_fn handler_fn;
static void *handler_ctx;

void dxgk_thr_set_handler(dxgk_thr_violation_fn fn, void *ctx)
{
    pthread_mutex_lock(&handler_lock);
    handler_fn = fn;
    handler_ctx = ctx;
    pthread_mutex_unlock(&handler_lock);
}

/* Reports a broken rule (printf-style) through the handler. */
static void dxgk_thr_violation(dxgk_thr_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void dxgk_thr_violation(dxgk_thr_t *t, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (t)
        atomic_fetch_add(&t->violations, 1);
    pthread_mutex_lock(&handler_lock);
    dxgk_thr_violation_fn fn = handler_fn;
    void *ctx = handler_ctx;
    pthread_mutex_unlock(&handler_lock);
    if (fn) {
        fn(ctx, msg);
        return;
    }
    fprintf(stderr, "dxgk threading violation: %s\n", msg);
    abort();
}

uint64_t dxgk_thr_violations(const dxgk_thr_t *t)
{
    return t ? atomic_load(&((dxgk_thr_t *)t)->violations) : 0;
}

bool dxgk_thr_checks_enabled(void)
{
#ifdef GR_DEBUG_THREADING
    return true;
#else
    return false;
#endif
}

/* ---- init ----------------------------------------------------------------------------------- */

gr_status_t dxgk_thr_create(unsigned mode, dxgk_thr_t **out_thr)
{
    if (!out_thr || (mode & ~(unsigned)DXGK_THR_CHECK_ONLY))
        return GR_E_INVALID;
    dxgk_thr_t *t = calloc(1, sizeof *t);
    if (!t)
        return GR_E_NO_MEMORY;
    t->mode = mode;
    pthread_rwlockattr_t a;
    if (pthread_rwlockattr_init(&a)) {
        free(t);
        return GR_E_NO_MEMORY;
    }
    /* Reader-preferring: a thread holding the gate shared (a CPU copy around the window DDIs)
     * may take it again while a reset waits for it. */
    pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_READER_NP);
    int e = pthread_rwlock_init(&t->gate, &a);
    pthread_rwlockattr_destroy(&a);
    if (e) {
        free(t);
        return GR_E_NO_MEMORY;
    }
#ifdef GR_DEBUG_THREADING
    if (pthread_mutex_init(&t->lock, NULL)) {
        pthread_rwlock_destroy(&t->gate);
        free(t);
        return GR_E_NO_MEMORY;
    }
#endif
    *out_thr = t;
    return GR_OK;
}

void dxgk_thr_destroy(dxgk_thr_t *t)
{
    if (!t)
        return;
#ifdef GR_DEBUG_THREADING
    pthread_mutex_destroy(&t->lock);
#endif
    pthread_rwlock_destroy(&t->gate);
    free(t);
}

static bool gated(const dxgk_thr_t *t, dxgk_level_t level)
{
    return !(t->mode & DXGK_THR_CHECK_ONLY) && level != DXGK_LEVEL_ISR && level != DXGK_LEVEL_DPC;
}

void dxgk_thr_hold(dxgk_thr_t *t)
{
    if (!(t->mode & DXGK_THR_CHECK_ONLY))
        pthread_rwlock_rdlock(&t->gate);
}

void dxgk_thr_unhold(dxgk_thr_t *t)
{
    if (!(t->mode & DXGK_THR_CHECK_ONLY))
        pthread_rwlock_unlock(&t->gate);
}

/* ---- checks --------------------------------------------------------------------------------- */

#ifdef GR_DEBUG_THREADING

static unsigned long tid(pthread_t th)
{
    return (unsigned long)th;
}

/* Per-process bookkeeping (t->lock held): the slot of process p, or a free one. */
static int proc_slot(dxgk_thr_t *t, const void *p, bool create)
{
    int free_slot = -1;
    for (unsigned i = 0; i < DXGK_THR_MAX_PROCS; i++) {
        if (t->procs[i].process == p)
            return (int)i;
        if (!t->procs[i].process && free_slot < 0)
            free_slot = (int)i;
    }
    if (create && free_slot >= 0) {
        t->procs[free_slot].process = p;
        t->procs[free_slot].depth = 0;
    }
    return create ? free_slot : -1;
}

static void check_enter(dxgk_thr_t *t, dxgk_ddi_t ddi, const void *process, unsigned flags)
{
    const dxgk_level_t level = ddi_info[ddi].level;
    const char *name = ddi_info[ddi].name;
    const pthread_t self = pthread_self();
    char problem[400];
    problem[0] = 0;

    pthread_mutex_lock(&t->lock);
    switch (level) {
    case DXGK_LEVEL_ISR:
        if (t->in_isr)
            snprintf(problem, sizeof problem, "%s entered while another interrupt routine runs", name);
        t->in_isr++;
        break;
    case DXGK_LEVEL_DPC:
        if (t->in_dpc)
            snprintf(problem, sizeof problem, "%s entered while another DPC of the adapter runs (one DPC per adapter)",
                     name);
        t->in_dpc++;
        break;
    case DXGK_LEVEL_THIRD:
        if (t->third_active)
            snprintf(problem, sizeof problem, "%s (third level) entered while thread %lu is in %s", name,
                     tid(t->third_thread), ddi_info[t->third_ddi].name);
        else if (t->inside)
            snprintf(problem, sizeof problem,
                     "%s (third level) entered while %u other thread(s) are in the miniport (first: %s)", name,
                     t->inside, t->in_class[DXGK_CLASS_SCHEDULER] ? ddi_info[t->class_ddi[DXGK_CLASS_SCHEDULER]].name
                                                                   : "a level-zero DDI");
        else if (!(flags & DXGK_THR_SCHED_QUIESCED))
            snprintf(problem, sizeof problem, "%s (third level) entered while DMA buffers may pass through the scheduler",
                     name);
        else if (ddi != DXGK_DDI_RESET_FROM_TIMEOUT && !(flags & DXGK_THR_HW_IDLE))
            snprintf(problem, sizeof problem, "%s (third level) entered with work on the hardware (GPU not idle)", name);
        t->third_active = true;
        t->third_ddi = ddi;
        t->third_thread = self;
        break;
    case DXGK_LEVEL_FIRST:
    case DXGK_LEVEL_ZERO: {
        if (t->third_active)
            snprintf(problem, sizeof problem, "%s entered while thread %lu is in %s (third level: alone in the driver)",
                     name, tid(t->third_thread), ddi_info[t->third_ddi].name);
        const dxgk_class_t c = ddi_info[ddi].cls;
        if (level == DXGK_LEVEL_FIRST && !problem[0] && t->in_class[c])
            snprintf(problem, sizeof problem,
                     "%s entered while thread %lu is in %s (first level, GPU scheduler class: not reentrant)", name,
                     tid(t->class_thread[c]), ddi_info[t->class_ddi[c]].name);
        if (level == DXGK_LEVEL_FIRST) {
            t->in_class[c]++;
            t->class_ddi[c] = ddi;
            t->class_thread[c] = self;
        }
        if (process) {
            int s = proc_slot(t, process, true);
            if (s >= 0) {
                if (t->procs[s].depth && !pthread_equal(t->procs[s].thread, self) && !problem[0])
                    snprintf(problem, sizeof problem,
                             "%s entered by a thread of a process that already has thread %lu in %s (never two "
                             "threads of one process in the driver)",
                             name, tid(t->procs[s].thread), ddi_info[t->procs[s].ddi].name);
                if (t->procs[s].depth++ == 0) {
                    t->procs[s].thread = self;
                    t->procs[s].ddi = ddi;
                }
            }
        }
        t->inside++;
        break;
    }
    }
    if (!problem[0] && tls_irql > ddi_info[ddi].irql && level != DXGK_LEVEL_ISR)
        snprintf(problem, sizeof problem, "%s (%s) called at %s", name, irql_name(ddi_info[ddi].irql),
                 irql_name(tls_irql));
    pthread_mutex_unlock(&t->lock);
    if (problem[0])
        dxgk_thr_violation(t, "%s", problem);
}

static void check_leave(dxgk_thr_t *t, dxgk_ddi_t ddi, const void *process)
{
    const dxgk_level_t level = ddi_info[ddi].level;
    pthread_mutex_lock(&t->lock);
    switch (level) {
    case DXGK_LEVEL_ISR:
        t->in_isr--;
        break;
    case DXGK_LEVEL_DPC:
        t->in_dpc--;
        break;
    case DXGK_LEVEL_THIRD:
        t->third_active = false;
        break;
    case DXGK_LEVEL_FIRST:
    case DXGK_LEVEL_ZERO:
        if (level == DXGK_LEVEL_FIRST)
            t->in_class[ddi_info[ddi].cls]--;
        if (process) {
            int s = proc_slot(t, process, false);
            if (s >= 0 && --t->procs[s].depth == 0)
                t->procs[s].process = NULL;
        }
        t->inside--;
        break;
    }
    pthread_mutex_unlock(&t->lock);
}

#endif /* GR_DEBUG_THREADING */

void dxgk_ddi_enter(dxgk_thr_t *t, dxgk_ddi_t ddi, const void *process, unsigned flags)
{
    const dxgk_level_t level = ddi_info[ddi].level;
    if (gated(t, level) && !(flags & DXGK_THR_GATE_HELD)) {
        if (level == DXGK_LEVEL_THIRD)
            pthread_rwlock_wrlock(&t->gate);
        else
            pthread_rwlock_rdlock(&t->gate);
    }
#ifdef GR_DEBUG_THREADING
    check_enter(t, ddi, process, flags);
    if (level == DXGK_LEVEL_ISR)
        tls_isr_notify_pending = false;
    if (level == DXGK_LEVEL_DPC)
        tls_dpc_notified = false;
#else
    (void)process;
    (void)flags;
#endif
    /* The thread now runs at the DDI's IRQL; leave restores PASSIVE or what it was. */
    if (ddi_info[ddi].irql > tls_irql)
        tls_irql = ddi_info[ddi].irql;
}

void dxgk_ddi_leave_held(dxgk_thr_t *t, dxgk_ddi_t ddi, const void *process, bool gate_held);

void dxgk_ddi_leave(dxgk_thr_t *t, dxgk_ddi_t ddi, const void *process)
{
    dxgk_ddi_leave_held(t, ddi, process, false);
}

void dxgk_ddi_leave_held(dxgk_thr_t *t, dxgk_ddi_t ddi, const void *process, bool gate_held)
{
    const dxgk_level_t level = ddi_info[ddi].level;
#ifdef GR_DEBUG_THREADING
    if (level == DXGK_LEVEL_ISR && tls_isr_notify_pending) {
        tls_isr_notify_pending = false;
        dxgk_thr_violation(t, "DxgkDdiInterruptRoutine returned after DxgkCbNotifyInterrupt without queuing a DPC "
                              "(DxgkCbQueueDpc must follow it before the ISR exits)");
    }
    if (level == DXGK_LEVEL_DPC && !tls_dpc_notified && atomic_load(&t->notifies_unacked)) {
        dxgk_thr_violation(t, "DxgkDdiDpcRoutine returned without calling DxgkCbNotifyDpc for the interrupts it "
                              "was queued for");
    }
    check_leave(t, ddi, process);
#else
    (void)process;
#endif
    if (level == DXGK_LEVEL_ISR || level == DXGK_LEVEL_DPC)
        tls_irql = DXGK_PASSIVE;
    else if (ddi_info[ddi].irql == DXGK_DISPATCH)
        tls_irql = DXGK_PASSIVE;
    if (gated(t, level) && !gate_held)
        pthread_rwlock_unlock(&t->gate);
}

void dxgk_thr_callback(dxgk_thr_t *t, dxgk_cb_t cb)
{
#ifdef GR_DEBUG_THREADING
    const dxgk_irql_t irql = tls_irql;
    const char *name = cb_names[cb];
    switch (cb) {
    case DXGK_CB_GET_HANDLE_DATA:
    case DXGK_CB_GET_HANDLE_PARENT:
        if (irql != DXGK_PASSIVE)
            dxgk_thr_violation(t, "%s (PASSIVE_LEVEL) called at %s%s", name, irql_name(irql),
                               irql == DXGK_DIRQL ? " (from the interrupt routine: it may block)" : "");
        break;
    case DXGK_CB_NOTIFY_INTERRUPT:
        if (irql != DXGK_DIRQL)
            dxgk_thr_violation(t, "%s called at %s (its callers run at interrupt level: the ISR, or a routine run by "
                                  "DxgkCbSynchronizeExecution)",
                               name, irql_name(irql));
        tls_isr_notify_pending = true;
        atomic_fetch_add(&t->notifies_unacked, 1);
        break;
    case DXGK_CB_NOTIFY_DPC:
        if (irql != DXGK_DISPATCH)
            dxgk_thr_violation(t, "%s called at %s (from the DPC, DISPATCH_LEVEL)", name, irql_name(irql));
        tls_dpc_notified = true;
        atomic_store(&t->notifies_unacked, 0);
        break;
    case DXGK_CB_QUEUE_DPC:
        tls_isr_notify_pending = false;
        break;
    case DXGK_CB_SYNCHRONIZE_EXECUTION:
        if (irql > DXGK_DISPATCH)
            dxgk_thr_violation(t, "%s (at most DISPATCH_LEVEL) called at %s", name, irql_name(irql));
        break;
    }
#else
    (void)t;
    (void)cb;
#endif
}

void dxgk_thr_may_block(dxgk_thr_t *t, const char *what)
{
#ifdef GR_DEBUG_THREADING
    if (tls_irql != DXGK_PASSIVE)
        dxgk_thr_violation(t, "%s may block, at %s", what, irql_name(tls_irql));
#else
    (void)t;
    (void)what;
#endif
}
