/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_proto_dev.h: the device end of the link protocol in C (bridge/PROTOCOL.md): what
 * bridge/rtl does on a board, for the places a device end runs in software: gpuref-simd's
 * session with each client, and the protocol tests (tb/system/test_link_proto.c).
 *
 * It terminates the link (RESET, sequence numbers, ACK/NAK, replay, keep-alive answers) and
 * answers HELLO from its configuration; every other reliable frame goes to its owner in order
 * and exactly once, and the owner answers or issues requests (DMA_RD, DMA_WR, IRQ) with
 * gr_proto_dev_send. Not thread-safe and never blocks on the host: the owner feeds the bytes it
 * read and calls gr_proto_dev_tick for the replay timer.
 */
#ifndef GPUREF_GR_PROTO_DEV_H
#define GPUREF_GR_PROTO_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include "gr_pipe.h"
#include "gr_proto_link.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What HELLO_RSP says (PROTOCOL.md, "HELLO_RSP payload"), and the replay timer. */
typedef struct gr_proto_dev_cfg {
    uint16_t max_payload;
    uint16_t rx_window;
    uint8_t dma_tags, link, bar0_log2, bar1_log2;
    uint32_t core_hz, replay_timeout, dma_timeout;
    uint64_t dma_base, dma_size;
    uint32_t replay_ms; /**< this end's replay timer */
    uint32_t dev_caps;  /**< HELLO_RSP's DevCaps (0: a HELLO_RSP of LEN 10, as the RTL's) */
} gr_proto_dev_cfg_t;

typedef struct gr_proto_dev gr_proto_dev_t;

typedef struct gr_proto_dev_ops {
    /** A reliable frame from the host other than HELLO, in order, exactly once. */
    void (*frame)(void *ctx, gr_proto_dev_t *d, uint8_t type, const uint32_t *payload,
                  uint16_t len);
    /** The host reset the link: requests outstanding toward it are gone. */
    void (*reset)(void *ctx, gr_proto_dev_t *d);
    /** HELLO answered: the link is up (the owner sends the IRQ level here). */
    void (*hello)(void *ctx, gr_proto_dev_t *d);
    /** Optional (NULL: always). Whether the owner can take this frame now; false: it is not
     *  accepted, not acknowledged, and NAKed (the host sends it again). HELLO is always taken. */
    bool (*room)(void *ctx, gr_proto_dev_t *d, uint8_t type, uint16_t len);
} gr_proto_dev_ops_t;

/** The smallest MaxPayload a HELLO may give: a DMA_WR of a whole burst, 3 + 32 words. */
#define GR_PROTO_MIN_PAYLOAD 35u

struct gr_proto_dev {
    gr_proto_link_t link;
    gr_proto_dev_cfg_t cfg;
    const gr_proto_dev_ops_t *ops;
    void *ctx;
    bool up;            /**< a HELLO that fits answered since the last reset */
    uint64_t hellos, resets, bad_frames;
};

/**
 * @param pipe  borrowed: the owner keeps it alive and closes it
 * @return GR_OK or GR_E_NO_MEMORY
 */
int gr_proto_dev_init(gr_proto_dev_t *d, gr_pipe_t *pipe, const gr_proto_dev_cfg_t *cfg,
                      const gr_proto_dev_ops_t *ops, void *ctx);
void gr_proto_dev_free(gr_proto_dev_t *d);

/** Acts on bytes read from the host. */
void gr_proto_dev_input(gr_proto_dev_t *d, const uint8_t *bytes, size_t n, uint64_t now_ms);
/** The replay timer. */
void gr_proto_dev_tick(gr_proto_dev_t *d, uint64_t now_ms);
/** A reliable frame to the host: GR_OK, GR_E_INVALID (too long), GR_E_BUSY, GR_E_IO. */
int gr_proto_dev_send(gr_proto_dev_t *d, uint8_t type, const uint32_t *payload, uint16_t len);

#ifdef __cplusplus
}
#endif

#endif
