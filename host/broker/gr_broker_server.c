/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_broker_server.c: gr_broker_serve (gr_broker.h): the daemon's side of broker://. One adapter
 * (the one driver stack on the device) serves every connection; each connection's processes are
 * dxgk processes of their own (gr_process_create: a handle table and a GPU VA space each), so
 * one client's ids and handles mean nothing in another's requests. A connection that closes,
 * cleanly or by its process dying, has its locks released and its processes destroyed: their
 * contexts' packets are cancelled (DxgkDdiCancelCommand for the patched ones) or waited for by
 * VidSch, then their allocations destroyed and their memory reclaimed (host/broker/README.md).
 * Raw access (register writes, resets, the aperture, the interrupt line) is lent to one client
 * of the broker's own user while nobody else uses the device: the driver stack is stopped for
 * it and started again when it gives the device back.
 */
#define _GNU_SOURCE /* SO_PEERCRED, struct ucred, POLLRDHUP, MSG_NOSIGNAL */
#include "gr_broker.h"

#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "gpuref/gr_device.h"
#include "gr_broker_wire.h"
#include "gr_link.h"
#include "gr_proto.h"
#include "vidmm_residency.h"

#define CONN_MAX_OBJS 256u
/* gr_wait runs in slices of this many device cycles, so that a client that goes away while it
 * waits is noticed between them. */
#define WAIT_SLICE_CYCLES (UINT64_C(1) << 20)

typedef struct conn_lock {
    uint32_t dev, handle, flags;
    void *ptr;
    uint64_t bytes;
} conn_lock_t;

struct server;

typedef struct conn {
    int fd;
    struct server *sv;
    uint32_t num;
    uint32_t nprocs; /* its live dxgk processes (under the server's lock) */
    pid_t pid;
    uid_t uid;
    bool quiet;
    uint32_t next_id; /* ids are never reused on a connection */
    struct {
        uint32_t id;
        gr_process_t *p;
    } procs[CONN_MAX_OBJS];
    struct {
        uint32_t id, proc;
        gr_gpu_device_t *d;
    } devs[CONN_MAX_OBJS];
    conn_lock_t locks[CONN_MAX_OBJS];
    char err[400];
    struct conn *next;
} conn_t;

typedef struct server {
    gr_link_t *link;
    /* The driver stack: NULL while a client holds the device raw (or when starting it again
     * failed: every request that needs it tries again). */
    gr_adapter_t *ad;
    /* Read-held by every request that uses ad, write-held to stop or start it; ad, raw and
     * posted_was change only under the write lock. */
    pthread_rwlock_t drv;
    conn_t *raw;        /* the connection holding raw access */
    bool posted_was;    /* the link's posted writes before a raw session turned them off */
    bool quiet;
    pthread_mutex_t lock; /* conns, live, next_num, procs, reserver, the conns' nprocs, stopping */
    bool stopping;      /* the broker is ending: a raw session's end starts nothing */
    pthread_cond_t gone;
    conn_t *conns;
    uint32_t live, next_num;
    uint32_t procs;     /* dxgk processes of every connection */
    conn_t *reserver;   /* the connection holding VidMm's test reservation */
    char device[192];
} server_t;

static server_t *the_server;

static gr_status_t fail(conn_t *c, gr_status_t rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static gr_status_t fail(conn_t *c, gr_status_t rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return rc;
}

static gr_process_t *proc_of(conn_t *c, uint32_t id)
{
    for (unsigned i = 0; id && i < CONN_MAX_OBJS; i++)
        if (c->procs[i].id == id)
            return c->procs[i].p;
    return NULL;
}

static gr_gpu_device_t *dev_of(conn_t *c, uint32_t id)
{
    for (unsigned i = 0; id && i < CONN_MAX_OBJS; i++)
        if (c->devs[i].id == id)
            return c->devs[i].d;
    return NULL;
}

static conn_lock_t *lock_of(conn_t *c, uint32_t dev, uint32_t handle)
{
    for (unsigned i = 0; i < CONN_MAX_OBJS; i++)
        if (c->locks[i].ptr && c->locks[i].dev == dev && c->locks[i].handle == handle)
            return &c->locks[i];
    return NULL;
}

/* Releases the connection's locks of device id (0: of every device), writing nothing back. */
static void unlock_all(conn_t *c, uint32_t dev)
{
    for (unsigned i = 0; i < CONN_MAX_OBJS; i++)
        if (c->locks[i].ptr && (!dev || c->locks[i].dev == dev)) {
            gr_gpu_device_t *d = dev_of(c, c->locks[i].dev);
            if (d)
                (void)gr_alloc_unlock(d, c->locks[i].handle);
            memset(&c->locks[i], 0, sizeof c->locks[i]);
        }
}

static void forget_devices_of(conn_t *c, uint32_t proc)
{
    for (unsigned i = 0; i < CONN_MAX_OBJS; i++)
        if (c->devs[i].id && c->devs[i].proc == proc) {
            unlock_all(c, c->devs[i].id);
            memset(&c->devs[i], 0, sizeof c->devs[i]);
        }
}

static int io_all(int fd, bool out, void *buf, size_t len)
{
    uint8_t *p = buf;
    while (len) {
        ssize_t n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int answer(conn_t *c, gr_status_t rc, const void *fixed, size_t fixed_len, const void *tail, size_t tail_len)
{
    if (rc) {
        if (!c->err[0])
            snprintf(c->err, sizeof c->err, "%s", gr_link_has_error() ? gr_last_error() : gr_strerror(rc));
        fixed = c->err;
        fixed_len = strlen(c->err);
        tail_len = 0;
    }
    gr_brk_rsp_hdr_t h = {rc, (uint32_t)(fixed_len + tail_len)};
    if (io_all(c->fd, true, &h, sizeof h) || (fixed_len && io_all(c->fd, true, (void *)(uintptr_t)fixed, fixed_len)) ||
        (tail_len && io_all(c->fd, true, (void *)(uintptr_t)tail, tail_len)))
        return -1;
    return 0;
}

static bool peer_gone(conn_t *c)
{
    struct pollfd pf = {c->fd, POLLRDHUP, 0};
    return poll(&pf, 1, 0) > 0 && (pf.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

static int reg_read_fn(gr_link_t *link, void *ctx)
{
    uint32_t *io = ctx;
    return gr_link_read32(link, io[0], &io[1]);
}

typedef struct walk_ctx {
    gr_brk_range_t *r;
    size_t n;
} walk_ctx_t;

static bool walk_fn(void *ctx, uint64_t offset, uint64_t size, gr_segment_range_kind_t kind)
{
    walk_ctx_t *w = ctx;
    if (w->n == GR_BRK_MAX_RANGES)
        return false;
    w->r[w->n++] = (gr_brk_range_t){offset, size, (uint32_t)kind, 0};
    return true;
}

/* A connection's processes come and go: the server counts them (raw access waits for none). */
static void procs_count(conn_t *c, int delta)
{
    pthread_mutex_lock(&c->sv->lock);
    c->nprocs = (uint32_t)((int)c->nprocs + delta);
    c->sv->procs = (uint32_t)((int)c->sv->procs + delta);
    pthread_mutex_unlock(&c->sv->lock);
}

static bool is_stopping(server_t *sv)
{
    pthread_mutex_lock(&sv->lock);
    bool s = sv->stopping;
    pthread_mutex_unlock(&sv->lock);
    return s;
}

/* ---- the driver stack, and raw access lent in its place ------------------------------------ */

/* Starts the driver stack again after a raw session (drv write-held). The device's VRAM is not
 * fresh: VidMm zeroes what earlier clients left before it hands a page out again. */
static gr_status_t driver_start_locked(server_t *sv)
{
    gr_status_t rc = gr_brk_driver_start(sv->link, true, &sv->ad);
    if (rc) {
        sv->ad = NULL;
        fprintf(stderr, "gpuref-broker: the driver stack did not start again: %s\n", gr_last_error());
    }
    return rc;
}

/* Ends c's raw session if it holds one: the link's posted writes as they were, and the driver
 * stack started again (unless the broker is ending). */
static gr_status_t raw_end(conn_t *c)
{
    server_t *sv = c->sv;
    gr_status_t rc = GR_OK;
    /* Only c's own thread lends the device to c or takes it back: a look is enough, and a
     * connection that holds nothing never waits for the write lock (another's gr_wait holds
     * the read lock for as long as it waits). */
    pthread_rwlock_rdlock(&sv->drv);
    bool mine = sv->raw == c;
    pthread_rwlock_unlock(&sv->drv);
    if (!mine)
        return GR_OK;
    pthread_rwlock_wrlock(&sv->drv);
    if (sv->raw == c) {
        gr_proto_t *proto;
        if (gr_link_proto(sv->link, &proto) == GR_OK)
            (void)gr_proto_set_posted(proto, sv->posted_was, NULL);
        sv->raw = NULL;
        const bool stopping = is_stopping(sv);
        if (!stopping)
            rc = driver_start_locked(sv);
        if (!sv->quiet)
            fprintf(stderr, "gpuref-broker: client %u (pid %ld) gave the device back%s\n", c->num, (long)c->pid,
                    stopping ? "" : rc ? ": the driver stack did not start" : ": driver stack started");
    }
    pthread_rwlock_unlock(&sv->drv);
    return rc;
}

/* Starts the driver stack when it is down and nobody holds the device raw (a start that failed
 * before is tried again). */
static gr_status_t driver_restart(conn_t *c)
{
    server_t *sv = c->sv;
    gr_status_t rc = GR_OK;
    pthread_rwlock_wrlock(&sv->drv);
    if (is_stopping(sv))
        rc = fail(c, GR_E_NO_DEVICE, "gpuref-broker (pid %ld) is stopping", (long)getpid());
    else if (!sv->ad && !sv->raw)
        rc = driver_start_locked(sv);
    pthread_rwlock_unlock(&sv->drv);
    return rc;
}

/* GR_OK with drv read-held and sv->ad up; else the refusal, nothing held. The connection that
 * holds the device raw gives it back by asking for the driver stack. */
static gr_status_t driver_enter(conn_t *c)
{
    server_t *sv = c->sv;
    for (;;) {
        pthread_rwlock_rdlock(&sv->drv);
        if (sv->ad)
            return GR_OK;
        const conn_t *holder = sv->raw;
        uint32_t num = holder ? holder->num : 0;
        long pid = holder ? (long)holder->pid : 0;
        pthread_rwlock_unlock(&sv->drv);
        if (holder && holder != c)
            return fail(c, GR_E_BUSY,
                        "client %u (pid %ld) holds the device for raw access (register writes, resets, the "
                        "aperture): gpuref-broker's driver stack is stopped until that client gives it back",
                        num, pid);
        gr_status_t rc = holder ? raw_end(c) : driver_restart(c);
        if (rc)
            return rc;
    }
}

/* Lends the device to c for raw access: only to the broker's own user (or root), and only while
 * no client has a process on it or holds VidMm's test reservation. The driver stack stops (its
 * binding of the device kept) until c gives the device back. */
static gr_status_t raw_begin(conn_t *c)
{
    server_t *sv = c->sv;
    pthread_rwlock_rdlock(&sv->drv);
    bool mine = sv->raw == c;
    pthread_rwlock_unlock(&sv->drv);
    if (mine)
        return GR_OK;
    if (c->uid != getuid() && c->uid != 0)
        return fail(c, GR_E_BUSY,
                    "gpuref-broker (pid %ld) owns the device: raw access (register writes, resets, the aperture, "
                    "the interrupt line) is lent only to its own user (uid %lu), not to uid %lu; a raw write could "
                    "reach another process's memory or reset its work",
                    (long)getpid(), (unsigned long)getuid(), (unsigned long)c->uid);
    gr_status_t rc = GR_OK;
    /* Refused at once while any process exists (one may wait on the device for long, holding
     * the read lock); looked at again under the write lock. */
    char who[200] = "";
    pthread_mutex_lock(&sv->lock);
    bool busy = sv->procs != 0;
    pthread_mutex_unlock(&sv->lock);
    if (!busy)
        pthread_rwlock_wrlock(&sv->drv);
    else
        pthread_rwlock_rdlock(&sv->drv); /* only to read who, below, as under the write lock */
    pthread_mutex_lock(&sv->lock);
    for (conn_t *o = sv->conns; o && !who[0]; o = o->next)
        if (o->nprocs)
            snprintf(who, sizeof who, "client %u (pid %ld%s) has %u process%s on the device", o->num, (long)o->pid,
                     o == c ? ": this connection" : "", o->nprocs, o->nprocs == 1 ? "" : "es");
    if (!who[0] && sv->reserver && sv->reserver != c)
        snprintf(who, sizeof who, "client %u (pid %ld) holds VidMm's test reservation", sv->reserver->num,
                 (long)sv->reserver->pid);
    const conn_t *holder = sv->raw;
    if (holder)
        rc = fail(c, GR_E_BUSY, "client %u (pid %ld) holds the device for raw access until it gives it back",
                  holder->num, (long)holder->pid);
    else if (who[0])
        rc = fail(c, GR_E_BUSY,
                  "raw access refused: %s (gpuref-broker pid %ld), and a register write, reset or aperture "
                  "access could reach its memory or reset its work; the broker lends the device only while "
                  "nobody uses it",
                  who, (long)getpid());
    else if (busy) /* the processes went meanwhile: ask again */
        rc = fail(c, GR_E_BUSY, "raw access refused: clients were using the device a moment ago; ask again");
    else
        sv->reserver = NULL; /* c's own reservation, if any, goes with the driver stack */
    pthread_mutex_unlock(&sv->lock);
    if (!rc) {
        gr_brk_driver_stop(sv->ad, true);
        sv->ad = NULL;
        /* Each write answers for itself while the device is lent (a write to a hole: GR_E_BUS). */
        gr_proto_t *proto;
        sv->posted_was = false;
        if (gr_link_proto(sv->link, &proto) == GR_OK)
            (void)gr_proto_set_posted(proto, false, &sv->posted_was);
        sv->raw = c;
        if (!sv->quiet)
            fprintf(stderr, "gpuref-broker: client %u (pid %ld) holds the device for raw access: driver stack "
                            "stopped\n",
                    c->num, (long)c->pid);
    }
    pthread_rwlock_unlock(&sv->drv);
    return rc;
}

static int serve_driver(conn_t *c, gr_adapter_t *ad, uint32_t op, const gr_brk_obj_t *q, const uint8_t *tail,
                        size_t tail_len);

/* One request: q (its fixed part) and tail; the answer is sent here. -1: the connection is gone. */
static int serve_one(conn_t *c, uint32_t op, const gr_brk_obj_t *q, const uint8_t *tail, size_t tail_len)
{
    server_t *sv = c->sv;
    gr_status_t rc;
    switch (op) {
    case GR_BRK_REG_READ: {
        uint32_t io[2] = {q->a, 0};
        pthread_rwlock_rdlock(&sv->drv);
        rc = sv->ad ? gr_adapter_with_link(sv->ad, reg_read_fn, io) : gr_link_read32(sv->link, io[0], &io[1]);
        pthread_rwlock_unlock(&sv->drv);
        return answer(c, rc, &io[1], sizeof io[1], NULL, 0);
    }
    case GR_BRK_REG_WRITE:
    case GR_BRK_AP_READ:
    case GR_BRK_AP_WRITE:
    case GR_BRK_WAIT_IRQ:
        break;
    case GR_BRK_RAW_RELEASE:
        return answer(c, raw_end(c), NULL, 0, NULL, 0);
    default:
        if ((rc = driver_enter(c)))
            return answer(c, rc, NULL, 0, NULL, 0);
        int r = serve_driver(c, sv->ad, op, q, tail, tail_len);
        pthread_rwlock_unlock(&sv->drv);
        return r;
    }
    /* Raw access: the device is c's alone while it holds it (nobody else reaches the link). */
    if ((rc = raw_begin(c)))
        return answer(c, rc, NULL, 0, NULL, 0);
    switch (op) {
    case GR_BRK_REG_WRITE:
        return answer(c, gr_link_write32(sv->link, q->a, q->b), NULL, 0, NULL, 0);
    case GR_BRK_AP_READ: {
        if (q->y > GR_BRK_MAX_PAYLOAD)
            return answer(c, fail(c, GR_E_RANGE, "an aperture read of %llu bytes (one answer carries at most %u)",
                                  (unsigned long long)q->y, GR_BRK_MAX_PAYLOAD),
                          NULL, 0, NULL, 0);
        void *buf = malloc(q->y ? q->y : 1);
        if (!buf)
            return answer(c, GR_E_NO_MEMORY, NULL, 0, NULL, 0);
        rc = gr_link_ap_read(sv->link, q->x, buf, q->y);
        int r = answer(c, rc, NULL, 0, buf, q->y);
        free(buf);
        return r;
    }
    case GR_BRK_AP_WRITE:
        return answer(c, gr_link_ap_write(sv->link, q->x, tail, tail_len), NULL, 0, NULL, 0);
    default: { /* GR_BRK_WAIT_IRQ */
        bool raised = false;
        rc = gr_link_wait_irq(sv->link, q->a, &raised);
        uint32_t v = raised;
        return answer(c, rc, &v, sizeof v, NULL, 0);
    }
    }
}

/* A request on the driver stack (drv read-held, ad up). */
static int serve_driver(conn_t *c, gr_adapter_t *ad, uint32_t op, const gr_brk_obj_t *q, const uint8_t *tail,
                        size_t tail_len)
{
    gr_gpu_device_t *d = NULL;
    gr_status_t rc = GR_OK;
    switch (op) {
    case GR_BRK_PROCESS_CREATE: {
        unsigned i = 0;
        while (i < CONN_MAX_OBJS && c->procs[i].id)
            i++;
        if (i == CONN_MAX_OBJS)
            return answer(c, fail(c, GR_E_NO_MEMORY, "%u processes on one connection", CONN_MAX_OBJS), NULL, 0, NULL, 0);
        gr_process_t *p;
        if ((rc = gr_process_create(ad, &p)))
            return answer(c, rc, NULL, 0, NULL, 0);
        c->procs[i].p = p;
        c->procs[i].id = ++c->next_id;
        procs_count(c, 1);
        return answer(c, GR_OK, &c->procs[i].id, sizeof c->procs[i].id, NULL, 0);
    }
    case GR_BRK_PROCESS_DESTROY:
        for (unsigned i = 0; i < CONN_MAX_OBJS; i++)
            if (q->id && c->procs[i].id == q->id) {
                forget_devices_of(c, q->id);
                gr_process_destroy(c->procs[i].p);
                memset(&c->procs[i], 0, sizeof c->procs[i]);
                procs_count(c, -1);
                return answer(c, GR_OK, NULL, 0, NULL, 0);
            }
        return answer(c, fail(c, GR_E_INVALID, "no process %u on this connection", q->id), NULL, 0, NULL, 0);
    case GR_BRK_DEVICE_CREATE: {
        gr_process_t *p = proc_of(c, q->id);
        if (!p)
            return answer(c, fail(c, GR_E_INVALID, "no process %u on this connection", q->id), NULL, 0, NULL, 0);
        unsigned i = 0;
        while (i < CONN_MAX_OBJS && c->devs[i].id)
            i++;
        if (i == CONN_MAX_OBJS)
            return answer(c, fail(c, GR_E_NO_MEMORY, "%u devices on one connection", CONN_MAX_OBJS), NULL, 0, NULL, 0);
        if ((rc = gr_gpu_device_create(p, &c->devs[i].d)))
            return answer(c, rc, NULL, 0, NULL, 0);
        c->devs[i].id = ++c->next_id;
        c->devs[i].proc = q->id;
        return answer(c, GR_OK, &c->devs[i].id, sizeof c->devs[i].id, NULL, 0);
    }
    case GR_BRK_DEVICE_DESTROY:
        for (unsigned i = 0; i < CONN_MAX_OBJS; i++)
            if (q->id && c->devs[i].id == q->id) {
                unlock_all(c, q->id);
                gr_gpu_device_destroy(c->devs[i].d);
                memset(&c->devs[i], 0, sizeof c->devs[i]);
                return answer(c, GR_OK, NULL, 0, NULL, 0);
            }
        return answer(c, fail(c, GR_E_INVALID, "no device %u on this connection", q->id), NULL, 0, NULL, 0);
    case GR_BRK_SEGMENTS: {
        gr_segment_info_t seg[GR_ALLOC_MAX_SEGMENTS];
        uint32_t n = 0, max = q->a < GR_ALLOC_MAX_SEGMENTS ? q->a : GR_ALLOC_MAX_SEGMENTS;
        rc = gr_adapter_segments(ad, seg, max, &n);
        return answer(c, rc, &n, sizeof n, seg, (n < max ? n : max) * sizeof seg[0]);
    }
    case GR_BRK_SEGMENT_WALK: {
        walk_ctx_t w = {malloc(GR_BRK_MAX_RANGES * sizeof(gr_brk_range_t)), 0};
        if (!w.r)
            return answer(c, GR_E_NO_MEMORY, NULL, 0, NULL, 0);
        rc = gr_segment_walk(ad, q->a, walk_fn, &w);
        int r = answer(c, rc, NULL, 0, w.r, w.n * sizeof *w.r);
        free(w.r);
        return r;
    }
    case GR_BRK_ADAPTER_STATS: {
        gr_adapter_stats_t st;
        rc = gr_adapter_stats(ad, &st);
        return answer(c, rc, &st, sizeof st, NULL, 0);
    }
    case GR_BRK_SET_SCHEDULING: {
        if (c->uid != getuid())
            return answer(c, fail(c, GR_E_BUSY,
                                  "the scheduling parameters are the adapter's, shared by every client: only the "
                                  "broker's own user (uid %lu) may change them",
                                  (unsigned long)getuid()),
                          NULL, 0, NULL, 0);
        gr_sched_params_t sp = {q->x, q->y};
        return answer(c, gr_adapter_set_scheduling(ad, &sp), NULL, 0, NULL, 0);
    }
    case GR_BRK_SCHED_STATS: {
        gr_sched_stats_t st;
        rc = gr_adapter_sched_stats(ad, &st);
        return answer(c, rc, &st, sizeof st, NULL, 0);
    }
    case GR_BRK_CYCLES: {
        uint64_t cy = 0;
        rc = gr_adapter_cycles(ad, &cy);
        return answer(c, rc, &cy, sizeof cy, NULL, 0);
    }
    case GR_BRK_TEST_RESERVE:
    case GR_BRK_TEST_UNRESERVE: {
        if (c->uid != getuid())
            return answer(c, fail(c, GR_E_BUSY,
                                  "VidMm's test reservation takes VRAM from every client: only the broker's own "
                                  "user (uid %lu) may make it",
                                  (unsigned long)getuid()),
                          NULL, 0, NULL, 0);
        pthread_mutex_lock(&c->sv->lock);
        const conn_t *other = c->sv->reserver && c->sv->reserver != c ? c->sv->reserver : NULL;
        uint32_t onum = other ? other->num : 0;
        pthread_mutex_unlock(&c->sv->lock);
        if (other)
            return answer(c, fail(c, GR_E_BUSY, "client %u holds VidMm's test reservation", onum), NULL, 0, NULL, 0);
        if (op == GR_BRK_TEST_UNRESERVE) {
            gr_vidmm_test_unreserve(ad);
            pthread_mutex_lock(&c->sv->lock);
            c->sv->reserver = NULL;
            pthread_mutex_unlock(&c->sv->lock);
            return answer(c, GR_OK, NULL, 0, NULL, 0);
        }
        uint64_t r[3]; /* lo, hi, leave */
        if (tail_len != sizeof r)
            return answer(c, GR_E_INVALID, NULL, 0, NULL, 0);
        memcpy(r, tail, sizeof r);
        rc = q->b ? gr_vidmm_test_reserve(ad, q->a, r[2]) : gr_vidmm_test_reserve_range(ad, q->a, r[0], r[1], r[2]);
        if (!rc) {
            pthread_mutex_lock(&c->sv->lock);
            c->sv->reserver = c;
            pthread_mutex_unlock(&c->sv->lock);
        }
        return answer(c, rc, NULL, 0, NULL, 0);
    }
    case GR_BRK_TIMELINE: {
        size_t cap = q->a < GR_SCHED_TIMELINE_CAP ? q->a : GR_SCHED_TIMELINE_CAP, n = 0;
        gr_sched_event_t *ev = malloc((cap ? cap : 1) * sizeof *ev);
        if (!ev)
            return answer(c, GR_E_NO_MEMORY, NULL, 0, NULL, 0);
        uint64_t r[2] = {0, 0};
        rc = gr_adapter_timeline(ad, q->x, ev, cap, &n, &r[1]);
        r[0] = n;
        int ret = answer(c, rc, r, sizeof r, ev, n * sizeof *ev);
        free(ev);
        return ret;
    }
    default:
        break;
    }
    /* The rest act on a device of this connection. */
    if (!(d = dev_of(c, q->id)))
        return answer(c, fail(c, GR_E_INVALID, "no device %u on this connection", q->id), NULL, 0, NULL, 0);
    switch (op) {
    case GR_BRK_ALLOC_CREATE: {
        uint32_t count = q->a;
        if (!count || count > GR_ALLOC_MAX_RESIDENCY_LIST || tail_len < (count + 1) * sizeof(uint32_t))
            return answer(c, GR_E_INVALID, NULL, 0, NULL, 0);
        const uint32_t *sizes = (const uint32_t *)tail;
        const uint8_t *data = tail + (count + 1) * sizeof(uint32_t);
        size_t left = tail_len - (count + 1) * sizeof(uint32_t);
        gr_alloc_desc_t descs[GR_ALLOC_MAX_RESIDENCY_LIST];
        gr_resource_desc_t res = {NULL, 0, q->b};
        memset(descs, 0, sizeof descs);
        for (uint32_t i = 0; i <= count; i++) {
            if (sizes[i] > left)
                return answer(c, GR_E_INVALID, NULL, 0, NULL, 0);
            const void *pd = sizes[i] ? data : NULL;
            if (i == 0) {
                res.private_data = pd;
                res.private_size = sizes[0];
            } else {
                descs[i - 1].private_data = pd;
                descs[i - 1].private_size = sizes[i];
            }
            data += sizes[i];
            left -= sizes[i];
        }
        struct {
            uint32_t shared;
            uint32_t h[GR_ALLOC_MAX_RESIDENCY_LIST];
        } r = {0, {0}};
        rc = gr_alloc_create(d, q->x ? &res : NULL, descs, count, r.h, &r.shared);
        return answer(c, rc, &r, sizeof r.shared + count * sizeof r.h[0], NULL, 0);
    }
    case GR_BRK_ALLOC_OPEN: {
        uint32_t max = q->x < GR_ALLOC_MAX_RESIDENCY_LIST ? (uint32_t)q->x : GR_ALLOC_MAX_RESIDENCY_LIST;
        uint32_t h[GR_ALLOC_MAX_RESIDENCY_LIST];
        struct {
            uint32_t count, pad;
            gr_alloc_info_t info;
        } r;
        memset(&r, 0, sizeof r);
        rc = gr_alloc_open(d, q->handle, q->a, q->b, h, max, &r.count, &r.info);
        return answer(c, rc, &r, sizeof r, h, rc ? 0 : r.count * sizeof h[0]);
    }
    case GR_BRK_ALLOC_CLOSE:
    case GR_BRK_ALLOC_DESTROY: {
        conn_lock_t *l = lock_of(c, q->id, q->handle);
        rc = op == GR_BRK_ALLOC_CLOSE ? gr_alloc_close(d, q->handle) : gr_alloc_destroy(d, q->handle);
        if (!rc && l)
            memset(l, 0, sizeof *l); /* the allocation went, and its lock with it */
        return answer(c, rc, NULL, 0, NULL, 0);
    }
    case GR_BRK_ALLOC_LOCK: {
        unsigned i = 0;
        while (i < CONN_MAX_OBJS && c->locks[i].ptr)
            i++;
        if (i == CONN_MAX_OBJS)
            return answer(c, fail(c, GR_E_NO_MEMORY, "%u locks on one connection", CONN_MAX_OBJS), NULL, 0, NULL, 0);
        uint64_t n = q->y;
        if (q->b) {
            gr_alloc_info_t info;
            if ((rc = gr_alloc_query(d, q->handle, &info)))
                return answer(c, rc, NULL, 0, NULL, 0);
            n = info.size;
        }
        if (n > GR_BRK_MAX_PAYLOAD - sizeof n)
            return answer(c, fail(c, GR_E_RANGE, "a lock of %llu bytes: one crosses the socket, at most %u (lock a "
                                                 "range: gr_alloc_lock_range)",
                                  (unsigned long long)n, GR_BRK_MAX_PAYLOAD - 8u),
                          NULL, 0, NULL, 0);
        void *p = NULL;
        rc = q->b ? gr_alloc_lock(d, q->handle, q->a, &p) : gr_alloc_lock_range(d, q->handle, q->a, q->x, q->y, &p);
        if (rc)
            return answer(c, rc, NULL, 0, NULL, 0);
        c->locks[i] = (conn_lock_t){q->id, q->handle, q->a, p, n};
        return answer(c, GR_OK, &n, sizeof n, p, (q->a & GR_LOCK_DISCARD) ? 0 : (size_t)n);
    }
    case GR_BRK_ALLOC_UNLOCK: {
        conn_lock_t *l = lock_of(c, q->id, q->handle);
        if (!l)
            return answer(c, gr_alloc_unlock(d, q->handle), NULL, 0, NULL, 0);
        if (tail_len && (tail_len != l->bytes || (l->flags & GR_LOCK_READ_ONLY)))
            return answer(c, fail(c, GR_E_INVALID, "unlock with %zu bytes of a lock of %llu%s", tail_len,
                                  (unsigned long long)l->bytes, (l->flags & GR_LOCK_READ_ONLY) ? " (read-only)" : ""),
                          NULL, 0, NULL, 0);
        if (tail_len)
            memcpy(l->ptr, tail, tail_len);
        rc = gr_alloc_unlock(d, q->handle);
        if (!rc)
            memset(l, 0, sizeof *l);
        return answer(c, rc, NULL, 0, NULL, 0);
    }
    case GR_BRK_ALLOC_QUERY: {
        gr_alloc_info_t info;
        rc = gr_alloc_query(d, q->handle, &info);
        return answer(c, rc, &info, sizeof info, NULL, 0);
    }
    case GR_BRK_ALLOC_RESIDENT:
    case GR_BRK_ALLOC_EVICT:
        if (q->a > GR_ALLOC_MAX_RESIDENCY_LIST || tail_len != q->a * sizeof(gr_alloc_t))
            return answer(c, GR_E_INVALID, NULL, 0, NULL, 0);
        rc = op == GR_BRK_ALLOC_EVICT ? gr_alloc_evict(d, (const gr_alloc_t *)tail, q->a)
                                      : gr_alloc_make_resident(d, (const gr_alloc_t *)tail, q->a);
        return answer(c, rc, NULL, 0, NULL, 0);
    case GR_BRK_GPU_PROBE: {
        gr_gpu_probe_t pr;
        rc = gr_gpu_device_probe(d, q->x, q->a != 0, &pr);
        return answer(c, rc, &pr, sizeof pr, NULL, 0);
    }
    case GR_BRK_CONTEXT_CREATE: {
        gr_context_t h = 0;
        rc = gr_context_create(d, tail_len ? tail : NULL, (uint32_t)tail_len, &h);
        return answer(c, rc, &h, sizeof h, NULL, 0);
    }
    case GR_BRK_CONTEXT_DESTROY:
        return answer(c, gr_context_destroy(d, q->handle), NULL, 0, NULL, 0);
    case GR_BRK_CONTEXT_INFO: {
        gr_context_info_t info;
        rc = gr_context_info(d, q->handle, &info);
        return answer(c, rc, &info, sizeof info, NULL, 0);
    }
    case GR_BRK_DMABUF_CREATE: {
        gr_dma_buffer_t h = 0;
        rc = gr_dma_buffer_create(d, q->handle, q->a, &h);
        return answer(c, rc, &h, sizeof h, NULL, 0);
    }
    case GR_BRK_DMABUF_INFO: {
        gr_dma_buffer_info_t info;
        rc = gr_dma_buffer_info(d, q->handle, &info);
        info.cpu = NULL; /* the broker's address means nothing to the client */
        return answer(c, rc, &info, sizeof info, NULL, 0);
    }
    case GR_BRK_DMABUF_READ: {
        gr_dma_buffer_info_t info;
        rc = gr_dma_buffer_info(d, q->handle, &info);
        return answer(c, rc, NULL, 0, rc ? NULL : info.cpu, rc ? 0 : info.size);
    }
    case GR_BRK_DMABUF_DESTROY:
        return answer(c, gr_dma_buffer_destroy(d, q->handle), NULL, 0, NULL, 0);
    case GR_BRK_SUBMIT: {
        gr_brk_submit_t s;
        if (tail_len < sizeof s)
            return answer(c, GR_E_INVALID, NULL, 0, NULL, 0);
        memcpy(&s, tail, sizeof s);
        size_t refs = (size_t)s.alloc_count * sizeof(gr_alloc_ref_t);
        size_t patches = (size_t)s.patch_count * sizeof(gr_patch_location_t);
        if (s.alloc_count > GR_SUBMIT_MAX_ALLOCS || s.patch_count > GR_SUBMIT_MAX_PATCHES || s.start >= s.end ||
            tail_len != sizeof s + refs + patches + (s.end - s.start))
            return answer(c, fail(c, GR_E_INVALID, "a malformed submission"), NULL, 0, NULL, 0);
        gr_dma_buffer_info_t bi;
        if ((rc = gr_dma_buffer_info(d, s.buffer, &bi)))
            return answer(c, rc, NULL, 0, NULL, 0);
        if (s.end > bi.size)
            return answer(c, GR_E_RANGE, NULL, 0, NULL, 0);
        gr_alloc_ref_t *r = malloc(refs + 1);
        gr_patch_location_t *pl = malloc(patches + 1);
        if (!r || !pl) {
            free(r);
            free(pl);
            return answer(c, GR_E_NO_MEMORY, NULL, 0, NULL, 0);
        }
        memcpy(r, tail + sizeof s, refs);
        memcpy(pl, tail + sizeof s + refs, patches);
        memcpy((uint8_t *)bi.cpu + s.start, tail + sizeof s + refs + patches, s.end - s.start);
        gr_submission_t sub = {s.buffer, s.start, s.end, r, s.alloc_count, pl, s.patch_count};
        uint64_t fence = 0;
        rc = gr_submit(d, q->handle, &sub, &fence);
        free(r);
        free(pl);
        return answer(c, rc, &fence, sizeof fence, NULL, 0);
    }
    case GR_BRK_WAIT: {
        uint64_t left = q->y;
        for (;;) {
            uint64_t slice = left < WAIT_SLICE_CYCLES ? left : WAIT_SLICE_CYCLES;
            rc = gr_wait(d, q->handle, q->x, slice);
            if (rc != GR_E_TIMEOUT || left == slice)
                break;
            if (left != GR_WAIT_FOREVER)
                left -= slice;
            if (peer_gone(c))
                return -1;
        }
        return answer(c, rc, NULL, 0, NULL, 0);
    }
    case GR_BRK_CANCEL: {
        uint32_t n = 0;
        rc = gr_cancel(d, q->handle, &n);
        return answer(c, rc, &n, sizeof n, NULL, 0);
    }
    case GR_BRK_PREEMPT:
        return answer(c, gr_preempt(d, q->handle), NULL, 0, NULL, 0);
    default:
        return answer(c, fail(c, GR_E_UNSUPPORTED, "unknown op %u", op), NULL, 0, NULL, 0);
    }
}

/* A connection ends: what its process left is released as the kernel would. */
static void conn_cleanup(conn_t *c)
{
    server_t *sv = c->sv;
    unsigned procs = 0, locks = 0;
    (void)raw_end(c); /* a device lent to it goes back to the driver stack */
    /* Its objects live on the driver stack, which is up: no device is lent while they exist. */
    pthread_rwlock_rdlock(&sv->drv);
    for (unsigned i = 0; i < CONN_MAX_OBJS; i++)
        locks += c->locks[i].ptr != NULL;
    if (sv->ad)
        unlock_all(c, 0);
    for (unsigned i = 0; i < CONN_MAX_OBJS; i++)
        if (c->procs[i].id) {
            forget_devices_of(c, c->procs[i].id);
            if (sv->ad)
                gr_process_destroy(c->procs[i].p); /* contexts' work cancelled, allocations destroyed */
            procs++;
        }
    pthread_mutex_lock(&sv->lock);
    bool reserved = sv->reserver == c;
    sv->reserver = reserved ? NULL : sv->reserver;
    sv->procs -= c->nprocs;
    c->nprocs = 0;
    pthread_mutex_unlock(&sv->lock);
    if (reserved && sv->ad)
        gr_vidmm_test_unreserve(sv->ad);
    pthread_rwlock_unlock(&sv->drv);
    if (!c->quiet)
        fprintf(stderr, "gpuref-broker: client %u (pid %ld) gone: %u process%s destroyed, %u lock%s released\n", c->num,
                (long)c->pid, procs, procs == 1 ? "" : "es", locks, locks == 1 ? "" : "s");
}

static void *conn_thread(void *arg)
{
    conn_t *c = arg;
    server_t *sv = the_server;
    uint8_t *buf = NULL;
    bool hello = false;
    for (;;) {
        gr_brk_req_hdr_t h;
        if (io_all(c->fd, false, &h, sizeof h))
            break;
        if (h.bytes > GR_BRK_MAX_PAYLOAD)
            break;
        free(buf);
        buf = malloc(h.bytes ? h.bytes : 1);
        if (!buf || (h.bytes && io_all(c->fd, false, buf, h.bytes)))
            break;
        c->err[0] = 0;
        gr_link_clear_error();
        if (!hello) {
            gr_brk_hello_t in;
            gr_brk_hello_rsp_t out = {GR_BRK_MAGIC, GR_BRK_VERSION, GR_BRK_LAYOUT, (uint32_t)getpid(), 0, c->num, {0}};
            snprintf(out.device, sizeof out.device, "%s", sv->device);
            out.link_caps = gr_link_caps(sv->link) & GR_BRK_LINK_CAPS;
            if (h.op != GR_BRK_HELLO || h.bytes != sizeof in)
                break;
            memcpy(&in, buf, sizeof in);
            if (answer(c, GR_OK, &out, sizeof out, NULL, 0))
                break;
            if (in.magic != GR_BRK_MAGIC || in.version != GR_BRK_VERSION || in.layout != GR_BRK_LAYOUT)
                break;
            hello = true;
            continue;
        }
        if (h.bytes < sizeof(gr_brk_obj_t))
            break;
        gr_brk_obj_t q;
        memcpy(&q, buf, sizeof q);
        if (serve_one(c, h.op, &q, buf + sizeof q, h.bytes - sizeof q))
            break;
    }
    free(buf);
    conn_cleanup(c);
    close(c->fd);
    pthread_mutex_lock(&sv->lock);
    for (conn_t **pp = &sv->conns; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    sv->live--;
    pthread_cond_broadcast(&sv->gone);
    pthread_mutex_unlock(&sv->lock);
    free(c);
    return NULL;
}

static gr_status_t listen_on(const gr_broker_opts_t *o, int *out_fd)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (!o->socket_path || !o->socket_path[0] || strlen(o->socket_path) >= sizeof sa.sun_path) {
        gr_link_set_error("gpuref-broker: the socket path is empty or longer than %zu bytes", sizeof sa.sun_path - 1);
        return GR_E_INVALID;
    }
    gid_t gid = (gid_t)-1;
    if (o->group) {
        struct group *g = getgrnam(o->group);
        char *end;
        unsigned long n = strtoul(o->group, &end, 10);
        if (g)
            gid = g->gr_gid;
        else if (o->group[0] && !*end)
            gid = (gid_t)n;
        else {
            gr_link_set_error("gpuref-broker: --group %s: no such group", o->group);
            return GR_E_NOT_FOUND;
        }
    }
    strcpy(sa.sun_path, o->socket_path);
    struct stat st;
    if (lstat(sa.sun_path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            gr_link_set_error("gpuref-broker: %s exists and is not a socket: not replacing it", sa.sun_path);
            return GR_E_IO;
        }
        (void)unlink(sa.sun_path);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        gr_link_set_error("gpuref-broker: socket: %s", strerror(errno));
        return GR_E_IO;
    }
    /* Made owner-only from the start (no moment when others could connect), then opened to the
     * group when asked. */
    mode_t old = umask(0177);
    int b = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (b != 0 || listen(fd, 16) != 0) {
        gr_link_set_error("gpuref-broker: cannot listen on %s: %s", sa.sun_path, strerror(errno));
        close(fd);
        return GR_E_IO;
    }
    if (o->group && (chown(sa.sun_path, (uid_t)-1, gid) != 0 || chmod(sa.sun_path, 0660) != 0)) {
        gr_link_set_error("gpuref-broker: cannot give %s to group %s: %s", sa.sun_path, o->group, strerror(errno));
        close(fd);
        (void)unlink(sa.sun_path);
        return GR_E_IO;
    }
    *out_fd = fd;
    return GR_OK;
}

gr_status_t gr_broker_serve(gr_link_t *link, const gr_broker_opts_t *o)
{
    if (!link || !o || !o->stop)
        return GR_E_INVALID;
    server_t sv;
    memset(&sv, 0, sizeof sv);
    sv.link = link;
    sv.quiet = o->quiet;
    gr_link_describe(link, sv.device, sizeof sv.device);
    gr_status_t rc = gr_adapter_open_link(link, &sv.ad);
    if (rc)
        return rc;
    int lfd = -1;
    if ((rc = listen_on(o, &lfd))) {
        gr_adapter_close(sv.ad);
        return rc;
    }
    pthread_mutex_init(&sv.lock, NULL);
    pthread_cond_init(&sv.gone, NULL);
    pthread_rwlock_init(&sv.drv, NULL);
    the_server = &sv;
    while (!*o->stop) {
        struct pollfd pf = {lfd, POLLIN, 0};
        if (poll(&pf, 1, 200) <= 0)
            continue;
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        conn_t *c = calloc(1, sizeof *c);
        struct ucred cr;
        socklen_t crl = sizeof cr;
        if (!c || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crl) != 0) {
            free(c);
            close(fd);
            continue;
        }
        c->fd = fd;
        c->sv = &sv;
        c->pid = cr.pid;
        c->uid = cr.uid;
        c->quiet = o->quiet;
        pthread_mutex_lock(&sv.lock);
        c->num = ++sv.next_num;
        c->next = sv.conns;
        sv.conns = c;
        sv.live++;
        pthread_mutex_unlock(&sv.lock);
        if (!o->quiet)
            fprintf(stderr, "gpuref-broker: client %u connected (pid %ld, uid %lu)\n", c->num, (long)c->pid,
                    (unsigned long)c->uid);
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &at, conn_thread, c) != 0) {
            pthread_mutex_lock(&sv.lock);
            sv.conns = c->next;
            sv.live--;
            pthread_mutex_unlock(&sv.lock);
            close(fd);
            free(c);
        }
        pthread_attr_destroy(&at);
    }
    close(lfd);
    (void)unlink(o->socket_path);
    /* Every client is told (its socket shut) and cleaned up before the adapter goes; a device
     * lent for raw access is not given back to a driver stack. */
    pthread_mutex_lock(&sv.lock);
    sv.stopping = true;
    for (conn_t *c = sv.conns; c; c = c->next)
        shutdown(c->fd, SHUT_RDWR);
    while (sv.live)
        pthread_cond_wait(&sv.gone, &sv.lock);
    pthread_mutex_unlock(&sv.lock);
    the_server = NULL;
    if (sv.ad)
        gr_adapter_close(sv.ad);
    else
        (void)gr_link_bind(link, GR_LINK_BIND_RELEASE, NULL, 0);
    pthread_rwlock_destroy(&sv.drv);
    pthread_cond_destroy(&sv.gone);
    pthread_mutex_destroy(&sv.lock);
    return GR_OK;
}
