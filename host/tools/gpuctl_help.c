/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpuctl's help: the usage text (`gpuctl --help`, `gpuctl help`), the help of one command
 * (`gpuctl help CMD`, `gpuctl CMD --help`) and `gpuctl --version`.
 *
 * One table holds each command's synopsis and what it does; the usage lists it, and a command's
 * help adds the notes that belong to it. A new command gets a row here and one in gpuctl.c's
 * dispatch table.
 */
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "gr_link.h"
/* GPUCTL_VERSION and GPUCTL_COMMIT, written by the build (host/host.mk). */
#include "gpuctl_version.h"

static const char alloc_notes[] =
    "alloc: SIZE is bytes (4096, 0x1000) or K/M/G/T (64K, 1M; 1 byte to 1 TiB): a buffer; WxH\n"
    "(640x480) is a 2D surface. OPTION (host/kmd/README.md says what each becomes):\n"
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
    "A buffer larger than every segment it may use is refused like any buffer no segment has\n"
    "room for (exit status 3).\n";

static const char ls_notes[] = "ls map: one character per 1/64 of a segment: '#' allocated (page tables too),\n"
                               "'+' partly allocated, '.' free, 'v' free inside the VPR.\n";

static const char xfer_notes[] =
    "copy, fill, read, bench: sizes and offsets as alloc's, multiples of 8 (0 allowed for\n"
    "offsets); each is checked against the allocations before anything is submitted. The\n"
    "packets run on one GPU context of gpuctl's device, through VidSch and the miniport.\n"
    "A copy out of the VPR, a read of protected content and overlapping copies are refused.\n";

static const char reg_notes[] =
    "REG: a register name (SCRATCH, any case), an offset (0x20), or NAME.FIELD (DMA_STATUS.IDLE):\n"
    "peek of a field prints its value, poke of a field reads the register, changes the field and\n"
    "writes it back (w1c, pulse and w1s fields of the register are written 0). After a poke the\n"
    "register is read back: where its read-write or read-only bits differ from what was written,\n"
    "a warning says so (stderr; \"warning\" in --json), as a poke of a read-only register gets.\n";

static const char exit_notes[] =
    "Exit status: 0 success, 1 checks failed, 2 usage error (also a handle gpuctl does not\n"
    "know, an allocation the driver refuses, an evict of a pinned allocation, or a size or\n"
    "offset past an allocation), 3 device or access error (also an allocation no segment has\n"
    "room for, allocations that cannot all be resident at once, and a packet that hung or\n"
    "faulted: the GPU was reset).\n";

static const char tracediff_notes[] =
    "tracediff: registers whose value is the build's or time's (ID_BUILD, ID_DATE, DMA_TIMESTAMP,\n"
    "the cycle counters) are compared by offset only; a poll (a register or DMA read repeated\n"
    "with the same answer) counts once; interrupt lines are counted, not compared; host bus\n"
    "addresses are compared as DMA buffer and offset; the driver's DDI markers are not\n"
    "compared, and the last one before the first divergence is printed as its DDI step.\n"
    "docs/txlog.md states the rules.\n"
    "--json: {\"same\", \"differences\", \"first\": {\"stream\", \"index\", \"a_line\", \"b_line\",\n"
    "[\"a_ddi_step\", \"a_ddi_line\"], [\"b_ddi_step\", \"b_ddi_line\"]}}.\n"
    "Exit status: 0 the same, 1 different, 2 a usage error or a file that cannot be read or\n"
    "is not a transaction log.\n";

typedef struct cmd_help {
    const char *name;
    const char *synopsis; /* the command and its words */
    const char *summary;  /* what it does: lines of the usage's command list */
    const char *notes;    /* what `gpuctl help CMD` adds; may be NULL */
} cmd_help_t;

static const cmd_help_t helps[] = {
    {"info", "info", "identification header and capabilities", NULL},
    {"regs", "regs [PATTERN]",
     "every register of the map, with its fields decoded; PATTERN: only\nthose whose name holds it (any case: DMA) or "
     "matches a glob ('DMA_*')",
     NULL},
    {"peek", "peek REG", "read a register or a field (REG: SCRATCH, 0x20, DMA_STATUS.IDLE)", reg_notes},
    {"poke", "poke REG VALUE", "write a register, or a field (read-modify-write); warns when it\ndoes not stick",
     reg_notes},
    {"conformance", "conformance",
     "register conformance suite; prints each check and a summary\n(it resets the device: not after alloc and the "
     "commands below)",
     NULL},
    {"alloc", "alloc SIZE|WxH [OPTION...]",
     "create an allocation through the driver (miniport + VidMm);\nprints @N (its number in this run), handle, "
     "segment, offset,\nVRAM or bus address, size and GPU VA",
     alloc_notes},
    {"free", "free HANDLE", "destroy it: @N, or a handle value gpuctl printed", NULL},
    {"ls", "ls",
     "the allocations (each resident, evicted or system, and why it is\npinned), and each segment's occupancy as a map",
     ls_notes},
    {"evict", "evict @N [@N...]",
     "VidMm evicts them now: content to host memory on the DMA engine\n(a clean PermanentSysMem one is discarded); a "
     "pinned one (overlay,\nVPR, locked, system memory) is refused and nothing moves",
     NULL},
    {"resident", "resident @N [@N...]",
     "make them resident (page evicted ones in, evicting others if\nVRAM is short); copy, fill, read and a CPU lock "
     "page in too",
     NULL},
    {"copy", "copy SRC DST [BYTES] [--src-offset N] [--dst-offset N]",
     "DMA COPY through the engine (SRC and DST @N, by GPU VA; BYTES\ndefault: the rest of the smaller side); prints "
     "the engine's\ncycles, bytes a cycle and the share of the 8-byte bus",
     xfer_notes},
    {"fill", "fill DST PATTERN [BYTES] [--offset N]",
     "DMA FILL of @N with a 32-bit pattern (BYTES default: to the end)", xfer_notes},
    {"read", "read SRC [OFFSET] [LENGTH] [--sum] [--cpu]",
     "hexdump of @N (LENGTH default 256; with --sum only the CRC-32, of the\nrest by default), read through the "
     "engine, or a CPU lock with --cpu",
     xfer_notes},
    {"bench", "bench [--sizes LIST] [--runs N]",
     "VRAM -> VRAM copies of each size (default 256,1K,4K,16K,64K,256K,1M;\nup to 64M) by GPU VA; median of N runs",
     xfer_notes},
    {"timeline", "timeline", "the scheduler's events of this run, with device cycles", NULL},
    {"trace", "trace on FILE | trace off",
     "sim://: record a waveform of the commands between (FILE .vcd: VCD,\nelse FST; a GTKWave save file FILE.gtkw "
     "next to it)",
     NULL},
    {"tracediff", "tracediff A B",
     "compare two transaction logs (?txlog=FILE on any link) by content:\nthe first divergence in register names, and a "
     "count; exit 0 the\nsame, 1 different, 2 unreadable (stands alone on the line; no device)",
     tracediff_notes},
    {"version", "version", "gpuctl's version and the commit it was built from (alone on the line;\nas --version)",
     NULL},
};

/* Each line of text, after indent spaces (the first line after first_indent). */
static void print_lines(FILE *f, const char *text, int first_indent, int indent)
{
    int pad = first_indent;
    while (*text) {
        const char *nl = strchr(text, '\n');
        int len = nl ? (int)(nl - text) : (int)strlen(text);
        fprintf(f, "%*s%.*s\n", pad, "", len, text);
        text += len + (nl ? 1 : 0);
        pad = indent;
    }
}

static const char options_text[] =
    "Options (anywhere on the line, before, between or after the commands):\n"
    "  -d, --device URI   device to open (default: $GR_DEVICE, else sim://)\n"
    "                     schemes: %s   e.g. sim://?seed=7&fst=wave.fst\n"
    "  -j, --json         JSON Lines on stdout: one document a line as each command ends, each\n"
    "                     with \"command\"; errors too ({\"command\",\"error\",\"message\"}). Register\n"
    "                     values and offsets also as KEY_hex strings (\"magic_hex\":\"0x47505552\").\n"
    "                     The whole run as one array: gpuctl --json ... | jq -s .\n"
    "      --any-map      open a device whose register map differs from this build\n"
    "      --force        poke and conformance write without the device's binding: on a device\n"
    "                     another driver stack owns they may overwrite its memory and reset its work\n"
    "  -h, --help         this text; after a command, that command's help\n"
    "  -V, --version      gpuctl's version and the commit it was built from (gpuctl version)\n"
    "  --                 the words after it are commands and their arguments only\n";

void usage(FILE *f)
{
    fprintf(f, "usage: gpuctl [-d URI] [--json] [--any-map] COMMAND [ARGS] [COMMAND [ARGS]...]\n"
               "       gpuctl help [COMMAND] | gpuctl COMMAND --help | gpuctl version | gpuctl --version\n"
               "\n"
               "Commands:\n");
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++) {
        if (strlen(helps[i].synopsis) <= 18) {
            fprintf(f, "  %-18s ", helps[i].synopsis);
            print_lines(f, helps[i].summary, 0, 21);
        } else {
            fprintf(f, "  %s\n", helps[i].synopsis);
            print_lines(f, helps[i].summary, 21, 21);
        }
    }
    fprintf(f, "  help [COMMAND]     this text, or one command's\n"
               "Commands run in order on one open device; each one's output is written as it ends\n"
               "(with --json, one JSON document a line); on a terminal, a long one shows its progress\n"
               "on stderr:\n"
               "  gpuctl -d sim:// poke SCRATCH 0xcafe peek SCRATCH\n"
               "  gpuctl alloc 1M alloc 64K --cpu-visible ls free @1 ls\n"
               "  gpuctl alloc 1M alloc 1M fill @1 0x11223344 copy @1 @2 read @2 0 64 timeline\n"
               "  gpuctl alloc 1M fill @1 7 evict @1 ls read @1 --sum ls\n"
               "  gpuctl regs DMA        gpuctl --json info peek SCRATCH | jq -s .\n"
               "\n");
    fputs(reg_notes, f);
    fputs("\n", f);
    fputs(alloc_notes, f);
    fputs(ls_notes, f);
    fputs("\n", f);
    fputs(xfer_notes, f);
    fputs("\n", f);
    fprintf(f, options_text, gr_link_schemes());
    fputs("\n", f);
    fputs(exit_notes, f);
}

int help_command(FILE *f, const char *name)
{
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++) {
        const cmd_help_t *h = &helps[i];
        if (strcmp(h->name, name))
            continue;
        if (!f)
            return 0;
        const bool alone = !strcmp(h->name, "tracediff");
        if (!strcmp(h->name, "version"))
            fprintf(f, "usage: gpuctl [--json] version\n\n");
        else if (alone)
            fprintf(f, "usage: gpuctl [--json] %s\n\n", h->synopsis);
        else
            fprintf(f, "usage: gpuctl [-d URI] [--json] [--any-map] %s [COMMAND [ARGS]...]\n\n", h->synopsis);
        print_lines(f, h->summary, 0, 0);
        if (h->notes) {
            fputs("\n", f);
            fputs(h->notes, f);
        }
        if (alone)
            return 0; /* its notes say its options and exit statuses */
        fputs("\nOptions: -d URI, --json and --any-map go anywhere on the line (gpuctl --help lists them).\n", f);
        fputs(exit_notes, f);
        return 0;
    }
    return -1;
}

void print_version(FILE *f, bool json)
{
    if (json) {
        fprintf(f, "{\"command\":\"version\",\"version\":\"%s\",\"commit\":%s%s%s}\n", GPUCTL_VERSION,
                GPUCTL_COMMIT[0] ? "\"" : "null", GPUCTL_COMMIT, GPUCTL_COMMIT[0] ? "\"" : "");
        return;
    }
    fprintf(f, "gpuctl %s%s%s%s\n", GPUCTL_VERSION, GPUCTL_COMMIT[0] ? " (commit " : "", GPUCTL_COMMIT,
            GPUCTL_COMMIT[0] ? ")" : "");
}

void suggest_commands(suggest_t *s)
{
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++)
        suggest_consider(s, helps[i].name);
    suggest_consider(s, "help");
}
