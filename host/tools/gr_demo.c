/*
 * gr_demo: the co-simulation demo. The host library drives gpu_core's RTL (Verilator, in this
 * process) exactly as it would drive a board: identify the device, use its registers, take an
 * interrupt the way a driver's ISR does, soft-reset it, and run the register conformance suite.
 * Then the allocation path: the miniport's segments, allocations of several kinds placed by
 * VidMm and drawn on segment maps, a shared buffer opened read-only by a second process whose
 * GPU write faults in the RTL MMU, locks refused, destroy. Then the command path (VidSch, the
 * miniport, the DMA engine): FILL and COPY packets timed by the engine and read back through
 * BAR1, a long copy preempted and then cancelled (DxgkDdiCancelCommand), a hang recovered by TDR
 * with other memory intact and the device working after it, and the scheduler's timeline.
 * Usage: gr_demo [URI]   (default $GR_DEVICE, else sim://; GR_SIM_FST=wave.fst records a waveform)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_device.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_regdesc.h"
#include "gpuref/gr_submit.h"
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

/* ---- the command path ----------------------------------------------------------------------- */

#define DEMO_WAIT 100000000ull /* device cycles a wait may take before the demo gives up */
#define TS_AT 4080u            /* the two TIMESTAMP qwords, at the end of a 4 KiB DMA buffer */

/* One packet: a DMA buffer of commands bracketed by TIMESTAMPs, and the allocations it uses. */
typedef struct pkt {
    gr_dma_buffer_t buf;
    uint8_t *cpu;
    uint64_t bus;
    gr_dma_writer_t w;
    gr_alloc_ref_t refs[4];
    uint32_t nrefs;
    uint64_t fence;
} pkt_t;

static int pkt_new(gr_gpu_device_t *dev, gr_context_t ctx, pkt_t *p)
{
    memset(p, 0, sizeof *p);
    gr_dma_buffer_info_t i;
    int rc = gr_dma_buffer_create(dev, ctx, 4096, &p->buf);
    if (!rc)
        rc = gr_dma_buffer_info(dev, p->buf, &i);
    if (rc)
        return rc;
    p->cpu = i.cpu;
    p->bus = i.bus;
    gr_dma_writer_init(&p->w, p->cpu, TS_AT);
    return GR_OK;
}

static void pkt_ts(pkt_t *p, unsigned which)
{
    (void)gr_dma_timestamp(&p->w, GR_DMA_SPACE_HOST, p->bus + TS_AT + 8u * which);
}

static void pkt_ref(pkt_t *p, gr_alloc_t a, bool write)
{
    p->refs[p->nrefs++] = (gr_alloc_ref_t){.handle = a, .flags = write ? GR_ALLOC_REF_WRITE : 0};
}

static int pkt_submit(gr_gpu_device_t *dev, gr_context_t ctx, pkt_t *p)
{
    gr_submission_t s = {.buffer = p->buf, .start = 0, .end = (uint32_t)p->w.used, .allocs = p->refs,
                         .alloc_count = p->nrefs};
    return p->w.overflow ? GR_E_RANGE : gr_submit(dev, ctx, &s, &p->fence);
}

/* Engine cycles between the packet's two TIMESTAMPs (after it retired). */
static uint64_t pkt_cycles(const pkt_t *p)
{
    return gr_dma_get64(p->cpu + TS_AT + 8) - gr_dma_get64(p->cpu + TS_AT);
}

/* An allocation's GPU virtual address in the device's space (0 if the handle is bad). */
static uint64_t va(gr_gpu_device_t *dev, gr_alloc_t a)
{
    gr_alloc_info_t i;
    return gr_alloc_query(dev, a, &i) == GR_OK ? i.gpu_va : 0;
}

/* One command (FILL or COPY through GPU VAs) as its own packet: run, wait, report its cycles. */
static int run_one(gr_gpu_device_t *dev, gr_context_t ctx, const char *what, gr_alloc_t from, gr_alloc_t to,
                   uint64_t bytes, uint32_t pattern)
{
    pkt_t p;
    int rc = pkt_new(dev, ctx, &p);
    if (rc)
        return rc;
    pkt_ts(&p, 0);
    if (from) {
        (void)gr_dma_copy(&p.w, GR_DMA_SPACE_GPUVA, va(dev, from), GR_DMA_SPACE_GPUVA, va(dev, to), bytes);
        pkt_ref(&p, from, false);
    } else {
        (void)gr_dma_fill(&p.w, GR_DMA_SPACE_GPUVA, va(dev, to), bytes, pattern);
    }
    pkt_ref(&p, to, true);
    pkt_ts(&p, 1);
    if (!(rc = pkt_submit(dev, ctx, &p)))
        rc = gr_wait(dev, ctx, p.fence, DEMO_WAIT);
    if (!rc) {
        const uint64_t c = pkt_cycles(&p);
        const double bpc = c ? (double)bytes / (double)c : 0;
        printf("   %-40s %5llu KiB in %7llu cycles, %.2f B/cycle (%4.1f%% of the 8-byte bus)\n", what,
               (unsigned long long)(bytes >> 10), (unsigned long long)c, bpc, 100.0 * bpc / 8.0);
    }
    if (gr_dma_buffer_destroy(dev, p.buf) && !rc)
        rc = GR_E_BUSY;
    return rc;
}

/* Reads a CPU-visible allocation through BAR1 and checks every 32-bit word of [off, off+bytes). */
static int check_words(gr_gpu_device_t *dev, gr_alloc_t a, uint64_t off, uint64_t bytes, uint32_t want,
                       uint64_t *out_bad)
{
    void *m = NULL;
    int rc = gr_alloc_lock(dev, a, GR_LOCK_READ_ONLY, &m);
    if (rc)
        return rc;
    uint64_t bad = 0;
    for (uint64_t i = 0; i < bytes; i += 4) {
        uint32_t w;
        memcpy(&w, (uint8_t *)m + off + i, 4);
        bad += w != want;
    }
    *out_bad = bad;
    return gr_alloc_unlock(dev, a);
}

static bool stats_submitted_at_least(gr_adapter_t *ad, uint64_t n)
{
    for (unsigned i = 0; i < 10000; i++) {
        gr_sched_stats_t st;
        if (gr_adapter_sched_stats(ad, &st) == GR_OK && st.submitted >= n)
            return true;
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
    return false;
}

typedef struct ctx_name {
    gr_context_t h;
    const char *name;
} ctx_name_t;

static void print_timeline(gr_adapter_t *ad, uint64_t since, const ctx_name_t *names, size_t nnames)
{
    static gr_sched_event_t ev[GR_SCHED_TIMELINE_CAP];
    size_t n = 0;
    if (gr_adapter_timeline(ad, since, ev, GR_SCHED_TIMELINE_CAP, &n, NULL) || !n)
        return;
    printf("   %9s  %-15s %-7s %3s %5s  %s\n", "+cycles", "event", "context", "seq", "fence", "detail");
    for (size_t i = 0; i < n; i++) {
        const gr_sched_event_t *e = &ev[i];
        const char *who = e->context ? "?" : "-";
        for (size_t k = 0; k < nnames; k++)
            if (names[k].h == e->context)
                who = names[k].name;
        char detail[96] = "";
        switch (e->kind) {
        case GR_SCHED_EV_PREEMPT:
            snprintf(detail, sizeof detail, "DxgkDdiPreemptCommand (%s)", gr_sched_preempt_reason_name(e->arg));
            break;
        case GR_SCHED_EV_PREEMPTED:
            snprintf(detail, sizeof detail, "%u packet%s taken off the engine", e->arg, e->arg == 1 ? "" : "s");
            break;
        case GR_SCHED_EV_RESUBMIT:
            snprintf(detail, sizeof detail, "Flags.Resubmission, new fence id");
            break;
        case GR_SCHED_EV_CANCEL:
            snprintf(detail, sizeof detail, "DxgkDdiCancelCommand, gr_wait: %s", gr_status_name(e->status));
            break;
        case GR_SCHED_EV_DROP:
            snprintf(detail, sizeof detail, "never patched, gr_wait: %s", gr_status_name(e->status));
            break;
        case GR_SCHED_EV_TDR:
            snprintf(detail, sizeof detail, "DxgkDdiResetFromTimeout; the context is lost");
            break;
        default:
            break;
        }
        char seq[24] = "", fence[16] = "";
        if (e->context)
            snprintf(seq, sizeof seq, "%llu", (unsigned long long)e->seq);
        if (e->fence)
            snprintf(fence, sizeof fence, "%u", e->fence);
        printf("   %9llu  %-15s %-7s %3s %5s  %s\n", (unsigned long long)(e->cycles - ev[0].cycles),
               gr_sched_event_name(e->kind), who, seq, fence, detail);
    }
}

static int demo_commands(const char *uri)
{
    gr_adapter_t *ad = NULL;
    gr_process_t *proc = NULL;
    gr_gpu_device_t *dev = NULL;
    gr_context_t c_copy = 0, c_long = 0, c_hang = 0, c_after = 0;
    pkt_t lp, hp;
    memset(&lp, 0, sizeof lp);
    memset(&hp, 0, sizeof hp);
    int rc = gr_adapter_open(uri, &ad);
    if (rc) {
        fprintf(stderr, "gr_demo: adapter: %s\n", gr_strerror(rc));
        return rc;
    }
    uint64_t since = 0;
    size_t none = 0;
    if ((rc = gr_adapter_timeline(ad, 0, NULL, 0, &none, &since)))
        goto out;

    STEP("10. the command path: GPU contexts, DMA buffers, FILL and COPY through the engine (VidSch)");
    gr_alloc_t src, dst, rb, keep, big_src, big_dst;
    if ((rc = gr_process_create(ad, &proc)) || (rc = gr_gpu_device_create(proc, &dev)) ||
        (rc = create_one(dev, "source (GPU-only)", buffer(1 << 20, GR_CPU_ACCESS_NONE, 0), &src, NULL)) ||
        (rc = create_one(dev, "destination (GPU-only)", buffer(1 << 20, GR_CPU_ACCESS_NONE, 0), &dst, NULL)) ||
        (rc = create_one(dev, "read-back (CpuVisible, Cached)", buffer(64 << 10, GR_CPU_ACCESS_READ_WRITE, 0), &rb, NULL)) ||
        (rc = create_one(dev, "CPU-written (CpuVisible, Cached)", buffer(64 << 10, GR_CPU_ACCESS_READ_WRITE, 0), &keep, NULL)) ||
        (rc = create_one(dev, "8 MiB source", buffer(8 << 20, GR_CPU_ACCESS_NONE, 0), &big_src, NULL)) ||
        (rc = create_one(dev, "8 MiB destination", buffer(8 << 20, GR_CPU_ACCESS_NONE, 0), &big_dst, NULL)) ||
        (rc = gr_context_create(dev, NULL, 0, &c_copy)) || (rc = gr_context_create(dev, NULL, 0, &c_long)) ||
        (rc = gr_context_create(dev, NULL, 0, &c_hang)))
        goto out;
    const uint32_t pattern = 0x600dcafeu;
    if ((rc = run_one(dev, c_copy, "FILL source with 0x600dcafe", 0, src, 1 << 20, pattern)) ||
        (rc = run_one(dev, c_copy, "COPY source -> destination (GPU VA)", src, dst, 1 << 20, 0)) ||
        (rc = run_one(dev, c_copy, "COPY destination -> read-back", dst, rb, 64 << 10, 0)))
        goto out;
    uint64_t bad = 0;
    if ((rc = check_words(dev, rb, 0, 64 << 10, pattern, &bad)))
        goto out;
    printf("   read-back locked through BAR1: %s (%llu of 16384 words differ)\n", bad ? "WRONG" : "the pattern",
           (unsigned long long)bad);

    STEP("11. a long copy preempted (gr_preempt), then cancelled (gr_cancel)");
    gr_sched_stats_t st0, st1;
    if ((rc = gr_adapter_sched_stats(ad, &st0)) || (rc = pkt_new(dev, c_long, &lp)))
        goto out;
    (void)gr_dma_copy(&lp.w, GR_DMA_SPACE_GPUVA, va(dev, big_src), GR_DMA_SPACE_GPUVA, va(dev, big_dst), 8 << 20);
    pkt_ref(&lp, big_src, false);
    pkt_ref(&lp, big_dst, true);
    if ((rc = pkt_submit(dev, c_long, &lp)))
        goto out;
    if (!stats_submitted_at_least(ad, st0.submitted + 1)) {
        rc = GR_E_TIMEOUT;
        goto out;
    }
    /* Let it run 30,000 cycles (about 1/50 of it): the wait times out, as it should. */
    printf("   8 MiB COPY submitted (about 1.4 M cycles of bus); after 30,000 cycles gr_wait says %s\n",
           gr_status_name(gr_wait(dev, c_long, lp.fence, 30000)));
    if ((rc = gr_preempt(dev, c_long)) || (rc = gr_adapter_sched_stats(ad, &st1)))
        goto out;
    printf("   gr_preempt: DxgkDdiPreemptCommand %llu, packets taken off the engine %llu (it goes back to its\n"
           "   queue; when it is resubmitted the miniport resumes it at the command where it stopped)\n",
           (unsigned long long)(st1.preemptions - st0.preemptions), (unsigned long long)(st1.preempted - st0.preempted));
    uint32_t cancelled = 0;
    if ((rc = gr_cancel(dev, c_long, &cancelled)) || (rc = gr_adapter_sched_stats(ad, &st1)))
        goto out;
    printf("   gr_cancel: %u packet cancelled, DxgkDdiCancelCommand called %llu time; gr_wait now says %s\n", cancelled,
           (unsigned long long)(st1.cancelled - st0.cancelled), gr_status_name(gr_wait(dev, c_long, lp.fence, 0)));
    if ((rc = gr_dma_buffer_destroy(dev, lp.buf)))
        goto out;
    lp.buf = 0;

    STEP("12. a hang (WAIT for a value that never comes), recovered by TDR");
    const uint32_t kept = 0x4b454550u; /* "KEEP" */
    void *m = NULL;
    if ((rc = gr_alloc_lock(dev, keep, 0, &m)))
        goto out;
    for (uint32_t i = 0; i < (64 << 10) / 4; i++)
        memcpy((uint8_t *)m + 4 * i, &kept, 4);
    if ((rc = gr_alloc_unlock(dev, keep)))
        goto out;
    gr_sched_params_t short_tdr = {.tdr_timeout_cycles = 200000};
    if ((rc = gr_adapter_set_scheduling(ad, &short_tdr)) || (rc = pkt_new(dev, c_hang, &hp)))
        goto out;
    /* The qword it waits on is in its own DMA buffer, zero, and nobody writes it. */
    (void)gr_dma_wait(&hp.w, GR_DMA_SPACE_HOST, hp.bus + 2048, 1);
    (void)gr_dma_fill(&hp.w, GR_DMA_SPACE_GPUVA, va(dev, keep), 64 << 10, 0xdeadu);
    pkt_ref(&hp, keep, true);
    uint64_t t0 = 0, t1 = 0;
    if ((rc = gr_adapter_cycles(ad, &t0)) || (rc = gr_adapter_sched_stats(ad, &st0)) ||
        (rc = pkt_submit(dev, c_hang, &hp)))
        goto out;
    const gr_status_t hang = gr_wait(dev, c_hang, hp.fence, DEMO_WAIT);
    if ((rc = gr_adapter_cycles(ad, &t1)) || (rc = gr_adapter_sched_stats(ad, &st1)))
        goto out;
    printf("   TDR timeout 200,000 cycles; the hung packet's gr_wait: %s after %llu cycles (TDRs: %llu)\n",
           gr_status_name(hang), (unsigned long long)(t1 - t0), (unsigned long long)(st1.tdrs - st0.tdrs));
    gr_context_info_t ci;
    if ((rc = gr_context_info(dev, c_hang, &ci)))
        goto out;
    gr_submission_t again = {.buffer = hp.buf, .start = 0, .end = (uint32_t)hp.w.used, .allocs = hp.refs,
                             .alloc_count = hp.nrefs};
    uint64_t f2 = 0;
    printf("   its context is %s: gr_submit on it says %s\n", ci.lost ? "lost" : "NOT lost",
           gr_status_name(gr_submit(dev, c_hang, &again, &f2)));
    if ((rc = check_words(dev, keep, 0, 64 << 10, kept, &bad)))
        goto out;
    printf("   the CPU-written allocation it would have filled: %s (%llu of 16384 words differ)\n",
           bad ? "CHANGED" : "intact", (unsigned long long)bad);
    gr_sched_params_t normal = {.tdr_timeout_cycles = 2000000};
    if ((rc = gr_adapter_set_scheduling(ad, &normal)) || (rc = gr_context_create(dev, NULL, 0, &c_after)))
        goto out;
    if ((rc = run_one(dev, c_after, "COPY destination -> read-back (again)", dst, rb, 64 << 10, 0)))
        goto out;
    if ((rc = run_one(dev, c_after, "FILL read-back with 0x0a6a1000", 0, rb, 4 << 10, 0x0a6a1000u)) ||
        (rc = check_words(dev, rb, 0, 4 << 10, 0x0a6a1000u, &bad)))
        goto out;
    uint64_t bad2 = 0;
    if ((rc = check_words(dev, rb, 4 << 10, 60 << 10, pattern, &bad2)))
        goto out;
    printf("   after the reset the device works: step 10's copy is still in the destination and the new\n"
           "   fill landed (%llu words wrong)\n",
           (unsigned long long)(bad + bad2));

    STEP("13. the scheduler's timeline (gr_adapter_timeline; device cycles from DMA_TIMESTAMP)");
    const ctx_name_t names[] = {{c_copy, "copy"}, {c_long, "long"}, {c_hang, "hang"}, {c_after, "after"}};
    print_timeline(ad, since, names, sizeof names / sizeof names[0]);
    gr_sched_stats_t st;
    if (!gr_adapter_sched_stats(ad, &st))
        printf("   totals: %llu submitted (%llu resubmitted), %llu completed, %llu preemptions, %llu cancelled, "
               "%llu TDR\n",
               (unsigned long long)st.submitted, (unsigned long long)st.resubmitted, (unsigned long long)st.completed,
               (unsigned long long)st.preemptions, (unsigned long long)st.cancelled, (unsigned long long)st.tdrs);
out:
    if (rc)
        fprintf(stderr, "gr_demo: command path: %s\n", gr_strerror(rc));
    gr_gpu_device_destroy(dev); /* its contexts, DMA buffers and allocations with it */
    gr_process_destroy(proc);
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
    if (demo_commands(uri))
        return 1;
    printf("\ndemo complete.\n");
    return 0;
fail:
    gr_device_close(dev);
    return 1;
}
