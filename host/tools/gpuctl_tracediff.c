/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpuctl tracediff A B: compares two host-side transaction logs (?txlog=, docs/txlog.md) by
 * content, as a bring-up compares a board's run with the simulation's. No device is opened.
 *
 * Each log is cut into streams, each compared in order on its own (docs/txlog.md, "tracediff",
 * states the rules and why): the register writes; the register reads, a poll (the same register
 * read again with the same answer) counted once; the BAR1 bursts; the device's DMA requests,
 * a repeated read of the same bytes counted once; the DMA buffers. The host's accesses (register
 * writes and reads, BAR1 bursts) are cut once more by the DDI they were made in (the last "ddi"
 * marker before them: the log writes a thread's own again when another thread's came between),
 * since the driver's threads share the link and how their accesses interleave is timing; when
 * both logs have markers, else each kind is one stream. The DDIs that run as often as the host
 * looks (the interrupt routine, the DPC, QueryCurrentFence) are compared as the set of their
 * distinct accesses. Interrupt lines are counted,
 * not compared: when a level is seen depends on when the host looks. Registers whose value
 * depends on the build or on time (ID_BUILD, ID_DATE, the free-running and cycle-counting ones)
 * are compared by offset and status only, and their reads not at all; registers holding host
 * bus addresses are compared as buffer and offset. The driver's DDI markers ("ddi" lines) are
 * not compared; the first divergence names the last one before it in each log, its DDI step.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"
#include "gpuref/gr_regdesc.h"
#include "gr_txlog.h"

enum { ST_WR, ST_ACK, ST_RD, ST_ADDR, ST_AP, ST_DMA, ST_BUF, ST_COUNT };
static const char *const stream_name[ST_COUNT] = {"register writes", "W1C writes", "register reads",
                                                  "address registers", "BAR1 bursts",
                                                  "device DMA requests", "DMA buffers"};

typedef struct ev {
    unsigned line;  /* in the file, from 1 */
    char key[400];  /* what is compared */
    char text[200]; /* the line as written (its start) */
    uint32_t offset, value; /* register lines */
    bool reg, value_known, write;
    char data[2 * GR_TXLOG_INLINE_BYTES + 1]; /* a DMA line's data=, in hex ("" without) */
} ev_t;

typedef struct stream {
    int kind;     /* ST_* */
    char ddi[64]; /* the DDI its accesses were made in ("": none, or a stream not cut by DDI) */
    ev_t *ev;
    size_t n, cap;
} stream_t;

typedef struct tlog {
    const char *path;
    stream_t *s; /* in the order they first appear */
    size_t ns, caps;
    size_t kind_n[ST_COUNT];
    char ddi[64]; /* the DDI of the last marker read */
    unsigned irqs, lines;
    char link[160];
    /* DMA buffers by number: for registers that hold a host bus address */
    struct {
        uint64_t bus, bytes;
        unsigned from, to; /* its alloc line and its free line (0: never freed) */
    } *buf;
    unsigned nbuf;
    /* The DDI markers, in file order */
    struct mark {
        unsigned line;
        char text[128];
    } *mark;
    size_t nmark, capmark;
} tlog_t;

/* Registers the driver sets from the link (DMA_WATCHDOG from gr_link_dma_wait_cycles; sim://
 * leaves it at reset): not compared at all. */
static bool link_set(uint32_t offset)
{
    return offset == GR_REG_DMA_WATCHDOG;
}

/* Registers with W1C fields (IRQ_STATE, the fault status): the interrupt routine acknowledges
 * there, on its own thread, so where its writes fall among the others' depends on when it ran. */
static bool w1c_reg(uint32_t offset)
{
    const gr_reg_desc_t *r = gr_regdesc_at(offset);
    return r && gr_regdesc_mask_of(r, GR_ACCESS_W1C) != 0;
}

/* Registers whose value is the build's or time's, not the run's: compared by offset and status. */
static bool value_free(uint32_t offset)
{
    static const uint32_t regs[] = {GR_REG_ID_BUILD, GR_REG_ID_DATE, GR_REG_DMA_PERF_BUSY, GR_REG_DMA_PERF_STALLS,
                                    GR_REG_DMA_PERF_LAST_CMD};
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
        if (regs[i] == offset)
            return true;
    const gr_reg_desc_t *r = gr_regdesc_at(offset);
    for (unsigned i = 0; r && i < r->field_count; i++)
        if (r->fields[i].flags & GR_FIELD_VOLATILE)
            return true;
    return false;
}

/* Registers the driver programs with half of a host bus address: *_BASE_LO/HI, *_ADDR_LO/HI
 * with read-write fields. The fault reports (MC_FAULT_ADDR, DMA_FAULT_ADDR) are read-only and
 * mostly hold 0 or a GPU address: plain reads, since a 0 would otherwise stand for a buffer whose
 * bus address ends in 32 zero bits on one link and not on another. */
static int address_half(uint32_t offset)
{
    const gr_reg_desc_t *r = gr_regdesc_at(offset);
    if (!r || gr_regdesc_mask_of(r, GR_ACCESS_RW) == 0)
        return 0;
    size_t n = strlen(r->name);
    if (n < 8)
        return 0;
    const char *tail = r->name + n - 3;
    bool lo = !strcmp(tail, "_LO"), hi = !strcmp(tail, "_HI");
    if (!lo && !hi)
        return 0;
    if (strncmp(tail - 5, "_BASE", 5) && strncmp(tail - 5, "_ADDR", 5))
        return 0;
    return lo ? 1 : 2;
}

/* value as a register holding half an address: "h3+0x40" (low half inside buffer 3),
 * "hi(h3)" (the high half of buffer 3's address), else the number. */
static void reg_value_key(const tlog_t *l, uint32_t offset, uint32_t value, char *out, size_t cap)
{
    int half = address_half(offset);
    for (unsigned k = 1; half && k <= l->nbuf; k++) {
        uint64_t bus = l->buf[k - 1].bus, bytes = l->buf[k - 1].bytes;
        if (!bytes)
            continue;
        if (half == 1 && (uint32_t)(value - (uint32_t)bus) < bytes) {
            snprintf(out, cap, "h%u+0x%" PRIx32, k, (uint32_t)(value - (uint32_t)bus));
            return;
        }
        if (half == 2 && value == (uint32_t)(bus >> 32)) {
            snprintf(out, cap, "hi(h*)");
            return;
        }
    }
    snprintf(out, cap, "0x%08" PRIx32, value);
}

/* A burst line's digest ("crc=0x...", or "" without data) and its status (the last word). */
static void tail_fields(const char *line, char *crc, size_t crc_cap, char *status, size_t status_cap)
{
    const char *c = strstr(line, " crc=");
    crc[0] = '\0';
    if (c)
        snprintf(crc, crc_cap, "%.*s", (int)strcspn(c + 1, " "), c + 1);
    const char *sp = strrchr(line, ' ');
    snprintf(status, status_cap, "%s", sp ? sp + 1 : line);
}

static int push(stream_t *s, const ev_t *e)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        ev_t *v = realloc(s->ev, sizeof *v * cap);
        if (!v)
            return -1;
        s->ev = v;
        s->cap = cap;
    }
    s->ev[s->n++] = *e;
    return 0;
}

/* The stream of kind in DDI ddi, made when create; NULL when there is none (or no memory). */
static stream_t *stream_of(tlog_t *l, int kind, const char *ddi, bool create)
{
    for (size_t i = 0; i < l->ns; i++)
        if (l->s[i].kind == kind && !strcmp(l->s[i].ddi, ddi))
            return &l->s[i];
    if (!create)
        return NULL;
    if (l->ns == l->caps) {
        size_t cap = l->caps ? 2 * l->caps : 16;
        stream_t *v = realloc(l->s, sizeof *v * cap);
        if (!v)
            return NULL;
        l->s = v;
        l->caps = cap;
    }
    stream_t *s = &l->s[l->ns++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    snprintf(s->ddi, sizeof s->ddi, "%s", ddi);
    return s;
}

/* "register writes" or "register writes in DxgkDdiSubmitCommand" */
static void stream_title(int kind, const char *ddi, char *out, size_t cap)
{
    snprintf(out, cap, "%s%s%s", stream_name[kind], ddi[0] ? " in " : "", ddi);
}

static void tlog_free(tlog_t *l)
{
    for (size_t i = 0; i < l->ns; i++)
        free(l->s[i].ev);
    free(l->s);
    free(l->buf);
    free(l->mark);
}

static int push_mark(tlog_t *l, unsigned line, const char *text)
{
    if (l->nmark == l->capmark) {
        size_t cap = l->capmark ? 2 * l->capmark : 64;
        struct mark *m = realloc(l->mark, sizeof *m * cap);
        if (!m)
            return -1;
        l->mark = m;
        l->capmark = cap;
    }
    l->mark[l->nmark].line = line;
    snprintf(l->mark[l->nmark].text, sizeof l->mark[l->nmark].text, "%.127s", text);
    l->nmark++;
    return 0;
}

/* The last DDI marker before line, or NULL. */
static const struct mark *step_before(const tlog_t *l, unsigned line)
{
    size_t lo = 0, hi = l->nmark; /* markers [0, lo) lie before line */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->mark[mid].line < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? &l->mark[lo - 1] : NULL;
}

/* DDIs that run as often as the link's timing makes them (the host looks for the interrupt and
 * the fence when it looks): their accesses are compared as a set, each distinct one once. */
static bool timing_ddi(const char *ddi)
{
    return !strcmp(ddi, "DxgkDdiInterruptRoutine") || !strcmp(ddi, "DxgkDdiDpcRoutine") ||
           !strcmp(ddi, "DxgkDdiQueryCurrentFence");
}

static int ev_by_key(const void *x, const void *y)
{
    const ev_t *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* A stream of a timing DDI as its distinct accesses, each at its first line, in key order. */
static void as_set(stream_t *s)
{
    if (!s->n)
        return;
    qsort(s->ev, s->n, sizeof *s->ev, ev_by_key);
    size_t k = 1;
    for (size_t i = 1; i < s->n; i++)
        if (strcmp(s->ev[i].key, s->ev[k - 1].key))
            s->ev[k++] = s->ev[i];
    s->n = k;
}

/* Reads one log; 0, or -1 with the reason printed. */
static int tlog_read(const char *path, bool by_ddi, tlog_t *l)
{
    memset(l, 0, sizeof *l);
    l->path = path;
    FILE *f = fopen(path, "r");
    if (!f) {
        note("tracediff: cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    unsigned n = 0;
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        n++;
        line[strcspn(line, "\r\n")] = '\0';
        if (n == 1) {
            if (strncmp(line, GR_TXLOG_MAGIC, strlen(GR_TXLOG_MAGIC))) {
                note("tracediff: '%s' is not a gpuref transaction log (its first line is not '%s ...')", path,
                     GR_TXLOG_MAGIC);
                rc = -1;
            }
            continue;
        }
        if (n == 2 && line[0] == '#')
            snprintf(l->link, sizeof l->link, "%.150s", line + 2);
        if (!line[0] || line[0] == '#')
            continue;
        ev_t e = {.line = n};
        snprintf(e.text, sizeof e.text, "%.190s", line);
        char kind[24], a[64], b[64], c[64], d[64], g[64];
        int got = sscanf(line, "%23s %63s %63s %63s %63s %63s", kind, a, b, c, d, g);
        int st = -1;
        if ((!strcmp(kind, "rd") || !strcmp(kind, "wr")) && got == 4) {
            e.reg = true;
            e.offset = (uint32_t)strtoul(a, NULL, 16);
            e.value_known = strcmp(b, "-") != 0;
            e.value = (uint32_t)strtoul(b, NULL, 16);
            bool wr = kind[0] == 'w';
            e.write = wr;
            if (link_set(e.offset))
                continue;
            if (value_free(e.offset)) {
                if (!wr)
                    continue; /* a clock or a build stamp: read as often as the host likes */
                snprintf(e.key, sizeof e.key, "wr %s * %s", a, c);
            } else {
                char v[32] = "-";
                if (e.value_known)
                    reg_value_key(l, e.offset, e.value, v, sizeof v);
                /* An address register: what it holds after the access, read or written. */
                snprintf(e.key, sizeof e.key, "%s %s %s %s", address_half(e.offset) ? "=" : kind, a, v, c);
            }
            st = address_half(e.offset) && !value_free(e.offset) ? ST_ADDR
                 : !wr                                           ? ST_RD
                 : w1c_reg(e.offset)                             ? ST_ACK
                                                                 : ST_WR;
        } else if ((!strcmp(kind, "aprd") || !strcmp(kind, "apwr")) && got >= 4) {
            /* aprd OFFSET BYTES [crc=] [data=] STATUS: the digest and the status */
            char crc[24], status[48];
            tail_fields(line, crc, sizeof crc, status, sizeof status);
            snprintf(e.key, sizeof e.key, "%s %s %s %s %s", kind, a, b, crc, status);
            st = ST_AP;
        } else if ((!strcmp(kind, "dmard") || !strcmp(kind, "dmawr")) && got >= 5) {
            /* dmard BUS WHERE BYTES [crc=] [data=] STATUS: WHERE (buffer and offset) stands for the
             * bus address, which differs between links */
            char crc[24], status[48];
            tail_fields(line, crc, sizeof crc, status, sizeof status);
            /* With its bytes in the line, those are compared (same_data), not the digest. */
            const char *dd = strstr(line, " data=");
            if (dd)
                snprintf(e.data, sizeof e.data, "%.*s", (int)strcspn(dd + 6, " "), dd + 6);
            snprintf(e.key, sizeof e.key, "%s %s %s %s %s", kind, strcmp(b, "-") ? b : a, c,
                     e.data[0] ? "data" : crc, status);
            st = ST_DMA;
        } else if (!strcmp(kind, "alloc") && got == 5) {
            unsigned k = (unsigned)strtoul(c + 1, NULL, 10);
            if (k == l->nbuf + 1) {
                void *nb = realloc(l->buf, sizeof *l->buf * (k + 1));
                if (!nb) {
                    rc = -1;
                    break;
                }
                l->buf = nb;
                l->buf[k - 1].bus = strtoull(a, NULL, 16);
                l->buf[k - 1].bytes = (strtoull(b, NULL, 10) + 4095u) & ~4095ull;
                l->buf[k - 1].from = n;
                l->buf[k - 1].to = 0;
                l->nbuf = k;
            }
            snprintf(e.key, sizeof e.key, "alloc %s %s %s", b, c, d);
            st = ST_BUF;
        } else if (!strcmp(kind, "alloc") && got == 4) {
            snprintf(e.key, sizeof e.key, "alloc - %s %s", b, c);
            st = ST_BUF;
        } else if (!strcmp(kind, "free") && got == 4) {
            unsigned k = b[0] == 'h' ? (unsigned)strtoul(b + 1, NULL, 10) : 0;
            if (k && k <= l->nbuf && !strcmp(c, "ok"))
                l->buf[k - 1].to = n;
            snprintf(e.key, sizeof e.key, "free %s %s", b, c);
            st = ST_BUF;
        } else if ((!strcmp(kind, "dmard-repeat") || !strcmp(kind, "clock-reads")) && got == 2) {
            continue; /* polls */
        } else if (!strcmp(kind, "irq") && got == 2) {
            l->irqs++;
            continue;
        } else if (!strcmp(kind, "ddi") && got >= 2) {
            /* a marker: where the driver was, not what went over the link */
            if (push_mark(l, n, line + 4)) {
                note("tracediff: out of memory");
                rc = -1;
                break;
            }
            snprintf(l->ddi, sizeof l->ddi, "%.*s", (int)strcspn(line + 4, " "), line + 4);
            continue;
        } else {
            note("tracediff: %s:%u: not a transaction log line: '%s'", path, n, line);
            rc = -1;
            break;
        }
        /* The host's accesses by the DDI they were made in; the device's requests and the
         * buffers (numbered in one order for the whole log) as one stream each. */
        stream_t *s = stream_of(l, st, !by_ddi || st == ST_DMA || st == ST_BUF ? "" : l->ddi, true);
        if (!s) {
            note("tracediff: out of memory");
            rc = -1;
            break;
        }
        /* A poll: the same read with the same answer as the stream's last one. */
        if ((st == ST_RD || (st == ST_DMA && kind[3] == 'r')) && s->n && !strcmp(s->ev[s->n - 1].key, e.key) &&
            !strcmp(s->ev[s->n - 1].data, e.data))
            continue;
        /* An address register written right after it was read: the driver checked it and set
         * it (it writes only a value the register does not hold yet, and whether a reset value
         * equals a buffer's address depends on the bus addresses the link hands out): the
         * write stands for both. */
        if (st == ST_ADDR && e.write && s->n && !s->ev[s->n - 1].write && s->ev[s->n - 1].offset == e.offset) {
            s->ev[s->n - 1] = e;
            l->kind_n[st]++;
            continue;
        }
        if (push(s, &e)) {
            note("tracediff: out of memory");
            rc = -1;
        }
        l->kind_n[st]++;
    }
    if (!rc && ferror(f)) {
        note("tracediff: cannot read '%s': %s", path, strerror(errno));
        rc = -1;
    }
    if (!rc && n == 0) {
        note("tracediff: '%s' is empty (not a gpuref transaction log)", path);
        rc = -1;
    }
    l->lines = n;
    for (size_t i = 0; i < l->ns; i++)
        if (timing_ddi(l->s[i].ddi))
            as_set(&l->s[i]);
    fclose(f);
    if (rc)
        tlog_free(l);
    return rc;
}

/* The buffer and offset of a host bus address in this log at a line ("h3+0x40" as numbers):
 * the buffer live there (a freed buffer's addresses go to the next); false when it lies in
 * none. */
static bool reloc(const tlog_t *l, unsigned line, uint64_t v, unsigned *out_k, uint64_t *out_off)
{
    for (unsigned k = 1; k <= l->nbuf; k++) {
        if (l->buf[k - 1].from > line || (l->buf[k - 1].to && l->buf[k - 1].to < line))
            continue;
        if (v >= l->buf[k - 1].bus && v - l->buf[k - 1].bus < l->buf[k - 1].bytes) {
            *out_k = k;
            *out_off = v - l->buf[k - 1].bus;
            return true;
        }
    }
    return false;
}

static unsigned hexval(char c)
{
    return c <= '9' ? (unsigned)(c - '0') : (unsigned)(c - 'a' + 10);
}

/* Two DMA lines' bytes (data=, in address order from the same offset in the same buffer, so
 * aligned alike), word by word: the same when each 8-byte word has the same value, or both
 * point into buffers of the same number at the same offset. The digest relocates a word that
 * merely looks like an address on one link (a ring entry's fence id 1 above its byte count is
 * 0x1_0000_0018, inside a ring at 0x1_0000_0000) and not on the other; the bytes do not. */
static bool same_data(const tlog_t *la, const ev_t *ea, const tlog_t *lb, const ev_t *eb)
{
    size_t n = strlen(ea->data);
    if (n != strlen(eb->data) || n % 2)
        return false;
    n /= 2;
    size_t at = 0;
    const char *w = strstr(ea->text, " h");
    /* where the bytes start within their buffer: "hK+0xOFF" (8-byte alignment) */
    if (w && (w = strchr(w, '+')))
        at = (size_t)strtoull(w + 1, NULL, 16);
    for (size_t i = 0; i < n;) {
        size_t head = (8u - ((at + i) & 7u)) & 7u;
        if (head || n - i < 8) {
            size_t run = head ? head : n - i;
            if (run > n - i)
                run = n - i;
            if (strncmp(ea->data + 2 * i, eb->data + 2 * i, 2 * run))
                return false;
            i += run;
            continue;
        }
        uint64_t va = 0, vb = 0;
        for (unsigned b = 0; b < 8; b++) {
            va |= (uint64_t)(hexval(ea->data[2 * (i + b)]) << 4 | hexval(ea->data[2 * (i + b) + 1])) << (8 * b);
            vb |= (uint64_t)(hexval(eb->data[2 * (i + b)]) << 4 | hexval(eb->data[2 * (i + b) + 1])) << (8 * b);
        }
        unsigned ka, kb;
        uint64_t oa, ob;
        if (va != vb &&
            !(reloc(la, ea->line, va, &ka, &oa) && reloc(lb, eb->line, vb, &kb, &ob) && ka == kb && oa == ob))
            return false;
        i += 8;
    }
    return true;
}

static bool same_ev(const tlog_t *la, const ev_t *ea, const tlog_t *lb, const ev_t *eb)
{
    if (strcmp(ea->key, eb->key))
        return false;
    return !ea->data[0] || same_data(la, ea, lb, eb);
}

/* A register event in the register map's words: "DMA_RING_TAIL (0x0108) = 0x00000010". */
static void describe_reg(const ev_t *e, bool write, char *out, size_t cap)
{
    const gr_reg_desc_t *r = gr_regdesc_at(e->offset);
    if (e->value_known)
        snprintf(out, cap, "%s %s (0x%04" PRIx32 ") %s 0x%08" PRIx32, write ? "write" : "read", r ? r->name : "a hole",
                 e->offset, write ? "<-" : "->", e->value);
    else
        snprintf(out, cap, "%s %s (0x%04" PRIx32 ") failed", write ? "write" : "read", r ? r->name : "a hole",
                 e->offset);
}

/* The fields of one register that differ between two values: " (FIELD 0x1 vs 0x2, ...)". */
static void field_diff(uint32_t offset, uint32_t a, uint32_t b, char *out, size_t cap)
{
    out[0] = '\0';
    const gr_reg_desc_t *r = gr_regdesc_at(offset);
    if (!r)
        return;
    size_t len = 0;
    for (unsigned i = 0; i < r->field_count && len + 1 < cap; i++) {
        const gr_field_desc_t *fd = &r->fields[i];
        uint32_t m = fd->width >= 32 ? 0xffffffffu : ((1u << fd->width) - 1u);
        uint32_t fa = (a >> fd->lsb) & m, fb = (b >> fd->lsb) & m;
        if (fa != fb)
            len += (size_t)snprintf(out + len, cap - len, "%s%s.%s 0x%" PRIx32 " vs 0x%" PRIx32, len ? ", " : "; ",
                                    r->name, fd->name, fa, fb);
    }
    if ((a & ~gr_regdesc_mask(r)) != (b & ~gr_regdesc_mask(r)) && len + 1 < cap)
        snprintf(out + len, cap - len, "%sreserved bits differ", len ? ", " : "; ");
}

int cmd_tracediff(const opts_t *o, const char *path_a, const char *path_b)
{
    tlog_t a, b;
    if (tlog_read(path_a, true, &a))
        return EXIT_USAGE;
    if (tlog_read(path_b, true, &b)) {
        tlog_free(&a);
        return EXIT_USAGE;
    }
    /* Cut by DDI only when both logs say where the driver was: a log without markers (the
     * register conformance suite enters no DDI, a log of an older gpuref) compares whole. */
    if (!a.nmark || !b.nmark) {
        tlog_free(&a);
        tlog_free(&b);
        if (tlog_read(path_a, false, &a))
            return EXIT_USAGE;
        if (tlog_read(path_b, false, &b)) {
            tlog_free(&a);
            return EXIT_USAGE;
        }
    }
    size_t diffs = 0;
    size_t compared[ST_COUNT] = {0};
    /* The first divergence: the one earliest in A (a stream A lacks: at its end). */
    const stream_t *fa = NULL, *fb = NULL;
    int first_kind = -1;
    char first_ddi[64] = "";
    size_t first_i = 0;
    unsigned first_line = ~0u;
    /* Every stream of A with its match in B, then B's that A lacks. */
    for (int pass = 0; pass < 2; pass++) {
        const tlog_t *x = pass ? &b : &a, *y = pass ? &a : &b;
        for (size_t k = 0; k < x->ns; k++) {
            const stream_t *sx = &x->s[k];
            const stream_t *sy = stream_of((tlog_t *)y, sx->kind, sx->ddi, false);
            if (pass && sy)
                continue; /* compared in the first pass */
            const stream_t *sa = pass ? sy : sx, *sb = pass ? sx : sy;
            size_t na = sa ? sa->n : 0, nb = sb ? sb->n : 0;
            size_t n = na < nb ? na : nb;
            compared[sx->kind] += na > nb ? na : nb;
            size_t d = na > nb ? na - nb : nb - na;
            size_t at = n;
            for (size_t i = 0; i < n; i++) {
                if (!same_ev(&a, &sa->ev[i], &b, &sb->ev[i])) {
                    d++;
                    if (at == n)
                        at = i;
                }
            }
            diffs += d;
            if (!d)
                continue;
            unsigned line_a = at < na ? sa->ev[at].line : a.lines + 1;
            if (line_a < first_line) {
                first_line = line_a;
                fa = sa;
                fb = sb;
                first_kind = sx->kind;
                snprintf(first_ddi, sizeof first_ddi, "%s", sx->ddi);
                first_i = at;
            }
        }
    }
    if (o->json) {
        printf("{\"same\": %s, \"differences\": %zu", diffs ? "false" : "true", diffs);
    } else {
        printf("A: %s (%s)\nB: %s (%s)\n", path_a, a.link[0] ? a.link : "?", path_b, b.link[0] ? b.link : "?");
        for (int st = 0; st < ST_COUNT; st++)
            printf("  %-20s %6zu in A, %6zu in B\n", stream_name[st], a.kind_n[st], b.kind_n[st]);
        printf("  %-20s %6u in A, %6u in B (not compared: when a level is seen depends on when the host looks)\n",
               "interrupt changes", a.irqs, b.irqs);
    }
    if (first_kind >= 0) {
        const ev_t *ea = fa && first_i < fa->n ? &fa->ev[first_i] : NULL;
        const ev_t *eb = fb && first_i < fb->n ? &fb->ev[first_i] : NULL;
        char da[200] = "(nothing: the stream ends)", db[200] = "(nothing: the stream ends)", fields[256] = "";
        char title[96];
        stream_title(first_kind, first_ddi, title, sizeof title);
        if (ea)
            ea->reg ? describe_reg(ea, ea->write, da, sizeof da) : (void)snprintf(da, sizeof da, "%.190s", ea->text);
        if (eb)
            eb->reg ? describe_reg(eb, eb->write, db, sizeof db) : (void)snprintf(db, sizeof db, "%.190s", eb->text);
        if (ea && eb && ea->reg && eb->reg && ea->offset == eb->offset && ea->value_known && eb->value_known)
            field_diff(ea->offset, ea->value, eb->value, fields, sizeof fields);
        /* The DDI step: the last marker before the divergence in each log (where a stream
         * ended, the last marker of the log). */
        const struct mark *ma = step_before(&a, ea ? ea->line : a.lines + 1);
        const struct mark *mb = step_before(&b, eb ? eb->line : b.lines + 1);
        if (o->json) {
            printf(", \"first\": {\"stream\": \"%s\", \"index\": %zu, \"a_line\": %u, \"b_line\": %u", title,
                   first_i, ea ? ea->line : 0, eb ? eb->line : 0);
            /* marker texts are the driver's own words: no quotes or backslashes in them */
            if (ma)
                printf(", \"a_ddi_step\": \"%s\", \"a_ddi_line\": %u", ma->text, ma->line);
            if (mb)
                printf(", \"b_ddi_step\": \"%s\", \"b_ddi_line\": %u", mb->text, mb->line);
            printf("}");
        } else {
            printf("first divergence: %s #%zu%s\n", title, first_i + 1, fields);
            if (ea)
                printf("  A line %u: %s\n", ea->line, da);
            else
                printf("  A: %s\n", da);
            if (eb)
                printf("  B line %u: %s\n", eb->line, db);
            else
                printf("  B: %s\n", db);
            if (ma && mb && !strcmp(ma->text, mb->text))
                printf("  DDI step: %s (A line %u, B line %u)\n", ma->text, ma->line, mb->line);
            else if (ma || mb) {
                char sa[160] = "before any DDI", sb[160] = "before any DDI";
                if (ma)
                    snprintf(sa, sizeof sa, "%s (line %u)", ma->text, ma->line);
                if (mb)
                    snprintf(sb, sizeof sb, "%s (line %u)", mb->text, mb->line);
                printf("  DDI step: A %s, B %s\n", sa, sb);
            }
        }
    }
    if (o->json)
        printf("}\n");
    else if (diffs)
        printf("%zu difference%s\n", diffs, diffs == 1 ? "" : "s");
    else
        printf("same content (%zu register writes, %zu W1C writes, %zu reads, %zu address register accesses, %zu BAR1 "
               "bursts, %zu DMA requests, %zu buffer lines compared)\n",
               compared[ST_WR], compared[ST_ACK], compared[ST_RD], compared[ST_ADDR], compared[ST_AP], compared[ST_DMA],
               compared[ST_BUF]);
    tlog_free(&a);
    tlog_free(&b);
    return diffs ? EXIT_CHECKS_FAILED : EXIT_OK;
}
