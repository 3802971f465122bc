/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_vidmm_policy.c: VidMm's placement around pinned ranges (host/dxgk/vidmm/vidmm_policy.c)
 * on the real segment allocator. TAP output. Options:
 *   --seed N   seed of the randomized test (default $GR_TEST_SEED, else 1); printed as
 *              "# seed=N" so every failure replays
 *
 * The fixed cases pin the rules (where ordinary allocations go, which window room is made in,
 * what moves, what a failure leaves); the randomized one keeps a table of every block (size,
 * range, movable or not) that only the moved callback updates, and checks it against the
 * allocator after every operation.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vidmm_policy.h"

#define KIB (UINT64_C(1) << 10)
#define MIB (UINT64_C(1) << 20)
#define PAGE GR_SEG_UNIT
#define SENTINEL UINT64_C(0xdeadbeefcafef00d)

static uint64_t g_seed = 1;
static int g_test, g_failed;
static bool g_ok;

static void diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf(" (seed=%" PRIu64 ")\n", g_seed);
    va_end(ap);
    g_ok = false;
}

static void report(const char *name)
{
    g_test++;
    if (!g_ok)
        g_failed++;
    printf("%sok %d - %s\n", g_ok ? "" : "not ", g_test, name);
    fflush(stdout);
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            diag("line %d: %s", __LINE__, #cond);                                                  \
            diag(__VA_ARGS__);                                                                     \
        }                                                                                          \
    } while (0)

#define CHECK_STATUS(expr, want)                                                                   \
    do {                                                                                           \
        gr_status_t rc_ = (expr);                                                                  \
        if (rc_ != (want))                                                                         \
            diag("line %d: %s: got %s, want %s", __LINE__, #expr, gr_status_name(rc_),             \
                 gr_status_name(want));                                                            \
    } while (0)

/* ---- the caller's view of its blocks: what the moved callback keeps up to date ------------- */

#define MAX_BLOCKS 4096

typedef struct blk {
    bool live, movable;
    uint64_t off, size, align, lo, hi;
    uint32_t flags;
} blk_t;

typedef struct owner {
    gr_seg_t *seg;
    blk_t b[MAX_BLOCKS];
    uint64_t moves, bytes;
    bool bad;
} owner_t;

static blk_t *find_at(owner_t *o, uint64_t off)
{
    for (int i = 0; i < MAX_BLOCKS; i++)
        if (o->b[i].live && o->b[i].off == off)
            return &o->b[i];
    return NULL;
}

static bool is_movable(void *ctx, uint64_t offset, uint64_t *out_align, uint32_t *out_flags)
{
    blk_t *b = find_at(ctx, offset);
    if (b == NULL) {
        ((owner_t *)ctx)->bad = true; /* the policy asked about a block nobody owns */
        return false;
    }
    *out_align = b->align;
    *out_flags = b->flags;
    return b->movable;
}

static void moved(void *ctx, uint64_t from, uint64_t to, uint64_t size)
{
    owner_t *o = ctx;
    blk_t *b = find_at(o, from);
    if (b == NULL || !b->movable || b->size != size || to % b->align) {
        o->bad = true;
        return;
    }
    b->off = to;
    o->moves++;
    o->bytes += size;
}

static blk_t *add(owner_t *o, uint64_t off, uint64_t size, uint64_t align, uint64_t lo, uint64_t hi, uint32_t flags,
                  bool movable)
{
    for (int i = 0; i < MAX_BLOCKS; i++)
        if (!o->b[i].live) {
            o->b[i] = (blk_t){true, movable, off, size, align, lo, hi, flags};
            return &o->b[i];
        }
    return NULL;
}

/* Every owned block is where the owner thinks, as long, in its range; no two overlap. */
static bool owner_agrees(owner_t *o, const char *when)
{
    uint64_t n = 0;
    for (int i = 0; i < MAX_BLOCKS; i++) {
        const blk_t *b = &o->b[i];
        if (!b->live)
            continue;
        n++;
        uint64_t sz = 0;
        if (gr_seg_block_size(o->seg, b->off, &sz) != GR_OK || sz != b->size || b->off < b->lo ||
            b->off + b->size > b->hi || b->off % b->align) {
            diag("%s: block %d at %" PRIu64 "+%" PRIu64 " [%" PRIu64 ",%" PRIu64 "): the segment says %" PRIu64,
                 when, i, b->off, b->size, b->lo, b->hi, sz);
            return false;
        }
    }
    gr_seg_stats_t st;
    if (gr_seg_stats(o->seg, &st) != GR_OK || st.allocations != n || gr_seg_check(o->seg) != GR_OK || o->bad) {
        diag("%s: %" PRIu64 " blocks owned, %" PRIu64 " in the segment%s", when, n, st.allocations,
             o->bad ? ", a bad move or question" : "");
        return false;
    }
    return true;
}

static owner_t *owner_new(uint64_t size)
{
    owner_t *o = calloc(1, sizeof *o);
    if (o == NULL || gr_seg_init(size, &o->seg) != GR_OK) {
        printf("Bail out! no memory\n");
        exit(1);
    }
    return o;
}

static void owner_free(owner_t *o)
{
    gr_seg_fini(o->seg);
    free(o);
}

static gr_vpol_t pol_of(owner_t *o, uint64_t keep_lo, uint64_t keep_hi, bool moving)
{
    gr_vpol_t p = {.keep_lo = keep_lo, .keep_hi = keep_hi};
    if (moving) {
        p.movable = is_movable;
        p.moved = moved;
        p.ctx = o;
    }
    return p;
}

/* Places and records a block; the status as gr_vpol_place returns it. */
static gr_status_t place(owner_t *o, const gr_vpol_t *p, uint64_t size, uint64_t align, uint64_t lo, uint64_t hi,
                         uint32_t flags, bool movable, uint64_t *out)
{
    uint64_t off = SENTINEL;
    gr_vpol_cost_t cost = {SENTINEL, SENTINEL};
    gr_status_t rc = gr_vpol_place(o->seg, p, size, align, lo, hi, flags, &off, &cost);
    if (rc == GR_OK) {
        gr_seg_stats_t st = {0};
        CHECK_STATUS(gr_seg_stats(o->seg, &st), GR_OK);
        add(o, off, size, align ? align : PAGE, lo, hi == GR_SEG_END ? st.size : hi, flags, movable);
        if (cost.moves == SENTINEL)
            diag("cost not written");
    } else if (off != SENTINEL || cost.moves != SENTINEL) {
        diag("a failed place wrote its outputs");
    }
    if (out)
        *out = off;
    return rc;
}

/* ---- fixed cases ------------------------------------------------------------------------------ */

/* A 1 MiB segment whose last 256 KiB are the pinned range. */
#define SEG (1 * MIB)
#define PIN (768 * KIB)

static void test_keep_window(void)
{
    g_ok = true;
    owner_t *o = owner_new(SEG);
    gr_vpol_t p = pol_of(o, 0, PIN, false);
    uint64_t a, b, c, d;
    CHECK_STATUS(place(o, &p, 8 * KIB, 0, 0, GR_SEG_END, 0, true, &a), GR_OK);
    CHECK(a == 0, "bottom-up at %" PRIu64 ", want 0", a);
    CHECK_STATUS(place(o, &p, 8 * KIB, 0, 0, GR_SEG_END, GR_SEG_TOP_DOWN, true, &b), GR_OK);
    CHECK(b == PIN - 8 * KIB, "top-down at %" PRIu64 ", want just below the pinned range", b);
    /* Fill what is left below the range: the next ordinary block goes into it. */
    CHECK_STATUS(place(o, &p, PIN - 16 * KIB, 0, 0, GR_SEG_END, 0, true, &c), GR_OK);
    CHECK(c == 8 * KIB, "filler at %" PRIu64, c);
    CHECK_STATUS(place(o, &p, 64 * KIB, 64 * KIB, 0, GR_SEG_END, GR_SEG_TOP_DOWN, true, &d), GR_OK);
    CHECK(d >= PIN && d % (64 * KIB) == 0, "spilled block at %" PRIu64 ", want in [PIN, end)", d);
    /* A ranged request is placed only inside its range, and keep_lo = keep_hi turns it off. */
    uint64_t e;
    CHECK_STATUS(place(o, &p, 4 * KIB, 0, PIN, GR_SEG_END, 0, false, &e), GR_OK);
    CHECK(e >= PIN, "ranged block at %" PRIu64, e);
    gr_vpol_t off = pol_of(o, 0, 0, false);
    owner_t *q = owner_new(SEG);
    uint64_t f;
    CHECK_STATUS(place(q, &off, 8 * KIB, 0, 0, GR_SEG_END, GR_SEG_TOP_DOWN, true, &f), GR_OK);
    CHECK(f == SEG - 8 * KIB, "no keep window: top-down at %" PRIu64 ", want the end", f);
    CHECK(owner_agrees(o, "keep") && owner_agrees(q, "keep off"), "");
    CHECK_STATUS(gr_vpol_place(o->seg, &p, 4 * KIB, 0, 0, GR_SEG_END, 8, &f, NULL), GR_E_INVALID);
    CHECK_STATUS(gr_vpol_place(o->seg, NULL, 4 * KIB, 0, 0, GR_SEG_END, 0, &f, NULL), GR_E_INVALID);
    owner_free(o);
    owner_free(q);
    report("place: ordinary blocks below the pinned range first (top-down at its top), in it only "
           "when they do not fit below; ranged ones only in their range");
}

/* The range [PIN, SEG) holds movable 16 KiB blocks every 64 KiB: no 128 KiB run is free. */
static owner_t *striped(void)
{
    owner_t *o = owner_new(SEG);
    for (uint64_t at = PIN + 48 * KIB; at + 16 * KIB <= SEG; at += 64 * KIB) {
        uint64_t off;
        if (gr_seg_alloc(o->seg, 16 * KIB, 0, at, at + 16 * KIB, 0, &off) != GR_OK)
            diag("stripe at %" PRIu64, at);
        add(o, off, 16 * KIB, PAGE, 0, SEG, 0, true);
    }
    return o;
}

static void test_make_room(void)
{
    g_ok = true;
    owner_t *o = striped();
    gr_vpol_t still = pol_of(o, 0, PIN, false), p = pol_of(o, 0, PIN, true);
    uint64_t got;
    /* Without moving, the pinned request does not fit although the range has 192 KiB free. */
    CHECK_STATUS(place(o, &still, 128 * KIB, 0, PIN, GR_SEG_END, 0, false, &got), GR_E_NO_MEMORY);
    gr_seg_stats_t before, after;
    CHECK_STATUS(gr_seg_stats(o->seg, &before), GR_OK);
    /* A budget below one block: nothing may move, nothing changes. */
    CHECK_STATUS(gr_vpol_make_room(o->seg, &p, 128 * KIB, 0, PIN, GR_SEG_END, 0, 8 * KIB, &got, NULL),
                 GR_E_NO_MEMORY);
    CHECK_STATUS(gr_seg_stats(o->seg, &after), GR_OK);
    CHECK(memcmp(&before, &after, sizeof before) == 0 && o->moves == 0, "a failed make_room changed something");
    /* With moves: every 128 KiB window holds two stripes; the lowest is [PIN, PIN + 128K). */
    gr_vpol_cost_t cost = {0, 0};
    CHECK_STATUS(gr_vpol_place(o->seg, &p, 128 * KIB, 0, PIN, GR_SEG_END, 0, &got, &cost), GR_OK);
    CHECK(got == PIN, "placed at %" PRIu64 ", want %" PRIu64, got, PIN);
    CHECK(cost.moves == 2 && cost.bytes == 32 * KIB && o->moves == 2,
          "moved %" PRIu64 " blocks, %" PRIu64 " bytes (callback: %" PRIu64 ")", cost.moves, cost.bytes, o->moves);
    add(o, got, 128 * KIB, PAGE, PIN, SEG, 0, false);
    int below = 0;
    for (int i = 0; i < MAX_BLOCKS; i++)
        below += o->b[i].live && o->b[i].movable && o->b[i].off < PIN;
    CHECK(below == 2, "%d moved blocks below the range, want 2", below);
    CHECK(owner_agrees(o, "make_room"), "");
    /* Unmovable blocks are never moved: pin every block left in the range, and a request that
     * needs one of them gone fails, changing nothing. */
    for (int i = 0; i < MAX_BLOCKS; i++)
        if (o->b[i].live && o->b[i].off >= PIN)
            o->b[i].movable = false;
    CHECK_STATUS(gr_seg_stats(o->seg, &before), GR_OK);
    CHECK_STATUS(place(o, &p, 64 * KIB, 0, PIN, GR_SEG_END, 0, false, &got), GR_E_NO_MEMORY);
    CHECK_STATUS(gr_seg_stats(o->seg, &after), GR_OK);
    CHECK(memcmp(&before, &after, sizeof before) == 0 && o->moves == 2, "an unmovable block moved");
    CHECK(owner_agrees(o, "pinned"), "");
    owner_free(o);
    report("make_room: the cheapest lowest window in the range, its movable blocks moved below it "
           "(reported, counted), never an unmovable one; over budget or impossible changes nothing");
}

static void test_make_room_no_place_elsewhere(void)
{
    g_ok = true;
    owner_t *o = striped();
    gr_vpol_t p = pol_of(o, 0, PIN, true);
    uint64_t filler;
    /* Nothing free outside the range: a moved block would have nowhere to go. */
    CHECK_STATUS(gr_seg_alloc(o->seg, PIN, 0, 0, PIN, 0, &filler), GR_OK);
    add(o, filler, PIN, PAGE, 0, SEG, 0, false);
    /* ... and the free runs above the lowest window, [PIN + 128K, SEG), taken by unmovable
     * blocks: that window is the only one, and its two stripes have nowhere to go. */
    for (uint64_t at = PIN + 128 * KIB; at + 48 * KIB <= SEG; at += 64 * KIB) {
        CHECK_STATUS(gr_seg_alloc(o->seg, 48 * KIB, 0, at, at + 48 * KIB, 0, &filler), GR_OK);
        add(o, filler, 48 * KIB, PAGE, 0, SEG, 0, false);
    }
    gr_seg_stats_t before, after;
    CHECK_STATUS(gr_seg_stats(o->seg, &before), GR_OK);
    uint64_t got = SENTINEL;
    CHECK_STATUS(gr_vpol_make_room(o->seg, &p, 128 * KIB, 0, PIN, GR_SEG_END, 0, 0, &got, NULL), GR_E_NO_MEMORY);
    CHECK_STATUS(gr_seg_stats(o->seg, &after), GR_OK);
    CHECK(got == SENTINEL && o->moves == 0 && memcmp(&before, &after, sizeof before) == 0,
          "a make_room that could not move its blocks changed something");
    CHECK(owner_agrees(o, "nowhere"), "");
    owner_free(o);
    report("make_room: when a block of the window fits nowhere else, nothing moves and nothing changes");
}

/* ---- randomized ------------------------------------------------------------------------------- */

static uint64_t g_rng;

static uint64_t rnd(uint64_t n)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return n ? g_rng % n : 0;
}

static void test_random(void)
{
    g_ok = true;
    g_rng = g_seed * 0x9e3779b97f4a7c15ull + 1;
    const uint64_t seg = 64 * MIB, pin = seg / 5 * 4 / PAGE * PAGE, vpr = seg / 16;
    owner_t *o = owner_new(seg);
    gr_vpol_t p = pol_of(o, vpr, pin, true);
    uint64_t ok = 0, nomem = 0, frees = 0, moving = 0;
    for (int op = 0; op < 20000 && g_ok; op++) {
        char when[64];
        snprintf(when, sizeof when, "op %d", op);
        int live = 0;
        for (int i = 0; i < MAX_BLOCKS; i++)
            live += o->b[i].live;
        gr_seg_stats_t st = {0};
        CHECK_STATUS(gr_seg_stats(o->seg, &st), GR_OK);
        if (live > 0 && (st.free_bytes < seg / 10 || rnd(100) < 45)) {
            int k = (int)rnd(MAX_BLOCKS);
            while (!o->b[k].live)
                k = (k + 1) % MAX_BLOCKS;
            CHECK_STATUS(gr_seg_free(o->seg, o->b[k].off), GR_OK);
            o->b[k].live = false;
            frees++;
        } else if (live < MAX_BLOCKS - 1) {
            uint64_t size = (1 + rnd(rnd(10) < 8 ? 64 : 2048)) * PAGE;
            static const uint64_t aligns[] = {PAGE, 16 * PAGE, 512 * PAGE};
            uint64_t align = aligns[rnd(3)], lo = 0, hi = GR_SEG_END;
            unsigned kind = (unsigned)rnd(100);
            if (kind < 5)
                lo = pin; /* pinned in the range */
            else if (kind < 7)
                hi = vpr; /* pinned in the VPR */
            uint32_t flags = (lo == 0 && hi == GR_SEG_END && rnd(100) < 15) ? GR_SEG_TOP_DOWN : 0;
            uint64_t moves = o->moves;
            bool ordinary = lo == 0 && hi == GR_SEG_END;
            if (!ordinary && rnd(2)) /* half the unmovable blocks are known pinned to the segment */
                flags |= GR_SEG_PINNED;
            gr_status_t rc = place(o, &p, size, align, lo, hi, flags, ordinary, NULL);
            moving += o->moves != moves;
            gr_seg_stats_t after = {0};
            CHECK_STATUS(gr_seg_stats(o->seg, &after), GR_OK);
            if (rc == GR_OK) {
                ok++;
            } else if (rc == GR_E_NO_MEMORY) {
                nomem++;
                CHECK(o->moves == moves && memcmp(&st, &after, sizeof st) == 0, "%s: a failed place changed something",
                      when);
            }
            else
                diag("%s: place %" PRIu64 " align %" PRIu64 " [%" PRIu64 ",%" PRIu64 ") flags %u returned %s", when,
                     size, align, lo, hi, flags, gr_status_name(rc));
        }
        if (!owner_agrees(o, when))
            break;
    }
    printf("# 20000 ops: %" PRIu64 " placed (%" PRIu64 " after moving %" PRIu64 " blocks, %" PRIu64
           " KiB), %" PRIu64 " GR_E_NO_MEMORY, %" PRIu64 " frees\n",
           ok, moving, o->moves, o->bytes / KIB, nomem, frees);
    CHECK(moving > 0, "no placement moved anything: the test does not reach make_room");
    owner_free(o);
    report("random 64 MiB segment with a pinned range and a VPR, 20000 ops: every block where its owner "
           "thinks after every move, in its range, unmovable ones never moved");
}

int main(int argc, char **argv)
{
    const char *env = getenv("GR_TEST_SEED");
    if (env && *env)
        g_seed = strtoull(env, NULL, 0);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            g_seed = strtoull(argv[++i], NULL, 0);
        } else {
            fprintf(stderr, "usage: %s [--seed N]\n", argv[0]);
            return 2;
        }
    }
    printf("1..4\n# seed=%" PRIu64 "\n", g_seed);
    test_keep_window();
    test_make_room();
    test_make_room_no_place_elsewhere();
    test_random();
    return g_failed ? 1 : 0;
}
