/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sched_fixture: what the VidSch system tests over sim:// share (test_vidsch, test_timeline,
 * test_residency): the start of main (seed, URI, the hang alarm), raw registers through the
 * adapter's link, gates (host qwords a WAIT command waits on), the scheduler's counters and
 * clock, and one DMA buffer per submission. Calls that end in an assert are for test bodies
 * (cmocka); the ones that return a status are for setup and teardown.
 */
#ifndef SCHED_FIXTURE_H
#define SCHED_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct CMUnitTest; /* cmocka.h */

#include "gpuref/gr_alloc.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_submit.h"

/* A test that hangs (a lost wakeup, a deadlock) must fail, not stop the suite forever: setup
 * arms alarm(SF_TEST_SECONDS), teardown disarms it. 120 s times $GR_TEST_TIMEOUT_SCALE (1..100,
 * default 1): a sanitizer build runs several times slower and sets it (the top Makefile's SAN). */
#define SF_TEST_SECONDS (120u * sf_timeout_scale())

/* $GR_TEST_TIMEOUT_SCALE as sf_start read it (1 before sf_start); it also stretches
 * sf_wait_until's bound. */
unsigned sf_timeout_scale(void);

/*
 * The start of a suite's main: the seed from $GR_TEST_SEED or --seed N (else 1), the device's URI
 * written to uri ($GR_TEST_DEVICE, else sim:// with the seed), the seed printed first with how to replay it as prog, the timeout scale
 * from $GR_TEST_TIMEOUT_SCALE, and the handler that ends the run with a TAP "Bail out!" when the
 * alarm fires. A bad seed or scale ends the run with a "Bail out!" naming it. Returns the seed.
 */
unsigned long long sf_start(int argc, char **argv, const char *prog, char *uri, size_t uri_size);

/*
 * cmocka_run_group_tests_name with the tests that $GR_TEST_FILTER picks: a comma-separated list
 * of globs on the test names (unset or empty: all). A filter that picks none ends the run with a
 * "Bail out!" naming it. The link matrix (tb/tb.mk) runs a chosen set this way.
 */
int sf_run_tests(const char *group, const struct CMUnitTest *tests, size_t count,
                 int (*group_setup)(void **state), int (*group_teardown)(void **state));

void sf_sleep_ms(unsigned ms);

/* A register read or write under the link lock; asserts that the link answered. */
uint32_t sf_reg_read(gr_adapter_t *ad, uint32_t offset);
void sf_reg_write(gr_adapter_t *ad, uint32_t offset, uint32_t value);

/* Turns the engine's own watchdog off (0): a packet held on a gate then waits as long as a test
 * needs, however slowly the host runs. Returns the link's status. */
int sf_watchdog_off(gr_adapter_t *ad);

/* Opens a gate (stores 1). Under the link lock: the simulated device reads host memory only
 * inside link calls, so the store does not race with it. Returns the link's status. */
int sf_gate_open(gr_adapter_t *ad, volatile uint64_t *gate);

/* Opens gates [0, n) so that teardown never leaves a packet waiting; a link error is printed. */
void sf_gates_release(gr_adapter_t *ad, volatile uint64_t *gate, unsigned n);

gr_sched_stats_t sf_sched_stats(gr_adapter_t *ad);
uint64_t sf_cycles(gr_adapter_t *ad);
void sf_set_sched(gr_adapter_t *ad, uint64_t quantum_cycles, uint64_t tdr_timeout_cycles);

/* Polls the scheduler's counters until pred holds (wall-clock bound of about 20 s times the
 * timeout scale: the device runs meanwhile). Returns whether it did. */
bool sf_wait_until(gr_adapter_t *ad, bool (*pred)(const gr_sched_stats_t *s, const void *arg), const void *arg);

/* Creates a DMA buffer of ctx and says where it is (gr_dma_buffer_create, then _info). Returns the
 * first failing call's status. */
int sf_dma_buffer(gr_gpu_device_t *dev, gr_context_t ctx, uint32_t bytes, gr_dma_buffer_t *out_buf,
                  gr_dma_buffer_info_t *out_info);

/* A command buffer being built: one DMA buffer per submission (it names the packet). */
typedef struct sf_cmd {
    gr_gpu_device_t *dev;
    gr_dma_buffer_t h;
    uint8_t *cpu;
    uint64_t bus;
    uint64_t va; /* the buffer's GPU VA: user packets name GPU VAs only */
    gr_dma_writer_t w;
    gr_alloc_ref_t refs[4];
    uint32_t nrefs;
    gr_patch_location_t pl[8];
    uint32_t npl;
} sf_cmd_t;

/* A new 4 KiB DMA buffer of ctx, its writer at the start. */
void sf_cmd_begin(gr_gpu_device_t *dev, gr_context_t ctx, sf_cmd_t *c);

/* The allocation's GPU VA in dev's address space (asserts gr_alloc_query succeeded). */
uint64_t sf_alloc_va(gr_gpu_device_t *dev, gr_alloc_t a);

/* References an allocation (once; write widens an earlier read). Returns its index in the list. */
uint32_t sf_cmd_ref(sf_cmd_t *c, gr_alloc_t a, bool write);

/* Submits what was written, with its references and patch locations; asserts it was accepted
 * and returns its fence. */
uint64_t sf_cmd_submit(gr_gpu_device_t *dev, gr_context_t ctx, sf_cmd_t *c);

#endif
