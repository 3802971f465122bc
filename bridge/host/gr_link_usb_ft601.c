/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_link_usb_ft601.c: an FT601 as a byte pipe, on libusb-1.0 (gr_link_usb.h has the contract).
 *
 * The chip (FT600/FT601 datasheet, and FTDI's D3XX protocol as the open libusb drivers speak
 * it; bridge/README.md names them): interface 0 carries the "session" command pipe (EP 0x01
 * OUT) and notifications (EP 0x81), interface 1 the data pipes of channel 1 (EP 0x02 OUT,
 * EP 0x82 IN). Writes go straight to EP 0x02. The chip sends IN data only against a read
 * request: a 20-byte command on EP 0x01 asking for N bytes on pipe 0x82; it then sends up to N
 * bytes and ends the session early with a short packet when the FPGA has no more. So a read
 * asks for a session of FT601_SESSION bytes when none is open, then reaps EP 0x82 into a
 * buffer of that size; what one transfer brings beyond the caller's max waits for the next read.
 * A read that times out leaves its session open (the chip still owes it), and the next read
 * reaps on without asking again.
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
#define FT601_CMD_READ 1
#define FT601_VREQ_CONFIG 0xcf
#define FT601_CONFIG_BYTES 152
#define FT601_CONFIG_FIFO_MODE 138   /* offsets in FT_60XCONFIGURATION */
#define FT601_CONFIG_CHANNELS 139
#define FT601_FIFO_245 0
#define FT601_CHANNELS_1 2
#define FT601_SESSION 16384u
#define FT601_CTRL_MS 1000u
#define FT601_WRITE_TRIES 10 /* of FT601_CTRL_MS each, while the FIFO is full */

typedef struct ft601 {
    libusb_context *usb;
    libusb_device_handle *h;
    uint32_t cmd_index;
    uint32_t session_left; /* bytes the chip still owes against the open read request */
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

/* The 20-byte read request: u32 index, u8 pipe, u8 command, 2 reserved, u32 length, 8 reserved,
 * little endian. */
static int send_read_request(ft601_t *f, uint32_t len)
{
    uint8_t cmd[20];
    memset(cmd, 0, sizeof cmd);
    f->cmd_index++;
    for (int i = 0; i < 4; i++) {
        cmd[i] = (uint8_t)(f->cmd_index >> (8 * i));
        cmd[8 + i] = (uint8_t)(len >> (8 * i));
    }
    cmd[4] = FT601_EP_IN;
    cmd[5] = FT601_CMD_READ;
    int n = 0;
    int rc = libusb_bulk_transfer(f->h, FT601_EP_CMD, cmd, sizeof cmd, &n, FT601_CTRL_MS);
    if (rc || n != (int)sizeof cmd) {
        gr_link_set_error("usb://ft601: read request failed: %s", libusb_strerror(rc));
        return GR_E_IO;
    }
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
        /* libusb's 0 is "no timeout"; a poll waits 1 ms */
        int rc = libusb_bulk_transfer(f->h, FT601_EP_IN, f->buf, (int)f->session_left, &n,
                                      timeout_ms ? timeout_ms : 1);
        if (rc && rc != LIBUSB_ERROR_TIMEOUT) {
            gr_link_set_error("usb://ft601: read failed: %s", libusb_strerror(rc));
            f->dead = true;
            return GR_E_IO;
        }
        f->at = 0;
        f->have = (size_t)n;
        /* A completed transfer ends the session (all bytes, or a short packet); a timed-out one
         * leaves it open with what it did not bring. */
        f->session_left = rc == 0 || (uint32_t)n >= f->session_left ? 0 : f->session_left - (uint32_t)n;
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
    /* The chip must be in 245 FIFO mode with one channel, the layout this pipe speaks. */
    uint8_t cfg[FT601_CONFIG_BYTES];
    int n = libusb_control_transfer(f->h, LIBUSB_ENDPOINT_IN | LIBUSB_REQUEST_TYPE_VENDOR | LIBUSB_RECIPIENT_DEVICE,
                                    FT601_VREQ_CONFIG, 1, 0, cfg, sizeof cfg, FT601_CTRL_MS);
    if (n != (int)sizeof cfg) {
        gr_link_set_error("usb://ft601: reading the chip configuration failed: %s",
                          n < 0 ? libusb_strerror(n) : "short answer");
        ft601_close(f);
        return n == LIBUSB_ERROR_NO_DEVICE ? GR_E_NO_DEVICE : GR_E_IO;
    }
    if (cfg[FT601_CONFIG_FIFO_MODE] != FT601_FIFO_245 || cfg[FT601_CONFIG_CHANNELS] != FT601_CHANNELS_1) {
        gr_link_set_error("usb://ft601: the chip is configured for FIFO mode %u with channel config %u; "
                          "gpuref needs 245 mode (0) with one channel (2)",
                          cfg[FT601_CONFIG_FIFO_MODE], cfg[FT601_CONFIG_CHANNELS]);
        ft601_close(f);
        return GR_E_UNSUPPORTED;
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
    out_pipe->ops = &ft601_pipe_ops;
    out_pipe->ctx = f;
    return GR_OK;
}
