/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_kmd_submit: the miniport's command path (host/kmd) over sim://, its DDIs called directly
 * the way dxgkrnl calls them, with this test's own DXGKRNL_INTERFACE that records every
 * DxgkCbNotifyInterrupt (the OS stand-in is not involved).
 *
 * Two groups:
 *   - no engine needed: caps, contexts, Patch on a buffer, BuildPagingBuffer's commands decoded
 *     back, argument checks (each bad call must change nothing);
 *   - on the engine (rtl/dma; ID_CAPS.DMA is 1 in every build, so these fail without it):
 *     submit, fence, interrupt, QueryCurrentFence, lost interrupts, preemption and resubmission,
 *     cancel, paging transfers and fills through the engine with the bytes checked, page-table
 *     writes, faults, reset from timeout after a WAIT that never ends.
 * Usage: test_kmd_submit [--seed N] (default $GR_TEST_SEED, else 1). The seed picks the bus
 * models' timing and the test data.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "d3dkmddi.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_regdesc.h"
#include "gpuref/gr_regmap.h"
#include "gr_link.h"
#include "kmd.h"
#include "sched_fixture.h"

#define KIB UINT64_C(1024)
#define MIB (KIB * 1024)
#define PAGE 4096u

static unsigned long long seed = 1;
static char uri[160];

/* Register offsets and bits of the DMA engine (rtl/dma/README.md). */
#define R_DMA_CTRL 0x300u
#define R_DMA_STATUS 0x304u
#define R_DMA_RING_HEAD 0x314u
#define R_DMA_RING_TAIL 0x318u
#define R_DMA_WATCHDOG 0x340u
#define R_DMA_STOP_OFFSET 0x338u
#define R_DMA_PERF_CMDS 0x370u
#define DMA_STATUS_IDLE 0x1u
#define DMA_STATUS_HUNG 0x4u
#define DMA_STATUS_FAULTED 0x8u
#define DMA_STATUS_RESETTING 0x10u

/* ---- fixture: a sim:// link, the adapter started with this test's callbacks ---------------- */

#define MAX_NOTES 512
#define MAX_BUFS 32
#define MAX_HANDLES 16

typedef struct fx {
    gr_link_t *link;
    pthread_mutex_t link_lock;
    DXGKRNL_INTERFACE kif;
    HANDLE ad;
    HANDLE dev;
    HANDLE extra_dev; /* a second device, destroyed after its opens are closed */
    int engine;
    uint64_t seg_base[3], seg_size[3];
    uint32_t nseg;
    DXGKARGCB_NOTIFY_INTERRUPT_DATA notes[MAX_NOTES];
    unsigned nnotes;
    /* The concurrent test's interrupt thread: what it saw, under notes_lock. */
    pthread_mutex_t notes_lock;
    uint32_t newest_completed;
    unsigned completions, out_of_order;
    int dpc_queued;
    unsigned notify_dpcs;
    gr_dma_buf_t bufs[MAX_BUFS];
    unsigned nbufs;
    HANDLE allocs[MAX_HANDLES];
    unsigned nallocs;
    struct {
        HANDLE dev;
        HANDLE open;
    } opens[MAX_HANDLES];
    unsigned nopens;
} fx_t;

/* DxgkCbGetHandleData has no device argument: the kernel handles live here. */
static struct {
    D3DKMT_HANDLE h;
    void *data;
} g_handles[MAX_HANDLES];
static unsigned g_nhandles;

static VOID APIENTRY cb_notify_interrupt(IN_CONST_HANDLE h, IN_CONST_PDXGKARGCB_NOTIFY_INTERRUPT_DATA d)
{
    fx_t *f = h;
    pthread_mutex_lock(&f->notes_lock);
    if (f->nnotes < MAX_NOTES)
        f->notes[f->nnotes++] = *d;
    if (d->InterruptType == DXGK_INTERRUPT_DMA_COMPLETED) {
        /* Fences are reported newest-so-far: never one older than the last. */
        if (f->completions && (int32_t)(d->DmaCompleted.SubmissionFenceId - f->newest_completed) <= 0)
            f->out_of_order++;
        f->newest_completed = d->DmaCompleted.SubmissionFenceId;
        f->completions++;
    }
    pthread_mutex_unlock(&f->notes_lock);
}

static BOOLEAN APIENTRY cb_queue_dpc(HANDLE h)
{
    fx_t *f = h;
    pthread_mutex_lock(&f->notes_lock);
    BOOLEAN first = !f->dpc_queued;
    f->dpc_queued = 1;
    pthread_mutex_unlock(&f->notes_lock);
    return first;
}

static VOID APIENTRY cb_notify_dpc(IN_CONST_HANDLE h)
{
    ((fx_t *)h)->notify_dpcs++;
}

static VOID *APIENTRY cb_get_handle_data(IN_CONST_PDXGKARGCB_GETHANDLEDATA a)
{
    for (unsigned i = 0; a && i < g_nhandles; i++)
        if (g_handles[i].h == a->hObject)
            return g_handles[i].data;
    return NULL;
}

static void query_segments(fx_t *f)
{
    DXGK_SEGMENTDESCRIPTOR4 d[2];
    DXGK_QUERYSEGMENTOUT4 out;
    DXGKARG_QUERYADAPTERINFO q;
    memset(&out, 0, sizeof out);
    memset(&q, 0, sizeof q);
    q.Type = DXGKQAITYPE_QUERYSEGMENT4;
    q.pOutputData = &out;
    q.OutputDataSize = sizeof out;
    assert_int_equal(DxgkDdiQueryAdapterInfo(f->ad, &q), STATUS_SUCCESS);
    assert_true(out.NbSegment >= 1 && out.NbSegment <= 2);
    memset(d, 0, sizeof d);
    out.pSegmentDescriptor = (BYTE *)d;
    out.SegmentDescriptorStride = sizeof d[0];
    assert_int_equal(DxgkDdiQueryAdapterInfo(f->ad, &q), STATUS_SUCCESS);
    f->nseg = out.NbSegment;
    for (uint32_t i = 0; i < f->nseg; i++) {
        f->seg_base[i + 1] = (uint64_t)d[i].BaseAddress.QuadPart;
        f->seg_size[i + 1] = d[i].Size;
    }
}

static int setup(void **state)
{
    fx_t *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    pthread_mutex_init(&f->link_lock, NULL);
    pthread_mutex_init(&f->notes_lock, NULL);
    int rc = gr_link_open(uri, &f->link);
    if (rc) {
        print_error("gr_link_open(%s): %s (%s)\n", uri, gr_status_name(rc), gr_link_error());
        free(f);
        return -1;
    }
    f->kif.Size = sizeof f->kif;
    f->kif.Version = DXGKDDI_INTERFACE_VERSION;
    f->kif.DeviceHandle = f;
    f->kif.DxgkCbNotifyInterrupt = cb_notify_interrupt;
    f->kif.DxgkCbQueueDpc = cb_queue_dpc;
    f->kif.DxgkCbNotifyDpc = cb_notify_dpc;
    f->kif.DxgkCbGetHandleData = cb_get_handle_data;
    gr_kmd_start_info_t si = {f->link, &f->link_lock, &f->kif};
    NTSTATUS st = gr_kmd_start_adapter(&si, &f->ad);
    if (st || gr_kmd_create_device(f->ad, (HANDLE)f, &f->dev)) {
        print_error("gr_kmd_start_adapter: 0x%08x\n", (unsigned)st);
        if (!st)
            gr_kmd_stop_adapter(f->ad);
        gr_link_close(f->link);
        free(f);
        return -1;
    }
    f->engine = gr_kmd_engine_ready(f->ad);
    g_nhandles = 0;
    query_segments(f);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    for (unsigned i = 0; i < f->nopens; i++) {
        HANDLE h = f->opens[i].open;
        DXGKARG_CLOSEALLOCATION c = {1, (const HANDLE *)&h};
        (void)DxgkDdiCloseAllocation(f->opens[i].dev, &c);
    }
    if (f->nallocs) {
        DXGKARG_DESTROYALLOCATION d;
        memset(&d, 0, sizeof d);
        d.NumAllocations = f->nallocs;
        d.pAllocationList = (const HANDLE *)f->allocs;
        (void)DxgkDdiDestroyAllocation(f->ad, &d);
    }
    (void)gr_kmd_destroy_device(f->dev);
    if (f->extra_dev)
        (void)gr_kmd_destroy_device(f->extra_dev);
    gr_kmd_stop_adapter(f->ad);
    for (unsigned i = 0; i < f->nbufs; i++)
        (void)gr_link_dma_free(f->link, &f->bufs[i]);
    gr_link_close(f->link);
    pthread_mutex_destroy(&f->link_lock);
    pthread_mutex_destroy(&f->notes_lock);
    free(f);
    return 0;
}

/* ---- helpers ------------------------------------------------------------------------------- */

static uint32_t reg_read(fx_t *f, uint32_t off)
{
    uint32_t v = 0;
    pthread_mutex_lock(&f->link_lock);
    int rc = gr_link_read32(f->link, off, &v);
    pthread_mutex_unlock(&f->link_lock);
    assert_int_equal(rc, GR_OK);
    return v;
}

static void reg_write(fx_t *f, uint32_t off, uint32_t v)
{
    pthread_mutex_lock(&f->link_lock);
    int rc = gr_link_write32(f->link, off, v);
    pthread_mutex_unlock(&f->link_lock);
    assert_int_equal(rc, GR_OK);
}

/* VRAM below the BAR1 window size is reachable at its own address (MC_AP_BASE stays 0). */
static void vram_write(fx_t *f, uint64_t addr, const void *src, size_t n)
{
    pthread_mutex_lock(&f->link_lock);
    int rc = gr_link_ap_write(f->link, addr, src, n);
    pthread_mutex_unlock(&f->link_lock);
    assert_int_equal(rc, GR_OK);
}

static void vram_read(fx_t *f, uint64_t addr, void *dst, size_t n)
{
    pthread_mutex_lock(&f->link_lock);
    int rc = gr_link_ap_read(f->link, addr, dst, n);
    pthread_mutex_unlock(&f->link_lock);
    assert_int_equal(rc, GR_OK);
}

static gr_dma_buf_t *dma_buf(fx_t *f, size_t bytes)
{
    assert_true(f->nbufs < MAX_BUFS);
    gr_dma_buf_t *b = &f->bufs[f->nbufs];
    pthread_mutex_lock(&f->link_lock);
    int rc = gr_link_dma_alloc(f->link, bytes, b);
    pthread_mutex_unlock(&f->link_lock);
    assert_int_equal(rc, GR_OK);
    f->nbufs++;
    return b;
}

static void fill_pattern(uint8_t *p, size_t n, uint32_t salt)
{
    uint32_t x = salt * 2654435761u + (uint32_t)seed * 40503u + 1u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

static gr_kmd_counts_t counts(fx_t *f)
{
    gr_kmd_counts_t c;
    assert_int_equal(gr_kmd_counts(f->ad, &c), STATUS_SUCCESS);
    return c;
}

/* The system context (DXGK_CREATECONTEXTFLAGS.SystemContext): the kernel's own, whose packets
 * the miniport marks PRIV, so that they may name VRAM and host addresses, as these tests do. */
#define KERNEL_CTX 0x1u
/* A user context with its own GPU VA space (VirtualAddressing). */
#define USER_CTX 0x4u

static HANDLE make_context(fx_t *f, UINT flags)
{
    DXGKARG_CREATECONTEXT c;
    memset(&c, 0, sizeof c);
    c.Flags.Value = flags;
    assert_int_equal(DxgkDdiCreateContext(f->dev, &c), STATUS_SUCCESS);
    assert_non_null(c.hContext);
    return c.hContext;
}

static gr_alloc_private_t buffer_priv(uint64_t bytes, uint32_t flags)
{
    gr_alloc_private_t p;
    memset(&p, 0, sizeof p);
    p.version = GR_ALLOC_PRIVATE_VERSION;
    p.struct_size = sizeof p;
    p.kind = GR_ALLOC_KIND_BUFFER;
    p.flags = flags;
    p.buffer_bytes = bytes;
    return p;
}

/* An allocation created by the adapter and opened by dev, as VidMm would leave it. */
static HANDLE make_alloc(fx_t *f, uint64_t bytes, uint32_t flags)
{
    gr_alloc_private_t p = buffer_priv(bytes, flags);
    DXGK_ALLOCATIONINFO info;
    DXGKARG_CREATEALLOCATION ca;
    memset(&info, 0, sizeof info);
    memset(&ca, 0, sizeof ca);
    info.pPrivateDriverData = &p;
    info.PrivateDriverDataSize = sizeof p;
    ca.NumAllocations = 1;
    ca.pAllocationInfo = &info;
    assert_int_equal(DxgkDdiCreateAllocation(f->ad, &ca), STATUS_SUCCESS);
    assert_true(f->nallocs < MAX_HANDLES && g_nhandles < MAX_HANDLES);
    f->allocs[f->nallocs++] = info.hAllocation;
    g_handles[g_nhandles].h = 0x100 + g_nhandles;
    g_handles[g_nhandles].data = info.hAllocation;
    g_nhandles++;
    return info.hAllocation;
}

static HANDLE open_alloc(fx_t *f, HANDLE dev, HANDLE hAllocation)
{
    D3DKMT_HANDLE kh = 0;
    for (unsigned i = 0; i < g_nhandles; i++)
        if (g_handles[i].data == hAllocation)
            kh = g_handles[i].h;
    DXGK_OPENALLOCATIONINFO oi;
    DXGKARG_OPENALLOCATION oa;
    memset(&oi, 0, sizeof oi);
    memset(&oa, 0, sizeof oa);
    oi.hAllocation = kh;
    oa.NumAllocations = 1;
    oa.pOpenAllocation = &oi;
    oa.Flags.Create = 1;
    assert_int_equal(DxgkDdiOpenAllocation(dev, &oa), STATUS_SUCCESS);
    f->opens[f->nopens].dev = dev;
    f->opens[f->nopens].open = oi.hDeviceSpecificAllocation;
    f->nopens++;
    return oi.hDeviceSpecificAllocation;
}

/* One decoded command of a DMA buffer. */
typedef struct cmd {
    unsigned op, src, dst, flags;
    uint32_t imm;
    uint64_t q[3];
} cmd_t;

static const unsigned cmd_qwords[] = {GR_DMA_NOP_QWORDS, GR_DMA_COPY_QWORDS, GR_DMA_FILL_QWORDS,
                                      GR_DMA_FENCE_QWORDS, GR_DMA_INDIRECT_QWORDS, GR_DMA_TLB_INVALIDATE_QWORDS,
                                      GR_DMA_TIMESTAMP_QWORDS, GR_DMA_WAIT_QWORDS};

/* Decodes [buf, buf + bytes) into cmds; fails the test on anything malformed. */
static unsigned decode(const uint8_t *buf, size_t bytes, cmd_t *cmds, unsigned max)
{
    unsigned n = 0;
    size_t off = 0;
    while (off < bytes) {
        assert_true(n < max);
        uint64_t h = gr_dma_get64(buf + off);
        cmd_t *c = &cmds[n++];
        memset(c, 0, sizeof *c);
        c->op = h & 0xff;
        c->src = (h >> 8) & 3;
        c->dst = (h >> 10) & 3;
        c->flags = (uint32_t)h & ~0xfffu;
        c->imm = (uint32_t)(h >> 32);
        assert_true(c->op <= GR_DMA_OP_WAIT);
        unsigned qw = cmd_qwords[c->op];
        assert_true(off + qw * 8 <= bytes);
        for (unsigned i = 1; i < qw; i++)
            c->q[i - 1] = gr_dma_get64(buf + off + 8 * i);
        off += qw * 8;
    }
    return n;
}

/* ---- no engine needed: caps and contexts --------------------------------------------------- */

static void engine_is_up_exactly_when_the_build_has_one(void **state)
{
    fx_t *f = *state;
    uint32_t caps = reg_read(f, GR_REG_ID_CAPS);
    assert_int_equal(f->engine, (caps & GPU_REGS__ID_CAPS__DMA_bm) ? 1 : 0);
    if (!f->engine)
        print_message("# ID_CAPS.DMA is 0 in this build: the engine tests fail\n");
}

static void driver_caps_describe_one_preemptible_cancel_aware_node(void **state)
{
    fx_t *f = *state;
    DXGK_DRIVERCAPS caps;
    DXGKARG_QUERYADAPTERINFO q;
    memset(&caps, 0xa5, sizeof caps);
    memset(&q, 0, sizeof q);
    q.Type = DXGKQAITYPE_DRIVERCAPS;
    q.pOutputData = &caps;
    q.OutputDataSize = sizeof caps;
    assert_int_equal(DxgkDdiQueryAdapterInfo(f->ad, &q), STATUS_SUCCESS);
    /* The allocation path's answers are unchanged. */
    assert_int_equal(caps.MemoryManagementCaps.GpuMmuSupported, 1);
    assert_int_equal(caps.PresentationCaps.NoCacheCoherentApertureMemory, 1);
    assert_int_equal(caps.WDDMVersion, 0);
    DXGK_QUERYSEGMENTOUT4 out;
    memset(&out, 0, sizeof out);
    DXGK_SEGMENTDESCRIPTOR4 d[2];
    out.NbSegment = f->nseg;
    out.pSegmentDescriptor = (BYTE *)d;
    out.SegmentDescriptorStride = sizeof d[0];
    q.Type = DXGKQAITYPE_QUERYSEGMENT4;
    q.pOutputData = &out;
    q.OutputDataSize = sizeof out;
    assert_int_equal(DxgkDdiQueryAdapterInfo(f->ad, &q), STATUS_SUCCESS);
    if (f->engine) {
        assert_int_equal(caps.GpuEngineTopology.NbAsymetricProcessingNodes, 1);
        /* MultiEngineAware (bit 0) + PreemptionAware (bit 2) + CancelCommandAware (bit 4). */
        assert_int_equal(caps.SchedulingCaps.Value, 0x15);
        assert_int_equal(caps.PreemptionCaps.GraphicsPreemptionGranularity,
                         D3DKMDT_GRAPHICS_PREEMPTION_PRIMITIVE_BOUNDARY);
        assert_int_equal(caps.PreemptionCaps.ComputePreemptionGranularity,
                         D3DKMDT_COMPUTE_PREEMPTION_DISPATCH_BOUNDARY);
        assert_int_equal(caps.MemoryManagementCaps.PagingNode, 0);
        assert_int_equal(caps.InterruptMessageNumber, 0);
        assert_int_equal(out.PagingBufferSegmentId, 0);
        assert_int_equal(out.PagingBufferSize, 64 * KIB);
        assert_int_equal(out.PagingBufferPrivateDataSize, GR_KMD_DMA_PRIVATE_BYTES);
    } else {
        assert_int_equal(caps.GpuEngineTopology.NbAsymetricProcessingNodes, 0);
        assert_int_equal(caps.SchedulingCaps.Value, 0);
        assert_int_equal(caps.PreemptionCaps.GraphicsPreemptionGranularity, 0);
        assert_int_equal(out.PagingBufferSize, 0);
        assert_int_equal(out.PagingBufferPrivateDataSize, 0);
    }
}

static void create_context_fills_context_info_and_refuses_bad_requests(void **state)
{
    fx_t *f = *state;
    DXGKARG_CREATECONTEXT c;
    memset(&c, 0, sizeof c);
    c.Flags.VirtualAddressing = 1;
    assert_int_equal(DxgkDdiCreateContext(f->dev, &c), STATUS_SUCCESS);
    assert_non_null(c.hContext);
    assert_int_equal(c.ContextInfo.DmaBufferSize, 64 * KIB);
    assert_int_equal(c.ContextInfo.DmaBufferSegmentSet, 0);
    assert_int_equal(c.ContextInfo.DmaBufferPrivateDataSize, GR_KMD_DMA_PRIVATE_BYTES);
    assert_int_equal(c.ContextInfo.AllocationListSize, 256);
    /* A user context runs on GPU VAs: no patch locations (host/kmd/README.md, "Isolation"). */
    assert_int_equal(c.ContextInfo.PatchLocationListSize, 0);
    assert_int_equal(c.ContextInfo.Caps.Value, 0);
    assert_int_equal(c.ContextInfo.Reserved, 0);
    assert_int_equal(counts(f).contexts, 1);
    gr_kmd_context_info_t info;
    assert_int_equal(gr_kmd_context_query(f->ad, c.hContext, &info), STATUS_SUCCESS);
    assert_ptr_equal(info.hDevice, f->dev);
    assert_int_equal(info.flags, 0x4);
    assert_false(info.has_root);

    /* A GDI context gets the 256-entry allocation list its page requires. */
    HANDLE gdi = make_context(f, 0x2);
    /* The system context (the kernel's paging work) keeps its patch locations. */
    DXGKARG_CREATECONTEXT sys;
    memset(&sys, 0, sizeof sys);
    sys.Flags.SystemContext = 1;
    assert_int_equal(DxgkDdiCreateContext(f->dev, &sys), STATUS_SUCCESS);
    assert_int_equal(sys.ContextInfo.PatchLocationListSize, 1024);
    assert_int_equal(DxgkDdiDestroyContext(sys.hContext), STATUS_SUCCESS);

    /* Bad requests: nothing created, outputs untouched. */
    struct {
        UINT node, engine, flags, priv;
        NTSTATUS want;
    } bad[] = {
        {1, 0, 0, 0, STATUS_INVALID_PARAMETER},     /* no node 1 */
        {0, 2, 0, 0, STATUS_INVALID_PARAMETER},     /* no engine 1 */
        {0, 0, 0x10, 0, STATUS_INVALID_PARAMETER},  /* HwQueueSupported */
        {0, 0, 0x40, 0, STATUS_INVALID_PARAMETER},  /* a reserved bit */
        {0, 0, 0, 8, STATUS_GRAPHICS_DRIVER_MISMATCH}, /* private data gpuref does not define */
    };
    uint8_t priv[8] = {0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        DXGKARG_CREATECONTEXT b;
        memset(&b, 0x5a, sizeof b);
        b.NodeOrdinal = bad[i].node;
        b.EngineAffinity = bad[i].engine;
        b.Flags.Value = bad[i].flags;
        b.pPrivateDriverData = bad[i].priv ? priv : NULL;
        b.PrivateDriverDataSize = bad[i].priv;
        DXGKARG_CREATECONTEXT before = b;
        assert_int_equal(DxgkDdiCreateContext(f->dev, &b), bad[i].want);
        assert_memory_equal(&b, &before, sizeof b);
    }
    DXGKARG_CREATECONTEXT b;
    memset(&b, 0, sizeof b);
    assert_int_equal(DxgkDdiCreateContext(f->ad, &b), STATUS_INVALID_PARAMETER); /* not a device */
    assert_int_equal(DxgkDdiCreateContext(f->dev, NULL), STATUS_INVALID_PARAMETER);
    assert_int_equal(counts(f).contexts, 2);

    /* A device with contexts cannot go; its contexts can. */
    assert_int_equal(gr_kmd_destroy_device(f->dev), STATUS_INVALID_PARAMETER);
    assert_int_equal(DxgkDdiDestroyContext(c.hContext), STATUS_SUCCESS);
    assert_int_equal(DxgkDdiDestroyContext(gdi), STATUS_SUCCESS);
    assert_int_equal(counts(f).contexts, 0);
    assert_int_equal(DxgkDdiDestroyContext(NULL), STATUS_INVALID_PARAMETER);
}

static void set_root_page_table_takes_vram_roots_and_ignores_bad_ones(void **state)
{
    fx_t *f = *state;
    HANDLE ctx = make_context(f, 0x4);
    uint32_t last = f->nseg;
    DXGKARG_SETROOTPAGETABLE r;
    memset(&r, 0, sizeof r);
    r.hContext = ctx;
    r.Address.SegmentId = last;
    r.Address.SegmentOffset = 0x20000;
    r.NumEntries = 512;
    DxgkDdiSetRootPageTable(f->ad, &r);
    gr_kmd_context_info_t info;
    assert_int_equal(gr_kmd_context_query(f->ad, ctx, &info), STATUS_SUCCESS);
    assert_true(info.has_root);
    assert_int_equal(info.root, f->seg_base[last] + 0x20000);
    assert_int_equal(info.root_entries, 512);
    assert_int_equal(info.rejected_roots, 0);

    /* Each bad root is refused (the DDI is VOID): the context keeps the good one. */
    DXGKARG_SETROOTPAGETABLE bad[6];
    for (int i = 0; i < 6; i++)
        bad[i] = r;
    bad[0].Address.SegmentOffset = 0x20008;             /* not 4 KiB aligned */
    bad[1].Address.SegmentId = 3;                       /* no such segment */
    bad[2].Address.SegmentOffset = f->seg_size[last];   /* past the segment */
    bad[3].NumEntries = 0;
    bad[4].NumEntries = 513;                            /* the root table has 512 entries */
    bad[5].Address.Padding = 1;
    for (int i = 0; i < 6; i++)
        DxgkDdiSetRootPageTable(f->ad, &bad[i]);
    DxgkDdiSetRootPageTable(f->ad, NULL);
    DXGKARG_SETROOTPAGETABLE other = r;
    other.hContext = f->dev; /* not a context */
    DxgkDdiSetRootPageTable(f->ad, &other);
    assert_int_equal(gr_kmd_context_query(f->ad, ctx, &info), STATUS_SUCCESS);
    assert_int_equal(info.root, f->seg_base[last] + 0x20000);
    assert_int_equal(info.rejected_roots, 6);
    assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
    assert_int_equal(gr_kmd_context_query(f->ad, f->dev, &info), STATUS_INVALID_PARAMETER);
}

/* ---- no engine needed: Patch ---------------------------------------------------------------- */

typedef struct patch_fx {
    HANDLE ctx;
    HANDLE open[2];
    DXGK_ALLOCATIONLIST al[2];
    D3DDDI_PATCHLOCATIONLIST pl[4];
    uint8_t dma[512];
    uint8_t priv[GR_KMD_DMA_PRIVATE_BYTES];
    DXGKARG_PATCH p;
} patch_fx_t;

static void patch_setup(fx_t *f, patch_fx_t *t)
{
    memset(t, 0, sizeof *t);
    t->ctx = make_context(f, KERNEL_CTX);
    t->open[0] = open_alloc(f, f->dev, make_alloc(f, 64 * KIB, 0));
    t->open[1] = open_alloc(f, f->dev, make_alloc(f, 8 * KIB, 0));
    t->al[0].hDeviceSpecificAllocation = t->open[0];
    t->al[0].SegmentId = 1;
    t->al[0].PhysicalAddress.QuadPart = 0x120000;
    t->al[1].hDeviceSpecificAllocation = t->open[1];
    t->al[1].SegmentId = f->nseg;
    t->al[1].PhysicalAddress.QuadPart = (LONGLONG)(f->seg_base[f->nseg] + 0x8000);
    /* Four locations; the submission is the middle two (the list starts before the range). */
    const uint32_t offs[4] = {16, 136, 264, 400};
    for (int i = 0; i < 4; i++) {
        t->pl[i].AllocationIndex = i & 1;
        t->pl[i].AllocationOffset = 0x40u * (unsigned)i;
        t->pl[i].PatchOffset = offs[i];
        t->pl[i].SlotId = (UINT)i;
    }
    fill_pattern(t->dma, sizeof t->dma, 7);
    t->p.hContext = t->ctx;
    t->p.pDmaBuffer = t->dma;
    t->p.DmaBufferSize = sizeof t->dma;
    t->p.DmaBufferSubmissionStartOffset = 128;
    t->p.DmaBufferSubmissionEndOffset = 384;
    t->p.pDmaBufferPrivateData = t->priv;
    t->p.DmaBufferPrivateDataSize = sizeof t->priv;
    t->p.DmaBufferPrivateDataSubmissionStartOffset = 0;
    t->p.DmaBufferPrivateDataSubmissionEndOffset = sizeof t->priv;
    t->p.pAllocationList = t->al;
    t->p.AllocationListSize = 2;
    t->p.pPatchLocationList = t->pl;
    t->p.PatchLocationListSize = 4;
    t->p.PatchLocationListSubmissionStart = 1;
    t->p.PatchLocationListSubmissionLength = 2;
    t->p.SubmissionFenceId = 11;
}

static void patch_writes_addresses_of_its_range_only(void **state)
{
    fx_t *f = *state;
    patch_fx_t t;
    patch_setup(f, &t);
    uint8_t before[sizeof t.dma];
    memcpy(before, t.dma, sizeof before);
    assert_int_equal(DxgkDdiPatch(f->ad, &t.p), STATUS_SUCCESS);
    /* Locations 1 and 2: PhysicalAddress + AllocationOffset, little-endian, at PatchOffset. */
    assert_int_equal(gr_dma_get64(t.dma + 136), 0x8000 + f->seg_base[f->nseg] + 0x40);
    assert_int_equal(gr_dma_get64(t.dma + 264), 0x120000 + 0x80);
    /* Everything else is as it was, locations 0 and 3 included. */
    memcpy(before + 136, t.dma + 136, 8);
    memcpy(before + 264, t.dma + 264, 8);
    assert_memory_equal(t.dma, before, sizeof before);
    /* The packet's state exists and its tag is in the private data. */
    assert_int_equal(counts(f).packets, 1);
    assert_int_equal(gr_dma_get64(t.priv) & 0xffffffffu, 0x4b505247u);
    assert_int_not_equal(gr_dma_get64(t.priv + 8), 0);

    /* Patching the same buffer again (after a preemption, say) keeps the one packet. */
    uint8_t tag[sizeof t.priv];
    memcpy(tag, t.priv, sizeof tag);
    assert_int_equal(DxgkDdiPatch(f->ad, &t.p), STATUS_SUCCESS);
    assert_int_equal(counts(f).packets, 1);
    assert_memory_equal(t.priv, tag, sizeof tag);

    /* A paging patch comes without lists and patches nothing. */
    DXGKARG_PATCH pg;
    memset(&pg, 0, sizeof pg);
    pg.pDmaBuffer = t.dma;
    pg.DmaBufferSize = sizeof t.dma;
    pg.DmaBufferSubmissionEndOffset = 64;
    pg.Flags.Paging = 1;
    memcpy(before, t.dma, sizeof before);
    assert_int_equal(DxgkDdiPatch(f->ad, &pg), STATUS_SUCCESS);
    assert_memory_equal(t.dma, before, sizeof before);
    assert_int_equal(counts(f).packets, 1);

    /* CancelCommand frees the packet; again (a stale tag) it finds nothing and still succeeds. */
    DXGKARG_CANCELCOMMAND c;
    memset(&c, 0, sizeof c);
    c.hContext = t.ctx;
    c.pDmaBuffer = t.dma;
    c.DmaBufferSize = sizeof t.dma;
    c.pDmaBufferPrivateData = t.priv;
    c.DmaBufferPrivateDataSize = sizeof t.priv;
    c.DmaBufferPrivateDataSubmissionEndOffset = sizeof t.priv;
    assert_int_equal(DxgkDdiCancelCommand(f->ad, &c), STATUS_SUCCESS);
    assert_int_equal(counts(f).packets, 0);
    assert_int_equal(DxgkDdiCancelCommand(f->ad, &c), STATUS_SUCCESS);
    uint8_t junk[GR_KMD_DMA_PRIVATE_BYTES];
    fill_pattern(junk, sizeof junk, 3);
    c.pDmaBufferPrivateData = junk;
    assert_int_equal(DxgkDdiCancelCommand(f->ad, &c), STATUS_SUCCESS);
    assert_int_equal(DxgkDdiCancelCommand(f->ad, NULL), STATUS_SUCCESS);
    assert_int_equal(counts(f).packets, 0);
    assert_int_equal(DxgkDdiDestroyContext(t.ctx), STATUS_SUCCESS);
}

static void patch_refuses_bad_locations_and_changes_nothing(void **state)
{
    fx_t *f = *state;
    patch_fx_t t;
    patch_setup(f, &t);
    assert_int_equal(gr_kmd_create_device(f->ad, (HANDLE)&t, &f->extra_dev), STATUS_SUCCESS);
    HANDLE foreign = open_alloc(f, f->extra_dev, make_alloc(f, 4 * KIB, 0));
    enum { CASES = 17 };
    for (int i = 0; i < CASES; i++) {
        patch_fx_t b = t;
        b.p.pDmaBuffer = b.dma;
        b.p.pDmaBufferPrivateData = b.priv;
        b.p.pAllocationList = b.al;
        b.p.pPatchLocationList = b.pl;
        switch (i) {
        case 0: b.pl[1].PatchOffset = 120; break;              /* before the submission */
        case 1: b.pl[2].PatchOffset = 380; break;              /* crosses its end */
        case 2: b.pl[2].PatchOffset = 384; break;              /* at its end */
        case 3: b.pl[1].PatchOffset = 140; break;              /* not a qword */
        case 4: b.pl[2].AllocationIndex = 2; break;            /* past the allocation list */
        case 5: b.pl[1].Value |= 0x01000000u; break;           /* reserved bits */
        case 6: b.p.PatchLocationListSubmissionLength = 4; break; /* 1 + 4 > 4 */
        case 7: b.p.PatchLocationListSubmissionStart = 0xffffffffu; break; /* would wrap */
        case 8: b.al[0].hDeviceSpecificAllocation = b.ctx; break; /* not an open */
        case 9: b.al[1].hDeviceSpecificAllocation = foreign; break; /* another device's open */
        case 10: b.al[0].SegmentId = 3; break;                  /* no such segment */
        case 11: b.p.DmaBufferSubmissionEndOffset = 1024; break; /* past the buffer */
        case 12: b.p.DmaBufferSubmissionStartOffset = 132; break; /* start not a qword */
        case 13: b.p.hContext = NULL; break;                    /* render patch without context */
        case 14: b.p.DmaBufferPrivateDataSubmissionEndOffset = 8; break; /* no room for the tag */
        case 15: b.p.Flags.Reserved = 1; break;
        case 16: b.p.Flags.Paging = 1; break;                  /* paging patch with lists */
        }
        uint8_t dma0[sizeof b.dma], priv0[sizeof b.priv];
        memcpy(dma0, b.dma, sizeof dma0);
        memcpy(priv0, b.priv, sizeof priv0);
        assert_int_equal(DxgkDdiPatch(f->ad, &b.p), STATUS_INVALID_PARAMETER);
        assert_memory_equal(b.dma, dma0, sizeof dma0);
        assert_memory_equal(b.priv, priv0, sizeof priv0);
        assert_int_equal(counts(f).packets, 0);
    }
    assert_int_equal(DxgkDdiPatch(f->ad, NULL), STATUS_INVALID_PARAMETER);
    assert_int_equal(DxgkDdiPatch(NULL, &t.p), STATUS_INVALID_PARAMETER);
    /* The unchanged request still works. */
    assert_int_equal(DxgkDdiPatch(f->ad, &t.p), STATUS_SUCCESS);
    assert_int_equal(counts(f).packets, 1);
    assert_int_equal(DxgkDdiDestroyContext(t.ctx), STATUS_SUCCESS);
    assert_int_equal(counts(f).packets, 0); /* the context took its patched packet along */
}

/* ---- no engine needed: BuildPagingBuffer encodings ------------------------------------------ */

typedef struct test_mdl {
    MDL mdl;
    PFN_NUMBER pfn[64];
} test_mdl_t;

static void mdl_init(test_mdl_t *m, const uint64_t *bus, unsigned pages)
{
    memset(m, 0, sizeof *m);
    m->mdl.Size = (SHORT)(sizeof(MDL) + pages * sizeof(PFN_NUMBER));
    m->mdl.ByteCount = pages * PAGE;
    for (unsigned i = 0; i < pages; i++)
        m->pfn[i] = (PFN_NUMBER)(bus[i] >> 12);
}

static DXGKARG_BUILDPAGINGBUFFER paging_args(void *buf, UINT size, DXGK_BUILDPAGINGBUFFER_OPERATION op)
{
    DXGKARG_BUILDPAGINGBUFFER b;
    memset(&b, 0, sizeof b);
    b.pDmaBuffer = buf;
    b.DmaSize = size;
    b.Operation = op;
    return b;
}

/* Runs a paging operation to the end through buffers of `chunk` bytes, as VidMm does with
 * STATUS_GRAPHICS_INSUFFICIENT_DMA_BUFFER; the buffers' contents end up back to back in out. */
static size_t build_all(fx_t *f, DXGKARG_BUILDPAGINGBUFFER *b, uint8_t *out, size_t out_size, UINT chunk,
                        unsigned *out_calls)
{
    size_t used = 0;
    unsigned calls = 0;
    for (;;) {
        assert_true(used + chunk <= out_size);
        b->pDmaBuffer = out + used;
        b->DmaSize = chunk;
        NTSTATUS st = DxgkDdiBuildPagingBuffer(f->ad, b);
        calls++;
        size_t wrote = (size_t)((uint8_t *)b->pDmaBuffer - (out + used));
        assert_int_equal(wrote + b->DmaSize, chunk); /* pointer and size moved together */
        used += wrote;
        if (st == STATUS_SUCCESS)
            break;
        assert_int_equal(st, STATUS_GRAPHICS_INSUFFICIENT_DMA_BUFFER);
        assert_true(calls < 1000);
    }
    assert_int_equal(b->MultipassOffset, 0);
    if (out_calls)
        *out_calls = calls;
    return used;
}

static void paging_transfer_encodes_copies_and_continues_across_buffers(void **state)
{
    fx_t *f = *state;
    /* Six system pages: 0-1 and 3-4-5 consecutive frames, 2 alone. */
    const uint64_t bus[6] = {0x7000000, 0x7001000, 0x9000000, 0x5000000, 0x5001000, 0x5002000};
    test_mdl_t m;
    mdl_init(&m, bus, 6);
    static uint8_t out[8192];
    cmd_t cmds[64];

    /* VRAM -> system, from the 2nd page of the MDL (MdlOffset 1): 5 pages, 3 runs. */
    DXGKARG_BUILDPAGINGBUFFER b = paging_args(out, sizeof out, DXGK_OPERATION_TRANSFER);
    b.Transfer.TransferOffset = 0x2000;
    b.Transfer.TransferSize = 5 * PAGE;
    b.Transfer.Source.SegmentId = 1;
    b.Transfer.Source.SegmentAddress.QuadPart = 0x300000;
    b.Transfer.Destination.SegmentId = 0;
    b.Transfer.Destination.pMdl = &m.mdl;
    b.Transfer.MdlOffset = 1;
    b.Transfer.Flags.TransferStart = 1;
    b.Transfer.Flags.TransferEnd = 1;
    size_t used = build_all(f, &b, out, sizeof out, sizeof out, NULL);
    unsigned n = decode(out, used, cmds, 64);
    assert_int_equal(n, 3);
    const uint64_t want_src[3] = {0x302000, 0x303000, 0x304000};
    const uint64_t want_dst[3] = {0x7001000, 0x9000000, 0x5000000};
    const uint64_t want_len[3] = {PAGE, PAGE, 3 * PAGE};
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(cmds[i].op, GR_DMA_OP_COPY);
        assert_int_equal(cmds[i].src, GR_DMA_SPACE_VRAM);
        assert_int_equal(cmds[i].dst, GR_DMA_SPACE_HOST);
        assert_int_equal(cmds[i].q[0], want_src[i]);
        assert_int_equal(cmds[i].q[1], want_dst[i]);
        assert_int_equal(cmds[i].q[2], want_len[i]);
    }

    /* The same transfer through 40-byte buffers: one COPY (32 bytes) each, same commands. */
    static uint8_t out2[8192];
    unsigned calls = 0;
    b.MultipassOffset = 0;
    size_t used2 = build_all(f, &b, out2, sizeof out2, 40, &calls);
    assert_int_equal(calls, 3);
    assert_int_equal(used2, used);
    assert_memory_equal(out2, out, used);

    /* A move inside a segment that overlaps itself, upwards by 12 KiB: chunks of at most the
     * distance, highest first, so no chunk reads what an earlier one wrote. */
    b = paging_args(out, sizeof out, DXGK_OPERATION_TRANSFER);
    b.Transfer.TransferSize = 40 * KIB;
    b.Transfer.Source.SegmentId = 1;
    b.Transfer.Source.SegmentAddress.QuadPart = 0x400000;
    b.Transfer.Destination.SegmentId = 1;
    b.Transfer.Destination.SegmentAddress.QuadPart = 0x403000;
    used = build_all(f, &b, out, sizeof out, sizeof out, NULL);
    n = decode(out, used, cmds, 64);
    assert_int_equal(n, 4); /* 12 + 12 + 12 + 4 KiB */
    uint64_t covered = 0, prev_src = UINT64_MAX;
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(cmds[i].op, GR_DMA_OP_COPY);
        assert_int_equal(cmds[i].src, GR_DMA_SPACE_VRAM);
        assert_int_equal(cmds[i].dst, GR_DMA_SPACE_VRAM);
        assert_true(cmds[i].q[2] <= 0x3000);
        assert_int_equal(cmds[i].q[1] - cmds[i].q[0], 0x3000);
        assert_true(cmds[i].q[0] < prev_src);
        prev_src = cmds[i].q[0];
        covered += cmds[i].q[2];
    }
    assert_int_equal(covered, 40 * KIB);
    assert_int_equal(cmds[n - 1].q[0], 0x400000);
}

static void paging_fill_and_page_table_updates_decode_to_the_mmu_format(void **state)
{
    fx_t *f = *state;
    static uint8_t out[8192];
    cmd_t cmds[128];
    const uint32_t last = f->nseg;

    /* FILL: 2.5 MiB in 1 MiB commands. */
    DXGKARG_BUILDPAGINGBUFFER b = paging_args(out, sizeof out, DXGK_OPERATION_FILL);
    b.Fill.FillSize = 2 * MIB + 512 * KIB;
    b.Fill.FillPattern = 0xdeadbeef;
    b.Fill.Destination.SegmentId = last;
    b.Fill.Destination.SegmentAddress.QuadPart = (LONGLONG)(f->seg_base[last] + 0x100000);
    size_t used = build_all(f, &b, out, sizeof out, sizeof out, NULL);
    unsigned n = decode(out, used, cmds, 128);
    assert_int_equal(n, 3);
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(cmds[i].op, GR_DMA_OP_FILL);
        assert_int_equal(cmds[i].dst, GR_DMA_SPACE_VRAM);
        assert_int_equal(cmds[i].imm, 0xdeadbeef);
        assert_int_equal(cmds[i].q[0], f->seg_base[last] + 0x100000 + i * MIB);
        assert_int_equal(cmds[i].q[1], i < 2 ? MIB : 512 * KIB);
    }

    /* UPDATE_PAGE_TABLE, level 0: one store per entry, then TLB_INVALIDATE. */
    DXGK_PTE pte[4];
    memset(pte, 0, sizeof pte);
    pte[0].Valid = 1;                      /* VRAM page, writable */
    pte[0].Segment = 1;
    pte[0].PageAddress = 0x123;
    pte[1].Valid = 1;                      /* read-only, cache-coherent, last segment */
    pte[1].ReadOnly = 1;
    pte[1].CacheCoherent = 1;
    pte[1].Segment = last;
    pte[1].PageAddress = 0x10;
    pte[2].Valid = 1;                      /* system page */
    pte[2].Segment = 0;
    pte[2].PageAddress = 0xabcde;
    pte[3].Valid = 0;                      /* invalid: written as 0 */
    pte[3].PageAddress = 0x777;
    const uint64_t want[4] = {(0x123ull << 12) | 0x3, ((f->seg_base[last] + 0x10000) & ~0xfffull) | 0x9,
                              (0xabcdeull << 12) | 0x7, 0};
    b = paging_args(out, sizeof out, DXGK_OPERATION_UPDATE_PAGE_TABLE);
    b.UpdatePageTable.PageTableLevel = 0;
    b.UpdatePageTable.UpdateMode = DXGK_PAGETABLEUPDATE_GPU_PHYSICAL;
    b.UpdatePageTable.PageTableAddress.GpuPhysical.SegmentId = 1;
    b.UpdatePageTable.PageTableAddress.GpuPhysical.SegmentOffset = 0x50000;
    b.UpdatePageTable.pPageTableEntries = pte;
    b.UpdatePageTable.StartIndex = 10;
    b.UpdatePageTable.NumPageTableEntries = 4;
    /* 40-byte buffers hold one store (24) plus the reserved invalidate (8): 4 calls. */
    unsigned calls = 0;
    used = build_all(f, &b, out, sizeof out, 40, &calls);
    assert_int_equal(calls, 4);
    n = decode(out, used, cmds, 128);
    assert_int_equal(n, 5);
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(cmds[i].op, GR_DMA_OP_FENCE);
        assert_int_equal(cmds[i].dst, GR_DMA_SPACE_VRAM);
        assert_int_equal(cmds[i].flags & GR_DMA_HDR_IRQ, 0);
        assert_int_equal(cmds[i].q[0], 0x50000 + 8 * (10 + i));
        assert_int_equal(cmds[i].q[1], want[i]);
    }
    assert_int_equal(cmds[4].op, GR_DMA_OP_TLB_INVALIDATE);

    /* Level 1: a 2 MiB page and a pointer to a 64 KiB-page table; level 3: a table pointer. */
    DXGK_PTE l1[2];
    memset(l1, 0, sizeof l1);
    l1[0].Valid = 1;
    l1[0].LargePage = 1;
    l1[0].Segment = 1;
    l1[0].PageAddress = 0x400;             /* 4 MiB */
    l1[1].Valid = 1;
    l1[1].Segment = 1;
    l1[1].PageAddress = 0x61;
    l1[1].PageTablePageSize = DXGK_PTE_PAGE_TABLE_PAGE_64KB;
    b = paging_args(out, sizeof out, DXGK_OPERATION_UPDATE_PAGE_TABLE);
    b.UpdatePageTable.PageTableLevel = 1;
    b.UpdatePageTable.UpdateMode = DXGK_PAGETABLEUPDATE_GPU_PHYSICAL;
    b.UpdatePageTable.PageTableAddress.GpuPhysical.SegmentId = 1;
    b.UpdatePageTable.PageTableAddress.GpuPhysical.SegmentOffset = 0x60000;
    b.UpdatePageTable.pPageTableEntries = l1;
    b.UpdatePageTable.NumPageTableEntries = 2;
    used = build_all(f, &b, out, sizeof out, sizeof out, NULL);
    n = decode(out, used, cmds, 128);
    assert_int_equal(n, 3);
    assert_int_equal(cmds[0].q[1], 0x400000ull | 0x13); /* VALID WRITABLE LEAF */
    assert_int_equal(cmds[1].q[1], 0x61000ull | 0x21);  /* VALID PT64 */

    /* Repeat: one store, then copies doubling the run: 1 + 1 + 2 + 4 + 8 + 16 + 18 = 50. */
    DXGK_PTE one = pte[0];
    b = paging_args(out, sizeof out, DXGK_OPERATION_UPDATE_PAGE_TABLE);
    b.UpdatePageTable.PageTableLevel = 0;
    b.UpdatePageTable.UpdateMode = DXGK_PAGETABLEUPDATE_GPU_PHYSICAL;
    b.UpdatePageTable.PageTableAddress.GpuPhysical.SegmentId = 1;
    b.UpdatePageTable.PageTableAddress.GpuPhysical.SegmentOffset = 0x50000;
    b.UpdatePageTable.pPageTableEntries = &one;
    b.UpdatePageTable.StartIndex = 100;
    b.UpdatePageTable.NumPageTableEntries = 50;
    b.UpdatePageTable.Flags.Repeat = 1;
    used = build_all(f, &b, out, sizeof out, sizeof out, NULL);
    n = decode(out, used, cmds, 128);
    assert_int_equal(n, 8);
    assert_int_equal(cmds[0].op, GR_DMA_OP_FENCE);
    assert_int_equal(cmds[0].q[0], 0x50000 + 800);
    assert_int_equal(cmds[0].q[1], want[0]);
    const uint64_t runs[6] = {1, 2, 4, 8, 16, 18};
    uint64_t have = 1;
    for (unsigned i = 0; i < 6; i++) {
        assert_int_equal(cmds[1 + i].op, GR_DMA_OP_COPY);
        assert_int_equal(cmds[1 + i].q[0], 0x50000 + 800);
        assert_int_equal(cmds[1 + i].q[1], 0x50000 + 800 + 8 * have);
        assert_int_equal(cmds[1 + i].q[2], 8 * runs[i]);
        have += runs[i];
    }
    assert_int_equal(have, 50);
    assert_int_equal(cmds[7].op, GR_DMA_OP_TLB_INVALIDATE);

    /* FLUSH_TLB is one TLB_INVALIDATE; DISCARD_CONTENT writes nothing. */
    b = paging_args(out, sizeof out, DXGK_OPERATION_FLUSH_TLB);
    used = build_all(f, &b, out, sizeof out, sizeof out, NULL);
    assert_int_equal(used, 8);
    assert_int_equal(gr_dma_get64(out) & 0xff, GR_DMA_OP_TLB_INVALIDATE);
    b = paging_args(out, sizeof out, DXGK_OPERATION_DISCARD_CONTENT);
    b.DiscardContent.SegmentId = 1;
    b.DiscardContent.SegmentAddress.QuadPart = 0x10000;
    assert_int_equal(DxgkDdiBuildPagingBuffer(f->ad, &b), STATUS_SUCCESS);
    assert_ptr_equal(b.pDmaBuffer, out);
    assert_int_equal(b.DmaSize, sizeof out);
}

static void paging_refuses_bad_operations_and_writes_nothing(void **state)
{
    fx_t *f = *state;
    const uint64_t bus[2] = {0x7000000, 0x7001000};
    test_mdl_t m;
    mdl_init(&m, bus, 2);
    DXGK_PTE pte;
    memset(&pte, 0, sizeof pte);
    pte.Valid = 1;
    pte.Segment = 1;
    pte.PageAddress = 1;
    static uint8_t out[1024];
    enum { CASES = 20 };
    for (int i = 0; i < CASES; i++) {
        DXGK_PTE e = pte;
        DXGKARG_BUILDPAGINGBUFFER b = paging_args(out, sizeof out, DXGK_OPERATION_TRANSFER);
        b.Transfer.TransferSize = 2 * PAGE;
        b.Transfer.Source.SegmentId = 1;
        b.Transfer.Source.SegmentAddress.QuadPart = 0x10000;
        b.Transfer.Destination.pMdl = &m.mdl;
        NTSTATUS want = STATUS_INVALID_PARAMETER;
        switch (i) {
        case 0: b.Transfer.TransferSize = 2 * PAGE + 4; break;               /* not qwords */
        case 1: b.Transfer.TransferSize = 3 * PAGE; break;                   /* longer than the MDL */
        case 2: b.Transfer.MdlOffset = 1; break;                             /* same, from page 1 */
        case 3: b.Transfer.Source.SegmentAddress.QuadPart = (LONGLONG)f->seg_size[1] - PAGE; break;
        case 4: b.Transfer.Source.SegmentId = 3; break;                      /* no such segment */
        case 5: b.Transfer.Flags.Swizzle = 1; break;                         /* no swizzling */
        case 6: b.Transfer.Destination.pMdl = NULL; break;
        case 7: m.mdl.ByteOffset = 8; break;                                 /* not whole pages */
        case 8: b.pDmaBuffer = out + 4; break;                               /* unaligned buffer */
        case 9: b.Transfer.hAllocation = f->dev; break;                      /* not an allocation */
        case 10:
            b.Operation = DXGK_OPERATION_FILL;
            b.Fill.FillSize = PAGE;
            b.Fill.Destination.SegmentId = 1;
            b.Fill.Destination.SegmentAddress.QuadPart = (LONGLONG)f->seg_size[1]; /* past the end */
            break;
        case 11:
            b.Operation = DXGK_OPERATION_FILL;
            b.Fill.FillSize = 12;
            b.Fill.Destination.SegmentId = 1;
            break;
        case 12: e.Zero = 1; want = STATUS_NOT_SUPPORTED; break;             /* no zero pages */
        case 13: e.PhysicalAdapterIndex = 1; break;
        case 14: e.LargePage = 1; break;                                     /* level 0 large page */
        case 15: e.Segment = 3; break;
        case 16: e.PageAddress = f->seg_size[1] >> 12; break;                /* past the segment */
        case 17: want = STATUS_NOT_SUPPORTED; break;                         /* CPU-virtual update */
        case 18: b.Operation = DXGK_OPERATION_MAP_APERTURE_SEGMENT; break;   /* no aperture */
        case 19: b.Operation = DXGK_OPERATION_SIGNAL_MONITORED_FENCE; want = STATUS_NOT_SUPPORTED; break;
        }
        if (i >= 12 && i <= 17) {
            b.Operation = DXGK_OPERATION_UPDATE_PAGE_TABLE;
            memset(&b.UpdatePageTable, 0, sizeof b.UpdatePageTable);
            b.UpdatePageTable.UpdateMode = i == 17 ? DXGK_PAGETABLEUPDATE_CPU_VIRTUAL : DXGK_PAGETABLEUPDATE_GPU_PHYSICAL;
            b.UpdatePageTable.PageTableAddress.GpuPhysical.SegmentId = 1;
            b.UpdatePageTable.PageTableAddress.GpuPhysical.SegmentOffset = 0x50000;
            b.UpdatePageTable.pPageTableEntries = &e;
            b.UpdatePageTable.NumPageTableEntries = 1;
        }
        memset(out, 0xcc, sizeof out);
        DXGKARG_BUILDPAGINGBUFFER before = b;
        assert_int_equal(DxgkDdiBuildPagingBuffer(f->ad, &b), want);
        assert_memory_equal(&b, &before, sizeof b); /* pointers, sizes, progress unchanged */
        for (size_t k = 0; k < sizeof out; k++)
            assert_int_equal(out[k], 0xcc);
        m.mdl.ByteOffset = 0;
    }
    assert_int_equal(DxgkDdiBuildPagingBuffer(f->ad, NULL), STATUS_INVALID_PARAMETER);
}

static void notify_residency_is_recorded_for_explicit_residency_allocations(void **state)
{
    fx_t *f = *state;
    HANDLE k = make_alloc(f, 64 * KIB, GR_ALLOC_PRIV_PHYSICAL | GR_ALLOC_PRIV_EXPLICIT_RESIDENCY);
    HANDLE plain = make_alloc(f, 64 * KIB, 0);
    DXGKARG_BUILDPAGINGBUFFER b = paging_args(NULL, 0, DXGK_OPERATION_NOTIFY_RESIDENCY);
    b.NotifyResidency.hAllocation = k;
    b.NotifyResidency.Resident = 1;
    b.NotifyResidency.PhysicalAddress.SegmentId = f->nseg;
    b.NotifyResidency.PhysicalAddress.SegmentOffset = 0x30000;
    assert_int_equal(DxgkDdiBuildPagingBuffer(f->ad, &b), STATUS_SUCCESS);
    int resident = 0;
    uint64_t addr = 0;
    assert_int_equal(gr_kmd_alloc_residency(f->ad, k, &resident, &addr), STATUS_SUCCESS);
    assert_int_equal(resident, 1);
    assert_int_equal(addr, f->seg_base[f->nseg] + 0x30000);
    /* Eviction: the address must be (0, 0). */
    b.NotifyResidency.Resident = 0;
    assert_int_equal(DxgkDdiBuildPagingBuffer(f->ad, &b), STATUS_INVALID_PARAMETER);
    assert_int_equal(gr_kmd_alloc_residency(f->ad, k, &resident, &addr), STATUS_SUCCESS);
    assert_int_equal(resident, 1);
    memset(&b.NotifyResidency.PhysicalAddress, 0, sizeof b.NotifyResidency.PhysicalAddress);
    assert_int_equal(DxgkDdiBuildPagingBuffer(f->ad, &b), STATUS_SUCCESS);
    assert_int_equal(gr_kmd_alloc_residency(f->ad, k, &resident, &addr), STATUS_SUCCESS);
    assert_int_equal(resident, 0);
    assert_int_equal(addr, 0);
    /* Only allocations that asked for it get the notification. */
    b.NotifyResidency.hAllocation = plain;
    assert_int_equal(DxgkDdiBuildPagingBuffer(f->ad, &b), STATUS_INVALID_PARAMETER);
}

static void command_ddis_check_their_arguments(void **state)
{
    fx_t *f = *state;
    DXGKARG_QUERYCURRENTFENCE q;
    memset(&q, 0, sizeof q);
    DXGKARG_PREEMPTCOMMAND pc;
    memset(&pc, 0, sizeof pc);
    if (!f->engine) {
        /* Without the engine nothing can be queued, preempted or reset. */
        DXGKARG_SUBMITCOMMAND s;
        memset(&s, 0, sizeof s);
        assert_int_equal(DxgkDdiSubmitCommand(f->ad, &s), STATUS_DEVICE_NOT_READY);
        assert_int_equal(DxgkDdiPreemptCommand(f->ad, &pc), STATUS_DEVICE_NOT_READY);
        assert_int_equal(DxgkDdiQueryCurrentFence(f->ad, &q), STATUS_DEVICE_NOT_READY);
        assert_int_equal(DxgkDdiResetFromTimeout(f->ad), STATUS_DEVICE_NOT_READY);
        assert_int_equal(DxgkDdiRestartFromTimeout(f->ad), STATUS_DEVICE_NOT_READY);
        assert_false(DxgkDdiInterruptRoutine(f->ad, 0));
        DxgkDdiDpcRoutine(f->ad);
        assert_int_equal(f->notify_dpcs, 1); /* the DPC always ends with DxgkCbNotifyDpc */
        return;
    }
    q.NodeOrdinal = 1;
    assert_int_equal(DxgkDdiQueryCurrentFence(f->ad, &q), STATUS_INVALID_PARAMETER);
    q.NodeOrdinal = 0;
    q.EngineOrdinal = 1;
    assert_int_equal(DxgkDdiQueryCurrentFence(f->ad, &q), STATUS_INVALID_PARAMETER);
    pc.NodeOrdinal = 1;
    assert_int_equal(DxgkDdiPreemptCommand(f->ad, &pc), STATUS_INVALID_PARAMETER);
    pc.NodeOrdinal = 0;
    pc.Flags.Value = 1;
    assert_int_equal(DxgkDdiPreemptCommand(f->ad, &pc), STATUS_INVALID_PARAMETER);
    assert_int_equal(DxgkDdiResetFromTimeout(NULL), STATUS_INVALID_PARAMETER);
    assert_false(DxgkDdiInterruptRoutine(NULL, 0));
    assert_false(DxgkDdiInterruptRoutine(f->ad, 1)); /* line-based: message 0 only */
    assert_int_equal(f->nnotes, 0);
}

/* ---- on the engine ------------------------------------------------------------------------- */

/* ID_CAPS.DMA is 1 in every build (gpu_regs.rdl): a test on the engine fails, never skips,
 * when the miniport did not bring the engine up. */
#define NEEDS_ENGINE(f) assert_true((f)->engine)

/* Lets the device run for `us` simulated microseconds (or until it interrupts). */
static void run(fx_t *f, uint32_t us)
{
    bool raised = false;
    pthread_mutex_lock(&f->link_lock);
    int rc = gr_link_wait_irq(f->link, us, &raised);
    pthread_mutex_unlock(&f->link_lock);
    assert_int_equal(rc, GR_OK);
}

/* The OS's interrupt thread and DPC: ISR (without the link lock), then the queued DPC. */
static BOOLEAN service(fx_t *f)
{
    BOOLEAN mine = DxgkDdiInterruptRoutine(f->ad, 0);
    pthread_mutex_lock(&f->notes_lock);
    int dpc = f->dpc_queued;
    f->dpc_queued = 0;
    pthread_mutex_unlock(&f->notes_lock);
    if (dpc)
        DxgkDdiDpcRoutine(f->ad);
    return mine;
}

static const DXGKARGCB_NOTIFY_INTERRUPT_DATA *find_note(fx_t *f, DXGK_INTERRUPT_TYPE type, unsigned from)
{
    for (unsigned i = from; i < f->nnotes; i++)
        if (f->notes[i].InterruptType == type)
            return &f->notes[i];
    return NULL;
}

static bool completed_reported(fx_t *f, uint32_t fence)
{
    for (unsigned i = 0; i < f->nnotes; i++)
        if (f->notes[i].InterruptType == DXGK_INTERRUPT_DMA_COMPLETED &&
            (int32_t)(f->notes[i].DmaCompleted.SubmissionFenceId - fence) >= 0)
            return true;
    return false;
}

static void pump_until_completed(fx_t *f, uint32_t fence)
{
    for (unsigned i = 0; i < 4000 && !completed_reported(f, fence); i++) {
        run(f, 20);
        (void)service(f);
    }
    assert_true(completed_reported(f, fence));
}

static const DXGKARGCB_NOTIFY_INTERRUPT_DATA *pump_until_note(fx_t *f, DXGK_INTERRUPT_TYPE type, unsigned from)
{
    const DXGKARGCB_NOTIFY_INTERRUPT_DATA *d = NULL;
    for (unsigned i = 0; i < 4000 && !(d = find_note(f, type, from)); i++) {
        run(f, 20);
        (void)service(f);
    }
    assert_non_null(d);
    return d;
}

typedef struct packet {
    gr_dma_buf_t *buf;
    uint32_t bytes;
    uint8_t priv[GR_KMD_DMA_PRIVATE_BYTES];
} packet_t;

static DXGKARG_SUBMITCOMMAND submit_args(HANDLE ctx, packet_t *p, uint32_t fence)
{
    DXGKARG_SUBMITCOMMAND s;
    memset(&s, 0, sizeof s);
    s.hContext = ctx;
    s.DmaBufferPhysicalAddress.QuadPart = (LONGLONG)p->buf->bus;
    s.DmaBufferSize = (UINT)p->buf->bytes;
    s.DmaBufferSubmissionStartOffset = 0;
    s.DmaBufferSubmissionEndOffset = p->bytes;
    s.pDmaBufferPrivateData = p->priv;
    s.DmaBufferPrivateDataSize = sizeof p->priv;
    s.DmaBufferPrivateDataSubmissionEndOffset = sizeof p->priv;
    s.SubmissionFenceId = fence;
    return s;
}

static void submit(fx_t *f, HANDLE ctx, packet_t *p, uint32_t fence)
{
    DXGKARG_SUBMITCOMMAND s = submit_args(ctx, p, fence);
    assert_int_equal(DxgkDdiSubmitCommand(f->ad, &s), STATUS_SUCCESS);
}

static void submit_paging(fx_t *f, gr_dma_buf_t *buf, uint32_t start, uint32_t end, uint32_t fence)
{
    DXGKARG_SUBMITCOMMAND s;
    memset(&s, 0, sizeof s);
    s.DmaBufferPhysicalAddress.QuadPart = (LONGLONG)buf->bus;
    s.DmaBufferSize = (UINT)buf->bytes;
    s.DmaBufferSubmissionStartOffset = start;
    s.DmaBufferSubmissionEndOffset = end;
    s.SubmissionFenceId = fence;
    s.Flags.Paging = 1;
    assert_int_equal(DxgkDdiSubmitCommand(f->ad, &s), STATUS_SUCCESS);
}

static uint32_t current_fence(fx_t *f)
{
    DXGKARG_QUERYCURRENTFENCE q;
    memset(&q, 0, sizeof q);
    assert_int_equal(DxgkDdiQueryCurrentFence(f->ad, &q), STATUS_SUCCESS);
    return q.CurrentFence;
}

static void submit_reports_the_fence_and_query_current_fence_agrees(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    HANDLE ctx = make_context(f, KERNEL_CTX);
    packet_t p = {dma_buf(f, 4096), 0, {0}};
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, p.buf->cpu, p.buf->bytes);
    const uint32_t pattern = 0x5eed0000u ^ (uint32_t)seed;
    assert_int_equal(gr_dma_fill(&w, GR_DMA_SPACE_VRAM, 0x100000, 2 * KIB, pattern), 0);
    assert_int_equal(gr_dma_nop(&w), 0);
    p.bytes = (uint32_t)w.used;
    assert_int_equal(current_fence(f), 0);
    submit(f, ctx, &p, 1);
    assert_int_equal(counts(f).packets, 1);
    pump_until_completed(f, 1);
    const DXGKARGCB_NOTIFY_INTERRUPT_DATA *d = find_note(f, DXGK_INTERRUPT_DMA_COMPLETED, 0);
    assert_int_equal(d->DmaCompleted.SubmissionFenceId, 1);
    assert_int_equal(d->DmaCompleted.NodeOrdinal, 0);
    assert_int_equal(d->DmaCompleted.EngineOrdinal, 0);
    assert_true(f->notify_dpcs >= 1);
    assert_int_equal(current_fence(f), 1);
    /* Completed and retired by the DPC: the packet's state is gone. */
    assert_int_equal(counts(f).packets, 0);
    uint32_t got[512];
    vram_read(f, 0x100000, got, sizeof got);
    for (unsigned i = 0; i < 512; i++)
        assert_int_equal(got[i], pattern);
    /* A second packet of the same DMA buffer memory with a new fence. */
    memset(p.priv, 0, sizeof p.priv);
    submit(f, ctx, &p, 2);
    pump_until_completed(f, 2);
    assert_int_equal(current_fence(f), 2);
    /* Each fence was reported once. */
    unsigned n1 = 0, n2 = 0;
    for (unsigned i = 0; i < f->nnotes; i++)
        if (f->notes[i].InterruptType == DXGK_INTERRUPT_DMA_COMPLETED) {
            n1 += f->notes[i].DmaCompleted.SubmissionFenceId == 1;
            n2 += f->notes[i].DmaCompleted.SubmissionFenceId == 2;
        }
    assert_int_equal(n1, 1);
    assert_int_equal(n2, 1);
    assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
}

static void a_lost_interrupt_is_reported_by_query_current_fence(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    HANDLE ctx = make_context(f, KERNEL_CTX);
    packet_t p = {dma_buf(f, 4096), 0, {0}};
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, p.buf->cpu, p.buf->bytes);
    assert_int_equal(gr_dma_fill(&w, GR_DMA_SPACE_VRAM, 0x110000, 1 * KIB, 0x1234), 0);
    p.bytes = (uint32_t)w.used;
    submit(f, ctx, &p, 7);
    /* The interrupt routine is never called: the OS missed the interrupt. */
    uint32_t cur = 0;
    for (unsigned i = 0; i < 4000 && (cur = current_fence(f)) != 7; i++)
        run(f, 20);
    assert_int_equal(cur, 7);
    const DXGKARGCB_NOTIFY_INTERRUPT_DATA *d = find_note(f, DXGK_INTERRUPT_DMA_COMPLETED, 0);
    assert_non_null(d);
    assert_int_equal(d->DmaCompleted.SubmissionFenceId, 7);
    assert_true(f->dpc_queued);
    /* Reported once: neither a second query nor the late interrupt repeats it. */
    unsigned before = f->nnotes;
    assert_int_equal(current_fence(f), 7);
    (void)service(f);
    assert_null(find_note(f, DXGK_INTERRUPT_DMA_COMPLETED, before));
    assert_int_equal(counts(f).packets, 0);
    assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
}

/* A packet long enough to still be running when a preemption arrives: many FILLs. */
static void long_packet(packet_t *p, uint64_t vram, unsigned fills, uint32_t pattern)
{
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, p->buf->cpu, p->buf->bytes);
    for (unsigned i = 0; i < fills; i++)
        assert_int_equal(gr_dma_fill(&w, GR_DMA_SPACE_VRAM, vram + (uint64_t)i * 4 * KIB, 4 * KIB, pattern + i), 0);
    p->bytes = (uint32_t)w.used;
}

static void check_long_packet(fx_t *f, uint64_t vram, unsigned fills, uint32_t pattern)
{
    uint32_t got[1024];
    for (unsigned i = 0; i < fills; i++) {
        vram_read(f, vram + (uint64_t)i * 4 * KIB, got, sizeof got);
        for (unsigned k = 0; k < 1024; k++)
            assert_int_equal(got[k], pattern + i);
    }
}

static void preemption_reports_fences_and_removed_packets_resume(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    HANDLE ctx = make_context(f, KERNEL_CTX);

    /* Idle engine: the preemption is answered at once, without the hardware. */
    DXGKARG_PREEMPTCOMMAND pc;
    memset(&pc, 0, sizeof pc);
    pc.PreemptionFenceId = 100;
    assert_int_equal(DxgkDdiPreemptCommand(f->ad, &pc), STATUS_SUCCESS);
    const DXGKARGCB_NOTIFY_INTERRUPT_DATA *d = find_note(f, DXGK_INTERRUPT_DMA_PREEMPTED, 0);
    assert_non_null(d);
    assert_int_equal(d->DmaPreempted.PreemptionFenceId, 100);
    assert_int_equal(d->DmaPreempted.LastCompletedFenceId, 0);
    assert_true(f->dpc_queued);
    (void)service(f);

    /* Three packets: a short one, a long one, and one queued behind it. */
    packet_t a = {dma_buf(f, 4096), 0, {0}}, b = {dma_buf(f, 8192), 0, {0}}, c = {dma_buf(f, 4096), 0, {0}};
    long_packet(&a, 0x200000, 1, 0xa0000000u);
    long_packet(&b, 0x300000, 96, 0xb0000000u);
    long_packet(&c, 0x400000, 2, 0xc0000000u);
    const uint32_t cmds0 = reg_read(f, R_DMA_PERF_CMDS);
    submit(f, ctx, &a, 11);
    submit(f, ctx, &b, 12);
    submit(f, ctx, &c, 13);
    pump_until_completed(f, 11);
    run(f, 10 + (uint32_t)(seed % 97)); /* b gets some way in (how far depends on the seed) */
    unsigned from = f->nnotes;
    pc.PreemptionFenceId = 101;
    assert_int_equal(DxgkDdiPreemptCommand(f->ad, &pc), STATUS_SUCCESS);
    d = pump_until_note(f, DXGK_INTERRUPT_DMA_PREEMPTED, from);
    assert_int_equal(d->DmaPreempted.PreemptionFenceId, 101);
    const uint32_t last = d->DmaPreempted.LastCompletedFenceId;
    /* The preemption landed while b ran (96 fills take far longer than a's one). */
    assert_true(last == 11 || last == 12);
    const uint32_t stopped_at = reg_read(f, R_DMA_STOP_OFFSET);
    print_message("# preempted with fence %u completed, b stopped at byte %u of %u\n", last,
                  stopped_at, b.bytes);
    assert_int_equal(current_fence(f), last);
    /* Removed packets keep their state until they are resubmitted (or cancelled). */
    assert_int_equal(counts(f).packets, last == 11 ? 2 : 1);
    /* The OS patches what was removed again, with new fences, and resubmits it; b continues
     * where it stopped. Re-patching keeps each packet (the count does not grow). */
    const unsigned live = (unsigned)counts(f).packets;
    packet_t *again[2] = {&b, &c};
    for (unsigned i = last == 11 ? 0 : 1; i < 2; i++) {
        DXGKARG_PATCH pa;
        memset(&pa, 0, sizeof pa);
        pa.hContext = ctx;
        pa.DmaBufferPhysicalAddress.QuadPart = (LONGLONG)again[i]->buf->bus;
        pa.pDmaBuffer = again[i]->buf->cpu;
        pa.DmaBufferSize = (UINT)again[i]->buf->bytes;
        pa.DmaBufferSubmissionEndOffset = again[i]->bytes;
        pa.pDmaBufferPrivateData = again[i]->priv;
        pa.DmaBufferPrivateDataSize = sizeof again[i]->priv;
        pa.DmaBufferPrivateDataSubmissionEndOffset = sizeof again[i]->priv;
        pa.SubmissionFenceId = 14 + i;
        assert_int_equal(DxgkDdiPatch(f->ad, &pa), STATUS_SUCCESS);
        assert_int_equal(counts(f).packets, live);
        DXGKARG_SUBMITCOMMAND s = submit_args(ctx, again[i], 14 + i);
        s.Flags.Resubmission = 1;
        assert_int_equal(DxgkDdiSubmitCommand(f->ad, &s), STATUS_SUCCESS);
    }
    pump_until_completed(f, 15);
    assert_int_equal(current_fence(f), 15);
    assert_int_equal(counts(f).packets, 0);
    /* b resumed at the stopped command: every FILL completed exactly once (1 + 96 + 2); had it
     * restarted from its start, the fills before the stop would have run twice. */
    assert_int_equal(reg_read(f, R_DMA_PERF_CMDS) - cmds0, 1 + 96 + 2);
    check_long_packet(f, 0x200000, 1, 0xa0000000u);
    check_long_packet(f, 0x300000, 96, 0xb0000000u);
    check_long_packet(f, 0x400000, 2, 0xc0000000u);
    assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
}

#define R_DMA_STOP_DONE 0x33cu
#define R_DMA_PERF_BYTES_LO 0x364u

/* Patch with empty lists (the commands carry VRAM addresses): records the DMA buffer's CPU view. */
static void patch_empty(fx_t *f, HANDLE ctx, packet_t *p, uint32_t fence)
{
    DXGKARG_PATCH pa;
    memset(&pa, 0, sizeof pa);
    pa.hContext = ctx;
    pa.DmaBufferPhysicalAddress.QuadPart = (LONGLONG)p->buf->bus;
    pa.pDmaBuffer = p->buf->cpu;
    pa.DmaBufferSize = (UINT)p->buf->bytes;
    pa.DmaBufferSubmissionEndOffset = p->bytes;
    pa.pDmaBufferPrivateData = p->priv;
    pa.DmaBufferPrivateDataSize = sizeof p->priv;
    pa.DmaBufferPrivateDataSubmissionEndOffset = sizeof p->priv;
    pa.SubmissionFenceId = fence;
    assert_int_equal(DxgkDdiPatch(f->ad, &pa), STATUS_SUCCESS);
}

/* Preempts with preemption fence pf and waits for the answer. */
static void preempt_now(fx_t *f, uint32_t pf)
{
    DXGKARG_PREEMPTCOMMAND pc;
    memset(&pc, 0, sizeof pc);
    pc.PreemptionFenceId = pf;
    unsigned from = f->nnotes;
    assert_int_equal(DxgkDdiPreemptCommand(f->ad, &pc), STATUS_SUCCESS);
    const DXGKARGCB_NOTIFY_INTERRUPT_DATA *d = pump_until_note(f, DXGK_INTERRUPT_DMA_PREEMPTED, from);
    assert_int_equal(d->DmaPreempted.PreemptionFenceId, pf);
}

/*
 * A COPY cut by a preemption resumes past the bytes it wrote: the packet is stopped twice inside
 * a 1 MiB COPY (the second time inside the stub that resumed it), gr_kmd_packet_progress reports
 * it moving on each time with DMA_STOP_DONE's bytes, and in the end the engine has written every
 * byte once (DMA_PERF_BYTES), the copy is right, the FILL after it ran, the DMA buffer is as the
 * caller wrote it, and the ring works on. A WAIT that never ends reports no progress.
 */
static void a_cut_copy_resumes_past_the_bytes_it_wrote(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    HANDLE ctx = make_context(f, KERNEL_CTX);
    const uint64_t src = 0x800000, dst = 0xa00000, tail = 0xc00000;
    const size_t n = MIB;
    uint8_t *want = malloc(n), *got = malloc(n);
    assert_non_null(want);
    assert_non_null(got);
    fill_pattern(want, n, 77);
    vram_write(f, src, want, n);
    packet_t p = {dma_buf(f, 4096), 0, {0}};
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, p.buf->cpu, p.buf->bytes);
    assert_int_equal(gr_dma_copy(&w, GR_DMA_SPACE_VRAM, src, GR_DMA_SPACE_VRAM, dst, n), 0);
    assert_int_equal(gr_dma_fill(&w, GR_DMA_SPACE_VRAM, tail, 4 * KIB, 0x7a11u), 0);
    p.bytes = (uint32_t)w.used;
    uint8_t as_written[64];
    memcpy(as_written, p.buf->cpu, p.bytes);
    const uint32_t bytes0 = reg_read(f, R_DMA_PERF_BYTES_LO);
    gr_kmd_packet_progress_t pr;
    patch_empty(f, ctx, &p, 21);
    submit(f, ctx, &p, 21);
    run(f, 100 + (uint32_t)(seed % 97)); /* well inside the COPY (about 1,700 us of it) */
    preempt_now(f, 22);
    const uint32_t done1 = reg_read(f, R_DMA_STOP_DONE);
    print_message("# first stop after %u bytes of the COPY\n", done1);
    assert_true(done1 > 0 && done1 < n && done1 % 8 == 0);
    assert_int_equal(reg_read(f, R_DMA_STOP_OFFSET), 0);
    assert_int_equal(gr_kmd_packet_progress(f->ad, 21, &pr), STATUS_SUCCESS);
    assert_int_equal(pr.advanced, 1);
    assert_int_equal(pr.stops, 1);
    assert_int_equal(pr.resume_offset, 0);
    assert_int_equal(pr.resume_done, done1);
    /* Resubmitted: a stub with the rest of the COPY, then the FILL; stopped again in the stub. */
    patch_empty(f, ctx, &p, 23);
    DXGKARG_SUBMITCOMMAND s = submit_args(ctx, &p, 23);
    s.Flags.Resubmission = 1;
    assert_int_equal(DxgkDdiSubmitCommand(f->ad, &s), STATUS_SUCCESS);
    run(f, 100 + (uint32_t)(seed % 89));
    preempt_now(f, 24);
    const uint32_t done2 = reg_read(f, R_DMA_STOP_DONE);
    print_message("# second stop after %u more bytes, inside the stub\n", done2);
    assert_true(done2 > 0 && done1 + done2 < n);
    assert_int_equal(gr_kmd_packet_progress(f->ad, 23, &pr), STATUS_SUCCESS);
    assert_int_equal(pr.advanced, 1);
    assert_int_equal(pr.stops, 2);
    assert_int_equal(pr.resume_done, done1 + done2);
    assert_int_equal(gr_kmd_packet_progress(f->ad, 21, &pr), STATUS_INVALID_PARAMETER); /* stale id */
    patch_empty(f, ctx, &p, 25);
    s = submit_args(ctx, &p, 25);
    s.Flags.Resubmission = 1;
    assert_int_equal(DxgkDdiSubmitCommand(f->ad, &s), STATUS_SUCCESS);
    pump_until_completed(f, 25);
    assert_int_equal(current_fence(f), 25);
    assert_int_equal(counts(f).packets, 0);
    assert_int_equal(reg_read(f, R_DMA_PERF_BYTES_LO) - bytes0, (uint32_t)(n + 4 * KIB));
    vram_read(f, dst, got, n);
    assert_memory_equal(got, want, n);
    check_long_packet(f, tail, 1, 0x7a11u);
    assert_memory_equal(p.buf->cpu, as_written, p.bytes); /* the caller's buffer is untouched */

    /* A WAIT that never ends answers the preemption but does not move. */
    packet_t h = {dma_buf(f, 4096), 0, {0}};
    gr_dma_writer_init(&w, h.buf->cpu, h.buf->bytes);
    assert_int_equal(gr_dma_wait(&w, GR_DMA_SPACE_VRAM, tail + 8 * KIB, 1), 0);
    h.bytes = (uint32_t)w.used;
    patch_empty(f, ctx, &h, 26);
    submit(f, ctx, &h, 26);
    run(f, 50);
    preempt_now(f, 27);
    assert_int_equal(gr_kmd_packet_progress(f->ad, 26, &pr), STATUS_SUCCESS);
    assert_int_equal(pr.advanced, 0);
    assert_int_equal(pr.resume_offset, 0);
    assert_int_equal(pr.resume_done, 0);
    DXGKARG_CANCELCOMMAND cc;
    memset(&cc, 0, sizeof cc);
    cc.hContext = ctx;
    cc.pDmaBufferPrivateData = h.priv;
    cc.DmaBufferPrivateDataSize = sizeof h.priv;
    cc.DmaBufferPrivateDataSubmissionEndOffset = sizeof h.priv;
    assert_int_equal(DxgkDdiCancelCommand(f->ad, &cc), STATUS_SUCCESS);
    assert_int_equal(counts(f).packets, 0);
    /* The ring works on. */
    packet_t q = {dma_buf(f, 4096), 0, {0}};
    long_packet(&q, tail + 64 * KIB, 1, 0x9e9e0000u);
    submit(f, ctx, &q, 28);
    pump_until_completed(f, 28);
    check_long_packet(f, tail + 64 * KIB, 1, 0x9e9e0000u);
    assert_int_equal(counts(f).packets, 0);
    free(want);
    free(got);
    assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
}

static void a_preempted_paging_buffer_resumes_when_resubmitted(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    /* A 4 MiB fill is four 1 MiB FILL commands in one paging buffer. */
    gr_dma_buf_t *pb = dma_buf(f, 4096);
    DXGKARG_BUILDPAGINGBUFFER b = paging_args(pb->cpu, 4096, DXGK_OPERATION_FILL);
    b.Fill.FillSize = 4 * MIB;
    b.Fill.FillPattern = 0x12345678;
    b.Fill.Destination.SegmentId = 1;
    b.Fill.Destination.SegmentAddress.QuadPart = 0x1000000;
    assert_int_equal(DxgkDdiBuildPagingBuffer(f->ad, &b), STATUS_SUCCESS);
    const uint32_t bytes = 4096 - b.DmaSize;
    assert_int_equal(bytes, 4 * 24);
    const uint32_t cmds0 = reg_read(f, R_DMA_PERF_CMDS);
    submit_paging(f, pb, 0, bytes, 4000);
    run(f, 3000 + (uint32_t)(seed % 2000)); /* into the second or third MiB */
    DXGKARG_PREEMPTCOMMAND pc;
    memset(&pc, 0, sizeof pc);
    pc.PreemptionFenceId = 4001;
    assert_int_equal(DxgkDdiPreemptCommand(f->ad, &pc), STATUS_SUCCESS);
    const DXGKARGCB_NOTIFY_INTERRUPT_DATA *d = pump_until_note(f, DXGK_INTERRUPT_DMA_PREEMPTED, 0);
    assert_int_equal(d->DmaPreempted.PreemptionFenceId, 4001);
    assert_int_equal(d->DmaPreempted.LastCompletedFenceId, 0);
    const uint32_t stopped_at = reg_read(f, R_DMA_STOP_OFFSET);
    print_message("# paging buffer stopped at byte %u of %u\n", stopped_at, bytes);
    assert_true(stopped_at > 0 && stopped_at < bytes);
    /* Still alive, recognised by its buffer, range and fence when the OS resubmits it. */
    assert_int_equal(counts(f).packets, 1);
    DXGKARG_SUBMITCOMMAND s;
    memset(&s, 0, sizeof s);
    s.DmaBufferPhysicalAddress.QuadPart = (LONGLONG)pb->bus;
    s.DmaBufferSize = 4096;
    s.DmaBufferSubmissionEndOffset = bytes;
    s.SubmissionFenceId = 4000;
    s.Flags.Paging = 1;
    s.Flags.Resubmission = 1;
    assert_int_equal(DxgkDdiSubmitCommand(f->ad, &s), STATUS_SUCCESS);
    assert_int_equal(counts(f).packets, 1);
    pump_until_completed(f, 4000);
    assert_int_equal(counts(f).packets, 0);
    /* Resumed at the stopped FILL: four commands completed, not more. */
    assert_int_equal(reg_read(f, R_DMA_PERF_CMDS) - cmds0, 4);
    uint32_t got[256];
    for (uint64_t off = 0; off < 4 * MIB; off += 256 * KIB) {
        vram_read(f, 0x1000000 + off, got, sizeof got);
        for (unsigned k = 0; k < 256; k++)
            assert_int_equal(got[k], 0x12345678);
    }
}

static void cancel_frees_removed_packets(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    HANDLE ctx = make_context(f, KERNEL_CTX);
    packet_t b = {dma_buf(f, 8192), 0, {0}}, c = {dma_buf(f, 4096), 0, {0}};
    long_packet(&b, 0x500000, 96, 0x50000000u);
    long_packet(&c, 0x600000, 1, 0x60000000u);
    submit(f, ctx, &b, 21);
    submit(f, ctx, &c, 22);
    assert_int_equal(counts(f).packets, 2);
    run(f, 5);
    DXGKARG_PREEMPTCOMMAND pc;
    memset(&pc, 0, sizeof pc);
    pc.PreemptionFenceId = 200;
    assert_int_equal(DxgkDdiPreemptCommand(f->ad, &pc), STATUS_SUCCESS);
    const DXGKARGCB_NOTIFY_INTERRUPT_DATA *d = pump_until_note(f, DXGK_INTERRUPT_DMA_PREEMPTED, 0);
    assert_int_equal(d->DmaPreempted.PreemptionFenceId, 200);
    unsigned removed = d->DmaPreempted.LastCompletedFenceId == 21 ? 1 : 2;
    assert_int_equal(counts(f).packets, removed);
    /* The OS gives up on them: CancelCommand, once per packet. */
    packet_t *gone[2] = {&c, &b};
    for (unsigned i = 0; i < removed; i++) {
        DXGKARG_CANCELCOMMAND cc;
        memset(&cc, 0, sizeof cc);
        cc.hContext = ctx;
        cc.pDmaBuffer = gone[i]->buf->cpu;
        cc.DmaBufferSize = (UINT)gone[i]->buf->bytes;
        cc.DmaBufferSubmissionEndOffset = gone[i]->bytes;
        cc.pDmaBufferPrivateData = gone[i]->priv;
        cc.DmaBufferPrivateDataSize = sizeof gone[i]->priv;
        cc.DmaBufferPrivateDataSubmissionEndOffset = sizeof gone[i]->priv;
        assert_int_equal(DxgkDdiCancelCommand(f->ad, &cc), STATUS_SUCCESS);
    }
    assert_int_equal(counts(f).packets, 0);
    /* The engine goes on with new work. */
    memset(c.priv, 0, sizeof c.priv);
    submit(f, ctx, &c, 23);
    pump_until_completed(f, 23);
    check_long_packet(f, 0x600000, 1, 0x60000000u);
    assert_int_equal(counts(f).packets, 0);
    assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
}

/* Builds one paging operation into `buf` from `*used` on, buffer by buffer of at most `chunk`
 * bytes, submitting each filled part as its own paging submission (fences from *fence on). */
static void page_through(fx_t *f, gr_dma_buf_t *buf, size_t *used, DXGKARG_BUILDPAGINGBUFFER *b, UINT chunk,
                         uint32_t *fence)
{
    for (;;) {
        size_t start = *used;
        assert_true(start + chunk <= buf->bytes);
        b->pDmaBuffer = (uint8_t *)buf->cpu + start;
        b->DmaSize = chunk;
        NTSTATUS st = DxgkDdiBuildPagingBuffer(f->ad, b);
        size_t wrote = (size_t)((uint8_t *)b->pDmaBuffer - ((uint8_t *)buf->cpu + start));
        *used += wrote;
        if (wrote)
            submit_paging(f, buf, (uint32_t)start, (uint32_t)(start + wrote), (*fence)++);
        if (st == STATUS_SUCCESS)
            return;
        assert_int_equal(st, STATUS_GRAPHICS_INSUFFICIENT_DMA_BUFFER);
    }
}

static void paging_transfers_and_fills_move_the_bytes(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    gr_dma_buf_t *pb = dma_buf(f, 64 * KIB);
    /* System pages: one 3-page block (consecutive frames) and three loose pages. */
    gr_dma_buf_t *blk = dma_buf(f, 3 * PAGE);
    gr_dma_buf_t *loose[3] = {dma_buf(f, PAGE), dma_buf(f, PAGE), dma_buf(f, PAGE)};
    uint64_t bus[6] = {loose[2]->bus, blk->bus, blk->bus + PAGE, blk->bus + 2 * PAGE, loose[0]->bus, loose[1]->bus};
    uint8_t *cpu[6] = {loose[2]->cpu, blk->cpu, (uint8_t *)blk->cpu + PAGE, (uint8_t *)blk->cpu + 2 * PAGE,
                       loose[0]->cpu, loose[1]->cpu};
    test_mdl_t m;
    mdl_init(&m, bus, 6);
    static uint8_t src[6 * PAGE], got[6 * PAGE];
    fill_pattern(src, sizeof src, 42);
    for (int i = 0; i < 6; i++)
        memcpy(cpu[i], src + i * PAGE, PAGE);

    size_t used = 0;
    uint32_t fence = 1000;
    /* 1. FILL 24 KiB of VRAM at 0x700000 with a pattern. */
    DXGKARG_BUILDPAGINGBUFFER b = paging_args(NULL, 0, DXGK_OPERATION_FILL);
    b.Fill.FillSize = 6 * PAGE;
    b.Fill.FillPattern = 0x0badf00d;
    b.Fill.Destination.SegmentId = 1;
    b.Fill.Destination.SegmentAddress.QuadPart = 0x700000;
    page_through(f, pb, &used, &b, 4096, &fence);
    /* 2. TRANSFER system -> VRAM 0x800000, through 40-byte paging buffers (one COPY each). */
    b = paging_args(NULL, 0, DXGK_OPERATION_TRANSFER);
    b.Transfer.TransferSize = 6 * PAGE;
    b.Transfer.Source.pMdl = &m.mdl;
    b.Transfer.Destination.SegmentId = 1;
    b.Transfer.Destination.SegmentAddress.QuadPart = 0x800000;
    page_through(f, pb, &used, &b, 40, &fence);
    /* 3. TRANSFER VRAM 0x800000 -> VRAM 0x802000 (overlapping, upwards). */
    b = paging_args(NULL, 0, DXGK_OPERATION_TRANSFER);
    b.Transfer.TransferSize = 6 * PAGE;
    b.Transfer.Source.SegmentId = 1;
    b.Transfer.Source.SegmentAddress.QuadPart = 0x800000;
    b.Transfer.Destination.SegmentId = 1;
    b.Transfer.Destination.SegmentAddress.QuadPart = 0x802000;
    page_through(f, pb, &used, &b, 4096, &fence);
    pump_until_completed(f, fence - 1);
    assert_int_equal(counts(f).packets, 0);

    uint32_t words[6 * PAGE / 4];
    vram_read(f, 0x700000, words, sizeof words);
    for (size_t i = 0; i < sizeof words / 4; i++)
        assert_int_equal(words[i], 0x0badf00d);
    vram_read(f, 0x802000, got, sizeof got);
    assert_memory_equal(got, src, sizeof src);

    /* 4. TRANSFER VRAM -> system: the fill comes back into the MDL's pages. */
    b = paging_args(NULL, 0, DXGK_OPERATION_TRANSFER);
    b.Transfer.TransferSize = 6 * PAGE;
    b.Transfer.Source.SegmentId = 1;
    b.Transfer.Source.SegmentAddress.QuadPart = 0x700000;
    b.Transfer.Destination.pMdl = &m.mdl;
    page_through(f, pb, &used, &b, 4096, &fence);
    pump_until_completed(f, fence - 1);
    for (int i = 0; i < 6; i++)
        for (unsigned k = 0; k < PAGE / 4; k++)
            assert_int_equal(((uint32_t *)cpu[i])[k], 0x0badf00d);
    assert_int_equal(current_fence(f), fence - 1);
}

static void page_table_updates_land_in_vram(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    gr_dma_buf_t *pb = dma_buf(f, 16 * KIB);
    DXGK_PTE pte[8];
    memset(pte, 0, sizeof pte);
    uint64_t want[8];
    for (int i = 0; i < 8; i++) {
        pte[i].Valid = 1;
        pte[i].Segment = 1;
        pte[i].PageAddress = 0x900 + (uint64_t)i * 3;
        pte[i].ReadOnly = i & 1;
        want[i] = ((0x900ull + (uint64_t)i * 3) << 12) | 0x1 | ((i & 1) ? 0 : 0x2);
    }
    uint64_t junk[512];
    fill_pattern((uint8_t *)junk, sizeof junk, 9);
    vram_write(f, 0x900000, junk, sizeof junk);
    size_t used = 0;
    uint32_t fence = 2000;
    DXGKARG_BUILDPAGINGBUFFER b = paging_args(NULL, 0, DXGK_OPERATION_UPDATE_PAGE_TABLE);
    b.UpdatePageTable.UpdateMode = DXGK_PAGETABLEUPDATE_GPU_PHYSICAL;
    b.UpdatePageTable.PageTableAddress.GpuPhysical.SegmentId = 1;
    b.UpdatePageTable.PageTableAddress.GpuPhysical.SegmentOffset = 0x900000;
    b.UpdatePageTable.pPageTableEntries = pte;
    b.UpdatePageTable.StartIndex = 5;
    b.UpdatePageTable.NumPageTableEntries = 8;
    page_through(f, pb, &used, &b, 64, &fence);
    /* And 300 copies of one invalid entry from index 200. */
    DXGK_PTE none;
    memset(&none, 0, sizeof none);
    b.UpdatePageTable.pPageTableEntries = &none;
    b.UpdatePageTable.StartIndex = 200;
    b.UpdatePageTable.NumPageTableEntries = 300;
    b.UpdatePageTable.Flags.Repeat = 1;
    page_through(f, pb, &used, &b, 4096, &fence);
    pump_until_completed(f, fence - 1);
    uint64_t table[512];
    vram_read(f, 0x900000, table, sizeof table);
    for (unsigned i = 0; i < 512; i++) {
        uint64_t expect = junk[i];
        if (i >= 5 && i < 13)
            expect = want[i - 5];
        else if (i >= 200 && i < 500)
            expect = 0;
        assert_int_equal(table[i], expect);
    }
}

/* One UPDATE_PAGE_TABLE through the engine: entry `index` of the level-`level` table at VRAM
 * address `table` (segment 1) points at `target` (a table, or the page for level 0). */
static void map_entry(fx_t *f, gr_dma_buf_t *pb, size_t *used, uint32_t *fence, UINT level,
                      uint64_t table, UINT index, uint64_t target)
{
    DXGK_PTE e;
    memset(&e, 0, sizeof e);
    e.Valid = 1;
    e.Segment = 1;
    e.PageAddress = target >> 12;
    DXGKARG_BUILDPAGINGBUFFER b = paging_args(NULL, 0, DXGK_OPERATION_UPDATE_PAGE_TABLE);
    b.UpdatePageTable.PageTableLevel = level;
    b.UpdatePageTable.UpdateMode = DXGK_PAGETABLEUPDATE_GPU_PHYSICAL;
    b.UpdatePageTable.PageTableAddress.GpuPhysical.SegmentId = 1;
    b.UpdatePageTable.PageTableAddress.GpuPhysical.SegmentOffset = table;
    b.UpdatePageTable.pPageTableEntries = &e;
    b.UpdatePageTable.StartIndex = index;
    b.UpdatePageTable.NumPageTableEntries = 1;
    page_through(f, pb, used, &b, 4096, fence);
}

static void a_context_root_translates_its_gpu_virtual_addresses(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    /* Four tables (L3..L0) written by paging buffers: VA 0x40000000 -> VRAM page 0xd00000. */
    const uint64_t t3 = 0xe00000, t2 = 0xe01000, t1 = 0xe02000, t0 = 0xe03000, page = 0xd00000;
    const uint64_t va = 0x40000000;
    gr_dma_buf_t *pb = dma_buf(f, 16 * KIB);
    size_t used = 0;
    uint32_t fence = 3000;
    DXGKARG_BUILDPAGINGBUFFER b = paging_args(NULL, 0, DXGK_OPERATION_FILL);
    b.Fill.FillSize = 4 * PAGE;
    b.Fill.Destination.SegmentId = 1;
    b.Fill.Destination.SegmentAddress.QuadPart = (LONGLONG)t3;
    page_through(f, pb, &used, &b, 4096, &fence);
    map_entry(f, pb, &used, &fence, 3, t3, 0, t2);                     /* VA[47:39] = 0 */
    map_entry(f, pb, &used, &fence, 2, t2, (UINT)(va >> 30) & 511, t1); /* VA[38:30] = 1 */
    map_entry(f, pb, &used, &fence, 1, t1, 0, t0);
    map_entry(f, pb, &used, &fence, 0, t0, 0, page);
    uint8_t junk[PAGE];
    fill_pattern(junk, sizeof junk, 5);
    vram_write(f, page, junk, sizeof junk);
    pump_until_completed(f, fence - 1);

    HANDLE ctx = make_context(f, 0x4);
    DXGKARG_SETROOTPAGETABLE r;
    memset(&r, 0, sizeof r);
    r.hContext = ctx;
    r.Address.SegmentId = 1;
    r.Address.SegmentOffset = t3;
    r.NumEntries = 512;
    DxgkDdiSetRootPageTable(f->ad, &r);
    /* The context's packet writes through its VA space: the ring entry carries the root. */
    packet_t p = {dma_buf(f, 4096), 0, {0}};
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, p.buf->cpu, p.buf->bytes);
    assert_int_equal(gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, va + 0x100, 256, 0x600dcafe), 0);
    p.bytes = (uint32_t)w.used;
    submit(f, ctx, &p, fence);
    pump_until_completed(f, fence);
    uint8_t got[PAGE];
    vram_read(f, page, got, sizeof got);
    for (unsigned i = 0; i < PAGE; i++) {
        if (i >= 0x100 && i < 0x200)
            assert_int_equal(got[i], ((const uint8_t[]){0xfe, 0xca, 0x0d, 0x60})[i % 4]);
        else
            assert_int_equal(got[i], junk[i]);
    }

    /* An unmapped VA faults: DMA_PAGE_FAULTED with the address, a write, the packet's fence. */
    packet_t bad = {dma_buf(f, 4096), 0, {0}};
    gr_dma_writer_init(&w, bad.buf->cpu, bad.buf->bytes);
    assert_int_equal(gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, 0x80000000, 64, 1), 0);
    bad.bytes = (uint32_t)w.used;
    unsigned from = f->nnotes;
    submit(f, ctx, &bad, fence + 1);
    const DXGKARGCB_NOTIFY_INTERRUPT_DATA *d = pump_until_note(f, DXGK_INTERRUPT_DMA_PAGE_FAULTED, from);
    assert_int_equal(d->DmaPageFaulted.FaultedFenceId, fence + 1);
    assert_int_equal(d->DmaPageFaulted.FaultedVirtualAddress, 0x80000000);
    assert_int_equal(d->DmaPageFaulted.FaultErrorCode.IsDeviceSpecificCode, 0);
    assert_int_equal(d->DmaPageFaulted.FaultErrorCode.GeneralErrorCode, DXGK_GENERAL_ERROR_PAGE_FAULT);
    assert_int_equal(d->DmaPageFaulted.PageFaultFlags,
                     DXGK_PAGE_FAULT_ENGINE_RESET_REQUIRED | DXGK_PAGE_FAULT_WRITE);
    assert_int_equal(DxgkDdiResetFromTimeout(f->ad), STATUS_SUCCESS);
    assert_int_equal(DxgkDdiRestartFromTimeout(f->ad), STATUS_SUCCESS);
    assert_int_equal(counts(f).packets, 0);
    assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
}

/*
 * A user context's packets run unprivileged (no PRIV in the ring entry): a VRAM-physical FILL
 * is a privilege fault, reported as DMA_PAGE_FAULTED with INVALID_INSTRUCTION, and writes
 * nothing; Patch refuses patch locations for it (they would be physical addresses); a user
 * context without a root page table cannot submit at all.
 */
static void user_contexts_run_unprivileged(void **state)
{
    fx_t *f = *state;
    HANDLE ctx = make_context(f, USER_CTX);
    /* Patch: locations refused, nothing written; with none, the packet is made. */
    patch_fx_t t;
    patch_setup(f, &t);
    t.p.hContext = ctx;
    uint8_t before[sizeof t.dma];
    memcpy(before, t.dma, sizeof before);
    const uint32_t packets = counts(f).packets;
    assert_int_equal(DxgkDdiPatch(f->ad, &t.p), STATUS_INVALID_PARAMETER);
    assert_memory_equal(t.dma, before, sizeof before);
    assert_int_equal(counts(f).packets, packets);
    t.p.PatchLocationListSubmissionLength = 0;
    assert_int_equal(DxgkDdiPatch(f->ad, &t.p), STATUS_SUCCESS);
    assert_memory_equal(t.dma, before, sizeof before);
    DXGKARG_CANCELCOMMAND c;
    memset(&c, 0, sizeof c);
    c.hContext = ctx;
    c.pDmaBuffer = t.dma;
    c.DmaBufferSize = sizeof t.dma;
    c.pDmaBufferPrivateData = t.priv;
    c.DmaBufferPrivateDataSize = sizeof t.priv;
    c.DmaBufferPrivateDataSubmissionEndOffset = sizeof t.priv;
    assert_int_equal(DxgkDdiCancelCommand(f->ad, &c), STATUS_SUCCESS);
    assert_int_equal(counts(f).packets, packets);
    if (!f->engine) {
        assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
        assert_int_equal(DxgkDdiDestroyContext(t.ctx), STATUS_SUCCESS);
        return;
    }
    /* No root: nothing it could name is its own. */
    packet_t p = {dma_buf(f, 4096), 0, {0}};
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, p.buf->cpu, p.buf->bytes);
    assert_int_equal(gr_dma_fill(&w, GR_DMA_SPACE_VRAM, 0x1c0000, 256, 0xbadbad00u), 0);
    p.bytes = (uint32_t)w.used;
    const uint32_t tail = reg_read(f, GR_REG_DMA_RING_TAIL);
    DXGKARG_SUBMITCOMMAND s = submit_args(ctx, &p, 4000);
    assert_int_equal(DxgkDdiSubmitCommand(f->ad, &s), STATUS_INVALID_PARAMETER);
    assert_int_equal(reg_read(f, GR_REG_DMA_RING_TAIL), tail);
    /* With a root, the packet reaches the engine, which refuses its physical destination. */
    DXGKARG_SETROOTPAGETABLE r;
    memset(&r, 0, sizeof r);
    r.hContext = ctx;
    r.Address.SegmentId = 1;
    r.Address.SegmentOffset = 0xe00000;
    r.NumEntries = 512;
    DxgkDdiSetRootPageTable(f->ad, &r);
    uint8_t junk[256], got[256];
    fill_pattern(junk, sizeof junk, 9);
    vram_write(f, 0x1c0000, junk, sizeof junk);
    unsigned from = f->nnotes;
    submit(f, ctx, &p, 4000);
    const DXGKARGCB_NOTIFY_INTERRUPT_DATA *d = pump_until_note(f, DXGK_INTERRUPT_DMA_PAGE_FAULTED, from);
    assert_int_equal(d->DmaPageFaulted.FaultedFenceId, 4000);
    assert_int_equal(d->DmaPageFaulted.FaultedVirtualAddress, 0);
    assert_int_equal(d->DmaPageFaulted.FaultErrorCode.IsDeviceSpecificCode, 0);
    assert_int_equal(d->DmaPageFaulted.FaultErrorCode.GeneralErrorCode, DXGK_GENERAL_ERROR_INVALID_INSTRUCTION);
    assert_int_equal(GR_FIELD_GET(DMA_FAULT_STATUS, TYPE, reg_read(f, GR_REG_DMA_FAULT_STATUS)), GR_DMA_FAULT_PRIVILEGE);
    vram_read(f, 0x1c0000, got, sizeof got);
    assert_memory_equal(got, junk, sizeof junk);
    assert_int_equal(DxgkDdiResetFromTimeout(f->ad), STATUS_SUCCESS);
    assert_int_equal(DxgkDdiRestartFromTimeout(f->ad), STATUS_SUCCESS);
    /* The same commands on the system context run: the miniport marks its packets PRIV. */
    HANDLE sys = make_context(f, KERNEL_CTX);
    submit(f, sys, &p, 4001);
    pump_until_completed(f, 4001);
    vram_read(f, 0x1c0000, got, sizeof got);
    for (unsigned i = 0; i < sizeof got; i++)
        assert_int_equal(got[i], ((const uint8_t[]){0x00, 0xad, 0xdb, 0xba})[i % 4]);
    assert_int_equal(counts(f).packets, 0);
    assert_int_equal(DxgkDdiDestroyContext(sys), STATUS_SUCCESS);
    assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
    assert_int_equal(DxgkDdiDestroyContext(t.ctx), STATUS_SUCCESS);
}

static void reset_from_timeout_stops_a_hung_wait_and_keeps_vram(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    HANDLE ctx = make_context(f, KERNEL_CTX);
    static uint8_t keep[8 * KIB], got[8 * KIB];
    fill_pattern(keep, sizeof keep, 77);
    vram_write(f, 0xa00000, keep, sizeof keep);
    /* WAIT for a host qword that stays 0 to reach 1: it never ends. */
    gr_dma_buf_t *flag = dma_buf(f, PAGE);
    memset(flag->cpu, 0, PAGE);
    packet_t h = {dma_buf(f, 4096), 0, {0}}, after = {dma_buf(f, 4096), 0, {0}};
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, h.buf->cpu, h.buf->bytes);
    assert_int_equal(gr_dma_wait(&w, GR_DMA_SPACE_HOST, flag->bus, 1), 0);
    h.bytes = (uint32_t)w.used;
    long_packet(&after, 0xb00000, 1, 0x77000000u);
    submit(f, ctx, &h, 31);
    submit(f, ctx, &after, 32);
    for (int i = 0; i < 50; i++) {
        run(f, 20);
        (void)service(f);
    }
    assert_int_equal(current_fence(f), 0);
    assert_int_equal(counts(f).packets, 2);
    /* The OS's timeout: reset. The engine is idle when it returns, its packets are gone. */
    assert_int_equal(DxgkDdiResetFromTimeout(f->ad), STATUS_SUCCESS);
    uint32_t st = reg_read(f, R_DMA_STATUS);
    assert_true(st & DMA_STATUS_IDLE);
    assert_false(st & DMA_STATUS_RESETTING);
    assert_int_equal(reg_read(f, R_DMA_RING_HEAD) & 0xff, reg_read(f, R_DMA_RING_TAIL) & 0xff);
    assert_int_equal(counts(f).packets, 0);
    vram_read(f, 0xa00000, got, sizeof got);
    assert_memory_equal(got, keep, sizeof keep);
    assert_int_equal(counts(f).contexts, 1);
    /* Restart; new work runs. */
    assert_int_equal(DxgkDdiRestartFromTimeout(f->ad), STATUS_SUCCESS);
    memset(after.priv, 0, sizeof after.priv);
    submit(f, ctx, &after, 33);
    pump_until_completed(f, 33);
    check_long_packet(f, 0xb00000, 1, 0x77000000u);
    assert_int_equal(counts(f).packets, 0);
    assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
}

static void a_full_ring_refuses_more_and_changes_nothing(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    HANDLE ctx = make_context(f, KERNEL_CTX);
    /* The first packet WAITs for ever, so nothing behind it completes. */
    gr_dma_buf_t *flag = dma_buf(f, PAGE);
    memset(flag->cpu, 0, PAGE);
    gr_dma_buf_t *buf = dma_buf(f, 4096);
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, buf->cpu, buf->bytes);
    assert_int_equal(gr_dma_wait(&w, GR_DMA_SPACE_HOST, flag->bus, 1), 0);
    assert_int_equal(gr_dma_nop(&w), 0);
    static uint8_t priv[GR_KMD_RING_CAPACITY + 1][GR_KMD_DMA_PRIVATE_BYTES];
    memset(priv, 0, sizeof priv);
    for (unsigned i = 0; i <= GR_KMD_RING_CAPACITY; i++) {
        DXGKARG_SUBMITCOMMAND s;
        memset(&s, 0, sizeof s);
        s.hContext = ctx;
        s.DmaBufferPhysicalAddress.QuadPart = (LONGLONG)buf->bus;
        s.DmaBufferSize = (UINT)buf->bytes;
        s.DmaBufferSubmissionStartOffset = i == 0 ? 0 : 24; /* the WAIT, then NOPs */
        s.DmaBufferSubmissionEndOffset = i == 0 ? 24 : 32;
        s.pDmaBufferPrivateData = priv[i];
        s.DmaBufferPrivateDataSize = sizeof priv[i];
        s.DmaBufferPrivateDataSubmissionEndOffset = sizeof priv[i];
        s.SubmissionFenceId = 60 + i;
        if (i < GR_KMD_RING_CAPACITY) {
            assert_int_equal(DxgkDdiSubmitCommand(f->ad, &s), STATUS_SUCCESS);
            continue;
        }
        /* The 256th: the ring keeps one slot free; refused, nothing queued or allocated. */
        const uint32_t tail = reg_read(f, R_DMA_RING_TAIL);
        assert_int_equal(counts(f).packets, GR_KMD_RING_CAPACITY);
        assert_int_equal(DxgkDdiSubmitCommand(f->ad, &s), STATUS_INSUFFICIENT_RESOURCES);
        assert_int_equal(reg_read(f, R_DMA_RING_TAIL), tail);
        assert_int_equal(counts(f).packets, GR_KMD_RING_CAPACITY);
        for (unsigned k = 0; k < sizeof priv[i]; k++)
            assert_int_equal(priv[i][k], 0);
    }
    assert_int_equal(current_fence(f), 0);
    /* Once the WAIT is satisfied everything drains, and the refused packet goes through. */
    gr_dma_put64(flag->cpu, 1);
    pump_until_completed(f, 60 + GR_KMD_RING_CAPACITY - 1);
    assert_int_equal(counts(f).packets, 0);
    DXGKARG_SUBMITCOMMAND s;
    memset(&s, 0, sizeof s);
    s.hContext = ctx;
    s.DmaBufferPhysicalAddress.QuadPart = (LONGLONG)buf->bus;
    s.DmaBufferSize = (UINT)buf->bytes;
    s.DmaBufferSubmissionStartOffset = 24;
    s.DmaBufferSubmissionEndOffset = 32;
    s.pDmaBufferPrivateData = priv[GR_KMD_RING_CAPACITY];
    s.DmaBufferPrivateDataSize = GR_KMD_DMA_PRIVATE_BYTES;
    s.DmaBufferPrivateDataSubmissionEndOffset = GR_KMD_DMA_PRIVATE_BYTES;
    s.SubmissionFenceId = 60 + GR_KMD_RING_CAPACITY;
    assert_int_equal(DxgkDdiSubmitCommand(f->ad, &s), STATUS_SUCCESS);
    pump_until_completed(f, 60 + GR_KMD_RING_CAPACITY);
    assert_int_equal(counts(f).packets, 0);
    assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
}

static void watchdog_hang_is_an_engine_timeout_and_a_bad_command_a_fault(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    HANDLE ctx = make_context(f, KERNEL_CTX);
    uint32_t dog = reg_read(f, R_DMA_WATCHDOG);
    reg_write(f, R_DMA_WATCHDOG, 4000);
    gr_dma_buf_t *flag = dma_buf(f, PAGE);
    memset(flag->cpu, 0, PAGE);
    packet_t h = {dma_buf(f, 4096), 0, {0}};
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, h.buf->cpu, h.buf->bytes);
    assert_int_equal(gr_dma_wait(&w, GR_DMA_SPACE_HOST, flag->bus, 1), 0);
    h.bytes = (uint32_t)w.used;
    submit(f, ctx, &h, 41);
    (void)pump_until_note(f, DXGK_INTERRUPT_GPU_ENGINE_TIMEOUT, 0);
    assert_true(reg_read(f, R_DMA_STATUS) & DMA_STATUS_HUNG);
    assert_int_equal(DxgkDdiResetFromTimeout(f->ad), STATUS_SUCCESS);
    assert_int_equal(DxgkDdiRestartFromTimeout(f->ad), STATUS_SUCCESS);
    assert_false(reg_read(f, R_DMA_STATUS) & DMA_STATUS_HUNG);
    reg_write(f, R_DMA_WATCHDOG, dog);

    /* An unknown opcode: DMA_PAGE_FAULTED naming the packet's fence, an invalid instruction. */
    packet_t bad = {dma_buf(f, 4096), 16, {0}};
    gr_dma_put64(bad.buf->cpu, 0xee);
    gr_dma_put64((uint8_t *)bad.buf->cpu + 8, 0);
    unsigned from = f->nnotes;
    submit(f, ctx, &bad, 42);
    const DXGKARGCB_NOTIFY_INTERRUPT_DATA *d = pump_until_note(f, DXGK_INTERRUPT_DMA_PAGE_FAULTED, from);
    assert_int_equal(d->DmaPageFaulted.FaultedFenceId, 42);
    assert_int_equal(d->DmaPageFaulted.FaultErrorCode.IsDeviceSpecificCode, 0);
    assert_int_equal(d->DmaPageFaulted.FaultErrorCode.GeneralErrorCode, DXGK_GENERAL_ERROR_INVALID_INSTRUCTION);
    assert_int_equal(d->DmaPageFaulted.FaultedVirtualAddress, 0);
    assert_true(d->DmaPageFaulted.PageFaultFlags & DXGK_PAGE_FAULT_ENGINE_RESET_REQUIRED);
    assert_true(reg_read(f, R_DMA_STATUS) & DMA_STATUS_FAULTED);
    assert_int_equal(DxgkDdiResetFromTimeout(f->ad), STATUS_SUCCESS);
    assert_int_equal(DxgkDdiRestartFromTimeout(f->ad), STATUS_SUCCESS);
    assert_int_equal(counts(f).packets, 0);
    assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
}

/*
 * The engine's watchdog allows the link's longest DMA answer (kmd_engine.c): on sim:// it keeps
 * its reset value, on a byte-stream link it gets HELLO_RSP's DmaTimeout on top.
 */
static void the_watchdog_allows_the_links_longest_dma_answer(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    pthread_mutex_lock(&f->link_lock);
    const uint64_t wait = gr_link_dma_wait_cycles(f->link);
    /* sim:// and PCIe: the device reaches host memory with no link in between to wait for */
    const bool no_wait = !strcmp(gr_link_scheme(f->link), "sim") || !strcmp(gr_link_scheme(f->link), "pcie");
    pthread_mutex_unlock(&f->link_lock);
    const uint64_t reset = GPU_REGS__DMA_WATCHDOG__CYCLES_reset;
    print_message("# link %s: DMA wait %llu cycles, DMA_WATCHDOG %u\n", uri, (unsigned long long)wait,
                  reg_read(f, R_DMA_WATCHDOG));
    if (no_wait) {
        assert_int_equal(wait, 0);
        assert_int_equal(reg_read(f, R_DMA_WATCHDOG), reset);
    } else {
        assert_true(wait >= reset); /* the boards' DmaTimeout: 16M cycles */
        assert_int_equal(reg_read(f, R_DMA_WATCHDOG), wait + reset > UINT32_MAX ? UINT32_MAX : wait + reset);
    }
}

/*
 * The engine's DMA answers share the host-to-device direction with BAR1 writes. A COPY from
 * host memory runs while the host writes 16 KiB through BAR1: on the UART its answers wait
 * behind up to a receive window of those frames (over a million cycles), which the watchdog's
 * reset value took for a hang. The COPY completes, nothing hangs, and both writes land.
 */
static void dma_answers_held_back_by_a_long_bar1_write_are_not_a_hang(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    HANDLE ctx = make_context(f, KERNEL_CTX);
    enum { DMA_BYTES = 4 * 1024, BAR1_BYTES = 8 * 1024 };
    static uint8_t bar1[BAR1_BYTES], got[BAR1_BYTES];
    gr_dma_buf_t *src = dma_buf(f, DMA_BYTES);
    fill_pattern(src->cpu, DMA_BYTES, 91);
    fill_pattern(bar1, BAR1_BYTES, 92);
    packet_t p = {dma_buf(f, 4096), 0, {0}};
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, p.buf->cpu, p.buf->bytes);
    assert_int_equal(gr_dma_copy(&w, GR_DMA_SPACE_HOST, src->bus, GR_DMA_SPACE_VRAM, 0xc00000, DMA_BYTES), 0);
    p.bytes = (uint32_t)w.used;
    const unsigned from = f->nnotes;
    submit(f, ctx, &p, 51);
    vram_write(f, 0xd00000, bar1, BAR1_BYTES);
    for (unsigned i = 0; i < 40000 && !completed_reported(f, 51) && !find_note(f, DXGK_INTERRUPT_GPU_ENGINE_TIMEOUT, from);
         i++) {
        run(f, 20);
        (void)service(f);
    }
    assert_null(find_note(f, DXGK_INTERRUPT_GPU_ENGINE_TIMEOUT, from));
    assert_false(reg_read(f, R_DMA_STATUS) & DMA_STATUS_HUNG);
    assert_true(completed_reported(f, 51));
    vram_read(f, 0xc00000, got, DMA_BYTES);
    assert_memory_equal(got, src->cpu, DMA_BYTES);
    vram_read(f, 0xd00000, got, BAR1_BYTES);
    assert_memory_equal(got, bar1, BAR1_BYTES);
    assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
}

static void bad_submissions_are_refused_and_queue_nothing(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    HANDLE ctx = make_context(f, KERNEL_CTX);
    packet_t p = {dma_buf(f, 4096), 0, {0}};
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, p.buf->cpu, p.buf->bytes);
    assert_int_equal(gr_dma_nop(&w), 0);
    assert_int_equal(gr_dma_nop(&w), 0);
    p.bytes = (uint32_t)w.used;
    const uint32_t tail = reg_read(f, R_DMA_RING_TAIL);
    enum { CASES = 10 };
    for (int i = 0; i < CASES; i++) {
        DXGKARG_SUBMITCOMMAND s = submit_args(ctx, &p, 51);
        switch (i) {
        case 0: s.DmaBufferSubmissionEndOffset = 12; break;      /* not a multiple of 8 */
        case 1: s.DmaBufferSubmissionStartOffset = 4; break;     /* misaligned start */
        case 2: s.DmaBufferSubmissionEndOffset = 8192; break;    /* past the buffer */
        case 3: s.hContext = f->dev; break;                      /* not a context */
        case 4: s.hContext = NULL; break;                        /* render without context */
        case 5: s.Flags.Flip = 1; break;                         /* no display */
        case 6: s.DmaBufferSegmentId = 1; break;                 /* DMA buffers are in system memory */
        case 7: s.DmaBufferPrivateDataSubmissionEndOffset = 8; break; /* no room for the tag */
        case 8: s.NodeOrdinal = 1; break;
        case 9: s.Flags.Reserved = 1; break;
        }
        uint8_t priv0[sizeof p.priv];
        memcpy(priv0, p.priv, sizeof priv0);
        assert_int_equal(DxgkDdiSubmitCommand(f->ad, &s), STATUS_INVALID_PARAMETER);
        assert_memory_equal(p.priv, priv0, sizeof priv0);
        assert_int_equal(reg_read(f, R_DMA_RING_TAIL), tail);
        assert_int_equal(counts(f).packets, 0);
    }
    assert_int_equal(DxgkDdiSubmitCommand(f->ad, NULL), STATUS_INVALID_PARAMETER);
    submit(f, ctx, &p, 51);
    pump_until_completed(f, 51);
    assert_int_equal(counts(f).packets, 0);
    assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
}

/* The OS's interrupt thread for the concurrent test: line, ISR, DPC, until told to stop. */
typedef struct irq_thread {
    fx_t *f;
    atomic_int stop;
    unsigned claimed;
} irq_thread_t;

static void *irq_main(void *arg)
{
    irq_thread_t *t = arg;
    fx_t *f = t->f;
    while (!atomic_load(&t->stop)) {
        bool raised = false;
        pthread_mutex_lock(&f->link_lock);
        (void)gr_link_wait_irq(f->link, 5, &raised);
        pthread_mutex_unlock(&f->link_lock);
        if (raised && DxgkDdiInterruptRoutine(f->ad, 0))
            t->claimed++;
        pthread_mutex_lock(&f->notes_lock);
        int dpc = f->dpc_queued;
        f->dpc_queued = 0;
        pthread_mutex_unlock(&f->notes_lock);
        if (dpc)
            DxgkDdiDpcRoutine(f->ad);
    }
    return NULL;
}

static uint32_t newest(fx_t *f)
{
    pthread_mutex_lock(&f->notes_lock);
    uint32_t n = f->completions ? f->newest_completed : 0;
    pthread_mutex_unlock(&f->notes_lock);
    return n;
}

static void concurrent_submissions_and_interrupts_retire_every_packet(void **state)
{
    fx_t *f = *state;
    NEEDS_ENGINE(f);
    enum { PACKETS = 600, IN_FLIGHT = 40 };
    HANDLE ctx = make_context(f, KERNEL_CTX);
    /* One FILL per packet, each packet its own 24-byte range of one DMA buffer. */
    gr_dma_buf_t *buf = dma_buf(f, PACKETS * 24);
    static uint8_t priv[PACKETS][GR_KMD_DMA_PRIVATE_BYTES];
    memset(priv, 0, sizeof priv);
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, buf->cpu, buf->bytes);
    for (unsigned i = 0; i < PACKETS; i++)
        assert_int_equal(gr_dma_fill(&w, GR_DMA_SPACE_VRAM, 0xc00000 + (uint64_t)i * 256, 256,
                                     0xf0000000u + i), 0);
    irq_thread_t t = {f, 0, 0};
    atomic_init(&t.stop, 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, irq_main, &t), 0);
    /* The ring (256 entries) wraps twice; the scheduler keeps IN_FLIGHT packets queued. */
    for (unsigned i = 0; i < PACKETS; i++) {
        const uint32_t fence = 5000 + i;
        for (unsigned spin = 0; fence - newest(f) > IN_FLIGHT && fence > 5000 + IN_FLIGHT; spin++) {
            assert_true(spin < 2000000);
            sched_yield();
        }
        DXGKARG_SUBMITCOMMAND s;
        memset(&s, 0, sizeof s);
        s.hContext = ctx;
        s.DmaBufferPhysicalAddress.QuadPart = (LONGLONG)buf->bus;
        s.DmaBufferSize = (UINT)buf->bytes;
        s.DmaBufferSubmissionStartOffset = i * 24;
        s.DmaBufferSubmissionEndOffset = i * 24 + 24;
        s.pDmaBufferPrivateData = priv[i];
        s.DmaBufferPrivateDataSize = sizeof priv[i];
        s.DmaBufferPrivateDataSubmissionEndOffset = sizeof priv[i];
        s.SubmissionFenceId = fence;
        assert_int_equal(DxgkDdiSubmitCommand(f->ad, &s), STATUS_SUCCESS);
    }
    for (unsigned spin = 0; newest(f) != 5000 + PACKETS - 1; spin++) {
        assert_true(spin < 5000000);
        sched_yield();
    }
    atomic_store(&t.stop, 1);
    assert_int_equal(pthread_join(th, NULL), 0);
    (void)service(f); /* the last DPC, if the thread stopped between ISR and DPC */
    assert_int_equal(f->out_of_order, 0);
    assert_true(t.claimed >= 1);
    assert_int_equal(current_fence(f), 5000 + PACKETS - 1);
    assert_int_equal(counts(f).packets, 0);
    uint32_t got[64];
    for (unsigned i = 0; i < PACKETS; i += 37) {
        vram_read(f, 0xc00000 + (uint64_t)i * 256, got, sizeof got);
        for (unsigned k = 0; k < 64; k++)
            assert_int_equal(got[k], 0xf0000000u + i);
    }
    assert_int_equal(DxgkDdiDestroyContext(ctx), STATUS_SUCCESS);
}

int main(int argc, char **argv)
{
    seed = sf_start(argc, argv, "test_kmd_submit", uri, sizeof uri);
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(engine_is_up_exactly_when_the_build_has_one),
        T(driver_caps_describe_one_preemptible_cancel_aware_node),
        T(create_context_fills_context_info_and_refuses_bad_requests),
        T(set_root_page_table_takes_vram_roots_and_ignores_bad_ones),
        T(patch_writes_addresses_of_its_range_only),
        T(patch_refuses_bad_locations_and_changes_nothing),
        T(paging_transfer_encodes_copies_and_continues_across_buffers),
        T(paging_fill_and_page_table_updates_decode_to_the_mmu_format),
        T(paging_refuses_bad_operations_and_writes_nothing),
        T(notify_residency_is_recorded_for_explicit_residency_allocations),
        T(command_ddis_check_their_arguments),
        T(submit_reports_the_fence_and_query_current_fence_agrees),
        T(a_lost_interrupt_is_reported_by_query_current_fence),
        T(preemption_reports_fences_and_removed_packets_resume),
        T(a_cut_copy_resumes_past_the_bytes_it_wrote),
        T(a_preempted_paging_buffer_resumes_when_resubmitted),
        T(cancel_frees_removed_packets),
        T(paging_transfers_and_fills_move_the_bytes),
        T(page_table_updates_land_in_vram),
        T(a_context_root_translates_its_gpu_virtual_addresses),
        T(user_contexts_run_unprivileged),
        T(reset_from_timeout_stops_a_hung_wait_and_keeps_vram),
        T(a_full_ring_refuses_more_and_changes_nothing),
        T(watchdog_hang_is_an_engine_timeout_and_a_bad_command_a_fault),
        T(the_watchdog_allows_the_links_longest_dma_answer),
        T(dma_answers_held_back_by_a_long_bar1_write_are_not_a_hang),
        T(bad_submissions_are_refused_and_queue_nothing),
        T(concurrent_submissions_and_interrupts_retire_every_packet),
    };
    return sf_run_tests("kmd-submit", tests, sizeof tests / sizeof tests[0], NULL, NULL);
}
