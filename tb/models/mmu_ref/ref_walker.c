/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref_walker.c: the reference translation (see ref_walker.h). Follows rtl/mc/README.md, "Page
 * tables", rule by rule; the comments quote the rule each step implements.
 */
#include "ref_walker.h"

#include <string.h>

static uint64_t low_mask(unsigned bits)
{
    return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

/* "An address at or above 2^VramAddrBits lies beyond VRAM." */
static bool beyond_vram(const gr_ref_mmu_t *mmu, uint64_t addr)
{
    return (addr & ~low_mask(mmu->vram_addr_bits)) != 0;
}

static void fault(gr_ref_result_t *out, unsigned type)
{
    out->fault = type;
    out->pa = 0;
    out->system = false;
    out->cacheable = false;
    out->page_shift = 0;
}

void gr_ref_page_response(uint64_t page_base, unsigned page_shift, bool writable, bool system,
                          bool cacheable, uint64_t va, bool write, gr_ref_result_t *out)
{
    out->have_page = true;
    out->page_base = page_base & ~low_mask(page_shift);
    out->page_bits = page_shift;
    out->page_writable = writable;
    out->page_system = system;
    out->page_cacheable = cacheable;
    /* "A write to a page whose leaf has WRITABLE clear faults: write to read-only." */
    if (write && !writable) {
        fault(out, GR_REF_FAULT_READ_ONLY);
        return;
    }
    out->fault = GR_REF_FAULT_NONE;
    out->pa = (page_base & ~low_mask(page_shift)) | (va & low_mask(page_shift));
    out->system = system;
    out->cacheable = cacheable;
    out->page_shift = page_shift;
}

/* One entry read; false (and the decode fault) when the bus answers an error. */
static bool read_entry(const gr_ref_mmu_t *mmu, uint64_t table, unsigned index,
                       gr_ref_result_t *out, uint64_t *entry)
{
    uint64_t addr = table + (uint64_t)index * 8;
    out->read_addr[out->reads++] = addr;
    if (mmu->read64(mmu->ctx, addr, entry) != 0) {
        /* "A read answered SLVERR or DECERR: decode error." */
        fault(out, GR_REF_FAULT_DECODE);
        return false;
    }
    return true;
}

void gr_ref_translate(const gr_ref_mmu_t *mmu, uint64_t va, bool write, bool physical,
                      gr_ref_result_t *out)
{
    memset(out, 0, sizeof(*out));
    va &= low_mask(48);

    /* "Physical: PA = VA[VramAddrBits-1:0], system 0, cacheable 0, page shift 12." */
    if (physical || !mmu->enable) {
        out->pa = va & low_mask(mmu->vram_addr_bits);
        out->page_shift = 12;
        return;
    }

    /* "L3 index VA[47:39], L2 VA[38:30], L1 VA[29:21], L0 VA[20:12]"; the L3 table at root. */
    uint64_t table = mmu->root & low_mask(mmu->vram_addr_bits) & ~0xfffull;
    uint64_t entry = 0;
    for (int level = 3; level >= 1; level--) {
        unsigned index = (unsigned)(va >> (12 + 9 * level)) & 511;
        if (!read_entry(mmu, table, index, out, &entry))
            return;
        if (!(entry & GR_PTE_VALID)) {
            fault(out, GR_REF_FAULT_UNMAPPED);
            return;
        }
        if (entry & GR_PTE_LEAF) {
            /* "L3/L2 entries with LEAF set are invalid (fault: unmapped)." */
            if (level > 1) {
                fault(out, GR_REF_FAULT_UNMAPPED);
                return;
            }
            /* "LEAF in an L1 entry: a 2 MiB page, low bits of the address field ignored." */
            uint64_t base = entry & GR_PTE_ADDR_MASK & ~low_mask(21);
            if (!(entry & GR_PTE_SYSTEM) && beyond_vram(mmu, base)) {
                fault(out, GR_REF_FAULT_DECODE);
                return;
            }
            gr_ref_page_response(base, 21, entry & GR_PTE_WRITABLE, entry & GR_PTE_SYSTEM,
                                 entry & GR_PTE_CACHEABLE, va, write, out);
            return;
        }
        /* "Non-leaf entries: VALID and the address of the next table", which lies in VRAM. */
        uint64_t next = entry & GR_PTE_ADDR_MASK;
        if (beyond_vram(mmu, next)) {
            fault(out, GR_REF_FAULT_DECODE);
            return;
        }
        table = next;
    }

    /* Level 0: "PT64 (only in an L1 non-leaf entry): a 64 KiB-page table of 32 entries indexed
     * by VA[20:16]", else a 4 KiB-page table indexed by VA[20:12]. LEAF/PT64 are ignored here. */
    bool pt64 = (entry & GR_PTE_PT64) != 0;
    unsigned shift = pt64 ? 16 : 12;
    unsigned index = (unsigned)(va >> shift) & (pt64 ? 31 : 511);
    if (!read_entry(mmu, table, index, out, &entry))
        return;
    if (!(entry & GR_PTE_VALID)) {
        fault(out, GR_REF_FAULT_UNMAPPED);
        return;
    }
    uint64_t base = entry & GR_PTE_ADDR_MASK & ~low_mask(shift);
    if (!(entry & GR_PTE_SYSTEM) && beyond_vram(mmu, base)) {
        fault(out, GR_REF_FAULT_DECODE);
        return;
    }
    gr_ref_page_response(base, shift, entry & GR_PTE_WRITABLE, entry & GR_PTE_SYSTEM,
                         entry & GR_PTE_CACHEABLE, va, write, out);
}
