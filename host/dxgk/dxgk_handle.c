/* SPDX-License-Identifier: Apache-2.0 */
/* dxgk_handle.c: handle tables (see dxgk_handle.h). */
#include "dxgk_handle.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#define GEN_BITS 12u
#define GEN_MASK ((1u << GEN_BITS) - 1u)
#define INDEX_BITS 20u
#define END UINT32_MAX

static uint32_t random32(void)
{
    uint32_t v = 0;
    if (getrandom(&v, sizeof v, GRND_NONBLOCK) == (ssize_t)sizeof v)
        return v;
    /* No entropy available: still different per table and per run. */
    static _Atomic uint32_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    v = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec * 2654435761u ^ (counter++ * 0x9e3779b9u);
    v ^= v >> 16;
    v *= 0x85ebca6bu;
    v ^= v >> 13;
    return v;
}

/* Inverse of an odd number modulo 2^32 (Newton: each step doubles the correct bits). */
static uint32_t inverse_odd(uint32_t a)
{
    uint32_t x = a;
    for (int i = 0; i < 5; i++)
        x *= 2u - a * x;
    return x;
}

static uint32_t encode(const dxgk_htab_t *t, uint32_t index, uint32_t gen)
{
    uint32_t raw = (gen << INDEX_BITS) | (index + 1u);
    return (raw * t->mult) ^ t->salt;
}

gr_status_t dxgk_htab_init(dxgk_htab_t *t)
{
    memset(t, 0, sizeof *t);
    if (pthread_mutex_init(&t->lock, NULL))
        return GR_E_NO_MEMORY;
    t->salt = random32();
    t->mult = random32() | 1u;
    t->inv_mult = inverse_odd(t->mult);
    t->free_head = t->free_tail = END;
    return GR_OK;
}

void dxgk_htab_fini(dxgk_htab_t *t)
{
    free(t->slots);
    pthread_mutex_destroy(&t->lock);
    memset(t, 0, sizeof *t);
}

static bool take_slot(dxgk_htab_t *t, uint32_t *out_index)
{
    if (t->n_free > DXGK_HTAB_MIN_FREE || (t->used_slots == t->cap && t->cap == DXGK_HTAB_MAX_SLOTS && t->n_free)) {
        uint32_t i = t->free_head;
        t->free_head = t->slots[i].next_free;
        if (t->free_head == END)
            t->free_tail = END;
        t->n_free--;
        *out_index = i;
        return true;
    }
    if (t->used_slots == t->cap) {
        if (t->cap == DXGK_HTAB_MAX_SLOTS)
            return false;
        uint32_t ncap = t->cap ? t->cap * 2 : 64;
        if (ncap > DXGK_HTAB_MAX_SLOTS)
            ncap = DXGK_HTAB_MAX_SLOTS;
        dxgk_hslot_t *n = realloc(t->slots, (size_t)ncap * sizeof *n);
        if (!n)
            return false;
        memset(n + t->cap, 0, (size_t)(ncap - t->cap) * sizeof *n);
        t->slots = n;
        t->cap = ncap;
    }
    uint32_t i = t->used_slots++;
    /* A fresh slot starts at a random generation, so handle values do not start in a row. */
    t->slots[i].gen = (uint16_t)(random32() & GEN_MASK);
    *out_index = i;
    return true;
}

gr_status_t dxgk_htab_insert(dxgk_htab_t *t, uint8_t type, void *obj, uint32_t *out_handle)
{
    if (type == 0)
        return GR_E_INVALID;
    pthread_mutex_lock(&t->lock);
    uint32_t i;
    if (!take_slot(t, &i)) {
        pthread_mutex_unlock(&t->lock);
        return GR_E_NO_MEMORY;
    }
    dxgk_hslot_t *s = &t->slots[i];
    if (encode(t, i, s->gen) == 0)
        s->gen = (uint16_t)((s->gen + 1u) & GEN_MASK);
    s->obj = obj;
    s->type = type;
    t->live++;
    *out_handle = encode(t, i, s->gen);
    pthread_mutex_unlock(&t->lock);
    return GR_OK;
}

/* The slot a live handle names, or NULL. Caller holds the lock. */
static dxgk_hslot_t *find(dxgk_htab_t *t, uint32_t h, uint8_t type, uint32_t *out_index)
{
    if (h == 0)
        return NULL;
    uint32_t raw = (h ^ t->salt) * t->inv_mult;
    uint32_t idx1 = raw & ((1u << INDEX_BITS) - 1u), gen = raw >> INDEX_BITS;
    if (idx1 == 0 || idx1 > t->used_slots)
        return NULL;
    dxgk_hslot_t *s = &t->slots[idx1 - 1];
    if (s->type == 0 || s->gen != gen || (type && s->type != type))
        return NULL;
    *out_index = idx1 - 1;
    return s;
}

void *dxgk_htab_lookup(dxgk_htab_t *t, uint32_t handle, uint8_t type)
{
    pthread_mutex_lock(&t->lock);
    uint32_t i;
    dxgk_hslot_t *s = find(t, handle, type, &i);
    void *obj = s ? s->obj : NULL;
    pthread_mutex_unlock(&t->lock);
    return obj;
}

gr_status_t dxgk_htab_remove(dxgk_htab_t *t, uint32_t handle, uint8_t type)
{
    pthread_mutex_lock(&t->lock);
    uint32_t i;
    dxgk_hslot_t *s = find(t, handle, type, &i);
    if (!s) {
        pthread_mutex_unlock(&t->lock);
        return GR_E_INVALID;
    }
    s->obj = NULL;
    s->type = 0;
    s->gen = (uint16_t)((s->gen + 1u) & GEN_MASK);
    s->next_free = END;
    if (t->free_tail == END)
        t->free_head = i;
    else
        t->slots[t->free_tail].next_free = i;
    t->free_tail = i;
    t->n_free++;
    t->live--;
    pthread_mutex_unlock(&t->lock);
    return GR_OK;
}

uint32_t dxgk_htab_list(dxgk_htab_t *t, uint8_t type, uint32_t *out, uint32_t max)
{
    pthread_mutex_lock(&t->lock);
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->used_slots; i++) {
        const dxgk_hslot_t *s = &t->slots[i];
        if (s->type == 0 || (type && s->type != type))
            continue;
        if (n < max)
            out[n] = encode(t, i, s->gen);
        n++;
    }
    pthread_mutex_unlock(&t->lock);
    return n;
}
