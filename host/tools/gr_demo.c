/*
 * gr_demo: the co-simulation demo. The host library drives gpu_core's RTL (Verilator, in this
 * process) exactly as it would drive a board: identify the device, use its registers, take an
 * interrupt the way a driver's ISR does, soft-reset it, and run the register conformance suite.
 * Then the allocation path: the miniport's segments, allocations of several kinds placed by
 * VidMm and drawn on segment maps, a shared buffer opened read-only by a second process whose
 * GPU write faults in the RTL MMU, locks refused, destroy.
 * Usage: gr_demo [URI]   (default $GR_DEVICE, else sim://; GR_SIM_FST=wave.fst records a waveform)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_device.h"
#include "gpuref/gr_regdesc.h"
#include "gr_conformance.h"

#define STEP(fmt, ...) printf("\n== " fmt "\n", ##__VA_ARGS__)

static int check(int rc, const char *what)
{
    if (rc)
        fprintf(stderr, "gr_demo: %s: %s (%s)\n", what, gr_strerror(rc), gr_device_error());
    return rc;
}

static void count_checks(void *user, bool ok, const char *reg, const char *check, const char *detail)
{
    (void)user;
    if (!ok)
        printf("   FAIL %s %s: %s\n", reg, check, detail);
}

/* ---- the allocation path ------------------------------------------------------------------ */

#define MAP_COLUMNS 64

typedef struct seg_map {
    char cells[MAP_COLUMNS + 1];
    uint64_t size;
} seg_map_t;

/* One character per 1/64 of the segment: '#' allocated, '.' free, 'v' free VPR. */
static bool draw_range(void *ctx, uint64_t offset, uint64_t size, gr_segment_range_kind_t kind)
{
    seg_map_t *m = ctx;
    uint64_t first = offset * MAP_COLUMNS / m->size, last = (offset + size - 1) * MAP_COLUMNS / m->size;
    for (uint64_t c = first; c <= last && c < MAP_COLUMNS; c++) {
        char ch = kind == GR_RANGE_ALLOCATION ? '#' : kind == GR_RANGE_VPR_FREE ? 'v' : '.';
        if (m->cells[c] != '#') /* an allocation anywhere in the cell shows */
            m->cells[c] = ch;
    }
    return true;
}

static void print_segments(gr_adapter_t *ad)
{
    gr_segment_info_t segs[GR_ALLOC_MAX_SEGMENTS];
    uint32_t n = 0;
    if (gr_adapter_segments(ad, segs, GR_ALLOC_MAX_SEGMENTS, &n))
        return;
    for (uint32_t i = 0; i < n; i++) {
        seg_map_t m = {.size = segs[i].size};
        memset(m.cells, ' ', MAP_COLUMNS);
        m.cells[MAP_COLUMNS] = 0;
        if (gr_segment_walk(ad, segs[i].id, draw_range, &m))
            continue;
        printf("   segment %u %4llu MiB %-11s |%s| %llu allocation(s)\n", segs[i].id,
               (unsigned long long)(segs[i].size >> 20), segs[i].cpu_visible ? "CPU-visible" : "GPU-only",
               m.cells, (unsigned long long)segs[i].allocations);
    }
}

static gr_alloc_private_t buffer(uint64_t bytes, uint32_t cpu, uint32_t flags)
{
    gr_alloc_private_t p;
    memset(&p, 0, sizeof p);
    p.version = GR_ALLOC_PRIVATE_VERSION;
    p.struct_size = sizeof p;
    p.kind = GR_ALLOC_KIND_BUFFER;
    p.cpu_access = cpu;
    p.flags = flags;
    p.buffer_bytes = bytes;
    return p;
}

static int create_one(gr_gpu_device_t *dev, const char *what, gr_alloc_private_t p, gr_alloc_t *out,
                      gr_shared_t *out_shared)
{
    gr_alloc_desc_t d = {.private_data = &p, .private_size = sizeof p};
    gr_resource_desc_t rd = {.flags = GR_RESOURCE_SHARED};
    gr_status_t rc = gr_alloc_create(dev, out_shared ? &rd : NULL, &d, 1, out, out_shared);
    if (rc) {
        printf("   %-34s FAILED: %s\n", what, gr_strerror(rc));
        return rc;
    }
    gr_alloc_info_t i;
    if (gr_alloc_query(dev, *out, &i) == GR_OK)
        printf("   %-34s segment %u at 0x%08llx, %6llu KiB, GPU VA 0x%llx\n", what, i.segment,
               (unsigned long long)i.vram_address, (unsigned long long)(i.size >> 10),
               (unsigned long long)i.gpu_va);
    return GR_OK;
}

static int demo_allocations(const char *uri)
{
    gr_adapter_t *ad = NULL;
    gr_process_t *p1 = NULL, *p2 = NULL;
    gr_gpu_device_t *d1 = NULL, *d2 = NULL;
    int rc = gr_adapter_open(uri, &ad);
    if (rc) {
        fprintf(stderr, "gr_demo: adapter: %s\n", gr_strerror(rc));
        return rc;
    }
    STEP("6. the miniport's adapter: segments from DxgkDdiQueryAdapterInfo");
    print_segments(ad);
    if ((rc = gr_process_create(ad, &p1)) || (rc = gr_gpu_device_create(p1, &d1)) ||
        (rc = gr_process_create(ad, &p2)) || (rc = gr_gpu_device_create(p2, &d2)))
        goto out;

    STEP("7. allocations of several kinds, placed by VidMm (DxgkDdiCreateAllocation)");
    gr_alloc_t upload, gpu_only, overlay, top, protected_buf, shared_buf;
    gr_shared_t sh = 0;
    if ((rc = create_one(d1, "upload buffer (CpuVisible)", buffer(1 << 20, GR_CPU_ACCESS_WRITE, 0), &upload, NULL)) ||
        (rc = create_one(d1, "GPU-only buffer", buffer(32 << 20, GR_CPU_ACCESS_NONE, 0), &gpu_only, NULL)) ||
        (rc = create_one(d1, "overlay (pinned, last 20%)", buffer(4 << 20, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_OVERLAY), &overlay, NULL)) ||
        (rc = create_one(d1, "FromEndOfSegment", buffer(2 << 20, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_FROM_END), &top, NULL)) ||
        (rc = create_one(d1, "protected content (in the VPR)", buffer(1 << 20, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_IN_VPR), &protected_buf, NULL)) ||
        (rc = create_one(d1, "shared buffer", buffer(64 << 10, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_SHARED), &shared_buf, &sh)))
        goto out;
    print_segments(ad);

    STEP("8. lock through the aperture; a second process opens the shared buffer read-only");
    void *ptr = NULL;
    if ((rc = gr_alloc_lock(d1, shared_buf, 0, &ptr)))
        goto out;
    memset(ptr, 0xab, 64 << 10);
    if ((rc = gr_alloc_unlock(d1, shared_buf)))
        goto out;
    gr_alloc_t ro;
    uint32_t n = 0;
    gr_alloc_info_t ri;
    if ((rc = gr_alloc_open(d2, sh, GR_OPEN_READ_ONLY, 0, &ro, 1, &n, &ri)))
        goto out;
    if ((rc = gr_alloc_lock(d2, ro, GR_LOCK_READ_ONLY, &ptr)))
        goto out;
    unsigned char seen = ((unsigned char *)ptr)[123];
    if ((rc = gr_alloc_unlock(d2, ro)))
        goto out;
    printf("   process 2 reads 0x%02x through BAR1; its lock for writing: %s\n", seen,
           gr_status_name(gr_alloc_lock(d2, ro, 0, &ptr)));
    gr_gpu_probe_t pr;
    if ((rc = gr_gpu_device_probe(d2, ri.gpu_va, false, &pr)))
        goto out;
    printf("   RTL MMU, process 2 reads  VA 0x%llx: %s PA 0x%llx\n", (unsigned long long)ri.gpu_va,
           pr.fault ? "FAULT" : "ok,", (unsigned long long)pr.pa);
    if ((rc = gr_gpu_device_probe(d2, ri.gpu_va, true, &pr)))
        goto out;
    printf("   RTL MMU, process 2 writes VA 0x%llx: %s (type %u: write to read-only)\n",
           (unsigned long long)ri.gpu_va, pr.fault ? "FAULT" : "ok (WRONG)", pr.fault_type);
    printf("   lock of the protected allocation: %s; of the GPU-only one: %s\n",
           gr_status_name(gr_alloc_lock(d1, protected_buf, 0, &ptr)),
           gr_status_name(gr_alloc_lock(d1, gpu_only, 0, &ptr)));

    STEP("9. destroy (DxgkDdiCloseAllocation, DxgkDdiDestroyAllocation)");
    gr_alloc_t all[] = {upload, gpu_only, overlay, top, protected_buf, shared_buf};
    if ((rc = gr_alloc_close(d2, ro)))
        goto out;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if ((rc = gr_alloc_destroy(d1, all[i])))
            goto out;
    printf("   destroyed; a destroyed handle is now: %s\n", gr_status_name(gr_alloc_destroy(d1, upload)));
    print_segments(ad);
out:
    if (rc)
        fprintf(stderr, "gr_demo: allocation path: %s\n", gr_strerror(rc));
    gr_gpu_device_destroy(d2);
    gr_gpu_device_destroy(d1);
    gr_process_destroy(p2);
    gr_process_destroy(p1);
    gr_adapter_close(ad);
    return rc;
}

int main(int argc, char **argv)
{
    const char *uri = argc > 1 ? argv[1] : NULL;
    gr_device_t *dev = NULL;
    if (check(gr_device_open(uri, 0, &dev), "open"))
        return 1;

    STEP("1. identify the device");
    gr_device_info_t info;
    if (check(gr_device_info(dev, &info), "info"))
        goto fail;
    printf("   transport   %s\n", info.transport);
    printf("   ID_MAGIC    0x%08x, register map %u.%u.%u, hash 0x%08x (%s)\n", info.magic,
           info.version_major, info.version_minor, info.version_patch, info.regmap_hash,
           info.regmap_matches ? "matches this host" : "differs");
    printf("   ID_CAPS     MC=%s DMA=%s (blocks not built in answer DECERR / stay idle)\n",
           GR_FIELD_GET(ID_CAPS, MC, info.caps) ? "yes" : "no",
           GR_FIELD_GET(ID_CAPS, DMA, info.caps) ? "yes" : "no");

    STEP("2. registers: scratch round trip, a hole, a read-only register");
    uint32_t v = 0;
    if (check(gr_reg_write(dev, GR_REG_SCRATCH, 0xc0ffee42u), "write SCRATCH") ||
        check(gr_reg_read(dev, GR_REG_SCRATCH, &v), "read SCRATCH"))
        goto fail;
    printf("   SCRATCH <- 0xc0ffee42, reads 0x%08x\n", v);
    int rc = gr_reg_read(dev, 0x100, &v);
    printf("   read of hole 0x100: %s (%s)\n", gr_status_name(rc), gr_strerror(rc));
    if (check(gr_reg_write(dev, GR_REG_ID_MAGIC, 0), "write ID_MAGIC") ||
        check(gr_reg_read(dev, GR_REG_ID_MAGIC, &v), "read ID_MAGIC"))
        goto fail;
    printf("   ID_MAGIC <- 0, reads 0x%08x (read-only)\n", v);

    STEP("3. an interrupt, handled as an ISR would");
    bool line = false;
    if (check(gr_reg_write(dev, GR_REG_IRQ_ENABLE, GR_FIELD_SET(IRQ_ENABLE, RESET_DONE, 1)), "enable") ||
        check(gr_reg_write(dev, GR_REG_IRQ_TEST, GR_FIELD_SET(IRQ_TEST, RESET_DONE, 1)), "test") ||
        check(gr_device_wait_irq(dev, 10, &line), "wait"))
        goto fail;
    printf("   IRQ_TEST.RESET_DONE <- 1: irq_o %s\n", line ? "high" : "LOW");
    if (check(gr_reg_read(dev, GR_REG_IRQ_STATE, &v), "read state") ||
        check(gr_reg_write(dev, GR_REG_IRQ_STATE, v), "ack") ||
        check(gr_device_wait_irq(dev, 0, &line), "sample"))
        goto fail;
    printf("   ISR: IRQ_STATE = 0x%08x, acknowledged by W1C: irq_o %s\n", v, line ? "HIGH" : "low");

    STEP("4. soft reset");
    if (check(gr_device_soft_reset(dev, 100), "soft reset") ||
        check(gr_reg_read(dev, GR_REG_SCRATCH, &v), "read SCRATCH"))
        goto fail;
    printf("   RESET_CTRL.CORE <- 1, RESET_DONE seen and cleared; SCRATCH reads 0x%08x\n", v);

    STEP("5. register conformance");
    gr_conf_result_t res;
    if (check(gr_conformance_run(dev, count_checks, NULL, &res), "conformance"))
        goto fail;
    printf("   %u registers, %u checks: %u passed, %u failed\n", res.registers,
           res.passed + res.failed, res.passed, res.failed);
    if (res.failed)
        goto fail;

    gr_device_close(dev);
    if (demo_allocations(uri))
        return 1;
    printf("\ndemo complete.\n");
    return 0;
fail:
    gr_device_close(dev);
    return 1;
}
