/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpuref-simd: the simulation server. It runs a board (sim/board: fpga_core, the kind's PHY,
 * its link chip's model and VRAM) and serves it to host processes, so that several programs
 * share one simulated device as they would share a board:
 *
 *   socket mode (default): clients connect to a Unix socket with simd://PATH. Each client's link
 *   ends here (the C device end, gr_proto_dev.c); its requests go to the RTL over this server's
 *   own host-end link with their ids rewritten, and the answers go back to the client that asked.
 *   Each client gets its own DMA window in HELLO_RSP (1 GiB each from 0x1_0000_0000), so the RTL's
 *   DMA requests go to the client whose window holds the address (others: DECERR); interrupt
 *   messages go to every client.
 *   pty mode (--pty): one client on a pseudo-terminal, uart:///dev/pts/N; its bytes go straight
 *   onto the UART board's line through the line model, so the client's protocol engine talks to
 *   the RTL's, with nothing in between.
 *
 * Sharing (socket mode): clients are read in turn (round robin from a rotating start), each
 * may hold at most its share of the queue toward the RTL (RTL_BACKLOG frames divided among the
 * clients whose link is up and one more, CLIENT_SHARE_MIN..CLIENT_SHARE_MAX), and a frame past
 * it (or past the whole queue) is refused before it is acknowledged (NAKed: the client sends it
 * again), so nothing acknowledged is dropped. The queue toward the RTL is one queue per client
 * slot, and the link to the RTL takes their frames in turn, one frame per client per turn, and
 * only as fast as it sends them (the RTL's credit): a frame waits behind at most one frame of
 * each other client, however much they queue (rtl_feed). A client's frames keep their order,
 * and a slot's queue outlives its client (acknowledged frames are executed) until it drains.
 * A client that sends no HELLO within CLIENT_HELLO_MS, or no good frame for --idle-ms, is
 * dropped; so is one that holds more than OUT_LIMIT bytes of unread output or CLIENT_UNACKED
 * unacknowledged frames (its memory: at most ~8.2 MiB each, ~264 MiB for all 32 slots, plus
 * ~4.2 MiB queued toward the RTL).
 *
 * The simulation runs only while someone waits on it: while a client has sent a good frame in
 * the last two seconds (a host waiting for an interrupt sends KEEPALIVEs) or frames toward the
 * RTL are unacknowledged (pty: while bytes came in the last two seconds), so device time passes
 * while a client waits, as on a board; otherwise it sleeps in poll. SIGTERM and SIGINT end it
 * cleanly (the waveform is finished, the socket removed).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "gpuref/gr_status.h"
#include "gr_board.h"
#include "gr_link_simd.h"
#include "gr_proto.h"
#include "gr_proto_bind.h"
#include "gr_proto_dev.h"
#include "gr_proto_frame.h"
#include "gr_proto_link.h"

#define SIMD_VERSION "1.0"
#define MAX_CLIENTS 32u
#define WINDOW_BASE 0x100000000ull
#define WINDOW_SIZE 0x40000000ull /* 1 GiB of bus addresses per client */
#define PS_PER_TICK 100000000ull  /* the link to a board counts 100 us ticks of simulated time */
#define RUN_SLICE 2000u           /* cycles run per turn when the RTL is quiet (20 us at 100 MHz) */
#define DMA_SLICE 64u             /* cycles run per turn while a client owes the RTL a DMA answer */
#define RTL_BACKLOG 1024u         /* frames queued toward the RTL, all clients together */
#define CLIENT_SHARE_MIN 32u      /* a client's share of them is never smaller */
#define CLIENT_SHARE_MAX 256u     /* nor larger */
#define SLOT_QUEUE 512u           /* a slot's queue: its share and an answer per DMA tag */
#define CLIENT_WINDOW 4096u       /* a client's credit (RxWindow in its HELLO_RSP), in words */
#define OUT_LIMIT (4u << 20)      /* unread output: a client that reads nothing is dropped */
#define CLIENT_UNACKED 1024u      /* frames to a client it has not acknowledged: dropped past it */
#define CLIENT_HELLO_MS 10000u    /* a connection that sends no HELLO in this time is dropped */
#define IDLE_MS_DEFAULT 30000u    /* --idle-ms: no good frame from a client for this long */
#define ACTIVE_MS 2000u           /* a client that spoke this recently keeps the device running */
#define READ_CHUNK 16384u         /* bytes read from one client per turn */

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static uint64_t wall_ms(void)
{
    return gr_proto_now_ms();
}

/* ---- output buffers (nothing here blocks on a client) ----------------------------------- */

typedef struct outbuf {
    uint8_t *b;
    size_t len, cap;
} outbuf_t;

static int out_append(outbuf_t *o, const void *p, size_t n)
{
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 65536;
        while (cap < o->len + n)
            cap *= 2;
        if (cap > OUT_LIMIT)
            return GR_E_IO;
        uint8_t *b = realloc(o->b, cap);
        if (!b)
            return GR_E_NO_MEMORY;
        o->b = b;
        o->cap = cap;
    }
    memcpy(o->b + o->len, p, n);
    o->len += n;
    return GR_OK;
}

/* Writes what the fd takes now; -1 when the peer is gone. */
static int out_flush(outbuf_t *o, int fd)
{
    while (o->len) {
        ssize_t n = write(fd, o->b, o->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0)
            return -1;
        memmove(o->b, o->b + n, o->len - (size_t)n);
        o->len -= (size_t)n;
    }
    return 0;
}

/* ---- the server's state ------------------------------------------------------------------ */

typedef struct client {
    bool used;
    int fd;
    unsigned slot;
    uint32_t gen;   /* increments per connection in this slot */
    uint32_t epoch; /* increments per link reset of this client */
    gr_pipe_t pipe; /* writes go to out */
    outbuf_t out;
    gr_proto_dev_t dev;
    uint16_t irq_seq;
    pid_t pid; /* the peer's process, for the log */
    uint64_t since_ms, spoke_ms; /* connected; last read that brought a good frame */
    uint64_t rx_seen;            /* the link's rx_frames at that read */
    /* SEQs of this client's frames on the server's link to the RTL not yet acknowledged by
     * it: its part of the queue (a ring; at most RTL_BACKLOG, the whole queue). */
    uint16_t rtlq[RTL_BACKLOG];
    unsigned rq_head, rq_n;
    bool forced; /* BIND force: its writes pass whoever holds the binding */
} client_t;

/* A client's frame waiting for its turn toward the RTL. */
typedef struct qframe {
    uint8_t type;
    uint16_t len;
    uint32_t *w;
} qframe_t;

/* One slot's queue toward the RTL: its frames not yet handed to the link, and what its frames
 * waited for. It is not cleared when its client leaves: it drains first, and the slot takes
 * no new client until then. */
typedef struct slotq {
    qframe_t f[SLOT_QUEUE];
    unsigned head, n;
    unsigned untx;      /* frames queued and not yet sent (n, and one on the link at most) */
    uint64_t sent;      /* frames of this slot sent to the RTL (first transmissions) */
    uint64_t mark;      /* others' sent frames when its oldest unsent frame became the oldest */
    uint64_t wait_max;  /* most frames of other clients sent while one of its frames was the
                         * oldest unsent one of the slot: at most the clients with frames - 1 */
} slotq_t;

#define OWNER_SERVER 0xffu /* a frame the server itself sends to the RTL */

typedef struct route {
    client_t *c;
    uint32_t gen, epoch;
    uint16_t cid;
    uint8_t rsp_type;
} route_t;

typedef struct tagown {
    client_t *c;
    uint32_t gen, epoch;
    uint8_t rsp_type;
    uint8_t resp;  /* the worst RESP of the pieces answered so far */
    uint16_t left; /* answers still owed: a DMA_WR cut into pieces for its client (rtl_dma) */
} tagown_t;

enum { RTL_RESETTING, RTL_HELLO, RTL_UP };

typedef struct server {
    gr_board_t *board; /* NULL with --connect */
    int up_fd;         /* --connect: the device end's socket */
    bool faults;       /* --faults: injected on the link to the device, both ways */
    uint64_t fault_seed;
    double fault_rate;
    const char *up_path;
    gr_board_kind_t kind;
    bool quiet; /* --quiet: the board without randomness */
    gr_pipe_t bpipe;
    gr_proto_link_t rtl;
    int rtl_state;
    uint16_t epoch;
    uint64_t reset_sent;
    gr_proto_hello_t hello;
    uint16_t next_sid;
    route_t routes[65536];
    tagown_t tags[256];
    bool irq_level;
    client_t clients[MAX_CLIENTS];
    uint32_t slot_gen[MAX_CLIENTS];
    unsigned rr;      /* the slot read first in the next turn */
    slotq_t sq[MAX_CLIENTS];
    unsigned queued;  /* frames in all the slots' queues */
    unsigned turn;    /* the slot whose frame goes to the link next, if it has one */
    /* Which slot each reliable frame on the link came from (by SEQ), and the SEQ after the
     * last frame sent (first transmissions only: replays are not counted). */
    uint8_t seq_owner[GR_PROTO_TXQ_MAX];
    uint16_t tx_hi;
    uint64_t client_sent; /* clients' frames sent to the RTL, all slots */
    uint32_t idle_ms; /* --idle-ms */
    bool verbose;
    gr_proto_bind_t bind; /* which client's driver stack owns the device (PROTOCOL.md) */
} server_t;

static server_t *S;

/* The server's link to the device counts device time on a board, in 100 us ticks (its replays
 * then do not depend on the host's load or the simulation's speed), wall ms on a socket. The
 * ticks are of the board's simulated time, not of its core cycles: the LimeSDR's core runs at
 * 70 MHz, the ULX3S's at 30 MHz, the other boards' at 100 MHz, and a tick is 100 us on each. */
static uint64_t dev_ms(void)
{
    return S->board ? gr_board_time_ps(S->board) / PS_PER_TICK : wall_ms();
}

/* Bus addresses a client may hand out: its slice of the device's DMA window, or of the space
 * from 0x1_0000_0000 when the device leaves the choice to the host. */
static void client_window(unsigned slot, uint64_t *base, uint64_t *size)
{
    if (S->hello.dma_size) {
        *size = (S->hello.dma_size / MAX_CLIENTS) & ~0xfffull;
        *base = S->hello.dma_base + slot * *size;
    } else {
        *size = WINDOW_SIZE;
        *base = WINDOW_BASE + slot * WINDOW_SIZE;
    }
}

static client_t *window_owner(uint64_t addr)
{
    for (unsigned i = 0; i < MAX_CLIENTS; i++) {
        uint64_t b, sz;
        client_window(i, &b, &sz);
        if (addr >= b && addr - b < sz)
            return &S->clients[i];
    }
    return NULL;
}

/* ---- the board as the byte pipe of the server's host end ---------------------------------- */

static int board_write(void *ctx, const void *buf, size_t len)
{
    return gr_board_write(ctx, buf, len);
}

static int board_read(void *ctx, void *buf, size_t max, uint32_t timeout_ms, size_t *out_len)
{
    (void)timeout_ms;
    return gr_board_read(ctx, buf, max, out_len);
}

static void board_close(void *ctx)
{
    (void)ctx;
}

static const gr_pipe_ops_t board_pipe_ops = {board_write, board_read, NULL, board_close};

/* ---- clients ------------------------------------------------------------------------------ */

static int client_write(void *ctx, const void *buf, size_t len)
{
    client_t *c = ctx;
    return out_append(&c->out, buf, len);
}

static int client_read(void *ctx, void *buf, size_t max, uint32_t timeout_ms, size_t *out_len)
{
    (void)ctx, (void)buf, (void)max, (void)timeout_ms;
    *out_len = 0;
    return GR_OK;
}

static void client_pipe_close(void *ctx)
{
    (void)ctx;
}

static const gr_pipe_ops_t client_pipe_ops = {client_write, client_read, NULL, client_pipe_close};

/* Counts the reliable frames the link has sent for the first time since last asked, each for
 * the slot it came from: what a slot's oldest unsent frame waits behind (slotq_t.wait_max). */
static void rtl_note_sent(void)
{
    const uint16_t hi = (uint16_t)(S->rtl.acked + S->rtl.nsent);
    while (S->tx_hi != hi) {
        const uint8_t o = S->seq_owner[S->tx_hi % GR_PROTO_TXQ_MAX];
        S->tx_hi++;
        if (o >= MAX_CLIENTS || !S->sq[o].untx)
            continue;
        slotq_t *q = &S->sq[o];
        const uint64_t waited = S->client_sent - q->sent - q->mark;
        if (waited > q->wait_max)
            q->wait_max = waited;
        q->sent++;
        S->client_sent++;
        if (--q->untx)
            q->mark = S->client_sent - q->sent; /* the next one is the oldest now */
    }
}

/* Puts a reliable frame on the link to the RTL, noting whose it is (a slot or OWNER_SERVER). */
static int rtl_send(uint8_t owner, uint8_t type, const uint32_t *w, uint16_t len)
{
    S->seq_owner[(uint16_t)(S->rtl.acked + gr_proto_link_pending(&S->rtl)) % GR_PROTO_TXQ_MAX] = owner;
    int rc = gr_proto_link_send(&S->rtl, type, w, len);
    rtl_note_sent();
    return rc;
}

/* The link to the RTL starts over: what was queued toward it is gone. */
static void rtl_queues_clear(void)
{
    for (unsigned i = 0; i < MAX_CLIENTS; i++) {
        slotq_t *q = &S->sq[i];
        for (; q->n; q->n--, q->head = (q->head + 1) % SLOT_QUEUE)
            free(q->f[q->head].w);
        q->head = q->untx = 0;
    }
    S->queued = 0;
    S->tx_hi = (uint16_t)(S->rtl.acked + S->rtl.nsent);
}

/* Whether a client owes the RTL the answer to a DMA request. The board then runs in slices of
 * DMA_SLICE cycles between looks at the clients' sockets, so that an answer reaches it at most
 * that many cycles after its client sent it, as on a board, where the host's bytes go out as
 * they are written; a turn of RUN_SLICE cycles (the board has nothing to send while it waits
 * for an answer) would add up to 2000 cycles to each DMA round trip. */
static bool dma_owed(void)
{
    for (unsigned t = 0; t < 256; t++)
        if (S->tags[t].c)
            return true;
    return false;
}

/* The DMA requests a client held are answered SLVERR toward the RTL (it lost them). */
static void release_tags(client_t *c)
{
    for (unsigned t = 0; t < 256; t++) {
        tagown_t *o = &S->tags[t];
        if (o->c != c)
            continue;
        uint32_t w = (uint32_t)GR_RESP_SLVERR << 16 | t;
        rtl_send(OWNER_SERVER, o->rsp_type, &w, 1);
        o->c = NULL;
    }
}

static void client_reset(void *ctx, gr_proto_dev_t *d)
{
    client_t *c = ctx;
    (void)d;
    c->epoch++;
    release_tags(c);
    gr_proto_bind_drop(&S->bind, c);
    c->forced = false;
}

static void client_hello(void *ctx, gr_proto_dev_t *d)
{
    client_t *c = ctx;
    uint32_t w = (S->irq_level ? 1u << 16 : 0u) | c->irq_seq++;
    gr_proto_dev_send(d, GR_PT_IRQ, &w, 1);
}

/* Drops the SEQs the RTL has acknowledged from a client's part of the queue. */
static void rtlq_release(client_t *c)
{
    while (c->rq_n && (int16_t)(uint16_t)(c->rtlq[c->rq_head] - S->rtl.acked) < 0) {
        c->rq_head = (c->rq_head + 1) % RTL_BACKLOG;
        c->rq_n--;
    }
}

/* A client's share of the queue toward the RTL: the queue divided among the clients that are
 * up and one more, so that a client coming up finds a share free. */
static unsigned client_share(void)
{
    unsigned up = 0;
    for (unsigned i = 0; i < MAX_CLIENTS; i++)
        up += S->clients[i].used && S->clients[i].dev.up;
    unsigned share = RTL_BACKLOG / (up + 1);
    return share < CLIENT_SHARE_MIN ? CLIENT_SHARE_MIN : share > CLIENT_SHARE_MAX ? CLIENT_SHARE_MAX : share;
}

/* A client's part of the queue toward the RTL: its frames waiting for their turn, and those
 * on the link the RTL has not acknowledged. */
static unsigned client_part(client_t *c)
{
    rtlq_release(c);
    return S->sq[c->slot].n + c->rq_n;
}

/* Whether the client is within its share (it is read only then). */
static bool client_in_share(client_t *c)
{
    return client_part(c) < client_share();
}

/* Whether the client may put one more frame on the queue toward the RTL now. */
static bool client_has_room(client_t *c)
{
    return client_in_share(c) && S->queued + gr_proto_link_pending(&S->rtl) < RTL_BACKLOG;
}

/* A frame the RTL must get is taken only when it fits the client's share, else refused before
 * it is acknowledged. Answers to the RTL's DMA requests are always taken (the RTL waits on
 * them; at most DmaTags of them exist). Anything else is consumed and dropped by client_frame. */
static bool client_room(void *ctx, gr_proto_dev_t *d, uint8_t type, uint16_t len)
{
    client_t *c = ctx;
    (void)len;
    (void)d;
    if (S->rtl_state != RTL_UP)
        return true;
    switch (type) {
    case GR_PT_RD32:
    case GR_PT_WR32:
    case GR_PT_AP_RD:
    case GR_PT_AP_WR:
        return client_has_room(c);
    default:
        return true;
    }
}

/* Hands the slots' frames to the link in turn, one frame per slot per turn, while the link
 * sends each at once: a frame the RTL has no credit for stays on the link, and the rest wait in
 * their slots' queues, so whatever a client queues, another client's next frame waits behind
 * at most one frame of each other slot. */
static void rtl_feed(void)
{
    while (S->queued && S->rtl_state == RTL_UP && S->rtl.nsent == gr_proto_link_pending(&S->rtl)) {
        unsigned k = 0;
        while (!S->sq[(S->turn + k) % MAX_CLIENTS].n)
            k++;
        const unsigned slot = (S->turn + k) % MAX_CLIENTS;
        slotq_t *q = &S->sq[slot];
        qframe_t *f = &q->f[q->head];
        client_t *c = &S->clients[slot];
        const uint16_t seq = (uint16_t)(S->rtl.acked + gr_proto_link_pending(&S->rtl));
        int rc = rtl_send((uint8_t)slot, f->type, f->w, f->len);
        if (rc == GR_E_BUSY || rc == GR_E_NO_MEMORY)
            return; /* the link's replay buffer is full: it goes when the RTL acknowledges */
        if (rc == GR_OK && c->used && c->rq_n < RTL_BACKLOG) {
            c->rtlq[(c->rq_head + c->rq_n) % RTL_BACKLOG] = seq;
            c->rq_n++;
        } else if (rc != GR_OK && --q->untx) {
            /* never sent (the link is dead, or the frame too long for the RTL) */
            q->mark = S->client_sent - q->sent;
        }
        free(f->w);
        q->head = (q->head + 1) % SLOT_QUEUE;
        q->n--;
        S->queued--;
        S->turn = (slot + 1) % MAX_CLIENTS;
    }
}

/* Queues a client's frame toward the RTL in its slot's queue, and feeds the link. */
static int rtl_enqueue(client_t *c, uint8_t type, const uint32_t *w, uint16_t len)
{
    slotq_t *q = &S->sq[c->slot];
    if (q->n == SLOT_QUEUE)
        return GR_E_BUSY; /* at most the share and one answer per DMA tag: not reached */
    uint32_t *copy = malloc(4u * (len ? len : 1u));
    if (!copy)
        return GR_E_NO_MEMORY;
    memcpy(copy, w, 4u * len);
    q->f[(q->head + q->n) % SLOT_QUEUE] = (qframe_t){type, len, copy};
    q->n++;
    S->queued++;
    if (!q->untx++)
        q->mark = S->client_sent - q->sent;
    rtl_feed();
    return GR_OK;
}

static void client_frame(void *ctx, gr_proto_dev_t *d, uint8_t type, const uint32_t *w,
                         uint16_t len)
{
    client_t *c = ctx;
    static uint32_t fw[GR_PROTO_MAX_PAYLOAD];
    switch (type) {
    case GR_PT_RD32:
    case GR_PT_WR32:
    case GR_PT_AP_RD:
    case GR_PT_AP_WR: {
        /* Requests need no HELLO: executed and answered as the RTL does (PROTOCOL.md). */
        if (len < 1 || S->rtl_state != RTL_UP) {
            d->bad_frames++;
            return;
        }
        if (gr_proto_bind_refuses(&S->bind, c, c->forced, d, type, w, len))
            return;
        uint16_t sid = S->next_sid++;
        S->routes[sid] = (route_t){c, c->gen, c->epoch, (uint16_t)w[0], (uint8_t)(type | 0x80u)};
        memcpy(fw, w, 4u * len);
        fw[0] = (w[0] & 0xffff0000u) | sid;
        if (rtl_enqueue(c, type, fw, len))
            d->bad_frames++; /* client_room made sure there is room: not reached */
        return;
    }
    case GR_PT_DMA_RD_RSP:
    case GR_PT_DMA_WR_RSP: {
        if (len < 1)
            return;
        tagown_t *o = &S->tags[w[0] & 0xffu];
        /* Only the client the request went to answers it, once. */
        if (o->c != c || o->gen != c->gen || o->epoch != c->epoch || o->rsp_type != type)
            return;
        uint32_t resp = (w[0] >> 16) & 3u;
        if (resp < o->resp)
            resp = o->resp;
        if (o->left > 1) { /* a piece of a DMA_WR cut for this client (rtl_dma) */
            o->left--;
            o->resp = (uint8_t)resp;
            return;
        }
        o->c = NULL;
        uint32_t a = (w[0] & ~(3u << 16)) | resp << 16;
        if (type == GR_PT_DMA_WR_RSP ? rtl_enqueue(c, type, &a, 1) : rtl_enqueue(c, type, w, len))
            d->bad_frames++; /* a slot's queue holds an answer for every tag: not reached */
        return;
    }
    case GR_PT_BIND:
        gr_proto_bind_frame(&S->bind, c, &c->forced, d, w, len);
        return;
    default:
        d->bad_frames++;
        return;
    }
}

static const gr_proto_dev_ops_t client_ops = {client_frame, client_reset, client_hello, client_room};

static void client_drop(client_t *c, const char *why)
{
    if (S->verbose && why)
        fprintf(stderr, "gpuref-simd: client %u dropped: %s\n", c->slot, why);
    if (S->verbose) {
        const gr_proto_link_counts_t *k = &S->rtl.counts;
        fprintf(stderr,
                "gpuref-simd: client %u left; link to the device: %llu frames out, %llu in, "
                "%llu replayed, %llu CRC errors, %llu NAKs sent, %llu received, %u queued, "
                "cycle %llu\n",
                c->slot, (unsigned long long)k->tx_frames, (unsigned long long)k->rx_frames,
                (unsigned long long)k->retransmissions, (unsigned long long)k->crc_errors,
                (unsigned long long)k->naks_sent, (unsigned long long)k->naks_received,
                gr_proto_link_pending(&S->rtl),
                (unsigned long long)(S->board ? gr_board_cycle(S->board) : 0));
    }
    if (S->verbose) {
        const slotq_t *q = &S->sq[c->slot];
        fprintf(stderr,
                "gpuref-simd: client %u (pid %ld) left: %llu frames sent to the RTL, at most "
                "%llu of other clients' sent while one of its frames was next, %u still queued\n",
                c->slot, (long)c->pid, (unsigned long long)q->sent, (unsigned long long)q->wait_max,
                q->n);
    }
    release_tags(c);
    gr_proto_bind_drop(&S->bind, c);
    gr_proto_dev_free(&c->dev);
    close(c->fd);
    free(c->out.b);
    memset(c, 0, sizeof *c);
}

static void client_accept(int lfd)
{
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return;
    /* A slot whose last client's frames are still queued is not free yet. */
    unsigned slot = 0;
    while (slot < MAX_CLIENTS && (S->clients[slot].used || S->sq[slot].untx))
        slot++;
    if (slot == MAX_CLIENTS || S->rtl_state != RTL_UP) {
        close(fd);
        return;
    }
    client_t *c = &S->clients[slot];
    memset(c, 0, sizeof *c);
    c->used = true;
    c->fd = fd;
    c->slot = slot;
    c->gen = ++S->slot_gen[slot];
    c->pipe.ops = &client_pipe_ops;
    c->pipe.ctx = c;
    c->since_ms = c->spoke_ms = wall_ms();
    struct ucred cred;
    socklen_t cl = sizeof cred;
    c->pid = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0 ? cred.pid : 0;
    S->sq[slot].sent = S->sq[slot].wait_max = 0;
    const gr_proto_hello_t *h = &S->hello;
    gr_proto_dev_cfg_t cfg = {
        .max_payload = h->max_payload,
        .rx_window = CLIENT_WINDOW, /* queued here while the RTL has no room */
        .dma_tags = h->dma_tags,
        .link = GR_PROTO_LINK_STREAM,
        .bar0_log2 = h->bar0_log2,
        .bar1_log2 = h->bar1_log2,
        .core_hz = h->core_hz,
        .replay_timeout = h->replay_timeout,
        .dma_timeout = h->dma_timeout,
        .dma_base = 0,
        .dma_size = 0,
        .replay_ms = 200,
        .dev_caps = GR_PROTO_DEVCAP_BIND,
    };
    client_window(slot, &cfg.dma_base, &cfg.dma_size);
    if (gr_proto_dev_init(&c->dev, &c->pipe, &cfg, &client_ops, c)) {
        close(fd);
        memset(c, 0, sizeof *c);
        return;
    }
    if (S->verbose)
        fprintf(stderr, "gpuref-simd: client %u connected (pid %ld)\n", slot, (long)c->pid);
}

/* The RTL link was reset: what every client had outstanding is gone, so each is told. */
static void reset_clients(void)
{
    for (unsigned i = 0; i < MAX_CLIENTS; i++) {
        client_t *c = &S->clients[i];
        if (!c->used)
            continue;
        gr_proto_link_restart(&c->dev.link);
        c->dev.up = false;
        c->epoch++;
        uint32_t e = c->epoch & 0xffffu;
        gr_proto_link_ctrl(&c->dev.link, GR_PT_RESET, &e, 1);
        c->rq_n = 0; /* the link to the RTL starts over: nothing of theirs is queued */
    }
    rtl_queues_clear();
    memset(S->tags, 0, sizeof S->tags);
}

/* ---- the server's host end toward the RTL ------------------------------------------------- */

static void rtl_send_hello(void)
{
    uint32_t hello[2] = {GR_PROTO_VER_MAJOR << 16 | GR_PROTO_VER_MINOR, GR_PROTO_MAX_PAYLOAD};
    S->rtl.window_words = 64;
    S->rtl.peer_max_len = GR_PROTO_MAX_PAYLOAD;
    rtl_send(OWNER_SERVER, GR_PT_HELLO, hello, 2);
    S->rtl_state = RTL_HELLO;
}

static void rtl_dma(const gr_proto_hdr_t *h, const uint32_t *w)
{
    if (h->len < 3)
        return;
    unsigned tag = w[0] & 0xffu;
    uint64_t addr = (uint64_t)w[2] << 32 | w[1];
    uint8_t rsp_type = h->type == GR_PT_DMA_RD ? GR_PT_DMA_RD_RSP : GR_PT_DMA_WR_RSP;
    client_t *c = window_owner(addr);
    if (c && c->used && c->dev.up) {
        S->tags[tag] = (tagown_t){c, c->gen, c->epoch, rsp_type, 0, 1};
        uint16_t max = c->dev.link.peer_max_len;
        if (h->type == GR_PT_DMA_WR && h->len > max && h->len > 4) {
            /* A DMA_WR of joined bursts longer than this client's MaxPayload: cut into pieces
             * of an even number of words that it takes, FirstBE on the first, LastBE on the
             * last; the RTL gets one answer, the worst, once every piece is answered. */
            static uint32_t pw[GR_PROTO_MAX_PAYLOAD];
            uint32_t dwords = h->len - 3u, step = (max - 3u) & ~1u, sent = 0, n = 0;
            uint32_t fbe = (w[0] >> 16) & 0xfu, lbe = (w[0] >> 20) & 0xfu;
            while (sent < dwords) {
                uint32_t k = dwords - sent < step ? dwords - sent : step;
                uint32_t pf = sent == 0 ? fbe : sent + k == dwords && k == 1 ? lbe : 0xfu;
                uint32_t pl = k == 1 ? 0u : sent + k == dwords ? lbe : 0xfu;
                uint64_t a = addr + 4ull * sent;
                pw[0] = pl << 20 | pf << 16 | tag;
                pw[1] = (uint32_t)a;
                pw[2] = (uint32_t)(a >> 32);
                memcpy(&pw[3], &w[3 + sent], 4u * k);
                if (gr_proto_dev_send(&c->dev, h->type, pw, (uint16_t)(3u + k)) != GR_OK)
                    break;
                sent += k;
                n++;
            }
            if (n == 0) {
                S->tags[tag].c = NULL;
            } else {
                S->tags[tag].left = (uint16_t)n;
                if (sent < dwords)
                    S->tags[tag].resp = GR_RESP_SLVERR; /* the rest was not written */
                return;
            }
        } else if (gr_proto_dev_send(&c->dev, h->type, w, h->len) == GR_OK) {
            return;
        } else {
            S->tags[tag].c = NULL;
        }
    }
    /* Nobody owns that address: the bus error a host gives for memory it never handed out. */
    uint32_t r = (uint32_t)GR_RESP_DECERR << 16 | tag;
    rtl_send(OWNER_SERVER, rsp_type, &r, 1);
}

static void rtl_deliver(void *ctx, const gr_proto_hdr_t *h, const uint32_t *w)
{
    (void)ctx;
    static uint32_t fw[GR_PROTO_MAX_PAYLOAD];
    if (S->rtl_state == RTL_RESETTING)
        return;
    switch (h->type) {
    case GR_PT_HELLO_RSP:
        if (S->rtl_state != RTL_HELLO || h->len < 10)
            return;
        S->hello = (gr_proto_hello_t){
            .ver_major = (uint16_t)(w[0] >> 16), .ver_minor = (uint16_t)w[0],
            .max_payload = (uint16_t)w[1], .rx_window = (uint16_t)(w[1] >> 16),
            .dma_tags = (uint8_t)w[2], .link = (uint8_t)(w[2] >> 8),
            .bar0_log2 = (uint8_t)(w[2] >> 16), .bar1_log2 = (uint8_t)(w[2] >> 24),
            .core_hz = w[3], .replay_timeout = w[4], .dma_timeout = w[5],
            .dma_base = (uint64_t)w[7] << 32 | w[6], .dma_size = (uint64_t)w[9] << 32 | w[8],
        };
        S->rtl.peer_max_len = S->hello.max_payload > GR_PROTO_MAX_PAYLOAD ? GR_PROTO_MAX_PAYLOAD
                                                                         : S->hello.max_payload;
        S->rtl.window_words = S->hello.rx_window;
        S->rtl_state = RTL_UP;
        return;
    case GR_PT_RD32_RSP:
    case GR_PT_WR32_RSP:
    case GR_PT_AP_RD_RSP:
    case GR_PT_AP_WR_RSP: {
        if (h->len < 1)
            return;
        route_t *r = &S->routes[w[0] & 0xffffu];
        /* Its client's link need not be up: a request before HELLO is answered too. */
        if (r->rsp_type != h->type || !r->c || !r->c->used || r->c->gen != r->gen ||
            r->c->epoch != r->epoch)
            return; /* its client left or reset its link: nobody waits for it */
        memcpy(fw, w, 4u * h->len);
        fw[0] = (w[0] & 0xffff0000u) | r->cid;
        gr_proto_dev_send(&r->c->dev, h->type, fw, h->len);
        r->c = NULL;
        return;
    }
    case GR_PT_DMA_RD:
    case GR_PT_DMA_WR:
        rtl_dma(h, w);
        return;
    case GR_PT_IRQ:
        if (h->len < 1)
            return;
        S->irq_level = (w[0] >> 16) & 1u;
        for (unsigned i = 0; i < MAX_CLIENTS; i++) {
            client_t *c = &S->clients[i];
            if (c->used && c->dev.up) {
                uint32_t m = (S->irq_level ? 1u << 16 : 0u) | c->irq_seq++;
                gr_proto_dev_send(&c->dev, GR_PT_IRQ, &m, 1);
            }
        }
        return;
    default:
        return;
    }
}

static void rtl_control(void *ctx, const gr_proto_hdr_t *h, const uint32_t *w)
{
    (void)ctx;
    if (h->type == GR_PT_RESET) {
        /* The RTL reset the link: start over with HELLO, and tell the clients. */
        reset_clients();
        rtl_send_hello();
    } else if (h->type == GR_PT_RESET_ACK && (w[0] & 0xffffu) == S->epoch &&
               S->rtl_state == RTL_RESETTING) {
        gr_proto_link_restart(&S->rtl);
        rtl_queues_clear();
        rtl_send_hello();
    }
}

static const gr_proto_link_cb_t rtl_cb = {rtl_deliver, rtl_control, NULL};

/* Runs the board up to `cycles` (less when it has bytes for the host) and takes its bytes. */
static void rtl_step(uint64_t cycles)
{
    static uint8_t buf[65536];
    if (S->board)
        gr_board_run_until(S->board, 1, cycles, NULL);
    /* Through the pipe, so that --faults applies to what comes back too. */
    for (;;) {
        size_t n = 0;
        if (S->bpipe.ops->read(S->bpipe.ctx, buf, sizeof buf, S->board ? 0 : 1, &n)) {
            fprintf(stderr, "gpuref-simd: the device end closed the connection\n");
            stop_flag = 1; /* --connect: nothing left to serve */
            break;
        }
        if (!n)
            break;
        size_t at = 0;
        while (at < n) {
            size_t room = 0;
            uint8_t *dst = gr_proto_link_rx_space(&S->rtl, &room);
            size_t k = n - at < room ? n - at : room;
            memcpy(dst, buf + at, k);
            gr_proto_link_input(&S->rtl, k, dev_ms());
            at += k;
        }
        if (!S->board)
            break;
    }
    uint64_t now = dev_ms();
    if (S->rtl_state == RTL_RESETTING && now - S->reset_sent >= 1) {
        uint32_t e = S->epoch;
        gr_proto_link_ctrl(&S->rtl, GR_PT_RESET, &e, 1);
        S->reset_sent = now;
    }
    gr_proto_link_tick(&S->rtl, now);
    rtl_note_sent();
    if (S->rtl.desync) {
        /* Out of step with the RTL: reset the link, as a host does. */
        S->epoch++;
        gr_proto_link_restart(&S->rtl);
        reset_clients();
        S->rtl_state = RTL_RESETTING;
        S->reset_sent = now;
        uint32_t e = S->epoch;
        gr_proto_link_ctrl(&S->rtl, GR_PT_RESET, &e, 1);
    }
    rtl_feed(); /* the RTL's acknowledgements gave credit back */
}

/* Brings the RTL link up: RESET, HELLO. */
static int rtl_open(void)
{
    /* Board: 500 us of device time, far above a round trip; the UART board needs three
     * largest frames' time on the line (50 ms at 3 Mbaud). Socket: wall ms. */
    uint32_t replay = 5;
    if (!S->board)
        replay = 200;
    else if (gr_board_link_kind(S->kind) == GR_BOARD_UART)
        replay = 500;
    if (gr_proto_link_init(&S->rtl, &S->bpipe, true, replay, 0, &rtl_cb, NULL))
        return GR_E_NO_MEMORY;
    S->rtl.now_ms = S->reset_sent = dev_ms();
    S->epoch = 0x5d;
    S->rtl_state = RTL_RESETTING;
    uint32_t e = S->epoch;
    gr_proto_link_ctrl(&S->rtl, GR_PT_RESET, &e, 1);
    /* 20 million core cycles (200 ms at 100 MHz, 667 ms on the ULX3S's 30 MHz) is plenty for
     * RESET and HELLO on any link */
    uint64_t t0 = wall_ms();
    for (int i = 0; i < 10000 && S->rtl_state != RTL_UP && !stop_flag; i++) {
        if (!S->board && wall_ms() - t0 > 5000)
            break;
        rtl_step(RUN_SLICE);
    }
    if (S->rtl_state != RTL_UP) {
        if (S->board)
            fprintf(stderr, "gpuref-simd: the %s board's link did not come up (no %s in %llu "
                            "cycles)\n", gr_board_kind_name(S->kind),
                    S->rtl_state == RTL_RESETTING ? "RESET_ACK" : "HELLO_RSP",
                    (unsigned long long)gr_board_cycle(S->board));
        else
            fprintf(stderr, "gpuref-simd: no %s from the device at %s in 5 s\n",
                    S->rtl_state == RTL_RESETTING ? "RESET_ACK" : "HELLO_RSP", S->up_path);
        return GR_E_LINK;
    }
    if (S->hello.ver_major != GR_PROTO_VER_MAJOR) {
        fprintf(stderr, "gpuref-simd: the RTL speaks protocol %u.%u, this server %u.%u\n",
                S->hello.ver_major, S->hello.ver_minor, GR_PROTO_VER_MAJOR, GR_PROTO_VER_MINOR);
        return GR_E_MISMATCH;
    }
    return GR_OK;
}

/* ---- the two modes ---------------------------------------------------------------------------- */

static int serve_socket(const char *path)
{
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path) {
        fprintf(stderr, "gpuref-simd: socket path too long (at most %zu bytes): %s\n",
                sizeof sa.sun_path - 1, path);
        return 2;
    }
    strcpy(sa.sun_path, path);
    /* A socket file nobody answers on is a leftover of a killed server; a live one is not ours. */
    int probe = socket(AF_UNIX, SOCK_STREAM, 0);
    if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof sa) == 0) {
        fprintf(stderr, "gpuref-simd: another server is listening on %s\n", path);
        close(probe);
        close(lfd);
        return 1;
    }
    if (probe >= 0)
        close(probe);
    unlink(path);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(lfd, 16) != 0) {
        fprintf(stderr, "gpuref-simd: cannot listen on %s: %s\n", path, strerror(errno));
        if (lfd >= 0)
            close(lfd);
        return 1;
    }
    if (S->board)
        printf("gpuref-simd: serving a %s board on %s (seed %llu%s)\n", gr_board_kind_name(S->kind),
               path, (unsigned long long)gr_board_seed(S->board), S->quiet ? ", quiet" : "");
    else
        printf("gpuref-simd: serving the device at %s on %s\n", S->up_path, path);
    fflush(stdout);
    static uint8_t buf[READ_CHUNK];
    while (!stop_flag) {
        struct pollfd pf[1 + MAX_CLIENTS];
        client_t *pc[1 + MAX_CLIENTS];
        unsigned n = 0;
        pf[n++] = (struct pollfd){.fd = lfd, .events = POLLIN};
        uint64_t now = wall_ms();
        bool active = gr_proto_link_pending(&S->rtl) != 0 || S->queued;
        /* Round robin: this turn starts one slot further than the last. */
        for (unsigned k = 0; k < MAX_CLIENTS; k++) {
            client_t *c = &S->clients[(S->rr + k) % MAX_CLIENTS];
            if (!c->used)
                continue;
            /* A client at its share is not read: its bytes wait in its socket, and it is not
             * idle (it waits on the RTL). */
            const bool in_share = client_in_share(c);
            if (!in_share || client_part(c))
                c->spoke_ms = now;
            active |= now - c->spoke_ms < ACTIVE_MS;
            pc[n] = c;
            pf[n++] = (struct pollfd){.fd = c->fd,
                                      .events = (short)((in_share ? POLLIN : 0) |
                                                        (c->out.len ? POLLOUT : 0))};
        }
        S->rr = (S->rr + 1) % MAX_CLIENTS;
        if (poll(pf, n, active ? 0 : 50) < 0 && errno != EINTR)
            break;
        if (pf[0].revents & POLLIN)
            client_accept(lfd);
        now = wall_ms();
        for (unsigned k = 1; k < n; k++) {
            client_t *c = pc[k];
            const char *why = (pf[k].revents & (POLLERR | POLLNVAL)) ? "socket error" : NULL;
            if (!why && (pf[k].revents & (POLLIN | POLLHUP)) && client_in_share(c)) {
                ssize_t r = read(c->fd, buf, sizeof buf);
                if (r > 0) {
                    gr_proto_dev_input(&c->dev, buf, (size_t)r, now);
                    if (c->dev.link.counts.rx_frames != c->rx_seen) {
                        c->rx_seen = c->dev.link.counts.rx_frames;
                        c->spoke_ms = now;
                    }
                } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                    why = "closed";
                }
            }
            if (!why) {
                gr_proto_dev_tick(&c->dev, now);
                if (out_flush(&c->out, c->fd) != 0)
                    why = "closed";
                else if (c->dev.link.pipe_dead)
                    why = "reads nothing (output past its limit)";
                else if (gr_proto_link_pending(&c->dev.link) > CLIENT_UNACKED)
                    why = "acknowledges nothing";
                else if (!c->dev.hellos &&
                         now - c->since_ms > (S->idle_ms < CLIENT_HELLO_MS ? S->idle_ms : CLIENT_HELLO_MS))
                    why = "no HELLO";
                else if (now - c->spoke_ms > S->idle_ms)
                    why = "idle";
            }
            if (why)
                client_drop(c, why);
        }
        if (active)
            rtl_step(dma_owed() ? DMA_SLICE : RUN_SLICE);
        for (unsigned i = 0; i < MAX_CLIENTS; i++)
            if (S->clients[i].used && out_flush(&S->clients[i].out, S->clients[i].fd))
                client_drop(&S->clients[i], "closed");
    }
    for (unsigned i = 0; i < MAX_CLIENTS; i++)
        if (S->clients[i].used)
            client_drop(&S->clients[i], NULL);
    rtl_queues_clear();
    close(lfd);
    unlink(path);
    return 0;
}

static int serve_pty(const char *link_file)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    char slave[128];
    if (m < 0 || grantpt(m) || unlockpt(m) || ptsname_r(m, slave, sizeof slave)) {
        fprintf(stderr, "gpuref-simd: cannot create a pseudo-terminal: %s\n", strerror(errno));
        return 1;
    }
    /* Held open here so that the line stays up between clients, raw from the start. */
    int keep = open(slave, O_RDWR | O_NOCTTY | O_CLOEXEC);
    struct termios t;
    if (keep < 0 || tcgetattr(keep, &t)) {
        fprintf(stderr, "gpuref-simd: cannot open %s: %s\n", slave, strerror(errno));
        return 1;
    }
    cfmakeraw(&t);
    tcsetattr(keep, TCSANOW, &t);
    if (link_file) {
        FILE *f = fopen(link_file, "w");
        if (!f || fprintf(f, "%s\n", slave) < 0 || fclose(f)) {
            fprintf(stderr, "gpuref-simd: cannot write %s: %s\n", link_file, strerror(errno));
            return 1;
        }
    }
    printf("gpuref-simd: %s board on %s (uart://%s)\n", gr_board_kind_name(S->kind), slave, slave);
    fflush(stdout);
    static uint8_t buf[65536];
    outbuf_t out = {0};
    uint64_t last = 0;
    while (!stop_flag) {
        uint64_t now = wall_ms();
        bool busy = now - last < 2000 || gr_board_write_pending(S->board) || out.len;
        struct pollfd pf = {.fd = m, .events = (short)(POLLIN | (out.len ? POLLOUT : 0))};
        if (poll(&pf, 1, busy ? 0 : 50) < 0 && errno != EINTR)
            break;
        if (pf.revents & POLLIN) {
            ssize_t r = read(m, buf, sizeof buf);
            if (r > 0) {
                gr_board_write(S->board, buf, (size_t)r);
                last = now;
            }
        }
        if (busy) {
            gr_board_run_until(S->board, 1, RUN_SLICE, NULL);
            size_t n = 0;
            while (gr_board_read(S->board, buf, sizeof buf, &n) == GR_OK && n)
                if (out_append(&out, buf, n))
                    out.len = 0; /* nobody reads the line: what the wire would lose */
        }
        out_flush(&out, m);
    }
    free(out.b);
    close(keep);
    close(m);
    if (link_file)
        unlink(link_file);
    return 0;
}

/* --faults: the link to the device goes through the fault pipe (which then owns bpipe). */
static int wrap_faults(void)
{
    if (!S->faults)
        return 0;
    /* A socket or the FT601 moves whole 32-bit words: their faults never split one (and the
     * stream and FT601 PHYs look for frames at word offsets only). */
    gr_board_kind_t link = gr_board_link_kind(S->kind);
    unsigned unit = S->board && (link == GR_BOARD_STREAM || link == GR_BOARD_FT601) ? 4 : 1;
    gr_pipe_t w;
    if (gr_pipe_faults_create_units(S->bpipe, S->fault_seed, S->fault_rate, unit, &w))
        return 1;
    S->bpipe = w;
    fprintf(stderr, "gpuref-simd: faults %llu:%g on the link to the device\n",
            (unsigned long long)S->fault_seed, S->fault_rate);
    return 0;
}

/* --connect: the device end is at the far end of a Unix socket, not a board in this process. */
static int serve_connected(const char *dev_path, const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (strlen(dev_path) >= sizeof sa.sun_path || fd < 0) {
        fprintf(stderr, "gpuref-simd: bad device socket %s\n", dev_path);
        return 2;
    }
    strcpy(sa.sun_path, dev_path);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        fprintf(stderr, "gpuref-simd: cannot connect to %s: %s\n", dev_path, strerror(errno));
        close(fd);
        return 1;
    }
    S->up_fd = fd;
    S->up_path = dev_path;
    if (gr_pipe_fd_create(fd, dev_path, NULL, NULL, NULL, &S->bpipe)) {
        close(fd);
        return 1;
    }
    int status = wrap_faults() || rtl_open() ? 1 : serve_socket(path);
    gr_proto_link_free(&S->rtl);
    S->bpipe.ops->close(S->bpipe.ctx);
    free(S);
    return status;
}

/* ---- command line ------------------------------------------------------------------------------ */

/* The default socket for the usage text (the directory is not made for it). */
static const char *default_socket(void)
{
    static char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    if (gr_simd_default_socket(false, path, sizeof path, NULL))
        snprintf(path, sizeof path, "none: %s", gr_link_error());
    return path;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpuref-simd [--socket PATH] [--board KIND] [--seed N]\n"
            "                   [--quiet] [--vram BYTES] [--baud N] [--fst FILE]\n"
            "                   [--faults SEED:RATE] [--idle-ms MS] [--verbose]\n"
            "       gpuref-simd --pty [--board uart|ulx3s] [--pty-link FILE] [--seed N] [--quiet]\n"
            "                   [--vram BYTES]\n"
            "                   [--baud N] [--fst FILE]\n"
            "       gpuref-simd --connect DEVSOCK [--socket PATH] [--faults SEED:RATE] [--idle-ms MS]\n"
            "                   [--verbose]\n"
            "       gpuref-simd --help | --version\n"
            "Runs a simulated gpuref board (fpga_core with its link chip's model and VRAM) and\n"
            "serves it until SIGTERM or SIGINT:\n"
            "  --socket PATH   clients connect with simd://PATH; several at once share the device\n"
            "                  (default, and simd:// with no PATH: $GR_SIMD_SOCKET, else\n"
            "                  $XDG_RUNTIME_DIR/gpuref-simd.sock, else ${TMPDIR:-/tmp}/gpuref-$UID/\n"
            "                  gpuref-simd.sock in a directory made mode 0700; here: %s)\n"
            "  --board KIND    the board top and link chip (default stream: no chip):\n"
            "                  stream, uart, ft601, ft2232h: fpga_core with that link's PHY and\n"
            "                  chip model; limesdr: the LimeSDR Mini v2's top as its bitstream is\n"
            "                  built (PLL, FT601 PHY, 128 KiB block RAM VRAM) with the FT601\n"
            "                  model; ulx3s: the ULX3S's top (PLL, UART PHY, 32 MiB SDRAM\n"
            "                  controller) with the UART line and SDRAM models\n"
            "  --pty           one client on a pseudo-terminal (uart://SLAVE), its bytes straight\n"
            "                  onto the UART board's (or ulx3s's) line; prints the slave's path\n"
            "  --pty-link FILE also write the slave's path to FILE (for scripts)\n"
            "  --seed N        VRAM latency and host-side stalls (default $GR_SIM_SEED, else 1)\n"
            "  --quiet         no randomness: VRAM answers at once and the board's host side\n"
            "                  takes every byte the chip offers (the link at its best)\n"
            "  --vram BYTES    VRAM size, gpu_core's strap: 128K..512M in whole 64K (default 512M;\n"
            "                  K, M, G suffixes); limesdr and ulx3s have their own (128K, 32M)\n"
            "  --baud N        the UART (or ulx3s) board's line rate (default 3000000, the rate its PHY\n"
            "                  and line model were built for; the board takes no other)\n"
            "  --fst FILE      record an FST waveform of the whole board\n"
            "  --faults SEED:RATE  drop, corrupt, repeat and reorder bytes on the server's link\n"
            "                  to the device, both ways (the RTL's link layer must recover)\n"
            "  --connect DEVSOCK  no board: share the device end reached on a Unix socket\n"
            "                  (another gpuref-simd, a device model) among the clients\n"
            "  --idle-ms MS    drop a client that sends no good frame for MS ms (default 30000;\n"
            "                  one that sends no HELLO is dropped after 10000 ms, or MS if less)\n"
            "Built-in board kinds:",
            default_socket());
    static const gr_board_kind_t kinds[] = {GR_BOARD_STREAM, GR_BOARD_UART,    GR_BOARD_FT601,
                                            GR_BOARD_FT2232H, GR_BOARD_LIMESDR, GR_BOARD_ULX3S};
    int any = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (gr_board_kind_built(kinds[i]))
            any = fprintf(f, " %s", gr_board_kind_name(kinds[i]));
    fprintf(f, "%s\n", any ? "" : " none (no board top in bridge/rtl when this was built)");
}

static int parse_u64(const char *opt, const char *s, uint64_t *out, bool suffix)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    uint64_t scale = 1;
    if (suffix && end && *end) {
        scale = *end == 'K' ? 1ull << 10 : *end == 'M' ? 1ull << 20 : *end == 'G' ? 1ull << 30 : 0;
        end += scale ? 1 : 0;
    }
    if (errno || !*s || s[0] == '-' || !end || *end || !scale || v > UINT64_MAX / scale) {
        fprintf(stderr, "gpuref-simd: bad value '%s' for %s\n", s, opt);
        return -1;
    }
    *out = (uint64_t)v * scale;
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"socket", required_argument, 0, 's'}, {"board", required_argument, 0, 'b'},
        {"seed", required_argument, 0, 'S'},   {"vram", required_argument, 0, 'V'},
        {"baud", required_argument, 0, 'B'},   {"fst", required_argument, 0, 'f'},
        {"pty", no_argument, 0, 'p'},          {"pty-link", required_argument, 0, 'l'},
        {"verbose", no_argument, 0, 'v'},      {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'r'},      {"connect", required_argument, 0, 'c'},
        {"faults", required_argument, 0, 'F'}, {"quiet", no_argument, 0, 'q'},
        {"idle-ms", required_argument, 0, 'i'},
        {0, 0, 0, 0},
    };
    const char *path = NULL;
    static char default_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    const char *board_name = NULL, *link_file = NULL, *connect_path = NULL;
    bool pty = false, verbose = false, faults = false;
    uint64_t fault_seed = 0;
    double fault_rate = 0;
    gr_board_config_t cfg = {.kind = GR_BOARD_STREAM};
    uint64_t v = 0, idle_ms = IDLE_MS_DEFAULT;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's': path = optarg; break;
        case 'b': board_name = optarg; break;
        case 'S': if (parse_u64("--seed", optarg, &cfg.seed, false)) return 2; break;
        case 'V':
            /* gpu_core's VRAM size strap, as sim://?vram= takes it (gr_board_config_t). */
            if (parse_u64("--vram", optarg, &cfg.vram_bytes, true)) return 2;
            if (cfg.vram_bytes % (64u << 10) || cfg.vram_bytes < (128u << 10) || cfg.vram_bytes > (512ull << 20)) {
                fprintf(stderr, "gpuref-simd: bad value '%s' for --vram (accepted: 128K..512M in whole 64K; "
                                "bytes, or a K, M or G suffix)\n", optarg);
                return 2;
            }
            break;
        case 'B':
            if (parse_u64("--baud", optarg, &v, false) || v == 0 || v > 25000000u) {
                fprintf(stderr, "gpuref-simd: --baud takes 1..25000000\n");
                return 2;
            }
            cfg.baud = (uint32_t)v;
            break;
        case 'f': cfg.fst_path = optarg; break;
        case 'q': cfg.no_random = true; break;
        case 'i':
            if (parse_u64("--idle-ms", optarg, &idle_ms, false) || idle_ms < 100 || idle_ms > 86400000u) {
                fprintf(stderr, "gpuref-simd: --idle-ms takes 100..86400000\n");
                return 2;
            }
            break;
        case 'p': pty = true; break;
        case 'l': link_file = optarg; break;
        case 'v': verbose = true; break;
        case 'c': connect_path = optarg; break;
        case 'F':
            if (gr_pipe_faults_parse(optarg, &fault_seed, &fault_rate)) {
                fprintf(stderr, "gpuref-simd: bad --faults '%s' (SEED:RATE, RATE 0..0.5 or "
                                "0%%..50%%)\n", optarg);
                return 2;
            }
            faults = true;
            break;
        case 'h': usage(stdout); return 0;
        case 'r':
            printf("gpuref-simd %s (link protocol %u.%u)\n", SIMD_VERSION, GR_PROTO_VER_MAJOR,
                   GR_PROTO_VER_MINOR);
            return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gpuref-simd: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    if (board_name && gr_board_kind_parse(board_name, &cfg.kind)) {
        fprintf(stderr, "gpuref-simd: unknown board '%s' (stream, uart, ft601, ft2232h, limesdr, ulx3s)\n",
                board_name);
        return 2;
    }
    /* The exact board tops carry their own VRAM: --vram may only name its size. */
    uint64_t top_vram = cfg.kind == GR_BOARD_LIMESDR ? 128u << 10 : cfg.kind == GR_BOARD_ULX3S ? 32u << 20 : 0;
    if (top_vram && cfg.vram_bytes && cfg.vram_bytes != top_vram) {
        fprintf(stderr, "gpuref-simd: the %s board has %lluK of VRAM in its top; --vram cannot change it\n",
                gr_board_kind_name(cfg.kind), (unsigned long long)(top_vram >> 10));
        return 2;
    }
    if (pty && board_name && gr_board_link_kind(cfg.kind) != GR_BOARD_UART) {
        fprintf(stderr, "gpuref-simd: --pty serves the uart and ulx3s boards only\n");
        return 2;
    }
    if (pty && !board_name)
        cfg.kind = GR_BOARD_UART;
    if (faults && pty) {
        fprintf(stderr, "gpuref-simd: --pty passes bytes straight through; inject faults in the "
                        "client (uart://...?faults=SEED:RATE)\n");
        return 2;
    }
    if (link_file && !pty) {
        fprintf(stderr, "gpuref-simd: --pty-link goes with --pty\n");
        return 2;
    }
    if (!path && !pty) {
        if (gr_simd_default_socket(true, default_path, sizeof default_path, NULL)) {
            fprintf(stderr, "gpuref-simd: %s\n", gr_link_error());
            return 1;
        }
        path = default_path;
    }
    if (path && !*path) {
        fprintf(stderr, "gpuref-simd: --socket takes a path\n");
        return 2;
    }
    if (connect_path && (pty || board_name || cfg.fst_path || cfg.no_random)) {
        fprintf(stderr, "gpuref-simd: --connect serves a device that runs elsewhere: no --pty, "
                        "--board, --fst or --quiet with it\n");
        return 2;
    }
    if (!connect_path && !gr_board_kind_built(cfg.kind)) {
        fprintf(stderr, "gpuref-simd: the %s board is not built into this binary (sim/board "
                        "left it out when it was built)\n",
                gr_board_kind_name(cfg.kind));
        return 1;
    }
    if (!connect_path) {
        /* The board answers a bad setting with a status only: name the variable or file here. */
        const char *env = getenv("GR_SIM_SEED");
        const bool hex = env && env[0] == '0' && (env[1] == 'x' || env[1] == 'X');
        const char *digits = env ? env + (hex ? 2 : 0) : NULL;
        char *end = NULL;
        errno = 0;
        if (!cfg.seed && env && *env &&
            (!isxdigit((unsigned char)digits[0]) || (hex && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) ||
             (strtoull(digits, &end, hex ? 16 : 10), errno || *end))) {
            fprintf(stderr, "gpuref-simd: GR_SIM_SEED='%s' is not a seed (accepted: 0..%llu, decimal or 0x "
                            "hex; 0: 1), and no --seed overrides it\n", env, (unsigned long long)UINT64_MAX);
            return 2;
        }
        const char *fst = cfg.fst_path ? cfg.fst_path : getenv("GR_BOARD_FST");
        FILE *f = fst && *fst ? fopen(fst, "wb") : NULL;
        if (fst && *fst && !f) {
            fprintf(stderr, "gpuref-simd: cannot open FST file '%s'%s: %s\n", fst,
                    cfg.fst_path ? "" : " from GR_BOARD_FST", strerror(errno));
            return 1;
        }
        if (f)
            fclose(f);
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    S = calloc(1, sizeof *S);
    if (!S)
        return 1;
    S->verbose = verbose;
    S->idle_ms = (uint32_t)idle_ms;
    S->kind = cfg.kind;
    S->quiet = cfg.no_random;
    S->up_fd = -1;
    S->faults = faults;
    S->fault_seed = fault_seed;
    S->fault_rate = fault_rate;
    if (connect_path)
        return serve_connected(connect_path, path);
    int rc = gr_board_create(&cfg, &S->board);
    if (rc) {
        fprintf(stderr, "gpuref-simd: cannot build the %s board: %s\n", gr_board_kind_name(cfg.kind),
                gr_strerror(rc));
        free(S);
        return 1;
    }
    int status;
    if (pty) {
        status = serve_pty(link_file);
    } else {
        S->bpipe.ops = &board_pipe_ops;
        S->bpipe.ctx = S->board;
        status = wrap_faults() || rtl_open() ? 1 : serve_socket(path);
        gr_proto_link_free(&S->rtl);
        S->bpipe.ops->close(S->bpipe.ctx);
    }
    gr_board_destroy(S->board);
    free(S);
    return status;
}
