/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_residency: VidMm's residency and eviction (host/dxgk/vidmm/vidmm_residency.c) over sim://, with
 * the real miniport building the paging buffers (DxgkDdiBuildPagingBuffer) and the real DMA
 * engine running them through VidSch's paging queue.
 *
 * The device keeps its 512 MiB (two segments; test_vram_size.c runs a 128 KiB one), and a
 * small VRAM is made by a test hook that takes all but a little of a segment's free space out
 * of use (gr_vidmm_test_reserve), which decides exactly how much of which segment is free. Every test checks real bytes
 * through the engine or the aperture against a host copy. A recording shim around
 * BuildPagingBuffer, Patch and SubmitCommand (the adapter's DDI table; it calls the real DDIs)
 * shows which paging operations VidMm asked for and how paging packets were submitted.
 *
 * Usage: test_residency [--seed N] (default $GR_TEST_SEED, else 1). The seed picks the bus
 * models' timing, the patterns and the copy workload; it is printed first, and every failure
 * replays with it. GR_TEST_FILTER='*pinned*' runs a subset.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "d3dkmddi.h"
#include "dxgk_testing.h"
#include "dxgk_threading.h"
#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_submit.h"
#include "gr_link.h"
#include "kmd.h"
#include "sched_fixture.h"
#include "vidmm_residency.h"
#include "vidsch_testing.h"

#define KIB UINT64_C(1024)
#define MIB (KIB * 1024)
#define LONG_WAIT 400000000u /* device cycles a test waits for something that must happen */
#define STAGE_BYTES (4 * MIB)
#define NCMD 6u /* command buffers in rotation: packets in flight at most */

static unsigned long long seed = 1;
static char uri[160];

/* ---- random numbers (splitmix64) --------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t rng_below(uint64_t n)
{
    return n ? rng_next() % n : 0;
}

/* Bytes that depend on the seed and a key. */
static void pattern(uint8_t *p, uint64_t n, uint64_t key)
{
    uint64_t s = seed * UINT64_C(0x2545f4914f6cdd1d) ^ key * UINT64_C(0x9e3779b97f4a7c15);
    for (uint64_t i = 0; i < n; i += 8) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        uint64_t v = s;
        memcpy(p + i, &v, n - i < 8 ? n - i : 8);
    }
}

/* ---- threading violations: recorded, never fatal here ------------------------------------------- */

static atomic_uint viol_n;

static void on_violation(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "# threading violation: %s\n", msg);
    atomic_fetch_add(&viol_n, 1);
}

/* ---- the recorder behind the shims ---------------------------------------------------------------- */

#define REC_MAX 8192u

typedef struct pg_rec {
    DXGK_BUILDPAGINGBUFFER_OPERATION op;
    HANDLE h;              /* the operation's hAllocation */
    UINT multipass;        /* MultipassOffset on entry */
    bool to_mdl, from_mdl; /* TRANSFER: destination / source is system memory */
    int resident;          /* NOTIFY_RESIDENCY */
    uint64_t bytes;        /* TRANSFER: TransferSize */
    NTSTATUS st;
} pg_rec_t;

typedef struct sub_rec {
    bool paging, resubmission;
    HANDLE hContext;
    UINT fence;
} sub_rec_t;

static struct {
    pthread_mutex_t lock;
    pg_rec_t pg[REC_MAX];
    unsigned npg;
    sub_rec_t sub[REC_MAX];
    unsigned nsub;
    unsigned paging_patches, bad_paging_patches;
} R = {.lock = PTHREAD_MUTEX_INITIALIZER};

static gr_dxgk_ddi_table_t orig;

static NTSTATUS APIENTRY shim_build(IN_CONST_HANDLE h, IN_PDXGKARG_BUILDPAGINGBUFFER a)
{
    pg_rec_t r;
    memset(&r, 0, sizeof r);
    r.op = a->Operation;
    r.multipass = a->MultipassOffset;
    switch (a->Operation) {
    case DXGK_OPERATION_TRANSFER:
        r.h = a->Transfer.hAllocation;
        r.to_mdl = a->Transfer.Destination.SegmentId == 0;
        r.from_mdl = a->Transfer.Source.SegmentId == 0;
        r.bytes = a->Transfer.TransferSize;
        break;
    case DXGK_OPERATION_DISCARD_CONTENT:
        r.h = a->DiscardContent.hAllocation;
        break;
    case DXGK_OPERATION_NOTIFY_RESIDENCY:
        r.h = a->NotifyResidency.hAllocation;
        r.resident = (int)a->NotifyResidency.Resident;
        break;
    default:
        break;
    }
    NTSTATUS st = orig.BuildPagingBuffer(h, a);
    r.st = st;
    pthread_mutex_lock(&R.lock);
    if (R.npg < REC_MAX)
        R.pg[R.npg++] = r;
    pthread_mutex_unlock(&R.lock);
    return st;
}

static NTSTATUS APIENTRY shim_patch(IN_CONST_HANDLE h, IN_CONST_PDXGKARG_PATCH a)
{
    if (a->Flags.Paging) {
        pthread_mutex_lock(&R.lock);
        R.paging_patches++;
        /* DXGKARG_PATCH page: a paging buffer comes without a context or lists. */
        if (a->hContext || a->AllocationListSize || a->PatchLocationListSize || a->PatchLocationListSubmissionLength)
            R.bad_paging_patches++;
        pthread_mutex_unlock(&R.lock);
    }
    return orig.Patch(h, a);
}

static NTSTATUS APIENTRY shim_submit(IN_CONST_HANDLE h, IN_CONST_PDXGKARG_SUBMITCOMMAND s)
{
    pthread_mutex_lock(&R.lock);
    if (R.nsub < REC_MAX)
        R.sub[R.nsub++] = (sub_rec_t){.paging = s->Flags.Paging,
                                      .resubmission = s->Flags.Resubmission,
                                      .hContext = s->hContext,
                                      .fence = s->SubmissionFenceId};
    pthread_mutex_unlock(&R.lock);
    return orig.SubmitCommand(h, s);
}

static void rec_reset(void)
{
    pthread_mutex_lock(&R.lock);
    R.npg = R.nsub = R.paging_patches = R.bad_paging_patches = 0;
    pthread_mutex_unlock(&R.lock);
}

/* Recorded paging operations of one kind for one allocation (from index `from`). */
static unsigned pg_count(unsigned from, DXGK_BUILDPAGINGBUFFER_OPERATION op, HANDLE h, int to_mdl)
{
    unsigned n = 0;
    pthread_mutex_lock(&R.lock);
    for (unsigned i = from; i < R.npg; i++)
        if (R.pg[i].op == op && R.pg[i].h == h && (to_mdl < 0 || R.pg[i].to_mdl == (to_mdl != 0)) &&
            (R.pg[i].multipass == 0 || op != DXGK_OPERATION_TRANSFER))
            n++;
    pthread_mutex_unlock(&R.lock);
    return n;
}

/* Index of the first recorded operation matching, from `from`; REC_MAX if none. */
static unsigned pg_find(unsigned from, DXGK_BUILDPAGINGBUFFER_OPERATION op, HANDLE h)
{
    unsigned at = REC_MAX;
    pthread_mutex_lock(&R.lock);
    for (unsigned i = from; i < R.npg && at == REC_MAX; i++)
        if (R.pg[i].op == op && R.pg[i].h == h)
            at = i;
    pthread_mutex_unlock(&R.lock);
    return at;
}

static unsigned pg_mark(void)
{
    pthread_mutex_lock(&R.lock);
    unsigned n = R.npg;
    pthread_mutex_unlock(&R.lock);
    return n;
}

/* ---- fixture ------------------------------------------------------------------------------------ */

typedef struct fx {
    gr_adapter_t *ad;
    gr_process_t *proc;
    gr_gpu_device_t *dev;
    gr_context_t ctx;
    gr_dma_buffer_t stage; /* host memory the engine copies to and from */
    uint8_t *stage_cpu;
    uint64_t stage_va; /* its GPU VA: user packets name GPU VAs only */
    gr_dma_buffer_t cmd[NCMD];
    uint8_t *cmd_cpu[NCMD];
    uint64_t cmd_fence[NCMD];
    gr_context_t cmd_ctx[NCMD];
    unsigned next_cmd;
    gr_dma_buffer_t gates; /* one qword per gate the engine WAITs on */
    volatile uint64_t *gate;
    uint64_t gates_va;
} fx_t;

static int setup(void **state)
{
    alarm(SF_TEST_SECONDS);
    rng_state = seed;
    rec_reset();
    atomic_store(&viol_n, 0);
    fx_t *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    int rc = gr_adapter_open(uri, &f->ad);
    if (rc) {
        print_error("gr_adapter_open(%s): %s (%s)\n", uri, gr_status_name(rc), gr_link_error());
        free(f);
        return -1;
    }
    gr_dxgk_ddi_table_t *t = gr_vidsch_test_ddi(f->ad);
    orig = *t;
    t->BuildPagingBuffer = shim_build;
    t->Patch = shim_patch;
    t->SubmitCommand = shim_submit;
    /* Faults reset at once; nothing here should time out (a hang fails by the alarm). */
    gr_sched_params_t sp = {.quantum_cycles = 0, .tdr_timeout_cycles = 200000000};
    gr_dma_buffer_info_t si, gi;
    rc = gr_adapter_set_scheduling(f->ad, &sp);
    if (!rc)
        rc = gr_process_create(f->ad, &f->proc);
    if (!rc)
        rc = gr_gpu_device_create(f->proc, &f->dev);
    if (!rc)
        rc = gr_context_create(f->dev, NULL, 0, &f->ctx);
    if (!rc)
        rc = sf_dma_buffer(f->dev, f->ctx, (uint32_t)STAGE_BYTES, &f->stage, &si);
    if (!rc)
        rc = sf_dma_buffer(f->dev, f->ctx, 4096, &f->gates, &gi);
    for (unsigned i = 0; !rc && i < NCMD; i++) {
        gr_dma_buffer_info_t ci;
        rc = sf_dma_buffer(f->dev, f->ctx, 4096, &f->cmd[i], &ci);
        if (!rc)
            f->cmd_cpu[i] = ci.cpu;
    }
    /* The engine's watchdog off: a packet held on a gate waits as long as a test needs. */
    if (!rc)
        rc = sf_watchdog_off(f->ad);
    if (rc) {
        print_error("fixture: %s\n", gr_status_name(rc));
        *gr_vidsch_test_ddi(f->ad) = orig;
        gr_adapter_close(f->ad);
        free(f);
        return -1;
    }
    f->stage_cpu = si.cpu;
    f->stage_va = si.gpu_va;
    f->gate = gi.cpu;
    f->gates_va = gi.gpu_va;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    if (f && f->ad) {
        sf_gates_release(f->ad, f->gate, 8);
        gr_vidmm_test_set_paging_buffer_bytes(f->ad, 0);
        gr_adapter_close(f->ad); /* the shims stay valid to the end: they call the real DDIs */
    }
    free(f);
    alarm(0);
    return 0;
}

/* ---- helpers -------------------------------------------------------------------------------------- */

static gr_alloc_private_t buffer_priv(uint64_t bytes, uint32_t cpu, uint32_t flags)
{
    gr_alloc_private_t p;
    memset(&p, 0, sizeof p);
    p.version = GR_ALLOC_PRIVATE_VERSION;
    p.struct_size = sizeof p;
    p.kind = GR_ALLOC_KIND_BUFFER;
    p.flags = flags;
    p.cpu_access = cpu;
    p.buffer_bytes = bytes;
    return p;
}

static gr_status_t create1(gr_gpu_device_t *dev, uint64_t bytes, uint32_t cpu, uint32_t flags, gr_alloc_t *out)
{
    gr_alloc_private_t p = buffer_priv(bytes, cpu, flags);
    gr_alloc_desc_t d = {.private_data = &p, .private_size = sizeof p};
    return gr_alloc_create(dev, NULL, &d, 1, out, NULL);
}

static gr_alloc_t make(fx_t *f, uint64_t bytes, uint32_t cpu, uint32_t flags)
{
    gr_alloc_t h = 0;
    gr_status_t rc = create1(f->dev, bytes, cpu, flags, &h);
    if (rc)
        print_error("gr_alloc_create(%llu bytes): %s\n", (unsigned long long)bytes, gr_status_name(rc));
    assert_int_equal(rc, GR_OK);
    return h;
}

static gr_alloc_info_t info(fx_t *f, gr_alloc_t h)
{
    gr_alloc_info_t i;
    memset(&i, 0, sizeof i);
    assert_int_equal(gr_alloc_query(f->dev, h, &i), GR_OK);
    return i;
}

static gr_adapter_stats_t stats(fx_t *f)
{
    gr_adapter_stats_t s;
    assert_int_equal(gr_adapter_stats(f->ad, &s), GR_OK);
    return s;
}

static void evict1(fx_t *f, gr_alloc_t h)
{
    gr_status_t rc = gr_alloc_evict(f->dev, &h, 1);
    if (rc)
        print_error("gr_alloc_evict: %s\n", gr_status_name(rc));
    assert_int_equal(rc, GR_OK);
}

static void resident1(fx_t *f, gr_alloc_t h)
{
    gr_status_t rc = gr_alloc_make_resident(f->dev, &h, 1);
    if (rc)
        print_error("gr_alloc_make_resident: %s\n", gr_status_name(rc));
    assert_int_equal(rc, GR_OK);
}

/* The first differing byte, for a readable failure. */
static void expect_bytes(const uint8_t *got, const uint8_t *want, uint64_t n, const char *what)
{
    uint64_t first = n, last = 0, bad = 0;
    for (uint64_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            if (first == n)
                first = i;
            last = i;
            bad++;
        }
    if (bad) {
        print_error("%s: %llu bytes differ in [%llu, %llu]; byte %llu is 0x%02x, expected 0x%02x\n", what,
                    (unsigned long long)bad, (unsigned long long)first, (unsigned long long)last,
                    (unsigned long long)first, got[first], want[first]);
        fail();
    }
}

/* ---- command buffers ----------------------------------------------------------------------------- */

typedef struct cmdb {
    fx_t *f;
    gr_context_t ctx;
    unsigned slot;
    gr_dma_writer_t w;
    gr_alloc_ref_t refs[4];
    uint32_t nrefs;
} cmdb_t;

/* A command buffer from the rotation: the packet that used it last has retired. */
static void cb_begin(fx_t *f, gr_context_t ctx, cmdb_t *c)
{
    memset(c, 0, sizeof *c);
    c->f = f;
    c->ctx = ctx;
    c->slot = f->next_cmd++ % NCMD;
    if (f->cmd_fence[c->slot]) {
        gr_status_t rc = gr_wait(f->dev, f->cmd_ctx[c->slot], f->cmd_fence[c->slot], LONG_WAIT);
        assert_true(rc == GR_OK || rc == GR_E_DEVICE_RESET || rc == GR_E_INVALID || rc == GR_E_CANCELLED);
        f->cmd_fence[c->slot] = 0;
    }
    memset(f->cmd_cpu[c->slot], 0, 4096);
    gr_dma_writer_init(&c->w, f->cmd_cpu[c->slot], 4096);
}

static uint32_t cb_ref(cmdb_t *c, gr_alloc_t a, bool write)
{
    for (uint32_t i = 0; i < c->nrefs; i++)
        if (c->refs[i].handle == a) {
            if (write)
                c->refs[i].flags |= GR_ALLOC_REF_WRITE;
            return i;
        }
    c->refs[c->nrefs] = (gr_alloc_ref_t){.handle = a, .flags = write ? GR_ALLOC_REF_WRITE : 0};
    return c->nrefs++;
}

/*
 * One side of a COPY: an allocation through its GPU VA (listed when the copy lists its VA
 * sides), an allocation through its GPU VA that is always listed (made resident for the packet),
 * or host memory of the stage (a DMA buffer, by its GPU VA). User packets name no physical
 * address: the engine refuses them (rtl/dma/README.md, "Privilege").
 */
typedef enum side_kind { SIDE_VA, SIDE_LISTED, SIDE_STAGE } side_kind_t;

typedef struct side {
    side_kind_t kind;
    gr_alloc_t a;
    uint64_t off;
} side_t;

static void cb_copy(cmdb_t *c, side_t src, side_t dst, uint64_t bytes, bool list)
{
    fx_t *f = c->f;
    const side_t s[2] = {src, dst};
    enum gr_dma_space sp[2];
    uint64_t addr[2];
    for (int k = 0; k < 2; k++) {
        if (s[k].kind == SIDE_STAGE) {
            sp[k] = GR_DMA_SPACE_GPUVA;
            addr[k] = f->stage_va + s[k].off;
        } else {
            sp[k] = GR_DMA_SPACE_GPUVA;
            addr[k] = info(f, s[k].a).gpu_va + s[k].off;
        }
    }
    assert_int_equal(gr_dma_copy(&c->w, sp[0], addr[0], sp[1], addr[1], bytes), 0);
    for (int k = 0; k < 2; k++) {
        if (s[k].kind == SIDE_STAGE || (!list && s[k].kind == SIDE_VA))
            continue;
        (void)cb_ref(c, s[k].a, k == 1);
    }
}

static gr_status_t cb_submit(cmdb_t *c, uint64_t *out_fence)
{
    fx_t *f = c->f;
    gr_submission_t s = {.buffer = f->cmd[c->slot],
                         .start = 0,
                         .end = (uint32_t)c->w.used,
                         .allocs = c->refs,
                         .alloc_count = c->nrefs};
    uint64_t fence = 0;
    gr_status_t rc = gr_submit(f->dev, c->ctx, &s, &fence);
    if (!rc) {
        f->cmd_fence[c->slot] = fence;
        f->cmd_ctx[c->slot] = c->ctx;
        if (out_fence)
            *out_fence = fence;
    }
    return rc;
}

static void cb_run(cmdb_t *c)
{
    uint64_t fence = 0;
    gr_status_t rc = cb_submit(c, &fence);
    if (rc)
        print_error("gr_submit: %s\n", gr_status_name(rc));
    assert_int_equal(rc, GR_OK);
    rc = gr_wait(c->f->dev, c->ctx, fence, LONG_WAIT);
    if (rc)
        print_error("gr_wait: %s\n", gr_status_name(rc));
    assert_int_equal(rc, GR_OK);
}

/* Writes bytes into an allocation through the engine (from the stage). */
static void gpu_write(fx_t *f, gr_alloc_t a, uint64_t off, const uint8_t *src, uint64_t n, side_kind_t how)
{
    memcpy(f->stage_cpu, src, n);
    cmdb_t c;
    cb_begin(f, f->ctx, &c);
    cb_copy(&c, (side_t){SIDE_STAGE, 0, 0}, (side_t){how, a, off}, n, true);
    cb_run(&c);
}

/* Reads bytes of an allocation through the engine (into the stage, then out). */
static void gpu_read(fx_t *f, gr_alloc_t a, uint64_t off, uint8_t *dst, uint64_t n, side_kind_t how)
{
    memset(f->stage_cpu, 0xa5, n);
    cmdb_t c;
    cb_begin(f, f->ctx, &c);
    cb_copy(&c, (side_t){how, a, off}, (side_t){SIDE_STAGE, 0, 0}, n, true);
    cb_run(&c);
    memcpy(dst, f->stage_cpu, n);
}

/* Every packet in the rotation has retired. */
static void drain(fx_t *f)
{
    for (unsigned i = 0; i < NCMD; i++)
        if (f->cmd_fence[i]) {
            gr_status_t rc = gr_wait(f->dev, f->cmd_ctx[i], f->cmd_fence[i], LONG_WAIT);
            if (rc)
                print_error("gr_wait: %s\n", gr_status_name(rc));
            assert_int_equal(rc, GR_OK);
            f->cmd_fence[i] = 0;
        }
}

/* The miniport's last residency notification for an allocation. */
static void kmd_residency(fx_t *f, gr_alloc_t a, int *resident, uint64_t *addr)
{
    HANDLE h = gr_vidmm_test_hallocation(f->dev, a);
    assert_non_null(h);
    assert_int_equal(gr_kmd_alloc_residency(gr_dxgk_test_hadapter(f->ad), h, resident, addr), STATUS_SUCCESS);
}

static unsigned page_shift(fx_t *f, uint64_t va)
{
    unsigned shift = 0, flags = 0;
    uint64_t pa = 0;
    assert_int_equal(gr_dxgk_test_gpuva_lookup(f->dev, va, &pa, &flags, &shift), GR_OK);
    return shift;
}

static void no_violations(fx_t *f)
{
    assert_int_equal(atomic_load(&viol_n), 0);
    assert_int_equal(sf_sched_stats(f->ad).threading_violations, 0);
    pthread_mutex_lock(&R.lock);
    unsigned bad = R.bad_paging_patches;
    pthread_mutex_unlock(&R.lock);
    assert_int_equal(bad, 0);
}

/* ==== (a) over-subscription ============================================================================ */

#define WL_ALLOC (128 * KIB)
#define WL_COPIES 48u

/*
 * Allocations totalling 1.5x the usable VRAM, each filled with its own pattern, then a copy
 * workload between random pairs through gr_submit (GPU VAs, listed or not, packets
 * in flight while others page in), then every byte of every allocation against a host model.
 */
static void oversubscribed_by_half_a_copy_workload_keeps_every_byte(void **state)
{
    fx_t *f = *state;
    assert_int_equal(gr_vidmm_test_reserve(f->ad, 1, MIB), GR_OK);
    assert_int_equal(gr_vidmm_test_reserve(f->ad, 2, MIB), GR_OK);
    gr_segment_info_t seg[GR_ALLOC_MAX_SEGMENTS];
    uint32_t nseg = 0;
    assert_int_equal(gr_adapter_segments(f->ad, seg, GR_ALLOC_MAX_SEGMENTS, &nseg), GR_OK);
    const uint64_t usable = seg[0].free_bytes + seg[1].free_bytes;
    const unsigned n = (unsigned)((usable * 3 / 2 + WL_ALLOC - 1) / WL_ALLOC);
    assert_true(n * WL_ALLOC >= usable * 3 / 2);
    gr_alloc_t *h = calloc(n, sizeof *h);
    uint8_t **model = calloc(n, sizeof *model);
    bool *cpu = calloc(n, sizeof *cpu);
    assert_non_null(h);
    assert_non_null(model);
    assert_non_null(cpu);
    const uint64_t c0 = sf_cycles(f->ad);
    /* Creation already over-commits: later ones evict earlier ones. */
    for (unsigned i = 0; i < n; i++) {
        cpu[i] = i % 2 == 0;
        h[i] = make(f, WL_ALLOC, cpu[i] ? GR_CPU_ACCESS_READ_WRITE : GR_CPU_ACCESS_NONE, 0);
        model[i] = malloc(WL_ALLOC);
        assert_non_null(model[i]);
        pattern(model[i], WL_ALLOC, 1000 + i);
        if (cpu[i]) {
            void *p = NULL;
            assert_int_equal(gr_alloc_lock(f->dev, h[i], GR_LOCK_DISCARD, &p), GR_OK);
            memcpy(p, model[i], WL_ALLOC);
            assert_int_equal(gr_alloc_unlock(f->dev, h[i]), GR_OK);
        } else {
            gpu_write(f, h[i], 0, model[i], WL_ALLOC, SIDE_VA);
        }
    }
    assert_true(stats(f).evictions > 0);
    const uint64_t c1 = sf_cycles(f->ad);
    const gr_adapter_stats_t s0 = stats(f);
    for (unsigned k = 0; k < WL_COPIES; k++) {
        unsigned src = (unsigned)rng_below(n), dst = (unsigned)rng_below(n - 1);
        dst += dst >= src;
        uint64_t len = 8 * (1 + rng_below(WL_ALLOC / 8));
        uint64_t so = 8 * rng_below((WL_ALLOC - len) / 8 + 1), d_o = 8 * rng_below((WL_ALLOC - len) / 8 + 1);
        side_kind_t ks = rng_below(2) ? SIDE_VA : SIDE_LISTED, kd = rng_below(2) ? SIDE_VA : SIDE_LISTED;
        cmdb_t c;
        cb_begin(f, f->ctx, &c);
        cb_copy(&c, (side_t){ks, h[src], so}, (side_t){kd, h[dst], d_o}, len, true);
        gr_status_t rc = cb_submit(&c, NULL);

        if (rc)
            print_error("copy %u: gr_submit: %s\n", k, gr_status_name(rc));
        assert_int_equal(rc, GR_OK);
        memmove(model[dst] + d_o, model[src] + so, len);
    }
    drain(f);
    const uint64_t c2 = sf_cycles(f->ad);
    const gr_adapter_stats_t s1 = stats(f);
    uint8_t *got = malloc(WL_ALLOC);
    assert_non_null(got);
    for (unsigned i = 0; i < n; i++) {
        if (cpu[i]) {
            void *p = NULL;
            assert_int_equal(gr_alloc_lock(f->dev, h[i], GR_LOCK_READ_ONLY, &p), GR_OK);
            memcpy(got, p, WL_ALLOC);
            assert_int_equal(gr_alloc_unlock(f->dev, h[i]), GR_OK);
        } else {
            gpu_read(f, h[i], 0, got, WL_ALLOC, i % 4 == 1 ? SIDE_VA : SIDE_LISTED);
        }
        char what[64];
        snprintf(what, sizeof what, "allocation %u of %u", i, n);
        expect_bytes(got, model[i], WL_ALLOC, what);
    }
    const gr_adapter_stats_t s2 = stats(f);
    printf("# %u allocations of %llu KiB on %llu KiB usable; create+fill %llu cycles; %u copies %llu cycles: "
           "%llu evictions, %llu page-ins, %llu bytes out, %llu bytes in, %llu paging packets; total %llu "
           "evictions, %llu page-ins\n",
           n, (unsigned long long)(WL_ALLOC / KIB), (unsigned long long)(usable / KIB), (unsigned long long)(c1 - c0),
           WL_COPIES, (unsigned long long)(c2 - c1), (unsigned long long)(s1.evictions - s0.evictions),
           (unsigned long long)(s1.page_ins - s0.page_ins), (unsigned long long)(s1.bytes_evicted - s0.bytes_evicted),
           (unsigned long long)(s1.bytes_paged_in - s0.bytes_paged_in),
           (unsigned long long)(s1.paging_packets - s0.paging_packets), (unsigned long long)s2.evictions,
           (unsigned long long)s2.page_ins);
    /* The workload itself paged: it could not have run in what VRAM holds. */
    assert_true(s1.evictions > s0.evictions);
    assert_true(s1.page_ins > s0.page_ins);
    assert_true(s1.bytes_evicted > s0.bytes_evicted);
    assert_true(s1.bytes_paged_in > s0.bytes_paged_in);
    assert_true(s1.paging_packets > s0.paging_packets);
    assert_int_equal(s2.paging_failures, 0);
    assert_int_equal(s2.discards, 0);
    no_violations(f);
    free(got);
    for (unsigned i = 0; i < n; i++)
        free(model[i]);
    free(model);
    free(cpu);
    free(h);
}

/* ==== (b) bit-exact round trips, every page size ====================================================== */

typedef struct shape {
    uint64_t bytes;
    uint32_t flags;
    unsigned shift; /* the page size its GPU VA maps with */
} shape_t;

static const shape_t shapes[] = {
    {2 * MIB, 0, 21},                             /* 2 MiB page */
    {256 * KIB, 0, 16},                           /* 64 KiB pages */
    {64 * KIB, GR_ALLOC_PRIV_NO_LARGE_PAGES, 12}, /* DisableLargePageMapping: 4 KiB pages */
    {12 * KIB, 0, 12},                            /* 4 KiB pages */
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static void evict_and_make_resident_are_bit_exact_for_every_page_size(void **state)
{
    fx_t *f = *state;
    gr_alloc_t h[NSHAPES], filler[NSHAPES];
    gr_alloc_info_t before[NSHAPES];
    uint8_t *want[NSHAPES];
    uint8_t *got = malloc(2 * MIB);
    assert_non_null(got);
    for (unsigned i = 0; i < NSHAPES; i++) {
        h[i] = make(f, shapes[i].bytes, GR_CPU_ACCESS_NONE, shapes[i].flags);
        want[i] = malloc(shapes[i].bytes);
        assert_non_null(want[i]);
        pattern(want[i], shapes[i].bytes, 2000 + i);
        gpu_write(f, h[i], 0, want[i], shapes[i].bytes, SIDE_VA);
        before[i] = info(f, h[i]);
        assert_int_equal(before[i].residency, GR_RESIDENCY_RESIDENT);
        assert_int_equal(page_shift(f, before[i].gpu_va), shapes[i].shift);
    }
    const gr_adapter_stats_t s0 = stats(f);
    assert_int_equal(gr_alloc_evict(f->dev, h, NSHAPES), GR_OK);
    const gr_adapter_stats_t s1 = stats(f);
    assert_int_equal(s1.evictions, s0.evictions + NSHAPES);
    assert_int_equal(s1.evicted_now, s0.evicted_now + NSHAPES);
    for (unsigned i = 0; i < NSHAPES; i++) {
        gr_alloc_info_t e = info(f, h[i]);
        assert_int_equal(e.residency, GR_RESIDENCY_EVICTED);
        assert_int_equal(e.segment, GR_SEGMENT_SYSTEM);
        assert_int_equal(e.vram_address, 0);
        assert_int_equal(e.gpu_va, before[i].gpu_va); /* kept, unmapped */
        uint64_t pa = 0;
        assert_int_equal(gr_dxgk_test_gpuva_lookup(f->dev, e.gpu_va, &pa, NULL, NULL), GR_E_NOT_FOUND);
        gr_gpu_probe_t pr;
        assert_int_equal(gr_gpu_device_probe(f->dev, e.gpu_va, false, &pr), GR_OK);
        assert_true(pr.fault); /* the hardware agrees: nothing answers there */
        /* Something else takes the space it left, so the page-in goes elsewhere. */
        filler[i] = make(f, shapes[i].bytes, GR_CPU_ACCESS_NONE, shapes[i].flags);
        assert_true(filler[i] != 0);
    }
    assert_int_equal(gr_alloc_make_resident(f->dev, h, NSHAPES), GR_OK);
    const gr_adapter_stats_t s2 = stats(f);
    assert_int_equal(s2.page_ins, s1.page_ins + NSHAPES);
    assert_int_equal(s2.evicted_now, s0.evicted_now);
    uint64_t moved = 0;
    for (unsigned i = 0; i < NSHAPES; i++) {
        gr_alloc_info_t r = info(f, h[i]);
        assert_int_equal(r.residency, GR_RESIDENCY_RESIDENT);
        assert_int_equal(r.gpu_va, before[i].gpu_va);
        moved += r.vram_address != before[i].vram_address;
        assert_int_equal(page_shift(f, r.gpu_va), shapes[i].shift);
        uint64_t pa = 0;
        assert_int_equal(gr_dxgk_test_gpuva_lookup(f->dev, r.gpu_va + 8, &pa, NULL, NULL), GR_OK);
        assert_int_equal(pa, r.vram_address + 8); /* the same VA, the new physical address */
        gpu_read(f, h[i], 0, got, shapes[i].bytes, SIDE_VA);
        expect_bytes(got, want[i], shapes[i].bytes, "through the GPU VA after the page-in");
        gpu_read(f, h[i], 0, got, shapes[i].bytes, SIDE_LISTED);
        expect_bytes(got, want[i], shapes[i].bytes, "by physical address after the page-in");
    }
    assert_int_equal(moved, NSHAPES); /* every one came back somewhere else */

    /* Paging buffers that hold one command: every operation takes several (MultipassOffset). */
    gr_vidmm_test_set_paging_buffer_bytes(f->ad, 40);
    const unsigned mark = pg_mark();
    const gr_adapter_stats_t s3 = stats(f);
    assert_int_equal(gr_alloc_evict(f->dev, h, NSHAPES), GR_OK);
    assert_int_equal(gr_alloc_make_resident(f->dev, h, NSHAPES), GR_OK);
    const gr_adapter_stats_t s4 = stats(f);
    gr_vidmm_test_set_paging_buffer_bytes(f->ad, 0);
    /* 2 MiB moves as two 1 MiB COPYs, so it takes two buffers each way at least. */
    assert_true(s4.paging_packets - s3.paging_packets >= 2 * (NSHAPES + 1));
    bool continued = false;
    pthread_mutex_lock(&R.lock);
    for (unsigned i = mark; i < R.npg; i++)
        continued |= R.pg[i].op == DXGK_OPERATION_TRANSFER && R.pg[i].multipass != 0;
    pthread_mutex_unlock(&R.lock);
    assert_true(continued);
    for (unsigned i = 0; i < NSHAPES; i++) {
        gpu_read(f, h[i], 0, got, shapes[i].bytes, SIDE_VA);
        expect_bytes(got, want[i], shapes[i].bytes, "after multi-pass paging");
        free(want[i]);
    }
    assert_int_equal(stats(f).paging_failures, 0);
    no_violations(f);
    free(got);
}

/* ==== (c) PermanentSysMem ============================================================================== */

static void clean_permanent_sysmem_is_discarded_and_a_written_one_is_transferred(void **state)
{
    fx_t *f = *state;
    const uint64_t n = 64 * KIB;
    gr_alloc_t p = make(f, n, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_PERMANENT_SYSMEM);
    HANDLE hp = gr_vidmm_test_hallocation(f->dev, p);
    uint8_t *x = malloc(n), *y = malloc(n), *z = malloc(n), *got = malloc(n);
    assert_true(x && y && z && got);
    pattern(x, n, 3001);
    pattern(y, n, 3002);
    pattern(z, n, 3003);
    /* The CPU writes the copy; unlock puts it into VRAM: clean. */
    void *ptr = NULL;
    assert_int_equal(gr_alloc_lock(f->dev, p, 0, &ptr), GR_OK);
    memcpy(ptr, x, n);
    assert_int_equal(gr_alloc_unlock(f->dev, p), GR_OK);

    /* Clean: discarded, not copied. */
    unsigned mark = pg_mark();
    gr_adapter_stats_t s0 = stats(f);
    evict1(f, p);
    gr_adapter_stats_t s1 = stats(f);
    assert_int_equal(s1.evictions, s0.evictions + 1);
    assert_int_equal(s1.discards, s0.discards + 1);
    assert_int_equal(s1.bytes_evicted, s0.bytes_evicted);
    assert_int_equal(pg_count(mark, DXGK_OPERATION_DISCARD_CONTENT, hp, -1), 1);
    assert_int_equal(pg_count(mark, DXGK_OPERATION_TRANSFER, hp, -1), 0);
    assert_int_equal(info(f, p).residency, GR_RESIDENCY_EVICTED);
    /* Evicted, the copy is the truth: lock returns it without paging in. */
    assert_int_equal(gr_alloc_lock(f->dev, p, GR_LOCK_READ_ONLY, &ptr), GR_OK);
    expect_bytes(ptr, x, n, "the copy of a discarded allocation");
    assert_int_equal(gr_alloc_unlock(f->dev, p), GR_OK);
    assert_int_equal(stats(f).page_ins, s1.page_ins);
    /* The GPU reads it: paged in from the copy. */
    mark = pg_mark();
    gpu_read(f, p, 0, got, n, SIDE_VA);
    expect_bytes(got, x, n, "paged in from the copy");
    assert_int_equal(pg_count(mark, DXGK_OPERATION_TRANSFER, hp, 0), 1);
    assert_int_equal(stats(f).page_ins, s1.page_ins + 1);

    /* Written by the GPU: dirty, so the eviction transfers it into the copy. */
    gpu_write(f, p, 0, y, n, SIDE_LISTED);
    mark = pg_mark();
    s0 = stats(f);
    evict1(f, p);
    s1 = stats(f);
    assert_int_equal(s1.discards, s0.discards);
    assert_int_equal(s1.bytes_evicted, s0.bytes_evicted + n);
    assert_int_equal(pg_count(mark, DXGK_OPERATION_TRANSFER, hp, 1), 1);
    assert_int_equal(pg_count(mark, DXGK_OPERATION_DISCARD_CONTENT, hp, -1), 0);
    assert_int_equal(gr_alloc_lock(f->dev, p, GR_LOCK_READ_ONLY, &ptr), GR_OK);
    expect_bytes(ptr, y, n, "the copy after a dirty eviction");
    assert_int_equal(gr_alloc_unlock(f->dev, p), GR_OK);

    /* Written by the GPU while resident: a lock brings the copy up to date first. */
    resident1(f, p);
    gpu_write(f, p, 0, z, n, SIDE_VA);
    assert_int_equal(gr_alloc_lock(f->dev, p, GR_LOCK_READ_ONLY, &ptr), GR_OK);
    expect_bytes(ptr, z, n, "the copy locked after a GPU write");
    assert_int_equal(gr_alloc_unlock(f->dev, p), GR_OK);
    /* Now clean again: the next eviction discards. */
    s0 = stats(f);
    evict1(f, p);
    assert_int_equal(stats(f).discards, s0.discards + 1);
    gpu_read(f, p, 0, got, n, SIDE_VA);
    expect_bytes(got, z, n, "paged in after the second discard");
    assert_int_equal(stats(f).paging_failures, 0);
    no_violations(f);
    free(x);
    free(y);
    free(z);
    free(got);
}

/* ==== (d) pinned ========================================================================================= */

static void pinned_allocations_are_never_evicted(void **state)
{
    fx_t *f = *state;
    const uint64_t n = 128 * KIB, window = 640 * KIB;
    /* Overlay/Capture (last fifth of a segment) and the VPR first, then a small VRAM: what is
     * left of each segment is a 640 KiB window. */
    gr_alloc_t ov = make(f, n, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_OVERLAY);
    gr_alloc_t cap = make(f, n, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_CAPTURE);
    gr_alloc_t vpr = make(f, n, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_IN_VPR);
    assert_int_equal(gr_vidmm_test_reserve(f->ad, 1, window), GR_OK);
    assert_int_equal(gr_vidmm_test_reserve(f->ad, 2, window), GR_OK);
    gr_alloc_t lk = make(f, n, GR_CPU_ACCESS_READ_WRITE, 0); /* segment 1's window */
    gr_alloc_t gpu = make(f, n, GR_CPU_ACCESS_NONE, 0);      /* segment 2's window */
    gr_sysmem_t sm;
    assert_int_equal(gr_sysmem_alloc(f->proc, n, &sm), GR_OK);
    gr_alloc_private_t ep = buffer_priv(n, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_EXISTING_SYSMEM);
    gr_alloc_desc_t ed = {.private_data = &ep, .private_size = sizeof ep, .sysmem = sm.cpu, .sysmem_bytes = sm.bytes};
    gr_alloc_t sys = 0;
    assert_int_equal(gr_alloc_create(f->dev, NULL, &ed, 1, &sys, NULL), GR_OK);
    assert_int_equal(info(f, lk).segment, 1);
    assert_int_equal(info(f, gpu).segment, 2);
    void *ptr = NULL;
    assert_int_equal(gr_alloc_lock(f->dev, lk, 0, &ptr), GR_OK);
    /* A packet held on a gate lists `gpu`: it is in flight until the gate opens. */
    cmdb_t c;
    cb_begin(f, f->ctx, &c);
    assert_int_equal(gr_dma_wait(&c.w, GR_DMA_SPACE_GPUVA, f->gates_va, 1), 0);
    cb_copy(&c, (side_t){SIDE_STAGE, 0, 0}, (side_t){SIDE_VA, gpu, 0}, 4096, true);
    uint64_t held = 0;
    assert_int_equal(cb_submit(&c, &held), GR_OK);

    struct {
        gr_alloc_t h;
        uint32_t why;
    } pins[] = {{ov, GR_PIN_OVERLAY}, {cap, GR_PIN_OVERLAY}, {vpr, GR_PIN_PROTECTED},
                {lk, GR_PIN_LOCKED},  {gpu, GR_PIN_GPU},     {sys, GR_PIN_SYSTEM}};
    const unsigned np = sizeof pins / sizeof pins[0];
    gr_alloc_info_t at[8];
    for (unsigned i = 0; i < np; i++) {
        at[i] = info(f, pins[i].h);
        assert_int_equal(at[i].pinned & pins[i].why, pins[i].why);
    }
    /* Explicit eviction: GR_E_BUSY, and nothing changes (not even the evictable one listed). */
    gr_alloc_t free1 = make(f, n, GR_CPU_ACCESS_NONE, 0);
    assert_int_equal(info(f, free1).pinned, 0);
    const gr_adapter_stats_t s0 = stats(f);
    for (unsigned i = 0; i < np; i++) {
        gr_alloc_t two[2] = {free1, pins[i].h};
        assert_int_equal(gr_alloc_evict(f->dev, two, 2), GR_E_BUSY);
        assert_int_equal(info(f, free1).residency, GR_RESIDENCY_RESIDENT);
    }
    assert_int_equal(stats(f).evictions, s0.evictions);

    /* Pressure: more than the windows hold. Creations evict what may be evicted, never a pin. */
    gr_alloc_t more[12];
    for (unsigned k = 0; k < 12; k++)
        more[k] = make(f, n, GR_CPU_ACCESS_NONE, 0);
    const gr_adapter_stats_t s1 = stats(f);
    assert_true(s1.evictions >= s0.evictions + 4);
    assert_int_equal(info(f, free1).residency, GR_RESIDENCY_EVICTED); /* the least recently used */
    assert_int_equal(info(f, more[11]).residency, GR_RESIDENCY_RESIDENT);
    /* A whole window: only evicting a pinned allocation could make room. Nothing moves. */
    gr_alloc_t huge = 0;
    assert_int_equal(create1(f->dev, window, GR_CPU_ACCESS_NONE, 0, &huge), GR_E_NO_MEMORY);
    assert_int_equal(stats(f).evictions, s1.evictions);
    for (unsigned i = 0; i < np; i++) {
        gr_alloc_info_t now = info(f, pins[i].h);
        assert_int_equal(now.residency, at[i].residency);
        assert_int_equal(now.segment, at[i].segment);
        assert_int_equal(now.vram_address, at[i].vram_address);
    }
    /* The gate opens: the packet retires and `gpu` may go; so may `lk` once unlocked. */
    assert_int_equal(sf_gate_open(f->ad, &f->gate[0]), GR_OK);
    assert_int_equal(gr_wait(f->dev, f->ctx, held, LONG_WAIT), GR_OK);
    f->cmd_fence[c.slot] = 0;
    assert_int_equal(info(f, gpu).pinned, 0);
    evict1(f, gpu);
    assert_int_equal(gr_alloc_unlock(f->dev, lk), GR_OK);
    evict1(f, lk);
    for (unsigned i = 0; i < 3; i++) /* Overlay, Capture, VPR: still */
        assert_int_equal(gr_alloc_evict(f->dev, &pins[i].h, 1), GR_E_BUSY);
    assert_int_equal(stats(f).paging_failures, 0);
    no_violations(f);
}

/*
 * A pinned Overlay request whose range holds an ordinary allocation in the way, with room for
 * that allocation below the range: VidMm relocates it (one VRAM -> VRAM copy on the engine),
 * evicts nothing, and the moved allocation reads back bit-exact through its unchanged GPU VA.
 */
static void pinned_request_gets_room_by_relocation_bit_exact(void **state)
{
    fx_t *f = *state;
    const uint64_t n = 128 * KIB;
    gr_segment_info_t segs[GR_ALLOC_MAX_SEGMENTS];
    uint32_t nseg = 0;
    assert_int_equal(gr_adapter_segments(f->ad, segs, GR_ALLOC_MAX_SEGMENTS, &nseg), GR_OK);
    const uint64_t size = segs[0].size, floor = (size / 5 * 4 + 4095) & ~UINT64_C(4095);
    /* Segment 1: room for one n below the Overlay/Capture range, one run of 2n inside it (each
     * 64 KiB longer: the blocks are 64 KiB aligned, the runs need not be). */
    assert_int_equal(gr_vidmm_test_reserve_range(f->ad, 1, 0, floor, n + 64 * KIB), GR_OK);
    assert_int_equal(gr_vidmm_test_reserve_range(f->ad, 1, floor, size, 2 * n + 64 * KIB), GR_OK);
    gr_alloc_t below = make(f, n, GR_CPU_ACCESS_READ_WRITE, 0);
    gr_alloc_t m = make(f, n, GR_CPU_ACCESS_READ_WRITE, 0); /* the window below is full: into the range */
    const gr_alloc_info_t ib = info(f, below), im0 = info(f, m);
    assert_int_equal(ib.segment, 1);
    assert_int_equal(im0.segment, 1);
    assert_true(ib.offset < floor);
    assert_true(im0.offset >= floor);
    uint8_t *want = malloc(n), *got = malloc(n);
    assert_non_null(want);
    assert_non_null(got);
    pattern(want, n, 2800);
    gpu_write(f, m, 0, want, n, SIDE_VA);
    drain(f);
    assert_int_equal(gr_alloc_destroy(f->dev, below), GR_OK); /* room below the range again */

    const gr_adapter_stats_t s0 = stats(f);
    gr_alloc_t ov = make(f, 2 * n, GR_CPU_ACCESS_READ_WRITE, GR_ALLOC_PRIV_OVERLAY);
    const gr_adapter_stats_t s1 = stats(f);
    const gr_alloc_info_t io = info(f, ov), im1 = info(f, m);
    assert_int_equal(io.segment, 1);
    assert_true(io.offset >= floor);
    assert_int_equal(s1.relocations, s0.relocations + 1);
    assert_int_equal(s1.bytes_relocated, s0.bytes_relocated + n);
    assert_int_equal(s1.evictions, s0.evictions);
    assert_int_equal(s1.paging_failures, s0.paging_failures);
    assert_int_equal(im1.residency, GR_RESIDENCY_RESIDENT);
    assert_int_equal(im1.segment, 1);
    assert_true(im1.offset < floor);
    assert_int_equal(im1.gpu_va, im0.gpu_va);
    uint64_t pa = 0;
    assert_int_equal(gr_dxgk_test_gpuva_lookup(f->dev, im1.gpu_va, &pa, NULL, NULL), GR_OK);
    assert_int_equal(pa, im1.vram_address); /* the VA maps the new place */
    gpu_read(f, m, 0, got, n, SIDE_VA);
    expect_bytes(got, want, n, "relocated allocation");
    free(want);
    free(got);
    no_violations(f);
}

/* ==== (e) ExplicitResidencyNotification, and an access to an evicted allocation ======================== */

static void residency_is_notified_and_an_evicted_va_faults_without_harm(void **state)
{
    fx_t *f = *state;
    /* One page: the test is about the order of notifications and transfers and about the fault,
     * not about size (evict_and_make_resident_... covers sizes), and it runs on every link,
     * where each page that crosses a 3 Mbaud UART costs 1.4 M core cycles. */
    const uint64_t n = 4 * KIB;
    gr_alloc_t x = make(f, n, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_PHYSICAL | GR_ALLOC_PRIV_EXPLICIT_RESIDENCY);
    HANDLE hx = gr_vidmm_test_hallocation(f->dev, x);
    uint8_t *want = malloc(n), *q = malloc(n), *got = malloc(n);
    assert_true(want && q && got);
    pattern(want, n, 4001);
    pattern(q, n, 4002);
    gpu_write(f, x, 0, want, n, SIDE_LISTED);
    const gr_alloc_info_t i0 = info(f, x);
    int resident = -1;
    uint64_t addr = 1;
    kmd_residency(f, x, &resident, &addr); /* placement committed it */
    assert_int_equal(resident, 1);
    assert_int_equal(addr, i0.vram_address);

    unsigned mark = pg_mark();
    evict1(f, x);
    kmd_residency(f, x, &resident, &addr);
    assert_int_equal(resident, 0);
    assert_int_equal(addr, 0);
    /* The page's order: the notification before the transfer on eviction. */
    unsigned notify = pg_find(mark, DXGK_OPERATION_NOTIFY_RESIDENCY, hx);
    unsigned xfer = pg_find(mark, DXGK_OPERATION_TRANSFER, hx);
    assert_true(notify < xfer && xfer < REC_MAX);

    /* Its old place holds something else now. */
    gr_alloc_t other = make(f, n, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_PHYSICAL);
    gpu_write(f, other, 0, q, n, SIDE_VA);
    /* A stray access through x's VA (the packet does not list x): an MMU fault, a reset, the
     * context lost, and no byte written anywhere. */
    gr_context_t stray;
    assert_int_equal(gr_context_create(f->dev, NULL, 0, &stray), GR_OK);
    const uint64_t tdrs = sf_sched_stats(f->ad).tdrs;
    memset(f->stage_cpu, 0x3c, n);
    cmdb_t c;
    cb_begin(f, stray, &c);
    cb_copy(&c, (side_t){SIDE_STAGE, 0, 0}, (side_t){SIDE_VA, x, 0}, n, false);
    uint64_t fence = 0;
    assert_int_equal(cb_submit(&c, &fence), GR_OK);
    assert_int_equal(gr_wait(f->dev, stray, fence, LONG_WAIT), GR_E_DEVICE_RESET);
    f->cmd_fence[c.slot] = 0;
    gr_context_info_t ci;
    assert_int_equal(gr_context_info(f->dev, stray, &ci), GR_OK);
    assert_true(ci.lost);
    assert_true(sf_sched_stats(f->ad).tdrs > tdrs);
    assert_int_equal(info(f, x).residency, GR_RESIDENCY_EVICTED);
    gpu_read(f, other, 0, got, n, SIDE_VA);
    expect_bytes(got, q, n, "the allocation at the evicted one's old place");

    mark = pg_mark();
    resident1(f, x);
    const gr_alloc_info_t i1 = info(f, x);
    assert_true(i1.vram_address != i0.vram_address);
    kmd_residency(f, x, &resident, &addr);
    assert_int_equal(resident, 1);
    assert_int_equal(addr, i1.vram_address); /* the new address */
    xfer = pg_find(mark, DXGK_OPERATION_TRANSFER, hx);
    notify = pg_find(mark, DXGK_OPERATION_NOTIFY_RESIDENCY, hx);
    assert_true(xfer < notify && notify < REC_MAX); /* after the transfer on commit */
    gpu_read(f, x, 0, got, n, SIDE_LISTED);
    expect_bytes(got, want, n, "the evicted allocation after the stray access");
    assert_int_equal(gr_context_destroy(f->dev, stray), GR_OK);
    no_violations(f);
    free(want);
    free(q);
    free(got);
}

/* ==== paging packets: preemption and TDR ================================================================ */

typedef struct evict_arg {
    fx_t *f;
    gr_alloc_t h;
    gr_status_t rc;
} evict_arg_t;

static void *evict_main(void *arg)
{
    evict_arg_t *e = arg;
    e->rc = gr_alloc_evict(e->f->dev, &e->h, 1);
    return NULL;
}

/* A paging fence submitted again with Flags.Resubmission (after being submitted once). */
static bool paging_resubmitted_same_fence(unsigned from)
{
    bool found = false;
    pthread_mutex_lock(&R.lock);
    for (unsigned i = from; i < R.nsub && !found; i++) {
        if (!R.sub[i].paging || !R.sub[i].resubmission)
            continue;
        for (unsigned k = from; k < i && !found; k++)
            found = R.sub[k].paging && !R.sub[k].resubmission && R.sub[k].fence == R.sub[i].fence &&
                    R.sub[k].hContext == NULL && R.sub[i].hContext == NULL;
    }
    pthread_mutex_unlock(&R.lock);
    return found;
}

/*
 * A paging packet taken off the engine in the middle of its transfer goes back on first, with
 * the fence id it had (GPU preemption page), resumes, and the content arrives whole. Another
 * process's context has work behind it (calls of one process are serialised, and the eviction
 * holds its process): a packet held on a gate, which the paging packet went ahead of.
 */
static void paging_packet_preempted_mid_transfer_is_resubmitted_with_its_fence(void **state)
{
    fx_t *f = *state;
    const uint64_t n = 2 * MIB;
    gr_alloc_t x = make(f, n, GR_CPU_ACCESS_NONE, 0);
    uint8_t *want = malloc(n), *got = malloc(n);
    assert_true(want && got);
    pattern(want, n, 5001);
    gpu_write(f, x, 0, want, n, SIDE_VA);
    gr_process_t *p2;
    gr_gpu_device_t *d2;
    gr_context_t c2;
    gr_dma_buffer_t b2;
    gr_dma_buffer_info_t bi;
    assert_int_equal(gr_process_create(f->ad, &p2), GR_OK);
    assert_int_equal(gr_gpu_device_create(p2, &d2), GR_OK);
    assert_int_equal(gr_context_create(d2, NULL, 0, &c2), GR_OK);
    assert_int_equal(gr_dma_buffer_create(d2, c2, 4096, &b2), GR_OK);
    assert_int_equal(gr_dma_buffer_info(d2, b2, &bi), GR_OK);
    bool seen = false;
    for (unsigned attempt = 0; attempt < 4 && !seen; attempt++) {
        if (info(f, x).residency == GR_RESIDENCY_EVICTED)
            resident1(f, x);
        /* The other context's packet waits on gate `attempt` of its own buffer (then fills a little of it). */
        gr_dma_writer_t w;
        gr_dma_writer_init(&w, bi.cpu, bi.size);
        /* (on a qword of its own buffer: the fixture's gates are not in p2's address space) */
        assert_int_equal(gr_dma_wait(&w, GR_DMA_SPACE_GPUVA, bi.gpu_va + 1024 + 8u * attempt, 1), 0);
        assert_int_equal(gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, bi.gpu_va + 2048, 64, 0x11223344u), 0);
        gr_submission_t sub = {.buffer = b2, .start = 0, .end = (uint32_t)w.used};
        uint64_t held = 0;
        assert_int_equal(gr_submit(d2, c2, &sub, &held), GR_OK);
        pthread_mutex_lock(&R.lock);
        unsigned from = R.nsub;
        pthread_mutex_unlock(&R.lock);
        evict_arg_t e = {.f = f, .h = x, .rc = GR_E_IO};
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, evict_main, &e), 0);
        /* The paging packet is on the engine (ahead of the held one): preempt that context. */
        for (unsigned wt = 0; wt < 5000u * sf_timeout_scale(); wt++) {
            pthread_mutex_lock(&R.lock);
            bool on = false;
            for (unsigned i = from; i < R.nsub; i++)
                on |= R.sub[i].paging;
            pthread_mutex_unlock(&R.lock);
            if (on)
                break;
            sf_sleep_ms(1);
        }
        assert_int_equal(gr_preempt(d2, c2), GR_OK);
        pthread_join(th, NULL);
        assert_int_equal(e.rc, GR_OK);
        seen = paging_resubmitted_same_fence(from);
        assert_int_equal(sf_gate_open(f->ad, (volatile uint64_t *)((uint8_t *)bi.cpu + 1024 + 8u * attempt)), GR_OK);
        assert_int_equal(gr_wait(d2, c2, held, LONG_WAIT), GR_OK);
    }
    assert_true(seen);
    resident1(f, x);
    gpu_read(f, x, 0, got, n, SIDE_VA);
    expect_bytes(got, want, n, "after a preempted paging transfer");
    assert_int_equal(stats(f).paging_failures, 0);
    gr_process_destroy(p2);
    no_violations(f);
    free(want);
    free(got);
}

/*
 * A paging packet that runs past the TDR timeout (twice: preempted in time, then again) is to
 * blame for the reset: it has no context to lose, its operation is undone (the allocation stays
 * resident, mapped and intact), and the adapter goes on.
 */
static void paging_packet_guilty_of_a_tdr_is_undone(void **state)
{
    fx_t *f = *state;
    const uint64_t n = 2 * MIB;
    gr_alloc_t x = make(f, n, GR_CPU_ACCESS_NONE, 0);
    uint8_t *want = malloc(n), *got = malloc(n);
    assert_true(want && got);
    pattern(want, n, 6001);
    gpu_write(f, x, 0, want, n, SIDE_VA);
    const gr_alloc_info_t i0 = info(f, x);
    const gr_sched_stats_t q0 = sf_sched_stats(f->ad);
    const gr_adapter_stats_t s0 = stats(f);
    /* A 1 MiB COPY takes about 175 000 cycles here: it cannot finish within 20 000. */
    gr_sched_params_t sp = {.quantum_cycles = 0, .tdr_timeout_cycles = 20000};
    assert_int_equal(gr_adapter_set_scheduling(f->ad, &sp), GR_OK);
    assert_int_equal(gr_alloc_evict(f->dev, &x, 1), GR_E_DEVICE_RESET);
    sp.tdr_timeout_cycles = 200000000;
    assert_int_equal(gr_adapter_set_scheduling(f->ad, &sp), GR_OK);
    assert_true(sf_sched_stats(f->ad).tdrs > q0.tdrs);
    const gr_adapter_stats_t s1 = stats(f);
    assert_int_equal(s1.paging_failures, s0.paging_failures + 1);
    assert_int_equal(s1.evictions, s0.evictions);
    const gr_alloc_info_t i1 = info(f, x);
    assert_int_equal(i1.residency, GR_RESIDENCY_RESIDENT);
    assert_int_equal(i1.vram_address, i0.vram_address);
    assert_int_equal(page_shift(f, i1.gpu_va), 21);
    gr_context_info_t ci;
    assert_int_equal(gr_context_info(f->dev, f->ctx, &ci), GR_OK);
    assert_false(ci.lost); /* no context was to blame */
    gpu_read(f, x, 0, got, n, SIDE_VA);
    expect_bytes(got, want, n, "after the paging packet's TDR");
    /* With time enough it goes, and comes back intact. */
    evict1(f, x);
    resident1(f, x);
    gpu_read(f, x, 0, got, n, SIDE_LISTED);
    expect_bytes(got, want, n, "after the eviction that followed");
    no_violations(f);
    free(want);
    free(got);
}

/* ==== (f) bad input ====================================================================================== */

static void bad_input_is_refused_and_changes_nothing(void **state)
{
    fx_t *f = *state;
    gr_alloc_t a = make(f, 64 * KIB, GR_CPU_ACCESS_NONE, 0);
    gr_alloc_t b = make(f, 64 * KIB, GR_CPU_ACCESS_NONE, 0);
    gr_alloc_t gone = make(f, 64 * KIB, GR_CPU_ACCESS_NONE, 0);
    assert_int_equal(gr_alloc_destroy(f->dev, gone), GR_OK);
    /* Another process's handle, and another device's of this process. */
    gr_process_t *p2;
    gr_gpu_device_t *d2, *d3;
    assert_int_equal(gr_process_create(f->ad, &p2), GR_OK);
    assert_int_equal(gr_gpu_device_create(p2, &d2), GR_OK);
    assert_int_equal(gr_gpu_device_create(f->proc, &d3), GR_OK);
    gr_alloc_t foreign = 0, sibling = 0;
    assert_int_equal(create1(d2, 64 * KIB, GR_CPU_ACCESS_NONE, 0, &foreign), GR_OK);
    assert_int_equal(create1(d3, 64 * KIB, GR_CPU_ACCESS_NONE, 0, &sibling), GR_OK);
    assert_int_equal(gr_alloc_evict(f->dev, &b, 1), GR_OK);
    const gr_adapter_stats_t s0 = stats(f);
    const gr_alloc_info_t ia = info(f, a);
    gr_status_t (*const call[2])(gr_gpu_device_t *, const gr_alloc_t *, uint32_t) = {gr_alloc_evict,
                                                                                     gr_alloc_make_resident};
    for (int k = 0; k < 2; k++) {
        gr_alloc_t list[2];
        assert_int_equal(call[k](NULL, &a, 1), GR_E_INVALID);
        assert_int_equal(call[k](f->dev, NULL, 1), GR_E_INVALID);
        assert_int_equal(call[k](f->dev, &a, 0), GR_E_INVALID);
        assert_int_equal(call[k](f->dev, &a, GR_ALLOC_MAX_RESIDENCY_LIST + 1), GR_E_INVALID);
        list[0] = k == 0 ? a : b;
        /* 0, stale, forged, another process's, another device's, and the same handle twice. */
        const gr_alloc_t bad[] = {0, gone, list[0] ^ 0x5a5a5a5au, list[0] + 1, foreign, sibling, list[0]};
        for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            /* The good one first: the bad one after it must stop the whole call. */
            list[1] = bad[i];
            assert_int_equal(call[k](f->dev, list, 2), GR_E_INVALID);
        }
    }
    const gr_adapter_stats_t s1 = stats(f);
    assert_int_equal(s1.evictions, s0.evictions);
    assert_int_equal(s1.page_ins, s0.page_ins);
    assert_int_equal(s1.paging_packets, s0.paging_packets);
    const gr_alloc_info_t ia1 = info(f, a);
    assert_int_equal(ia1.residency, GR_RESIDENCY_RESIDENT);
    assert_int_equal(ia1.vram_address, ia.vram_address);
    assert_int_equal(info(f, b).residency, GR_RESIDENCY_EVICTED);
    /* Other processes' and devices' allocations were not touched either. */
    gr_alloc_info_t fi;
    assert_int_equal(gr_alloc_query(d2, foreign, &fi), GR_OK);
    assert_int_equal(fi.residency, GR_RESIDENCY_RESIDENT);
    /* A resident allocation made resident, an evicted one evicted: nothing to do. */
    assert_int_equal(gr_alloc_make_resident(f->dev, &a, 1), GR_OK);
    assert_int_equal(gr_alloc_evict(f->dev, &b, 1), GR_OK);
    assert_int_equal(stats(f).paging_packets, s0.paging_packets);
    gr_gpu_device_destroy(d3);
    gr_process_destroy(p2);
    no_violations(f);
}

/* ==== main ================================================================================================ */

int main(int argc, char **argv)
{
    seed = sf_start(argc, argv, "test_residency", uri, sizeof uri);
    dxgk_thr_set_handler(on_violation, NULL);
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(oversubscribed_by_half_a_copy_workload_keeps_every_byte),
        T(evict_and_make_resident_are_bit_exact_for_every_page_size),
        T(clean_permanent_sysmem_is_discarded_and_a_written_one_is_transferred),
        T(pinned_allocations_are_never_evicted),
        T(pinned_request_gets_room_by_relocation_bit_exact),
        T(residency_is_notified_and_an_evicted_va_faults_without_harm),
        T(paging_packet_preempted_mid_transfer_is_resubmitted_with_its_fence),
        T(paging_packet_guilty_of_a_tdr_is_undone),
        T(bad_input_is_refused_and_changes_nothing),
    };
    int failed = sf_run_tests("residency", tests, sizeof tests / sizeof tests[0], NULL, NULL);
    if (failed)
        printf("# %d failed; replay: test_residency --seed %llu\n", failed, seed);
    return failed ? 1 : 0;
}
