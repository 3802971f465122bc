/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_pcie_vfio: pcie:// (bridge/host/gr_link_pcie.c, unmodified) on the VFIO emulation of
 * sim/vfio: the container, group and device ioctls, BAR access through pread/pwrite at the
 * regions' offsets, DMA that reaches host memory only through VFIO_IOMMU_MAP_DMA, MSI, MSI-X and
 * INTx through eventfds, VFIO_DEVICE_RESET and the fallback without it; and the faults a card
 * can have: a completion timeout, a surprise removal (all ones, then ENODEV and the request
 * interrupt), a reset while DMA is in flight, an IOMMU fault at a stale IOVA. Each fault ends in
 * a GR_E_* status within a bound, never a hang, and the work completed before it stays.
 *
 * The program is linked with libgr_vfio_emu.so before libc, so its open, ioctl, pread, pwrite,
 * mmap and close are the emulation's; $GR_VFIO_EMU names the directory of the fixture tree. The
 * simulation's seed is $GR_TEST_SEED.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "gpuref/gr_dma.h"
#include "gpuref/gr_regmap.h"
#include "gpuref/gr_regs.h"
#include "gpuref/gr_status.h"
#include "gr_link.h"
#include "gr_link_pcie.h"
#include "gr_vfio_emu.h"

#define RING_LOG2 4u
#define RING_ENTRIES (1u << RING_LOG2)
#define WAIT_MS 20000.0

static char g_uri[512];

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The link a test has open, closed by the teardown when the test fails before it does. */
static gr_link_t *g_open;

static gr_link_t *open_link(const char *opts)
{
    assert_int_equal(gr_vfio_emu_configure(opts), 0);
    gr_link_t *l = NULL;
    int rc = gr_link_open(g_uri, &l);
    if (rc)
        fail_msg("gr_link_open(%s): %s (%s)", g_uri, gr_strerror(rc), gr_link_error());
    g_open = l;
    return l;
}

static void close_link(gr_link_t *l)
{
    gr_link_close(l);
    g_open = NULL;
}

static int teardown(void **state)
{
    (void)state;
    gr_link_close(g_open);
    g_open = NULL;
    gr_vfio_emu_fault(GR_VFIO_EMU_HEALTHY);
    return 0;
}

static uint32_t rd(gr_link_t *l, uint32_t off)
{
    uint32_t v = 0;
    int rc = gr_link_read32(l, off, &v);
    if (rc)
        fail_msg("read32 0x%x: %s (%s)", off, gr_strerror(rc), gr_link_error());
    return v;
}

static void wr(gr_link_t *l, uint32_t off, uint32_t v)
{
    int rc = gr_link_write32(l, off, v);
    if (rc)
        fail_msg("write32 0x%x: %s (%s)", off, gr_strerror(rc), gr_link_error());
}

/* The DMA engine on a ring of the link's DMA memory, driven by hand as the miniport does. */
typedef struct engine {
    gr_link_t *l;
    gr_dma_buf_t ring, fence, cmds;
    uint32_t tail;
} engine_t;

static void engine_start(engine_t *e, gr_link_t *l)
{
    memset(e, 0, sizeof *e);
    e->l = l;
    assert_int_equal(gr_link_dma_alloc(l, RING_ENTRIES * GR_DMA_RING_ENTRY_BYTES, &e->ring), GR_OK);
    assert_int_equal(gr_link_dma_alloc(l, 4096, &e->fence), GR_OK);
    assert_int_equal(gr_link_dma_alloc(l, 4096 * RING_ENTRIES, &e->cmds), GR_OK);
    wr(l, GR_REG_DMA_CTRL, GPU_REGS__DMA_CTRL__RESET_bm);
    wr(l, GR_REG_DMA_RING_BASE_LO, (uint32_t)e->ring.bus);
    wr(l, GR_REG_DMA_RING_BASE_HI, (uint32_t)(e->ring.bus >> 32));
    wr(l, GR_REG_DMA_RING_SIZE, RING_LOG2);
    wr(l, GR_REG_DMA_RING_TAIL, 0);
    wr(l, GR_REG_DMA_FENCE_ADDR_LO, (uint32_t)e->fence.bus);
    wr(l, GR_REG_DMA_FENCE_ADDR_HI, (uint32_t)(e->fence.bus >> 32));
    wr(l, GR_REG_DMA_CTRL, GPU_REGS__DMA_CTRL__ENABLE_bm);
    e->tail = rd(l, GR_REG_DMA_RING_HEAD);
}

static void engine_free(engine_t *e)
{
    assert_int_equal(gr_link_dma_free(e->l, &e->cmds), GR_OK);
    assert_int_equal(gr_link_dma_free(e->l, &e->fence), GR_OK);
    assert_int_equal(gr_link_dma_free(e->l, &e->ring), GR_OK);
}

/* Queues one privileged entry that fills bytes at bus with pattern; its fence id is fence_id. */
static void submit_fill(engine_t *e, uint64_t bus, uint64_t bytes, uint32_t pattern, uint32_t fence_id)
{
    const uint32_t idx = e->tail % RING_ENTRIES;
    uint8_t *cmd = (uint8_t *)e->cmds.cpu + idx * 4096u;
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, cmd, 4096);
    assert_int_equal(gr_dma_fill(&w, GR_DMA_SPACE_HOST, bus, bytes, pattern), 0);
    uint8_t *entry = (uint8_t *)e->ring.cpu + idx * GR_DMA_RING_ENTRY_BYTES;
    gr_dma_ring_entry(entry, e->cmds.bus + idx * 4096u, (uint32_t)w.used, fence_id, 0, 0, 0);
    gr_dma_ring_entry_set_priv(entry);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    e->tail = (e->tail + 1) % RING_ENTRIES;
    wr(e->l, GR_REG_DMA_RING_TAIL, e->tail);
}

static uint64_t done_fence(const engine_t *e)
{
    return __atomic_load_n((const uint64_t *)e->fence.cpu + GR_DMA_FENCE_RECORD_DONE / 8, __ATOMIC_ACQUIRE);
}

/* Waits (wall time) until the fence record says fence_id. */
static void wait_fence(const engine_t *e, uint32_t fence_id)
{
    const double t0 = now_ms();
    while (done_fence(e) != fence_id) {
        if (now_ms() - t0 > WAIT_MS)
            fail_msg("fence %u not written in %.0f ms (record %llu, DMA_STATUS 0x%08x)", fence_id,
                     WAIT_MS, (unsigned long long)done_fence(e), rd(e->l, GR_REG_DMA_STATUS));
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
}

static void assert_filled(const gr_dma_buf_t *b, size_t bytes, uint32_t pattern)
{
    const uint32_t *p = b->cpu;
    for (size_t i = 0; i < bytes / 4; i++)
        if (p[i] != pattern)
            fail_msg("word %zu of the buffer at 0x%llx is 0x%08x, not 0x%08x", i,
                     (unsigned long long)b->bus, p[i], pattern);
}

static void assert_says(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("expected \"%s\" in \"%s\"", want, text);
}

static gr_vfio_emu_stats_t stats(void)
{
    gr_vfio_emu_stats_t s;
    gr_vfio_emu_stats(&s);
    return s;
}

/* The suite runs once with each card: pcie_core behind TLPs (the default) and card=tlm. */
static bool want_shell(void)
{
    const char *o = getenv("GR_VFIO_EMU_OPTS");
    return !(o && strstr(o, "card=tlm"));
}

/* ---- the VFIO path ------------------------------------------------------------------------- */

static void open_resets_the_function_and_reaches_bar0_through_pread(void **state)
{
    (void)state;
    const gr_vfio_emu_stats_t before = stats();
    gr_link_t *l = open_link("irqs=msi");
    char d[256];
    gr_link_describe(l, d, sizeof d);
    assert_says(d, "pcie " GR_VFIO_EMU_BDF " vfio group 42 bar0=64KiB bar1=256MiB pread/pwrite MSI");
    assert_int_equal(gr_link_caps(l) & (GR_LINK_CAP_DMA | GR_LINK_CAP_IRQ | GR_LINK_CAP_SIMULATED),
                     GR_LINK_CAP_DMA | GR_LINK_CAP_IRQ);
    assert_int_equal(rd(l, GR_REG_ID_MAGIC), GPU_REGS__ID_MAGIC__VALUE_reset);
    /* a read-write register takes a value and gives it back through pwrite and pread */
    wr(l, GR_REG_DMA_RING_BASE_LO, 0x12345000u);
    assert_int_equal(rd(l, GR_REG_DMA_RING_BASE_LO), 0x12345000u);
    const gr_vfio_emu_stats_t s = stats();
    assert_true(s.open);
    assert_int_equal(s.resets, before.resets + 1); /* VFIO_DEVICE_RESET at open */
    assert_int_equal(s.irq_index, 1u);              /* VFIO_PCI_MSI_IRQ_INDEX */
    assert_true(s.bar_reads >= before.bar_reads + 2);
    /* the card asked for is the one behind the device; on the shell each access was a TLP */
    assert_int_equal(s.shell, want_shell());
    if (s.shell)
        assert_true(s.cq_tlps >= before.cq_tlps + 3);
    else
        assert_int_equal(s.cq_tlps, before.cq_tlps);
    /* BAR1 through pread/pwrite: bytes at an odd offset and length come back */
    uint8_t out[77], in[77];
    for (unsigned i = 0; i < sizeof out; i++)
        out[i] = (uint8_t)(i * 7 + 3);
    assert_int_equal(gr_link_ap_write(l, 0x1003, out, sizeof out), GR_OK);
    assert_int_equal(gr_link_ap_read(l, 0x1003, in, sizeof in), GR_OK);
    assert_memory_equal(in, out, sizeof out);
    assert_int_equal(gr_link_ap_read(l, GR_VFIO_EMU_BAR1_BYTES - 2, in, 4), GR_E_RANGE);
    close_link(l);
    assert_false(stats().open);
}

/* One driver stack per device (bridge/README.md): a VFIO group is open once at a time (the
 * kernel answers another open EBUSY, and so does the emulation), so a second pcie:// on the
 * function gets GR_E_BUSY naming the group, and the first goes on; after its close the function
 * opens again. */
static void a_second_open_of_the_group_is_gr_e_busy(void **state)
{
    (void)state;
    gr_link_t *l = open_link("irqs=msi");
    wr(l, GR_REG_SCRATCH, 0x5ec0dd0eu);
    gr_link_t *second = NULL;
    assert_int_equal(gr_link_open(g_uri, &second), GR_E_BUSY);
    assert_null(second);
    assert_says(gr_link_error(), "/vfio/42 (the VFIO group) is in use");
    assert_int_equal(rd(l, GR_REG_SCRATCH), 0x5ec0dd0eu);
    close_link(l);
    l = open_link("irqs=msi");
    assert_int_equal(rd(l, GR_REG_ID_MAGIC), GPU_REGS__ID_MAGIC__VALUE_reset);
    close_link(l);
}

static void dma_reaches_host_memory_only_through_iommu_mappings(void **state)
{
    (void)state;
    gr_link_t *l = open_link("irqs=msi");
    const uint64_t maps0 = stats().mappings;
    engine_t e;
    engine_start(&e, l);
    gr_dma_buf_t b;
    assert_int_equal(gr_link_dma_alloc(l, 3 * 4096 + 100, &b), GR_OK);
    assert_int_equal(stats().mappings, maps0 + 4);
    assert_true(b.bus >= GR_PCIE_IOVA_BASE && b.bus % 4096 == 0);
    submit_fill(&e, b.bus, 3 * 4096, 0x5a5aa5a5u, 1);
    wait_fence(&e, 1);
    assert_filled(&b, 3 * 4096, 0x5a5aa5a5u);
    assert_int_equal(rd(l, GR_REG_DMA_FAULT_STATUS), 0);
    assert_int_equal(gr_link_dma_free(l, &b), GR_OK);
    engine_free(&e);
    assert_int_equal(stats().mappings, maps0);
    close_link(l);
}

/* The IOMMU fault: a device that still holds a freed buffer's IOVA (here: a ring it was never
 * told to forget) must meet no mapping there, not the next buffer dma_alloc hands out. */
static void a_stale_iova_is_an_iommu_fault_not_the_next_buffer(void **state)
{
    (void)state;
    gr_link_t *l = open_link("irqs=msi");
    gr_dma_buf_t old, fresh;
    assert_int_equal(gr_link_dma_alloc(l, 4096, &old), GR_OK);
    const uint64_t stale = old.bus;
    assert_int_equal(gr_link_dma_free(l, &old), GR_OK);
    assert_int_equal(gr_link_dma_alloc(l, 4096, &fresh), GR_OK);
    assert_true(fresh.bus != stale);
    /* the new buffer holds what would be a valid ring entry, were the device to read it */
    memset(fresh.cpu, 0, 4096);
    const uint64_t faults0 = stats().iommu_faults;
    wr(l, GR_REG_DMA_CTRL, GPU_REGS__DMA_CTRL__RESET_bm);
    wr(l, GR_REG_DMA_RING_BASE_LO, (uint32_t)stale);
    wr(l, GR_REG_DMA_RING_BASE_HI, (uint32_t)(stale >> 32));
    wr(l, GR_REG_DMA_RING_SIZE, RING_LOG2);
    wr(l, GR_REG_DMA_CTRL, GPU_REGS__DMA_CTRL__ENABLE_bm);
    wr(l, GR_REG_DMA_RING_TAIL, (rd(l, GR_REG_DMA_RING_HEAD) + 1) % RING_ENTRIES);
    const double t0 = now_ms();
    uint32_t st;
    while (!((st = rd(l, GR_REG_DMA_STATUS)) & GPU_REGS__DMA_STATUS__FAULTED_bm)) {
        if (now_ms() - t0 > WAIT_MS)
            fail_msg("no DMA fault for the ring at stale IOVA 0x%llx (DMA_STATUS 0x%08x, IOMMU "
                     "faults %llu)",
                     (unsigned long long)stale, st, (unsigned long long)(stats().iommu_faults - faults0));
    }
    const uint32_t fs = rd(l, GR_REG_DMA_FAULT_STATUS);
    assert_int_equal((fs & GPU_REGS__DMA_FAULT_STATUS__TYPE_bm) >> GPU_REGS__DMA_FAULT_STATUS__TYPE_bp,
                     GR_DMA_FAULT_BUS);
    const uint64_t at = rd(l, GR_REG_DMA_FAULT_ADDR_LO) | (uint64_t)rd(l, GR_REG_DMA_FAULT_ADDR_HI) << 32;
    assert_true(at >= stale && at < stale + 4096);
    const gr_vfio_emu_stats_t s = stats();
    assert_true(s.iommu_faults > faults0);
    if (s.shell) /* the shell's MRd there was answered Unsupported Request */
        assert_true(s.ur_cpls > 0);
    if (!faults0)
        assert_true(s.first_fault_iova >= stale && s.first_fault_iova < stale + 4096);
    wr(l, GR_REG_DMA_CTRL, GPU_REGS__DMA_CTRL__RESET_bm);
    assert_int_equal(gr_link_dma_free(l, &fresh), GR_OK);
    close_link(l);
}

/* Each interrupt kind delivers, is consumed, and is delivered again: an eventfd (or INTx mask)
 * that is never re-armed shows here as a second interrupt that does not come. */
static void irq_kind(const char *opts, unsigned index, const char *name)
{
    gr_link_t *l = open_link(opts);
    char d[256];
    gr_link_describe(l, d, sizeof d);
    assert_says(d, name);
    assert_int_equal(stats().irq_index, index);
    bool raised = true;
    assert_int_equal(gr_link_wait_irq(l, 1000, &raised), GR_OK);
    assert_false(raised);
    wr(l, GR_REG_IRQ_ENABLE, GPU_REGS__IRQ_STATE__DMA_FENCE_bm);
    for (int round = 0; round < 3; round++) {
        wr(l, GR_REG_IRQ_TEST, GPU_REGS__IRQ_STATE__DMA_FENCE_bm);
        raised = false;
        assert_int_equal(gr_link_wait_irq(l, 2000000, &raised), GR_OK);
        if (!raised)
            fail_msg("%s: interrupt %d not delivered", name, round);
        wr(l, GR_REG_IRQ_STATE, GPU_REGS__IRQ_STATE__DMA_FENCE_bm); /* acknowledge */
        /* the line is low now: nothing more until the next one */
        raised = true;
        assert_int_equal(gr_link_wait_irq(l, 2000, &raised), GR_OK);
        if (raised)
            fail_msg("%s: a second interrupt after acknowledge %d", name, round);
    }
    wr(l, GR_REG_IRQ_ENABLE, 0);
    close_link(l);
}

static void msi_msix_and_intx_each_deliver_and_rearm(void **state)
{
    (void)state;
    irq_kind("irqs=msi", 1, " MSI");
    irq_kind("irqs=msix+msi+intx", 2, " MSI-X");
    irq_kind("irqs=intx", 0, " INTx");
    gr_link_t *l = open_link("irqs=none");
    assert_int_equal(gr_link_caps(l) & GR_LINK_CAP_IRQ, 0);
    bool raised;
    assert_int_equal(gr_link_wait_irq(l, 10, &raised), GR_E_UNSUPPORTED);
    close_link(l);
}

/* Without VFIO_DEVICE_RESET the open resets the DMA engine itself: what an earlier user left
 * enabled is stopped (the kernel resets nothing on release either). */
static void without_a_function_reset_open_stops_the_engine_itself(void **state)
{
    (void)state;
    const uint64_t resets0 = stats().resets;
    gr_link_t *l = open_link("noreset");
    wr(l, GR_REG_DMA_CTRL, GPU_REGS__DMA_CTRL__ENABLE_bm);
    wr(l, GR_REG_IRQ_ENABLE, GPU_REGS__IRQ_STATE__DMA_FENCE_bm);
    close_link(l);
    l = open_link("noreset");
    assert_int_equal(stats().resets, resets0);
    assert_int_equal(rd(l, GR_REG_DMA_CTRL), 0);
    assert_int_equal(rd(l, GR_REG_IRQ_ENABLE), 0);
    close_link(l);
}

/* ---- faults -------------------------------------------------------------------------------- */

static void a_completion_timeout_is_gr_e_timeout_not_all_ones(void **state)
{
    (void)state;
    gr_link_t *l = open_link("irqs=msi");
    const uint64_t timeouts0 = stats().cpl_timeouts;
    gr_vfio_emu_fault(GR_VFIO_EMU_CPL_TIMEOUT);
    uint32_t v = 0x1234;
    const double t0 = now_ms();
    assert_int_equal(gr_link_read32(l, GR_REG_DMA_STATUS, &v), GR_E_TIMEOUT);
    assert_int_equal(v, 0x1234); /* untouched */
    assert_says(gr_link_error(), "completion timeout");
    assert_true(now_ms() - t0 < 5000);
    if (want_shell()) /* the MRd reached the card, whose completion never came */
        assert_true(stats().cpl_timeouts > timeouts0);
    gr_vfio_emu_fault(GR_VFIO_EMU_HEALTHY);
    /* the device answers again: the link was not given up */
    assert_int_equal(rd(l, GR_REG_ID_MAGIC), GPU_REGS__ID_MAGIC__VALUE_reset);
    close_link(l);
}

/* Work completed before the removal stays in host memory; every call after it says so. */
static void removal(gr_vfio_emu_fault_t how)
{
    gr_link_t *l = open_link("irqs=msi");
    engine_t e;
    engine_start(&e, l);
    gr_dma_buf_t b;
    assert_int_equal(gr_link_dma_alloc(l, 8192, &b), GR_OK);
    submit_fill(&e, b.bus, 8192, 0xc0ffee11u, 7);
    wait_fence(&e, 7);
    gr_vfio_emu_fault(how);
    if (how == GR_VFIO_EMU_REMOVED_ALL_ONES) {
        /* an aperture read of all ones is looked into, not taken for data */
        uint8_t first[16];
        assert_int_equal(gr_link_ap_read(l, 0x100, first, sizeof first), GR_E_NO_DEVICE);
    }
    bool raised = true;
    double t0 = now_ms();
    if (how == GR_VFIO_EMU_REMOVED) {
        /* the kernel's request interrupt ends a wait at once */
        assert_int_equal(gr_link_wait_irq(l, 3000000, &raised), GR_E_NO_DEVICE);
        assert_true(now_ms() - t0 < 1000);
    }
    uint32_t v = 0x1234;
    assert_int_equal(gr_link_read32(l, GR_REG_DMA_STATUS, &v), GR_E_NO_DEVICE);
    assert_int_equal(v, 0x1234);
    assert_says(gr_link_error(), "gone");
    assert_int_equal(gr_link_write32(l, GR_REG_DMA_RING_TAIL, 1), GR_E_NO_DEVICE);
    uint8_t buf[16];
    assert_int_equal(gr_link_ap_read(l, 0, buf, sizeof buf), GR_E_NO_DEVICE);
    t0 = now_ms();
    assert_int_equal(gr_link_wait_irq(l, 3000000, &raised), GR_E_NO_DEVICE);
    assert_true(now_ms() - t0 < 1000); /* not the 3 s timeout */
    assert_filled(&b, 8192, 0xc0ffee11u);
    assert_int_equal(done_fence(&e), 7);
    assert_int_equal(gr_link_dma_free(l, &b), GR_OK);
    engine_free(&e);
    close_link(l);
    gr_vfio_emu_fault(GR_VFIO_EMU_HEALTHY);
}

static void a_surprise_removal_reading_all_ones_is_gr_e_no_device(void **state)
{
    (void)state;
    removal(GR_VFIO_EMU_REMOVED_ALL_ONES);
}

static void a_surprise_removal_with_enodev_and_the_request_irq_is_gr_e_no_device(void **state)
{
    (void)state;
    removal(GR_VFIO_EMU_REMOVED);
}

/* A reset of the function from outside while a fill is under way: the next access says the
 * device lost its state (GR_E_DEVICE_RESET), nothing reaches host memory after the reset, the
 * fill completed before it stays, and the device runs new work once reprogrammed. */
static void a_reset_while_dma_is_in_flight_is_gr_e_device_reset_and_recovers(void **state)
{
    (void)state;
    gr_link_t *l = open_link("irqs=msi");
    engine_t e;
    engine_start(&e, l);
    gr_dma_buf_t a, big;
    assert_int_equal(gr_link_dma_alloc(l, 4096, &a), GR_OK);
    assert_int_equal(gr_link_dma_alloc(l, 4u << 20, &big), GR_OK);
    submit_fill(&e, a.bus, 4096, 0x11111111u, 1);
    wait_fence(&e, 1);
    submit_fill(&e, big.bus, 4u << 20, 0x22222222u, 2);
    /* under way: some of it written, not all */
    const uint32_t *w = big.cpu;
    const double t0 = now_ms();
    while (__atomic_load_n(&w[0], __ATOMIC_ACQUIRE) != 0x22222222u)
        if (now_ms() - t0 > WAIT_MS)
            fail_msg("the fill did not start");
    assert_int_equal(gr_vfio_emu_reset(), 0);
    uint32_t v = 0x1234;
    assert_int_equal(gr_link_read32(l, GR_REG_DMA_STATUS, &v), GR_E_DEVICE_RESET);
    assert_says(gr_link_error(), "reset");
    assert_int_equal(done_fence(&e), 1);
    assert_int_equal(w[(4u << 20) / 4 - 1], 0); /* the fill's end never came */
    uint8_t *snap = malloc(4u << 20);
    assert_non_null(snap);
    memcpy(snap, big.cpu, 4u << 20);
    /* the device answers again, at its reset values */
    assert_int_equal(rd(l, GR_REG_ID_MAGIC), GPU_REGS__ID_MAGIC__VALUE_reset);
    assert_int_equal(rd(l, GR_REG_DMA_CTRL), 0);
    struct timespec ts = {0, 50000000};
    nanosleep(&ts, NULL);
    assert_memory_equal(snap, big.cpu, 4u << 20); /* nothing after the reset */
    free(snap);
    assert_filled(&a, 4096, 0x11111111u);
    /* reprogrammed, it runs new work */
    engine_t e2;
    engine_start(&e2, l);
    submit_fill(&e2, a.bus, 4096, 0x33333333u, 3);
    wait_fence(&e2, 3);
    assert_filled(&a, 4096, 0x33333333u);
    engine_free(&e2);
    assert_int_equal(gr_link_dma_free(l, &big), GR_OK);
    assert_int_equal(gr_link_dma_free(l, &a), GR_OK);
    engine_free(&e);
    close_link(l);
}

/* Closing with a fill under way: bus mastering goes off before the buffers are unmapped, so the
 * DMA still in flight ends at the function and none of it is an IOMMU fault. */
static void close_with_dma_in_flight_stops_the_device_before_unmapping(void **state)
{
    (void)state;
    gr_link_t *l = open_link("noreset"); /* no reset at release to hide it */
    engine_t e;
    engine_start(&e, l);
    gr_dma_buf_t big;
    assert_int_equal(gr_link_dma_alloc(l, 8u << 20, &big), GR_OK);
    submit_fill(&e, big.bus, 8u << 20, 0x44444444u, 1);
    const uint32_t *w = big.cpu;
    const double t0 = now_ms();
    while (__atomic_load_n(&w[0], __ATOMIC_ACQUIRE) != 0x44444444u)
        if (now_ms() - t0 > WAIT_MS)
            fail_msg("the fill did not start");
    const uint64_t faults0 = stats().iommu_faults;
    close_link(l); /* with the fill under way */
    assert_int_equal(stats().iommu_faults, faults0);
    /* the next user gets a stopped engine (its open resets it) */
    l = open_link("noreset");
    assert_int_equal(rd(l, GR_REG_DMA_CTRL), 0);
    close_link(l);
    assert_int_equal(stats().iommu_faults, faults0);
}

/* ---- ioctls the kernel refuses -------------------------------------------------------------- */

/* Each ioctl of the open refused in turn: the open fails with an error that names it and leaves
 * nothing behind (the group opens again at once); MAP_DMA and UNMAP_DMA refused fail dma_alloc
 * and dma_free alone, the buffer kept; a refused VFIO_DEVICE_RESET is the fallback, and without
 * VFIO_IOMMU_GET_INFO's report of the valid IOVA ranges the default window is used; without
 * VFIO_DEVICE_GET_IRQ_INFO the link has no interrupt and says so. */
static void a_refused_ioctl_is_named_and_leaves_nothing_open(void **state)
{
    (void)state;
    static const char *const at_open[] = {
        "VFIO_GET_API_VERSION",        "VFIO_GROUP_GET_STATUS",      "VFIO_GROUP_SET_CONTAINER",
        "VFIO_SET_IOMMU",              "VFIO_GROUP_GET_DEVICE_FD",
        "VFIO_DEVICE_GET_INFO",        "VFIO_DEVICE_GET_REGION_INFO", "VFIO_DEVICE_SET_IRQS",
    };
    char opts[96];
    for (size_t i = 0; i < sizeof at_open / sizeof at_open[0]; i++) {
        snprintf(opts, sizeof opts, "irqs=msi,fail=%s", at_open[i]);
        assert_int_equal(gr_vfio_emu_configure(opts), 0);
        gr_link_t *l = NULL;
        const int rc = gr_link_open(g_uri, &l);
        if (rc == GR_OK) {
            gr_link_close(l);
            fail_msg("%s refused, and the open succeeded", at_open[i]);
        }
        assert_says(gr_link_error(), at_open[i]);
        assert_false(stats().open);
        gr_link_close(open_link("irqs=msi")); /* nothing was left open */
        g_open = NULL;
    }
    /* VFIO_CHECK_EXTENSION refused: no IOMMU type to use */
    assert_int_equal(gr_vfio_emu_configure("fail=VFIO_CHECK_EXTENSION"), 0);
    gr_link_t *l = NULL;
    assert_int_equal(gr_link_open(g_uri, &l), GR_E_UNSUPPORTED);
    assert_says(gr_link_error(), "type 1 IOMMU");
    /* VFIO_DEVICE_RESET refused: the open resets the engine itself */
    const uint64_t resets0 = stats().resets;
    l = open_link("irqs=msi,fail=VFIO_DEVICE_RESET");
    assert_int_equal(stats().resets, resets0);
    assert_int_equal(rd(l, GR_REG_ID_MAGIC), GPU_REGS__ID_MAGIC__VALUE_reset);
    close_link(l);
    /* VFIO_IOMMU_GET_INFO refused: DMA in the default window */
    l = open_link("irqs=msi,fail=VFIO_IOMMU_GET_INFO");
    gr_dma_buf_t w;
    assert_int_equal(gr_link_dma_alloc(l, 4096, &w), GR_OK);
    assert_true(w.bus >= GR_PCIE_IOVA_BASE && w.bus < GR_PCIE_IOVA_END);
    assert_int_equal(gr_link_dma_free(l, &w), GR_OK);
    close_link(l);
    /* VFIO_DEVICE_GET_IRQ_INFO refused: no interrupt (polling) */
    l = open_link("irqs=msi,fail=VFIO_DEVICE_GET_IRQ_INFO");
    assert_int_equal(gr_link_caps(l) & GR_LINK_CAP_IRQ, 0);
    bool raised;
    assert_int_equal(gr_link_wait_irq(l, 10, &raised), GR_E_UNSUPPORTED);
    assert_int_equal(rd(l, GR_REG_ID_MAGIC), GPU_REGS__ID_MAGIC__VALUE_reset);
    close_link(l);
    /* MAP_DMA refused: dma_alloc fails and maps nothing */
    l = open_link("irqs=msi,fail=VFIO_IOMMU_MAP_DMA");
    const uint64_t maps0 = stats().mappings;
    gr_dma_buf_t b;
    assert_int_equal(gr_link_dma_alloc(l, 4096, &b), GR_E_IO);
    assert_says(gr_link_error(), "VFIO_IOMMU_MAP_DMA");
    assert_int_equal(stats().mappings, maps0);
    close_link(l);
    /* UNMAP_DMA refused: dma_free fails and the mapping stays (the device may still reach the
     * pages: they are not given back), until the container goes at close */
    l = open_link("irqs=msi,fail=VFIO_IOMMU_UNMAP_DMA");
    assert_int_equal(gr_link_dma_alloc(l, 4096, &b), GR_OK);
    assert_int_equal(stats().mappings, maps0 + 1);
    assert_int_equal(gr_link_dma_free(l, &b), GR_E_IO);
    assert_says(gr_link_error(), "VFIO_IOMMU_UNMAP_DMA");
    assert_int_equal(stats().mappings, maps0 + 1);
    close_link(l);
    assert_int_equal(stats().mappings, 0);
    assert_int_equal(gr_vfio_emu_configure("irqs=msi"), 0);
}

/* ---- BARs through mmap ----------------------------------------------------------------------- */

/* With VFIO_REGION_INFO_FLAG_MMAP the backend maps both BARs and reaches them with loads and
 * stores, no pread or pwrite: registers, the aperture, DMA and its interrupt, and the faults. */
static void mapped_bars_reach_the_card_with_loads_and_stores(void **state)
{
    (void)state;
    gr_link_t *l = open_link("irqs=msi,mmap");
    char d[256];
    gr_link_describe(l, d, sizeof d);
    assert_says(d, "bar1=256MiB MSI");
    if (strstr(d, "pread"))
        fail_msg("mapped BARs reached with pread/pwrite: %s", d);
    const gr_vfio_emu_stats_t before = stats();
    assert_int_equal(rd(l, GR_REG_ID_MAGIC), GPU_REGS__ID_MAGIC__VALUE_reset);
    wr(l, GR_REG_DMA_RING_BASE_LO, 0x5aa5f000u);
    assert_int_equal(rd(l, GR_REG_DMA_RING_BASE_LO), 0x5aa5f000u);
    uint8_t out[77], in[77];
    for (unsigned i = 0; i < sizeof out; i++)
        out[i] = (uint8_t)(i * 13 + 5);
    assert_int_equal(gr_link_ap_write(l, 0x2005, out, sizeof out), GR_OK);
    memset(in, 0, sizeof in);
    assert_int_equal(gr_link_ap_read(l, 0x2005, in, sizeof in), GR_OK);
    assert_memory_equal(in, out, sizeof out);
    /* every load and store reached the card: 77 bytes are 3 + 9 x 8 + 2 accesses each way */
    const gr_vfio_emu_stats_t s = stats();
    assert_int_equal(s.bar_reads - before.bar_reads, 2 + 14);
    assert_int_equal(s.bar_writes - before.bar_writes, 1 + 14);
    /* DMA and its interrupt, driven through the mapping */
    engine_t e;
    engine_start(&e, l);
    gr_dma_buf_t b;
    assert_int_equal(gr_link_dma_alloc(l, 8192, &b), GR_OK);
    wr(l, GR_REG_IRQ_ENABLE, GPU_REGS__IRQ_STATE__DMA_FENCE_bm);
    submit_fill(&e, b.bus, 8192, 0x600dcafeu, 1);
    wait_fence(&e, 1);
    assert_filled(&b, 8192, 0x600dcafeu);
    wr(l, GR_REG_IRQ_TEST, GPU_REGS__IRQ_STATE__DMA_FENCE_bm);
    bool raised = false;
    assert_int_equal(gr_link_wait_irq(l, 2000000, &raised), GR_OK);
    assert_true(raised);
    wr(l, GR_REG_IRQ_STATE, GPU_REGS__IRQ_STATE__DMA_FENCE_bm);
    wr(l, GR_REG_IRQ_ENABLE, 0);
    /* a completion timeout seen through a load */
    gr_vfio_emu_fault(GR_VFIO_EMU_CPL_TIMEOUT);
    uint32_t v = 0x1234;
    assert_int_equal(gr_link_read32(l, GR_REG_DMA_STATUS, &v), GR_E_TIMEOUT);
    assert_int_equal(v, 0x1234);
    gr_vfio_emu_fault(GR_VFIO_EMU_HEALTHY);
    assert_int_equal(rd(l, GR_REG_ID_MAGIC), GPU_REGS__ID_MAGIC__VALUE_reset);
    assert_int_equal(gr_link_dma_free(l, &b), GR_OK);
    engine_free(&e);
    close_link(l);
    /* a surprise removal seen through loads: all ones, then GR_E_NO_DEVICE */
    l = open_link("irqs=msi,mmap");
    gr_vfio_emu_fault(GR_VFIO_EMU_REMOVED_ALL_ONES);
    v = 0x1234;
    assert_int_equal(gr_link_read32(l, GR_REG_DMA_STATUS, &v), GR_E_NO_DEVICE);
    assert_int_equal(v, 0x1234);
    assert_int_equal(gr_link_ap_read(l, 0, in, 8), GR_E_NO_DEVICE);
    close_link(l);
    gr_vfio_emu_fault(GR_VFIO_EMU_HEALTHY);
}

int main(void)
{
    const char *dir = getenv("GR_VFIO_EMU");
    if (!dir || !*dir) {
        printf("Bail out! test_pcie_vfio needs GR_VFIO_EMU=DIR (the emulation's fixture tree)\n");
        return 2;
    }
    snprintf(g_uri, sizeof g_uri, "pcie://%s?root=%s", GR_VFIO_EMU_BDF, dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(open_resets_the_function_and_reaches_bar0_through_pread, teardown),
        cmocka_unit_test_teardown(a_second_open_of_the_group_is_gr_e_busy, teardown),
        cmocka_unit_test_teardown(dma_reaches_host_memory_only_through_iommu_mappings, teardown),
        cmocka_unit_test_teardown(a_stale_iova_is_an_iommu_fault_not_the_next_buffer, teardown),
        cmocka_unit_test_teardown(msi_msix_and_intx_each_deliver_and_rearm, teardown),
        cmocka_unit_test_teardown(without_a_function_reset_open_stops_the_engine_itself, teardown),
        cmocka_unit_test_teardown(a_completion_timeout_is_gr_e_timeout_not_all_ones, teardown),
        cmocka_unit_test_teardown(a_surprise_removal_reading_all_ones_is_gr_e_no_device, teardown),
        cmocka_unit_test_teardown(a_surprise_removal_with_enodev_and_the_request_irq_is_gr_e_no_device, teardown),
        cmocka_unit_test_teardown(a_reset_while_dma_is_in_flight_is_gr_e_device_reset_and_recovers, teardown),
        cmocka_unit_test_teardown(close_with_dma_in_flight_stops_the_device_before_unmapping, teardown),
        cmocka_unit_test_teardown(mapped_bars_reach_the_card_with_loads_and_stores, teardown),
        cmocka_unit_test_teardown(a_refused_ioctl_is_named_and_leaves_nothing_open, teardown),
    };
    return cmocka_run_group_tests_name("pcie_vfio", tests, NULL, NULL);
}
