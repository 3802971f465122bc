/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_alloc_private: libFuzzer harness for the private data a UMD hands the miniport
 * (gr_alloc_private_t, gr_resource_private_t) through gr_alloc_create, on one sim:// adapter
 * kept for the whole run (DxgkDdiCreateAllocation, VidMm's flag rules and placement, the GPU
 * VA mapping over the link).
 *
 * Input: byte 0 = how many allocations (1..4, low 2 bits) and whether a resource blob follows
 * (bit 2) and whether the sizes are taken from the input (bit 3); then, when sizes are taken,
 * one size byte per blob; then the resource blob (32 bytes) if any, then one 64-byte
 * gr_alloc_private_t per allocation. Bytes the input does not reach come from a valid 4 KiB
 * buffer request, so short inputs are mostly valid and mutations stay near the accepted set.
 *
 * Checked on every input:
 *   - gr_alloc_create returns a documented status (GR_OK, GR_E_INVALID, GR_E_NO_MEMORY,
 *     GR_E_NOT_FOUND, GR_E_RANGE);
 *   - on failure the output handles are untouched and nothing was left behind: the miniport's
 *     live allocations and resources and the segments' free bytes are as before;
 *   - on success every handle answers gr_alloc_query with a size that holds the request
 *     (buffers: at least buffer_bytes), and gr_alloc_destroy of each gives everything back;
 *   - an accepted blob obeys gr_alloc_private.h: the version and sizes exact, reserved words zero,
 *     no unknown flag bit, a known kind.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dxgk_testing.h"
#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_status.h"
#include "gr_link.h"
#include "kmd.h"

#define MAX_ALLOCS 4u
#define MAX_SEGMENTS 8u

static gr_adapter_t *g_adapter;
static gr_process_t *g_process;
static gr_gpu_device_t *g_device;

static void fail(const char *what, int rc)
{
    fprintf(stderr, "fuzz_alloc_private: %s (status %s)\n", what, gr_status_name(rc));
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    unsetenv("GR_SIM_SEED");
    unsetenv("GR_SIM_FST");
    unsetenv("GR_SIM_AXILOG");
    /* 1 MiB of VRAM: a freed page is zeroed before it is handed out again (host/dxgk/README.md,
     * "Stale VRAM"), in FILL packets the RTL runs at about 1 MiB a second here, so an input's
     * cost grows with the VRAM it may take. With 32 MiB the fuzzer drifted to 4 MiB buffers (3 s
     * each) and a run of 4,000 inputs took from 7 to 473 s by what it found; with 1 MiB none
     * takes more than a tenth of a second, and "does not fit" is reached sooner. */
    int rc = gr_adapter_open("sim://?seed=1&vram=1M", &g_adapter);
    if (!rc)
        rc = gr_process_create(g_adapter, &g_process);
    if (!rc)
        rc = gr_gpu_device_create(g_process, &g_device);
    if (rc) {
        fprintf(stderr, "fuzz_alloc_private: cannot start the adapter: %s (%s)\n", gr_status_name(rc),
                gr_link_error());
        exit(1);
    }
    return 0;
}

/* What must come back after every input: live miniport objects and free space per segment. */
typedef struct footprint {
    gr_kmd_counts_t kmd;
    uint32_t segments;
    uint64_t free_bytes[MAX_SEGMENTS];
} footprint_t;

static footprint_t footprint(void)
{
    footprint_t f;
    memset(&f, 0, sizeof f);
    if (gr_kmd_counts(gr_dxgk_test_hadapter(g_adapter), &f.kmd) != STATUS_SUCCESS)
        fail("gr_kmd_counts", 0);
    /* Not the miniport's packet states: a create that zeroes reused VRAM runs FILL paging
     * packets, and the miniport frees a completed packet's state in its next DPC, which may
     * come after VidSch saw the fence and the call returned (as on Windows: ISR, then DPC). */
    f.kmd.packets = 0;
    gr_segment_info_t seg[MAX_SEGMENTS];
    int rc = gr_adapter_segments(g_adapter, seg, MAX_SEGMENTS, &f.segments);
    if (rc)
        fail("gr_adapter_segments", rc);
    for (uint32_t i = 0; i < f.segments && i < MAX_SEGMENTS; i++)
        f.free_bytes[i] = seg[i].free_bytes;
    return f;
}

static bool blob_is_well_formed(const gr_alloc_private_t *p, uint32_t size)
{
    if (size != sizeof *p || p->version != GR_ALLOC_PRIVATE_VERSION || p->struct_size != sizeof *p)
        return false;
    if (p->flags & ~GR_ALLOC_PRIV_ALL_FLAGS)
        return false;
    if (p->kind != GR_ALLOC_KIND_BUFFER && p->kind != GR_ALLOC_KIND_SURFACE2D)
        return false;
    for (unsigned i = 0; i < 4; i++)
        if (p->reserved[i])
            return false;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t at = 0;
    const uint8_t mode = size ? data[at++] : 0;
    const uint32_t count = (mode & 3u) + 1u;
    const bool with_resource = mode & 4u;
    const bool sizes_from_input = mode & 8u;

    uint32_t priv_size[MAX_ALLOCS], res_size = sizeof(gr_resource_private_t);
    for (uint32_t i = 0; i < count; i++)
        priv_size[i] = sizeof(gr_alloc_private_t);
    if (sizes_from_input) {
        if (with_resource && at < size)
            res_size = data[at++];
        for (uint32_t i = 0; i < count && at < size; i++)
            priv_size[i] = data[at++];
    }

    /* Blobs: a valid template, overwritten by as much of the input as is left. */
    uint8_t res_bytes[256]; /* a size byte reaches 255: the caller owns that many */
    gr_resource_private_t res_template = {.version = GR_ALLOC_PRIVATE_VERSION,
                                          .struct_size = sizeof(gr_resource_private_t)};
    memset(res_bytes, 0, sizeof res_bytes);
    memcpy(res_bytes, &res_template, sizeof res_template);
    if (with_resource) {
        size_t n = size - at < sizeof res_template ? size - at : sizeof res_template;
        memcpy(res_bytes, data + at, n);
        at += n;
    }
    uint8_t priv_bytes[MAX_ALLOCS][256];
    gr_alloc_private_t priv_template = {.version = GR_ALLOC_PRIVATE_VERSION,
                                        .struct_size = sizeof(gr_alloc_private_t),
                                        .kind = GR_ALLOC_KIND_BUFFER,
                                        .buffer_bytes = 4096};
    for (uint32_t i = 0; i < count; i++) {
        memset(priv_bytes[i], 0, sizeof priv_bytes[i]);
        memcpy(priv_bytes[i], &priv_template, sizeof priv_template);
        size_t n = size - at < sizeof priv_template ? size - at : sizeof priv_template;
        memcpy(priv_bytes[i], data + at, n);
        at += n;
    }

    gr_alloc_desc_t descs[MAX_ALLOCS];
    memset(descs, 0, sizeof descs);
    for (uint32_t i = 0; i < count; i++) {
        descs[i].private_data = priv_bytes[i];
        descs[i].private_size = priv_size[i];
    }
    gr_resource_desc_t res = {.private_data = res_bytes, .private_size = res_size, .flags = 0};

    const footprint_t before = footprint();
    gr_alloc_t handles[MAX_ALLOCS];
    for (uint32_t i = 0; i < MAX_ALLOCS; i++)
        handles[i] = 0xa5a5a5a5u;
    int rc = gr_alloc_create(g_device, with_resource ? &res : NULL, descs, count, handles, NULL);
    if (rc != GR_OK) {
        if (rc != GR_E_INVALID && rc != GR_E_NO_MEMORY && rc != GR_E_NOT_FOUND && rc != GR_E_RANGE)
            fail("gr_alloc_create returned an undocumented status", rc);
        for (uint32_t i = 0; i < MAX_ALLOCS; i++)
            if (handles[i] != 0xa5a5a5a5u)
                fail("gr_alloc_create wrote a handle and failed", rc);
        const footprint_t after = footprint();
        if (memcmp(&before, &after, sizeof before) != 0)
            fail("a failed gr_alloc_create left something behind (miniport objects or segment space)", rc);
        return 0;
    }
    for (uint32_t i = 0; i < count; i++) {
        gr_alloc_private_t p;
        memcpy(&p, priv_bytes[i], sizeof p);
        if (!blob_is_well_formed(&p, priv_size[i]))
            fail("gr_alloc_create accepted a malformed gr_alloc_private_t", rc);
        gr_alloc_info_t info;
        rc = gr_alloc_query(g_device, handles[i], &info);
        if (rc)
            fail("gr_alloc_query of a new handle", rc);
        if (p.kind == GR_ALLOC_KIND_BUFFER && info.size < p.buffer_bytes)
            fail("an allocation smaller than the buffer asked for", rc);
        if (info.size == 0 || info.size % 4096)
            fail("an allocation size that is not whole pages", rc);
    }
    for (uint32_t i = 0; i < count; i++) {
        rc = gr_alloc_destroy(g_device, handles[i]);
        if (rc)
            fail("gr_alloc_destroy of a new handle", rc);
    }
    const footprint_t after = footprint();
    if (memcmp(&before.kmd, &after.kmd, sizeof before.kmd) != 0)
        fail("create + destroy left miniport objects behind", 0);
    return 0;
}
