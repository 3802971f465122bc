/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_device: the gr_device API over sim://: header check, register access, bus errors, soft
 * reset and interrupts, on the real RTL. Usage: test_device [--seed N] (default $GR_TEST_SEED, else 1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuref/gr_device.h"
#include "gpuref/gr_regdesc.h"
#include "gr_link.h"

static unsigned long long seed = 1;
static char uri[128];

static int open_dev(void **state)
{
    gr_device_t *dev = NULL;
    int rc = gr_device_open(uri, 0, &dev);
    if (rc) {
        print_error("open %s: %s\n", uri, gr_device_error());
        return -1;
    }
    *state = dev;
    return 0;
}

static int close_dev(void **state)
{
    gr_device_close(*state);
    return 0;
}

static void header_identifies_this_build(void **state)
{
    gr_device_info_t info;
    assert_int_equal(gr_device_info(*state, &info), GR_OK);
    assert_int_equal(info.magic, 0x47505552u);
    assert_int_equal(info.version_major, 0);
    assert_int_equal(info.version_minor, 2);
    assert_int_equal(info.version_patch, 0);
    assert_int_equal(info.regmap_hash, GR_REGMAP_HASH);
    assert_true(info.regmap_matches);
    assert_int_equal(info.board, 0);
    /* The stamp the build verilated gpu_core with (sim/sim.mk, GR_BUILD_STAMP);
     * tb/tb.mk passes it. Run by hand without it, the stamp is shown, not compared. */
    const char *want = getenv("GR_EXPECT_BUILD_STAMP");
    if (want && *want)
        assert_int_equal(info.build_stamp, strtoul(want, NULL, 0));
    else
        printf("# ID_BUILD.STAMP 0x%06x (GR_EXPECT_BUILD_STAMP unset: not compared)\n", info.build_stamp);
    assert_int_equal(info.caps, GPU_REGS__ID_CAPS__MC_bm | GPU_REGS__ID_CAPS__DMA_bm); /* MC and DMA */
    assert_non_null(strstr(info.transport, "sim"));
}

static void scratch_round_trips_random_values(void **state)
{
    uint32_t x = (uint32_t)seed * 2654435761u + 1u;
    for (int i = 0; i < 32; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        uint32_t v = 0;
        assert_int_equal(gr_reg_write(*state, GR_REG_SCRATCH, x), GR_OK);
        assert_int_equal(gr_reg_read(*state, GR_REG_SCRATCH, &v), GR_OK);
        assert_int_equal(v, x);
    }
}

static void holes_answer_bus_errors_and_change_nothing(void **state)
{
    uint32_t v = 0xabcdef01u;
    assert_int_equal(gr_reg_write(*state, GR_REG_SCRATCH, 0x600d600du), GR_OK);
    assert_int_equal(gr_reg_read(*state, 0x100, &v), GR_E_BUS);
    assert_int_equal(v, 0xabcdef01u); /* untouched on failure */
    assert_int_equal(gr_reg_write(*state, 0x100, 0xffffffffu), GR_E_BUS);
    assert_int_equal(gr_reg_write(*state, 0x018, 0xffffffffu), GR_E_BUS);
    assert_int_equal(gr_reg_read(*state, GR_REG_SCRATCH, &v), GR_OK);
    assert_int_equal(v, 0x600d600du);
}

static void read_only_registers_ignore_writes(void **state)
{
    uint32_t v = 0;
    assert_int_equal(gr_reg_write(*state, GR_REG_ID_MAGIC, 0), GR_OK);
    assert_int_equal(gr_reg_read(*state, GR_REG_ID_MAGIC, &v), GR_OK);
    assert_int_equal(v, 0x47505552u);
    assert_int_equal(gr_reg_write(*state, GR_REG_ID_REGMAP, ~GR_REGMAP_HASH), GR_OK);
    assert_int_equal(gr_reg_read(*state, GR_REG_ID_REGMAP, &v), GR_OK);
    assert_int_equal(v, GR_REGMAP_HASH);
}

static void soft_reset_restores_registers_and_reports_done(void **state)
{
    uint32_t v = 0;
    assert_int_equal(gr_reg_write(*state, GR_REG_SCRATCH, 0x12345678u), GR_OK);
    assert_int_equal(gr_reg_write(*state, GR_REG_IRQ_ENABLE, 1), GR_OK);
    assert_int_equal(gr_device_soft_reset(*state, 100), GR_OK);
    assert_int_equal(gr_reg_read(*state, GR_REG_SCRATCH, &v), GR_OK);
    assert_int_equal(v, 0);
    assert_int_equal(gr_reg_read(*state, GR_REG_IRQ_ENABLE, &v), GR_OK);
    assert_int_equal(v, 0);
    assert_int_equal(gr_reg_read(*state, GR_REG_IRQ_STATE, &v), GR_OK);
    assert_int_equal(v, 0); /* RESET_DONE was set, then cleared by gr_device_soft_reset */
}

static void test_interrupt_follows_enable_and_w1c(void **state)
{
    bool line = true;
    uint32_t v = 0;
    assert_int_equal(gr_reg_write(*state, GR_REG_IRQ_TEST, 1), GR_OK);
    assert_int_equal(gr_reg_read(*state, GR_REG_IRQ_STATE, &v), GR_OK);
    assert_int_equal(v, 1);
    assert_int_equal(gr_device_wait_irq(*state, 5, &line), GR_OK);
    assert_false(line);
    assert_int_equal(gr_reg_write(*state, GR_REG_IRQ_ENABLE, 1), GR_OK);
    assert_int_equal(gr_device_wait_irq(*state, 5, &line), GR_OK);
    assert_true(line);
    assert_int_equal(gr_reg_write(*state, GR_REG_IRQ_STATE, 1), GR_OK);
    assert_int_equal(gr_device_wait_irq(*state, 0, &line), GR_OK);
    assert_false(line);
    assert_int_equal(gr_reg_write(*state, GR_REG_IRQ_ENABLE, 0), GR_OK);
}

static void fill_pattern(uint8_t *buf, size_t n, uint32_t salt)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)((i * 131u + salt) >> 3);
}

static void aperture_round_trips_through_a_movable_window(void **state)
{
    gr_link_t *link = gr_device_link(*state);
    uint8_t out[5000], in[5000];
    uint32_t v = 0;
    assert_int_equal(gr_reg_read(*state, GR_REG_MC_AP_SIZE, &v), GR_OK);
    assert_int_equal(v, 256u << 20);
    fill_pattern(out, sizeof out, (uint32_t)seed);
    /* Unaligned start and length: the strobes trim the first and last beats. */
    assert_int_equal(gr_link_ap_write(link, 0x1003, out, sizeof out), GR_OK);
    assert_int_equal(gr_link_ap_read(link, 0x1003, in, sizeof in), GR_OK);
    assert_memory_equal(in, out, sizeof out);
    /* Move the window up by 1 MiB: the same bytes now appear 1 MiB lower in BAR1. */
    assert_int_equal(gr_link_ap_write(link, 0x100000, out, 64), GR_OK);
    assert_int_equal(gr_reg_write(*state, GR_REG_MC_AP_BASE, 0x100000), GR_OK);
    memset(in, 0, sizeof in);
    assert_int_equal(gr_link_ap_read(link, 0, in, 64), GR_OK);
    assert_memory_equal(in, out, 64);
    assert_int_equal(gr_link_ap_read(link, 256u << 20, in, 4), GR_E_RANGE);
}

static void vpr_refuses_the_aperture_and_logs_a_fault(void **state)
{
    gr_link_t *link = gr_device_link(*state);
    uint8_t out[256], in[256], zero[256] = {0};
    uint32_t v = 0;
    fill_pattern(out, sizeof out, 7u);
    assert_int_equal(gr_link_ap_write(link, 0x42000, out, sizeof out), GR_OK);
    assert_int_equal(gr_reg_write(*state, GR_REG_VPR_BASE, 0x42000), GR_OK);
    assert_int_equal(gr_reg_write(*state, GR_REG_VPR_LIMIT, 0x44000), GR_OK);
    assert_int_equal(gr_reg_write(*state, GR_REG_VPR_CTRL, GR_FIELD_SET(VPR_CTRL, ENABLE, 1)), GR_OK);
    assert_int_equal(gr_reg_write(*state, GR_REG_IRQ_STATE, 0xffffffffu), GR_OK);
    /* Reads inside the VPR return zeros, writes are dropped, nothing errors on the bus. */
    assert_int_equal(gr_link_ap_read(link, 0x42000, in, sizeof in), GR_OK);
    assert_memory_equal(in, zero, sizeof in);
    assert_int_equal(gr_reg_read(*state, GR_REG_MC_FAULT_STATUS, &v), GR_OK);
    assert_int_equal(GR_FIELD_GET(MC_FAULT_STATUS, VALID, v), 1);
    assert_int_equal(GR_FIELD_GET(MC_FAULT_STATUS, TYPE, v), 4);
    assert_int_equal(GR_FIELD_GET(MC_FAULT_STATUS, SOURCE, v), 0);
    assert_int_equal(GR_FIELD_GET(MC_FAULT_STATUS, WRITE, v), 0);
    assert_int_equal(gr_reg_read(*state, GR_REG_MC_FAULT_ADDR_LO, &v), GR_OK);
    assert_int_equal(v, 0x42000);
    assert_int_equal(gr_reg_read(*state, GR_REG_IRQ_STATE, &v), GR_OK);
    assert_int_equal(GR_FIELD_GET(IRQ_STATE, MC_FAULT, v), 1);
    assert_int_equal(gr_link_ap_write(link, 0x42000, zero, sizeof zero), GR_OK);
    /* Outside the VPR the aperture works as before. */
    assert_int_equal(gr_link_ap_read(link, 0x44000, in, 16), GR_OK);
    /* Disabled again: the protected bytes were never overwritten. */
    assert_int_equal(gr_reg_write(*state, GR_REG_VPR_CTRL, 0), GR_OK);
    assert_int_equal(gr_link_ap_read(link, 0x42000, in, sizeof in), GR_OK);
    assert_memory_equal(in, out, sizeof out);
    assert_int_equal(gr_reg_read(*state, GR_REG_MC_FAULT_COUNT, &v), GR_OK);
    assert_int_equal(v, 4); /* 256 bytes = two 16-beat bursts, read once and written once */
}

static void vpr_lock_holds_across_soft_reset(void **state)
{
    uint32_t v = 0;
    assert_int_equal(gr_reg_write(*state, GR_REG_VPR_BASE, 0x10000), GR_OK);
    assert_int_equal(gr_reg_write(*state, GR_REG_VPR_LIMIT, 0x20000), GR_OK);
    assert_int_equal(gr_reg_write(*state, GR_REG_VPR_CTRL,
                                  GR_FIELD_SET(VPR_CTRL, ENABLE, 1) | GR_FIELD_SET(VPR_CTRL, LOCK, 1)),
                     GR_OK);
    assert_int_equal(gr_reg_write(*state, GR_REG_VPR_BASE, 0x30000), GR_OK);
    assert_int_equal(gr_reg_write(*state, GR_REG_VPR_CTRL, 0), GR_OK);
    assert_int_equal(gr_reg_read(*state, GR_REG_VPR_BASE, &v), GR_OK);
    assert_int_equal(v, 0x10000);
    assert_int_equal(gr_reg_read(*state, GR_REG_VPR_CTRL, &v), GR_OK);
    assert_int_equal(v, 3u);
    /* A soft reset is the driver's: it must not unlock what protects content from it. */
    assert_int_equal(gr_device_soft_reset(*state, 100), GR_OK);
    assert_int_equal(gr_reg_read(*state, GR_REG_VPR_CTRL, &v), GR_OK);
    assert_int_equal(GR_FIELD_GET(VPR_CTRL, LOCK, v), 1);
}

static void two_devices_are_independent(void **state)
{
    gr_device_t *other = NULL;
    uint32_t v = 0;
    assert_int_equal(gr_device_open(uri, 0, &other), GR_OK);
    assert_int_equal(gr_reg_write(*state, GR_REG_SCRATCH, 0x11111111u), GR_OK);
    assert_int_equal(gr_reg_write(other, GR_REG_SCRATCH, 0x22222222u), GR_OK);
    assert_int_equal(gr_reg_read(*state, GR_REG_SCRATCH, &v), GR_OK);
    assert_int_equal(v, 0x11111111u);
    assert_int_equal(gr_reg_read(other, GR_REG_SCRATCH, &v), GR_OK);
    assert_int_equal(v, 0x22222222u);
    gr_device_close(other);
}

static void open_rejects_bad_arguments_and_uris(void **state)
{
    (void)state;
    gr_device_t *dev = (gr_device_t *)(uintptr_t)0x1;
    assert_int_equal(gr_device_open("bogus://", 0, &dev), GR_E_BAD_URI);
    assert_non_null(strstr(gr_device_error(), "sim://"));
    assert_int_equal(gr_device_open(uri, 0x80, &dev), GR_E_INVALID);
    assert_ptr_equal(dev, (gr_device_t *)(uintptr_t)0x1);
    assert_int_equal(gr_device_open(uri, 0, NULL), GR_E_INVALID);
}

static void register_names_and_offsets_parse(void **state)
{
    (void)state;
    uint32_t off = 0x999;
    assert_int_equal(gr_regdesc_parse_offset("scratch", &off), GR_OK);
    assert_int_equal(off, GR_REG_SCRATCH);
    assert_int_equal(gr_regdesc_parse_offset("0x44", &off), GR_OK);
    assert_int_equal(off, GR_REG_IRQ_ENABLE);
    assert_int_equal(gr_regdesc_parse_offset("64", &off), GR_OK);
    assert_int_equal(off, GR_REG_IRQ_STATE);
    off = 0x999;
    assert_int_equal(gr_regdesc_parse_offset("NOPE", &off), GR_E_NOT_FOUND);
    assert_int_equal(gr_regdesc_parse_offset("0x22", &off), GR_E_ALIGN);
    assert_int_equal(gr_regdesc_parse_offset("0x10000", &off), GR_E_RANGE);
    assert_int_equal(gr_regdesc_parse_offset("12z", &off), GR_E_INVALID);
    assert_int_equal(off, 0x999);
    assert_int_equal(gr_regdesc_count, GR_REGMAP_REG_COUNT);
    const gr_reg_desc_t *ver = gr_regdesc_find("ID_VERSION");
    assert_non_null(ver);
    assert_int_equal(gr_regdesc_reset(ver), 0x00020000u);
    /* RESET_DONE, MC_FAULT, DMA_FENCE, DMA_PREEMPTED, DMA_FAULT */
    assert_int_equal(gr_regdesc_mask(gr_regdesc_find("IRQ_STATE")), 0x1fu);
    assert_int_equal(gr_regdesc_mask_of(gr_regdesc_find("VPR_CTRL"), GR_ACCESS_W1S), 2u);
}

int main(int argc, char **argv)
{
    const char *env = getenv("GR_TEST_SEED");
    if (env)
        seed = strtoull(env, NULL, 0);
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
    snprintf(uri, sizeof uri, "sim://?seed=%llu", seed);
    printf("# seed=%llu (replay: test_device --seed %llu)\n", seed, seed);
    fflush(stdout);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(header_identifies_this_build, open_dev, close_dev),
        cmocka_unit_test_setup_teardown(scratch_round_trips_random_values, open_dev, close_dev),
        cmocka_unit_test_setup_teardown(holes_answer_bus_errors_and_change_nothing, open_dev, close_dev),
        cmocka_unit_test_setup_teardown(read_only_registers_ignore_writes, open_dev, close_dev),
        cmocka_unit_test_setup_teardown(soft_reset_restores_registers_and_reports_done, open_dev, close_dev),
        cmocka_unit_test_setup_teardown(test_interrupt_follows_enable_and_w1c, open_dev, close_dev),
        cmocka_unit_test_setup_teardown(aperture_round_trips_through_a_movable_window, open_dev, close_dev),
        cmocka_unit_test_setup_teardown(vpr_refuses_the_aperture_and_logs_a_fault, open_dev, close_dev),
        cmocka_unit_test_setup_teardown(vpr_lock_holds_across_soft_reset, open_dev, close_dev),
        cmocka_unit_test_setup_teardown(two_devices_are_independent, open_dev, close_dev),
        cmocka_unit_test(open_rejects_bad_arguments_and_uris),
        cmocka_unit_test(register_names_and_offsets_parse),
    };
    return cmocka_run_group_tests_name("device", tests, NULL, NULL);
}
