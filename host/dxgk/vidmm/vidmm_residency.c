/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_residency.c: VidMm's residency and eviction (vidmm_residency.h; README.md,
 * "Residency").
 *
 *   evict:   GPU VAs unmapped in every device (a stray access faults from here on)
 *            -> paging buffer: NOTIFY_RESIDENCY(0) when asked for, then TRANSFER segment -> MDL
 *               of the backing store (or of the PermanentSysMem copy when the GPU wrote it), or
 *               DISCARD_CONTENT (a clean PermanentSysMem allocation: its copy is the truth)
 *            -> VidSch's paging queue, wait for the fences -> segment space given back.
 *   relocate (room in a part of a segment, e.g. the Overlay/Capture range): a place outside the
 *            part -> VAs unmapped -> paging buffer: TRANSFER segment -> segment, then
 *            NOTIFY_RESIDENCY(1, new address) -> wait -> old space given back, VAs mapped again.
 *   page in: segment space (relocating or evicting least-recently-used others if needed)
 *            -> paging buffer: TRANSFER MDL -> segment, then NOTIFY_RESIDENCY(1, new address)
 *            -> wait -> GPU VAs mapped again (same VAs, new physical address) -> store freed.
 * A failed paging buffer (lost in a TDR, refused) undoes the step: the allocation stays where
 * it was, with its mappings and its notification as before.
 *
 * The order of NOTIFY_RESIDENCY around the transfer is the one its page gives ("issued before
 * TransferVirtual operation when the allocation is evicted", "after ... TransferVirtual
 * operations when the allocation is committed").
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dxgk_ddi.h"
#include "dxgk_handle.h"
#include "dxgk_kernel.h"
#include "dxgk_objects.h"
#include "gr_broker.h"
#include "gr_link.h"
#include "vidmm_packet.h"
#include "vidmm_place.h"
#include "vidmm_residency.h"
#include "vidsch_paging.h"

#define PAGE UINT64_C(4096)
#define TEST_RESERVE_MAX 64u
/* A submission waits this long (wall time) for packets in flight to give memory back before it
 * fails with GR_E_NO_MEMORY: hung packets are reset by VidSch long before. */
#define BUSY_WAIT_NS 2000000L
#define BUSY_WAIT_ROUNDS 15000u

/* The objects dxgk_objects.h holds as opaque pointers: an evicted allocation's backing store
 * (dxgk_kalloc_t.store) and the adapter's residency state (gr_adapter.res). */
typedef struct dxgk_store dxgk_store_t;
typedef struct dxgk_res dxgk_res_t;

struct dxgk_store {
    gr_dma_buf_t mem; /* host memory from the link: the engine reaches it at mem.bus */
};

struct dxgk_res {
    pthread_mutex_t lock;
    dxgk_kalloc_t *head; /* tracked allocations (VRAM ones, until they die) */
    uint64_t tick;       /* LRU clock */
    /* Page-table pages kept aside (vidmm_lock). */
    uint64_t pt[DXGK_RES_PT_RESERVE_MAX];
    bool pt_zero[DXGK_RES_PT_RESERVE_MAX]; /* zeroed by the engine since it was taken */
    uint32_t pt_n;
    atomic_uint_fast64_t evictions, discards, page_ins, bytes_out, bytes_in, packets, failures, evicted_now,
        bytes_zeroed, relocations, bytes_relocated;
    /* Tests. */
    uint32_t test_buffer_bytes;
    struct {
        uint32_t segment;
        uint64_t offset;
    } test_reserved[TEST_RESERVE_MAX];
    uint32_t test_reserved_n;
};

/* ---- life ---------------------------------------------------------------------------------------- */

gr_status_t dxgk_res_init(gr_adapter_t *ad)
{
    dxgk_res_t *r = calloc(1, sizeof *r);
    if (!r)
        return GR_E_NO_MEMORY;
    if (pthread_mutex_init(&r->lock, NULL)) {
        free(r);
        return GR_E_NO_MEMORY;
    }
    ad->res = r;
    /* VRAM is empty: the reserve is taken before anything can fill it. */
    dxgk_res_lock(ad);
    dxgk_res_reserve_pt(ad, DXGK_RES_PT_RESERVE);
    dxgk_res_unlock(ad);
    return GR_OK;
}

void dxgk_res_fini(gr_adapter_t *ad)
{
    dxgk_res_t *r = ad ? ad->res : NULL;
    if (!r)
        return;
    /* The reserve and the test blocks live in the heaps, which go with the segments. */
    pthread_mutex_destroy(&r->lock);
    free(r);
    ad->res = NULL;
}

void dxgk_res_lock(gr_adapter_t *ad)
{
    pthread_mutex_lock(&ad->res->lock);
}

void dxgk_res_unlock(gr_adapter_t *ad)
{
    pthread_mutex_unlock(&ad->res->lock);
}

/* Whether VidMm can evict at all (an engine and a paging buffer size). */
static bool dxgk_res_paging(gr_adapter_t *ad)
{
    return dxgk_vidsch_paging_ready(ad);
}

/* ---- states and pins ------------------------------------------------------------------------------ */

uint32_t dxgk_res_state(const dxgk_kalloc_t *ka)
{
    if (dxgk_caller_backed(ka))
        return GR_RESIDENCY_SYSTEM;
    return ka->evicted ? GR_RESIDENCY_EVICTED : GR_RESIDENCY_RESIDENT;
}

uint32_t dxgk_res_pin_reasons(gr_adapter_t *ad, const dxgk_kalloc_t *ka)
{
    const DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 fl = ka->info.FlagsWddm2;
    uint32_t why = 0;
    if (fl.Overlay || fl.Capture)
        why |= GR_PIN_OVERLAY; /* docs/architecture.md: "pinned, never evicted" */
    /* The hardware faults a copy out of the VPR, and protected content must never leave it. */
    if (ka->in_vpr || fl.CreateInVpr || fl.HardwareProtected || fl.Protected)
        why |= GR_PIN_PROTECTED;
    if (ka->locker)
        why |= GR_PIN_LOCKED;
    if (dxgk_caller_backed(ka))
        why |= GR_PIN_SYSTEM;
    if (ka->res_pins || dxgk_vidsch_gpu_refs(ad, ka))
        why |= GR_PIN_GPU;
    if (!dxgk_res_paging(ad))
        why |= GR_PIN_NO_PAGING;
    return why;
}

void dxgk_res_touch(gr_adapter_t *ad, dxgk_kalloc_t *ka)
{
    ka->last_use = ++ad->res->tick;
}

/* ---- host memory: backing stores, PermanentSysMem copies, MDLs ----------------------------------- */

static gr_status_t link_alloc(gr_adapter_t *ad, uint64_t bytes, gr_dma_buf_t *out)
{
    if (!(gr_link_caps(ad->link) & GR_LINK_CAP_DMA))
        return GR_E_UNSUPPORTED;
    pthread_mutex_lock(&ad->link_lock);
    int rc = gr_link_dma_alloc(ad->link, (size_t)bytes, out);
    pthread_mutex_unlock(&ad->link_lock);
    if (rc)
        return rc == GR_E_INVALID ? GR_E_NO_MEMORY : (gr_status_t)rc;
    /* The MDL names whole pages: the memory must start on one, on both sides. */
    if ((uintptr_t)out->cpu % PAGE || out->bus % PAGE) {
        pthread_mutex_lock(&ad->link_lock);
        (void)gr_link_dma_free(ad->link, out);
        pthread_mutex_unlock(&ad->link_lock);
        return GR_E_MISMATCH;
    }
    return GR_OK;
}

static void link_free(gr_adapter_t *ad, gr_dma_buf_t *m)
{
    if (!m->bytes)
        return;
    pthread_mutex_lock(&ad->link_lock);
    (void)gr_link_dma_free(ad->link, m);
    pthread_mutex_unlock(&ad->link_lock);
    memset(m, 0, sizeof *m);
}

static gr_status_t store_alloc(gr_adapter_t *ad, uint64_t bytes, dxgk_store_t **out)
{
    dxgk_store_t *s = calloc(1, sizeof *s);
    if (!s)
        return GR_E_NO_MEMORY;
    gr_status_t rc = link_alloc(ad, bytes, &s->mem);
    if (rc) {
        free(s);
        return rc;
    }
    *out = s;
    return GR_OK;
}

static void store_free(gr_adapter_t *ad, dxgk_store_t *s)
{
    if (!s)
        return;
    link_free(ad, &s->mem);
    free(s);
}

gr_status_t dxgk_res_sys_copy_alloc(gr_adapter_t *ad, dxgk_kalloc_t *ka, uint64_t bytes)
{
    gr_status_t rc = link_alloc(ad, bytes, &ka->sys_copy_mem);
    if (rc == GR_OK) {
        ka->sys_copy = ka->sys_copy_mem.cpu;
        ka->sys_copy_bus = ka->sys_copy_mem.bus;
    } else if (rc == GR_E_UNSUPPORTED) {
        /* No device-reachable memory: nothing is ever paged, the copy serves the CPU alone. */
        memset(&ka->sys_copy_mem, 0, sizeof ka->sys_copy_mem);
        ka->sys_copy = aligned_alloc(PAGE, bytes);
        ka->sys_copy_bus = 0;
        if (!ka->sys_copy)
            return GR_E_NO_MEMORY;
    } else {
        return rc;
    }
    memset(ka->sys_copy, 0, bytes);
    return GR_OK;
}

void dxgk_res_sys_copy_free(gr_adapter_t *ad, dxgk_kalloc_t *ka)
{
    if (ka->sys_copy_mem.bytes)
        link_free(ad, &ka->sys_copy_mem);
    else
        free(ka->sys_copy);
    ka->sys_copy = NULL;
    ka->sys_copy_bus = 0;
}

/*
 * An MDL (d3dkmddi.h: the WDM layout, then the page-frame array) for [off, off+len) of host
 * memory at cpu/bus: ByteOffset 0, one frame per page, each the page's bus address >> 12.
 */
static MDL *mdl_make(void *cpu, uint64_t bus, uint64_t off, uint64_t len)
{
    const uint64_t pages = len / PAGE;
    const size_t bytes = sizeof(MDL) + (size_t)pages * sizeof(PFN_NUMBER);
    _Static_assert(sizeof(MDL) + (DXGK_RES_TRANSFER_CHUNK / 4096) * sizeof(PFN_NUMBER) <= 32767, "MDL.Size is a SHORT");
    MDL *m = calloc(1, bytes);
    if (!m)
        return NULL;
    m->Size = (SHORT)bytes;
    m->StartVa = (uint8_t *)cpu + off;
    m->MappedSystemVa = m->StartVa;
    m->ByteCount = (ULONG)len;
    m->ByteOffset = 0;
    PFN_NUMBER *pfn = MmGetMdlPfnArray(m);
    for (uint64_t i = 0; i < pages; i++)
        pfn[i] = (PFN_NUMBER)((bus + off) / PAGE + i);
    return m;
}

/* ---- paging jobs: operations built into paging buffers, run on the engine ----------------------- */

typedef struct pg_job {
    gr_adapter_t *ad;
    dxgk_paging_job_t job;
    dxgk_pgbuf_t *buf; /* being filled */
    uint32_t used;     /* bytes written into buf */
} pg_job_t;

static void job_init(pg_job_t *j, gr_adapter_t *ad)
{
    memset(j, 0, sizeof *j);
    j->ad = ad;
}

/* The buffer being filled goes to the engine (an empty one back to the pool). */
static gr_status_t job_flush(pg_job_t *j)
{
    dxgk_pgbuf_t *b = j->buf;
    uint32_t used = j->used;
    j->buf = NULL;
    j->used = 0;
    if (!b)
        return GR_OK;
    if (used == 0) {
        dxgk_vidsch_paging_put(j->ad, b);
        return GR_OK;
    }
    gr_status_t rc = dxgk_vidsch_paging_submit(j->ad, &j->job, b, used);
    if (!rc)
        atomic_fetch_add(&j->ad->res->packets, 1);
    return rc;
}

/* Submits what is left and waits for every packet of the job. */
static gr_status_t job_finish(pg_job_t *j)
{
    gr_status_t rc = job_flush(j);
    gr_status_t w = j->job.outstanding ? dxgk_vidsch_paging_wait(j->ad, &j->job) : j->job.status;
    return rc ? rc : w;
}

static gr_status_t status_of(NTSTATUS st)
{
    gr_status_t rc = dxgk_status_from_nt(st);
    return rc == GR_OK ? GR_E_IO : rc;
}

/*
 * One paging operation (DxgkDdiBuildPagingBuffer page): commands are appended to the buffer being
 * filled; STATUS_GRAPHICS_INSUFFICIENT_DMA_BUFFER means the rest did not fit: the buffer goes to
 * the engine and the call is made again with a new one and the same arguments, MultipassOffset as
 * the miniport left it.
 */
static gr_status_t job_op(pg_job_t *j, DXGKARG_BUILDPAGINGBUFFER *a)
{
    gr_adapter_t *ad = j->ad;
    a->MultipassOffset = 0;
    for (;;) {
        if (!j->buf) {
            gr_status_t rc = dxgk_vidsch_paging_get(ad, &j->buf);
            if (rc)
                return rc;
            j->used = 0;
        }
        uint32_t cap = j->buf->size;
        if (ad->res->test_buffer_bytes && ad->res->test_buffer_bytes < cap)
            cap = ad->res->test_buffer_bytes;
        const uint32_t room = cap > j->used ? cap - j->used : 0;
        uint8_t *at = (uint8_t *)j->buf->cpu + j->used;
        a->pDmaBuffer = at;
        a->DmaSize = room;
        a->pDmaBufferPrivateData = j->buf->priv;
        a->DmaBufferPrivateDataSize = j->buf->priv_size;
        NTSTATUS st = dxgk_call_build_paging_buffer(ad, a);
        const uint64_t wrote = (uint64_t)((uint8_t *)a->pDmaBuffer - at);
        if (wrote > room || a->DmaSize != room - wrote || wrote % 8)
            return GR_E_MISMATCH; /* the miniport broke the page's contract */
        j->used += (uint32_t)wrote;
        if (st == STATUS_SUCCESS)
            return GR_OK;
        if (st != STATUS_GRAPHICS_INSUFFICIENT_DMA_BUFFER)
            return status_of(st);
        if (j->used == 0)
            return GR_E_NO_MEMORY; /* not even an empty buffer holds one command */
        gr_status_t rc = job_flush(j);
        if (rc)
            return rc;
    }
}

/* Resident at offset of ka's segment, or (resident false) evicted. */
static gr_status_t job_notify_at(pg_job_t *j, const dxgk_kalloc_t *ka, bool resident, uint64_t offset)
{
    if (!ka->info.FlagsWddm2.ExplicitResidencyNotification)
        return GR_OK;
    DXGKARG_BUILDPAGINGBUFFER a;
    memset(&a, 0, sizeof a);
    a.Operation = DXGK_OPERATION_NOTIFY_RESIDENCY;
    a.NotifyResidency.hAllocation = ka->info.hAllocation;
    if (resident) {
        a.NotifyResidency.PhysicalAddress.SegmentId = ka->segment;
        a.NotifyResidency.PhysicalAddress.SegmentOffset = offset;
        a.NotifyResidency.Resident = 1;
    } /* else (0, 0): "invalid and is used when the allocation is being evicted" */
    return job_op(j, &a);
}

static gr_status_t job_notify(pg_job_t *j, const dxgk_kalloc_t *ka, bool resident)
{
    return job_notify_at(j, ka, resident, ka->offset);
}

/*
 * The same notification outside a job (at creation, and to undo one): it writes no command,
 * so a small buffer of the caller's serves. Its failure changes nothing VidMm relies on.
 */
static void notify_now(gr_adapter_t *ad, const dxgk_kalloc_t *ka, bool resident)
{
    if (!ka->info.FlagsWddm2.ExplicitResidencyNotification)
        return;
    uint64_t scratch[8];
    DXGKARG_BUILDPAGINGBUFFER a;
    memset(&a, 0, sizeof a);
    a.pDmaBuffer = scratch;
    a.DmaSize = sizeof scratch;
    a.Operation = DXGK_OPERATION_NOTIFY_RESIDENCY;
    a.NotifyResidency.hAllocation = ka->info.hAllocation;
    if (resident) {
        a.NotifyResidency.PhysicalAddress.SegmentId = ka->segment;
        a.NotifyResidency.PhysicalAddress.SegmentOffset = ka->offset;
        a.NotifyResidency.Resident = 1;
    }
    (void)dxgk_call_build_paging_buffer(ad, &a);
}

/*
 * Content between the allocation's segment range and host memory at cpu/bus, one TRANSFER per
 * DXGK_RES_TRANSFER_CHUNK, each in its own paging packet (bounded run time; the MDL describes
 * the chunk, TransferOffset places it in the allocation).
 */
static gr_status_t job_transfer(pg_job_t *j, const dxgk_kalloc_t *ka, void *cpu, uint64_t bus, bool to_vram)
{
    const uint64_t size = dxgk_alloc_bytes(ka);
    for (uint64_t off = 0; off < size; off += DXGK_RES_TRANSFER_CHUNK) {
        const uint64_t len = size - off < DXGK_RES_TRANSFER_CHUNK ? size - off : DXGK_RES_TRANSFER_CHUNK;
        MDL *m = mdl_make(cpu, bus, off, len);
        if (!m)
            return GR_E_NO_MEMORY;
        DXGKARG_BUILDPAGINGBUFFER a;
        memset(&a, 0, sizeof a);
        a.Operation = DXGK_OPERATION_TRANSFER;
        a.Transfer.hAllocation = ka->info.hAllocation;
        a.Transfer.TransferOffset = (UINT)off;
        a.Transfer.TransferSize = (SIZE_T)len;
        if (to_vram) {
            a.Transfer.Source.SegmentId = 0;
            a.Transfer.Source.pMdl = m;
            a.Transfer.Destination.SegmentId = ka->segment;
            a.Transfer.Destination.SegmentAddress.QuadPart = (LONGLONG)ka->vram;
        } else {
            a.Transfer.Source.SegmentId = ka->segment;
            a.Transfer.Source.SegmentAddress.QuadPart = (LONGLONG)ka->vram;
            a.Transfer.Destination.SegmentId = 0;
            a.Transfer.Destination.pMdl = m;
        }
        a.Transfer.Flags.AllocationIsIdle = 1; /* no packet in flight lists it */
        a.Transfer.Flags.TransferStart = off == 0;
        a.Transfer.Flags.TransferEnd = off + len == size;
        a.Transfer.MdlOffset = 0;
        gr_status_t rc = job_op(j, &a);
        if (!rc)
            rc = job_flush(j);
        /* The commands hold bus addresses: the MDL is not needed once the operation is built. */
        free(m);
        if (rc)
            return rc;
    }
    return GR_OK;
}

/*
 * ka's content from where it is to byte offset `to` of its segment, one VRAM -> VRAM TRANSFER per
 * DXGK_RES_TRANSFER_CHUNK, each in its own paging packet (the ranges never overlap: the new place
 * was free while the old one was held).
 */
static gr_status_t job_move(pg_job_t *j, const dxgk_kalloc_t *ka, uint64_t to_vram)
{
    const uint64_t size = dxgk_alloc_bytes(ka);
    for (uint64_t off = 0; off < size; off += DXGK_RES_TRANSFER_CHUNK) {
        const uint64_t len = size - off < DXGK_RES_TRANSFER_CHUNK ? size - off : DXGK_RES_TRANSFER_CHUNK;
        DXGKARG_BUILDPAGINGBUFFER a;
        memset(&a, 0, sizeof a);
        a.Operation = DXGK_OPERATION_TRANSFER;
        a.Transfer.hAllocation = ka->info.hAllocation;
        a.Transfer.TransferOffset = (UINT)off;
        a.Transfer.TransferSize = (SIZE_T)len;
        a.Transfer.Source.SegmentId = ka->segment;
        a.Transfer.Source.SegmentAddress.QuadPart = (LONGLONG)ka->vram;
        a.Transfer.Destination.SegmentId = ka->segment;
        a.Transfer.Destination.SegmentAddress.QuadPart = (LONGLONG)to_vram;
        a.Transfer.Flags.AllocationIsIdle = 1;
        a.Transfer.Flags.TransferStart = off == 0;
        a.Transfer.Flags.TransferEnd = off + len == size;
        gr_status_t rc = job_op(j, &a);
        if (!rc)
            rc = job_flush(j);
        if (rc)
            return rc;
    }
    return GR_OK;
}

static gr_status_t job_discard(pg_job_t *j, const dxgk_kalloc_t *ka)
{
    DXGKARG_BUILDPAGINGBUFFER a;
    memset(&a, 0, sizeof a);
    a.Operation = DXGK_OPERATION_DISCARD_CONTENT;
    a.DiscardContent.hAllocation = ka->info.hAllocation;
    a.DiscardContent.Flags.AllocationIsIdle = 1;
    a.DiscardContent.SegmentId = ka->segment;
    a.DiscardContent.SegmentAddress.QuadPart = (LONGLONG)ka->vram;
    return job_op(j, &a);
}

/* FILL with 0 over bytes of the allocation from off, one operation per DXGK_RES_TRANSFER_CHUNK,
 * each in its own paging packet (bounded run time, as transfers). */
static gr_status_t job_zero(pg_job_t *j, const dxgk_kalloc_t *ka, uint64_t off, uint64_t bytes)
{
    for (uint64_t done = 0; done < bytes; done += DXGK_RES_TRANSFER_CHUNK) {
        const uint64_t len = bytes - done < DXGK_RES_TRANSFER_CHUNK ? bytes - done : DXGK_RES_TRANSFER_CHUNK;
        DXGKARG_BUILDPAGINGBUFFER a;
        memset(&a, 0, sizeof a);
        a.Operation = DXGK_OPERATION_FILL;
        a.Fill.hAllocation = ka->info.hAllocation;
        a.Fill.FillSize = (SIZE_T)len;
        a.Fill.FillPattern = 0;
        a.Fill.Destination.SegmentId = ka->segment;
        a.Fill.Destination.SegmentAddress.QuadPart = (LONGLONG)(ka->vram + off + done);
        gr_status_t rc = job_op(j, &a);
        if (!rc)
            rc = job_flush(j);
        if (rc)
            return rc;
    }
    return GR_OK;
}

/* The segment id and FILL of one page-table page (hAllocation NULL: a segment address). */
static gr_status_t job_zero_pt(pg_job_t *j, uint64_t pa)
{
    gr_adapter_t *ad = j->ad;
    uint32_t seg = 0;
    for (uint32_t k = 0; k < ad->nseg && !seg; k++)
        if (pa >= ad->seg[k].base && pa - ad->seg[k].base < ad->seg[k].size)
            seg = k + 1;
    if (!seg)
        return GR_E_INVALID;
    DXGKARG_BUILDPAGINGBUFFER a;
    memset(&a, 0, sizeof a);
    a.Operation = DXGK_OPERATION_FILL;
    a.Fill.hAllocation = NULL;
    a.Fill.FillSize = (SIZE_T)PAGE;
    a.Fill.FillPattern = 0;
    a.Fill.Destination.SegmentId = seg;
    a.Fill.Destination.SegmentAddress.QuadPart = (LONGLONG)pa;
    return job_op(j, &a);
}

/* FILLs for the reserve's pages not zeroed yet, into j; their addresses into out (n at most). */
static uint32_t job_zero_reserve(pg_job_t *j, uint64_t *out, uint32_t n, gr_status_t *inout_rc)
{
    dxgk_res_t *r = j->ad->res;
    uint32_t k = 0;
    pthread_mutex_lock(&j->ad->vidmm_lock);
    for (uint32_t i = 0; i < r->pt_n && k < n; i++)
        if (!r->pt_zero[i])
            out[k++] = r->pt[i];
    pthread_mutex_unlock(&j->ad->vidmm_lock);
    for (uint32_t i = 0; i < k && !*inout_rc; i++)
        *inout_rc = job_zero_pt(j, out[i]);
    return k;
}

static void reserve_mark_zeroed(gr_adapter_t *ad, const uint64_t *pas, uint32_t n)
{
    dxgk_res_t *r = ad->res;
    pthread_mutex_lock(&ad->vidmm_lock);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t m = 0; m < r->pt_n; m++)
            if (r->pt[m] == pas[i])
                r->pt_zero[m] = true;
    pthread_mutex_unlock(&ad->vidmm_lock);
}

/* ---- GPU VAs of every open ---------------------------------------------------------------------- */

static void unmap_all(dxgk_kalloc_t *ka)
{
    for (dxgk_open_t *op = ka->opens; op; op = op->ka_next)
        dxgk_gpuva_unmap_open(op);
}

static gr_status_t map_all(dxgk_kalloc_t *ka)
{
    for (dxgk_open_t *op = ka->opens; op; op = op->ka_next) {
        gr_status_t rc = dxgk_gpuva_map_open(op);
        if (rc) {
            unmap_all(ka);
            return rc;
        }
    }
    return GR_OK;
}

static uint32_t open_count(const dxgk_kalloc_t *ka)
{
    uint32_t n = 0;
    for (const dxgk_open_t *op = ka->opens; op; op = op->ka_next)
        n++;
    return n;
}

/* ---- evict, page in ------------------------------------------------------------------------------ */

static bool is_permanent_sysmem(const dxgk_kalloc_t *ka)
{
    return ka->info.FlagsWddm2.PermanentSysMem && ka->sys_copy_mem.bytes;
}

/* Evicts a resident, unpinned allocation (residency lock held). */
static gr_status_t evict(gr_adapter_t *ad, dxgk_kalloc_t *ka)
{
    dxgk_res_t *r = ad->res;
    const uint64_t size = dxgk_alloc_bytes(ka);
    const bool pms = is_permanent_sysmem(ka);
    const bool discard = pms && !ka->dirty;
    dxgk_store_t *st = NULL;
    if (!pms) {
        gr_status_t rc = store_alloc(ad, size, &st);
        if (rc)
            return rc;
    }
    void *cpu = pms ? ka->sys_copy : st->mem.cpu;
    const uint64_t bus = pms ? ka->sys_copy_bus : st->mem.bus;

    /* From here an access through any GPU VA of it faults (the TLB is invalidated). */
    unmap_all(ka);
    pg_job_t j;
    job_init(&j, ad);
    gr_status_t rc = job_notify(&j, ka, false);
    if (!rc)
        rc = discard ? job_discard(&j, ka) : job_transfer(&j, ka, cpu, bus, false);
    gr_status_t w = job_finish(&j);
    if (!rc)
        rc = w;
    if (rc) {
        /* The content never left VRAM: the allocation stays, mapped and notified as before. */
        gr_status_t m = map_all(ka);
        (void)m; /* table pages come from the reserve; a failure leaves its VAs faulting */
        notify_now(ad, ka, true);
        store_free(ad, st);
        atomic_fetch_add(&r->failures, 1);
        return rc;
    }
    pthread_mutex_lock(&ad->vidmm_lock);
    dxgk_unplace(ad, ka);
    ka->offset = 0;
    ka->vram = 0;
    pthread_mutex_unlock(&ad->vidmm_lock);
    ka->evicted = true;
    ka->store = st;
    ka->dirty = false;
    atomic_fetch_add(&r->evictions, 1);
    atomic_fetch_add(&r->evicted_now, 1);
    if (discard)
        atomic_fetch_add(&r->discards, 1);
    else
        atomic_fetch_add(&r->bytes_out, size);
    return GR_OK;
}

/*
 * Moves a resident, unpinned allocation out of [lo, hi) of its segment, to a place its own
 * window allows (residency lock held): one copy on the engine, where an eviction costs a copy
 * out now and one back in on its next use. GR_E_NO_MEMORY (nothing changed) when no such place
 * is free; a failed paging buffer leaves it where it was, mapped and notified as before.
 */
static gr_status_t relocate(gr_adapter_t *ad, dxgk_kalloc_t *ka, uint64_t lo, uint64_t hi)
{
    dxgk_res_t *r = ad->res;
    const uint64_t size = dxgk_alloc_bytes(ka);
    uint64_t to = 0;
    pthread_mutex_lock(&ad->vidmm_lock);
    gr_status_t rc = dxgk_place_outside(ad, ka, lo, hi, &to);
    pthread_mutex_unlock(&ad->vidmm_lock);
    if (rc)
        return rc;
    const uint64_t to_vram = ad->seg[ka->segment - 1].base + to;

    /* No GPU access while the content moves: its VAs fault until they map the new place. */
    unmap_all(ka);
    pg_job_t j;
    job_init(&j, ad);
    bool notified = false;
    rc = job_move(&j, ka, to_vram);
    if (!rc) {
        rc = job_notify_at(&j, ka, true, to); /* the new address, after the transfer */
        notified = rc == GR_OK && ka->info.FlagsWddm2.ExplicitResidencyNotification;
    }
    gr_status_t w = job_finish(&j);
    if (!rc)
        rc = w;
    pthread_mutex_lock(&ad->vidmm_lock);
    if (rc)
        dxgk_place_drop(ad, ka, to);
    else
        dxgk_move_to(ad, ka, to);
    pthread_mutex_unlock(&ad->vidmm_lock);
    gr_status_t m = map_all(ka);
    (void)m; /* table pages come from the reserve; a failure leaves its VAs faulting */
    if (rc) {
        if (notified)
            notify_now(ad, ka, true); /* back to the old address */
        atomic_fetch_add(&r->failures, 1);
        return rc;
    }
    atomic_fetch_add(&r->relocations, 1);
    atomic_fetch_add(&r->bytes_relocated, size);
    return GR_OK;
}

/* ---- victims ------------------------------------------------------------------------------------- */

enum { RK_FREE, RK_EVICTABLE, RK_BUSY, RK_FIXED };

typedef struct rng {
    uint64_t off, size;
    int kind;
    dxgk_kalloc_t *ka;
} rng_t;

typedef struct rng_list {
    rng_t *v;
    uint32_t n, cap;
    bool oom;
} rng_list_t;

static bool collect(void *ctx, uint64_t offset, uint64_t size, bool is_free)
{
    rng_list_t *l = ctx;
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 64;
        rng_t *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->oom = true;
            return false;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (rng_t){.off = offset, .size = size, .kind = is_free ? RK_FREE : RK_FIXED, .ka = NULL};
    return true;
}

/* Ranges of a segment, each allocation classified (residency lock held). */
static bool segment_ranges(gr_adapter_t *ad, uint32_t seg, rng_list_t *l)
{
    memset(l, 0, sizeof *l);
    pthread_mutex_lock(&ad->vidmm_lock);
    gr_status_t rc = gr_seg_walk(ad->seg[seg - 1].heap, collect, l);
    pthread_mutex_unlock(&ad->vidmm_lock);
    if (rc || l->oom) {
        free(l->v);
        return false;
    }
    for (dxgk_kalloc_t *v = ad->res->head; v; v = v->res_next) {
        if (v->evicted || v->segment != seg || v->in_vpr)
            continue;
        for (uint32_t i = 0; i < l->n; i++) {
            if (l->v[i].kind == RK_FREE || l->v[i].off != v->offset)
                continue;
            uint32_t why = dxgk_res_pin_reasons(ad, v);
            l->v[i].ka = v;
            l->v[i].kind = why == 0 ? RK_EVICTABLE : (why & ~(uint32_t)GR_PIN_GPU) ? RK_FIXED : RK_BUSY;
            break;
        }
    }
    return true;
}

/* Whether [a, b) inside [lo, hi) holds size bytes at the alignment. */
static bool fits(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi, uint64_t size, uint64_t align)
{
    uint64_t s = a > lo ? a : lo, e = b < hi ? b : hi;
    if (s >= e)
        return false;
    s = (s + align - 1) & ~(align - 1);
    return s < e && e - s >= size;
}

/*
 * The victim to evict for ka: the least recently used evictable allocation inside a run of
 * free and evictable ranges of one of ka's segments that could hold ka once emptied. NULL when
 * evicting cannot make room; *out_wait then says whether it could once the allocations packets
 * in flight list are idle.
 */
static dxgk_kalloc_t *pick_victim(gr_adapter_t *ad, const dxgk_kalloc_t *ka, bool *out_wait)
{
    *out_wait = false;
    const uint64_t size = dxgk_alloc_bytes(ka);
    const uint64_t align = ka->info.Alignment ? ka->info.Alignment : PAGE;
    dxgk_kalloc_t *best = NULL;
    for (uint32_t seg = 1; seg <= ad->nseg; seg++) {
        uint64_t lo = 0, hi = 0;
        if (!dxgk_place_window(ad, ka, seg, &lo, &hi))
            continue;
        rng_list_t l;
        if (!segment_ranges(ad, seg, &l))
            continue;
        for (int with_busy = 0; with_busy < 2; with_busy++) {
            bool any = false;
            for (uint32_t i = 0; i < l.n;) {
                uint32_t k = i;
                while (k < l.n &&
                       (l.v[k].kind == RK_FREE || l.v[k].kind == RK_EVICTABLE || (with_busy && l.v[k].kind == RK_BUSY)))
                    k++;
                if (k > i && fits(l.v[i].off, l.v[k - 1].off + l.v[k - 1].size, lo, hi, size, align)) {
                    any = true;
                    for (uint32_t m = i; m < k && !with_busy; m++) {
                        const rng_t *g = &l.v[m];
                        if (g->kind != RK_EVICTABLE || g->off + g->size <= lo || g->off >= hi)
                            continue;
                        if (!best || g->ka->last_use < best->last_use)
                            best = g->ka;
                    }
                }
                i = k > i ? k : i + 1;
            }
            if (any && with_busy)
                *out_wait = true;
            if (any)
                break; /* room can be made now: no need to look at busy ones */
        }
        free(l.v);
    }
    if (best)
        *out_wait = false;
    return best;
}

/* The least recently used evictable allocation anywhere (room for page-table pages). */
static dxgk_kalloc_t *pick_any(gr_adapter_t *ad)
{
    dxgk_kalloc_t *best = NULL;
    for (dxgk_kalloc_t *v = ad->res->head; v; v = v->res_next)
        if (!v->evicted && (!best || v->last_use < best->last_use) && dxgk_res_pin_reasons(ad, v) == 0)
            best = v;
    return best;
}

/*
 * Places ka, evicting victims while it does not fit. wait_busy: when only allocations that
 * packets in flight list stand in the way, wait for packets to retire (the residency lock is
 * released meanwhile; the caller's pins keep what it needs). *out_meanwhile: another thread
 * paged ka in during such a wait (nothing more to do).
 */
static gr_status_t place_evicting(gr_adapter_t *ad, dxgk_kalloc_t *ka, bool wait_busy, bool *out_meanwhile)
{
    uint64_t gen = 0;
    uint32_t idle_rounds = 0;
    *out_meanwhile = false;
    for (;;) {
        pthread_mutex_lock(&ad->vidmm_lock);
        gr_status_t rc = dxgk_place(ad, ka);
        pthread_mutex_unlock(&ad->vidmm_lock);
        if (rc != GR_E_NO_MEMORY || !dxgk_res_paging(ad))
            return rc;
        bool wait = false;
        dxgk_kalloc_t *v = pick_victim(ad, ka, &wait);
        if (v) {
            /* When ka may only use part of the segment (Overlay/Capture), the victim moves out
             * of that part if it fits elsewhere: one copy instead of two. A clean
             * PermanentSysMem one is discarded instead (no copy at all). */
            uint64_t lo = 0, hi = 0;
            if (dxgk_place_window(ad, ka, v->segment, &lo, &hi) &&
                (lo > 0 || hi < ad->seg[v->segment - 1].size) && !(is_permanent_sysmem(v) && !v->dirty)) {
                rc = relocate(ad, v, lo, hi);
                if (rc == GR_OK) {
                    idle_rounds = 0;
                    continue;
                }
                if (rc != GR_E_NO_MEMORY)
                    return rc;
            }
            rc = evict(ad, v);
            if (rc)
                return rc;
            idle_rounds = 0;
            continue;
        }
        if (!wait || !wait_busy || idle_rounds >= BUSY_WAIT_ROUNDS)
            return GR_E_NO_MEMORY;
        dxgk_res_unlock(ad);
        uint64_t now = dxgk_vidsch_wait_retire(ad, gen, BUSY_WAIT_NS);
        idle_rounds = now == gen ? idle_rounds + 1 : 0;
        gen = now;
        dxgk_res_lock(ad);
        if (!ka->evicted) {
            *out_meanwhile = true;
            return GR_OK;
        }
    }
}

gr_status_t dxgk_res_place(gr_adapter_t *ad, dxgk_kalloc_t *ka)
{
    bool meanwhile = false;
    return place_evicting(ad, ka, false, &meanwhile);
}

gr_status_t dxgk_res_zero_stale(gr_adapter_t *ad, dxgk_kalloc_t *const *kas, uint32_t count)
{
    if (!dxgk_res_paging(ad))
        return GR_E_UNSUPPORTED;
    pg_job_t j;
    job_init(&j, ad);
    gr_status_t rc = GR_OK;
    uint64_t zeroed = 0;
    /* The page-table reserve's new pages go in the same packet: the mappings this creation makes
     * take them already zeroed (vidmm_alloc.c, pt_alloc). */
    uint64_t pts[DXGK_RES_PT_RESERVE_MAX];
    const uint32_t npt = job_zero_reserve(&j, pts, DXGK_RES_PT_RESERVE_MAX, &rc);
    for (uint32_t i = 0; i < count && !rc; i++) {
        uint64_t from = 0, off = 0, len = 0;
        for (;;) {
            pthread_mutex_lock(&ad->vidmm_lock);
            bool more = dxgk_stale_next(ad, kas[i], &from, &off, &len);
            pthread_mutex_unlock(&ad->vidmm_lock);
            if (!more)
                break;
            rc = job_zero(&j, kas[i], off, len);
            if (rc)
                break;
            zeroed += len;
        }
    }
    gr_status_t w = job_finish(&j);
    if (!rc)
        rc = w;
    if (!rc) {
        atomic_fetch_add(&ad->res->bytes_zeroed, zeroed);
        reserve_mark_zeroed(ad, pts, npt);
    }
    return rc;
}

static gr_status_t page_in(gr_adapter_t *ad, dxgk_kalloc_t *ka, bool wait_busy)
{
    dxgk_res_t *r = ad->res;
    dxgk_res_reserve_pt(ad, 3 * open_count(ka) + 1);
    ka->res_pins++;
    bool meanwhile = false;
    gr_status_t rc = place_evicting(ad, ka, wait_busy, &meanwhile);
    ka->res_pins--;
    if (rc || meanwhile)
        return rc;
    const bool pms = is_permanent_sysmem(ka);
    void *cpu = pms ? ka->sys_copy : ka->store->mem.cpu;
    const uint64_t bus = pms ? ka->sys_copy_bus : ka->store->mem.bus;
    pg_job_t j;
    job_init(&j, ad);
    rc = job_transfer(&j, ka, cpu, bus, true);
    bool notified = false;
    if (!rc) {
        rc = job_notify(&j, ka, true);
        notified = rc == GR_OK;
    }
    gr_status_t w = job_finish(&j);
    if (!rc)
        rc = w;
    if (!rc) {
        pthread_mutex_lock(&ad->vidmm_lock);
        dxgk_stale_clear(ad, ka); /* the transfer wrote every page */
        pthread_mutex_unlock(&ad->vidmm_lock);
        ka->evicted = false; /* its opens map the new place now */
        rc = map_all(ka);
        ka->evicted = rc != GR_OK;
    }
    if (rc) {
        /* Still evicted: the store keeps the content. */
        if (notified)
            notify_now(ad, ka, false);
        pthread_mutex_lock(&ad->vidmm_lock);
        dxgk_unplace(ad, ka);
        ka->offset = 0;
        ka->vram = 0;
        pthread_mutex_unlock(&ad->vidmm_lock);
        atomic_fetch_add(&r->failures, 1);
        return rc;
    }
    store_free(ad, ka->store);
    ka->store = NULL;
    ka->dirty = false; /* VRAM equals the copy it came from */
    atomic_fetch_add(&r->page_ins, 1);
    atomic_fetch_sub(&r->evicted_now, 1);
    atomic_fetch_add(&r->bytes_in, dxgk_alloc_bytes(ka));
    return GR_OK;
}

gr_status_t dxgk_res_page_in(gr_adapter_t *ad, dxgk_kalloc_t *ka)
{
    if (!ka->evicted)
        return GR_OK;
    return page_in(ad, ka, true);
}

/* ---- page-table reserve ------------------------------------------------------------------------- */

void dxgk_res_reserve_pt(gr_adapter_t *ad, uint32_t pages)
{
    dxgk_res_t *r = ad->res;
    uint32_t want = pages > DXGK_RES_PT_RESERVE ? pages : DXGK_RES_PT_RESERVE;
    if (want > DXGK_RES_PT_RESERVE_MAX)
        want = DXGK_RES_PT_RESERVE_MAX;
    for (;;) {
        pthread_mutex_lock(&ad->vidmm_lock);
        uint32_t have = r->pt_n;
        pthread_mutex_unlock(&ad->vidmm_lock);
        if (have >= want)
            return;
        uint64_t pa = 0;
        bool stale = true;
        if (dxgk_pt_page_alloc(ad, &pa, &stale) == GR_OK) {
            pthread_mutex_lock(&ad->vidmm_lock);
            r->pt_zero[r->pt_n] = !stale; /* a page nothing has used is zero already */
            r->pt[r->pt_n++] = pa;
            pthread_mutex_unlock(&ad->vidmm_lock);
            continue;
        }
        if (!dxgk_res_paging(ad))
            return;
        dxgk_kalloc_t *v = pick_any(ad);
        if (!v || evict(ad, v))
            return; /* a page-in then maps with what the heaps give, or fails and is undone */
    }
}

bool dxgk_res_pt_take(gr_adapter_t *ad, uint64_t *out_pa, bool *out_zeroed)
{
    dxgk_res_t *r = ad->res;
    if (!r || r->pt_n == 0)
        return false;
    /* A zero one first. */
    uint32_t i = r->pt_n - 1;
    for (uint32_t k = r->pt_n; k-- > 0;)
        if (r->pt_zero[k]) {
            i = k;
            break;
        }
    *out_pa = r->pt[i];
    *out_zeroed = r->pt_zero[i];
    r->pt_n--;
    r->pt[i] = r->pt[r->pt_n];
    r->pt_zero[i] = r->pt_zero[r->pt_n];
    return true;
}

bool dxgk_res_pt_swap(gr_adapter_t *ad, uint64_t pa, uint64_t *out_pa)
{
    dxgk_res_t *r = ad->res;
    for (uint32_t i = 0; r && i < r->pt_n; i++)
        if (r->pt_zero[i]) {
            *out_pa = r->pt[i];
            r->pt[i] = pa;
            r->pt_zero[i] = false;
            return true;
        }
    return false;
}

/* ---- creation, destruction, opens ---------------------------------------------------------------- */

void dxgk_res_track(gr_adapter_t *ad, dxgk_kalloc_t *ka)
{
    dxgk_res_t *r = ad->res;
    if (dxgk_caller_backed(ka) || ka->tracked)
        return;
    ka->tracked = true;
    ka->res_prev = NULL;
    ka->res_next = r->head;
    if (r->head)
        r->head->res_prev = ka;
    r->head = ka;
    dxgk_res_touch(ad, ka);
    /* Placement committed it to a segment: the driver that asked is told where. */
    notify_now(ad, ka, true);
}

void dxgk_res_untrack(gr_adapter_t *ad, dxgk_kalloc_t *ka)
{
    dxgk_res_t *r = ad->res;
    if (!ka->tracked)
        return;
    if (ka->res_prev)
        ka->res_prev->res_next = ka->res_next;
    else
        r->head = ka->res_next;
    if (ka->res_next)
        ka->res_next->res_prev = ka->res_prev;
    ka->res_next = ka->res_prev = NULL;
    ka->tracked = false;
}

void dxgk_res_release(gr_adapter_t *ad, dxgk_kalloc_t *ka)
{
    if (ka->evicted) {
        store_free(ad, ka->store);
        ka->store = NULL;
        ka->evicted = false;
        atomic_fetch_sub(&ad->res->evicted_now, 1);
        return;
    }
    pthread_mutex_lock(&ad->vidmm_lock);
    dxgk_unplace(ad, ka);
    pthread_mutex_unlock(&ad->vidmm_lock);
}

gr_status_t dxgk_res_attach_open(gr_adapter_t *ad, dxgk_open_t *op)
{
    dxgk_res_lock(ad);
    dxgk_res_reserve_pt(ad, 4);
    gr_status_t rc = dxgk_gpuva_map_open(op);
    if (!rc) {
        op->ka_next = op->ka->opens;
        op->ka->opens = op;
    }
    dxgk_res_unlock(ad);
    return rc;
}

void dxgk_res_detach_open(gr_adapter_t *ad, dxgk_open_t *op)
{
    dxgk_res_lock(ad);
    for (dxgk_open_t **pp = &op->ka->opens; *pp; pp = &(*pp)->ka_next)
        if (*pp == op) {
            *pp = op->ka_next;
            break;
        }
    op->ka_next = NULL;
    dxgk_gpuva_unmap_open(op);
    dxgk_res_unlock(ad);
}

/* ---- submission ---------------------------------------------------------------------------------- */

gr_status_t dxgk_res_submit_begin(gr_adapter_t *ad, dxgk_open_t *const *opens, DXGK_ALLOCATIONLIST *alist, uint32_t n)
{
    dxgk_res_lock(ad);
    /* Pinned for the whole call: paging one in must not evict another of the list. */
    for (uint32_t i = 0; i < n; i++)
        opens[i]->ka->res_pins++;
    gr_status_t rc = GR_OK;
    for (uint32_t i = 0; i < n && !rc; i++)
        if (opens[i]->ka->evicted)
            rc = page_in(ad, opens[i]->ka, true);
    for (uint32_t i = 0; i < n; i++)
        opens[i]->ka->res_pins--;
    if (rc) {
        dxgk_res_unlock(ad);
        return rc;
    }
    /* The lock stays held until the packet's GPU references pin them. */
    for (uint32_t i = 0; i < n; i++) {
        dxgk_kalloc_t *ka = opens[i]->ka;
        dxgk_res_touch(ad, ka);
        if (alist[i].WriteOperation)
            ka->dirty = true;
        /* Where it is now: the segment and its segment address (the VRAM address here); a
         * system-memory allocation (segment 0) by its bus address. */
        alist[i].SegmentId = ka->segment;
        alist[i].PhysicalAddress.QuadPart = (LONGLONG)(ka->segment ? ka->vram : ka->sysmem_bus);
    }
    return GR_OK;
}

void dxgk_res_submit_end(gr_adapter_t *ad)
{
    dxgk_res_unlock(ad);
}

/* ---- the public calls ---------------------------------------------------------------------------- */

/* The allocations behind a list of handles of one device (process lock held); NULL entries
 * where two handles name one allocation. */
static gr_status_t lookup_list(gr_gpu_device_t *dev, const gr_alloc_t *h, uint32_t n, dxgk_kalloc_t **out)
{
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t k = 0; k < i; k++)
            if (h[k] == h[i])
                return GR_E_INVALID;
        dxgk_open_t *op = dxgk_htab_lookup(&dev->process->handles, h[i], DXGK_HT_OPEN);
        if (!op || op->device != dev)
            return GR_E_INVALID;
        out[i] = op->ka;
        for (uint32_t k = 0; k < i; k++)
            if (out[k] == op->ka)
                out[i] = NULL;
    }
    return GR_OK;
}

gr_status_t gr_alloc_make_resident(gr_gpu_device_t *dev, const gr_alloc_t *handles, uint32_t count)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_alloc_residency(dev, handles, count, false);
    if (!dev || !handles || count == 0 || count > GR_ALLOC_MAX_RESIDENCY_LIST)
        return GR_E_INVALID;
    gr_process_t *p = dev->process;
    gr_adapter_t *ad = p->adapter;
    dxgk_kalloc_t *kas[GR_ALLOC_MAX_RESIDENCY_LIST];
    bool mine[GR_ALLOC_MAX_RESIDENCY_LIST];
    memset(mine, 0, sizeof mine);
    pthread_mutex_lock(&p->lock);
    gr_status_t rc = lookup_list(dev, handles, count, kas);
    if (rc) {
        pthread_mutex_unlock(&p->lock);
        return rc;
    }
    dxgk_res_lock(ad);
    for (uint32_t i = 0; i < count; i++)
        if (kas[i])
            kas[i]->res_pins++;
    for (uint32_t i = 0; i < count && !rc; i++)
        if (kas[i] && kas[i]->evicted) {
            rc = page_in(ad, kas[i], true);
            mine[i] = rc == GR_OK;
        }
    for (uint32_t i = 0; i < count; i++)
        if (kas[i])
            kas[i]->res_pins--;
    for (uint32_t i = 0; i < count; i++) {
        if (!kas[i])
            continue;
        if (rc && mine[i])
            (void)evict(ad, kas[i]); /* together or not at all */
        else if (!rc)
            dxgk_res_touch(ad, kas[i]);
    }
    dxgk_res_unlock(ad);
    pthread_mutex_unlock(&p->lock);
    return rc;
}

gr_status_t gr_alloc_evict(gr_gpu_device_t *dev, const gr_alloc_t *handles, uint32_t count)
{
    if (GR_BROKER_DEV(dev))
        return gr_brk_alloc_residency(dev, handles, count, true);
    if (!dev || !handles || count == 0 || count > GR_ALLOC_MAX_RESIDENCY_LIST)
        return GR_E_INVALID;
    gr_process_t *p = dev->process;
    gr_adapter_t *ad = p->adapter;
    dxgk_kalloc_t *kas[GR_ALLOC_MAX_RESIDENCY_LIST];
    bool mine[GR_ALLOC_MAX_RESIDENCY_LIST];
    memset(mine, 0, sizeof mine);
    pthread_mutex_lock(&p->lock);
    gr_status_t rc = lookup_list(dev, handles, count, kas);
    if (rc) {
        pthread_mutex_unlock(&p->lock);
        return rc;
    }
    if (!dxgk_res_paging(ad)) {
        pthread_mutex_unlock(&p->lock);
        return GR_E_UNSUPPORTED;
    }
    dxgk_res_lock(ad);
    /* Every one is checked before the first moves: a pinned one changes nothing. */
    for (uint32_t i = 0; i < count && !rc; i++)
        if (kas[i] && (dxgk_caller_backed(kas[i]) || (!kas[i]->evicted && dxgk_res_pin_reasons(ad, kas[i]))))
            rc = GR_E_BUSY;
    for (uint32_t i = 0; i < count && !rc; i++)
        if (kas[i] && !kas[i]->evicted) {
            rc = evict(ad, kas[i]);
            mine[i] = rc == GR_OK;
        }
    if (rc)
        for (uint32_t i = 0; i < count; i++)
            if (mine[i])
                (void)page_in(ad, kas[i], false);
    dxgk_res_unlock(ad);
    pthread_mutex_unlock(&p->lock);
    return rc;
}

void dxgk_res_stats(gr_adapter_t *ad, gr_adapter_stats_t *out)
{
    dxgk_res_t *r = ad->res;
    if (!r)
        return;
    out->evictions = atomic_load(&r->evictions);
    out->discards = atomic_load(&r->discards);
    out->page_ins = atomic_load(&r->page_ins);
    out->bytes_evicted = atomic_load(&r->bytes_out);
    out->bytes_paged_in = atomic_load(&r->bytes_in);
    out->paging_packets = atomic_load(&r->packets);
    out->paging_failures = atomic_load(&r->failures);
    out->evicted_now = atomic_load(&r->evicted_now);
    out->bytes_zeroed = atomic_load(&r->bytes_zeroed);
    out->relocations = atomic_load(&r->relocations);
    out->bytes_relocated = atomic_load(&r->bytes_relocated);
}

/* ---- test hooks ---------------------------------------------------------------------------------- */

typedef struct free_scan {
    uint64_t off[TEST_RESERVE_MAX], size[TEST_RESERVE_MAX];
    uint32_t n;
    bool overflow;
} free_scan_t;

static bool scan_free(void *ctx, uint64_t offset, uint64_t size, bool is_free)
{
    free_scan_t *f = ctx;
    if (!is_free)
        return true;
    if (f->n == TEST_RESERVE_MAX) {
        f->overflow = true;
        return false;
    }
    f->off[f->n] = offset;
    f->size[f->n++] = size;
    return true;
}

gr_status_t gr_vidmm_test_reserve(gr_adapter_t *ad, uint32_t segment, uint64_t leave_bytes)
{
    if (ad && ad->broker)
        return gr_brk_test_reserve(ad, segment, true, 0, 0, leave_bytes);
    if (!ad || segment == 0 || segment > ad->nseg)
        return GR_E_INVALID;
    return gr_vidmm_test_reserve_range(ad, segment, 0, ad->seg[segment - 1].size, leave_bytes);
}

gr_status_t gr_vidmm_test_reserve_range(gr_adapter_t *ad, uint32_t segment, uint64_t lo, uint64_t hi,
                                        uint64_t leave_bytes)
{
    if (ad && ad->broker)
        return gr_brk_test_reserve(ad, segment, false, lo, hi, leave_bytes);
    if (!ad || !ad->res || segment == 0 || segment > ad->nseg || leave_bytes % PAGE || lo % PAGE || hi % PAGE ||
        lo >= hi || hi > ad->seg[segment - 1].size)
        return GR_E_INVALID;
    dxgk_res_t *r = ad->res;
    dxgk_res_lock(ad);
    pthread_mutex_lock(&ad->vidmm_lock);
    gr_seg_t *heap = ad->seg[segment - 1].heap;
    free_scan_t f;
    memset(&f, 0, sizeof f);
    gr_status_t rc = gr_seg_walk_range(heap, lo, hi == ad->seg[segment - 1].size ? GR_SEG_END : hi, scan_free, &f);
    for (uint32_t i = 0; i < f.n; i++) { /* the first and the last may reach past [lo, hi) */
        uint64_t s = f.off[i] > lo ? f.off[i] : lo, e = f.off[i] + f.size[i] < hi ? f.off[i] + f.size[i] : hi;
        f.off[i] = s;
        f.size[i] = e - s;
    }
    uint32_t big = 0;
    for (uint32_t i = 1; i < f.n; i++)
        if (f.size[i] > f.size[big])
            big = i;
    if (!rc && f.overflow)
        rc = GR_E_RANGE;
    if (!rc && (f.n == 0 || f.size[big] < leave_bytes))
        rc = GR_E_NO_MEMORY;
    if (!rc && r->test_reserved_n + f.n > TEST_RESERVE_MAX)
        rc = GR_E_RANGE;
    for (uint32_t i = 0; i < f.n && !rc; i++) {
        uint64_t lo = f.off[i], sz = f.size[i];
        if (i == big) {
            lo += leave_bytes;
            sz -= leave_bytes;
        }
        uint64_t off = 0;
        if (sz == 0)
            continue;
        rc = gr_seg_alloc(heap, sz, PAGE, lo, lo + sz, 0, &off);
        if (!rc) {
            r->test_reserved[r->test_reserved_n].segment = segment;
            r->test_reserved[r->test_reserved_n++].offset = off;
        }
    }
    pthread_mutex_unlock(&ad->vidmm_lock);
    dxgk_res_unlock(ad);
    return rc;
}

void gr_vidmm_test_unreserve(gr_adapter_t *ad)
{
    if (ad && ad->broker) {
        gr_brk_test_unreserve(ad);
        return;
    }
    if (!ad || !ad->res)
        return;
    dxgk_res_t *r = ad->res;
    dxgk_res_lock(ad);
    pthread_mutex_lock(&ad->vidmm_lock);
    for (uint32_t i = 0; i < r->test_reserved_n; i++)
        DXGK_CANNOT_FAIL(gr_seg_free(ad->seg[r->test_reserved[i].segment - 1].heap, r->test_reserved[i].offset));
    r->test_reserved_n = 0;
    pthread_mutex_unlock(&ad->vidmm_lock);
    dxgk_res_unlock(ad);
}

void gr_vidmm_test_set_paging_buffer_bytes(gr_adapter_t *ad, uint32_t bytes)
{
    if (ad && ad->res)
        ad->res->test_buffer_bytes = bytes;
}

HANDLE gr_vidmm_test_hallocation(gr_gpu_device_t *dev, gr_alloc_t h)
{
    if (!dev)
        return NULL;
    gr_process_t *p = dev->process;
    pthread_mutex_lock(&p->lock);
    dxgk_open_t *op = dxgk_htab_lookup(&p->handles, h, DXGK_HT_OPEN);
    HANDLE r = op && op->device == dev ? op->ka->info.hAllocation : NULL;
    pthread_mutex_unlock(&p->lock);
    return r;
}
