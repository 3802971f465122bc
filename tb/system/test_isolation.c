/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_isolation: one process attacking another's memory through the DMA engine, written the
 * way an attacker would write it: through the public API only (gr_submit, gr_wait, the
 * gr_dma.h encoders), with what a user process can learn (its own allocations, DMA buffers and
 * GPU VAs, the read-only open of a shared allocation, addresses read off another process's
 * gr_alloc_query or guessed). The test harness then checks, through the simulation's
 * backdoors (gr_sim_vram_read, gr_sim_host_read) and the registers, that the victim's bytes are
 * unchanged, that nothing of the victim reached the attacker, and that the attacker got a
 * clear status.
 *
 * The victim (process A) owns a shared VRAM buffer, a buffer it never shares, a buffer in the
 * VPR, a DMA buffer with commands in it, its page tables, and (through the miniport) the ring
 * and the fence record. The attacker (process B) opens the shared buffer read-only, and owns a
 * VRAM buffer and DMA buffers. Every command (COPY as source and destination, FILL, FENCE,
 * TIMESTAMP, WAIT, INDIRECT) is aimed at every address space (VRAM physical, host physical, and
 * the GPU VAs the attacker has); the expected answer is the engine's privilege fault (DMA_FAULT
 * type 7) for a physical space or any INDIRECT, an MMU fault for a write through the read-only
 * open, and, either way, VidSch's reset of the attacker's context: gr_wait says
 * GR_E_DEVICE_RESET. A patch list (the WDDM 1.x way to get physical addresses into a packet) is
 * refused by the miniport's Patch: gr_wait says GR_E_INVALID, and no physical address is
 * written into the attacker's buffer. Control cases show the attacker's own GPU VAs work.
 *
 * Usage: test_isolation [--seed N] (default $GR_TEST_SEED, else 1): the seed picks the bus
 * models' randomness and the patterns. TAP through cmocka (CMOCKA_MESSAGE_OUTPUT=TAP).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dxgk_testing.h"
#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_regdesc.h"
#include "gpuref/gr_regmap.h"
#include "gpuref/gr_submit.h"
#include "gr_link.h"
#include "gr_link_sim.h"
#include "kmd.h"
#include "sched_fixture.h"
#include "vidmm_gpuva.h"
#include "vidsch_testing.h"

#define KIB UINT64_C(1024)
#define BUF_BYTES (16 * KIB)  /* each victim and attacker buffer */
#define LONG_WAIT 50000000ull /* device cycles: far more than any case needs */

static unsigned long long seed = 1;
static char uri[160];

typedef struct fx {
    gr_adapter_t *ad;
    gr_sim_t *sim;
    uint32_t pat; /* the victim's pattern base, from the seed */
    /* the victim */
    gr_process_t *pa;
    gr_gpu_device_t *da;
    gr_context_t ca;
    gr_alloc_t shared, priv, vpr;
    gr_alloc_info_t shared_i, priv_i, vpr_i;
    gr_dma_buffer_t vbuf;
    gr_dma_buffer_info_t vbuf_i;
    uint64_t a_root;
    /* the attacker */
    gr_process_t *pb;
    gr_gpu_device_t *db;
    gr_alloc_t ro, own;
    gr_alloc_info_t ro_i, own_i;
    gr_dma_buffer_t bbuf; /* where the attacker's reads would land */
    gr_dma_buffer_info_t bbuf_i;
    uint64_t b_root;
} fx_t;

static fx_t *F;

/* ---- the victim's bytes ---------------------------------------------------------------------- */

static uint32_t word_of(uint32_t base, uint64_t i)
{
    return base ^ (uint32_t)(i * 0x9e3779b1u);
}

static void vram_read(uint64_t addr, void *dst, size_t n)
{
    assert_int_equal(gr_sim_vram_read(F->sim, addr, dst, n), GR_OK);
}

static void host_read(uint64_t bus, void *dst, size_t n)
{
    assert_int_equal(gr_sim_host_read(F->sim, bus, dst, n), GR_OK);
}

/* Whether [p, p + n) holds the words of base (n a multiple of 4). */
static bool holds(const uint8_t *p, size_t n, uint32_t base)
{
    for (size_t i = 0; i < n / 4; i++) {
        uint32_t w;
        memcpy(&w, p + 4 * i, 4);
        if (w != word_of(base, i))
            return false;
    }
    return true;
}

static void put_words(uint8_t *p, size_t n, uint32_t base)
{
    for (size_t i = 0; i < n / 4; i++) {
        uint32_t w = word_of(base, i);
        memcpy(p + 4 * i, &w, 4);
    }
}

/* The victim's three VRAM buffers and its DMA buffer hold their patterns, byte for byte. */
static void victim_intact(void)
{
    static uint8_t b[BUF_BYTES];
    vram_read(F->shared_i.vram_address, b, BUF_BYTES);
    assert_true(holds(b, BUF_BYTES, F->pat + 1));
    vram_read(F->priv_i.vram_address, b, BUF_BYTES);
    assert_true(holds(b, BUF_BYTES, F->pat + 2));
    vram_read(F->vpr_i.vram_address, b, BUF_BYTES);
    assert_true(holds(b, BUF_BYTES, F->pat + 3));
    host_read(F->vbuf_i.bus, b, BUF_BYTES);
    assert_true(holds(b, BUF_BYTES, F->pat + 4));
}

/* Nothing of the victim reached the attacker's read-back buffer (it stays zero). */
static void nothing_leaked(void)
{
    static uint8_t b[BUF_BYTES], zero[BUF_BYTES];
    host_read(F->bbuf_i.bus, b, BUF_BYTES);
    assert_memory_equal(b, zero, BUF_BYTES);
}

/* ---- the attacker ---------------------------------------------------------------------------- */

typedef struct attack {
    gr_context_t ctx;
    gr_dma_buffer_t buf;
    gr_dma_buffer_info_t bi;
    gr_dma_writer_t w;
    gr_alloc_ref_t refs[2];
    uint32_t nrefs;
    gr_patch_location_t pl[1];
    uint32_t npl;
} attack_t;

/* A fresh context of B (a fault costs the context its life) and a DMA buffer for it. */
static void attack_begin(attack_t *a)
{
    memset(a, 0, sizeof *a);
    assert_int_equal(gr_context_create(F->db, NULL, 0, &a->ctx), GR_OK);
    assert_int_equal(gr_dma_buffer_create(F->db, a->ctx, 4096, &a->buf), GR_OK);
    assert_int_equal(gr_dma_buffer_info(F->db, a->buf, &a->bi), GR_OK);
    gr_dma_writer_init(&a->w, a->bi.cpu, a->bi.size);
}

static void attack_ref(attack_t *a, gr_alloc_t h, bool write)
{
    a->refs[a->nrefs++] = (gr_alloc_ref_t){.handle = h, .flags = write ? GR_ALLOC_REF_WRITE : 0};
}

/* Submits and waits; returns gr_wait's status. DMA_FAULT_STATUS.TYPE is left in *out_type. */
static gr_status_t attack_run(attack_t *a, unsigned *out_type)
{
    assert_false(a->w.overflow);
    const uint32_t fs0 = sf_reg_read(F->ad, GR_REG_DMA_FAULT_STATUS);
    gr_submission_t s = {.buffer = a->buf,
                         .start = 0,
                         .end = (uint32_t)a->w.used,
                         .allocs = a->refs,
                         .alloc_count = a->nrefs,
                         .patches = a->pl,
                         .patch_count = a->npl};
    uint64_t fence = 0;
    assert_int_equal(gr_submit(F->db, a->ctx, &s, &fence), GR_OK);
    gr_status_t rc = gr_wait(F->db, a->ctx, fence, LONG_WAIT);
    const uint32_t fs = sf_reg_read(F->ad, GR_REG_DMA_FAULT_STATUS);
    /* A fault this packet did not cause keeps the old status: count it as none. */
    *out_type = (rc == GR_E_DEVICE_RESET || fs != fs0) ? GR_FIELD_GET(DMA_FAULT_STATUS, TYPE, fs) : 0;
    return rc;
}

static void attack_end(attack_t *a)
{
    assert_int_equal(gr_dma_buffer_destroy(F->db, a->buf), GR_OK);
    assert_int_equal(gr_context_destroy(F->db, a->ctx), GR_OK);
}

/* The attack is refused by the engine's privilege rule; the victim is intact, nothing leaked. */
static void expect_privilege_fault(attack_t *a)
{
    unsigned type = 0;
    assert_int_equal(attack_run(a, &type), GR_E_DEVICE_RESET);
    assert_int_equal(type, GR_DMA_FAULT_PRIVILEGE);
    attack_end(a);
    victim_intact();
    nothing_leaked();
}

/* ---- setup ------------------------------------------------------------------------------------ */

static gr_alloc_private_t buffer_priv(uint64_t bytes, uint32_t flags)
{
    gr_alloc_private_t p;
    memset(&p, 0, sizeof p);
    p.version = GR_ALLOC_PRIVATE_VERSION;
    p.struct_size = sizeof p;
    p.kind = GR_ALLOC_KIND_BUFFER;
    p.cpu_access = GR_CPU_ACCESS_NONE;
    p.flags = flags;
    p.buffer_bytes = bytes;
    return p;
}

static int make_buffer(gr_gpu_device_t *d, uint32_t flags, bool shared, gr_alloc_t *out, gr_shared_t *out_sh)
{
    gr_alloc_private_t p = buffer_priv(BUF_BYTES, flags);
    gr_alloc_desc_t desc = {.private_data = &p, .private_size = sizeof p};
    gr_resource_desc_t rd = {.flags = shared ? GR_RESOURCE_SHARED : 0};
    return gr_alloc_create(d, shared ? &rd : NULL, &desc, 1, out, out_sh);
}

static int group_setup(void **state)
{
    static fx_t f;
    memset(&f, 0, sizeof f);
    F = &f;
    f.pat = 0x5a000000u ^ (uint32_t)(seed * 0x10001u);
    int rc = gr_adapter_open(uri, &f.ad);
    if (rc) {
        print_error("gr_adapter_open(%s): %s (%s)\n", uri, gr_status_name(rc), gr_link_error());
        return -1;
    }
    f.sim = gr_link_sim_of(gr_adapter_link(f.ad));
    gr_shared_t sh = 0;
    uint32_t n = 0;
    if (!f.sim || sf_watchdog_off(f.ad) || gr_process_create(f.ad, &f.pa) || gr_gpu_device_create(f.pa, &f.da) ||
        gr_context_create(f.da, NULL, 0, &f.ca) || make_buffer(f.da, GR_ALLOC_PRIV_SHARED, true, &f.shared, &sh) ||
        make_buffer(f.da, 0, false, &f.priv, NULL) || make_buffer(f.da, GR_ALLOC_PRIV_IN_VPR, false, &f.vpr, NULL) ||
        gr_alloc_query(f.da, f.shared, &f.shared_i) || gr_alloc_query(f.da, f.priv, &f.priv_i) ||
        gr_alloc_query(f.da, f.vpr, &f.vpr_i) || gr_dma_buffer_create(f.da, f.ca, BUF_BYTES, &f.vbuf) ||
        gr_dma_buffer_info(f.da, f.vbuf, &f.vbuf_i) || gr_process_create(f.ad, &f.pb) ||
        gr_gpu_device_create(f.pb, &f.db) || gr_alloc_open(f.db, sh, GR_OPEN_READ_ONLY, 0, &f.ro, 1, &n, &f.ro_i) ||
        make_buffer(f.db, 0, false, &f.own, NULL) || gr_alloc_query(f.db, f.own, &f.own_i)) {
        print_error("isolation fixture: setup failed\n");
        gr_adapter_close(f.ad);
        return -1;
    }
    /* The victim's content, written through the backdoor (as if A had rendered it). */
    static uint8_t b[BUF_BYTES];
    put_words(b, BUF_BYTES, f.pat + 1);
    rc = gr_sim_vram_write(f.sim, f.shared_i.vram_address, b, BUF_BYTES);
    put_words(b, BUF_BYTES, f.pat + 2);
    rc = rc ? rc : gr_sim_vram_write(f.sim, f.priv_i.vram_address, b, BUF_BYTES);
    put_words(b, BUF_BYTES, f.pat + 3);
    rc = rc ? rc : gr_sim_vram_write(f.sim, f.vpr_i.vram_address, b, BUF_BYTES);
    /* A's DMA buffer (host memory): its pattern. */
    put_words(f.vbuf_i.cpu, BUF_BYTES, f.pat + 4);
    /* The roots (page tables) of A's context and of a context of B's, which also owns the
     * buffer the attacker's reads would land in. */
    gr_kmd_context_info_t ka, kb;
    gr_context_t keep = 0;
    if (rc || gr_context_create(f.db, NULL, 0, &keep) ||
        gr_kmd_context_query(gr_dxgk_test_hadapter(f.ad), gr_vidsch_test_hcontext(f.da, f.ca), &ka) != STATUS_SUCCESS ||
        gr_kmd_context_query(gr_dxgk_test_hadapter(f.ad), gr_vidsch_test_hcontext(f.db, keep), &kb) != STATUS_SUCCESS ||
        !ka.has_root || !kb.has_root || gr_dma_buffer_create(f.db, keep, BUF_BYTES, &f.bbuf) ||
        gr_dma_buffer_info(f.db, f.bbuf, &f.bbuf_i)) {
        print_error("isolation fixture: roots or the read-back buffer\n");
        gr_adapter_close(f.ad);
        return -1;
    }
    f.a_root = ka.root;
    f.b_root = kb.root;
    *state = &f;
    return 0;
}

static int group_teardown(void **state)
{
    fx_t *f = *state; /* NULL when the group's setup failed */
    if (f)
        gr_adapter_close(f->ad);
    return 0;
}

static int test_setup(void **state)
{
    (void)state;
    alarm(SF_TEST_SECONDS);
    return 0;
}

static int test_teardown(void **state)
{
    (void)state;
    alarm(0);
    return 0;
}

/* ---- control: the attacker's own GPU VAs work ------------------------------------------------- */

static void control_every_command_on_own_gpu_vas_runs(void **state)
{
    (void)state;
    attack_t a;
    attack_begin(&a);
    const uint64_t own = F->own_i.gpu_va, dma = a.bi.gpu_va;
    gr_dma_fill(&a.w, GR_DMA_SPACE_GPUVA, own, 4096, 0x0c0c0c0cu);
    gr_dma_copy(&a.w, GR_DMA_SPACE_GPUVA, own, GR_DMA_SPACE_GPUVA, own + 4096, 4096);
    gr_dma_copy(&a.w, GR_DMA_SPACE_GPUVA, F->ro_i.gpu_va, GR_DMA_SPACE_GPUVA, own + 8192,
                4096); /* reading is allowed */
    gr_dma_fence(&a.w, GR_DMA_SPACE_GPUVA, dma + 2048, 0xfeed, 0);
    gr_dma_timestamp(&a.w, GR_DMA_SPACE_GPUVA, dma + 2056);
    gr_dma_wait(&a.w, GR_DMA_SPACE_GPUVA, dma + 2048, 0xfeed);
    gr_dma_tlb_invalidate(&a.w);
    gr_dma_nop(&a.w);
    attack_ref(&a, F->own, true);
    attack_ref(&a, F->ro, false);
    unsigned type = 0;
    assert_int_equal(attack_run(&a, &type), GR_OK);
    assert_int_equal(type, 0);
    assert_int_equal(gr_dma_get64((const uint8_t *)a.bi.cpu + 2048), 0xfeed);
    assert_int_not_equal(gr_dma_get64((const uint8_t *)a.bi.cpu + 2056), 0);
    static uint8_t b[4096];
    vram_read(F->own_i.vram_address + 4096, b, 4096);
    for (unsigned i = 0; i < 4096; i++)
        assert_int_equal(b[i], 0x0c);
    vram_read(F->own_i.vram_address + 8192, b, 4096);
    assert_true(holds(b, 4096, F->pat + 1)); /* the shared buffer, read through the read-only open */
    attack_end(&a);
    victim_intact();
}

/* ---- VRAM physical ------------------------------------------------------------------------------ */

static void fill_vram_physical_of_the_shared_buffer_is_refused(void **state)
{
    (void)state;
    attack_t a;
    attack_begin(&a);
    /* B knows the shared buffer's VRAM address (its open reports it) */
    assert_int_equal(F->ro_i.vram_address, F->shared_i.vram_address);
    gr_dma_fill(&a.w, GR_DMA_SPACE_VRAM, F->ro_i.vram_address, BUF_BYTES, 0xdeadbeefu);
    expect_privilege_fault(&a);
}

static void fill_vram_physical_of_a_never_shared_buffer_is_refused(void **state)
{
    (void)state;
    attack_t a;
    attack_begin(&a);
    gr_dma_fill(&a.w, GR_DMA_SPACE_VRAM, F->priv_i.vram_address, BUF_BYTES, 0xdeadbeefu);
    expect_privilege_fault(&a);
}

static void copy_into_vram_physical_is_refused(void **state)
{
    (void)state;
    attack_t a;
    attack_begin(&a);
    gr_dma_copy(&a.w, GR_DMA_SPACE_GPUVA, F->own_i.gpu_va, GR_DMA_SPACE_VRAM, F->priv_i.vram_address, BUF_BYTES);
    attack_ref(&a, F->own, false);
    expect_privilege_fault(&a);
}

static void copy_out_of_vram_physical_is_refused(void **state)
{
    (void)state;
    attack_t a;
    attack_begin(&a);
    gr_dma_copy(&a.w, GR_DMA_SPACE_VRAM, F->priv_i.vram_address, GR_DMA_SPACE_GPUVA, F->bbuf_i.gpu_va, BUF_BYTES);
    expect_privilege_fault(&a);
}

static void fence_timestamp_and_wait_on_vram_physical_are_refused(void **state)
{
    (void)state;
    attack_t a;
    attack_begin(&a);
    gr_dma_fence(&a.w, GR_DMA_SPACE_VRAM, F->priv_i.vram_address, 0xdeadbeefdeadbeefull, 0);
    expect_privilege_fault(&a);
    attack_begin(&a);
    gr_dma_timestamp(&a.w, GR_DMA_SPACE_VRAM, F->shared_i.vram_address + 64);
    expect_privilege_fault(&a);
    /* WAIT only reads, but its timing tells the value: refused too */
    attack_begin(&a);
    gr_dma_wait(&a.w, GR_DMA_SPACE_VRAM, F->priv_i.vram_address, 1);
    expect_privilege_fault(&a);
}

/* ---- host physical ------------------------------------------------------------------------------ */

static void fill_and_copy_on_the_victims_dma_buffer_are_refused(void **state)
{
    (void)state;
    attack_t a;
    attack_begin(&a);
    gr_dma_fill(&a.w, GR_DMA_SPACE_HOST, F->vbuf_i.bus, BUF_BYTES, 0xdeadbeefu);
    expect_privilege_fault(&a);
    attack_begin(&a);
    gr_dma_copy(&a.w, GR_DMA_SPACE_GPUVA, F->own_i.gpu_va, GR_DMA_SPACE_HOST, F->vbuf_i.bus, 4096);
    attack_ref(&a, F->own, false);
    expect_privilege_fault(&a);
    attack_begin(&a);
    gr_dma_copy(&a.w, GR_DMA_SPACE_HOST, F->vbuf_i.bus, GR_DMA_SPACE_GPUVA, F->bbuf_i.gpu_va, 4096);
    expect_privilege_fault(&a);
}

static void fence_timestamp_and_wait_on_host_physical_are_refused(void **state)
{
    (void)state;
    attack_t a;
    attack_begin(&a);
    gr_dma_fence(&a.w, GR_DMA_SPACE_HOST, F->vbuf_i.bus + 8, 0xdeadbeefdeadbeefull, 1);
    expect_privilege_fault(&a);
    attack_begin(&a);
    gr_dma_timestamp(&a.w, GR_DMA_SPACE_HOST, F->vbuf_i.bus + 16);
    expect_privilege_fault(&a);
    attack_begin(&a);
    gr_dma_wait(&a.w, GR_DMA_SPACE_HOST, F->vbuf_i.bus, 1);
    expect_privilege_fault(&a);
}

/* Even the attacker's own DMA buffer: host space is the kernel's, whoever owns the page. */
static void host_physical_on_own_dma_buffer_is_refused_too(void **state)
{
    (void)state;
    attack_t a;
    attack_begin(&a);
    gr_dma_fence(&a.w, GR_DMA_SPACE_HOST, a.bi.bus + 2048, 0x1234, 0);
    expect_privilege_fault(&a);
}

/* ---- INDIRECT ----------------------------------------------------------------------------------- */

static void indirect_into_the_victims_dma_buffer_is_refused(void **state)
{
    (void)state;
    /* A's buffer starts with a FILL of B's read-back buffer (by B's GPU VA): if B's INDIRECT
     * ran A's commands at all, the read-back buffer would change. */
    gr_dma_writer_t vw;
    gr_dma_writer_init(&vw, F->vbuf_i.cpu, 64);
    gr_dma_fill(&vw, GR_DMA_SPACE_GPUVA, F->bbuf_i.gpu_va, 64, 0x11111111u);
    attack_t a;
    attack_begin(&a);
    gr_dma_indirect(&a.w, F->vbuf_i.bus, (uint32_t)vw.used);
    unsigned type = 0;
    assert_int_equal(attack_run(&a, &type), GR_E_DEVICE_RESET);
    assert_int_equal(type, GR_DMA_FAULT_PRIVILEGE);
    attack_end(&a);
    nothing_leaked();
    /* A's buffer as A left it (its commands), the rest of A intact */
    static uint8_t b[64];
    host_read(F->vbuf_i.bus, b, 64);
    assert_memory_equal(b, F->vbuf_i.cpu, 64);
    put_words(F->vbuf_i.cpu, 64, F->pat + 4);
    victim_intact();
}

static void indirect_into_own_dma_buffer_or_a_chain_is_refused(void **state)
{
    (void)state;
    /* an INDIRECT is the engine fetching from a bus address: no user packet may, even to its own */
    attack_t a;
    attack_begin(&a);
    gr_dma_writer_t iw;
    gr_dma_writer_init(&iw, (uint8_t *)a.bi.cpu + 2048, 1024);
    gr_dma_fill(&iw, GR_DMA_SPACE_VRAM, F->priv_i.vram_address, 64, 0xdeadbeefu);
    gr_dma_indirect(&a.w, a.bi.bus + 2048, (uint32_t)iw.used);
    expect_privilege_fault(&a);
}

/* ---- the GPU VA the attacker has ---------------------------------------------------------------- */

static void writes_through_the_read_only_open_fault_in_the_mmu(void **state)
{
    (void)state;
    attack_t a;
    /* listing it for writing is refused at submission */
    attack_begin(&a);
    gr_dma_fill(&a.w, GR_DMA_SPACE_GPUVA, F->ro_i.gpu_va, BUF_BYTES, 0xdeadbeefu);
    attack_ref(&a, F->ro, true);
    gr_submission_t s = {.buffer = a.buf, .start = 0, .end = (uint32_t)a.w.used, .allocs = a.refs, .alloc_count = 1};
    uint64_t fence = 0;
    assert_int_equal(gr_submit(F->db, a.ctx, &s, &fence), GR_E_INVALID);
    assert_int_equal(fence, 0);
    /* listed for reading, written anyway: FILL, COPY, FENCE and TIMESTAMP each fault */
    a.refs[0].flags = 0;
    unsigned type = 0;
    assert_int_equal(attack_run(&a, &type), GR_E_DEVICE_RESET);
    assert_int_equal(type, GR_DMA_FAULT_MMU);
    attack_end(&a);
    for (unsigned k = 0; k < 3; k++) {
        attack_begin(&a);
        if (k == 0)
            gr_dma_copy(&a.w, GR_DMA_SPACE_GPUVA, F->own_i.gpu_va, GR_DMA_SPACE_GPUVA, F->ro_i.gpu_va, 4096);
        else if (k == 1)
            gr_dma_fence(&a.w, GR_DMA_SPACE_GPUVA, F->ro_i.gpu_va + 8, 0xdeadbeefull, 0);
        else
            gr_dma_timestamp(&a.w, GR_DMA_SPACE_GPUVA, F->ro_i.gpu_va + 16);
        attack_ref(&a, F->ro, false);
        attack_ref(&a, F->own, false);
        assert_int_equal(attack_run(&a, &type), GR_E_DEVICE_RESET);
        assert_int_equal(type, GR_DMA_FAULT_MMU);
        attack_end(&a);
    }
    victim_intact();
}

/* ---- what only the kernel holds: page tables, the ring, the fence record ------------------------- */

/* Each process's address space maps exactly what it was given, and nothing else: no page
 * table, no ring or fence record, no paging buffer, no other process's DMA buffer or unshared
 * allocation. Everything else is reachable only by physical address, which the engine refuses
 * in a user packet. (Every VA slot either process was given, 4 KiB at a time.) */
typedef struct span {
    uint64_t base;
    bool system;
} span_t;

static unsigned in_spans(uint64_t page, bool system, const span_t *s, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (s[i].system == system && page >= s[i].base && page < s[i].base + BUF_BYTES)
            return 1;
    return 0;
}

static void kernel_memory_is_mapped_in_no_process(void **state)
{
    (void)state;
    const uint64_t ring = ((uint64_t)sf_reg_read(F->ad, GR_REG_DMA_RING_BASE_HI) << 32) |
                          (sf_reg_read(F->ad, GR_REG_DMA_RING_BASE_LO) & ~0xfffu);
    const uint64_t rec = ((uint64_t)sf_reg_read(F->ad, GR_REG_DMA_FENCE_ADDR_HI) << 32) |
                         (sf_reg_read(F->ad, GR_REG_DMA_FENCE_ADDR_LO) & ~7u);
    const span_t a_has[] = {{F->shared_i.vram_address, false},
                            {F->priv_i.vram_address, false},
                            {F->vpr_i.vram_address, false},
                            {F->vbuf_i.bus, true}};
    const span_t b_has[] = {{F->shared_i.vram_address, false}, {F->own_i.vram_address, false}, {F->bbuf_i.bus, true}};
    const struct {
        gr_gpu_device_t *dev;
        const span_t *has;
        unsigned n;
    } who[2] = {{F->da, a_has, 4}, {F->db, b_has, 3}};
    for (int d = 0; d < 2; d++) {
        unsigned mapped = 0;
        for (uint64_t va = UINT64_C(1) << 32; va < (UINT64_C(1) << 32) + (UINT64_C(256) << 20); va += 4096) {
            uint64_t pa = 0;
            unsigned fl = 0, shift = 0;
            if (gr_dxgk_test_gpuva_lookup(who[d].dev, va, &pa, &fl, &shift) != GR_OK)
                continue;
            mapped++;
            const uint64_t page = pa & ~UINT64_C(0xfff);
            const bool system = (fl & GR_GPUVA_SYSTEM) != 0;
            if (system)
                assert_true(page != (ring & ~UINT64_C(0xfff)) && page != (rec & ~UINT64_C(0xfff)));
            else
                assert_true(page != (F->a_root & ~UINT64_C(0xfff)) && page != (F->b_root & ~UINT64_C(0xfff)));
            if (!in_spans(page, system, who[d].has, who[d].n)) {
                print_error("process %c: VA 0x%" PRIx64 " maps %s 0x%" PRIx64 ", which it was not given\n", "AB"[d], va,
                            system ? "host" : "VRAM", pa);
                fail();
            }
        }
        /* all of what it was given, once each (4 KiB pages of 16 KiB buffers) */
        assert_int_equal(mapped, who[d].n * (BUF_BYTES / 4096));
    }
}

static void page_tables_are_out_of_reach(void **state)
{
    (void)state;
    static uint8_t before[4096], after[4096];
    vram_read(F->a_root, before, 4096);
    attack_t a;
    attack_begin(&a);
    gr_dma_fill(&a.w, GR_DMA_SPACE_VRAM, F->a_root, 4096, 0u);
    expect_privilege_fault(&a);
    /* B's own root is no better: a PTE pointing anywhere would be the way in */
    uint8_t b_before[64], b_after[64];
    vram_read(F->b_root, b_before, 64);
    attack_begin(&a);
    gr_dma_fence(&a.w, GR_DMA_SPACE_VRAM, F->b_root, 0x000000001c000003ull, 0);
    expect_privilege_fault(&a);
    vram_read(F->b_root, b_after, 64);
    assert_memory_equal(b_before, b_after, 64);
    vram_read(F->a_root, after, 4096);
    assert_memory_equal(before, after, 4096);
}

static void the_ring_and_the_fence_record_are_out_of_reach(void **state)
{
    (void)state;
    const uint64_t ring = ((uint64_t)sf_reg_read(F->ad, GR_REG_DMA_RING_BASE_HI) << 32) |
                          (sf_reg_read(F->ad, GR_REG_DMA_RING_BASE_LO) & ~0xfffu);
    const uint32_t entries = 1u << GR_FIELD_GET(DMA_RING_SIZE, LOG2, sf_reg_read(F->ad, GR_REG_DMA_RING_SIZE));
    const uint64_t rec = ((uint64_t)sf_reg_read(F->ad, GR_REG_DMA_FENCE_ADDR_HI) << 32) |
                         (sf_reg_read(F->ad, GR_REG_DMA_FENCE_ADDR_LO) & ~7u);
    /* overwrite every ring entry with a pattern: had it landed, the ring would hold it */
    attack_t a;
    attack_begin(&a);
    gr_dma_fill(&a.w, GR_DMA_SPACE_HOST, ring, (uint64_t)entries * GR_DMA_RING_ENTRY_BYTES, 0x0badf00du);
    expect_privilege_fault(&a);
    static uint8_t r[256 * GR_DMA_RING_ENTRY_BYTES];
    assert_true(entries * GR_DMA_RING_ENTRY_BYTES <= sizeof r);
    host_read(ring, r, entries * GR_DMA_RING_ENTRY_BYTES);
    for (uint32_t i = 0; i < entries * GR_DMA_RING_ENTRY_BYTES / 4; i++) {
        uint32_t w;
        memcpy(&w, r + 4 * i, 4);
        assert_int_not_equal(w, 0x0badf00du);
    }
    /* a completed fence far ahead would retire everyone's packets early */
    attack_begin(&a);
    gr_dma_fence(&a.w, GR_DMA_SPACE_HOST, rec, 0x7fffffffull, 1);
    expect_privilege_fault(&a);
    uint8_t q[16];
    host_read(rec, q, 16);
    assert_int_not_equal(gr_dma_get64(q), 0x7fffffffull);
    /* ... and the victim's next packet still runs and retires by its own fence */
    gr_dma_buffer_t vb = 0;
    gr_dma_buffer_info_t vi;
    assert_int_equal(gr_dma_buffer_create(F->da, F->ca, 4096, &vb), GR_OK);
    assert_int_equal(gr_dma_buffer_info(F->da, vb, &vi), GR_OK);
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, vi.cpu, vi.size);
    gr_dma_fence(&w, GR_DMA_SPACE_GPUVA, vi.gpu_va + 2048, 0xa11ce, 0);
    gr_submission_t s = {.buffer = vb, .start = 0, .end = (uint32_t)w.used};
    uint64_t fence = 0;
    assert_int_equal(gr_submit(F->da, F->ca, &s, &fence), GR_OK);
    assert_int_equal(gr_wait(F->da, F->ca, fence, LONG_WAIT), GR_OK);
    assert_int_equal(gr_dma_get64((const uint8_t *)vi.cpu + 2048), 0xa11ce);
    assert_int_equal(gr_dma_buffer_destroy(F->da, vb), GR_OK);
    victim_intact();
}

/* ---- the VPR ------------------------------------------------------------------------------------ */

static void vpr_content_is_out_of_reach(void **state)
{
    (void)state;
    attack_t a;
    attack_begin(&a);
    gr_dma_copy(&a.w, GR_DMA_SPACE_VRAM, F->vpr_i.vram_address, GR_DMA_SPACE_GPUVA, F->bbuf_i.gpu_va, BUF_BYTES);
    expect_privilege_fault(&a);
    attack_begin(&a);
    gr_dma_fill(&a.w, GR_DMA_SPACE_VRAM, F->vpr_i.vram_address, BUF_BYTES, 0xdeadbeefu);
    expect_privilege_fault(&a);
}

/* ---- the WDDM 1.x way: a patch list ------------------------------------------------------------- */

/* Patching would write a physical address into the attacker's own buffer (a leak by itself) for
 * a command that names VRAM physical. The miniport gives a user context no patch locations
 * (PatchLocationListSize 0), so gr_submit refuses the list before a fence exists; its Patch
 * would refuse it too. */
static void patch_lists_are_refused_and_leak_no_address(void **state)
{
    (void)state;
    attack_t a;
    attack_begin(&a);
    gr_dma_fill(&a.w, GR_DMA_SPACE_VRAM, 0, 4096, 0xdeadbeefu);
    attack_ref(&a, F->own, true);
    a.pl[0] = (gr_patch_location_t){.alloc_index = 0, .patch_offset = 8, .alloc_offset = 0};
    a.npl = 1;
    gr_context_info_t ci;
    assert_int_equal(gr_context_info(F->db, a.ctx, &ci), GR_OK);
    assert_int_equal(ci.patch_location_list_size, 0);
    gr_submission_t s = {.buffer = a.buf, .start = 0, .end = (uint32_t)a.w.used, .allocs = a.refs,
                         .alloc_count = a.nrefs, .patches = a.pl, .patch_count = a.npl};
    uint64_t fence = 77;
    assert_int_equal(gr_submit(F->db, a.ctx, &s, &fence), GR_E_RANGE);
    assert_int_equal(fence, 77);
    assert_int_equal(gr_context_info(F->db, a.ctx, &ci), GR_OK);
    assert_int_equal(ci.submitted, 0);
    assert_int_equal(gr_dma_get64((const uint8_t *)a.bi.cpu + 8), 0); /* nothing written there */
    attack_end(&a);
    victim_intact();
}

int main(int argc, char **argv)
{
    seed = sf_start(argc, argv, "test_isolation", uri, sizeof uri);
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, test_setup, test_teardown)
        T(control_every_command_on_own_gpu_vas_runs),
        T(fill_vram_physical_of_the_shared_buffer_is_refused),
        T(fill_vram_physical_of_a_never_shared_buffer_is_refused),
        T(copy_into_vram_physical_is_refused),
        T(copy_out_of_vram_physical_is_refused),
        T(fence_timestamp_and_wait_on_vram_physical_are_refused),
        T(fill_and_copy_on_the_victims_dma_buffer_are_refused),
        T(fence_timestamp_and_wait_on_host_physical_are_refused),
        T(host_physical_on_own_dma_buffer_is_refused_too),
        T(indirect_into_the_victims_dma_buffer_is_refused),
        T(indirect_into_own_dma_buffer_or_a_chain_is_refused),
        T(writes_through_the_read_only_open_fault_in_the_mmu),
        T(kernel_memory_is_mapped_in_no_process),
        T(page_tables_are_out_of_reach),
        T(the_ring_and_the_fence_record_are_out_of_reach),
        T(vpr_content_is_out_of_reach),
        T(patch_lists_are_refused_and_leak_no_address),
#undef T
    };
    return sf_run_tests("isolation", tests, sizeof tests / sizeof tests[0], group_setup, group_teardown);
}
