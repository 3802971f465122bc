/* SPDX-License-Identifier: Apache-2.0 */
/* gr_link_uart.c: uart://, a raw 8N1 tty under the protocol engine (see gr_link_uart.h). */
#define _GNU_SOURCE
#include "gr_link_uart.h"

#include <asm/termbits.h> /* struct termios2, BOTHER: any baud rate (not with <termios.h>) */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/serial.h> /* struct serial_struct, ASYNC_LOW_LATENCY */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "gr_proto.h"

static const char *const uart_keys[] = {"baud", GR_PROTO_URI_KEYS, NULL};

typedef struct uart_dev {
    char path[GR_URI_TEXT_MAX];
    uint32_t baud;
    int fd; /* the line as uart_setup last opened it (-1: none) */
} uart_dev_t;

/* FTDI's USB UARTs (the ULX3S's FT231X) send bytes that do not fill a USB packet only when
 * their latency timer runs out, 16 ms by ftdi_sio's default: every short answer would wait up
 * to 16 ms. With ASYNC_LOW_LATENCY set, ftdi_sio programs the timer to 1 ms; the flag is one a
 * user may set without privileges (ASYNC_USR_MASK). A tty without the ioctl (a pty, most
 * native UARTs) has no such timer, and one that refuses it still works, only slower. */
static void uart_low_latency(int fd)
{
    struct serial_struct ss;
    if (ioctl(fd, TIOCGSERIAL, &ss) != 0 || (ss.flags & ASYNC_LOW_LATENCY))
        return;
    ss.flags |= ASYNC_LOW_LATENCY;
    (void)ioctl(fd, TIOCSSERIAL, &ss);
}

/* One driver stack per line: the tty is opened for this link alone, as the OS enforces it
 * (bridge/README.md, "One driver stack per device"). flock(LOCK_EX) answers another uart:// on
 * the line, in any process; TIOCEXCL makes the kernel refuse any further open of the tty with
 * EBUSY (a terminal program too; root is let through, and meets the flock if it is uart://). */
static int uart_exclusive(const uart_dev_t *u, int fd)
{
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        gr_link_set_error("uart://%s: %s is in use by another program: another driver stack holds "
                          "the line (%s; gpuref-broker shares one device among programs)",
                          u->path, u->path, strerror(e));
        return GR_E_BUSY;
    }
    struct termios2 t;
    if (ioctl(fd, TCGETS2, &t) != 0) {
        int e = errno;
        gr_link_set_error("uart://%s: %s is not a serial line (%s)", u->path, u->path, strerror(e));
        return GR_E_IO;
    }
    if (ioctl(fd, TIOCEXCL) != 0) {
        int e = errno;
        gr_link_set_error("uart://%s: cannot open %s exclusively (TIOCEXCL): %s", u->path, u->path,
                          strerror(e));
        return GR_E_IO;
    }
    return GR_OK;
}

/* Opens, locks and configures the tty: raw 8N1, no flow control, the baud rate exactly, and
 * low latency where the driver has it. A reopen (the line came back) lets the old descriptor's
 * hold go first, or the kernel would refuse this process's own open. */
static int uart_setup(void *arg, int *inout_fd)
{
    uart_dev_t *u = arg;
    if (*inout_fd >= 0) {
        (void)ioctl(*inout_fd, TIOCNXCL);
        (void)flock(*inout_fd, LOCK_UN);
    }
    int fd = open(u->path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == EBUSY)
            gr_link_set_error("uart://%s: %s is in use by another program, which opened it "
                              "exclusively (%s): one driver stack per line",
                              u->path, u->path, strerror(e));
        else
            gr_link_set_error("uart://%s: cannot open %s: %s%s", u->path, u->path, strerror(e),
                              e == EACCES ? " (is this user in the tty's group, often dialout?)" : "");
        return e == ENOENT || e == ENXIO || e == ENODEV ? GR_E_NO_DEVICE
               : e == EBUSY                             ? GR_E_BUSY
                                                        : GR_E_IO;
    }
    int rc = uart_exclusive(u, fd);
    if (rc) {
        close(fd);
        return rc;
    }
    struct termios2 t;
    if (ioctl(fd, TCGETS2, &t) != 0) {
        int e = errno;
        close(fd);
        gr_link_set_error("uart://%s: cannot read the line's settings: %s", u->path, strerror(e));
        return GR_E_IO;
    }
    t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON |
                             IXOFF | IXANY | INPCK);
    t.c_oflag &= ~(tcflag_t)OPOST;
    t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
    t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS | CBAUD | (CBAUD << IBSHIFT));
    t.c_cflag |= CS8 | CREAD | CLOCAL | BOTHER | (BOTHER << IBSHIFT);
    t.c_ispeed = t.c_ospeed = u->baud;
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    if (ioctl(fd, TCSETS2, &t) != 0) {
        int e = errno;
        close(fd);
        gr_link_set_error("uart://%s: cannot set %u baud 8N1 raw: %s", u->path, u->baud,
                          strerror(e));
        return GR_E_IO;
    }
    uart_low_latency(fd);
    /* Whatever an earlier program left in the buffers is not this link's. */
    ioctl(fd, TCFLSH, TCIOFLUSH);
    if (*inout_fd >= 0)
        close(*inout_fd);
    *inout_fd = fd;
    u->fd = fd;
    return GR_OK;
}

/* At close: the kernel keeps a tty's TIOCEXCL until its last close, and another program (the
 * serial server behind a pty, a getty) may hold the line open: the flag goes with this link. */
static void uart_release(void *arg)
{
    uart_dev_t *u = arg;
    if (u->fd >= 0)
        (void)ioctl(u->fd, TIOCNXCL);
    free(u);
}

static int uart_open(const gr_uri_t *uri, void **out_ctx)
{
    if (!uri->path[0]) {
        gr_link_set_error("uart:// needs a device path: uart:///dev/ttyUSB0?baud=%u",
                          GR_UART_DEFAULT_BAUD);
        return GR_E_BAD_URI;
    }
    uart_dev_t *u = calloc(1, sizeof *u);
    if (!u)
        return GR_E_NO_MEMORY;
    snprintf(u->path, sizeof u->path, "%s", uri->path);
    u->baud = GR_UART_DEFAULT_BAUD;
    u->fd = -1;
    const char *b = gr_uri_param(uri, "baud");
    if (b) {
        char *end = NULL;
        errno = 0;
        unsigned long v = strtoul(b, &end, 10);
        if (errno || !isdigit((unsigned char)b[0]) || *end || v < 50 || v > 100000000ul) {
            gr_link_set_error("uart://%s: bad value '%s' for baud (50..100000000)", u->path, b);
            free(u);
            return GR_E_BAD_URI;
        }
        u->baud = (uint32_t)v;
    }
    /* A largest frame (1029 words) takes this long on the line, both ways. */
    uint64_t frame_ms = (4ull * 1029u * 10u * 1000u + u->baud - 1u) / u->baud;
    char name[GR_URI_TEXT_MAX + 8];
    snprintf(name, sizeof name, "uart://%s", u->path);
    gr_proto_opts_t o;
    gr_proto_opts_default(&o, (uint32_t)(3u * frame_ms + 50u), name);
    if (o.dead_ms < 4u * o.replay_ms)
        o.dead_ms = 4u * o.replay_ms;
    int rc = gr_proto_opts_from_uri(uri, &o);
    int fd = -1;
    if (!rc)
        rc = uart_setup(u, &fd);
    if (rc) {
        free(u);
        return rc;
    }
    gr_pipe_t pipe;
    rc = gr_pipe_fd_create(fd, name, uart_setup, u, uart_release, &pipe);
    if (rc) {
        (void)ioctl(fd, TIOCNXCL);
        close(fd);
        free(u);
        return rc;
    }
    gr_proto_t *p = NULL;
    rc = gr_proto_open(pipe, &o, &p);
    if (rc)
        return rc;
    *out_ctx = p;
    return GR_OK;
}

const gr_link_ops_t gr_link_uart_ops = {
    .scheme = "uart",
    .summary = "a serial line (raw 8N1) to a board, or gpuref-simd --pty",
    .param_keys = uart_keys,
    .open = uart_open,
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
