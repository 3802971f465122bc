/* SPDX-License-Identifier: Apache-2.0 */
/* gr_proto_dev.c: the device end of the link protocol in C (see gr_proto_dev.h). */
#include "gr_proto_dev.h"

#include <string.h>

static void dev_deliver(void *ctx, const gr_proto_hdr_t *h, const uint32_t *w)
{
    gr_proto_dev_t *d = ctx;
    if (h->type == GR_PT_HELLO) {
        if (h->len < 2) {
            d->bad_frames++;
            return;
        }
        /* Another major version, or a MaxPayload too small for a DMA burst: answered with this
         * end's own HELLO_RSP (the host then knows why), and the link stays down. */
        uint32_t host_max = w[1] & 0xffffu;
        const bool fits = (w[0] >> 16) == GR_PROTO_VER_MAJOR && host_max >= GR_PROTO_MIN_PAYLOAD;
        if (!fits)
            host_max = GR_PROTO_MIN_PAYLOAD;
        uint32_t lim = host_max < d->cfg.max_payload ? host_max : d->cfg.max_payload;
        d->link.peer_max_len = (uint16_t)(lim > GR_PROTO_MAX_PAYLOAD ? GR_PROTO_MAX_PAYLOAD : lim);
        const gr_proto_dev_cfg_t *c = &d->cfg;
        uint32_t rsp[11] = {
            GR_PROTO_VER_MAJOR << 16 | GR_PROTO_VER_MINOR,
            (uint32_t)c->rx_window << 16 | c->max_payload,
            (uint32_t)c->bar1_log2 << 24 | (uint32_t)c->bar0_log2 << 16 | (uint32_t)c->link << 8 |
                c->dma_tags,
            c->core_hz,
            c->replay_timeout,
            c->dma_timeout,
            (uint32_t)c->dma_base,
            (uint32_t)(c->dma_base >> 32),
            (uint32_t)c->dma_size,
            (uint32_t)(c->dma_size >> 32),
            c->dev_caps,
        };
        gr_proto_link_send(&d->link, GR_PT_HELLO_RSP, rsp, c->dev_caps ? 11 : 10);
        d->hellos++;
        if (!fits) {
            d->bad_frames++;
            d->up = false;
            return;
        }
        d->up = true;
        if (d->ops->hello)
            d->ops->hello(d->ctx, d);
        return;
    }
    d->ops->frame(d->ctx, d, h->type, w, h->len);
}

static void dev_control(void *ctx, const gr_proto_hdr_t *h, const uint32_t *w)
{
    gr_proto_dev_t *d = ctx;
    (void)w;
    if (h->type == GR_PT_RESET) {
        d->up = false;
        d->resets++;
        d->link.peer_max_len = GR_PROTO_MAX_PAYLOAD;
        if (d->ops->reset)
            d->ops->reset(d->ctx, d);
    }
}

static bool dev_room(void *ctx, const gr_proto_hdr_t *h)
{
    gr_proto_dev_t *d = ctx;
    return h->type == GR_PT_HELLO || !d->ops->room || d->ops->room(d->ctx, d, h->type, h->len);
}

static const gr_proto_link_cb_t dev_cb = {dev_deliver, dev_control, dev_room};

int gr_proto_dev_init(gr_proto_dev_t *d, gr_pipe_t *pipe, const gr_proto_dev_cfg_t *cfg,
                      const gr_proto_dev_ops_t *ops, void *ctx)
{
    memset(d, 0, sizeof *d);
    d->cfg = *cfg;
    d->ops = ops;
    d->ctx = ctx;
    return gr_proto_link_init(&d->link, pipe, false, cfg->replay_ms, 0, &dev_cb, d);
}

void gr_proto_dev_free(gr_proto_dev_t *d)
{
    gr_proto_link_free(&d->link);
}

void gr_proto_dev_input(gr_proto_dev_t *d, const uint8_t *bytes, size_t n, uint64_t now_ms)
{
    size_t at = 0;
    while (at < n) {
        size_t room = 0;
        uint8_t *dst = gr_proto_link_rx_space(&d->link, &room);
        size_t k = n - at < room ? n - at : room;
        memcpy(dst, bytes + at, k);
        gr_proto_link_input(&d->link, k, now_ms);
        at += k;
    }
}

void gr_proto_dev_tick(gr_proto_dev_t *d, uint64_t now_ms)
{
    gr_proto_link_tick(&d->link, now_ms);
}

int gr_proto_dev_send(gr_proto_dev_t *d, uint8_t type, const uint32_t *payload, uint16_t len)
{
    return gr_proto_link_send(&d->link, type, payload, len);
}
