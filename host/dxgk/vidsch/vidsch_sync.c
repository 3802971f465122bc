/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch_sync.c: the bottom of VidSch, which every other file of it calls and which calls none
 * of them: fence comparison, VidSch's condition wait and wake-up, the trace, the device clock.
 */
#define _GNU_SOURCE /* pthread spin locks, recursive mutexes */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "gpuref/gr_regmap.h"
#include "gr_link.h"
#include "vidsch_objects.h"
#include "vidsch_sync.h"

bool vs_fence_done(uint32_t fence, uint32_t completed)
{
    return (int32_t)(fence - completed) <= 0;
}

struct timespec vs_deadline_ns(long ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += ns;
    while (ts.tv_nsec >= 1000000000L) {
        ts.tv_nsec -= 1000000000L;
        ts.tv_sec++;
    }
    return ts;
}

void vs_cond_wait_ns(dxgk_vidsch_t *vs, long ns)
{
    struct timespec ts = vs_deadline_ns(ns);
    (void)pthread_cond_timedwait(&vs->cond, &vs->lock, &ts);
}

void vs_trace(dxgk_vidsch_t *vs, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "vidsch %p @%llu: %s\n", (void *)vs, (unsigned long long)atomic_load(&vs->now), line);
}

void vs_wake(dxgk_vidsch_t *vs)
{
    atomic_store(&vs->kick, true);
    pthread_cond_broadcast(&vs->cond);
    pthread_cond_broadcast(&vs->idle_cond);
}

static uint64_t wall_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * The clock: the engine's free-running cycle counter (reading LO latches HI; both words are read
 * in one batch, one round trip on a byte-stream link). On sim:// it is
 * the simulated time; on a board, the board's cycles. Monotonic by construction: a failed read
 * keeps the last value, and a counter that went backwards was restarted by a core reset (this
 * host's or another's on a shared device), so the clock goes on from its last value as if no
 * time had passed, and the scheduler is told (clock_restarted). Takes the link lock: callers
 * should not hold vs->lock.
 */
int vs_clock_read(dxgk_vidsch_t *vs, uint64_t *out_now)
{
    gr_adapter_t *ad = vs->ad;
    static const uint32_t regs[2] = {GR_REG_DMA_TIMESTAMP_LO, GR_REG_DMA_TIMESTAMP_HI};
    uint32_t v[2] = {0, 0};
    pthread_mutex_lock(&ad->link_lock);
    int rc = gr_link_read32_batch(ad->link, regs, 2, v);
    const uint32_t lo = v[0], hi = v[1];
    uint64_t t = 0;
    if (!rc) {
        const uint64_t raw = ((uint64_t)hi << 32) | lo;
        if (raw < vs->clock_raw) {
            const uint64_t back = vs->clock_raw - raw;
            vs->clock_base += back;
            /* Not a restart: the last HI was latched by another program's LO read on a shared
             * device after its HI had moved on (one 2^32 step, less the time since). */
            if (back > (1ull << 32) || back < (3ull << 30))
                atomic_store(&vs->clock_restarted, true);
        }
        vs->clock_raw = raw;
        t = raw + vs->clock_base;
        /* The rate, for vs_clock_bound: measured over spans long enough to mean something. */
        const uint64_t w = wall_ns();
        if (!vs->rate_w0 || t < vs->rate_c0) {
            vs->rate_w0 = w;
            vs->rate_c0 = t;
        } else if (w - vs->rate_w0 >= (atomic_load(&vs->rate_max) > 0 ? VS_RATE_SPAN_NS : VS_RATE_FIRST_NS)) {
            const double r = (double)(t - vs->rate_c0) * 1e9 / (double)(w - vs->rate_w0);
            if (r > atomic_load(&vs->rate_max))
                atomic_store(&vs->rate_max, r);
            vs->rate_w0 = w;
            vs->rate_c0 = t;
        }
        atomic_store(&vs->clock_wall_ns, w);
    }
    pthread_mutex_unlock(&ad->link_lock);
    uint64_t cur = atomic_load(&vs->now);
    while (!rc && t > cur && !atomic_compare_exchange_weak(&vs->now, &cur, t)) {
    }
    *out_now = atomic_load(&vs->now);
    return rc;
}

uint64_t vs_clock(dxgk_vidsch_t *vs)
{
    uint64_t now;
    (void)vs_clock_read(vs, &now);
    return now;
}

static double rate_bound(dxgk_vidsch_t *vs, double margin)
{
    const double r = atomic_load(&vs->rate_max);
    return r > 0 ? margin * r : VS_RATE_DEFAULT;
}

uint64_t vs_clock_bound(dxgk_vidsch_t *vs, double margin)
{
    if (!vs->irq_events)
        return atomic_load(&vs->now);
    const uint64_t w = atomic_load(&vs->clock_wall_ns);
    const double r = rate_bound(vs, margin);
    const uint64_t now = atomic_load(&vs->now);
    const uint64_t dw = w ? wall_ns() - w : 0;
    return now + (uint64_t)((double)dw * r / 1e9) + 1u;
}

uint64_t vs_wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}
