/* SPDX-License-Identifier: Apache-2.0 */
/* gr_proto_link.c: the link layer, either end (see gr_proto_link.h and PROTOCOL.md). */
#define _POSIX_C_SOURCE 200809L
#include "gr_proto_link.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t gr_proto_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Credit before HELLO_RSP has told the window: enough for HELLO, which is all a host sends. */
#define PRE_HELLO_WINDOW 64u

int gr_proto_link_init(gr_proto_link_t *l, gr_pipe_t *pipe, bool host, uint32_t replay_ms,
                       uint32_t keepalive_ms, const gr_proto_link_cb_t *cb, void *cb_ctx)
{
    memset(l, 0, sizeof *l);
    l->pipe = pipe;
    l->host = host;
    l->cb = cb;
    l->cb_ctx = cb_ctx;
    l->replay_ms = replay_ms ? replay_ms : 1;
    l->keepalive_ms = keepalive_ms;
    l->window_words = host ? PRE_HELLO_WINDOW : UINT32_MAX;
    l->peer_max_len = GR_PROTO_MAX_PAYLOAD;
    l->now_ms = l->last_tx_ms = l->last_rx_ms = l->progress_ms = gr_proto_now_ms();
    return gr_proto_rx_init(&l->rx, GR_PROTO_MAX_PAYLOAD) ? GR_E_NO_MEMORY : GR_OK;
}

static gr_proto_txq_t *qat(gr_proto_link_t *l, unsigned i)
{
    return &l->q[(l->qhead + i) % GR_PROTO_TXQ_MAX];
}

/* Drops the first n queued frames (acknowledged, or a reset). */
static void release(gr_proto_link_t *l, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        gr_proto_txq_t *e = qat(l, 0);
        if (l->nsent) {
            l->inflight_words -= GR_PROTO_FRAME_WORDS(e->len);
            l->nsent--;
        }
        free(e->payload);
        e->payload = NULL;
        l->qhead = (l->qhead + 1) % GR_PROTO_TXQ_MAX;
        l->count--;
        l->acked++;
    }
}

/* clear_rx: also drop the bytes received and not yet parsed. A RESET from the peer keeps
 * them: what follows the RESET on the wire is after it (PROTOCOL.md, "Link reset"). */
static void restart(gr_proto_link_t *l, bool clear_rx)
{
    release(l, l->count);
    l->qhead = 0;
    l->acked = 0;
    l->inflight_words = 0;
    l->expected_rx_seq = 0;
    l->ack_sent = 0;
    l->nak_sent = false;
    l->desync = false;
    if (clear_rx)
        gr_proto_rx_clear(&l->rx);
    l->progress_ms = l->now_ms;
}

void gr_proto_link_restart(gr_proto_link_t *l)
{
    restart(l, true);
}

void gr_proto_link_free(gr_proto_link_t *l)
{
    release(l, l->count);
    gr_proto_rx_free(&l->rx);
}

static int emit(gr_proto_link_t *l, uint8_t type, uint8_t flags, uint16_t seq,
                const uint32_t *payload, uint16_t len)
{
    if (l->pipe_dead)
        return GR_E_IO;
    gr_proto_hdr_t h = {.type = type, .flags = flags, .len = len, .seq = seq,
                        .ack = l->expected_rx_seq};
    size_t n = gr_proto_frame_encode(l->txbuf, &h, payload);
    if (l->pipe->ops->write(l->pipe->ctx, l->txbuf, n)) {
        l->pipe_dead = true;
        return GR_E_IO;
    }
    l->ack_sent = h.ack;
    l->last_tx_ms = l->now_ms;
    l->counts.tx_frames++;
    l->counts.tx_bytes += n;
    return GR_OK;
}

uint32_t gr_proto_link_credit(const gr_proto_link_t *l)
{
    return l->inflight_words >= l->window_words ? 0 : l->window_words - l->inflight_words;
}

/* Sends queued frames that have not gone out yet, in order, while the peer has room. */
static int pump(gr_proto_link_t *l)
{
    while (l->nsent < l->count) {
        gr_proto_txq_t *e = qat(l, l->nsent);
        uint32_t words = GR_PROTO_FRAME_WORDS(e->len);
        if (gr_proto_link_credit(l) < words)
            return GR_OK;
        int rc = emit(l, e->type, GR_PROTO_FLAG_REL, (uint16_t)(l->acked + l->nsent), e->payload,
                      e->len);
        if (rc)
            return rc;
        if (l->nsent == 0)
            l->progress_ms = l->now_ms; /* the replay timer runs from the oldest frame's send */
        e->sent_ms = l->now_ms;
        e->resent = false;
        l->nsent++;
        l->inflight_words += words;
    }
    return GR_OK;
}

int gr_proto_link_send(gr_proto_link_t *l, uint8_t type, const uint32_t *payload, uint16_t len)
{
    if (len > l->peer_max_len || len > GR_PROTO_MAX_PAYLOAD)
        return GR_E_INVALID;
    if (l->pipe_dead)
        return GR_E_IO;
    if (l->count >= GR_PROTO_TXQ_MAX / 2) /* SEQ distance must stay far below 32768 */
        return GR_E_BUSY;
    uint32_t *copy = NULL;
    if (len) {
        copy = malloc(4u * len);
        if (!copy)
            return GR_E_NO_MEMORY;
        memcpy(copy, payload, 4u * len);
    }
    gr_proto_txq_t *e = qat(l, l->count);
    e->type = type;
    e->len = len;
    e->payload = copy;
    l->count++;
    return pump(l);
}

int gr_proto_link_ctrl(gr_proto_link_t *l, uint8_t type, const uint32_t *payload, uint16_t len)
{
    return emit(l, type, 0, 0, payload, len);
}

/* Sends every sent-but-unacknowledged frame again, from the oldest (go-back-N). */
static void replay(gr_proto_link_t *l)
{
    for (unsigned i = 0; i < l->nsent; i++) {
        gr_proto_txq_t *e = qat(l, i);
        if (emit(l, e->type, GR_PROTO_FLAG_REL, (uint16_t)(l->acked + i), e->payload, e->len))
            return;
        e->resent = true;
        l->counts.retransmissions++;
    }
    l->progress_ms = l->now_ms;
}

/* The ACK field of a good frame: releases what the peer has consumed. */
static void take_ack(gr_proto_link_t *l, uint16_t a)
{
    uint16_t ahead = (uint16_t)(a - l->acked);
    if (ahead > l->nsent) {
        /* Older than acked (a stale frame) is harmless; ahead of what was sent is not. */
        if (ahead < 0x8000u)
            l->desync = true;
        return;
    }
    if (ahead) {
        gr_proto_txq_t *newest = qat(l, ahead - 1u);
        if (!newest->resent) {
            uint64_t rtt = l->now_ms - newest->sent_ms;
            l->srtt_ms = l->srtt_ms ? (uint32_t)((7u * (uint64_t)l->srtt_ms + rtt) / 8u)
                                    : (uint32_t)rtt;
        }
        release(l, ahead);
        l->progress_ms = l->now_ms;
    }
}

static void send_nak(gr_proto_link_t *l)
{
    if (l->nak_sent && l->nak_for == l->expected_rx_seq &&
        l->now_ms - l->nak_ms < gr_proto_link_replay_ms(l))
        return;
    if (gr_proto_link_ctrl(l, GR_PT_NAK, NULL, 0) == GR_OK) {
        l->nak_sent = true;
        l->nak_for = l->expected_rx_seq;
        l->nak_ms = l->now_ms;
        l->counts.naks_sent++;
    }
}

uint8_t *gr_proto_link_rx_space(gr_proto_link_t *l, size_t *out_room)
{
    return gr_proto_rx_space(&l->rx, out_room);
}

static void on_frame(gr_proto_link_t *l, const gr_proto_hdr_t *h, const uint32_t *payload)
{
    l->counts.rx_frames++;
    l->last_rx_ms = l->now_ms;
    /* REL decides, not TYPE (PROTOCOL.md, as the RTL engine does): a control type with REL is
     * a reliable frame like any other (sequenced, consumed, acted on by nobody). */
    const bool rel = (h->flags & GR_PROTO_FLAG_REL) != 0;
    if (h->type == GR_PT_RESET && !rel) {
        /* The peer starts over: so does this end, then it answers with the same EPOCH. */
        if (h->len < 1)
            return;
        restart(l, false);
        uint32_t epoch = payload[0] & 0xffffu;
        gr_proto_link_ctrl(l, GR_PT_RESET_ACK, &epoch, 1);
        if (l->cb->control)
            l->cb->control(l->cb_ctx, h, payload);
        return;
    }
    if (h->type == GR_PT_RESET_ACK && !rel) {
        if (h->len >= 1 && l->cb->control)
            l->cb->control(l->cb_ctx, h, payload);
        return;
    }
    take_ack(l, h->ack);
    if (h->type == GR_PT_NAK && !rel) {
        l->counts.naks_received++;
        /* take_ack released everything before the NAK's value; the rest goes again. */
        if (h->ack == l->acked && l->nsent)
            replay(l);
        return;
    }
    if (h->type == GR_PT_KEEPALIVE && !rel) {
        if (!l->host)
            gr_proto_link_ctrl(l, GR_PT_ACK, NULL, 0);
        return;
    }
    if (!rel)
        return; /* ACK (taken above) or an unknown control frame */
    uint16_t d = (uint16_t)(h->seq - l->expected_rx_seq);
    if (d == 0) {
        if (l->cb->room && !l->cb->room(l->cb_ctx, h)) {
            /* No room: never accepted, so never acknowledged; the peer sends it again. */
            l->counts.refused++;
            send_nak(l);
            return;
        }
        l->cb->deliver(l->cb_ctx, h, payload);
        l->expected_rx_seq++;
        l->nak_sent = false;
    } else if (d >= 0x8000u) {
        /* Received before: the peer missed the acknowledgement. */
        l->counts.duplicates++;
        gr_proto_link_ctrl(l, GR_PT_ACK, NULL, 0);
    } else {
        l->counts.out_of_order++;
        send_nak(l);
    }
}

void gr_proto_link_input(gr_proto_link_t *l, size_t n, uint64_t now_ms)
{
    l->now_ms = now_ms;
    l->counts.rx_bytes += n;
    gr_proto_rx_commit(&l->rx, n);
    gr_proto_hdr_t h;
    gr_proto_rx_event_t ev;
    while ((ev = gr_proto_rx_next(&l->rx, &h)) != GR_RX_NONE) {
        if (ev == GR_RX_BAD_PCRC) {
            if (h.flags & GR_PROTO_FLAG_REL)
                send_nak(l);
            continue;
        }
        on_frame(l, &h, l->rx.payload);
    }
    l->counts.crc_errors = l->rx.bad_headers + l->rx.bad_payloads;
    pump(l);
    /* Acknowledge at once what was consumed, unless a frame sent since carried it. */
    if (l->ack_sent != l->expected_rx_seq)
        gr_proto_link_ctrl(l, GR_PT_ACK, NULL, 0);
}

uint32_t gr_proto_link_replay_ms(const gr_proto_link_t *l)
{
    uint64_t adaptive = 3ull * l->srtt_ms;
    return adaptive > l->replay_ms ? (uint32_t)(adaptive > 60000u ? 60000u : adaptive)
                                   : l->replay_ms;
}

void gr_proto_link_tick(gr_proto_link_t *l, uint64_t now_ms)
{
    l->now_ms = now_ms;
    if (l->nsent && now_ms - l->progress_ms >= gr_proto_link_replay_ms(l)) {
        l->counts.replay_timeouts++;
        replay(l);
    }
    pump(l);
    if (l->host && l->keepalive_ms && now_ms - l->last_tx_ms >= l->keepalive_ms) {
        if (gr_proto_link_ctrl(l, GR_PT_KEEPALIVE, NULL, 0) == GR_OK)
            l->counts.keepalives++;
    }
}
