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

#include "gpuref/gr_device.h"
#include "gpuref/gr_regdesc.h"
#include "gr_conformance.h"
#include "gr_link.h"

enum exit_code {
    EXIT_OK = 0,
    EXIT_CHECKS_FAILED = 1, /* the command ran and found failures (conformance) */
    EXIT_USAGE = 2,         /* bad command line */
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
            "Commands run in order on one open device (with --json, one JSON document a line):\n"
            "  gpuctl -d sim:// poke SCRATCH 0xcafe peek SCRATCH\n"
            "\n"
            "Options:\n"
            "  -d, --device URI   device to open (default: $GR_DEVICE, else sim://)\n"
            "                     schemes: %s   e.g. sim://?seed=7&fst=wave.fst\n"
            "  -j, --json         machine-readable output on stdout\n"
            "      --any-map      open a device whose register map differs from this build\n"
            "  -h, --help         this text\n"
            "\n"
            "Exit status: 0 success, 1 checks failed, 2 usage error, 3 device or access error.\n",
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

typedef enum cmd_kind { CMD_INFO, CMD_REGS, CMD_PEEK, CMD_POKE, CMD_CONFORMANCE } cmd_kind_t;

typedef struct command {
    cmd_kind_t kind;
    uint32_t offset;
    uint32_t value;
} command_t;

/* Parses one command and its arguments; returns how many words it took, or -1. */
static int parse_command(int argc, char **argv, command_t *out)
{
    static const struct {
        const char *name;
        cmd_kind_t kind;
        int args;
    } table[] = {{"info", CMD_INFO, 0},
                 {"regs", CMD_REGS, 0},
                 {"peek", CMD_PEEK, 1},
                 {"poke", CMD_POKE, 2},
                 {"conformance", CMD_CONFORMANCE, 0}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(argv[0], table[i].name))
            continue;
        if (argc - 1 < table[i].args) {
            fprintf(stderr, "gpuctl: %s takes %d argument%s (try gpuctl --help)\n", argv[0],
                    table[i].args, table[i].args == 1 ? "" : "s");
            return -1;
        }
        command_t cmd = {.kind = table[i].kind};
        if (table[i].args >= 1 && parse_offset(argv[1], &cmd.offset))
            return -1;
        if (table[i].args == 2 && parse_u32(argv[2], &cmd.value)) {
            fprintf(stderr, "gpuctl: '%s' is not a 32-bit value\n", argv[2]);
            return -1;
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
    /* Several commands may follow one another on one device (each has a fixed argument
     * count): on sim:// the device lives only as long as the process. Check them all first. */
    command_t cmds[64];
    unsigned ncmds = 0;
    for (int i = optind; i < argc;) {
        if (ncmds == sizeof cmds / sizeof cmds[0]) {
            fprintf(stderr, "gpuctl: too many commands (at most %zu)\n", sizeof cmds / sizeof cmds[0]);
            return EXIT_USAGE;
        }
        command_t *cmd = &cmds[ncmds++];
        int rc = parse_command(argc - i, argv + i, cmd);
        if (rc < 0)
            return EXIT_USAGE;
        i += rc;
    }

    gr_device_t *dev = NULL;
    int rc = open_device(&o, &dev);
    if (rc)
        return rc;
    for (unsigned i = 0; i < ncmds && rc == EXIT_OK; i++) {
        const command_t *cmd = &cmds[i];
        switch (cmd->kind) {
        case CMD_INFO:
            rc = cmd_info(&o, dev);
            break;
        case CMD_REGS:
            rc = cmd_regs(&o, dev);
            break;
        case CMD_PEEK:
            rc = cmd_peek(&o, dev, cmd->offset);
            break;
        case CMD_POKE:
            rc = cmd_poke(&o, dev, cmd->offset, cmd->value);
            break;
        case CMD_CONFORMANCE:
            rc = cmd_conformance(&o, dev);
            break;
        }
    }
    gr_device_close(dev);
    return rc;
}
