/* SPDX-License-Identifier: Apache-2.0 */
/* sched_fixture: see sched_fixture.h. */
#define _GNU_SOURCE
#include "sched_fixture.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuref/gr_regmap.h"
#include "gr_link.h"

static unsigned timeout_scale = 1;
/* Written before the handler is installed: the handler only reads it (write(2) is signal-safe,
 * snprintf is not). */
static char alarm_msg[128];

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t w = write(STDOUT_FILENO, alarm_msg, strlen(alarm_msg));
    (void)w;
    _exit(3);
}

unsigned sf_timeout_scale(void)
{
    return timeout_scale;
}

/* Decimal digits only, in [lo, hi]; else a TAP bail-out naming what and the range. */
static unsigned long long number_or_bail(const char *what, const char *text, unsigned long long lo,
                                         unsigned long long hi)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = isdigit((unsigned char)text[0]) ? strtoull(text, &end, 10) : 0;
    if (!end || *end || errno || v < lo || v > hi) {
        printf("Bail out! %s='%s' is not a number in %llu..%llu\n", what, text, lo, hi);
        exit(2);
    }
    return v;
}

unsigned long long sf_start(int argc, char **argv, const char *prog, char *uri, size_t uri_size)
{
    unsigned long long seed = 1;
    const char *env = getenv("GR_TEST_SEED");
    if (env && *env)
        seed = number_or_bail("GR_TEST_SEED", env, 1, ULLONG_MAX);
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--seed"))
            seed = number_or_bail("--seed", argv[i + 1], 1, ULLONG_MAX);
    env = getenv("GR_TEST_TIMEOUT_SCALE");
    if (env && *env)
        timeout_scale = (unsigned)number_or_bail("GR_TEST_TIMEOUT_SCALE", env, 1, 100);
    /* The device: sim:// for the seed, or any link's URI from $GR_TEST_DEVICE (tb/system/on_link.sh
     * starts a board and sets it), so that the same tests run on every link. */
    env = getenv("GR_TEST_DEVICE");
    if (env && *env) {
        if (strlen(env) >= uri_size) {
            printf("Bail out! GR_TEST_DEVICE is longer than %zu characters\n", uri_size - 1);
            exit(2);
        }
        snprintf(uri, uri_size, "%s", env);
    } else
        snprintf(uri, uri_size, "sim://?seed=%llu&vram=512M", seed);
    printf("# seed=%llu (replay: %s --seed %llu)\n", seed, prog, seed);
    printf("# device %s\n", uri);
    if (timeout_scale != 1)
        printf("# hang alarm %u s (GR_TEST_TIMEOUT_SCALE=%u)\n", SF_TEST_SECONDS, timeout_scale);
    fflush(stdout);
    snprintf(alarm_msg, sizeof alarm_msg,
             "Bail out! a test ran longer than %u s (hung); replay with the seed above\n", SF_TEST_SECONDS);
    signal(SIGALRM, on_alarm);
    return seed;
}

int sf_run_tests(const char *group, const struct CMUnitTest *tests, size_t count,
                 int (*group_setup)(void **state), int (*group_teardown)(void **state))
{
    const char *filter = getenv("GR_TEST_FILTER");
    if (!filter || !*filter)
        return _cmocka_run_group_tests(group, tests, count, group_setup, group_teardown);
    struct CMUnitTest *picked = calloc(count ? count : 1, sizeof *picked);
    if (!picked) {
        printf("Bail out! out of memory\n");
        exit(2);
    }
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        /* a comma-separated list of globs: a test runs when its name matches one of them */
        char pattern[256];
        for (const char *p = filter; *p;) {
            size_t len = strcspn(p, ",");
            if (len > 0 && len < sizeof pattern) {
                memcpy(pattern, p, len);
                pattern[len] = 0;
                if (!fnmatch(pattern, tests[i].name, 0)) {
                    picked[n++] = tests[i];
                    break;
                }
            }
            p += len + (p[len] == ',');
        }
    }
    if (n == 0) {
        /* a filter that picks nothing is a mistake, not a pass */
        printf("Bail out! GR_TEST_FILTER='%s' names no test of %s\n", filter, group);
        exit(2);
    }
    int rc = _cmocka_run_group_tests(group, picked, n, group_setup, group_teardown);
    free(picked);
    return rc;
}

void sf_sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

typedef struct raw_op {
    int write;
    uint32_t offset, value;
} raw_op_t;

static int raw_fn(gr_link_t *link, void *ctx)
{
    raw_op_t *o = ctx;
    return o->write ? gr_link_write32(link, o->offset, o->value) : gr_link_read32(link, o->offset, &o->value);
}

uint32_t sf_reg_read(gr_adapter_t *ad, uint32_t offset)
{
    raw_op_t o = {.write = 0, .offset = offset};
    assert_int_equal(gr_adapter_with_link(ad, raw_fn, &o), GR_OK);
    return o.value;
}

void sf_reg_write(gr_adapter_t *ad, uint32_t offset, uint32_t value)
{
    raw_op_t o = {.write = 1, .offset = offset, .value = value};
    assert_int_equal(gr_adapter_with_link(ad, raw_fn, &o), GR_OK);
}

int sf_watchdog_off(gr_adapter_t *ad)
{
    raw_op_t o = {.write = 1, .offset = GR_REG_DMA_WATCHDOG, .value = 0};
    return gr_adapter_with_link(ad, raw_fn, &o);
}

static int gate_fn(gr_link_t *link, void *ctx)
{
    (void)link;
    __atomic_store_n((volatile uint64_t *)ctx, UINT64_C(1), __ATOMIC_SEQ_CST);
    return GR_OK;
}

int sf_gate_open(gr_adapter_t *ad, volatile uint64_t *gate)
{
    return gr_adapter_with_link(ad, gate_fn, (void *)gate);
}

void sf_gates_release(gr_adapter_t *ad, volatile uint64_t *gate, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (sf_gate_open(ad, &gate[i]))
            print_error("teardown: gate %u: link error\n", i);
}

gr_sched_stats_t sf_sched_stats(gr_adapter_t *ad)
{
    gr_sched_stats_t s;
    assert_int_equal(gr_adapter_sched_stats(ad, &s), GR_OK);
    return s;
}

uint64_t sf_cycles(gr_adapter_t *ad)
{
    uint64_t c = 0;
    assert_int_equal(gr_adapter_cycles(ad, &c), GR_OK);
    return c;
}

void sf_set_sched(gr_adapter_t *ad, uint64_t quantum_cycles, uint64_t tdr_timeout_cycles)
{
    gr_sched_params_t p = {.quantum_cycles = quantum_cycles, .tdr_timeout_cycles = tdr_timeout_cycles};
    assert_int_equal(gr_adapter_set_scheduling(ad, &p), GR_OK);
}

bool sf_wait_until(gr_adapter_t *ad, bool (*pred)(const gr_sched_stats_t *s, const void *arg), const void *arg)
{
    for (unsigned i = 0; i < 20000u * timeout_scale; i++) {
        gr_sched_stats_t s = sf_sched_stats(ad);
        if (pred(&s, arg))
            return true;
        sf_sleep_ms(1);
    }
    return false;
}

int sf_dma_buffer(gr_gpu_device_t *dev, gr_context_t ctx, uint32_t bytes, gr_dma_buffer_t *out_buf,
                  gr_dma_buffer_info_t *out_info)
{
    int rc = gr_dma_buffer_create(dev, ctx, bytes, out_buf);
    return rc ? rc : gr_dma_buffer_info(dev, *out_buf, out_info);
}

void sf_cmd_begin(gr_gpu_device_t *dev, gr_context_t ctx, sf_cmd_t *c)
{
    memset(c, 0, sizeof *c);
    gr_dma_buffer_info_t i;
    assert_int_equal(sf_dma_buffer(dev, ctx, 4096, &c->h, &i), GR_OK);
    c->dev = dev;
    c->cpu = i.cpu;
    c->bus = i.bus;
    c->va = i.gpu_va;
    gr_dma_writer_init(&c->w, c->cpu, i.size);
}

uint64_t sf_alloc_va(gr_gpu_device_t *dev, gr_alloc_t a)
{
    gr_alloc_info_t ai;
    assert_int_equal(gr_alloc_query(dev, a, &ai), GR_OK);
    return ai.gpu_va;
}

uint32_t sf_cmd_ref(sf_cmd_t *c, gr_alloc_t a, bool write)
{
    for (uint32_t i = 0; i < c->nrefs; i++)
        if (c->refs[i].handle == a) {
            if (write)
                c->refs[i].flags |= GR_ALLOC_REF_WRITE;
            return i;
        }
    c->refs[c->nrefs].handle = a;
    c->refs[c->nrefs].flags = write ? GR_ALLOC_REF_WRITE : 0;
    return c->nrefs++;
}

uint64_t sf_cmd_submit(gr_gpu_device_t *dev, gr_context_t ctx, sf_cmd_t *c)
{
    gr_submission_t s = {.buffer = c->h,
                         .start = 0,
                         .end = (uint32_t)c->w.used,
                         .allocs = c->refs,
                         .alloc_count = c->nrefs,
                         .patches = c->pl,
                         .patch_count = c->npl};
    uint64_t fence = 0;
    int rc = gr_submit(dev, ctx, &s, &fence);
    if (rc)
        print_error("gr_submit: %s\n", gr_status_name(rc));
    assert_int_equal(rc, GR_OK);
    return fence;
}
