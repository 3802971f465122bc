/* SPDX-License-Identifier: Apache-2.0 */
/* test_link: URI parsing, backend selection and the checks gr_link makes before any access. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuref/gr_regmap.h"
#include "gpuref/gr_status.h"
#include "gr_link.h"

static void uri_parses_scheme_path_and_params(void **state)
{
    (void)state;
    gr_uri_t uri;
    assert_int_equal(gr_uri_parse("simd:///tmp/gr.sock?seed=7&stall=30", &uri), GR_OK);
    assert_string_equal(uri.scheme, "simd");
    assert_string_equal(uri.path, "/tmp/gr.sock");
    assert_int_equal(uri.param_count, 2);
    assert_string_equal(gr_uri_param(&uri, "seed"), "7");
    assert_string_equal(gr_uri_param(&uri, "stall"), "30");
    assert_null(gr_uri_param(&uri, "fst"));
    assert_int_equal(gr_uri_parse("sim://", &uri), GR_OK);
    assert_string_equal(uri.scheme, "sim");
    assert_string_equal(uri.path, "");
    assert_int_equal(uri.param_count, 0);
}

static void uri_rejects_malformed_text_and_leaves_output_alone(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", "sim", "sim:/", "://x", "SIM://", "s-m://", "sim://?seed", "sim://?=3",
        "sim://?seed=1&", "sim://?seed=1&seed=2", "averyveryverylongscheme://",
        "sim://?", "sim://?seed=", "sim://?&seed=1", "sim://?=", "sim://?seed=1&&stall=2",
        "sim://?fst=&seed=1", "sim://?stall=1&seed=2&stall=1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gr_uri_t uri;
        memset(&uri, 0xa5, sizeof uri);
        gr_uri_t before = uri;
        int rc = gr_uri_parse(bad[i], &uri);
        if (rc != GR_E_BAD_URI)
            fail_msg("'%s' parsed (rc %d)", bad[i], rc);
        assert_memory_equal(&uri, &before, sizeof uri);
    }
}

static void unknown_scheme_fails_and_names_the_accepted_ones(void **state)
{
    (void)state;
    gr_link_t *link = (gr_link_t *)(uintptr_t)0x1;
    assert_int_equal(gr_link_open("bogus://", &link), GR_E_BAD_URI);
    assert_ptr_equal(link, (gr_link_t *)(uintptr_t)0x1);
    assert_non_null(strstr(gr_link_error(), "bogus"));
    assert_non_null(strstr(gr_link_error(), "sim://"));
    assert_int_equal(gr_link_open("not a uri", &link), GR_E_BAD_URI);
    assert_non_null(strstr(gr_link_error(), "sim://"));
}

static void sim_rejects_unknown_parameters_and_bad_values(void **state)
{
    (void)state;
    gr_link_t *link = NULL;
    assert_int_equal(gr_link_open("sim://?speed=9", &link), GR_E_BAD_URI);
    assert_non_null(strstr(gr_link_error(), "speed"));
    assert_non_null(strstr(gr_link_error(), "seed")); /* lists what is accepted */
    assert_int_equal(gr_link_open("sim://?stall=91", &link), GR_E_BAD_URI);
    assert_int_equal(gr_link_open("sim://?seed=12abc", &link), GR_E_BAD_URI);
    assert_int_equal(gr_link_open("sim://?vram=4T", &link), GR_E_BAD_URI);
    assert_int_equal(gr_link_open("sim:///some/path", &link), GR_E_BAD_URI);
    assert_int_equal(gr_link_open("sim://?axi=awaitv", &link), GR_E_BAD_URI);
    assert_non_null(strstr(gr_link_error(), "awaitwlast")); /* names the write orders */
    assert_int_equal(gr_link_open("sim://?stallrun=0", &link), GR_E_BAD_URI);
    assert_int_equal(gr_link_open("sim://?stallrun=1001", &link), GR_E_BAD_URI);
    assert_null(link);
}

/* The bus models' seed as the open link reports it ("seed=N" in gr_link_describe). */
static unsigned long long described_seed(gr_link_t *link)
{
    char text[128];
    gr_link_describe(link, text, sizeof text);
    const char *p = strstr(text, "seed=");
    assert_non_null(p);
    return strtoull(p + 5, NULL, 10);
}

static void sim_numbers_are_strict_and_errors_name_the_accepted_range(void **state)
{
    (void)state;
    static const struct {
        const char *uri, *key, *range;
    } bad[] = {
        {"sim://?seed=-1", "seed", "1..18446744073709551615"}, /* strtoull: 2^64-1 */
        {"sim://?seed=0", "seed", "1..18446744073709551615"},  /* would mean "default" */
        {"sim://?seed=+1", "seed", "1..18446744073709551615"},
        {"sim://?seed=%201", "seed", "1..18446744073709551615"},
        {"sim://?seed= 1", "seed", "1..18446744073709551615"},
        {"sim://?seed=18446744073709551616", "seed", "1..18446744073709551615"},
        {"sim://?seed=0x", "seed", "1..18446744073709551615"},
        {"sim://?seed=0x10000000000000000", "seed", "1..18446744073709551615"},
        {"sim://?seed=0x0x2ac", "seed", "1..18446744073709551615"}, /* strtoull takes a second 0x */
        {"sim://?stall=0x0x5", "stall", "0..90"},
        {"sim://?stall=-0", "stall", "0..90"},
        {"sim://?stall=91", "stall", "0..90"},
        {"sim://?latency=1001", "latency", "0..1000"},
        {"sim://?norandom=2", "norandom", "0..1"},
        {"sim://?vram=0", "vram", "128K..512M"},
        {"sim://?vram=64K", "vram", "128K..512M"},   /* below the least the driver runs in */
        {"sim://?vram=196607", "vram", "128K..512M"}, /* not whole 64 KiB */
        {"sim://?vram=132K", "vram", "128K..512M"},
        {"sim://?vram=-128K", "vram", "128K..512M"},
        {"sim://?vram=524352K", "vram", "128K..512M"}, /* 512M + 64K: past gpu_core's VramBytes */
        {"sim://?vram=1G", "vram", "128K..512M"},
        {"sim://?vram=17179869184G", "vram", "128K..512M"}, /* 2^34 G: the shift overflows */
        {"sim://?vram=4MM", "vram", "128K..512M"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gr_link_t *link = (gr_link_t *)(uintptr_t)0x1;
        int rc = gr_link_open(bad[i].uri, &link);
        if (rc != GR_E_BAD_URI)
            fail_msg("'%s' opened (rc %d)", bad[i].uri, rc);
        assert_ptr_equal(link, (gr_link_t *)(uintptr_t)0x1);
        if (!strstr(gr_link_error(), bad[i].key) || !strstr(gr_link_error(), bad[i].range))
            fail_msg("'%s': message '%s' names neither %s nor %s", bad[i].uri, gr_link_error(), bad[i].key,
                     bad[i].range);
    }
    /* The edges are accepted; numbers are decimal (a leading 0 is not octal) or 0x hex. */
    static const struct {
        const char *uri;
        unsigned long long seed;
    } good[] = {
        {"sim://?seed=18446744073709551615&stall=90&latency=1000&norandom=0", 18446744073709551615ull},
        {"sim://?seed=0xFFFFFFFFFFFFFFFF&vram=512M", 18446744073709551615ull},
        {"sim://?seed=010&vram=128K", 10},
        {"sim://?seed=0x10&vram=196608", 16},
        {"sim://?seed=1&stall=0&latency=0&norandom=1", 1},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        gr_link_t *link = NULL;
        int rc = gr_link_open(good[i].uri, &link);
        if (rc != GR_OK)
            fail_msg("'%s' refused (rc %d): %s", good[i].uri, rc, gr_link_error());
        assert_int_equal(described_seed(link), good[i].seed);
        gr_link_close(link);
    }
}

/* A bad $GR_SIM_SEED or $GR_DEVICE is named in the message: the caller never typed it. */
static void bad_environment_is_named(void **state)
{
    (void)state;
    gr_link_t *link = NULL;
    static const char *const bad_seeds[] = {"abc", "-1", "12abc", "18446744073709551616", " 7"};
    for (size_t i = 0; i < sizeof bad_seeds / sizeof bad_seeds[0]; i++) {
        assert_int_equal(setenv("GR_SIM_SEED", bad_seeds[i], 1), 0);
        assert_int_equal(gr_link_open("sim://", &link), GR_E_BAD_URI);
        assert_null(link);
        if (!strstr(gr_link_error(), "GR_SIM_SEED") || !strstr(gr_link_error(), bad_seeds[i]))
            fail_msg("GR_SIM_SEED='%s': message '%s'", bad_seeds[i], gr_link_error());
    }
    /* The URI's seed wins over the environment, as in the harness. */
    assert_int_equal(gr_link_open("sim://?seed=5", &link), GR_OK);
    assert_int_equal(described_seed(link), 5);
    gr_link_close(link);
    link = NULL;
    assert_int_equal(setenv("GR_SIM_SEED", "0x2a", 1), 0);
    assert_int_equal(gr_link_open("sim://", &link), GR_OK);
    assert_int_equal(described_seed(link), 42);
    gr_link_close(link);
    link = NULL;
    assert_int_equal(unsetenv("GR_SIM_SEED"), 0);

    static const char *const bad_devices[] = {"bogus://", "sim://?seed=-1", "sim://?", "not a uri"};
    for (size_t i = 0; i < sizeof bad_devices / sizeof bad_devices[0]; i++) {
        assert_int_equal(setenv("GR_DEVICE", bad_devices[i], 1), 0);
        assert_int_equal(gr_link_open(NULL, &link), GR_E_BAD_URI);
        assert_int_equal(gr_link_open("", &link), GR_E_BAD_URI);
        assert_null(link);
        char want[64];
        snprintf(want, sizeof want, "GR_DEVICE='%s':", bad_devices[i]);
        if (strncmp(gr_link_error(), want, strlen(want)) != 0)
            fail_msg("GR_DEVICE='%s': message '%s'", bad_devices[i], gr_link_error());
    }
    /* A URI given explicitly is not blamed on the environment. */
    assert_int_equal(gr_link_open("bogus://", &link), GR_E_BAD_URI);
    assert_null(strstr(gr_link_error(), "GR_DEVICE"));
    assert_int_equal(setenv("GR_DEVICE", "sim://?seed=9", 1), 0);
    assert_int_equal(gr_link_open(NULL, &link), GR_OK);
    assert_int_equal(described_seed(link), 9);
    gr_link_close(link);
    assert_int_equal(unsetenv("GR_DEVICE"), 0);
}

/* The memory models' write order and stall runs through the URI: a device that answers. */
static void sim_takes_a_write_order_and_stall_runs(void **state)
{
    (void)state;
    gr_link_t *link = NULL;
    assert_int_equal(gr_link_open("sim://?axi=awaitwlast&stallrun=40&seed=5", &link), GR_OK);
    uint32_t v = 0;
    assert_int_equal(gr_link_read32(link, 0x0, &v), GR_OK);
    assert_int_equal(v, 0x47505552u);
    gr_link_close(link);
}

static void offsets_are_checked_before_the_link_is_touched(void **state)
{
    (void)state;
    gr_link_t *link = NULL;
    assert_int_equal(gr_link_open("sim://?seed=3&vram=64M", &link), GR_OK);
    uint32_t v = 0x12345678u;
    assert_int_equal(gr_link_read32(link, 0x2, &v), GR_E_ALIGN);
    assert_int_equal(gr_link_read32(link, GR_REGMAP_BAR0_BYTES, &v), GR_E_RANGE);
    assert_int_equal(gr_link_write32(link, 0x21, 1), GR_E_ALIGN);
    assert_int_equal(gr_link_write32(link, 0xffffffffu, 1), GR_E_RANGE);
    assert_int_equal(v, 0x12345678u);
    assert_int_equal(gr_link_read32(link, GR_REG_ID_MAGIC, &v), GR_OK);
    assert_int_equal(v, 0x47505552u);
    assert_true(gr_link_caps(link) & GR_LINK_CAP_SIMULATED);
    assert_string_equal(gr_link_scheme(link), "sim");
    gr_link_close(link);
}

static void sim_dma_buffers_are_page_aligned_and_distinct(void **state)
{
    (void)state;
    gr_link_t *link = NULL;
    assert_int_equal(gr_link_open("sim://", &link), GR_OK);
    gr_dma_buf_t a, b;
    assert_int_equal(gr_link_dma_alloc(link, 5000, &a), GR_OK);
    assert_int_equal(gr_link_dma_alloc(link, 4096, &b), GR_OK);
    assert_int_equal((uintptr_t)a.cpu % 4096, 0);
    assert_int_equal(a.bus % 4096, 0);
    assert_true(b.bus >= a.bus + 8192 || a.bus >= b.bus + 4096);
    assert_int_equal(((unsigned char *)a.cpu)[4999], 0);
    assert_int_equal(gr_link_dma_free(link, &a), GR_OK);
    assert_int_equal(gr_link_dma_free(link, &a), GR_E_NOT_FOUND);
    assert_int_equal(gr_link_dma_free(link, &b), GR_OK);
    gr_link_close(link);
}

/* A tool that reads the device's clock while the miniport's interrupt thread waits on the same
 * link (bench/link does): calls from two threads must each run alone. sim:// is one Verilated
 * model that every call clocks; two threads clocking it at once lost or doubled AXI handshakes
 * ("R with no read outstanding") and a read ended GR_E_TIMEOUT. Every read here must return
 * what this thread wrote, and the waiting thread must see no error. */
typedef struct waiter {
    gr_link_t *link;
    atomic_bool stop;
    int rc;
    unsigned waits;
} waiter_t;

static void *waiter_main(void *arg)
{
    waiter_t *w = arg;
    while (!atomic_load(&w->stop) && w->rc == GR_OK) {
        bool raised = false;
        w->rc = gr_link_wait_irq(w->link, 20, &raised);
        w->waits++;
    }
    return NULL;
}

static void link_calls_from_two_threads_run_one_at_a_time(void **state)
{
    (void)state;
    gr_link_t *link = NULL;
    assert_int_equal(gr_link_open("sim://?seed=3", &link), GR_OK);
    waiter_t w = {.link = link, .rc = GR_OK};
    atomic_init(&w.stop, false);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, waiter_main, &w), 0);
    int rc = GR_OK;
    uint32_t bad_at = 0, got = 0;
    for (uint32_t i = 0; i < 3000 && rc == GR_OK; i++) {
        const uint32_t v = 0x3c000000u + i * 2654435761u % 0x00ffffffu;
        rc = gr_link_write32(link, GR_REG_SCRATCH, v);
        if (rc == GR_OK)
            rc = gr_link_read32(link, GR_REG_SCRATCH, &got);
        if (rc == GR_OK && got != v) {
            bad_at = i + 1;
            break;
        }
    }
    atomic_store(&w.stop, true);
    pthread_join(t, NULL);
    gr_link_close(link);
    assert_int_equal(rc, GR_OK);
    assert_int_equal(bad_at, 0);
    assert_int_equal(w.rc, GR_OK);
    assert_true(w.waits > 0);
}

static void every_status_has_a_message_and_a_unique_name(void **state)
{
    (void)state;
    static const int codes[] = {
#define GR_STATUS_CODE(name, value, msg) value,
        GR_STATUS_LIST(GR_STATUS_CODE)
#undef GR_STATUS_CODE
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        assert_true(strlen(gr_strerror(codes[i])) > 3);
        assert_string_not_equal(gr_status_name(codes[i]), "GR_E_UNKNOWN");
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(gr_status_name(codes[i]), gr_status_name(codes[j]));
    }
    assert_string_equal(gr_status_name(-999), "GR_E_UNKNOWN");
    assert_string_equal(gr_strerror(-999), "unknown status");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uri_parses_scheme_path_and_params),
        cmocka_unit_test(uri_rejects_malformed_text_and_leaves_output_alone),
        cmocka_unit_test(unknown_scheme_fails_and_names_the_accepted_ones),
        cmocka_unit_test(sim_rejects_unknown_parameters_and_bad_values),
        cmocka_unit_test(sim_numbers_are_strict_and_errors_name_the_accepted_range),
        cmocka_unit_test(bad_environment_is_named),
        cmocka_unit_test(sim_takes_a_write_order_and_stall_runs),
        cmocka_unit_test(offsets_are_checked_before_the_link_is_touched),
        cmocka_unit_test(sim_dma_buffers_are_page_aligned_and_distinct),
        cmocka_unit_test(link_calls_from_two_threads_run_one_at_a_time),
        cmocka_unit_test(every_status_has_a_message_and_a_unique_name),
    };
    return cmocka_run_group_tests_name("link", tests, NULL, NULL);
}
