/* SPDX-License-Identifier: Apache-2.0 */
/* gr_proto_frame.c: frames on the wire, and finding them again after garbage (PROTOCOL.md). */
#include "gr_proto_frame.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t crc(const uint8_t *p, size_t n)
{
    return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

size_t gr_proto_frame_encode(uint8_t *out, const gr_proto_hdr_t *h, const uint32_t *payload)
{
    put32(out, GR_PROTO_SYNC);
    put32(out + 4, (uint32_t)h->len << 16 | (uint32_t)h->flags << 8 | h->type);
    put32(out + 8, (uint32_t)h->ack << 16 | h->seq);
    put32(out + 12, crc(out + 4, 8));
    if (!h->len)
        return GR_PROTO_HDR_BYTES;
    uint8_t *p = out + GR_PROTO_HDR_BYTES;
    for (unsigned i = 0; i < h->len; i++)
        put32(p + 4 * i, payload[i]);
    put32(p + 4u * h->len, crc(p, 4u * h->len));
    return GR_PROTO_FRAME_BYTES(h->len);
}

int gr_proto_rx_init(gr_proto_rx_t *rx, uint16_t max_len)
{
    memset(rx, 0, sizeof *rx);
    /* Room for two largest frames: one being completed and the next one's start. */
    rx->cap = 2 * GR_PROTO_FRAME_BYTES(GR_PROTO_MAX_PAYLOAD) + 4096;
    rx->buf = malloc(rx->cap);
    rx->max_len = max_len > GR_PROTO_MAX_PAYLOAD ? GR_PROTO_MAX_PAYLOAD : max_len;
    return rx->buf ? 0 : -1;
}

void gr_proto_rx_free(gr_proto_rx_t *rx)
{
    free(rx->buf);
    rx->buf = NULL;
}

void gr_proto_rx_clear(gr_proto_rx_t *rx)
{
    rx->len = 0;
}

uint8_t *gr_proto_rx_space(gr_proto_rx_t *rx, size_t *out_room)
{
    *out_room = rx->cap - rx->len;
    return rx->buf + rx->len;
}

void gr_proto_rx_commit(gr_proto_rx_t *rx, size_t n)
{
    rx->len += n;
}

/* Drops the first n buffered bytes. */
static void consume(gr_proto_rx_t *rx, size_t n)
{
    memmove(rx->buf, rx->buf + n, rx->len - n);
    rx->len -= n;
}

gr_proto_rx_event_t gr_proto_rx_next(gr_proto_rx_t *rx, gr_proto_hdr_t *hdr)
{
    for (;;) {
        /* Hunt: SYNC at any byte offset (an 8-bit link can lose or gain a byte). */
        size_t i = 0;
        while (i + 4 <= rx->len && get32(rx->buf + i) != GR_PROTO_SYNC)
            i++;
        if (i + 4 > rx->len) {
            /* Keep a tail that may be the start of a SYNC. */
            size_t keep = rx->len < 3 ? rx->len : 3;
            rx->skipped += rx->len - keep;
            consume(rx, rx->len - keep);
            return GR_RX_NONE;
        }
        rx->skipped += i;
        consume(rx, i);
        if (rx->len < GR_PROTO_HDR_BYTES)
            return GR_RX_NONE;
        uint32_t w1 = get32(rx->buf + 4), w2 = get32(rx->buf + 8);
        gr_proto_hdr_t h = {.type = (uint8_t)w1, .flags = (uint8_t)(w1 >> 8),
                            .len = (uint16_t)(w1 >> 16), .seq = (uint16_t)w2,
                            .ack = (uint16_t)(w2 >> 16)};
        if (crc(rx->buf + 4, 8) != get32(rx->buf + 12) || h.len > rx->max_len) {
            /* Never trust a LEN the CRC did not vouch for: drop the SYNC, hunt again. */
            rx->bad_headers++;
            rx->skipped += 4;
            consume(rx, 4);
            continue;
        }
        size_t need = GR_PROTO_FRAME_BYTES(h.len);
        if (rx->len < need)
            return GR_RX_NONE;
        if (h.len) {
            const uint8_t *p = rx->buf + GR_PROTO_HDR_BYTES;
            if (crc(p, 4u * h.len) != get32(p + 4u * h.len)) {
                /* The payload is wrong but the frame may have lost bytes, so the next frame
                 * can start inside it: hunt from after this SYNC, not after the whole LEN. */
                rx->bad_payloads++;
                consume(rx, 4);
                *hdr = h;
                return GR_RX_BAD_PCRC;
            }
            for (unsigned k = 0; k < h.len; k++)
                rx->payload[k] = get32(p + 4 * k);
        }
        consume(rx, need);
        *hdr = h;
        return GR_RX_FRAME;
    }
}
