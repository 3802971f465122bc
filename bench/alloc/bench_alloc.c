/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_alloc.c: GPU-like allocation traces run on gpuref's segment allocator, Linux's drm_mm
 * and Linux's drm_buddy (see README.md for what is measured and how the kernel allocators are
 * driven). Options: bench_alloc --help.
 *
 * Each trace is generated from its seed before any allocator runs, so every allocator sees the
 * same requests in the same order; an allocator that fails an allocation simply skips that
 * id's later free. Output: a Markdown table on stdout and in DIR/alloc.md, and DIR/alloc.dat
 * for bench/alloc/alloc.gp.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_alloc.h"

#define KIB 1024.0
#define PAGES_PER_MIB 256u

/* ---- PRNG: xoshiro256** seeded by splitmix64 ------------------------------------------------ */

typedef struct rng {
    uint64_t s[4];
} rng_t;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_seed(rng_t *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

static uint64_t rng_below(rng_t *r, uint64_t n)
{
    return n ? (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64) : 0;
}

static double rng_unit(rng_t *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

static bool rng_pct(rng_t *r, double pct)
{
    return rng_unit(r) * 100.0 < pct;
}

/* Log-uniform in [lo, hi] bytes. */
static double rng_log(rng_t *r, double lo, double hi)
{
    return exp(log(lo) + rng_unit(r) * (log(hi) - log(lo)));
}

void bench_touch(void *p, size_t bytes)
{
    volatile unsigned char *b = p;
    for (size_t i = 0; i < bytes; i += 4096)
        b[i] = 0;
}

/* ---- the trace ------------------------------------------------------------------------------ */

enum { OP_ALLOC, OP_FREE };

typedef struct op {
    uint32_t id;
    uint8_t kind;
    uint8_t churn; /* 0: fill phase, 1: steady state around the target */
} op_t;

typedef struct trace {
    double occupancy;
    uint64_t seg_pages;
    bench_req_t *reqs; /* by id */
    uint32_t n_ids;
    op_t *ops;
    uint32_t n_ops;
    uint32_t n_fill;
    /* what the mix turned out to be, for the README */
    uint64_t n_ranged, n_top_down, n_align[3];
    double max_mib;
} trace_t;

static uint64_t bytes_to_pages(double bytes)
{
    uint64_t p = (uint64_t)ceil(bytes / 4096.0);
    return p ? p : 1;
}

static uint64_t round_pages(uint64_t pages, uint64_t align)
{
    return (pages + align - 1) / align * align;
}

/*
 * One allocation of a D3D-style mix (by count):
 *   3% Overlay/Capture surfaces, pinned in the last 20% of the segment;
 *   1% protected video surfaces, inside the VPR (the first 1/16 of the segment here);
 *   55% small buffers (constants, vertices, indices, uploads): 4 KiB..1 MiB, log-uniform;
 *   27% textures with full mip chains: 64..4096 texels a side, 1-8 bytes a texel, some arrays;
 *   9% render targets and depth: 720p..2160p, 4 or 8 bytes a pixel, 1x..8x MSAA;
 *   5% big buffers: 2 MiB..384 MiB, log-uniform.
 * Alignment: 4 KiB for small buffers and small textures, 64 KiB for textures and surfaces,
 * 2 MiB for big buffers and half of the surfaces of 2 MiB and more. 15% of the unrestricted
 * requests are FromEndOfSegment (top-down).
 */
static bench_req_t gen_req(rng_t *r, uint64_t seg_pages)
{
    static const uint32_t res[][2] = {{1280, 720}, {1920, 1080}, {2560, 1440}, {3840, 2160}};
    bench_req_t q = {.lo = 0, .hi = seg_pages, .align = 1};
    double bytes;
    double u = rng_unit(r) * 100.0;
    if (u < 3.0) {
        const uint32_t *wh = res[1 + rng_below(r, 3)];
        bytes = (double)wh[0] * wh[1] * (rng_pct(r, 70) ? 4 : 8);
        q.align = 16;
        q.lo = seg_pages / 5 * 4;
        q.ranged = true;
    } else if (u < 4.0) {
        const uint32_t *wh = res[1 + 2 * rng_below(r, 2)];
        bytes = (double)wh[0] * wh[1] * 1.5; /* NV12 */
        q.align = 16;
        q.hi = seg_pages / 16;
        q.ranged = true;
    } else if (u < 59.0) {
        bytes = rng_log(r, 4 * KIB, 1024 * KIB);
        q.align = rng_pct(r, 75) ? 1 : 16;
    } else if (u < 86.0) {
        uint64_t w = UINT64_C(64) << rng_below(r, 7), h = w >> rng_below(r, 3);
        static const double bpp[] = {1, 1, 2, 4, 4, 4, 8, 8};
        double b = bpp[rng_below(r, 8)], total = 0;
        for (uint64_t lw = w, lh = h;; lw = lw > 1 ? lw / 2 : 1, lh = lh > 1 ? lh / 2 : 1) {
            total += (double)lw * (double)lh * b;
            if (lw == 1 && lh == 1)
                break;
        }
        /* Some cube maps and texture arrays, never past 512 MiB. */
        double layers = rng_pct(r, 50) ? 6 : (double)(2 + rng_below(r, 15));
        if (rng_pct(r, 10) && total * layers <= 512.0 * 1024 * KIB)
            total *= layers;
        bytes = total;
        q.align = bytes <= 64 * KIB ? 1 : 16;
        if (bytes >= 8 * 1024 * KIB && rng_pct(r, 30))
            q.align = 512;
    } else if (u < 95.0) {
        const uint32_t *wh = res[rng_below(r, 4)];
        static const uint32_t msaa[] = {1, 1, 1, 1, 1, 1, 1, 2, 4, 4, 4, 8};
        bytes = (double)wh[0] * wh[1] * (rng_pct(r, 60) ? 4 : 8) * msaa[rng_below(r, 12)];
        q.align = 16;
        if (bytes >= 2048 * KIB && rng_pct(r, 50))
            q.align = 512;
    } else {
        bytes = rng_log(r, 2048 * KIB, 384.0 * 1024 * KIB);
        q.align = 512;
    }
    q.pages = round_pages(bytes_to_pages(bytes), q.align > 16 ? 16 : q.align);
    if (!q.ranged && rng_pct(r, 15))
        q.top_down = true;
    return q;
}

static bool trace_make(trace_t *t, uint64_t seed, uint64_t seg_pages, double occupancy,
                       uint32_t churn)
{
    rng_t r;
    rng_seed(&r, seed ^ (uint64_t)(occupancy * 1000));
    memset(t, 0, sizeof *t);
    t->occupancy = occupancy;
    t->seg_pages = seg_pages;
    uint32_t cap = churn + 1024;
    t->reqs = malloc(sizeof *t->reqs * cap);
    t->ops = malloc(sizeof *t->ops * (cap + churn));
    uint32_t *live = malloc(sizeof *live * cap);
    if (!t->reqs || !t->ops || !live)
        return false;
    uint32_t n_live = 0;
    uint64_t used = 0, target = (uint64_t)(occupancy * (double)seg_pages);
    uint64_t band = seg_pages / 50; /* 2% */

    for (bool churning = false;;) {
        bool do_alloc;
        if (!churning) {
            do_alloc = used < target;
            if (!do_alloc) {
                churning = true;
                t->n_fill = t->n_ops;
                continue;
            }
        } else {
            if (t->n_ops - t->n_fill >= churn)
                break;
            if (n_live == 0 || used + band < target)
                do_alloc = true;
            else if (used > target)
                do_alloc = false;
            else
                do_alloc = rng_pct(&r, 50);
        }
        if (do_alloc) {
            if (t->n_ids == cap) {
                cap *= 2;
                bench_req_t *nr = realloc(t->reqs, sizeof *nr * cap);
                uint32_t *nl = realloc(live, sizeof *nl * cap);
                op_t *no = realloc(t->ops, sizeof *no * (cap + churn));
                if (!nr || !nl || !no)
                    return false;
                t->reqs = nr;
                live = nl;
                t->ops = no;
            }
            uint32_t id = t->n_ids++;
            t->reqs[id] = gen_req(&r, seg_pages);
            const bench_req_t *q = &t->reqs[id];
            t->n_ranged += q->ranged;
            t->n_top_down += q->top_down;
            t->n_align[q->align == 1 ? 0 : q->align == 16 ? 1 : 2]++;
            if (q->pages / (double)PAGES_PER_MIB > t->max_mib)
                t->max_mib = q->pages / (double)PAGES_PER_MIB;
            live[n_live++] = id;
            used += q->pages;
            t->ops[t->n_ops++] = (op_t){id, OP_ALLOC, churning};
        } else {
            /* A random victim; pinned (ranged) allocations mostly stay. */
            uint32_t k = (uint32_t)rng_below(&r, n_live);
            for (int tries = 0; tries < 3 && t->reqs[live[k]].ranged && rng_pct(&r, 90); tries++)
                k = (uint32_t)rng_below(&r, n_live);
            uint32_t id = live[k];
            live[k] = live[--n_live];
            used -= t->reqs[id].pages;
            t->ops[t->n_ops++] = (op_t){id, OP_FREE, churning};
        }
    }
    free(live);
    return true;
}

static void trace_free(trace_t *t)
{
    free(t->reqs);
    free(t->ops);
}

/* ---- measuring ------------------------------------------------------------------------------ */

static inline uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Per-op latency: wall clock (vDSO, ~20 ns a read). */
static inline uint64_t now_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

/* Throughput: this thread's CPU time, so other load on the machine is not counted. */
static inline uint64_t cpu_ns(void)
{
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* What a timed operation was, for "what the slowest 1% is made of". */
enum {
    CLS_FREE,
    CLS_ALLOC,     /* unrestricted, bottom-up */
    CLS_TOP_DOWN,  /* unrestricted, FromEndOfSegment */
    CLS_RANGED,    /* in a range (Overlay/Capture, VPR) */
    CLS_MOVED,     /* an allocation for which blocks were moved */
    CLS_FAILED,    /* an allocation that failed */
    N_CLS
};
static const char *const cls_name[N_CLS] = {"frees", "bottom-up allocs", "top-down allocs",
                                            "allocs in a range", "allocs that moved blocks",
                                            "failed allocs"};

/* What the runs of one allocator at one occupancy add up to (over all seeds). */
typedef struct acc {
    uint64_t ops;    /* steady-state operations timed for throughput */
    uint64_t cpu_ns; /* their CPU time (best run of each trace) */
    uint32_t *lat;   /* per-op latency, ns, steady state */
    uint8_t *cls;    /* and what each of those operations was (CLS_*) */
    size_t n_lat, cap_lat;
    double ratio_sum, frag_sum; /* largest/free and number of free ranges, per sample */
    uint64_t samples;
    uint64_t allocs, fails, frag_fails, frag_fails_ranged;
    uint64_t moves, moved_pages; /* blocks an allocator relocated, and their size */
} acc_t;

typedef struct result {
    double ops_per_s;
    double p50_ns, p99_ns, p999_ns;
    double slow_share[N_CLS]; /* of the operations at or above p99, the share of each class */
    double largest_over_free; /* mean over samples in the steady state */
    double mean_fragments;
    uint64_t allocs, fails, frag_fails, frag_fails_ranged;
    uint64_t moves, moved_pages;
} result_t;

/* Free ranges collected from a backend, merged where they touch. */
typedef struct ranges {
    uint64_t (*r)[2];
    size_t n, cap;
} ranges_t;

static void ranges_add(void *ctx, uint64_t start, uint64_t pages)
{
    ranges_t *rs = ctx;
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? rs->cap * 2 : 1024;
        rs->r = realloc(rs->r, sizeof *rs->r * rs->cap);
        if (!rs->r)
            abort();
    }
    rs->r[rs->n][0] = start;
    rs->r[rs->n][1] = pages;
    rs->n++;
}

static int cmp_range(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

static void ranges_collect(const bench_backend_t *be, void *b, ranges_t *rs)
{
    rs->n = 0;
    be->free_ranges(b, ranges_add, rs);
    qsort(rs->r, rs->n, sizeof *rs->r, cmp_range);
    size_t w = 0;
    for (size_t i = 0; i < rs->n; i++) {
        if (w > 0 && rs->r[w - 1][0] + rs->r[w - 1][1] == rs->r[i][0])
            rs->r[w - 1][1] += rs->r[i][1];
        else {
            rs->r[w][0] = rs->r[i][0];
            rs->r[w][1] = rs->r[i][1];
            w++;
        }
    }
    rs->n = w;
}

static uint64_t ranges_free_in(const ranges_t *rs, uint64_t lo, uint64_t hi)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < rs->n; i++) {
        uint64_t s = rs->r[i][0], e = s + rs->r[i][1];
        s = s > lo ? s : lo;
        e = e < hi ? e : hi;
        if (s < e)
            sum += e - s;
    }
    return sum;
}

/* One bit per page: every contiguous block handed out must be free, aligned and in range. */
typedef struct verifier {
    uint64_t *bits;
    uint64_t *start; /* by id */
} verifier_t;

static bool bits_span(uint64_t *bits, uint64_t s, uint64_t n, bool set)
{
    for (uint64_t i = s, e = s + n; i < e;) {
        uint64_t w = i >> 6, lo = i & 63, cnt = e - i < 64 - lo ? e - i : 64 - lo;
        uint64_t m = (cnt == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << cnt) - 1)) << lo;
        if (set) {
            if (bits[w] & m)
                return false;
            bits[w] |= m;
        } else {
            bits[w] &= ~m;
        }
        i += cnt;
    }
    return true;
}

/* What a move report (bench_move_fn) updates during a detailed run. */
typedef struct move_ctx {
    const trace_t *t;
    verifier_t *v;
    acc_t *a;
    bool churn; /* the current op is a steady-state one */
    bool bad;   /* a block was moved onto pages in use, or for an id that holds nothing */
    uint32_t bad_id;
} move_ctx_t;

static void on_move(void *ctx, uint32_t id, uint64_t start, uint64_t pages)
{
    move_ctx_t *m = ctx;
    const bench_req_t *q = &m->t->reqs[id];
    if (m->churn) {
        m->a->moves++;
        m->a->moved_pages += pages;
    }
    if (pages != q->pages || m->v->start[id] == UINT64_MAX || start % q->align || start < q->lo ||
        start + pages > q->hi) {
        m->bad = true;
        m->bad_id = id;
        return;
    }
    bits_span(m->v->bits, m->v->start[id], pages, false);
    if (!bits_span(m->v->bits, start, pages, true)) {
        m->bad = true;
        m->bad_id = id;
    }
    m->v->start[id] = start;
}

/*
 * Runs the trace once. Plain runs time the steady state as a whole (CPU time) and add to
 * a->ops/a->cpu_ns through *out_cpu_ns; detailed runs time every op, sample fragmentation
 * every 1000 ops, classify failures and check every contiguous block (aligned, in range, on
 * free pages). Only steady-state operations are measured.
 */
static bool run_once(const bench_backend_t *be, const trace_t *t, bool detailed, acc_t *a,
                     uint64_t *out_ops, uint64_t *out_cpu_ns)
{
    void *b = be->create(t->seg_pages, t->n_ids);
    uint8_t *held = calloc(t->n_ids, 1);
    verifier_t v = {0};
    ranges_t rs = {0};
    uint64_t steady = t->n_ops - t->n_fill;
    if (detailed) {
        v.bits = calloc((t->seg_pages + 63) / 64, sizeof *v.bits);
        v.start = calloc(t->n_ids, sizeof *v.start);
        if (a->n_lat + steady > a->cap_lat) {
            a->cap_lat = a->n_lat + steady;
            a->lat = realloc(a->lat, sizeof *a->lat * a->cap_lat);
            a->cls = realloc(a->cls, a->cap_lat);
        }
    }
    if (!b || !held || (detailed && (!a->lat || !a->cls || !v.bits || !v.start))) {
        fprintf(stderr, "bench_alloc: %s: out of memory\n", be->name);
        return false;
    }
    move_ctx_t mc = {.t = t, .v = &v, .a = a};
    if (detailed && be->set_mover)
        be->set_mover(b, on_move, &mc);
    uint64_t n_ops = 0, t0 = 0;
    bool ok = true;
    for (uint32_t i = 0; i < t->n_ops && ok; i++) {
        const op_t *op = &t->ops[i];
        if (i == t->n_fill)
            t0 = cpu_ns();
        if (op->kind == OP_FREE && !held[op->id])
            continue; /* its alloc failed on this allocator */
        const bench_req_t *q = &t->reqs[op->id];
        uint64_t start = 0, ts = 0;
        bool got = false;
        mc.churn = op->churn;
        uint64_t moves_before = a->moves;
        if (detailed && op->churn)
            ts = now_ns();
        if (op->kind == OP_ALLOC)
            got = be->alloc(b, op->id, q, &start);
        else
            be->free(b, op->id);
        if (detailed && op->churn) {
            a->lat[a->n_lat] = (uint32_t)(now_ns() - ts);
            a->cls[a->n_lat++] = op->kind == OP_FREE         ? CLS_FREE
                                 : !got                      ? CLS_FAILED
                                 : a->moves != moves_before  ? CLS_MOVED
                                 : q->ranged                 ? CLS_RANGED
                                 : q->top_down               ? CLS_TOP_DOWN
                                                             : CLS_ALLOC;
        }
        n_ops += op->churn;
        if (mc.bad) {
            fprintf(stderr, "bench_alloc: %s: op %u: id %u moved onto pages in use or out of its range\n",
                    be->name, i, mc.bad_id);
            ok = false;
        }

        if (op->kind == OP_FREE) {
            held[op->id] = 0;
            if (detailed && v.start[op->id] != UINT64_MAX)
                bits_span(v.bits, v.start[op->id], q->pages, false);
        } else if (got) {
            held[op->id] = 1;
            if (detailed) {
                a->allocs += op->churn;
                v.start[op->id] = start;
                if (start != UINT64_MAX &&
                    (start % q->align || start < q->lo || start + q->pages > q->hi ||
                     !bits_span(v.bits, start, q->pages, true))) {
                    fprintf(stderr,
                            "bench_alloc: %s: op %u: block %" PRIu64 "+%" PRIu64
                            " misplaced (align %" PRIu64 ", range [%" PRIu64 ",%" PRIu64 "))\n",
                            be->name, i, start, q->pages, q->align, q->lo, q->hi);
                    ok = false;
                }
            }
        } else if (detailed && op->churn) {
            a->fails++;
            ranges_collect(be, b, &rs);
            if (ranges_free_in(&rs, q->lo, q->hi) >= q->pages) {
                a->frag_fails++;
                a->frag_fails_ranged += q->ranged;
            }
        }
        if (detailed && op->churn && (i - t->n_fill) % 1000 == 999) {
            if (be->check && !be->check(b)) {
                fprintf(stderr, "bench_alloc: %s: op %u: the allocator's invariants are broken\n",
                        be->name, i);
                ok = false;
            }
            ranges_collect(be, b, &rs);
            uint64_t total = 0, largest = 0;
            for (size_t k = 0; k < rs.n; k++) {
                total += rs.r[k][1];
                largest = rs.r[k][1] > largest ? rs.r[k][1] : largest;
            }
            a->ratio_sum += total ? (double)largest / (double)total : 1.0;
            a->frag_sum += (double)rs.n;
            a->samples++;
        }
    }
    uint64_t t_churn = cpu_ns() - t0;
    for (uint32_t id = 0; id < t->n_ids; id++) /* the kernel allocators want to end empty */
        if (held[id])
            be->free(b, id);
    be->destroy(b);
    free(held);
    free(v.bits);
    free(v.start);
    free(rs.r);
    *out_ops = n_ops;
    *out_cpu_ns = t_churn;
    return ok;
}

static bool g_detail = true; /* --throughput-only clears it (for profiling the allocators) */

/* One detailed run, then `reps` plain runs of which the fastest counts. */
static bool measure(const bench_backend_t *be, const trace_t *t, int reps, acc_t *a)
{
    uint64_t ops, ns, best = UINT64_MAX;
    if (g_detail && !run_once(be, t, true, a, &ops, &ns))
        return false;
    for (int i = 0; i < reps; i++) {
        if (!run_once(be, t, false, a, &ops, &ns))
            return false;
        best = ns < best ? ns : best;
    }
    a->ops += ops;
    a->cpu_ns += best;
    return true;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static result_t summarize(acc_t *a)
{
    result_t r = {0};
    r.ops_per_s = a->cpu_ns ? (double)a->ops / ((double)a->cpu_ns * 1e-9) : 0;
    if (a->n_lat > 0) {
        uint32_t *sorted = malloc(sizeof *sorted * a->n_lat);
        if (!sorted)
            abort();
        memcpy(sorted, a->lat, sizeof *sorted * a->n_lat);
        qsort(sorted, a->n_lat, sizeof *sorted, cmp_u32);
        r.p50_ns = sorted[a->n_lat / 2];
        r.p99_ns = sorted[a->n_lat * 99 / 100];
        r.p999_ns = sorted[a->n_lat * 999 / 1000];
        uint64_t slow[N_CLS] = {0}, n_slow = 0;
        for (size_t i = 0; i < a->n_lat; i++)
            if (a->lat[i] >= sorted[a->n_lat * 99 / 100]) {
                slow[a->cls[i]]++;
                n_slow++;
            }
        for (int c = 0; c < N_CLS; c++)
            r.slow_share[c] = n_slow ? (double)slow[c] / (double)n_slow : 0;
        free(sorted);
    }
    r.largest_over_free = a->samples ? a->ratio_sum / (double)a->samples : 0;
    r.mean_fragments = a->samples ? a->frag_sum / (double)a->samples : 0;
    r.allocs = a->allocs;
    r.fails = a->fails;
    r.frag_fails = a->frag_fails;
    r.frag_fails_ranged = a->frag_fails_ranged;
    r.moves = a->moves;
    r.moved_pages = a->moved_pages;
    free(a->lat);
    free(a->cls);
    return r;
}

static void cpu_model(char *buf, size_t n)
{
    snprintf(buf, n, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        char *c = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && c) {
            c += 2;
            c[strcspn(c, "\n")] = 0;
            snprintf(buf, n, "%s", c);
            break;
        }
    }
    fclose(f);
}

/* ---- main ----------------------------------------------------------------------------------- */

#define N_OCC 3
#define N_BE 4

int main(int argc, char **argv)
{
    uint64_t seed = 1, seg_gib = 16;
    uint32_t churn = 100000, seeds = 3;
    int reps = 3;
    const char *out_dir = "build/bench";
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--seeds") == 0 && i + 1 < argc)
            seeds = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--seg-gib") == 0 && i + 1 < argc)
            seg_gib = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--churn") == 0 && i + 1 < argc)
            churn = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out_dir = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--throughput-only") == 0)
            g_detail = false;
        else {
            bool help = strcmp(argv[i], "--help") == 0;
            fprintf(help ? stdout : stderr,
                    "usage: %s [--seed N] [--seeds N] [--seg-gib G] [--churn N] [--reps R] "
                    "[--out DIR] [--only NAME] [--throughput-only]\n"
                    "  --seed N     first trace seed (1); --seeds N traces per occupancy (3)\n"
                    "  --seg-gib G  segment size (16); --churn N steady-state ops per trace "
                    "(100000)\n"
                    "  --reps R     timed runs per trace, the fastest counts (3)\n"
                    "  --out DIR    where alloc.md and alloc.dat go (build/bench)\n"
                    "  --only NAME  one allocator: gpuref, drm_mm, drm_buddy, drm_buddy-sg\n"
                    "  --throughput-only  skip the detailed run (latency, metrics, checks)\n",
                    argv[0]);
            return help ? 0 : 2;
        }
    }
    if (seg_gib == 0 || seg_gib > 1024 || churn == 0 || seeds == 0 || reps < 1) {
        fprintf(stderr, "bench_alloc: bad arguments\n");
        return 2;
    }
    static const double occ[N_OCC] = {0.70, 0.85, 0.95};
    const bench_backend_t *bes[N_BE] = {&bench_gpuref, &bench_drm_mm, &bench_drm_buddy,
                                        &bench_drm_buddy_scatter};
    static result_t res[N_OCC][N_BE];
    uint64_t seg_pages = seg_gib << 18;

    for (int o = 0; o < N_OCC; o++) {
        static acc_t acc[N_BE];
        memset(acc, 0, sizeof acc);
        for (uint32_t s = 0; s < seeds; s++) {
            trace_t t;
            if (!trace_make(&t, seed + s, seg_pages, occ[o], churn)) {
                fprintf(stderr, "bench_alloc: out of memory\n");
                return 1;
            }
            fprintf(stderr,
                    "bench_alloc: %.0f%% seed %" PRIu64 ": %u ops (%u fill, %u steady), %u "
                    "allocations, %.1f%% ranged, %.1f%% top-down, align 4K/64K/2M "
                    "%.0f/%.0f/%.0f%%, largest %.0f MiB\n",
                    occ[o] * 100, seed + s, t.n_ops, t.n_fill, t.n_ops - t.n_fill, t.n_ids,
                    100.0 * t.n_ranged / t.n_ids, 100.0 * t.n_top_down / t.n_ids,
                    100.0 * t.n_align[0] / t.n_ids, 100.0 * t.n_align[1] / t.n_ids,
                    100.0 * t.n_align[2] / t.n_ids, t.max_mib);
            for (int k = 0; k < N_BE; k++) {
                if (only && strcmp(only, bes[k]->name) != 0)
                    continue;
                if (!measure(bes[k], &t, reps, &acc[k])) {
                    fprintf(stderr, "bench_alloc: %s failed its checks\n", bes[k]->name);
                    return 1;
                }
            }
            trace_free(&t);
        }
        for (int k = 0; k < N_BE; k++)
            res[o][k] = summarize(&acc[k]);
    }

    char path[4096], cpu[160];
    cpu_model(cpu, sizeof cpu);
    snprintf(path, sizeof path, "%s/alloc.md", out_dir);
    FILE *md = fopen(path, "w");
    if (!md) {
        perror(path);
        return 1;
    }
    FILE *outs[2] = {stdout, md};
    for (int f = 0; f < 2; f++) {
        FILE *w = outs[f];
        fprintf(w,
                "Segment %" PRIu64 " GiB; per occupancy %u traces (seeds %" PRIu64 "..%" PRIu64
                "), each %u steady-state ops after the fill; ops/s from CPU time, best of %d "
                "runs; %s.\n\n",
                seg_gib, seeds, seed, seed + seeds - 1, churn, reps, cpu);
        fprintf(w, "| occupancy | allocator | Mops/s | p50 ns | p99 ns | p99.9 ns | largest/free | "
                   "free ranges | failed allocs | fragmentation: unrestricted | fragmentation: "
                   "in a range | relocations | MiB relocated |\n");
        fprintf(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int o = 0; o < N_OCC; o++)
            for (int k = 0; k < N_BE; k++) {
                const result_t *r = &res[o][k];
                fprintf(w,
                        "| %.0f%% | %s | %.2f | %.0f | %.0f | %.0f | %.3f | %.0f | %" PRIu64
                        " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %.0f |\n",
                        occ[o] * 100, bes[k]->name, r->ops_per_s / 1e6, r->p50_ns, r->p99_ns,
                        r->p999_ns, r->largest_over_free, r->mean_fragments, r->fails,
                        r->frag_fails - r->frag_fails_ranged, r->frag_fails_ranged, r->moves,
                        (double)r->moved_pages / PAGES_PER_MIB);
            }
        fprintf(w, "\ngpuref against each: throughput and p99 as \"x times better\", largest/free "
                   "(higher is better) and fragmentation failures (lower is better; unrestricted "
                   "+ in a range) side by side.\n\n");
        fprintf(w, "| occupancy | vs | ops/s | p99 | largest/free | fragmentation failures |\n");
        fprintf(w, "|---|---|---:|---:|---:|---:|\n");
        for (int o = 0; o < N_OCC; o++)
            for (int k = 1; k < N_BE; k++) {
                const result_t *g = &res[o][0], *r = &res[o][k];
                fprintf(w,
                        "| %.0f%% | %s | %.2fx | %.2fx | %.3f vs %.3f | %" PRIu64 "+%" PRIu64
                        " vs %" PRIu64 "+%" PRIu64 " |\n",
                        occ[o] * 100, bes[k]->name,
                        r->ops_per_s > 0 ? g->ops_per_s / r->ops_per_s : 0,
                        g->p99_ns > 0 ? r->p99_ns / g->p99_ns : 0, g->largest_over_free,
                        r->largest_over_free, g->frag_fails - g->frag_fails_ranged,
                        g->frag_fails_ranged, r->frag_fails - r->frag_fails_ranged,
                        r->frag_fails_ranged);
            }
        fprintf(w, "\nWhat the slowest 1%% of operations (at or above p99) are, in %% of them.\n\n"
                   "| occupancy | allocator |");
        for (int c = 0; c < N_CLS; c++)
            fprintf(w, " %s |", cls_name[c]);
        fprintf(w, "\n|---|---|");
        for (int c = 0; c < N_CLS; c++)
            fprintf(w, "---:|");
        fprintf(w, "\n");
        for (int o = 0; o < N_OCC; o++)
            for (int k = 0; k < N_BE; k++) {
                fprintf(w, "| %.0f%% | %s |", occ[o] * 100, bes[k]->name);
                for (int c = 0; c < N_CLS; c++)
                    fprintf(w, " %.0f |", 100.0 * res[o][k].slow_share[c]);
                fprintf(w, "\n");
            }
    }
    fclose(md);

    snprintf(path, sizeof path, "%s/alloc.dat", out_dir);
    FILE *dat = fopen(path, "w");
    if (!dat) {
        perror(path);
        return 1;
    }
    static const char *metric[] = {"Mops/s", "p99 ns", "largest/free", "fragmentation failures"};
    for (int m = 0; m < 4; m++) {
        fprintf(dat, "# %s\noccupancy", metric[m]);
        for (int k = 0; k < N_BE; k++)
            fprintf(dat, " %s", bes[k]->name);
        fprintf(dat, "\n");
        for (int o = 0; o < N_OCC; o++) {
            fprintf(dat, "%.0f%%", occ[o] * 100);
            for (int k = 0; k < N_BE; k++) {
                const result_t *r = &res[o][k];
                double v = m == 0   ? r->ops_per_s / 1e6
                           : m == 1 ? r->p99_ns
                           : m == 2 ? r->largest_over_free
                                    : (double)r->frag_fails;
                fprintf(dat, " %g", v);
            }
            fprintf(dat, "\n");
        }
        fprintf(dat, "\n\n");
    }
    fclose(dat);
    return 0;
}
