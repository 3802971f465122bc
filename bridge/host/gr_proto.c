/* SPDX-License-Identifier: Apache-2.0 */
/* gr_proto.c: the host end of the link protocol: link bring-up, transactions, DMA service,
 * interrupts, on a service thread per link (see gr_proto.h and bridge/PROTOCOL.md). */
#define _POSIX_C_SOURCE 200809L
#include "gr_proto.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 64u                 /* requests outstanding at once (pipelined ap_read/ap_write) */
#define RESET_RETRY_MS 100u       /* PROTOCOL.md: RESET again every 100 ms until RESET_ACK */
#define POSTED_FLUSH_MS 1u        /* queued writes go out by themselves after this */
#define STALE_IRQ_MS 250u         /* wait_irq_event: a high level told before a write, at least */
#define PRIVATE_DMA_BASE 0x100000000ull /* above 4 GiB: a 32-bit truncation shows at once */
#define PRIVATE_DMA_SIZE (64ull << 30)
#define PAGE 4096u
#define READ_CHUNK 65536u
/* Long BAR1 transfers start (reads) or end (writes) with short requests; see ap_piece(). */
#define AP_RAMP_FIRST 64u         /* dwords of a long read's first request, doubling after */
#define AP_WRITE_TAIL 32u         /* dwords of a long write's last request, doubling before */

enum { ST_DOWN, ST_RESETTING, ST_HELLO, ST_UP };

typedef struct txn {
    bool used, done;
    uint8_t rsp_type;
    uint16_t id;
    int status;
    uint32_t *values; /* RD32_RSP: values (count) */
    unsigned count;
    uint8_t *dst;     /* AP_RD_RSP: bytes wanted, from byte skip of the first word */
    size_t skip, bytes;
    uint32_t dwords;
    uint64_t wr_gen;  /* RD32_RSP: the write generation when the read was sent */
} txn_t;

typedef struct dma_region {
    uint8_t *cpu;
    uint64_t bus;
    size_t bytes; /* whole pages */
} dma_region_t;

struct gr_proto {
    gr_pipe_t pipe;
    gr_proto_opts_t o;
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    gr_proto_link_t link;
    int st;
    bool pipe_dead;
    bool want_round;
    uint16_t epoch;
    uint64_t round_start_ms, reset_sent_ms;
    uint64_t round_gen; /* increments when a round fails */
    int round_status;
    char reason[256];
    gr_proto_hello_t hello;
    bool have_hello;
    uint16_t next_id;
    txn_t slots[SLOTS];
    unsigned slots_used;
    /* posted writes not yet sent */
    uint32_t pw_off[GR_PROTO_MAX_PAYLOAD], pw_val[GR_PROTO_MAX_PAYLOAD];
    unsigned pw_count;
    uint64_t pw_first_ms;
    bool posted_unconfirmed; /* posted writes sent, no later answer yet */
    int deferred;            /* a posted write's error, for the next call */
    dma_region_t *dma;
    unsigned dma_count, dma_cap;
    bool irq_level;
    uint64_t irq_seq;     /* IRQ messages taken (wait_irq_event's wake-ups) */
    /* Writes made (write32) and the newest of them that an answered read followed: the line's
     * level is current when they are equal (a read answers after the IRQ message of any change
     * that the writes before it caused). */
    uint64_t wr_gen, wr_gen_seen;
    uint64_t wr_irq_seq, wr_ms; /* irq_seq and the time at the last write32 */
    gr_proto_counters_t c;
    gr_txlog_t *txlog; /* the link's transaction log (gr_proto_op_set_txlog), or NULL */
    uint64_t ups;       /* HELLO_RSPs taken: link-ups */
    unsigned bind_op;   /* the binding this host wants (GR_PROTO_BIND_TAKE or _FORCE; 0: none) */
    uint64_t bind_ups;  /* ... as the device last granted it, at that link-up */
};

/* ---- options ---------------------------------------------------------------------------- */

void gr_proto_opts_default(gr_proto_opts_t *o, uint32_t replay_ms, const char *name)
{
    memset(o, 0, sizeof *o);
    o->replay_ms = replay_ms;
    o->keepalive_ms = 100;
    o->dead_ms = 2000;
    o->timeout_ms = 5000;
    o->posted = true;
    snprintf(o->name, sizeof o->name, "%s", name ? name : "link");
}

static int parse_ms(const gr_uri_t *uri, const char *key, uint32_t *inout)
{
    const char *s = gr_uri_param(uri, key);
    if (!s)
        return GR_OK;
    char *end = NULL;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || !isdigit((unsigned char)s[0]) || *end || v == 0 || v > 3600000ul) {
        gr_link_set_error("%s://: bad value '%s' for %s (milliseconds, 1..3600000)", uri->scheme,
                          s, key);
        return GR_E_BAD_URI;
    }
    *inout = (uint32_t)v;
    return GR_OK;
}

int gr_proto_opts_from_uri(const gr_uri_t *uri, gr_proto_opts_t *o)
{
    int rc;
    if ((rc = parse_ms(uri, "replay_ms", &o->replay_ms)) ||
        (rc = parse_ms(uri, "keepalive_ms", &o->keepalive_ms)) ||
        (rc = parse_ms(uri, "dead_ms", &o->dead_ms)) ||
        (rc = parse_ms(uri, "timeout_ms", &o->timeout_ms)))
        return rc;
    const char *s = gr_uri_param(uri, "posted");
    if (s) {
        if (strcmp(s, "0") && strcmp(s, "1")) {
            gr_link_set_error("%s://: bad value '%s' for posted (0 or 1)", uri->scheme, s);
            return GR_E_BAD_URI;
        }
        o->posted = s[0] == '1';
    }
    s = gr_uri_param(uri, "faults");
    if (s) {
        if (gr_pipe_faults_parse(s, &o->fault_seed, &o->fault_rate)) {
            gr_link_set_error("%s://: bad value '%s' for faults (SEED:RATE, RATE 0..0.5 or "
                              "0%%..50%%)", uri->scheme, s);
            return GR_E_BAD_URI;
        }
        o->faults = true;
    }
    return GR_OK;
}

/* ---- small helpers ---------------------------------------------------------------------- */

static void deadline_ts(uint64_t ms_from_now, struct timespec *ts)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    uint64_t ns = (uint64_t)ts->tv_nsec + (ms_from_now % 1000u) * 1000000u;
    ts->tv_sec += (time_t)(ms_from_now / 1000u + ns / 1000000000u);
    ts->tv_nsec = (long)(ns % 1000000000u);
}

/* Waits on the engine's condition for at most ms. */
static void wait_ms(gr_proto_t *p, uint64_t ms)
{
    struct timespec ts;
    deadline_ts(ms, &ts);
    pthread_cond_timedwait(&p->cv, &p->mu, &ts);
}

static void set_reason(gr_proto_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_reason(gr_proto_t *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(p->reason, sizeof p->reason, "%s: ", p->o.name);
    if (n > 0 && (size_t)n < sizeof p->reason)
        vsnprintf(p->reason + n, sizeof p->reason - (size_t)n, fmt, ap);
    va_end(ap);
}

/* Fails every outstanding request with status and takes the link down. */
static void link_down(gr_proto_t *p, int status)
{
    for (unsigned i = 0; i < SLOTS; i++) {
        if (p->slots[i].used && !p->slots[i].done) {
            p->slots[i].done = true;
            p->slots[i].status = status;
        }
    }
    /* A posted write in flight may or may not have happened: say so at the next call. */
    if (p->posted_unconfirmed && !p->deferred)
        p->deferred = GR_E_LINK;
    p->posted_unconfirmed = false;
    if (p->st != ST_DOWN)
        p->c.link_downs++;
    p->st = ST_DOWN;
    p->have_hello = false;
    p->irq_level = false;
    pthread_cond_broadcast(&p->cv);
}

static void round_failed(gr_proto_t *p, int status)
{
    link_down(p, GR_E_LINK);
    p->round_status = status;
    p->round_gen++;
    pthread_cond_broadcast(&p->cv);
}

static void send_reset(gr_proto_t *p)
{
    uint32_t e = p->epoch;
    gr_proto_link_ctrl(&p->link, GR_PT_RESET, &e, 1);
    p->reset_sent_ms = p->link.now_ms;
}

/* Starts a RESET round (service thread only: it may reopen the pipe). */
static void start_round(gr_proto_t *p)
{
    p->c.link_resets++;
    if (p->pipe_dead) {
        int rc = p->pipe.ops->reopen ? p->pipe.ops->reopen(p->pipe.ctx) : GR_E_UNSUPPORTED;
        if (rc) {
            set_reason(p, "the pipe is gone and cannot be reopened (%s)", gr_link_error());
            round_failed(p, GR_E_LINK);
            return;
        }
        p->pipe_dead = false;
        p->link.pipe_dead = false;
    }
    gr_proto_link_restart(&p->link);
    p->link.window_words = 64; /* HELLO's worth until HELLO_RSP gives the window */
    p->link.peer_max_len = GR_PROTO_MAX_PAYLOAD;
    p->epoch++;
    p->st = ST_RESETTING;
    p->round_start_ms = p->link.now_ms;
    send_reset(p);
}

static txn_t *slot_by_id(gr_proto_t *p, uint16_t id, uint8_t rsp_type)
{
    for (unsigned i = 0; i < SLOTS; i++)
        if (p->slots[i].used && !p->slots[i].done && p->slots[i].id == id &&
            p->slots[i].rsp_type == rsp_type)
            return &p->slots[i];
    return NULL;
}

static void complete(gr_proto_t *p, txn_t *t, int status)
{
    t->done = true;
    t->status = status;
    p->posted_unconfirmed = false; /* answers come in order: every earlier request is done */
    pthread_cond_broadcast(&p->cv);
}

static int resp_status(uint32_t resp)
{
    return (resp & 3u) == GR_RESP_OKAY ? GR_OK : (resp & 3u) == GR_RESP_REFUSED ? GR_E_BUSY : GR_E_BUS;
}

/* ---- DMA service ------------------------------------------------------------------------- */

static dma_region_t *dma_find(gr_proto_t *p, uint64_t addr, uint64_t bytes)
{
    for (unsigned i = 0; i < p->dma_count; i++) {
        dma_region_t *r = &p->dma[i];
        if (addr >= r->bus && bytes <= r->bytes && addr - r->bus <= r->bytes - bytes)
            return r;
    }
    return NULL;
}

/* A DMA_RD or DMA_WR may carry several of gpu_core's bursts: the device joins only bursts that
 * meet on a 128-byte boundary (bridge/rtl/link_host_slave.v), as gpu_core's do, so the pieces
 * cut there are the bursts, and the log has one line per burst, as sim://'s has. The bytes are
 * [addr + lead, addr + bytes - tail): a write's first and last words may be partial. */
static void txlog_dma(gr_txlog_t *log, bool write, uint64_t addr, const void *data, uint32_t bytes,
                      uint32_t lead, uint32_t tail, bool ok)
{
    if (!log)
        return;
    uint32_t done = 0;
    do {
        uint32_t piece = 128u - (uint32_t)((addr + done) & 127u);
        if (piece > bytes - done)
            piece = bytes - done;
        uint32_t from = done < lead ? lead : done, to = done + piece;
        if (done + piece == bytes)
            to = bytes - tail > from ? bytes - tail : from;
        /* a write of no enabled byte is still a line (of 0 bytes), as one burst of it was */
        if (to >= from)
            gr_txlog_dma(log, write, addr + from, data && to > from ? (const uint8_t *)data + from : NULL,
                         to - from, ok);
        done += piece;
    } while (done < bytes);
}

static void txlog_dma_rd(gr_txlog_t *log, uint64_t addr, const uint32_t *data, uint32_t bytes, bool ok)
{
    txlog_dma(log, false, addr, data, bytes, 0, 0, ok);
}

static void serve_dma_rd(gr_proto_t *p, const uint32_t *w, uint16_t len)
{
    if (len < 4)
        return;
    uint32_t tag = w[0] & 0xffu;
    uint64_t addr = (uint64_t)w[2] << 32 | w[1];
    uint32_t dwords = w[3] & 0xffffu;
    static _Thread_local uint32_t rsp[GR_PROTO_MAX_PAYLOAD]; /* each link's service thread its own */
    dma_region_t *r = dma_find(p, addr, 4ull * dwords);
    p->c.dma_reads++;
    if (!r || dwords == 0 || dwords + 1u > p->link.peer_max_len || (addr & 3u)) {
        p->c.dma_errors++;
        rsp[0] = (uint32_t)GR_RESP_DECERR << 16 | tag;
        gr_proto_link_send(&p->link, GR_PT_DMA_RD_RSP, rsp, 1);
        txlog_dma_rd(p->txlog, addr, NULL, 4u * dwords, false);
        return;
    }
    rsp[0] = tag;
    memcpy(&rsp[1], r->cpu + (addr - r->bus), 4u * dwords); /* little-endian host */
    txlog_dma_rd(p->txlog, addr, &rsp[1], 4u * dwords, true);
    p->c.dma_bytes += 4u * dwords;
    gr_proto_link_send(&p->link, GR_PT_DMA_RD_RSP, rsp, (uint16_t)(1u + dwords));
}

/* A DMA_WR may join several bursts (PROTOCOL.md, "DMA"): it is served only whole, inside one DMA
 * buffer and one 4 KiB page; anything else is answered DECERR and writes nothing. */
static void serve_dma_wr(gr_proto_t *p, const uint32_t *w, uint16_t len)
{
    if (len < 4)
        return;
    uint32_t tag = w[0] & 0xffu, fbe = (w[0] >> 16) & 0xfu, lbe = (w[0] >> 20) & 0xfu;
    uint64_t addr = (uint64_t)w[2] << 32 | w[1];
    uint32_t dwords = len - 3u;
    dma_region_t *r = dma_find(p, addr, 4ull * dwords);
    uint32_t rsp = tag;
    p->c.dma_writes++;
    if (!r || (addr & 3u) || (addr & 4095u) + 4ull * dwords > 4096u) {
        p->c.dma_errors++;
        rsp |= (uint32_t)GR_RESP_DECERR << 16;
    } else {
        uint8_t *dst = r->cpu + (addr - r->bus);
        for (uint32_t i = 0; i < dwords; i++) {
            uint32_t be = dwords == 1 ? fbe : i == 0 ? fbe : i == dwords - 1 ? lbe : 0xfu;
            uint32_t v = w[3 + i];
            if (be == 0xfu) {
                memcpy(dst + 4 * i, &v, 4); /* little-endian host */
                continue;
            }
            for (unsigned b = 0; b < 4; b++)
                if (be & (1u << b))
                    dst[4 * i + b] = (uint8_t)(v >> (8 * b));
        }
        p->c.dma_bytes += 4u * dwords;
    }
    if (p->txlog) {
        /* The enabled bytes: from the first one FirstBE enables to the last one LastBE does
         * (the words between are whole: the device joins only bursts whose strobes are). */
        uint32_t last_be = dwords == 1 ? fbe : lbe;
        uint32_t lead = fbe ? (uint32_t)__builtin_ctz(fbe) : 4u;
        uint32_t tail = last_be ? 3u - (uint32_t)(31 - __builtin_clz(last_be)) : 4u;
        if (lead + tail > 4u * dwords)
            lead = 4u * dwords, tail = 0; /* nothing enabled */
        txlog_dma(p->txlog, true, addr, &w[3], 4u * dwords, lead, tail, !(rsp >> 16));
    }
    gr_proto_link_send(&p->link, GR_PT_DMA_WR_RSP, &rsp, 1);
}

/* ---- frames from the device -------------------------------------------------------------- */

static void on_hello_rsp(gr_proto_t *p, const uint32_t *w, uint16_t len)
{
    if (len < 10)
        return;
    gr_proto_hello_t h = {
        .ver_major = (uint16_t)(w[0] >> 16), .ver_minor = (uint16_t)w[0],
        .max_payload = (uint16_t)w[1], .rx_window = (uint16_t)(w[1] >> 16),
        .dma_tags = (uint8_t)w[2], .link = (uint8_t)(w[2] >> 8),
        .bar0_log2 = (uint8_t)(w[2] >> 16), .bar1_log2 = (uint8_t)(w[2] >> 24),
        .core_hz = w[3], .replay_timeout = w[4], .dma_timeout = w[5],
        .dma_base = (uint64_t)w[7] << 32 | w[6], .dma_size = (uint64_t)w[9] << 32 | w[8],
        .dev_caps = len >= 11 ? w[10] : 0,
    };
    if (h.ver_major != GR_PROTO_VER_MAJOR) {
        set_reason(p, "the device speaks protocol %u.%u, this host %u.%u", h.ver_major,
                   h.ver_minor, GR_PROTO_VER_MAJOR, GR_PROTO_VER_MINOR);
        round_failed(p, GR_E_MISMATCH);
        return;
    }
    if (h.max_payload < 8 || h.rx_window < GR_PROTO_FRAME_WORDS(8u)) {
        set_reason(p, "the device offers MaxPayload %u and RxWindow %u words, too small",
                   h.max_payload, h.rx_window);
        round_failed(p, GR_E_MISMATCH);
        return;
    }
    /* DMA buffers handed out in an earlier window would now be unreachable. */
    if (p->dma_count && p->hello.dma_size &&
        (h.dma_base != p->hello.dma_base || h.dma_size != p->hello.dma_size)) {
        set_reason(p, "the device moved this host's DMA window with buffers in it");
        round_failed(p, GR_E_LINK);
        return;
    }
    p->hello = h;
    p->have_hello = true;
    p->link.peer_max_len = h.max_payload > GR_PROTO_MAX_PAYLOAD ? GR_PROTO_MAX_PAYLOAD
                                                                 : h.max_payload;
    p->link.window_words = h.rx_window;
    p->ups++;
    p->st = ST_UP;
    pthread_cond_broadcast(&p->cv);
}

static void deliver(void *ctx, const gr_proto_hdr_t *h, const uint32_t *w)
{
    gr_proto_t *p = ctx;
    if (p->st == ST_RESETTING || p->st == ST_DOWN)
        return; /* from before the reset */
    if (h->type == GR_PT_HELLO_RSP) {
        if (p->st == ST_HELLO)
            on_hello_rsp(p, w, h->len);
        return;
    }
    if (h->type == GR_PT_DMA_RD) {
        serve_dma_rd(p, w, h->len);
        return;
    }
    if (h->type == GR_PT_DMA_WR) {
        serve_dma_wr(p, w, h->len);
        return;
    }
    if (h->type == GR_PT_IRQ) {
        if (h->len >= 1) {
            p->irq_level = (w[0] >> 16) & 1u;
            p->irq_seq++;
            p->c.irqs++;
            pthread_cond_broadcast(&p->cv);
        }
        return;
    }
    if (h->len < 1 || p->st != ST_UP)
        return;
    uint16_t id = (uint16_t)w[0];
    txn_t *t = slot_by_id(p, id, h->type);
    if (h->type == GR_PT_WR32_RSP && !t) {
        /* A posted batch answers only when an access failed. */
        unsigned count = w[0] >> 16;
        int st = GR_OK;
        for (unsigned i = 0; i < count && 1u + i < h->len; i++)
            if (resp_status(w[1 + i]))
                st = resp_status(w[1 + i]);
        if (st && !p->deferred)
            p->deferred = st;
        if (!st)
            p->c.late_answers++;
        pthread_cond_broadcast(&p->cv);
        return;
    }
    if (h->type == GR_PT_AP_WR_RSP && !t && resp_status(w[0] >> 16)) {
        /* A posted AP_WR answers only when it failed. */
        if (!p->deferred)
            p->deferred = GR_E_BUS;
        pthread_cond_broadcast(&p->cv);
        return;
    }
    if (!t) {
        p->c.late_answers++;
        return;
    }
    switch (h->type) {
    case GR_PT_RD32_RSP: {
        unsigned count = w[0] >> 16;
        if (count != t->count || h->len != 1u + 2u * count)
            return;
        int st = GR_OK;
        for (unsigned i = 0; i < count; i++) {
            if (resp_status(w[1 + 2 * i]))
                st = resp_status(w[1 + 2 * i]);
            t->values[i] = w[2 + 2 * i];
        }
        if (t->wr_gen > p->wr_gen_seen)
            p->wr_gen_seen = t->wr_gen;
        complete(p, t, st);
        break;
    }
    case GR_PT_WR32_RSP: {
        unsigned count = w[0] >> 16;
        int st = GR_OK;
        for (unsigned i = 0; i < count && 1u + i < h->len; i++)
            if (resp_status(w[1 + i]))
                st = resp_status(w[1 + i]);
        complete(p, t, st);
        break;
    }
    case GR_PT_AP_RD_RSP: {
        int st = resp_status(w[0] >> 16);
        if (!st) {
            if (h->len != 1u + t->dwords)
                return;
            memcpy(t->dst, (const uint8_t *)&w[1] + t->skip, t->bytes);
        }
        complete(p, t, st);
        break;
    }
    case GR_PT_AP_WR_RSP:
        complete(p, t, resp_status(w[0] >> 16));
        break;
    case GR_PT_BIND_RSP:
        if (h->len != GR_PROTO_BIND_WORDS)
            return;
        memcpy(t->values, w, 4u * GR_PROTO_BIND_WORDS);
        complete(p, t, GR_OK);
        break;
    default:
        break;
    }
}

static void control(void *ctx, const gr_proto_hdr_t *h, const uint32_t *w)
{
    gr_proto_t *p = ctx;
    if (h->type == GR_PT_RESET) {
        /* The device reset the link (the link layer answered RESET_ACK): whatever was
         * outstanding is lost; say hello again. */
        link_down(p, GR_E_LINK);
        p->c.link_resets++;
        p->epoch++;
        p->round_start_ms = p->link.now_ms;
        p->link.window_words = 64;
        p->link.peer_max_len = GR_PROTO_MAX_PAYLOAD;
        p->st = ST_HELLO;
        uint32_t hello[2] = {GR_PROTO_VER_MAJOR << 16 | GR_PROTO_VER_MINOR, GR_PROTO_MAX_PAYLOAD};
        gr_proto_link_send(&p->link, GR_PT_HELLO, hello, 2);
        return;
    }
    if (h->type == GR_PT_RESET_ACK && (w[0] & 0xffffu) == p->epoch &&
        (p->st == ST_RESETTING || p->st == ST_HELLO)) {
        /* Also in ST_HELLO: a RESET repeated by the round may reach the device after HELLO
         * did, and then the device starts over again, so this end does too. */
        gr_proto_link_restart(&p->link);
        p->link.window_words = 64;
        p->st = ST_HELLO;
        uint32_t hello[2] = {GR_PROTO_VER_MAJOR << 16 | GR_PROTO_VER_MINOR, GR_PROTO_MAX_PAYLOAD};
        gr_proto_link_send(&p->link, GR_PT_HELLO, hello, 2);
    }
}

static const gr_proto_link_cb_t link_cb = {deliver, control, NULL};

/* Sends the queued posted writes as WR32 batches. Each batch leaves the queue once the link has
 * taken it, so a failure leaves exactly the writes not sent (none goes twice). While the link's
 * send queue is full (GR_E_BUSY: the device takes frames slower than they come), a caller that
 * may wait waits for room as send_req does, until the service thread declares the link down;
 * the service thread itself may not (it is the one that makes room), and leaves them queued. */
static int send_posted(gr_proto_t *p, bool may_wait)
{
    uint32_t w[GR_PROTO_MAX_PAYLOAD];
    while (p->pw_count) {
        unsigned max = (p->link.peer_max_len - 2u) / 2u;
        unsigned n = p->pw_count < max ? p->pw_count : max;
        w[0] = (uint32_t)n << 16 | p->next_id;
        w[1] = 1; /* POSTED */
        for (unsigned i = 0; i < n; i++) {
            w[2 + 2 * i] = 0xfu << 16 | (p->pw_off[i] & 0xffffu);
            w[3 + 2 * i] = p->pw_val[i];
        }
        int rc = gr_proto_link_send(&p->link, GR_PT_WR32, w, (uint16_t)(2u + 2u * n));
        if (rc == GR_E_BUSY && may_wait && p->st == ST_UP) {
            wait_ms(p, 5);
            continue;
        }
        if (rc)
            return rc == GR_E_IO ? GR_E_LINK : rc;
        p->next_id++;
        p->c.requests++;
        p->c.posted_writes += n;
        p->posted_unconfirmed = true;
        p->pw_count -= n;
        memmove(p->pw_off, p->pw_off + n, p->pw_count * sizeof p->pw_off[0]);
        memmove(p->pw_val, p->pw_val + n, p->pw_count * sizeof p->pw_val[0]);
    }
    return GR_OK;
}

/* ---- the service thread ------------------------------------------------------------------ */

static void *service(void *arg)
{
    gr_proto_t *p = arg;
    static _Thread_local uint8_t buf[READ_CHUNK];
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        uint64_t now = gr_proto_now_ms();
        p->link.now_ms = now;
        if (p->link.pipe_dead && !p->pipe_dead) {
            p->pipe_dead = true;
            set_reason(p, "the pipe failed: %s", gr_link_error());
            if (p->st != ST_DOWN)
                round_failed(p, GR_E_LINK);
        }
        if (p->want_round) {
            p->want_round = false;
            start_round(p);
        }
        if (p->pipe_dead) {
            wait_ms(p, 100);
            continue;
        }
        if (p->st == ST_RESETTING && now - p->reset_sent_ms >= RESET_RETRY_MS)
            send_reset(p);
        if ((p->st == ST_RESETTING || p->st == ST_HELLO) && now - p->round_start_ms > p->o.dead_ms) {
            set_reason(p, "no %s from the device in %u ms",
                       p->st == ST_RESETTING ? "RESET_ACK" : "HELLO_RSP", p->o.dead_ms);
            round_failed(p, GR_E_LINK);
        }
        if (p->st == ST_UP && p->pw_count && now - p->pw_first_ms >= POSTED_FLUSH_MS)
            send_posted(p, false);
        if (p->st == ST_HELLO || p->st == ST_UP)
            gr_proto_link_tick(&p->link, now);
        if (p->st == ST_UP && p->link.desync) {
            set_reason(p, "the device acknowledged frames never sent (link out of step)");
            link_down(p, GR_E_LINK);
        }
        bool waiting = p->slots_used || gr_proto_link_pending(&p->link);
        if (p->st == ST_UP && waiting && now - p->link.last_rx_ms > p->o.dead_ms) {
            set_reason(p, "no frame from the device for %u ms", p->o.dead_ms);
            link_down(p, GR_E_LINK);
        }
        uint32_t tmo = p->pw_count ? POSTED_FLUSH_MS : 5u;
        pthread_mutex_unlock(&p->mu);
        size_t n = 0;
        int rc = p->pipe.ops->read(p->pipe.ctx, buf, sizeof buf, tmo, &n);
        pthread_mutex_lock(&p->mu);
        if (rc) {
            p->link.pipe_dead = true;
            continue;
        }
        if (!n)
            continue;
        now = gr_proto_now_ms();
        size_t at = 0;
        while (at < n) {
            size_t room = 0;
            uint8_t *dst = gr_proto_link_rx_space(&p->link, &room);
            size_t k = n - at < room ? n - at : room;
            memcpy(dst, buf + at, k);
            gr_proto_link_input(&p->link, k, now);
            at += k;
        }
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ---- calls ------------------------------------------------------------------------------- */

/* The link is up, or the reason it cannot be brought up (caller holds the lock). */
static int ensure_up(gr_proto_t *p)
{
    if (p->link.pipe_dead && p->st != ST_DOWN) {
        /* A write found the pipe dead before the service thread did: the link is down. */
        set_reason(p, "the pipe failed: %s", gr_link_error());
        link_down(p, GR_E_LINK);
    }
    if (p->st == ST_UP)
        return GR_OK;
    uint64_t gen = p->round_gen;
    if (p->st == ST_DOWN)
        p->want_round = true;
    pthread_cond_broadcast(&p->cv);
    uint64_t start = gr_proto_now_ms();
    while (p->st != ST_UP) {
        if (p->round_gen != gen) {
            gr_link_set_error("%s", p->reason);
            return p->round_status;
        }
        if (gr_proto_now_ms() - start > (uint64_t)p->o.dead_ms + p->o.timeout_ms) {
            gr_link_set_error("%s: the link did not come up", p->o.name);
            return GR_E_LINK;
        }
        wait_ms(p, 50);
    }
    return GR_OK;
}

/* The posted write error to report now, if any (cleared once reported). */
static int take_deferred(gr_proto_t *p)
{
    int rc = p->deferred;
    p->deferred = GR_OK;
    if (rc)
        gr_link_set_error("%s: an earlier posted write %s", p->o.name,
                          rc == GR_E_BUS    ? "got an error response"
                          : rc == GR_E_BUSY ? "was refused: another driver stack owns the device (its binding)"
                                            : "may have been lost in a link reset");
    return rc;
}

static txn_t *slot_alloc(gr_proto_t *p, uint8_t rsp_type)
{
    for (unsigned i = 0; i < SLOTS; i++) {
        txn_t *t = &p->slots[i];
        if (!t->used) {
            memset(t, 0, sizeof *t);
            t->used = true;
            t->rsp_type = rsp_type;
            /* An id no outstanding request has (ids wrap; answers to timed-out ones are late). */
            do
                t->id = p->next_id++;
            while (slot_by_id(p, t->id, rsp_type) != NULL && slot_by_id(p, t->id, rsp_type) != t);
            p->slots_used++;
            return t;
        }
    }
    return NULL;
}

static void slot_free(gr_proto_t *p, txn_t *t)
{
    t->used = false;
    p->slots_used--;
}

/* Queues a request frame; a full replay queue waits for room. */
static int send_req(gr_proto_t *p, uint8_t type, const uint32_t *w, uint16_t len)
{
    for (;;) {
        if (p->st != ST_UP)
            return GR_E_LINK;
        int rc = gr_proto_link_send(&p->link, type, w, len);
        if (rc == GR_E_BUSY) {
            wait_ms(p, 5);
            continue;
        }
        if (rc == GR_OK)
            p->c.requests++;
        if (rc == GR_E_IO) {
            set_reason(p, "the pipe failed: %s", gr_link_error());
            link_down(p, GR_E_LINK);
            gr_link_set_error("%s", p->reason);
            return GR_E_LINK;
        }
        return rc;
    }
}

/* Waits until t is done; GR_E_TIMEOUT after timeout_ms without any request completing. */
static int wait_slot(gr_proto_t *p, txn_t *t, uint64_t *progress_ms)
{
    while (!t->done) {
        uint64_t now = gr_proto_now_ms();
        if (now - *progress_ms > p->o.timeout_ms) {
            /* The device may still hold the request: start over with a clean link. */
            gr_link_set_error("%s: no answer in %u ms", p->o.name, p->o.timeout_ms);
            p->c.timeouts++;
            link_down(p, GR_E_TIMEOUT);
            return GR_E_TIMEOUT;
        }
        wait_ms(p, 20);
    }
    *progress_ms = gr_proto_now_ms();
    if (t->status == GR_E_LINK)
        gr_link_set_error("%s: the link went down (%s)", p->o.name,
                          p->reason[0] ? p->reason : "reset");
    return t->status;
}

static int bind_locked(gr_proto_t *p, unsigned op, char *owner, size_t owner_len);

static int begin(gr_proto_t *p)
{
    pthread_mutex_lock(&p->mu);
    int rc = take_deferred(p);
    if (!rc)
        rc = ensure_up(p);
    /* A link reset made the device forget this host's binding: ask for it again first. */
    if (!rc && p->bind_op && p->bind_ups != p->ups)
        rc = bind_locked(p, p->bind_op, NULL, 0);
    if (rc)
        pthread_mutex_unlock(&p->mu);
    return rc;
}

/* BIND with the link up and p->mu held. */
static int bind_locked(gr_proto_t *p, unsigned op, char *owner, size_t owner_len)
{
    if (owner && owner_len)
        owner[0] = 0;
    if (!(p->hello.dev_caps & GR_PROTO_DEVCAP_BIND)) {
        p->bind_op = 0; /* a device that keeps no binding: nothing to hold */
        return GR_OK;
    }
    int rc = send_posted(p, true);
    txn_t *t = rc ? NULL : slot_alloc(p, GR_PT_BIND_RSP);
    if (!rc && !t)
        rc = GR_E_BUSY;
    if (rc)
        return rc;
    uint32_t rsp[GR_PROTO_BIND_WORDS] = {0};
    uint32_t w[GR_PROTO_BIND_WORDS] = {(uint32_t)op << 16 | t->id, (uint32_t)getpid()};
    char host[33] = {0};
    (void)gethostname(host, sizeof host - 1);
    memcpy(&w[2], host, 32);
    t->values = rsp;
    t->count = GR_PROTO_BIND_WORDS;
    uint64_t progress = gr_proto_now_ms();
    rc = send_req(p, GR_PT_BIND, w, GR_PROTO_BIND_WORDS);
    if (!rc)
        rc = wait_slot(p, t, &progress);
    slot_free(p, t);
    if (rc)
        return rc;
    char who[64] = "";
    if (rsp[1]) {
        char oh[33] = {0};
        memcpy(oh, &rsp[2], 32);
        snprintf(who, sizeof who, "pid %u on %s", rsp[1], oh[0] ? oh : "an unnamed host");
    }
    if (owner && owner_len)
        snprintf(owner, owner_len, "%s", who);
    if ((rsp[0] >> 16) != 0) {
        p->bind_op = 0;
        gr_link_set_error("%s: the device is bound to another driver stack (%s)", p->o.name,
                          who[0] ? who : "owner unknown");
        return GR_E_BUSY;
    }
    p->bind_op = op == GR_PROTO_BIND_RELEASE ? 0 : op;
    p->bind_ups = p->ups;
    return GR_OK;
}

int gr_proto_bind(gr_proto_t *p, unsigned op, char *owner, size_t owner_len)
{
    if (!p || op > GR_PROTO_BIND_FORCE)
        return GR_E_INVALID;
    if (op == GR_PROTO_BIND_RELEASE && !p->bind_op) {
        if (owner && owner_len)
            owner[0] = 0;
        return GR_OK; /* nothing held: no round trip (a closing adapter on a link that is down) */
    }
    pthread_mutex_lock(&p->mu);
    int rc = take_deferred(p);
    if (!rc)
        rc = ensure_up(p);
    if (!rc)
        rc = bind_locked(p, op, owner, owner_len);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

int gr_proto_op_bind(void *ctx, unsigned op, char *owner, size_t owner_len)
{
    return gr_proto_bind(ctx, op, owner, owner_len);
}

static int end(gr_proto_t *p, int rc)
{
    if (!rc)
        rc = take_deferred(p);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

int gr_proto_read32_batch(gr_proto_t *p, const uint32_t *offsets, unsigned count,
                          uint32_t *out_values)
{
    if (!p || !offsets || !out_values || count == 0)
        return GR_E_INVALID;
    uint32_t *vals = malloc(sizeof *vals * count);
    if (!vals)
        return GR_E_NO_MEMORY;
    int rc = begin(p);
    if (rc) {
        free(vals);
        return rc;
    }
    rc = send_posted(p, true);
    unsigned max = (p->link.peer_max_len - 1u) / 2u; /* the answer: 1 + 2 per access */
    if (max > (GR_PROTO_MAX_PAYLOAD - 1u) / 2u)
        max = (GR_PROTO_MAX_PAYLOAD - 1u) / 2u;
    uint64_t progress = gr_proto_now_ms();
    txn_t *t[SLOTS];
    unsigned nt = 0, at = 0;
    uint32_t w[GR_PROTO_MAX_PAYLOAD]; /* on the stack: links on other threads build theirs */
    while (!rc && at < count) {
        unsigned n = count - at < max ? count - at : max;
        txn_t *s = nt < SLOTS ? slot_alloc(p, GR_PT_RD32_RSP) : NULL;
        if (!s) {
            rc = GR_E_BUSY;
            break;
        }
        t[nt++] = s;
        s->values = vals + at;
        s->count = n;
        s->wr_gen = p->wr_gen;
        w[0] = (uint32_t)n << 16 | s->id;
        for (unsigned i = 0; i < n; i++)
            w[1 + i] = offsets[at + i] & 0xffffu;
        rc = send_req(p, GR_PT_RD32, w, (uint16_t)(1u + n));
        at += n;
    }
    for (unsigned i = 0; i < nt; i++) {
        int r = rc ? GR_OK : wait_slot(p, t[i], &progress);
        if (!rc)
            rc = r;
        slot_free(p, t[i]);
    }
    p->c.round_trips++;
    rc = end(p, rc);
    if (!rc)
        memcpy(out_values, vals, sizeof *vals * count);
    free(vals);
    return rc;
}

int gr_proto_read32(gr_proto_t *p, uint32_t offset, uint32_t *out_value)
{
    return gr_proto_read32_batch(p, &offset, 1, out_value);
}

int gr_proto_write32(gr_proto_t *p, uint32_t offset, uint32_t value)
{
    if (!p)
        return GR_E_INVALID;
    int rc = begin(p);
    if (rc)
        return rc;
    p->wr_gen++;
    p->wr_irq_seq = p->irq_seq;
    p->wr_ms = gr_proto_now_ms();
    if (p->o.posted) {
        unsigned batch = (p->link.peer_max_len - 2u) / 2u;
        /* A whole batch still queued (an earlier send failed: the link went down) is sent
         * first; if it cannot go this write is refused, so the queue never grows past a batch. */
        if (p->pw_count >= batch && (rc = send_posted(p, true)))
            return end(p, rc);
        if (p->pw_count == 0)
            p->pw_first_ms = gr_proto_now_ms();
        p->pw_off[p->pw_count] = offset;
        p->pw_val[p->pw_count] = value;
        p->pw_count++;
        if (p->pw_count >= batch)
            rc = send_posted(p, true);
        pthread_cond_broadcast(&p->cv); /* the service thread's flush timer */
        return end(p, rc);
    }
    rc = send_posted(p, true);
    txn_t *t = rc ? NULL : slot_alloc(p, GR_PT_WR32_RSP);
    if (!rc && t) {
        uint32_t w[4] = {1u << 16 | t->id, 0, 0xfu << 16 | (offset & 0xffffu), value};
        rc = send_req(p, GR_PT_WR32, w, 4);
        uint64_t progress = gr_proto_now_ms();
        if (!rc)
            rc = wait_slot(p, t, &progress);
        slot_free(p, t);
        p->c.round_trips++;
    }
    return end(p, rc);
}

int gr_proto_flush(gr_proto_t *p)
{
    if (!p)
        return GR_E_INVALID;
    pthread_mutex_lock(&p->mu);
    bool need = p->pw_count || p->posted_unconfirmed;
    pthread_mutex_unlock(&p->mu);
    if (!need) {
        pthread_mutex_lock(&p->mu);
        return end(p, GR_OK);
    }
    /* A read answers after every earlier request was performed (frames act in order). */
    uint32_t v;
    return gr_proto_read32(p, 0, &v);
}

int gr_proto_set_posted(gr_proto_t *p, bool posted, bool *out_was)
{
    if (!p)
        return GR_E_INVALID;
    int rc = gr_proto_flush(p); /* what was posted before answers under the old rule */
    pthread_mutex_lock(&p->mu);
    if (out_was)
        *out_was = p->o.posted;
    p->o.posted = posted;
    pthread_mutex_unlock(&p->mu);
    return rc;
}

static int ap_check(gr_proto_t *p, uint64_t offset, size_t bytes)
{
    uint64_t size = 1ull << (p->hello.bar1_log2 < 63 ? p->hello.bar1_log2 : 63);
    if (bytes > size || offset > size - bytes) {
        gr_link_set_error("%s: BAR1 access [0x%llx, +0x%zx) past the aperture (0x%llx bytes)",
                          p->o.name, (unsigned long long)offset, bytes, (unsigned long long)size);
        return GR_E_RANGE;
    }
    return GR_OK;
}

/* Words per aperture request: the device's MaxPayload, our MaxPayload for the answer, credit. */
static uint32_t ap_max_words(gr_proto_t *p)
{
    uint32_t m = p->link.peer_max_len - 3u;
    if (m > GR_PROTO_MAX_PAYLOAD - 1u)
        m = GR_PROTO_MAX_PAYLOAD - 1u;
    uint32_t cw = p->link.window_words > 16u ? p->link.window_words - 8u : 8u;
    if (m > cw)
        m = cw;
    return m;
}

/* The end (exclusive) of the next request of a BAR1 transfer [offset, offset + bytes) that is
 * done up to byte a: at most maxw dwords and never across 4 KiB, and, when the transfer spans
 * more than two full requests, shaped for the device's store-and-forward at either end:
 * - a read's answers are built whole before they are sent, so the link idles while the first
 *   one is built: the first requests are short (AP_RAMP_FIRST dwords, doubling), each built in
 *   the time its predecessor is on the wire;
 * - a write is executed only once stored whole, so the execution of the last requests is not
 *   overlapped with the link: they shrink, 256, 128, 64 and AP_WRITE_TAIL (32) dwords, each
 *   executed (at two dwords a cycle) while the next arrives.
 * Both cost a few frame headers (about 0.3% of a 64 KiB transfer) and save most of a frame's
 * time (tb/system/test_board.c, ft601_bar1_share, measures it). */
static uint64_t ap_piece(uint64_t offset, size_t bytes, uint64_t a, uint32_t maxw, bool write, unsigned k)
{
    uint64_t word0 = a & ~3ull;
    uint64_t page_end = (a | 4095u) + 1u;
    uint64_t end_b = offset + bytes < page_end ? offset + bytes : page_end;
    if (end_b - word0 > 4ull * maxw)
        end_b = word0 + 4ull * maxw;
    if (bytes <= 8ull * maxw || maxw < 512u)
        return end_b;
    if (!write && k < 8 && (uint64_t)AP_RAMP_FIRST << k < maxw) {
        uint64_t cap = word0 + 4ull * ((uint64_t)AP_RAMP_FIRST << k);
        if (end_b > cap)
            end_b = cap;
    }
    /* a write's last 480 dwords as 256, 128, 64 and 32: cuts 480, 224, 96 and 32 dwords
     * before the end, the nearest one past a taken */
    for (unsigned i = 4; write && i-- > 0;) {
        uint64_t left = 4ull * AP_WRITE_TAIL * ((2ull << i) - 1u);
        uint64_t last = offset + bytes;
        uint64_t cut = (last - left) & ~3ull;
        if (left < bytes && cut > a && cut < end_b) {
            end_b = cut;
            break;
        }
    }
    return end_b;
}

/* Waits for the oldest of the outstanding slots and frees it. */
static int retire(gr_proto_t *p, txn_t **t, unsigned *nt, uint64_t *progress, int rc)
{
    int r = rc ? GR_OK : wait_slot(p, t[0], progress);
    slot_free(p, t[0]);
    memmove(t, t + 1, sizeof *t * (--*nt));
    return rc ? rc : r;
}

int gr_proto_ap_read(gr_proto_t *p, uint64_t offset, void *dst, size_t bytes)
{
    if (!p || !dst || !bytes)
        return GR_E_INVALID;
    int rc = begin(p);
    if (rc)
        return rc;
    if ((rc = ap_check(p, offset, bytes)) || (rc = send_posted(p, true)))
        return end(p, rc);
    /* Read into a bounce buffer: dst is untouched unless every piece arrived. */
    uint8_t *tmp = malloc(bytes);
    if (!tmp)
        return end(p, GR_E_NO_MEMORY);
    uint32_t maxw = ap_max_words(p);
    txn_t *t[SLOTS / 2];
    unsigned nt = 0;
    uint64_t progress = gr_proto_now_ms();
    size_t done = 0;
    for (unsigned k = 0; !rc && done < bytes; k++) {
        uint64_t a = offset + done;
        uint64_t word0 = a & ~3ull;
        uint64_t end_b = ap_piece(offset, bytes, a, maxw, false, k);
        uint32_t dwords = (uint32_t)((end_b - word0 + 3u) / 4u);
        if (nt == SLOTS / 2 && (rc = retire(p, t, &nt, &progress, rc)))
            break;
        txn_t *s = slot_alloc(p, GR_PT_AP_RD_RSP);
        if (!s) {
            rc = GR_E_BUSY;
            break;
        }
        t[nt++] = s;
        s->dst = tmp + done;
        s->skip = (size_t)(a - word0);
        s->bytes = (size_t)(end_b - a);
        s->dwords = dwords;
        uint32_t w[4] = {s->id, (uint32_t)word0, (uint32_t)(word0 >> 32), dwords};
        rc = send_req(p, GR_PT_AP_RD, w, 4);
        done += s->bytes;
    }
    while (nt)
        rc = retire(p, t, &nt, &progress, rc);
    p->c.round_trips++;
    if (!rc)
        memcpy(dst, tmp, bytes);
    free(tmp);
    return end(p, rc);
}

/* Builds piece k of a BAR1 write of bytes at offset, done bytes of src already sent: w[0] has the
 * byte enables (the caller adds POSTED and the ID), w[1..2] the address, then the data. Returns
 * the piece's DWORDS; *out_len is the bytes of src it carries. */
static uint32_t ap_wr_piece(uint64_t offset, size_t bytes, const uint8_t *src, size_t done, unsigned k,
                            uint32_t maxw, uint32_t *w, size_t *out_len)
{
    uint64_t a = offset + done;
    uint64_t word0 = a & ~3ull;
    uint64_t end_b = ap_piece(offset, bytes, a, maxw, true, k);
    uint32_t dwords = (uint32_t)((end_b - word0 + 3u) / 4u);
    uint32_t fbe = (0xfu << (a & 3u)) & 0xfu;
    uint32_t lbe_bytes = (uint32_t)(end_b - (word0 + 4ull * (dwords - 1u)));
    uint32_t lbe = (1u << lbe_bytes) - 1u;
    if (dwords == 1) {
        fbe &= lbe;
        lbe = 0;
    }
    w[0] = lbe << 20 | fbe << 16;
    w[1] = (uint32_t)word0;
    w[2] = (uint32_t)(word0 >> 32);
    memset(&w[3], 0, 4u * dwords);
    memcpy((uint8_t *)&w[3] + (a - word0), src + done, (size_t)(end_b - a));
    *out_len = (size_t)(end_b - a);
    return dwords;
}

int gr_proto_ap_write(gr_proto_t *p, uint64_t offset, const void *src, size_t bytes)
{
    if (!p || !src || !bytes)
        return GR_E_INVALID;
    int rc = begin(p);
    if (rc)
        return rc;
    if ((rc = ap_check(p, offset, bytes)) || (rc = send_posted(p, true)))
        return end(p, rc);
    const uint8_t *s8 = src;
    uint32_t maxw = ap_max_words(p);
    txn_t *t[SLOTS / 2];
    unsigned nt = 0;
    uint64_t progress = gr_proto_now_ms();
    size_t done = 0;
    uint32_t w[GR_PROTO_MAX_PAYLOAD]; /* on the stack: links on other threads build theirs */
    for (unsigned k = 0; !rc && done < bytes; k++) {
        if (nt == SLOTS / 2 && (rc = retire(p, t, &nt, &progress, rc)))
            break;
        txn_t *sl = slot_alloc(p, GR_PT_AP_WR_RSP);
        if (!sl) {
            rc = GR_E_BUSY;
            break;
        }
        t[nt++] = sl;
        size_t len = 0;
        uint32_t dwords = ap_wr_piece(offset, bytes, s8, done, k, maxw, w, &len);
        w[0] |= sl->id;
        rc = send_req(p, GR_PT_AP_WR, w, (uint16_t)(3u + dwords));
        done += len;
    }
    while (nt)
        rc = retire(p, t, &nt, &progress, rc);
    p->c.round_trips++;
    return end(p, rc);
}

int gr_proto_ap_write_posted(gr_proto_t *p, uint64_t offset, const void *src, size_t bytes)
{
    if (!p || !src || !bytes)
        return GR_E_INVALID;
    pthread_mutex_lock(&p->mu);
    bool posted = p->o.posted;
    pthread_mutex_unlock(&p->mu);
    if (!posted)
        return gr_proto_ap_write(p, offset, src, bytes);
    int rc = begin(p);
    if (rc)
        return rc;
    if ((rc = ap_check(p, offset, bytes)) || (rc = send_posted(p, true)))
        return end(p, rc);
    const uint8_t *s8 = src;
    uint32_t maxw = ap_max_words(p);
    size_t done = 0;
    uint32_t w[GR_PROTO_MAX_PAYLOAD]; /* on the stack: links on other threads build theirs */
    for (unsigned k = 0; !rc && done < bytes; k++) {
        size_t len = 0;
        uint32_t dwords = ap_wr_piece(offset, bytes, s8, done, k, maxw, w, &len);
        /* The id is not matched: a posted AP_WR answers only when it failed. */
        w[0] |= 1u << 24 | p->next_id++;
        rc = send_req(p, GR_PT_AP_WR, w, (uint16_t)(3u + dwords));
        if (!rc)
            p->posted_unconfirmed = true;
        done += len;
    }
    return end(p, rc);
}

int gr_proto_dma_alloc(gr_proto_t *p, size_t bytes, gr_dma_buf_t *out_buf)
{
    if (!p || !out_buf || !bytes || bytes > (1ull << 40))
        return GR_E_INVALID;
    size_t size = (bytes + PAGE - 1u) & ~(size_t)(PAGE - 1u);
    pthread_mutex_lock(&p->mu);
    uint64_t base = PRIVATE_DMA_BASE, lim = PRIVATE_DMA_SIZE;
    if (p->hello.dma_size) {
        base = (p->hello.dma_base + PAGE - 1u) & ~(uint64_t)(PAGE - 1u);
        lim = p->hello.dma_size - (base - p->hello.dma_base);
    }
    /* First fit in the window; regions are kept sorted by bus address. */
    uint64_t at = base;
    unsigned i = 0;
    for (; i < p->dma_count; i++) {
        if (p->dma[i].bus >= at + size)
            break;
        if (p->dma[i].bus + p->dma[i].bytes > at)
            at = p->dma[i].bus + p->dma[i].bytes;
    }
    int rc = GR_OK;
    uint8_t *cpu = NULL;
    if (at + size > base + lim) {
        gr_link_set_error("%s: no room for %zu bytes in the DMA window", p->o.name, bytes);
        rc = GR_E_NO_MEMORY;
    } else if (p->dma_count == p->dma_cap) {
        unsigned cap = p->dma_cap ? 2 * p->dma_cap : 16;
        dma_region_t *d = realloc(p->dma, sizeof *d * cap);
        if (!d)
            rc = GR_E_NO_MEMORY;
        else {
            p->dma = d;
            p->dma_cap = cap;
        }
    }
    if (!rc && !(cpu = aligned_alloc(PAGE, size)))
        rc = GR_E_NO_MEMORY;
    if (!rc) {
        memset(cpu, 0, size);
        memmove(&p->dma[i + 1], &p->dma[i], sizeof *p->dma * (p->dma_count - i));
        p->dma[i] = (dma_region_t){cpu, at, size};
        p->dma_count++;
        out_buf->cpu = cpu;
        out_buf->bus = at;
        out_buf->bytes = bytes;
    }
    pthread_mutex_unlock(&p->mu);
    return rc;
}

int gr_proto_dma_free(gr_proto_t *p, const gr_dma_buf_t *buf)
{
    if (!p || !buf)
        return GR_E_INVALID;
    pthread_mutex_lock(&p->mu);
    int rc = GR_E_NOT_FOUND;
    for (unsigned i = 0; i < p->dma_count; i++) {
        if (p->dma[i].bus == buf->bus) {
            free(p->dma[i].cpu);
            memmove(&p->dma[i], &p->dma[i + 1], sizeof *p->dma * (p->dma_count - i - 1));
            p->dma_count--;
            rc = GR_OK;
            break;
        }
    }
    pthread_mutex_unlock(&p->mu);
    return rc;
}

int gr_proto_wait_irq(gr_proto_t *p, uint32_t timeout_us, bool *out_raised)
{
    if (!p || !out_raised)
        return GR_E_INVALID;
    /* Writes made before the wait (an enable, a test bit) must be performed, and the line's
     * change they cause seen, before the wait starts. The line may change a few cycles after
     * a write was answered, but the device sends the IRQ message as it changes, ahead of the
     * answer to any later read: so a read first (ID_MAGIC, no side effect) makes the level
     * current, whatever the link's latency. Only when a write was made since the last read was
     * answered: else the IRQ messages have kept the level current, and the wait costs no round
     * trip. */
    pthread_mutex_lock(&p->mu);
    bool stale = p->wr_gen != p->wr_gen_seen || p->pw_count;
    pthread_mutex_unlock(&p->mu);
    uint32_t magic;
    int frc = stale ? gr_proto_read32(p, 0, &magic) : GR_OK;
    if (frc)
        return frc;
    int rc = begin(p);
    if (rc)
        return rc;
    rc = send_posted(p, true);
    struct timespec ts;
    deadline_ts(0, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)timeout_us * 1000u;
    ts.tv_sec += (time_t)(ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    while (!rc && !p->irq_level && timeout_us && p->st == ST_UP && !p->deferred) {
        if (pthread_cond_timedwait(&p->cv, &p->mu, &ts) == ETIMEDOUT)
            break;
    }
    if (!rc && p->st != ST_UP) {
        gr_link_set_error("%s: the link went down (%s)", p->o.name, p->reason);
        rc = GR_E_LINK;
    }
    bool raised = p->irq_level;
    rc = end(p, rc);
    if (!rc)
        *out_raised = raised;
    return rc;
}

int gr_proto_wait_irq_event(gr_proto_t *p, uint32_t timeout_us, bool *out_raised)
{
    if (!p || !out_raised)
        return GR_E_INVALID;
    struct timespec ts;
    deadline_ts(0, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)timeout_us * 1000u;
    ts.tv_sec += (time_t)(ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    int rc = GR_OK;
    bool raised = false;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->st != ST_UP || p->stop) {
            gr_link_set_error("%s: the link is down (%s)", p->o.name, p->reason[0] ? p->reason : "not up");
            rc = GR_E_LINK;
            break;
        }
        /* High as the device last told, told after the last write32. A high level told before
         * it is one that the write may lower (the interrupt routine's dismiss: the line drops a
         * few cycles later, and its message may come after the answer to a read sent right after
         * the write), so it waits for the device's next message; only if none comes for a while
         * (four smoothed round trips, at least STALE_IRQ_MS: the line stayed high, another bit
         * having come up meanwhile) is it reported, and the interrupt routine's read decides. */
        const uint64_t limit = 4ull * p->link.srtt_ms > STALE_IRQ_MS ? 4ull * p->link.srtt_ms : STALE_IRQ_MS;
        if (p->irq_level &&
            (p->irq_seq != p->wr_irq_seq || gr_proto_now_ms() - p->wr_ms >= limit)) {
            raised = true;
            break;
        }
        if (!timeout_us || pthread_cond_timedwait(&p->cv, &p->mu, &ts) == ETIMEDOUT)
            break;
    }
    pthread_mutex_unlock(&p->mu);
    if (!rc)
        *out_raised = raised;
    return rc;
}

/* ---- open, close, introspection --------------------------------------------------------- */

int gr_proto_open(gr_pipe_t pipe, const gr_proto_opts_t *opts, gr_proto_t **out_p)
{
    if (!pipe.ops || !opts || !out_p) {
        if (pipe.ops)
            pipe.ops->close(pipe.ctx);
        return GR_E_INVALID;
    }
    gr_proto_t *p = calloc(1, sizeof *p);
    if (!p) {
        pipe.ops->close(pipe.ctx);
        return GR_E_NO_MEMORY;
    }
    p->o = *opts;
    if (!p->o.replay_ms)
        p->o.replay_ms = 200;
    p->pipe = pipe;
    int rc = GR_OK;
    if (opts->faults) {
        gr_pipe_t wrapped;
        rc = gr_pipe_faults_create(pipe, opts->fault_seed, opts->fault_rate, &wrapped);
        if (rc) {
            pipe.ops->close(pipe.ctx);
            free(p);
            return rc;
        }
        p->pipe = wrapped;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&p->mu, NULL);
    rc = gr_proto_link_init(&p->link, &p->pipe, true, p->o.replay_ms, p->o.keepalive_ms,
                            &link_cb, p);
    p->epoch = (uint16_t)(gr_proto_now_ms() * 2654435761u >> 7); /* differs across opens */
    if (!rc && pthread_create(&p->thread, NULL, service, p) != 0)
        rc = GR_E_NO_MEMORY;
    if (!rc) {
        p->thread_started = true;
        pthread_mutex_lock(&p->mu);
        rc = ensure_up(p);
        pthread_mutex_unlock(&p->mu);
    }
    if (rc) {
        char msg[300];
        snprintf(msg, sizeof msg, "%s", gr_link_error());
        gr_proto_close(p);
        gr_link_set_error("%s", msg);
        return rc;
    }
    *out_p = p;
    return GR_OK;
}

void gr_proto_close(gr_proto_t *p)
{
    if (!p)
        return;
    if (p->thread_started) {
        pthread_mutex_lock(&p->mu);
        if (p->st == ST_UP && p->pw_count) {
            /* Writes the caller made go out before the link closes. */
            send_posted(p, true);
            uint64_t start = gr_proto_now_ms();
            while (p->st == ST_UP && gr_proto_link_pending(&p->link) &&
                   gr_proto_now_ms() - start < p->o.timeout_ms)
                wait_ms(p, 5);
        }
        p->stop = true;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->thread, NULL);
    }
    gr_proto_link_free(&p->link);
    p->pipe.ops->close(p->pipe.ctx);
    for (unsigned i = 0; i < p->dma_count; i++)
        free(p->dma[i].cpu);
    free(p->dma);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}

void gr_proto_counters(gr_proto_t *p, gr_proto_counters_t *out)
{
    pthread_mutex_lock(&p->mu);
    *out = p->c;
    out->link = p->link.counts;
    gr_pipe_fault_counts(&p->pipe, &out->faults);
    pthread_mutex_unlock(&p->mu);
}

void gr_proto_hello(gr_proto_t *p, gr_proto_hello_t *out)
{
    pthread_mutex_lock(&p->mu);
    if (p->have_hello)
        *out = p->hello;
    else
        memset(out, 0, sizeof *out);
    pthread_mutex_unlock(&p->mu);
}

bool gr_proto_up(gr_proto_t *p)
{
    pthread_mutex_lock(&p->mu);
    bool up = p->st == ST_UP;
    pthread_mutex_unlock(&p->mu);
    return up;
}

const char *gr_proto_link_name(uint8_t link)
{
    static const char *const links[] = {"?", "stream", "uart", "ft601", "ft2232h"};
    return links[link < sizeof links / sizeof links[0] ? link : 0];
}

void gr_proto_describe(gr_proto_t *p, char *buf, size_t len)
{
    pthread_mutex_lock(&p->mu);
    snprintf(buf, len, "%s (%s, %s link, protocol %u.%u)", p->o.name, p->st == ST_UP ? "up" : "down",
             gr_proto_link_name(p->hello.link), p->hello.ver_major, p->hello.ver_minor);
    pthread_mutex_unlock(&p->mu);
}

void gr_proto_op_close(void *ctx) { gr_proto_close(ctx); }
int gr_proto_op_read32(void *ctx, uint32_t offset, uint32_t *out_value)
{
    return gr_proto_read32(ctx, offset, out_value);
}
int gr_proto_op_write32(void *ctx, uint32_t offset, uint32_t value)
{
    return gr_proto_write32(ctx, offset, value);
}
int gr_proto_op_ap_read(void *ctx, uint64_t offset, void *dst, size_t bytes)
{
    return gr_proto_ap_read(ctx, offset, dst, bytes);
}
int gr_proto_op_ap_write(void *ctx, uint64_t offset, const void *src, size_t bytes)
{
    return gr_proto_ap_write(ctx, offset, src, bytes);
}
int gr_proto_op_ap_write_posted(void *ctx, uint64_t offset, const void *src, size_t bytes)
{
    return gr_proto_ap_write_posted(ctx, offset, src, bytes);
}
int gr_proto_op_read32_batch(void *ctx, const uint32_t *offsets, unsigned count, uint32_t *out_values)
{
    return gr_proto_read32_batch(ctx, offsets, count, out_values);
}
int gr_proto_op_wait_irq_event(void *ctx, uint32_t timeout_us, bool *out_raised)
{
    return gr_proto_wait_irq_event(ctx, timeout_us, out_raised);
}
int gr_proto_op_dma_alloc(void *ctx, size_t bytes, gr_dma_buf_t *out_buf)
{
    return gr_proto_dma_alloc(ctx, bytes, out_buf);
}
int gr_proto_op_dma_free(void *ctx, const gr_dma_buf_t *buf) { return gr_proto_dma_free(ctx, buf); }
void gr_proto_op_set_txlog(void *ctx, gr_txlog_t *log)
{
    gr_proto_t *p = ctx;
    pthread_mutex_lock(&p->mu);
    p->txlog = log;
    pthread_mutex_unlock(&p->mu);
}

int gr_proto_op_wait_irq(void *ctx, uint32_t timeout_us, bool *out_raised)
{
    return gr_proto_wait_irq(ctx, timeout_us, out_raised);
}
uint32_t gr_proto_op_caps(void *ctx)
{
    (void)ctx;
    return GR_LINK_CAP_DMA | GR_LINK_CAP_IRQ;
}
void gr_proto_op_describe(void *ctx, char *buf, size_t len) { gr_proto_describe(ctx, buf, len); }
uint32_t gr_proto_op_dead_ms(void *ctx)
{
    const gr_proto_t *p = ctx;
    return p->o.dead_ms;
}

uint32_t gr_proto_op_dma_wait_cycles(void *ctx)
{
    gr_proto_hello_t h;
    gr_proto_hello(ctx, &h);
    return h.dma_timeout;
}
