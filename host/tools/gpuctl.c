/*
 * gpuctl: command-line access to a gpuref device over any transport.
 * Run `gpuctl --help` for the commands; exit codes are listed there.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "d3dkmddi.h"
#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_device.h"
#include "gpuref/gr_regdesc.h"
#include "gr_conformance.h"
#include "gr_link.h"

enum exit_code {
    EXIT_OK = 0,
    EXIT_CHECKS_FAILED = 1, /* the command ran and found failures (conformance) */
    EXIT_USAGE = 2,         /* bad command line, or a request the driver refuses */
    EXIT_DEVICE = 3,        /* the device could not be opened, or an access failed */
};

typedef struct opts {
    const char *uri;
    bool json;
    unsigned open_flags;
} opts_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpuctl [-d URI] [--json] [--any-map] COMMAND [ARGS] [COMMAND [ARGS]...]\n"
            "\n"
            "Commands:\n"
            "  info               identification header and capabilities\n"
            "  regs               every register of the map, with its fields decoded\n"
            "  peek REG           read a register (REG: a name such as SCRATCH, or an offset)\n"
            "  poke REG VALUE     write a register\n"
            "  conformance        register conformance suite; prints each check and a summary\n"
            "                     (it resets the device: not after alloc, free or ls)\n"
            "  alloc SIZE|WxH [OPTION...]\n"
            "                     create an allocation through the driver (miniport + VidMm);\n"
            "                     prints @N (its number in this run), handle, segment, offset,\n"
            "                     VRAM or bus address, size and GPU VA\n"
            "  free HANDLE        destroy it: @N, or a handle value gpuctl printed\n"
            "  ls                 the allocations, and each segment's occupancy as a map\n"
            "Commands run in order on one open device (with --json, one JSON document a line):\n"
            "  gpuctl -d sim:// poke SCRATCH 0xcafe peek SCRATCH\n"
            "  gpuctl alloc 1M alloc 64K --cpu-visible ls free @1 ls\n"
            "\n"
            "alloc: SIZE is bytes (4096, 0x1000) or K/M/G (64K, 1M): a buffer; WxH (640x480) is a\n"
            "2D surface. OPTION (host/kmd/README.md says what each becomes):\n"
            "  --cpu-visible      the CPU writes it through BAR1 (CpuVisible)\n"
            "  --on-demand        CPU window moved onto it at lock (CpuVisibleOnDemand)\n"
            "  --cpu MODE         none, read, write, read-write (CpuVisible+Cached) or on-demand\n"
            "  --cached --permanent-sysmem --protected --physical --explicit-residency\n"
            "  --overlay --capture --from-end --no-large-pages --history-buffer\n"
            "  --vpr              inside the video protected range (CreateInVpr, HardwareProtected)\n"
            "  --existing-sysmem  backed by host memory the device reaches (a buffer SIZE only)\n"
            "  --shared           a shared resource (prints its shared handle)\n"
            "  --read-only-share  shared, and opened read-only by a second process (ls shows it)\n"
            "  --format F --mips N --slices N   surfaces: A8R8G8B8 (default), X8R8G8B8,\n"
            "                     A8B8G8R8, X8B8G8R8, R8G8B8, R5G6B5, A8, R8\n"
            "ls map: one character per 1/64 of a segment: '#' allocated (page tables too),\n"
            "'+' partly allocated, '.' free, 'v' free inside the VPR.\n"
            "\n"
            "Options:\n"
            "  -d, --device URI   device to open (default: $GR_DEVICE, else sim://)\n"
            "                     schemes: %s   e.g. sim://?seed=7&fst=wave.fst\n"
            "  -j, --json         machine-readable output on stdout\n"
            "      --any-map      open a device whose register map differs from this build\n"
            "  -h, --help         this text\n"
            "\n"
            "Exit status: 0 success, 1 checks failed, 2 usage error (also a handle gpuctl does not\n"
            "know, or an allocation the driver refuses), 3 device or access error (also an\n"
            "allocation no segment has room for).\n",
            gr_link_schemes());
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static int fail_access(const opts_t *o, const char *what, uint32_t off, int rc)
{
    if (o->json) {
        printf("{\"error\":");
        json_str(gr_status_name(rc));
        printf(",\"message\":");
        json_str(gr_strerror(rc));
        printf(",\"offset\":%u}\n", off);
    }
    fprintf(stderr, "gpuctl: %s 0x%04x: %s (%s)\n", what, off, gr_strerror(rc), gr_status_name(rc));
    return EXIT_DEVICE;
}

static int open_device(const opts_t *o, gr_device_t **out_dev)
{
    int rc = gr_device_open(o->uri, o->open_flags, out_dev);
    if (rc) {
        fprintf(stderr, "gpuctl: cannot open %s: %s\n", o->uri ? o->uri : "the default device",
                gr_device_error());
        if (o->json) {
            printf("{\"error\":");
            json_str(gr_status_name(rc));
            printf(",\"message\":");
            json_str(gr_device_error());
            printf("}\n");
        }
        return rc == GR_E_BAD_URI || rc == GR_E_INVALID ? EXIT_USAGE : EXIT_DEVICE;
    }
    return EXIT_OK;
}

static int cmd_info(const opts_t *o, gr_device_t *dev)
{
    gr_device_info_t info;
    int rc = gr_device_info(dev, &info);
    if (rc)
        return fail_access(o, "reading the header at", 0, rc);
    const gr_reg_desc_t *caps = gr_regdesc_find("ID_CAPS");
    if (o->json) {
        printf("{\"magic\":%u,\"version\":\"%u.%u.%u\",\"regmap_hash\":%u,\"regmap_matches\":%s,"
               "\"board\":%u,\"build_stamp\":%u,\"transport\":",
               info.magic, info.version_major, info.version_minor, info.version_patch,
               info.regmap_hash, info.regmap_matches ? "true" : "false", info.board,
               info.build_stamp);
        json_str(info.transport);
        printf(",\"caps\":{");
        for (unsigned i = 0; i < caps->field_count; i++) {
            printf("%s", i ? "," : "");
            json_str(caps->fields[i].name);
            printf(":%s", (info.caps & gr_field_mask(&caps->fields[i])) ? "true" : "false");
        }
        printf("}}\n");
        return EXIT_OK;
    }
    printf("device      gpuref gpu_core (ID_MAGIC 0x%08x \"%c%c%c%c\")\n", info.magic,
           (char)(info.magic >> 24), (char)(info.magic >> 16), (char)(info.magic >> 8),
           (char)info.magic);
    printf("transport   %s\n", info.transport);
    printf("regmap      version %u.%u.%u, hash 0x%08x (%s)\n", info.version_major,
           info.version_minor, info.version_patch, info.regmap_hash,
           info.regmap_matches ? "matches this host" : "DIFFERS from this host");
    printf("build       board %u%s, stamp 0x%06x\n", info.board,
           info.board == 0 ? " (simulation)" : "", info.build_stamp);
    printf("caps        0x%08x:", info.caps);
    for (unsigned i = 0; i < caps->field_count; i++)
        printf(" %s=%s", caps->fields[i].name,
               (info.caps & gr_field_mask(&caps->fields[i])) ? "yes" : "no");
    printf("\n");
    return EXIT_OK;
}

static void print_fields(const gr_reg_desc_t *reg, uint32_t v)
{
    for (unsigned f = 0; f < reg->field_count; f++) {
        const gr_field_desc_t *fd = &reg->fields[f];
        uint32_t fv = (v & gr_field_mask(fd)) >> fd->lsb;
        char bits[16];
        if (fd->width == 1)
            snprintf(bits, sizeof bits, "[%u]", fd->lsb);
        else
            snprintf(bits, sizeof bits, "[%u:%u]", fd->lsb + fd->width - 1, fd->lsb);
        printf("    %-12s %-8s %-5s = 0x%x\n", fd->name, bits, gr_access_name(fd->access), fv);
    }
}

static void json_reg(const gr_reg_desc_t *reg, uint32_t off, uint32_t v)
{
    printf("{\"offset\":%u,\"value\":%u", off, v);
    if (reg) {
        printf(",\"name\":");
        json_str(reg->name);
        printf(",\"fields\":{");
        for (unsigned f = 0; f < reg->field_count; f++) {
            printf("%s", f ? "," : "");
            json_str(reg->fields[f].name);
            printf(":%u", (v & gr_field_mask(&reg->fields[f])) >> reg->fields[f].lsb);
        }
        printf("}");
    }
    printf("}");
}

static int cmd_regs(const opts_t *o, gr_device_t *dev)
{
    if (o->json)
        printf("[");
    for (unsigned i = 0; i < gr_regdesc_count; i++) {
        const gr_reg_desc_t *reg = &gr_regdesc[i];
        uint32_t v;
        int rc = gr_reg_read(dev, reg->offset, &v);
        if (rc)
            return fail_access(o, "reading", reg->offset, rc);
        if (o->json) {
            printf("%s", i ? "," : "");
            json_reg(reg, reg->offset, v);
            continue;
        }
        printf("0x%03x %-12s 0x%08x  %s\n", reg->offset, reg->name, v, reg->title);
        print_fields(reg, v);
    }
    if (o->json)
        printf("]\n");
    return EXIT_OK;
}

static int parse_offset(const char *text, uint32_t *out)
{
    int rc = gr_regdesc_parse_offset(text, out);
    if (rc == GR_E_NOT_FOUND)
        fprintf(stderr, "gpuctl: no register named '%s' (see gpuctl regs)\n", text);
    else if (rc == GR_E_RANGE)
        fprintf(stderr, "gpuctl: offset %s is past BAR0 (0x%x bytes)\n", text, GR_REGMAP_BAR0_BYTES);
    else if (rc == GR_E_ALIGN)
        fprintf(stderr, "gpuctl: offset %s is not 32-bit aligned\n", text);
    else if (rc)
        fprintf(stderr, "gpuctl: '%s' is neither a register name nor an offset\n", text);
    return rc;
}

static int cmd_peek(const opts_t *o, gr_device_t *dev, uint32_t off)
{
    uint32_t v;
    int rc = gr_reg_read(dev, off, &v);
    if (rc)
        return fail_access(o, "read of", off, rc);
    const gr_reg_desc_t *reg = gr_regdesc_at(off);
    if (o->json) {
        json_reg(reg, off, v);
        printf("\n");
        return EXIT_OK;
    }
    printf("0x%03x %-12s 0x%08x\n", off, reg ? reg->name : "(hole)", v);
    if (reg)
        print_fields(reg, v);
    return EXIT_OK;
}

static int cmd_poke(const opts_t *o, gr_device_t *dev, uint32_t off, uint32_t value)
{
    int rc = gr_reg_write(dev, off, value);
    if (rc)
        return fail_access(o, "write of", off, rc);
    const gr_reg_desc_t *reg = gr_regdesc_at(off);
    if (o->json)
        printf("{\"offset\":%u,\"written\":%u}\n", off, value);
    else
        printf("0x%03x %-12s <- 0x%08x\n", off, reg ? reg->name : "(hole)", value);
    return EXIT_OK;
}

typedef struct conf_out {
    const opts_t *o;
    bool first;
} conf_out_t;

static void conf_emit(void *user, bool ok, const char *reg, const char *check, const char *detail)
{
    conf_out_t *c = user;
    if (c->o->json) {
        printf("%s{\"ok\":%s,\"register\":", c->first ? "" : ",", ok ? "true" : "false");
        json_str(reg);
        printf(",\"check\":");
        json_str(check);
        printf(",\"detail\":");
        json_str(detail);
        printf("}");
        c->first = false;
        return;
    }
    printf("%-4s %-11s %s: %s\n", ok ? "ok" : "FAIL", reg[0] ? reg : "-", check, detail);
}

static int cmd_conformance(const opts_t *o, gr_device_t *dev)
{
    conf_out_t out = {.o = o, .first = true};
    gr_conf_result_t res;
    char transport[128];
    gr_link_describe(gr_device_link(dev), transport, sizeof transport);
    if (o->json)
        printf("{\"checks\":[");
    else
        printf("register conformance on %s, map hash 0x%08x, %u registers\n", transport,
               GR_REGMAP_HASH, gr_regdesc_count);
    int rc = gr_conformance_run(dev, conf_emit, &out, &res);
    if (o->json) {
        printf("],\"registers\":%u,\"passed\":%u,\"failed\":%u,\"aborted\":", res.registers,
               res.passed, res.failed);
        if (rc)
            json_str(gr_strerror(rc));
        else
            printf("null");
        printf("}\n");
    } else {
        printf("conformance: %u registers, %u checks: %u passed, %u failed%s%s\n", res.registers,
               res.passed + res.failed, res.passed, res.failed, rc ? "; stopped: " : "",
               rc ? gr_strerror(rc) : "");
    }
    if (rc)
        return EXIT_DEVICE;
    return res.failed ? EXIT_CHECKS_FAILED : EXIT_OK;
}

static int parse_u32(const char *text, uint32_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || !*text || *end || v > 0xffffffffull || text[0] == '-')
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* ---- allocations: alloc, free, ls ----------------------------------------------------------- */

/* One alloc command as parsed: what gr_alloc_create is asked for. */
typedef struct alloc_req {
    bool surface;
    uint64_t bytes;           /* buffers */
    uint32_t width, height;   /* surfaces */
    uint32_t format, mips, slices;
    uint32_t cpu;             /* gr_alloc_cpu_access_t */
    uint32_t priv_flags;      /* GR_ALLOC_PRIV_* */
    bool shared, ro_share, existing;
    char text[200];           /* the command as typed, for messages */
} alloc_req_t;

/* Bytes: a number (0x allowed) with an optional K, M or G (binary) suffix; 1 byte to 1 TiB. */
static int parse_size(const char *text, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    if (!*text || text[0] == '-')
        return -1;
    unsigned long long v = strtoull(text, &end, 0);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (errno || end == text || *end || v == 0 || v > (1ull << (40 - shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
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
static int parse_alloc(int argc, char **argv, alloc_req_t *out)
{
    alloc_req_t r;
    memset(&r, 0, sizeof r);
    r.cpu = GR_CPU_ACCESS_NONE;
    if (argc < 2 || strncmp(argv[1], "--", 2) == 0) {
        fprintf(stderr, "gpuctl: alloc takes a size (4096, 64K, 1M) or WIDTHxHEIGHT first\n");
        return -1;
    }
    if (strchr(argv[1], 'x') && strncmp(argv[1], "0x", 2) != 0) {
        if (parse_dims(argv[1], &r.width, &r.height)) {
            fprintf(stderr, "gpuctl: alloc: '%s' is not WIDTHxHEIGHT (e.g. 640x480)\n", argv[1]);
            return -1;
        }
        r.surface = true;
    } else if (parse_size(argv[1], &r.bytes)) {
        fprintf(stderr, "gpuctl: alloc: '%s' is not a size (1 byte to 1 TiB: 4096, 0x1000, 64K, 1M, 2G)\n",
                argv[1]);
        return -1;
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
            fprintf(stderr, "gpuctl: unknown alloc option '%s' (try gpuctl --help; global options go "
                            "before the first command)\n", argv[i]);
            return -1;
        }
        enum opt_kind kind = alloc_opts[k].kind;
        bool takes_value = kind == OPT_CPU || kind == OPT_FORMAT || kind == OPT_MIPS || kind == OPT_SLICES;
        if (value)
            value++;
        else if (takes_value && i + 1 < argc)
            value = argv[++i];
        if (takes_value != (value != NULL)) {
            fprintf(stderr, "gpuctl: alloc option %s %s\n", name, takes_value ? "takes a value" : "takes no value");
            return -1;
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
                fprintf(stderr, "gpuctl: --cpu takes none, read, write, read-write or on-demand, not '%s'\n",
                        value);
                return -1;
            }
            break;
        case OPT_FORMAT:
            surface_opt = true;
            for (n = 0; n < sizeof formats / sizeof formats[0] && strcasecmp(formats[n].name, value); n++)
                ;
            if (n == sizeof formats / sizeof formats[0]) {
                fprintf(stderr, "gpuctl: unknown surface format '%s' (try gpuctl --help)\n", value);
                return -1;
            }
            r.format = formats[n].value;
            continue;
        case OPT_MIPS:
        case OPT_SLICES:
            surface_opt = true;
            if (parse_u32(value, &n) || n == 0) {
                fprintf(stderr, "gpuctl: %s takes a count from 1, not '%s'\n", name, value);
                return -1;
            }
            *(kind == OPT_MIPS ? &r.mips : &r.slices) = n;
            continue;
        }
        if (cpu_set && cpu != r.cpu) {
            fprintf(stderr, "gpuctl: alloc: %s contradicts the CPU access given before (%s)\n", argv[i],
                    cpu_modes[r.cpu]);
            return -1;
        }
        cpu_set = true;
        r.cpu = cpu;
    }
    if (surface_opt && !r.surface) {
        fprintf(stderr, "gpuctl: alloc: --format, --mips and --slices are for surfaces (WIDTHxHEIGHT)\n");
        return -1;
    }
    if (r.existing && r.surface) {
        fprintf(stderr, "gpuctl: alloc: --existing-sysmem takes a buffer size, not a surface\n");
        return -1;
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

/* One allocation gpuctl made: its creator handle and, with --read-only-share, the peer's open. */
typedef struct alloc_rec {
    unsigned ref;        /* @ref */
    gr_alloc_t handle;   /* 0 once freed */
    gr_alloc_t peer;     /* the peer process's read-only open; 0 if none or freed */
    gr_shared_t shared;  /* 0 unless shared */
    gr_sysmem_t mem;     /* --existing-sysmem: the backing store (cpu NULL: none) */
    char kind[48];
} alloc_rec_t;

#define MAX_COMMANDS 64

/* The allocation side of a run: an adapter over gpuctl's own link, started on first use. */
typedef struct session {
    gr_device_t *dev;
    gr_adapter_t *ad;
    gr_process_t *proc, *peer_proc;
    gr_gpu_device_t *gdev, *peer_dev;
    alloc_rec_t recs[MAX_COMMANDS];
    unsigned nrecs;
} session_t;

static int fail_status(const opts_t *o, const char *cmd, int rc, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Reports a failed allocation command: stderr always, and a JSON line with --json. */
static int fail_status(const opts_t *o, const char *cmd, int rc, int exit_code, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (o->json) {
        printf("{\"command\":");
        json_str(cmd);
        printf(",\"error\":");
        json_str(rc ? gr_status_name(rc) : "usage");
        printf(",\"message\":");
        json_str(msg);
        printf("}\n");
    }
    if (rc)
        fprintf(stderr, "gpuctl: %s: %s (%s)\n", msg, gr_strerror(rc), gr_status_name(rc));
    else
        fprintf(stderr, "gpuctl: %s\n", msg);
    return exit_code;
}

static int session_start(const opts_t *o, session_t *s)
{
    if (s->ad)
        return EXIT_OK;
    int rc = gr_adapter_open_link(gr_device_link(s->dev), &s->ad);
    if (rc)
        return fail_status(o, "adapter", rc, EXIT_DEVICE, "cannot start the adapter (miniport and VidMm)");
    rc = gr_process_create(s->ad, &s->proc);
    if (!rc)
        rc = gr_gpu_device_create(s->proc, &s->gdev);
    if (rc)
        return fail_status(o, "adapter", rc, EXIT_DEVICE, "cannot create gpuctl's process and device");
    return EXIT_OK;
}

static void session_end(session_t *s)
{
    gr_adapter_close(s->ad); /* processes, devices, handles and system memory with it */
    s->ad = NULL;
}

/* "1 MiB", "64 KiB", "4097 B" when a unit divides it; else "239.98 MiB" (JSON has the bytes). */
static const char *fmt_size(uint64_t v, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB"};
    unsigned u = 0, big = 0;
    uint64_t exact = v;
    while (u < 3 && exact && exact % 1024 == 0) {
        exact /= 1024;
        u++;
    }
    for (uint64_t t = v; big < 3 && t >= 1024; t /= 1024)
        big++;
    if (big > u)
        snprintf(buf, len, "%.2f %s", (double)v / (double)(UINT64_C(1) << (10 * big)), unit[big]);
    else
        snprintf(buf, len, "%llu %s", (unsigned long long)exact, unit[u]);
    return buf;
}

/* FlagsWddm2 bit -> member name, from the header's own layout. */
static const char *wddm2_names[32];

static void init_wddm2_names(void)
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

/* One allocation as JSON; peer (may be NULL) nests the peer process's open as "peer". */
static void json_alloc(const alloc_rec_t *r, gr_alloc_t h, const char *process, const gr_alloc_info_t *i,
                       const gr_alloc_info_t *peer)
{
    printf("{\"ref\":%u,\"handle\":%u,\"process\":\"%s\",\"kind\":", r->ref, h, process);
    json_str(r->kind);
    printf(",\"creator\":%s,\"read_only\":%s,\"shared\":%u,\"segment\":%u,\"offset\":%llu,\"vram_address\":%llu,"
           "\"bus_address\":%llu,\"size\":%llu,\"alignment\":%u,\"gpu_va\":%llu,\"flags_wddm2\":%u,\"flags\":[",
           i->creator ? "true" : "false", i->read_only ? "true" : "false", r->shared, i->segment,
           (unsigned long long)i->offset, (unsigned long long)i->vram_address,
           (unsigned long long)i->bus_address, (unsigned long long)i->size, i->alignment,
           (unsigned long long)i->gpu_va, i->flags_wddm2);
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
        json_alloc(r, r->peer, "peer", peer, NULL);
    }
    printf("}");
}

/* One line: where an allocation lives and how the GPU reaches it. */
static void text_alloc(const alloc_rec_t *r, gr_alloc_t h, bool peer, const gr_alloc_info_t *i)
{
    char sz[32];
    printf("@%u%s handle 0x%08x: %s, size %s, ", r->ref, peer ? " peer" : "", h, r->kind,
           fmt_size(i->size, sz, sizeof sz));
    if (i->segment == GR_SEGMENT_SYSTEM)
        printf("system memory, bus 0x%llx", (unsigned long long)i->bus_address);
    else
        printf("segment %u offset 0x%llx (VRAM 0x%llx)", i->segment, (unsigned long long)i->offset,
               (unsigned long long)i->vram_address);
    printf(", GPU VA 0x%llx%s, flags ", (unsigned long long)i->gpu_va, i->read_only ? " read-only" : "");
    print_flag_names(i->flags_wddm2);
    printf("\n");
}

static int cmd_alloc(const opts_t *o, session_t *s, const alloc_req_t *q)
{
    int rc = session_start(o, s);
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
            fprintf(stderr, "gpuctl: cannot give back the host memory of %s\n", q->text);
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
        json_alloc(r, h, "main", &info, r->peer ? &pinfo : NULL);
        printf("\n");
        return EXIT_OK;
    }
    text_alloc(r, h, false, &info);
    if (r->shared)
        printf("@%u shared handle 0x%08x\n", r->ref, r->shared);
    if (r->peer)
        text_alloc(r, r->peer, true, &pinfo); /* the peer process's read-only open */
    return EXIT_OK;
}

/* The free command: HANDLE is @ref (ref > 0) or a handle value. */
static int cmd_free(const opts_t *o, session_t *s, unsigned ref, gr_alloc_t value)
{
    int rc = session_start(o, s);
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
        printf("{\"ref\":%u,\"freed\":[", r->ref);
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
                json_alloc(r, h, which ? "peer" : "main", &i, NULL);
            } else {
                printf("  ");
                text_alloc(r, h, which, &i);
            }
            n++;
        }
    }
    *out_count = n;
    return EXIT_OK;
}

static int cmd_ls(const opts_t *o, session_t *s)
{
    int rc = session_start(o, s);
    if (rc)
        return rc;
    unsigned live = 0;
    for (unsigned k = 0; k < s->nrecs; k++)
        live += (s->recs[k].handle != 0) + (s->recs[k].peer != 0);
    if (o->json)
        printf("{\"allocations\":[");
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

/* ---- the command line ------------------------------------------------------------------------ */

typedef enum cmd_kind {
    CMD_INFO,
    CMD_REGS,
    CMD_PEEK,
    CMD_POKE,
    CMD_CONFORMANCE,
    CMD_ALLOC,
    CMD_FREE,
    CMD_LS
} cmd_kind_t;

typedef struct command {
    cmd_kind_t kind;
    uint32_t offset;
    uint32_t value;
    unsigned ref;      /* free @ref */
    alloc_req_t alloc; /* alloc */
} command_t;

/* HANDLE of free: @N (the N-th alloc of this run, made before) or a non-zero 32-bit value. */
static int parse_handle(const char *text, unsigned allocs_before, command_t *cmd)
{
    if (text[0] == '@') {
        uint32_t n = 0;
        if (parse_u32(text + 1, &n) || n == 0 || text[1] == '\0') {
            fprintf(stderr, "gpuctl: free: '%s' is not @N (N from 1)\n", text);
            return -1;
        }
        if (n > allocs_before) {
            fprintf(stderr, "gpuctl: free %s: only %u alloc command%s come%s before it\n", text, allocs_before,
                    allocs_before == 1 ? "" : "s", allocs_before == 1 ? "s" : "");
            return -1;
        }
        cmd->ref = n;
        return 0;
    }
    if (parse_u32(text, &cmd->value) || cmd->value == 0) {
        fprintf(stderr, "gpuctl: free: '%s' is neither @N nor a handle (a non-zero 32-bit value)\n", text);
        return -1;
    }
    return 0;
}

/* Parses one command and its arguments; returns how many words it took, or -1. */
static int parse_command(int argc, char **argv, unsigned allocs_before, command_t *out)
{
    static const struct {
        const char *name;
        cmd_kind_t kind;
        int args;
    } table[] = {{"info", CMD_INFO, 0},       {"regs", CMD_REGS, 0},   {"peek", CMD_PEEK, 1},
                 {"poke", CMD_POKE, 2},       {"conformance", CMD_CONFORMANCE, 0},
                 {"alloc", CMD_ALLOC, 1},     {"free", CMD_FREE, 1},   {"ls", CMD_LS, 0}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(argv[0], table[i].name))
            continue;
        command_t cmd;
        memset(&cmd, 0, sizeof cmd);
        cmd.kind = table[i].kind;
        if (cmd.kind == CMD_ALLOC) {
            int n = parse_alloc(argc, argv, &cmd.alloc);
            if (n > 0)
                *out = cmd;
            return n;
        }
        if (argc - 1 < table[i].args) {
            fprintf(stderr, "gpuctl: %s takes %d argument%s (try gpuctl --help)\n", argv[0],
                    table[i].args, table[i].args == 1 ? "" : "s");
            return -1;
        }
        if (cmd.kind == CMD_FREE) {
            if (parse_handle(argv[1], allocs_before, &cmd))
                return -1;
        } else {
            if (table[i].args >= 1 && parse_offset(argv[1], &cmd.offset))
                return -1;
            if (table[i].args == 2 && parse_u32(argv[2], &cmd.value)) {
                fprintf(stderr, "gpuctl: '%s' is not a 32-bit value\n", argv[2]);
                return -1;
            }
        }
        *out = cmd;
        return 1 + table[i].args;
    }
    fprintf(stderr, "gpuctl: unknown command '%s' (try gpuctl --help)\n", argv[0]);
    return -1;
}

int main(int argc, char **argv)
{
    opts_t o = {0};
    static const struct option longopts[] = {
        {"device", required_argument, NULL, 'd'}, {"json", no_argument, NULL, 'j'},
        {"any-map", no_argument, NULL, 'A'},      {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "+d:jh", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            o.uri = optarg;
            break;
        case 'j':
            o.json = true;
            break;
        case 'A':
            o.open_flags |= GR_OPEN_ANY_MAP;
            break;
        case 'h':
            usage(stdout);
            return EXIT_OK;
        default:
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return EXIT_USAGE;
    }
    /* Several commands may follow one another on one device: on sim:// the device lives only
     * as long as the process. All are checked before the device is opened. */
    static command_t cmds[MAX_COMMANDS];
    unsigned ncmds = 0, allocs = 0;
    bool alloc_side = false;
    for (int i = optind; i < argc;) {
        if (ncmds == MAX_COMMANDS) {
            fprintf(stderr, "gpuctl: too many commands (at most %d)\n", MAX_COMMANDS);
            return EXIT_USAGE;
        }
        command_t *cmd = &cmds[ncmds++];
        int rc = parse_command(argc - i, argv + i, allocs, cmd);
        if (rc < 0)
            return EXIT_USAGE;
        i += rc;
        allocs += cmd->kind == CMD_ALLOC;
        if (cmd->kind == CMD_CONFORMANCE && alloc_side) {
            /* Its soft reset would pull the MMU and the VPR out from under the allocations. */
            fprintf(stderr, "gpuctl: conformance resets the device: run it before alloc, free and ls\n");
            return EXIT_USAGE;
        }
        alloc_side |= cmd->kind == CMD_ALLOC || cmd->kind == CMD_FREE || cmd->kind == CMD_LS;
    }
    init_wddm2_names();

    /* The adapter, started by the first allocation command, runs over this device's link. */
    static session_t s;
    int rc = open_device(&o, &s.dev);
    if (rc)
        return rc;
    for (unsigned i = 0; i < ncmds && rc == EXIT_OK; i++) {
        const command_t *cmd = &cmds[i];
        switch (cmd->kind) {
        case CMD_INFO:
            rc = cmd_info(&o, s.dev);
            break;
        case CMD_REGS:
            rc = cmd_regs(&o, s.dev);
            break;
        case CMD_PEEK:
            rc = cmd_peek(&o, s.dev, cmd->offset);
            break;
        case CMD_POKE:
            rc = cmd_poke(&o, s.dev, cmd->offset, cmd->value);
            break;
        case CMD_CONFORMANCE:
            rc = cmd_conformance(&o, s.dev);
            break;
        case CMD_ALLOC:
            rc = cmd_alloc(&o, &s, &cmd->alloc);
            break;
        case CMD_FREE:
            rc = cmd_free(&o, &s, cmd->ref, cmd->value);
            break;
        case CMD_LS:
            rc = cmd_ls(&o, &s);
            break;
        }
    }
    session_end(&s);
    gr_device_close(s.dev);
    return rc;
}
