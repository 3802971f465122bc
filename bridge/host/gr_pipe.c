/* SPDX-License-Identifier: Apache-2.0 */
/* gr_pipe.c: the file-descriptor pipe and the fault-injecting wrapper (see gr_pipe.h). */
#define _POSIX_C_SOURCE 200809L
#include "gr_pipe.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gr_link.h"

/* ---- file descriptor ------------------------------------------------------------------- */

typedef struct fd_pipe {
    int fd;
    bool not_socket; /* a tty: write(2); a socket: send(2) without SIGPIPE */
    char name[GR_URI_TEXT_MAX];
    int (*reopen)(void *arg, int *inout_fd);
    void *arg;
    void (*release)(void *arg);
} fd_pipe_t;

static int fd_write(void *ctx, const void *buf, size_t len)
{
    fd_pipe_t *p = ctx;
    const unsigned char *b = buf;
    while (len) {
        if (p->fd < 0)
            return GR_E_IO;
        /* A peer gone must be an error status, never SIGPIPE killing the process. */
        ssize_t n = p->not_socket ? write(p->fd, b, len) : send(p->fd, b, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK) {
            p->not_socket = true;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pfd = {.fd = p->fd, .events = POLLOUT};
            (void)poll(&pfd, 1, 100);
            continue;
        }
        if (n <= 0) {
            gr_link_set_error("%s: write: %s", p->name, n < 0 ? strerror(errno) : "closed");
            return GR_E_IO;
        }
        b += n;
        len -= (size_t)n;
    }
    return GR_OK;
}

static int fd_read(void *ctx, void *buf, size_t max, uint32_t timeout_ms, size_t *out_len)
{
    fd_pipe_t *p = ctx;
    if (p->fd < 0)
        return GR_E_IO;
    struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
    int r = poll(&pfd, 1, (int)timeout_ms);
    if (r < 0 && errno == EINTR)
        r = 0;
    if (r < 0) {
        gr_link_set_error("%s: poll: %s", p->name, strerror(errno));
        return GR_E_IO;
    }
    if (r == 0) {
        *out_len = 0;
        return GR_OK;
    }
    ssize_t n = read(p->fd, buf, max);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
        *out_len = 0;
        return GR_OK;
    }
    if (n <= 0) {
        gr_link_set_error("%s: %s", p->name, n < 0 ? strerror(errno) : "the peer closed the connection");
        return GR_E_IO;
    }
    *out_len = (size_t)n;
    return GR_OK;
}

static int fd_reopen(void *ctx)
{
    fd_pipe_t *p = ctx;
    if (!p->reopen)
        return GR_E_UNSUPPORTED;
    p->not_socket = false;
    return p->reopen(p->arg, &p->fd);
}

static void fd_close(void *ctx)
{
    fd_pipe_t *p = ctx;
    if (p->release) /* first: it may still act on the fd (uart:// lets the tty's exclusivity go) */
        p->release(p->arg);
    if (p->fd >= 0)
        close(p->fd);
    free(p);
}

static const gr_pipe_ops_t fd_ops = {fd_write, fd_read, fd_reopen, fd_close};

int gr_pipe_fd_create(int fd, const char *name, int (*reopen)(void *arg, int *inout_fd),
                      void *reopen_arg, void (*release)(void *arg), gr_pipe_t *out_pipe)
{
    fd_pipe_t *p = calloc(1, sizeof *p);
    if (!p)
        return GR_E_NO_MEMORY;
    p->fd = fd;
    strncpy(p->name, name ? name : "pipe", sizeof p->name - 1);
    p->reopen = reopen;
    p->arg = reopen_arg;
    p->release = release;
    out_pipe->ops = &fd_ops;
    out_pipe->ctx = p;
    return GR_OK;
}

/* ---- fault injection ------------------------------------------------------------------- */

typedef struct fault_pipe {
    gr_pipe_t inner;
    double rate;
    unsigned granule;  /* bytes are lost, repeated and moved in whole units of this */
    uint64_t rx_pos;   /* bytes taken from the inner pipe: where its units start */
    uint64_t tx_rng, rx_rng; /* one stream per direction: reads and writes run on two threads */
    unsigned char *held;     /* a write held back to go after the next one (reorder) */
    size_t held_len;
    gr_pipe_fault_counts_t counts;
} fault_pipe_t;

/* splitmix64: small, fast, good enough to spread faults, and the same on every platform. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static bool rng_hit(uint64_t *s, double rate)
{
    return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0) < rate;
}

static int fault_write(void *ctx, const void *buf, size_t len)
{
    fault_pipe_t *f = ctx;
    const gr_pipe_ops_t *in = f->inner.ops;
    if (len == 0)
        return GR_OK;
    int rc = GR_OK;
    unsigned char *copy = NULL;
    if (rng_hit(&f->tx_rng, f->rate)) {
        switch (rng_next(&f->tx_rng) % 4) {
        case 0: /* lost: the whole write, or its tail from a random unit */
            f->counts.tx_drops++;
            len = rng_next(&f->tx_rng) % 2 ? 0 : (size_t)(rng_next(&f->tx_rng) % len);
            len -= len % f->granule;
            break;
        case 1: /* one bit flipped */
            f->counts.tx_corrupts++;
            copy = malloc(len);
            if (!copy)
                return GR_E_NO_MEMORY;
            memcpy(copy, buf, len);
            copy[rng_next(&f->tx_rng) % len] ^= (unsigned char)(1u << (rng_next(&f->tx_rng) % 8));
            buf = copy;
            break;
        case 2: /* sent twice */
            f->counts.tx_dups++;
            rc = in->write(f->inner.ctx, buf, len);
            break;
        default: /* held back, sent after the next write */
            if (!f->held) {
                f->counts.tx_reorders++;
                f->held = malloc(len);
                if (!f->held)
                    return GR_E_NO_MEMORY;
                memcpy(f->held, buf, len);
                f->held_len = len;
                return GR_OK;
            }
            break;
        }
    }
    if (!rc && len)
        rc = in->write(f->inner.ctx, buf, len);
    free(copy);
    if (!rc && f->held) {
        unsigned char *h = f->held;
        f->held = NULL;
        rc = in->write(f->inner.ctx, h, f->held_len);
        free(h);
    }
    return rc;
}

static int fault_read(void *ctx, void *buf, size_t max, uint32_t timeout_ms, size_t *out_len)
{
    fault_pipe_t *f = ctx;
    size_t n = 0;
    /* Read at most half, so that a repeated run still fits the caller's buffer. */
    int rc = f->inner.ops->read(f->inner.ctx, buf, max > 1 ? max / 2 : max, timeout_ms, &n);
    if (rc || n == 0 || !rng_hit(&f->rx_rng, f->rate)) {
        if (!rc)
            *out_len = n;
        return rc;
    }
    unsigned char *b = buf;
    size_t g = f->granule;
    uint64_t pos = f->rx_pos;
    f->rx_pos += n;
    /* The first unit boundary in this chunk, and whole units from there. */
    size_t first = (size_t)((g - pos % g) % g);
    if (first + g > n) {
        *out_len = n;
        return GR_OK;
    }
    size_t units = (n - first) / g;
    size_t whole = first + units * g; /* the end of the last whole unit */
    size_t at = first + g * (size_t)(rng_next(&f->rx_rng) % units);
    size_t avail = (whole - at) / g;
    size_t run = g * (1 + (size_t)(rng_next(&f->rx_rng) % (avail < 64 / g ? avail : 64 / g)));
    switch (rng_next(&f->rx_rng) % 4) {
    case 0: /* a run of bytes lost */
        f->counts.rx_drops++;
        memmove(b + at, b + at + run, n - at - run);
        n -= run;
        break;
    case 1:
        f->counts.rx_corrupts++;
        b[at] ^= (unsigned char)(1u << (rng_next(&f->rx_rng) % 8));
        break;
    case 2: /* a run repeated */
        if (n + run > max)
            break;
        f->counts.rx_dups++;
        memmove(b + at + run, b + at, n - at);
        n += run;
        break;
    default: { /* the run and the bytes after it swap places */
        f->counts.rx_reorders++;
        size_t rest = whole - at - run;
        unsigned char tmp[64];
        memcpy(tmp, b + at, run);
        memmove(b + at, b + at + run, rest);
        memcpy(b + at + rest, tmp, run);
        break;
    }
    }
    *out_len = n;
    return GR_OK;
}

static int fault_reopen(void *ctx)
{
    fault_pipe_t *f = ctx;
    free(f->held);
    f->held = NULL;
    return f->inner.ops->reopen ? f->inner.ops->reopen(f->inner.ctx) : GR_E_UNSUPPORTED;
}

static void fault_close(void *ctx)
{
    fault_pipe_t *f = ctx;
    f->inner.ops->close(f->inner.ctx);
    free(f->held);
    free(f);
}

static const gr_pipe_ops_t fault_ops = {fault_write, fault_read, fault_reopen, fault_close};

int gr_pipe_faults_create(gr_pipe_t inner, uint64_t seed, double rate, gr_pipe_t *out_pipe)
{
    return gr_pipe_faults_create_units(inner, seed, rate, 1, out_pipe);
}

int gr_pipe_faults_create_units(gr_pipe_t inner, uint64_t seed, double rate, unsigned unit,
                                gr_pipe_t *out_pipe)
{
    if (!(rate >= 0.0 && rate <= 0.5) || !out_pipe || (unit != 1 && unit != 4))
        return GR_E_INVALID;
    fault_pipe_t *f = calloc(1, sizeof *f);
    if (!f)
        return GR_E_NO_MEMORY;
    f->inner = inner;
    f->rate = rate;
    f->granule = unit;
    f->tx_rng = seed * 2 + 1;
    f->rx_rng = seed * 2 + 2;
    out_pipe->ops = &fault_ops;
    out_pipe->ctx = f;
    return GR_OK;
}

void gr_pipe_fault_counts(const gr_pipe_t *pipe, gr_pipe_fault_counts_t *out_counts)
{
    memset(out_counts, 0, sizeof *out_counts);
    if (pipe && pipe->ops == &fault_ops)
        *out_counts = ((const fault_pipe_t *)pipe->ctx)->counts;
}

int gr_pipe_faults_parse(const char *text, uint64_t *out_seed, double *out_rate)
{
    if (!text)
        return GR_E_BAD_URI;
    char *end = NULL;
    errno = 0;
    unsigned long long seed = strtoull(text, &end, 0);
    if (errno || end == text || *end != ':' || text[0] == '-')
        return GR_E_BAD_URI;
    const char *r = end + 1;
    double rate = strtod(r, &end);
    if (end == r)
        return GR_E_BAD_URI;
    if (*end == '%') {
        rate /= 100.0;
        end++;
    }
    if (*end || !(rate >= 0.0 && rate <= 0.5))
        return GR_E_BAD_URI;
    *out_seed = seed;
    *out_rate = rate;
    return GR_OK;
}
