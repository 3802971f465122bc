/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_link_usb_ft601.c: an FT601 as a byte pipe, on libusb-1.0 (gr_link_usb.h has the contract).
 *
 * The chip (FT600/FT601 datasheet, and FTDI's D3XX protocol as the open libusb drivers speak
 * it; bridge/README.md names them): interface 0 carries the "session" command pipe (EP 0x01
 * OUT) and notifications (EP 0x81), interface 1 the data pipes, channel 1's being EP 0x02 OUT
 * and EP 0x82 IN in every configuration gpuref serves: 245 mode (one channel) and FT600 mode
 * with one, two (the LimeSDR Mini v2 as it ships) or four channels. The bus protocol between
 * the chip and the FPGA differs between the modes, the USB side of channel 1 does not; the
 * other channels' pipes are never touched (LimeSuite's stream pipes 0x03/0x83 included).
 * Open reads the 152-byte chip configuration and refuses, in one line naming the bytes, one it
 * cannot serve; it never writes it.
 * Writes go straight to EP 0x02. The chip sends IN data only against a read request: a
 * 20-byte command on EP 0x01 asking for N bytes on pipe 0x82; it then sends up to N bytes, and
 * a short packet ends the session early unless the configuration's optional features set
 * "disable cancel session on underrun" (bit 1; the LimeSDR's 0x0002), where the session stays
 * open for the rest. It sends no zero-length packet after a full one, so a read never asks
 * libusb for more than one packet (wMaxPacketSize of EP 0x82): every packet completes a
 * transfer, and a reply of an exact multiple of 1024 bytes does not wait for a timeout. A read
 * asks for a session of FT601_SESSION bytes when none is open and reaps EP 0x82 until the
 * chip has sent them or ended the session; a read that times out leaves its session open (the
 * chip still owes it), and the next read reaps on without asking again. Open and close abort
 * and flush channel 1's pipes (session commands 0 and 3, as LimeSuite's libusb code does for
 * its own), so a client that died with a session open or data waiting leaves nothing behind.
 */
#include "gr_link_usb.h"

#include <libusb-1.0/libusb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FT601_VID 0x0403
#define FT601_PID 0x601f
#define FT601_IF_CMD 0
#define FT601_IF_DATA 1
#define FT601_EP_CMD 0x01
#define FT601_EP_OUT 0x02
#define FT601_EP_IN 0x82
#define FT601_CMD_ABORT 0
#define FT601_CMD_READ 1
#define FT601_CMD_FLUSH 3
#define FT601_VREQ_CONFIG 0xcf
#define FT601_CONFIG_BYTES 152
#define FT601_CONFIG_FIFO_MODE 138   /* offsets in FT_60XCONFIGURATION */
#define FT601_CONFIG_CHANNELS 139
#define FT601_CONFIG_FEATURES 140    /* OptionalFeatureSupport, u16 */
#define FT601_FIFO_245 0
#define FT601_FIFO_600 1
#define FT601_CHANNELS_4 0
#define FT601_CHANNELS_2 1
#define FT601_CHANNELS_1 2
#define FT601_FEATURE_KEEP_SESSION 0x0002u /* disable cancel session on underrun */
#define FT601_FEATURE_NOTIFY_IN1 0x0004u   /* notification messages on IN channel 1 */
#define FT601_SESSION 16384u
#define FT601_CTRL_MS 1000u
#define FT601_WRITE_TRIES 10 /* of FT601_CTRL_MS each, while the FIFO is full */

typedef struct ft601 {
    libusb_context *usb;
    libusb_device_handle *h;
    uint32_t cmd_index;
    uint32_t session_left; /* bytes the chip still owes against the open read request */
    uint16_t features;     /* the configuration's OptionalFeatureSupport */
    uint32_t maxp;         /* EP 0x82's wMaxPacketSize: 1024 on USB 3, 512 on USB 2 */
    bool claimed;
    uint8_t *buf;
    size_t have, at; /* buf[at..have) received and not yet read */
    bool dead;
} ft601_t;

static int map_err(int rc)
{
    switch (rc) {
    case LIBUSB_ERROR_NO_MEM: return GR_E_NO_MEMORY;
    case LIBUSB_ERROR_BUSY: return GR_E_BUSY;
    case LIBUSB_ERROR_NO_DEVICE:
    case LIBUSB_ERROR_NOT_FOUND: return GR_E_NO_DEVICE;
    default: return GR_E_IO;
    }
}

/* A 20-byte session command: u32 index, u8 pipe, u8 command, 2 reserved, u32 length, 8
 * reserved, little endian. */
static int send_command(ft601_t *f, uint8_t pipe, uint8_t command, uint32_t len)
{
    uint8_t cmd[20];
    memset(cmd, 0, sizeof cmd);
    f->cmd_index++;
    for (int i = 0; i < 4; i++) {
        cmd[i] = (uint8_t)(f->cmd_index >> (8 * i));
        cmd[8 + i] = (uint8_t)(len >> (8 * i));
    }
    cmd[4] = pipe;
    cmd[5] = command;
    int n = 0;
    int rc = libusb_bulk_transfer(f->h, FT601_EP_CMD, cmd, sizeof cmd, &n, FT601_CTRL_MS);
    if (rc || n != (int)sizeof cmd) {
        gr_link_set_error("usb://ft601: session command %u on pipe 0x%02x failed: %s", command, pipe,
                          rc ? libusb_strerror(rc) : "short write");
        return rc == LIBUSB_ERROR_NO_DEVICE ? GR_E_NO_DEVICE : GR_E_IO;
    }
    return GR_OK;
}

static int send_read_request(ft601_t *f, uint32_t len)
{
    return send_command(f, FT601_EP_IN, FT601_CMD_READ, len);
}

/* Aborts and flushes channel 1's pipes: no session stays open and nothing the chip held for a
 * previous client is read as this one's. */
static int abort_and_flush(ft601_t *f)
{
    const uint8_t pipes[] = {FT601_EP_IN, FT601_EP_OUT};
    for (size_t i = 0; i < sizeof pipes; i++) {
        int rc = send_command(f, pipes[i], FT601_CMD_ABORT, 0);
        if (!rc)
            rc = send_command(f, pipes[i], FT601_CMD_FLUSH, 0);
        if (rc)
            return rc;
    }
    f->session_left = 0;
    return GR_OK;
}

static int ft601_write(void *ctx, const void *buf, size_t len)
{
    ft601_t *f = ctx;
    if (f->dead)
        return GR_E_IO;
    const uint8_t *p = buf;
    int tries = 0;
    while (len) {
        int n = 0;
        const int chunk = len > (1u << 20) ? (1 << 20) : (int)len;
        int rc = libusb_bulk_transfer(f->h, FT601_EP_OUT, (unsigned char *)p, chunk, &n, FT601_CTRL_MS);
        p += n;
        len -= (size_t)n;
        if (rc == LIBUSB_ERROR_TIMEOUT && n == 0 && ++tries < FT601_WRITE_TRIES)
            continue;
        if (rc && rc != LIBUSB_ERROR_TIMEOUT) {
            gr_link_set_error("usb://ft601: write failed: %s", libusb_strerror(rc));
            f->dead = true;
            return GR_E_IO;
        }
        if (rc == LIBUSB_ERROR_TIMEOUT && n == 0) {
            gr_link_set_error("usb://ft601: the chip took no data for %d ms", FT601_WRITE_TRIES * FT601_CTRL_MS);
            f->dead = true;
            return GR_E_IO;
        }
        if (n)
            tries = 0;
    }
    return GR_OK;
}

static int ft601_read(void *ctx, void *buf, size_t max, uint32_t timeout_ms, size_t *out_len)
{
    ft601_t *f = ctx;
    if (f->dead)
        return GR_E_IO;
    if (f->at == f->have) {
        if (f->session_left == 0) {
            int rc = send_read_request(f, FT601_SESSION);
            if (rc) {
                f->dead = true;
                return rc;
            }
            f->session_left = FT601_SESSION;
        }
        int n = 0;
        /* One packet at most: the chip sends no zero-length packet after a full one. libusb's 0
         * is "no timeout"; a poll waits 1 ms. */
        const uint32_t ask = f->session_left < f->maxp ? f->session_left : f->maxp;
        int rc = libusb_bulk_transfer(f->h, FT601_EP_IN, f->buf, (int)ask, &n, timeout_ms ? timeout_ms : 1);
        if (rc && rc != LIBUSB_ERROR_TIMEOUT) {
            gr_link_set_error("usb://ft601: read failed: %s", libusb_strerror(rc));
            f->dead = true;
            return GR_E_IO;
        }
        f->at = 0;
        f->have = (size_t)n;
        /* The session goes on after a full packet, after a timeout (with what it did not bring)
         * and, when the configuration keeps sessions on underrun, after a short packet. A
         * transfer of less than a packet ended in a short packet even when libusb reports a
         * timeout (the packet came as the timeout cancelled the transfer): the chip ended the
         * session then too, and a session believed open that the chip closed would never
         * be asked for again. */
        const bool short_pkt = (rc == 0 && (uint32_t)n < ask) || (n > 0 && (uint32_t)n < f->maxp);
        if ((uint32_t)n >= f->session_left || (short_pkt && !(f->features & FT601_FEATURE_KEEP_SESSION)))
            f->session_left = 0;
        else
            f->session_left -= (uint32_t)n;
    }
    size_t n = f->have - f->at;
    if (n > max)
        n = max;
    memcpy(buf, f->buf + f->at, n);
    f->at += n;
    *out_len = n;
    return GR_OK;
}

static void ft601_close(void *ctx)
{
    ft601_t *f = ctx;
    if (f->h && f->claimed && !f->dead)
        (void)abort_and_flush(f); /* best effort: the next client's open does it again */
    if (f->h) {
        libusb_release_interface(f->h, FT601_IF_DATA);
        libusb_release_interface(f->h, FT601_IF_CMD);
        libusb_close(f->h);
    }
    if (f->usb)
        libusb_exit(f->usb);
    free(f->buf);
    free(f);
}

static const gr_pipe_ops_t ft601_pipe_ops = {
    .write = ft601_write,
    .read = ft601_read,
    .reopen = NULL,
    .close = ft601_close,
};

/* The first FT601 whose serial matches (any, for NULL); counts what it looked at. */
static int find(ft601_t *f, const char *serial, unsigned *out_seen, unsigned *out_ftdi)
{
    libusb_device **list = NULL;
    ssize_t count = libusb_get_device_list(f->usb, &list);
    if (count < 0)
        return map_err((int)count);
    int rc = GR_E_NO_DEVICE;
    *out_seen = (unsigned)count;
    *out_ftdi = 0;
    for (ssize_t i = 0; i < count; i++) {
        struct libusb_device_descriptor dd;
        if (libusb_get_device_descriptor(list[i], &dd) || dd.idVendor != FT601_VID || dd.idProduct != FT601_PID)
            continue;
        (*out_ftdi)++;
        libusb_device_handle *h = NULL;
        int orc = libusb_open(list[i], &h);
        if (orc) {
            rc = map_err(orc);
            continue;
        }
        if (serial) {
            unsigned char s[128] = "";
            if (!dd.iSerialNumber ||
                libusb_get_string_descriptor_ascii(h, dd.iSerialNumber, s, sizeof s) < 0 ||
                strcmp((const char *)s, serial) != 0) {
                libusb_close(h);
                continue;
            }
        }
        f->h = h;
        rc = GR_OK;
        break;
    }
    libusb_free_device_list(list, 1);
    return rc;
}

/* The configurations gpuref serves: channel 1 both ways (EP 0x02 and 0x82) in 245 mode or FT600
 * mode, no notification messages on IN channel 1 (it is read with read requests). Anything
 * else: GR_E_UNSUPPORTED, one line naming the bytes and what to set. */
static int check_config(const uint8_t *cfg)
{
    const unsigned mode = cfg[FT601_CONFIG_FIFO_MODE], ch = cfg[FT601_CONFIG_CHANNELS];
    const unsigned feat = cfg[FT601_CONFIG_FEATURES] | (unsigned)cfg[FT601_CONFIG_FEATURES + 1] << 8;
    const char *tool = "FTDI's FT60X chip configuration programmer";
    if (mode != FT601_FIFO_245 && mode != FT601_FIFO_600) {
        gr_link_set_error("usb://ft601: the chip's FIFOMode (configuration byte 138) is %u, neither 245 (0) nor "
                          "FT600 (1): set one with %s and build the bitstream for it", mode, tool);
        return GR_E_UNSUPPORTED;
    }
    if (mode == FT601_FIFO_245 && ch != FT601_CHANNELS_1) {
        gr_link_set_error("usb://ft601: the chip's configuration has FIFOMode 245 (byte 138 = 0) with ChannelConfig "
                          "(byte 139) %u; 245 mode has one channel: set ChannelConfig 2 with %s", ch, tool);
        return GR_E_UNSUPPORTED;
    }
    if (ch != FT601_CHANNELS_1 && ch != FT601_CHANNELS_2 && ch != FT601_CHANNELS_4) {
        gr_link_set_error("usb://ft601: the chip's ChannelConfig (configuration byte 139) is %u (%s); gpuref needs "
                          "channel 1 both ways (EP 0x02 and 0x82): set ChannelConfig 2 (one channel), 1 (two, as the "
                          "LimeSDR Mini v2 ships) or 0 (four) with %s", ch,
                          ch == 3 ? "one OUT pipe only" : ch == 4 ? "one IN pipe only" : "not a value the chip has",
                          tool);
        return GR_E_UNSUPPORTED;
    }
    if (feat & FT601_FEATURE_NOTIFY_IN1) {
        gr_link_set_error("usb://ft601: the chip's OptionalFeatureSupport (configuration bytes 140-141) is 0x%04x, "
                          "with notification messages on IN channel 1 (bit 2); gpuref reads channel 1 with read "
                          "requests: clear bit 2 with %s", feat, tool);
        return GR_E_UNSUPPORTED;
    }
    return GR_OK;
}

/* Channel 1's pipes on interface 1 as the descriptors show them, and EP 0x82's packet size. */
static int find_pipes(ft601_t *f)
{
    struct libusb_config_descriptor *cd = NULL;
    int rc = libusb_get_active_config_descriptor(libusb_get_device(f->h), &cd);
    if (rc) {
        gr_link_set_error("usb://ft601: cannot read the configuration descriptor: %s", libusb_strerror(rc));
        return map_err(rc);
    }
    bool out = false, in = false;
    for (int i = 0; i < cd->bNumInterfaces; i++) {
        const struct libusb_interface_descriptor *id = cd->interface[i].altsetting;
        if (cd->interface[i].num_altsetting < 1 || id->bInterfaceNumber != FT601_IF_DATA)
            continue;
        for (int e = 0; e < id->bNumEndpoints; e++) {
            out |= id->endpoint[e].bEndpointAddress == FT601_EP_OUT;
            in |= id->endpoint[e].bEndpointAddress == FT601_EP_IN;
        }
    }
    libusb_free_config_descriptor(cd);
    const int maxp = libusb_get_max_packet_size(libusb_get_device(f->h), FT601_EP_IN);
    if (!out || !in || maxp <= 0) {
        gr_link_set_error("usb://ft601: interface 1 has no EP 0x02 and 0x82 (channel 1) although the chip's "
                          "configuration promises them");
        return GR_E_IO;
    }
    f->maxp = (uint32_t)maxp;
    return GR_OK;
}

int gr_usb_ft601_pipe_open(const char *serial, gr_pipe_t *out_pipe)
{
    if (!out_pipe)
        return GR_E_INVALID;
    ft601_t *f = calloc(1, sizeof *f);
    if (!f || !(f->buf = malloc(FT601_SESSION))) {
        free(f);
        return GR_E_NO_MEMORY;
    }
    int rc = libusb_init(&f->usb);
    if (rc) {
        gr_link_set_error("usb://ft601: libusb_init: %s", libusb_strerror(rc));
        f->usb = NULL;
        ft601_close(f);
        return GR_E_IO;
    }
    unsigned seen = 0, ftdi = 0;
    rc = find(f, serial, &seen, &ftdi);
    if (rc) {
        if (rc == GR_E_NO_DEVICE)
            gr_link_set_error("usb://ft601: no FT601 (USB %04x:%04x)%s%s%s among %u USB devices (%u FT601 seen)",
                              FT601_VID, FT601_PID, serial ? " with serial '" : "", serial ? serial : "",
                              serial ? "'" : "", seen, ftdi);
        else
            gr_link_set_error("usb://ft601: cannot open the FT601 (USB %04x:%04x): %s", FT601_VID, FT601_PID,
                              gr_strerror(rc));
        ft601_close(f);
        return rc;
    }
    /* The configuration decides the bus protocol (the bitstream's business) and the pipes. */
    uint8_t cfg[FT601_CONFIG_BYTES];
    int n = libusb_control_transfer(f->h, LIBUSB_ENDPOINT_IN | LIBUSB_REQUEST_TYPE_VENDOR | LIBUSB_RECIPIENT_DEVICE,
                                    FT601_VREQ_CONFIG, 1, 0, cfg, sizeof cfg, FT601_CTRL_MS);
    if (n != (int)sizeof cfg) {
        gr_link_set_error("usb://ft601: reading the chip configuration failed: %s",
                          n < 0 ? libusb_strerror(n) : "short answer");
        ft601_close(f);
        return n == LIBUSB_ERROR_NO_DEVICE ? GR_E_NO_DEVICE : GR_E_IO;
    }
    rc = check_config(cfg);
    if (rc) {
        ft601_close(f);
        return rc;
    }
    f->features = (uint16_t)(cfg[FT601_CONFIG_FEATURES] | cfg[FT601_CONFIG_FEATURES + 1] << 8);
    rc = find_pipes(f);
    if (rc) {
        ft601_close(f);
        return rc;
    }
    for (int i = FT601_IF_CMD; i <= FT601_IF_DATA; i++) {
        if (libusb_kernel_driver_active(f->h, i) == 1)
            libusb_detach_kernel_driver(f->h, i);
        rc = libusb_claim_interface(f->h, i);
        if (rc) {
            gr_link_set_error("usb://ft601: cannot claim interface %d: %s", i, libusb_strerror(rc));
            libusb_close(f->h);
            f->h = NULL;
            ft601_close(f);
            return map_err(rc);
        }
    }
    f->claimed = true;
    rc = abort_and_flush(f);
    if (rc) {
        f->dead = true;
        ft601_close(f);
        return rc;
    }
    out_pipe->ops = &ft601_pipe_ops;
    out_pipe->ctx = f;
    return GR_OK;
}
