/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dxgk_handle.h: handle tables of the OS stand-in (private to host/dxgk).
 *
 * A handle is 32 bits: raw = generation (12 bits) << 20 | (slot index + 1) (20 bits), then
 * h = (raw * mult) ^ salt with a random odd mult and a random salt per table. So:
 *   - 0 is never a handle (a raw value that would mix to 0 skips to the next generation);
 *   - values are not guessable from each other, and a value from another table decodes to a
 *     random slot/generation, which matches a live entry with probability about
 *     live / 2^32 (a handle of another process is rejected, not misread);
 *   - a freed slot goes to the back of a FIFO and is reused only when at least
 *     DXGK_HTAB_MIN_FREE other slots are free, with the next generation: a closed handle stays
 *     stale for at least 4095 reuses of its slot.
 * Each table has its own mutex; lookups return the object pointer, whose lifetime the caller
 * guarantees by other means (the process lock, VidMm's lock).
 */
#ifndef GPUREF_DXGK_HANDLE_H
#define GPUREF_DXGK_HANDLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpuref/gr_status.h"

#define DXGK_HTAB_MAX_SLOTS ((1u << 20) - 1u)
#define DXGK_HTAB_MIN_FREE 64u

typedef struct dxgk_hslot {
    void *obj;
    uint16_t gen;
    uint8_t type; /* 0: free */
    uint32_t next_free;
} dxgk_hslot_t;

typedef struct dxgk_htab {
    pthread_mutex_t lock;
    uint32_t salt, mult, inv_mult;
    dxgk_hslot_t *slots;
    uint32_t cap, used_slots, live;
    uint32_t free_head, free_tail, n_free; /* FIFO through next_free; UINT32_MAX ends it */
} dxgk_htab_t;

/** @return GR_OK, GR_E_NO_MEMORY */
gr_status_t dxgk_htab_init(dxgk_htab_t *t);
void dxgk_htab_fini(dxgk_htab_t *t);
/** type 1..255. @return GR_OK, GR_E_NO_MEMORY (table full or host memory) */
gr_status_t dxgk_htab_insert(dxgk_htab_t *t, uint8_t type, void *obj, uint32_t *out_handle);
/** The object, or NULL for 0, forged, stale or wrong-type handles. */
void *dxgk_htab_lookup(dxgk_htab_t *t, uint32_t handle, uint8_t type);
/** Frees the handle (it becomes stale). @return GR_OK, GR_E_INVALID */
gr_status_t dxgk_htab_remove(dxgk_htab_t *t, uint32_t handle, uint8_t type);
/** Live handles of one type (0: any) into out (up to max); returns how many there are. */
uint32_t dxgk_htab_list(dxgk_htab_t *t, uint8_t type, uint32_t *out, uint32_t max);

#endif
