/* SPDX-License-Identifier: Apache-2.0 */
/*
 * usb_emu.c: the FT601 and FT2232H on umockdev (gr_usb_emu.h has the contract).
 *
 * The usbdevfs side follows what libusb's Linux backend needs and what its own umockdev test
 * (libusb tests/umockdev.c) emulates: capabilities, claim/release, SUBMITURB, REAPURBNDELAY,
 * DISCARDURB. URBs are kept in submission order; a reap first returns a finished or discarded
 * one, else runs the board for a slice of cycles and tries again, up to a budget, then answers
 * EAGAIN (libusb polls again, and the simulation goes on). The handler shares the address
 * space with libusb (the preload library runs in-process), so URB buffers are used in place,
 * as libusb's test does.
 *
 * The chips, as their datasheets and the open drivers describe them:
 *  FT601 (FT600/FT601 datasheet; the FT601 protocol as the open libusb drivers speak it):
 *   its 152-byte configuration (FT_60XCONFIGURATION) is $GR_FT601_EMU_CONFIG's file when set
 *   (or the one gr_usb_emu_add_ft601 is given), else 245 mode with one channel; vendor request
 *   0xCF (IN, wValue 1) returns it, and it decides the rest:
 *   interface 0: EP 0x01 bulk OUT "session" commands, EP 0x81 interrupt IN notifications;
 *   interface 1: the channels' data pipes, EP 0x02.. bulk OUT and EP 0x82.. bulk IN, one pair
 *   per channel of ChannelConfig (byte 139: 0 four, 1 two, 2 one; 3 and 4 one pipe); channel 1
 *   (0x02/0x82) is the board's FIFO (the model in FIFOMode byte 138's bus mode), the others
 *   have nothing behind them (OUT bytes go nowhere, IN sends nothing).
 *   Session commands, 20 bytes (u32 index, u8 pipe, u8 command, 2 reserved, u32 length, 8
 *   reserved): command 1 opens a read session of that many bytes on the IN pipe; IN data
 *   flows only against one. The chip ends a session when its bytes are sent, and at a short
 *   packet unless OptionalFeatureSupport (bytes 140-141) has bit 1 (disable cancel session on
 *   underrun: the LimeSDR Mini v2's 0x0002) set; a full packet that ends the FPGA's data is
 *   followed by nothing (no zero-length packet), so a transfer longer than what came waits.
 *   A read request while a session is open on the pipe is counted (overlapped_requests).
 *   Command 0 aborts the pipe's session, command 3 flushes it (IN: the bytes the chip holds
 *   for the host are dropped), command 2 (stream pipe) is taken and not modelled.
 *  FT2232H (FT2232H datasheet, AN_130 sync FIFO; the requests as libftdi issues them):
 *   interface A: EP 0x81 bulk IN, EP 0x02 bulk OUT; interface B: EP 0x83, EP 0x04 (no FIFO
 *   behind it here). Vendor requests on wIndex 1/2 set latency timer, bit mode, flow control
 *   and so on. Data reaches the FIFO only in bit mode 0x40 (synchronous FIFO), and only when
 *   the EEPROM (request 0x90, a word per request) sets channel A to 245 FIFO with a good
 *   checksum, as the chip reads it at power-up. IN packets come
 *   from the chip model as they are, each led by its two modem-status bytes, status-only ones
 *   on an idle latency-timer expiry included (the model's timer; sim/board/board.v sets it).
 */
#define _GNU_SOURCE
#include "gr_usb_emu.h"

#include <dlfcn.h>
#include <errno.h>
#include <linux/usbdevice_fs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include <glib.h>
#include <umockdev.h>

#define EMU_MAX_DEVS 12
#define EMU_MAX_URBS 64
#define EMU_MAX_IFACES 8
/* Cycles a reap may run the board before it answers EAGAIN, and the slice between checks.
 * Short: while a reap runs, the host's next URB waits for the handler, so a long budget is
 * simulated time the host cannot use (every round trip would cost a whole budget). */
#define EMU_REAP_BUDGET 500u
#define EMU_SLICE 100u
#define FT601_MAXP 1024u
#define FT2232H_MAXP 512u
/* A 93C56 (128 words): the EEPROM FTDI's FT2232H boards carry. A 93C46 (64 words) answers the
 * upper half with the lower one (its address bits wrap), as the image given may be. */
#define FT2232H_EEPROM_BYTES 256u
#define FT601_CONFIG_BYTES 152u

typedef struct emu_urb {
    UMockdevIoctlClient *client; /* the open of the node that submitted it: only it reaps it */
    UMockdevIoctlData *data;  /* the URB as resolved at submit (ref held) */
    struct usbdevfs_urb *urb; /* = data->data */
    uint8_t *buf;             /* the client's buffer, in place */
    int len;
    int filled;
    uint64_t out_mark; /* OUT: done when the chip has taken this many bytes in total */
    bool done, discarded;
    bool held; /* IN: counted in in_held_after_full_packet */
    int status;
} emu_urb_t;

typedef struct emu_dev {
    struct gr_usb_emu *emu;
    unsigned index;
    gr_board_kind_t kind;
    gr_board_t *board;
    char serial[32];
    char devnode[64];
    char syspath[64];
    UMockdevIoctlBase *handler;
    bool unplugged;
    /* usbdevfs's interface claims: the client (an open of the device node) holding each
     * interface, NULL when free; released by RELEASEINTERFACE or when its client goes. */
    UMockdevIoctlClient *claims[EMU_MAX_IFACES];
    emu_urb_t urbs[EMU_MAX_URBS];
    unsigned nurbs;
    uint64_t queued_out; /* bytes ever handed to the board */
    /* FT601 */
    uint8_t config[152];                 /* FT_60XCONFIGURATION, as request 0xCF answers */
    uint16_t features;                   /* its OptionalFeatureSupport */
    uint32_t session_left;
    uint32_t cmd_index;
    /* an IN packet the URB it went to had no room for all of (the rest goes first next time) */
    uint8_t carry[1024];
    size_t carry_n, carry_at;
    /* FT2232H */
    uint8_t bitmode, latency;
    uint8_t eeprom[FT2232H_EEPROM_BYTES]; /* the 93C56 behind the chip, as EEPROM reads see it */
    bool fifo_a;                          /* the EEPROM sets channel A to 245 FIFO, checksum good */
    struct timespec bitmode_reset_at;     /* the last bit-mode reset on channel A */
    gr_usb_emu_stats_t stats;
    pthread_mutex_t lock; /* stats and cycles, read from the test thread */
} emu_dev_t;

struct gr_usb_emu {
    UMockdevTestbed *testbed;
    emu_dev_t *devs[EMU_MAX_DEVS];
    unsigned ndevs;
};

/* ---- descriptors ------------------------------------------------------------------------ */

/* FT601 as it enumerates on SuperSpeed (USB 3.1 Gen 1), its data pipes as its ChannelConfig
 * says (ft601_descriptors builds them). Each endpoint is followed by its SuperSpeed companion
 * (bursts of 16 on the data pipes). */
static const char ft601_desc_head[] =
    "12011003000000090304" "1f60" "0000" "010203" "01";    /* device: bcdUSB 3.10, EP0 512 */
static const char ft601_desc_if0[] =
    "090400000" "2ffffff00"                                /* interface 0: 2 endpoints */
    "07050102000400" "063000000000"                        /* EP 0x01 bulk OUT 1024 */
    "07058103100009" "063000001000";                       /* EP 0x81 interrupt IN 16 */
#define FT601_DESC_MAX 512u

/* FT2232H on High Speed: bcdDevice 7.00 (libftdi's TYPE_2232H), two interfaces. */
static const char ft2232h_descriptors[] =
    "12010002000000400304" "1060" "0007" "010203" "01"     /* device: bcdUSB 2.00, EP0 64 */
    "0902370002010080fa"                                   /* config: 55 bytes, 2 interfaces */
    "09040000" "02ffffff02"                                /* interface A */
    "07058102000200" "07050202000200"                      /* EP 0x81 IN, EP 0x02 OUT, 512 */
    "09040100" "02ffffff02"                                /* interface B */
    "07058302000200" "07050402000200";                     /* EP 0x83 IN, EP 0x04 OUT, 512 */

static const char *dev_product(const emu_dev_t *d)
{
    return d->kind == GR_BOARD_FT601 ? "FTDI SuperSpeed-FIFO Bridge" : "Dual RS232-HS";
}

/* The pipes of interface 1 for a ChannelConfig: OUT and IN per channel, in channel order. */
static unsigned ft601_pipes(uint8_t channel_config, uint8_t *out_eps)
{
    const unsigned channels = channel_config == 0 ? 4 : channel_config == 1 ? 2 : 1;
    unsigned n = 0;
    for (unsigned c = 0; c < channels; c++) {
        if (channel_config != 4)
            out_eps[n++] = (uint8_t)(0x02 + c);
        if (channel_config != 3)
            out_eps[n++] = (uint8_t)(0x82 + c);
    }
    return n;
}

/* ---- helpers ----------------------------------------------------------------------------- */

static unsigned maxp(const emu_dev_t *d)
{
    return d->kind == GR_BOARD_FT601 ? FT601_MAXP : FT2232H_MAXP;
}

static void stat_add(emu_dev_t *d, uint64_t *field, uint64_t n)
{
    pthread_mutex_lock(&d->lock);
    *field += n;
    pthread_mutex_unlock(&d->lock);
}

/* A string descriptor: UTF-16LE of ASCII text. */
static int string_desc(const emu_dev_t *d, unsigned idx, uint8_t *out, int cap)
{
    uint8_t b[2 + 2 * 64];
    int n = 0;
    if (idx == 0) {
        b[0] = 4;
        b[1] = 3;
        b[2] = 0x09; /* en-US */
        b[3] = 0x04;
        n = 4;
    } else {
        const char *s = idx == 1 ? "FTDI" : idx == 2 ? dev_product(d) : idx == 3 ? d->serial : NULL;
        if (!s)
            return -1;
        size_t l = strlen(s);
        b[0] = (uint8_t)(2 + 2 * l);
        b[1] = 3;
        for (size_t i = 0; i < l; i++) {
            b[2 + 2 * i] = (uint8_t)s[i];
            b[3 + 2 * i] = 0;
        }
        n = (int)(2 + 2 * l);
    }
    if (n > cap)
        n = cap;
    memcpy(out, b, (size_t)n);
    return n;
}

/* The FT601's descriptors as hex text (umockdev's sysfs "descriptors" attribute). */
static void ft601_descriptors(const emu_dev_t *d, char *out, size_t cap)
{
    uint8_t eps[8];
    const unsigned n = ft601_pipes(d->config[139], eps);
    const unsigned total = 9 + 9 + 2 * 13 + 9 + n * 13;
    int at = snprintf(out, cap, "%s0902%02x%02x020100a060%s090401000%xffffff00", ft601_desc_head,
                      total & 0xff, total >> 8, ft601_desc_if0, n);
    for (unsigned i = 0; i < n; i++)
        at += snprintf(out + at, cap - (size_t)at, "0705%02x02000400" "06300f000000", eps[i]);
}

/* The FT601's default chip configuration (FT_60XCONFIGURATION, 152 bytes, little endian):
 * VID, PID, string descriptors, power, FIFO clock 100 MHz (0), FIFO mode 245 (0), channel
 * config "1" (2), no optional features. */
static void ft601_config_default(const emu_dev_t *d, uint8_t *c)
{
    memset(c, 0, FT601_CONFIG_BYTES);
    c[0] = 0x03;
    c[1] = 0x04;
    c[2] = 0x1f;
    c[3] = 0x60;
    /* StringDescriptors[128]: manufacturer, product, serial as USB string descriptors */
    int at = 4;
    for (unsigned i = 1; i <= 3; i++)
        at += string_desc(d, i, c + at, 4 + 128 - at);
    c[133] = 0xa0; /* PowerAttributes */
    c[134] = 0x60; /* PowerConsumption */
    c[137] = 0;    /* FIFOClock: 100 MHz */
    c[138] = 0;    /* FIFOMode: 245 */
    c[139] = 2;    /* ChannelConfig: 1 channel */
}

static int ft601_config(const emu_dev_t *d, uint8_t *out, int cap)
{
    int n = cap < (int)FT601_CONFIG_BYTES ? cap : (int)FT601_CONFIG_BYTES;
    memcpy(out, d->config, (size_t)n);
    return n;
}

/* ---- FT2232H EEPROM --------------------------------------------------------------------- */

/* FTDI's EEPROM checksum (as FT_Prog and libftdi write it): over the words before the last of
 * the EEPROM's size, stored in that last word. */
static uint16_t eeprom_checksum(const uint8_t *img, size_t bytes)
{
    uint16_t sum = 0xaaaa;
    for (size_t i = 0; i + 2 < bytes; i += 2) {
        sum ^= (uint16_t)(img[i] | img[i + 1] << 8);
        sum = (uint16_t)(sum << 1 | sum >> 15);
    }
    return sum;
}

/* The chip reads its EEPROM at power-up and uses it only when its checksum holds (for a 93C46
 * or a 93C56/66); channel A's type is byte 0x00 bits 2:0, 1 being 245 FIFO (FT2232H datasheet,
 * section 4.4; libftdi's decoder). Anything else leaves channel A a UART, where bit mode 0x40
 * does nothing. */
static bool eeprom_fifo_a(const uint8_t *img)
{
    bool valid = false;
    for (size_t bytes = 128; bytes <= FT2232H_EEPROM_BYTES; bytes *= 2)
        valid |= eeprom_checksum(img, bytes) == (uint16_t)(img[bytes - 2] | img[bytes - 1] << 8);
    return valid && (img[0] & 0x7) == 1;
}

/* A board's EEPROM as FT_Prog leaves it for a synchronous-FIFO design: channel A 245 FIFO with
 * the D2XX driver, channel B UART, the chip's IDs, bus powered at 100 mA, a 93C56. */
static void eeprom_default(uint8_t *img)
{
    memset(img, 0, FT2232H_EEPROM_BYTES);
    img[0x00] = 0x01;
    img[0x02] = GR_USB_FTDI_VID & 0xff;
    img[0x03] = GR_USB_FTDI_VID >> 8;
    img[0x04] = GR_USB_FT2232H_PID & 0xff;
    img[0x05] = GR_USB_FT2232H_PID >> 8;
    img[0x07] = 0x07; /* bcdDevice 7.00 */
    img[0x08] = 0x80;
    img[0x09] = 50;
    img[0x0a] = 0x08; /* use the serial number */
    img[0x18] = 0x56;
    const uint16_t sum = eeprom_checksum(img, FT2232H_EEPROM_BYTES);
    img[FT2232H_EEPROM_BYTES - 2] = (uint8_t)sum;
    img[FT2232H_EEPROM_BYTES - 1] = (uint8_t)(sum >> 8);
}

static uint64_t us_between(const struct timespec *a, const struct timespec *b)
{
    const int64_t ns = (int64_t)(b->tv_sec - a->tv_sec) * 1000000000 + (b->tv_nsec - a->tv_nsec);
    return ns > 0 ? (uint64_t)ns / 1000u : 0;
}

/* SET_BITMODE on channel A. The time from a reset (mode 0) to synchronous FIFO (0x40) is kept:
 * FTDI's AN_130 waits 10 ms between them. */
static void set_bitmode(emu_dev_t *d, uint8_t mode)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (mode == 0x00)
        d->bitmode_reset_at = now;
    else if (mode == 0x40 && d->bitmode == 0x00 && d->bitmode_reset_at.tv_sec) {
        pthread_mutex_lock(&d->lock);
        d->stats.bitmode_settle_us = us_between(&d->bitmode_reset_at, &now);
        pthread_mutex_unlock(&d->lock);
    }
    d->bitmode = mode;
}

/* A control URB, answered at once. Returns the data length (IN) or 0 (OUT), or -errno. */
static int control(emu_dev_t *d, uint8_t *buf, int len)
{
    if (len < 8)
        return -EINVAL;
    const uint8_t rt = buf[0], req = buf[1];
    const unsigned value = buf[2] | (unsigned)buf[3] << 8;
    const unsigned windex = buf[4] | (unsigned)buf[5] << 8;
    const int wlen = buf[6] | buf[7] << 8;
    uint8_t *data = buf + 8;
    int cap = len - 8 < wlen ? len - 8 : wlen;
    stat_add(d, &d->stats.control_requests, 1);
    if ((rt & 0x60) == 0x00) { /* standard */
        if (req == 6 && (rt & 0x80)) { /* GET_DESCRIPTOR */
            if ((value >> 8) == 3) {
                int n = string_desc(d, value & 0xff, data, cap);
                return n < 0 ? -EPIPE : n;
            }
            return -EPIPE; /* libusb reads device and config descriptors from sysfs */
        }
        if (req == 8 && (rt & 0x80) && cap >= 1) { /* GET_CONFIGURATION */
            data[0] = 1;
            return 1;
        }
        return 0; /* SET_CONFIGURATION, SET_INTERFACE, CLEAR_FEATURE: nothing to do */
    }
    if ((rt & 0x60) != 0x40)
        return -EPIPE;
    if (d->kind == GR_BOARD_FT601) {
        if (req == 0xcf && (rt & 0x80) && value == 1)
            return ft601_config(d, data, cap);
        if (req == 0xcf && !(rt & 0x80)) {
            /* a write of the chip configuration: counted, never applied */
            stat_add(d, &d->stats.config_writes, 1);
            return -EPIPE;
        }
        return (rt & 0x80) ? -EPIPE : 0;
    }
    /* FT2232H: wIndex 1 is interface A (the FIFO), 2 is B. */
    switch (req) {
    case 0x09: /* SET_LATENCY_TIMER */
        d->latency = (uint8_t)value;
        return 0;
    case 0x0a: /* GET_LATENCY_TIMER */
        if (cap < 1)
            return -EPIPE;
        data[0] = d->latency;
        return 1;
    case 0x0b: /* SET_BITMODE: mode in the high byte, mask in the low */
        if ((windex & 0xff) == 1)
            set_bitmode(d, (uint8_t)(value >> 8));
        return 0;
    case 0x0c: /* READ_PINS */
        if (cap < 1)
            return -EPIPE;
        data[0] = 0xff;
        return 1;
    case 0x05: /* POLL_MODEM_STATUS */
        if (cap < 2)
            return -EPIPE;
        data[0] = 0x31;
        data[1] = 0x60;
        return 2;
    case 0x90: /* READ_EEPROM: the word at wIndex (the address bits wrap) */
        if (cap < 2)
            return -EPIPE;
        data[0] = d->eeprom[(2u * windex) % FT2232H_EEPROM_BYTES];
        data[1] = d->eeprom[(2u * windex + 1u) % FT2232H_EEPROM_BYTES];
        return 2;
    default: /* reset, purge, modem control, flow control, baud rate, characters */
        return (rt & 0x80) ? -EPIPE : 0;
    }
}

static bool fifo_active(const emu_dev_t *d)
{
    return d->kind == GR_BOARD_FT601 || (d->bitmode == 0x40 && d->fifo_a);
}

/* Bytes the chip has taken from the host so far. */
static uint64_t taken_out(const emu_dev_t *d)
{
    return d->queued_out - gr_board_write_pending(d->board);
}

/* Moves whole USB packets from the board into an IN URB. True when the URB is finished
 * (a short packet, full, or, on the FT601, the session's bytes all sent). */
static bool fill_in(emu_dev_t *d, emu_urb_t *u)
{
    uint8_t pkt[1024];
    while (u->filled < u->len) {
        if (d->kind == GR_BOARD_FT601 && d->session_left == 0)
            return u->filled > 0;
        size_t n = 0;
        const size_t room = (size_t)(u->len - u->filled);
        const uint8_t *src = pkt;
        if (d->carry_at < d->carry_n) {
            src = d->carry + d->carry_at;
            n = d->carry_n - d->carry_at;
        } else {
            if (gr_board_packets(d->board) == 0)
                return false;
            int rc = gr_board_read_packet(d->board, pkt, sizeof pkt, &n);
            if (rc != GR_OK || n == 0)
                return u->filled > 0;
        }
        const size_t whole = n;
        if (n > room) {
            /* An URB shorter than the packet (the kernel would report an overflow): what fits
             * goes now, the rest first into the next URB, so no byte is lost or reordered. */
            if (src == pkt) {
                memcpy(d->carry, pkt, whole);
                d->carry_n = whole;
                d->carry_at = 0;
                src = d->carry;
            }
            n = room;
        }
        if (src != pkt) {
            d->carry_at += n;
            if (d->carry_at == d->carry_n)
                d->carry_at = d->carry_n = 0;
        }
        memcpy(u->buf + u->filled, src, n);
        u->filled += (int)n;
        stat_add(d, &d->stats.bytes_in, n);
        if (d->kind == GR_BOARD_FT601) {
            d->session_left = n >= d->session_left ? 0 : d->session_left - (uint32_t)n;
            /* A short packet ends the session too, unless the configuration disables that
             * (OptionalFeatureSupport bit 1): then the chip still owes the rest. */
            if (whole < maxp(d) && !(d->features & 0x0002))
                d->session_left = 0;
            if (d->session_left == 0)
                return true;
        }
        if (whole < maxp(d))
            return true; /* a short packet ends the transfer */
    }
    return true;
}

/* An FT601 session command on EP 0x01: [u32 index][u8 pipe][u8 cmd][2][u32 length][8]. Only
 * channel 1's pipes have the FIFO behind them. */
static void session_command(emu_dev_t *d, const uint8_t *b)
{
    const uint8_t pipe = b[4], cmd = b[5];
    d->cmd_index = b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    switch (cmd) {
    case 1: /* read request */
        if (pipe != 0x82)
            break;
        if (d->session_left)
            stat_add(d, &d->stats.overlapped_requests, 1);
        d->session_left = b[8] | (uint32_t)b[9] << 8 | (uint32_t)b[10] << 16 | (uint32_t)b[11] << 24;
        stat_add(d, &d->stats.read_requests, 1);
        break;
    case 0: /* abort: the pipe's session ends */
        if (pipe == 0x82)
            d->session_left = 0;
        stat_add(d, pipe & 0x80 ? &d->stats.in_aborts : &d->stats.out_aborts, 1);
        break;
    case 3: /* flush: what the chip holds for the host on the pipe is dropped */
        if (pipe == 0x82) {
            uint64_t dropped = d->carry_n - d->carry_at;
            d->carry_at = d->carry_n = 0;
            uint8_t pkt[1024];
            size_t n = 0;
            pthread_mutex_lock(&d->lock);
            while (gr_board_packets(d->board) && gr_board_read_packet(d->board, pkt, sizeof pkt, &n) == GR_OK && n)
                dropped += n;
            pthread_mutex_unlock(&d->lock);
            stat_add(d, &d->stats.in_bytes_flushed, dropped);
        }
        stat_add(d, pipe & 0x80 ? &d->stats.in_flushes : &d->stats.out_flushes, 1);
        break;
    default: /* 2: stream pipe (a fixed transfer size), not modelled */
        break;
    }
}

/* Tries to finish one outstanding URB without running the board. */
static void progress(emu_dev_t *d, emu_urb_t *u)
{
    if (u->done)
        return;
    const uint8_t ep = u->urb->endpoint;
    if (!(ep & 0x80)) {
        if (taken_out(d) >= u->out_mark) {
            u->done = true;
            u->filled = u->len;
        }
        return;
    }
    if (d->kind == GR_BOARD_FT601 && ep != 0x82)
        return; /* notifications: none are sent */
    if (d->kind == GR_BOARD_FT2232H && (ep != 0x81 || !fifo_active(d)))
        return;
    if (fill_in(d, u))
        u->done = true;
    else if (u->filled && !u->held) {
        /* Whole packets in, nothing more to come now, the transfer still open: the chip sends
         * no zero-length packet, so the host waits for more or for its timeout. */
        u->held = true;
        stat_add(d, &d->stats.in_held_after_full_packet, 1);
    }
}

/* ---- the ioctls -------------------------------------------------------------------------- */

static void complete(UMockdevIoctlClient *client, int res, int err)
{
    umockdev_ioctl_client_complete(client, res, err);
}

/* ---- interface claims: one open of the device holds an interface, as usbdevfs has it ----- */

/* A claim holds a reference on its client, so that the pointer stays one client's: a client that
 * closed the node (its stream closed) holds nothing. */
static void claim_drop(emu_dev_t *d, unsigned iface)
{
    if (d->claims[iface]) {
        g_object_unref(d->claims[iface]);
        d->claims[iface] = NULL;
    }
}

static void on_client_vanished(UMockdevIoctlBase *handler, UMockdevIoctlClient *client, gpointer user)
{
    (void)handler;
    emu_dev_t *d = user;
    for (unsigned i = 0; i < EMU_MAX_IFACES; i++)
        if (d->claims[i] == client)
            claim_drop(d, i);
}

static gboolean on_claim(emu_dev_t *d, UMockdevIoctlClient *client, UMockdevIoctlData *arg, bool release)
{
    UMockdevIoctlData *a = umockdev_ioctl_data_resolve(arg, 0, sizeof(guint32), NULL);
    if (!a) {
        complete(client, -1, EFAULT);
        return TRUE;
    }
    const unsigned iface = *(guint32 *)a->data;
    g_object_unref(a);
    if (iface >= EMU_MAX_IFACES) {
        complete(client, -1, ENOENT);
        return TRUE;
    }
    UMockdevIoctlClient *owner = d->claims[iface];
    if (owner && owner != client && !umockdev_ioctl_client_get_connected(owner)) {
        claim_drop(d, iface); /* its client closed the node: the kernel released the claim */
        owner = NULL;
    }
    if (release) {
        if (owner != client) {
            complete(client, -1, EINVAL);
            return TRUE;
        }
        claim_drop(d, iface);
        complete(client, 0, 0);
        return TRUE;
    }
    if (owner && owner != client) {
        stat_add(d, &d->stats.claims_refused, 1);
        complete(client, -1, EBUSY);
        return TRUE;
    }
    if (!owner)
        d->claims[iface] = g_object_ref(client);
    complete(client, 0, 0);
    return TRUE;
}

static gboolean on_submit(emu_dev_t *d, UMockdevIoctlClient *client, UMockdevIoctlData *arg)
{
    UMockdevIoctlData *ud = umockdev_ioctl_data_resolve(arg, 0, sizeof(struct usbdevfs_urb), NULL);
    if (!ud) {
        complete(client, -1, EFAULT);
        return TRUE;
    }
    struct usbdevfs_urb *urb = (struct usbdevfs_urb *)ud->data;
    if (d->nurbs == EMU_MAX_URBS) {
        g_object_unref(ud);
        complete(client, -1, ENOMEM);
        return TRUE;
    }
    emu_urb_t *u = &d->urbs[d->nurbs];
    memset(u, 0, sizeof *u);
    u->client = client;
    u->data = ud;
    u->urb = urb;
    u->buf = urb->buffer; /* same address space: the client's buffer in place */
    u->len = urb->buffer_length;
    stat_add(d, &d->stats.urbs_submitted, 1);
    const uint8_t ep = urb->endpoint;
    if (urb->type == USBDEVFS_URB_TYPE_CONTROL) {
        int n = control(d, u->buf, u->len);
        u->done = true;
        u->status = n < 0 ? n : 0;
        u->filled = n < 0 ? 0 : n;
    } else if (urb->type == USBDEVFS_URB_TYPE_BULK && !(ep & 0x80)) {
        if (d->kind == GR_BOARD_FT601 && ep == 0x01) {
            if (u->len >= 20)
                session_command(d, u->buf);
            u->done = true;
            u->filled = u->len;
        } else if ((d->kind == GR_BOARD_FT601 && ep == 0x02) ||
                   (d->kind == GR_BOARD_FT2232H && ep == 0x02 && fifo_active(d))) {
            gr_board_write(d->board, u->buf, (size_t)u->len);
            d->queued_out += (uint64_t)u->len;
            u->out_mark = d->queued_out;
            stat_add(d, &d->stats.bytes_out, (uint64_t)u->len);
        } else {
            /* No FIFO behind it (interface B, or not in FIFO mode): the bytes go nowhere. */
            u->done = true;
            u->filled = u->len;
        }
    }
    d->nurbs++;
    complete(client, 0, 0);
    return TRUE;
}

static void run_board(emu_dev_t *d, uint64_t cycles)
{
    pthread_mutex_lock(&d->lock);
    gr_board_run(d->board, cycles);
    pthread_mutex_unlock(&d->lock);
}

/* The index of an URB to hand back, running the board up to the budget; -1 if none. */
/* A URB of client's that is done (usbdevfs: each open of the node reaps its own URBs). */
static int find_reapable(emu_dev_t *d, UMockdevIoctlClient *client)
{
    for (unsigned spent = 0;; spent += EMU_SLICE) {
        for (unsigned i = 0; i < d->nurbs; i++) {
            progress(d, &d->urbs[i]);
            if ((d->urbs[i].done || d->urbs[i].discarded) && d->urbs[i].client == client)
                return (int)i;
        }
        if (spent >= EMU_REAP_BUDGET)
            break;
        run_board(d, EMU_SLICE);
    }
    return -1;
}

static gboolean on_reap(emu_dev_t *d, UMockdevIoctlClient *client, UMockdevIoctlData *arg)
{
    int i = find_reapable(d, client);
    if (i < 0) {
        complete(client, -1, EAGAIN);
        return TRUE;
    }
    emu_urb_t u = d->urbs[i];
    memmove(&d->urbs[i], &d->urbs[i + 1], (d->nurbs - (unsigned)i - 1) * sizeof d->urbs[0]);
    d->nurbs--;
    /* A discarded URB reports what it had received, as the kernel does. */
    u.urb->actual_length = u.filled;
    u.urb->status = u.discarded ? -ENOENT : u.status;
    UMockdevIoctlData *slot = umockdev_ioctl_data_resolve(arg, 0, sizeof(gpointer), NULL);
    if (slot) {
        umockdev_ioctl_data_set_ptr(slot, 0, u.data);
        g_object_unref(slot);
    }
    stat_add(d, u.discarded ? &d->stats.urbs_discarded : &d->stats.urbs_reaped, 1);
    g_object_unref(u.data);
    complete(client, 0, 0);
    return TRUE;
}

static gboolean on_discard(emu_dev_t *d, UMockdevIoctlClient *client, UMockdevIoctlData *arg)
{
    /* The argument is the URB's address itself. */
    const gulong addr = (gulong) * (void **)arg->data;
    for (unsigned i = 0; i < d->nurbs; i++) {
        if (d->urbs[i].client == client && d->urbs[i].data->client_addr == addr && !d->urbs[i].done) {
            d->urbs[i].discarded = true;
            if ((d->urbs[i].urb->endpoint & 0x80) && d->urbs[i].filled)
                stat_add(d, &d->stats.in_discarded_with_data, 1);
            complete(client, 0, 0);
            return TRUE;
        }
    }
    complete(client, -1, EINVAL);
    return TRUE;
}

static gboolean handle_ioctl(UMockdevIoctlBase *handler, UMockdevIoctlClient *client, gpointer user)
{
    (void)handler;
    emu_dev_t *d = user;
    const unsigned long request = umockdev_ioctl_client_get_request(client);
    UMockdevIoctlData *arg = umockdev_ioctl_client_get_arg(client);

    if (d->unplugged) {
        /* Outstanding URBs can still be reaped (with ENODEV), as after a real disconnect. */
        if ((request == USBDEVFS_REAPURB || request == USBDEVFS_REAPURBNDELAY) && d->nurbs) {
            for (unsigned i = 0; i < d->nurbs; i++) {
                d->urbs[i].done = true;
                d->urbs[i].status = -ENODEV;
                d->urbs[i].filled = 0;
            }
            return on_reap(d, client, arg);
        }
        complete(client, -1, ENODEV);
        return TRUE;
    }
    switch (request) {
    case USBDEVFS_GET_CAPABILITIES: {
        UMockdevIoctlData *c = umockdev_ioctl_data_resolve(arg, 0, sizeof(guint32), NULL);
        if (c) {
            *(guint32 *)c->data = USBDEVFS_CAP_BULK_CONTINUATION | USBDEVFS_CAP_NO_PACKET_SIZE_LIM |
                                  USBDEVFS_CAP_REAP_AFTER_DISCONNECT | USBDEVFS_CAP_ZERO_PACKET;
            g_object_unref(c);
        }
        complete(client, 0, 0);
        return TRUE;
    }
    case USBDEVFS_CLAIMINTERFACE:
    case USBDEVFS_RELEASEINTERFACE:
        return on_claim(d, client, arg, request == USBDEVFS_RELEASEINTERFACE);
    case USBDEVFS_SETINTERFACE:
    case USBDEVFS_SETCONFIGURATION:
    case USBDEVFS_CLEAR_HALT:
    case USBDEVFS_RESETEP:
    case USBDEVFS_RESET:
        complete(client, 0, 0);
        return TRUE;
    case USBDEVFS_GETDRIVER:
    case USBDEVFS_IOCTL:
        /* No kernel driver is bound to either interface. */
        complete(client, -1, ENODATA);
        return TRUE;
    case USBDEVFS_SUBMITURB:
        return on_submit(d, client, arg);
    case USBDEVFS_REAPURB:
    case USBDEVFS_REAPURBNDELAY:
        return on_reap(d, client, arg);
    case USBDEVFS_DISCARDURB:
        return on_discard(d, client, arg);
    default:
        stat_add(d, &d->stats.unknown_ioctls, 1);
        complete(client, -1, ENOTTY);
        return TRUE;
    }
}

/* ---- the API ----------------------------------------------------------------------------- */

int gr_usb_emu_create(gr_usb_emu_t **out_emu)
{
    if (!out_emu)
        return GR_E_INVALID;
    /* The preload library must be in the process: linked in (RTLD_NOLOAD finds it loaded) or
     * through LD_PRELOAD (umockdev-wrapper). Without it libusb would see the real bus. */
    void *preload = dlopen("libumockdev-preload.so.0", RTLD_NOW | RTLD_NOLOAD);
    if (!preload && !umockdev_in_mock_environment())
        return GR_E_UNSUPPORTED;
    if (preload)
        dlclose(preload);
    gr_usb_emu_t *e = calloc(1, sizeof *e);
    if (!e)
        return GR_E_NO_MEMORY;
    e->testbed = umockdev_testbed_new();
    if (!e->testbed) {
        free(e);
        return GR_E_NO_MEMORY;
    }
    *out_emu = e;
    return GR_OK;
}

/* $GR_FT601_EMU_CONFIG's file: exactly 152 bytes. */
static int config_from_env(uint8_t *out, bool *out_set)
{
    const char *path = getenv("GR_FT601_EMU_CONFIG");
    *out_set = path && *path;
    if (!*out_set)
        return GR_OK;
    FILE *f = fopen(path, "rb");
    if (!f)
        return GR_E_IO;
    uint8_t extra;
    const size_t n = fread(out, 1, FT601_CONFIG_BYTES, f);
    const bool more = fread(&extra, 1, 1, f) == 1;
    fclose(f);
    return n == FT601_CONFIG_BYTES && !more ? GR_OK : GR_E_INVALID;
}

/* A configuration the chip can take: FIFOMode 0 (245, one channel only) or 1 (FT600), a
 * ChannelConfig of 0..4. */
static bool config_valid(const uint8_t *c)
{
    return (c[138] == 0 && c[139] == 2) || (c[138] == 1 && c[139] <= 4);
}

int gr_usb_emu_add(gr_usb_emu_t *emu, const gr_board_config_t *cfg, const char *serial, unsigned *out_index)
{
    return gr_usb_emu_add_ft601(emu, cfg, serial, NULL, out_index);
}

int gr_usb_emu_add_ft601(gr_usb_emu_t *emu, const gr_board_config_t *cfg, const char *serial,
                         const uint8_t *config, unsigned *out_index)
{
    if (!emu || !cfg || !serial || strlen(serial) > 31 || emu->ndevs == EMU_MAX_DEVS)
        return GR_E_INVALID;
    if (cfg->kind != GR_BOARD_FT601 && cfg->kind != GR_BOARD_FT2232H)
        return GR_E_INVALID;
    if (config && cfg->kind != GR_BOARD_FT601)
        return GR_E_INVALID;
    emu_dev_t *d = calloc(1, sizeof *d);
    if (!d)
        return GR_E_NO_MEMORY;
    snprintf(d->serial, sizeof d->serial, "%s", serial);
    gr_board_config_t bcfg = *cfg;
    if (cfg->kind == GR_BOARD_FT601) {
        bool set = config != NULL;
        int crc = GR_OK;
        if (config)
            memcpy(d->config, config, FT601_CONFIG_BYTES);
        else
            crc = config_from_env(d->config, &set);
        if (!set)
            ft601_config_default(d, d->config);
        if (crc || !config_valid(d->config)) {
            free(d);
            return crc ? crc : GR_E_INVALID;
        }
        d->features = (uint16_t)(d->config[140] | d->config[141] << 8);
        bcfg.ft600_mode = d->config[138] == 1;
    }
    int rc = gr_board_create(&bcfg, &d->board);
    if (rc != GR_OK) {
        free(d);
        return rc;
    }
    pthread_mutex_init(&d->lock, NULL);
    d->emu = emu;
    d->index = emu->ndevs;
    d->kind = cfg->kind;
    d->latency = 16;
    eeprom_default(d->eeprom);
    d->fifo_a = eeprom_fifo_a(d->eeprom);
    const unsigned bus = d->index + 1;
    snprintf(d->devnode, sizeof d->devnode, "/dev/bus/usb/%03u/001", bus);
    snprintf(d->syspath, sizeof d->syspath, "/devices/usb%u", bus);
    d->handler = umockdev_ioctl_base_new();
    g_signal_connect(d->handler, "handle-ioctl", G_CALLBACK(handle_ioctl), d);
    g_signal_connect(d->handler, "client-vanished", G_CALLBACK(on_client_vanished), d);
    /* The handler first, so the node is never there without it (as libusb's test does). */
    if (!umockdev_testbed_attach_ioctl(emu->testbed, d->devnode, d->handler, NULL)) {
        g_object_unref(d->handler);
        gr_board_destroy(d->board);
        free(d);
        return GR_E_IO;
    }
    const bool ss = d->kind == GR_BOARD_FT601;
    char desc[2 * FT601_DESC_MAX];
    if (ss)
        ft601_descriptors(d, desc, sizeof desc);
    char *text = g_strdup_printf("P: %s\n"
                                 "N: bus/usb/%03u/001\n"
                                 "E: SUBSYSTEM=usb\n"
                                 "E: DEVTYPE=usb_device\n"
                                 "E: DRIVER=usb\n"
                                 "E: BUSNUM=%03u\n"
                                 "E: DEVNUM=001\n"
                                 "E: DEVNAME=%s\n"
                                 "E: ID_VENDOR_ID=0403\n"
                                 "E: ID_MODEL_ID=%s\n"
                                 "E: ID_SERIAL_SHORT=%s\n"
                                 "A: busnum=%u\\n\n"
                                 "A: devnum=1\\n\n"
                                 "A: bConfigurationValue=1\\n\n"
                                 "A: speed=%s\\n\n"
                                 "A: idVendor=0403\\n\n"
                                 "A: idProduct=%s\\n\n"
                                 "A: manufacturer=FTDI\\n\n"
                                 "A: product=%s\\n\n"
                                 "A: serial=%s\\n\n"
                                 "H: descriptors=%s\n",
                                 d->syspath, bus, bus, d->devnode, ss ? "601f" : "6010", d->serial, bus,
                                 ss ? "5000" : "480", ss ? "601f" : "6010", dev_product(d), d->serial,
                                 ss ? desc : ft2232h_descriptors);
    gboolean ok = umockdev_testbed_add_from_string(emu->testbed, text, NULL);
    g_free(text);
    if (!ok) {
        umockdev_testbed_detach_ioctl(emu->testbed, d->devnode, NULL);
        g_object_unref(d->handler);
        gr_board_destroy(d->board);
        free(d);
        return GR_E_IO;
    }
    emu->devs[emu->ndevs++] = d;
    if (out_index)
        *out_index = d->index;
    return GR_OK;
}

int gr_usb_emu_unplug(gr_usb_emu_t *emu, unsigned index)
{
    if (!emu || index >= emu->ndevs)
        return GR_E_NOT_FOUND;
    emu_dev_t *d = emu->devs[index];
    if (d->unplugged)
        return GR_OK;
    /* The node and its sysfs entry stay: umockdev cannot take a node away from a client that
     * has it open (the client would be killed), and the kernel leaves an open file of a gone
     * device in place too, answering ENODEV, which is what libusb sees here. */
    pthread_mutex_lock(&d->lock);
    d->unplugged = true;
    pthread_mutex_unlock(&d->lock);
    return GR_OK;
}

int gr_usb_emu_stats(gr_usb_emu_t *emu, unsigned index, gr_usb_emu_stats_t *out_stats)
{
    if (!emu || !out_stats)
        return GR_E_INVALID;
    if (index >= emu->ndevs)
        return GR_E_NOT_FOUND;
    emu_dev_t *d = emu->devs[index];
    pthread_mutex_lock(&d->lock);
    *out_stats = d->stats;
    pthread_mutex_unlock(&d->lock);
    return GR_OK;
}

int gr_usb_emu_set_eeprom(gr_usb_emu_t *emu, unsigned index, const uint8_t *image, size_t bytes)
{
    if (!emu || !image || (bytes != 128 && bytes != FT2232H_EEPROM_BYTES))
        return GR_E_INVALID;
    if (index >= emu->ndevs)
        return GR_E_NOT_FOUND;
    emu_dev_t *d = emu->devs[index];
    if (d->kind != GR_BOARD_FT2232H)
        return GR_E_INVALID;
    /* The handler runs on umockdev's thread: set it before a client opens the device. */
    for (size_t at = 0; at < FT2232H_EEPROM_BYTES; at += bytes)
        memcpy(d->eeprom + at, image, bytes);
    d->fifo_a = eeprom_fifo_a(d->eeprom);
    return GR_OK;
}

uint64_t gr_usb_emu_cycles(gr_usb_emu_t *emu, unsigned index)
{
    if (!emu || index >= emu->ndevs)
        return 0;
    emu_dev_t *d = emu->devs[index];
    pthread_mutex_lock(&d->lock);
    uint64_t c = gr_board_cycle(d->board);
    pthread_mutex_unlock(&d->lock);
    return c;
}

void gr_usb_emu_destroy(gr_usb_emu_t *emu)
{
    if (!emu)
        return;
    for (unsigned i = 0; i < emu->ndevs; i++) {
        emu_dev_t *d = emu->devs[i];
        umockdev_testbed_detach_ioctl(emu->testbed, d->devnode, NULL);
        for (unsigned j = 0; j < d->nurbs; j++)
            g_object_unref(d->urbs[j].data);
        for (unsigned j = 0; j < EMU_MAX_IFACES; j++)
            claim_drop(d, j);
        g_object_unref(d->handler);
        gr_board_destroy(d->board);
        pthread_mutex_destroy(&d->lock);
        free(d);
    }
    g_object_unref(emu->testbed);
    free(emu);
}
