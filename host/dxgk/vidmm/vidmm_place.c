/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_place.c: where an allocation lives, below residency and the allocation API: placement
 * in the segments (the order of segments an allocation may use, the overlay floor, the VPR),
 * page-table pages from the segments' heaps, and the GPU VA mapping of an open (vidmm_gpuva.h)
 * to where its allocation is now, and which pages may still hold what an allocation that left
 * them wrote (stale pages: host/dxgk/README.md, "Stale VRAM"; heap offsets are whole pages,
 * GR_SEG_UNIT). It calls nothing above it: residency (vidmm_residency.c) and the allocation API
 * (vidmm_alloc.c) call down into it. Locking: dxgk_objects.h.
 */
#include "vidmm_place.h"
#include "vidmm_policy.h"
#include "dxgk_objects.h"

#define PAGE UINT64_C(4096)
#define OVERLAY_NUM 4u /* Overlay/Capture live in the last 20%: at or above 4/5 of the segment */
#define OVERLAY_DEN 5u

uint64_t dxgk_alloc_bytes(const dxgk_kalloc_t *ka)
{
    return (ka->info.Size + PAGE - 1) & ~(PAGE - 1);
}

/*
 * GPU virtual addresses (vidmm_gpuva.h). Each open is mapped into its device's address space:
 * writable unless opened read-only, cacheable when Cached, 2 MiB/64 KiB pages unless
 * DisableLargePageMapping. The library picks each 2 MiB slot's page size from all the mappings
 * in it, so one 4 KiB-only mapping would demote its neighbours: every mapping therefore starts
 * its own 2 MiB-aligned VA slot (VA is plentiful: 2^48 bytes), and then gets the largest page
 * its PA alignment and size allow. VAs come from a per-device cursor and are never reused; an
 * open keeps its VA for its life, across evictions (unmapped) and page-ins (mapped again to the
 * new physical address). System-memory allocations (ExistingSysMem, ExistingKernelSysMem) map
 * the caller's memory: SYSTEM PTEs at its host bus address (dxgk_sysmem.c), one contiguous run,
 * so the MMU routes the engine's accesses to m_host.
 */
gr_status_t dxgk_gpuva_map_open(dxgk_open_t *op)
{
    dxgk_kalloc_t *ka = op->ka;
    gr_gpu_device_t *dev = op->device;
    uint64_t pa = ka->vram;
    unsigned flags = 0;
    if (dxgk_caller_backed(ka)) {
        if (!ka->sysmem_buf)
            return GR_OK; /* nothing the device can reach */
        pa = ka->sysmem_bus;
        flags |= GR_GPUVA_SYSTEM;
    }
    const uint64_t size = dxgk_alloc_bytes(ka);
    uint64_t va = op->gpu_va;
    if (!va) {
        const uint64_t slot = UINT64_C(2) << 20;
        uint64_t align = ka->info.Alignment > slot ? ka->info.Alignment : slot;
        va = (dev->va_next + align - 1) & ~(align - 1);
    }
    if (ka->evicted) {
        /* The VA is the open's from now on; nothing answers there until a page-in maps it. */
        if (!op->gpu_va) {
            dev->va_next = va + size;
            op->gpu_va = va;
        }
        return GR_OK;
    }
    if (!op->read_only)
        flags |= GR_GPUVA_WRITABLE;
    if (ka->info.FlagsWddm2.Cached)
        flags |= GR_GPUVA_CACHEABLE;
    if (ka->info.FlagsWddm2.DisableLargePageMapping)
        flags |= GR_GPUVA_NO_LARGE_PAGES;
    gr_status_t rc = gr_gpuva_map(dev->va_space, va, pa, size, flags);
    if (rc)
        return rc;
    if (!op->gpu_va) {
        dev->va_next = va + size;
        op->gpu_va = va;
    }
    op->mapped = true;
    return GR_OK;
}

void dxgk_gpuva_unmap_open(dxgk_open_t *op)
{
    if (op->mapped)
        DXGK_CANNOT_FAIL(gr_gpuva_unmap(op->device->va_space, op->gpu_va, dxgk_alloc_bytes(op->ka)));
    op->mapped = false;
}

/* ---- stale pages (dxgk_segment_t.stale) ---------------------------------------------------- */

static bool stale_get(const dxgk_segment_t *s, uint64_t page)
{
    return (s->stale[page / 64] >> (page % 64)) & 1u;
}

static void stale_set(dxgk_segment_t *s, uint64_t off, uint64_t bytes, bool stale)
{
    if (!s->stale)
        return;
    for (uint64_t p = off / PAGE; p < (off + bytes + PAGE - 1) / PAGE && p < s->size / PAGE; p++) {
        if (stale)
            s->stale[p / 64] |= UINT64_C(1) << (p % 64);
        else
            s->stale[p / 64] &= ~(UINT64_C(1) << (p % 64));
    }
}

bool dxgk_stale_next(gr_adapter_t *ad, const dxgk_kalloc_t *ka, uint64_t *from, uint64_t *out_off,
                     uint64_t *out_len)
{
    if (ka->segment == GR_SEGMENT_SYSTEM)
        return false;
    dxgk_segment_t *s = &ad->seg[ka->segment - 1];
    if (!s->stale)
        return false;
    const uint64_t size = dxgk_alloc_bytes(ka);
    uint64_t at = *from;
    while (at < size && !stale_get(s, (ka->offset + at) / PAGE))
        at += PAGE;
    if (at >= size) {
        *from = size;
        return false;
    }
    uint64_t end = at;
    while (end < size && stale_get(s, (ka->offset + end) / PAGE))
        end += PAGE;
    stale_set(s, ka->offset + at, end - at, false);
    *out_off = at;
    *out_len = end - at;
    *from = end;
    return true;
}

void dxgk_stale_clear(gr_adapter_t *ad, const dxgk_kalloc_t *ka)
{
    if (ka->segment != GR_SEGMENT_SYSTEM)
        stale_set(&ad->seg[ka->segment - 1], ka->offset, dxgk_alloc_bytes(ka), false);
}

/* One page from the heaps, preferring the segment the CPU does not see (vidmm_lock held). */
gr_status_t dxgk_pt_page_alloc_locked(gr_adapter_t *ad, uint64_t *out_pa, bool *out_stale)
{
    for (uint32_t k = ad->nseg; k >= 1; k--) {
        dxgk_segment_t *s = &ad->seg[k - 1];
        uint64_t off = 0;
        if (gr_seg_alloc(s->heap, PAGE, PAGE, 0, GR_SEG_END, 0, &off) == GR_OK) {
            *out_pa = s->base + off;
            if (out_stale)
                *out_stale = stale_get(s, off / PAGE);
            /* Page-table pages are zeroed by their users before use (a stale one). */
            stale_set(s, off, PAGE, false);
            return GR_OK;
        }
    }
    return GR_E_NO_MEMORY;
}

gr_status_t dxgk_pt_page_alloc(gr_adapter_t *ad, uint64_t *out_pa, bool *out_stale)
{
    pthread_mutex_lock(&ad->vidmm_lock);
    gr_status_t rc = dxgk_pt_page_alloc_locked(ad, out_pa, out_stale);
    pthread_mutex_unlock(&ad->vidmm_lock);
    return rc;
}

void dxgk_pt_page_free_locked(gr_adapter_t *ad, uint64_t pa)
{
    for (uint32_t k = 0; k < ad->nseg; k++) {
        dxgk_segment_t *s = &ad->seg[k];
        if (pa >= s->base && pa < s->base + s->size) {
            stale_set(s, pa - s->base, PAGE, true);
            DXGK_CANNOT_FAIL(gr_seg_free(s->heap, pa - s->base));
            break;
        }
    }
}

/* ---- placement ----------------------------------------------------------------------------- */

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

/* The caller's memory is the backing store: no segment space, no copies at lock. */
bool dxgk_flags_caller_backed(DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 fl)
{
    return fl.ExistingSysMem || fl.ExistingKernelSysMem;
}

bool dxgk_caller_backed(const dxgk_kalloc_t *ka)
{
    return dxgk_flags_caller_backed(ka->info.FlagsWddm2);
}

/* Segment ids to try, in order: the preferences VidMm may honour, then the supported set. */
static uint32_t segment_order(const gr_adapter_t *ad, const DXGK_ALLOCATIONINFO *i, uint32_t *ids, bool *topdown)
{
    const DXGK_SEGMENTPREFERENCE *p = &i->PreferredSegment;
    const uint32_t pid[5] = {p->SegmentId0, p->SegmentId1, p->SegmentId2, p->SegmentId3, p->SegmentId4};
    const bool pdir[5] = {p->Direction0, p->Direction1, p->Direction2, p->Direction3, p->Direction4};
    uint32_t set = i->SupportedWriteSegmentSet, n = 0;
    bool seen[GR_ALLOC_MAX_SEGMENTS + 1] = {false};
    for (int k = 0; k < 5; k++) {
        uint32_t id = pid[k];
        if (id == 0 || id > ad->nseg || !(set & (1u << (id - 1))) || seen[id])
            continue;
        seen[id] = true;
        ids[n] = id;
        topdown[n++] = pdir[k];
    }
    for (uint32_t id = 1; id <= ad->nseg; id++)
        if ((set & (1u << (id - 1))) && !seen[id]) {
            ids[n] = id;
            topdown[n++] = false;
        }
    return n;
}

/* The lowest offset an Overlay/Capture allocation may take in a segment. */
static uint64_t overlay_floor(const dxgk_segment_t *s)
{
    return align_up(s->size / OVERLAY_DEN * OVERLAY_NUM, PAGE);
}

bool dxgk_place_window(const gr_adapter_t *ad, const dxgk_kalloc_t *ka, uint32_t segment, uint64_t *lo,
                       uint64_t *hi)
{
    const DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 fl = ka->info.FlagsWddm2;
    if (dxgk_flags_caller_backed(fl) || fl.CreateInVpr || fl.HardwareProtected || fl.Protected || segment == 0 ||
        segment > ad->nseg ||
        !(ka->info.SupportedWriteSegmentSet & (1u << (segment - 1))))
        return false;
    const dxgk_segment_t *s = &ad->seg[segment - 1];
    *lo = (fl.Overlay || fl.Capture) ? overlay_floor(s) : 0;
    *hi = s->size;
    return *lo < *hi;
}

/* Places one allocation (VidMm lock held). GR_E_NO_MEMORY when no allowed segment has room. */
gr_status_t dxgk_place(gr_adapter_t *ad, dxgk_kalloc_t *ka)
{
    const DXGK_ALLOCATIONINFO *i = &ka->info;
    DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 fl = i->FlagsWddm2;
    if (dxgk_flags_caller_backed(fl)) {
        ka->segment = GR_SEGMENT_SYSTEM;
        return GR_OK;
    }
    uint32_t ids[GR_ALLOC_MAX_SEGMENTS];
    bool dir[GR_ALLOC_MAX_SEGMENTS];
    uint32_t n = segment_order(ad, i, ids, dir);
    /* Protected content goes into the VPR too: there the engine faults any copy out of it,
     * whatever the packet lists or names (host/dxgk/README.md, "Protected content"). */
    bool vpr = fl.CreateInVpr || fl.HardwareProtected || fl.Protected;
    uint64_t size = align_up(i->Size, PAGE);
    uint64_t align = i->Alignment ? i->Alignment : PAGE;
    for (uint32_t k = 0; k < n; k++) {
        dxgk_segment_t *s = &ad->seg[ids[k] - 1];
        uint32_t flags = (fl.FromEndOfSegment || dir[k]) ? GR_SEG_TOP_DOWN : 0;
        uint64_t off = 0;
        if (vpr) {
            if (!s->vpr_heap || gr_seg_alloc(s->vpr_heap, size, align, 0, GR_SEG_END, flags, &off))
                continue;
            ka->in_vpr = true;
            off += s->vpr_offset;
        } else if (fl.Overlay || fl.Capture) {
            /* Pinned: never moved or evicted, so the segment lists it apart (GR_SEG_PINNED). */
            uint64_t lo = overlay_floor(s);
            if (lo >= s->size || gr_seg_alloc(s->heap, size, align, lo, GR_SEG_END, flags | GR_SEG_PINNED, &off))
                continue;
        } else {
            /* Ordinary allocations stay below the Overlay/Capture range while they fit there
             * (top-down ones at the top of what is below it), so that the range keeps room for
             * the surfaces that may only live there (vidmm_policy.h; SEGMENT.md, "Placement
             * around pinned ranges"). Room in the range is made by residency
             * (vidmm_residency.c, make_room_for): relocation below the range, else eviction. */
            const gr_vpol_t pol = {.keep_lo = 0, .keep_hi = overlay_floor(s)};
            if (gr_vpol_place(s->heap, &pol, size, align, 0, GR_SEG_END, flags, &off, NULL))
                continue;
        }
        ka->segment = s->id;
        ka->offset = off;
        ka->vram = s->base + off;
        return GR_OK;
    }
    return GR_E_NO_MEMORY;
}

gr_status_t dxgk_place_outside(gr_adapter_t *ad, const dxgk_kalloc_t *ka, uint64_t lo, uint64_t hi, uint64_t *out_off)
{
    uint64_t wlo = 0, whi = 0;
    if (ka->segment == GR_SEGMENT_SYSTEM || ka->in_vpr || !dxgk_place_window(ad, ka, ka->segment, &wlo, &whi))
        return GR_E_NO_MEMORY;
    dxgk_segment_t *s = &ad->seg[ka->segment - 1];
    const uint64_t size = dxgk_alloc_bytes(ka), align = ka->info.Alignment ? ka->info.Alignment : PAGE;
    /* FromEndOfSegment keeps its direction: the high end of the part it goes to. */
    const uint32_t flags = ka->info.FlagsWddm2.FromEndOfSegment ? GR_SEG_HIGH_FIT : 0;
    const uint64_t part[2][2] = {{wlo, whi < lo ? whi : lo}, {wlo > hi ? wlo : hi, whi}};
    for (int k = 0; k < 2; k++) {
        if (part[k][0] >= part[k][1])
            continue;
        uint64_t off = 0;
        if (gr_seg_alloc(s->heap, size, align, part[k][0], part[k][1] == s->size ? GR_SEG_END : part[k][1], flags,
                         &off) == GR_OK) {
            *out_off = off;
            return GR_OK;
        }
    }
    return GR_E_NO_MEMORY;
}

void dxgk_move_to(gr_adapter_t *ad, dxgk_kalloc_t *ka, uint64_t off)
{
    dxgk_segment_t *s = &ad->seg[ka->segment - 1];
    const uint64_t size = dxgk_alloc_bytes(ka);
    stale_set(s, ka->offset, size, true);
    DXGK_CANNOT_FAIL(gr_seg_free(s->heap, ka->offset));
    ka->offset = off;
    ka->vram = s->base + off;
    stale_set(s, off, size, false); /* the copy wrote every page */
}

void dxgk_place_drop(gr_adapter_t *ad, const dxgk_kalloc_t *ka, uint64_t off)
{
    dxgk_segment_t *s = &ad->seg[ka->segment - 1];
    stale_set(s, off, dxgk_alloc_bytes(ka), true);
    DXGK_CANNOT_FAIL(gr_seg_free(s->heap, off));
}

void dxgk_unplace(gr_adapter_t *ad, dxgk_kalloc_t *ka)
{
    if (ka->segment == GR_SEGMENT_SYSTEM)
        return;
    dxgk_segment_t *s = &ad->seg[ka->segment - 1];
    /* What ka wrote stays in VRAM: the next allocation there gets zeroes, not ka's content. */
    stale_set(s, ka->offset, dxgk_alloc_bytes(ka), true);
    if (ka->in_vpr)
        DXGK_CANNOT_FAIL(gr_seg_free(s->vpr_heap, ka->offset - s->vpr_offset));
    else
        DXGK_CANNOT_FAIL(gr_seg_free(s->heap, ka->offset));
    ka->segment = GR_SEGMENT_SYSTEM;
    ka->in_vpr = false;
}
