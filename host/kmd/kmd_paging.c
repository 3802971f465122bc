/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kmd_paging.c: DxgkDdiBuildPagingBuffer. Encodes VidMm's paging operations as DMA engine
 * commands (host/include/gpuref/gr_dma.h): host-space and VRAM-space addresses only, so a paging
 * buffer does not depend on the MMU or on any page-table root.
 *
 * The DxgkDdiBuildPagingBuffer page: commands go at pDmaBuffer, which is advanced past them (and
 * DmaSize reduced). When the rest does not fit, what fits is written, MultipassOffset keeps the
 * progress, and STATUS_GRAPHICS_INSUFFICIENT_DMA_BUFFER asks for a new buffer; the OS calls again
 * with the same operation. Every argument is checked before the first byte is written.
 */
#include <string.h>

#include "kmd_dma.h"

static kmd_alloc_t *alloc_from(kmd_adapter_t *a, HANDLE h)
{
    kmd_alloc_t *k = h;
    return k && k->magic == KMD_MAGIC_ALLOC && k->adapter == a ? k : NULL;
}

/* Moves the caller's pointers past what was written; MultipassOffset is the progress so far. */
static NTSTATUS finish(DXGKARG_BUILDPAGINGBUFFER *b, const gr_dma_writer_t *w, bool complete,
                       UINT progress)
{
    b->pDmaBuffer = (uint8_t *)b->pDmaBuffer + w->used;
    b->DmaSize -= (UINT)w->used;
    if (complete) {
        b->MultipassOffset = 0;
        return STATUS_SUCCESS;
    }
    b->MultipassOffset = progress;
    return STATUS_GRAPHICS_INSUFFICIENT_DMA_BUFFER;
}

static bool buffer_ok(const DXGKARG_BUILDPAGINGBUFFER *b)
{
    return b->pDmaBuffer && (uintptr_t)b->pDmaBuffer % 8 == 0;
}

/* ---- TRANSFER ------------------------------------------------------------------------------ */

/* One side of a transfer: a VRAM range, or system pages named by an MDL. */
typedef struct xfer_side {
    bool mdl;
    uint64_t vram;          /* segment side: VRAM address of byte 0 */
    const PFN_NUMBER *pfn;  /* MDL side: the frame of byte 0's page (MdlOffset applied) */
} xfer_side_t;

static NTSTATUS side_init(kmd_adapter_t *a, UINT segment_id, LARGE_INTEGER segment_address,
                          const MDL *mdl, UINT transfer_offset, UINT mdl_offset, uint64_t bytes,
                          xfer_side_t *out)
{
    memset(out, 0, sizeof *out);
    if (segment_id == 0) {
        /* System pages of an allocation are whole pages: the MDL starts at a page boundary. */
        if (!mdl || MmGetMdlByteOffset(mdl) != 0)
            return STATUS_INVALID_PARAMETER;
        uint64_t pages = ((uint64_t)MmGetMdlByteCount(mdl) + KMD_PAGE - 1) / KMD_PAGE;
        uint64_t need = (bytes + KMD_PAGE - 1) / KMD_PAGE;
        if ((uint64_t)mdl_offset > pages || need > pages - mdl_offset)
            return STATUS_INVALID_PARAMETER;
        out->mdl = true;
        out->pfn = MmGetMdlPfnArray(mdl) + mdl_offset;
        return STATUS_SUCCESS;
    }
    /* TransferOffset applies to the segment side only (DXGKARG_BUILDPAGINGBUFFER page). */
    uint64_t addr = (uint64_t)segment_address.QuadPart + transfer_offset;
    if (segment_address.QuadPart < 0 || addr % 8 || !kmd_in_segment(a, segment_id, addr, bytes))
        return STATUS_INVALID_PARAMETER;
    out->vram = addr;
    return STATUS_SUCCESS;
}

static enum gr_dma_space side_space(const xfer_side_t *s)
{
    return s->mdl ? GR_DMA_SPACE_HOST : GR_DMA_SPACE_VRAM;
}

static uint64_t side_addr(const xfer_side_t *s, uint64_t off)
{
    if (!s->mdl)
        return s->vram + off;
    return ((uint64_t)s->pfn[off / KMD_PAGE] << 12) + off % KMD_PAGE;
}

/* Bytes from off that are contiguous on this side (consecutive frames merge). */
static uint64_t side_run(const xfer_side_t *s, uint64_t off, uint64_t limit)
{
    if (!s->mdl)
        return limit;
    uint64_t page = off / KMD_PAGE;
    uint64_t run = KMD_PAGE - off % KMD_PAGE;
    while (run < limit && s->pfn[page + 1] == s->pfn[page] + 1) {
        page++;
        run += KMD_PAGE;
    }
    return run < limit ? run : limit;
}

static NTSTATUS build_transfer(kmd_adapter_t *a, DXGKARG_BUILDPAGINGBUFFER *b)
{
    /* gpuref reports no swizzling ranges, so there is nothing to swizzle. */
    if (b->Transfer.Flags.Swizzle || b->Transfer.Flags.Unswizzle || b->Transfer.Flags.Reserved)
        return STATUS_INVALID_PARAMETER;
    if (b->Transfer.hAllocation && !alloc_from(a, b->Transfer.hAllocation))
        return STATUS_INVALID_PARAMETER;
    const uint64_t size = b->Transfer.TransferSize;
    if (size % 8 || size / 8 > UINT32_MAX)
        return STATUS_INVALID_PARAMETER;
    xfer_side_t src, dst;
    NTSTATUS st = side_init(a, b->Transfer.Source.SegmentId, b->Transfer.Source.SegmentAddress,
                            b->Transfer.Source.pMdl, b->Transfer.TransferOffset, b->Transfer.MdlOffset,
                            size, &src);
    if (!st)
        st = side_init(a, b->Transfer.Destination.SegmentId, b->Transfer.Destination.SegmentAddress,
                       b->Transfer.Destination.pMdl, b->Transfer.TransferOffset, b->Transfer.MdlOffset,
                       size, &dst);
    if (st)
        return st;
    uint64_t done = (uint64_t)b->MultipassOffset * 8;
    if (done > size)
        return STATUS_INVALID_PARAMETER;
    if (size && !buffer_ok(b))
        return STATUS_INVALID_PARAMETER;

    /* Overlapping VRAM ranges (an allocation moving inside its segment): chunks no longer than
     * the distance, copied in the direction that never reads a byte already overwritten. */
    uint64_t cap = KMD_PAGING_CHUNK;
    bool backward = false;
    if (!src.mdl && !dst.mdl) {
        if (src.vram == dst.vram)
            done = size; /* onto itself: nothing moves */
        uint64_t dist = src.vram > dst.vram ? src.vram - dst.vram : dst.vram - src.vram;
        if (dist && dist < size) {
            cap = dist < cap ? dist : cap;
            backward = dst.vram > src.vram;
        }
    }
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, b->pDmaBuffer, size ? b->DmaSize : 0);
    while (done < size) {
        uint64_t left = size - done;
        uint64_t chunk = left < cap ? left : cap;
        uint64_t off;
        if (backward) {
            off = size - done - chunk;
        } else {
            off = done;
            chunk = side_run(&src, off, chunk);
            chunk = side_run(&dst, off, chunk);
        }
        if (gr_dma_copy(&w, side_space(&src), side_addr(&src, off), side_space(&dst), side_addr(&dst, off),
                        chunk))
            break;
        done += chunk;
    }
    return finish(b, &w, done == size, (UINT)(done / 8));
}

/* ---- FILL ---------------------------------------------------------------------------------- */

static NTSTATUS build_fill(kmd_adapter_t *a, DXGKARG_BUILDPAGINGBUFFER *b)
{
    if (b->Fill.hAllocation && !alloc_from(a, b->Fill.hAllocation))
        return STATUS_INVALID_PARAMETER;
    const uint64_t size = b->Fill.FillSize;
    const uint64_t addr = (uint64_t)b->Fill.Destination.SegmentAddress.QuadPart;
    /* VidMm fills memory segments only (DxgkDdiBuildPagingBuffer page). */
    if (size % 8 || size / 8 > UINT32_MAX || addr % 8 ||
        b->Fill.Destination.SegmentAddress.QuadPart < 0 ||
        !kmd_in_segment(a, b->Fill.Destination.SegmentId, addr, size))
        return STATUS_INVALID_PARAMETER;
    uint64_t done = (uint64_t)b->MultipassOffset * 8;
    if (done > size || (size && !buffer_ok(b)))
        return STATUS_INVALID_PARAMETER;
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, b->pDmaBuffer, size ? b->DmaSize : 0);
    while (done < size) {
        uint64_t chunk = size - done < KMD_PAGING_CHUNK ? size - done : KMD_PAGING_CHUNK;
        if (gr_dma_fill(&w, GR_DMA_SPACE_VRAM, addr + done, chunk, b->Fill.FillPattern))
            break;
        done += chunk;
    }
    return finish(b, &w, done == size, (UINT)(done / 8));
}

/* ---- UPDATE_PAGE_TABLE ----------------------------------------------------------------------- */

/* DXGK_PTE (what VidMm means) to the MMU's entry at a table level (what the hardware walks). */
static NTSTATUS encode_pte(kmd_adapter_t *a, UINT level, bool pt64, const DXGK_PTE *pte, uint64_t *out)
{
    if (!pte->Valid) {
        *out = 0;
        return STATUS_SUCCESS;
    }
    if (pte->Zero)
        return STATUS_NOT_SUPPORTED; /* the MMU has no zero pages */
    if (pte->PhysicalAdapterIndex || pte->SystemReserved0 || pte->Reserved)
        return STATUS_INVALID_PARAMETER;
    if (pte->PageAddress >> 40)
        return STATUS_INVALID_PARAMETER; /* physical addresses are 52 bits */
    const bool leaf = level == 0 || (level == 1 && pte->LargePage);
    if (pte->LargePage && level != 1)
        return STATUS_INVALID_PARAMETER; /* only an L1 entry can map a 2 MiB page */
    uint64_t page = leaf ? (level == 1 ? 2u * 1024 * 1024 : (pt64 ? 64u * 1024 : KMD_PAGE)) : KMD_PAGE;
    uint64_t pa = pte->PageAddress << 12;
    uint64_t e = KMD_PTE_VALID;
    if (pte->Segment == 0) {
        /* System memory: PageAddress is the page's bus address. Tables are always in VRAM. */
        if (!leaf)
            return STATUS_INVALID_PARAMETER;
        e |= KMD_PTE_SYSTEM;
    } else {
        uint64_t base = 0, size = 0;
        if (!kmd_segment_range(a, pte->Segment, &base, &size) || pa >= size || page > size - pa)
            return STATUS_INVALID_PARAMETER;
        pa += base;
    }
    if (pa % page)
        return STATUS_INVALID_PARAMETER;
    if (leaf) {
        if (!pte->ReadOnly)
            e |= KMD_PTE_WRITABLE;
        if (pte->CacheCoherent)
            e |= KMD_PTE_CACHEABLE;
        if (level == 1)
            e |= KMD_PTE_LEAF;
    } else if (level == 1) {
        if (pte->PageTablePageSize == DXGK_PTE_PAGE_TABLE_PAGE_64KB)
            e |= KMD_PTE_PT64;
        else if (pte->PageTablePageSize != DXGK_PTE_PAGE_TABLE_PAGE_4KB)
            return STATUS_INVALID_PARAMETER;
    }
    *out = e | (pa & KMD_PTE_ADDR_MASK);
    return STATUS_SUCCESS;
}

static NTSTATUS build_update_page_table(kmd_adapter_t *a, DXGKARG_BUILDPAGINGBUFFER *b)
{
    const DXGK_BUILDPAGINGBUFFER_UPDATEPAGETABLE *u = &b->UpdatePageTable;
    /* The engine writes page tables by physical address; it has no CPU-visible page tables. */
    if (u->UpdateMode != DXGK_PAGETABLEUPDATE_GPU_PHYSICAL || u->Flags.NativeFence)
        return STATUS_NOT_SUPPORTED;
    if (u->Flags.Reserved || u->Reserved0 || u->PageTableLevel > 3 ||
        (u->Flags.Use64KBPages && u->PageTableLevel != 0))
        return STATUS_INVALID_PARAMETER;
    const bool pt64 = u->Flags.Use64KBPages;
    const uint32_t entries = pt64 ? KMD_PT64_ENTRIES : KMD_PT_ENTRIES;
    const D3DGPU_PHYSICAL_ADDRESS *tpa = &u->PageTableAddress.GpuPhysical;
    uint64_t base = 0, seg_size = 0;
    if (!kmd_segment_range(a, tpa->SegmentId, &base, &seg_size) || tpa->SegmentOffset % KMD_PAGE ||
        tpa->SegmentOffset >= seg_size || seg_size - tpa->SegmentOffset < (uint64_t)entries * 8)
        return STATUS_INVALID_PARAMETER;
    const uint64_t table = base + tpa->SegmentOffset;
    const uint32_t n = u->NumPageTableEntries;
    if (!u->pPageTableEntries || n == 0 || u->StartIndex >= entries || n > entries - u->StartIndex)
        return STATUS_INVALID_PARAMETER;
    const bool repeat = u->Flags.Repeat;
    for (uint32_t i = 0; i < (repeat ? 1u : n); i++) {
        uint64_t v = 0;
        NTSTATUS st = encode_pte(a, u->PageTableLevel, pt64, &u->pPageTableEntries[i], &v);
        if (st)
            return st;
    }
    uint32_t done = b->MultipassOffset;
    if (done > n || !buffer_ok(b))
        return STATUS_INVALID_PARAMETER;

    /* The last 8 bytes stay for the TLB_INVALIDATE that ends the operation. */
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, b->pDmaBuffer, b->DmaSize >= 8 ? b->DmaSize - 8 : 0);
    const uint64_t first = table + (uint64_t)u->StartIndex * 8;
    if (repeat) {
        /* One store, then copies that double the written run (never overlapping). */
        uint64_t v = 0;
        (void)encode_pte(a, u->PageTableLevel, pt64, &u->pPageTableEntries[0], &v);
        if (done == 0 && !gr_dma_fence(&w, GR_DMA_SPACE_VRAM, first, v, 0))
            done = 1;
        while (done && done < n) {
            uint32_t k = done < n - done ? done : n - done;
            if (gr_dma_copy(&w, GR_DMA_SPACE_VRAM, first, GR_DMA_SPACE_VRAM, first + (uint64_t)done * 8,
                            (uint64_t)k * 8))
                break;
            done += k;
        }
    } else {
        /* A FENCE command with a VRAM destination is the engine's 64-bit store. */
        for (; done < n; done++) {
            uint64_t v = 0;
            (void)encode_pte(a, u->PageTableLevel, pt64, &u->pPageTableEntries[done], &v);
            if (gr_dma_fence(&w, GR_DMA_SPACE_VRAM, first + (uint64_t)done * 8, v, 0))
                break;
        }
    }
    if (done == n && b->DmaSize >= 8) {
        w.capacity += 8;
        w.overflow = 0;
        (void)gr_dma_tlb_invalidate(&w);
        return finish(b, &w, true, 0);
    }
    return finish(b, &w, false, done);
}

/* ---- the rest ------------------------------------------------------------------------------ */

static NTSTATUS build_flush_tlb(DXGKARG_BUILDPAGINGBUFFER *b)
{
    if (!buffer_ok(b))
        return STATUS_INVALID_PARAMETER;
    /* The TLB holds one address space: dropping it all covers any range of any process. */
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, b->pDmaBuffer, b->DmaSize);
    bool ok = gr_dma_tlb_invalidate(&w) == 0;
    return finish(b, &w, ok, 0);
}

static NTSTATUS check_discard(kmd_adapter_t *a, const DXGKARG_BUILDPAGINGBUFFER *b)
{
    const LONGLONG addr = b->DiscardContent.SegmentAddress.QuadPart;
    if (b->DiscardContent.Flags.Reserved ||
        (b->DiscardContent.hAllocation && !alloc_from(a, b->DiscardContent.hAllocation)) || addr < 0 ||
        !kmd_in_segment(a, b->DiscardContent.SegmentId, (uint64_t)addr, 0))
        return STATUS_INVALID_PARAMETER;
    /* Nothing to write: no hardware state follows an allocation's content. */
    return STATUS_SUCCESS;
}

static NTSTATUS notify_residency(kmd_adapter_t *a, const DXGKARG_BUILDPAGINGBUFFER *b)
{
    const DXGK_BUILDPAGINGBUFFER_NOTIFYRESIDENCY *n = &b->NotifyResidency;
    kmd_alloc_t *k = alloc_from(a, n->hAllocation);
    /* Issued only for ExplicitResidencyNotification allocations (the operation's page). */
    if (!k || !(k->priv.flags & GR_ALLOC_PRIV_EXPLICIT_RESIDENCY))
        return STATUS_INVALID_PARAMETER;
    if (n->Resident) {
        uint64_t base = 0, size = 0;
        if (!kmd_segment_range(a, n->PhysicalAddress.SegmentId, &base, &size) ||
            n->PhysicalAddress.SegmentOffset >= size)
            return STATUS_INVALID_PARAMETER;
        atomic_store(&k->resident_addr, base + n->PhysicalAddress.SegmentOffset);
        atomic_store(&k->resident, true);
    } else {
        /* Eviction carries the invalid address (0, 0). */
        if (n->PhysicalAddress.SegmentId || n->PhysicalAddress.SegmentOffset)
            return STATUS_INVALID_PARAMETER;
        atomic_store(&k->resident, false);
        atomic_store(&k->resident_addr, 0);
    }
    return STATUS_SUCCESS;
}

NTSTATUS APIENTRY DxgkDdiBuildPagingBuffer(IN_CONST_HANDLE hAdapter, IN_PDXGKARG_BUILDPAGINGBUFFER b)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    if (!a || !b)
        return STATUS_INVALID_PARAMETER;
    gr_link_mark(a->link, "DxgkDdiBuildPagingBuffer operation=%d", (int)b->Operation);
    switch (b->Operation) {
    case DXGK_OPERATION_TRANSFER:
        return build_transfer(a, b);
    case DXGK_OPERATION_FILL:
        return build_fill(a, b);
    case DXGK_OPERATION_DISCARD_CONTENT:
        return check_discard(a, b);
    case DXGK_OPERATION_UPDATE_PAGE_TABLE:
        return build_update_page_table(a, b);
    case DXGK_OPERATION_FLUSH_TLB:
        return build_flush_tlb(b);
    case DXGK_OPERATION_NOTIFY_RESIDENCY:
        return notify_residency(a, b);
    case DXGK_OPERATION_MAP_APERTURE_SEGMENT:
    case DXGK_OPERATION_UNMAP_APERTURE_SEGMENT:
        /* No segment gpuref reports is an aperture segment (no GART to program). */
        return STATUS_INVALID_PARAMETER;
    default:
        return STATUS_NOT_SUPPORTED;
    }
}

NTSTATUS gr_kmd_alloc_residency(HANDLE hAdapter, HANDLE hAllocation, int *out_resident,
                                uint64_t *out_vram_addr)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    kmd_alloc_t *k = a ? alloc_from(a, hAllocation) : NULL;
    if (!k || !out_resident || !out_vram_addr)
        return STATUS_INVALID_PARAMETER;
    *out_resident = atomic_load(&k->resident);
    *out_vram_addr = atomic_load(&k->resident_addr);
    return STATUS_SUCCESS;
}
