/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fill_copy.c: the smallest whole use of libgpuref. Two buffers in VRAM; the DMA engine fills
 * the first with a pattern and copies it into the second; the CPU reads the second back and
 * checks every word. It goes through the same driver stack as any gpuref program: the gr_*
 * API, VidMm and VidSch (host/dxgk), the miniport's DDIs (host/kmd), a link to the device.
 *
 *   cc fill_copy.c $(pkg-config --cflags --libs gpuref) -o fill_copy
 *   ./fill_copy [URI]          default $GR_DEVICE, else sim:// (gpu_core simulated in-process)
 *
 * Written in the common subset of C11 and C++17 (no designated initializers, no compound
 * literals, casts from void *), so it also builds as C++: g++ -x c++ fill_copy.c ...
 * Exit status: 0 the copy reads back right, 1 it does not, 2 a call failed (printed with
 * gr_last_error(), which says which file, key or step).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <gpuref/gr_alloc.h>
#include <gpuref/gr_alloc_private.h>
#include <gpuref/gr_dma.h>
#include <gpuref/gr_status.h>
#include <gpuref/gr_submit.h>

#define BUFFER_BYTES (64u * 1024u)
#define PATTERN 0x600dcafeu
/* Device cycles the wait may take: the 64 KiB copy needs some ten thousand. */
#define WAIT_CYCLES 10000000ull

/* Prints a failed call with the library's detail; returns the status for the caller to pass on. */
static int failed(const char *call, int rc)
{
    fprintf(stderr, "fill_copy: %s: %s (%s)\n", call, gr_strerror(rc), gr_last_error());
    return rc;
}

/* A linear buffer's private data for the miniport (the request a user-mode driver would make). */
static gr_alloc_private_t buffer_request(uint64_t bytes, uint32_t cpu_access)
{
    gr_alloc_private_t p;
    memset(&p, 0, sizeof p);
    p.version = GR_ALLOC_PRIVATE_VERSION;
    p.struct_size = sizeof p;
    p.kind = GR_ALLOC_KIND_BUFFER;
    p.cpu_access = cpu_access;
    p.buffer_bytes = bytes;
    return p;
}

static int create_buffer(gr_gpu_device_t *dev, uint32_t cpu_access, gr_alloc_t *out)
{
    gr_alloc_private_t p = buffer_request(BUFFER_BYTES, cpu_access);
    gr_alloc_desc_t d;
    memset(&d, 0, sizeof d);
    d.private_data = &p;
    d.private_size = sizeof p;
    return gr_alloc_create(dev, NULL, &d, 1, out, NULL);
}

static uint64_t gpu_va(gr_gpu_device_t *dev, gr_alloc_t a)
{
    gr_alloc_info_t info;
    return gr_alloc_query(dev, a, &info) == GR_OK ? info.gpu_va : 0;
}

/* FILL src, COPY src -> dst, as one packet on ctx; waits for it to retire. */
static int fill_and_copy(gr_gpu_device_t *dev, gr_context_t ctx, gr_alloc_t src, gr_alloc_t dst)
{
    gr_dma_buffer_t buf = 0;
    int rc = gr_dma_buffer_create(dev, ctx, 4096, &buf);
    if (rc)
        return failed("gr_dma_buffer_create", rc);
    gr_dma_buffer_info_t bi;
    if ((rc = gr_dma_buffer_info(dev, buf, &bi))) {
        failed("gr_dma_buffer_info", rc);
        /* Nothing was submitted from it: this cannot be busy. */
        if (gr_dma_buffer_destroy(dev, buf))
            failed("gr_dma_buffer_destroy", GR_E_BUSY);
        return rc;
    }

    /* The commands address the buffers by GPU virtual address: the device's page tables map
     * them, so no patching is needed. */
    gr_dma_writer_t w;
    gr_dma_writer_init(&w, bi.cpu, bi.size);
    (void)gr_dma_fill(&w, GR_DMA_SPACE_GPUVA, gpu_va(dev, src), BUFFER_BYTES, PATTERN);
    (void)gr_dma_copy(&w, GR_DMA_SPACE_GPUVA, gpu_va(dev, src), GR_DMA_SPACE_GPUVA, gpu_va(dev, dst), BUFFER_BYTES);

    /* The allocation list tells VidMm what the packet touches: both stay resident until it
     * retires, and dst is written. */
    gr_alloc_ref_t refs[2];
    memset(refs, 0, sizeof refs);
    refs[0].handle = src;
    refs[0].flags = GR_ALLOC_REF_WRITE; /* the FILL writes it too */
    refs[1].handle = dst;
    refs[1].flags = GR_ALLOC_REF_WRITE;
    gr_submission_t s;
    memset(&s, 0, sizeof s);
    s.buffer = buf;
    s.start = 0;
    s.end = (uint32_t)w.used;
    s.allocs = refs;
    s.alloc_count = 2;

    uint64_t fence = 0;
    if (w.overflow)
        rc = failed("encoding the commands", GR_E_RANGE);
    else if ((rc = gr_submit(dev, ctx, &s, &fence)))
        failed("gr_submit", rc);
    else if ((rc = gr_wait(dev, ctx, fence, WAIT_CYCLES)))
        failed("gr_wait", rc);
    const int rc2 = gr_dma_buffer_destroy(dev, buf);
    if (!rc && rc2)
        rc = failed("gr_dma_buffer_destroy", rc2);
    return rc;
}

/* Reads dst back through a CPU lock (BAR1) and counts the words that are not the pattern. */
static int check(gr_gpu_device_t *dev, gr_alloc_t dst, uint32_t *out_bad)
{
    void *ptr = NULL;
    int rc = gr_alloc_lock(dev, dst, GR_LOCK_READ_ONLY, &ptr);
    if (rc)
        return failed("gr_alloc_lock", rc);
    const uint8_t *bytes = (const uint8_t *)ptr;
    uint32_t bad = 0;
    for (uint32_t i = 0; i < BUFFER_BYTES; i += 4) {
        uint32_t word;
        memcpy(&word, bytes + i, sizeof word);
        if (word != PATTERN && bad++ < 4)
            fprintf(stderr, "fill_copy: word at 0x%" PRIx32 " reads 0x%08" PRIx32 "\n", i, word);
    }
    if ((rc = gr_alloc_unlock(dev, dst)))
        return failed("gr_alloc_unlock", rc);
    *out_bad = bad;
    return GR_OK;
}

int main(int argc, char **argv)
{
    const char *uri = argc > 1 ? argv[1] : NULL;
    gr_adapter_t *ad = NULL;
    gr_process_t *proc = NULL;
    gr_gpu_device_t *dev = NULL;
    gr_context_t ctx = 0;
    gr_alloc_t src = 0, dst = 0;
    uint32_t bad = 0;
    int rc;

    /* The adapter: the link opened, the miniport started, VidMm's segments set up. */
    if ((rc = gr_adapter_open(uri, &ad))) {
        failed("gr_adapter_open", rc);
        return 2;
    }
    if ((rc = gr_process_create(ad, &proc))) {
        failed("gr_process_create", rc);
        goto out;
    }
    if ((rc = gr_gpu_device_create(proc, &dev))) {
        failed("gr_gpu_device_create", rc);
        goto out;
    }
    /* src the engine alone reaches; dst the CPU reads back. */
    if ((rc = create_buffer(dev, GR_CPU_ACCESS_NONE, &src))) {
        failed("gr_alloc_create (src)", rc);
        goto out;
    }
    if ((rc = create_buffer(dev, GR_CPU_ACCESS_READ, &dst))) {
        failed("gr_alloc_create (dst)", rc);
        goto out;
    }
    if ((rc = gr_context_create(dev, NULL, 0, &ctx))) {
        failed("gr_context_create", rc);
        goto out;
    }
    if ((rc = fill_and_copy(dev, ctx, src, dst)) || (rc = check(dev, dst, &bad)))
        goto out;
    printf("fill_copy: %u KiB filled with 0x%08x and copied on the engine: %s\n", BUFFER_BYTES / 1024u, PATTERN,
           bad ? "MISMATCH" : "every word reads back");
    if (bad)
        fprintf(stderr, "fill_copy: %" PRIu32 " of %u words differ\n", bad, BUFFER_BYTES / 4u);

out:
    /* Every call above changed nothing when it failed, so this undoes exactly what succeeded. */
    if (ctx && gr_context_destroy(dev, ctx) && !rc)
        rc = GR_E_BUSY;
    if (dst && gr_alloc_destroy(dev, dst) && !rc)
        rc = GR_E_INVALID;
    if (src && gr_alloc_destroy(dev, src) && !rc)
        rc = GR_E_INVALID;
    gr_gpu_device_destroy(dev);
    gr_process_destroy(proc);
    gr_adapter_close(ad);
    if (rc)
        return 2;
    return bad ? 1 : 0;
}
