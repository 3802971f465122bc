/*
 * gpuctl: command-line access to a gpuref device over any transport.
 * Run `gpuctl --help` for the commands; exit codes are listed there.
 *
 * This file: the command line (global options, each command's words, the whole line checked
 * before the device is opened), the dispatch to the commands of gpuctl_regs.c, gpuctl_alloc.c
 * and gpuctl_submit.c, and the output and parsing helpers they share (gpuctl.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"
#include "gpuref/gr_device.h"
#include "gr_link.h"

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
            "                     (it resets the device: not after alloc and the commands below)\n"
            "  alloc SIZE|WxH [OPTION...]\n"
            "                     create an allocation through the driver (miniport + VidMm);\n"
            "                     prints @N (its number in this run), handle, segment, offset,\n"
            "                     VRAM or bus address, size and GPU VA\n"
            "  free HANDLE        destroy it: @N, or a handle value gpuctl printed\n"
            "  ls                 the allocations (each resident, evicted or system, and why it is\n"
            "                     pinned), and each segment's occupancy as a map\n"
            "  evict @N [@N...]   VidMm evicts them now: content to host memory on the DMA engine\n"
            "                     (a clean PermanentSysMem one is discarded); a pinned one (overlay,\n"
            "                     VPR, locked, system memory) is refused and nothing moves\n"
            "  resident @N [@N...]\n"
            "                     make them resident (page evicted ones in, evicting others if\n"
            "                     VRAM is short); copy, fill, read and a CPU lock page in too\n"
            "  copy SRC DST [BYTES] [--src-offset N] [--dst-offset N]\n"
            "                     DMA COPY through the engine (SRC and DST @N, by GPU VA; BYTES\n"
            "                     default: the rest of the smaller side); prints the engine's\n"
            "                     cycles, bytes a cycle and the share of the 8-byte bus\n"
            "  fill DST PATTERN [BYTES] [--offset N]\n"
            "                     DMA FILL of @N with a 32-bit pattern (BYTES default: to the end)\n"
            "  read SRC [OFFSET] [LENGTH] [--sum] [--cpu]\n"
            "                     hexdump of @N (LENGTH default 256; with --sum only the CRC-32, of the\n"
            "                     rest by default), read through the engine, or a CPU lock with --cpu\n"
            "  bench [--sizes LIST] [--runs N]\n"
            "                     VRAM -> VRAM copies of each size (default 256,1K,4K,16K,64K,256K,1M;\n"
            "                     up to 64M) by GPU VA; median of N runs\n"
            "  timeline           the scheduler's events of this run, with device cycles\n"
            "  trace on FILE | trace off\n"
            "                     sim://: record a waveform of the commands between (FILE .vcd: VCD,\n"
            "                     else FST; a GTKWave save file FILE.gtkw next to it)\n"
            "Commands run in order on one open device (with --json, one JSON document a line):\n"
            "  gpuctl -d sim:// poke SCRATCH 0xcafe peek SCRATCH\n"
            "  gpuctl alloc 1M alloc 64K --cpu-visible ls free @1 ls\n"
            "  gpuctl alloc 1M alloc 1M fill @1 0x11223344 copy @1 @2 read @2 0 64 timeline\n"
            "  gpuctl alloc 1M fill @1 7 evict @1 ls read @1 --sum ls\n"
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
            "copy, fill, read, bench: sizes and offsets as alloc's, multiples of 8 (0 allowed for\n"
            "offsets); each is checked against the allocations before anything is submitted. The\n"
            "packets run on one GPU context of gpuctl's device, through VidSch and the miniport.\n"
            "A copy out of the VPR, a read of protected content and overlapping copies are refused.\n"
            "\n"
            "Options:\n"
            "  -d, --device URI   device to open (default: $GR_DEVICE, else sim://)\n"
            "                     schemes: %s   e.g. sim://?seed=7&fst=wave.fst\n"
            "  -j, --json         machine-readable output on stdout\n"
            "      --any-map      open a device whose register map differs from this build\n"
            "  -h, --help         this text\n"
            "\n"
            "Exit status: 0 success, 1 checks failed, 2 usage error (also a handle gpuctl does not\n"
            "know, an allocation the driver refuses, an evict of a pinned allocation, or a size or\n"
            "offset past an allocation), 3 device or access error (also an allocation no segment has\n"
            "room for, allocations that cannot all be resident at once, and a packet that hung or\n"
            "faulted: the GPU was reset).\n",
            gr_link_schemes());
}

void json_str(const char *s)
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

/* "1 MiB", "64 KiB", "4097 B" when a unit divides it; else "239.98 MiB" (JSON has the bytes). */
const char *fmt_size(uint64_t v, char *buf, size_t len)
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

/* Reports a failed allocation or command-path command: stderr always, and a JSON line with
 * --json. */
int fail_status(const opts_t *o, const char *cmd, int rc, int exit_code, const char *fmt, ...)
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

int parse_u32(const char *text, uint32_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || !*text || *end || v > 0xffffffffull || text[0] == '-')
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Bytes: a number (0x allowed) with an optional K, M or G (binary) suffix; 1 byte (0 when
 * zero_ok) to 1 TiB. */
int parse_size_ex(const char *text, bool zero_ok, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    if (!*text || text[0] < '0' || text[0] > '9')
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
    if (errno || end == text || *end || (v == 0 && !zero_ok) || v > (1ull << (40 - shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
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

/* ---- the command line ------------------------------------------------------------------------ */

typedef enum cmd_kind {
    CMD_INFO,
    CMD_REGS,
    CMD_PEEK,
    CMD_POKE,
    CMD_CONFORMANCE,
    CMD_ALLOC,
    CMD_FREE,
    CMD_LS,
    CMD_EVICT,
    CMD_RESIDENT,
    CMD_COPY,
    CMD_FILL,
    CMD_READ,
    CMD_BENCH,
    CMD_TIMELINE,
    CMD_TRACE
} cmd_kind_t;

typedef struct command {
    cmd_kind_t kind;
    uint32_t offset;
    uint32_t value;
    unsigned ref;      /* free @ref */
    alloc_req_t alloc; /* alloc */
    residency_req_t res; /* evict, resident */
    xfer_req_t xfer;   /* copy, fill, read, bench */
    trace_req_t trace; /* trace */
} command_t;

/* Parses one command and its arguments; returns how many words it took, or -1. */
static int parse_command(int argc, char **argv, unsigned allocs_before, command_t *out)
{
    static const struct {
        const char *name;
        cmd_kind_t kind;
        int args;
    } table[] = {{"info", CMD_INFO, 0},
                 {"regs", CMD_REGS, 0},
                 {"peek", CMD_PEEK, 1},
                 {"poke", CMD_POKE, 2},
                 {"conformance", CMD_CONFORMANCE, 0},
                 {"alloc", CMD_ALLOC, 1},
                 {"free", CMD_FREE, 1},
                 {"ls", CMD_LS, 0},
                 {"evict", CMD_EVICT, 1},
                 {"resident", CMD_RESIDENT, 1},
                 {"copy", CMD_COPY, 2},
                 {"fill", CMD_FILL, 2},
                 {"read", CMD_READ, 1},
                 {"bench", CMD_BENCH, 0},
                 {"timeline", CMD_TIMELINE, 0},
                 {"trace", CMD_TRACE, 1}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(argv[0], table[i].name))
            continue;
        command_t cmd;
        memset(&cmd, 0, sizeof cmd);
        cmd.kind = table[i].kind;
        if (cmd.kind == CMD_ALLOC || cmd.kind == CMD_COPY || cmd.kind == CMD_FILL || cmd.kind == CMD_READ ||
            cmd.kind == CMD_BENCH || cmd.kind == CMD_EVICT || cmd.kind == CMD_RESIDENT || cmd.kind == CMD_TRACE) {
            int n = cmd.kind == CMD_TRACE ? parse_trace(argc, argv, &cmd.trace)
                    : cmd.kind == CMD_ALLOC ? parse_alloc(argc, argv, &cmd.alloc)
                    : cmd.kind == CMD_EVICT || cmd.kind == CMD_RESIDENT
                        ? parse_residency(argc, argv, allocs_before, &cmd.res)
                    : cmd.kind == CMD_COPY ? parse_copy(argc, argv, allocs_before, &cmd.xfer)
                    : cmd.kind == CMD_FILL ? parse_fill(argc, argv, allocs_before, &cmd.xfer)
                    : cmd.kind == CMD_READ ? parse_read(argc, argv, allocs_before, &cmd.xfer)
                                           : parse_bench(argc, argv, &cmd.xfer);
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
            if (parse_handle(argv[1], allocs_before, &cmd.ref, &cmd.value))
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
            fprintf(stderr, "gpuctl: conformance resets the device: run it before alloc, free, ls and the "
                            "command-path commands\n");
            return EXIT_USAGE;
        }
        alloc_side |= cmd->kind >= CMD_ALLOC && cmd->kind != CMD_TRACE;
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
        case CMD_EVICT:
        case CMD_RESIDENT:
            rc = cmd_residency(&o, &s, &cmd->res);
            break;
        case CMD_COPY:
            rc = cmd_copy(&o, &s, &cmd->xfer);
            break;
        case CMD_FILL:
            rc = cmd_fill(&o, &s, &cmd->xfer);
            break;
        case CMD_READ:
            rc = cmd_read(&o, &s, &cmd->xfer);
            break;
        case CMD_BENCH:
            rc = cmd_bench(&o, &s, &cmd->xfer);
            break;
        case CMD_TIMELINE:
            rc = cmd_timeline(&o, &s);
            break;
        case CMD_TRACE:
            rc = cmd_trace(&o, s.dev, &cmd->trace);
            break;
        }
    }
    session_end(&s);
    rc = trace_finish(&o, s.dev, rc);
    gr_device_close(s.dev);
    return rc;
}
