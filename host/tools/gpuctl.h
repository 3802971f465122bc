/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpuctl.h: what the parts of gpuctl share: the options, the session (the adapter that the
 * allocation commands and the command path use), the output and parsing helpers, and each
 * command's parser and entry point. Private to host/tools. The files, top first; each calls
 * only files below it (make check-layers):
 *
 *   gpuctl.c          main: the command line, dispatch, exit codes
 *   gpuctl_help.c     the usage text, help for each command, version
 *   gpuctl_regs.c     info, regs, peek, poke, conformance (registers, over gr_device.h)
 *   gpuctl_alloc.c    alloc, free, ls, evict, resident (allocations, over gr_alloc.h)
 *   gpuctl_submit.c   copy, fill, read, bench, timeline (the command path, over gr_submit.h)
 *   gpuctl_trace.c    trace on FILE, trace off (waveforms of sim://, over sim/harness/gr_sim.h)
 *   gpuctl_tracediff.c  tracediff A B (two transaction logs, ?txlog=; no device)
 *   gpuctl_session.c  the session: adapter, process and device, started on first use
 *   gpuctl_out.c      JSON strings, messages, error reports, sizes, number parsers
 *
 * A command's entry point returns an exit code (enum exit_code) and has printed its result or
 * its error; a parser returns the words it took, or -1 with its message printed (parse_fail).
 * Everything written to stderr goes through note(), parse_fail() or fail_status(), which flush
 * stdout first, so `gpuctl ... 2>&1` keeps the order in which things happened (the progress
 * line of a long command on a terminal aside: note() erases it first). main flushes stdout
 * after each command, so that a pipe gets each command's output as it ends.
 */
#ifndef GPUREF_TOOLS_GPUCTL_H
#define GPUREF_TOOLS_GPUCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpuref/gr_alloc.h"
#include "gpuref/gr_device.h"
#include "gpuref/gr_regdesc.h"
#include "gpuref/gr_submit.h"

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
    bool force; /* --force: register writes without the device's binding (bridge/PROTOCOL.md) */
} opts_t;

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
    gr_context_t ctx; /* the command path's GPU context (0: none yet, or lost in a TDR) */
} session_t;

/* One evict or resident command as parsed: the allocations it names, each once. */
typedef struct residency_req {
    bool evict; /* evict; else resident (make resident) */
    unsigned refs[MAX_COMMANDS];
    unsigned n;
    char text[200]; /* the command as typed */
} residency_req_t;

#define BENCH_MAX_SIZES 32

/* One copy, fill, read or bench command as parsed. */
typedef struct xfer_req {
    unsigned src_ref, dst_ref; /* @N (0: none) */
    uint64_t bytes;            /* 0: up to the end (read: 256 bytes, or the end with --sum) */
    uint64_t src_off, dst_off;
    uint32_t pattern;
    bool sum, cpu;             /* read */
    uint64_t sizes[BENCH_MAX_SIZES];
    unsigned nsizes, runs;
    char text[200];            /* the command as typed */
} xfer_req_t;

/* ---- gpuctl_out.c: output and parsing helpers ---- */

/* Whether parse_fail also prints a JSON error document (--json anywhere on the line). */
void set_json_errors(bool on);

/* Prints s as a JSON string, quoted and escaped. */
void json_str(const char *s);
/* Prints one error document: {"command","error","message"}. */
void json_error(const char *cmd, const char *error, const char *msg);

/* A line on stderr ("gpuctl: " and the text), after stdout is flushed. */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The progress line of a long command (copy, fill, read, bench, evict, resident, conformance):
 * on stderr, only when it is a terminal and without --json; drawn from 0.5 s on (what, the
 * seconds so far and progress_step's count), erased by progress_end and by any note(). */
void progress_begin(const opts_t *o, const char *what);
/* What is done so far: "DONE of TOTAL" (TOTAL 0: "DONE done"). */
void progress_step(unsigned done, unsigned total);
void progress_end(void);

/* "Did you mean": the candidate closest to word by edit distance (case ignored), if it is close
 * enough to be a slip. suggest_init, suggest_consider for each candidate, then suggest_text
 * ("; did you mean 'info'?", or "" when none is close). */
typedef struct suggest {
    const char *word;
    const char *best;
    unsigned dist;
} suggest_t;
void suggest_init(suggest_t *s, const char *word);
void suggest_consider(suggest_t *s, const char *candidate);
const char *suggest_text(const suggest_t *s, char *buf, size_t len);

/* Reports a failed command: stderr always, and a JSON line with --json
 * ({"command","error","message"}); rc 0 is a usage error. Returns exit_code. */
int fail_status(const opts_t *o, const char *cmd, int rc, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Reports a usage error found while parsing the line (cmd: the command whose words are wrong,
 * or "gpuctl" for the line itself): stderr, and with --json anywhere on the line a JSON error
 * document ({"command","error":"usage","message"}). Returns -1. */
int parse_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Bytes for people ("1 MiB", "239.98 MiB") into buf; returns buf. */
const char *fmt_size(uint64_t v, char *buf, size_t len);

/* A 32-bit value (0x allowed); 0 or -1. */
int parse_u32(const char *text, uint32_t *out);

/* A size with an optional K, M, G or T suffix, 1 byte (0 when zero_ok) to 1 TiB; 0 or -1. */
int parse_size_ex(const char *text, bool zero_ok, uint64_t *out);
/* What parse_size_ex accepts, for messages. */
#define SIZE_FORMS "1 byte to 1 TiB: 4096, 0x1000, 64K, 1M, 2G, 1T"

/* ---- gpuctl_help.c: the usage text, help for each command, --version ---- */

/* The whole usage text. */
void usage(FILE *f);
/* The help of one command (its synopsis, what it does, its options); -1 if none is named so.
 * f NULL: only whether a command has that name. */
int help_command(FILE *f, const char *name);
/* "gpuctl VERSION" and the commit this gpuctl was built from, when the build knew it; with json,
 * one document ({"command":"version","version","commit"}). */
void print_version(FILE *f, bool json);
/* Considers every command's name (those of help too) for "did you mean". */
void suggest_commands(suggest_t *s);

/* ---- gpuctl_regs.c: the register commands, on the device alone ---- */

/* REG of peek and poke as parsed: a register (by name or offset), or one field of it. */
typedef struct reg_ref {
    uint32_t offset;
    const gr_reg_desc_t *reg;     /* NULL: an offset the map has no register at */
    const gr_field_desc_t *field; /* REG.FIELD; NULL: the whole register */
} reg_ref_t;

/* REG (a name, an offset, or NAME.FIELD) of peek and poke; 0, or -1 (parse_fail called). */
int parse_reg(const char *cmd, const char *text, reg_ref_t *out);
/* VALUE of poke for that register or field (a field's value must fit its width); 0 or -1. */
int parse_reg_value(const reg_ref_t *r, const char *text, uint32_t *out);
int cmd_info(const opts_t *o, gr_device_t *dev);
/* PATTERN of regs: a part of a register's name (any case), or a glob ('DMA_*'); NULL: all. */
bool regs_pattern_matches(const char *pattern, const char *name);
/* PATTERN of regs names at least one register; 0, or -1 (parse_fail called, with a hint). */
int parse_regs_pattern(const char *pattern);
int cmd_regs(const opts_t *o, gr_device_t *dev, const char *pattern);
int cmd_peek(const opts_t *o, gr_device_t *dev, const reg_ref_t *r);
int cmd_poke(const opts_t *o, gr_device_t *dev, const reg_ref_t *r, uint32_t value);
int cmd_conformance(const opts_t *o, gr_device_t *dev);

/* ---- gpuctl_session.c: the session ---- */

/* Starts the adapter, gpuctl's process and its device on s->dev's link, once (cmd: the command
 * that needs it, for the error). */
int session_start(const opts_t *o, session_t *s, const char *cmd);
/* Closes the adapter (with everything made on it); s->dev stays open. */
void session_end(session_t *s);

/* ---- gpuctl_alloc.c: the allocation commands ---- */

int parse_alloc(int argc, char **argv, alloc_req_t *out);
/* HANDLE of free: @N into out_ref, or a handle value into out_value; 0 or -1. */
int parse_handle(const char *text, unsigned allocs_before, unsigned *out_ref, uint32_t *out_value);
/* Before the first command: the names ls and alloc print for FlagsWddm2 bits. */
void init_wddm2_names(void);
int cmd_alloc(const opts_t *o, session_t *s, const alloc_req_t *q);
int cmd_free(const opts_t *o, session_t *s, unsigned ref, gr_alloc_t value);
int cmd_ls(const opts_t *o, session_t *s);
/* evict|resident @N [@N...] (argv[0] names which); returns the words taken, or -1. */
int parse_residency(int argc, char **argv, unsigned allocs_before, residency_req_t *out);
/* gr_alloc_evict or gr_alloc_make_resident of the named allocations, as one call. */
int cmd_residency(const opts_t *o, session_t *s, const residency_req_t *q);

/* ---- gpuctl_submit.c: the command path ---- */

int parse_copy(int argc, char **argv, unsigned allocs_before, xfer_req_t *out);
int parse_fill(int argc, char **argv, unsigned allocs_before, xfer_req_t *out);
int parse_read(int argc, char **argv, unsigned allocs_before, xfer_req_t *out);
int parse_bench(int argc, char **argv, xfer_req_t *out);
int cmd_copy(const opts_t *o, session_t *s, const xfer_req_t *q);
int cmd_fill(const opts_t *o, session_t *s, const xfer_req_t *q);
int cmd_read(const opts_t *o, session_t *s, const xfer_req_t *q);
int cmd_bench(const opts_t *o, session_t *s, const xfer_req_t *q);
int cmd_timeline(const opts_t *o, session_t *s);

/* ---- gpuctl_trace.c: waveforms on sim:// ---- */

/* One trace command as parsed: trace on FILE, or trace off. */
typedef struct trace_req {
    bool on;
    const char *path; /* on: the waveform file (.vcd: VCD, else FST); points into argv */
} trace_req_t;

int parse_trace(int argc, char **argv, trace_req_t *out);
int cmd_trace(const opts_t *o, gr_device_t *dev, const trace_req_t *q);

/* gpuctl_tracediff.c: two transaction logs (?txlog=) compared by content; no device. Exit 0
 * the same, 1 different, 2 a file that cannot be read or is not a log. */
int cmd_tracediff(const opts_t *o, const char *path_a, const char *path_b);
/* Before the device closes: closes a waveform still open (trace on without off, sim://?trace=)
 * and prints where it is. Returns rc, or EXIT_DEVICE when rc was 0 and the file failed. */
int trace_finish(const opts_t *o, gr_device_t *dev, int rc);

#endif
