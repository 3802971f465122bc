/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_vram_size: gpu_core's VRAM size strap (vram_bytes_i, sim://?vram=) end to end on sim://.
 * MC_VRAM_SIZE must report the size the URI straps, and the driver must size everything from
 * it: the miniport's segments, VidMm's VPR (1/16 of its segment), the page tables (their pages
 * come from the same VRAM) and the residency path. At 128 KiB, the least gpu_core may be
 * strapped to, and at 512 MiB, the most (VramBytes), the same workload runs: buffers are
 * created, each filled with its own pattern on the DMA engine, one is evicted by hand, copies
 * run between them (paging the evicted one back in), and every byte of every buffer is read
 * back through BAR1 and checked. At 128 KiB the buffers are more than fit, so VidMm also evicts
 * for room. Every resident allocation must lie inside the strapped VRAM.
 *
 * Usage: test_vram_size [--seed N] (default $GR_TEST_SEED, else 1). The seed picks the bus
 * models' random stalls and latency and the fill patterns; every check holds for every seed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuref/gr_alloc.h"
#include "gpuref/gr_easy.h"
#include "gpuref/gr_regmap.h"
#include "gpuref/gr_status.h"
#include "gr_link.h"

#define KIB UINT64_C(1024)
#define MIB (KIB * 1024)
#define BUF_BYTES (16 * KIB)
#define MAX_BUFS 12u
/* Device cycles one packet may take: a 16 KiB copy with its paging needs a few 10,000. */
#define WAIT_CYCLES 20000000ull

static unsigned long long seed = 1;

static void uri_for(char *uri, size_t n, uint64_t vram)
{
    snprintf(uri, n, "sim://?seed=%llu&vram=%llu", seed, (unsigned long long)vram);
}

static uint32_t reg(gr_link_t *link, uint32_t offset)
{
    uint32_t v = 0xdeadbeefu;
    assert_int_equal(gr_link_read32(link, offset, &v), GR_OK);
    return v;
}

/* The register reports the strap, whatever its size inside the accepted range. */
static void mc_vram_size_reports_the_strapped_size(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {128 * KIB, 192 * KIB, 1 * MIB, 48 * MIB, 512 * MIB};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char uri[96];
        uri_for(uri, sizeof uri, sizes[i]);
        gr_link_t *link = NULL;
        assert_int_equal(gr_link_open(uri, &link), GR_OK);
        uint64_t got = ((uint64_t)reg(link, GR_REG_MC_VRAM_SIZE_HI) << 32) | reg(link, GR_REG_MC_VRAM_SIZE_LO);
        if (got != sizes[i])
            fail_msg("%s: MC_VRAM_SIZE reads 0x%llx, want 0x%llx", uri, (unsigned long long)got,
                     (unsigned long long)sizes[i]);
        gr_link_close(link);
    }
}

/* A size the strap cannot take is refused with the accepted range, and opens nothing. */
static void a_size_outside_the_strap_is_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {"sim://?vram=64K", "sim://?vram=160K", "sim://?vram=1G"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gr_link_t *link = (gr_link_t *)(uintptr_t)0x1;
        assert_int_equal(gr_link_open(bad[i], &link), GR_E_BAD_URI);
        assert_ptr_equal(link, (gr_link_t *)(uintptr_t)0x1);
        if (!strstr(gr_link_error(), "128K..512M"))
            fail_msg("'%s': message '%s' does not name the range", bad[i], gr_link_error());
    }
}

typedef struct want_seg {
    uint64_t base, size;
    bool cpu_visible, vpr;
    uint64_t vpr_size;
} want_seg_t;

static void expect_segments(gr_adapter_t *ad, const want_seg_t *want, uint32_t n)
{
    gr_segment_info_t seg[4];
    uint32_t count = 0;
    assert_int_equal(gr_adapter_segments(ad, seg, 4, &count), GR_OK);
    assert_int_equal(count, n);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(seg[i].base, want[i].base);
        assert_int_equal(seg[i].size, want[i].size);
        assert_int_equal(seg[i].cpu_visible, want[i].cpu_visible);
        assert_int_equal(seg[i].vpr, want[i].vpr);
        assert_int_equal(seg[i].vpr_size, want[i].vpr_size);
        if (want[i].vpr)
            assert_true(seg[i].vpr_offset + seg[i].vpr_size <= seg[i].size);
    }
}

static uint32_t next_pattern(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return (uint32_t)(z ^ (z >> 31)) | 1u; /* never 0: a buffer never written reads 0 */
}

static void run1(gr_cmd_t *cmd)
{
    gr_status_t rc = gr_cmd_submit_wait(cmd, WAIT_CYCLES);
    if (rc)
        fail_msg("packet: %s (%s)", gr_strerror(rc), gr_last_error());
    assert_int_equal(gr_cmd_reset(cmd), GR_OK);
}

static void expect_filled(gr_gpu_device_t *dev, gr_alloc_t a, uint32_t pattern, unsigned which)
{
    static uint32_t back[BUF_BYTES / 4];
    memset(back, 0, sizeof back);
    gr_status_t rc = gr_buffer_read(dev, a, 0, back, BUF_BYTES);
    if (rc)
        fail_msg("buffer %u: read: %s (%s)", which, gr_strerror(rc), gr_last_error());
    for (uint32_t i = 0; i < BUF_BYTES / 4; i++)
        if (back[i] != pattern)
            fail_msg("buffer %u word %u: 0x%08x, want 0x%08x", which, i, back[i], pattern);
}

/* Every resident allocation lies inside the strapped VRAM. */
static void expect_inside(gr_gpu_device_t *dev, const gr_alloc_t *bufs, unsigned n, uint64_t vram)
{
    for (unsigned i = 0; i < n; i++) {
        gr_alloc_info_t info;
        assert_int_equal(gr_alloc_query(dev, bufs[i], &info), GR_OK);
        if (info.residency == GR_RESIDENCY_RESIDENT && info.vram_address + info.size > vram)
            fail_msg("buffer %u at VRAM 0x%llx + 0x%llx: past the 0x%llx bytes strapped", i,
                     (unsigned long long)info.vram_address, (unsigned long long)info.size,
                     (unsigned long long)vram);
    }
}

/*
 * n buffers, each filled with its own pattern; buffer 0 evicted by hand; copies 0 -> n-1 and
 * then 1 -> 0, each needing its source and destination resident; all read back.
 */
static void alloc_fill_copy_evict(uint64_t vram, unsigned n, const want_seg_t *segs, uint32_t nseg)
{
    char uri[96];
    uri_for(uri, sizeof uri, vram);
    gr_session_t *s = NULL;
    gr_status_t rc = gr_session_open(uri, &s);
    if (rc)
        fail_msg("%s: %s (%s)", uri, gr_strerror(rc), gr_last_error());
    gr_adapter_t *ad = gr_session_adapter(s);
    gr_gpu_device_t *dev = gr_session_device(s);
    expect_segments(ad, segs, nseg);

    gr_alloc_t bufs[MAX_BUFS] = {0};
    uint32_t pat[MAX_BUFS];
    uint64_t ps = seed ^ vram;
    gr_cmd_t *cmd = NULL;
    assert_int_equal(gr_cmd_create(dev, gr_session_context(s), 0, &cmd), GR_OK);
    for (unsigned i = 0; i < n; i++) {
        rc = gr_buffer_create(dev, BUF_BYTES, GR_BUF_CPU_READ, &bufs[i]);
        if (rc)
            fail_msg("buffer %u of %u: %s (%s)", i, n, gr_strerror(rc), gr_last_error());
        pat[i] = next_pattern(&ps);
        assert_int_equal(gr_cmd_fill(cmd, bufs[i], 0, BUF_BYTES, pat[i]), GR_OK);
        run1(cmd);
        expect_inside(dev, bufs, i + 1, vram);
    }
    gr_adapter_stats_t before;
    assert_int_equal(gr_adapter_stats(ad, &before), GR_OK);
    assert_int_equal(gr_alloc_evict(dev, &bufs[0], 1), GR_OK);
    gr_alloc_info_t info;
    assert_int_equal(gr_alloc_query(dev, bufs[0], &info), GR_OK);
    assert_int_equal(info.residency, GR_RESIDENCY_EVICTED);

    assert_int_equal(gr_cmd_copy(cmd, bufs[0], 0, bufs[n - 1], 0, BUF_BYTES), GR_OK);
    run1(cmd);
    pat[n - 1] = pat[0];
    expect_inside(dev, bufs, n, vram);
    assert_int_equal(gr_cmd_copy(cmd, bufs[1], 0, bufs[0], 0, BUF_BYTES), GR_OK);
    run1(cmd);
    pat[0] = pat[1];
    expect_inside(dev, bufs, n, vram);

    for (unsigned i = 0; i < n; i++)
        expect_filled(dev, bufs[i], pat[i], i);
    gr_adapter_stats_t after;
    assert_int_equal(gr_adapter_stats(ad, &after), GR_OK);
    assert_true(after.evictions > before.evictions);
    assert_true(after.page_ins > before.page_ins);
    assert_int_equal(after.paging_failures, 0);
    printf("# vram %llu KiB, %u buffers of %llu KiB: %llu evictions, %llu page-ins\n",
           (unsigned long long)(vram / KIB), n, (unsigned long long)(BUF_BYTES / KIB),
           (unsigned long long)after.evictions, (unsigned long long)after.page_ins);
    assert_int_equal(gr_cmd_destroy(cmd), GR_OK);
    gr_session_close(s);
}

/* 128 KiB: one CPU-visible segment, the VPR its 1/16 (8 KiB); ten 16 KiB buffers, each in its
 * own 2 MiB of VA (a table page each), are more than twice what fits beside the page tables,
 * so VidMm evicts for room (freeing the tables of what it unmaps) as well as on request. */
static void works_at_128k(void **state)
{
    (void)state;
    const want_seg_t segs[] = {{0, 128 * KIB, true, true, 8 * KIB}};
    alloc_fill_copy_evict(128 * KIB, 10, segs, 1);
}

/* 512 MiB: BAR1's 256 MiB CPU-visible, the rest GPU-only with the VPR (16 MiB). */
static void works_at_512m(void **state)
{
    (void)state;
    const want_seg_t segs[] = {{0, 256 * MIB, true, false, 0}, {256 * MIB, 256 * MIB, false, true, 16 * MIB}};
    alloc_fill_copy_evict(512 * MIB, 3, segs, 2);
}

int main(int argc, char **argv)
{
    const char *env = getenv("GR_TEST_SEED");
    if (env && *env)
        seed = strtoull(env, NULL, 0);
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
    if (!seed)
        seed = 1;
    printf("# seed=%llu (replay: test_vram_size --seed %llu)\n", seed, seed);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mc_vram_size_reports_the_strapped_size),
        cmocka_unit_test(a_size_outside_the_strap_is_refused),
        cmocka_unit_test(works_at_128k),
        cmocka_unit_test(works_at_512m),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
