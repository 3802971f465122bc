/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref_walker.h: a reference GPU MMU translation in plain C, written from the page-table format
 * in rtl/mc/README.md ("Page tables"), not from the RTL. The unit tests of mc_mmu predict every
 * translation through it; so do vidmm_gpuva's tests and the DMA engine's reference model
 * (tb/models/dma_ref).
 */
#ifndef GPUREF_TB_MODELS_MMU_REF_REF_WALKER_H
#define GPUREF_TB_MODELS_MMU_REF_REF_WALKER_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Entry bits (README "Page tables"). */
#define GR_PTE_VALID     (1ull << 0)
#define GR_PTE_WRITABLE  (1ull << 1)
#define GR_PTE_SYSTEM    (1ull << 2)
#define GR_PTE_CACHEABLE (1ull << 3)
#define GR_PTE_LEAF      (1ull << 4)
#define GR_PTE_PT64      (1ull << 5)
#define GR_PTE_ADDR_MASK 0x000ffffffffff000ull /* bits [51:12] */

/** rsp_fault_type_o values. */
enum gr_ref_fault {
    GR_REF_FAULT_NONE = 0,
    GR_REF_FAULT_UNMAPPED = 1,
    GR_REF_FAULT_READ_ONLY = 2,
    GR_REF_FAULT_DECODE = 3,
};

/**
 * Reads one 8-byte page-table entry at VRAM byte address @p addr (8-byte aligned).
 * @param[out] out_value  the entry; untouched on failure
 * @return 0, or non-zero when the bus answers SLVERR/DECERR
 */
typedef int (*gr_ref_read64_fn)(void *ctx, uint64_t addr, uint64_t *out_value);

typedef struct {
    unsigned vram_addr_bits; /**< VRAM byte address bits (mc_mmu VramAddrBits) */
    uint64_t root;           /**< L3 table's VRAM address (root_i); bits [11:0] ignored */
    bool enable;             /**< enable_i */
    gr_ref_read64_fn read64;
    void *ctx;
} gr_ref_mmu_t;

/** What mc_mmu answers for one request, plus the entries a walk reads. */
typedef struct {
    uint64_t pa;         /**< 0 on a fault */
    bool system;
    bool cacheable;
    unsigned page_shift; /**< 12, 16 or 21; 0 on a fault */
    unsigned fault;      /**< enum gr_ref_fault */
    bool have_page;      /**< a page was found (no fault, or only the read-only fault); then: */
    uint64_t page_base;  /**< the page's PA, aligned to its size */
    unsigned page_bits;  /**< log2 of its size: 12, 16 or 21 */
    bool page_writable;  /**< the leaf's WRITABLE, SYSTEM, CACHEABLE */
    bool page_system;
    bool page_cacheable;
    unsigned reads;      /**< entries read by the walk, in order (0 for physical requests) */
    uint64_t read_addr[4];
} gr_ref_result_t;

/**
 * Translates one request as mc_mmu must: physical when @p physical or !mmu->enable, else a
 * walk from mmu->root.
 * @param[out] out  the expected response; always written
 */
void gr_ref_translate(const gr_ref_mmu_t *mmu, uint64_t va, bool write, bool physical,
                      gr_ref_result_t *out);

/** Response fields for a page found (by a walk or a TLB hit): size and write check applied. */
void gr_ref_page_response(uint64_t page_base, unsigned page_shift, bool writable, bool system,
                          bool cacheable, uint64_t va, bool write, gr_ref_result_t *out);

#ifdef __cplusplus
}
#endif

#endif
