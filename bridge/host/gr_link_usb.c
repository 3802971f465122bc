/* SPDX-License-Identifier: Apache-2.0 */
/* gr_link_usb.c: usb://ft601 and usb://ft2232h: the chip's pipe under the protocol engine
 * (gr_link_usb.h has the contract). */
#include "gr_link_usb.h"

#include <stdbool.h>
#include <string.h>

#include "gr_proto.h"

static const char *const usb_keys[] = {"serial", "interface", GR_PROTO_URI_KEYS, NULL};

/* Replay timeouts: a few round trips of each link under load (USB 3 frames are 125 us apart,
 * a USB 2 read waits up to the 2 ms latency timer). */
#define FT601_REPLAY_MS 50u
#define FT2232H_REPLAY_MS 100u

static int usb_open(const gr_uri_t *uri, void **out_ctx)
{
    const bool ft601 = strcmp(uri->path, "ft601") == 0;
    const bool ft2232h = strcmp(uri->path, "ft2232h") == 0;
    if (!ft601 && !ft2232h) {
        gr_link_set_error("usb:// names a chip: usb://ft601 or usb://ft2232h (got 'usb://%s')",
                          uri->path);
        return GR_E_BAD_URI;
    }
    const char *serial = gr_uri_param(uri, "serial");
    if (serial && !*serial) {
        gr_link_set_error("usb://%s: empty serial", uri->path);
        return GR_E_BAD_URI;
    }
    const char *iface = gr_uri_param(uri, "interface");
    if (iface && ft601) {
        gr_link_set_error("usb://ft601 uses the chip's channel 1; 'interface' is for usb://ft2232h");
        return GR_E_BAD_URI;
    }
    if (iface && strcmp(iface, "A")) {
        gr_link_set_error("usb://ft2232h: interface=%s: the FT2232H has synchronous FIFO mode on channel A "
                          "only (interface=A, the default)", iface);
        return GR_E_BAD_URI;
    }
    gr_proto_opts_t o;
    gr_proto_opts_default(&o, ft601 ? FT601_REPLAY_MS : FT2232H_REPLAY_MS,
                          ft601 ? "usb://ft601" : "usb://ft2232h");
    int rc = gr_proto_opts_from_uri(uri, &o);
    if (rc)
        return rc;
    gr_pipe_t pipe;
    rc = ft601 ? gr_usb_ft601_pipe_open(serial, &pipe)
               : gr_usb_ft2232h_pipe_open(serial, &pipe);
    if (rc)
        return rc;
    gr_proto_t *p = NULL;
    rc = gr_proto_open(pipe, &o, &p);
    if (rc)
        return rc;
    *out_ctx = p;
    return GR_OK;
}

const gr_link_ops_t gr_link_usb_ops = {
    .scheme = "usb",
    .summary = "usb://ft601 or usb://ft2232h[?interface=A]: a board's FTDI FIFO link (?serial=)",
    .param_keys = usb_keys,
    .open = usb_open,
    .close = gr_proto_op_close,
    .read32 = gr_proto_op_read32,
    .write32 = gr_proto_op_write32,
    .ap_read = gr_proto_op_ap_read,
    .ap_write = gr_proto_op_ap_write,
    .dma_alloc = gr_proto_op_dma_alloc,
    .dma_free = gr_proto_op_dma_free,
    .wait_irq = gr_proto_op_wait_irq,
    .read32_batch = gr_proto_op_read32_batch,
    .ap_write_posted = gr_proto_op_ap_write_posted,
    .wait_irq_event = gr_proto_op_wait_irq_event,
    .caps = gr_proto_op_caps,
    .describe = gr_proto_op_describe,
    .dma_wait_cycles = gr_proto_op_dma_wait_cycles,
    .dead_ms = gr_proto_op_dead_ms,
    .bind = gr_proto_op_bind,
    .set_txlog = gr_proto_op_set_txlog,
};
