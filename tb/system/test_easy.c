/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_easy: the convenience layer (gpuref/gr_easy.h) against the real stack on sim://: the
 * session, buffers and surfaces from a size and flags, CPU reads and writes, and the command
 * writer's allocation list and submit-and-wait, with the DMA engine in gpu_core doing the work.
 * Bad input (NULL, zero sizes, ranges past an allocation, a handle of another device, a full
 * writer or list, a writer in flight) gets its status and a detail in gr_last_error(), and
 * changes nothing: the writer's bytes and list, the adapter's DDI counters stay as they were.
 *
 * Usage: test_easy [--seed N] (default $GR_TEST_SEED, else 1). The seed picks the bus models'
 * random stalls and latency; every result must be the same for every seed.
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
#include "gpuref/gr_status.h"
#include "gpuref/gr_submit.h"

/* Device cycles any packet here may take: a 4 MiB fill needs about half a million. */
#define WAIT_CYCLES 50000000ull

static unsigned long long seed = 1;
static char uri[96];

static void assert_says(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("expected \"%s\" in \"%s\"", want, text);
}

static gr_session_t *open_session(void)
{
    gr_session_t *s = NULL;
    int rc = gr_session_open(uri, &s);
    if (rc)
        fail_msg("gr_session_open(%s): %s (%s)", uri, gr_strerror(rc), gr_last_error());
    return s;
}

static gr_cmd_info_t cmd_info(const gr_cmd_t *c)
{
    gr_cmd_info_t i;
    assert_int_equal(gr_cmd_info(c, &i), GR_OK);
    return i;
}

static uint64_t creates(gr_session_t *s)
{
    gr_adapter_stats_t st;
    assert_int_equal(gr_adapter_stats(gr_session_adapter(s), &st), GR_OK);
    return st.ddi_create_allocation;
}

/* A writer's recorded state: bytes, list; compared before and after a refused call. */
typedef struct snapshot {
    gr_cmd_info_t info;
    gr_alloc_ref_t refs[8];
    uint32_t n;
    uint8_t bytes[256];
} snapshot_t;

static void snap(gr_cmd_t *c, snapshot_t *out)
{
    memset(out, 0, sizeof *out);
    out->info = cmd_info(c);
    assert_int_equal(gr_cmd_allocs(c, out->refs, 8, &out->n), GR_OK);
    gr_dma_writer_t *w = gr_cmd_writer(c);
    if (w)
        memcpy(out->bytes, w->buf, out->info.used < sizeof out->bytes ? out->info.used : sizeof out->bytes);
}

static void assert_unchanged(gr_cmd_t *c, const snapshot_t *before)
{
    snapshot_t now;
    snap(c, &now);
    assert_int_equal(now.info.used, before->info.used);
    assert_int_equal(now.info.alloc_count, before->info.alloc_count);
    assert_int_equal(now.info.in_flight, before->info.in_flight);
    assert_int_equal(now.n, before->n);
    assert_memory_equal(now.refs, before->refs, sizeof now.refs);
    assert_memory_equal(now.bytes, before->bytes, sizeof now.bytes);
}

/* ---- session ---- */

static void session_opens_a_device_and_a_context(void **state)
{
    (void)state;
    gr_session_t *s = open_session();
    assert_non_null(gr_session_adapter(s));
    assert_non_null(gr_session_process(s));
    assert_non_null(gr_session_device(s));
    assert_int_not_equal(gr_session_context(s), 0);
    gr_context_info_t ci;
    assert_int_equal(gr_context_info(gr_session_device(s), gr_session_context(s), &ci), GR_OK);
    assert_false(ci.lost);
    gr_session_close(s);
    gr_session_close(NULL);
    assert_null(gr_session_device(NULL));
    assert_int_equal(gr_session_context(NULL), 0);
}

static void session_open_refuses_bad_input(void **state)
{
    (void)state;
    gr_session_t *s = (gr_session_t *)(uintptr_t)0x1;
    assert_int_equal(gr_session_open("bogus://", &s), GR_E_BAD_URI);
    assert_ptr_equal(s, (gr_session_t *)(uintptr_t)0x1);
    assert_says(gr_last_error(), "sim://");
    assert_int_equal(gr_session_open(uri, NULL), GR_E_INVALID);
    assert_says(gr_last_error(), "out_session is NULL");
}

/* ---- buffers and surfaces ---- */

static void buffer_from_a_size_and_flags(void **state)
{
    gr_session_t *s = *state;
    gr_gpu_device_t *dev = gr_session_device(s);
    gr_alloc_t gpu = 0, cpu = 0;
    assert_int_equal(gr_buffer_create(dev, 100000, 0, &gpu), GR_OK);
    assert_int_equal(gr_buffer_create(dev, 1, GR_BUF_CPU_READ | GR_BUF_CPU_WRITE, &cpu), GR_OK);
    gr_alloc_info_t gi, ci;
    assert_int_equal(gr_alloc_query(dev, gpu, &gi), GR_OK);
    assert_int_equal(gr_alloc_query(dev, cpu, &ci), GR_OK);
    /* Whole pages, mapped, in VRAM; the CPU-visible one in segment 1 (host/kmd/README.md). */
    assert_true(gi.size >= 100000 && gi.size % 4096 == 0);
    assert_int_equal(ci.size % 4096, 0);
    assert_int_not_equal(gi.gpu_va, 0);
    assert_int_equal(ci.segment, 1);
    assert_int_equal(gi.residency, GR_RESIDENCY_RESIDENT);
    assert_int_equal(gr_alloc_destroy(dev, gpu), GR_OK);
    assert_int_equal(gr_alloc_destroy(dev, cpu), GR_OK);
}

static void buffer_create_refuses_bad_input(void **state)
{
    gr_session_t *s = *state;
    gr_gpu_device_t *dev = gr_session_device(s);
    const uint64_t before = creates(s);
    gr_alloc_t a = 0x5a5a5a5a;
    assert_int_equal(gr_buffer_create(dev, 0, 0, &a), GR_E_RANGE);
    assert_says(gr_last_error(), "0 bytes (accepted: 1..");
    assert_int_equal(gr_buffer_create(dev, GR_BUFFER_MAX_BYTES + 1, 0, &a), GR_E_RANGE);
    assert_int_equal(gr_buffer_create(dev, 4096, 0x80, &a), GR_E_INVALID);
    assert_says(gr_last_error(), "unknown flag bits 0x80");
    assert_int_equal(gr_buffer_create(NULL, 4096, 0, &a), GR_E_INVALID);
    assert_says(gr_last_error(), "device is NULL");
    assert_int_equal(gr_buffer_create(dev, 4096, 0, NULL), GR_E_INVALID);
    assert_int_equal(a, 0x5a5a5a5a);
    /* Refused before the driver: no DxgkDdiCreateAllocation was made. */
    assert_int_equal(creates(s), before);
}

static void surface_from_width_height_and_format(void **state)
{
    gr_session_t *s = *state;
    gr_gpu_device_t *dev = gr_session_device(s);
    gr_alloc_t a = 0;
    assert_int_equal(gr_surface_create(dev, 64, 32, 0, GR_BUF_CPU_READ, &a), GR_OK);
    gr_alloc_info_t info;
    assert_int_equal(gr_alloc_query(dev, a, &info), GR_OK);
    assert_true(info.pitch >= 64 * 4); /* A8R8G8B8: 4 bytes a texel */
    assert_true(info.size >= (uint64_t)info.pitch * 32);
    assert_int_equal(gr_alloc_destroy(dev, a), GR_OK);

    const uint64_t before = creates(s);
    gr_alloc_t b = 0x77;
    assert_int_equal(gr_surface_create(dev, 0, 32, 0, 0, &b), GR_E_RANGE);
    assert_says(gr_last_error(), "0x32 texels");
    assert_int_equal(gr_surface_create(dev, 16385, 1, 0, 0, &b), GR_E_RANGE);
    assert_int_equal(creates(s), before);
    /* A format the miniport does not know: DxgkDdiCreateAllocation refuses it, nothing is made. */
    gr_adapter_stats_t st0, st1;
    assert_int_equal(gr_adapter_stats(gr_session_adapter(s), &st0), GR_OK);
    assert_int_equal(gr_surface_create(dev, 8, 8, 9999, 0, &b), GR_E_INVALID);
    assert_says(gr_last_error(), "format 9999");
    assert_int_equal(gr_adapter_stats(gr_session_adapter(s), &st1), GR_OK);
    assert_int_equal(st1.kmd_allocations, st0.kmd_allocations);
    assert_int_equal(b, 0x77);
}

static void cpu_write_then_read_back(void **state)
{
    gr_session_t *s = *state;
    gr_gpu_device_t *dev = gr_session_device(s);
    gr_alloc_t a = 0, g = 0;
    assert_int_equal(gr_buffer_create(dev, 3 * 4096, GR_BUF_CPU_READ | GR_BUF_CPU_WRITE, &a), GR_OK);
    uint8_t out[5000], in[5000];
    for (size_t i = 0; i < sizeof out; i++)
        out[i] = (uint8_t)(i * 7 + seed);
    /* Across a page boundary, at an odd offset. */
    assert_int_equal(gr_buffer_write(dev, a, 4000, out, sizeof out), GR_OK);
    memset(in, 0xee, sizeof in);
    assert_int_equal(gr_buffer_read(dev, a, 4000, in, sizeof in), GR_OK);
    assert_memory_equal(in, out, sizeof in);

    uint8_t keep[16];
    memset(keep, 0xcd, sizeof keep);
    memcpy(in, keep, sizeof keep);
    assert_int_equal(gr_buffer_read(dev, a, 3 * 4096 - 8, in, 16), GR_E_RANGE);
    assert_says(gr_last_error(), "not inside it");
    assert_memory_equal(in, keep, sizeof keep);
    assert_int_equal(gr_buffer_read(dev, a, 0, in, 0), GR_E_RANGE);
    assert_int_equal(gr_buffer_read(dev, a, 0, NULL, 8), GR_E_INVALID);
    /* A GPU-only buffer has no CPU view. */
    assert_int_equal(gr_buffer_create(dev, 4096, 0, &g), GR_OK);
    assert_int_equal(gr_buffer_read(dev, g, 0, in, 8), GR_E_INVALID);
    assert_says(gr_last_error(), "GR_BUF_CPU_READ");
    assert_memory_equal(in, keep, sizeof keep);
    assert_int_equal(gr_alloc_destroy(dev, g), GR_OK);
    assert_int_equal(gr_alloc_destroy(dev, a), GR_OK);
}

/* ---- the command writer ---- */

static void fill_copy_submit_wait_reads_back(void **state)
{
    gr_session_t *s = *state;
    gr_gpu_device_t *dev = gr_session_device(s);
    const uint64_t bytes = 256 * 1024;
    const uint32_t pattern = 0xa5000000u ^ (uint32_t)seed;
    gr_alloc_t src = 0, dst = 0;
    assert_int_equal(gr_buffer_create(dev, bytes, 0, &src), GR_OK);
    assert_int_equal(gr_buffer_create(dev, bytes, GR_BUF_CPU_READ, &dst), GR_OK);
    gr_cmd_t *c = NULL;
    assert_int_equal(gr_cmd_create(dev, gr_session_context(s), 0, &c), GR_OK);
    assert_int_equal(cmd_info(c).capacity, GR_CMD_DEFAULT_BYTES);
    assert_int_equal(gr_cmd_fill(c, src, 0, bytes, pattern), GR_OK);
    /* The second half first, then the first: two commands, one list entry each way. */
    assert_int_equal(gr_cmd_copy(c, src, bytes / 2, dst, bytes / 2, bytes / 2), GR_OK);
    assert_int_equal(gr_cmd_copy(c, src, 0, dst, 0, bytes / 2), GR_OK);
    gr_alloc_ref_t refs[4];
    uint32_t n = 0;
    assert_int_equal(gr_cmd_allocs(c, refs, 4, &n), GR_OK);
    assert_int_equal(n, 2);
    assert_int_equal(refs[0].handle, src);
    assert_int_equal(refs[0].flags, GR_ALLOC_REF_WRITE); /* the FILL writes it */
    assert_int_equal(refs[1].handle, dst);
    assert_int_equal(refs[1].flags, GR_ALLOC_REF_WRITE);
    assert_int_equal(cmd_info(c).used, 8 * (GR_DMA_FILL_QWORDS + 2 * GR_DMA_COPY_QWORDS));

    assert_int_equal(gr_cmd_submit_wait(c, WAIT_CYCLES), GR_OK);
    gr_cmd_info_t after = cmd_info(c);
    assert_false(after.in_flight);
    assert_int_equal(after.used, 0);
    assert_int_equal(after.alloc_count, 0);
    assert_int_not_equal(after.fence, 0);

    uint32_t *back = malloc(bytes);
    assert_non_null(back);
    assert_int_equal(gr_buffer_read(dev, dst, 0, back, bytes), GR_OK);
    for (uint64_t i = 0; i < bytes / 4; i++)
        if (back[i] != pattern)
            fail_msg("word %llu reads 0x%08x, not 0x%08x (seed %llu)", (unsigned long long)i, back[i], pattern, seed);
    free(back);
    /* The writer records anew after the wait. */
    assert_int_equal(gr_cmd_fill(c, dst, 0, 8, 1), GR_OK);
    assert_int_equal(gr_cmd_submit_wait(c, WAIT_CYCLES), GR_OK);
    uint64_t first = 0;
    assert_int_equal(gr_buffer_read(dev, dst, 0, &first, 8), GR_OK);
    assert_int_equal(first, 0x0000000100000001ull);
    assert_int_equal(gr_cmd_destroy(c), GR_OK);
    assert_int_equal(gr_alloc_destroy(dev, src), GR_OK);
    assert_int_equal(gr_alloc_destroy(dev, dst), GR_OK);
}

static void copy_lists_its_source_as_read(void **state)
{
    gr_session_t *s = *state;
    gr_gpu_device_t *dev = gr_session_device(s);
    gr_alloc_t a = 0, b = 0;
    assert_int_equal(gr_buffer_create(dev, 8192, 0, &a), GR_OK);
    assert_int_equal(gr_buffer_create(dev, 8192, 0, &b), GR_OK);
    gr_cmd_t *c = NULL;
    assert_int_equal(gr_cmd_create(dev, gr_session_context(s), 4096, &c), GR_OK);
    assert_int_equal(gr_cmd_copy(c, a, 0, b, 0, 4096), GR_OK);
    assert_int_equal(gr_cmd_copy(c, a, 4096, b, 4096, 4096), GR_OK);
    /* Within one allocation, ranges apart. */
    assert_int_equal(gr_cmd_copy(c, b, 0, b, 4096, 4096), GR_OK);
    gr_alloc_ref_t refs[4];
    uint32_t n = 0;
    assert_int_equal(gr_cmd_allocs(c, refs, 4, &n), GR_OK);
    assert_int_equal(n, 2);
    assert_int_equal(refs[0].handle, a);
    assert_int_equal(refs[0].flags, 0);
    assert_int_equal(refs[1].handle, b);
    assert_int_equal(refs[1].flags, GR_ALLOC_REF_WRITE);
    /* gr_cmd_use marks a as written; out_refs may be short. */
    assert_int_equal(gr_cmd_use(c, a, GR_ALLOC_REF_WRITE), GR_OK);
    assert_int_equal(gr_cmd_allocs(c, refs, 1, &n), GR_OK);
    assert_int_equal(n, 2);
    assert_int_equal(refs[0].flags, GR_ALLOC_REF_WRITE);
    assert_int_equal(gr_cmd_submit_wait(c, WAIT_CYCLES), GR_OK);
    assert_int_equal(gr_cmd_destroy(c), GR_OK);
    assert_int_equal(gr_alloc_destroy(dev, a), GR_OK);
    assert_int_equal(gr_alloc_destroy(dev, b), GR_OK);
}

static void bad_operands_change_nothing(void **state)
{
    gr_session_t *s = *state;
    gr_gpu_device_t *dev = gr_session_device(s);
    gr_alloc_t a = 0, mine = 0, other = 0;
    assert_int_equal(gr_buffer_create(dev, 8192, 0, &a), GR_OK);
    /* Another device of the same process, and its buffer. */
    gr_gpu_device_t *dev2 = NULL;
    assert_int_equal(gr_gpu_device_create(gr_session_process(s), &dev2), GR_OK);
    assert_int_equal(gr_buffer_create(dev2, 8192, 0, &other), GR_OK);
    assert_int_equal(gr_buffer_create(dev, 8192, 0, &mine), GR_OK);

    gr_cmd_t *c = NULL;
    assert_int_equal(gr_cmd_create(dev, gr_session_context(s), 0, &c), GR_OK);
    assert_int_equal(gr_cmd_fill(c, a, 0, 64, 0x1234), GR_OK);
    snapshot_t before;
    snap(c, &before);

    assert_int_equal(gr_cmd_fill(c, other, 0, 64, 1), GR_E_INVALID);
    assert_says(gr_last_error(), "is not a live allocation of this device");
    assert_int_equal(gr_cmd_copy(c, other, 0, a, 64, 64), GR_E_INVALID);
    assert_int_equal(gr_cmd_copy(c, a, 0, other, 0, 64), GR_E_INVALID);
    assert_int_equal(gr_cmd_use(c, other, 0), GR_E_INVALID);
    assert_int_equal(gr_cmd_fill(c, 0, 0, 64, 1), GR_E_INVALID);
    assert_int_equal(gr_cmd_fill(c, a, 0, 0, 1), GR_E_RANGE);
    assert_says(gr_last_error(), "is empty");
    assert_int_equal(gr_cmd_fill(c, a, 8192 - 8, 16, 1), GR_E_RANGE);
    assert_says(gr_last_error(), "not inside it");
    assert_int_equal(gr_cmd_fill(c, a, UINT64_MAX - 7, 16, 1), GR_E_RANGE);
    assert_int_equal(gr_cmd_copy(c, a, 0, mine, 8192, 8), GR_E_RANGE);
    assert_int_equal(gr_cmd_fill(c, a, 4, 64, 1), GR_E_ALIGN);
    assert_says(gr_last_error(), "multiples of 8");
    assert_int_equal(gr_cmd_copy(c, a, 0, mine, 0, 12), GR_E_ALIGN);
    assert_int_equal(gr_cmd_copy(c, a, 0, a, 32, 64), GR_E_INVALID);
    assert_says(gr_last_error(), "overlap");
    assert_int_equal(gr_cmd_use(c, mine, 0x2), GR_E_INVALID);
    assert_int_equal(gr_cmd_fill(NULL, a, 0, 64, 1), GR_E_INVALID);
    assert_says(gr_last_error(), "cmd is NULL");
    assert_unchanged(c, &before);

    /* What was recorded before still runs. */
    assert_int_equal(gr_cmd_submit_wait(c, WAIT_CYCLES), GR_OK);
    assert_int_equal(gr_cmd_destroy(c), GR_OK);
    assert_int_equal(gr_cmd_destroy(NULL), GR_E_INVALID);

    /* A writer of another device's context is refused at creation. */
    gr_cmd_t *c2 = (gr_cmd_t *)(uintptr_t)0x1;
    assert_int_equal(gr_cmd_create(dev2, gr_session_context(s), 0, &c2), GR_E_INVALID);
    assert_says(gr_last_error(), "is not a live context of this device");
    assert_int_equal(gr_cmd_create(dev, gr_session_context(s), GR_DMA_BUFFER_MAX_BYTES + 8, &c2), GR_E_RANGE);
    assert_ptr_equal(c2, (gr_cmd_t *)(uintptr_t)0x1);

    gr_gpu_device_destroy(dev2);
    assert_int_equal(gr_alloc_destroy(dev, a), GR_OK);
    assert_int_equal(gr_alloc_destroy(dev, mine), GR_OK);
}

static void full_writer_refuses_and_keeps_what_it_has(void **state)
{
    gr_session_t *s = *state;
    gr_gpu_device_t *dev = gr_session_device(s);
    gr_alloc_t a = 0, b = 0;
    assert_int_equal(gr_buffer_create(dev, 8192, GR_BUF_CPU_READ, &a), GR_OK);
    assert_int_equal(gr_buffer_create(dev, 8192, 0, &b), GR_OK);
    gr_cmd_t *c = NULL;
    /* 64 bytes: two FILLs (24 bytes each) fit, a third FILL or a COPY (32) does not. */
    assert_int_equal(gr_cmd_create(dev, gr_session_context(s), 64, &c), GR_OK);
    assert_int_equal(cmd_info(c).capacity, 64);
    assert_int_equal(gr_cmd_fill(c, a, 0, 4096, 0x11111111), GR_OK);
    assert_int_equal(gr_cmd_fill(c, a, 4096, 4096, 0x22222222), GR_OK);
    snapshot_t before;
    snap(c, &before);
    assert_int_equal(gr_cmd_fill(c, b, 0, 8, 3), GR_E_RANGE);
    assert_says(gr_last_error(), "the writer is full (48 of 64 bytes used)");
    assert_int_equal(gr_cmd_copy(c, a, 0, b, 0, 8), GR_E_RANGE);
    assert_unchanged(c, &before);
    assert_int_equal(gr_cmd_submit_wait(c, WAIT_CYCLES), GR_OK);
    uint32_t w[2];
    assert_int_equal(gr_buffer_read(dev, a, 4092, w, 8), GR_OK);
    assert_int_equal(w[0], 0x11111111);
    assert_int_equal(w[1], 0x22222222);

    /* A command written through the encoders that does not fit: submit refuses until a reset. */
    gr_dma_writer_t *dw = gr_cmd_writer(c);
    assert_non_null(dw);
    assert_int_equal(gr_dma_nop(dw), 0);
    assert_int_equal(gr_dma_copy(dw, GR_DMA_SPACE_GPUVA, 0, GR_DMA_SPACE_GPUVA, 0, 8), 0);
    assert_int_equal(gr_dma_copy(dw, GR_DMA_SPACE_GPUVA, 0, GR_DMA_SPACE_GPUVA, 0, 8), -1);
    assert_int_equal(gr_cmd_submit(c, NULL), GR_E_RANGE);
    assert_says(gr_last_error(), "did not fit");
    assert_false(cmd_info(c).in_flight);
    assert_int_equal(gr_cmd_reset(c), GR_OK);
    assert_int_equal(cmd_info(c).used, 0);
    assert_int_equal(gr_cmd_submit(c, NULL), GR_E_INVALID);
    assert_says(gr_last_error(), "nothing recorded");
    assert_int_equal(gr_cmd_destroy(c), GR_OK);
    assert_int_equal(gr_alloc_destroy(dev, a), GR_OK);
    assert_int_equal(gr_alloc_destroy(dev, b), GR_OK);
}

static void full_allocation_list_refuses_the_next_one(void **state)
{
    gr_session_t *s = *state;
    gr_gpu_device_t *dev = gr_session_device(s);
    enum { N = GR_SUBMIT_MAX_ALLOCS + 1 };
    gr_alloc_t *h = calloc(N, sizeof *h);
    assert_non_null(h);
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal(gr_buffer_create(dev, 4096, 0, &h[i]), GR_OK);
    gr_cmd_t *c = NULL;
    assert_int_equal(gr_cmd_create(dev, gr_session_context(s), 0, &c), GR_OK);
    for (uint32_t i = 0; i < GR_SUBMIT_MAX_ALLOCS; i++)
        assert_int_equal(gr_cmd_fill(c, h[i], 0, 8, i), GR_OK);
    snapshot_t before;
    snap(c, &before);
    assert_int_equal(gr_cmd_fill(c, h[N - 1], 0, 8, 1), GR_E_RANGE);
    assert_says(gr_last_error(), "the allocation list is full");
    assert_int_equal(gr_cmd_use(c, h[N - 1], 0), GR_E_RANGE);
    /* A COPY between two listed allocations needs no new entry. */
    assert_unchanged(c, &before);
    assert_int_equal(gr_cmd_copy(c, h[0], 0, h[1], 8, 8), GR_OK);
    assert_int_equal(cmd_info(c).alloc_count, GR_SUBMIT_MAX_ALLOCS);
    assert_int_equal(gr_cmd_submit_wait(c, WAIT_CYCLES), GR_OK);
    assert_int_equal(gr_cmd_destroy(c), GR_OK);
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal(gr_alloc_destroy(dev, h[i]), GR_OK);
    free(h);
}

static void writer_in_flight_refuses_until_waited(void **state)
{
    gr_session_t *s = *state;
    gr_gpu_device_t *dev = gr_session_device(s);
    gr_alloc_t a = 0;
    assert_int_equal(gr_buffer_create(dev, 4 << 20, 0, &a), GR_OK);
    gr_cmd_t *c = NULL;
    assert_int_equal(gr_cmd_create(dev, gr_session_context(s), 0, &c), GR_OK);
    assert_int_equal(gr_cmd_wait(c, 0), GR_E_INVALID);
    assert_says(gr_last_error(), "nothing in flight");
    assert_int_equal(gr_cmd_fill(c, a, 0, 4 << 20, 0xfeed), GR_OK);
    uint64_t fence = 0;
    assert_int_equal(gr_cmd_submit(c, &fence), GR_OK);
    assert_int_not_equal(fence, 0);
    gr_cmd_info_t i = cmd_info(c);
    assert_true(i.in_flight);
    assert_int_equal(i.fence, fence);
    /* A 4 MiB fill takes about half a million cycles: a look right away finds it running. */
    assert_int_equal(gr_cmd_wait(c, 0), GR_E_TIMEOUT);
    assert_true(cmd_info(c).in_flight);
    assert_int_equal(gr_cmd_fill(c, a, 0, 8, 1), GR_E_BUSY);
    assert_says(gr_last_error(), "in flight");
    assert_int_equal(gr_cmd_copy(c, a, 0, a, 8, 8), GR_E_BUSY);
    assert_int_equal(gr_cmd_use(c, a, 0), GR_E_BUSY);
    assert_int_equal(gr_cmd_reset(c), GR_E_BUSY);
    assert_int_equal(gr_cmd_submit(c, NULL), GR_E_BUSY);
    assert_int_equal(gr_cmd_destroy(c), GR_E_BUSY);
    assert_null(gr_cmd_writer(c));
    assert_int_equal(cmd_info(c).used, 8 * GR_DMA_FILL_QWORDS);
    assert_int_equal(gr_cmd_wait(c, WAIT_CYCLES), GR_OK);
    assert_false(cmd_info(c).in_flight);
    assert_int_equal(gr_cmd_destroy(c), GR_OK);
    assert_int_equal(gr_alloc_destroy(dev, a), GR_OK);
}

static void cancelled_packet_leaves_the_writer_empty(void **state)
{
    gr_session_t *s = *state;
    gr_gpu_device_t *dev = gr_session_device(s);
    gr_alloc_t a = 0;
    assert_int_equal(gr_buffer_create(dev, 8 << 20, 0, &a), GR_OK);
    gr_cmd_t *c = NULL;
    assert_int_equal(gr_cmd_create(dev, gr_session_context(s), 0, &c), GR_OK);
    assert_int_equal(gr_cmd_fill(c, a, 0, 8 << 20, 0xdead), GR_OK);
    assert_int_equal(gr_cmd_submit(c, NULL), GR_OK);
    /* An 8 MiB fill runs about a million cycles: the cancel takes it off the engine. */
    uint32_t cancelled = 0;
    assert_int_equal(gr_cancel(dev, gr_session_context(s), &cancelled), GR_OK);
    assert_int_equal(cancelled, 1);
    assert_int_equal(gr_cmd_wait(c, WAIT_CYCLES), GR_E_CANCELLED);
    gr_cmd_info_t i = cmd_info(c);
    assert_false(i.in_flight);
    assert_int_equal(i.used, 0);
    assert_int_equal(i.alloc_count, 0);
    /* It records and runs again. */
    assert_int_equal(gr_cmd_fill(c, a, 0, 64, 1), GR_OK);
    assert_int_equal(gr_cmd_submit_wait(c, WAIT_CYCLES), GR_OK);
    assert_int_equal(gr_cmd_destroy(c), GR_OK);
    assert_int_equal(gr_alloc_destroy(dev, a), GR_OK);
}

static void info_and_allocs_refuse_null(void **state)
{
    (void)state;
    gr_cmd_info_t i;
    uint32_t n = 7;
    assert_int_equal(gr_cmd_info(NULL, &i), GR_E_INVALID);
    assert_int_equal(gr_cmd_allocs(NULL, NULL, 0, &n), GR_E_INVALID);
    assert_int_equal(n, 7);
    assert_null(gr_cmd_writer(NULL));
    assert_int_equal(gr_cmd_reset(NULL), GR_E_INVALID);
    assert_int_equal(gr_cmd_submit(NULL, NULL), GR_E_INVALID);
    assert_int_equal(gr_cmd_wait(NULL, 0), GR_E_INVALID);
    assert_int_equal(gr_cmd_create(NULL, 1, 0, &(gr_cmd_t *){NULL}), GR_E_INVALID);
}

static int setup(void **state)
{
    *state = open_session();
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    gr_session_close(*state);
    return 0;
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
    snprintf(uri, sizeof uri, "sim://?seed=%llu", seed);
    printf("# seed=%llu (replay: test_easy --seed %llu)\n", seed, seed);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(session_opens_a_device_and_a_context),
        cmocka_unit_test(session_open_refuses_bad_input),
        cmocka_unit_test(buffer_from_a_size_and_flags),
        cmocka_unit_test(buffer_create_refuses_bad_input),
        cmocka_unit_test(surface_from_width_height_and_format),
        cmocka_unit_test(cpu_write_then_read_back),
        cmocka_unit_test(fill_copy_submit_wait_reads_back),
        cmocka_unit_test(copy_lists_its_source_as_read),
        cmocka_unit_test(bad_operands_change_nothing),
        cmocka_unit_test(full_writer_refuses_and_keeps_what_it_has),
        cmocka_unit_test(full_allocation_list_refuses_the_next_one),
        cmocka_unit_test(writer_in_flight_refuses_until_waited),
        cmocka_unit_test(cancelled_packet_leaves_the_writer_empty),
        cmocka_unit_test(info_and_allocs_refuse_null),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
