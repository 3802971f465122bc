/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_proto_link.h: the link layer of the protocol (bridge/PROTOCOL.md, "The link layer"), for
 * either end: sequence numbers, cumulative ACK, NAK and go-back-N replay, credits, keep-alive.
 *
 * Not thread-safe and never blocks on the peer: its owner (the host engine gr_proto.c, the
 * device end gr_proto_dev.c) holds a lock around every call, reads the pipe itself and feeds
 * the bytes in, and calls gr_proto_link_tick for the timers. Private to bridge/host.
 */
#ifndef GPUREF_GR_PROTO_LINK_H
#define GPUREF_GR_PROTO_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "gr_pipe.h"
#include "gr_proto_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Link-layer counters (both ends). */
typedef struct gr_proto_link_counts {
    uint64_t tx_frames, rx_frames;   /**< frames sent and good frames received (all types) */
    uint64_t tx_bytes, rx_bytes;     /**< bytes written to and read from the pipe */
    uint64_t retransmissions;        /**< reliable frames sent again (NAK or replay timeout) */
    uint64_t replay_timeouts;        /**< times the replay timer fired */
    uint64_t crc_errors;             /**< bad header CRCs and bad payload CRCs */
    uint64_t naks_sent, naks_received;
    uint64_t duplicates;             /**< reliable frames received again and dropped */
    uint64_t out_of_order;           /**< reliable frames past a gap, dropped */
    uint64_t keepalives;
    uint64_t refused;                /**< in-order frames not accepted for want of room (cb room) */
} gr_proto_link_counts_t;

/** What the owner is told. */
typedef struct gr_proto_link_cb {
    /** A reliable frame, in order and exactly once (it is consumed when this returns). */
    void (*deliver)(void *ctx, const gr_proto_hdr_t *h, const uint32_t *payload);
    /** RESET or RESET_ACK from the peer (the link answered a RESET already and restarted). */
    void (*control)(void *ctx, const gr_proto_hdr_t *h, const uint32_t *payload);
    /** Optional (NULL: always). Whether the owner can take this in-order reliable frame now.
     *  false: it is not accepted (not delivered, not acknowledged) and is NAKed like a frame
     *  after a gap, so the peer sends it again (PROTOCOL.md, "Credits"). */
    bool (*room)(void *ctx, const gr_proto_hdr_t *h);
} gr_proto_link_cb_t;

typedef struct gr_proto_txq {
    uint8_t type;
    bool resent;      /**< sent again: its ACK says nothing about the round trip (Karn) */
    uint16_t len;
    uint32_t *payload;
    uint64_t sent_ms; /**< first sent */
} gr_proto_txq_t;

#define GR_PROTO_TXQ_MAX 4096u

typedef struct gr_proto_link {
    gr_pipe_t *pipe;
    bool host;           /**< host end: keeps credits and sends keep-alives */
    bool pipe_dead;      /**< a write failed: nothing more goes out */
    bool desync;         /**< the peer acknowledged frames never sent: the owner resets */
    const gr_proto_link_cb_t *cb;
    void *cb_ctx;
    /* transmit: q[0..count) hold SEQ acked .. acked+count-1; the first nsent went out */
    uint16_t acked;
    gr_proto_txq_t q[GR_PROTO_TXQ_MAX];
    unsigned qhead, count, nsent;
    uint32_t window_words;   /**< peer's RxWindow (host end); UINT32_MAX: no limit */
    uint32_t inflight_words; /**< words of the sent, unacknowledged frames */
    uint16_t peer_max_len;   /**< the peer's MaxPayload: no frame sent is longer */
    /* receive */
    uint16_t expected_rx_seq;
    uint16_t ack_sent;       /**< the ACK value the last frame sent carried */
    bool nak_sent;
    uint16_t nak_for;
    uint64_t nak_ms;
    gr_proto_rx_t rx;
    /* timers (milliseconds of CLOCK_MONOTONIC) */
    uint32_t replay_ms, keepalive_ms;
    uint32_t srtt_ms; /**< smoothed ACK round trip; the replay timer is at least 3x it */
    uint64_t now_ms, last_tx_ms, last_rx_ms, progress_ms;
    gr_proto_link_counts_t counts;
    uint8_t txbuf[GR_PROTO_FRAME_BYTES(GR_PROTO_MAX_PAYLOAD)];
} gr_proto_link_t;

/** Milliseconds of CLOCK_MONOTONIC. */
uint64_t gr_proto_now_ms(void);

/** @return GR_OK or GR_E_NO_MEMORY */
int gr_proto_link_init(gr_proto_link_t *l, gr_pipe_t *pipe, bool host, uint32_t replay_ms,
                       uint32_t keepalive_ms, const gr_proto_link_cb_t *cb, void *cb_ctx);
void gr_proto_link_free(gr_proto_link_t *l);

/** Every sequence number to 0, replay and receive buffers dropped (a link reset). */
void gr_proto_link_restart(gr_proto_link_t *l);

/**
 * Queues a reliable frame (copied) and sends what credits allow.
 * @return GR_OK, GR_E_INVALID (longer than the peer's MaxPayload), GR_E_BUSY (replay buffer
 *         full), GR_E_NO_MEMORY, GR_E_IO (the pipe is dead)
 */
int gr_proto_link_send(gr_proto_link_t *l, uint8_t type, const uint32_t *payload, uint16_t len);

/** Sends a control frame now (ACK field filled in). GR_OK or GR_E_IO. */
int gr_proto_link_ctrl(gr_proto_link_t *l, uint8_t type, const uint32_t *payload, uint16_t len);

/** Where to read pipe bytes into; then gr_proto_link_input with the count. */
uint8_t *gr_proto_link_rx_space(gr_proto_link_t *l, size_t *out_room);

/** Acts on the bytes read: delivers frames, takes ACKs, answers with ACK or NAK. */
void gr_proto_link_input(gr_proto_link_t *l, size_t n, uint64_t now_ms);

/** The replay timeout in use: replay_ms, or more when acknowledgements take longer (a slow
 *  line, a simulated device): three smoothed round trips. */
uint32_t gr_proto_link_replay_ms(const gr_proto_link_t *l);

/** Timers: replay on timeout, a NAK repeated, keep-alive (host end). */
void gr_proto_link_tick(gr_proto_link_t *l, uint64_t now_ms);

/** Words of credit free now (host end). */
uint32_t gr_proto_link_credit(const gr_proto_link_t *l);

/** Reliable frames queued or unacknowledged. */
static inline unsigned gr_proto_link_pending(const gr_proto_link_t *l)
{
    return l->count;
}

#ifdef __cplusplus
}
#endif

#endif
