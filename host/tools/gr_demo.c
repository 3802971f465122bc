/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_demo: the co-simulation demo. The host library drives gpu_core's RTL (Verilator, in this
 * process) exactly as it would drive a board: identify the device, use its registers, take an
 * interrupt the way a driver's ISR does, soft-reset it, and run the register conformance suite.
 * Then the allocation path: the miniport's segments, allocations of several kinds placed by
 * VidMm and drawn on segment maps, a shared buffer opened read-only by a second process whose
 * GPU write faults in the RTL MMU, locks refused, destroy. Then the command path (VidSch, the
 * miniport, the DMA engine): FILL and COPY packets timed by the engine and read back through
 * BAR1, a long copy preempted and then cancelled (DxgkDdiCancelCommand), a hang recovered by TDR
 * with other memory intact and the device working after it, VRAM made small (VidMm's test hook
 * gr_vidmm_test_reserve: the RTL's VRAM size is fixed) and over-subscribed by half so that VidMm
 * evicts and pages in through paging packets while every byte survives, and the scheduler's
 * timeline. On a slow link (a UART, USB's round trips) the demo moves a sixteenth of its usual
 * bytes across it (demo_shrink): the same steps, smaller buffers.
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
#include "gr_link.h"
#include "vidmm_residency.h" /* gr_vidmm_test_reserve: the demo makes VRAM small with it */

#define STEP(fmt, ...) printf("\n== " fmt "\n", ##__VA_ARGS__)

/*
 * The bytes the demo moves across the link (BAR1 locks and read-backs, the pressure step's
 * evictions and page-ins) are divided by this: 1, or 16 on a slow link (demo_shrink: a 3 Mbaud
 * UART moves 300 KB/s, so in simulation a 4 KiB page costs 1.4 M core cycles, seconds of wall
 * time). What stays on the device (FILLs, COPYs, the 8 MiB preemption) keeps its size.
 */
static uint32_t g_shrink = 1;
#define DEMO_RB_BYTES ((64u << 10) / g_shrink) /* the read-back and CPU-written buffers */

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
        (rc = create_one(d1, "shared buffer", buffer(DEMO_RB_BYTES, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_SHARED), &shared_buf, &sh)))
        goto out;
    print_segments(ad);

    STEP("8. lock through the aperture; a second process opens the shared buffer read-only");
    void *ptr = NULL;
    if ((rc = gr_alloc_lock(d1, shared_buf, 0, &ptr)))
        goto out;
    memset(ptr, 0xab, DEMO_RB_BYTES);
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
    uint64_t va; /* the DMA buffer's GPU VA: user packets name GPU VAs only */
    gr_dma_writer_t w;
    gr_alloc_ref_t refs[4];
    uint32_t nrefs;
    uint64_t fence;
} pkt_t;

/* A packet whose DMA buffer has data_bytes after the 4 KiB of commands (read-back lands there). */
static int pkt_new_data(gr_gpu_device_t *dev, gr_context_t ctx, uint32_t data_bytes, pkt_t *p)
{
    memset(p, 0, sizeof *p);
    gr_dma_buffer_info_t i;
    int rc = gr_dma_buffer_create(dev, ctx, 4096 + data_bytes, &p->buf);
    if (!rc)
        rc = gr_dma_buffer_info(dev, p->buf, &i);
    if (rc)
        return rc;
    p->cpu = i.cpu;
    p->va = i.gpu_va;
    gr_dma_writer_init(&p->w, p->cpu, TS_AT);
    return GR_OK;
}

static int pkt_new(gr_gpu_device_t *dev, gr_context_t ctx, pkt_t *p)
{
    return pkt_new_data(dev, ctx, 0, p);
}

static void pkt_ts(pkt_t *p, unsigned which)
{
    (void)gr_dma_timestamp(&p->w, GR_DMA_SPACE_GPUVA, p->va + TS_AT + 8u * which);
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

/* Context 0 on a packet event is one of VidMm's paging packets (they have no context). */
static const char *context_name(const gr_sched_event_t *e, const ctx_name_t *names, size_t nnames)
{
    if (!e->context)
        return e->fence ? "paging" : "-";
    for (size_t k = 0; k < nnames; k++)
        if (names[k].h == e->context)
            return names[k].name;
    return "?";
}

static void print_event(const gr_sched_event_t *e, uint64_t first_cycles, const ctx_name_t *names, size_t nnames)
{
    char detail[96] = "";
    switch (e->kind) {
    case GR_SCHED_EV_PREEMPT:
        snprintf(detail, sizeof detail, "DxgkDdiPreemptCommand (%s)", gr_sched_preempt_reason_name(e->arg));
        break;
    case GR_SCHED_EV_PREEMPTED:
        snprintf(detail, sizeof detail, "%u packet%s taken off the engine", e->arg, e->arg == 1 ? "" : "s");
        break;
    case GR_SCHED_EV_RESUBMIT:
        /* A paging packet keeps its fence id; a context's gets a new one. */
        snprintf(detail, sizeof detail, "Flags.Resubmission, %s fence id", e->context ? "new" : "same");
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
    printf("   %9llu  %-15s %-8s %3s %5s  %s\n", (unsigned long long)(e->cycles - first_cycles),
           gr_sched_event_name(e->kind), context_name(e, names, nnames), seq, fence, detail);
}

/* One line for events left out: how many, and what they were. */
static void print_elided(const gr_sched_event_t *ev, size_t from, size_t to)
{
    unsigned paging = 0, packets = 0, preempts = 0, resubmits = 0;
    for (size_t i = from; i < to; i++) {
        paging += ev[i].kind == GR_SCHED_EV_SUBMIT && !ev[i].context;
        packets += ev[i].kind == GR_SCHED_EV_SUBMIT && ev[i].context;
        preempts += ev[i].kind == GR_SCHED_EV_PREEMPT;
        resubmits += ev[i].kind == GR_SCHED_EV_RESUBMIT;
    }
    printf("   %9s  (%zu more events: %u paging packets and %u packets submitted, %u preemptions, %u resubmissions)\n",
           "...", to - from, paging, packets, preempts, resubmits);
}

/*
 * The events since `since`, oldest first. From event number `busy` on (a step with hundreds of
 * events) only a few windows are printed: its start, the first paging packet, the first
 * preemption for paging and its end; one line counts what lies between.
 */
static void print_timeline(gr_adapter_t *ad, uint64_t since, uint64_t busy, const ctx_name_t *names, size_t nnames)
{
    static gr_sched_event_t ev[GR_SCHED_TIMELINE_CAP];
    static bool show[GR_SCHED_TIMELINE_CAP];
    size_t n = 0;
    if (gr_adapter_timeline(ad, since, ev, GR_SCHED_TIMELINE_CAP, &n, NULL) || !n)
        return;
    size_t first_busy = n, first_paging = n, first_preempt = n;
    for (size_t i = 0; i < n; i++) {
        show[i] = ev[i].index < busy;
        if (ev[i].index >= busy && first_busy == n)
            first_busy = i;
        if (ev[i].index >= busy && first_paging == n && ev[i].kind == GR_SCHED_EV_SUBMIT && !ev[i].context)
            first_paging = i;
        if (ev[i].index >= busy && first_preempt == n && ev[i].kind == GR_SCHED_EV_PREEMPT &&
            ev[i].arg == GR_SCHED_PREEMPT_PAGING)
            first_preempt = i;
    }
    const struct {
        size_t at, before, after;
    } windows[] = {{first_busy, 0, 4}, {first_paging, 1, 6}, {first_preempt, 2, 10}, {n - 1, 2, 1}};
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++)
        for (size_t i = windows[w].at >= windows[w].before ? windows[w].at - windows[w].before : 0;
             windows[w].at < n && i < windows[w].at + windows[w].after && i < n; i++)
            show[i] = true;
    printf("   %9s  %-15s %-8s %3s %5s  %s\n", "+cycles", "event", "context", "seq", "fence", "detail");
    for (size_t i = 0; i < n;) {
        if (show[i]) {
            print_event(&ev[i++], ev[0].cycles, names, nnames);
            continue;
        }
        size_t j = i;
        while (j < n && !show[j])
            j++;
        print_elided(ev, i, j);
        i = j;
    }
}

/* ---- residency: VRAM under pressure ----------------------------------------------------------- */

#define PR_BUFFERS 18u            /* GPU-only buffers: 1.5x the VRAM the step leaves free */
#define PR_BYTES ((128u << 10) / g_shrink)     /* each */
#define PR_COPIES 24u                          /* COPYs between random pairs of them */
#define PR_COPY_BYTES ((64u << 10) / g_shrink) /* each */
#define PR_IN_FLIGHT 3u                        /* COPY packets queued at once */
#define PR_LEAVE_GPU ((1u << 20) / g_shrink)   /* what the reservation leaves free of the GPU-only segment */
#define PR_LEAVE_CPU ((512u << 10) / g_shrink) /* ... and of the CPU-visible one */
#define PR_PSM_BYTES ((64u << 10) / g_shrink)  /* the PermanentSysMem allocation */

static void put32_le(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}

/* What the engine's FILL leaves in memory: the 32-bit pattern repeated, little-endian. */
static void model_fill(uint8_t *m, uint32_t bytes, uint32_t pattern)
{
    for (uint32_t i = 0; i < bytes; i += 4)
        put32_le(m + i, pattern);
}

static uint32_t next_rand(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

static const char *residency_name(uint32_t r)
{
    return r == GR_RESIDENCY_RESIDENT ? "resident" : r == GR_RESIDENCY_EVICTED ? "evicted" : "system memory";
}

static void pin_names(uint32_t pinned, char *buf, size_t len)
{
    static const char *const names[] = {"overlay", "protected", "locked", "system memory", "in flight", "no paging"};
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned b = 0; b < sizeof names / sizeof names[0]; b++)
        if (pinned & (1u << b))
            used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s", used ? ", " : "", names[b]);
    if (!pinned)
        snprintf(buf, len, "not pinned");
}

/* Creates one buffer without printing it. */
static int create_quiet(gr_gpu_device_t *dev, gr_alloc_private_t p, gr_alloc_t *out)
{
    gr_alloc_desc_t d = {.private_data = &p, .private_size = sizeof p};
    return gr_alloc_create(dev, NULL, &d, 1, out, NULL);
}

/* Queues one FILL of [0, bytes) of to (from 0) or one COPY between offsets as its own packet. */
static int queue_one(gr_gpu_device_t *dev, gr_context_t ctx, pkt_t *p, gr_alloc_t from, uint64_t from_off,
                     gr_alloc_t to, uint64_t to_off, uint64_t bytes, uint32_t pattern)
{
    int rc = pkt_new(dev, ctx, p);
    if (rc)
        return rc;
    if (from) {
        (void)gr_dma_copy(&p->w, GR_DMA_SPACE_GPUVA, va(dev, from) + from_off, GR_DMA_SPACE_GPUVA, va(dev, to) + to_off,
                          bytes);
        pkt_ref(p, from, false);
    } else {
        (void)gr_dma_fill(&p->w, GR_DMA_SPACE_GPUVA, va(dev, to) + to_off, bytes, pattern);
    }
    pkt_ref(p, to, true);
    if ((rc = pkt_submit(dev, ctx, p)) && gr_dma_buffer_destroy(dev, p->buf) == GR_OK)
        p->buf = 0;
    return rc;
}

/* Waits for a queued packet and frees its DMA buffer (nothing to do for an empty slot). */
static int retire(gr_gpu_device_t *dev, gr_context_t ctx, pkt_t *p)
{
    if (!p->buf)
        return GR_OK;
    int rc = gr_wait(dev, ctx, p->fence, DEMO_WAIT);
    const int rc2 = gr_dma_buffer_destroy(dev, p->buf);
    p->buf = 0;
    return rc ? rc : rc2;
}

/* Reads [0, bytes) of an allocation through the engine: a COPY into the packet's host memory. */
static int engine_read(gr_gpu_device_t *dev, gr_context_t ctx, gr_alloc_t a, uint32_t bytes, uint8_t *out)
{
    pkt_t p;
    int rc = pkt_new_data(dev, ctx, bytes, &p);
    if (rc)
        return rc;
    (void)gr_dma_copy(&p.w, GR_DMA_SPACE_GPUVA, va(dev, a), GR_DMA_SPACE_GPUVA, p.va + 4096, bytes);
    pkt_ref(&p, a, false);
    if (!(rc = pkt_submit(dev, ctx, &p)))
        rc = gr_wait(dev, ctx, p.fence, DEMO_WAIT);
    if (!rc)
        memcpy(out, p.cpu + 4096, bytes);
    if (gr_dma_buffer_destroy(dev, p.buf) && !rc)
        rc = GR_E_BUSY;
    return rc;
}

static uint64_t count_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint64_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += a[i] != b[i];
    return d;
}

/* Preemptions VidSch made for paging work since timeline event number since. */
static uint64_t paging_preemptions(gr_adapter_t *ad, uint64_t since)
{
    static gr_sched_event_t ev[GR_SCHED_TIMELINE_CAP];
    size_t n = 0;
    uint64_t count = 0;
    if (gr_adapter_timeline(ad, since, ev, GR_SCHED_TIMELINE_CAP, &n, NULL))
        return 0;
    for (size_t i = 0; i < n; i++)
        count += ev[i].kind == GR_SCHED_EV_PREEMPT && ev[i].arg == GR_SCHED_PREEMPT_PAGING;
    return count;
}

/*
 * Step 13: VRAM made small, allocations totalling 1.5x what is left, COPYs between them through
 * gr_submit, every byte checked; an overlay stays put, a clean PermanentSysMem allocation is
 * discarded. Everything it makes is destroyed and the reservation released before it returns.
 */
static int demo_pressure(gr_adapter_t *ad, gr_gpu_device_t *dev, gr_context_t *out_ctx)
{
    gr_alloc_t bufs[PR_BUFFERS], overlay = 0, psm = 0;
    uint8_t *model[PR_BUFFERS], *seen = NULL;
    pkt_t ring[PR_IN_FLIGHT];
    memset(bufs, 0, sizeof bufs);
    memset(model, 0, sizeof model);
    memset(ring, 0, sizeof ring);
    bool reserved = false;
    gr_context_t ctx = 0;
    gr_adapter_stats_t a0, a1, a2;
    gr_segment_info_t seg[GR_ALLOC_MAX_SEGMENTS];
    uint32_t nseg = 0, gpu_seg = 0, cpu_seg = 0;
    uint64_t since = 0, bad = 0;
    size_t none = 0;
    char why[96];
    int rc;
    if ((rc = gr_adapter_timeline(ad, 0, NULL, 0, &none, &since)) || (rc = gr_adapter_stats(ad, &a0)) ||
        (rc = gr_context_create(dev, NULL, 0, &ctx)))
        goto out;
    *out_ctx = ctx;

    /* The overlay first: it must sit in the last fifth of a segment, which the reservation takes. */
    const uint32_t ov_pattern = 0x0ae71a70u;
    gr_alloc_info_t ov0, ov1;
    if ((rc = create_one(dev, "overlay (pinned: never evicted)",
                         buffer(PR_BYTES, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_OVERLAY), &overlay, NULL)) ||
        (rc = queue_one(dev, ctx, &ring[0], 0, 0, overlay, 0, PR_BYTES, ov_pattern)) ||
        (rc = retire(dev, ctx, &ring[0])) || (rc = gr_alloc_query(dev, overlay, &ov0)))
        goto out;

    /* The demo's VRAM is 512 MiB (sim://'s default strap): reserve most of it. GPU-only
     * buffers may live in the CPU-visible segment too, so both are made small. */
    if ((rc = gr_adapter_segments(ad, seg, GR_ALLOC_MAX_SEGMENTS, &nseg)))
        goto out;
    for (uint32_t i = 0; i < nseg && i < GR_ALLOC_MAX_SEGMENTS; i++) {
        if (!seg[i].cpu_visible && !gpu_seg)
            gpu_seg = seg[i].id;
        if (seg[i].cpu_visible && !cpu_seg)
            cpu_seg = seg[i].id;
    }
    if (!gpu_seg || !cpu_seg) {
        rc = GR_E_UNSUPPORTED;
        goto out;
    }
    reserved = true;
    if ((rc = gr_vidmm_test_reserve(ad, gpu_seg, PR_LEAVE_GPU)) ||
        (rc = gr_vidmm_test_reserve(ad, cpu_seg, PR_LEAVE_CPU)) ||
        (rc = gr_adapter_segments(ad, seg, GR_ALLOC_MAX_SEGMENTS, &nseg)))
        goto out;
    const uint64_t free_bytes = seg[gpu_seg - 1].free_bytes + seg[cpu_seg - 1].free_bytes;
    printf("   the demo reserves VRAM to make it small (VidMm's test hook gr_vidmm_test_reserve: gpu_core's 512 MiB\n"
           "   is fixed): all but %u KiB of segment %u (GPU-only) and all but %u KiB of segment %u (CPU-visible,\n"
           "   where GPU-only buffers may go too); %llu KiB free now\n",
           PR_LEAVE_GPU >> 10, gpu_seg, PR_LEAVE_CPU >> 10, cpu_seg, (unsigned long long)(free_bytes >> 10));

    /* A clean PermanentSysMem allocation: its system copy is the truth, so eviction drops it. */
    const uint32_t psm_bytes = PR_PSM_BYTES;
    static uint8_t psm_model[64u << 10];
    model_fill(psm_model, psm_bytes, 0x5a5c0b1eu);
    void *m = NULL;
    if ((rc = create_quiet(dev, buffer(psm_bytes, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_PERMANENT_SYSMEM), &psm)) ||
        (rc = gr_alloc_lock(dev, psm, GR_LOCK_DISCARD, &m)))
        goto out;
    memcpy(m, psm_model, psm_bytes);
    if ((rc = gr_alloc_unlock(dev, psm)) || (rc = gr_adapter_stats(ad, &a1)) || (rc = gr_alloc_evict(dev, &psm, 1)) ||
        (rc = gr_adapter_stats(ad, &a2)))
        goto out;
    printf("   PermanentSysMem, %u KiB written by a lock (VRAM and its system copy agree), then gr_alloc_evict:\n"
           "   %llu eviction, %llu discard (DISCARD_CONTENT), %llu bytes copied\n",
           psm_bytes >> 10, (unsigned long long)(a2.evictions - a1.evictions), (unsigned long long)(a2.discards - a1.discards),
           (unsigned long long)(a2.bytes_evicted - a1.bytes_evicted));

    /* Over-subscription: each buffer made and filled in turn; later ones evict earlier ones. */
    for (uint32_t i = 0; i < PR_BUFFERS; i++) {
        const uint32_t pattern = 0xb0ff0000u | (i << 8) | i;
        if (!(model[i] = malloc(PR_BYTES))) {
            rc = GR_E_NO_MEMORY;
            goto out;
        }
        model_fill(model[i], PR_BYTES, pattern);
        if ((rc = create_quiet(dev, buffer(PR_BYTES, GR_CPU_ACCESS_NONE, 0), &bufs[i])) ||
            (rc = queue_one(dev, ctx, &ring[0], 0, 0, bufs[i], 0, PR_BYTES, pattern)) ||
            (rc = retire(dev, ctx, &ring[0])))
            goto out;
    }
    if ((rc = gr_adapter_stats(ad, &a1)))
        goto out;
    printf("   %u GPU-only buffers of %u KiB (%u KiB: %.1fx what is free), each FILLed with its own pattern on\n"
           "   the engine: %llu evicted to host memory meanwhile\n",
           PR_BUFFERS, PR_BYTES >> 10, (PR_BUFFERS * PR_BYTES) >> 10,
           (double)(PR_BUFFERS * PR_BYTES) / (double)free_bytes, (unsigned long long)(a1.evictions - a2.evictions));

    /* COPYs between random pairs, a few queued at once: each gr_submit pages its two in. */
    uint32_t rnd = 0x5eed2024u;
    for (uint32_t k = 0; k < PR_COPIES; k++) {
        const uint32_t src = next_rand(&rnd) % PR_BUFFERS;
        uint32_t dst = next_rand(&rnd) % (PR_BUFFERS - 1);
        dst += dst >= src;
        const uint32_t grain = PR_COPY_BYTES / 8; /* where a COPY may start */
        const uint32_t slots = (PR_BYTES - PR_COPY_BYTES) / grain + 1;
        const uint32_t so = (next_rand(&rnd) % slots) * grain, d_o = (next_rand(&rnd) % slots) * grain;
        pkt_t *p = &ring[k % PR_IN_FLIGHT];
        if ((rc = retire(dev, ctx, p)) ||
            (rc = queue_one(dev, ctx, p, bufs[src], so, bufs[dst], d_o, PR_COPY_BYTES, 0)))
            goto out;
        memcpy(model[dst] + d_o, model[src] + so, PR_COPY_BYTES);
    }
    for (uint32_t k = 0; k < PR_IN_FLIGHT; k++)
        if ((rc = retire(dev, ctx, &ring[k])))
            goto out;
    if ((rc = gr_adapter_stats(ad, &a2)))
        goto out;
    printf("   %u COPYs of %u KiB between random pairs through gr_submit, up to %u queued: %llu evictions,\n"
           "   %llu page-ins (VidMm pages in what a packet lists before it is queued)\n",
           PR_COPIES, PR_COPY_BYTES >> 10, PR_IN_FLIGHT, (unsigned long long)(a2.evictions - a1.evictions),
           (unsigned long long)(a2.page_ins - a1.page_ins));

    /* Every byte, through the engine: each read pages its buffer in (and evicts others). */
    if (!(seen = malloc(PR_BYTES))) {
        rc = GR_E_NO_MEMORY;
        goto out;
    }
    for (uint32_t i = 0; i < PR_BUFFERS; i++) {
        if ((rc = engine_read(dev, ctx, bufs[i], PR_BYTES, seen)))
            goto out;
        bad += count_diff(seen, model[i], PR_BYTES);
    }
    printf("   every byte of the %u buffers read back through the engine (COPY to host memory; each read\n"
           "   pages its buffer in): %llu of %u bytes differ from the host's model\n",
           PR_BUFFERS, (unsigned long long)bad, PR_BUFFERS * PR_BYTES);

    gr_alloc_info_t pi;
    if ((rc = gr_alloc_query(dev, psm, &pi)) || (rc = gr_alloc_lock(dev, psm, GR_LOCK_READ_ONLY, &m)))
        goto out;
    const uint64_t psm_bad = count_diff(m, psm_model, psm_bytes);
    if ((rc = gr_alloc_unlock(dev, psm)))
        goto out;
    bad += psm_bad;
    printf("   the PermanentSysMem allocation, %s, locked for reading: its system copy, %s\n",
           residency_name(pi.residency), psm_bad ? "CHANGED" : "intact");

    if ((rc = engine_read(dev, ctx, overlay, PR_BYTES, seen)) || (rc = gr_alloc_query(dev, overlay, &ov1)))
        goto out;
    uint64_t ov_bad = 0;
    for (uint32_t i = 0; i < PR_BYTES; i += 4) {
        uint8_t want[4];
        put32_le(want, ov_pattern);
        ov_bad += memcmp(seen + i, want, 4) != 0;
    }
    bad += ov_bad;
    pin_names(ov1.pinned, why, sizeof why);
    printf("   the overlay: %s, pinned (%s), at 0x%08llx before and 0x%08llx after, its pattern %s;\n"
           "   gr_alloc_evict of it: %s\n",
           residency_name(ov1.residency), why, (unsigned long long)ov0.vram_address,
           (unsigned long long)ov1.vram_address, ov_bad ? "CHANGED" : "intact",
           gr_status_name(gr_alloc_evict(dev, &overlay, 1)));
    if (ov1.vram_address != ov0.vram_address || ov1.residency != GR_RESIDENCY_RESIDENT)
        bad++;

    gr_adapter_stats_t a3;
    if ((rc = gr_adapter_stats(ad, &a3)))
        goto out;
    char out_b[32], in_b[32];
    snprintf(out_b, sizeof out_b, "%.2f MiB", (double)(a3.bytes_evicted - a0.bytes_evicted) / (1 << 20));
    snprintf(in_b, sizeof in_b, "%.2f MiB", (double)(a3.bytes_paged_in - a0.bytes_paged_in) / (1 << 20));
    printf("   VidMm's counters for this step (gr_adapter_stats): %llu evictions (%llu discarded, not copied),\n"
           "   %llu page-ins, %s evicted and %s paged in by the engine, %llu paging packets, %llu failures;\n"
           "   the scheduler preempted the COPYs %llu times for paging (VidMm's packets run first)\n",
           (unsigned long long)(a3.evictions - a0.evictions), (unsigned long long)(a3.discards - a0.discards),
           (unsigned long long)(a3.page_ins - a0.page_ins), out_b, in_b,
           (unsigned long long)(a3.paging_packets - a0.paging_packets),
           (unsigned long long)(a3.paging_failures - a0.paging_failures),
           (unsigned long long)paging_preemptions(ad, since));
    if (bad)
        rc = GR_E_MISMATCH;
out:
    for (uint32_t k = 0; k < PR_IN_FLIGHT; k++)
        (void)retire(dev, ctx, &ring[k]);
    for (uint32_t i = 0; i < PR_BUFFERS; i++) {
        if (bufs[i] && gr_alloc_destroy(dev, bufs[i]) && !rc)
            rc = GR_E_BUSY;
        free(model[i]);
    }
    if (overlay && gr_alloc_destroy(dev, overlay) && !rc)
        rc = GR_E_BUSY;
    if (psm && gr_alloc_destroy(dev, psm) && !rc)
        rc = GR_E_BUSY;
    free(seen);
    if (reserved) {
        gr_vidmm_test_unreserve(ad);
        if (!rc && !gr_adapter_segments(ad, seg, GR_ALLOC_MAX_SEGMENTS, &nseg))
            printf("   destroyed, and the reservation released: segment %u has %llu MiB free again\n", gpu_seg,
                   (unsigned long long)(seg[gpu_seg - 1].free_bytes >> 20));
    }
    return rc;
}

static int demo_commands(const char *uri)
{
    gr_adapter_t *ad = NULL;
    gr_process_t *proc = NULL;
    gr_gpu_device_t *dev = NULL;
    gr_context_t c_copy = 0, c_long = 0, c_hang = 0, c_after = 0, c_press = 0;
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
        (rc = create_one(dev, "read-back (CpuVisible, Cached)", buffer(DEMO_RB_BYTES, GR_CPU_ACCESS_READ_WRITE, 0), &rb, NULL)) ||
        (rc = create_one(dev, "CPU-written (CpuVisible, Cached)", buffer(DEMO_RB_BYTES, GR_CPU_ACCESS_READ_WRITE, 0), &keep, NULL)) ||
        (rc = create_one(dev, "8 MiB source", buffer(8 << 20, GR_CPU_ACCESS_NONE, 0), &big_src, NULL)) ||
        (rc = create_one(dev, "8 MiB destination", buffer(8 << 20, GR_CPU_ACCESS_NONE, 0), &big_dst, NULL)) ||
        (rc = gr_context_create(dev, NULL, 0, &c_copy)) || (rc = gr_context_create(dev, NULL, 0, &c_long)) ||
        (rc = gr_context_create(dev, NULL, 0, &c_hang)))
        goto out;
    const uint32_t pattern = 0x600dcafeu;
    if ((rc = run_one(dev, c_copy, "FILL source with 0x600dcafe", 0, src, 1 << 20, pattern)) ||
        (rc = run_one(dev, c_copy, "COPY source -> destination (GPU VA)", src, dst, 1 << 20, 0)) ||
        (rc = run_one(dev, c_copy, "COPY destination -> read-back", dst, rb, DEMO_RB_BYTES, 0)))
        goto out;
    uint64_t bad = 0;
    if ((rc = check_words(dev, rb, 0, DEMO_RB_BYTES, pattern, &bad)))
        goto out;
    printf("   read-back locked through BAR1: %s (%llu of %u words differ)\n", bad ? "WRONG" : "the pattern",
           (unsigned long long)bad, DEMO_RB_BYTES / 4);

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
    for (uint32_t i = 0; i < DEMO_RB_BYTES / 4; i++)
        memcpy((uint8_t *)m + 4 * i, &kept, 4);
    if ((rc = gr_alloc_unlock(dev, keep)))
        goto out;
    gr_sched_params_t short_tdr = {.tdr_timeout_cycles = 200000};
    if ((rc = gr_adapter_set_scheduling(ad, &short_tdr)) || (rc = pkt_new(dev, c_hang, &hp)))
        goto out;
    /* The qword it waits on is in its own DMA buffer, zero, and nobody writes it. */
    (void)gr_dma_wait(&hp.w, GR_DMA_SPACE_GPUVA, hp.va + 2048, 1);
    (void)gr_dma_fill(&hp.w, GR_DMA_SPACE_GPUVA, va(dev, keep), DEMO_RB_BYTES, 0xdeadu);
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
    if ((rc = check_words(dev, keep, 0, DEMO_RB_BYTES, kept, &bad)))
        goto out;
    printf("   the CPU-written allocation it would have filled: %s (%llu of %u words differ)\n",
           bad ? "CHANGED" : "intact", (unsigned long long)bad, DEMO_RB_BYTES / 4);
    /* Back to a timeout for real work: 2 s at 100 MHz, Windows' TdrDelay. A paging packet of
     * step 13 crosses the link twice (the engine's DMA to host memory), and a slow link (a UART,
     * USB at simulation speed) takes far longer than the scheduler's 20 ms default. */
    gr_sched_params_t normal = {.tdr_timeout_cycles = 200000000};
    if ((rc = gr_adapter_set_scheduling(ad, &normal)) || (rc = gr_context_create(dev, NULL, 0, &c_after)))
        goto out;
    /* The read-back's first sixteenth refilled, the rest still step 10's copy. */
    const uint32_t head = DEMO_RB_BYTES / 16;
    if ((rc = run_one(dev, c_after, "COPY destination -> read-back (again)", dst, rb, DEMO_RB_BYTES, 0)))
        goto out;
    if ((rc = run_one(dev, c_after, "FILL read-back's head with 0x0a6a1000", 0, rb, head, 0x0a6a1000u)) ||
        (rc = check_words(dev, rb, 0, head, 0x0a6a1000u, &bad)))
        goto out;
    uint64_t bad2 = 0;
    if ((rc = check_words(dev, rb, head, DEMO_RB_BYTES - head, pattern, &bad2)))
        goto out;
    printf("   after the reset the device works: step 10's copy is still in the destination and the new\n"
           "   fill landed (%llu words wrong)\n",
           (unsigned long long)(bad + bad2));
    /* Another process aims a FILL at the read-back's VRAM address: a physical address, which a
     * user packet may not name (rtl/dma/README.md, "Privilege"). */
    gr_alloc_info_t ri;
    gr_process_t *p2 = NULL;
    gr_gpu_device_t *d2 = NULL;
    gr_context_t c2 = 0;
    pkt_t ap;
    memset(&ap, 0, sizeof ap);
    if ((rc = gr_alloc_query(dev, rb, &ri)) || (rc = gr_process_create(ad, &p2)) ||
        (rc = gr_gpu_device_create(p2, &d2)) || (rc = gr_context_create(d2, NULL, 0, &c2)) ||
        (rc = pkt_new(d2, c2, &ap)))
        goto out;
    (void)gr_dma_fill(&ap.w, GR_DMA_SPACE_VRAM, ri.vram_address, head, 0xbadbad00u);
    if ((rc = pkt_submit(d2, c2, &ap))) {
        gr_process_destroy(p2);
        goto out;
    }
    const gr_status_t attack = gr_wait(d2, c2, ap.fence, DEMO_WAIT);
    gr_process_destroy(p2);
    if ((rc = check_words(dev, rb, 0, head, 0x0a6a1000u, &bad)))
        goto out;
    printf("   a second process's FILL aimed at the read-back's VRAM address 0x%llx: gr_wait says %s\n"
           "   (the engine refuses a physical address in a user packet: a privilege fault, then TDR);\n"
           "   the read-back: %s (%llu words differ)\n",
           (unsigned long long)ri.vram_address, gr_status_name(attack), bad ? "CHANGED" : "intact",
           (unsigned long long)bad);

    STEP("13. VRAM under pressure: VidMm evicts and pages in, on the engine, through paging packets");
    gr_alloc_t done[] = {src, dst, rb, keep, big_src, big_dst};
    for (size_t i = 0; i < sizeof done / sizeof done[0]; i++)
        if ((rc = gr_alloc_destroy(dev, done[i])))
            goto out;
    printf("   steps 10 to 12's allocations are destroyed, so that only this step's compete for VRAM\n");
    uint64_t busy = 0;
    if ((rc = gr_adapter_timeline(ad, 0, NULL, 0, &none, &busy)) || (rc = demo_pressure(ad, dev, &c_press)))
        goto out;

    STEP("14. the scheduler's timeline (gr_adapter_timeline; device cycles from DMA_TIMESTAMP)");
    const ctx_name_t names[] = {
        {c_copy, "copy"},   {c_long, "long"},         {c_hang, "hang"},
        {c_after, "after"}, {c2, "intruder"}, {c_press, "pressure"}};
    print_timeline(ad, since, busy, names, sizeof names / sizeof names[0]);
    gr_sched_stats_t st;
    gr_adapter_stats_t as;
    if (!gr_adapter_sched_stats(ad, &st) && !gr_adapter_stats(ad, &as))
        printf("   totals: %llu submitted (%llu resubmitted; %llu paging packets), %llu completed, %llu preemptions,\n"
               "   %llu cancelled, %llu TDR\n",
               (unsigned long long)st.submitted, (unsigned long long)st.resubmitted,
               (unsigned long long)as.paging_packets, (unsigned long long)st.completed,
               (unsigned long long)st.preemptions, (unsigned long long)st.cancelled, (unsigned long long)st.tdrs);
out:
    if (rc)
        fprintf(stderr, "gr_demo: command path: %s\n", gr_strerror(rc));
    gr_gpu_device_destroy(dev); /* its contexts, DMA buffers and allocations with it */
    gr_process_destroy(proc);
    gr_adapter_close(ad);
    return rc;
}

/*
 * Sets g_shrink from two measurements in device cycles (DMA_TIMESTAMP_LO, 100 MHz): a 4 KiB BAR1
 * read (a read, not a write: another client of a shared device, simd://, may own that VRAM) and
 * a register round trip. The device's DMA over a link is bound by round trips (a few 64-byte
 * bursts in flight), so a link with round trips over 10 us is slow for it too (USB: 15-25 us in
 * the emulation, about 100 us on a cable; an FT601 board over simd:// about 3 us).
 */
static void demo_shrink(gr_device_t *dev)
{
    static uint8_t page[4096];
    uint32_t t0 = 0, t1 = 0, t2 = 0, v = 0;
    if (gr_reg_read(dev, GR_REG_DMA_TIMESTAMP_LO, &t0) ||
        gr_link_ap_read(gr_device_link(dev), 0, page, sizeof page) ||
        gr_reg_read(dev, GR_REG_DMA_TIMESTAMP_LO, &t1) || gr_reg_read(dev, GR_REG_SCRATCH, &v) ||
        gr_reg_read(dev, GR_REG_DMA_TIMESTAMP_LO, &t2))
        return;
    const uint32_t ap = t1 - t0 ? t1 - t0 : 1, rtt = (t2 - t1) / 2; /* t1->t2: two reads */
    const double mbs = 4096.0 * 100.0 / ap; /* bytes per cycle x 100 MHz, in MB/s */
    g_shrink = mbs < 4.0 || rtt > 1000 ? 16u : 1u;
    printf("   BAR1: a 4 KiB read takes %u device cycles (%.2f MB/s at 100 MHz); a register read %u\n", ap, mbs, rtt);
    if (g_shrink > 1)
        printf("   a slow link (under 4 MB/s, or round trips over 10 us): the demo moves a sixteenth of its\n"
               "   usual bytes across it (smaller buffers, the same steps)\n");
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
    demo_shrink(dev);

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
