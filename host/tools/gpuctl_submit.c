/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpuctl's command path: copy, fill, read, bench and timeline.
 *
 * Each runs packets through VidSch on one GPU context of gpuctl's device (gr_submit.h): a DMA
 * buffer of commands, the allocations it names, gr_submit, gr_wait. Addresses are the
 * allocations' GPU VAs (the context's page tables), and the DMA buffer's own GPU VA for
 * timestamps and read-back: gpuctl is a user process, and the engine runs a user context's
 * packets unprivileged, so they may name no physical address (rtl/dma/README.md, "Privilege").
 * Engine cycles come from TIMESTAMP commands on each side
 * of the command (the second waits for the command's last write response), submit-to-fence
 * cycles from gr_adapter_cycles around gr_submit and gr_wait.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d3dkmddi.h"
#include "gpuctl.h"
#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_dma.h"
#include "gpuref/gr_submit.h"

#define BUS_BYTES 8.0          /* gpu_core's data bus: 8 bytes a cycle at most */
#define READ_CHUNK (1u << 20)  /* read goes through the engine in pieces this big */
#define READ_SHOW_MAX (16ull << 20) /* read prints at most this much (--sum: any length) */
#define CMD_AREA 4096u         /* a packet's commands and timestamps; read data follows */
#define TS_AT (CMD_AREA - 16u) /* where the two TIMESTAMP qwords land in the DMA buffer */
#define BENCH_MAX_BYTES (64ull << 20)

/* @N of an allocation made by an earlier alloc command of this line. */
static int parse_ref(const char *cmd, const char *text, unsigned allocs_before, unsigned *out)
{
    uint32_t n = 0;
    if (text[0] != '@' || text[1] == '\0' || parse_u32(text + 1, &n) || n == 0) {
        return parse_fail(cmd, "%s: '%s' is not @N (an allocation of this run, N from 1)", cmd, text);
    }
    if (n > allocs_before) {
        return parse_fail(cmd, "%s %s: only %u alloc command%s come%s before it", cmd, text, allocs_before,
                          allocs_before == 1 ? "" : "s", allocs_before == 1 ? "s" : "");
    }
    *out = n;
    return 0;
}

/* A byte count or offset: the engine moves whole qwords, so multiples of 8. */
static int parse_qwords(const char *cmd, const char *what, const char *text, bool zero_ok, uint64_t *out)
{
    uint64_t v = 0;
    if (parse_size_ex(text, zero_ok, &v)) {
        return parse_fail(cmd, "%s: %s '%s' is not a size (%s" SIZE_FORMS ")", cmd, what, text,
                          zero_ok ? "0 or " : "");
    }
    if (v % 8) {
        return parse_fail(cmd, "%s: %s %s is not a multiple of 8 (the engine moves whole qwords)", cmd, what, text);
    }
    *out = v;
    return 0;
}

static bool starts_with_digit(const char *t)
{
    return t[0] >= '0' && t[0] <= '9';
}

/* "--name=value" or "--name value"; returns the value, or NULL (message printed). */
static const char *opt_value(const char *cmd, int argc, char **argv, int *i, const char *name)
{
    size_t len = strlen(name);
    if (argv[*i][len] == '=')
        return argv[*i] + len + 1;
    if (*i + 1 < argc)
        return argv[++*i];
    parse_fail(cmd, "%s option %s takes a value", cmd, name);
    return NULL;
}

static bool opt_is(const char *arg, const char *name)
{
    size_t len = strlen(name);
    return strncmp(arg, name, len) == 0 && (arg[len] == '\0' || arg[len] == '=');
}

static void req_text(xfer_req_t *r, int words, char **argv)
{
    size_t used = 0;
    for (int w = 0; w < words && used < sizeof r->text; w++)
        used += (size_t)snprintf(r->text + used, sizeof r->text - used, "%s%s", w ? " " : "", argv[w]);
}

/* copy SRC DST [BYTES] [--src-offset N] [--dst-offset N]; returns the words taken, or -1. */
int parse_copy(int argc, char **argv, unsigned allocs_before, xfer_req_t *out)
{
    xfer_req_t r;
    memset(&r, 0, sizeof r);
    if (argc < 3 || strncmp(argv[1], "--", 2) == 0 || strncmp(argv[2], "--", 2) == 0) {
        return parse_fail("copy", "copy takes SRC and DST (@N)");
    }
    if (strncmp(argv[1], "vram:", 5) == 0 || strncmp(argv[2], "vram:", 5) == 0) {
        return parse_fail("copy", "copy: SRC and DST must be allocations (@N): a user packet names GPU virtual "
                                  "addresses only; the engine refuses physical VRAM in it (privilege fault), which "
                                  "would reach page tables and other processes' memory");
    }
    if (parse_ref("copy", argv[1], allocs_before, &r.src_ref))
        return -1;
    if (parse_ref("copy", argv[2], allocs_before, &r.dst_ref))
        return -1;
    int i = 3;
    if (i < argc && starts_with_digit(argv[i]) && parse_qwords("copy", "size", argv[i++], false, &r.bytes))
        return -1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        bool src = opt_is(argv[i], "--src-offset");
        if (!src && !opt_is(argv[i], "--dst-offset")) {
            return parse_fail("copy", "unknown copy option '%s' (--src-offset N, --dst-offset N)", argv[i]);
        }
        const char *name = src ? "--src-offset" : "--dst-offset";
        const char *v = opt_value("copy", argc, argv, &i, name);
        if (!v || parse_qwords("copy", name, v, true, src ? &r.src_off : &r.dst_off))
            return -1;
    }
    req_text(&r, i, argv);
    *out = r;
    return i;
}

/* fill DST PATTERN [BYTES] [--offset N] */
int parse_fill(int argc, char **argv, unsigned allocs_before, xfer_req_t *out)
{
    xfer_req_t r;
    memset(&r, 0, sizeof r);
    if (argc < 3 || strncmp(argv[1], "--", 2) == 0) {
        return parse_fail("fill", "fill takes DST (@N) and a 32-bit PATTERN");
    }
    if (parse_ref("fill", argv[1], allocs_before, &r.dst_ref))
        return -1;
    if (parse_u32(argv[2], &r.pattern)) {
        return parse_fail("fill", "fill: pattern '%s' is not a 32-bit value (the engine's FILL repeats 32 bits)",
                          argv[2]);
    }
    int i = 3;
    if (i < argc && starts_with_digit(argv[i]) && parse_qwords("fill", "size", argv[i++], false, &r.bytes))
        return -1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (!opt_is(argv[i], "--offset")) {
            return parse_fail("fill", "unknown fill option '%s' (--offset N)", argv[i]);
        }
        const char *v = opt_value("fill", argc, argv, &i, "--offset");
        if (!v || parse_qwords("fill", "--offset", v, true, &r.dst_off))
            return -1;
    }
    req_text(&r, i, argv);
    *out = r;
    return i;
}

/* read SRC [OFFSET] [LENGTH] [--sum] [--cpu] */
int parse_read(int argc, char **argv, unsigned allocs_before, xfer_req_t *out)
{
    xfer_req_t r;
    memset(&r, 0, sizeof r);
    if (argc < 2 || strncmp(argv[1], "--", 2) == 0) {
        return parse_fail("read", "read takes an allocation (@N), then an offset and a length");
    }
    if (parse_ref("read", argv[1], allocs_before, &r.src_ref))
        return -1;
    int i = 2;
    if (i < argc && starts_with_digit(argv[i]) && parse_qwords("read", "offset", argv[i++], true, &r.src_off))
        return -1;
    if (i < argc && starts_with_digit(argv[i]) && parse_qwords("read", "length", argv[i++], false, &r.bytes))
        return -1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (!strcmp(argv[i], "--sum"))
            r.sum = true;
        else if (!strcmp(argv[i], "--cpu"))
            r.cpu = true;
        else {
            return parse_fail("read", "unknown read option '%s' (--sum, --cpu)", argv[i]);
        }
    }
    req_text(&r, i, argv);
    *out = r;
    return i;
}

static const char *const bench_default_sizes = "256,1K,4K,16K,64K,256K,1M";

/* SIZE[,SIZE...] */
static int parse_sizes(const char *list, xfer_req_t *r)
{
    r->nsizes = 0;
    for (const char *t = list; *t;) {
        const char *comma = strchr(t, ',');
        size_t len = comma ? (size_t)(comma - t) : strlen(t);
        char one[32];
        uint64_t v = 0;
        if (len == 0 || len >= sizeof one) {
            return parse_fail("bench", "bench: --sizes takes a list such as 4K,64K,1M, not '%s'", list);
        }
        memcpy(one, t, len);
        one[len] = '\0';
        t += len + (comma ? 1 : 0);
        if (comma && !*t) {
            return parse_fail("bench", "bench: --sizes list '%s' ends with a comma", list);
        }
        if (r->nsizes == BENCH_MAX_SIZES) {
            return parse_fail("bench", "bench: at most %d sizes", BENCH_MAX_SIZES);
        }
        if (parse_qwords("bench", "size", one, false, &v))
            return -1;
        if (v > BENCH_MAX_BYTES) {
            return parse_fail("bench", "bench: size %s is out of range (8 to 64M)", one);
        }
        r->sizes[r->nsizes++] = v;
    }
    if (!r->nsizes) {
        return parse_fail("bench", "bench: --sizes takes a list such as 4K,64K,1M");
    }
    return 0;
}

/* bench [--sizes LIST] [--runs N] */
int parse_bench(int argc, char **argv, xfer_req_t *out)
{
    xfer_req_t r;
    memset(&r, 0, sizeof r);
    r.runs = 3;
    if (parse_sizes(bench_default_sizes, &r))
        return -1;
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const char *v;
        if (opt_is(argv[i], "--sizes")) {
            if (!(v = opt_value("bench", argc, argv, &i, "--sizes")) || parse_sizes(v, &r))
                return -1;
        } else if (opt_is(argv[i], "--runs")) {
            if (!(v = opt_value("bench", argc, argv, &i, "--runs")))
                return -1;
            if (parse_u32(v, &r.runs) || r.runs == 0 || r.runs > 100) {
                return parse_fail("bench", "bench: --runs takes 1 to 100, not '%s'", v);
            }
        } else if (!strcmp(argv[i], "--physical")) {
            return parse_fail("bench", "bench: --physical is gone: VRAM addresses patched into a user packet "
                                       "(DxgkDdiPatch) would need a privileged ring entry; user packets use GPU VAs "
                                       "only");
        } else {
            return parse_fail("bench", "unknown bench option '%s' (--sizes LIST, --runs N)", argv[i]);
        }
    }
    req_text(&r, i, argv);
    *out = r;
    return i;
}

/* ---- running packets ---- */

/* gpuctl's GPU context, made at the first command that needs the engine; a new one after a
 * TDR took the last one. */
static int session_engine(const opts_t *o, session_t *s, const char *cmd)
{
    int rc = session_start(o, s, cmd);
    if (rc)
        return rc;
    if (s->ctx)
        return EXIT_OK;
    rc = gr_context_create(s->gdev, NULL, 0, &s->ctx);
    if (rc == GR_E_UNSUPPORTED)
        return fail_status(o, cmd, rc, EXIT_DEVICE, "this device has no DMA engine (ID_CAPS.DMA is 0)");
    if (rc)
        return fail_status(o, cmd, rc, EXIT_DEVICE, "cannot create a GPU context");
    return EXIT_OK;
}

/* The live allocation @ref and what it is. */
static int lookup_ref(const opts_t *o, session_t *s, const char *cmd, unsigned ref, gr_alloc_info_t *out)
{
    const alloc_rec_t *r = ref <= s->nrecs ? &s->recs[ref - 1] : NULL;
    if (!r || !r->handle)
        return fail_status(o, cmd, 0, EXIT_USAGE, "%s @%u: %s", cmd, ref, r ? "already freed" : "not made (its alloc failed)");
    int rc = gr_alloc_query(s->gdev, r->handle, out);
    if (rc)
        return fail_status(o, cmd, rc, EXIT_DEVICE, "querying @%u", ref);
    if (!out->gpu_va)
        return fail_status(o, cmd, 0, EXIT_USAGE, "%s @%u: not mapped in the GPU's address space", cmd, ref);
    return EXIT_OK;
}

static uint32_t wddm2_bit(int which)
{
    DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 f;
    f.Value = 0;
    if (which == 0)
        f.CreateInVpr = 1;
    else if (which == 1)
        f.HardwareProtected = 1;
    else
        f.Protected = 1;
    return f.Value;
}

static bool in_vpr(const gr_alloc_info_t *i)
{
    return (i->flags_wddm2 & (wddm2_bit(0) | wddm2_bit(1))) != 0;
}

/* Protected content: in the VPR, or Protected (gr_submit refuses a packet that names one and
 * writes an allocation that is not). */
static bool is_protected(const gr_alloc_info_t *i)
{
    return in_vpr(i) || (i->flags_wddm2 & wddm2_bit(2)) != 0;
}

/* [off, off + bytes) inside size; bytes 0 means "to the end" and becomes it. */
static int check_range(const opts_t *o, const char *cmd, const char *what, uint64_t size, uint64_t off,
                       uint64_t *bytes)
{
    if (off >= size)
        return fail_status(o, cmd, GR_E_RANGE, EXIT_USAGE, "%s %s: offset 0x%llx is past its end (%llu bytes)", cmd,
                           what, (unsigned long long)off, (unsigned long long)size);
    if (*bytes == 0)
        *bytes = size - off;
    if (*bytes > size - off)
        return fail_status(o, cmd, GR_E_RANGE, EXIT_USAGE,
                           "%s %s: %llu bytes at offset 0x%llx run past its end (%llu bytes)", cmd, what,
                           (unsigned long long)*bytes, (unsigned long long)off, (unsigned long long)size);
    return EXIT_OK;
}

/* A packet being built: a DMA buffer with commands at 0, timestamps at TS_AT, data after. */
typedef struct packet {
    gr_dma_buffer_t buf;
    uint8_t *cpu;
    uint64_t va; /* the DMA buffer's GPU VA: how the packet writes into it */
    uint32_t size;
    gr_dma_writer_t w;
    gr_alloc_ref_t refs[2];
    uint32_t nrefs;
    uint64_t fence;
    uint64_t engine_cycles, submit_to_fence;
} packet_t;

static int pkt_begin(const opts_t *o, session_t *s, const char *cmd, uint32_t data_bytes, packet_t *p)
{
    memset(p, 0, sizeof *p);
    int rc = gr_dma_buffer_create(s->gdev, s->ctx, CMD_AREA + data_bytes, &p->buf);
    gr_dma_buffer_info_t i;
    if (!rc && (rc = gr_dma_buffer_info(s->gdev, p->buf, &i)) && gr_dma_buffer_destroy(s->gdev, p->buf))
        note("a DMA buffer could not be freed");
    if (rc) {
        p->buf = 0;
        return fail_status(o, cmd, rc, EXIT_DEVICE, "cannot make a DMA buffer");
    }
    p->cpu = i.cpu;
    p->va = i.gpu_va;
    p->size = i.size;
    gr_dma_writer_init(&p->w, p->cpu, TS_AT);
    return EXIT_OK;
}

static void pkt_end(session_t *s, packet_t *p)
{
    if (p->buf && gr_dma_buffer_destroy(s->gdev, p->buf))
        note("a DMA buffer could not be freed (a packet still uses it)");
    p->buf = 0;
}

static uint32_t pkt_ref(packet_t *p, gr_alloc_t a, bool write)
{
    for (uint32_t k = 0; k < p->nrefs; k++)
        if (p->refs[k].handle == a) {
            p->refs[k].flags |= write ? GR_ALLOC_REF_WRITE : 0;
            return k;
        }
    p->refs[p->nrefs] = (gr_alloc_ref_t){.handle = a, .flags = write ? GR_ALLOC_REF_WRITE : 0};
    return p->nrefs++;
}

static void pkt_timestamp(packet_t *p, unsigned which)
{
    (void)gr_dma_timestamp(&p->w, GR_DMA_SPACE_GPUVA, p->va + TS_AT + 8u * which);
}

/* Submits, waits and times a packet. The DMA buffer outlives the packet (pkt_end frees it). */
static int pkt_run(const opts_t *o, session_t *s, const char *cmd, packet_t *p, uint64_t bytes_moved)
{
    if (p->w.overflow)
        return fail_status(o, cmd, GR_E_RANGE, EXIT_DEVICE, "the commands do not fit their DMA buffer");
    gr_dma_put64(p->cpu + TS_AT, 0);
    gr_dma_put64(p->cpu + TS_AT + 8, 0);
    gr_submission_t sub = {.buffer = p->buf, .start = 0, .end = (uint32_t)p->w.used, .allocs = p->refs,
                           .alloc_count = p->nrefs};
    uint64_t t0 = 0, t1 = 0;
    int rc = gr_adapter_cycles(s->ad, &t0);
    if (!rc)
        rc = gr_submit(s->gdev, s->ctx, &sub, &p->fence);
    if (rc)
        return fail_status(o, cmd, rc, rc == GR_E_INVALID || rc == GR_E_RANGE ? EXIT_USAGE : EXIT_DEVICE,
                           "%s: the scheduler refused the packet", cmd);
    /* Generous: one cycle a byte is an eighth of the bus; a hang is VidSch's TDR to find. */
    rc = gr_wait(s->gdev, s->ctx, p->fence, 20000000ull + bytes_moved);
    if (rc == GR_E_TIMEOUT) {
        uint32_t n = 0;
        if (gr_cancel(s->gdev, s->ctx, &n))
            note("cancelling the packet failed");
        return fail_status(o, cmd, rc, EXIT_DEVICE, "%s: the packet did not finish (cancelled)", cmd);
    }
    if (rc == GR_E_DEVICE_RESET) {
        /* The context is lost; the next command gets a new one. */
        if (gr_context_destroy(s->gdev, s->ctx))
            note("destroying the lost context failed");
        s->ctx = 0;
        return fail_status(o, cmd, rc, EXIT_DEVICE, "%s: the engine hung or faulted, or the device was reset from outside, and the GPU was reset (TDR)", cmd);
    }
    if (rc)
        return fail_status(o, cmd, rc, EXIT_DEVICE, "%s: waiting for the packet", cmd);
    if ((rc = gr_adapter_cycles(s->ad, &t1)))
        return fail_status(o, cmd, rc, EXIT_DEVICE, "reading the device's clock");
    const uint64_t ts0 = gr_dma_get64(p->cpu + TS_AT), ts1 = gr_dma_get64(p->cpu + TS_AT + 8);
    p->engine_cycles = ts1 > ts0 ? ts1 - ts0 : 0;
    p->submit_to_fence = t1 - t0;
    return EXIT_OK;
}

static double per_cycle(uint64_t bytes, uint64_t cycles)
{
    return cycles ? (double)bytes / (double)cycles : 0.0;
}

static void print_rate(const opts_t *o, uint64_t bytes, const packet_t *p)
{
    const double bpc = per_cycle(bytes, p->engine_cycles);
    if (o->json) {
        printf(",\"bytes\":%llu,\"cycles\":%llu,\"bytes_per_cycle\":%.4f,\"bus_percent\":%.2f,"
               "\"submit_to_fence_cycles\":%llu,\"fence\":%llu}\n",
               (unsigned long long)bytes, (unsigned long long)p->engine_cycles, bpc, 100.0 * bpc / BUS_BYTES,
               (unsigned long long)p->submit_to_fence, (unsigned long long)p->fence);
        return;
    }
    char sz[32];
    printf(" %s in %llu cycles, %.2f B/cycle (%.1f%% of the 8-byte bus); submit to fence %llu cycles\n",
           fmt_size(bytes, sz, sizeof sz), (unsigned long long)p->engine_cycles, bpc, 100.0 * bpc / BUS_BYTES,
           (unsigned long long)p->submit_to_fence);
}

int cmd_copy(const opts_t *o, session_t *s, const xfer_req_t *q)
{
    int rc = session_engine(o, s, "copy");
    if (rc)
        return rc;
    gr_alloc_info_t si, di;
    memset(&si, 0, sizeof si);
    if ((rc = lookup_ref(o, s, "copy", q->dst_ref, &di)))
        return rc;
    if ((rc = lookup_ref(o, s, "copy", q->src_ref, &si)))
        return rc;
    /* Sizes and offsets are checked before anything is submitted: a refusal changes nothing. */
    uint64_t bytes = q->bytes, dst_rest = 0;
    char what[32], dwhat[32];
    snprintf(dwhat, sizeof dwhat, "destination @%u", q->dst_ref);
    snprintf(what, sizeof what, "source @%u", q->src_ref);
    if (!bytes) {
        /* The rest of the smaller side. */
        if ((rc = check_range(o, "copy", what, si.size, q->src_off, &bytes)))
            return rc;
        if ((rc = check_range(o, "copy", dwhat, di.size, q->dst_off, &dst_rest)))
            return rc;
        bytes = bytes < dst_rest ? bytes : dst_rest;
    }
    if ((rc = check_range(o, "copy", what, si.size, q->src_off, &bytes)))
        return rc;
    if ((rc = check_range(o, "copy", dwhat, di.size, q->dst_off, &bytes)))
        return rc;
    if (in_vpr(&si) && !in_vpr(&di))
        return fail_status(o, "copy", 0, EXIT_USAGE,
                           "copy @%u -> @%u: @%u is inside the VPR and @%u is not: protected content never "
                           "leaves the VPR (the engine would fault)",
                           q->src_ref, q->dst_ref, q->src_ref, q->dst_ref);
    if (is_protected(&si) && !is_protected(&di))
        return fail_status(o, "copy", GR_E_INVALID, EXIT_USAGE,
                           "copy @%u -> @%u: @%u is Protected and @%u is not: protected content only goes to "
                           "protected allocations (gr_submit refuses it)",
                           q->src_ref, q->dst_ref, q->src_ref, q->dst_ref);
    if (q->src_ref == q->dst_ref && q->src_off < q->dst_off + bytes && q->dst_off < q->src_off + bytes)
        return fail_status(o, "copy", 0, EXIT_USAGE,
                           "copy @%u: the source and destination ranges overlap (an overlapping copy is undefined)",
                           q->src_ref);
    packet_t p;
    if ((rc = pkt_begin(o, s, "copy", 0, &p)))
        return rc;
    const uint64_t src = si.gpu_va + q->src_off, dst = di.gpu_va + q->dst_off;
    pkt_timestamp(&p, 0);
    (void)gr_dma_copy(&p.w, GR_DMA_SPACE_GPUVA, src, GR_DMA_SPACE_GPUVA, dst, bytes);
    pkt_timestamp(&p, 1);
    (void)pkt_ref(&p, s->recs[q->src_ref - 1].handle, false);
    (void)pkt_ref(&p, s->recs[q->dst_ref - 1].handle, true);
    rc = pkt_run(o, s, "copy", &p, bytes);
    if (rc == EXIT_OK) {
        if (o->json) {
            printf("{\"command\":\"copy\",\"src\":\"@%u\",\"src_space\":\"gpuva\"", q->src_ref);
            printf(",\"src_address\":%llu,\"src_offset\":%llu,\"dst\":\"@%u\",\"dst_address\":%llu,\"dst_offset\":%llu",
                   (unsigned long long)src, (unsigned long long)q->src_off, q->dst_ref, (unsigned long long)dst,
                   (unsigned long long)q->dst_off);
        } else {
            printf("copy @%u+0x%llx -> @%u+0x%llx:", q->src_ref, (unsigned long long)q->src_off, q->dst_ref,
                   (unsigned long long)q->dst_off);
        }
        print_rate(o, bytes, &p);
    }
    pkt_end(s, &p);
    return rc;
}

int cmd_fill(const opts_t *o, session_t *s, const xfer_req_t *q)
{
    int rc = session_engine(o, s, "fill");
    if (rc)
        return rc;
    gr_alloc_info_t di;
    if ((rc = lookup_ref(o, s, "fill", q->dst_ref, &di)))
        return rc;
    uint64_t bytes = q->bytes;
    char what[32];
    snprintf(what, sizeof what, "@%u", q->dst_ref);
    if ((rc = check_range(o, "fill", what, di.size, q->dst_off, &bytes)))
        return rc;
    packet_t p;
    if ((rc = pkt_begin(o, s, "fill", 0, &p)))
        return rc;
    pkt_timestamp(&p, 0);
    (void)gr_dma_fill(&p.w, GR_DMA_SPACE_GPUVA, di.gpu_va + q->dst_off, bytes, q->pattern);
    pkt_timestamp(&p, 1);
    (void)pkt_ref(&p, s->recs[q->dst_ref - 1].handle, true);
    rc = pkt_run(o, s, "fill", &p, bytes);
    if (rc == EXIT_OK) {
        if (o->json)
            printf("{\"command\":\"fill\",\"dst\":\"@%u\",\"dst_address\":%llu,\"dst_offset\":%llu,\"pattern\":%u",
                   q->dst_ref, (unsigned long long)(di.gpu_va + q->dst_off), (unsigned long long)q->dst_off,
                   q->pattern);
        else
            printf("fill @%u+0x%llx with 0x%08x:", q->dst_ref, (unsigned long long)q->dst_off, q->pattern);
        print_rate(o, bytes, &p);
    }
    pkt_end(s, &p);
    return rc;
}

/* CRC-32 (IEEE 802.3, zlib's crc32()), so a script can check a read with any tool. */
static uint32_t crc32_update(uint32_t crc, const uint8_t *b, size_t n)
{
    static uint32_t table[256];
    if (!table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ b[i]) & 0xffu] ^ (crc >> 8);
    return ~crc;
}

/* hexdump -C lines, offsets from the allocation's start; repeated lines become one '*'. */
typedef struct hexdump {
    uint8_t prev[16];
    bool have_prev, starred;
} hexdump_t;

static void hex_line(hexdump_t *h, unsigned ref, uint64_t off, const uint8_t *b, size_t n, bool last)
{
    if (n == 16 && h->have_prev && !last && memcmp(b, h->prev, 16) == 0) {
        if (!h->starred)
            printf("*\n");
        h->starred = true;
        return;
    }
    h->starred = false;
    printf("@%u+%08llx ", ref, (unsigned long long)off);
    for (size_t i = 0; i < 16; i++) {
        if (i < n)
            printf("%s%02x", i == 8 ? "  " : " ", b[i]);
        else
            printf("%s  ", i == 8 ? "   " : " ");
    }
    printf("  |");
    for (size_t i = 0; i < n; i++)
        putchar(b[i] >= 0x20 && b[i] < 0x7f ? b[i] : '.');
    printf("|\n");
    if (n == 16) {
        memcpy(h->prev, b, 16);
        h->have_prev = true;
    }
}

int cmd_read(const opts_t *o, session_t *s, const xfer_req_t *q)
{
    int rc = q->cpu ? session_start(o, s, "read") : session_engine(o, s, "read");
    if (rc)
        return rc;
    gr_alloc_info_t si;
    if ((rc = lookup_ref(o, s, "read", q->src_ref, &si)))
        return rc;
    if (in_vpr(&si) || (si.flags_wddm2 & wddm2_bit(2)))
        return fail_status(o, "read", 0, EXIT_USAGE, "read @%u: protected content is never shown (%s)", q->src_ref,
                           in_vpr(&si) ? "it is in the VPR" : "Protected");
    uint64_t bytes = q->bytes; /* 0: to the end (check_range) */
    if (!bytes && !q->sum && q->src_off < si.size && si.size - q->src_off > 256)
        bytes = 256;
    char what[32];
    snprintf(what, sizeof what, "@%u", q->src_ref);
    if ((rc = check_range(o, "read", what, si.size, q->src_off, &bytes)))
        return rc;
    if (!q->sum && bytes > READ_SHOW_MAX)
        return fail_status(o, "read", GR_E_RANGE, EXIT_USAGE, "read @%u: at most 16 MiB are shown (--sum checksums any "
                           "length)", q->src_ref);
    /* Everything is read before anything is printed, so a failure leaves no half document. */
    const gr_alloc_t h = s->recs[q->src_ref - 1].handle;
    uint8_t *shown = NULL, *cpu_map = NULL;
    packet_t p;
    memset(&p, 0, sizeof p);
    if (!q->sum && !(shown = malloc(bytes ? bytes : 1)))
        return fail_status(o, "read", GR_E_NO_MEMORY, EXIT_DEVICE, "read @%u: no memory for %llu bytes", q->src_ref,
                           (unsigned long long)bytes);
    if (q->cpu) {
        void *m = NULL;
        /* Only the pages read cross BAR1 (a lock of the whole allocation would move all of it). */
        rc = gr_alloc_lock_range(s->gdev, h, GR_LOCK_READ_ONLY, q->src_off, bytes ? bytes : 1, &m);
        if (rc == GR_E_INVALID)
            rc = fail_status(o, "read", rc, EXIT_USAGE, "read @%u --cpu: the CPU cannot map it (not CPU-visible); "
                             "without --cpu it is read through the engine", q->src_ref);
        else if (rc)
            rc = fail_status(o, "read", rc, EXIT_DEVICE, "locking @%u", q->src_ref);
        cpu_map = m;
    } else {
        rc = pkt_begin(o, s, "read", bytes < READ_CHUNK ? (uint32_t)bytes : READ_CHUNK, &p);
    }
    uint32_t crc = 0;
    for (uint64_t done = 0; done < bytes && rc == EXIT_OK;) {
        const uint64_t n = bytes - done < READ_CHUNK ? bytes - done : READ_CHUNK;
        const uint8_t *data;
        if (q->cpu) {
            data = cpu_map + done;
        } else {
            gr_dma_writer_init(&p.w, p.cpu, TS_AT);
            p.nrefs = 0;
            (void)gr_dma_copy(&p.w, GR_DMA_SPACE_GPUVA, si.gpu_va + q->src_off + done, GR_DMA_SPACE_GPUVA,
                              p.va + CMD_AREA, n);
            (void)pkt_ref(&p, h, false);
            if ((rc = pkt_run(o, s, "read", &p, n)))
                break;
            data = p.cpu + CMD_AREA;
        }
        crc = crc32_update(crc, data, n);
        if (shown)
            memcpy(shown + done, data, n);
        done += n;
    }
    if (cpu_map && gr_alloc_unlock(s->gdev, h))
        note("unlocking @%u failed", q->src_ref);
    pkt_end(s, &p);
    if (rc) {
        free(shown);
        return rc;
    }
    if (o->json) {
        printf("{\"command\":\"read\",\"src\":\"@%u\",\"offset\":%llu,\"bytes\":%llu,\"via\":\"%s\",\"crc32\":%u",
               q->src_ref, (unsigned long long)q->src_off, (unsigned long long)bytes, q->cpu ? "cpu" : "engine", crc);
        if (shown) {
            printf(",\"data\":\"");
            for (uint64_t i = 0; i < bytes; i++)
                printf("%02x", shown[i]);
            printf("\"");
        }
        printf("}\n");
    } else {
        hexdump_t hd;
        memset(&hd, 0, sizeof hd);
        for (uint64_t k = 0; shown && k < bytes; k += 16) {
            const size_t len = bytes - k < 16 ? (size_t)(bytes - k) : 16;
            hex_line(&hd, q->src_ref, q->src_off + k, shown + k, len, k + len == bytes);
        }
        char sz[32];
        printf("@%u: %s at +0x%llx through %s, crc32 0x%08x\n", q->src_ref, fmt_size(bytes, sz, sizeof sz),
               (unsigned long long)q->src_off, q->cpu ? "a CPU lock (BAR1)" : "the DMA engine", crc);
    }
    free(shown);
    return EXIT_OK;
}

/* ---- bench ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int bench_buffer(session_t *s, uint64_t bytes, gr_alloc_t *out)
{
    gr_alloc_private_t p;
    memset(&p, 0, sizeof p);
    p.version = GR_ALLOC_PRIVATE_VERSION;
    p.struct_size = sizeof p;
    p.kind = GR_ALLOC_KIND_BUFFER;
    p.cpu_access = GR_CPU_ACCESS_NONE;
    p.buffer_bytes = bytes;
    gr_alloc_desc_t d = {.private_data = &p, .private_size = sizeof p};
    return gr_alloc_create(s->gdev, NULL, &d, 1, out, NULL);
}

/* One timed COPY src -> dst of bytes (GPU VA, or VRAM addresses patched in by the miniport). */
static int bench_one(const opts_t *o, session_t *s, const gr_alloc_info_t *si, const gr_alloc_info_t *di,
                     gr_alloc_t src, gr_alloc_t dst, uint64_t bytes, uint64_t *out_cycles, uint64_t *out_stf)
{
    packet_t p;
    int rc = pkt_begin(o, s, "bench", 0, &p);
    if (rc)
        return rc;
    pkt_timestamp(&p, 0);
    (void)gr_dma_copy(&p.w, GR_DMA_SPACE_GPUVA, si->gpu_va, GR_DMA_SPACE_GPUVA, di->gpu_va, bytes);
    pkt_timestamp(&p, 1);
    (void)pkt_ref(&p, src, false);
    (void)pkt_ref(&p, dst, true);
    rc = pkt_run(o, s, "bench", &p, bytes);
    *out_cycles = p.engine_cycles;
    *out_stf = p.submit_to_fence;
    pkt_end(s, &p);
    return rc;
}

int cmd_bench(const opts_t *o, session_t *s, const xfer_req_t *q)
{
    int rc = session_engine(o, s, "bench");
    if (rc)
        return rc;
    uint64_t max = 0;
    for (unsigned k = 0; k < q->nsizes; k++)
        max = q->sizes[k] > max ? q->sizes[k] : max;
    gr_alloc_t src = 0, dst = 0;
    gr_alloc_info_t si, di;
    char sz[32];
    rc = bench_buffer(s, max, &src);
    if (!rc)
        rc = bench_buffer(s, max, &dst);
    if (!rc)
        rc = gr_alloc_query(s->gdev, src, &si);
    if (!rc)
        rc = gr_alloc_query(s->gdev, dst, &di);
    if (rc) {
        rc = fail_status(o, "bench", rc, EXIT_DEVICE, "bench: no room for two %s GPU-only buffers",
                         fmt_size(max, sz, sizeof sz));
        goto out;
    }
    /* A known source, so the copies can be checked at the end. */
    packet_t p;
    if ((rc = pkt_begin(o, s, "bench", 0, &p)))
        goto out;
    const uint32_t pattern = 0xbe4c0000u | (uint32_t)(max & 0xffffu);
    (void)gr_dma_fill(&p.w, GR_DMA_SPACE_GPUVA, si.gpu_va, max, pattern);
    (void)pkt_ref(&p, src, true);
    rc = pkt_run(o, s, "bench", &p, max);
    pkt_end(s, &p);
    if (rc)
        goto out;
    if (o->json)
        printf("{\"command\":\"bench\",\"copy\":\"vram->vram\",\"addressing\":\"gpuva\",\"runs\":%u,\"src_vram\":%llu,"
               "\"dst_vram\":%llu,\"results\":[",
               q->runs, (unsigned long long)si.vram_address,
               (unsigned long long)di.vram_address);
    else
        printf("bench: COPY VRAM -> VRAM through GPU virtual addresses, %u run%s a size (median; min and max in --json)\n"
               "%10s %10s %9s %13s %14s\n",
               q->runs,
               q->runs == 1 ? "" : "s", "size", "cycles", "B/cycle", "% of 8 B bus", "submit->fence");
    for (unsigned k = 0; k < q->nsizes && !rc; k++) {
        uint64_t cyc[100], stf[100];
        progress_step(k, q->nsizes);
        for (unsigned r = 0; r < q->runs && !rc; r++)
            rc = bench_one(o, s, &si, &di, src, dst, q->sizes[k], &cyc[r], &stf[r]);
        if (rc)
            break;
        qsort(cyc, q->runs, sizeof cyc[0], cmp_u64);
        qsort(stf, q->runs, sizeof stf[0], cmp_u64);
        const uint64_t med = cyc[(q->runs - 1) / 2]; /* the lower median */
        const double bpc = per_cycle(q->sizes[k], med);
        if (o->json)
            printf("%s{\"size\":%llu,\"cycles\":%llu,\"min_cycles\":%llu,\"max_cycles\":%llu,\"bytes_per_cycle\":%.4f,"
                   "\"bus_percent\":%.2f,\"submit_to_fence_cycles\":%llu}",
                   k ? "," : "", (unsigned long long)q->sizes[k], (unsigned long long)med, (unsigned long long)cyc[0],
                   (unsigned long long)cyc[q->runs - 1], bpc, 100.0 * bpc / BUS_BYTES,
                   (unsigned long long)stf[(q->runs - 1) / 2]);
        else
            printf("%10s %10llu %9.2f %12.1f%% %14llu\n", fmt_size(q->sizes[k], sz, sizeof sz),
                   (unsigned long long)med, bpc, 100.0 * bpc / BUS_BYTES, (unsigned long long)stf[(q->runs - 1) / 2]);
    }
    if (rc) {
        if (o->json)
            printf("]}\n");
        goto out;
    }
    /* The largest copy's first and last qwords hold the source's pattern (read through the engine). */
    if ((rc = pkt_begin(o, s, "bench", 16, &p)))
        goto out;
    (void)gr_dma_copy(&p.w, GR_DMA_SPACE_GPUVA, di.gpu_va, GR_DMA_SPACE_GPUVA, p.va + CMD_AREA, 8);
    (void)gr_dma_copy(&p.w, GR_DMA_SPACE_GPUVA, di.gpu_va + max - 8, GR_DMA_SPACE_GPUVA, p.va + CMD_AREA + 8, 8);
    (void)pkt_ref(&p, dst, false);
    rc = pkt_run(o, s, "bench", &p, 16);
    const uint64_t want = (uint64_t)pattern << 32 | pattern;
    const bool ok = !rc && gr_dma_get64(p.cpu + CMD_AREA) == want && gr_dma_get64(p.cpu + CMD_AREA + 8) == want;
    pkt_end(s, &p);
    if (o->json)
        printf("],\"verified\":%s}\n", ok ? "true" : "false");
    else if (!rc)
        printf("the %s copy's destination %s the source's pattern\n", fmt_size(max, sz, sizeof sz),
               ok ? "holds" : "DOES NOT hold");
    if (!rc && !ok)
        rc = fail_status(o, "bench", 0, EXIT_CHECKS_FAILED, "bench: the copied bytes are wrong");
out:
    if (dst && gr_alloc_destroy(s->gdev, dst))
        note("bench: freeing its destination buffer failed");
    if (src && gr_alloc_destroy(s->gdev, src))
        note("bench: freeing its source buffer failed");
    return rc;
}

/* ---- timeline ---- */

static void event_detail(const gr_sched_event_t *e, char *buf, size_t len)
{
    switch (e->kind) {
    case GR_SCHED_EV_SUBMIT:
    case GR_SCHED_EV_RESUBMIT:
    case GR_SCHED_EV_COMPLETE:
        snprintf(buf, len, "hw queue %u", e->hw_queue);
        break;
    case GR_SCHED_EV_PREEMPT:
        snprintf(buf, len, "%s, preemption fence %u", gr_sched_preempt_reason_name(e->arg), e->preempt_fence);
        break;
    case GR_SCHED_EV_PREEMPTED:
        snprintf(buf, len, "%u taken off, last completed fence %u", e->arg, e->completed);
        break;
    case GR_SCHED_EV_CANCEL:
        snprintf(buf, len, "%s, %s", e->arg ? "DxgkDdiCancelCommand" : "no CancelCommand", gr_status_name(e->status));
        break;
    case GR_SCHED_EV_DROP:
        snprintf(buf, len, "never patched, %s", gr_status_name(e->status));
        break;
    case GR_SCHED_EV_PREEMPT_TIMEOUT:
        snprintf(buf, len, "preemption fence %u", e->preempt_fence);
        break;
    default:
        buf[0] = '\0';
    }
}

int cmd_timeline(const opts_t *o, session_t *s)
{
    int rc = session_start(o, s, "timeline");
    if (rc)
        return rc;
    static gr_sched_event_t ev[GR_SCHED_TIMELINE_CAP];
    size_t n = 0;
    uint64_t next = 0;
    if ((rc = gr_adapter_timeline(s->ad, 0, ev, GR_SCHED_TIMELINE_CAP, &n, &next)))
        return fail_status(o, "timeline", rc, EXIT_DEVICE, "reading the scheduler's timeline");
    if (o->json) {
        printf("{\"command\":\"timeline\",\"next\":%llu,\"events\":[", (unsigned long long)next);
        for (size_t i = 0; i < n; i++) {
            const gr_sched_event_t *e = &ev[i];
            printf("%s{\"index\":%llu,\"cycles\":%llu,\"kind\":\"%s\",\"context\":%u,\"seq\":%llu,\"fence\":%u,"
                   "\"preempt_fence\":%u,\"completed\":%u,\"arg\":%u,\"status\":",
                   i ? "," : "", (unsigned long long)e->index, (unsigned long long)e->cycles,
                   gr_sched_event_name(e->kind), e->context, (unsigned long long)e->seq, e->fence, e->preempt_fence,
                   e->completed, e->arg);
            if (e->status)
                json_str(gr_status_name(e->status));
            else
                printf("null");
            printf(",\"hw_queue\":%u}", e->hw_queue);
        }
        printf("]}\n");
        return EXIT_OK;
    }
    printf("timeline: %zu event%s%s\n", n, n == 1 ? "" : "s", n && ev[0].index ? " (older ones overwritten)" : "");
    if (n)
        printf("%12s %10s  %-15s %-10s %5s %6s  %s\n", "cycles", "+cycles", "event", "context", "seq", "fence",
               "detail");
    for (size_t i = 0; i < n; i++) {
        const gr_sched_event_t *e = &ev[i];
        char ctx[16] = "-", seq[24] = "-", fence[16] = "-", detail[96];
        if (!e->context && e->fence)
            snprintf(ctx, sizeof ctx, "paging"); /* VidMm's paging packets have no context */
        if (e->context) {
            snprintf(ctx, sizeof ctx, "0x%08x", e->context);
            snprintf(seq, sizeof seq, "%llu", (unsigned long long)e->seq);
        }
        if (e->fence)
            snprintf(fence, sizeof fence, "%u", e->fence);
        event_detail(e, detail, sizeof detail);
        printf("%12llu %10llu  %-15s %-10s %5s %6s  %s\n", (unsigned long long)e->cycles,
               (unsigned long long)(e->cycles - ev[0].cycles), gr_sched_event_name(e->kind), ctx, seq, fence, detail);
    }
    return EXIT_OK;
}
