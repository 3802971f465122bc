/*
 * gpuctl's register commands: info, regs, peek, poke and conformance. Each works on the open
 * gr_device_t alone (gr_device.h, the register map of gr_regdesc.h), never on the adapter.
 */
#include <stdbool.h>
#include <stdio.h>

#include "gpuctl.h"
#include "gpuref/gr_device.h"
#include "gpuref/gr_regdesc.h"
#include "gr_conformance.h"
#include "gr_link.h"

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

int cmd_info(const opts_t *o, gr_device_t *dev)
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

int cmd_regs(const opts_t *o, gr_device_t *dev)
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

int parse_offset(const char *text, uint32_t *out)
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

int cmd_peek(const opts_t *o, gr_device_t *dev, uint32_t off)
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

int cmd_poke(const opts_t *o, gr_device_t *dev, uint32_t off, uint32_t value)
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

int cmd_conformance(const opts_t *o, gr_device_t *dev)
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
