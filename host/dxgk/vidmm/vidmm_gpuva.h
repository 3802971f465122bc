/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_gpuva.h: the GPU virtual address space of one device in VidMm (private to host/dxgk).
 *
 * Builds and maintains the page tables the RTL MMU walks (rtl/mc/README.md, "Page tables":
 * 48-bit VA, L3/L2/L1/L0 tables of 512 x 64-bit entries, an L1 entry is a 2 MiB page (LEAF), a
 * 512-entry 4 KiB-page table or a 32-entry 64 KiB-page table (PT64)). The library owns neither
 * VRAM nor the device: table pages, VRAM writes and the TLB invalidate go through a
 * gr_gpuva_ops_t (vidmm_gpuva_dev.h implements it over a gr_device_t). A software shadow of
 * every table is kept, so updates never read VRAM.
 *
 * Mappings. gr_gpuva_map() records one mapping [va, va+size) -> [pa, pa+size); unmap and
 * protect take ranges made of whole mappings. Flags are per mapping.
 *
 * Page-size policy. Each 2 MiB L1 slot (VA[47:21]) gets the largest page size that every
 * mapping piece inside it allows, decided from the mappings alone (not from their history):
 *   - 2 MiB (L1 LEAF): one mapping covers the whole slot, its PA for the slot is 2 MiB aligned,
 *     and it lacks GR_GPUVA_NO_LARGE_PAGES;
 *   - 64 KiB (PT64 table): every piece in the slot starts and ends on a 64 KiB VA boundary, its
 *     PA is 64 KiB aligned, and no piece has GR_GPUVA_NO_LARGE_PAGES (pieces may leave holes);
 *   - 4 KiB (L0 table) otherwise.
 * An L1 slot holds one table kind, so a 4 KiB-only piece (misaligned, or NO_LARGE_PAGES) turns
 * the whole slot, including other mappings' 64 KiB pages, into 4 KiB PTEs; when that piece is
 * unmapped the slot becomes a PT64 table again. Such kind changes build a new table, switch the
 * L1 entry in one 8-byte write, invalidate, then free the old table. One exception: if no table
 * page is available for an optional change back to 64 KiB pages during unmap or protect, the
 * slot stays at 4 KiB pages (still correct; unmap never fails for lack of table pages).
 * A PT64 table (256 bytes) takes a whole 4 KiB table page.
 *
 * Updates. Every call that changes tables first plans against the shadow and allocates every
 * table page it needs; only then writes VRAM: new tables first, then existing tables from L0 up
 * to L3, so the MMU never sees a pointer to an unwritten table. The TLB is invalidated when an
 * entry that was VALID changed (a new mapping only turns invalid entries valid, and the MMU
 * never caches faults, so a pure map does not invalidate). Pages of replaced or emptied tables
 * are freed after the invalidate. A failed call restores the shadow and the mapping list, frees
 * the pages it allocated and rewrites (best effort) every entry it had written: the tables are
 * byte-identical to before when the restoring writes succeed.
 *
 * Not thread-safe: VidMm holds the device's page-table lock around every call.
 */
#ifndef GPUREF_DXGK_VIDMM_GPUVA_H
#define GPUREF_DXGK_VIDMM_GPUVA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuref/gr_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GR_API
#define GR_API __attribute__((warn_unused_result))
#endif

/** GPU virtual addresses are 48 bits; physical (VRAM or host bus) addresses 52 bits. */
#define GR_GPUVA_VA_BITS 48
#define GR_GPUVA_PA_BITS 52
/** Table pages and the smallest page are 4 KiB. */
#define GR_GPUVA_PAGE_SIZE UINT64_C(4096)

/** gr_gpuva_map / gr_gpuva_protect / gr_gpuva_lookup flags. */
enum {
    GR_GPUVA_WRITABLE = 1u << 0,        /**< writes allowed (else a write faults: read-only) */
    GR_GPUVA_SYSTEM = 1u << 1,          /**< pa is a host bus address (the MMU routes to m_host) */
    GR_GPUVA_CACHEABLE = 1u << 2,       /**< the access is cacheable (AxCACHE) */
    GR_GPUVA_NO_LARGE_PAGES = 1u << 3,  /**< DisableLargePageMapping: 4 KiB PTEs only (map only) */
};

/** Hardware entry bits (rtl/mc/README.md, "Entry bits"). */
#define GR_GPUVA_PTE_VALID     (UINT64_C(1) << 0)
#define GR_GPUVA_PTE_WRITABLE  (UINT64_C(1) << 1)
#define GR_GPUVA_PTE_SYSTEM    (UINT64_C(1) << 2)
#define GR_GPUVA_PTE_CACHEABLE (UINT64_C(1) << 3)
#define GR_GPUVA_PTE_LEAF      (UINT64_C(1) << 4)
#define GR_GPUVA_PTE_PT64      (UINT64_C(1) << 5)
#define GR_GPUVA_PTE_ADDR_MASK UINT64_C(0x000ffffffffff000) /* bits [51:12] */

/**
 * What the library needs from its owner. Every call gets the `user` given to gr_gpuva_create.
 * Operations returning a status return GR_OK or an error the library passes on unchanged.
 */
typedef struct gr_gpuva_ops {
    /**
     * A 4 KiB VRAM page for one table, 4 KiB aligned, below 2^52, every byte zero.
     * @param[out] out_vram_pa  its VRAM address
     * @return GR_OK, or an error (GR_E_NO_MEMORY: none left) that fails the library's call
     */
    gr_status_t (*alloc_pt_page)(void *user, uint64_t *out_vram_pa);
    /** Gives back a page from alloc_pt_page; the MMU no longer reaches it. */
    void (*free_pt_page)(void *user, uint64_t vram_pa);
    /** Writes bytes of page-table memory at a VRAM address (inside one table page). */
    gr_status_t (*write_vram)(void *user, uint64_t vram_pa, const void *src, size_t bytes);
    /** Optional (NULL allowed): reads back, used only by gr_gpuva_check(). */
    gr_status_t (*read_vram)(void *user, uint64_t vram_pa, void *dst, size_t bytes);
    /** Drops every TLB entry; translations after it walk the tables in VRAM again. */
    gr_status_t (*invalidate)(void *user);
} gr_gpuva_ops_t;

typedef struct gr_gpuva_space gr_gpuva_space_t;

/** Counters of one space (tests and VidMm statistics). */
typedef struct gr_gpuva_stats {
    uint64_t table_pages;   /**< table pages held, the root included */
    uint64_t mappings;      /**< live mappings */
    uint64_t invalidates;   /**< ops->invalidate calls made */
    uint64_t pages_4k;      /**< leaf entries in use, by size */
    uint64_t pages_64k;
    uint64_t pages_2m;
} gr_gpuva_stats_t;

/**
 * Creates an empty address space: allocates its L3 table (all entries invalid).
 * @param ops   copied; alloc_pt_page, free_pt_page, write_vram and invalidate are required
 * @param[out] out_space  untouched on failure
 * @return GR_OK, GR_E_INVALID (NULL argument or missing op; a misaligned page from
 *         alloc_pt_page), GR_E_NO_MEMORY (no table page or host memory), or alloc_pt_page's error
 */
GR_API gr_status_t gr_gpuva_create(const gr_gpuva_ops_t *ops, void *user,
                                   gr_gpuva_space_t **out_space);

/**
 * Frees every table page and the space; NULL is allowed. Writes no VRAM and does not
 * invalidate: turn the MMU away from this root first.
 */
void gr_gpuva_destroy(gr_gpuva_space_t *space);

/** The VRAM address of the L3 table (for MMU_ROOT); fixed for the space's lifetime. */
uint64_t gr_gpuva_root(const gr_gpuva_space_t *space);

/**
 * Maps [va, va+size) to [pa, pa+size) with the page sizes the policy above picks.
 * @param flags  GR_GPUVA_WRITABLE, GR_GPUVA_SYSTEM, GR_GPUVA_CACHEABLE, GR_GPUVA_NO_LARGE_PAGES
 * @return GR_OK; GR_E_INVALID (NULL space, va/pa/size not 4 KiB multiples, zero size, the
 *         range past 2^48 (VA) or 2^52 (PA), unknown flags); GR_E_BUSY (overlaps a mapping);
 *         GR_E_NO_MEMORY (no table page or host memory); an ops error. On failure nothing changed.
 */
GR_API gr_status_t gr_gpuva_map(gr_gpuva_space_t *space, uint64_t va, uint64_t pa, uint64_t size,
                                unsigned flags);

/**
 * Removes the mappings that make up [va, va+size) exactly (one or several adjacent whole
 * mappings); frees tables that become empty; invalidates the TLB.
 * @return GR_OK; GR_E_INVALID (NULL space, zero size, or the range is not exactly a run of
 *         whole mappings: it cuts one or covers a hole); an ops error. On failure nothing changed.
 */
GR_API gr_status_t gr_gpuva_unmap(gr_gpuva_space_t *space, uint64_t va, uint64_t size);

/**
 * Sets WRITABLE and CACHEABLE of the mappings that make up [va, va+size) exactly (as unmap) to
 * those in @p flags; SYSTEM and the page sizes stay. Invalidates when an entry changed.
 * @return GR_OK; GR_E_INVALID (as unmap, or flags other than WRITABLE/CACHEABLE); GR_E_NO_MEMORY
 *         (host memory); an ops error. On failure nothing changed.
 */
GR_API gr_status_t gr_gpuva_protect(gr_gpuva_space_t *space, uint64_t va, uint64_t size,
                                    unsigned flags);

/**
 * Translates one VA by walking the shadow tables, as the MMU walks the VRAM ones.
 * @param[out] out_pa          the PA of @p va (page base | offset); NULL allowed
 * @param[out] out_flags       the leaf's WRITABLE/SYSTEM/CACHEABLE; NULL allowed
 * @param[out] out_page_shift  12, 16 or 21; NULL allowed
 * @return GR_OK, GR_E_INVALID (NULL space, va past 2^48), GR_E_NOT_FOUND (not mapped: the MMU
 *         faults unmapped); outputs untouched on failure
 */
GR_API gr_status_t gr_gpuva_lookup(const gr_gpuva_space_t *space, uint64_t va, uint64_t *out_pa,
                                   unsigned *out_flags, unsigned *out_page_shift);

/** Counters. @param[out] out_stats untouched on failure. @return GR_OK, GR_E_INVALID (NULL) */
GR_API gr_status_t gr_gpuva_stats(const gr_gpuva_space_t *space, gr_gpuva_stats_t *out_stats);

/**
 * Reads every table back through ops->read_vram and compares it with the shadow.
 * @return GR_OK, GR_E_MISMATCH (VRAM differs from the shadow), GR_E_UNSUPPORTED (no read_vram),
 *         GR_E_INVALID (NULL space), GR_E_NO_MEMORY, or read_vram's error
 */
GR_API gr_status_t gr_gpuva_check(const gr_gpuva_space_t *space);

#ifdef __cplusplus
}
#endif

#endif
