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
    assert_int_equal(info.version_minor, 1);
    assert_int_equal(info.version_patch, 0);
    assert_int_equal(info.regmap_hash, GR_REGMAP_HASH);
    assert_true(info.regmap_matches);
    assert_int_equal(info.board, 0);
    assert_int_equal(info.build_stamp, 0);
    assert_int_equal(info.caps, 0); /* no MC, no DMA in this build */
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
    assert_int_equal(gr_reg_write(*state, 0x014, 0xffffffffu), GR_E_BUS);
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
    assert_int_equal(gr_regdesc_reset(ver), 0x00010000u);
    assert_int_equal(gr_regdesc_mask(gr_regdesc_find("IRQ_STATE")), 1u);
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
        cmocka_unit_test_setup_teardown(two_devices_are_independent, open_dev, close_dev),
        cmocka_unit_test(open_rejects_bad_arguments_and_uris),
        cmocka_unit_test(register_names_and_offsets_parse),
    };
    return cmocka_run_group_tests_name("device", tests, NULL, NULL);
}
