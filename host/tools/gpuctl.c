/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpuctl: command-line access to a gpuref device over any transport.
 * Run `gpuctl --help` for the commands; exit codes are listed there.
 *
 * This file: the command line (global options anywhere on it, each command's words, the whole
 * line checked before the device is opened) and the dispatch to the commands of gpuctl_regs.c,
 * gpuctl_alloc.c, gpuctl_submit.c and gpuctl_trace.c. It is the top of gpuctl: nothing calls
 * into it (the helpers the commands share are gpuctl_out.c's, the session gpuctl_session.c's).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"
#include "gpuref/gr_device.h"
#include "gr_link.h"

static int open_device(const opts_t *o, gr_device_t **out_dev)
{
    int rc = gr_device_open(o->uri, o->open_flags, out_dev);
    if (rc) {
        char msg[600];
        snprintf(msg, sizeof msg, "cannot open %s: %s", o->uri ? o->uri : "the default device", gr_last_error());
        if (o->json)
            json_error("open", gr_status_name(rc), msg);
        note("%s", msg);
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
    reg_ref_t reg;     /* peek, poke */
    uint32_t value;    /* poke */
    unsigned ref;      /* free @ref */
    alloc_req_t alloc; /* alloc */
    residency_req_t res; /* evict, resident */
    xfer_req_t xfer;   /* copy, fill, read, bench */
    trace_req_t trace; /* trace */
    const char *pattern; /* regs PATTERN (NULL: every register) */
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
        if (cmd.kind == CMD_REGS && argc > 1 && argv[1][0] != '-' && help_command(NULL, argv[1]) != 0) {
            /* regs PATTERN: a word that is no command's name. */
            if (parse_regs_pattern(argv[1]))
                return -1;
            cmd.pattern = argv[1];
            *out = cmd;
            return 2;
        }
        if (argc - 1 < table[i].args)
            return parse_fail(argv[0], "%s takes %d argument%s (try gpuctl help %s)", argv[0], table[i].args,
                              table[i].args == 1 ? "" : "s", argv[0]);
        if (cmd.kind == CMD_FREE) {
            if (parse_handle(argv[1], allocs_before, &cmd.ref, &cmd.value))
                return -1;
        } else {
            if (table[i].args >= 1 && parse_reg(argv[0], argv[1], &cmd.reg))
                return -1;
            if (table[i].args == 2 && parse_reg_value(&cmd.reg, argv[2], &cmd.value))
                return -1;
        }
        *out = cmd;
        return 1 + table[i].args;
    }
    if (argv[0][0] == '-')
        return parse_fail("gpuctl", "unknown option '%s': the global options are -d, --json, --any-map, --force, --help "
                                    "and --version, and a command's own options follow it (gpuctl help COMMAND)",
                          argv[0]);
    if (!strcmp(argv[0], "help") || !strcmp(argv[0], "version") || !strcmp(argv[0], "tracediff"))
        return parse_fail("gpuctl", "%s stands alone on the line (gpuctl %s)", argv[0], argv[0]);
    suggest_t s;
    char hint[96];
    suggest_init(&s, argv[0]);
    suggest_commands(&s);
    return parse_fail("gpuctl", "unknown command '%s'%s (try gpuctl help)", argv[0], suggest_text(&s, hint, sizeof hint));
}

/* What the progress line of a long command says (NULL: not a long one). */
static const char *long_text(const command_t *c)
{
    switch (c->kind) {
    case CMD_COPY:
    case CMD_FILL:
    case CMD_READ:
    case CMD_BENCH:
        return c->xfer.text;
    case CMD_EVICT:
    case CMD_RESIDENT:
        return c->res.text;
    case CMD_CONFORMANCE:
        return "conformance";
    default:
        return NULL;
    }
}

/* The global options, taken out of the line wherever they stand; the words left are the
 * commands and their arguments. */
typedef struct line {
    char **words;
    int nwords;
    bool help, version;
    const char *help_for; /* --help after this command word: its help */
    char error[200];      /* the first error in the options ("" if none) */
} line_t;

static bool is_command_word(const char *w)
{
    return help_command(NULL, w) == 0;
}

/* Keeps the first error; the scan goes on, so that a --json after it still counts. */
static void line_error(line_t *l, const char *fmt, const char *arg)
{
    if (!l->error[0])
        snprintf(l->error, sizeof l->error, fmt, arg);
}

/* The value of -d/--device at argv[*i] ("-dURI", "--device=URI" or the next word). */
static const char *device_value(int argc, char **argv, int *i, const char *inline_value)
{
    if (inline_value)
        return inline_value;
    if (*i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static void split_line(int argc, char **argv, opts_t *o, line_t *l)
{
    bool dashdash = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (dashdash || a[0] != '-' || a[1] == '\0') {
            l->words[l->nwords++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--")) {
            dashdash = true;
        } else if (!strcmp(a, "--json")) {
            o->json = true;
        } else if (!strcmp(a, "--any-map")) {
            o->open_flags |= GR_OPEN_ANY_MAP;
        } else if (!strcmp(a, "--force")) {
            o->force = true;
        } else if (!strcmp(a, "--help")) {
            l->help = true;
        } else if (!strcmp(a, "--version")) {
            l->version = true;
        } else if (!strcmp(a, "--device") || !strncmp(a, "--device=", 9)) {
            if (!(o->uri = device_value(argc, argv, &i, a[8] == '=' ? a + 9 : NULL)))
                line_error(l, "%s takes a URI (e.g. -d sim://)", a);
        } else if (a[1] != '-' && strchr("djhV", a[1])) {
            /* Short options, clustered as getopt has them: -jd URI, -dURI. */
            for (const char *c = a + 1; *c; c++) {
                if (*c == 'j') {
                    o->json = true;
                } else if (*c == 'h') {
                    l->help = true;
                } else if (*c == 'V') {
                    l->version = true;
                } else if (*c == 'd') {
                    if (!(o->uri = device_value(argc, argv, &i, c[1] ? c + 1 : NULL)))
                        line_error(l, "%s takes a URI (e.g. -d sim://)", a);
                    break;
                } else {
                    line_error(l, "unknown option in '%s' (-d URI, -j, -h, -V; try gpuctl --help)", a);
                    break;
                }
            }
        } else if (l->nwords == 0) {
            /* Before any command, only the global options exist. */
            line_error(l, "unknown option '%s' (try gpuctl --help)", a);
        } else {
            l->words[l->nwords++] = argv[i]; /* an option of the command before it */
            continue;
        }
        if (l->help && !l->help_for) {
            /* --help belongs to the nearest command word before it, if any. */
            for (int w = l->nwords - 1; w >= 0 && !l->help_for; w--)
                if (is_command_word(l->words[w]))
                    l->help_for = l->words[w];
        }
    }
}

int main(int argc, char **argv)
{
    opts_t o = {0};
    static char *words[4096];
    line_t line = {.words = words};
    if (argc > (int)(sizeof words / sizeof words[0])) {
        note("too many words on the line (at most %zu)", sizeof words / sizeof words[0]);
        return EXIT_USAGE;
    }
    split_line(argc, argv, &o, &line);
    set_json_errors(o.json); /* --json anywhere makes the line's own errors JSON too */
    if (line.error[0])
        return parse_fail("gpuctl", "%s", line.error), EXIT_USAGE;
    if (line.version) {
        print_version(stdout, o.json);
        return EXIT_OK;
    }
    if (line.help) {
        /* gpuctl --help peek: as git --help log, the command's help. */
        if (!line.help_for && line.nwords && is_command_word(line.words[0]))
            line.help_for = line.words[0];
        if (line.help_for)
            help_command(stdout, line.help_for);
        else
            usage(stdout);
        return EXIT_OK;
    }
    if (line.nwords == 0) {
        usage(stderr);
        return parse_fail("gpuctl", "no command given (try gpuctl help)"), EXIT_USAGE;
    }
    if (!strcmp(line.words[0], "tracediff")) {
        if (line.nwords != 3)
            return parse_fail("tracediff", "tracediff takes two transaction logs (gpuctl tracediff A B), not %d words",
                              line.nwords - 1), EXIT_USAGE;
        return cmd_tracediff(&o, line.words[1], line.words[2]);
    }
    if (!strcmp(line.words[0], "version")) {
        if (line.nwords > 1)
            return parse_fail("version", "version takes nothing after it, not '%s'", line.words[1]), EXIT_USAGE;
        print_version(stdout, o.json);
        return EXIT_OK;
    }
    if (!strcmp(line.words[0], "help")) {
        if (line.nwords == 1) {
            usage(stdout);
            return EXIT_OK;
        }
        if (line.nwords > 2)
            return parse_fail("help", "help takes one command, not %d words", line.nwords - 1), EXIT_USAGE;
        if (help_command(stdout, line.words[1]))
            return parse_fail("help", "no command named '%s' (gpuctl help lists them)", line.words[1]), EXIT_USAGE;
        return EXIT_OK;
    }
    /* Several commands may follow one another on one device: on sim:// the device lives only
     * as long as the process. All are checked before the device is opened. */
    static command_t cmds[MAX_COMMANDS];
    unsigned ncmds = 0, allocs = 0;
    bool alloc_side = false;
    for (int i = 0; i < line.nwords;) {
        if (ncmds == MAX_COMMANDS)
            return parse_fail("gpuctl", "too many commands (at most %d)", MAX_COMMANDS), EXIT_USAGE;
        command_t *cmd = &cmds[ncmds++];
        int rc = parse_command(line.nwords - i, line.words + i, allocs, cmd);
        if (rc < 0)
            return EXIT_USAGE;
        i += rc;
        allocs += cmd->kind == CMD_ALLOC;
        if (cmd->kind == CMD_CONFORMANCE && alloc_side) {
            /* Its soft reset would pull the MMU and the VPR out from under the allocations. */
            return parse_fail("conformance", "conformance resets the device: run it before alloc, free, ls and "
                                             "the command-path commands"),
                   EXIT_USAGE;
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
        const char *long_op = long_text(cmd);
        if (long_op)
            progress_begin(&o, long_op);
        switch (cmd->kind) {
        case CMD_INFO:
            rc = cmd_info(&o, s.dev);
            break;
        case CMD_REGS:
            rc = cmd_regs(&o, s.dev, cmd->pattern);
            break;
        case CMD_PEEK:
            rc = cmd_peek(&o, s.dev, &cmd->reg);
            break;
        case CMD_POKE:
            rc = cmd_poke(&o, s.dev, &cmd->reg, cmd->value);
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
        if (long_op)
            progress_end();
        /* Each command's output as it ends, into a pipe as on a terminal (stdio would hold
         * a pipe's until the buffer fills or gpuctl exits). */
        fflush(stdout);
    }
    session_end(&s);
    rc = trace_finish(&o, s.dev, rc);
    gr_device_close(s.dev);
    fflush(stdout);
    return rc;
}
