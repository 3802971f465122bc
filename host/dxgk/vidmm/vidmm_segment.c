/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_segment.c: VidMm's segment allocator (see vidmm_segment.h and SEGMENT.md).
 *
 * Free space is a set of maximal free ranges ("holes"). Holes are binned by length in
 * half-octaves (lengths [2^k, 1.5*2^k) and [1.5*2^k, 2^(k+1)) pages: 58 bins, and a 64-bit mask
 * of the non-empty ones). A bin of at most ARR_MAX holes is an array of their extents in
 * address order, scanned (a hole that changes bin is two short shifts, no rebalancing); a
 * larger bin is an AVL tree ordered by address. Every tree node also carries, for three
 * alignment classes (4 KiB, 64 KiB, 2 MiB), the largest block that an aligned start can hold
 * in any hole of its subtree:
 *     fit_a(hole) = end - align_up(start, a)        aug[c] = max over the subtree of fit_a
 * so "the lowest (or highest) hole of a bin that holds an a-aligned block of n pages" is one
 * descent, O(log n), with no walk over holes that are big enough but badly aligned (drm_mm's
 * best-fit loop) and no split cascade (a buddy allocator). Other alignments prune with the
 * class below them and check each candidate exactly. Each bin's index (bin_aug) is the root's
 * for a tree, and a bound for an array (grown at once, lowered only when the bin empties or is
 * rebuilt): it prunes, the scan decides.
 *
 * A second index, an open-addressing hash table (linear probing, backward-shift deletion),
 * maps page numbers to what starts or ends there: a live block (by its start), a hole (by its
 * start and by its end). free() finds the block and both neighbouring holes in O(1), and the
 * segment map is walked without a tree. There is no address-ordered tree of all holes: the
 * hot paths (bottom-up alloc, free) touch one small bin tree and the table only.
 *
 * Placement policy (exact, so the tests predict every offset with a page bitmap):
 *   - bottom-up: segregated fit. Among the holes that can hold the block inside the range, take
 *     those of the smallest bin, and of these the lowest; place at its lowest aligned offset.
 *     Best fit to within a half-octave, with address order inside a bin: on GPU-like traces it
 *     leaves fewer fragmentation failures than exact best fit (drm_mm's DRM_MM_INSERT_BEST) and
 *     than address-ordered first fit (SEGMENT.md). Bins are tried in mask order; a bin's root
 *     index says at once whether it holds an aligned fit, so an unrestricted request searches
 *     a single bin tree.
 *   - top-down (FromEndOfSegment): the highest aligned offset at which the block fits. A bin's
 *     highest hole bounds what it can offer; bins are searched highest bound first until the
 *     best page found beats every bound left (usually one descent after a pass over the bins).
 * A range restriction cuts at most two holes, the ones holding range_lo and range_hi, which
 * are checked clipped. A hole holding range_lo starts below it by less than the longest hole
 * of its bin, so each bin's search starts that much lower and steps over at most two holes.
 * Each bin also keeps where its lowest hole starts and its highest ends, so bins with nothing
 * in the range are skipped. Ranged and top-down requests cost O(bins * log n) at worst.
 *
 * The node pool and the table always have room for one more hole than there are blocks
 * (holes <= blocks + 1), so free() never allocates host memory and cannot fail for a valid
 * offset. Everything inside is counted in pages (uint32_t: GR_SEG_MAX_SIZE is 2^28 pages).
 */
#include "vidmm_segment.h"

#include <stdlib.h>
#include <string.h>

#define NIL 0u
#define N_CLASS 3
#define N_BINS 58 /* bin_of(2^28 pages) = 56, plus the half-octave above */
#define PAGE_SHIFT 12
/* A bin of at most ARR_MAX holes is a sorted array; past that an AVL tree, until it falls to
 * ARR_LOW holes (the gap keeps a bin near the bound from converting on every operation). */
#define ARR_MAX 64u
#define ARR_LOW 32u

/* Alignment (in pages) of each class of the size index: 4 KiB, 64 KiB, 2 MiB. */
static const uint32_t class_pages[N_CLASS] = {1u, 16u, 512u};

/* What a subtree tells its parent: if it is unchanged after an update, nothing above changes. */
typedef struct seg_sum {
    uint32_t height;       /* AVL height; NIL has 0 */
    uint32_t aug[N_CLASS]; /* max fit for class c over this subtree */
} seg_sum_t;

typedef struct seg_node {
    uint32_t start;        /* first page of the hole */
    uint32_t len;          /* pages in the hole, > 0 */
    uint32_t bin;          /* bin_of(len): the bin it is in */
    uint32_t left, right, parent;
    seg_sum_t sum;
} seg_node_t;

/*
 * The page table: key = page << 2 | kind. A page starts at most one thing, and ends at most
 * one hole, so keys are unique.
 */
enum { K_BLOCK = 0, K_HOLE_START = 1, K_HOLE_END = 2 };
#define KEY(page, kind) ((uint32_t)(page) << 2 | (uint32_t)(kind))
#define KEY_EMPTY UINT32_MAX

typedef struct seg_pin {
    uint32_t start, len; /* pages */
} seg_pin_t;

typedef struct seg_slot {
    uint32_t key;
    uint32_t val; /* K_BLOCK: length in pages, | PIN_BIT when pinned; K_HOLE_*: node index */
} seg_slot_t;

/* A pinned block (GR_SEG_PINNED): also listed in seg->pins, so gr_seg_fit_unpinned can look. */
#define PIN_BIT UINT32_C(0x80000000)
#define LEN_OF(val) ((val) & ~PIN_BIT)

/* A small bin: its holes' extents (copies of their nodes') and their nodes, in address order. */
typedef struct seg_ent {
    uint32_t start, end, node;
} seg_ent_t;
typedef struct seg_arr {
    seg_ent_t e[ARR_MAX];
} seg_arr_t;

struct gr_seg {
    uint64_t size;  /* bytes */
    uint32_t pages; /* size in pages */
    uint32_t n_holes;
    uint32_t n_blocks;
    uint64_t free_pages;
    uint64_t bin_mask; /* bit b: bin b is not empty */
    uint64_t tree_mask; /* bit b: bin b is an AVL tree (bin_root), else an array (bin_arr) */
    uint32_t bin_root[N_BINS];
    uint32_t bin_first[N_BINS]; /* the lowest hole of each bin */
    uint32_t bin_last[N_BINS];  /* the highest hole of each bin */
    uint32_t bin_n[N_BINS];     /* holes in each bin */
    /* Copies of each bin's root index, of where its lowest hole starts and where its highest
     * ends, side by side, so that the searches over bins read small arrays instead of scattered
     * nodes, and skip the bins that have nothing in the range. */
    uint32_t bin_aug[N_BINS][N_CLASS];
    uint32_t bin_start[N_BINS];
    uint32_t bin_end[N_BINS];
    /* The holes of each small bin (not in tree_mask), in address order. */
    seg_arr_t bin_arr[N_BINS];

    seg_node_t *nodes; /* nodes[0] is NIL: all zero, never written */
    uint32_t node_cap; /* entries in nodes[], including NIL */
    uint32_t node_top; /* first never-used index */
    uint32_t node_free;

    seg_slot_t *slots;
    uint32_t slot_mask; /* capacity - 1, capacity a power of two */
    uint32_t slot_shift;
    uint32_t n_slots; /* keys in the table */

    /* The pinned blocks in address order (few: Overlay/Capture surfaces, VPR content), so that
     * the runs between them are a binary search and a short scan away. A sorted array: an
     * insert or remove moves at most a few KiB, and it is one small hot buffer. */
    seg_pin_t *pins;
    uint32_t n_pins, pin_cap;
};

_Static_assert(N_BINS <= 64, "the bin mask is 64 bits");
_Static_assert(((GR_SEG_MAX_SIZE >> PAGE_SHIFT) << 2 | 3) < KEY_EMPTY, "keys fit in 32 bits");
_Static_assert((GR_SEG_MAX_SIZE >> PAGE_SHIFT) < PIN_BIT, "a length leaves the pin bit free");

/* ---- small helpers --------------------------------------------------------------------- */

static inline uint32_t max_u32(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

static inline uint64_t align_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) & ~(a - 1);
}

static inline uint64_t align_down(uint64_t x, uint64_t a)
{
    return x & ~(a - 1);
}

static inline unsigned class_of(uint64_t a)
{
    return a >= 512 ? 2u : a >= 16 ? 1u : 0u;
}

/* Half-octave size bin of a length in pages (len >= 1): 1->0, 2->2, 3->3, 4,5->4, 6,7->5, ... */
static inline unsigned bin_of(uint64_t len)
{
    unsigned k = 63u - (unsigned)__builtin_clzll(len);
    return k == 0 ? 0u : 2u * k + (unsigned)((len >> (k - 1)) & 1u);
}

static inline uint64_t hole_end(const seg_node_t *x)
{
    return (uint64_t)x->start + x->len;
}

/* The largest block an a-aligned start can hold in hole x (0 if none). */
static inline uint64_t fit_in(const seg_node_t *x, uint64_t a)
{
    uint64_t s = align_up(x->start, a);
    uint64_t e = hole_end(x);
    return s < e ? e - s : 0;
}

/* ---- the page table ------------------------------------------------------------------- */

static inline uint32_t slot_home(const gr_seg_t *seg, uint32_t key)
{
    return (uint32_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> seg->slot_shift) & seg->slot_mask;
}

/* The slot holding key, or KEY_EMPTY. */
static inline uint32_t tab_find(const gr_seg_t *seg, uint32_t key)
{
    uint32_t i = slot_home(seg, key);
    for (;;) {
        uint32_t k = seg->slots[i].key;
        if (k == key)
            return i;
        if (k == KEY_EMPTY)
            return KEY_EMPTY;
        i = (i + 1) & seg->slot_mask;
    }
}

static inline void tab_put(gr_seg_t *seg, uint32_t key, uint32_t val)
{
    uint32_t i = slot_home(seg, key);
    while (seg->slots[i].key != KEY_EMPTY)
        i = (i + 1) & seg->slot_mask;
    seg->slots[i].key = key;
    seg->slots[i].val = val;
    seg->n_slots++;
}

/* Backward-shift deletion: no tombstones, so probes stay short under churn. */
static void tab_remove_at(gr_seg_t *seg, uint32_t i)
{
    uint32_t mask = seg->slot_mask;
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        uint32_t k = seg->slots[j].key;
        if (k == KEY_EMPTY)
            break;
        uint32_t home = slot_home(seg, k);
        /* Move j back into the gap at i unless its home lies cyclically in (i, j]. */
        bool stays = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
        if (!stays) {
            seg->slots[i] = seg->slots[j];
            i = j;
        }
    }
    seg->slots[i].key = KEY_EMPTY;
    seg->n_slots--;
}

static inline void tab_remove(gr_seg_t *seg, uint32_t key)
{
    tab_remove_at(seg, tab_find(seg, key)); /* the key is there: callers keep the table exact */
}

static gr_status_t slots_alloc(uint32_t bits, seg_slot_t **out_slots)
{
    size_t cap = (size_t)1 << bits;
    seg_slot_t *s = malloc(cap * sizeof *s);
    if (s == NULL)
        return GR_E_NO_MEMORY;
    for (size_t i = 0; i < cap; i++)
        s[i].key = KEY_EMPTY;
    *out_slots = s;
    return GR_OK;
}

/*
 * Keeps the table at most a quarter full for `keys` keys (probe runs stay short: SEGMENT.md).
 * Doubling, so amortized O(1). The bound the segment keeps is keys + blocks <= capacity / 4: a
 * free removes a block and adds at most one key (a hole's two, less the block's), so no run of
 * frees can pass it, and an alloc reserves for its own (a block and at most two hole keys).
 */
static gr_status_t slots_reserve(gr_seg_t *seg, uint64_t keys)
{
    uint64_t cap = (uint64_t)seg->slot_mask + 1;
    if (keys * 4 <= cap)
        return GR_OK;
    uint32_t bits = 64 - seg->slot_shift;
    while (((uint64_t)1 << bits) < keys * 4)
        bits++;
    seg_slot_t *ns;
    if (slots_alloc(bits, &ns) != GR_OK)
        return GR_E_NO_MEMORY;
    seg_slot_t *old = seg->slots;
    seg->slots = ns;
    seg->slot_mask = (uint32_t)(((uint64_t)1 << bits) - 1);
    seg->slot_shift = 64 - bits;
    seg->n_slots = 0;
    for (uint64_t i = 0; i < cap; i++)
        if (old[i].key != KEY_EMPTY)
            tab_put(seg, old[i].key, old[i].val);
    free(old);
    return GR_OK;
}

/* ---- pinned blocks -------------------------------------------------------------------- */

/* The index of the first pinned block that ends after page p (n_pins when none does). */
static uint32_t pins_first_ending_after(const gr_seg_t *seg, uint64_t p)
{
    uint32_t lo = 0, hi = seg->n_pins;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)seg->pins[mid].start + seg->pins[mid].len > p)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static gr_status_t pins_insert(gr_seg_t *seg, uint32_t start, uint32_t len)
{
    if (seg->n_pins == seg->pin_cap) {
        uint32_t cap = seg->pin_cap ? seg->pin_cap * 2 : 64;
        seg_pin_t *v = realloc(seg->pins, (size_t)cap * sizeof *v);
        if (v == NULL)
            return GR_E_NO_MEMORY;
        seg->pins = v;
        seg->pin_cap = cap;
    }
    uint32_t k = pins_first_ending_after(seg, start);
    memmove(&seg->pins[k + 1], &seg->pins[k], (size_t)(seg->n_pins - k) * sizeof *seg->pins);
    seg->pins[k] = (seg_pin_t){start, len};
    seg->n_pins++;
    return GR_OK;
}

/* Never allocates: gr_seg_free cannot fail. */
static void pins_remove(gr_seg_t *seg, uint32_t start)
{
    uint32_t k = pins_first_ending_after(seg, start);
    memmove(&seg->pins[k], &seg->pins[k + 1], (size_t)(seg->n_pins - k - 1) * sizeof *seg->pins);
    seg->n_pins--;
}

/* ---- AVL trees of holes, one per large bin ---------------------------------------------- */

#define N(i) (seg->nodes[(i)])

/* Recomputes x's height and size index from its children. */
static inline void node_fix(gr_seg_t *seg, uint32_t i)
{
    seg_node_t *x = &N(i);
    const seg_sum_t *l = &N(x->left).sum, *r = &N(x->right).sum;
    _Static_assert(N_CLASS == 3, "written out for three classes");
    x->sum.height = 1 + max_u32(l->height, r->height);
    x->sum.aug[0] = max_u32(x->len, max_u32(l->aug[0], r->aug[0]));
    x->sum.aug[1] = max_u32((uint32_t)fit_in(x, class_pages[1]), max_u32(l->aug[1], r->aug[1]));
    x->sum.aug[2] = max_u32((uint32_t)fit_in(x, class_pages[2]), max_u32(l->aug[2], r->aug[2]));
}

static inline bool sum_equal(const seg_sum_t *a, const seg_sum_t *b)
{
    return ((a->height ^ b->height) | (a->aug[0] ^ b->aug[0]) | (a->aug[1] ^ b->aug[1]) |
            (a->aug[2] ^ b->aug[2])) == 0;
}

/* Sets a hole's extent (its fits are derived from it where needed). */
static inline void node_set(gr_seg_t *seg, uint32_t i, uint64_t start, uint64_t len)
{
    seg_node_t *x = &N(i);
    x->start = (uint32_t)start;
    x->len = (uint32_t)len;
}

static inline void replace_child(gr_seg_t *seg, uint32_t *root, uint32_t parent, uint32_t old,
                                 uint32_t new_)
{
    if (parent == NIL)
        *root = new_;
    else if (N(parent).left == old)
        N(parent).left = new_;
    else
        N(parent).right = new_;
}

static void rotate_left(gr_seg_t *seg, uint32_t *root, uint32_t x)
{
    uint32_t y = N(x).right;
    uint32_t b = N(y).left;
    N(x).right = b;
    if (b != NIL)
        N(b).parent = x;
    N(y).parent = N(x).parent;
    replace_child(seg, root, N(x).parent, x, y);
    N(y).left = x;
    N(x).parent = y;
    node_fix(seg, x);
    node_fix(seg, y);
}

static void rotate_right(gr_seg_t *seg, uint32_t *root, uint32_t x)
{
    uint32_t y = N(x).left;
    uint32_t b = N(y).right;
    N(x).left = b;
    if (b != NIL)
        N(b).parent = x;
    N(y).parent = N(x).parent;
    replace_child(seg, root, N(x).parent, x, y);
    N(y).right = x;
    N(x).parent = y;
    node_fix(seg, x);
    node_fix(seg, y);
}

/*
 * Restores balance and the size index from x upwards after an insert or a delete. It stops at
 * the first node whose height and index come out unchanged (nothing above can change), but
 * not below `through`, a node whose own links changed and must be refreshed regardless.
 */
static void rebalance_up(gr_seg_t *seg, uint32_t *root, uint32_t x, uint32_t through)
{
    bool forced = through != NIL;
    while (x != NIL) {
        seg_sum_t before = N(x).sum;
        uint32_t xl = N(x).left, xr = N(x).right;
        uint32_t hl = N(xl).sum.height, hr = N(xr).sum.height;
        bool was_through = x == through;
        if (hl > hr + 1) {
            if (N(N(xl).right).sum.height > N(N(xl).left).sum.height)
                rotate_left(seg, root, xl);
            rotate_right(seg, root, x);
            x = N(x).parent; /* the subtree's new root, already fixed */
        } else if (hr > hl + 1) {
            if (N(N(xr).left).sum.height > N(N(xr).right).sum.height)
                rotate_right(seg, root, xr);
            rotate_left(seg, root, x);
            x = N(x).parent;
        } else {
            node_fix(seg, x);
        }
        if (was_through)
            forced = false;
        else if (!forced && sum_equal(&N(x).sum, &before))
            return;
        x = N(x).parent;
    }
}

/* After x's extent changed in place (same bin, same order): refresh the index upwards. */
static void update_up(gr_seg_t *seg, uint32_t x)
{
    while (x != NIL) {
        seg_sum_t before = N(x).sum;
        node_fix(seg, x);
        if (sum_equal(&N(x).sum, &before))
            return;
        x = N(x).parent;
    }
}

static void tree_insert(gr_seg_t *seg, uint32_t *root, uint32_t i)
{
    uint32_t start = N(i).start;
    uint32_t p = NIL, cur = *root;
    bool go_left = false;
    while (cur != NIL) {
        p = cur;
        go_left = start < N(cur).start;
        cur = go_left ? N(cur).left : N(cur).right;
    }
    N(i).left = N(i).right = NIL;
    N(i).parent = p;
    if (p == NIL)
        *root = i;
    else if (go_left)
        N(p).left = i;
    else
        N(p).right = i;
    node_fix(seg, i);
    rebalance_up(seg, root, p, NIL);
}

static void tree_delete(gr_seg_t *seg, uint32_t *root, uint32_t z)
{
    uint32_t zl = N(z).left, zr = N(z).right, zp = N(z).parent;
    if (zl != NIL && zr != NIL) {
        /* The successor y (no left child) takes z's place; nodes keep their identity. */
        uint32_t y = zr;
        while (N(y).left != NIL)
            y = N(y).left;
        uint32_t fix_from;
        if (y != zr) {
            uint32_t yp = N(y).parent, yr = N(y).right;
            N(yp).left = yr;
            if (yr != NIL)
                N(yr).parent = yp;
            N(y).right = zr;
            N(zr).parent = y;
            fix_from = yp;
        } else {
            fix_from = y;
        }
        N(y).left = zl;
        N(zl).parent = y;
        N(y).parent = zp;
        N(y).sum.height = N(z).sum.height;
        replace_child(seg, root, zp, z, y);
        rebalance_up(seg, root, fix_from, y); /* y sits on new children: refresh it too */
    } else {
        uint32_t child = zl != NIL ? zl : zr;
        if (child != NIL)
            N(child).parent = zp;
        replace_child(seg, root, zp, z, child);
        rebalance_up(seg, root, zp, NIL);
    }
}

/*
 * The leftmost hole of x's subtree that starts at or after page klo and holds an a-aligned
 * block of n pages. Subtrees whose class-c index is below n are skipped; when c is a's own
 * class the index is exact, so every subtree entered past the klo boundary holds an answer
 * and the search is one descent.
 */
static uint32_t find_first(const gr_seg_t *seg, uint32_t x, uint64_t klo, unsigned c, uint64_t a,
                           uint64_t n)
{
    while (x != NIL) {
        const seg_node_t *h = &N(x);
        if (h->sum.aug[c] < n)
            return NIL;
        if (h->start >= klo) {
            uint32_t r = find_first(seg, h->left, klo, c, a, n);
            if (r != NIL)
                return r;
            if (fit_in(h, a) >= n)
                return x;
        }
        x = h->right;
    }
    return NIL;
}

/* The rightmost hole of x's subtree that starts before page khi and holds the block. */
static uint32_t find_last(const gr_seg_t *seg, uint32_t x, uint64_t khi, unsigned c, uint64_t a,
                          uint64_t n)
{
    while (x != NIL) {
        const seg_node_t *h = &N(x);
        if (h->sum.aug[c] < n)
            return NIL;
        if (h->start < khi) {
            uint32_t r = find_last(seg, h->right, khi, c, a, n);
            if (r != NIL)
                return r;
            if (fit_in(h, a) >= n)
                return x;
        }
        x = h->left;
    }
    return NIL;
}

/* ---- holes: node pool, bins, table ------------------------------------------------------ */

static uint32_t node_get(gr_seg_t *seg)
{
    uint32_t i;
    if (seg->node_free != NIL) {
        i = seg->node_free;
        seg->node_free = N(i).left;
    } else {
        i = seg->node_top++; /* capacity was reserved by the caller */
    }
    return i;
}

static void node_put(gr_seg_t *seg, uint32_t i)
{
    N(i).left = seg->node_free;
    seg->node_free = i;
}

/* Makes room for the holes that can exist with `blocks` live blocks (holes <= blocks + 1). */
static gr_status_t nodes_reserve(gr_seg_t *seg, uint32_t blocks)
{
    uint64_t need = (uint64_t)blocks + 2; /* + NIL */
    if (need <= seg->node_cap)
        return GR_OK;
    uint64_t cap = seg->node_cap;
    while (cap < need)
        cap *= 2;
    seg_node_t *n = realloc(seg->nodes, cap * sizeof *n);
    if (n == NULL)
        return GR_E_NO_MEMORY;
    seg->nodes = n;
    seg->node_cap = (uint32_t)cap;
    return GR_OK;
}

/* ---- bins: a sorted array while small, an AVL tree when large ------------------------------ */

static inline bool bin_is_tree(const gr_seg_t *seg, unsigned b)
{
    return (seg->tree_mask >> b) & 1u;
}

/* The number of holes of small bin b that start below page key: where key would go. A count,
 * not a binary search: no branch to mispredict over at most ARR_MAX contiguous starts (a
 * binary search measured no faster on bench/alloc). */
static inline uint32_t arr_lower(const gr_seg_t *seg, unsigned b, uint64_t key)
{
    const seg_ent_t *v = seg->bin_arr[b].e;
    uint32_t pos = 0;
    for (uint32_t k = 0, n = seg->bin_n[b]; k < n; k++)
        pos += v[k].start < key;
    return pos;
}

/* The largest a-aligned block in [s, e) (0 if none). */
static inline uint32_t fit_se(uint32_t s, uint32_t e, uint32_t a)
{
    uint32_t p = (s + a - 1) & ~(a - 1);
    return p < e ? e - p : 0;
}

/* A hole's fit for each class (what a tree node's index takes from it). */
static inline void fits_se(uint32_t s, uint32_t e, uint32_t f[N_CLASS])
{
    _Static_assert(N_CLASS == 3, "written out for three classes");
    f[0] = e - s;
    f[1] = fit_se(s, e, class_pages[1]);
    f[2] = fit_se(s, e, class_pages[2]);
}

/*
 * Small bin b after a hole in it grew or arrived with fits f. A small bin's index is a bound:
 * it grows at once and is not lowered when a hole shrinks or leaves (the bin is scanned, so
 * a bound above the truth costs a scan, never a different place); it is exact again when the
 * bin empties or turns from a tree into an array.
 */
static inline void arr_index(gr_seg_t *seg, unsigned b, const uint32_t f[N_CLASS])
{
    for (unsigned c = 0; c < N_CLASS; c++)
        seg->bin_aug[b][c] = max_u32(seg->bin_aug[b][c], f[c]);
}

/* Small bin b's index, recomputed from its holes (exact again). */
static void arr_rescan(gr_seg_t *seg, unsigned b)
{
    const seg_arr_t *v = &seg->bin_arr[b];
    memset(seg->bin_aug[b], 0, sizeof seg->bin_aug[b]);
    for (uint32_t k = 0, n = seg->bin_n[b]; k < n; k++) {
        uint32_t f[N_CLASS];
        fits_se(v->e[k].start, v->e[k].end, f);
        arr_index(seg, b, f);
    }
}

/* Small bin b's first and last hole and their bounds, after a change. */
static inline void arr_ends(gr_seg_t *seg, unsigned b)
{
    const seg_arr_t *v = &seg->bin_arr[b];
    uint32_t n = seg->bin_n[b];
    if (n == 0) {
        seg->bin_first[b] = seg->bin_last[b] = NIL;
        seg->bin_start[b] = seg->bin_end[b] = 0;
        memset(seg->bin_aug[b], 0, sizeof seg->bin_aug[b]);
        seg->bin_mask &= ~(UINT64_C(1) << b);
        return;
    }
    seg->bin_first[b] = v->e[0].node;
    seg->bin_last[b] = v->e[n - 1].node;
    seg->bin_start[b] = v->e[0].start;
    seg->bin_end[b] = v->e[n - 1].end;
    seg->bin_mask |= UINT64_C(1) << b;
}

/* Refreshes tree bin b's copies after a change in its tree. */
static inline void bin_refresh(gr_seg_t *seg, unsigned b)
{
    const seg_node_t *r = &N(seg->bin_root[b]); /* NIL's index is all zero */
    memcpy(seg->bin_aug[b], r->sum.aug, sizeof seg->bin_aug[b]);
    seg->bin_start[b] = N(seg->bin_first[b]).start;
    seg->bin_end[b] = seg->bin_last[b] != NIL ? (uint32_t)hole_end(&N(seg->bin_last[b])) : 0;
}

/* Small bin b, full, becomes a tree of the same holes (rare: O(ARR_MAX log ARR_MAX)). */
static void arr_to_tree(gr_seg_t *seg, unsigned b)
{
    seg->bin_root[b] = NIL;
    for (uint32_t k = 0; k < seg->bin_n[b]; k++)
        tree_insert(seg, &seg->bin_root[b], seg->bin_arr[b].e[k].node);
    seg->tree_mask |= UINT64_C(1) << b;
}

static uint32_t tree_to_arr_walk(gr_seg_t *seg, seg_arr_t *v, uint32_t k, uint32_t x)
{
    while (x != NIL) {
        k = tree_to_arr_walk(seg, v, k, N(x).left);
        v->e[k].node = x;
        v->e[k].start = N(x).start;
        v->e[k].end = (uint32_t)hole_end(&N(x));
        k++;
        x = N(x).right;
    }
    return k;
}

/* Tree bin b, down to ARR_LOW holes, becomes an array again. */
static void tree_to_arr(gr_seg_t *seg, unsigned b)
{
    tree_to_arr_walk(seg, &seg->bin_arr[b], 0, seg->bin_root[b]);
    seg->bin_root[b] = NIL;
    seg->tree_mask &= ~(UINT64_C(1) << b);
    arr_rescan(seg, b);
    arr_ends(seg, b);
}

static void bin_add(gr_seg_t *seg, uint32_t i)
{
    unsigned b = bin_of(N(i).len);
    N(i).bin = b;
    if (!bin_is_tree(seg, b) && seg->bin_n[b] == ARR_MAX)
        arr_to_tree(seg, b);
    if (!bin_is_tree(seg, b)) {
        seg_arr_t *v = &seg->bin_arr[b];
        uint32_t s = N(i).start, e = (uint32_t)hole_end(&N(i));
        uint32_t pos = arr_lower(seg, b, s);
        memmove(&v->e[pos + 1], &v->e[pos], (size_t)(seg->bin_n[b] - pos) * sizeof v->e[0]);
        v->e[pos] = (seg_ent_t){s, e, i};
        seg->bin_n[b]++;
        uint32_t f[N_CLASS];
        fits_se(s, e, f);
        arr_index(seg, b, f);
        arr_ends(seg, b);
        return;
    }
    seg->bin_n[b]++;
    tree_insert(seg, &seg->bin_root[b], i);
    uint32_t first = seg->bin_first[b], last = seg->bin_last[b];
    if (first == NIL || N(i).start < N(first).start)
        seg->bin_first[b] = i;
    if (last == NIL || N(i).start > N(last).start)
        seg->bin_last[b] = i;
    seg->bin_mask |= UINT64_C(1) << b;
    bin_refresh(seg, b);
}

/* Takes hole i out of its bin; it started at old_start while in it (its node may already hold
 * its new extent). */
static void bin_remove(gr_seg_t *seg, uint32_t i, uint32_t old_start)
{
    unsigned b = N(i).bin;
    if (!bin_is_tree(seg, b)) {
        seg_arr_t *v = &seg->bin_arr[b];
        uint32_t n = --seg->bin_n[b];
        uint32_t k = arr_lower(seg, b, old_start);
        memmove(&v->e[k], &v->e[k + 1], (size_t)(n - k) * sizeof v->e[0]);
        arr_ends(seg, b);
        return;
    }
    if (seg->bin_first[b] == i) {
        /* The new lowest is i's successor: i, the leftmost, has no left child. */
        uint32_t next = N(i).right;
        if (next != NIL)
            while (N(next).left != NIL)
                next = N(next).left;
        else
            next = N(i).parent;
        seg->bin_first[b] = next;
    }
    if (seg->bin_last[b] == i) {
        /* The new highest is i's predecessor: i, the rightmost, has no right child. */
        uint32_t pred = N(i).left;
        if (pred != NIL)
            while (N(pred).right != NIL)
                pred = N(pred).right;
        else
            pred = N(i).parent;
        seg->bin_last[b] = pred;
    }
    tree_delete(seg, &seg->bin_root[b], i);
    if (--seg->bin_n[b] <= ARR_LOW) {
        tree_to_arr(seg, b);
        return;
    }
    bin_refresh(seg, b);
}

static void hole_insert(gr_seg_t *seg, uint64_t start, uint64_t len)
{
    uint32_t i = node_get(seg);
    node_set(seg, i, start, len);
    bin_add(seg, i);
    tab_put(seg, KEY(start, K_HOLE_START), i);
    tab_put(seg, KEY(start + len, K_HOLE_END), i);
    seg->n_holes++;
}

static void hole_delete(gr_seg_t *seg, uint32_t z)
{
    uint32_t s = N(z).start, e = (uint32_t)hole_end(&N(z));
    tab_remove(seg, KEY(s, K_HOLE_START));
    tab_remove(seg, KEY(e, K_HOLE_END));
    bin_remove(seg, z, s);
    node_put(seg, z);
    seg->n_holes--;
}

/* Gives hole x a new extent (that overlaps no other hole). */
static void hole_resize(gr_seg_t *seg, uint32_t x, uint64_t start, uint64_t len)
{
    uint32_t old_start = N(x).start, old_end = (uint32_t)hole_end(&N(x));
    uint32_t new_start = (uint32_t)start, new_end = (uint32_t)(start + len);
    if (new_start != old_start) {
        tab_remove(seg, KEY(old_start, K_HOLE_START));
        tab_put(seg, KEY(new_start, K_HOLE_START), x);
    }
    if (new_end != old_end) {
        tab_remove(seg, KEY(old_end, K_HOLE_END));
        tab_put(seg, KEY(new_end, K_HOLE_END), x);
    }
    node_set(seg, x, start, len);
    unsigned b = N(x).bin;
    if (bin_of(len) != b) {
        bin_remove(seg, x, old_start);
        bin_add(seg, x);
    } else if (bin_is_tree(seg, b)) {
        update_up(seg, x);
        bin_refresh(seg, b);
    } else {
        /* Same bin, same place in it (holes do not overlap): the copies, the index and the
         * bin's bounds change, nothing moves. */
        seg_arr_t *v = &seg->bin_arr[b];
        uint32_t k = arr_lower(seg, b, old_start);
        v->e[k].start = new_start;
        v->e[k].end = new_end;
        uint32_t f[N_CLASS];
        fits_se(new_start, new_end, f);
        arr_index(seg, b, f);
        arr_ends(seg, b);
    }
}

/*
 * The lowest hole of bin b that starts at or after page klo and holds an a-aligned block of n
 * pages (c: a's class, or the class below it). A small bin is scanned from klo on.
 */
static uint32_t bin_find_first(const gr_seg_t *seg, unsigned b, uint64_t klo, unsigned c, uint64_t a,
                               uint64_t n)
{
    if (bin_is_tree(seg, b))
        return find_first(seg, seg->bin_root[b], klo, c, a, n);
    const seg_arr_t *v = &seg->bin_arr[b];
    for (uint32_t k = 0, m = seg->bin_n[b]; k < m; k++) {
        uint64_t s = v->e[k].start, e = v->e[k].end, p = align_up(s, a);
        if (s >= klo && p < e && e - p >= n)
            return v->e[k].node;
    }
    return NIL;
}

/* The highest hole of bin b that starts before page khi and holds the block. */
static uint32_t bin_find_last(const gr_seg_t *seg, unsigned b, uint64_t khi, unsigned c, uint64_t a,
                              uint64_t n)
{
    if (bin_is_tree(seg, b))
        return find_last(seg, seg->bin_root[b], khi, c, a, n);
    const seg_arr_t *v = &seg->bin_arr[b];
    for (uint32_t k = seg->bin_n[b]; k-- > 0;) {
        uint64_t s = v->e[k].start, e = v->e[k].end, p = align_up(s, a);
        if (s < khi && p < e && e - p >= n)
            return v->e[k].node;
    }
    return NIL;
}

/* Takes [p, p+n) out of hole h. */
static void hole_carve(gr_seg_t *seg, uint32_t h, uint64_t p, uint64_t n)
{
    uint64_t s = N(h).start, e = hole_end(&N(h));
    if (p == s && p + n == e) {
        hole_delete(seg, h);
    } else if (p == s) {
        hole_resize(seg, h, p + n, e - p - n);
    } else if (p + n == e) {
        hole_resize(seg, h, s, p - s);
    } else {
        hole_resize(seg, h, s, p - s);
        hole_insert(seg, p + n, e - p - n);
    }
    seg->free_pages -= n;
}

/* ---- placement ------------------------------------------------------------------------- */

/*
 * Bottom-up: the lowest hole of the smallest bin that holds an a-aligned block of n pages inside
 * [lo, hi), and the lowest aligned page in it. A hole that starts below lo counts, clipped to
 * lo: in each bin the search starts early enough to meet it (a bin's holes are at most
 * bin_aug[b][0] long), and the few holes of that bin between there and lo are stepped over.
 */
static bool place_bottom_up(const gr_seg_t *seg, uint64_t n, uint64_t a, uint64_t lo, uint64_t hi,
                            uint32_t *out_hole, uint64_t *out_page)
{
    unsigned c = class_of(a);
    uint64_t mask = seg->bin_mask & (~UINT64_C(0) << bin_of(n));
    for (; mask != 0; mask &= mask - 1) {
        unsigned b = (unsigned)__builtin_ctzll(mask);
        if (seg->bin_aug[b][c] < n || seg->bin_start[b] >= hi || seg->bin_end[b] <= lo)
            continue; /* nothing fits, or nothing meets [lo, hi) */
        uint64_t longest = seg->bin_aug[b][0];
        uint64_t klo = lo >= longest ? lo - longest + 1 : 0;
        for (;;) {
            uint32_t x = bin_find_first(seg, b, klo, c, a, n);
            if (x == NIL || N(x).start >= hi)
                break;
            uint64_t s = N(x).start, e = hole_end(&N(x));
            uint64_t p = align_up(s > lo ? s : lo, a);
            if (p + n <= (e < hi ? e : hi)) {
                *out_hole = x;
                *out_page = p;
                return true;
            }
            /* Unclipped it fits: lo or hi cut it. Below lo, try the next hole of this bin (at
             * most two more start before lo); cut by hi, every later hole is cut as well. */
            if (s >= lo)
                break;
            klo = s + 1;
        }
    }
    return false;
}

/* The highest a-aligned page for n pages in bin b, below hi and at or above lo. */
static uint32_t bin_top_down(const gr_seg_t *seg, unsigned b, uint64_t n, uint64_t a, unsigned c,
                             uint64_t lo, uint64_t hi, uint64_t *out_page)
{
    uint64_t khi = hi;
    for (;;) {
        uint32_t x = bin_find_last(seg, b, khi, c, a, n);
        if (x == NIL)
            return NIL;
        uint64_t e = hole_end(&N(x)), top = e < hi ? e : hi;
        if (top >= n) {
            uint64_t p = align_down(top - n, a);
            if (p >= N(x).start) {
                if (p < lo)
                    return NIL; /* and lower in every lower hole */
                *out_page = p;
                return x;
            }
        }
        /* Unclipped it fits, so hi cut it: try the holes below it. */
        khi = N(x).start;
    }
}

/*
 * High fit: segregated fit from the top: the highest hole below hi of the smallest bin that
 * holds the block inside [lo, hi), and the highest aligned page in it. One descent per bin
 * tried, as bottom-up, where top-down compares every bin's highest hole.
 */
static bool place_high_fit(const gr_seg_t *seg, uint64_t n, uint64_t a, uint64_t lo, uint64_t hi,
                           uint32_t *out_hole, uint64_t *out_page)
{
    unsigned c = class_of(a);
    for (uint64_t mask = seg->bin_mask & (~UINT64_C(0) << bin_of(n)); mask != 0; mask &= mask - 1) {
        unsigned b = (unsigned)__builtin_ctzll(mask);
        if (seg->bin_aug[b][c] < n || seg->bin_start[b] >= hi || seg->bin_end[b] <= lo)
            continue;
        uint64_t p;
        uint32_t x = bin_top_down(seg, b, n, a, c, lo, hi, &p);
        if (x != NIL) {
            *out_hole = x;
            *out_page = p;
            return true;
        }
    }
    return false;
}

/*
 * Top-down: the highest a-aligned page p with [p, p+n) free and inside [lo, hi). A bin's
 * highest hole bounds what the bin can offer; the bin with the highest bound is searched first,
 * then only bins whose bound beats the best page so far, highest bound first: usually a single
 * descent after one pass over the bins' bounds.
 */
static bool place_top_down(const gr_seg_t *seg, uint64_t n, uint64_t a, uint64_t lo, uint64_t hi,
                           uint32_t *out_hole, uint64_t *out_page)
{
    unsigned c = class_of(a);
    uint64_t bound[N_BINS]; /* every page bin b can offer is below bound[b] */
    uint64_t todo = 0;
    for (uint64_t mask = seg->bin_mask & (~UINT64_C(0) << bin_of(n)); mask != 0; mask &= mask - 1) {
        unsigned b = (unsigned)__builtin_ctzll(mask);
        if (seg->bin_aug[b][c] < n || seg->bin_start[b] >= hi)
            continue; /* nothing fits, or everything starts past hi */
        uint64_t e = seg->bin_end[b], top = e < hi ? e : hi;
        if (top < n || align_down(top - n, a) < lo)
            continue;
        bound[b] = align_down(top - n, a) + 1;
        todo |= UINT64_C(1) << b;
    }
    uint32_t best = NIL;
    uint64_t best_p = 0;
    for (;;) {
        /* The bin with the highest bound among those that can still beat the best page. */
        unsigned pick = N_BINS;
        uint64_t rest = 0;
        for (uint64_t m = todo; m != 0; m &= m - 1) {
            unsigned b = (unsigned)__builtin_ctzll(m);
            if (best != NIL && bound[b] <= best_p + 1)
                continue;
            rest |= UINT64_C(1) << b;
            if (pick == N_BINS || bound[b] > bound[pick])
                pick = b;
        }
        if (pick == N_BINS)
            break;
        todo = rest & ~(UINT64_C(1) << pick);
        uint64_t p;
        uint32_t x = bin_top_down(seg, pick, n, a, c, lo, hi, &p);
        if (x != NIL && (best == NIL || p > best_p)) {
            best = x;
            best_p = p;
        }
    }
    if (best == NIL)
        return false;
    *out_hole = best;
    *out_page = best_p;
    return true;
}

/* ---- public API ------------------------------------------------------------------------ */

#define SLOT_BITS_INIT 8
#define NODES_INIT 64

gr_status_t gr_seg_init(uint64_t size, gr_seg_t **out_seg)
{
    if (out_seg == NULL || size == 0 || size % GR_SEG_UNIT != 0 || size > GR_SEG_MAX_SIZE)
        return GR_E_INVALID;

    gr_seg_t *seg = calloc(1, sizeof *seg);
    if (seg == NULL)
        goto fail;
    seg->nodes = calloc(NODES_INIT, sizeof *seg->nodes);
    if (seg->nodes == NULL)
        goto fail_seg;
    if (slots_alloc(SLOT_BITS_INIT, &seg->slots) != GR_OK)
        goto fail_nodes;

    seg->size = size;
    seg->pages = (uint32_t)(size >> PAGE_SHIFT);
    seg->node_cap = NODES_INIT;
    seg->node_top = 1;
    seg->node_free = NIL;
    seg->slot_mask = (1u << SLOT_BITS_INIT) - 1;
    seg->slot_shift = 64 - SLOT_BITS_INIT;
    hole_insert(seg, 0, seg->pages);
    seg->free_pages = seg->pages;
    *out_seg = seg;
    return GR_OK;

fail_nodes:
    free(seg->nodes);
fail_seg:
    free(seg);
fail:
    return GR_E_NO_MEMORY;
}

void gr_seg_fini(gr_seg_t *seg)
{
    if (seg == NULL)
        return;
    free(seg->pins);
    free(seg->slots);
    free(seg->nodes);
    free(seg);
}

/* At least the largest hole: the highest non-empty bin's index (exact for a tree). */
static uint64_t largest_bound(const gr_seg_t *seg)
{
    if (seg->bin_mask == 0)
        return 0;
    return seg->bin_aug[63 - __builtin_clzll(seg->bin_mask)][0];
}

/* The largest hole: the longest in the highest non-empty bin. */
static uint64_t largest_hole(const gr_seg_t *seg)
{
    if (seg->bin_mask == 0)
        return 0;
    unsigned b = 63u - (unsigned)__builtin_clzll(seg->bin_mask);
    if (bin_is_tree(seg, b))
        return seg->bin_aug[b][0];
    uint32_t m = 0;
    for (uint32_t k = 0; k < seg->bin_n[b]; k++)
        m = max_u32(m, seg->bin_arr[b].e[k].end - seg->bin_arr[b].e[k].start);
    return m;
}

gr_status_t gr_seg_alloc(gr_seg_t *seg, uint64_t size, uint64_t alignment, uint64_t range_lo,
                         uint64_t range_hi, uint32_t flags, uint64_t *out_offset)
{
    if (seg == NULL || out_offset == NULL || size == 0 ||
        (flags & ~(GR_SEG_TOP_DOWN | GR_SEG_HIGH_FIT | GR_SEG_PINNED)) != 0 ||
        (flags & (GR_SEG_TOP_DOWN | GR_SEG_HIGH_FIT)) == (GR_SEG_TOP_DOWN | GR_SEG_HIGH_FIT))
        return GR_E_INVALID;
    if (alignment == 0)
        alignment = GR_SEG_UNIT;
    if (alignment < GR_SEG_UNIT || (alignment & (alignment - 1)) != 0)
        return GR_E_INVALID;
    if (range_hi == GR_SEG_END)
        range_hi = seg->size;
    if (range_lo % GR_SEG_UNIT != 0 || range_hi % GR_SEG_UNIT != 0 || range_lo >= range_hi ||
        range_hi > seg->size)
        return GR_E_INVALID;
    if (size > range_hi - range_lo)
        return GR_E_NO_MEMORY;

    uint64_t n = align_up(size, GR_SEG_UNIT) >> PAGE_SHIFT;
    uint64_t a = alignment >> PAGE_SHIFT;
    uint64_t lo = range_lo >> PAGE_SHIFT, hi = range_hi >> PAGE_SHIFT;
    if (n > seg->free_pages || n > largest_bound(seg))
        return GR_E_NO_MEMORY;

    if (nodes_reserve(seg, seg->n_blocks + 1) != GR_OK ||
        slots_reserve(seg, (uint64_t)seg->n_slots + 3 + seg->n_blocks + 1) != GR_OK)
        return GR_E_NO_MEMORY;

    uint32_t h;
    uint64_t p;
    bool found = (flags & GR_SEG_TOP_DOWN)    ? place_top_down(seg, n, a, lo, hi, &h, &p)
                 : (flags & GR_SEG_HIGH_FIT) ? place_high_fit(seg, n, a, lo, hi, &h, &p)
                                             : place_bottom_up(seg, n, a, lo, hi, &h, &p);
    if (!found)
        return GR_E_NO_MEMORY;
    if (flags & GR_SEG_PINNED) {
        /* Listed first, the only step that can fail (host memory). */
        if (pins_insert(seg, (uint32_t)p, (uint32_t)n) != GR_OK)
            return GR_E_NO_MEMORY;
    }

    hole_carve(seg, h, p, n);
    tab_put(seg, KEY(p, K_BLOCK), (uint32_t)n | ((flags & GR_SEG_PINNED) ? PIN_BIT : 0));
    seg->n_blocks++;
    *out_offset = p << PAGE_SHIFT;
    return GR_OK;
}

gr_status_t gr_seg_free(gr_seg_t *seg, uint64_t offset)
{
    if (seg == NULL || offset % GR_SEG_UNIT != 0 || offset >= seg->size)
        return GR_E_INVALID;
    uint64_t p = offset >> PAGE_SHIFT;
    uint32_t si = tab_find(seg, KEY(p, K_BLOCK));
    if (si == KEY_EMPTY)
        return GR_E_INVALID;
    uint32_t val = seg->slots[si].val;
    uint64_t n = LEN_OF(val);
    if (val & PIN_BIT)
        pins_remove(seg, (uint32_t)p);
    tab_remove_at(seg, si);
    seg->n_blocks--;

    uint32_t li = tab_find(seg, KEY(p, K_HOLE_END));
    uint32_t ri = tab_find(seg, KEY(p + n, K_HOLE_START));
    uint32_t pred = li != KEY_EMPTY ? seg->slots[li].val : NIL;
    uint32_t succ = ri != KEY_EMPTY ? seg->slots[ri].val : NIL;

    if (pred != NIL && succ != NIL) {
        uint64_t start = N(pred).start, len = (uint64_t)N(pred).len + n + N(succ).len;
        hole_delete(seg, succ);
        hole_resize(seg, pred, start, len);
    } else if (pred != NIL) {
        hole_resize(seg, pred, N(pred).start, (uint64_t)N(pred).len + n);
    } else if (succ != NIL) {
        hole_resize(seg, succ, p, (uint64_t)N(succ).len + n);
    } else {
        hole_insert(seg, p, n); /* room reserved at alloc time */
    }
    seg->free_pages += n;
    return GR_OK;
}

gr_status_t gr_seg_fit_unpinned(const gr_seg_t *seg, uint64_t size, uint64_t alignment, uint64_t range_lo,
                                uint64_t range_hi)
{
    if (alignment == 0)
        alignment = GR_SEG_UNIT;
    if (seg == NULL || size == 0 || alignment < GR_SEG_UNIT || (alignment & (alignment - 1)) != 0)
        return GR_E_INVALID;
    if (range_hi == GR_SEG_END)
        range_hi = seg->size;
    if (range_lo % GR_SEG_UNIT != 0 || range_hi % GR_SEG_UNIT != 0 || range_lo >= range_hi ||
        range_hi > seg->size)
        return GR_E_INVALID;
    uint64_t n = align_up(size, GR_SEG_UNIT) >> PAGE_SHIFT, a = alignment >> PAGE_SHIFT;
    uint64_t lo = range_lo >> PAGE_SHIFT, hi = range_hi >> PAGE_SHIFT;
    /* The runs between the pinned blocks that meet [lo, hi), clipped to it, in address order. */
    uint64_t from = lo;
    for (uint32_t k = pins_first_ending_after(seg, lo); k < seg->n_pins && seg->pins[k].start < hi; k++) {
        if (align_up(from, a) + n <= seg->pins[k].start)
            return GR_OK;
        uint64_t e = (uint64_t)seg->pins[k].start + seg->pins[k].len;
        from = e > from ? e : from;
    }
    return align_up(from, a) + n <= hi ? GR_OK : GR_E_NO_MEMORY;
}

gr_status_t gr_seg_stats(const gr_seg_t *seg, gr_seg_stats_t *out_stats)
{
    if (seg == NULL || out_stats == NULL)
        return GR_E_INVALID;
    gr_seg_stats_t s = {
        .size = seg->size,
        .free_bytes = seg->free_pages << PAGE_SHIFT,
        .largest_free = largest_hole(seg) << PAGE_SHIFT,
        .free_fragments = seg->n_holes,
        .allocations = seg->n_blocks,
    };
    *out_stats = s;
    return GR_OK;
}

gr_status_t gr_seg_block_size(const gr_seg_t *seg, uint64_t offset, uint64_t *out_size)
{
    if (seg == NULL || out_size == NULL || offset % GR_SEG_UNIT != 0 || offset >= seg->size)
        return GR_E_INVALID;
    uint32_t si = tab_find(seg, KEY(offset >> PAGE_SHIFT, K_BLOCK));
    if (si == KEY_EMPTY)
        return GR_E_INVALID;
    *out_size = (uint64_t)LEN_OF(seg->slots[si].val) << PAGE_SHIFT;
    return GR_OK;
}

gr_status_t gr_seg_walk(const gr_seg_t *seg, gr_seg_walk_fn fn, void *ctx)
{
    if (seg == NULL || fn == NULL)
        return GR_E_INVALID;
    for (uint64_t pos = 0; pos < seg->pages;) {
        uint32_t si = tab_find(seg, KEY(pos, K_HOLE_START));
        bool is_free = si != KEY_EMPTY;
        uint64_t n;
        if (is_free) {
            n = N(seg->slots[si].val).len;
        } else {
            si = tab_find(seg, KEY(pos, K_BLOCK));
            if (si == KEY_EMPTY)
                return GR_E_INVALID; /* broken invariant; gr_seg_check says where */
            n = LEN_OF(seg->slots[si].val);
        }
        if (!fn(ctx, pos << PAGE_SHIFT, n << PAGE_SHIFT, is_free))
            return GR_OK;
        pos += n;
    }
    return GR_OK;
}

/* Every hole of x's subtree of at least min pages, in address order; false when fn stopped. */
static bool holes_from(const gr_seg_t *seg, uint32_t x, uint64_t min, gr_seg_walk_fn fn, void *ctx)
{
    while (x != NIL) {
        const seg_node_t *h = &N(x);
        if (h->sum.aug[0] < min)
            return true;
        if (!holes_from(seg, h->left, min, fn, ctx))
            return false;
        if (h->len >= min && !fn(ctx, (uint64_t)h->start << PAGE_SHIFT, (uint64_t)h->len << PAGE_SHIFT, true))
            return false;
        x = h->right;
    }
    return true;
}

gr_status_t gr_seg_walk_free(const gr_seg_t *seg, uint64_t min_size, gr_seg_walk_fn fn, void *ctx)
{
    if (seg == NULL || fn == NULL)
        return GR_E_INVALID;
    uint64_t min = (min_size + GR_SEG_UNIT - 1) >> PAGE_SHIFT;
    min = min ? min : 1;
    for (uint64_t mask = seg->bin_mask & (~UINT64_C(0) << bin_of(min)); mask != 0; mask &= mask - 1) {
        unsigned b = (unsigned)__builtin_ctzll(mask);
        if (bin_is_tree(seg, b)) {
            if (!holes_from(seg, seg->bin_root[b], min, fn, ctx))
                break;
            continue;
        }
        bool go = true;
        for (uint32_t k = 0; k < seg->bin_n[b] && go; k++) {
            const seg_node_t *h = &N(seg->bin_arr[b].e[k].node);
            if (h->len >= min)
                go = fn(ctx, (uint64_t)h->start << PAGE_SHIFT, (uint64_t)h->len << PAGE_SHIFT, true);
        }
        if (!go)
            break;
    }
    return GR_OK;
}

gr_status_t gr_seg_walk_range(const gr_seg_t *seg, uint64_t lo, uint64_t hi, gr_seg_walk_fn fn, void *ctx)
{
    if (seg == NULL || fn == NULL || lo % GR_SEG_UNIT || hi % GR_SEG_UNIT)
        return GR_E_INVALID;
    uint64_t plo = lo >> PAGE_SHIFT, phi = hi == GR_SEG_END ? seg->pages : hi >> PAGE_SHIFT;
    if (plo >= phi || phi > seg->pages)
        return GR_E_INVALID;
    /* Start at the highest hole that starts at or below lo (each bin's tree is address
     * ordered), or at 0: from there every element is a hole or a block the table knows. */
    uint64_t pos = 0;
    for (uint64_t mask = seg->bin_mask; mask != 0; mask &= mask - 1) {
        unsigned b = (unsigned)__builtin_ctzll(mask);
        if (seg->bin_start[b] > plo)
            continue;
        uint32_t x = bin_find_last(seg, b, plo + 1, 0, 1, 1);
        if (x != NIL && N(x).start > pos)
            pos = N(x).start;
    }
    while (pos < phi) {
        uint32_t si = tab_find(seg, KEY(pos, K_HOLE_START));
        bool is_free = si != KEY_EMPTY;
        uint64_t n;
        if (is_free) {
            n = N(seg->slots[si].val).len;
        } else {
            si = tab_find(seg, KEY(pos, K_BLOCK));
            if (si == KEY_EMPTY)
                return GR_E_INVALID; /* broken invariant; gr_seg_check says where */
            n = LEN_OF(seg->slots[si].val);
        }
        if (pos + n > plo && !fn(ctx, pos << PAGE_SHIFT, n << PAGE_SHIFT, is_free))
            return GR_OK;
        pos += n;
    }
    return GR_OK;
}

/* ---- self-check ------------------------------------------------------------------------ */

typedef struct check_tree {
    unsigned bin;
    uint64_t prev_end; /* end of the last hole seen in order */
    uint32_t count;
    uint64_t pages;
} check_tree_t;

/* Hole x, next in address order in bin k->bin: counted, or false when something is wrong. */
static bool check_hole(const gr_seg_t *seg, check_tree_t *k, uint32_t x)
{
    const seg_node_t *h = &N(x);
    /* Holes are ordered, non-empty, inside the segment, in the bin of their length, and the
     * table maps their start and end to them. */
    if (x == NIL || x >= seg->node_top || h->len == 0 || hole_end(h) > seg->pages || h->bin != k->bin ||
        bin_of(h->len) != k->bin || (k->count > 0 && h->start < k->prev_end))
        return false;
    uint32_t s = tab_find(seg, KEY(h->start, K_HOLE_START));
    uint32_t e = tab_find(seg, KEY(hole_end(h), K_HOLE_END));
    if (s == KEY_EMPTY || e == KEY_EMPTY || seg->slots[s].val != x || seg->slots[e].val != x)
        return false;
    k->prev_end = hole_end(h);
    k->count++;
    k->pages += h->len;
    return true;
}

/* Checks x's subtree in a bin tree; returns its height, or -1 when something is wrong. */
static int check_subtree(const gr_seg_t *seg, check_tree_t *k, uint32_t x, uint32_t parent,
                         int depth)
{
    if (x == NIL)
        return 0;
    const seg_node_t *h = &N(x);
    if (depth > 64 || x >= seg->node_top || h->parent != parent)
        return -1;
    int hl = check_subtree(seg, k, h->left, x, depth + 1);
    if (hl < 0 || !check_hole(seg, k, x))
        return -1;
    int hr = check_subtree(seg, k, h->right, x, depth + 1);
    if (hr < 0)
        return -1;
    if (hl > hr + 1 || hr > hl + 1 || h->sum.height != (uint32_t)(1 + (hl > hr ? hl : hr)))
        return -1;
    const seg_sum_t *l = &N(h->left).sum, *r = &N(h->right).sum;
    for (unsigned c = 0; c < N_CLASS; c++)
        if (h->sum.aug[c] != max_u32((uint32_t)fit_in(h, class_pages[c]), max_u32(l->aug[c], r->aug[c])))
            return -1;
    return 1 + (hl > hr ? hl : hr);
}

struct check_ctx {
    uint64_t next;
    bool last_free;
    bool ok;
    uint64_t blocks;
    uint64_t holes;
    uint64_t free_bytes;
};

static bool check_walk(void *ctx, uint64_t offset, uint64_t size, bool is_free)
{
    struct check_ctx *c = ctx;
    /* The walk tiles the segment, and no two free ranges touch (they would have merged). */
    if (offset != c->next || size == 0 || (is_free && c->last_free)) {
        c->ok = false;
        return false;
    }
    c->next = offset + size;
    c->last_free = is_free;
    if (is_free) {
        c->free_bytes += size;
        c->holes++;
    } else {
        c->blocks++;
    }
    return true;
}

/* A bin's index against the one computed from its holes: equal for a tree or an empty bin, at
 * least as large for a small bin (a bound, see arr_index). */
static bool aug_ok(const uint32_t have[N_CLASS], const uint32_t want[N_CLASS], bool exact)
{
    for (unsigned c = 0; c < N_CLASS; c++)
        if (have[c] < want[c] || (exact && have[c] != want[c]))
            return false;
    return true;
}

gr_status_t gr_seg_check(const gr_seg_t *seg)
{
    if (seg == NULL)
        return GR_E_INVALID;
    static const seg_node_t zero;
    if (memcmp(&seg->nodes[NIL], &zero, sizeof zero) != 0)
        return GR_E_INVALID;
    uint32_t holes = 0;
    uint64_t pages = 0;
    for (unsigned b = 0; b < N_BINS; b++) {
        check_tree_t k = {.bin = b};
        uint32_t r = seg->bin_root[b], first = NIL, last = NIL;
        uint32_t aug[N_CLASS] = {0};
        if (bin_is_tree(seg, b)) {
            /* A tree holds more than ARR_LOW holes (fewer turn it back into an array). */
            if (r == NIL || N(r).parent != NIL || check_subtree(seg, &k, r, NIL, 0) < 0 ||
                k.count <= ARR_LOW)
                return GR_E_INVALID;
            first = last = r;
            while (N(first).left != NIL)
                first = N(first).left;
            while (N(last).right != NIL)
                last = N(last).right;
            memcpy(aug, N(r).sum.aug, sizeof aug);
        } else {
            if (r != NIL || seg->bin_n[b] > ARR_MAX)
                return GR_E_INVALID;
            const seg_arr_t *v = &seg->bin_arr[b];
            for (uint32_t i = 0; i < seg->bin_n[b]; i++) {
                uint32_t x = v->e[i].node;
                if (!check_hole(seg, &k, x) || v->e[i].start != N(x).start || v->e[i].end != hole_end(&N(x)))
                    return GR_E_INVALID;
                for (unsigned c = 0; c < N_CLASS; c++)
                    aug[c] = max_u32(aug[c], (uint32_t)fit_in(&N(x), class_pages[c]));
            }
            if (k.count > 0) {
                first = v->e[0].node;
                last = v->e[k.count - 1].node;
            }
        }
        if (k.count != seg->bin_n[b] || (k.count != 0) != ((seg->bin_mask >> b) & 1) ||
            seg->bin_first[b] != first || seg->bin_start[b] != N(first).start ||
            seg->bin_last[b] != last || !aug_ok(seg->bin_aug[b], aug, bin_is_tree(seg, b) || k.count == 0) ||
            seg->bin_end[b] != (last != NIL ? hole_end(&N(last)) : 0))
            return GR_E_INVALID;
        holes += k.count;
        pages += k.pages;
    }
    if (holes != seg->n_holes || pages != seg->free_pages || (seg->bin_mask >> N_BINS) != 0 ||
        (seg->tree_mask >> N_BINS) != 0)
        return GR_E_INVALID;
    /* Room that free() relies on: a node and table slots for one more hole. */
    if ((uint64_t)seg->n_blocks + 2 > seg->node_cap ||
        ((uint64_t)seg->n_slots + seg->n_blocks) * 4 > (uint64_t)seg->slot_mask + 1)
        return GR_E_INVALID;

    uint64_t keys = 0;
    for (uint64_t i = 0; i <= seg->slot_mask; i++)
        if (seg->slots[i].key != KEY_EMPTY)
            keys++;
    if (keys != seg->n_slots || keys != (uint64_t)seg->n_blocks + 2 * seg->n_holes)
        return GR_E_INVALID;

    /* The pin map holds exactly the pinned blocks. */
    uint32_t pinned = 0;
    for (uint64_t i = 0; i <= seg->slot_mask; i++) {
        const seg_slot_t *sl = &seg->slots[i];
        if (sl->key == KEY_EMPTY || (sl->key & 3u) != K_BLOCK || !(sl->val & PIN_BIT))
            continue;
        uint32_t k = pins_first_ending_after(seg, sl->key >> 2);
        if (k >= seg->n_pins || seg->pins[k].start != sl->key >> 2 || seg->pins[k].len != LEN_OF(sl->val))
            return GR_E_INVALID;
        pinned++;
    }
    if (seg->n_pins != pinned)
        return GR_E_INVALID;
    for (uint32_t k = 1; k < seg->n_pins; k++)
        if ((uint64_t)seg->pins[k - 1].start + seg->pins[k - 1].len > seg->pins[k].start)
            return GR_E_INVALID;

    struct check_ctx c = {.ok = true};
    if (gr_seg_walk(seg, check_walk, &c) != GR_OK || !c.ok || c.next != seg->size ||
        c.blocks != seg->n_blocks || c.holes != seg->n_holes ||
        c.free_bytes != seg->free_pages << PAGE_SHIFT)
        return GR_E_INVALID;
    return GR_OK;
}
