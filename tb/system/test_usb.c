/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_usb.c: the usb:// backends on the real libusb-1.0 and libftdi1, against an FT601 and an
 * FT2232H emulated at the usbdevfs ioctl level (sim/usb: umockdev, as libusb tests its
 * own Linux backend). Every URB goes into the chip's model, the PHY RTL and the link engine of
 * fpga_core and into gpu_core; nothing of libusb, the device or the link is mocked.
 *
 * Per chip: the device is identified (gr_device_open reads ID_MAGIC, version, register map),
 * SCRATCH round-trips, an aperture burst with unaligned edges round-trips through VRAM, the DMA
 * engine copies host -> VRAM -> host through buffers the device reaches over the link, the
 * register conformance suite passes, a serial that is not there answers GR_E_NO_DEVICE, a second
 * open of a chip another open holds answers GR_E_BUSY (its interface claim), and an unplugged
 * chip answers GR_E_LINK. The FT2232H's open waits 10 ms between the bit-mode reset
 * and synchronous FIFO mode (AN_130).
 *
 * The FT601 runs in the configuration $GR_FT601_EMU_CONFIG names (the suite runs twice: in 245
 * mode, and as the LimeSDR Mini v2 ships, FT600 mode with two channels and optional features
 * 0x0002; tb/tb.mk). In either: no read request while the chip still held a session
 * open (the chip's session rules, optional features included), no IN transfer that timed out
 * after its data had come (replies of an exact multiple of 1024 bytes, after which the chip
 * sends no zero-length packet), a client that died with a session open leaves nothing for the
 * next open (abort and flush at open and close), and the configuration is never written. On
 * chips of their own: FT600 mode with four channels works, one OUT pipe only (ChannelConfig 3)
 * and notification messages on IN channel 1 are refused with a line naming the bytes.
 *
 * The FT2232H's EEPROM, on chips of their own: synchronous FIFO needs channel A set to
 * "245 FIFO" with a good checksum, so a blank EEPROM, a bad checksum and a UART channel are
 * each refused at open with GR_E_UNSUPPORTED and what to program, a 93C46 image (128 bytes)
 * works, the emulated chip moves no data in mode 0x40 with a blank EEPROM (libftdi alone), and
 * interface=B is a bad URI.
 *
 *   build/usb/test_usb [--seed N] [--gpuctl PATH]   (or GR_TEST_SEED); prints "# seed=N"
 * Per chip, first: the transaction log (?txlog=) of conformance over usb:// has the content of
 * sim://'s (gpuctl tracediff, given as --gpuctl, exits 0).
 *
 * TAP through cmocka (CMOCKA_MESSAGE_OUTPUT=TAP). A chip whose board is not built (sim/sim.mk
 * builds every kind) is a "Bail out!".
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, popen */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <libftdi1/ftdi.h>
#include <libusb-1.0/libusb.h>

#include "gpuref/gr_device.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_regmap.h"
#include "gpuref/gr_regs.h"
#include "gr_conformance.h"
#include "gr_link.h"
#include "gr_usb_emu.h"

#define ID_MAGIC 0x47505552u /* "GPUR" */
#define SERIAL_FT601 "GRSIM601A"
#define SERIAL_FT2232H "GRSIM2232A"
/* Wall-clock limits for a link whose device runs at simulation speed (a few hundred thousand
 * core cycles per second): the engine's defaults suit hardware. */
#define SLOW_LINK "dead_ms=60000&timeout_ms=120000&keepalive_ms=2000&replay_ms=5000"
#define RING_LOG2 4u
#define POLLS 2000u

static uint64_t g_seed = 1;
static const char *g_gpuctl; /* --gpuctl: the tool that diffs transaction logs */
static gr_usb_emu_t *g_emu;

typedef struct chip {
    gr_board_kind_t kind;
    const char *name;   /* "ft601" */
    const char *serial;
    unsigned index;     /* in the emulation */
    bool present;
    char uri[200];
} chip_t;

static chip_t g_chips[] = {
    {GR_BOARD_FT601, "ft601", SERIAL_FT601, 0, false, ""},
    {GR_BOARD_FT2232H, "ft2232h", SERIAL_FT2232H, 0, false, ""},
};

static int setup_ft601(void **state)
{
    *state = &g_chips[0];
    return 0;
}
static int setup_ft2232h(void **state)
{
    *state = &g_chips[1];
    return 0;
}

static gr_device_t *open_uri(const char *uri)
{
    gr_device_t *dev = NULL;
    int rc = gr_device_open(uri, 0, &dev);
    if (rc)
        fail_msg("open %s: %s: %s (seed=%" PRIu64 ")", uri, gr_status_name(rc), gr_device_error(), g_seed);
    return dev;
}

static gr_device_t *open_dev(const chip_t *c)
{
    return open_uri(c->uri);
}

static uint32_t rd(gr_device_t *dev, uint32_t off)
{
    uint32_t v = 0;
    int rc = gr_reg_read(dev, off, &v);
    if (rc)
        fail_msg("read of 0x%03x: %s (seed=%" PRIu64 ")", off, gr_status_name(rc), g_seed);
    return v;
}

static void wr(gr_device_t *dev, uint32_t off, uint32_t v)
{
    int rc = gr_reg_write(dev, off, v);
    if (rc)
        fail_msg("write of 0x%03x: %s (seed=%" PRIu64 ")", off, gr_status_name(rc), g_seed);
}

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* gr_device_open identifies the device: the magic, a register map equal to this host's, and a
 * transport that is the USB link; the chip saw the traffic (read requests on the FT601). */
static void identifies_the_device(void **state)
{
    chip_t *c = *state;
    gr_usb_emu_stats_t before, after;
    assert_int_equal(gr_usb_emu_stats(g_emu, c->index, &before), GR_OK);
    gr_device_t *dev = open_dev(c);
    gr_device_info_t info;
    assert_int_equal(gr_device_info(dev, &info), GR_OK);
    assert_int_equal(info.magic, ID_MAGIC);
    assert_true(info.regmap_matches);
    assert_non_null(strstr(info.transport, c->name));
    gr_device_close(dev);
    assert_int_equal(gr_usb_emu_stats(g_emu, c->index, &after), GR_OK);
    assert_true(after.bytes_out > before.bytes_out);
    assert_true(after.bytes_in > before.bytes_in);
    if (c->kind == GR_BOARD_FT601)
        assert_true(after.read_requests > before.read_requests);
    else
        assert_true(after.bitmode_settle_us >= 10000); /* AN_130: 10 ms from reset to 0x40 */
    print_message("# %s: %s; %" PRIu64 " URBs, %" PRIu64 " bytes out, %" PRIu64 " in, %" PRIu64
                  " core cycles so far\n",
                  c->name, info.transport, after.urbs_reaped, after.bytes_out, after.bytes_in,
                  gr_usb_emu_cycles(g_emu, c->index));
}

/* SCRATCH keeps what was written, through posted writes batched with the next read too. */
static void scratch_round_trips(void **state)
{
    chip_t *c = *state;
    gr_device_t *dev = open_dev(c);
    uint64_t s = g_seed ^ 0x5c5c;
    for (int i = 0; i < 8; i++) {
        const uint32_t v = (uint32_t)rnd(&s);
        wr(dev, GR_REG_SCRATCH, v);
        if (i & 1)
            wr(dev, GR_REG_SCRATCH, ~v); /* two posted writes, the last one wins */
        assert_int_equal(rd(dev, GR_REG_SCRATCH), (i & 1) ? ~v : v);
    }
    gr_device_close(dev);
}

/* BAR1: a 4 KiB burst and a 37-byte write at an odd offset (FBE/LBE) read back exactly from
 * VRAM, and the bytes around the odd write are untouched. */
static void aperture_burst_round_trips(void **state)
{
    chip_t *c = *state;
    gr_device_t *dev = open_dev(c);
    gr_link_t *l = gr_device_link(dev);
    static uint8_t a[4096], b[4096];
    uint64_t s = g_seed ^ 0xa9e;
    for (size_t i = 0; i < sizeof a; i++)
        a[i] = (uint8_t)rnd(&s);
    const uint64_t base = 0x40000;
    assert_int_equal(gr_link_ap_write(l, base, a, sizeof a), GR_OK);
    memset(b, 0, sizeof b);
    assert_int_equal(gr_link_ap_read(l, base, b, sizeof b), GR_OK);
    assert_memory_equal(a, b, sizeof a);

    uint8_t odd[37];
    for (size_t i = 0; i < sizeof odd; i++)
        odd[i] = (uint8_t)(0xe0 + i);
    assert_int_equal(gr_link_ap_write(l, base + 0x103, odd, sizeof odd), GR_OK);
    memcpy(a + 0x103, odd, sizeof odd);
    assert_int_equal(gr_link_ap_read(l, base + 0x100, b, 64), GR_OK);
    assert_memory_equal(a + 0x100, b, 64);
    gr_device_close(dev);
}

/* The DMA engine, programmed by registers: one ring entry in host memory whose command buffer
 * copies 2 KiB host -> VRAM, the same VRAM -> another host buffer, and writes a fence to host
 * memory. Every byte the engine touches in host memory crosses the USB link as the device's
 * DMA_RD/DMA_WR requests, served by the host's protocol engine. */
static void dma_copies_through_host_memory(void **state)
{
    chip_t *c = *state;
    gr_device_t *dev = open_dev(c);
    gr_link_t *l = gr_device_link(dev);
    gr_dma_buf_t ring, cmd, src, dst, fence;
    assert_int_equal(gr_link_dma_alloc(l, 4096, &ring), GR_OK);
    assert_int_equal(gr_link_dma_alloc(l, 4096, &cmd), GR_OK);
    assert_int_equal(gr_link_dma_alloc(l, 4096, &src), GR_OK);
    assert_int_equal(gr_link_dma_alloc(l, 4096, &dst), GR_OK);
    assert_int_equal(gr_link_dma_alloc(l, 4096, &fence), GR_OK);
    uint64_t s = g_seed ^ 0xd3a;
    uint8_t *sp = src.cpu;
    for (size_t i = 0; i < 2048; i++)
        sp[i] = (uint8_t)rnd(&s);
    memset(dst.cpu, 0xee, 4096);

    const uint64_t vram = 0x00300000;
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, cmd.cpu, 4096);
    assert_int_equal(gr_dma_copy(&w, GR_DMA_SPACE_HOST, src.bus, GR_DMA_SPACE_VRAM, vram, 2048), 0);
    assert_int_equal(gr_dma_copy(&w, GR_DMA_SPACE_VRAM, vram, GR_DMA_SPACE_HOST, dst.bus + 8, 2048), 0);
    assert_int_equal(gr_dma_fence(&w, GR_DMA_SPACE_HOST, fence.bus + 64, 0x600df00dull, 0), 0);
    gr_dma_ring_entry(ring.cpu, cmd.bus, (uint32_t)w.used, 1, 0, 0, 0);
    gr_dma_ring_entry_set_priv(ring.cpu); /* the kernel's own packet: host and VRAM physical */

    wr(dev, GR_REG_DMA_RING_BASE_LO, (uint32_t)ring.bus);
    wr(dev, GR_REG_DMA_RING_BASE_HI, (uint32_t)(ring.bus >> 32));
    wr(dev, GR_REG_DMA_RING_SIZE, RING_LOG2);
    wr(dev, GR_REG_DMA_FENCE_ADDR_LO, (uint32_t)fence.bus);
    wr(dev, GR_REG_DMA_FENCE_ADDR_HI, (uint32_t)(fence.bus >> 32));
    wr(dev, GR_REG_DMA_CTRL, GPU_REGS__DMA_CTRL__ENABLE_bm);
    wr(dev, GR_REG_DMA_RING_TAIL, 1);
    uint32_t st = 0;
    unsigned n = 0;
    for (; n < POLLS; n++) {
        st = rd(dev, GR_REG_DMA_STATUS);
        if (st & (GPU_REGS__DMA_STATUS__HUNG_bm | GPU_REGS__DMA_STATUS__FAULTED_bm))
            break;
        if ((st & GPU_REGS__DMA_STATUS__IDLE_bm) && rd(dev, GR_REG_DMA_RING_HEAD) == 1)
            break;
    }
    assert_int_equal(st & (GPU_REGS__DMA_STATUS__HUNG_bm | GPU_REGS__DMA_STATUS__FAULTED_bm), 0);
    assert_true(n < POLLS);
    const uint8_t *dp = dst.cpu;
    assert_memory_equal(dp + 8, sp, 2048);
    assert_int_equal(dp[7], 0xee); /* nothing before or after */
    assert_int_equal(dp[8 + 2048], 0xee);
    assert_int_equal(gr_dma_get64((const uint8_t *)fence.cpu + 64), 0x600df00dull);
    print_message("# %s: DMA done after %u status polls\n", c->name, n);
    gr_dma_buf_t *bufs[] = {&ring, &cmd, &src, &dst, &fence};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(gr_link_dma_free(l, bufs[i]), GR_OK);
    gr_device_close(dev);
}

static void conf_emit(void *user, bool ok, const char *reg, const char *check, const char *detail)
{
    (void)user;
    if (!ok)
        print_message("# conformance: FAILED %s %s: %s\n", reg, check, detail ? detail : "");
}

/* The register conformance suite, the same one sim:// and boards run, over this link. */
static void register_conformance_passes(void **state)
{
    chip_t *c = *state;
    /* Writes not posted: the suite checks that a write to a hole answers a bus error itself. */
    char uri[sizeof c->uri + 16];
    snprintf(uri, sizeof uri, "%s&posted=0", c->uri);
    gr_device_t *dev = open_uri(uri);
    gr_conf_result_t r;
    memset(&r, 0, sizeof r);
    assert_int_equal(gr_conformance_run(dev, conf_emit, NULL, &r), GR_OK);
    gr_usb_emu_stats_t st;
    assert_int_equal(gr_usb_emu_stats(g_emu, c->index, &st), GR_OK);
    print_message("# %s: conformance %u passed, %u failed over %u registers (%" PRIu64 " URBs, %" PRIu64
                  " core cycles so far)\n",
                  c->name, r.passed, r.failed, r.registers, st.urbs_reaped, gr_usb_emu_cycles(g_emu, c->index));
    if (r.failed) {
        char what[512];
        gr_link_describe(gr_device_link(dev), what, sizeof what);
        print_message("# %s: the link after the suite: %s (seed=%" PRIu64 ")\n", c->name, what, g_seed);
    }
    assert_int_equal(r.failed, 0);
    assert_true(r.passed > 0);
    gr_device_close(dev);
}

/* Conformance on dev, every check passing; r gets the counts. */
static void conformance_on(const char *uri, gr_conf_result_t *r)
{
    gr_device_t *dev = open_uri(uri);
    memset(r, 0, sizeof *r);
    assert_int_equal(gr_conformance_run(dev, conf_emit, NULL, r), GR_OK);
    gr_device_close(dev);
    assert_int_equal(r->failed, 0);
    assert_true(r->passed > 0);
}

/*
 * The host-side transaction log over usb:// (?txlog=, docs/txlog.md) has the content of
 * sim://'s: conformance on sim:// as a board looks to the driver (VRAM not fresh) and on the
 * chip, each with txlog=, and gpuctl tracediff of the two exits 0 (it names the first divergence
 * otherwise, printed here). The chip's registers are as conformance leaves them after this test
 * (it runs first on each chip, before any other client: a board keeps its registers).
 */
static void txlog_is_the_same_as_sims(void **state)
{
    chip_t *c = *state;
    if (!g_gpuctl)
        fail_msg("no gpuctl to diff the logs with: %s --gpuctl PATH (tb/tb.mk passes it)", "test_usb");
    char dir[] = "/tmp/gr-usb-txlog.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char ref[64], board[64], uri[sizeof c->uri + 128];
    snprintf(ref, sizeof ref, "%s/sim.log", dir);
    snprintf(board, sizeof board, "%s/%s.log", dir, c->name);
    gr_conf_result_t r;
    snprintf(uri, sizeof uri, "sim://?seed=%" PRIu64 "&freshvram=0&txlog=%s", g_seed, ref);
    conformance_on(uri, &r);
    snprintf(uri, sizeof uri, "%s&txlog=%s", c->uri, board);
    conformance_on(uri, &r);
    /* The log names its link. */
    FILE *f = fopen(board, "r");
    assert_non_null(f);
    char line[256] = "", second[256] = "";
    if (fgets(line, sizeof line, f))
        (void)fgets(second, sizeof second, f);
    fclose(f);
    print_message("# %s: the log's link: %s", c->name, second + 2);
    assert_true(strncmp(line, "# gpuref txlog v1 scheme=usb", 28) == 0);
    assert_true(strncmp(second, "# usb://", 8) == 0);
    /* gpuctl reads the logs only; umockdev's preload stays out of it. */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "env -u LD_PRELOAD '%s' tracediff '%s' '%s' 2>&1", g_gpuctl, ref, board);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    while (fgets(line, sizeof line, p))
        print_message("#   %s", line);
    int st = pclose(p);
    unlink(ref);
    unlink(board);
    rmdir(dir);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* A serial no chip has: GR_E_NO_DEVICE, and the message says what was looked for. */
static void missing_serial_is_no_device(void **state)
{
    chip_t *c = *state;
    char uri[128];
    snprintf(uri, sizeof uri, "usb://%s?serial=NOSUCHCHIP", c->name);
    gr_device_t *dev = NULL;
    assert_int_equal(gr_device_open(uri, 0, &dev), GR_E_NO_DEVICE);
    assert_null(dev);
    const char *msg = gr_device_error();
    assert_non_null(strstr(msg, "NOSUCHCHIP"));
    assert_non_null(strstr(msg, c->kind == GR_BOARD_FT601 ? "0403:601f" : "0403:6010"));
}

/* Bad URIs are refused before any USB access. */
static void bad_uri_is_refused(void **state)
{
    (void)state;
    gr_link_t *l = NULL;
    assert_int_equal(gr_link_open("usb://ft9000", &l), GR_E_BAD_URI);
    assert_int_equal(gr_link_open("usb://ft601?interface=A", &l), GR_E_BAD_URI);
    assert_int_equal(gr_link_open("usb://ft2232h?interface=C", &l), GR_E_BAD_URI);
    assert_int_equal(gr_link_open("usb://ft2232h?interface=B", &l), GR_E_BAD_URI);
    assert_non_null(strstr(gr_link_error(), "channel A only"));
    assert_int_equal(gr_link_open("usb://ft601?bogus=1", &l), GR_E_BAD_URI);
    assert_null(l);
}

/* One driver stack per device (bridge/README.md): an open of the chip claims its interfaces
 * (usbdevfs, emulated), so a second open of the same chip, while the first holds it, gets
 * GR_E_BUSY naming the claim, neither a hang nor a shared chip, and the first goes on; after
 * its close the chip opens again. */
static void a_second_open_is_busy(void **state)
{
    chip_t *c = *state;
    gr_usb_emu_stats_t s0, s1;
    assert_int_equal(gr_usb_emu_stats(g_emu, c->index, &s0), GR_OK);
    gr_device_t *a = open_dev(c);
    wr(a, GR_REG_SCRATCH, 0x0c1a1e0du);
    gr_device_t *b = NULL;
    int rc = gr_device_open(c->uri, 0, &b);
    if (rc != GR_E_BUSY)
        fail_msg("a second open of the %s: %s (%s), not GR_E_BUSY", c->name, gr_status_name(rc), gr_device_error());
    assert_null(b);
    if (!strstr(gr_device_error(), "claim"))
        fail_msg("the refusal does not name the claim: %s", gr_device_error());
    print_message("# %s: a second open: %s\n", c->name, gr_device_error());
    assert_int_equal(rd(a, GR_REG_SCRATCH), 0x0c1a1e0du);
    gr_device_close(a);
    assert_int_equal(gr_usb_emu_stats(g_emu, c->index, &s1), GR_OK);
    assert_true(s1.claims_refused > s0.claims_refused);
    b = open_dev(c);
    assert_int_equal(rd(b, GR_REG_SCRATCH), 0x0c1a1e0du);
    gr_device_close(b);
}

/* The chip goes away while open: the next call answers GR_E_LINK. Runs last on its chip. */
static void unplugged_chip_is_link_error(void **state)
{
    chip_t *c = *state;
    gr_device_t *dev = open_dev(c);
    assert_int_equal(rd(dev, GR_REG_ID_MAGIC), ID_MAGIC);
    assert_int_equal(gr_usb_emu_unplug(g_emu, c->index), GR_OK);
    uint32_t v = 0;
    int rc = gr_reg_read(dev, GR_REG_SCRATCH, &v);
    assert_int_equal(rc, GR_E_LINK);
    gr_device_close(dev);
    c->present = false;
}

/* ---- the FT601's configuration and sessions ------------------------------------------------- */

/* BAR1 reads whose AP_RD_RSP frames (24 + 4k bytes for k words) are exactly 1024 or 2048 bytes
 * and around it: the chip sends whole packets and nothing after them. No IN transfer may be
 * left open holding whole packets (asking for 16 KiB, a read waited for more or its timeout). */
static void ft601_exact_packet_replies_do_not_wait(void **state)
{
    chip_t *c = *state;
    gr_device_t *dev = open_dev(c);
    gr_link_t *l = gr_device_link(dev);
    static uint8_t a[2048], b[2048];
    uint64_t s = g_seed ^ 0x1024;
    for (size_t i = 0; i < sizeof a; i++)
        a[i] = (uint8_t)rnd(&s);
    const uint64_t base = 0x50000;
    assert_int_equal(gr_link_ap_write(l, base, a, sizeof a), GR_OK);
    gr_usb_emu_stats_t before, after;
    assert_int_equal(gr_usb_emu_stats(g_emu, c->index, &before), GR_OK);
    const size_t sizes[] = {1000, 1000, 996, 1004, 2024, 1000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        memset(b, 0, sizeof b);
        assert_int_equal(gr_link_ap_read(l, base, b, sizes[i]), GR_OK);
        assert_memory_equal(a, b, sizes[i]);
    }
    assert_int_equal(gr_usb_emu_stats(g_emu, c->index, &after), GR_OK);
    print_message("# %s: %" PRIu64 " IN transfers held open after whole packets, %" PRIu64
                  " timed out holding data\n", c->name,
                  after.in_held_after_full_packet - before.in_held_after_full_packet,
                  after.in_discarded_with_data - before.in_discarded_with_data);
    assert_int_equal(after.in_held_after_full_packet, before.in_held_after_full_packet);
    assert_int_equal(after.in_discarded_with_data, before.in_discarded_with_data);
    gr_device_close(dev);
}

/* A client that died with a read session open (a raw libusb client that asks for 64 KiB on
 * EP 0x82 and goes away): the next open aborts and flushes channel 1's pipes before its own
 * first request, so no request ever lands on an open session; close does it again. */
static void ft601_dead_clients_session_is_aborted_at_open(void **state)
{
    chip_t *c = *state;
    libusb_context *ctx = NULL;
    assert_int_equal(libusb_init(&ctx), 0);
    libusb_device_handle *h = NULL;
    libusb_device **list = NULL;
    const ssize_t count = libusb_get_device_list(ctx, &list);
    for (ssize_t i = 0; i < count && !h; i++) {
        struct libusb_device_descriptor dd;
        unsigned char serial[64] = "";
        if (libusb_get_device_descriptor(list[i], &dd) || dd.idProduct != GR_USB_FT601_PID ||
            libusb_open(list[i], &h))
            continue;
        if (libusb_get_string_descriptor_ascii(h, dd.iSerialNumber, serial, sizeof serial) < 0 ||
            strcmp((const char *)serial, c->serial)) {
            libusb_close(h);
            h = NULL;
        }
    }
    libusb_free_device_list(list, 1);
    assert_non_null(h);
    assert_int_equal(libusb_claim_interface(h, 0), 0);
    uint8_t cmd[20] = {0x77, 0, 0, 0, 0x82, 1, 0, 0, 0, 0, 1, 0}; /* read 64 KiB on 0x82 */
    int n = 0;
    assert_int_equal(libusb_bulk_transfer(h, 0x01, cmd, sizeof cmd, &n, 1000), 0);
    libusb_close(h); /* gone without a word: the chip keeps the session */
    libusb_exit(ctx);

    gr_usb_emu_stats_t s0, s1, s2;
    assert_int_equal(gr_usb_emu_stats(g_emu, c->index, &s0), GR_OK);
    gr_device_t *dev = open_dev(c);
    wr(dev, GR_REG_SCRATCH, 0xdeadc11e);
    assert_int_equal(rd(dev, GR_REG_SCRATCH), 0xdeadc11e);
    assert_int_equal(gr_usb_emu_stats(g_emu, c->index, &s1), GR_OK);
    assert_int_equal(s1.overlapped_requests, s0.overlapped_requests);
    assert_true(s1.in_aborts > s0.in_aborts && s1.in_flushes > s0.in_flushes);
    assert_true(s1.out_aborts > s0.out_aborts && s1.out_flushes > s0.out_flushes);
    gr_device_close(dev);
    assert_int_equal(gr_usb_emu_stats(g_emu, c->index, &s2), GR_OK);
    assert_true(s2.in_aborts > s1.in_aborts && s2.in_flushes > s1.in_flushes);
}

/* Over everything the chip served so far: never a read request on a session the chip still
 * held open (in FT600 mode with optional features 0x0002 a short packet does not end one), and
 * never a write of its configuration. */
static void ft601_sessions_follow_the_chip_and_its_configuration_stays(void **state)
{
    chip_t *c = *state;
    gr_usb_emu_stats_t st;
    assert_int_equal(gr_usb_emu_stats(g_emu, c->index, &st), GR_OK);
    print_message("# %s: %" PRIu64 " read requests, %" PRIu64 " on an open session, %" PRIu64
                  " configuration writes\n", c->name, st.read_requests, st.overlapped_requests, st.config_writes);
    assert_true(st.read_requests > 0);
    assert_int_equal(st.overlapped_requests, 0);
    assert_int_equal(st.config_writes, 0);
}

/* FT601s of other configurations, each on its own bus. */
enum { CF_FOUR, CF_OUT_ONLY, CF_NOTIFY, CF_COUNT };
static const char *const cf_serials[CF_COUNT] = {"GRCF4CH", "GRCFOUT", "GRCFNOTE"};
static unsigned cf_index[CF_COUNT];

static void cf_image(unsigned k, uint8_t *c)
{
    memset(c, 0, 152);
    c[0] = 0x03, c[1] = 0x04, c[2] = 0x1f, c[3] = 0x60;
    c[133] = 0xe0, c[134] = 0x60;
    c[138] = 1; /* FT600 mode */
    c[139] = k == CF_FOUR ? 0 : k == CF_OUT_ONLY ? 3 : 1;
    c[140] = k == CF_NOTIFY ? 0x06 : 0x02;
}

/* FT600 mode with four channels: channel 1 is still EP 0x02/0x82, and the device answers. */
static void ft601_four_channels_work(void **state)
{
    (void)state;
    char uri[200];
    snprintf(uri, sizeof uri, "usb://ft601?serial=%s&%s", cf_serials[CF_FOUR], SLOW_LINK);
    gr_device_t *dev = open_uri(uri);
    wr(dev, GR_REG_SCRATCH, 0x4c4a4e4c);
    assert_int_equal(rd(dev, GR_REG_SCRATCH), 0x4c4a4e4c);
    gr_device_close(dev);
}

static void cf_refused(unsigned k, const char *bytes)
{
    char uri[200];
    snprintf(uri, sizeof uri, "usb://ft601?serial=%s&%s", cf_serials[k], SLOW_LINK);
    gr_device_t *dev = NULL;
    assert_int_equal(gr_device_open(uri, 0, &dev), GR_E_UNSUPPORTED);
    assert_null(dev);
    const char *msg = gr_device_error();
    print_message("# %s: %s\n", cf_serials[k], msg);
    assert_non_null(strstr(msg, bytes));
    assert_null(strchr(msg, '\n'));
    gr_usb_emu_stats_t st;
    assert_int_equal(gr_usb_emu_stats(g_emu, cf_index[k], &st), GR_OK);
    assert_int_equal(st.bytes_out, 0);
    assert_int_equal(st.config_writes, 0);
}

static void ft601_out_pipe_only_is_refused(void **state)
{
    (void)state;
    cf_refused(CF_OUT_ONLY, "ChannelConfig (configuration byte 139) is 3");
}

static void ft601_notifications_on_channel_1_are_refused(void **state)
{
    (void)state;
    cf_refused(CF_NOTIFY, "bytes 140-141) is 0x0006");
}

/* ---- the FT2232H's EEPROM ------------------------------------------------------------------ */

/* FT2232H chips with EEPROMs of their own, each on its own emulated bus. */
enum { EE_BLANK, EE_BAD_SUM, EE_UART, EE_93C46, EE_COUNT };
static const char *const ee_serials[EE_COUNT] = {"GREEBLANK", "GREESUM", "GREEUART", "GREE93C46"};
static unsigned ee_index[EE_COUNT];

/* FTDI's EEPROM checksum over the first bytes - 2, stored in the last word. */
static void ee_seal(uint8_t *img, size_t bytes)
{
    uint16_t sum = 0xaaaa;
    for (size_t i = 0; i + 2 < bytes; i += 2) {
        sum ^= (uint16_t)(img[i] | img[i + 1] << 8);
        sum = (uint16_t)(sum << 1 | sum >> 15);
    }
    img[bytes - 2] = (uint8_t)sum;
    img[bytes - 1] = (uint8_t)(sum >> 8);
}

/* An image as FT_Prog writes it: channel A's type in byte 0x00 bits 2:0, the IDs, a part size. */
static void ee_image(uint8_t *img, size_t bytes, uint8_t channel_a)
{
    memset(img, 0, bytes);
    img[0x00] = channel_a;
    img[0x02] = 0x03, img[0x03] = 0x04, img[0x04] = 0x10, img[0x05] = 0x60;
    img[0x07] = 0x07;
    img[0x08] = 0x80, img[0x09] = 50, img[0x0a] = 0x08;
    img[0x18] = bytes == 128 ? 0x46 : 0x56;
    ee_seal(img, bytes);
}

static int ee_add(unsigned k, const gr_board_config_t *cfg)
{
    uint8_t img[256];
    size_t bytes = sizeof img;
    switch (k) {
    case EE_BLANK: memset(img, 0xff, sizeof img); break;
    case EE_BAD_SUM: ee_image(img, bytes, 0x01); img[0x09] ^= 0x10; break; /* a flipped bit */
    case EE_UART: ee_image(img, bytes, 0x00); break;
    default: bytes = 128; ee_image(img, bytes, 0x01); break;
    }
    int rc = gr_usb_emu_add(g_emu, cfg, ee_serials[k], &ee_index[k]);
    return rc ? rc : gr_usb_emu_set_eeprom(g_emu, ee_index[k], img, bytes);
}

/* Open on a chip whose EEPROM does not allow synchronous FIFO: GR_E_UNSUPPORTED, and the
 * message names the cause and what to program. */
static void ee_refused(unsigned k, const char *cause)
{
    char uri[200];
    snprintf(uri, sizeof uri, "usb://ft2232h?serial=%s&%s", ee_serials[k], SLOW_LINK);
    gr_device_t *dev = NULL;
    assert_int_equal(gr_device_open(uri, 0, &dev), GR_E_UNSUPPORTED);
    assert_null(dev);
    const char *msg = gr_device_error();
    print_message("# %s: %s\n", ee_serials[k], msg);
    assert_non_null(strstr(msg, cause));
    assert_non_null(strstr(msg, "245 FIFO"));
    gr_usb_emu_stats_t st;
    assert_int_equal(gr_usb_emu_stats(g_emu, ee_index[k], &st), GR_OK);
    assert_int_equal(st.bytes_out, 0); /* refused before a byte of the protocol */
}

static void ft2232h_blank_eeprom_is_refused(void **state)
{
    (void)state;
    ee_refused(EE_BLANK, "EEPROM is blank");
}

static void ft2232h_eeprom_checksum_is_checked(void **state)
{
    (void)state;
    ee_refused(EE_BAD_SUM, "checksum is wrong");
}

static void ft2232h_uart_channel_is_refused(void **state)
{
    (void)state;
    ee_refused(EE_UART, "channel A is UART in the chip's EEPROM (byte 0x00 = 0x00)");
}

/* A 93C46 (64 words, its checksum at word 63) that sets 245 FIFO: the device answers. */
static void ft2232h_93c46_eeprom_works(void **state)
{
    (void)state;
    char uri[200];
    snprintf(uri, sizeof uri, "usb://ft2232h?serial=%s&%s", ee_serials[EE_93C46], SLOW_LINK);
    gr_device_t *dev = open_uri(uri);
    wr(dev, GR_REG_SCRATCH, 0x4643c46u);
    assert_int_equal(rd(dev, GR_REG_SCRATCH), 0x4643c46u);
    gr_device_close(dev);
}

/* The emulated chip as the silicon: with a blank EEPROM, bit mode 0x40 is taken but channel A
 * stays a UART, so bytes written reach no FIFO (libftdi alone, no gpuref code). */
static void ft2232h_blank_eeprom_moves_no_fifo_data(void **state)
{
    (void)state;
    struct ftdi_context *f = ftdi_new();
    assert_non_null(f);
    assert_int_equal(ftdi_set_interface(f, INTERFACE_A), 0);
    assert_int_equal(ftdi_usb_open_desc(f, 0x0403, 0x6010, NULL, ee_serials[EE_BLANK]), 0);
    assert_int_equal(ftdi_set_bitmode(f, 0xff, BITMODE_RESET), 0);
    assert_int_equal(ftdi_set_bitmode(f, 0xff, BITMODE_SYNCFF), 0);
    unsigned char bytes[64];
    memset(bytes, 0x5a, sizeof bytes);
    assert_int_equal(ftdi_write_data(f, bytes, (int)sizeof bytes), (int)sizeof bytes);
    gr_usb_emu_stats_t st;
    assert_int_equal(gr_usb_emu_stats(g_emu, ee_index[EE_BLANK], &st), GR_OK);
    assert_int_equal(st.bytes_out, 0);
    ftdi_usb_close(f);
    ftdi_free(f);
}

int main(int argc, char **argv)
{
    const char *env = getenv("GR_TEST_SEED");
    if (env && *env)
        g_seed = strtoull(env, NULL, 0);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            g_seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--gpuctl") == 0 && i + 1 < argc)
            g_gpuctl = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--seed N] [--gpuctl PATH]\n", argv[0]);
            return 2;
        }
    }
    if (!g_seed)
        g_seed = 1;
    printf("# seed=%" PRIu64 "\n", g_seed);
    int rc = gr_usb_emu_create(&g_emu);
    if (rc) {
        printf("Bail out! umockdev's preload library is not in this process (%s)\n", gr_status_name(rc));
        return 1;
    }
    struct CMUnitTest tests[48];
    size_t n = 0;
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(bad_uri_is_refused);
    for (size_t k = 0; k < sizeof g_chips / sizeof g_chips[0]; k++) {
        chip_t *c = &g_chips[k];
        if (!gr_board_kind_built(c->kind)) {
            printf("Bail out! %s: board not built into this library (sim/sim.mk builds every kind)\n", c->name);
            return 1;
        }
        gr_board_config_t cfg = {.kind = c->kind, .seed = g_seed};
        rc = gr_usb_emu_add(g_emu, &cfg, c->serial, &c->index);
        if (rc) {
            printf("Bail out! cannot add the %s to the emulated bus: %s\n", c->name, gr_status_name(rc));
            return 1;
        }
        c->present = true;
        snprintf(c->uri, sizeof c->uri, "usb://%s?serial=%s&%s", c->name, c->serial, SLOW_LINK);
        CMFixtureFunction su = c->kind == GR_BOARD_FT601 ? setup_ft601 : setup_ft2232h;
        static char names[2][14][80];
        const struct {
            const char *name;
            CMUnitTestFunction fn;
        } list[] = {
            {"txlog_is_the_same_as_sims", txlog_is_the_same_as_sims},
            {"identifies_the_device", identifies_the_device},
            {"scratch_round_trips", scratch_round_trips},
            {"aperture_burst_round_trips", aperture_burst_round_trips},
            {"dma_copies_through_host_memory", dma_copies_through_host_memory},
            {"register_conformance_passes", register_conformance_passes},
            {"missing_serial_is_no_device", missing_serial_is_no_device},
            {"exact_packet_replies_do_not_wait", ft601_exact_packet_replies_do_not_wait},
            {"dead_clients_session_is_aborted_at_open", ft601_dead_clients_session_is_aborted_at_open},
            {"sessions_follow_the_chip_and_its_configuration_stays",
             ft601_sessions_follow_the_chip_and_its_configuration_stays},
            {"a_second_open_is_busy", a_second_open_is_busy},
            {"unplugged_chip_is_link_error", unplugged_chip_is_link_error},
        };
        for (size_t t = 0; t < sizeof list / sizeof list[0]; t++) {
            if (c->kind != GR_BOARD_FT601 && (list[t].fn == ft601_exact_packet_replies_do_not_wait ||
                                              list[t].fn == ft601_dead_clients_session_is_aborted_at_open ||
                                              list[t].fn == ft601_sessions_follow_the_chip_and_its_configuration_stays))
                continue;
            snprintf(names[k][t], sizeof names[k][t], "%s_%s", c->name, list[t].name);
            tests[n++] = (struct CMUnitTest){names[k][t], list[t].fn, su, NULL, NULL};
        }
    }
    gr_board_config_t cf_cfg = {.kind = GR_BOARD_FT601, .seed = g_seed};
    for (unsigned k = 0; k < CF_COUNT; k++) {
        uint8_t img[152];
        cf_image(k, img);
        rc = gr_usb_emu_add_ft601(g_emu, &cf_cfg, cf_serials[k], img, &cf_index[k]);
        if (rc) {
            printf("Bail out! cannot add FT601 %s to the emulated bus: %s\n", cf_serials[k], gr_status_name(rc));
            return 1;
        }
    }
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(ft601_four_channels_work);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(ft601_out_pipe_only_is_refused);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(ft601_notifications_on_channel_1_are_refused);
    gr_board_config_t ee_cfg = {.kind = GR_BOARD_FT2232H, .seed = g_seed};
    for (unsigned k = 0; k < EE_COUNT; k++) {
        rc = ee_add(k, &ee_cfg);
        if (rc) {
            printf("Bail out! cannot add FT2232H %s to the emulated bus: %s\n", ee_serials[k], gr_status_name(rc));
            return 1;
        }
    }
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(ft2232h_blank_eeprom_is_refused);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(ft2232h_eeprom_checksum_is_checked);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(ft2232h_uart_channel_is_refused);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(ft2232h_93c46_eeprom_works);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(ft2232h_blank_eeprom_moves_no_fifo_data);
    rc = _cmocka_run_group_tests("usb", tests, n, NULL, NULL);
    gr_usb_emu_destroy(g_emu);
    return rc;
}
