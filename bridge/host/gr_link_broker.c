/* SPDX-License-Identifier: Apache-2.0 */
/* gr_link_broker.c: broker://, the client's end of gpuref-broker's socket (gr_link_broker.h;
 * the messages: gr_broker_wire.h). */
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#include "gr_link_broker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "gr_broker_wire.h"

typedef struct brk_link {
    int fd;
    bool dead;
    bool raw; /* the broker lent this connection the device (a raw access was granted) */
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    gr_brk_hello_rsp_t hello;
} brk_link_t;

static const char *const broker_keys[] = {NULL};

static int brk_io(brk_link_t *b, bool out, void *buf, size_t len)
{
    uint8_t *p = buf;
    while (len) {
        ssize_t n = out ? send(b->fd, p, len, MSG_NOSIGNAL) : recv(b->fd, p, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            b->dead = true;
            gr_link_set_error("broker://%s: the broker %s (%s)", b->path, n == 0 ? "closed the connection" : "cannot be reached",
                              n == 0 ? "it stopped, or refused this client" : strerror(errno));
            return GR_E_LINK;
        }
        p += n;
        len -= (size_t)n;
    }
    return GR_OK;
}

/* Reads and drops n bytes (an answer longer than the caller's room). */
static int brk_skip(brk_link_t *b, size_t n)
{
    uint8_t junk[4096];
    while (n) {
        size_t k = n < sizeof junk ? n : sizeof junk;
        int rc = brk_io(b, false, junk, k);
        if (rc)
            return rc;
        n -= k;
    }
    return GR_OK;
}

static int brk_call(brk_link_t *b, uint32_t op, const void *req, size_t req_len, const void *tail, size_t tail_len,
                    const void *tail2, size_t tail2_len, void *rsp, size_t rsp_len, void *rsp_tail, size_t rsp_tail_cap,
                    size_t *out_rsp_tail_len)
{
    if (b->dead) {
        gr_link_set_error("broker://%s: the connection to the broker is gone", b->path);
        return GR_E_LINK;
    }
    size_t total = req_len + tail_len + tail2_len;
    if (total > GR_BRK_MAX_PAYLOAD) {
        gr_link_set_error("broker://%s: a request of %zu bytes (a frame carries at most %u)", b->path, total,
                          GR_BRK_MAX_PAYLOAD);
        return GR_E_RANGE;
    }
    gr_brk_req_hdr_t h = {op, (uint32_t)total};
    struct iovec iov[4] = {{&h, sizeof h}, {(void *)(uintptr_t)req, req_len}, {(void *)(uintptr_t)tail, tail_len},
                           {(void *)(uintptr_t)tail2, tail2_len}};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = 4};
    size_t left = sizeof h + total;
    while (left) {
        ssize_t n = sendmsg(b->fd, &m, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            b->dead = true;
            gr_link_set_error("broker://%s: cannot send to the broker: %s", b->path, strerror(errno));
            return GR_E_LINK;
        }
        left -= (size_t)n;
        while (n > 0 && m.msg_iovlen) {
            if ((size_t)n >= m.msg_iov->iov_len) {
                n -= (ssize_t)m.msg_iov->iov_len;
                m.msg_iov++;
                m.msg_iovlen--;
            } else {
                m.msg_iov->iov_base = (uint8_t *)m.msg_iov->iov_base + n;
                m.msg_iov->iov_len -= (size_t)n;
                n = 0;
            }
        }
    }
    gr_brk_rsp_hdr_t r;
    int rc = brk_io(b, false, &r, sizeof r);
    if (rc)
        return rc;
    if (r.bytes > GR_BRK_MAX_PAYLOAD) {
        b->dead = true;
        gr_link_set_error("broker://%s: an answer of %u bytes (at most %u): not a gpuref broker", b->path, r.bytes,
                          GR_BRK_MAX_PAYLOAD);
        return GR_E_IO;
    }
    if (r.status != GR_OK) {
        char msg[400];
        size_t k = r.bytes < sizeof msg - 1 ? r.bytes : sizeof msg - 1;
        if ((rc = brk_io(b, false, msg, k)) || (rc = brk_skip(b, r.bytes - k)))
            return rc;
        msg[k] = 0;
        gr_link_set_error("%s", k ? msg : gr_strerror(r.status));
        return r.status;
    }
    if (r.bytes < rsp_len || r.bytes - rsp_len > rsp_tail_cap) {
        (void)brk_skip(b, r.bytes);
        gr_link_set_error("broker://%s: op %u answered %u bytes (expected %zu to %zu)", b->path, op, r.bytes, rsp_len,
                          rsp_len + rsp_tail_cap);
        return GR_E_IO;
    }
    if ((rc = brk_io(b, false, rsp, rsp_len)))
        return rc;
    size_t rest = r.bytes - rsp_len;
    if (rest && (rc = brk_io(b, false, rsp_tail, rest)))
        return rc;
    if (out_rsp_tail_len)
        *out_rsp_tail_len = rest;
    return GR_OK;
}

static int broker_open(const gr_uri_t *uri, void **out_ctx)
{
    if (!uri->path[0]) {
        gr_link_set_error("broker:// needs the broker's socket: broker:///run/gpuref/gpu0.sock "
                          "(gpuref-broker --socket PATH URI starts one)");
        return GR_E_BAD_URI;
    }
    brk_link_t *b = calloc(1, sizeof *b);
    if (!b)
        return GR_E_NO_MEMORY;
    if (strlen(uri->path) >= sizeof b->path) {
        gr_link_set_error("broker://%s: socket path longer than %zu bytes", uri->path, sizeof b->path - 1);
        free(b);
        return GR_E_BAD_URI;
    }
    strcpy(b->path, uri->path);
    b->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (b->fd < 0) {
        gr_link_set_error("broker://%s: socket: %s", b->path, strerror(errno));
        free(b);
        return GR_E_IO;
    }
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, b->path, strlen(b->path) + 1);
    if (connect(b->fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int e = errno;
        gr_link_set_error("broker://%s: cannot connect: %s (is gpuref-broker running? gpuref-broker --socket %s URI &;"
                          " a socket of another user's needs its group: gpuref-broker --group)",
                          b->path, strerror(e), b->path);
        close(b->fd);
        free(b);
        return GR_E_NO_DEVICE;
    }
    gr_brk_hello_t hello = {GR_BRK_MAGIC, GR_BRK_VERSION, GR_BRK_LAYOUT, (uint32_t)getpid()};
    int rc = brk_call(b, GR_BRK_HELLO, &hello, sizeof hello, NULL, 0, NULL, 0, &b->hello, sizeof b->hello, NULL, 0,
                      NULL);
    if (!rc && (b->hello.magic != GR_BRK_MAGIC || b->hello.version != GR_BRK_VERSION ||
                b->hello.layout != GR_BRK_LAYOUT)) {
        gr_link_set_error("broker://%s: the broker speaks version %u layout 0x%08x, this library %u layout 0x%08x",
                          b->path, b->hello.version, b->hello.layout, GR_BRK_VERSION, GR_BRK_LAYOUT);
        rc = GR_E_MISMATCH;
    }
    if (rc) {
        close(b->fd);
        free(b);
        return rc;
    }
    b->hello.device[sizeof b->hello.device - 1] = 0;
    *out_ctx = b;
    return GR_OK;
}

static void broker_close(void *ctx)
{
    brk_link_t *b = ctx;
    /* A device lent to this connection goes back to the broker's driver stack before close
     * returns, so that this process's next connection finds it started. */
    if (b->raw) {
        gr_brk_obj_t q = {0};
        (void)brk_call(b, GR_BRK_RAW_RELEASE, &q, sizeof q, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL);
    }
    close(b->fd);
    free(b);
}

static int broker_read32(void *ctx, uint32_t offset, uint32_t *out_value)
{
    gr_brk_obj_t q = {.a = offset};
    uint32_t v;
    int rc = brk_call(ctx, GR_BRK_REG_READ, &q, sizeof q, NULL, 0, NULL, 0, &v, sizeof v, NULL, 0, NULL);
    if (!rc)
        *out_value = v;
    return rc;
}

/* Raw access (host/broker/README.md): the broker lends the device to this connection while
 * nobody else uses it, or refuses with GR_E_BUSY naming who does. */
static int raw_call(brk_link_t *b, uint32_t op, const gr_brk_obj_t *q, const void *tail, size_t tail_len, void *rsp,
                    size_t rsp_len, void *rsp_tail, size_t rsp_tail_cap, size_t *out_rsp_tail_len)
{
    int rc = brk_call(b, op, q, sizeof *q, tail, tail_len, NULL, 0, rsp, rsp_len, rsp_tail, rsp_tail_cap,
                      out_rsp_tail_len);
    /* Anything but a refusal comes after the grant: the device is lent (RAW_RELEASE at close). */
    if (rc != GR_E_BUSY && !b->dead)
        b->raw = true;
    return rc;
}

static int broker_write32(void *ctx, uint32_t offset, uint32_t value)
{
    gr_brk_obj_t q = {.a = offset, .b = value};
    return raw_call(ctx, GR_BRK_REG_WRITE, &q, NULL, 0, NULL, 0, NULL, 0, NULL);
}

static int broker_ap_read(void *ctx, uint64_t offset, void *dst, size_t bytes)
{
    brk_link_t *b = ctx;
    if (bytes > GR_BRK_MAX_PAYLOAD) {
        gr_link_set_error("broker://%s: an aperture read of %zu bytes (one answer carries at most %u)", b->path, bytes,
                          GR_BRK_MAX_PAYLOAD);
        return GR_E_RANGE;
    }
    gr_brk_obj_t q = {.x = offset, .y = bytes};
    size_t got = 0;
    int rc = raw_call(b, GR_BRK_AP_READ, &q, NULL, 0, NULL, 0, dst, bytes, &got);
    if (!rc && got != bytes) {
        gr_link_set_error("broker://%s: an aperture read of %zu bytes answered %zu", b->path, bytes, got);
        return GR_E_IO;
    }
    return rc;
}

static int broker_ap_write(void *ctx, uint64_t offset, const void *src, size_t bytes)
{
    brk_link_t *b = ctx;
    if (bytes > GR_BRK_MAX_PAYLOAD - sizeof(gr_brk_obj_t)) {
        gr_link_set_error("broker://%s: an aperture write of %zu bytes (one request carries at most %zu)", b->path,
                          bytes, GR_BRK_MAX_PAYLOAD - sizeof(gr_brk_obj_t));
        return GR_E_RANGE;
    }
    gr_brk_obj_t q = {.x = offset};
    return raw_call(b, GR_BRK_AP_WRITE, &q, src, bytes, NULL, 0, NULL, 0, NULL);
}

static int broker_dma_alloc(void *ctx, size_t bytes, gr_dma_buf_t *out_buf)
{
    (void)out_buf;
    gr_link_set_error("broker://%s: no host memory the device reaches in this process (%zu bytes asked): the broker's "
                      "driver stack keeps it",
                      ((brk_link_t *)ctx)->path, bytes);
    return GR_E_UNSUPPORTED;
}

static int broker_dma_free(void *ctx, const gr_dma_buf_t *buf)
{
    (void)ctx;
    (void)buf;
    return GR_E_INVALID;
}

static int broker_wait_irq(void *ctx, uint32_t timeout_us, bool *out_raised)
{
    gr_brk_obj_t q = {.a = timeout_us};
    uint32_t v = 0;
    int rc = raw_call(ctx, GR_BRK_WAIT_IRQ, &q, NULL, 0, &v, sizeof v, NULL, 0, NULL);
    if (!rc)
        *out_raised = v != 0;
    return rc;
}

static uint32_t broker_caps(void *ctx)
{
    return ((brk_link_t *)ctx)->hello.link_caps & GR_BRK_LINK_CAPS;
}

static void broker_describe(void *ctx, char *buf, size_t len)
{
    brk_link_t *b = ctx;
    snprintf(buf, len, "broker %s (gpuref-broker pid %u) -> %s", b->path, b->hello.pid, b->hello.device);
}

const gr_link_ops_t gr_link_broker_ops = {
    .scheme = "broker",
    .summary = "gpuref-broker, the daemon that owns a device, over a Unix socket (the gr_* API, many processes)",
    .param_keys = broker_keys,
    .open = broker_open,
    .close = broker_close,
    .read32 = broker_read32,
    .write32 = broker_write32,
    .ap_read = broker_ap_read,
    .ap_write = broker_ap_write,
    .dma_alloc = broker_dma_alloc,
    .dma_free = broker_dma_free,
    .wait_irq = broker_wait_irq,
    .caps = broker_caps,
    .describe = broker_describe,
};

bool gr_link_is_broker(gr_link_t *link)
{
    return gr_link_backend_ctx(link, &gr_link_broker_ops) != NULL;
}

typedef struct brk_call_args {
    uint32_t op;
    const void *req, *tail, *tail2;
    size_t req_len, tail_len, tail2_len;
    void *rsp, *rsp_tail;
    size_t rsp_len, rsp_tail_cap, *out_rsp_tail_len;
} brk_call_args_t;

static int brk_call_locked(void *ctx, void *arg)
{
    brk_call_args_t *a = arg;
    return brk_call(ctx, a->op, a->req, a->req_len, a->tail, a->tail_len, a->tail2, a->tail2_len, a->rsp, a->rsp_len,
                    a->rsp_tail, a->rsp_tail_cap, a->out_rsp_tail_len);
}

int gr_link_broker_call(gr_link_t *link, uint32_t op, const void *req, size_t req_len, const void *tail,
                        size_t tail_len, const void *tail2, size_t tail2_len, void *rsp, size_t rsp_len,
                        void *rsp_tail, size_t rsp_tail_cap, size_t *out_rsp_tail_len)
{
    brk_call_args_t a = {op, req, tail, tail2, req_len, tail_len, tail2_len, rsp, rsp_tail, rsp_len, rsp_tail_cap,
                         out_rsp_tail_len};
    return gr_link_backend_call(link, &gr_link_broker_ops, brk_call_locked, &a);
}
