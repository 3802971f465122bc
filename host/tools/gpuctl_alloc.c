/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpuctl's allocation commands: alloc, free, ls, evict and resident, through the real driver
 * (gr_alloc.h calls, the miniport's DDIs and VidMm). Also the session they start: an adapter over gpuctl's own
 * link, with gpuctl's process and device (and a peer process for --read-only-share), which the
 * command path of gpuctl_submit.c shares.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "d3dkmddi.h"
#include "gpuctl.h"
#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_device.h"

static int parse_size(const char *text, uint64_t *out)
{
    return parse_size_ex(text, false, out);
}

/* WIDTHxHEIGHT, each 1..65535 (the miniport checks its own limits). */
static int parse_dims(const char *text, uint32_t *w, uint32_t *h)
{
    unsigned long a, b;
    char x, tail;
    if (sscanf(text, "%lu%c%lu%c", &a, &x, &b, &tail) != 3 || x != 'x' || a == 0 || b == 0 || a > 65535 ||
        b > 65535 || text[0] < '0' || text[0] > '9')
        return -1;
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return 0;
}

static const struct {
    const char *name;
    uint32_t value;
} formats[] = {
    {"A8R8G8B8", D3DDDIFMT_A8R8G8B8}, {"X8R8G8B8", D3DDDIFMT_X8R8G8B8}, {"A8B8G8R8", D3DDDIFMT_A8B8G8R8},
    {"X8B8G8R8", D3DDDIFMT_X8B8G8R8}, {"R8G8B8", D3DDDIFMT_R8G8B8},     {"R5G6B5", D3DDDIFMT_R5G6B5},
    {"A8", D3DDDIFMT_A8},             {"R8", D3DDDIFMT_R8},
};

static const char *format_name(uint32_t v)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].value == v)
            return formats[i].name;
    return "?";
}

static const char *const cpu_modes[] = {"none", "read", "write", "read-write", "on-demand"};

enum opt_kind { OPT_FLAG, OPT_CPU_VISIBLE, OPT_ON_DEMAND, OPT_CPU, OPT_FORMAT, OPT_MIPS, OPT_SLICES };

static const struct {
    const char *name;
    enum opt_kind kind;
    uint32_t priv; /* OPT_FLAG: GR_ALLOC_PRIV_* */
} alloc_opts[] = {
    {"--cpu-visible", OPT_CPU_VISIBLE, 0},
    {"--on-demand", OPT_ON_DEMAND, 0},
    {"--cpu", OPT_CPU, 0},
    {"--cached", OPT_FLAG, GR_ALLOC_PRIV_CACHED},
    {"--permanent-sysmem", OPT_FLAG, GR_ALLOC_PRIV_PERMANENT_SYSMEM},
    {"--protected", OPT_FLAG, GR_ALLOC_PRIV_PROTECTED},
    {"--vpr", OPT_FLAG, GR_ALLOC_PRIV_IN_VPR},
    {"--physical", OPT_FLAG, GR_ALLOC_PRIV_PHYSICAL},
    {"--explicit-residency", OPT_FLAG, GR_ALLOC_PRIV_EXPLICIT_RESIDENCY},
    {"--overlay", OPT_FLAG, GR_ALLOC_PRIV_OVERLAY},
    {"--capture", OPT_FLAG, GR_ALLOC_PRIV_CAPTURE},
    {"--from-end", OPT_FLAG, GR_ALLOC_PRIV_FROM_END},
    {"--no-large-pages", OPT_FLAG, GR_ALLOC_PRIV_NO_LARGE_PAGES},
    {"--history-buffer", OPT_FLAG, GR_ALLOC_PRIV_HISTORY_BUFFER},
    {"--existing-sysmem", OPT_FLAG, GR_ALLOC_PRIV_EXISTING_SYSMEM},
    {"--shared", OPT_FLAG, GR_ALLOC_PRIV_SHARED},
    {"--read-only-share", OPT_FLAG, GR_ALLOC_PRIV_SHARED},
    {"--format", OPT_FORMAT, 0},
    {"--mips", OPT_MIPS, 0},
    {"--slices", OPT_SLICES, 0},
};

/* Parses "alloc SIZE|WxH [OPTION...]"; returns the words taken, or -1 (message printed). */
int parse_alloc(int argc, char **argv, alloc_req_t *out)
{
    alloc_req_t r;
    memset(&r, 0, sizeof r);
    r.cpu = GR_CPU_ACCESS_NONE;
    if (argc < 2 || strncmp(argv[1], "--", 2) == 0) {
        return parse_fail("alloc", "alloc takes a size (4096, 64K, 1M) or WIDTHxHEIGHT first");
    }
    if (strchr(argv[1], 'x') && strncmp(argv[1], "0x", 2) != 0) {
        if (parse_dims(argv[1], &r.width, &r.height)) {
            return parse_fail("alloc", "alloc: '%s' is not WIDTHxHEIGHT (e.g. 640x480)", argv[1]);
        }
        r.surface = true;
    } else if (parse_size(argv[1], &r.bytes)) {
        return parse_fail("alloc", "alloc: '%s' is not a size (" SIZE_FORMS ")", argv[1]);
    }
    bool cpu_set = false, surface_opt = false;
    int i = 2;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        char name[32];
        const char *value = strchr(argv[i], '=');
        size_t len = value ? (size_t)(value - argv[i]) : strlen(argv[i]);
        if (len >= sizeof name)
            len = sizeof name - 1;
        memcpy(name, argv[i], len);
        name[len] = '\0';
        size_t k = 0;
        while (k < sizeof alloc_opts / sizeof alloc_opts[0] && strcmp(alloc_opts[k].name, name))
            k++;
        if (k == sizeof alloc_opts / sizeof alloc_opts[0]) {
            return parse_fail("alloc", "unknown alloc option '%s' (try gpuctl help alloc)", argv[i]);
        }
        enum opt_kind kind = alloc_opts[k].kind;
        bool takes_value = kind == OPT_CPU || kind == OPT_FORMAT || kind == OPT_MIPS || kind == OPT_SLICES;
        if (value)
            value++;
        else if (takes_value && i + 1 < argc)
            value = argv[++i];
        if (takes_value != (value != NULL)) {
            return parse_fail("alloc", "alloc option %s %s", name, takes_value ? "takes a value" : "takes no value");
        }
        uint32_t cpu = r.cpu, n = 0;
        switch (kind) {
        case OPT_FLAG:
            r.priv_flags |= alloc_opts[k].priv;
            r.shared |= alloc_opts[k].priv == GR_ALLOC_PRIV_SHARED;
            r.ro_share |= strcmp(name, "--read-only-share") == 0;
            r.existing |= alloc_opts[k].priv == GR_ALLOC_PRIV_EXISTING_SYSMEM;
            continue;
        case OPT_CPU_VISIBLE:
            cpu = GR_CPU_ACCESS_WRITE;
            break;
        case OPT_ON_DEMAND:
            cpu = GR_CPU_ACCESS_ON_DEMAND;
            break;
        case OPT_CPU:
            for (cpu = 0; cpu < sizeof cpu_modes / sizeof cpu_modes[0] && strcmp(cpu_modes[cpu], value); cpu++)
                ;
            if (cpu == sizeof cpu_modes / sizeof cpu_modes[0]) {
                return parse_fail("alloc", "--cpu takes none, read, write, read-write or on-demand, not '%s'", value);
            }
            break;
        case OPT_FORMAT:
            surface_opt = true;
            for (n = 0; n < sizeof formats / sizeof formats[0] && strcasecmp(formats[n].name, value); n++)
                ;
            if (n == sizeof formats / sizeof formats[0]) {
                return parse_fail("alloc", "unknown surface format '%s' (try gpuctl help alloc)", value);
            }
            r.format = formats[n].value;
            continue;
        case OPT_MIPS:
        case OPT_SLICES:
            surface_opt = true;
            if (parse_u32(value, &n) || n == 0) {
                return parse_fail("alloc", "%s takes a count from 1, not '%s'", name, value);
            }
            *(kind == OPT_MIPS ? &r.mips : &r.slices) = n;
            continue;
        }
        if (cpu_set && cpu != r.cpu) {
            return parse_fail("alloc", "alloc: %s contradicts the CPU access given before (%s)", argv[i],
                              cpu_modes[r.cpu]);
        }
        cpu_set = true;
        r.cpu = cpu;
    }
    if (surface_opt && !r.surface) {
        return parse_fail("alloc", "alloc: --format, --mips and --slices are for surfaces (WIDTHxHEIGHT)");
    }
    if (r.existing && r.surface) {
        return parse_fail("alloc", "alloc: --existing-sysmem takes a buffer size, not a surface");
    }
    if (r.surface) {
        r.format = r.format ? r.format : (uint32_t)D3DDDIFMT_A8R8G8B8;
        r.mips = r.mips ? r.mips : 1;
        r.slices = r.slices ? r.slices : 1;
    }
    size_t used = 0;
    for (int w = 0; w < i && used < sizeof r.text; w++)
        used += (size_t)snprintf(r.text + used, sizeof r.text - used, "%s%s", w ? " " : "", argv[w]);
    *out = r;
    return i;
}

/* HANDLE of free: @N (the N-th alloc of this run, made before) or a non-zero 32-bit value. */
int parse_handle(const char *text, unsigned allocs_before, unsigned *out_ref, uint32_t *out_value)
{
    if (text[0] == '@') {
        uint32_t n = 0;
        if (parse_u32(text + 1, &n) || n == 0 || text[1] == '\0') {
            return parse_fail("free", "free: '%s' is not @N (N from 1)", text);
        }
        if (n > allocs_before) {
            return parse_fail("free", "free %s: only %u alloc command%s come%s before it", text, allocs_before,
                              allocs_before == 1 ? "" : "s", allocs_before == 1 ? "s" : "");
        }
        *out_ref = n;
        return 0;
    }
    if (parse_u32(text, out_value) || *out_value == 0) {
        return parse_fail("free", "free: '%s' is neither @N nor a handle (a non-zero 32-bit value)", text);
    }
    return 0;
}

/* FlagsWddm2 bit -> member name, from the header's own layout. */
static const char *wddm2_names[32];

void init_wddm2_names(void)
{
    DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 f;
#define NAME(m)                                         \
    do {                                                \
        f.Value = 0;                                    \
        f.m = 1;                                        \
        wddm2_names[__builtin_ctz(f.Value)] = #m;       \
    } while (0)
    NAME(CpuVisible);
    NAME(PermanentSysMem);
    NAME(Cached);
    NAME(Protected);
    NAME(ExistingSysMem);
    NAME(ExistingKernelSysMem);
    NAME(FromEndOfSegment);
    NAME(DisableLargePageMapping);
    NAME(Overlay);
    NAME(Capture);
    NAME(CreateInVpr);
    NAME(MapApertureCpuVisible);
    NAME(HistoryBuffer);
    NAME(AccessedPhysically);
    NAME(ExplicitResidencyNotification);
    NAME(HardwareProtected);
    NAME(CpuVisibleOnDemand);
#undef NAME
}

static void print_flag_names(uint32_t v)
{
    if (!v) {
        printf("none");
        return;
    }
    bool first = true;
    for (unsigned b = 0; b < 32; b++)
        if (v & (1u << b)) {
            if (wddm2_names[b])
                printf("%s%s", first ? "" : "|", wddm2_names[b]);
            else
                printf("%sbit%u", first ? "" : "|", b);
            first = false;
        }
}

/* ---- residency: names for gr_alloc_info_t.residency and .pinned ---- */

static const char *residency_name(uint32_t r)
{
    return r == GR_RESIDENCY_RESIDENT ? "resident" : r == GR_RESIDENCY_EVICTED ? "evicted" : "system";
}

/* GR_PIN_* bit by bit: a short name (ls, --json) and why VidMm keeps it in place (errors). */
static const struct {
    uint32_t bit;
    const char *name, *why;
} pins[] = {
    {GR_PIN_OVERLAY, "overlay", "an Overlay or Capture allocation is never evicted"},
    {GR_PIN_PROTECTED, "protected", "protected content in the VPR never leaves it"},
    {GR_PIN_LOCKED, "locked", "locked for the CPU"},
    {GR_PIN_SYSTEM, "system", "it lives in the caller's system memory, never in VRAM"},
    {GR_PIN_GPU, "in-flight", "a packet in flight uses it"},
    {GR_PIN_NO_PAGING, "no-paging", "the adapter cannot page: no DMA engine"},
};

static void json_pins(uint32_t pinned)
{
    printf("[");
    for (size_t k = 0, n = 0; k < sizeof pins / sizeof pins[0]; k++)
        if (pinned & pins[k].bit)
            printf("%s\"%s\"", n++ ? "," : "", pins[k].name);
    printf("]");
}

/* One allocation as JSON; peer (may be NULL) nests the peer process's open as "peer"; cmd (may
 * be NULL) makes it a document of its own. */
static void json_alloc(const char *cmd, const alloc_rec_t *r, gr_alloc_t h, const char *process,
                       const gr_alloc_info_t *i, const gr_alloc_info_t *peer)
{
    printf("{");
    if (cmd)
        printf("\"command\":\"%s\",", cmd);
    printf("\"ref\":%u,\"handle\":%u,\"process\":\"%s\",\"kind\":", r->ref, h, process);
    json_str(r->kind);
    printf(",\"creator\":%s,\"read_only\":%s,\"shared\":%u,\"segment\":%u,\"offset\":%llu,\"vram_address\":%llu,"
           "\"bus_address\":%llu,\"size\":%llu,\"alignment\":%u,\"gpu_va\":%llu,\"flags_wddm2\":%u,",
           i->creator ? "true" : "false", i->read_only ? "true" : "false", r->shared, i->segment,
           (unsigned long long)i->offset, (unsigned long long)i->vram_address, (unsigned long long)i->bus_address,
           (unsigned long long)i->size, i->alignment, (unsigned long long)i->gpu_va, i->flags_wddm2);
    printf("\"residency\":\"%s\",\"pinned\":", residency_name(i->residency));
    json_pins(i->pinned);
    printf(",\"flags\":[");
    bool first = true;
    for (unsigned b = 0; b < 32; b++)
        if (i->flags_wddm2 & (1u << b)) {
            printf("%s", first ? "" : ",");
            json_str(wddm2_names[b] ? wddm2_names[b] : "reserved");
            first = false;
        }
    printf("]");
    if (peer) {
        printf(",\"peer\":");
        json_alloc(NULL, r, r->peer, "peer", peer, NULL);
    }
    printf("}");
}

/* Where an allocation is now: its segment and offset, its bus address, or not in VRAM. */
static void print_place(const gr_alloc_info_t *i)
{
    if (i->residency == GR_RESIDENCY_EVICTED)
        printf("not in VRAM");
    else if (i->segment == GR_SEGMENT_SYSTEM)
        printf("system memory, bus 0x%llx", (unsigned long long)i->bus_address);
    else
        printf("segment %u offset 0x%llx (VRAM 0x%llx)", i->segment, (unsigned long long)i->offset,
               (unsigned long long)i->vram_address);
}

/* One line: where an allocation lives and how the GPU reaches it; with residency (ls), whether
 * it is resident, evicted or in system memory and why VidMm may not evict it. */
static void text_alloc(const alloc_rec_t *r, gr_alloc_t h, bool peer, const gr_alloc_info_t *i, bool residency)
{
    char sz[32];
    printf("@%u%s handle 0x%08x: %s, size %s, ", r->ref, peer ? " peer" : "", h, r->kind,
           fmt_size(i->size, sz, sizeof sz));
    print_place(i);
    printf(", GPU VA 0x%llx%s, flags ", (unsigned long long)i->gpu_va, i->read_only ? " read-only" : "");
    print_flag_names(i->flags_wddm2);
    if (residency) {
        printf("; %s", residency_name(i->residency));
        for (size_t k = 0, n = 0; k < sizeof pins / sizeof pins[0]; k++)
            if (i->pinned & pins[k].bit)
                printf("%s%s", n++ ? ", " : ", pinned: ", pins[k].name);
    }
    printf("\n");
}

int cmd_alloc(const opts_t *o, session_t *s, const alloc_req_t *q)
{
    int rc = session_start(o, s, "alloc");
    if (rc)
        return rc;
    alloc_rec_t *r = &s->recs[s->nrecs];
    memset(r, 0, sizeof *r);
    r->ref = s->nrecs + 1;
    gr_alloc_private_t p;
    memset(&p, 0, sizeof p);
    p.version = GR_ALLOC_PRIVATE_VERSION;
    p.struct_size = sizeof p;
    p.flags = q->priv_flags;
    p.cpu_access = q->cpu;
    if (q->surface) {
        p.kind = GR_ALLOC_KIND_SURFACE2D;
        p.format = q->format;
        p.width = q->width;
        p.height = q->height;
        p.mip_levels = q->mips;
        p.array_size = q->slices;
        snprintf(r->kind, sizeof r->kind, "surface %ux%u %s", q->width, q->height, format_name(q->format));
    } else {
        p.kind = GR_ALLOC_KIND_BUFFER;
        p.buffer_bytes = q->bytes;
        snprintf(r->kind, sizeof r->kind, "buffer");
    }
    gr_alloc_desc_t d = {.private_data = &p, .private_size = sizeof p};
    if (!q->surface && !q->existing) {
        /* A buffer larger than every segment fits nowhere, whatever the miniport's own size
         * limit (4 GiB) would say first: the same refusal, and exit status, as any buffer no
         * segment has room for. */
        gr_segment_info_t seg[GR_ALLOC_MAX_SEGMENTS];
        uint32_t nseg = 0;
        uint64_t largest = 0;
        if ((rc = gr_adapter_segments(s->ad, seg, GR_ALLOC_MAX_SEGMENTS, &nseg)))
            return fail_status(o, "alloc", rc, EXIT_DEVICE, "%s: reading the segments", q->text);
        for (uint32_t k = 0; k < nseg && k < GR_ALLOC_MAX_SEGMENTS; k++)
            largest = seg[k].size > largest ? seg[k].size : largest;
        char a[32], b[32];
        if (q->bytes > largest)
            return fail_status(o, "alloc", GR_E_NO_MEMORY, EXIT_DEVICE,
                               "%s: no segment it may use has room (%s asked; the largest segment holds %s)", q->text,
                               fmt_size(q->bytes, a, sizeof a), fmt_size(largest, b, sizeof b));
    }
    if (q->existing) {
        rc = gr_sysmem_alloc(s->proc, q->bytes, &r->mem);
        if (rc)
            return fail_status(o, "alloc", rc, rc == GR_E_NO_MEMORY ? EXIT_DEVICE : EXIT_USAGE,
                               "%s: no host memory the device can reach", q->text);
        d.sysmem = r->mem.cpu;
        d.sysmem_bytes = r->mem.bytes;
    }
    gr_resource_desc_t rd = {.flags = q->shared ? GR_RESOURCE_SHARED : 0};
    gr_alloc_t h = 0;
    rc = gr_alloc_create(s->gdev, q->shared ? &rd : NULL, &d, 1, &h, q->shared ? &r->shared : NULL);
    if (rc) {
        if (r->mem.cpu && gr_sysmem_free(s->proc, r->mem.cpu))
            note("cannot give back the host memory of %s", q->text);
        if (rc == GR_E_INVALID)
            return fail_status(o, "alloc", rc, EXIT_USAGE,
                               "%s: the driver refuses this combination (host/kmd/README.md lists what "
                               "each option needs)", q->text);
        if (rc == GR_E_NO_MEMORY)
            return fail_status(o, "alloc", rc, EXIT_DEVICE, "%s: no segment it may use has room", q->text);
        return fail_status(o, "alloc", rc, EXIT_DEVICE, "%s failed", q->text);
    }
    r->handle = h;
    s->nrecs++;
    gr_alloc_info_t info, pinfo;
    rc = gr_alloc_query(s->gdev, h, &info);
    if (!rc && q->ro_share) {
        if (!s->peer_proc) {
            rc = gr_process_create(s->ad, &s->peer_proc);
            if (!rc && (rc = gr_gpu_device_create(s->peer_proc, &s->peer_dev)))
                s->peer_dev = NULL;
        }
        uint32_t n = 0;
        if (!rc)
            rc = gr_alloc_open(s->peer_dev, r->shared, GR_OPEN_READ_ONLY, 0, &r->peer, 1, &n, &pinfo);
    }
    if (rc)
        return fail_status(o, "alloc", rc, EXIT_DEVICE, "%s: created as @%u, then failed", q->text, r->ref);
    if (o->json) {
        json_alloc("alloc", r, h, "main", &info, r->peer ? &pinfo : NULL);
        printf("\n");
        return EXIT_OK;
    }
    text_alloc(r, h, false, &info, false);
    if (r->shared)
        printf("@%u shared handle 0x%08x\n", r->ref, r->shared);
    if (r->peer)
        text_alloc(r, r->peer, true, &pinfo, false); /* the peer process's read-only open */
    return EXIT_OK;
}

/* The free command: HANDLE is @ref (ref > 0) or a handle value. */
int cmd_free(const opts_t *o, session_t *s, unsigned ref, gr_alloc_t value)
{
    int rc = session_start(o, s, "free");
    if (rc)
        return rc;
    alloc_rec_t *r = NULL;
    gr_alloc_t freed[2] = {0, 0};
    if (ref) {
        r = ref <= s->nrecs ? &s->recs[ref - 1] : NULL;
        if (!r || (!r->handle && !r->peer))
            return fail_status(o, "free", 0, EXIT_USAGE, "free @%u: %s", ref, r ? "already freed" : "not made");
        if (r->handle && (rc = gr_alloc_destroy(s->gdev, r->handle)))
            return fail_status(o, "free", rc, EXIT_DEVICE, "destroying @%u", ref);
        if (r->peer && (rc = gr_alloc_close(s->peer_dev, r->peer)))
            return fail_status(o, "free", rc, EXIT_DEVICE, "closing @%u in the peer process", ref);
        freed[0] = r->handle;
        freed[1] = r->peer;
        r->handle = r->peer = 0;
    } else {
        for (unsigned k = 0; k < s->nrecs && !r; k++)
            if (s->recs[k].handle == value || s->recs[k].peer == value)
                r = &s->recs[k];
        if (!r)
            return fail_status(o, "free", 0, EXIT_USAGE,
                               "free 0x%08x: no allocation of this run has that handle (gpuctl ls lists them)",
                               value);
        bool peer = r->peer == value;
        rc = peer ? gr_alloc_close(s->peer_dev, value) : gr_alloc_destroy(s->gdev, value);
        if (rc)
            return fail_status(o, "free", rc, EXIT_DEVICE, "freeing handle 0x%08x", value);
        *(peer ? &r->peer : &r->handle) = 0;
        freed[0] = value;
    }
    /* The host memory behind it goes when no handle is left on it. */
    if (!r->handle && !r->peer && r->mem.cpu) {
        if ((rc = gr_sysmem_free(s->proc, r->mem.cpu)))
            return fail_status(o, "free", rc, EXIT_DEVICE, "giving back @%u's host memory", r->ref);
        r->mem.cpu = NULL;
    }
    if (o->json) {
        printf("{\"command\":\"free\",\"ref\":%u,\"freed\":[", r->ref);
        for (unsigned k = 0, n = 0; k < 2; k++)
            if (freed[k])
                printf("%s%u", n++ ? "," : "", freed[k]);
        printf("],\"live\":%s}\n", r->handle || r->peer ? "true" : "false");
        return EXIT_OK;
    }
    for (unsigned k = 0; k < 2; k++)
        if (freed[k])
            printf("freed @%u%s handle 0x%08x\n", r->ref, k ? " peer" : "", freed[k]);
    return EXIT_OK;
}

/* ---- evict, resident: VidMm's residency on request ---- */

int parse_residency(int argc, char **argv, unsigned allocs_before, residency_req_t *out)
{
    residency_req_t r;
    memset(&r, 0, sizeof r);
    r.evict = strcmp(argv[0], "evict") == 0;
    int i = 1;
    for (; i < argc && argv[i][0] == '@'; i++) {
        uint32_t n = 0;
        if (parse_u32(argv[i] + 1, &n) || n == 0 || argv[i][1] == '\0') {
            return parse_fail(argv[0], "%s: '%s' is not @N (an allocation of this run, N from 1)", argv[0], argv[i]);
        }
        if (n > allocs_before) {
            return parse_fail(argv[0], "%s %s: only %u alloc command%s come%s before it", argv[0], argv[i],
                              allocs_before, allocs_before == 1 ? "" : "s", allocs_before == 1 ? "s" : "");
        }
        for (unsigned k = 0; k < r.n; k++)
            if (r.refs[k] == n) {
                return parse_fail(argv[0], "%s: @%u is named twice", argv[0], n);
            }
        r.refs[r.n++] = n; /* n <= allocs_before < MAX_COMMANDS, each once: r.refs has room */
    }
    if (r.n == 0) {
        return parse_fail(argv[0], "%s takes one or more allocations of this run (@N ...)%s%s%s", argv[0],
                          i < argc ? ", not '" : "", i < argc ? argv[i] : "", i < argc ? "'" : "");
    }
    size_t used = 0;
    for (int w = 0; w < i && used < sizeof r.text; w++)
        used += (size_t)snprintf(r.text + used, sizeof r.text - used, "%s%s", w ? " " : "", argv[w]);
    *out = r;
    return i;
}

/* The message of a refused evict: each pinned allocation and why. */
static void pinned_reasons(const session_t *s, const residency_req_t *q, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned k = 0; k < q->n; k++) {
        gr_alloc_info_t i;
        if (gr_alloc_query(s->gdev, s->recs[q->refs[k] - 1].handle, &i) || !i.pinned)
            continue;
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s@%u is pinned (", used ? "; " : "",
                                 q->refs[k]);
        for (size_t p = 0, n = 0; p < sizeof pins / sizeof pins[0]; p++)
            if (i.pinned & pins[p].bit)
                used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s: %s", n++ ? ", " : "",
                                         pins[p].name, pins[p].why);
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, ")");
    }
}

int cmd_residency(const opts_t *o, session_t *s, const residency_req_t *q)
{
    const char *cmd = q->evict ? "evict" : "resident";
    int rc = session_start(o, s, cmd);
    if (rc)
        return rc;
    gr_alloc_t h[MAX_COMMANDS];
    gr_alloc_info_t before[MAX_COMMANDS];
    for (unsigned k = 0; k < q->n; k++) {
        const alloc_rec_t *r = &s->recs[q->refs[k] - 1];
        if (q->refs[k] > s->nrecs || !r->handle)
            return fail_status(o, cmd, 0, EXIT_USAGE, "%s @%u: %s", cmd, q->refs[k],
                               q->refs[k] > s->nrecs ? "not made (its alloc failed)" : "already freed");
        h[k] = r->handle;
        if ((rc = gr_alloc_query(s->gdev, h[k], &before[k])))
            return fail_status(o, cmd, rc, EXIT_DEVICE, "querying @%u", q->refs[k]);
    }
    gr_adapter_stats_t a0, a1;
    if ((rc = gr_adapter_stats(s->ad, &a0)))
        return fail_status(o, cmd, rc, EXIT_DEVICE, "reading the adapter's counters");
    rc = q->evict ? gr_alloc_evict(s->gdev, h, q->n) : gr_alloc_make_resident(s->gdev, h, q->n);
    if (rc == GR_E_BUSY) {
        char why[256];
        pinned_reasons(s, q, why, sizeof why);
        return fail_status(o, cmd, rc, EXIT_USAGE, "%s: %s; nothing was evicted", q->text,
                           why[0] ? why : "one of them is pinned");
    }
    if (rc == GR_E_NO_MEMORY)
        return fail_status(o, cmd, rc, EXIT_DEVICE, "%s: %s", q->text,
                           q->evict ? "no host memory for a backing store"
                                    : "they cannot all be in VRAM at once; none was left paged in");
    if (rc == GR_E_UNSUPPORTED)
        return fail_status(o, cmd, rc, EXIT_DEVICE, "%s: the adapter cannot page (no DMA engine)", q->text);
    if (rc == GR_E_DEVICE_RESET)
        return fail_status(o, cmd, rc, EXIT_DEVICE, "%s: a paging packet was lost in a GPU reset (TDR); undone",
                           q->text);
    if (rc)
        return fail_status(o, cmd, rc, rc == GR_E_INVALID ? EXIT_USAGE : EXIT_DEVICE, "%s failed", q->text);
    if ((rc = gr_adapter_stats(s->ad, &a1)))
        return fail_status(o, cmd, rc, EXIT_DEVICE, "reading the adapter's counters");
    if (o->json)
        printf("{\"command\":\"%s\",\"allocations\":[", cmd);
    for (unsigned k = 0; k < q->n; k++) {
        gr_alloc_info_t i;
        if ((rc = gr_alloc_query(s->gdev, h[k], &i))) {
            if (o->json)
                printf("]}\n");
            return fail_status(o, cmd, rc, EXIT_DEVICE, "querying @%u", q->refs[k]);
        }
        const gr_alloc_info_t *b = &before[k];
        if (o->json) {
            printf("%s{\"ref\":%u,\"handle\":%u,\"before\":\"%s\",\"residency\":\"%s\",\"segment\":%u,\"offset\":%llu,"
                   "\"vram_address\":%llu,\"before_vram_address\":%llu,\"pinned\":",
                   k ? "," : "", q->refs[k], h[k], residency_name(b->residency), residency_name(i.residency), i.segment,
                   (unsigned long long)i.offset, (unsigned long long)i.vram_address,
                   (unsigned long long)b->vram_address);
            json_pins(i.pinned);
            printf("}");
            continue;
        }
        printf("@%u handle 0x%08x: ", q->refs[k], h[k]);
        if (b->residency == i.residency) {
            printf("%s", i.residency == GR_RESIDENCY_SYSTEM    ? "system memory, never in VRAM"
                         : i.residency == GR_RESIDENCY_EVICTED ? "already evicted"
                                                               : "already resident, ");
            if (i.residency == GR_RESIDENCY_RESIDENT)
                print_place(&i);
        } else if (q->evict) {
            printf("evicted, was ");
            print_place(b);
        } else {
            printf("paged in to ");
            print_place(&i);
        }
        printf("\n");
    }
    const uint64_t ev = a1.evictions - a0.evictions, pi = a1.page_ins - a0.page_ins;
    const uint64_t pk = a1.paging_packets - a0.paging_packets;
    if (o->json) {
        printf(
            "],\"evictions\":%llu,\"discards\":%llu,\"page_ins\":%llu,\"bytes_evicted\":%llu,\"bytes_paged_in\":%llu,"
            "\"paging_packets\":%llu}\n",
            (unsigned long long)ev, (unsigned long long)(a1.discards - a0.discards), (unsigned long long)pi,
            (unsigned long long)(a1.bytes_evicted - a0.bytes_evicted),
            (unsigned long long)(a1.bytes_paged_in - a0.bytes_paged_in), (unsigned long long)pk);
        return EXIT_OK;
    }
    const uint64_t discards = a1.discards - a0.discards, out_bytes = a1.bytes_evicted - a0.bytes_evicted,
                   in_bytes = a1.bytes_paged_in - a0.bytes_paged_in;
    char out_b[32], in_b[32];
    if (q->evict)
        printf("evict: %llu evicted", (unsigned long long)ev);
    else
        printf("resident: %llu paged in, %llu evicted to make room", (unsigned long long)pi, (unsigned long long)ev);
    if (discards)
        printf(" (%llu discarded: a clean PermanentSysMem allocation's system copy is its content)",
               (unsigned long long)discards);
    printf("; the engine copied ");
    if (out_bytes)
        printf("%s out of VRAM%s", fmt_size(out_bytes, out_b, sizeof out_b), in_bytes ? " and " : "");
    if (in_bytes)
        printf("%s into VRAM", fmt_size(in_bytes, in_b, sizeof in_b));
    if (!out_bytes && !in_bytes)
        printf("nothing");
    printf(" in %llu paging packet%s\n", (unsigned long long)pk, pk == 1 ? "" : "s");
    return EXIT_OK;
}

/* ---- ls: the allocations and the segment maps ---- */

#define MAP_CELLS 64u

typedef struct map_walk {
    const opts_t *o;
    uint64_t size;
    uint64_t alloc[MAP_CELLS], vpr_free[MAP_CELLS]; /* bytes of each kind per cell */
    unsigned ranges;
    int rc;
} map_walk_t;

static const char *range_kind_name(gr_segment_range_kind_t k)
{
    return k == GR_RANGE_ALLOCATION ? "allocation" : k == GR_RANGE_VPR_FREE ? "vpr_free" : "free";
}

/* Runs under VidMm's lock: only arithmetic and printing. */
static bool map_range(void *ctx, uint64_t offset, uint64_t size, gr_segment_range_kind_t kind)
{
    map_walk_t *w = ctx;
    if (w->o->json) {
        printf("%s{\"offset\":%llu,\"size\":%llu,\"kind\":\"%s\"}", w->ranges ? "," : "",
               (unsigned long long)offset, (unsigned long long)size, range_kind_name(kind));
    }
    w->ranges++;
    if (kind == GR_RANGE_FREE || w->size == 0)
        return true;
    /* Spread the range over the cells it touches ((cell * size) / cells is the cell's start). */
    uint64_t end = offset + size;
    for (unsigned c = (unsigned)(offset * MAP_CELLS / w->size); c < MAP_CELLS; c++) {
        uint64_t lo = (uint64_t)c * w->size / MAP_CELLS, hi = (uint64_t)(c + 1) * w->size / MAP_CELLS;
        if (lo >= end)
            break;
        uint64_t a = offset > lo ? offset : lo, b = end < hi ? end : hi;
        if (b > a)
            (kind == GR_RANGE_ALLOCATION ? w->alloc : w->vpr_free)[c] += b - a;
    }
    return true;
}

static void map_text(const map_walk_t *w, char *out)
{
    for (unsigned c = 0; c < MAP_CELLS; c++) {
        uint64_t cell = (uint64_t)(c + 1) * w->size / MAP_CELLS - (uint64_t)c * w->size / MAP_CELLS;
        out[c] = w->alloc[c] == 0 ? (w->vpr_free[c] ? 'v' : '.') : w->alloc[c] >= cell ? '#' : '+';
    }
    out[MAP_CELLS] = '\0';
}

/* Prints every live handle of the run (the peer's opens after their allocation). */
static int list_allocs(const opts_t *o, session_t *s, unsigned *out_count)
{
    unsigned n = 0;
    for (unsigned k = 0; k < s->nrecs; k++) {
        const alloc_rec_t *r = &s->recs[k];
        for (int which = 0; which < 2; which++) {
            gr_alloc_t h = which ? r->peer : r->handle;
            if (!h)
                continue;
            gr_alloc_info_t i;
            int rc = gr_alloc_query(which ? s->peer_dev : s->gdev, h, &i);
            if (rc)
                return fail_status(o, "ls", rc, EXIT_DEVICE, "querying @%u", r->ref);
            if (o->json) {
                printf("%s", n ? "," : "");
                json_alloc(NULL, r, h, which ? "peer" : "main", &i, NULL);
            } else {
                printf("  ");
                text_alloc(r, h, which, &i, true);
            }
            n++;
        }
    }
    *out_count = n;
    return EXIT_OK;
}

int cmd_ls(const opts_t *o, session_t *s)
{
    int rc = session_start(o, s, "ls");
    if (rc)
        return rc;
    unsigned live = 0;
    for (unsigned k = 0; k < s->nrecs; k++)
        live += (s->recs[k].handle != 0) + (s->recs[k].peer != 0);
    if (o->json)
        printf("{\"command\":\"ls\",\"allocations\":[");
    else
        printf("allocations: %u\n", live);
    unsigned n = 0;
    if ((rc = list_allocs(o, s, &n)))
        return rc;
    gr_segment_info_t seg[GR_ALLOC_MAX_SEGMENTS];
    uint32_t nseg = 0;
    if ((rc = gr_adapter_segments(s->ad, seg, GR_ALLOC_MAX_SEGMENTS, &nseg)))
        return fail_status(o, "ls", rc, EXIT_DEVICE, "reading the segments");
    if (nseg > GR_ALLOC_MAX_SEGMENTS)
        nseg = GR_ALLOC_MAX_SEGMENTS;
    if (o->json)
        printf("],\"segments\":[");
    for (uint32_t k = 0; k < nseg; k++) {
        const gr_segment_info_t *g = &seg[k];
        char a[32], b[32], c[32];
        if (o->json)
            printf("%s{\"id\":%u,\"base\":%llu,\"size\":%llu,\"cpu_visible\":%s,\"vpr\":%s,\"vpr_offset\":%llu,"
                   "\"vpr_size\":%llu,\"free_bytes\":%llu,\"largest_free\":%llu,\"allocations\":%llu,\"ranges\":[",
                   k ? "," : "", g->id, (unsigned long long)g->base, (unsigned long long)g->size,
                   g->cpu_visible ? "true" : "false", g->vpr ? "true" : "false", (unsigned long long)g->vpr_offset,
                   (unsigned long long)g->vpr_size, (unsigned long long)g->free_bytes,
                   (unsigned long long)g->largest_free, (unsigned long long)g->allocations);
        else {
            printf("segment %u: base 0x%llx, %s%s", g->id, (unsigned long long)g->base,
                   fmt_size(g->size, a, sizeof a), g->cpu_visible ? ", CPU-visible" : "");
            if (g->vpr)
                printf(", VPR %s at +0x%llx", fmt_size(g->vpr_size, a, sizeof a), (unsigned long long)g->vpr_offset);
            printf("; %s free (largest %s), %llu allocation%s\n", fmt_size(g->free_bytes, b, sizeof b),
                   fmt_size(g->largest_free, c, sizeof c), (unsigned long long)g->allocations,
                   g->allocations == 1 ? "" : "s");
        }
        map_walk_t w;
        memset(&w, 0, sizeof w);
        w.o = o;
        w.size = g->size;
        if ((rc = gr_segment_walk(s->ad, g->id, map_range, &w))) {
            if (o->json)
                printf("]}]}\n");
            return fail_status(o, "ls", rc, EXIT_DEVICE, "walking segment %u", g->id);
        }
        char map[MAP_CELLS + 1];
        map_text(&w, map);
        if (o->json)
            printf("],\"map\":\"%s\"}", map);
        else
            printf("  0x%010llx |%s| 0x%010llx\n", (unsigned long long)g->base, map,
                   (unsigned long long)(g->base + g->size));
    }
    if (o->json)
        printf("]}\n");
    else
        printf("map: %u cells a segment; '#' allocated (page tables too), '+' partly, '.' free, "
               "'v' free in the VPR\n", MAP_CELLS);
    return EXIT_OK;
}
