/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_alloc.h: the one interface every allocator under test is driven through (bench/alloc).
 * Units are 4 KiB pages throughout. A backend keeps its own handle per trace id.
 */
#ifndef GPUREF_BENCH_ALLOC_H
#define GPUREF_BENCH_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** One allocation request of the trace. */
typedef struct bench_req {
    uint64_t pages; /**< size */
    uint64_t align; /**< alignment, a power of two */
    uint64_t lo;    /**< the block must start at or above lo ... */
    uint64_t hi;    /**< ... and end at or below hi; [0, segment) when unrestricted */
    bool ranged;    /**< lo/hi restrict the placement (Overlay/Capture, VPR) */
    bool top_down;  /**< FromEndOfSegment */
} bench_req_t;

typedef void (*bench_range_fn)(void *ctx, uint64_t start, uint64_t pages);
/** A backend moved trace id's block (pages long) to start (a relocation; content copied). */
typedef void (*bench_move_fn)(void *ctx, uint32_t id, uint64_t start, uint64_t pages);

/** What a backend does. Every call is made with the allocator's lock held, as VidMm would. */
typedef struct bench_backend {
    const char *name;
    /** Creates an allocator over [0, seg_pages) that can hold handles for ids < max_ids. */
    void *(*create)(uint64_t seg_pages, uint32_t max_ids);
    void (*destroy)(void *b);
    /**
     * Allocates for trace id `id`. On success *out_start is the first page of a contiguous
     * block, or UINT64_MAX when the backend hands out scattered blocks.
     */
    bool (*alloc)(void *b, uint32_t id, const bench_req_t *r, uint64_t *out_start);
    /** Frees what id holds (only called for ids whose alloc succeeded). */
    void (*free)(void *b, uint32_t id);
    /** Reports every free range (any order; adjacent ranges may be reported separately). */
    void (*free_ranges)(void *b, bench_range_fn fn, void *ctx);
    /** Optional (NULL for allocators that never move a block): where moves are reported,
     *  during the alloc call that makes them. */
    void (*set_mover)(void *b, bench_move_fn fn, void *ctx);
    /** Optional: verifies the allocator's own invariants (called between operations, untimed,
     *  in the detailed run); false when one is broken. */
    bool (*check)(void *b);
} bench_backend_t;

/**
 * Writes one byte in every page of [p, p + bytes), so that a backend's arrays (by trace id) are
 * mapped at create time, not by a page fault inside a timed operation (calloc of a large array
 * hands out untouched pages).
 */
void bench_touch(void *p, size_t bytes);

extern const bench_backend_t bench_gpuref;
extern const bench_backend_t bench_drm_mm;
extern const bench_backend_t bench_drm_buddy;
extern const bench_backend_t bench_drm_buddy_scatter;

#endif
