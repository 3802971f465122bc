/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_proto_frame.h: the framing layer of the link protocol (bridge/PROTOCOL.md, "Frame"):
 * constants, the encoder and the receiver that hunts for SYNC and checks both CRCs.
 * Private to bridge/host (the engine, the sim server and the tests).
 */
#ifndef GPUREF_GR_PROTO_FRAME_H
#define GPUREF_GR_PROTO_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GR_PROTO_SYNC 0x5AA55247u
#define GR_PROTO_VER_MAJOR 1u
#define GR_PROTO_VER_MINOR 0u
#define GR_PROTO_FLAG_REL 0x01u
/** Largest LEN any end accepts before HELLO has been answered, and the host's MaxPayload: a whole
 *  4 KiB page of BAR1 data in one AP_WR (3 + 1024 words) or AP_RD_RSP (1 + 1024). */
#define GR_PROTO_MAX_PAYLOAD 1027u
#define GR_PROTO_HDR_BYTES 16u
/** Bytes of a frame with len payload words. */
#define GR_PROTO_FRAME_BYTES(len) (GR_PROTO_HDR_BYTES + ((len) ? 4u * (len) + 4u : 0u))
/** Words of a frame with len payload words (what credits count). */
#define GR_PROTO_FRAME_WORDS(len) (4u + ((len) ? (len) + 1u : 0u))

enum gr_proto_type {
    GR_PT_ACK = 0x01,
    GR_PT_NAK = 0x02,
    GR_PT_KEEPALIVE = 0x03,
    GR_PT_RESET = 0x04,
    GR_PT_RESET_ACK = 0x05,
    GR_PT_HELLO = 0x10,
    GR_PT_HELLO_RSP = 0x90,
    GR_PT_RD32 = 0x11,
    GR_PT_RD32_RSP = 0x91,
    GR_PT_WR32 = 0x12,
    GR_PT_WR32_RSP = 0x92,
    GR_PT_AP_RD = 0x13,
    GR_PT_AP_RD_RSP = 0x93,
    GR_PT_AP_WR = 0x14,
    GR_PT_AP_WR_RSP = 0x94,
    GR_PT_DMA_RD = 0x20,
    GR_PT_DMA_RD_RSP = 0xA0,
    GR_PT_DMA_WR = 0x21,
    GR_PT_DMA_WR_RSP = 0xA1,
    GR_PT_IRQ = 0x22,
    GR_PT_BIND = 0x15,
    GR_PT_BIND_RSP = 0x95,
};

/** AXI responses as the protocol carries them. */
enum { GR_RESP_OKAY = 0, GR_RESP_REFUSED = 1, GR_RESP_SLVERR = 2, GR_RESP_DECERR = 3 };

/** HELLO_RSP's DevCaps (word 10, when LEN is 11), and BIND's operations (PROTOCOL.md, "Binding"). */
enum { GR_PROTO_DEVCAP_BIND = 1u << 0 };
enum { GR_PROTO_BIND_RELEASE = 0, GR_PROTO_BIND_TAKE = 1, GR_PROTO_BIND_FORCE = 2 };
/** BIND and BIND_RSP: LEN 10 (word 0, the process id, 8 words of host name). */
#define GR_PROTO_BIND_WORDS 10u

/** HELLO_RSP's Link field. */
enum { GR_PROTO_LINK_STREAM = 1, GR_PROTO_LINK_UART = 2, GR_PROTO_LINK_FT601 = 3,
       GR_PROTO_LINK_FT2232H = 4 };

/** One frame's header fields, as received or to send. */
typedef struct gr_proto_hdr {
    uint8_t type;
    uint8_t flags;
    uint16_t len; /**< payload words */
    uint16_t seq;
    uint16_t ack;
} gr_proto_hdr_t;

/**
 * Writes a whole frame into out (GR_PROTO_FRAME_BYTES(h->len) bytes; the caller sizes it).
 * @return the number of bytes written
 */
size_t gr_proto_frame_encode(uint8_t *out, const gr_proto_hdr_t *h, const uint32_t *payload);

/** What the receiver found. */
typedef enum gr_proto_rx_event {
    GR_RX_NONE,     /**< needs more bytes */
    GR_RX_FRAME,    /**< a good frame: header and payload */
    GR_RX_BAD_PCRC, /**< a good header whose payload CRC failed (header valid, payload not) */
} gr_proto_rx_event_t;

/** The receiver: a buffer of unparsed bytes; frames are found in it by gr_proto_rx_next. */
typedef struct gr_proto_rx {
    uint8_t *buf;
    size_t cap, len;
    uint16_t max_len;      /**< a header with a larger LEN is a bad header */
    uint32_t payload[GR_PROTO_MAX_PAYLOAD];
    uint64_t bad_headers;  /**< SYNC found, header CRC or LEN wrong */
    uint64_t bad_payloads; /**< header good, payload CRC wrong */
    uint64_t skipped;      /**< bytes dropped while hunting for SYNC */
} gr_proto_rx_t;

/** @return 0, or -1 when out of memory */
int gr_proto_rx_init(gr_proto_rx_t *rx, uint16_t max_len);
void gr_proto_rx_free(gr_proto_rx_t *rx);
/** Drops every buffered byte (a link reset, a reconnected pipe). */
void gr_proto_rx_clear(gr_proto_rx_t *rx);

/**
 * Free space to read into (at least min(want, a frame's worth)); commit what was read with
 * gr_proto_rx_commit.
 */
uint8_t *gr_proto_rx_space(gr_proto_rx_t *rx, size_t *out_room);
void gr_proto_rx_commit(gr_proto_rx_t *rx, size_t n);

/**
 * Finds the next frame in the buffered bytes. GR_RX_FRAME fills *hdr and rx->payload (valid
 * until the next call); GR_RX_BAD_PCRC fills *hdr only; GR_RX_NONE: nothing more until more
 * bytes come.
 */
gr_proto_rx_event_t gr_proto_rx_next(gr_proto_rx_t *rx, gr_proto_hdr_t *hdr);

#ifdef __cplusplus
}
#endif

#endif
