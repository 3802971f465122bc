/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_link_proto: the link protocol's host end (bridge/host/gr_proto*.c) against its C device
 * end (gr_proto_dev.c) over a socketpair, clean and with faults injected at every rate class,
 * and the simd:// and uart:// backends' URIs.
 *
 * The device end serves a small register and memory model whose effects show any transaction
 * applied twice or lost: ACC adds every value written to it (a duplicated write shows in the
 * sum), the device counts answers to its DMA requests by tag (a DMA write served twice or never
 * shows), and a mailbox takes a sequence of DMA writes whose last value must win.
 * With --simd PATH it also runs gpuref-simd --connect in front of the model and checks the
 * server's switch: two clients, ids, DMA windows, interrupts, a client leaving, SIGTERM.
 * Usage: test_link_proto [--seed N] [--simd PATH] (seed default $GR_TEST_SEED, else 1).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/serial.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "gpuref/gr_status.h"
#include "gr_link.h"
#include "gr_link_simd.h"
#include "gr_link_uart.h"
#include "gr_pipe.h"
#include "gr_proto.h"
#include "gr_proto_dev.h"
#include "gr_proto_frame.h"

static unsigned long long seed = 1;

/* ---- the device model ------------------------------------------------------------------- */

enum {
    R_MAGIC = 0x00, R_SCRATCH = 0x20, R_ACC = 0x24, R_ACC_WRITES = 0x28,
    R_ERR = 0x30,       /* any access: SLVERR */
    R_DMA_LO = 0x40, R_DMA_HI = 0x44, R_DMA_WORDS = 0x48,
    R_DMA_GO = 0x4c,    /* 1: write pattern, 2: read and sum, 3: mailbox 1..WORDS, 4: one DMA_WR
                           of WORDS words (bursts joined), 0xb6000000 + k */
    R_DMA_SUM = 0x50, R_DMA_DONE = 0x54, R_DMA_ERRS = 0x58, R_DMA_DUPS = 0x5c,
    R_IRQ = 0x60,       /* the interrupt line's level */
    R_HANG = 0x64,      /* a read is never answered */
    R_RESET = 0x68,     /* a write makes the device reset the link */
};
#define MAGIC 0x47505552u
#define AP_BYTES (1u << 20)
#define MAX_TAGS 32u

typedef struct model {
    pthread_mutex_t mu;
    pthread_t thread;
    bool stop;
    int fd;
    gr_pipe_t pipe;
    gr_proto_dev_t dev;
    uint32_t scratch, acc, acc_writes, dma_lo, dma_hi, dma_words, dma_sum, dma_done, dma_errs,
        dma_dups, irq;
    uint16_t irq_seq;
    uint8_t ap[AP_BYTES];
    /* the DMA job: requests not yet sent, tags outstanding */
    uint32_t job, job_next, job_count, job_answered;
    bool tag_busy[MAX_TAGS];
    uint32_t tag_index[MAX_TAGS];
    bool reset_asked;
} model_t;

static void answer(model_t *m, uint8_t type, const uint32_t *w, uint16_t len)
{
    gr_proto_dev_send(&m->dev, type, w, len);
}

static void send_irq(model_t *m)
{
    uint32_t w = (m->irq ? 1u << 16 : 0u) | m->irq_seq++;
    answer(m, GR_PT_IRQ, &w, 1);
}

/* Issues the job's next requests while tags are free. */
static void dma_pump(model_t *m)
{
    uint64_t base = (uint64_t)m->dma_hi << 32 | m->dma_lo;
    while (m->job && m->job_next < m->job_count) {
        unsigned tag = 0;
        while (tag < MAX_TAGS && m->tag_busy[tag])
            tag++;
        if (tag == MAX_TAGS)
            return;
        uint32_t i = m->job_next++;
        m->tag_busy[tag] = true;
        m->tag_index[tag] = i;
        uint32_t w[3 + 16];
        if (m->job == 1) { /* 16-word bursts of the pattern i*16+k */
            uint64_t a = base + 64ull * i;
            w[0] = 0xfu << 20 | 0xfu << 16 | tag;
            w[1] = (uint32_t)a;
            w[2] = (uint32_t)(a >> 32);
            for (unsigned k = 0; k < 16; k++)
                w[3 + k] = 0xa5000000u + i * 16 + k;
            answer(m, GR_PT_DMA_WR, w, 19);
        } else if (m->job == 4) { /* one DMA_WR of joined bursts */
            static uint32_t big[3 + 252];
            uint32_t n = m->dma_words > 252 ? 252 : m->dma_words; /* this model's MaxPayload 256 */
            big[0] = 0xfu << 20 | 0xfu << 16 | tag;
            big[1] = (uint32_t)base;
            big[2] = (uint32_t)(base >> 32);
            for (uint32_t k = 0; k < n; k++)
                big[3 + k] = 0xb6000000u + k;
            answer(m, GR_PT_DMA_WR, big, (uint16_t)(3 + n));
        } else if (m->job == 2) {
            uint64_t a = base + 64ull * i;
            uint32_t r[4] = {tag, (uint32_t)a, (uint32_t)(a >> 32), 16};
            answer(m, GR_PT_DMA_RD, r, 4);
        } else { /* mailbox: one word, values 1..count in order */
            w[0] = 0xfu << 16 | tag;
            w[1] = (uint32_t)base;
            w[2] = (uint32_t)(base >> 32);
            w[3] = i + 1;
            answer(m, GR_PT_DMA_WR, w, 4);
        }
    }
}

static void dma_answer(model_t *m, uint8_t type, const uint32_t *w, uint16_t len)
{
    unsigned tag = w[0] & 0xffu;
    if (tag >= MAX_TAGS || !m->tag_busy[tag]) {
        m->dma_dups++; /* an answer to a request already answered (or never made) */
        return;
    }
    m->tag_busy[tag] = false;
    if ((w[0] >> 16) & 3u)
        m->dma_errs++;
    else if (type == GR_PT_DMA_RD_RSP)
        for (unsigned k = 1; k < len; k++)
            m->dma_sum += w[k];
    if (++m->job_answered == m->job_count) {
        m->job = 0;
        m->dma_done++;
        m->irq = 1;
        send_irq(m);
    }
    dma_pump(m);
}

static void model_frame(void *ctx, gr_proto_dev_t *d, uint8_t type, const uint32_t *w,
                        uint16_t len)
{
    model_t *m = ctx;
    (void)d;
    static uint32_t r[GR_PROTO_MAX_PAYLOAD];
    if (type == GR_PT_DMA_RD_RSP || type == GR_PT_DMA_WR_RSP) {
        dma_answer(m, type, w, len);
        return;
    }
    if (type == GR_PT_RD32) {
        unsigned count = w[0] >> 16;
        r[0] = w[0];
        for (unsigned i = 0; i < count; i++) {
            uint32_t off = w[1 + i] & 0xffffu, v = 0, resp = 0;
            switch (off) {
            case R_MAGIC: v = MAGIC; break;
            case R_SCRATCH: v = m->scratch; break;
            case R_ACC: v = m->acc; break;
            case R_ACC_WRITES: v = m->acc_writes; break;
            case R_DMA_SUM: v = m->dma_sum; break;
            case R_DMA_DONE: v = m->dma_done; break;
            case R_DMA_ERRS: v = m->dma_errs; break;
            case R_DMA_DUPS: v = m->dma_dups; break;
            case R_IRQ: v = m->irq; break;
            case R_HANG: return;
            case R_ERR: resp = GR_RESP_SLVERR; break;
            default: v = 0;
            }
            r[1 + 2 * i] = resp;
            r[2 + 2 * i] = v;
        }
        answer(m, GR_PT_RD32_RSP, r, (uint16_t)(1 + 2 * count));
    } else if (type == GR_PT_WR32) {
        unsigned count = w[0] >> 16;
        bool posted = w[1] & 1u, failed = false;
        r[0] = w[0];
        for (unsigned i = 0; i < count; i++) {
            uint32_t off = w[2 + 2 * i] & 0xffffu, v = w[3 + 2 * i], resp = 0;
            switch (off) {
            case R_SCRATCH: m->scratch = v; break;
            case R_ACC: m->acc += v; m->acc_writes++; break;
            case R_DMA_LO: m->dma_lo = v; break;
            case R_DMA_HI: m->dma_hi = v; break;
            case R_DMA_WORDS: m->dma_words = v; break;
            case R_DMA_GO:
                m->job = v;
                m->job_next = m->job_answered = 0;
                m->job_count = v == 3 ? m->dma_words : v == 4 ? 1 : m->dma_words / 16;
                m->dma_sum = 0;
                dma_pump(m);
                break;
            case R_IRQ: m->irq = v & 1u; send_irq(m); break;
            case R_RESET: m->reset_asked = true; break;
            case R_ERR: resp = GR_RESP_SLVERR; failed = true; break;
            default: break;
            }
            r[1 + i] = resp;
        }
        if (!posted || failed)
            answer(m, GR_PT_WR32_RSP, r, (uint16_t)(1 + count));
    } else if (type == GR_PT_AP_RD) {
        uint64_t a = (uint64_t)w[2] << 32 | w[1];
        uint32_t n = w[3] & 0xffffu;
        r[0] = w[0] & 0xffffu;
        if (a + 4ull * n > AP_BYTES) {
            r[0] |= (uint32_t)GR_RESP_DECERR << 16;
            answer(m, GR_PT_AP_RD_RSP, r, 1);
            return;
        }
        memcpy(&r[1], m->ap + a, 4u * n);
        answer(m, GR_PT_AP_RD_RSP, r, (uint16_t)(1 + n));
    } else if (type == GR_PT_AP_WR) {
        uint64_t a = (uint64_t)w[2] << 32 | w[1];
        uint32_t n = len - 3u, fbe = (w[0] >> 16) & 0xfu, lbe = (w[0] >> 20) & 0xfu;
        r[0] = w[0] & 0xffffu;
        if (a + 4ull * n > AP_BYTES)
            r[0] |= (uint32_t)GR_RESP_DECERR << 16;
        else
            for (uint32_t i = 0; i < n; i++) {
                uint32_t be = n == 1 ? fbe : i == 0 ? fbe : i == n - 1 ? lbe : 0xfu;
                for (unsigned b = 0; b < 4; b++)
                    if (be & (1u << b))
                        m->ap[a + 4 * i + b] = (uint8_t)(w[3 + i] >> (8 * b));
            }
        if (!((w[0] >> 24) & 1u) || (r[0] >> 16))
            answer(m, GR_PT_AP_WR_RSP, r, 1);
    }
}

static void model_reset(void *ctx, gr_proto_dev_t *d)
{
    model_t *m = ctx;
    (void)d;
    /* As the RTL: outstanding DMA requests are completed toward the core with SLVERR. */
    for (unsigned t = 0; t < MAX_TAGS; t++)
        if (m->tag_busy[t]) {
            m->tag_busy[t] = false;
            m->dma_errs++;
            m->job_answered++;
        }
    if (m->job && m->job_answered >= m->job_count) {
        m->job = 0;
        m->dma_done++;
    }
}

static void model_hello(void *ctx, gr_proto_dev_t *d)
{
    (void)d;
    send_irq(ctx);
}

static const gr_proto_dev_ops_t model_ops = {model_frame, model_reset, model_hello, NULL};

static void *model_run(void *arg)
{
    model_t *m = arg;
    uint8_t buf[16384];
    pthread_mutex_lock(&m->mu);
    while (!m->stop) {
        pthread_mutex_unlock(&m->mu);
        size_t n = 0;
        int rc = m->pipe.ops->read(m->pipe.ctx, buf, sizeof buf, 2, &n);
        pthread_mutex_lock(&m->mu);
        if (rc)
            break;
        uint64_t now = gr_proto_now_ms();
        if (n)
            gr_proto_dev_input(&m->dev, buf, n, now);
        gr_proto_dev_tick(&m->dev, now);
        dma_pump(m);
        if (m->reset_asked) {
            m->reset_asked = false;
            gr_proto_link_restart(&m->dev.link);
            model_reset(m, &m->dev);
            m->dev.up = false;
            uint32_t epoch = 0x77;
            gr_proto_link_ctrl(&m->dev.link, GR_PT_RESET, &epoch, 1);
        }
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

static gr_proto_dev_cfg_t model_cfg(void)
{
    gr_proto_dev_cfg_t c = {
        .max_payload = 256, .rx_window = 2048, .dma_tags = MAX_TAGS,
        .link = GR_PROTO_LINK_STREAM, .bar0_log2 = 16, .bar1_log2 = 20, .core_hz = 100000000,
        .replay_timeout = 2000000, .dma_timeout = 1u << 24, .replay_ms = 30,
    };
    return c;
}

/* Starts the model on fd (it owns it). */
static model_t *model_start(int fd, const gr_proto_dev_cfg_t *cfg)
{
    model_t *m = calloc(1, sizeof *m);
    assert_non_null(m);
    pthread_mutex_init(&m->mu, NULL);
    m->fd = fd;
    assert_int_equal(gr_pipe_fd_create(fd, "model", NULL, NULL, NULL, &m->pipe), GR_OK);
    assert_int_equal(gr_proto_dev_init(&m->dev, &m->pipe, cfg, &model_ops, m), GR_OK);
    assert_int_equal(pthread_create(&m->thread, NULL, model_run, m), 0);
    return m;
}

static void model_stop(model_t *m)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->mu);
    m->stop = true;
    pthread_mutex_unlock(&m->mu);
    pthread_join(m->thread, NULL);
    gr_proto_dev_free(&m->dev);
    m->pipe.ops->close(m->pipe.ctx);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

/* Cuts the model's end of the socket: the host sees the peer gone. */
static void model_kill(model_t *m)
{
    shutdown(m->fd, SHUT_RDWR);
    model_stop(m);
}

static uint32_t model_get(model_t *m, const uint32_t *field)
{
    pthread_mutex_lock(&m->mu);
    uint32_t v = *field;
    pthread_mutex_unlock(&m->mu);
    return v;
}

/* ---- fixture: host engine + model over a socketpair ------------------------------------- */

typedef struct fixture {
    model_t *m;
    gr_proto_t *p;
    int spare_fd; /* the host's end of the next socketpair, for reopen */
} fixture_t;


static int reopen_pair(void *arg, int *inout_fd)
{
    fixture_t *fx = arg;
    if (fx->spare_fd < 0) {
        gr_link_set_error("no device to reconnect to");
        return GR_E_IO;
    }
    close(*inout_fd);
    *inout_fd = fx->spare_fd;
    fx->spare_fd = -1;
    return GR_OK;
}

/* A new model on a fresh socketpair whose host end the next reopen takes. */
static void model_restart(fixture_t *fx)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    gr_proto_dev_cfg_t cfg = model_cfg();
    fx->m = model_start(sv[1], &cfg);
    fx->spare_fd = sv[0];
}

static int fx_open_cfg(fixture_t *fx, const char *faults, uint32_t timeout_ms, bool posted,
                       const gr_proto_dev_cfg_t *cfg)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    fx->spare_fd = -1;
    fx->m = model_start(sv[1], cfg);
    gr_pipe_t pipe;
    assert_int_equal(gr_pipe_fd_create(sv[0], "socketpair", reopen_pair, fx, NULL, &pipe), GR_OK);
    gr_proto_opts_t o;
    gr_proto_opts_default(&o, 30, "socketpair");
    o.timeout_ms = timeout_ms;
    o.dead_ms = 3000;
    o.keepalive_ms = 50;
    o.posted = posted;
    if (faults) {
        assert_int_equal(gr_pipe_faults_parse(faults, &o.fault_seed, &o.fault_rate), GR_OK);
        o.faults = true;
    }
    return gr_proto_open(pipe, &o, &fx->p);
}

static int fx_open(fixture_t *fx, const char *faults, uint32_t timeout_ms, bool posted)
{
    gr_proto_dev_cfg_t cfg = model_cfg();
    return fx_open_cfg(fx, faults, timeout_ms, posted, &cfg);
}

static void fx_close(fixture_t *fx)
{
    gr_proto_close(fx->p);
    model_stop(fx->m);
    if (fx->spare_fd >= 0)
        close(fx->spare_fd);
}

/* ---- framing ---------------------------------------------------------------------------- */

static void frames_use_zlib_crc_and_resynchronize_after_garbage(void **state)
{
    (void)state;
    /* The CRC is zlib's: the check value of "123456789". */
    assert_int_equal(crc32(0, (const Bytef *)"123456789", 9), 0xCBF43926u);
    uint8_t wire[4096];
    size_t n = 0;
    uint32_t pay[3] = {0x11223344u, 0x55667788u, 0x99aabbccu};
    gr_proto_hdr_t h1 = {.type = GR_PT_RD32, .flags = 1, .len = 3, .seq = 7, .ack = 9};
    gr_proto_hdr_t h2 = {.type = GR_PT_ACK, .len = 0, .ack = 0x1234};
    /* garbage with a false SYNC, a good frame, a frame with a corrupted header, a frame with a
     * corrupted payload, a frame missing a byte, then a good control frame */
    static const uint8_t junk[] = {0x00, 0x47, 0x52, 0xa5, 0x5a, 0x01, 0x02, 0x03, 0x04,
                                   0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d};
    memcpy(wire, junk, sizeof junk);
    n = sizeof junk;
    size_t f1 = n;
    n += gr_proto_frame_encode(wire + n, &h1, pay);
    assert_int_equal(n - f1, 16 + 12 + 4);
    assert_int_equal(wire[f1], 0x47);
    assert_int_equal(wire[f1 + 3], 0x5a);
    /* HCRC is crc32 of words 1..2 as they are on the wire */
    uint32_t hcrc = (uint32_t)crc32(0, wire + f1 + 4, 8);
    assert_memory_equal(wire + f1 + 12, &hcrc, 4);
    size_t f2 = n;
    n += gr_proto_frame_encode(wire + n, &h1, pay);
    wire[f2 + 6] ^= 0x01; /* LEN corrupted: the header CRC catches it */
    size_t f3 = n;
    n += gr_proto_frame_encode(wire + n, &h1, pay);
    wire[f3 + 20] ^= 0x80; /* payload corrupted */
    size_t f4 = n;
    n += gr_proto_frame_encode(wire + n, &h1, pay);
    memmove(wire + f4 + 18, wire + f4 + 19, n - f4 - 19); /* a byte lost */
    n--;
    n += gr_proto_frame_encode(wire + n, &h2, NULL);
    gr_proto_rx_t rx;
    assert_int_equal(gr_proto_rx_init(&rx, 1024), 0);
    /* fed one byte at a time: the receiver must not depend on how bytes arrive */
    int frames = 0, bad = 0;
    gr_proto_hdr_t got[4];
    for (size_t i = 0; i < n; i++) {
        size_t room;
        uint8_t *dst = gr_proto_rx_space(&rx, &room);
        *dst = wire[i];
        gr_proto_rx_commit(&rx, 1);
        gr_proto_hdr_t h;
        gr_proto_rx_event_t ev;
        while ((ev = gr_proto_rx_next(&rx, &h)) != GR_RX_NONE) {
            if (ev == GR_RX_BAD_PCRC)
                bad++;
            else {
                assert_true(frames < 4);
                got[frames++] = h;
                if (h.len)
                    assert_memory_equal(rx.payload, pay, sizeof pay);
            }
        }
    }
    assert_int_equal(frames, 2);
    assert_int_equal(got[0].type, GR_PT_RD32);
    assert_int_equal(got[0].seq, 7);
    assert_int_equal(got[0].ack, 9);
    assert_int_equal(got[1].type, GR_PT_ACK);
    assert_int_equal(got[1].ack, 0x1234);
    assert_int_equal(bad, 2); /* the corrupted payload and the short frame */
    assert_int_equal(rx.bad_headers, 2); /* the false SYNC in the garbage, the bad LEN */
    gr_proto_rx_free(&rx);
}

/* ---- transactions on a clean link ------------------------------------------------------- */

static void hello_gives_the_device_parameters(void **state)
{
    (void)state;
    fixture_t fx;
    assert_int_equal(fx_open(&fx, NULL, 2000, true), GR_OK);
    gr_proto_hello_t h;
    gr_proto_hello(fx.p, &h);
    assert_int_equal(h.ver_major, 1);
    assert_int_equal(h.max_payload, 256);
    assert_int_equal(h.rx_window, 2048);
    assert_int_equal(h.dma_tags, MAX_TAGS);
    assert_int_equal(h.link, GR_PROTO_LINK_STREAM);
    assert_int_equal(h.bar1_log2, 20);
    uint32_t v = 0;
    assert_int_equal(gr_proto_read32(fx.p, R_MAGIC, &v), GR_OK);
    assert_int_equal(v, MAGIC);
    gr_proto_counters_t c;
    gr_proto_counters(fx.p, &c);
    assert_int_equal(c.link_resets, 1);
    assert_int_equal(c.link.retransmissions, 0);
    fx_close(&fx);
}

static void posted_writes_batch_into_one_round_trip(void **state)
{
    (void)state;
    fixture_t fx;
    assert_int_equal(fx_open(&fx, NULL, 2000, true), GR_OK);
    gr_proto_counters_t c0, c1;
    gr_proto_counters(fx.p, &c0);
    uint32_t sum = 0;
    for (uint32_t i = 1; i <= 100; i++) {
        assert_int_equal(gr_proto_write32(fx.p, R_ACC, i), GR_OK);
        sum += i;
    }
    uint32_t v = 0;
    assert_int_equal(gr_proto_read32(fx.p, R_ACC, &v), GR_OK);
    assert_int_equal(v, sum);
    gr_proto_counters(fx.p, &c1);
    assert_int_equal(c1.round_trips - c0.round_trips, 1);
    assert_int_equal(c1.posted_writes - c0.posted_writes, 100);
    /* 100 writes fit a 256-word MaxPayload in one batch, unless the 1 ms flush split them */
    assert_true(c1.requests - c0.requests <= 1 + 100 / 2);
    uint32_t offs[3] = {R_MAGIC, R_ACC_WRITES, R_SCRATCH}, vals[3];
    assert_int_equal(gr_proto_write32(fx.p, R_SCRATCH, 0xfeedu), GR_OK);
    assert_int_equal(gr_proto_read32_batch(fx.p, offs, 3, vals), GR_OK);
    assert_int_equal(vals[0], MAGIC);
    assert_int_equal(vals[1], 100);
    assert_int_equal(vals[2], 0xfeedu);
    fx_close(&fx);
}

static void a_posted_write_error_comes_back_at_the_next_call(void **state)
{
    (void)state;
    fixture_t fx;
    assert_int_equal(fx_open(&fx, NULL, 2000, true), GR_OK);
    assert_int_equal(gr_proto_write32(fx.p, R_ERR, 1), GR_OK); /* posted: not known yet */
    uint32_t v = 0x1234;
    assert_int_equal(gr_proto_read32(fx.p, R_MAGIC, &v), GR_E_BUS);
    assert_int_equal(v, 0x1234); /* untouched on failure */
    assert_int_equal(gr_proto_read32(fx.p, R_MAGIC, &v), GR_OK); /* reported once */
    assert_int_equal(v, MAGIC);
    assert_int_equal(gr_proto_read32(fx.p, R_ERR, &v), GR_E_BUS);
    assert_int_equal(gr_proto_write32(fx.p, R_ERR, 1), GR_OK);
    assert_int_equal(gr_proto_flush(fx.p), GR_E_BUS);
    assert_int_equal(gr_proto_flush(fx.p), GR_OK);
    fx_close(&fx);
    /* not posted: the write itself fails */
    assert_int_equal(fx_open(&fx, NULL, 2000, false), GR_OK);
    assert_int_equal(gr_proto_write32(fx.p, R_ERR, 1), GR_E_BUS);
    assert_int_equal(gr_proto_write32(fx.p, R_SCRATCH, 5), GR_OK);
    assert_int_equal(model_get(fx.m, &fx.m->scratch), 5);
    fx_close(&fx);
}

/* A device that stops taking frames for a while fills the host's send queue: a posted write then
 * waits for room (it neither fails nor overflows the library's batch), and every write arrives
 * exactly once. The smallest MaxPayload (35 words: 16 writes a batch) fills the queue (2,048
 * frames) in about 33,000 writes. */
#define FLOOD_WRITES 40000u
typedef struct flood {
    gr_proto_t *p;
    atomic_uint done;
    int rc;
} flood_t;

static void *flood_writes(void *arg)
{
    flood_t *f = arg;
    for (unsigned i = 0; i < FLOOD_WRITES && !f->rc; i++) {
        f->rc = gr_proto_write32(f->p, R_ACC, 1);
        if (!f->rc)
            atomic_fetch_add(&f->done, 1u);
    }
    return NULL;
}

static void a_full_send_queue_holds_posted_writes_back_and_repeats_none(void **state)
{
    (void)state;
    fixture_t fx;
    gr_proto_dev_cfg_t cfg = model_cfg();
    cfg.max_payload = 35;
    assert_int_equal(fx_open_cfg(&fx, NULL, 5000, true, &cfg), GR_OK);
    uint32_t v = 0;
    assert_int_equal(gr_proto_read32(fx.p, R_MAGIC, &v), GR_OK); /* HELLO done: batches of 16 */
    flood_t f = {.p = fx.p};
    atomic_init(&f.done, 0u);
    pthread_mutex_lock(&fx.m->mu); /* the model stops taking frames */
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, flood_writes, &f), 0);
    unsigned seen = 0;
    for (int i = 0; i < 200; i++) { /* until the writer is held back (at most 2 s) */
        usleep(10000);
        unsigned now = atomic_load(&f.done);
        if (now == seen && now > 30000u)
            break;
        seen = now;
    }
    unsigned held = atomic_load(&f.done);
    pthread_mutex_unlock(&fx.m->mu);
    pthread_join(t, NULL);
    assert_int_equal(f.rc, GR_OK);
    assert_true(held < FLOOD_WRITES); /* the queue filled: the writer waited */
    assert_int_equal(atomic_load(&f.done), FLOOD_WRITES);
    uint32_t offs[2] = {R_ACC, R_ACC_WRITES}, vals[2];
    assert_int_equal(gr_proto_read32_batch(fx.p, offs, 2, vals), GR_OK);
    assert_int_equal(vals[1], FLOOD_WRITES); /* every write arrived once */
    assert_int_equal(vals[0], FLOOD_WRITES);
    fx_close(&fx);
}

static void aperture_splits_at_4k_and_keeps_unaligned_edges(void **state)
{
    (void)state;
    fixture_t fx;
    assert_int_equal(fx_open(&fx, NULL, 2000, true), GR_OK);
    size_t len = 3 * 4096 + 1000;
    uint8_t *src = malloc(len), *back = malloc(len);
    for (size_t i = 0; i < len; i++)
        src[i] = (uint8_t)(i * 7 + seed);
    pthread_mutex_lock(&fx.m->mu);
    memset(fx.m->ap, 0xee, AP_BYTES);
    pthread_mutex_unlock(&fx.m->mu);
    uint64_t off = 4096 - 3; /* starts 3 bytes before a 4 KiB line, ends mid-word */
    assert_int_equal(gr_proto_ap_write(fx.p, off, src, len), GR_OK);
    pthread_mutex_lock(&fx.m->mu);
    assert_memory_equal(fx.m->ap + off, src, len);
    assert_int_equal(fx.m->ap[off - 1], 0xee); /* the bytes around are untouched */
    assert_int_equal(fx.m->ap[off + len], 0xee);
    pthread_mutex_unlock(&fx.m->mu);
    assert_int_equal(gr_proto_ap_read(fx.p, off, back, len), GR_OK);
    assert_memory_equal(back, src, len);
    /* one byte in the middle of a word, and two bytes across a word boundary */
    uint8_t one = 0x42, two[2] = {0x10, 0x20};
    assert_int_equal(gr_proto_ap_write(fx.p, 0x101, &one, 1), GR_OK);
    assert_int_equal(gr_proto_ap_write(fx.p, 0x203, two, 2), GR_OK);
    pthread_mutex_lock(&fx.m->mu);
    assert_int_equal(fx.m->ap[0x100], 0xee);
    assert_int_equal(fx.m->ap[0x101], 0x42);
    assert_int_equal(fx.m->ap[0x102], 0xee);
    assert_int_equal(fx.m->ap[0x203], 0x10);
    assert_int_equal(fx.m->ap[0x204], 0x20);
    assert_int_equal(fx.m->ap[0x205], 0xee);
    pthread_mutex_unlock(&fx.m->mu);
    /* 4 KiB pieces and MaxPayload: 256 - 3 words per request at most */
    gr_proto_counters_t c0, c1;
    gr_proto_counters(fx.p, &c0);
    assert_int_equal(gr_proto_ap_read(fx.p, 0, back, 8192), GR_OK);
    gr_proto_counters(fx.p, &c1);
    assert_int_equal(c1.requests - c0.requests, 2 * 5); /* 1024 words a page: 253*4 + 12 */
    /* past the aperture: refused before anything is sent */
    memset(back, 0x5a, 16);
    assert_int_equal(gr_proto_ap_read(fx.p, AP_BYTES - 8, back, 16), GR_E_RANGE);
    assert_int_equal(back[0], 0x5a);
    free(src);
    free(back);
    fx_close(&fx);
}

/* Runs a DMA job on the model and waits for its interrupt. */
static int run_dma(fixture_t *fx, uint64_t bus, uint32_t words, uint32_t job)
{
    uint32_t done0 = 0;
    int rc;
    if ((rc = gr_proto_read32(fx->p, R_DMA_DONE, &done0)) ||
        (rc = gr_proto_write32(fx->p, R_IRQ, 0)) ||
        (rc = gr_proto_write32(fx->p, R_DMA_LO, (uint32_t)bus)) ||
        (rc = gr_proto_write32(fx->p, R_DMA_HI, (uint32_t)(bus >> 32))) ||
        (rc = gr_proto_write32(fx->p, R_DMA_WORDS, words)) ||
        (rc = gr_proto_write32(fx->p, R_DMA_GO, job)))
        return rc;
    for (int spins = 0; spins < 400; spins++) {
        bool raised = false;
        if ((rc = gr_proto_wait_irq(fx->p, 20000, &raised)))
            return rc;
        uint32_t done = 0;
        if ((rc = gr_proto_read32(fx->p, R_DMA_DONE, &done)))
            return rc;
        if (done != done0)
            return GR_OK;
    }
    return GR_E_TIMEOUT;
}

static void device_dma_reaches_only_buffers_handed_out(void **state)
{
    (void)state;
    fixture_t fx;
    assert_int_equal(fx_open(&fx, NULL, 2000, true), GR_OK);
    gr_dma_buf_t a, b;
    assert_int_equal(gr_proto_dma_alloc(fx.p, 5000, &a), GR_OK);
    assert_int_equal(gr_proto_dma_alloc(fx.p, 4096, &b), GR_OK);
    assert_int_equal(a.bus % 4096, 0);
    assert_true(a.bus >= 0x100000000ull); /* the host's own space: above 4 GiB */
    assert_true(b.bus >= a.bus + 8192 || a.bus >= b.bus + 4096);
    /* the device writes 1024 words into a: every one lands */
    assert_int_equal(run_dma(&fx, a.bus, 1024, 1), GR_OK);
    const uint32_t *wa = a.cpu;
    for (uint32_t i = 0; i < 1024; i++)
        assert_int_equal(wa[i], 0xa5000000u + i);
    assert_int_equal(model_get(fx.m, &fx.m->dma_errs), 0);
    /* and reads them back */
    assert_int_equal(run_dma(&fx, a.bus, 1024, 2), GR_OK);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 1024; i++)
        sum += 0xa5000000u + i;
    assert_int_equal(model_get(fx.m, &fx.m->dma_sum), sum);
    /* the interrupt came as a message */
    bool raised = false;
    assert_int_equal(gr_proto_wait_irq(fx.p, 0, &raised), GR_OK);
    assert_true(raised);
    assert_int_equal(gr_proto_write32(fx.p, R_IRQ, 0), GR_OK);
    assert_int_equal(gr_proto_flush(fx.p), GR_OK);
    for (int i = 0; i < 100 && raised; i++)
        assert_int_equal(gr_proto_wait_irq(fx.p, 10000, &raised), GR_OK);
    assert_false(raised);
    /* outside every buffer, and across the end of b: DECERR, nothing written */
    assert_int_equal(run_dma(&fx, 0x1000, 32, 1), GR_OK);
    assert_int_equal(model_get(fx.m, &fx.m->dma_errs), 2);
    assert_int_equal(run_dma(&fx, b.bus + 4096 - 32, 16, 1), GR_OK);
    assert_int_equal(model_get(fx.m, &fx.m->dma_errs), 3); /* the burst crossing the end */
    /* a freed buffer is not served either */
    assert_int_equal(gr_proto_dma_free(fx.p, &b), GR_OK);
    assert_int_equal(gr_proto_dma_free(fx.p, &b), GR_E_NOT_FOUND);
    assert_int_equal(run_dma(&fx, b.bus, 16, 1), GR_OK);
    assert_int_equal(model_get(fx.m, &fx.m->dma_errs), 4);
    assert_int_equal(model_get(fx.m, &fx.m->dma_dups), 0);
    fx_close(&fx);
}

/* A DMA_WR of joined bursts (PROTOCOL.md, "DMA") is served whole when it lies inside one buffer
 * and one 4 KiB page; one that crosses a page, even inside a buffer, or leaves its buffer is
 * answered DECERR and writes nothing. */
static void joined_dma_write_served_whole_or_refused(void **state)
{
    (void)state;
    fixture_t fx;
    assert_int_equal(fx_open(&fx, NULL, 2000, true), GR_OK);
    gr_dma_buf_t a, b;
    assert_int_equal(gr_proto_dma_alloc(fx.p, 8192, &a), GR_OK);
    assert_int_equal(gr_proto_dma_alloc(fx.p, 4096, &b), GR_OK);
    memset(a.cpu, 0x5c, 8192);
    memset(b.cpu, 0x5c, 4096);
    /* six bursts in one DMA_WR, ending at the page's end: every word lands */
    assert_int_equal(run_dma(&fx, a.bus + 8192 - 768, 192, 4), GR_OK);
    const uint32_t *wa = a.cpu;
    for (uint32_t i = 0; i < 192; i++)
        assert_int_equal(wa[2048 - 192 + i], 0xb6000000u + i);
    assert_int_equal(model_get(fx.m, &fx.m->dma_errs), 0);
    /* 128 words from 256 bytes before the first page's end: inside a, across a page: refused */
    assert_int_equal(run_dma(&fx, a.bus + 4096 - 256, 128, 4), GR_OK);
    assert_int_equal(model_get(fx.m, &fx.m->dma_errs), 1);
    /* 128 words from 256 bytes before b's end: past it (and its page): refused */
    assert_int_equal(run_dma(&fx, b.bus + 4096 - 256, 128, 4), GR_OK);
    assert_int_equal(model_get(fx.m, &fx.m->dma_errs), 2);
    const uint8_t *ba = a.cpu, *bb = b.cpu;
    for (uint32_t i = 0; i < 8192 - 768; i++)
        assert_int_equal(ba[i], 0x5c);
    for (uint32_t i = 0; i < 4096; i++)
        assert_int_equal(bb[i], 0x5c);
    assert_int_equal(model_get(fx.m, &fx.m->dma_dups), 0);
    fx_close(&fx);
}

/* ---- faults ----------------------------------------------------------------------------- */

/* One workload: counted adds, scratch, the aperture and a DMA mailbox, checked exactly. With
 * strict, every call must succeed; otherwise a call may fail with GR_E_LINK or GR_E_TIMEOUT
 * and then its effect may or may not be there (and only then). */
static void workload(fixture_t *fx, unsigned rounds, bool strict, uint64_t rs)
{
    uint32_t sure = 0, maybe = 0;
    gr_dma_buf_t box, pat;
    assert_int_equal(gr_proto_dma_alloc(fx->p, 4096, &box), GR_OK);
    assert_int_equal(gr_proto_dma_alloc(fx->p, 4096, &pat), GR_OK);
    uint8_t *src = malloc(20000), *back = malloc(20000);
    for (unsigned r = 0; r < rounds; r++) {
        rs = rs * 6364136223846793005ull + 1442695040888963407ull;
        int rc;
        for (unsigned i = 0; i < 20; i++) {
            uint32_t add = (uint32_t)(rs >> 40) % 1000u + 1u;
            rc = gr_proto_write32(fx->p, R_ACC, add);
            if (rc == GR_OK)
                sure += add; /* posted: a later error still counts it as maybe */
            else if (rc == GR_E_LINK || rc == GR_E_TIMEOUT)
                maybe += add; /* the write itself was not queued, or an earlier one may be lost */
            else
                fail_msg("write32: %s", gr_status_name(rc));
            if (rc && strict)
                fail_msg("round %u: write32 failed: %s", r, gr_strerror(rc));
            rs += add;
        }
        uint32_t v = 0;
        rc = gr_proto_write32(fx->p, R_SCRATCH, r);
        if (!rc)
            rc = gr_proto_read32(fx->p, R_SCRATCH, &v);
        if (!rc)
            assert_int_equal(v, r);
        else if (strict || (rc != GR_E_LINK && rc != GR_E_TIMEOUT))
            fail_msg("round %u: scratch: %s", r, gr_strerror(rc));
        size_t len = 1 + (size_t)(rs >> 33) % 20000u;
        uint64_t off = (rs >> 17) % (AP_BYTES - 20000);
        for (size_t i = 0; i < len; i++)
            src[i] = (uint8_t)(rs >> (i % 7));
        rc = gr_proto_ap_write(fx->p, off, src, len);
        if (!rc)
            rc = gr_proto_ap_read(fx->p, off, back, len);
        if (!rc)
            assert_memory_equal(back, src, len);
        else if (strict || (rc != GR_E_LINK && rc != GR_E_TIMEOUT))
            fail_msg("round %u: aperture: %s", r, gr_strerror(rc));
        /* DMA: a pattern and a mailbox of 40 writes to one word, the last must win */
        memset(box.cpu, 0, 4096);
        memset(pat.cpu, 0, 4096);
        uint32_t errs0 = model_get(fx->m, &fx->m->dma_errs);
        rc = run_dma(fx, box.bus, 40, 3);
        if (!rc)
            rc = run_dma(fx, pat.bus, 1024, 1);
        if (!rc) {
            assert_int_equal(*(volatile uint32_t *)box.cpu, 40);
            for (uint32_t i = 0; i < 1024; i++)
                assert_int_equal(((uint32_t *)pat.cpu)[i], 0xa5000000u + i);
            if (strict)
                assert_int_equal(model_get(fx->m, &fx->m->dma_errs), errs0);
        } else if (strict || (rc != GR_E_LINK && rc != GR_E_TIMEOUT)) {
            fail_msg("round %u: dma: %s", r, gr_strerror(rc));
        }
    }
    /* Exactly once: every add acknowledged is in the sum once, the uncertain ones at most once. */
    uint32_t acc = 0;
    int rc = GR_E_LINK;
    for (int tries = 0; tries < 5 && rc; tries++)
        rc = gr_proto_read32(fx->p, R_ACC, &acc);
    assert_int_equal(rc, GR_OK);
    if (acc < sure || acc > sure + maybe)
        fail_msg("ACC %u outside [%u, %u]: a write was applied twice or lost", acc, sure,
                 sure + maybe);
    if (strict)
        assert_int_equal(acc, sure);
    /* and the device got exactly one answer to every DMA request */
    assert_int_equal(model_get(fx->m, &fx->m->dma_dups), 0);
    free(src);
    free(back);
}

static void faults_at_every_rate_are_recovered_exactly_once(void **state)
{
    (void)state;
    static const struct {
        const char *rate;
        bool strict;
        unsigned rounds;
    } classes[] = {
        {"0", true, 4}, {"0.001", true, 6}, {"0.01", true, 6}, {"0.05", true, 5},
        {"0.2", false, 4},
    };
    for (size_t k = 0; k < sizeof classes / sizeof classes[0]; k++) {
        char spec[64];
        snprintf(spec, sizeof spec, "%llu:%s", seed + k, classes[k].rate);
        printf("# faults=%s\n", spec);
        fflush(stdout);
        fixture_t fx;
        int rc = fx_open(&fx, spec, 5000, true);
        if (rc)
            fail_msg("faults=%s: open: %s (%s)", spec, gr_strerror(rc), gr_link_error());
        workload(&fx, classes[k].rounds, classes[k].strict, seed * 977 + k);
        gr_proto_counters_t c;
        gr_proto_counters(fx.p, &c);
        uint64_t injected = c.faults.tx_drops + c.faults.tx_corrupts + c.faults.tx_dups +
                            c.faults.tx_reorders + c.faults.rx_drops + c.faults.rx_corrupts +
                            c.faults.rx_dups + c.faults.rx_reorders;
        printf("# faults=%s: %llu injected, %llu frames, %llu retransmitted, %llu crc errors, "
               "%llu NAKs, %llu duplicates dropped, %llu resets\n",
               spec, (unsigned long long)injected, (unsigned long long)c.link.tx_frames,
               (unsigned long long)c.link.retransmissions, (unsigned long long)c.link.crc_errors,
               (unsigned long long)(c.link.naks_sent + c.link.naks_received),
               (unsigned long long)(c.link.duplicates + fx.m->dev.link.counts.duplicates),
               (unsigned long long)c.link_resets);
        if (k >= 2) /* the faults happened and were recovered by retransmission */
            assert_true(injected > 0 && c.link.retransmissions +
                                                fx.m->dev.link.counts.retransmissions > 0);
        fx_close(&fx);
    }
}

/* ---- the peer gone, a hung request, a device reset -------------------------------------- */

static void a_dead_peer_fails_with_link_and_the_link_comes_back(void **state)
{
    (void)state;
    fixture_t fx;
    assert_int_equal(fx_open(&fx, NULL, 2000, true), GR_OK);
    assert_int_equal(gr_proto_write32(fx.p, R_SCRATCH, 0x77), GR_OK);
    assert_int_equal(gr_proto_flush(fx.p), GR_OK);
    model_kill(fx.m);
    fx.m = NULL;
    uint8_t buf[65536];
    int rc = gr_proto_ap_read(fx.p, 0, buf, sizeof buf);
    assert_int_equal(rc, GR_E_LINK);
    assert_non_null(strstr(gr_link_error(), "socketpair"));
    uint32_t v = 0;
    /* no device to reconnect to: fails again, at once */
    assert_int_equal(gr_proto_read32(fx.p, R_MAGIC, &v), GR_E_LINK);
    /* a device again: the next call reconnects, resets the link and goes on */
    model_restart(&fx);
    assert_int_equal(gr_proto_read32(fx.p, R_MAGIC, &v), GR_OK);
    assert_int_equal(v, MAGIC);
    gr_proto_counters_t c;
    gr_proto_counters(fx.p, &c);
    assert_true(c.link_downs >= 1);
    fx_close(&fx);
}

static void an_unanswered_read_times_out_and_the_next_call_works(void **state)
{
    (void)state;
    fixture_t fx;
    assert_int_equal(fx_open(&fx, NULL, 300, true), GR_OK);
    uint32_t v = 0xabc;
    assert_int_equal(gr_proto_read32(fx.p, R_HANG, &v), GR_E_TIMEOUT);
    assert_int_equal(v, 0xabc);
    assert_int_equal(gr_proto_read32(fx.p, R_MAGIC, &v), GR_OK);
    assert_int_equal(v, MAGIC);
    fx_close(&fx);
}

static void a_device_reset_fails_what_was_outstanding_and_hello_follows(void **state)
{
    (void)state;
    fixture_t fx;
    assert_int_equal(fx_open(&fx, NULL, 2000, false), GR_OK);
    /* the device resets the link right after this write: its answer is lost with it, or it
     * came first; either way the call reports a status and the link comes back */
    int rc = gr_proto_write32(fx.p, R_RESET, 1);
    assert_true(rc == GR_OK || rc == GR_E_LINK);
    uint32_t v = 0;
    rc = GR_E_LINK;
    for (int i = 0; i < 3 && rc == GR_E_LINK; i++)
        rc = gr_proto_read32(fx.p, R_MAGIC, &v);
    assert_int_equal(rc, GR_OK);
    assert_int_equal(v, MAGIC);
    assert_true(fx.m->dev.hellos >= 2);
    fx_close(&fx);
}

/* ---- URIs of the byte-stream backends ---------------------------------------------------- */

static void byte_stream_uris_check_their_keys(void **state)
{
    (void)state;
    uint64_t s = 0;
    double r = 0;
    assert_int_equal(gr_pipe_faults_parse("7:0.01", &s, &r), GR_OK);
    assert_int_equal(s, 7);
    assert_true(r > 0.0099 && r < 0.0101);
    assert_int_equal(gr_pipe_faults_parse("3:5%", &s, &r), GR_OK);
    assert_true(r > 0.0499 && r < 0.0501);
    static const char *const bad[] = {"", "7", "7:", ":0.1", "7:0.6", "7:-1", "x:0.1", "7:0.1x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s = 99;
        assert_int_equal(gr_pipe_faults_parse(bad[i], &s, &r), GR_E_BAD_URI);
        assert_int_equal(s, 99);
    }
    gr_uri_t uri;
    gr_proto_opts_t o;
    gr_proto_opts_default(&o, 50, "x");
    assert_int_equal(gr_uri_parse("simd:///tmp/x?replay_ms=20&dead_ms=900&posted=0&faults=1:0.1",
                                  &uri), GR_OK);
    assert_int_equal(gr_proto_opts_from_uri(&uri, &o), GR_OK);
    assert_int_equal(o.replay_ms, 20);
    assert_int_equal(o.dead_ms, 900);
    assert_int_equal(o.keepalive_ms, 100);
    assert_false(o.posted);
    assert_true(o.faults);
    assert_int_equal(gr_uri_parse("simd:///tmp/x?timeout_ms=0", &uri), GR_OK);
    assert_int_equal(gr_proto_opts_from_uri(&uri, &o), GR_E_BAD_URI);
    assert_non_null(strstr(gr_link_error(), "timeout_ms"));
    /* strtoul alone would take a leading space or sign. */
    assert_int_equal(gr_uri_parse("simd:///tmp/x?timeout_ms=+50", &uri), GR_OK);
    assert_int_equal(gr_proto_opts_from_uri(&uri, &o), GR_E_BAD_URI);
    assert_int_equal(gr_uri_parse("simd:///tmp/x?replay_ms= 50", &uri), GR_OK);
    assert_int_equal(gr_proto_opts_from_uri(&uri, &o), GR_E_BAD_URI);
    assert_non_null(strstr(gr_link_error(), "replay_ms"));
}

/* ---- the simd:// and uart:// backends, with the model at the far end -------------------- */

typedef struct listener {
    int lfd;
    char path[108];
    model_t *m;
    pthread_t thread;
} listener_t;

static void *accept_one(void *arg)
{
    listener_t *ls = arg;
    int fd = accept(ls->lfd, NULL, NULL);
    if (fd >= 0) {
        gr_proto_dev_cfg_t cfg = model_cfg();
        ls->m = model_start(fd, &cfg);
    }
    return NULL;
}

static void listen_at(listener_t *ls)
{
    snprintf(ls->path, sizeof ls->path, "/tmp/gr-link-proto-%d.sock", (int)getpid());
    unlink(ls->path);
    ls->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    strcpy(sa.sun_path, ls->path);
    assert_int_equal(bind(ls->lfd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(ls->lfd, 4), 0);
    ls->m = NULL;
    assert_int_equal(pthread_create(&ls->thread, NULL, accept_one, ls), 0);
}

static void simd_backend_reaches_a_server_and_names_a_missing_one(void **state)
{
    (void)state;
    gr_link_t *link = (gr_link_t *)(uintptr_t)1;
    assert_int_equal(gr_link_open("simd:///tmp/gr-no-such-server.sock", &link), GR_E_NO_DEVICE);
    assert_ptr_equal(link, (gr_link_t *)(uintptr_t)1);
    assert_non_null(strstr(gr_link_error(), "/tmp/gr-no-such-server.sock"));
    assert_non_null(strstr(gr_link_error(), "gpuref-simd"));
    assert_int_equal(gr_link_open("simd:///tmp/x.sock?baud=9600", &link), GR_E_BAD_URI);
    assert_non_null(strstr(gr_link_error(), "faults")); /* lists the accepted keys */
    listener_t ls;
    listen_at(&ls);
    char uri[200];
    snprintf(uri, sizeof uri, "simd://%s?replay_ms=30&faults=%llu:0.01", ls.path, seed);
    int rc = gr_link_open(uri, &link);
    if (rc)
        fail_msg("%s: %s", uri, gr_link_error());
    pthread_join(ls.thread, NULL);
    assert_string_equal(gr_link_scheme(link), "simd");
    assert_true(gr_link_caps(link) & GR_LINK_CAP_SIMULATED);
    uint32_t v = 0;
    assert_int_equal(gr_link_read32(link, R_MAGIC, &v), GR_OK);
    assert_int_equal(v, MAGIC);
    gr_dma_buf_t b;
    assert_int_equal(gr_link_dma_alloc(link, 4096, &b), GR_OK);
    char d[256];
    gr_link_describe(link, d, sizeof d);
    assert_non_null(strstr(d, "simd://"));
    assert_int_equal(gr_link_dma_free(link, &b), GR_OK);
    gr_link_close(link);
    model_stop(ls.m);
    close(ls.lfd);
    unlink(ls.path);
}

/* The serial driver's TIOCGSERIAL and TIOCSSERIAL as a USB serial adapter's (ftdi_sio) answers
 * them, for one line: a pty's driver has no serial_struct (ENOTTY), so uart://'s request for low
 * latency is checked on the pty slave whose device number is emu_serial_rdev. Every other ioctl
 * goes to the C library's. */
static dev_t emu_serial_rdev;
static int emu_serial_flags;
static unsigned emu_serial_sets;

int ioctl(int fd, unsigned long request, ...)
{
    static int (*libc_ioctl)(int, unsigned long, ...);
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    struct stat st;
    if ((request == TIOCGSERIAL || request == TIOCSSERIAL) && emu_serial_rdev &&
        fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == emu_serial_rdev) {
        struct serial_struct *ss = arg;
        if (request == TIOCGSERIAL) {
            memset(ss, 0, sizeof *ss);
            ss->type = PORT_16550A;
            ss->baud_base = 24000000; /* ftdi_sio's for an FT232R/FT2232H */
            ss->flags = emu_serial_flags;
        } else {
            emu_serial_flags = ss->flags;
            emu_serial_sets++;
        }
        return 0;
    }
    if (!libc_ioctl)
        libc_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
    return libc_ioctl(fd, request, arg);
}

/* On a USB serial adapter uart:// asks for low latency (ftdi_sio then sets the chip's latency
 * timer to 1 ms instead of 16: bridge/README.md), once; a line already so is left alone. */
static void uart_backend_asks_a_serial_adapter_for_low_latency(void **state)
{
    (void)state;
    int mfd = posix_openpt(O_RDWR | O_NOCTTY);
    assert_true(mfd >= 0);
    assert_int_equal(grantpt(mfd), 0);
    assert_int_equal(unlockpt(mfd), 0);
    char slave[128];
    assert_int_equal(ptsname_r(mfd, slave, sizeof slave), 0);
    int keep = open(slave, O_RDWR | O_NOCTTY);
    assert_true(keep >= 0);
    struct stat st;
    assert_int_equal(fstat(keep, &st), 0);
    emu_serial_rdev = st.st_rdev;
    emu_serial_flags = 0;
    emu_serial_sets = 0;
    gr_proto_dev_cfg_t cfg = model_cfg();
    cfg.link = GR_PROTO_LINK_UART;
    model_t *m = model_start(mfd, &cfg);
    char uri[200];
    snprintf(uri, sizeof uri, "uart://%s?baud=3000000&replay_ms=50", slave);
    gr_link_t *link = NULL;
    int rc = gr_link_open(uri, &link);
    if (rc)
        fail_msg("%s: %s", uri, gr_link_error());
    uint32_t v = 0;
    assert_int_equal(gr_link_read32(link, R_MAGIC, &v), GR_OK);
    assert_int_equal(v, MAGIC);
    assert_true(emu_serial_flags & ASYNC_LOW_LATENCY);
    assert_int_equal(emu_serial_sets, 1);
    gr_link_close(link);
    link = NULL;
    rc = gr_link_open(uri, &link); /* already low latency: not written again */
    if (rc)
        fail_msg("%s: %s", uri, gr_link_error());
    assert_int_equal(emu_serial_sets, 1);
    gr_link_close(link);
    emu_serial_rdev = 0;
    model_stop(m);
    close(keep);
}

static void uart_backend_runs_on_a_pty_at_any_baud_and_locks_the_line(void **state)
{
    (void)state;
    gr_link_t *link = NULL;
    assert_int_equal(gr_link_open("uart:///dev/gr-no-such-tty", &link), GR_E_NO_DEVICE);
    assert_non_null(strstr(gr_link_error(), "/dev/gr-no-such-tty"));
    assert_int_equal(gr_link_open("uart:///dev/null", &link), GR_E_IO);
    assert_non_null(strstr(gr_link_error(), "not a serial line"));
    assert_int_equal(gr_link_open("uart://", &link), GR_E_BAD_URI);
    assert_int_equal(gr_link_open("uart:///dev/ttyS0?baud=fast", &link), GR_E_BAD_URI);
    assert_int_equal(gr_link_open("uart:///dev/ttyS0?baud=+9600", &link), GR_E_BAD_URI);
    assert_null(link);
    int mfd = posix_openpt(O_RDWR | O_NOCTTY);
    assert_true(mfd >= 0);
    assert_int_equal(grantpt(mfd), 0);
    assert_int_equal(unlockpt(mfd), 0);
    char slave[128];
    assert_int_equal(ptsname_r(mfd, slave, sizeof slave), 0);
    /* keep the slave open on this side too, so that the master never sees a hang-up */
    int keep = open(slave, O_RDWR | O_NOCTTY);
    assert_true(keep >= 0);
    gr_proto_dev_cfg_t cfg = model_cfg();
    cfg.link = GR_PROTO_LINK_UART;
    model_t *m = model_start(mfd, &cfg);
    char uri[200];
    snprintf(uri, sizeof uri, "uart://%s?baud=1234567&replay_ms=50", slave); /* not a Bxxx rate */
    int rc = gr_link_open(uri, &link);
    if (rc)
        fail_msg("%s: %s", uri, gr_link_error());
    uint32_t v = 0;
    assert_int_equal(gr_link_write32(link, R_SCRATCH, 0x5a5a), GR_OK);
    assert_int_equal(gr_link_read32(link, R_SCRATCH, &v), GR_OK);
    assert_int_equal(v, 0x5a5a);
    uint8_t buf[6000], back[6000];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i ^ seed);
    assert_int_equal(gr_link_ap_write(link, 100, buf, sizeof buf), GR_OK);
    assert_int_equal(gr_link_ap_read(link, 100, back, sizeof back), GR_OK);
    assert_memory_equal(back, buf, sizeof buf);
    gr_link_t *second = NULL;
    assert_int_equal(gr_link_open(uri, &second), GR_E_BUSY);
    assert_non_null(strstr(gr_link_error(), slave));
    gr_link_close(link);
    model_stop(m);
    close(keep);
}

/* ---- gpuref-simd's switch: several clients on one device end ----------------------------- */

static const char *simd_bin; /* --simd PATH: the server binary */

/* gr_link_open(uri) in a child process: its status and message. */
static int open_in_child(const char *uri, char *msg, size_t len)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fflush(stdout);
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        close(p[0]);
        gr_link_t *l = NULL;
        int32_t rc = gr_link_open(uri, &l);
        char m[400];
        snprintf(m, sizeof m, "%s", rc ? gr_link_error() : "");
        if (write(p[1], &rc, sizeof rc) != sizeof rc || write(p[1], m, sizeof m) != sizeof m)
            _exit(1);
        if (!rc)
            gr_link_close(l);
        _exit(0);
    }
    close(p[1]);
    int32_t rc = -999;
    char m[400] = "";
    if (read(p[0], &rc, sizeof rc) != sizeof rc || read(p[0], m, sizeof m) != sizeof m)
        rc = -998;
    m[sizeof m - 1] = 0;
    snprintf(msg, len, "%s", m);
    close(p[0]);
    int st;
    waitpid(c, &st, 0);
    return rc;
}

/* One driver stack per line (bridge/README.md): uart:// holds the tty of gpuref-simd --pty's
 * UART board exclusively, flock and TIOCEXCL (the kernel's flag, which TIOCGEXCL reads back);
 * a second driver stack on the line, in another process, gets GR_E_BUSY naming the path; after
 * close the line is free and the flag gone. */
static void uart_line_takes_one_driver_stack_on_gpuref_simd_pty(void **state)
{
    (void)state;
    if (!simd_bin) {
        skip();
        return;
    }
    char dir[] = "/tmp/gr-link-proto-pty-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char lf[200];
    snprintf(lf, sizeof lf, "%s/tty", dir);
    fflush(stdout);
    pid_t srv = fork();
    assert_true(srv >= 0);
    if (srv == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(simd_bin, simd_bin, "--pty", "--pty-link", lf, "--board", "uart", "--quiet", (char *)NULL);
        _exit(127);
    }
    char tty[128] = "";
    for (int i = 0; i < 600 && !tty[0]; i++) {
        FILE *f = fopen(lf, "r");
        if (f) {
            if (!fgets(tty, sizeof tty, f))
                tty[0] = 0;
            fclose(f);
        }
        tty[strcspn(tty, "\n")] = 0;
        if (!tty[0])
            usleep(50000);
    }
    assert_true(tty[0] == '/');
    char uri[200], msg[400];
    snprintf(uri, sizeof uri, "uart://%s?replay_ms=5000&dead_ms=30000&timeout_ms=60000", tty);
    gr_link_t *a = NULL;
    int rc = gr_link_open(uri, &a);
    if (rc)
        fail_msg("%s: %s", uri, gr_link_error());
    uint32_t v = 0;
    assert_int_equal(gr_link_read32(a, 0x000, &v), GR_OK); /* ID_MAGIC */
    assert_int_equal(v, MAGIC);
    int fd = open(tty, O_RDWR | O_NOCTTY | O_NONBLOCK); /* root only: TIOCEXCL refuses others */
    int excl = 0;
    if (fd >= 0)
        assert_int_equal(ioctl(fd, TIOCGEXCL, &excl), 0);
    else
        assert_int_equal(errno, EBUSY);
    assert_true(fd < 0 || excl == 1);
    rc = open_in_child(uri, msg, sizeof msg);
    assert_int_equal(rc, GR_E_BUSY);
    assert_non_null(strstr(msg, tty));
    assert_non_null(strstr(msg, "in use by another program"));
    gr_link_close(a);
    if (fd >= 0) {
        assert_int_equal(ioctl(fd, TIOCGEXCL, &excl), 0);
        assert_int_equal(excl, 0);
        close(fd);
    }
    rc = open_in_child(uri, msg, sizeof msg);
    if (rc)
        fail_msg("after close, %s: %s", uri, msg);
    kill(srv, SIGTERM);
    int st;
    waitpid(srv, &st, 0);
    unlink(lf);
    rmdir(dir);
}

/* A DMA job through a gr_link (as run_dma), waiting on the interrupt message. */
static int link_dma(gr_link_t *l, uint64_t bus, uint32_t words, uint32_t job)
{
    uint32_t done0 = 0;
    int rc;
    if ((rc = gr_link_read32(l, R_DMA_DONE, &done0)) || (rc = gr_link_write32(l, R_IRQ, 0)) ||
        (rc = gr_link_write32(l, R_DMA_LO, (uint32_t)bus)) ||
        (rc = gr_link_write32(l, R_DMA_HI, (uint32_t)(bus >> 32))) ||
        (rc = gr_link_write32(l, R_DMA_WORDS, words)) || (rc = gr_link_write32(l, R_DMA_GO, job)))
        return rc;
    for (int spins = 0; spins < 400; spins++) {
        bool raised = false;
        uint32_t done = 0;
        if ((rc = gr_link_wait_irq(l, 20000, &raised)) || (rc = gr_link_read32(l, R_DMA_DONE, &done)))
            return rc;
        if (done != done0)
            return GR_OK;
    }
    return GR_E_TIMEOUT;
}

static void simd_server_shares_one_device_among_clients(void **state)
{
    (void)state;
    if (!simd_bin) {
        skip();
        return;
    }
    listener_t ls;
    listen_at(&ls);
    char csock[108];
    snprintf(csock, sizeof csock, "/tmp/gr-link-proto-%d-clients.sock", (int)getpid());
    unlink(csock);
    pid_t srv = fork();
    assert_true(srv >= 0);
    if (srv == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1); /* its banner is not TAP */
        char faults[64];
        snprintf(faults, sizeof faults, "%llu:0.02", seed);
        execl(simd_bin, simd_bin, "--connect", ls.path, "--socket", csock, "--faults", faults,
              (char *)NULL);
        _exit(127);
    }
    pthread_join(ls.thread, NULL);
    assert_non_null(ls.m);
    for (int i = 0; i < 100 && access(csock, F_OK) != 0; i++)
        usleep(50000);
    char uri[200];
    snprintf(uri, sizeof uri, "simd://%s", csock);
    gr_link_t *a = NULL, *b = NULL;
    int rc = gr_link_open(uri, &a);
    if (rc)
        fail_msg("%s: %s", uri, gr_link_error());
    assert_int_equal(gr_link_open(uri, &b), GR_OK);
    /* one device: what one client writes the other reads */
    uint32_t v = 0;
    assert_int_equal(gr_link_write32(a, R_SCRATCH, 5), GR_OK);
    assert_int_equal(gr_link_read32(a, R_MAGIC, &v), GR_OK); /* a's posted write is out */
    assert_int_equal(gr_link_read32(b, R_SCRATCH, &v), GR_OK);
    assert_int_equal(v, 5);
    /* interleaved writes of both arrive exactly once each */
    uint32_t acc0 = 0, sum = 0;
    assert_int_equal(gr_link_read32(a, R_ACC, &acc0), GR_OK);
    for (uint32_t i = 1; i <= 200; i++) {
        assert_int_equal(gr_link_write32(i % 2 ? a : b, R_ACC, i), GR_OK);
        sum += i;
        if (i % 16 == 0)
            assert_int_equal(gr_link_read32(i % 32 ? a : b, R_SCRATCH, &v), GR_OK);
    }
    assert_int_equal(gr_link_read32(a, R_MAGIC, &v), GR_OK);
    assert_int_equal(gr_link_read32(b, R_ACC, &v), GR_OK);
    assert_int_equal(v, acc0 + sum);
    /* each client its own DMA window; the device's DMA goes to the window's owner */
    gr_dma_buf_t ba, bb;
    assert_int_equal(gr_link_dma_alloc(a, 4096, &ba), GR_OK);
    assert_int_equal(gr_link_dma_alloc(b, 4096, &bb), GR_OK);
    assert_true(ba.bus >= 0x100000000ull);
    assert_true(bb.bus >= ba.bus + 0x40000000ull || ba.bus >= bb.bus + 0x40000000ull);
    uint32_t errs0 = model_get(ls.m, &ls.m->dma_errs);
    assert_int_equal(link_dma(a, ba.bus, 1024, 1), GR_OK);
    assert_int_equal(link_dma(b, bb.bus, 16, 3), GR_OK); /* b's mailbox: 16 writes, last wins */
    for (uint32_t i = 0; i < 1024; i++)
        assert_int_equal(((uint32_t *)ba.cpu)[i], 0xa5000000u + i);
    assert_int_equal(((uint32_t *)bb.cpu)[0], 16);
    assert_int_equal(((uint32_t *)bb.cpu)[1], 0);
    /* b starts a job into a's buffer: the address decides, a serves it */
    memset(ba.cpu, 0, 4096);
    assert_int_equal(link_dma(b, ba.bus, 256, 1), GR_OK);
    assert_int_equal(((uint32_t *)ba.cpu)[255], 0xa5000000u + 255);
    assert_int_equal(model_get(ls.m, &ls.m->dma_errs), errs0);
    /* nobody's address: DECERR */
    assert_int_equal(link_dma(a, 0x1000, 16, 1), GR_OK);
    assert_int_equal(model_get(ls.m, &ls.m->dma_errs), errs0 + 1);
    /* the interrupt message reached both */
    bool ra = false, rb = false;
    assert_int_equal(gr_link_wait_irq(a, 0, &ra), GR_OK);
    assert_int_equal(gr_link_wait_irq(b, 200000, &rb), GR_OK);
    assert_true(ra && rb);
    /* a leaves; b goes on */
    gr_link_close(a);
    assert_int_equal(gr_link_read32(b, R_SCRATCH, &v), GR_OK);
    assert_int_equal(v, 5);
    assert_int_equal(model_get(ls.m, &ls.m->dma_dups), 0);
    /* the server's link to the device ran with 2% faults: the device end saw them and recovered */
    assert_true(ls.m->dev.link.counts.crc_errors + ls.m->dev.link.counts.out_of_order +
                    ls.m->dev.link.counts.duplicates > 0);
    /* the server stops on SIGTERM: b's next call fails with a link error, without a hang */
    kill(srv, SIGTERM);
    int st = 0;
    assert_int_equal(waitpid(srv, &st, 0), srv);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(access(csock, F_OK), -1); /* the socket is removed */
    rc = gr_link_read32(b, R_SCRATCH, &v);
    assert_true(rc == GR_E_LINK || rc == GR_E_NO_DEVICE);
    gr_link_close(b);
    model_stop(ls.m);
    close(ls.lfd);
    unlink(ls.path);
}

int main(int argc, char **argv)
{
    const char *env = getenv("GR_TEST_SEED");
    if (env)
        seed = strtoull(env, NULL, 0);
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--simd"))
            simd_bin = argv[i + 1];
    printf("# seed=%llu (replay: test_link_proto --seed %llu)\n", seed, seed);
    fflush(stdout);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frames_use_zlib_crc_and_resynchronize_after_garbage),
        cmocka_unit_test(hello_gives_the_device_parameters),
        cmocka_unit_test(posted_writes_batch_into_one_round_trip),
        cmocka_unit_test(a_posted_write_error_comes_back_at_the_next_call),
        cmocka_unit_test(a_full_send_queue_holds_posted_writes_back_and_repeats_none),
        cmocka_unit_test(aperture_splits_at_4k_and_keeps_unaligned_edges),
        cmocka_unit_test(device_dma_reaches_only_buffers_handed_out),
        cmocka_unit_test(joined_dma_write_served_whole_or_refused),
        cmocka_unit_test(faults_at_every_rate_are_recovered_exactly_once),
        cmocka_unit_test(a_dead_peer_fails_with_link_and_the_link_comes_back),
        cmocka_unit_test(an_unanswered_read_times_out_and_the_next_call_works),
        cmocka_unit_test(a_device_reset_fails_what_was_outstanding_and_hello_follows),
        cmocka_unit_test(byte_stream_uris_check_their_keys),
        cmocka_unit_test(simd_backend_reaches_a_server_and_names_a_missing_one),
        cmocka_unit_test(uart_backend_runs_on_a_pty_at_any_baud_and_locks_the_line),
        cmocka_unit_test(uart_backend_asks_a_serial_adapter_for_low_latency),
        cmocka_unit_test(simd_server_shares_one_device_among_clients),
        cmocka_unit_test(uart_line_takes_one_driver_stack_on_gpuref_simd_pty),
    };
    return cmocka_run_group_tests_name("link_proto", tests, NULL, NULL);
}
