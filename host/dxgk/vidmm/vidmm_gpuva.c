/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_gpuva.c: one GPU virtual address space (see vidmm_gpuva.h for the contract and the
 * page-size policy).
 *
 * How it works. The mapping list (sorted by VA, no overlaps) is the truth; the tables are
 * derived from it one 2 MiB L1 slot at a time: reconcile() computes what a slot must hold from
 * the mappings that touch it and edits the shadow tables to match, so map, unmap and protect
 * all reduce to "change the list, then reconcile the slots of the range". Each call is a
 * transaction over the shadow: the first edit of an existing table saves a copy of it, new
 * tables are allocated while planning, tables to free are only marked. Commit writes the dirty
 * entry ranges to VRAM (new tables first, then existing ones from L0 up), invalidates when a
 * VALID entry changed, then frees the marked tables. Abort puts the saved copies back (and, if
 * VRAM was already written, writes them back too) and frees the new tables.
 */
#include "vidmm_gpuva.h"

#include <stdlib.h>
#include <string.h>

#define ENTRIES 512u
#define PT64_ENTRIES 32u
#define SLOT_SHIFT 21
#define SLOT_SIZE (UINT64_C(1) << SLOT_SHIFT)
#define SIZE_64K (UINT64_C(1) << 16)
#define VA_LIMIT (UINT64_C(1) << GR_GPUVA_VA_BITS)
#define PA_LIMIT (UINT64_C(1) << GR_GPUVA_PA_BITS)
#define LEAF_FLAGS (GR_GPUVA_WRITABLE | GR_GPUVA_SYSTEM | GR_GPUVA_CACHEABLE)
#define MAP_FLAGS (LEAF_FLAGS | GR_GPUVA_NO_LARGE_PAGES)
#define PROTECT_FLAGS (GR_GPUVA_WRITABLE | GR_GPUVA_CACHEABLE)

typedef struct node node_t;
struct node {
    uint64_t pa;     /* VRAM address of the table page */
    uint8_t level;   /* 3 (root) .. 0 */
    bool pt64;       /* level 0: a 32-entry 64 KiB-page table */
    uint16_t used;   /* entries with VALID set */
    uint64_t pte[ENTRIES];
    node_t *child[ENTRIES]; /* the table a non-leaf entry points to */
    /* transaction state */
    bool in_txn;     /* saved (existing) or created in the current transaction */
    bool is_new;     /* created in the current transaction */
    bool dead;       /* to be freed at commit */
    bool written;    /* its dirty range went (or was sent) to VRAM */
    uint16_t dirty_lo, dirty_hi; /* entries [lo, hi) differ from VRAM */
    uint16_t saved_used;
    uint64_t *saved_pte;
    node_t **saved_child;
};

typedef struct mapping {
    uint64_t va, size, pa;
    unsigned flags;
} mapping_t;

typedef struct node_list {
    node_t **v;
    size_t n, cap;
} node_list_t;

enum slot_kind { SLOT_EMPTY, SLOT_LEAF, SLOT_PT64, SLOT_PT4K };

struct gr_gpuva_space {
    gr_gpuva_ops_t ops;
    void *user;
    node_t *root;
    mapping_t *maps;
    size_t nmaps, cap_maps;
    uint64_t table_pages;
    uint64_t invalidates;
    /* the transaction under way */
    node_list_t touched; /* existing tables with a saved copy */
    node_list_t fresh;   /* tables allocated by it */
    node_list_t dead;    /* tables it frees at commit */
    bool changed_valid;  /* an existing VALID entry changed: the TLB may hold it */
};

/* ---- small helpers ------------------------------------------------------------------------ */

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static unsigned entries_of(const node_t *n)
{
    return n->pt64 ? PT64_ENTRIES : ENTRIES;
}

static uint64_t leaf_bits(unsigned flags)
{
    uint64_t e = GR_GPUVA_PTE_VALID;
    if (flags & GR_GPUVA_WRITABLE)
        e |= GR_GPUVA_PTE_WRITABLE;
    if (flags & GR_GPUVA_SYSTEM)
        e |= GR_GPUVA_PTE_SYSTEM;
    if (flags & GR_GPUVA_CACHEABLE)
        e |= GR_GPUVA_PTE_CACHEABLE;
    return e;
}

static unsigned flags_of_pte(uint64_t e)
{
    return ((e & GR_GPUVA_PTE_WRITABLE) ? GR_GPUVA_WRITABLE : 0u) |
           ((e & GR_GPUVA_PTE_SYSTEM) ? GR_GPUVA_SYSTEM : 0u) |
           ((e & GR_GPUVA_PTE_CACHEABLE) ? GR_GPUVA_CACHEABLE : 0u);
}

static uint64_t table_pte(const node_t *n)
{
    return GR_GPUVA_PTE_VALID | (n->pa & GR_GPUVA_PTE_ADDR_MASK) |
           (n->pt64 ? GR_GPUVA_PTE_PT64 : 0);
}

static unsigned index_at(uint64_t va, unsigned level)
{
    return (unsigned)(va >> (12 + 9 * level)) & (ENTRIES - 1);
}

static gr_status_t list_reserve(node_list_t *l)
{
    if (l->n < l->cap)
        return GR_OK;
    size_t cap = l->cap ? l->cap * 2 : 16;
    node_t **v = realloc(l->v, cap * sizeof(*v));
    if (!v)
        return GR_E_NO_MEMORY;
    l->v = v;
    l->cap = cap;
    return GR_OK;
}

static gr_status_t list_push(node_list_t *l, node_t *n)
{
    gr_status_t rc = list_reserve(l);
    if (rc)
        return rc;
    l->v[l->n++] = n;
    return GR_OK;
}

/* ---- transaction -------------------------------------------------------------------------- */

static void mark_clean(node_t *n)
{
    n->dirty_lo = ENTRIES;
    n->dirty_hi = 0;
    n->written = false;
}

/* A new, empty table (its page is zero, as alloc_pt_page promises). */
static gr_status_t node_new(gr_gpuva_space_t *s, unsigned level, bool pt64, node_t **out)
{
    node_t *n = calloc(1, sizeof(*n));
    if (!n)
        return GR_E_NO_MEMORY;
    gr_status_t rc = list_reserve(&s->fresh);
    if (!rc)
        rc = s->ops.alloc_pt_page(s->user, &n->pa);
    if (rc) {
        free(n);
        return rc;
    }
    if ((n->pa & 0xfff) || n->pa >= PA_LIMIT) {
        s->ops.free_pt_page(s->user, n->pa);
        free(n);
        return GR_E_INVALID;
    }
    n->level = (uint8_t)level;
    n->pt64 = pt64;
    n->in_txn = true;
    n->is_new = true;
    mark_clean(n);
    s->fresh.v[s->fresh.n++] = n;
    s->table_pages++;
    *out = n;
    return GR_OK;
}

static void node_release(gr_gpuva_space_t *s, node_t *n)
{
    s->ops.free_pt_page(s->user, n->pa);
    s->table_pages--;
    free(n->saved_pte);
    free(n->saved_child);
    free(n);
}

/* Saves an existing table before its first change in this transaction. */
static gr_status_t touch(gr_gpuva_space_t *s, node_t *n)
{
    if (n->in_txn)
        return GR_OK;
    gr_status_t rc = list_reserve(&s->touched);
    if (rc)
        return rc;
    n->saved_pte = malloc(sizeof(n->pte));
    n->saved_child = malloc(sizeof(n->child));
    if (!n->saved_pte || !n->saved_child) {
        free(n->saved_pte);
        free(n->saved_child);
        n->saved_pte = NULL;
        n->saved_child = NULL;
        return GR_E_NO_MEMORY;
    }
    memcpy(n->saved_pte, n->pte, sizeof(n->pte));
    memcpy(n->saved_child, n->child, sizeof(n->child));
    n->saved_used = n->used;
    n->in_txn = true;
    mark_clean(n);
    s->touched.v[s->touched.n++] = n;
    return GR_OK;
}

static gr_status_t set_entry(gr_gpuva_space_t *s, node_t *n, unsigned i, uint64_t value,
                             node_t *child)
{
    if (n->pte[i] == value && n->child[i] == child)
        return GR_OK;
    gr_status_t rc = touch(s, n);
    if (rc)
        return rc;
    uint64_t old = n->pte[i];
    if (!n->is_new && (old & GR_GPUVA_PTE_VALID) && old != value)
        s->changed_valid = true;
    if ((old & GR_GPUVA_PTE_VALID) && !(value & GR_GPUVA_PTE_VALID))
        n->used--;
    else if (!(old & GR_GPUVA_PTE_VALID) && (value & GR_GPUVA_PTE_VALID))
        n->used++;
    n->pte[i] = value;
    n->child[i] = child;
    if (i < n->dirty_lo)
        n->dirty_lo = (uint16_t)i;
    if (i + 1 > n->dirty_hi)
        n->dirty_hi = (uint16_t)(i + 1);
    return GR_OK;
}

static gr_status_t mark_dead(gr_gpuva_space_t *s, node_t *n)
{
    gr_status_t rc = list_push(&s->dead, n);
    if (!rc)
        n->dead = true;
    return rc;
}

static gr_status_t flush(gr_gpuva_space_t *s, node_t *n)
{
    if (n->dirty_lo >= n->dirty_hi)
        return GR_OK;
    uint8_t buf[ENTRIES * 8];
    unsigned count = n->dirty_hi - n->dirty_lo;
    for (unsigned i = 0; i < count; i++)
        put_le64(buf + 8 * i, n->pte[n->dirty_lo + i]);
    n->written = true;
    return s->ops.write_vram(s->user, n->pa + 8u * n->dirty_lo, buf, 8u * count);
}

static void txn_reset(gr_gpuva_space_t *s)
{
    s->touched.n = 0;
    s->fresh.n = 0;
    s->dead.n = 0;
    s->changed_valid = false;
}

static void txn_end_node(node_t *n)
{
    free(n->saved_pte);
    free(n->saved_child);
    n->saved_pte = NULL;
    n->saved_child = NULL;
    n->in_txn = false;
    n->is_new = false;
    mark_clean(n);
}

/* Undoes the transaction: the saved tables come back (and go back to VRAM where they were
 * already written), new tables are freed, marked ones stay. */
static void txn_abort(gr_gpuva_space_t *s)
{
    bool any_written = false;
    for (size_t i = 0; i < s->dead.n; i++)
        s->dead.v[i]->dead = false;
    for (size_t i = 0; i < s->touched.n; i++) {
        node_t *n = s->touched.v[i];
        memcpy(n->pte, n->saved_pte, sizeof(n->pte));
        memcpy(n->child, n->saved_child, sizeof(n->child));
        n->used = n->saved_used;
    }
    /* Top down: a pointer to a new table disappears before anything below it changes back. */
    for (int level = 3; level >= 0; level--)
        for (size_t i = 0; i < s->touched.n; i++) {
            node_t *n = s->touched.v[i];
            if (n->level == level && n->written) {
                any_written = true;
                (void)flush(s, n); /* best effort: the call already failed */
            }
        }
    if (any_written) {
        s->invalidates++;
        (void)s->ops.invalidate(s->user);
    }
    for (size_t i = 0; i < s->touched.n; i++)
        txn_end_node(s->touched.v[i]);
    for (size_t i = 0; i < s->fresh.n; i++)
        node_release(s, s->fresh.v[i]);
    txn_reset(s);
}

static gr_status_t txn_commit(gr_gpuva_space_t *s)
{
    gr_status_t rc = GR_OK;
    /* New tables are unreachable until an existing entry points at them: write them first. */
    for (size_t i = 0; !rc && i < s->fresh.n; i++)
        if (!s->fresh.v[i]->dead)
            rc = flush(s, s->fresh.v[i]);
    /* Then the reachable ones: every pointer they gain leads to a table written above. Each
     * entry is one aligned 8-byte store, so a walk sees an entry's old or new value. */
    for (size_t i = 0; !rc && i < s->touched.n; i++)
        if (!s->touched.v[i]->dead)
            rc = flush(s, s->touched.v[i]);
    if (!rc && (s->changed_valid || s->dead.n)) {
        s->invalidates++;
        rc = s->ops.invalidate(s->user);
    }
    if (rc) {
        txn_abort(s);
        return rc;
    }
    for (size_t i = 0; i < s->touched.n; i++)
        txn_end_node(s->touched.v[i]);
    for (size_t i = 0; i < s->fresh.n; i++)
        txn_end_node(s->fresh.v[i]);
    /* Freed only now: after the invalidate no walk or TLB entry can lead into them. */
    for (size_t i = 0; i < s->dead.n; i++)
        node_release(s, s->dead.v[i]);
    txn_reset(s);
    return GR_OK;
}

/* ---- mappings ----------------------------------------------------------------------------- */

/* The first mapping that ends above @p va. */
static size_t first_ending_above(const gr_gpuva_space_t *s, uint64_t va)
{
    size_t lo = 0, hi = s->nmaps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->maps[mid].va + s->maps[mid].size > va)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* [first, end): the mappings making up [va, va+size) exactly, else false. */
static bool whole_mappings(const gr_gpuva_space_t *s, uint64_t va, uint64_t size, size_t *first,
                           size_t *end)
{
    size_t i = first_ending_above(s, va);
    if (i == s->nmaps || s->maps[i].va != va)
        return false;
    uint64_t at = va, stop = va + size;
    size_t j = i;
    while (j < s->nmaps && s->maps[j].va == at && at < stop) {
        at += s->maps[j].size;
        j++;
    }
    if (at != stop)
        return false;
    *first = i;
    *end = j;
    return true;
}

/* ---- one slot ----------------------------------------------------------------------------- */

static enum slot_kind slot_kind(const gr_gpuva_space_t *s, uint64_t base, size_t first,
                                size_t end)
{
    if (first == end)
        return SLOT_EMPTY;
    const mapping_t *m = &s->maps[first];
    if (end - first == 1 && !(m->flags & GR_GPUVA_NO_LARGE_PAGES) && m->va <= base &&
        m->va + m->size >= base + SLOT_SIZE && ((m->pa + (base - m->va)) & (SLOT_SIZE - 1)) == 0)
        return SLOT_LEAF;
    for (size_t i = first; i < end; i++) {
        m = &s->maps[i];
        uint64_t lo = m->va > base ? m->va : base;
        uint64_t hi = m->va + m->size < base + SLOT_SIZE ? m->va + m->size : base + SLOT_SIZE;
        if ((m->flags & GR_GPUVA_NO_LARGE_PAGES) || (lo & (SIZE_64K - 1)) ||
            (hi & (SIZE_64K - 1)) || ((m->pa - m->va) & (SIZE_64K - 1)))
            return SLOT_PT4K;
    }
    return SLOT_PT64;
}

/* The entries a level-0 table of the slot must hold. */
static void slot_entries(const gr_gpuva_space_t *s, uint64_t base, size_t first, size_t end,
                         bool pt64, uint64_t *want)
{
    unsigned shift = pt64 ? 16 : 12;
    uint64_t page = UINT64_C(1) << shift;
    memset(want, 0, ENTRIES * sizeof(*want));
    for (size_t i = first; i < end; i++) {
        const mapping_t *m = &s->maps[i];
        uint64_t lo = m->va > base ? m->va : base;
        uint64_t hi = m->va + m->size < base + SLOT_SIZE ? m->va + m->size : base + SLOT_SIZE;
        uint64_t bits = leaf_bits(m->flags);
        for (uint64_t va = lo; va < hi; va += page)
            want[(va - base) >> shift] = bits | ((m->pa + (va - m->va)) & GR_GPUVA_PTE_ADDR_MASK);
    }
}

static gr_status_t edit_in_place(gr_gpuva_space_t *s, node_t *t, const uint64_t *want)
{
    gr_status_t rc = GR_OK;
    for (unsigned i = 0; !rc && i < entries_of(t); i++)
        if (t->pte[i] != want[i])
            rc = set_entry(s, t, i, want[i], NULL);
    return rc;
}

/* Makes the tables of the 2 MiB slot at @p base say what the mapping list says. */
static gr_status_t reconcile(gr_gpuva_space_t *s, uint64_t base)
{
    size_t first = first_ending_above(s, base), end = first;
    while (end < s->nmaps && s->maps[end].va < base + SLOT_SIZE)
        end++;
    enum slot_kind kind = slot_kind(s, base, first, end);
    unsigned i3 = index_at(base, 3), i2 = index_at(base, 2), i1 = index_at(base, 1);
    node_t *l3 = s->root, *l2 = l3->child[i3], *l1 = l2 ? l2->child[i2] : NULL;
    gr_status_t rc = GR_OK;

    if (kind == SLOT_EMPTY) {
        if (!l1 || !(l1->pte[i1] & GR_GPUVA_PTE_VALID))
            return GR_OK;
        if (l1->child[i1] && (rc = mark_dead(s, l1->child[i1])))
            return rc;
        if ((rc = set_entry(s, l1, i1, 0, NULL)) || l1->used)
            return rc;
        if ((rc = mark_dead(s, l1)) || (rc = set_entry(s, l2, i2, 0, NULL)) || l2->used)
            return rc;
        if ((rc = mark_dead(s, l2)))
            return rc;
        return set_entry(s, l3, i3, 0, NULL);
    }

    if (!l2 && ((rc = node_new(s, 2, false, &l2)) || (rc = set_entry(s, l3, i3, table_pte(l2), l2))))
        return rc;
    if (!l1 && ((rc = node_new(s, 1, false, &l1)) || (rc = set_entry(s, l2, i2, table_pte(l1), l1))))
        return rc;
    node_t *cur = l1->child[i1];

    if (kind == SLOT_LEAF) {
        const mapping_t *m = &s->maps[first];
        uint64_t pa = m->pa + (base - m->va);
        if (cur && (rc = mark_dead(s, cur)))
            return rc;
        return set_entry(s, l1, i1, leaf_bits(m->flags) | GR_GPUVA_PTE_LEAF | pa, NULL);
    }

    bool pt64 = kind == SLOT_PT64;
    uint64_t want[ENTRIES];
    slot_entries(s, base, first, end, pt64, want);
    if (cur && cur->pt64 == pt64)
        return edit_in_place(s, cur, want);

    node_t *t = NULL;
    rc = node_new(s, 0, pt64, &t);
    if (rc == GR_E_NO_MEMORY && cur && !cur->pt64 && pt64) {
        /* Going back to 64 KiB pages is optional: 4 KiB PTEs say the same thing. */
        slot_entries(s, base, first, end, false, want);
        return edit_in_place(s, cur, want);
    }
    if (rc || (rc = edit_in_place(s, t, want)))
        return rc;
    if (cur && (rc = mark_dead(s, cur)))
        return rc;
    /* One 8-byte write switches the slot from the old table (or nothing) to the new one. */
    return set_entry(s, l1, i1, table_pte(t), t);
}

/* Reconciles every slot of [va, va+size) and commits, or aborts on the first failure. */
static gr_status_t apply(gr_gpuva_space_t *s, uint64_t va, uint64_t size)
{
    gr_status_t rc = GR_OK;
    for (uint64_t base = va & ~(SLOT_SIZE - 1); !rc && base < va + size; base += SLOT_SIZE)
        rc = reconcile(s, base);
    if (rc) {
        txn_abort(s);
        return rc;
    }
    return txn_commit(s);
}

/* ---- public calls ------------------------------------------------------------------------- */

gr_status_t gr_gpuva_create(const gr_gpuva_ops_t *ops, void *user, gr_gpuva_space_t **out_space)
{
    if (!ops || !out_space || !ops->alloc_pt_page || !ops->free_pt_page || !ops->write_vram ||
        !ops->invalidate)
        return GR_E_INVALID;
    gr_gpuva_space_t *s = calloc(1, sizeof(*s));
    if (!s)
        return GR_E_NO_MEMORY;
    s->ops = *ops;
    s->user = user;
    gr_status_t rc = node_new(s, 3, false, &s->root);
    if (rc) {
        free(s->fresh.v);
        free(s);
        return rc;
    }
    txn_end_node(s->root);
    txn_reset(s);
    *out_space = s;
    return GR_OK;
}

static void free_tree(gr_gpuva_space_t *s, node_t *n)
{
    if (n->level > 0)
        for (unsigned i = 0; i < ENTRIES; i++)
            if (n->child[i])
                free_tree(s, n->child[i]);
    node_release(s, n);
}

void gr_gpuva_destroy(gr_gpuva_space_t *space)
{
    if (!space)
        return;
    free_tree(space, space->root);
    free(space->maps);
    free(space->touched.v);
    free(space->fresh.v);
    free(space->dead.v);
    free(space);
}

uint64_t gr_gpuva_root(const gr_gpuva_space_t *space)
{
    return space ? space->root->pa : 0;
}

gr_status_t gr_gpuva_map(gr_gpuva_space_t *space, uint64_t va, uint64_t pa, uint64_t size,
                         unsigned flags)
{
    if (!space || !size || ((va | pa | size) & (GR_GPUVA_PAGE_SIZE - 1)) || (flags & ~MAP_FLAGS) ||
        va >= VA_LIMIT || size > VA_LIMIT - va || pa >= PA_LIMIT || size > PA_LIMIT - pa)
        return GR_E_INVALID;
    size_t at = first_ending_above(space, va);
    if (at < space->nmaps && space->maps[at].va < va + size)
        return GR_E_BUSY;
    if (space->nmaps == space->cap_maps) {
        size_t cap = space->cap_maps ? space->cap_maps * 2 : 16;
        mapping_t *m = realloc(space->maps, cap * sizeof(*m));
        if (!m)
            return GR_E_NO_MEMORY;
        space->maps = m;
        space->cap_maps = cap;
    }
    memmove(&space->maps[at + 1], &space->maps[at], (space->nmaps - at) * sizeof(mapping_t));
    space->maps[at] = (mapping_t){.va = va, .size = size, .pa = pa, .flags = flags};
    space->nmaps++;
    gr_status_t rc = apply(space, va, size);
    if (rc) {
        space->nmaps--;
        memmove(&space->maps[at], &space->maps[at + 1], (space->nmaps - at) * sizeof(mapping_t));
    }
    return rc;
}

gr_status_t gr_gpuva_unmap(gr_gpuva_space_t *space, uint64_t va, uint64_t size)
{
    size_t first, end;
    if (!space || !size || !whole_mappings(space, va, size, &first, &end))
        return GR_E_INVALID;
    size_t count = end - first;
    mapping_t *saved = malloc(count * sizeof(*saved));
    if (!saved)
        return GR_E_NO_MEMORY;
    memcpy(saved, &space->maps[first], count * sizeof(*saved));
    memmove(&space->maps[first], &space->maps[end], (space->nmaps - end) * sizeof(mapping_t));
    space->nmaps -= count;
    gr_status_t rc = apply(space, va, size);
    if (rc) {
        memmove(&space->maps[end], &space->maps[first], (space->nmaps - first) * sizeof(mapping_t));
        memcpy(&space->maps[first], saved, count * sizeof(*saved));
        space->nmaps += count;
    }
    free(saved);
    return rc;
}

gr_status_t gr_gpuva_protect(gr_gpuva_space_t *space, uint64_t va, uint64_t size, unsigned flags)
{
    size_t first, end;
    if (!space || !size || (flags & ~PROTECT_FLAGS) || !whole_mappings(space, va, size, &first, &end))
        return GR_E_INVALID;
    size_t count = end - first;
    unsigned *saved = malloc(count * sizeof(*saved));
    if (!saved)
        return GR_E_NO_MEMORY;
    for (size_t i = 0; i < count; i++) {
        mapping_t *m = &space->maps[first + i];
        saved[i] = m->flags;
        m->flags = (m->flags & ~PROTECT_FLAGS) | flags;
    }
    gr_status_t rc = apply(space, va, size);
    if (rc)
        for (size_t i = 0; i < count; i++)
            space->maps[first + i].flags = saved[i];
    free(saved);
    return rc;
}

gr_status_t gr_gpuva_lookup(const gr_gpuva_space_t *space, uint64_t va, uint64_t *out_pa,
                            unsigned *out_flags, unsigned *out_page_shift)
{
    if (!space || va >= VA_LIMIT)
        return GR_E_INVALID;
    const node_t *t = space->root;
    uint64_t e = 0;
    unsigned shift = 12;
    for (unsigned level = 3;; level--) {
        unsigned i = level ? index_at(va, level)
                           : (unsigned)(va >> (t->pt64 ? 16 : 12)) & (entries_of(t) - 1);
        e = t->pte[i];
        if (!(e & GR_GPUVA_PTE_VALID))
            return GR_E_NOT_FOUND;
        if (level == 0) {
            shift = t->pt64 ? 16 : 12;
            break;
        }
        if (level == 1 && (e & GR_GPUVA_PTE_LEAF)) {
            shift = 21;
            break;
        }
        t = t->child[i];
    }
    uint64_t mask = (UINT64_C(1) << shift) - 1;
    if (out_pa)
        *out_pa = (e & GR_GPUVA_PTE_ADDR_MASK & ~mask) | (va & mask);
    if (out_flags)
        *out_flags = flags_of_pte(e);
    if (out_page_shift)
        *out_page_shift = shift;
    return GR_OK;
}

static void count_tree(const node_t *n, gr_gpuva_stats_t *st)
{
    for (unsigned i = 0; i < entries_of(n); i++) {
        uint64_t e = n->pte[i];
        if (!(e & GR_GPUVA_PTE_VALID))
            continue;
        if (n->level == 0)
            (*(n->pt64 ? &st->pages_64k : &st->pages_4k))++;
        else if (n->level == 1 && (e & GR_GPUVA_PTE_LEAF))
            st->pages_2m++;
        else
            count_tree(n->child[i], st);
    }
}

gr_status_t gr_gpuva_stats(const gr_gpuva_space_t *space, gr_gpuva_stats_t *out_stats)
{
    if (!space || !out_stats)
        return GR_E_INVALID;
    gr_gpuva_stats_t st = {.table_pages = space->table_pages,
                           .mappings = space->nmaps,
                           .invalidates = space->invalidates};
    count_tree(space->root, &st);
    *out_stats = st;
    return GR_OK;
}

static gr_status_t check_tree(const gr_gpuva_space_t *s, const node_t *n, uint8_t *want,
                              uint8_t *got)
{
    memset(want, 0, ENTRIES * 8);
    for (unsigned i = 0; i < entries_of(n); i++)
        put_le64(want + 8 * i, n->pte[i]);
    gr_status_t rc = s->ops.read_vram(s->user, n->pa, got, ENTRIES * 8);
    if (rc)
        return rc;
    if (memcmp(want, got, ENTRIES * 8))
        return GR_E_MISMATCH;
    if (n->level > 0)
        for (unsigned i = 0; !rc && i < ENTRIES; i++)
            if (n->child[i])
                rc = check_tree(s, n->child[i], want, got);
    return rc;
}

gr_status_t gr_gpuva_check(const gr_gpuva_space_t *space)
{
    if (!space)
        return GR_E_INVALID;
    if (!space->ops.read_vram)
        return GR_E_UNSUPPORTED;
    uint8_t *buf = malloc(2 * ENTRIES * 8);
    if (!buf)
        return GR_E_NO_MEMORY;
    gr_status_t rc = check_tree(space, space->root, buf, buf + ENTRIES * 8);
    free(buf);
    return rc;
}
