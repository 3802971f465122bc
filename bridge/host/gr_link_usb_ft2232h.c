/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_link_usb_ft2232h.c: an FT2232H channel as a byte pipe in synchronous FIFO mode, on
 * libftdi1 (gr_link_usb.h has the contract).
 *
 * Set-up as FTDI's AN_130 (FT2232H in synchronous FIFO mode) and libftdi's own sync-FIFO
 * example do it: bit mode reset, then BITMODE_SYNCFF with all pins as outputs' mask 0xff,
 * latency timer 2 ms (a short IN transfer reaches the host at most that late), RTS/CTS flow
 * control (the chip requires it for the FIFO), 64 KiB read and write chunks, both buffers
 * flushed. Writes go through ftdi_write_data. Reads do not use ftdi_read_data: it goes on
 * reading until a transfer brings the two status bytes alone or the buffer is full, so every
 * read would wait out a latency timer even with the answer already there. A read here is one
 * bulk transfer on libftdi's own handle and IN endpoint (the body of libftdi's loop), and
 * strips the two modem-status bytes at the start of every max-size packet as libftdi does.
 * Synchronous FIFO exists on channel A only, and only when the chip's EEPROM sets channel A to
 * "245 FIFO" (FT2232H datasheet, section 4.4): the chip reads the EEPROM at power-up, ignores it
 * when its checksum is wrong, and without it channel A is a UART where bit mode 0x40 does
 * nothing. So open reads the EEPROM first and says what to program when it does not allow the
 * mode, instead of a link that never answers. It never writes the EEPROM. Between the bit-mode
 * reset and mode 0x40 it waits 10 ms, as AN_130 does.
 */
#include "gr_link_usb.h"

#include <libftdi1/ftdi.h>
#include <libusb-1.0/libusb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gr_proto_link.h"

#define FT2232H_VID 0x0403
#define FT2232H_PID 0x6010
#define FT2232H_LATENCY_MS 2
#define FT2232H_CHUNK 65536u
#define FT2232H_RESET_SETTLE_MS 10
#define FT2232H_EEPROM_BYTES 256 /* libftdi reads 128 words whatever the part */
/* A write waits this long for the chip to take its bytes (the FIFO full while the FPGA does
 * not read) before the pipe is declared dead, as on the FT601. */
#define FT2232H_WRITE_TIMEOUT_MS 10000

typedef struct ft2232h {
    struct ftdi_context *ftdi;
    bool opened, dead;
    uint8_t *xfer;   /* one transfer as it came, status bytes included */
    uint8_t *data;   /* its FIFO bytes */
    size_t have, at; /* data[at..have) not yet read */
} ft2232h_t;

static int ft2232h_write(void *ctx, const void *buf, size_t len)
{
    ft2232h_t *f = ctx;
    if (f->dead)
        return GR_E_IO;
    const unsigned char *p = buf;
    while (len) {
        const int chunk = len > FT2232H_CHUNK ? (int)FT2232H_CHUNK : (int)len;
        int n = ftdi_write_data(f->ftdi, p, chunk);
        if (n <= 0) {
            gr_link_set_error("usb://ft2232h: write failed: %s", ftdi_get_error_string(f->ftdi));
            f->dead = true;
            return GR_E_IO;
        }
        p += n;
        len -= (size_t)n;
    }
    return GR_OK;
}

/* One bulk transfer per attempt; a transfer that brings the status bytes alone (the latency
 * timer ran out with nothing to send) is an empty read, and the next attempt follows until
 * the deadline. */
static int ft2232h_read(void *ctx, void *buf, size_t max, uint32_t timeout_ms, size_t *out_len)
{
    ft2232h_t *f = ctx;
    if (f->dead)
        return GR_E_IO;
    const uint64_t deadline = gr_proto_now_ms() + timeout_ms;
    while (f->at == f->have) {
        int n = 0;
        uint64_t now = gr_proto_now_ms();
        unsigned wait = now >= deadline ? 1u : (unsigned)(deadline - now);
        int rc = libusb_bulk_transfer(f->ftdi->usb_dev, (unsigned char)f->ftdi->out_ep, f->xfer,
                                      (int)FT2232H_CHUNK, &n, wait);
        if (rc && rc != LIBUSB_ERROR_TIMEOUT) {
            gr_link_set_error("usb://ft2232h: read failed: %s", libusb_strerror(rc));
            f->dead = true;
            return GR_E_IO;
        }
        const size_t pkt = f->ftdi->max_packet_size ? f->ftdi->max_packet_size : 512u;
        f->at = f->have = 0;
        for (size_t off = 0; off < (size_t)n; off += pkt) {
            const size_t end = off + pkt < (size_t)n ? off + pkt : (size_t)n;
            if (end > off + 2) {
                memcpy(f->data + f->have, f->xfer + off + 2, end - off - 2);
                f->have += end - off - 2;
            }
        }
        if (f->have || gr_proto_now_ms() >= deadline)
            break;
    }
    size_t n = f->have - f->at;
    if (n > max)
        n = max;
    memcpy(buf, f->data + f->at, n);
    f->at += n;
    *out_len = n;
    return GR_OK;
}

static void ft2232h_close(void *ctx)
{
    ft2232h_t *f = ctx;
    if (f->ftdi) {
        if (f->opened) {
            if (!f->dead)
                ftdi_set_bitmode(f->ftdi, 0xff, BITMODE_RESET);
            ftdi_usb_close(f->ftdi);
        }
        ftdi_free(f->ftdi);
    }
    free(f->xfer);
    free(f->data);
    free(f);
}

/* FTDI's EEPROM checksum: over the words before the last of the part's size, stored there. */
static bool eeprom_checksum_ok(const uint8_t *img, size_t bytes)
{
    uint16_t sum = 0xaaaa;
    for (size_t i = 0; i + 2 < bytes; i += 2) {
        sum ^= (uint16_t)(img[i] | img[i + 1] << 8);
        sum = (uint16_t)(sum << 1 | sum >> 15);
    }
    return sum == (uint16_t)(img[bytes - 2] | img[bytes - 1] << 8);
}

static const char *channel_type_name(unsigned bits)
{
    switch (bits) {
    case 0: return "UART";
    case 1: return "245 FIFO";
    case 2: return "CPU FIFO";
    case 4: return "fast opto-isolated serial";
    default: return "an undefined type";
    }
}

#define EEPROM_FIX "program channel A as \"245 FIFO\" (ftdi_eeprom with channel_a_type=FIFO, or FTDI's FT_Prog), then replug the board"

/* The EEPROM allows synchronous FIFO on channel A (a 93C46 or 93C56/66 image, byte 0x00 bits
 * 2:0 the channel's type), or GR_E_UNSUPPORTED with what to do. */
static int check_eeprom(ft2232h_t *f)
{
    uint8_t img[FT2232H_EEPROM_BYTES];
    if (ftdi_read_eeprom(f->ftdi) < 0 || ftdi_get_eeprom_buf(f->ftdi, img, (int)sizeof img) < 0) {
        gr_link_set_error("usb://ft2232h: reading the chip's EEPROM: %s", ftdi_get_error_string(f->ftdi));
        return GR_E_IO;
    }
    bool blank = true;
    for (size_t i = 0; i < sizeof img && blank; i++)
        blank = img[i] == 0xff;
    if (blank) {
        gr_link_set_error("usb://ft2232h: the chip's EEPROM is blank (or absent), so channel A is a UART and "
                          "synchronous FIFO mode does nothing: " EEPROM_FIX);
        return GR_E_UNSUPPORTED;
    }
    if (!eeprom_checksum_ok(img, 128) && !eeprom_checksum_ok(img, sizeof img)) {
        gr_link_set_error("usb://ft2232h: the chip's EEPROM checksum is wrong, so the chip ignores it and channel A "
                          "is a UART: " EEPROM_FIX);
        return GR_E_UNSUPPORTED;
    }
    if ((img[0] & 0x7) != 1) {
        gr_link_set_error("usb://ft2232h: channel A is %s in the chip's EEPROM (byte 0x00 = 0x%02x), and "
                          "synchronous FIFO mode needs 245 FIFO (bits 2:0 = 1): " EEPROM_FIX,
                          channel_type_name(img[0] & 0x7u), img[0]);
        return GR_E_UNSUPPORTED;
    }
    return GR_OK;
}

static const gr_pipe_ops_t ft2232h_pipe_ops = {
    .write = ft2232h_write,
    .read = ft2232h_read,
    .reopen = NULL,
    .close = ft2232h_close,
};

int gr_usb_ft2232h_pipe_open(const char *serial, gr_pipe_t *out_pipe)
{
    if (!out_pipe)
        return GR_E_INVALID;
    ft2232h_t *f = calloc(1, sizeof *f);
    if (!f)
        return GR_E_NO_MEMORY;
    f->ftdi = ftdi_new();
    f->xfer = malloc(FT2232H_CHUNK);
    f->data = malloc(FT2232H_CHUNK);
    if (!f->ftdi || !f->xfer || !f->data) {
        ft2232h_close(f);
        return GR_E_NO_MEMORY;
    }
    if (ftdi_set_interface(f->ftdi, INTERFACE_A) < 0) {
        gr_link_set_error("usb://ft2232h: interface A: %s", ftdi_get_error_string(f->ftdi));
        ft2232h_close(f);
        return GR_E_INVALID;
    }
    int rc = ftdi_usb_open_desc(f->ftdi, FT2232H_VID, FT2232H_PID, NULL, serial);
    if (rc < 0) {
        /* libftdi: -3 no such device, -8 cannot claim (another program has it), -5 etc. I/O */
        const int st = rc == -3 ? GR_E_NO_DEVICE : rc == -5 || rc == -8 ? GR_E_BUSY : GR_E_IO;
        if (st == GR_E_NO_DEVICE)
            gr_link_set_error("usb://ft2232h: no FT2232H (USB %04x:%04x)%s%s%s found", FT2232H_VID, FT2232H_PID,
                              serial ? " with serial '" : "", serial ? serial : "", serial ? "'" : "");
        else
            gr_link_set_error("usb://ft2232h: cannot open the FT2232H (USB %04x:%04x): %s", FT2232H_VID,
                              FT2232H_PID, ftdi_get_error_string(f->ftdi));
        ft2232h_close(f);
        return st;
    }
    f->opened = true;
    f->ftdi->usb_write_timeout = FT2232H_WRITE_TIMEOUT_MS;
    rc = check_eeprom(f);
    if (rc) {
        f->dead = rc == GR_E_IO;
        ft2232h_close(f);
        return rc;
    }
    const char *step = NULL;
    const struct timespec settle = {0, FT2232H_RESET_SETTLE_MS * 1000000L};
    if (ftdi_set_bitmode(f->ftdi, 0xff, BITMODE_RESET) < 0)
        step = "bit mode reset";
    else if (nanosleep(&settle, NULL), ftdi_set_bitmode(f->ftdi, 0xff, BITMODE_SYNCFF) < 0)
        step = "synchronous FIFO mode";
    else if (ftdi_set_latency_timer(f->ftdi, FT2232H_LATENCY_MS) < 0)
        step = "latency timer";
    else if (ftdi_setflowctrl(f->ftdi, SIO_RTS_CTS_HS) < 0)
        step = "flow control";
    else if (ftdi_read_data_set_chunksize(f->ftdi, FT2232H_CHUNK) < 0 ||
             ftdi_write_data_set_chunksize(f->ftdi, FT2232H_CHUNK) < 0)
        step = "chunk sizes";
    else if (ftdi_tcioflush(f->ftdi) < 0)
        step = "flushing the buffers";
    if (step) {
        gr_link_set_error("usb://ft2232h: %s: %s", step, ftdi_get_error_string(f->ftdi));
        f->dead = true;
        ft2232h_close(f);
        return GR_E_IO;
    }
    out_pipe->ops = &ft2232h_pipe_ops;
    out_pipe->ctx = f;
    return GR_OK;
}
