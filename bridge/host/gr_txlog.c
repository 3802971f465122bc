/* SPDX-License-Identifier: Apache-2.0 */
/* gr_txlog.c: the host-side transaction log (gr_txlog.h; the format: docs/txlog.md). */
#include "gr_txlog.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gr_link.h"
#include "gpuref/gr_regmap.h"
#include "gpuref/gr_status.h"

#define PAGE 4096u

typedef struct txlog_buf {
    uint64_t bus;
    uint64_t bytes; /* whole pages: a link hands out pages */
    unsigned k;     /* its number in this log, from 1 */
} txlog_buf_t;

struct gr_txlog {
    FILE *f;
    pthread_mutex_t mu;
    txlog_buf_t *bufs;
    unsigned count, cap;
    unsigned next_k;
    bool irq; /* the level last recorded */
    /* A device that polls memory (a WAIT command) reads the same bytes again and again: the
     * last dmard line, and how many times it came again since it was written. */
    char last_dmard[160];
    unsigned long dmard_repeats;
    /* VidSch reads the device's clock (DMA_TIMESTAMP_LO/HI) as often as wall time makes it look:
     * after the first read of a run of such reads, the rest are counted. */
    bool clock_run;
    unsigned long clock_reads;
    char last_mark[128]; /* the DDI the last marker line named */
};

/* The DDI this thread last entered, on which log (gr_txlog_mark): a line this thread writes is
 * preceded by a marker naming it whenever the last marker in the file names another, so that
 * the last marker before any line of a host thread is that thread's own DDI. */
static _Thread_local struct {
    const gr_txlog_t *log;
    char ddi[128];
} tl_ddi;

/* "clock-reads N": N more reads of DMA_TIMESTAMP_LO/HI since the last one written, with
 * nothing but those (and repeated dmard requests) between. Under the lock; every other line
 * writes it first. */
static void end_clock_run(gr_txlog_t *log)
{
    if (log->clock_reads)
        fprintf(log->f, "clock-reads %lu\n", log->clock_reads);
    log->clock_reads = 0;
    log->clock_run = false;
}

/* Before a line of this thread: its DDI's marker, when the last one in the file names another
 * thread's. Under the lock. */
static void attribute(gr_txlog_t *log)
{
    if (tl_ddi.log != log || !tl_ddi.ddi[0] || !strcmp(tl_ddi.ddi, log->last_mark))
        return;
    end_clock_run(log);
    fprintf(log->f, "ddi %s\n", tl_ddi.ddi);
    snprintf(log->last_mark, sizeof log->last_mark, "%s", tl_ddi.ddi);
}

/* "dmard-repeat N": the last dmard line happened N more times before this point. Under the lock;
 * every line but a register read (the host polls too) writes it first. */
static void flush_repeats(gr_txlog_t *log)
{
    end_clock_run(log);
    if (log->dmard_repeats) {
        fprintf(log->f, "dmard-repeat %lu\n", log->dmard_repeats);
        log->dmard_repeats = 0;
    }
}

int gr_txlog_open(const char *path, const char *scheme, gr_txlog_t **out_log)
{
    gr_txlog_t *log = calloc(1, sizeof *log);
    if (!log)
        return GR_E_NO_MEMORY;
    log->f = fopen(path, "w");
    if (!log->f) {
        gr_link_set_error("%s://: cannot open the transaction log '%s' (txlog=): %s", scheme, path, strerror(errno));
        free(log);
        return GR_E_IO;
    }
    if (pthread_mutex_init(&log->mu, NULL)) {
        fclose(log->f);
        free(log);
        return GR_E_NO_MEMORY;
    }
    log->next_k = 1;
    fprintf(log->f, "%s scheme=%s\n", GR_TXLOG_MAGIC, scheme);
    fflush(log->f);
    *out_log = log;
    return GR_OK;
}

void gr_txlog_close(gr_txlog_t *log)
{
    if (!log)
        return;
    flush_repeats(log);
    fclose(log->f);
    pthread_mutex_destroy(&log->mu);
    free(log->bufs);
    free(log);
}

static const char *status_word(int status)
{
    return status == GR_OK ? "ok" : gr_status_name(status);
}

/* The live buffer holding addr, or NULL. Under the lock. */
static const txlog_buf_t *buf_at(const gr_txlog_t *log, uint64_t addr)
{
    for (unsigned i = 0; i < log->count; i++)
        if (addr >= log->bufs[i].bus && addr - log->bufs[i].bus < log->bufs[i].bytes)
            return &log->bufs[i];
    return NULL;
}

static uint32_t digest_locked(const gr_txlog_t *log, uint64_t at, const uint8_t *p, size_t n)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    size_t i = 0;
    while (i < n) {
        /* The bytes up to the next 8-byte boundary go as they are; a whole aligned word is
         * looked at as an address. */
        size_t head = (size_t)((8u - ((at + i) & 7u)) & 7u);
        if (head || n - i < 8) {
            size_t run = head ? head : n - i;
            if (run > n - i)
                run = n - i;
            crc = crc32(crc, p + i, (uInt)run);
            i += run;
            continue;
        }
        uint64_t v = 0;
        for (unsigned b = 0; b < 8; b++)
            v |= (uint64_t)p[i + b] << (8 * b);
        const txlog_buf_t *buf = log->count ? buf_at(log, v) : NULL;
        if (buf)
            v = GR_TXLOG_RELOC(buf->k, v - buf->bus);
        uint8_t w[8];
        for (unsigned b = 0; b < 8; b++)
            w[b] = (uint8_t)(v >> (8 * b));
        crc = crc32(crc, w, 8);
        i += 8;
    }
    return (uint32_t)crc;
}

uint32_t gr_txlog_digest(gr_txlog_t *log, uint64_t at, const void *data, size_t bytes)
{
    if (!log)
        return (uint32_t)crc32(crc32(0L, Z_NULL, 0), data, (uInt)bytes);
    pthread_mutex_lock(&log->mu);
    uint32_t crc = digest_locked(log, at, data, bytes);
    pthread_mutex_unlock(&log->mu);
    return crc;
}

/* " crc=0x... [data=...]" for n bytes at `at`, into s. Under the lock. */
static void data_fields(const gr_txlog_t *log, uint64_t at, const void *data, size_t n, char *s, size_t cap)
{
    if (!data) {
        s[0] = '\0';
        return;
    }
    int len = snprintf(s, cap, " crc=0x%08" PRIx32, digest_locked(log, at, data, n));
    if (n <= GR_TXLOG_INLINE_BYTES && len > 0 && (size_t)len < cap) {
        /* Byte by byte, in address order. */
        len += snprintf(s + len, cap - (size_t)len, " data=");
        for (size_t i = 0; i < n && (size_t)len + 3 < cap; i++)
            len += snprintf(s + len, cap - (size_t)len, "%02x", ((const uint8_t *)data)[i]);
    }
}

void gr_txlog_note(gr_txlog_t *log, const char *text)
{
    if (!log)
        return;
    pthread_mutex_lock(&log->mu);
    flush_repeats(log);
    fprintf(log->f, "# %s\n", text);
    fflush(log->f);
    pthread_mutex_unlock(&log->mu);
}

void gr_txlog_mark(gr_txlog_t *log, const char *text, bool now)
{
    if (!log)
        return;
    pthread_mutex_lock(&log->mu);
    tl_ddi.log = log;
    snprintf(tl_ddi.ddi, sizeof tl_ddi.ddi, "%s", text);
    if (now) {
        flush_repeats(log);
        fprintf(log->f, "ddi %s\n", text);
        snprintf(log->last_mark, sizeof log->last_mark, "%s", text);
        fflush(log->f);
    }
    pthread_mutex_unlock(&log->mu);
}

void gr_txlog_reg(gr_txlog_t *log, bool write, uint32_t offset, uint32_t value, int status)
{
    if (!log)
        return;
    pthread_mutex_lock(&log->mu);
    const bool clock = !write && status == GR_OK &&
                       (offset == GR_REG_DMA_TIMESTAMP_LO || offset == GR_REG_DMA_TIMESTAMP_HI);
    if (clock && log->clock_run) {
        log->clock_reads++;
        pthread_mutex_unlock(&log->mu);
        return;
    }
    attribute(log);
    if (write)
        flush_repeats(log);
    else if (!clock)
        end_clock_run(log);
    log->clock_run = clock;
    /* A failed read has no value. */
    if (!write && status != GR_OK)
        fprintf(log->f, "rd 0x%04" PRIx32 " - %s\n", offset, status_word(status));
    else
        fprintf(log->f, "%s 0x%04" PRIx32 " 0x%08" PRIx32 " %s\n", write ? "wr" : "rd", offset, value,
                status_word(status));
    fflush(log->f);
    pthread_mutex_unlock(&log->mu);
}

void gr_txlog_ap(gr_txlog_t *log, bool write, uint64_t offset, const void *data, size_t bytes, int status)
{
    if (!log)
        return;
    char fields[96];
    pthread_mutex_lock(&log->mu);
    flush_repeats(log);
    attribute(log);
    data_fields(log, offset, write || status == GR_OK ? data : NULL, bytes, fields, sizeof fields);
    fprintf(log->f, "%s 0x%08" PRIx64 " %zu%s %s\n", write ? "apwr" : "aprd", offset, bytes, fields,
            status_word(status));
    fflush(log->f);
    pthread_mutex_unlock(&log->mu);
}

void gr_txlog_alloc(gr_txlog_t *log, uint64_t bus, size_t bytes, int status)
{
    if (!log)
        return;
    pthread_mutex_lock(&log->mu);
    flush_repeats(log);
    attribute(log);
    if (status != GR_OK) {
        fprintf(log->f, "alloc - %zu %s\n", bytes, status_word(status));
    } else {
        if (log->count == log->cap) {
            unsigned cap = log->cap ? 2 * log->cap : 16;
            txlog_buf_t *b = realloc(log->bufs, sizeof *b * cap);
            if (b) {
                log->bufs = b;
                log->cap = cap;
            }
        }
        unsigned k = log->next_k++;
        /* Without room the buffer is logged, and its addresses are not relocated. */
        if (log->count < log->cap)
            log->bufs[log->count++] =
                (txlog_buf_t){bus, ((uint64_t)bytes + PAGE - 1u) & ~(uint64_t)(PAGE - 1u), k};
        fprintf(log->f, "alloc 0x%010" PRIx64 " %zu h%u ok\n", bus, bytes, k);
    }
    fflush(log->f);
    pthread_mutex_unlock(&log->mu);
}

void gr_txlog_free(gr_txlog_t *log, uint64_t bus, int status)
{
    if (!log)
        return;
    pthread_mutex_lock(&log->mu);
    flush_repeats(log);
    attribute(log);
    unsigned k = 0;
    for (unsigned i = 0; i < log->count; i++) {
        if (log->bufs[i].bus == bus) {
            k = log->bufs[i].k;
            if (status == GR_OK)
                log->bufs[i] = log->bufs[--log->count];
            break;
        }
    }
    if (k)
        fprintf(log->f, "free 0x%010" PRIx64 " h%u %s\n", bus, k, status_word(status));
    else
        fprintf(log->f, "free 0x%010" PRIx64 " - %s\n", bus, status_word(status));
    fflush(log->f);
    pthread_mutex_unlock(&log->mu);
}

void gr_txlog_dma(gr_txlog_t *log, bool write, uint64_t bus, const void *data, size_t bytes, bool ok)
{
    if (!log)
        return;
    char fields[96], where[32] = "-";
    pthread_mutex_lock(&log->mu);
    const txlog_buf_t *buf = buf_at(log, bus);
    if (buf)
        snprintf(where, sizeof where, "h%u+0x%" PRIx64, buf->k, bus - buf->bus);
    data_fields(log, bus, ok ? data : NULL, bytes, fields, sizeof fields);
    char line[sizeof log->last_dmard];
    snprintf(line, sizeof line, "%s 0x%010" PRIx64 " %s %zu%s %s", write ? "dmawr" : "dmard", bus, where, bytes,
             fields, ok ? "ok" : "error");
    if (!write && !strcmp(line, log->last_dmard)) {
        log->dmard_repeats++;
        pthread_mutex_unlock(&log->mu);
        return;
    }
    flush_repeats(log);
    fprintf(log->f, "%s\n", line);
    /* After a write the same read may see other bytes: it is written out again. */
    snprintf(log->last_dmard, sizeof log->last_dmard, "%s", write ? "" : line);
    /* The device's requests come on their own, between the host's calls: no flush per line
     * (a page copy is dozens of them); the next host call's line flushes them. */
    pthread_mutex_unlock(&log->mu);
}

void gr_txlog_irq(gr_txlog_t *log, bool level)
{
    if (!log)
        return;
    pthread_mutex_lock(&log->mu);
    if (level != log->irq) {
        flush_repeats(log);
        attribute(log);
        log->irq = level;
        fprintf(log->f, "irq %d\n", level ? 1 : 0);
        fflush(log->f);
    }
    pthread_mutex_unlock(&log->mu);
}
