/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_errors: a failed open says what went wrong through the public API alone
 * (gr_last_error(), gr_device_error()): the transport's detail reaches gr_device_open's and
 * gr_adapter_open's callers, a file that cannot be opened is named with the system's reason (and
 * the variable it came from), and a bad setting or variable with its accepted range.
 * Every case fails before the device runs: no seed is involved.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuref/gr_alloc.h"
#include "gpuref/gr_device.h"
#include "gpuref/gr_status.h"
#include "gr_sim.h"

#define NO_FST "/nonexistent/x.fst"
#define NO_TXLOG "/nonexistent/tx.log"

/* Fails unless text holds want, and says both. */
static void assert_says(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("expected \"%s\" in \"%s\"", want, text);
}

static void fst_error_names_the_path_and_the_reason(const char *detail)
{
    char want[256];
    snprintf(want, sizeof want, "cannot open FST file '%s': %s", NO_FST, strerror(ENOENT));
    assert_says(detail, want);
}

static void *first_call_in_a_thread(void *arg)
{
    (void)arg;
    return (void *)gr_last_error();
}

static void nothing_failed_yet_says_no_error(void **state)
{
    (void)state;
    /* The detail is per thread: a new thread has seen no failure. */
    assert_int_equal(gr_device_open("bogus://", 0, &(gr_device_t *){NULL}), GR_E_BAD_URI);
    pthread_t t;
    void *text = NULL;
    assert_int_equal(pthread_create(&t, NULL, first_call_in_a_thread, NULL), 0);
    assert_int_equal(pthread_join(t, &text), 0);
    assert_string_equal((const char *)text, "no error");
}

static void device_open_names_the_fst_file(void **state)
{
    (void)state;
    gr_device_t *dev = (gr_device_t *)(uintptr_t)0x1;
    assert_int_equal(gr_device_open("sim://?fst=" NO_FST, 0, &dev), GR_E_IO);
    assert_ptr_equal(dev, (gr_device_t *)(uintptr_t)0x1);
    fst_error_names_the_path_and_the_reason(gr_last_error());
    assert_string_equal(gr_device_error(), gr_last_error());
}

static void adapter_open_names_the_fst_file(void **state)
{
    (void)state;
    gr_adapter_t *ad = (gr_adapter_t *)(uintptr_t)0x1;
    /* an older detail to replace */
    assert_int_equal(gr_device_open("bogus://", 0, &(gr_device_t *){NULL}), GR_E_BAD_URI);
    assert_int_equal(gr_adapter_open("sim://?fst=" NO_FST, &ad), GR_E_IO);
    assert_ptr_equal(ad, (gr_adapter_t *)(uintptr_t)0x1);
    fst_error_names_the_path_and_the_reason(gr_last_error());
    /* gr_device_error() was "no error" after a failed gr_adapter_open: now it is the same text. */
    assert_string_equal(gr_device_error(), gr_last_error());
}

static void adapter_open_names_the_transaction_log(void **state)
{
    (void)state;
    gr_adapter_t *ad = NULL;
    assert_int_equal(gr_adapter_open("sim://?axilog=" NO_TXLOG, &ad), GR_E_IO);
    assert_null(ad);
    char want[256];
    snprintf(want, sizeof want, "cannot open AXI log '%s': %s", NO_TXLOG, strerror(ENOENT));
    assert_says(gr_last_error(), want);
}

static void a_directory_is_not_an_fst_file(void **state)
{
    (void)state;
    gr_device_t *dev = NULL;
    assert_int_equal(gr_device_open("sim://?fst=/", 0, &dev), GR_E_IO);
    assert_null(dev);
    char want[256];
    snprintf(want, sizeof want, "cannot open FST file '/': %s", strerror(EISDIR));
    assert_says(gr_last_error(), want);
}

static void adapter_open_of_a_bad_uri_names_the_schemes(void **state)
{
    (void)state;
    gr_adapter_t *ad = NULL;
    assert_int_equal(gr_adapter_open("bogus://", &ad), GR_E_BAD_URI);
    assert_null(ad);
    assert_says(gr_last_error(), "bogus://");
    assert_says(gr_last_error(), "sim://"); /* what is accepted */
    assert_int_equal(gr_adapter_open("sim://?colour=red", &ad), GR_E_BAD_URI);
    assert_says(gr_last_error(), "colour");
    assert_says(gr_last_error(), "seed"); /* the keys sim:// takes */
}

static void adapter_open_argument_errors_are_said(void **state)
{
    (void)state;
    assert_int_equal(gr_adapter_open("sim://", NULL), GR_E_INVALID);
    assert_says(gr_last_error(), "out_adapter");
    gr_adapter_t *ad = NULL;
    assert_int_equal(gr_adapter_open_link(NULL, &ad), GR_E_INVALID);
    assert_null(ad);
    assert_says(gr_last_error(), "no link");
}

/* The harness itself, for programs that drive gr_sim directly. */
static void sim_create_names_the_fst_file(void **state)
{
    (void)state;
    gr_sim_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.fst_path = NO_FST;
    gr_sim_t *sim = NULL;
    assert_int_equal(gr_sim_create(&cfg, &sim), GR_E_IO);
    assert_null(sim);
    fst_error_names_the_path_and_the_reason(gr_sim_error());
}

/* A bad setting names itself and its range: from the environment, the variable. */
static void sim_create_names_a_bad_variable_and_its_range(void **state)
{
    (void)state;
    static const struct {
        const char *var, *value, *want;
    } cases[] = {
        {"GR_SIM_AXI", "bogus", "GR_SIM_AXI='bogus' is not an AXI order (accepted: any, awaitw, awaitwlast, wawaitaw)"},
        {"GR_SIM_REORDER", "2", "GR_SIM_REORDER='2' is neither 0 nor 1 (accepted: 0..1)"},
        {"GR_SIM_STALL_RUN", "0", "GR_SIM_STALL_RUN='0' is out of range (accepted: 1..1000"},
        {"GR_SIM_STALL_RUN", "1001", "GR_SIM_STALL_RUN='1001' is out of range (accepted: 1..1000"},
        {"GR_SIM_SEED", "12abc", "GR_SIM_SEED='12abc' is not a seed (accepted: 0.."},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(setenv(cases[i].var, cases[i].value, 1), 0);
        gr_sim_t *sim = NULL;
        const int rc = gr_sim_create(NULL, &sim);
        unsetenv(cases[i].var); /* before any assertion: a failure here must not leak into later tests */
        assert_int_equal(rc, GR_E_INVALID);
        assert_null(sim);
        assert_says(gr_sim_error(), cases[i].want);
    }
}

static void sim_create_names_a_setting_out_of_range(void **state)
{
    (void)state;
    gr_sim_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.stall_pct = 95;
    gr_sim_t *sim = NULL;
    assert_int_equal(gr_sim_create(&cfg, &sim), GR_E_INVALID);
    assert_says(gr_sim_error(), "stall_pct 95 is out of range (accepted: 0..90)");
    cfg.stall_pct = 0;
    cfg.max_latency = 5000;
    assert_int_equal(gr_sim_create(&cfg, &sim), GR_E_INVALID);
    assert_says(gr_sim_error(), "max_latency 5000 is out of range (accepted: 0..1000)");
    cfg.max_latency = 0;
    cfg.vram_bytes = 4097;
    assert_int_equal(gr_sim_create(&cfg, &sim), GR_E_INVALID);
    assert_says(gr_sim_error(), "vram_bytes 4097 is out of range (accepted: 128K..512M in whole 64K");
    assert_null(sim);
}

/* A path from GR_SIM_FST or GR_SIM_AXILOG: the variable is named with the path and the reason,
 * and gr_device_open's caller reads it in gr_last_error(). */
static void device_open_names_the_variable_a_path_came_from(void **state)
{
    (void)state;
    char want[256];
    gr_device_t *dev = NULL;
    assert_int_equal(setenv("GR_SIM_FST", NO_FST, 1), 0);
    int rc = gr_device_open("sim://", 0, &dev);
    unsetenv("GR_SIM_FST");
    assert_int_equal(rc, GR_E_IO);
    snprintf(want, sizeof want, "cannot open FST file '%s' from GR_SIM_FST: %s", NO_FST, strerror(ENOENT));
    assert_says(gr_last_error(), want);
    assert_int_equal(setenv("GR_SIM_AXILOG", NO_TXLOG, 1), 0);
    rc = gr_device_open("sim://", 0, &dev);
    unsetenv("GR_SIM_AXILOG");
    assert_int_equal(rc, GR_E_IO);
    snprintf(want, sizeof want, "cannot open AXI log '%s' from GR_SIM_AXILOG: %s", NO_TXLOG,
             strerror(ENOENT));
    assert_says(gr_last_error(), want);
    assert_null(dev);
}

/* A good open after failures still works: the detail only describes failures. */
static void a_good_open_after_failures_works(void **state)
{
    (void)state;
    gr_device_t *dev = NULL;
    assert_int_equal(gr_device_open("sim://?fst=" NO_FST, 0, &dev), GR_E_IO);
    assert_int_equal(gr_device_open("sim://?norandom=1", 0, &dev), GR_OK);
    gr_device_info_t info;
    assert_int_equal(gr_device_info(dev, &info), GR_OK);
    assert_int_equal(info.magic, 0x47505552u);
    gr_device_close(dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nothing_failed_yet_says_no_error),
        cmocka_unit_test(device_open_names_the_fst_file),
        cmocka_unit_test(adapter_open_names_the_fst_file),
        cmocka_unit_test(adapter_open_names_the_transaction_log),
        cmocka_unit_test(a_directory_is_not_an_fst_file),
        cmocka_unit_test(adapter_open_of_a_bad_uri_names_the_schemes),
        cmocka_unit_test(adapter_open_argument_errors_are_said),
        cmocka_unit_test(sim_create_names_the_fst_file),
        cmocka_unit_test(sim_create_names_a_bad_variable_and_its_range),
        cmocka_unit_test(sim_create_names_a_setting_out_of_range),
        cmocka_unit_test(device_open_names_the_variable_a_path_came_from),
        cmocka_unit_test(a_good_open_after_failures_works),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
