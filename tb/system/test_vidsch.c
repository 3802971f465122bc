/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_vidsch: VidSch (host/dxgk), the OS stand-in's GPU scheduler, driving the real miniport
 * (host/kmd) and the real DMA engine (rtl/dma) over sim://, after the HLK-style checks this field
 * trusts: submission and fences, interrupt loss, quantum and explicit preemption, the
 * cancellation rules (each with a recording shim around DxgkDdiCancelCommand that compares its
 * arguments with what DxgkDdiPatch saw), TDR by timeout, by fault and by the engine's watchdog,
 * repeated TDRs, teardown with work pending (context, process, adapter), VidMm's wait before
 * DestroyAllocation, two adapters at once, and the threading-level checker.
 *
 * Shims wrap the miniport's functions through the adapter's DDI table: they record and call the
 * real DDI (never a mock). Packets are named by their DMA buffer (each test submission has its
 * own), so a Cancel is matched to the Patch of the same packet.
 *
 * Usage: test_vidsch [--seed N] (default $GR_TEST_SEED, else 1). The seed picks the bus models'
 * timing; it is printed first, and every failure replays with it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "d3dkmddi.h"
#include "dxgk_testing.h"
#include "dxgk_threading.h"
#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_regdesc.h"
#include "gpuref/gr_regmap.h"
#include "gpuref/gr_submit.h"
#include "gr_link.h"
#include "kmd.h"
#include "sched_fixture.h"
#include "vidsch_testing.h"

#define KIB 1024u
#define MIB (1024u * KIB)
#define ALLOC_BYTES MIB
#define LONG_WAIT 40000000u /* device cycles a test waits for something that must happen */

static unsigned long long seed = 1;
static char uri[160];

/* ---- threading violations: recorded, never fatal here ------------------------------------------ */

#define VIOL_MAX 64
static pthread_mutex_t viol_lock = PTHREAD_MUTEX_INITIALIZER;
static char viol[VIOL_MAX][512];
static unsigned viol_n;

static void on_violation(void *ctx, const char *msg)
{
    (void)ctx;
    pthread_mutex_lock(&viol_lock);
    if (viol_n < VIOL_MAX)
        snprintf(viol[viol_n], sizeof viol[0], "%s", msg);
    viol_n++;
    pthread_mutex_unlock(&viol_lock);
}

static void viol_reset(void)
{
    pthread_mutex_lock(&viol_lock);
    viol_n = 0;
    pthread_mutex_unlock(&viol_lock);
}

/* Whether a recorded violation contains both strings. */
static bool viol_has(const char *a, const char *b)
{
    bool found = false;
    pthread_mutex_lock(&viol_lock);
    for (unsigned i = 0; i < viol_n && i < VIOL_MAX; i++)
        if (strstr(viol[i], a) && (!b || strstr(viol[i], b)))
            found = true;
    pthread_mutex_unlock(&viol_lock);
    return found;
}

/* ---- the recorder behind the shims ----------------------------------------------------------------- */

#define REC_MAX 256
#define REC_LIST 8
#define REC_SUBMITS 16

typedef struct rec {
    const void *dma; /* the packet: its DMA buffer ... */
    uint32_t start;  /* ... and submission start */
    unsigned patches, cancels, submits;
    bool later_patch_differs; /* a re-patch with other arguments than the first (fence aside) */
    bool patch_fence_mismatch; /* a submission's fence differed from its packet's last Patch */
    bool submitted_after_cancel;
    DXGKARG_PATCH patch; /* first Patch */
    DXGK_ALLOCATIONLIST patch_alist[REC_LIST];
    D3DDDI_PATCHLOCATIONLIST patch_plist[REC_LIST];
    uint32_t last_patch_fence;
    DXGKARG_CANCELCOMMAND cancel; /* first Cancel */
    DXGK_ALLOCATIONLIST cancel_alist[REC_LIST];
    D3DDDI_PATCHLOCATIONLIST cancel_plist[REC_LIST];
    uint32_t submit_fence[REC_SUBMITS];
    bool submit_resub[REC_SUBMITS];
} rec_t;

typedef struct recorder {
    pthread_mutex_t lock;
    rec_t r[REC_MAX];
    unsigned n;
    unsigned unknown_cancels;   /* a Cancel for no packet ever patched */
    unsigned submits_total, cancels_total, patches_total, preempts_total;
    bool any_submit;
    uint32_t last_submit_fence;
    bool fence_order_broken;    /* SubmissionFenceId not strictly increasing */
    HANDLE destroyed[64];       /* contexts DestroyContext was called for */
    unsigned ndestroyed;
    unsigned cancel_after_destroy;
    uint64_t packets_at_destroy_context; /* gr_kmd_counts().packets when DestroyContext came */
    /* Hooks run inside a shim (before the real DDI), set by a test. */
    void (*on_patch)(const DXGKARG_PATCH *a);
    void (*on_preempt_after)(void);
    void (*on_destroy_allocation)(void);
    void (*on_close_allocation)(void);
    /* Nonzero: CreateContext reports this PatchLocationListSize, as a miniport that takes patch
     * locations from user contexts (a WDDM 1.x one) would; gpuref's reports 0 for them. */
    UINT patch_list_size;
} recorder_t;

static recorder_t R = {.lock = PTHREAD_MUTEX_INITIALIZER};
static gr_dxgk_ddi_table_t orig; /* the miniport's functions, as the adapter had them */

static void rec_reset(void)
{
    pthread_mutex_lock(&R.lock);
    pthread_mutex_t keep = R.lock;
    memset(&R, 0, sizeof R);
    R.lock = keep;
    pthread_mutex_unlock(&R.lock);
}

/* R.lock held. */
static rec_t *rec_find(const void *dma, uint32_t start, bool create)
{
    for (unsigned i = 0; i < R.n; i++)
        if (R.r[i].dma == dma && R.r[i].start == start)
            return &R.r[i];
    if (!create || R.n == REC_MAX)
        return NULL;
    rec_t *r = &R.r[R.n++];
    memset(r, 0, sizeof *r);
    r->dma = dma;
    r->start = start;
    return r;
}

static NTSTATUS APIENTRY shim_patch(IN_CONST_HANDLE h, IN_CONST_PDXGKARG_PATCH a)
{
    if (R.on_patch)
        R.on_patch(a);
    pthread_mutex_lock(&R.lock);
    R.patches_total++;
    rec_t *r = rec_find(a->pDmaBuffer, a->DmaBufferSubmissionStartOffset, true);
    if (r) {
        if (r->patches == 0) {
            r->patch = *a;
            for (unsigned i = 0; i < a->AllocationListSize && i < REC_LIST; i++)
                r->patch_alist[i] = a->pAllocationList[i];
            for (unsigned i = 0; i < a->PatchLocationListSize && i < REC_LIST; i++)
                r->patch_plist[i] = a->pPatchLocationList[i];
        } else {
            DXGKARG_PATCH x = *a;
            x.SubmissionFenceId = r->patch.SubmissionFenceId;
            if (memcmp(&x, &r->patch, sizeof x))
                r->later_patch_differs = true;
        }
        r->patches++;
        r->last_patch_fence = a->SubmissionFenceId;
    }
    pthread_mutex_unlock(&R.lock);
    return orig.Patch(h, a);
}

static NTSTATUS APIENTRY shim_submit(IN_CONST_HANDLE h, IN_CONST_PDXGKARG_SUBMITCOMMAND s)
{
    pthread_mutex_lock(&R.lock);
    R.submits_total++;
    if (R.any_submit && (int32_t)(s->SubmissionFenceId - R.last_submit_fence) <= 0)
        R.fence_order_broken = true;
    R.any_submit = true;
    R.last_submit_fence = s->SubmissionFenceId;
    /* The submission names its DMA buffer by address only; find the packet by private data. */
    rec_t *r = NULL;
    for (unsigned i = 0; i < R.n && !r; i++)
        if (R.r[i].patch.pDmaBufferPrivateData == s->pDmaBufferPrivateData &&
            R.r[i].start == s->DmaBufferSubmissionStartOffset &&
            (uint64_t)R.r[i].patch.DmaBufferPhysicalAddress.QuadPart == (uint64_t)s->DmaBufferPhysicalAddress.QuadPart)
            r = &R.r[i];
    if (r) {
        if (r->submits < REC_SUBMITS) {
            r->submit_fence[r->submits] = s->SubmissionFenceId;
            r->submit_resub[r->submits] = s->Flags.Resubmission;
        }
        r->submits++;
        if (s->SubmissionFenceId != r->last_patch_fence)
            r->patch_fence_mismatch = true;
        if (r->cancels)
            r->submitted_after_cancel = true;
    }
    pthread_mutex_unlock(&R.lock);
    return orig.SubmitCommand(h, s);
}

static NTSTATUS APIENTRY shim_cancel(IN_CONST_HANDLE h, IN_CONST_PDXGKARG_CANCELCOMMAND c)
{
    pthread_mutex_lock(&R.lock);
    R.cancels_total++;
    for (unsigned i = 0; i < R.ndestroyed; i++)
        if (R.destroyed[i] && R.destroyed[i] == c->hContext)
            R.cancel_after_destroy++;
    rec_t *r = rec_find(c->pDmaBuffer, c->DmaBufferSubmissionStartOffset, false);
    if (!r || r->patches == 0) {
        R.unknown_cancels++;
    } else {
        if (r->cancels == 0) {
            r->cancel = *c;
            for (unsigned i = 0; i < c->AllocationListSize && i < REC_LIST; i++)
                r->cancel_alist[i] = c->pAllocationList[i];
            for (unsigned i = 0; i < c->PatchLocationListSize && i < REC_LIST; i++)
                r->cancel_plist[i] = c->pPatchLocationList[i];
        }
        r->cancels++;
    }
    pthread_mutex_unlock(&R.lock);
    return orig.CancelCommand(h, c);
}

static NTSTATUS APIENTRY shim_preempt(IN_CONST_HANDLE h, IN_CONST_PDXGKARG_PREEMPTCOMMAND p)
{
    pthread_mutex_lock(&R.lock);
    R.preempts_total++;
    pthread_mutex_unlock(&R.lock);
    NTSTATUS st = orig.PreemptCommand(h, p);
    if (R.on_preempt_after)
        R.on_preempt_after();
    return st;
}

/* A new context may reuse a destroyed one's handle value: it is not destroyed any more. */
static NTSTATUS APIENTRY shim_create_context(IN_CONST_HANDLE hDevice, INOUT_PDXGKARG_CREATECONTEXT c)
{
    NTSTATUS st = orig.CreateContext(hDevice, c);
    if (!st && R.patch_list_size)
        c->ContextInfo.PatchLocationListSize = R.patch_list_size;
    pthread_mutex_lock(&R.lock);
    for (unsigned i = 0; !st && i < R.ndestroyed; i++)
        if (R.destroyed[i] == c->hContext)
            R.destroyed[i] = NULL;
    pthread_mutex_unlock(&R.lock);
    return st;
}

static NTSTATUS APIENTRY shim_destroy_context(IN_CONST_HANDLE hContext)
{
    pthread_mutex_lock(&R.lock);
    if (R.ndestroyed < 64)
        R.destroyed[R.ndestroyed++] = hContext;
    pthread_mutex_unlock(&R.lock);
    return orig.DestroyContext(hContext);
}

static NTSTATUS APIENTRY shim_destroy_allocation(IN_CONST_HANDLE h, IN_CONST_PDXGKARG_DESTROYALLOCATION d)
{
    if (R.on_destroy_allocation)
        R.on_destroy_allocation();
    return orig.DestroyAllocation(h, d);
}

static NTSTATUS APIENTRY shim_close_allocation(IN_CONST_HANDLE h, IN_CONST_PDXGKARG_CLOSEALLOCATION c)
{
    if (R.on_close_allocation)
        R.on_close_allocation();
    return orig.CloseAllocation(h, c);
}

static void install_shims(gr_adapter_t *ad)
{
    gr_dxgk_ddi_table_t *t = gr_vidsch_test_ddi(ad);
    orig = *t;
    t->Patch = shim_patch;
    t->SubmitCommand = shim_submit;
    t->CancelCommand = shim_cancel;
    t->PreemptCommand = shim_preempt;
    t->CreateContext = shim_create_context;
    t->DestroyContext = shim_destroy_context;
    t->DestroyAllocation = shim_destroy_allocation;
    t->CloseAllocation = shim_close_allocation;
}

/* A snapshot of one packet's record (zeroed if it was never patched). */
static rec_t rec_get(const void *dma)
{
    rec_t copy;
    memset(&copy, 0, sizeof copy);
    pthread_mutex_lock(&R.lock);
    rec_t *r = rec_find(dma, 0, false);
    if (r)
        copy = *r;
    pthread_mutex_unlock(&R.lock);
    return copy;
}

/* ---- the fixture ------------------------------------------------------------------------------------ */

#define NCTX 3
#define NALLOC 3
#define NGATES 16

typedef struct fx {
    gr_adapter_t *ad;
    gr_process_t *proc;
    gr_gpu_device_t *dev;
    gr_context_t ctx[NCTX];  /* ctx[NCTX-1] reads results back; tests use the others */
    gr_alloc_t alloc[NALLOC];
    gr_dma_buffer_t gates;   /* host qwords that WAIT commands wait on */
    volatile uint64_t *gate;
    uint64_t gates_va;
    gr_dma_buffer_t rb;      /* readback target */
    uint8_t *rb_cpu;
    uint64_t rb_va;
} fx_t;

static gr_alloc_private_t buffer_priv(uint64_t bytes, uint32_t cpu)
{
    gr_alloc_private_t p;
    memset(&p, 0, sizeof p);
    p.version = GR_ALLOC_PRIVATE_VERSION;
    p.struct_size = sizeof p;
    p.kind = GR_ALLOC_KIND_BUFFER;
    p.cpu_access = cpu;
    p.buffer_bytes = bytes;
    return p;
}

static int create_alloc(gr_gpu_device_t *dev, uint64_t bytes, uint32_t cpu, gr_alloc_t *out)
{
    gr_alloc_private_t p = buffer_priv(bytes, cpu);
    gr_alloc_desc_t d = {.private_data = &p, .private_size = sizeof p};
    return gr_alloc_create(dev, NULL, &d, 1, out, NULL);
}

static int setup(void **state)
{
    alarm(SF_TEST_SECONDS);
    fx_t *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    viol_reset();
    rec_reset();
    int rc = gr_adapter_open(uri, &f->ad);
    if (rc) {
        print_error("gr_adapter_open(%s): %s (%s)\n", uri, gr_status_name(rc), gr_link_error());
        free(f);
        return -1;
    }
    install_shims(f->ad);
    gr_sched_params_t sp = {.quantum_cycles = 20000, .tdr_timeout_cycles = 2000000};
    gr_dma_buffer_info_t gi, ri;
    rc = gr_adapter_set_scheduling(f->ad, &sp);
    if (!rc)
        rc = gr_process_create(f->ad, &f->proc);
    if (!rc)
        rc = gr_gpu_device_create(f->proc, &f->dev);
    for (unsigned i = 0; !rc && i < NCTX; i++)
        rc = gr_context_create(f->dev, NULL, 0, &f->ctx[i]);
    for (unsigned i = 0; !rc && i < NALLOC; i++)
        rc = create_alloc(f->dev, ALLOC_BYTES, GR_CPU_ACCESS_NONE, &f->alloc[i]);
    if (!rc)
        rc = sf_dma_buffer(f->dev, f->ctx[0], 4096, &f->gates, &gi);
    if (!rc)
        rc = sf_dma_buffer(f->dev, f->ctx[0], 64 * KIB, &f->rb, &ri);
    if (rc) {
        print_error("fixture: %s\n", gr_status_name(rc));
        gr_adapter_close(f->ad);
        free(f);
        return -1;
    }
    /* The engine's own watchdog off (0): packets held on a gate must wait as long as a test
     * needs, however slowly the host runs; VidSch's timeout is what the tests set. The
     * watchdog test turns it back on. */
    if (sf_watchdog_off(f->ad)) {
        gr_adapter_close(f->ad);
        free(f);
        return -1;
    }
    f->gate = gi.cpu;
    f->gates_va = gi.gpu_va;
    f->rb_cpu = ri.cpu;
    f->rb_va = ri.gpu_va;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    if (f->ad) {
        /* Never leave a waiting packet behind: open every gate. */
        sf_gates_release(f->ad, f->gate, NGATES);
        gr_adapter_close(f->ad);
    }
    R.on_patch = NULL;
    R.on_preempt_after = NULL;
    R.on_destroy_allocation = NULL;
    R.on_close_allocation = NULL;
    free(f);
    alarm(0);
    return 0;
}

/* ---- helpers ------------------------------------------------------------------------------------------ */

static gr_kmd_counts_t kmd_counts(gr_adapter_t *ad)
{
    gr_kmd_counts_t k;
    memset(&k, 0, sizeof k);
    assert_int_equal(gr_kmd_counts(gr_dxgk_test_hadapter(ad), &k), STATUS_SUCCESS);
    return k;
}

/*
 * The miniport's live packet states once it has retired what completed: it frees a completed
 * packet's state in its DPC (or at the next submission), a little after the fence the OS saw.
 */
static uint64_t kmd_packets(gr_adapter_t *ad)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < 2000u * sf_timeout_scale(); i++) {
        n = kmd_counts(ad).packets;
        if (n == 0)
            break;
        sf_sleep_ms(1);
    }
    return n;
}

static void open_gate(fx_t *f, unsigned g)
{
    assert_int_equal(sf_gate_open(f->ad, &f->gate[g]), GR_OK);
}

/* A submission as the test made it. */
typedef struct sub {
    gr_gpu_device_t *dev;
    gr_context_t ctx;
    uint64_t fence;
    const void *dma;
    gr_dma_buffer_t buf;
} sub_t;

/* WAIT until gate g (host memory, a DMA buffer of the fixture's device) is at least 1. */
static void cmd_wait_gate(fx_t *f, sf_cmd_t *c, unsigned g)
{
    assert_int_equal(gr_dma_wait(&c->w, GR_DMA_SPACE_GPUVA, f->gates_va + 8u * g, 1), 0);
}

/* FILL bytes at offset of an allocation, by its GPU VA (user packets name no physical address). */
static void cmd_fill(sf_cmd_t *c, gr_alloc_t a, uint32_t off, uint32_t bytes, uint32_t pattern)
{
    assert_int_equal(gr_dma_fill(&c->w, GR_DMA_SPACE_GPUVA, sf_alloc_va(c->dev, a) + off, bytes, pattern), 0);
    (void)sf_cmd_ref(c, a, true);
}

/* COPY bytes from an allocation to a DMA buffer of the same device, both by GPU VA. */
static void cmd_copy_out(sf_cmd_t *c, gr_alloc_t a, uint32_t off, uint64_t buf_va, uint32_t bytes)
{
    assert_int_equal(
        gr_dma_copy(&c->w, GR_DMA_SPACE_GPUVA, sf_alloc_va(c->dev, a) + off, GR_DMA_SPACE_GPUVA, buf_va, bytes), 0);
    (void)sf_cmd_ref(c, a, false);
}

/* A command the engine refuses (reserved opcode): a bad-command fault. */
static void cmd_bad(sf_cmd_t *c)
{
    const uint64_t q[1] = {0xeeu};
    assert_int_equal(gr_dma_emit(&c->w, q, 1), 0);
}

static sub_t cmd_submit(gr_gpu_device_t *dev, gr_context_t ctx, sf_cmd_t *c)
{
    sub_t r = {.dev = dev, .ctx = ctx, .dma = c->cpu, .buf = c->h};
    r.fence = sf_cmd_submit(dev, ctx, c);
    return r;
}

/* Submits one FILL (after gate g unless g < 0). */
static sub_t submit_fill(fx_t *f, gr_context_t ctx, int g, gr_alloc_t a, uint32_t off, uint32_t bytes, uint32_t pat)
{
    sf_cmd_t c;
    sf_cmd_begin(f->dev, ctx, &c);
    if (g >= 0)
        cmd_wait_gate(f, &c, (unsigned)g);
    cmd_fill(&c, a, off, bytes, pat);
    return cmd_submit(f->dev, ctx, &c);
}

static gr_status_t wait_sub(const sub_t *s, uint64_t timeout)
{
    return gr_wait(s->dev, s->ctx, s->fence, timeout);
}

/* Reads bytes of an allocation back through the engine (the last context), into f->rb_cpu. */
static void readback(fx_t *f, gr_alloc_t a, uint32_t off, uint32_t bytes)
{
    memset(f->rb_cpu, 0xa5, bytes);
    sf_cmd_t c;
    sf_cmd_begin(f->dev, f->ctx[NCTX - 1], &c);
    cmd_copy_out(&c, a, off, f->rb_va, bytes);
    sub_t s = cmd_submit(f->dev, f->ctx[NCTX - 1], &c);
    assert_int_equal(wait_sub(&s, LONG_WAIT), GR_OK);
}

static bool all_words(const uint8_t *p, uint32_t bytes, uint32_t v)
{
    for (uint32_t i = 0; i < bytes; i += 4) {
        uint32_t w;
        memcpy(&w, p + i, 4);
        if (w != v)
            return false;
    }
    return true;
}

/*
 * The cancellation rules for one packet, given how it ended:
 *   ran to completion      -> patched and submitted, never cancelled;
 *   will never run         -> exactly one DxgkDdiCancelCommand if it was patched, with the DMA
 *                             buffer, range, private data, allocation list and patch-location
 *                             range of its Patch; none if it never was;
 *   and never a submission after its cancel.
 */
static void check_rules(const sub_t *s, gr_status_t result)
{
    rec_t r = rec_get(s->dma);
    if (result == GR_OK) {
        assert_true(r.patches >= 1);
        assert_true(r.submits >= 1);
        assert_int_equal(r.cancels, 0);
        return;
    }
    assert_true(result == GR_E_CANCELLED || result == GR_E_DEVICE_RESET);
    assert_false(r.submitted_after_cancel);
    if (r.patches == 0) {
        assert_int_equal(r.cancels, 0);
        return;
    }
    assert_int_equal(r.cancels, 1);
    assert_false(r.later_patch_differs);
    const DXGKARG_PATCH *p = &r.patch;
    const DXGKARG_CANCELCOMMAND *c = &r.cancel;
    assert_ptr_equal(c->hContext, p->hContext);
    assert_ptr_equal(c->pDmaBuffer, p->pDmaBuffer);
    assert_int_equal(c->DmaBufferSize, p->DmaBufferSize);
    assert_int_equal(c->DmaBufferSubmissionStartOffset, p->DmaBufferSubmissionStartOffset);
    assert_int_equal(c->DmaBufferSubmissionEndOffset, p->DmaBufferSubmissionEndOffset);
    assert_ptr_equal(c->pDmaBufferPrivateData, p->pDmaBufferPrivateData);
    assert_int_equal(c->DmaBufferPrivateDataSize, p->DmaBufferPrivateDataSize);
    assert_int_equal(c->DmaBufferPrivateDataSubmissionStartOffset, p->DmaBufferPrivateDataSubmissionStartOffset);
    assert_int_equal(c->DmaBufferPrivateDataSubmissionEndOffset, p->DmaBufferPrivateDataSubmissionEndOffset);
    assert_ptr_equal(c->pAllocationList, p->pAllocationList);
    assert_int_equal(c->AllocationListSize, p->AllocationListSize);
    assert_ptr_equal(c->pPatchLocationList, p->pPatchLocationList);
    assert_int_equal(c->PatchLocationListSize, p->PatchLocationListSize);
    assert_int_equal(c->PatchLocationListSubmissionStart, p->PatchLocationListSubmissionStart);
    assert_int_equal(c->PatchLocationListSubmissionLength, p->PatchLocationListSubmissionLength);
    assert_memory_equal(r.cancel_alist, r.patch_alist, sizeof r.patch_alist);
    assert_memory_equal(r.cancel_plist, r.patch_plist, sizeof r.patch_plist);
}

/* Every Cancel named a patched packet, and fence ids went out strictly increasing. */
static void check_global_rules(void)
{
    pthread_mutex_lock(&R.lock);
    unsigned unknown = R.unknown_cancels, after = R.cancel_after_destroy;
    bool broken = R.fence_order_broken;
    pthread_mutex_unlock(&R.lock);
    assert_int_equal(unknown, 0);
    assert_int_equal(after, 0);
    assert_false(broken);
}

/* ==== the threading checker on its own ============================================================= */

typedef struct hold {
    dxgk_thr_t *t;
    dxgk_ddi_t ddi;
    const void *proc;
    unsigned flags;
    sem_t entered, release;
    atomic_bool inside;
    pthread_t th;
} hold_t;

static void *hold_main(void *arg)
{
    hold_t *h = arg;
    dxgk_ddi_enter(h->t, h->ddi, h->proc, h->flags);
    atomic_store(&h->inside, true);
    sem_post(&h->entered);
    sem_wait(&h->release);
    atomic_store(&h->inside, false);
    dxgk_ddi_leave(h->t, h->ddi, h->proc);
    return NULL;
}

/* Another thread enters ddi and stays inside until hold_end. */
static void hold_begin(hold_t *h, dxgk_thr_t *t, dxgk_ddi_t ddi, const void *proc, unsigned flags)
{
    memset(h, 0, sizeof *h);
    h->t = t;
    h->ddi = ddi;
    h->proc = proc;
    h->flags = flags;
    sem_init(&h->entered, 0, 0);
    sem_init(&h->release, 0, 0);
    assert_int_equal(pthread_create(&h->th, NULL, hold_main, h), 0);
    sem_wait(&h->entered);
}

static void hold_end(hold_t *h)
{
    sem_post(&h->release);
    pthread_join(h->th, NULL);
    sem_destroy(&h->entered);
    sem_destroy(&h->release);
}

#define QUIET (DXGK_THR_SCHED_QUIESCED | DXGK_THR_HW_IDLE)

static dxgk_thr_t *check_only(void)
{
    if (!dxgk_thr_checks_enabled())
        skip();
    viol_reset();
    dxgk_thr_t *t = NULL;
    assert_int_equal(dxgk_thr_create(DXGK_THR_CHECK_ONLY, &t), GR_OK);
    return t;
}

static void checker_reports_first_level_ddis_entered_concurrently(void **state)
{
    (void)state;
    dxgk_thr_t *t = check_only();
    hold_t h;
    hold_begin(&h, t, DXGK_DDI_PATCH, NULL, 0);
    /* Level zero beside a first-level call is allowed. */
    dxgk_ddi_enter(t, DXGK_DDI_QUERY_CURRENT_FENCE, NULL, 0);
    dxgk_ddi_leave(t, DXGK_DDI_QUERY_CURRENT_FENCE, NULL);
    assert_int_equal(dxgk_thr_violations(t), 0);
    /* A second GPU-scheduler-class DDI while the first is inside is the violation. */
    dxgk_ddi_enter(t, DXGK_DDI_SUBMIT_COMMAND, NULL, 0);
    assert_int_equal(dxgk_thr_irql(), DXGK_DISPATCH); /* SubmitCommand runs at DISPATCH_LEVEL */
    dxgk_ddi_leave(t, DXGK_DDI_SUBMIT_COMMAND, NULL);
    assert_int_equal(dxgk_thr_irql(), DXGK_PASSIVE);
    assert_int_equal(dxgk_thr_violations(t), 1);
    assert_true(viol_has("DxgkDdiSubmitCommand entered", "DxgkDdiPatch"));
    dxgk_ddi_enter(t, DXGK_DDI_CANCEL_COMMAND, NULL, 0);
    dxgk_ddi_leave(t, DXGK_DDI_CANCEL_COMMAND, NULL);
    assert_int_equal(dxgk_thr_violations(t), 2);
    hold_end(&h);
    /* One at a time is fine. */
    dxgk_ddi_enter(t, DXGK_DDI_PREEMPT_COMMAND, NULL, 0);
    dxgk_ddi_leave(t, DXGK_DDI_PREEMPT_COMMAND, NULL);
    assert_int_equal(dxgk_thr_violations(t), 2);
    dxgk_thr_destroy(t);
}

static void checker_reports_third_level_breaches(void **state)
{
    (void)state;
    dxgk_thr_t *t = check_only();
    static const int proc_a = 0;
    hold_t h;
    /* Another thread in a level-zero DDI: the reset would not be alone. */
    hold_begin(&h, t, DXGK_DDI_CREATE_ALLOCATION, &proc_a, 0);
    dxgk_ddi_enter(t, DXGK_DDI_RESET_FROM_TIMEOUT, NULL, DXGK_THR_SCHED_QUIESCED);
    dxgk_ddi_leave(t, DXGK_DDI_RESET_FROM_TIMEOUT, NULL);
    hold_end(&h);
    assert_int_equal(dxgk_thr_violations(t), 1);
    assert_true(viol_has("DxgkDdiResetFromTimeout (third level) entered while 1 other thread", NULL));
    /* The scheduler still passing DMA buffers through. */
    dxgk_ddi_enter(t, DXGK_DDI_RESET_FROM_TIMEOUT, NULL, 0);
    dxgk_ddi_leave(t, DXGK_DDI_RESET_FROM_TIMEOUT, NULL);
    assert_int_equal(dxgk_thr_violations(t), 2);
    assert_true(viol_has("ResetFromTimeout", "pass through the scheduler"));
    /* Restart needs the hardware idle too; Reset does not (the GPU is hung). */
    dxgk_ddi_enter(t, DXGK_DDI_RESTART_FROM_TIMEOUT, NULL, DXGK_THR_SCHED_QUIESCED);
    dxgk_ddi_leave(t, DXGK_DDI_RESTART_FROM_TIMEOUT, NULL);
    assert_int_equal(dxgk_thr_violations(t), 3);
    assert_true(viol_has("RestartFromTimeout", "GPU not idle"));
    dxgk_ddi_enter(t, DXGK_DDI_RESTART_FROM_TIMEOUT, NULL, QUIET);
    dxgk_ddi_leave(t, DXGK_DDI_RESTART_FROM_TIMEOUT, NULL);
    assert_int_equal(dxgk_thr_violations(t), 3);
    /* While a reset runs: any other DDI is a violation, the interrupt routine and DPC are not. */
    hold_begin(&h, t, DXGK_DDI_RESET_FROM_TIMEOUT, NULL, DXGK_THR_SCHED_QUIESCED);
    assert_int_equal(dxgk_thr_violations(t), 3);
    dxgk_ddi_enter(t, DXGK_DDI_INTERRUPT_ROUTINE, NULL, 0);
    dxgk_ddi_leave(t, DXGK_DDI_INTERRUPT_ROUTINE, NULL);
    dxgk_ddi_enter(t, DXGK_DDI_DPC_ROUTINE, NULL, 0);
    dxgk_ddi_leave(t, DXGK_DDI_DPC_ROUTINE, NULL);
    assert_int_equal(dxgk_thr_violations(t), 3);
    dxgk_ddi_enter(t, DXGK_DDI_CLOSE_ALLOCATION, &proc_a, 0);
    dxgk_ddi_leave(t, DXGK_DDI_CLOSE_ALLOCATION, &proc_a);
    hold_end(&h);
    assert_int_equal(dxgk_thr_violations(t), 4);
    assert_true(viol_has("DxgkDdiCloseAllocation entered", "DxgkDdiResetFromTimeout (third level"));
    dxgk_thr_destroy(t);
}

static void checker_reports_two_threads_of_one_process(void **state)
{
    (void)state;
    dxgk_thr_t *t = check_only();
    static const int proc_a = 0, proc_b = 0;
    hold_t h;
    hold_begin(&h, t, DXGK_DDI_OPEN_ALLOCATION, &proc_a, 0);
    dxgk_ddi_enter(t, DXGK_DDI_CLOSE_ALLOCATION, &proc_b, 0); /* another process: fine */
    dxgk_ddi_leave(t, DXGK_DDI_CLOSE_ALLOCATION, &proc_b);
    assert_int_equal(dxgk_thr_violations(t), 0);
    dxgk_ddi_enter(t, DXGK_DDI_CLOSE_ALLOCATION, &proc_a, 0); /* the same process: not */
    dxgk_ddi_leave(t, DXGK_DDI_CLOSE_ALLOCATION, &proc_a);
    hold_end(&h);
    assert_int_equal(dxgk_thr_violations(t), 1);
    assert_true(viol_has("DxgkDdiCloseAllocation entered by a thread of a process", "DxgkDdiOpenAllocation"));
    dxgk_thr_destroy(t);
}

static void checker_reports_irql_and_interrupt_protocol_breaches(void **state)
{
    (void)state;
    dxgk_thr_t *t = check_only();
    /* NotifyInterrupt outside interrupt level. */
    dxgk_thr_callback(t, DXGK_CB_NOTIFY_INTERRUPT);
    dxgk_thr_callback(t, DXGK_CB_QUEUE_DPC);
    assert_int_equal(dxgk_thr_violations(t), 1);
    assert_true(viol_has("DxgkCbNotifyInterrupt called at PASSIVE_LEVEL", NULL));
    /* An interrupt routine that calls a PASSIVE_LEVEL callback (it may block), then returns after
     * NotifyInterrupt without queuing the DPC. */
    dxgk_ddi_enter(t, DXGK_DDI_INTERRUPT_ROUTINE, NULL, 0);
    assert_int_equal(dxgk_thr_irql(), DXGK_DIRQL);
    dxgk_thr_callback(t, DXGK_CB_GET_HANDLE_DATA);
    dxgk_thr_may_block(t, "a mutex");
    dxgk_thr_callback(t, DXGK_CB_NOTIFY_INTERRUPT);
    dxgk_thr_callback(t, DXGK_CB_SYNCHRONIZE_EXECUTION);
    dxgk_ddi_leave(t, DXGK_DDI_INTERRUPT_ROUTINE, NULL);
    assert_int_equal(dxgk_thr_irql(), DXGK_PASSIVE);
    assert_int_equal(dxgk_thr_violations(t), 5);
    assert_true(viol_has("DxgkCbGetHandleData (PASSIVE_LEVEL) called at DIRQL", "may block"));
    assert_true(viol_has("a mutex may block, at DIRQL", NULL));
    assert_true(viol_has("DxgkCbSynchronizeExecution (at most DISPATCH_LEVEL) called at DIRQL", NULL));
    assert_true(viol_has("without queuing a DPC", NULL));
    /* The DPC that follows must tell the scheduler. */
    dxgk_ddi_enter(t, DXGK_DDI_DPC_ROUTINE, NULL, 0);
    dxgk_ddi_leave(t, DXGK_DDI_DPC_ROUTINE, NULL);
    assert_int_equal(dxgk_thr_violations(t), 6);
    assert_true(viol_has("DxgkDdiDpcRoutine returned without calling DxgkCbNotifyDpc", NULL));
    /* The documented sequence passes. */
    dxgk_ddi_enter(t, DXGK_DDI_INTERRUPT_ROUTINE, NULL, 0);
    dxgk_thr_callback(t, DXGK_CB_NOTIFY_INTERRUPT);
    dxgk_thr_callback(t, DXGK_CB_QUEUE_DPC);
    dxgk_ddi_leave(t, DXGK_DDI_INTERRUPT_ROUTINE, NULL);
    dxgk_ddi_enter(t, DXGK_DDI_DPC_ROUTINE, NULL, 0);
    dxgk_thr_callback(t, DXGK_CB_NOTIFY_DPC);
    dxgk_ddi_leave(t, DXGK_DDI_DPC_ROUTINE, NULL);
    dxgk_ddi_enter(t, DXGK_DDI_PREEMPT_COMMAND, NULL, 0);
    dxgk_thr_callback(t, DXGK_CB_SYNCHRONIZE_EXECUTION); /* DISPATCH_LEVEL: allowed */
    dxgk_irql_t old = dxgk_thr_raise(DXGK_DIRQL);         /* ... and its routine reports */
    dxgk_thr_callback(t, DXGK_CB_NOTIFY_INTERRUPT);
    dxgk_thr_lower(old);
    dxgk_thr_callback(t, DXGK_CB_QUEUE_DPC);
    dxgk_ddi_leave(t, DXGK_DDI_PREEMPT_COMMAND, NULL);
    assert_int_equal(dxgk_thr_violations(t), 6);
    /* NotifyInterrupt straight from PreemptCommand (DISPATCH_LEVEL) is not interrupt level. */
    dxgk_ddi_enter(t, DXGK_DDI_PREEMPT_COMMAND, NULL, 0);
    dxgk_thr_callback(t, DXGK_CB_NOTIFY_INTERRUPT);
    dxgk_ddi_leave(t, DXGK_DDI_PREEMPT_COMMAND, NULL);
    assert_int_equal(dxgk_thr_violations(t), 7);
    assert_true(viol_has("DxgkCbNotifyInterrupt called at DISPATCH_LEVEL", NULL));
    dxgk_thr_destroy(t);
}

typedef struct gate_try {
    dxgk_thr_t *t;
    atomic_bool entered;
} gate_try_t;

static void *gate_try_main(void *arg)
{
    gate_try_t *g = arg;
    static const int proc = 0;
    dxgk_ddi_enter(g->t, DXGK_DDI_CLOSE_ALLOCATION, &proc, 0);
    atomic_store(&g->entered, true);
    dxgk_ddi_leave(g->t, DXGK_DDI_CLOSE_ALLOCATION, &proc);
    return NULL;
}

static void reset_keeps_every_other_ddi_out_of_the_miniport(void **state)
{
    (void)state;
    viol_reset();
    dxgk_thr_t *t = NULL;
    assert_int_equal(dxgk_thr_create(0, &t), GR_OK); /* the mechanism, as adapters have it */
    hold_t h;
    hold_begin(&h, t, DXGK_DDI_RESET_FROM_TIMEOUT, NULL, DXGK_THR_SCHED_QUIESCED);
    gate_try_t g = {.t = t};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, gate_try_main, &g), 0);
    sf_sleep_ms(50);
    assert_false(atomic_load(&g.entered)); /* held at the gate while the reset runs */
    /* The interrupt routine is not held (it may run during a reset). */
    dxgk_ddi_enter(t, DXGK_DDI_INTERRUPT_ROUTINE, NULL, 0);
    dxgk_ddi_leave(t, DXGK_DDI_INTERRUPT_ROUTINE, NULL);
    hold_end(&h);
    pthread_join(th, NULL);
    assert_true(atomic_load(&g.entered));
    assert_int_equal(dxgk_thr_violations(t), 0);
    dxgk_thr_destroy(t);
}

/* ==== through the real adapter ========================================================================= */

static sem_t patch_entered, patch_release;
static atomic_bool block_next_patch;

static void hook_block_patch(const DXGKARG_PATCH *a)
{
    (void)a;
    if (!atomic_exchange(&block_next_patch, false))
        return;
    sem_post(&patch_entered);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 10;
    (void)sem_timedwait(&patch_release, &ts);
}

/* A first-level DDI made beside the scheduler's own (without the class lock) is caught. */
static void first_level_ddi_beside_the_scheduler_is_caught(void **state)
{
    fx_t *f = *state;
    if (!dxgk_thr_checks_enabled())
        skip();
    sem_init(&patch_entered, 0, 0);
    sem_init(&patch_release, 0, 0);
    atomic_store(&block_next_patch, true);
    R.on_patch = hook_block_patch;
    sub_t s = submit_fill(f, f->ctx[0], -1, f->alloc[0], 0, 4096, 0x11111111u);
    sem_wait(&patch_entered); /* the scheduler thread is inside DxgkDdiPatch now */
    uint64_t before = dxgk_thr_violations(gr_vidsch_test_thr(f->ad));
    (void)gr_vidsch_test_preempt_unserialized(f->ad, 0x7fff0001u);
    uint64_t after = dxgk_thr_violations(gr_vidsch_test_thr(f->ad));
    sem_post(&patch_release);
    assert_true(after > before);
    assert_true(viol_has("DxgkDdiPreemptCommand entered while thread", "DxgkDdiPatch (first level, GPU scheduler class"));
    /* The packet itself is unharmed. */
    assert_int_equal(wait_sub(&s, LONG_WAIT), GR_OK);
    R.on_patch = NULL;
    sem_destroy(&patch_entered);
    sem_destroy(&patch_release);
}

/* ==== submission, fences ================================================================================ */

static void fill_by_gpu_va_lands_in_the_allocation_and_patch_sees_its_list(void **state)
{
    fx_t *f = *state;
    gr_alloc_info_t ai;
    assert_int_equal(gr_alloc_query(f->dev, f->alloc[0], &ai), GR_OK);
    sub_t s = submit_fill(f, f->ctx[0], -1, f->alloc[0], 8 * KIB, 4 * KIB, 0xc0ffee11u);
    assert_int_equal(wait_sub(&s, LONG_WAIT), GR_OK);
    /* Patch sees the allocation list (residency, SegmentId, the write) but no patch location:
     * the packet names the allocation by GPU VA, which nothing rewrites. */
    rec_t r = rec_get(s.dma);
    assert_int_equal(r.patches, 1);
    assert_int_equal(r.submits, 1);
    assert_false(r.submit_resub[0]);
    assert_int_equal(r.submit_fence[0], r.patch.SubmissionFenceId);
    assert_int_equal(gr_dma_get64((const uint8_t *)s.dma + 8), ai.gpu_va + 8 * KIB);
    assert_int_equal(r.patch_alist[0].SegmentId, ai.segment);
    assert_int_equal(r.patch_alist[0].WriteOperation, 1);
    assert_int_equal((uint64_t)r.patch_alist[0].PhysicalAddress.QuadPart, ai.vram_address);
    assert_int_equal(r.patch.PatchLocationListSubmissionLength, 0);
    assert_int_equal(r.patch.DmaBufferPrivateDataSubmissionStartOffset, 0);
    assert_int_equal(r.patch.DmaBufferPrivateDataSubmissionEndOffset, r.patch.DmaBufferPrivateDataSize);
    readback(f, f->alloc[0], 4 * KIB, 12 * KIB);
    assert_true(all_words(f->rb_cpu, 4 * KIB, 0));
    assert_true(all_words(f->rb_cpu + 4 * KIB, 4 * KIB, 0xc0ffee11u));
    assert_true(all_words(f->rb_cpu + 8 * KIB, 4 * KIB, 0));
    gr_sched_stats_t st = sf_sched_stats(f->ad);
    assert_int_equal(st.live_packets, 0);
    assert_int_equal(st.cancelled, 0);
    assert_int_equal(kmd_packets(f->ad), 0);
    check_global_rules();
}

/* A COPY between GPU virtual addresses of two allocations: no patching, the context's root. */
static void copy_through_gpu_virtual_addresses_needs_no_patching(void **state)
{
    fx_t *f = *state;
    sub_t s0 = submit_fill(f, f->ctx[0], -1, f->alloc[0], 0, 16 * KIB, 0x5eed0001u ^ (uint32_t)seed);
    assert_int_equal(wait_sub(&s0, LONG_WAIT), GR_OK);
    gr_alloc_info_t a0, a1;
    assert_int_equal(gr_alloc_query(f->dev, f->alloc[0], &a0), GR_OK);
    assert_int_equal(gr_alloc_query(f->dev, f->alloc[1], &a1), GR_OK);
    assert_true(a0.gpu_va != 0 && a1.gpu_va != 0);
    sf_cmd_t c;
    sf_cmd_begin(f->dev, f->ctx[1], &c);
    assert_int_equal(gr_dma_copy(&c.w, GR_DMA_SPACE_GPUVA, a0.gpu_va, GR_DMA_SPACE_GPUVA, a1.gpu_va + 64 * KIB, 16 * KIB), 0);
    (void)sf_cmd_ref(&c, f->alloc[0], false);
    (void)sf_cmd_ref(&c, f->alloc[1], true);
    sub_t s = cmd_submit(f->dev, f->ctx[1], &c);
    assert_int_equal(wait_sub(&s, LONG_WAIT), GR_OK);
    readback(f, f->alloc[1], 64 * KIB, 16 * KIB);
    assert_true(all_words(f->rb_cpu, 16 * KIB, 0x5eed0001u ^ (uint32_t)seed));
    rec_t r = rec_get(s.dma);
    assert_int_equal(r.patch.PatchLocationListSubmissionLength, 0);
    assert_int_equal(r.patch.AllocationListSize, 2);
    /* The context's root is the device's L3 table, given by DxgkDdiSetRootPageTable. */
    gr_kmd_context_info_t ki;
    assert_int_equal(gr_kmd_context_query(gr_dxgk_test_hadapter(f->ad), gr_vidsch_test_hcontext(f->dev, f->ctx[1]), &ki),
                     STATUS_SUCCESS);
    assert_true(ki.has_root);
    assert_int_equal(ki.root_entries, 512);
    assert_int_equal(ki.rejected_roots, 0);
    assert_int_equal(ki.flags & 0x4u, 0x4u); /* VirtualAddressing */
}

/* Fence ids: Patch and SubmitCommand see the same one, strictly increasing; waits see each. */
static void fence_ids_increase_and_patch_and_submit_agree(void **state)
{
    fx_t *f = *state;
    enum { PER = 6 };
    /* Each packet submitted once: on a link the fixture's 20,000-cycle quantum can run out while
     * a packet's commands cross the link (the device runs on), and a preempted packet is rightly
     * submitted again; preemption has tests of its own. */
    sf_set_sched(f->ad, 100000000, 50000000);
    sub_t s[2][PER];
    for (unsigned i = 0; i < PER; i++)
        for (unsigned c = 0; c < 2; c++)
            s[c][i] = submit_fill(f, f->ctx[c], -1, f->alloc[c], i * 4 * KIB, 4 * KIB, 0x100u * c + i);
    for (unsigned c = 0; c < 2; c++)
        for (unsigned i = 0; i < PER; i++) {
            assert_int_equal(s[c][i].fence, i + 1); /* per-context fences count from 1 */
            assert_int_equal(wait_sub(&s[c][i], LONG_WAIT), GR_OK);
        }
    uint32_t seen[2 * PER];
    unsigned n = 0;
    for (unsigned c = 0; c < 2; c++)
        for (unsigned i = 0; i < PER; i++) {
            rec_t r = rec_get(s[c][i].dma);
            assert_int_equal(r.submits, 1);
            assert_false(r.patch_fence_mismatch);
            assert_int_equal(r.submit_fence[0], r.patch.SubmissionFenceId);
            assert_ptr_equal(r.patch.hContext, gr_vidsch_test_hcontext(f->dev, f->ctx[c]));
            for (unsigned k = 0; k < n; k++)
                assert_int_not_equal(seen[k], r.submit_fence[0]);
            seen[n++] = r.submit_fence[0];
            check_rules(&s[c][i], GR_OK);
        }
    /* Within a context, in submission order. */
    for (unsigned c = 0; c < 2; c++)
        for (unsigned i = 1; i < PER; i++)
            assert_true(rec_get(s[c][i].dma).submit_fence[0] > rec_get(s[c][i - 1].dma).submit_fence[0]);
    readback(f, f->alloc[1], 0, PER * 4 * KIB);
    for (unsigned i = 0; i < PER; i++)
        assert_true(all_words(f->rb_cpu + i * 4 * KIB, 4 * KIB, 0x100u + i));
    gr_context_info_t ci;
    assert_int_equal(gr_context_info(f->dev, f->ctx[0], &ci), GR_OK);
    assert_int_equal(ci.submitted, PER);
    assert_int_equal(ci.retired, PER);
    assert_false(ci.lost);
    assert_int_equal(ci.dma_buffer_private_size, GR_KMD_DMA_PRIVATE_BYTES);
    check_global_rules();
    assert_true(sf_sched_stats(f->ad).dpcs > 0);
}

static bool pred_submitted(const gr_sched_stats_t *s, const void *arg)
{
    return s->submitted >= *(const uint64_t *)arg;
}

/* Bad input: a clear error, and nothing queued, patched or counted. */
static void bad_submissions_are_refused_and_change_nothing(void **state)
{
    fx_t *f = *state;
    gr_gpu_device_t *d = f->dev;
    gr_context_t ctx = f->ctx[0];
    sf_cmd_t c;
    sf_cmd_begin(d, ctx, &c);
    cmd_fill(&c, f->alloc[0], 0, 4096, 1);
    const uint32_t end = (uint32_t)c.w.used;
    gr_alloc_ref_t refs[2] = {{f->alloc[0], GR_ALLOC_REF_WRITE}, {f->alloc[0], 0}};
    /* gr_submit checks patch lists itself (user packets carry GPU VAs and get none from
     * gpuref's miniport: tb/system/test_isolation.c). */
    const gr_patch_location_t pl = {.alloc_index = 0, .patch_offset = 8};
    gr_submission_t good = {.buffer = c.h, .start = 0, .end = end, .allocs = refs, .alloc_count = 1};
    uint64_t fence = 77;
    gr_submission_t s;
#define REFUSED(expr, code)                     \
    do {                                        \
        assert_int_equal((expr), (code));       \
        assert_int_equal(fence, 77);            \
    } while (0)
    size_t tl_n = 0;
    uint64_t tl_mark = 0, tl_after = 0;
    assert_int_equal(gr_adapter_timeline(f->ad, 0, NULL, 0, &tl_n, &tl_mark), GR_OK);
    uint8_t before[64];
    memcpy(before, c.cpu, sizeof before);
    REFUSED(gr_submit(d, ctx, NULL, &fence), GR_E_INVALID);
    assert_int_equal(gr_submit(d, ctx, &good, NULL), GR_E_INVALID);
    /* Ranges the engine cannot run (it fetches whole 8-byte commands from 8-byte aligned
     * addresses): refused at submit, not found out by Patch after a fence was handed out. */
    static const uint32_t bad_ranges[][2] = {{4, 12}, {0, 12}, {1, 9}, {0, 3}, {0, 4}, {4, 8},
                                             {8, 12}, {0, 4095}, {4088, 4100}, {7, 8}};
    for (unsigned i = 0; i < sizeof bad_ranges / sizeof bad_ranges[0]; i++) {
        s = good, s.start = bad_ranges[i][0], s.end = bad_ranges[i][1], s.patch_count = 0;
        REFUSED(gr_submit(d, ctx, &s, &fence), GR_E_RANGE);
    }
    /* gpuref's miniport gives a user context no patch locations (PatchLocationListSize 0: its
     * packets run on GPU VAs), so any patch list is refused here, before a fence exists. */
    {
        gr_patch_location_t one = pl;
        s = good, s.start = 0, s.end = 16, s.patches = &one, s.patch_count = 1;
        REFUSED(gr_submit(d, ctx, &s, &fence), GR_E_RANGE);
    }
    /* The checks of the list itself, on a context whose miniport takes patch locations (the
     * shim reports a PatchLocationListSize, as a WDDM 1.x miniport would). */
    gr_context_t pctx = 0;
    R.patch_list_size = 16;
    assert_int_equal(gr_context_create(d, NULL, 0, &pctx), GR_OK);
    R.patch_list_size = 0;
    gr_context_info_t pci;
    assert_int_equal(gr_context_info(d, pctx, &pci), GR_OK);
    assert_int_equal(pci.patch_location_list_size, 16);
    s = good, s.patches = &pl, s.patch_count = 17; /* beyond the context's list */
    REFUSED(gr_submit(d, pctx, &s, &fence), GR_E_RANGE);
    /* A patch location inside the range but not on a qword (at 4 of [0, 16), and neighbours). */
    static const uint32_t bad_patch_offsets[] = {4, 1, 7, 9, 12};
    for (unsigned i = 0; i < sizeof bad_patch_offsets / sizeof bad_patch_offsets[0]; i++) {
        gr_patch_location_t mis = pl;
        mis.patch_offset = bad_patch_offsets[i];
        s = good, s.start = 0, s.end = 16, s.patches = &mis, s.patch_count = 1;
        REFUSED(gr_submit(d, pctx, &s, &fence), GR_E_RANGE);
    }
    {
        gr_patch_location_t edge = pl;
        edge.patch_offset = 16; /* the qword after the range */
        s = good, s.start = 0, s.end = 16, s.patches = &edge, s.patch_count = 1;
        REFUSED(gr_submit(d, pctx, &s, &fence), GR_E_RANGE);
        edge.patch_offset = 0; /* before a range that starts at 8 */
        s = good, s.start = 8, s.end = 24, s.patches = &edge, s.patch_count = 1;
        REFUSED(gr_submit(d, pctx, &s, &fence), GR_E_RANGE);
    }
    s = good, s.patches = &pl, s.patch_count = GR_SUBMIT_MAX_PATCHES + 1;
    REFUSED(gr_submit(d, pctx, &s, &fence), GR_E_RANGE);
    s = good, s.patches = NULL, s.patch_count = 1;
    REFUSED(gr_submit(d, pctx, &s, &fence), GR_E_INVALID);
    s = good, s.allocs = NULL;
    REFUSED(gr_submit(d, ctx, &s, &fence), GR_E_INVALID);
    REFUSED(gr_submit(NULL, ctx, &good, &fence), GR_E_INVALID);
    REFUSED(gr_submit(d, 0, &good, &fence), GR_E_INVALID);
    REFUSED(gr_submit(d, ctx ^ 0x5a5a5a5au, &good, &fence), GR_E_INVALID);
    REFUSED(gr_submit(d, f->alloc[0], &good, &fence), GR_E_INVALID); /* a handle of another type */
    s = good, s.buffer = 0;
    REFUSED(gr_submit(d, ctx, &s, &fence), GR_E_INVALID);
    s = good, s.buffer = ctx;
    REFUSED(gr_submit(d, ctx, &s, &fence), GR_E_INVALID);
    s = good, s.start = s.end;
    REFUSED(gr_submit(d, ctx, &s, &fence), GR_E_RANGE);
    s = good, s.end = 4096 + 8;
    REFUSED(gr_submit(d, ctx, &s, &fence), GR_E_RANGE);
    s = good, s.alloc_count = 2; /* the same allocation twice */
    REFUSED(gr_submit(d, ctx, &s, &fence), GR_E_INVALID);
    gr_alloc_ref_t badref = {f->alloc[0] ^ 0x00100000u, 0};
    s = good, s.allocs = &badref;
    REFUSED(gr_submit(d, ctx, &s, &fence), GR_E_INVALID);
    gr_alloc_ref_t badflag = {f->alloc[0], 0x80u};
    s = good, s.allocs = &badflag;
    REFUSED(gr_submit(d, ctx, &s, &fence), GR_E_INVALID);
    s = good, s.alloc_count = GR_SUBMIT_MAX_ALLOCS + 1;
    REFUSED(gr_submit(d, ctx, &s, &fence), GR_E_RANGE);
    gr_patch_location_t p2 = pl;
    p2.alloc_index = 1;
    s = good, s.patches = &p2, s.patch_count = 1;
    REFUSED(gr_submit(d, pctx, &s, &fence), GR_E_INVALID);
    p2 = pl, p2.patch_offset = end - 4; /* the qword would cross the end */
    s = good, s.patches = &p2, s.patch_count = 1;
    REFUSED(gr_submit(d, pctx, &s, &fence), GR_E_RANGE);
    p2 = pl, p2.alloc_offset = ALLOC_BYTES;
    s = good, s.patches = &p2, s.patch_count = 1;
    REFUSED(gr_submit(d, pctx, &s, &fence), GR_E_INVALID);
    p2 = pl, p2.slot_id = 1u << 24;
    s = good, s.patches = &p2, s.patch_count = 1;
    REFUSED(gr_submit(d, pctx, &s, &fence), GR_E_INVALID);
    assert_int_equal(gr_context_destroy(d, pctx), GR_OK);
    /* An allocation of another device of the same process is not this device's. */
    gr_gpu_device_t *d2 = NULL;
    gr_alloc_t other = 0;
    assert_int_equal(gr_gpu_device_create(f->proc, &d2), GR_OK);
    assert_int_equal(create_alloc(d2, 4096, GR_CPU_ACCESS_NONE, &other), GR_OK);
    gr_alloc_ref_t foreign = {other, 0};
    s = good, s.allocs = &foreign;
    REFUSED(gr_submit(d, ctx, &s, &fence), GR_E_INVALID);
    REFUSED(gr_submit(d2, ctx, &good, &fence), GR_E_INVALID); /* the context is not d2's */
    /* The other calls: bad handles and sizes. */
    gr_context_t nc = 0x1234;
    const uint32_t blob = 0;
    const uint64_t kctx = kmd_counts(f->ad).contexts;
    assert_int_equal(gr_context_create(d, NULL, 4, &nc), GR_E_INVALID);
    assert_int_equal(gr_context_create(d, &blob, GR_CONTEXT_MAX_PRIVATE + 1, &nc), GR_E_INVALID);
    assert_int_equal(gr_context_create(d, NULL, 0, NULL), GR_E_INVALID);
    /* gpuref's miniport defines no context private data: it refuses any, and nothing stays. */
    assert_int_equal(gr_context_create(d, &blob, sizeof blob, &nc), GR_E_INVALID);
    assert_int_equal(nc, 0x1234);
    assert_int_equal(kmd_counts(f->ad).contexts, kctx);
    assert_int_equal(sf_sched_stats(f->ad).live_contexts, NCTX);
    gr_dma_buffer_t nb = 0x77;
    assert_int_equal(gr_dma_buffer_create(d, ctx, GR_DMA_BUFFER_MAX_BYTES + 8, &nb), GR_E_RANGE);
    assert_int_equal(gr_dma_buffer_create(d, 0, 4096, &nb), GR_E_INVALID);
    assert_int_equal(nb, 0x77);
    assert_int_equal(gr_cancel(d, ctx ^ 0x5a5a5a5au, NULL), GR_E_INVALID);
    assert_int_equal(gr_preempt(d, 0), GR_E_INVALID);
    assert_int_equal(gr_context_destroy(d, c.h), GR_E_INVALID); /* a buffer, not a context */
    assert_int_equal(gr_dma_buffer_destroy(d, ctx), GR_E_INVALID);
    gr_context_info_t none;
    assert_int_equal(gr_context_info(d, 0, &none), GR_E_INVALID);
    /* Nothing of it reached the scheduler or the miniport. */
    gr_sched_stats_t st = sf_sched_stats(f->ad);
    assert_int_equal(st.patched, 0);
    assert_int_equal(st.submitted, 0);
    assert_int_equal(st.live_packets, 0);
    gr_context_info_t ci;
    assert_int_equal(gr_context_info(d, ctx, &ci), GR_OK);
    assert_int_equal(ci.submitted, 0);
    gr_dma_buffer_info_t bi;
    assert_int_equal(gr_dma_buffer_info(d, c.h, &bi), GR_OK);
    assert_int_equal(bi.in_flight, 0);
    /* No timeline event, and nothing patched into the buffer. */
    assert_int_equal(gr_adapter_timeline(f->ad, 0, NULL, 0, &tl_n, &tl_after), GR_OK);
    assert_int_equal(tl_after, tl_mark);
    assert_memory_equal(c.cpu, before, sizeof before);
    /* Waits: fences never handed out. */
    assert_int_equal(gr_wait(d, ctx, 0, 0), GR_E_INVALID);
    assert_int_equal(gr_wait(d, ctx, 1, 0), GR_E_INVALID);
    /* A buffer in flight cannot be destroyed; a wait that times out says so. */
    sub_t held = submit_fill(f, ctx, 0, f->alloc[0], 0, 4096, 2);
    uint64_t one = 1;
    assert_true(sf_wait_until(f->ad, pred_submitted, &one));
    assert_int_equal(gr_dma_buffer_destroy(d, held.buf), GR_E_BUSY);
    gr_dma_buffer_info_t hi;
    assert_int_equal(gr_dma_buffer_info(d, held.buf, &hi), GR_OK);
    assert_int_equal(hi.in_flight, 1);
    assert_int_equal(wait_sub(&held, 20000), GR_E_TIMEOUT);
    assert_int_equal(gr_wait(d, ctx, held.fence + 1, 0), GR_E_INVALID);
    open_gate(f, 0);
    assert_int_equal(wait_sub(&held, LONG_WAIT), GR_OK);
    assert_int_equal(gr_dma_buffer_destroy(d, held.buf), GR_OK);
    assert_int_equal(gr_dma_buffer_destroy(d, held.buf), GR_E_INVALID); /* stale now */
    gr_gpu_device_destroy(d2);
#undef REFUSED
}

/* ==== interrupts lost: the fence record is the truth ============================================== */

static bool pred_interrupted(const gr_sched_stats_t *s, const void *arg)
{
    (void)arg;
    return s->interrupts >= 1;
}

static void fences_complete_with_the_interrupt_disabled(void **state)
{
    fx_t *f = *state;
    /* A first packet with interrupts on: the ISR path works. */
    sub_t s0 = submit_fill(f, f->ctx[0], -1, f->alloc[0], 0, 4096, 0xa0u);
    assert_int_equal(wait_sub(&s0, LONG_WAIT), GR_OK);
    /* The fence may have been learnt by a poll first; the idle interrupt thread still takes the
     * interrupt, on its next sample. */
    assert_true(sf_wait_until(f->ad, pred_interrupted, NULL));
    const uint64_t irqs = sf_sched_stats(f->ad).interrupts;
    /* Now no interrupt reaches the host at all (IRQ_ENABLE 0): every completion must come from
     * polling the fence (DxgkDdiQueryCurrentFence). */
    sf_reg_write(f->ad, GR_REG_IRQ_ENABLE, 0);
    enum { N = 8 };
    sub_t s[N];
    for (unsigned i = 0; i < N; i++)
        s[i] = submit_fill(f, f->ctx[i % 2], -1, f->alloc[0], (i + 1) * 4096, 4096, 0xb0u + i);
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(wait_sub(&s[i], LONG_WAIT), GR_OK);
    gr_sched_stats_t st = sf_sched_stats(f->ad);
    assert_int_equal(st.interrupts, irqs); /* the interrupt routine never claimed one */
    assert_true(st.fence_by_poll >= 1);
    /* The device did raise them: the state bits wait, unseen. */
    assert_true(sf_reg_read(f->ad, GR_REG_IRQ_STATE) & (1u << 2));
    readback(f, f->alloc[0], 4096, N * 4096);
    for (unsigned i = 0; i < N; i++)
        assert_true(all_words(f->rb_cpu + i * 4096, 4096, 0xb0u + i));
    assert_int_equal(kmd_packets(f->ad), 0);
}

/* ==== preemption ====================================================================================== */

/* A packet longer than the quantum, with another context waiting: preempted (not reset),
 * resubmitted with a new fence id and Flags.Resubmission, completes with the right contents. */
static void long_packet_is_preempted_by_the_quantum_and_not_reset(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 20000, 4000000);
    /* Held at a gate until the others are queued: however slowly this thread runs, the long
     * packet cannot finish before another context is waiting. */
    sub_t lng = submit_fill(f, f->ctx[0], 0, f->alloc[0], 0, 512 * KIB, 0x10a9u);
    sub_t sh[3];
    for (unsigned i = 0; i < 3; i++)
        sh[i] = submit_fill(f, f->ctx[1], -1, f->alloc[1], i * 4096, 4096, 0x50u + i);
    open_gate(f, 0);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(wait_sub(&sh[i], LONG_WAIT), GR_OK);
    assert_int_equal(wait_sub(&lng, LONG_WAIT), GR_OK);
    gr_sched_stats_t st = sf_sched_stats(f->ad);
    assert_true(st.preemptions >= 1);
    assert_int_equal(st.tdrs, 0);
    assert_int_equal(st.cancelled, 0);
    rec_t r = rec_get(lng.dma);
    assert_true(r.submits >= 2);
    assert_false(r.submit_resub[0]);
    assert_true(r.submit_resub[1]);
    assert_true(r.submit_fence[1] != r.submit_fence[0]);
    assert_false(r.patch_fence_mismatch); /* re-patched with each new fence id */
    assert_false(r.later_patch_differs);
    readback(f, f->alloc[0], 0, 64 * KIB);
    assert_true(all_words(f->rb_cpu, 64 * KIB, 0x10a9u));
    readback(f, f->alloc[0], 448 * KIB, 64 * KIB);
    assert_true(all_words(f->rb_cpu, 64 * KIB, 0x10a9u));
    check_rules(&lng, GR_OK);
    for (unsigned i = 0; i < 3; i++)
        check_rules(&sh[i], GR_OK);
    check_global_rules();
}

/* The same long packet alone: nobody waits, so the quantum does not preempt it, and it is well
 * inside the TDR timeout: no reset. */
static void long_packet_alone_runs_through_without_preemption_or_reset(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 20000, 4000000);
    const uint64_t t0 = sf_cycles(f->ad);
    sub_t lng = submit_fill(f, f->ctx[0], -1, f->alloc[0], 0, 512 * KIB, 0x20a9u);
    assert_int_equal(wait_sub(&lng, LONG_WAIT), GR_OK);
    assert_true(sf_cycles(f->ad) - t0 > 20000); /* it did outlive the quantum */
    gr_sched_stats_t st = sf_sched_stats(f->ad);
    assert_int_equal(st.preemptions, 0);
    assert_int_equal(st.tdrs, 0);
    assert_int_equal(rec_get(lng.dma).submits, 1);
}

/* COPY bytes from one allocation to another, by their GPU VAs. */
static void cmd_copy(sf_cmd_t *c, gr_alloc_t src, gr_alloc_t dst, uint32_t bytes)
{
    assert_int_equal(gr_dma_copy(&c->w, GR_DMA_SPACE_GPUVA, sf_alloc_va(c->dev, src), GR_DMA_SPACE_GPUVA,
                                 sf_alloc_va(c->dev, dst), bytes),
                     0);
    (void)sf_cmd_ref(c, src, false);
    (void)sf_cmd_ref(c, dst, true);
}

static uint64_t perf_bytes(gr_adapter_t *ad)
{
    uint32_t hi = sf_reg_read(ad, GR_REG_DMA_PERF_BYTES_HI), lo = sf_reg_read(ad, GR_REG_DMA_PERF_BYTES_LO);
    uint32_t hi2 = sf_reg_read(ad, GR_REG_DMA_PERF_BYTES_HI);
    if (hi2 != hi)
        lo = sf_reg_read(ad, GR_REG_DMA_PERF_BYTES_LO);
    return (uint64_t)hi2 << 32 | lo;
}

/*
 * A packet many TDR timeouts long (a FILL and a COPY of 512 KiB each against a 20,000-cycle
 * timeout): at each timeout VidSch preempts, the engine stops inside the COPY or FILL, the
 * miniport resumes it past the bytes it wrote, and VidSch sees the packet moved on: no reset,
 * and the engine writes every byte exactly once (DMA_PERF_BYTES), which a packet restarted
 * from a command's first byte would not.
 */
static void long_packet_past_the_tdr_timeout_resumes_where_it_stopped_and_completes(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 100000000, 20000);
    sf_cmd_t c;
    sf_cmd_begin(f->dev, f->ctx[0], &c);
    cmd_fill(&c, f->alloc[0], 0, 512 * KIB, 0x7e57a11u);
    cmd_copy(&c, f->alloc[0], f->alloc[1], 512 * KIB);
    cmd_fill(&c, f->alloc[2], 0, 4096, 0x7e57a12u);
    const uint64_t b0 = perf_bytes(f->ad);
    sub_t lng = cmd_submit(f->dev, f->ctx[0], &c);
    assert_int_equal(wait_sub(&lng, LONG_WAIT), GR_OK);
    const uint64_t moved = perf_bytes(f->ad) - b0;
    gr_sched_stats_t st = sf_sched_stats(f->ad);
    assert_int_equal(st.tdrs, 0);
    assert_true(st.preemptions >= 3);
    rec_t r = rec_get(lng.dma);
    assert_true(r.submits >= 4);
    assert_true(r.submit_resub[1]);
    assert_int_equal(moved, 512 * KIB + 512 * KIB + 4096);
    readback(f, f->alloc[1], 0, 64 * KIB);
    assert_true(all_words(f->rb_cpu, 64 * KIB, 0x7e57a11u));
    readback(f, f->alloc[1], 448 * KIB, 64 * KIB);
    assert_true(all_words(f->rb_cpu, 64 * KIB, 0x7e57a11u));
    readback(f, f->alloc[2], 0, 4096);
    assert_true(all_words(f->rb_cpu, 4096, 0x7e57a12u));
    check_rules(&lng, GR_OK);
    check_global_rules();
}

static int create_protected(gr_gpu_device_t *dev, uint64_t bytes, uint32_t flag, gr_alloc_t *out)
{
    gr_alloc_private_t p = buffer_priv(bytes, GR_CPU_ACCESS_NONE);
    p.flags = flag;
    gr_alloc_desc_t d = {.private_data = &p, .private_size = sizeof p};
    return gr_alloc_create(dev, NULL, &d, 1, out, NULL);
}

/*
 * Protected content never reaches a place the CPU can read: a packet that names a Protected
 * (or VPR) allocation and writes one that is not is refused at gr_submit, with nothing queued;
 * into another protected allocation it runs. The same list without the protected one runs.
 */
static void protected_content_goes_only_to_protected_allocations(void **state)
{
    fx_t *f = *state;
    gr_alloc_t prot = 0, prot2 = 0, vpr = 0;
    assert_int_equal(create_protected(f->dev, 64 * KIB, GR_ALLOC_PRIV_PROTECTED, &prot), GR_OK);
    assert_int_equal(create_protected(f->dev, 64 * KIB, GR_ALLOC_PRIV_PROTECTED, &prot2), GR_OK);
    assert_int_equal(create_protected(f->dev, 64 * KIB, GR_ALLOC_PRIV_IN_VPR, &vpr), GR_OK);
    const gr_alloc_t srcs[2] = {prot, vpr};
    for (unsigned k = 0; k < 2; k++) {
        sf_cmd_t c;
        sf_cmd_begin(f->dev, f->ctx[0], &c);
        cmd_copy(&c, srcs[k], f->alloc[0], 4096);
        gr_submission_t sub = {.buffer = c.h, .start = 0, .end = (uint32_t)c.w.used, .allocs = c.refs,
                               .alloc_count = c.nrefs, .patches = c.pl, .patch_count = c.npl};
        size_t n = 0;
        uint64_t mark = 0, after = 0, fence = 77;
        assert_int_equal(gr_adapter_timeline(f->ad, 0, NULL, 0, &n, &mark), GR_OK);
        assert_int_equal(gr_submit(f->dev, f->ctx[0], &sub, &fence), GR_E_INVALID);
        assert_int_equal(fence, 77);
        /* Also when the protected one is only read and the write is listed first. */
        gr_alloc_ref_t swapped[2] = {{f->alloc[0], GR_ALLOC_REF_WRITE}, {srcs[k], 0}};
        gr_submission_t sub2 = {.buffer = c.h, .start = 0, .end = (uint32_t)c.w.used, .allocs = swapped,
                                .alloc_count = 2};
        assert_int_equal(gr_submit(f->dev, f->ctx[0], &sub2, &fence), GR_E_INVALID);
        assert_int_equal(fence, 77);
        assert_int_equal(gr_adapter_timeline(f->ad, 0, NULL, 0, &n, &after), GR_OK);
        assert_int_equal(after, mark);
        gr_context_info_t ci;
        assert_int_equal(gr_context_info(f->dev, f->ctx[0], &ci), GR_OK);
        assert_int_equal(ci.submitted, 0);
    }
    /* Protected to protected runs. */
    sf_cmd_t c;
    sf_cmd_begin(f->dev, f->ctx[0], &c);
    cmd_fill(&c, prot, 0, 4096, 0x5ec7e7u);
    cmd_copy(&c, prot, prot2, 4096);
    sub_t ok = cmd_submit(f->dev, f->ctx[0], &c);
    assert_int_equal(wait_sub(&ok, LONG_WAIT), GR_OK);
    /* A packet that hides its source (names the Protected allocation's GPU VA without listing
     * it) and copies into a buffer the CPU reads: the list rule cannot see it, but Protected
     * content lives in the VPR, so the engine faults the copy and no byte arrives. */
    gr_alloc_info_t pi;
    assert_int_equal(gr_alloc_query(f->dev, prot, &pi), GR_OK);
    gr_segment_info_t seg[GR_ALLOC_MAX_SEGMENTS];
    uint32_t nseg = 0;
    assert_int_equal(gr_adapter_segments(f->ad, seg, GR_ALLOC_MAX_SEGMENTS, &nseg), GR_OK);
    assert_true(pi.segment >= 1 && pi.segment <= nseg && seg[pi.segment - 1].vpr);
    assert_true(pi.offset >= seg[pi.segment - 1].vpr_offset &&
                pi.offset + pi.size <= seg[pi.segment - 1].vpr_offset + seg[pi.segment - 1].vpr_size);
    assert_true(pi.pinned & GR_PIN_PROTECTED);
    memset(f->rb_cpu, 0xa5, 4096);
    sf_cmd_t h;
    sf_cmd_begin(f->dev, f->ctx[1], &h);
    assert_int_equal(gr_dma_copy(&h.w, GR_DMA_SPACE_GPUVA, sf_alloc_va(f->dev, prot), GR_DMA_SPACE_GPUVA,
                                 f->rb_va, 4096),
                     0);
    sub_t hidden = cmd_submit(f->dev, f->ctx[1], &h);
    assert_int_equal(wait_sub(&hidden, LONG_WAIT), GR_E_DEVICE_RESET);
    assert_int_equal(GR_FIELD_GET(DMA_FAULT_STATUS, TYPE, sf_reg_read(f->ad, GR_REG_DMA_FAULT_STATUS)),
                     GR_DMA_FAULT_VPR_COPY);
    assert_true(all_words(f->rb_cpu, 4096, 0xa5a5a5a5u));
    assert_int_equal(gr_alloc_destroy(f->dev, vpr), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, prot2), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, prot), GR_OK);
}

/* gr_preempt takes the context's packet off the engine; it runs again and completes. */
static void explicit_preemption_resubmits_and_the_packet_completes(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 100000000, 100000000);
    assert_int_equal(gr_preempt(f->dev, f->ctx[0]), GR_OK); /* nothing on the engine: no-op */
    assert_int_equal(sf_sched_stats(f->ad).preemptions, 0);
    sub_t s = submit_fill(f, f->ctx[0], 3, f->alloc[0], 0, 4096, 0x3e3e3e3eu);
    uint64_t one = 1;
    assert_true(sf_wait_until(f->ad, pred_submitted, &one));
    assert_int_equal(gr_preempt(f->dev, f->ctx[0]), GR_OK);
    gr_sched_stats_t st = sf_sched_stats(f->ad);
    assert_int_equal(st.preemptions, 1);
    assert_true(st.preempted >= 1);
    open_gate(f, 3);
    assert_int_equal(wait_sub(&s, LONG_WAIT), GR_OK);
    rec_t r = rec_get(s.dma);
    assert_true(r.submits >= 2);
    assert_true(r.submit_resub[1]);
    check_rules(&s, GR_OK);
    readback(f, f->alloc[0], 0, 4096);
    assert_true(all_words(f->rb_cpu, 4096, 0x3e3e3e3eu));
    assert_int_equal(sf_sched_stats(f->ad).tdrs, 0);
}

/* ==== cancellation ====================================================================================== */

typedef struct counts2 {
    uint64_t submitted, patched;
} counts2_t;

static bool pred_sub_patch(const gr_sched_stats_t *s, const void *arg)
{
    const counts2_t *c = arg;
    return s->submitted >= c->submitted && s->patched >= c->patched;
}

/* P1 waits on a closed gate, so nothing completes. With 4 packets allowed on the hardware:
 * P1..P4 on it, P5 patched ahead, P6..P8 only queued. gr_cancel: P1..P5 get exactly one
 * CancelCommand each with their Patch arguments, P6..P8 none; none of them ever runs. */
static void cancel_cancels_each_patched_packet_once_and_drops_the_rest(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 100000000, 100000000);
    enum { N = 8 };
    sub_t s[N];
    s[0] = submit_fill(f, f->ctx[0], 1, f->alloc[0], 0, 4096, 0x77u);
    for (unsigned i = 1; i < N; i++)
        s[i] = submit_fill(f, f->ctx[0], -1, f->alloc[0], i * 4096, 4096, 0x77u + i);
    counts2_t want = {4, 5};
    assert_true(sf_wait_until(f->ad, pred_sub_patch, &want));
    sf_sleep_ms(20);
    gr_sched_stats_t st = sf_sched_stats(f->ad);
    assert_int_equal(st.submitted, 4);
    assert_int_equal(st.patched, 5);
    assert_int_equal(st.completed, 0);
    assert_int_equal(kmd_counts(f->ad).packets, 5);
    uint32_t n = 0;
    assert_int_equal(gr_cancel(f->dev, f->ctx[0], &n), GR_OK);
    assert_int_equal(n, N);
    for (unsigned i = 0; i < N; i++) {
        assert_int_equal(wait_sub(&s[i], 0), GR_E_CANCELLED);
        check_rules(&s[i], GR_E_CANCELLED);
        rec_t r = rec_get(s[i].dma);
        assert_int_equal(r.patches ? 1 : 0, i < 5 ? 1 : 0);
    }
    check_global_rules();
    st = sf_sched_stats(f->ad);
    assert_int_equal(st.cancelled, 5);
    assert_int_equal(st.dropped, 3);
    assert_int_equal(st.live_packets, 0);
    /* CancelCommand freed the miniport's state, with the context still alive. */
    assert_int_equal(kmd_packets(f->ad), 0);
    /* None of them ran: the allocation is untouched; the context still works. */
    open_gate(f, 1);
    readback(f, f->alloc[0], 0, N * 4096);
    assert_true(all_words(f->rb_cpu, N * 4096, 0));
    sub_t after = submit_fill(f, f->ctx[0], -1, f->alloc[0], 0, 4096, 0xaf7e0u);
    assert_int_equal(wait_sub(&after, LONG_WAIT), GR_OK);
    check_rules(&after, GR_OK);
}

/* Completed packets never get a CancelCommand; only those that did not run. */
static void packets_that_ran_are_never_cancelled(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 100000000, 100000000);
    const gr_sched_stats_t base = sf_sched_stats(f->ad);
    sub_t done[3], pending[3];
    for (unsigned i = 0; i < 3; i++)
        done[i] = submit_fill(f, f->ctx[0], -1, f->alloc[0], i * 4096, 4096, 0xd0u + i);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(wait_sub(&done[i], LONG_WAIT), GR_OK);
    pending[0] = submit_fill(f, f->ctx[0], 2, f->alloc[0], 3 * 4096, 4096, 0xe0u);
    for (unsigned i = 1; i < 3; i++)
        pending[i] = submit_fill(f, f->ctx[0], -1, f->alloc[0], (3 + i) * 4096, 4096, 0xe0u + i);
    /* Counted from here: on a device reached over a link the fixture's allocations were zeroed
     * by paging packets, which the scheduler counts too. */
    counts2_t want = {base.submitted + 6, base.patched + 6};
    assert_true(sf_wait_until(f->ad, pred_sub_patch, &want));
    const gr_sched_stats_t before = sf_sched_stats(f->ad);
    uint32_t n = 0;
    assert_int_equal(gr_cancel(f->dev, f->ctx[0], &n), GR_OK);
    assert_int_equal(n, 3);
    for (unsigned i = 0; i < 3; i++) {
        check_rules(&done[i], GR_OK);
        assert_int_equal(wait_sub(&pending[i], 0), GR_E_CANCELLED);
        check_rules(&pending[i], GR_E_CANCELLED);
    }
    check_global_rules();
    /* All three were patched: each is cancelled through the miniport, none dropped. */
    const gr_sched_stats_t after = sf_sched_stats(f->ad);
    assert_int_equal(after.cancelled - before.cancelled, 3);
    assert_int_equal(after.dropped - before.dropped, 0);

    assert_int_equal(kmd_packets(f->ad), 0);
}

/* ---- cancel while a preemption is in flight ---- */

typedef struct cdp {
    fx_t *f;
    sem_t go;
    atomic_bool fired;
    pthread_t th;
    gr_status_t rc;
} cdp_t;

static cdp_t *cdp_now;

static void *cdp_cancel_main(void *arg)
{
    cdp_t *c = arg;
    sem_wait(&c->go);
    c->rc = gr_cancel(c->f->dev, c->f->ctx[0], NULL);
    return NULL;
}

/* Inside DxgkDdiPreemptCommand (the preemption requested, not yet landed): the cancel comes. */
static void hook_cancel_during_preempt(void)
{
    cdp_t *c = cdp_now;
    if (!c || atomic_exchange(&c->fired, true))
        return;
    sem_post(&c->go);
    sf_sleep_ms(30);
}

static void *preempt_main(void *arg)
{
    fx_t *f = arg;
    if (gr_preempt(f->dev, f->ctx[0]) != GR_OK)
        abort(); /* the preemption must land: the cancel only takes the packets off after it */
    return NULL;
}

static void cancel_during_preemption_cancels_once_and_resubmits_nothing_of_it(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 100000000, 100000000);
    sub_t a[4], b[2];
    a[0] = submit_fill(f, f->ctx[0], 4, f->alloc[0], 0, 4096, 0xa0u);
    for (unsigned i = 1; i < 4; i++)
        a[i] = submit_fill(f, f->ctx[0], -1, f->alloc[0], i * 4096, 4096, 0xa0u + i);
    b[0] = submit_fill(f, f->ctx[1], -1, f->alloc[1], 0, 4096, 0xb0u);
    b[1] = submit_fill(f, f->ctx[1], -1, f->alloc[1], 4096, 4096, 0xb1u);
    counts2_t want = {4, 5};
    assert_true(sf_wait_until(f->ad, pred_sub_patch, &want));
    cdp_t c;
    memset(&c, 0, sizeof c);
    c.f = f;
    sem_init(&c.go, 0, 0);
    cdp_now = &c;
    R.on_preempt_after = hook_cancel_during_preempt;
    assert_int_equal(pthread_create(&c.th, NULL, cdp_cancel_main, &c), 0);
    pthread_t pt;
    assert_int_equal(pthread_create(&pt, NULL, preempt_main, f), 0);
    pthread_join(pt, NULL);
    pthread_join(c.th, NULL);
    R.on_preempt_after = NULL;
    cdp_now = NULL;
    assert_true(atomic_load(&c.fired));
    assert_int_equal(c.rc, GR_OK);
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(wait_sub(&a[i], 0), GR_E_CANCELLED);
        check_rules(&a[i], GR_E_CANCELLED);
        assert_true(rec_get(a[i].dma).submits <= 1); /* never resubmitted after the preemption */
    }
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(wait_sub(&b[i], LONG_WAIT), GR_OK);
        check_rules(&b[i], GR_OK);
    }
    check_global_rules();
    gr_sched_stats_t st = sf_sched_stats(f->ad);
    assert_int_equal(st.tdrs, 0);
    assert_int_equal(st.live_packets, 0);
    assert_int_equal(kmd_packets(f->ad), 0);
    sem_destroy(&c.go);
}

/* ==== TDR ================================================================================================ */

/* Writes a recognisable pattern into an allocation through the CPU (lock) and checks it. */
static void cpu_pattern(fx_t *f, gr_alloc_t a, uint32_t salt, bool check)
{
    void *p = NULL;
    assert_int_equal(gr_alloc_lock(f->dev, a, check ? GR_LOCK_READ_ONLY : 0, &p), GR_OK);
    uint32_t *w = p;
    for (uint32_t i = 0; i < 16 * KIB / 4; i++) {
        uint32_t v = (i * 2654435761u) ^ salt;
        if (check)
            assert_int_equal(w[i], v);
        else
            w[i] = v;
    }
    assert_int_equal(gr_alloc_unlock(f->dev, a), GR_OK);
}

/* A packet that never finishes (WAIT on a gate nobody opens): VidSch preempts it at the timeout,
 * it runs again, times out again, and the GPU is reset. Its context is lost; its packets never
 * run and each patched one gets one CancelCommand; the allocations keep their contents; the
 * device keeps working. */
static void hung_packet_times_out_resets_the_gpu_and_the_device_recovers(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 20000, 100000);
    gr_alloc_t keep = 0;
    assert_int_equal(create_alloc(f->dev, 16 * KIB, GR_CPU_ACCESS_READ_WRITE, &keep), GR_OK);
    cpu_pattern(f, keep, 0x7d7d0000u ^ (uint32_t)seed, false);
    sub_t done = submit_fill(f, f->ctx[1], -1, f->alloc[1], 0, 4096, 0x600d0001u);
    assert_int_equal(wait_sub(&done, LONG_WAIT), GR_OK);
    sub_t hung = submit_fill(f, f->ctx[0], 5, f->alloc[0], 0, 4096, 0xbadu);
    sub_t behind = submit_fill(f, f->ctx[0], -1, f->alloc[0], 4096, 4096, 0xbad1u);
    assert_int_equal(wait_sub(&hung, LONG_WAIT), GR_E_DEVICE_RESET);
    assert_int_equal(wait_sub(&behind, LONG_WAIT), GR_E_DEVICE_RESET);
    gr_sched_stats_t st = sf_sched_stats(f->ad);
    assert_int_equal(st.tdrs, 1);
    assert_true(st.preemptions >= 2); /* asked to preempt before each timeout, as the docs say */
    check_rules(&hung, GR_E_DEVICE_RESET);
    check_rules(&behind, GR_E_DEVICE_RESET);
    check_rules(&done, GR_OK);
    assert_int_equal(rec_get(hung.dma).cancels, 1);
    check_global_rules();
    /* The lost context refuses work; the device does not. */
    sf_cmd_t c;
    sf_cmd_begin(f->dev, f->ctx[0], &c);
    cmd_fill(&c, f->alloc[0], 0, 4096, 1);
    gr_submission_t sb = {.buffer = c.h, .start = 0, .end = (uint32_t)c.w.used, .allocs = c.refs,
                          .alloc_count = c.nrefs, .patches = c.pl, .patch_count = c.npl};
    uint64_t fence = 0;
    assert_int_equal(gr_submit(f->dev, f->ctx[0], &sb, &fence), GR_E_DEVICE_RESET);
    gr_context_info_t ci;
    assert_int_equal(gr_context_info(f->dev, f->ctx[0], &ci), GR_OK);
    assert_true(ci.lost);
    gr_context_t fresh = 0;
    assert_int_equal(gr_context_create(f->dev, NULL, 0, &fresh), GR_OK);
    sub_t again = submit_fill(f, fresh, -1, f->alloc[0], 0, 8192, 0x0a6a1000u);
    assert_int_equal(wait_sub(&again, LONG_WAIT), GR_OK);
    sub_t other = submit_fill(f, f->ctx[1], -1, f->alloc[1], 4096, 4096, 0x600d0002u);
    assert_int_equal(wait_sub(&other, LONG_WAIT), GR_OK);
    /* Contents: the hung packets never wrote; what completed before and after is there; the
     * CPU's pattern survived the reset. */
    readback(f, f->alloc[0], 0, 8192);
    assert_true(all_words(f->rb_cpu, 8192, 0x0a6a1000u));
    readback(f, f->alloc[1], 0, 8192);
    assert_true(all_words(f->rb_cpu, 4096, 0x600d0001u));
    assert_true(all_words(f->rb_cpu + 4096, 4096, 0x600d0002u));
    cpu_pattern(f, keep, 0x7d7d0000u ^ (uint32_t)seed, true);
    assert_int_equal(kmd_packets(f->ad), 0);
}

/* A faulting packet (a command the engine refuses) resets at once, well inside the timeout.
 * The innocent context's packets that were on the hardware behind it are resubmitted (new fence
 * ids) and complete; the guilty context's other packets are cancelled. */
static void faulting_packet_resets_at_once_and_innocent_work_is_resubmitted(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 100000000, 50000000);
    sf_cmd_t c;
    sf_cmd_begin(f->dev, f->ctx[0], &c);
    cmd_wait_gate(f, &c, 6);
    cmd_bad(&c);
    sub_t bad = cmd_submit(f->dev, f->ctx[0], &c);
    sub_t inno[2];
    inno[0] = submit_fill(f, f->ctx[1], -1, f->alloc[1], 0, 4096, 0x1a1a1a1au);
    sub_t guilty2 = submit_fill(f, f->ctx[0], -1, f->alloc[0], 0, 4096, 0xdeadu);
    inno[1] = submit_fill(f, f->ctx[1], -1, f->alloc[1], 4096, 4096, 0x2b2b2b2bu);
    counts2_t want = {4, 4};
    assert_true(sf_wait_until(f->ad, pred_sub_patch, &want));
    const uint64_t t0 = sf_cycles(f->ad);
    open_gate(f, 6);
    assert_int_equal(wait_sub(&bad, LONG_WAIT), GR_E_DEVICE_RESET);
    assert_true(sf_cycles(f->ad) - t0 < 5000000); /* the fault, not the 50M-cycle timeout */
    assert_int_equal(wait_sub(&guilty2, LONG_WAIT), GR_E_DEVICE_RESET);
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(wait_sub(&inno[i], LONG_WAIT), GR_OK);
        check_rules(&inno[i], GR_OK);
        rec_t r = rec_get(inno[i].dma);
        assert_int_equal(r.submits, 2); /* on the hardware at the reset, then again after it */
        assert_true(r.submit_resub[1]);
        assert_true((int32_t)(r.submit_fence[1] - r.submit_fence[0]) > 0);
    }
    check_rules(&bad, GR_E_DEVICE_RESET);
    check_rules(&guilty2, GR_E_DEVICE_RESET);
    assert_int_equal(rec_get(bad.dma).cancels, 1);
    check_global_rules();
    assert_int_equal(sf_sched_stats(f->ad).tdrs, 1);
    readback(f, f->alloc[1], 0, 8192);
    assert_true(all_words(f->rb_cpu, 4096, 0x1a1a1a1au));
    assert_true(all_words(f->rb_cpu + 4096, 4096, 0x2b2b2b2bu));
    readback(f, f->alloc[0], 0, 4096);
    assert_true(all_words(f->rb_cpu, 4096, 0)); /* the guilty context's fill never ran */
    assert_int_equal(kmd_packets(f->ad), 0);
}

/* The engine's own watchdog (DMA_WATCHDOG) reports the hang before VidSch's timeout would. */
static void engine_watchdog_hang_is_a_tdr(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 100000000, 100000000);
    sf_reg_write(f->ad, GR_REG_DMA_WATCHDOG, 100000);
    const uint64_t t0 = sf_cycles(f->ad);
    sub_t hung = submit_fill(f, f->ctx[0], 7, f->alloc[0], 0, 4096, 0xdeadu);
    assert_int_equal(wait_sub(&hung, LONG_WAIT), GR_E_DEVICE_RESET);
    assert_true(sf_cycles(f->ad) - t0 < 10000000);
    gr_sched_stats_t st = sf_sched_stats(f->ad);
    assert_int_equal(st.tdrs, 1);
    assert_int_equal(st.preemptions, 0); /* the watchdog, not a timeout VidSch measured */
    check_rules(&hung, GR_E_DEVICE_RESET);
    check_global_rules();
    sub_t ok = submit_fill(f, f->ctx[1], -1, f->alloc[1], 0, 4096, 0x0c0c0c0cu);
    assert_int_equal(wait_sub(&ok, LONG_WAIT), GR_OK);
}

/* Five resets in a row, an innocent context working throughout: the device stays usable. */
static void repeated_tdrs_leave_the_device_usable(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 100000000, 50000000);
    enum { ROUNDS = 5 };
    for (unsigned k = 0; k < ROUNDS; k++) {
        gr_context_t victim = 0;
        assert_int_equal(gr_context_create(f->dev, NULL, 0, &victim), GR_OK);
        sub_t inno = submit_fill(f, f->ctx[1], -1, f->alloc[1], k * 4096, 4096, 0x100u + k);
        sf_cmd_t c;
        sf_cmd_begin(f->dev, victim, &c);
        cmd_wait_gate(f, &c, k); /* faults only once the packet behind it is queued */
        cmd_bad(&c);
        sub_t bad = cmd_submit(f->dev, victim, &c);
        sub_t behind = submit_fill(f, victim, -1, f->alloc[0], 0, 4096, 0xdeadu);
        open_gate(f, k);
        assert_int_equal(wait_sub(&bad, LONG_WAIT), GR_E_DEVICE_RESET);
        assert_int_equal(wait_sub(&behind, LONG_WAIT), GR_E_DEVICE_RESET);
        assert_int_equal(wait_sub(&inno, LONG_WAIT), GR_OK);
        check_rules(&bad, GR_E_DEVICE_RESET);
        check_rules(&behind, GR_E_DEVICE_RESET);
        check_rules(&inno, GR_OK);
        assert_int_equal(sf_sched_stats(f->ad).tdrs, k + 1);
        assert_int_equal(gr_context_destroy(f->dev, victim), GR_OK);
    }
    readback(f, f->alloc[1], 0, ROUNDS * 4096);
    for (unsigned k = 0; k < ROUNDS; k++)
        assert_true(all_words(f->rb_cpu + k * 4096, 4096, 0x100u + k));
    readback(f, f->alloc[0], 0, 4096);
    assert_true(all_words(f->rb_cpu, 4096, 0));
    check_global_rules();
    gr_sched_stats_t st = sf_sched_stats(f->ad);
    assert_int_equal(st.live_packets, 0);
    assert_int_equal(kmd_packets(f->ad), 0);
}

/* ==== teardown with work pending =========================================================================== */

static gr_adapter_t *destroy_probe_ad;

static NTSTATUS APIENTRY shim_destroy_context_probe(IN_CONST_HANDLE hContext)
{
    /* What the miniport still holds for packets when the OS destroys the context. */
    gr_kmd_counts_t k;
    memset(&k, 0, sizeof k);
    (void)gr_kmd_counts(gr_dxgk_test_hadapter(destroy_probe_ad), &k);
    pthread_mutex_lock(&R.lock);
    R.packets_at_destroy_context = k.packets;
    pthread_mutex_unlock(&R.lock);
    return shim_destroy_context(hContext);
}

static void destroying_a_context_with_work_pending_cancels_it_first(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 100000000, 100000000);
    gr_context_t victim = 0;
    assert_int_equal(gr_context_create(f->dev, NULL, 0, &victim), GR_OK);
    HANDLE hv = gr_vidsch_test_hcontext(f->dev, victim);
    enum { N = 7 };
    sub_t s[N];
    s[0] = submit_fill(f, victim, 8, f->alloc[0], 0, 4096, 0x1u);
    for (unsigned i = 1; i < N; i++)
        s[i] = submit_fill(f, victim, -1, f->alloc[0], i * 4096, 4096, 0x1u + i);
    counts2_t want = {4, 5};
    assert_true(sf_wait_until(f->ad, pred_sub_patch, &want));
    destroy_probe_ad = f->ad;
    gr_vidsch_test_ddi(f->ad)->DestroyContext = shim_destroy_context_probe;
    assert_int_equal(gr_context_destroy(f->dev, victim), GR_OK);
    gr_vidsch_test_ddi(f->ad)->DestroyContext = shim_destroy_context;
    /* Every patched packet was cancelled before DxgkDdiDestroyContext (the miniport held no
     * packet state any more: it was the only context with work), none after it. */
    assert_int_equal(R.packets_at_destroy_context, 0);
    assert_int_equal(R.ndestroyed, 1);
    assert_ptr_equal(R.destroyed[0], hv);
    for (unsigned i = 0; i < N; i++)
        check_rules(&s[i], GR_E_CANCELLED);
    check_global_rules();
    /* The handle is stale; the other context's work runs. */
    assert_int_equal(gr_wait(f->dev, victim, 1, 0), GR_E_INVALID);
    assert_int_equal(gr_context_destroy(f->dev, victim), GR_E_INVALID);
    sub_t other = submit_fill(f, f->ctx[1], -1, f->alloc[1], 0, 4096, 0x0e0e0e0eu);
    assert_int_equal(wait_sub(&other, LONG_WAIT), GR_OK);
    check_rules(&other, GR_OK);
    gr_sched_stats_t st = sf_sched_stats(f->ad);
    assert_int_equal(st.live_packets, 0);
    assert_int_equal(st.live_contexts, NCTX);
    assert_int_equal(kmd_packets(f->ad), 0);
    assert_int_equal(kmd_counts(f->ad).contexts, NCTX);
}

/* ---- a process that exits while its work is being patched ---- */

typedef struct pexit {
    gr_process_t *proc;
    const void *trigger_dma; /* the packet whose Patch starts the exit */
    sem_t submitted, go, started;
    atomic_bool fired;
    pthread_t th;
} pexit_t;

static pexit_t *pexit_now;

static void *pexit_main(void *arg)
{
    pexit_t *p = arg;
    sem_wait(&p->go);
    sem_post(&p->started);
    gr_process_destroy(p->proc);
    return NULL;
}

static void hook_exit_mid_patch(const DXGKARG_PATCH *a)
{
    pexit_t *p = pexit_now;
    if (!p || a->pDmaBuffer != p->trigger_dma || atomic_exchange(&p->fired, true))
        return;
    /* The process's own thread is done submitting (it must not race its own exit). */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 10;
    (void)sem_timedwait(&p->submitted, &ts);
    sem_post(&p->go);
    sem_wait(&p->started);
    sf_sleep_ms(30); /* the exit is under way while this Patch is inside the miniport */
}

static void process_exit_mid_submission_cancels_its_work_and_frees_everything(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 100000000, 100000000);
    const gr_kmd_counts_t base = kmd_counts(f->ad);
    gr_process_t *p2 = NULL;
    gr_gpu_device_t *d2 = NULL;
    gr_context_t c2 = 0;
    gr_alloc_t a2 = 0;
    assert_int_equal(gr_process_create(f->ad, &p2), GR_OK);
    assert_int_equal(gr_gpu_device_create(p2, &d2), GR_OK);
    assert_int_equal(gr_context_create(d2, NULL, 0, &c2), GR_OK);
    assert_int_equal(create_alloc(d2, 64 * KIB, GR_CPU_ACCESS_NONE, &a2), GR_OK);
    /* Build all of its commands first: after the exit its handles are gone. */
    enum { N = 6 };
    sf_cmd_t c[N];
    for (unsigned i = 0; i < N; i++) {
        sf_cmd_begin(d2, c2, &c[i]);
        if (i == 0) /* on a gate of p2's own (nobody opens it): another process's is not mapped for it */
            assert_int_equal(gr_dma_wait(&c[i].w, GR_DMA_SPACE_GPUVA, c[i].va + 4088, 1), 0);
        cmd_fill(&c[i], a2, i * 4096, 4096, 0x900u + i);
    }
    pexit_t px;
    memset(&px, 0, sizeof px);
    px.proc = p2;
    px.trigger_dma = c[2].cpu;
    sem_init(&px.submitted, 0, 0);
    sem_init(&px.go, 0, 0);
    sem_init(&px.started, 0, 0);
    pexit_now = &px;
    R.on_patch = hook_exit_mid_patch;
    assert_int_equal(pthread_create(&px.th, NULL, pexit_main, &px), 0);
    sub_t s[N];
    for (unsigned i = 0; i < N; i++)
        s[i] = cmd_submit(d2, c2, &c[i]);
    sem_post(&px.submitted);
    sub_t mine = submit_fill(f, f->ctx[0], -1, f->alloc[0], 0, 4096, 0x4d494e45u);
    pthread_join(px.th, NULL);
    R.on_patch = NULL;
    pexit_now = NULL;
    assert_true(atomic_load(&px.fired));
    /* The exiting process's packets: each patched one cancelled once, none ran. */
    for (unsigned i = 0; i < N; i++) {
        rec_t r = rec_get(s[i].dma);
        assert_false(r.submitted_after_cancel);
        assert_int_equal(r.cancels, r.patches ? 1u : 0u);
        assert_true(r.patches >= (i <= 2 ? 1u : 0u));
        /* check_rules' argument comparison, for the patched ones */
        if (r.patches)
            check_rules(&s[i], GR_E_CANCELLED);
    }
    check_global_rules();
    /* The surviving process's work is untouched. */
    assert_int_equal(wait_sub(&mine, LONG_WAIT), GR_OK);
    check_rules(&mine, GR_OK);
    /* Everything it had is gone, in the OS and in the miniport. */
    assert_int_equal(kmd_packets(f->ad), base.packets);
    gr_kmd_counts_t k = kmd_counts(f->ad);
    assert_int_equal(k.contexts, base.contexts);
    assert_int_equal(k.allocations, base.allocations);
    assert_int_equal(k.opens, base.opens);
    assert_int_equal(k.devices, base.devices);
    gr_sched_stats_t st = sf_sched_stats(f->ad);
    assert_int_equal(st.live_contexts, NCTX);
    assert_int_equal(st.live_packets, 0);
    sem_destroy(&px.submitted);
    sem_destroy(&px.go);
    sem_destroy(&px.started);
}

/* gr_adapter_close with work on the hardware and in the queues: everything is cancelled by the
 * rules, and the close returns. */
static void closing_the_adapter_with_work_pending_cancels_it(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 100000000, 100000000);
    enum { N = 6 };
    sub_t s[N];
    /* Each context's first packet waits on a gate nobody opens: nothing can complete. */
    s[0] = submit_fill(f, f->ctx[0], 10, f->alloc[0], 0, 4096, 1);
    s[1] = submit_fill(f, f->ctx[1], 13, f->alloc[1], 0, 4096, 2);
    for (unsigned i = 2; i < N; i++)
        s[i] = submit_fill(f, f->ctx[i % 2], -1, f->alloc[i % 2], i * 4096, 4096, 1 + i);
    counts2_t want = {4, 5};
    assert_true(sf_wait_until(f->ad, pred_sub_patch, &want));
    gr_adapter_close(f->ad);
    f->ad = NULL;
    unsigned patched = 0;
    for (unsigned i = 0; i < N; i++) {
        rec_t r = rec_get(s[i].dma);
        /* Cancelled by the rules, whether they were on the hardware, patched ahead or queued
         * when the close began (the close destroys one context at a time, so the other's
         * queued packets may be patched meanwhile). */
        check_rules(&s[i], GR_E_CANCELLED);
        patched += r.patches ? 1u : 0u;
    }
    assert_true(patched >= 5);
    assert_int_equal(R.cancels_total, patched);
    check_global_rules();
}

/* ---- VidMm waits for the GPU before DestroyAllocation ---- */

static gr_adapter_t *probe_ad;
static atomic_uint_fast64_t completed_at_destroy, completed_at_close;

static void hook_destroy_allocation(void)
{
    gr_sched_stats_t s;
    if (!gr_adapter_sched_stats(probe_ad, &s))
        atomic_store(&completed_at_destroy, s.completed);
}

static void hook_close_allocation(void)
{
    gr_sched_stats_t s;
    if (!gr_adapter_sched_stats(probe_ad, &s))
        atomic_store(&completed_at_close, s.completed);
}

typedef struct destroyer {
    gr_gpu_device_t *dev;
    gr_alloc_t a;
    atomic_bool done;
    gr_status_t rc;
} destroyer_t;

static void *destroyer_main(void *arg)
{
    destroyer_t *d = arg;
    d->rc = gr_alloc_destroy(d->dev, d->a);
    atomic_store(&d->done, true);
    return NULL;
}

static void destroy_allocation_waits_until_the_gpu_is_done_with_it(void **state)
{
    fx_t *f = *state;
    sf_set_sched(f->ad, 100000000, 100000000);
    gr_alloc_t x = 0;
    assert_int_equal(create_alloc(f->dev, 64 * KIB, GR_CPU_ACCESS_NONE, &x), GR_OK);
    sub_t s = submit_fill(f, f->ctx[0], 11, x, 0, 64 * KIB, 0x5a5a5a5au);
    uint64_t one = 1;
    assert_true(sf_wait_until(f->ad, pred_submitted, &one));
    probe_ad = f->ad;
    atomic_store(&completed_at_destroy, UINT64_MAX);
    atomic_store(&completed_at_close, UINT64_MAX);
    R.on_destroy_allocation = hook_destroy_allocation;
    R.on_close_allocation = hook_close_allocation;
    const uint64_t before = sf_sched_stats(f->ad).completed;
    destroyer_t d = {.dev = f->dev, .a = x};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, destroyer_main, &d), 0);
    sf_sleep_ms(100);
    assert_false(atomic_load(&d.done)); /* held: the packet names x and has not run */
    assert_int_equal(atomic_load(&completed_at_destroy), UINT64_MAX);
    assert_int_equal(atomic_load(&completed_at_close), UINT64_MAX);
    open_gate(f, 11);
    pthread_join(th, NULL);
    R.on_destroy_allocation = NULL;
    R.on_close_allocation = NULL;
    assert_int_equal(d.rc, GR_OK);
    assert_int_equal(wait_sub(&s, 0), GR_OK);
    /* Both DDIs came after the packet completed. */
    assert_true(atomic_load(&completed_at_close) >= before + 1);
    assert_true(atomic_load(&completed_at_destroy) >= before + 1);
}

/* ==== two adapters at once ================================================================================ */

typedef struct side {
    gr_adapter_t *ad;
    bool fault;
    int errors;
    uint64_t tdrs;
} side_t;

static void *side_main(void *arg)
{
    side_t *sd = arg;
    gr_process_t *p = NULL;
    gr_gpu_device_t *d = NULL;
    gr_context_t c = 0, cb = 0;
    gr_alloc_t a = 0;
    gr_dma_buffer_t rb = 0;
    gr_dma_buffer_info_t ri;
    gr_alloc_info_t ai;
    if (gr_process_create(sd->ad, &p) || gr_gpu_device_create(p, &d) || gr_context_create(d, NULL, 0, &c) ||
        gr_context_create(d, NULL, 0, &cb) || create_alloc(d, 256 * KIB, GR_CPU_ACCESS_NONE, &a) ||
        gr_alloc_query(d, a, &ai) || gr_dma_buffer_create(d, c, 64 * KIB, &rb) || gr_dma_buffer_info(d, rb, &ri)) {
        sd->errors++;
        return NULL;
    }
    enum { N = 12 };
    uint32_t salt = sd->fault ? 0x0a000000u : 0x0b000000u;
    for (unsigned i = 0; i < N; i++) {
        gr_dma_buffer_t b = 0;
        gr_dma_buffer_info_t bi;
        uint64_t fence = 0;
        if (gr_dma_buffer_create(d, c, 4096, &b) || gr_dma_buffer_info(d, b, &bi)) {
            sd->errors++;
            break;
        }
        gr_dma_writer_t w;
        gr_dma_writer_init(&w, bi.cpu, bi.size);
        (void)gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, ai.gpu_va + i * 4096, 4096, salt + i);
        gr_alloc_ref_t r = {a, GR_ALLOC_REF_WRITE};
        gr_submission_t s = {.buffer = b, .start = 0, .end = (uint32_t)w.used, .allocs = &r, .alloc_count = 1};
        if (gr_submit(d, c, &s, &fence) || gr_wait(d, c, fence, LONG_WAIT) != GR_OK)
            sd->errors++;
        if (sd->fault && i == N / 2) {
            /* A faulting packet on this adapter only. */
            gr_dma_buffer_t fb = 0;
            gr_dma_buffer_info_t fi;
            if (gr_dma_buffer_create(d, cb, 4096, &fb) || gr_dma_buffer_info(d, fb, &fi)) {
                sd->errors++;
                continue;
            }
            gr_dma_put64(fi.cpu, 0xeeu);
            gr_submission_t fs = {.buffer = fb, .start = 0, .end = 8};
            uint64_t ff = 0;
            if (gr_submit(d, cb, &fs, &ff) || gr_wait(d, cb, ff, LONG_WAIT) != GR_E_DEVICE_RESET)
                sd->errors++;
        }
    }
    /* Read it all back through the engine and check. */
    gr_dma_buffer_t b = 0;
    gr_dma_buffer_info_t bi;
    uint64_t fence = 0;
    if (!gr_dma_buffer_create(d, c, 4096, &b) && !gr_dma_buffer_info(d, b, &bi)) {
        gr_dma_writer_t w;
        gr_dma_writer_init(&w, bi.cpu, bi.size);
        (void)gr_dma_copy(&w, GR_DMA_SPACE_GPUVA, ai.gpu_va, GR_DMA_SPACE_GPUVA, ri.gpu_va, N * 4096);
        gr_alloc_ref_t r = {a, 0};
        gr_submission_t s = {.buffer = b, .start = 0, .end = (uint32_t)w.used, .allocs = &r, .alloc_count = 1};
        if (gr_submit(d, c, &s, &fence) || gr_wait(d, c, fence, LONG_WAIT) != GR_OK)
            sd->errors++;
        for (unsigned i = 0; i < N; i++)
            if (!all_words((const uint8_t *)ri.cpu + i * 4096, 4096, salt + i))
                sd->errors++;
    } else {
        sd->errors++;
    }
    gr_sched_stats_t st;
    if (!gr_adapter_sched_stats(sd->ad, &st))
        sd->tdrs = st.tdrs;
    gr_process_destroy(p);
    return NULL;
}

static void two_adapters_schedule_independently_at_once(void **state)
{
    fx_t *f = *state;
    char uri2[160];
    snprintf(uri2, sizeof uri2, "sim://?seed=%llu&vram=512M", seed + 1000);
    gr_adapter_t *ad2 = NULL;
    assert_int_equal(gr_adapter_open(uri2, &ad2), GR_OK);
    sf_set_sched(f->ad, 100000000, 50000000);
    gr_sched_params_t sp = {.quantum_cycles = 100000000, .tdr_timeout_cycles = 50000000};
    assert_int_equal(gr_adapter_set_scheduling(ad2, &sp), GR_OK);
    side_t a = {.ad = f->ad, .fault = true}, b = {.ad = ad2, .fault = false};
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, side_main, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, side_main, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    gr_adapter_close(ad2);
    assert_int_equal(a.errors, 0);
    assert_int_equal(b.errors, 0);
    assert_int_equal(a.tdrs, 1); /* the reset was this adapter's alone */
    assert_int_equal(b.tdrs, 0);
}

/* ==== the threading levels held throughout ================================================================= */

/*
 * A workload that takes every path (submission, completion by interrupt and by polling, quantum
 * and explicit preemption, cancellation, a TDR) must not break one documented level: each
 * violation the checker recorded is printed. This fails for a miniport that reports
 * interrupts outside interrupt level (DxgkCbNotifyInterrupt from QueryCurrentFence or
 * PreemptCommand without DxgkCbSynchronizeExecution), as well as for an OS that breaks a level.
 */
static void no_threading_level_is_broken_under_load(void **state)
{
    fx_t *f = *state;
    if (!dxgk_thr_checks_enabled())
        skip();
    sf_set_sched(f->ad, 20000, 200000);
    sub_t lng = submit_fill(f, f->ctx[0], -1, f->alloc[0], 0, 256 * KIB, 0x1u);
    sub_t sh = submit_fill(f, f->ctx[1], -1, f->alloc[1], 0, 4096, 0x2u);
    assert_int_equal(wait_sub(&sh, LONG_WAIT), GR_OK);
    assert_int_equal(wait_sub(&lng, LONG_WAIT), GR_OK);
    sub_t held = submit_fill(f, f->ctx[0], 12, f->alloc[0], 0, 4096, 0x3u);
    uint64_t want = sf_sched_stats(f->ad).submitted + 1;
    assert_true(sf_wait_until(f->ad, pred_submitted, &want));
    assert_int_equal(gr_preempt(f->dev, f->ctx[0]), GR_OK);
    assert_int_equal(gr_cancel(f->dev, f->ctx[0], NULL), GR_OK);
    assert_int_equal(wait_sub(&held, 0), GR_E_CANCELLED);
    sf_reg_write(f->ad, GR_REG_IRQ_ENABLE, 0);
    sub_t polled = submit_fill(f, f->ctx[1], -1, f->alloc[1], 4096, 4096, 0x4u);
    assert_int_equal(wait_sub(&polled, LONG_WAIT), GR_OK);
    sf_reg_write(f->ad, GR_REG_IRQ_ENABLE, 0x1cu | sf_reg_read(f->ad, GR_REG_IRQ_ENABLE));
    sf_cmd_t c;
    sf_cmd_begin(f->dev, f->ctx[0], &c);
    cmd_bad(&c);
    sub_t bad = cmd_submit(f->dev, f->ctx[0], &c);
    assert_int_equal(wait_sub(&bad, LONG_WAIT), GR_E_DEVICE_RESET);
    pthread_mutex_lock(&viol_lock);
    unsigned n = viol_n;
    for (unsigned i = 0; i < n && i < VIOL_MAX; i++)
        print_error("threading violation %u: %s\n", i + 1, viol[i]);
    pthread_mutex_unlock(&viol_lock);
    assert_int_equal(n, 0);
    assert_int_equal(sf_sched_stats(f->ad).threading_violations, 0);
}

/* ==== main ===================================================================================================== */

int main(int argc, char **argv)
{
    seed = sf_start(argc, argv, "test_vidsch", uri, sizeof uri);
    /* Violations are recorded for the tests to judge, never fatal here. */
    dxgk_thr_set_handler(on_violation, NULL);
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(checker_reports_first_level_ddis_entered_concurrently),
        cmocka_unit_test(checker_reports_third_level_breaches),
        cmocka_unit_test(checker_reports_two_threads_of_one_process),
        cmocka_unit_test(checker_reports_irql_and_interrupt_protocol_breaches),
        cmocka_unit_test(reset_keeps_every_other_ddi_out_of_the_miniport),
        T(first_level_ddi_beside_the_scheduler_is_caught),
        T(fill_by_gpu_va_lands_in_the_allocation_and_patch_sees_its_list),
        T(copy_through_gpu_virtual_addresses_needs_no_patching),
        T(fence_ids_increase_and_patch_and_submit_agree),
        T(bad_submissions_are_refused_and_change_nothing),
        T(fences_complete_with_the_interrupt_disabled),
        T(long_packet_is_preempted_by_the_quantum_and_not_reset),
        T(long_packet_alone_runs_through_without_preemption_or_reset),
        T(long_packet_past_the_tdr_timeout_resumes_where_it_stopped_and_completes),
        T(protected_content_goes_only_to_protected_allocations),
        T(explicit_preemption_resubmits_and_the_packet_completes),
        T(cancel_cancels_each_patched_packet_once_and_drops_the_rest),
        T(packets_that_ran_are_never_cancelled),
        T(cancel_during_preemption_cancels_once_and_resubmits_nothing_of_it),
        T(hung_packet_times_out_resets_the_gpu_and_the_device_recovers),
        T(faulting_packet_resets_at_once_and_innocent_work_is_resubmitted),
        T(engine_watchdog_hang_is_a_tdr),
        T(repeated_tdrs_leave_the_device_usable),
        T(destroying_a_context_with_work_pending_cancels_it_first),
        T(process_exit_mid_submission_cancels_its_work_and_frees_everything),
        T(closing_the_adapter_with_work_pending_cancels_it),
        T(destroy_allocation_waits_until_the_gpu_is_done_with_it),
        T(two_adapters_schedule_independently_at_once),
        T(no_threading_level_is_broken_under_load),
    };
    int failed = sf_run_tests("vidsch", tests, sizeof tests / sizeof tests[0], NULL, NULL);
    if (failed)
        printf("# %d failed; replay: test_vidsch --seed %llu\n", failed, seed);
    return failed ? 1 : 0;
}
