/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpuctl's register commands: info, regs, peek, poke and conformance. Each works on the open
 * gr_device_t alone (gr_device.h, the register map of gr_regdesc.h), never on the adapter.
 *
 * JSON: a number that is register content or a BAR0 offset comes twice, KEY as a number and
 * KEY_hex as the text output spells it: register values "0x47505552", field values "0x1",
 * offsets "0x020"; an object of field values ("fields") has its "fields_hex" twin.
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gpuctl.h"
#include "gpuref/gr_device.h"
#include "gpuref/gr_regdesc.h"
#include "gr_conformance.h"
#include "gr_link.h"
#include "gpuctl_build.h"

static int fail_access(const opts_t *o, const char *cmd, const char *what, uint32_t off, int rc)
{
    char msg[560];
    snprintf(msg, sizeof msg, "%s 0x%04x: %s", what, off, gr_strerror(rc));
    /* A refusal says who holds the device (a broker's words, or the device's owner): poke
     * clears the thread's detail before its write (reads are never refused), so any detail is
     * this refusal's. */
    if (rc == GR_E_BUSY && gr_link_has_error())
        snprintf(msg + strlen(msg), sizeof msg - strlen(msg), ": %s", gr_last_error());
    if (o->json) {
        printf("{\"command\":");
        json_str(cmd);
        printf(",\"error\":");
        json_str(gr_status_name(rc));
        printf(",\"message\":");
        json_str(msg);
        printf(",\"offset\":%u,\"offset_hex\":\"0x%03x\"}\n", off, off);
    }
    note("%s (%s)", msg, gr_status_name(rc));
    return EXIT_DEVICE;
}

/* The widest register and field names of the map, so that columns line up. */
static int name_width(bool fields)
{
    size_t w = 0;
    for (unsigned i = 0; i < gr_regdesc_count; i++) {
        const gr_reg_desc_t *reg = &gr_regdesc[i];
        if (!fields && strlen(reg->name) > w)
            w = strlen(reg->name);
        for (unsigned f = 0; fields && f < reg->field_count; f++)
            if (strlen(reg->fields[f].name) > w)
                w = strlen(reg->fields[f].name);
    }
    return (int)w;
}

#define LLU(v) ((unsigned long long)(v))

/* The link's state and counters, whole (gr_link_stats_t). */
static void print_link(const gr_link_stats_t *s)
{
    if (!s->framed) {
        printf("link        %s:// is not a framed link: no frames, CRCs or replays to count (%s)\n", s->scheme,
               !strcmp(s->scheme, "sim") ? "the RTL runs in this process" : "the device is on a bus");
        return;
    }
    if (!s->up) {
        printf("link        %s://, down now (no HELLO since the last reset)\n", s->scheme);
    } else {
        printf("link        %s://, up, %s link, protocol %u.%u, MaxPayload %u words, RxWindow %u frames, DmaTags %u, "
               "core %u Hz\n",
               s->scheme, s->kind, s->proto_major, s->proto_minor, s->max_payload, s->rx_window, s->dma_tags,
               s->core_hz);
    }
    printf("  frames    sent %llu (%llu bytes), received %llu (%llu bytes), keep-alives %llu\n", LLU(s->tx_frames),
           LLU(s->tx_bytes), LLU(s->rx_frames), LLU(s->rx_bytes), LLU(s->keepalives));
    printf("  errors    crc %llu, NAKs sent %llu, NAKs received %llu, retransmissions %llu, replay timeouts %llu,\n"
           "            duplicates %llu, out of order %llu, call timeouts %llu, late answers %llu\n",
           LLU(s->crc_errors), LLU(s->naks_sent), LLU(s->naks_received), LLU(s->retransmissions),
           LLU(s->replay_timeouts), LLU(s->duplicates), LLU(s->out_of_order), LLU(s->timeouts),
           LLU(s->late_answers));
    printf("  state     link resets %llu, link downs %llu, round trips %llu, requests %llu, posted writes %llu\n",
           LLU(s->link_resets), LLU(s->link_downs), LLU(s->round_trips), LLU(s->requests), LLU(s->posted_writes));
    printf("  dma       reads %llu, writes %llu, refused %llu, bytes %llu; interrupts %llu\n", LLU(s->dma_reads),
           LLU(s->dma_writes), LLU(s->dma_errors), LLU(s->dma_bytes), LLU(s->irqs));
}

int cmd_info(const opts_t *o, gr_device_t *dev)
{
    gr_device_info_t info;
    int rc = gr_device_info(dev, &info);
    if (rc)
        return fail_access(o, "info", "reading the header at", 0, rc);
    const gr_reg_desc_t *caps = gr_regdesc_find("ID_CAPS");
    uint32_t date_v;
    rc = gr_reg_read(dev, GR_REG_ID_DATE, &date_v);
    if (rc)
        return fail_access(o, "info", "reading ID_DATE at", GR_REG_ID_DATE, rc);
    const char *bname, *bdesc;
    char date[32];
    gpuctl_board_of(info.board, &bname, &bdesc);
    gpuctl_date_of(date_v, date, sizeof date);
    gr_link_stats_t ls;
    rc = gr_device_link_stats(dev, &ls);
    if (rc)
        return fail_status(o, "info", rc, EXIT_DEVICE, "info: the link's counters");
    if (o->json) {
        printf("{\"command\":\"info\",\"magic\":%u,\"magic_hex\":\"0x%08x\",\"version\":\"%u.%u.%u\","
               "\"regmap_hash\":%u,\"regmap_hash_hex\":\"0x%08x\",\"regmap_matches\":%s,\"board\":%u,"
               "\"board_hex\":\"0x%02x\",\"board_name\":",
               info.magic, info.magic, info.version_major, info.version_minor, info.version_patch,
               info.regmap_hash, info.regmap_hash, info.regmap_matches ? "true" : "false", info.board, info.board);
        json_str(bname);
        printf(",\"build_stamp\":%u,\"build_stamp_hex\":\"0x%06x\",\"build_date\":%u,\"build_date_hex\":"
               "\"0x%08x\",\"build_date_text\":",
               info.build_stamp, info.build_stamp, date_v, date_v);
        json_str(date);
        printf(",\"transport\":");
        json_str(info.transport);
        printf(",\"caps_value\":%u,\"caps_value_hex\":\"0x%08x\",\"caps\":{", info.caps, info.caps);
        for (unsigned i = 0; i < caps->field_count; i++) {
            printf("%s", i ? "," : "");
            json_str(caps->fields[i].name);
            printf(":%s", (info.caps & gr_field_mask(&caps->fields[i])) ? "true" : "false");
        }
        printf("},\"link\":{\"scheme\":");
        json_str(ls.scheme);
        printf(",\"framed\":%s,\"up\":%s,\"kind\":", ls.framed ? "true" : "false", ls.up ? "true" : "false");
        json_str(ls.kind);
        printf(",\"protocol\":\"%u.%u\",\"max_payload\":%u,\"rx_window\":%u,\"dma_tags\":%u,\"core_hz\":%u",
               ls.proto_major, ls.proto_minor, ls.max_payload, ls.rx_window, ls.dma_tags, ls.core_hz);
        const struct {
            const char *name;
            uint64_t v;
        } n[] = {{"tx_frames", ls.tx_frames},       {"rx_frames", ls.rx_frames},
                 {"tx_bytes", ls.tx_bytes},         {"rx_bytes", ls.rx_bytes},
                 {"crc_errors", ls.crc_errors},     {"naks_sent", ls.naks_sent},
                 {"naks_received", ls.naks_received}, {"retransmissions", ls.retransmissions},
                 {"replay_timeouts", ls.replay_timeouts}, {"duplicates", ls.duplicates},
                 {"out_of_order", ls.out_of_order}, {"keepalives", ls.keepalives},
                 {"timeouts", ls.timeouts},         {"late_answers", ls.late_answers},
                 {"link_resets", ls.link_resets},   {"link_downs", ls.link_downs},
                 {"round_trips", ls.round_trips},   {"requests", ls.requests},
                 {"posted_writes", ls.posted_writes}, {"dma_reads", ls.dma_reads},
                 {"dma_writes", ls.dma_writes},     {"dma_errors", ls.dma_errors},
                 {"dma_bytes", ls.dma_bytes},       {"irqs", ls.irqs}};
        for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
            printf(",\"%s\":%llu", n[i].name, (unsigned long long)n[i].v);
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
    printf("build       board 0x%02x %s (%s), stamp 0x%06x, date %s\n", info.board, bname, bdesc,
           info.build_stamp, date);
    printf("caps        0x%08x:", info.caps);
    for (unsigned i = 0; i < caps->field_count; i++)
        printf(" %s=%s", caps->fields[i].name,
               (info.caps & gr_field_mask(&caps->fields[i])) ? "yes" : "no");
    printf("\n");
    print_link(&ls);
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
        printf("    %-*s %-8s %-5s = 0x%x\n", name_width(true), fd->name, bits, gr_access_name(fd->access), fv);
    }
}

static void json_reg(const char *cmd, const gr_reg_desc_t *reg, uint32_t off, uint32_t v)
{
    printf("{");
    if (cmd)
        printf("\"command\":\"%s\",", cmd);
    printf("\"offset\":%u,\"offset_hex\":\"0x%03x\",\"value\":%u,\"value_hex\":\"0x%08x\"", off, off, v, v);
    if (reg) {
        printf(",\"name\":");
        json_str(reg->name);
        for (int hex = 0; hex < 2; hex++) {
            printf(hex ? ",\"fields_hex\":{" : ",\"fields\":{");
            for (unsigned f = 0; f < reg->field_count; f++) {
                const uint32_t fv = (v & gr_field_mask(&reg->fields[f])) >> reg->fields[f].lsb;
                printf("%s", f ? "," : "");
                json_str(reg->fields[f].name);
                printf(hex ? ":\"0x%x\"" : ":%u", fv);
            }
            printf("}");
        }
    }
    printf("}");
}

bool regs_pattern_matches(const char *pattern, const char *name)
{
    if (!pattern)
        return true;
    if (strpbrk(pattern, "*?["))
        return fnmatch(pattern, name, FNM_CASEFOLD) == 0;
    for (const char *h = name; *h; h++)
        if (!strncasecmp(h, pattern, strlen(pattern)))
            return true;
    return false;
}

int parse_regs_pattern(const char *pattern)
{
    for (unsigned i = 0; i < gr_regdesc_count; i++)
        if (regs_pattern_matches(pattern, gr_regdesc[i].name))
            return 0;
    suggest_t s;
    char hint[96];
    suggest_init(&s, pattern);
    for (unsigned i = 0; i < gr_regdesc_count; i++)
        suggest_consider(&s, gr_regdesc[i].name);
    return parse_fail("regs", "regs: no register name contains '%s'%s (a part of a name, any case, or a glob: "
                              "DMA, 'DMA_*')",
                      pattern, suggest_text(&s, hint, sizeof hint));
}

int cmd_regs(const opts_t *o, gr_device_t *dev, const char *pattern)
{
    /* Everything is read before anything is printed: a failure leaves no half document. */
    static uint32_t v[512];
    if (gr_regdesc_count > sizeof v / sizeof v[0])
        return fail_status(o, "regs", GR_E_RANGE, EXIT_DEVICE, "regs: the map has more registers than gpuctl shows");
    for (unsigned i = 0; i < gr_regdesc_count; i++) {
        if (!regs_pattern_matches(pattern, gr_regdesc[i].name))
            continue;
        int rc = gr_reg_read(dev, gr_regdesc[i].offset, &v[i]);
        if (rc)
            return fail_access(o, "regs", "reading", gr_regdesc[i].offset, rc);
    }
    if (o->json) {
        printf("{\"command\":\"regs\",");
        if (pattern) {
            printf("\"pattern\":");
            json_str(pattern);
            printf(",");
        }
        printf("\"registers\":[");
    }
    bool first = true;
    for (unsigned i = 0; i < gr_regdesc_count; i++) {
        const gr_reg_desc_t *reg = &gr_regdesc[i];
        if (!regs_pattern_matches(pattern, reg->name))
            continue;
        if (o->json) {
            printf("%s", first ? "" : ",");
            first = false;
            json_reg(NULL, reg, reg->offset, v[i]);
            continue;
        }
        printf("0x%03x %-*s 0x%08x  %s\n", reg->offset, name_width(false), reg->name, v[i], reg->title);
        print_fields(reg, v[i]);
    }
    if (o->json)
        printf("]}\n");
    return EXIT_OK;
}

/* "; did you mean 'SCRATCH'?" for a register name that is a slip of one, else "". */
static const char *reg_hint(const char *name, char *buf, size_t len)
{
    suggest_t s;
    suggest_init(&s, name);
    for (unsigned i = 0; i < gr_regdesc_count; i++)
        suggest_consider(&s, gr_regdesc[i].name);
    return suggest_text(&s, buf, len);
}

int parse_reg(const char *cmd, const char *text, reg_ref_t *out)
{
    reg_ref_t r = {0};
    char name[64];
    const char *dot = strchr(text, '.');
    if (dot) {
        /* NAME.FIELD: the map's register, then one of its fields. */
        if ((size_t)(dot - text) >= sizeof name || dot == text)
            return parse_fail(cmd, "%s: '%s' is not REG.FIELD (e.g. DMA_STATUS.IDLE)", cmd, text);
        memcpy(name, text, (size_t)(dot - text));
        name[dot - text] = '\0';
        if (!(r.reg = gr_regdesc_find(name))) {
            char hint[96];
            return parse_fail(cmd, "%s: no register named '%s'%s (see gpuctl regs)", cmd, name,
                              reg_hint(name, hint, sizeof hint));
        }
        if (!(r.field = gr_regdesc_field(r.reg, dot + 1))) {
            char list[256];
            size_t used = 0;
            list[0] = '\0';
            for (unsigned f = 0; f < r.reg->field_count && used < sizeof list; f++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", f ? ", " : "",
                                         r.reg->fields[f].name);
            suggest_t s;
            char hint[96];
            suggest_init(&s, dot + 1);
            for (unsigned f = 0; f < r.reg->field_count; f++)
                suggest_consider(&s, r.reg->fields[f].name);
            return parse_fail(cmd, "%s: %s has no field named '%s'%s (its fields: %s)", cmd, r.reg->name, dot + 1,
                              suggest_text(&s, hint, sizeof hint), list);
        }
        r.offset = r.reg->offset;
        *out = r;
        return 0;
    }
    int rc = gr_regdesc_parse_offset(text, &r.offset);
    if (rc == GR_E_NOT_FOUND) {
        char hint[96];
        return parse_fail(cmd, "%s: no register named '%s'%s (see gpuctl regs)", cmd, text,
                          reg_hint(text, hint, sizeof hint));
    }
    if (rc == GR_E_RANGE)
        return parse_fail(cmd, "%s: offset %s is past BAR0 (0x0 to 0x%x)", cmd, text, GR_REGMAP_BAR0_BYTES - 4);
    if (rc == GR_E_ALIGN)
        return parse_fail(cmd, "%s: offset %s is not 32-bit aligned (a multiple of 4)", cmd, text);
    if (rc)
        return parse_fail(cmd, "%s: '%s' is neither a register name nor an offset", cmd, text);
    r.reg = gr_regdesc_at(r.offset);
    *out = r;
    return 0;
}

int parse_reg_value(const reg_ref_t *r, const char *text, uint32_t *out)
{
    uint32_t v = 0;
    if (parse_u32(text, &v))
        return parse_fail("poke", "poke: '%s' is not a 32-bit value (0 to 0xffffffff)", text);
    if (r->field && r->field->width < 32 && v >> r->field->width)
        return parse_fail("poke", "poke: %s.%s is %u bit%s wide: '%s' is out of range (0 to 0x%x)", r->reg->name,
                          r->field->name, r->field->width, r->field->width == 1 ? "" : "s", text,
                          (1u << r->field->width) - 1u);
    *out = v;
    return 0;
}

/* "NAME.FIELD", "NAME" or "(hole)". */
static const char *reg_label(const reg_ref_t *r, char *buf, size_t len)
{
    if (r->field)
        snprintf(buf, len, "%s.%s", r->reg->name, r->field->name);
    else
        snprintf(buf, len, "%s", r->reg ? r->reg->name : "(hole)");
    return buf;
}

int cmd_peek(const opts_t *o, gr_device_t *dev, const reg_ref_t *r)
{
    uint32_t v;
    int rc = gr_reg_read(dev, r->offset, &v);
    if (rc)
        return fail_access(o, "peek", "read of", r->offset, rc);
    if (r->field) {
        const uint32_t fv = (v & gr_field_mask(r->field)) >> r->field->lsb;
        if (o->json) {
            printf("{\"command\":\"peek\",\"offset\":%u,\"offset_hex\":\"0x%03x\",\"name\":", r->offset, r->offset);
            json_str(r->reg->name);
            printf(",\"field\":");
            json_str(r->field->name);
            printf(",\"value\":%u,\"value_hex\":\"0x%x\",\"register\":%u,\"register_hex\":\"0x%08x\"}\n", fv, fv,
                   v, v);
        } else {
            char label[80];
            printf("0x%03x %-*s 0x%x\n", r->offset, name_width(false), reg_label(r, label, sizeof label), fv);
        }
        return EXIT_OK;
    }
    if (o->json) {
        json_reg("peek", r->reg, r->offset, v);
        printf("\n");
        return EXIT_OK;
    }
    printf("0x%03x %-*s 0x%08x\n", r->offset, name_width(false), r->reg ? r->reg->name : "(hole)", v);
    if (r->reg)
        print_fields(r->reg, v);
    return EXIT_OK;
}

/* Bits whose read-back shows whether a write stuck: read-write storage, and read-only bits (a
 * write cannot change them, so a value that differs did not stick). w1c, pulse and w1s bits
 * read otherwise by design, and a volatile field changes by itself. */
static uint32_t stick_mask(const gr_reg_desc_t *reg)
{
    if (!reg)
        return 0xffffffffu;
    uint32_t m = 0;
    for (unsigned f = 0; f < reg->field_count; f++) {
        const gr_field_desc_t *fd = &reg->fields[f];
        if ((fd->access == GR_ACCESS_RW || fd->access == GR_ACCESS_CONST || fd->access == GR_ACCESS_HW_RO) &&
            !(fd->flags & GR_FIELD_VOLATILE))
            m |= gr_field_mask(fd);
    }
    return m;
}

/* Register writes and resets need the device's binding (bridge/PROTOCOL.md, "Binding"): a
 * driver stack that owns the device would lose its memory or its work to them; --force writes
 * anyway, and says so. */
static int take_binding(const opts_t *o, gr_device_t *dev, const char *cmd)
{
    char owner[64];
    int rc = gr_link_bind(gr_device_link(dev), o->force ? GR_LINK_BIND_FORCE : GR_LINK_BIND_TAKE, owner, sizeof owner);
    if (rc == GR_E_BUSY)
        return fail_status(o, cmd, rc, EXIT_DEVICE,
                           "%s: another driver stack owns the device (%s): a register write or reset could "
                           "overwrite its memory or reset its work; --force writes anyway",
                           cmd, owner[0] ? owner : "owner unknown");
    if (rc)
        return fail_status(o, cmd, rc, EXIT_DEVICE, "%s: cannot bind the device: %s", cmd, gr_last_error());
    if (o->force)
        note("%s: --force: writing without the device's binding; a driver stack that owns it may lose "
                "its memory or its work", cmd);
    return EXIT_OK;
}

int cmd_poke(const opts_t *o, gr_device_t *dev, const reg_ref_t *r, uint32_t value)
{
    uint32_t word = value, mask = 0xffffffffu;
    int rc = take_binding(o, dev, "poke");
    if (rc)
        return rc;
    if (r->field) {
        /* Read-modify-write: the other read-write fields keep their values; w1c, pulse and w1s
         * bits are written 0, so that the write clears, strobes or locks nothing else. */
        uint32_t old;
        if ((rc = gr_reg_read(dev, r->offset, &old)))
            return fail_access(o, "poke", "read of", r->offset, rc);
        mask = gr_field_mask(r->field);
        word = (old & gr_regdesc_mask_of(r->reg, GR_ACCESS_RW) & ~mask) | ((value << r->field->lsb) & mask);
    }
    gr_link_clear_error();
    if ((rc = gr_reg_write(dev, r->offset, word)))
        return fail_access(o, "poke", "write of", r->offset, rc);
    uint32_t back = 0;
    const uint32_t check = stick_mask(r->reg) & mask;
    if ((rc = gr_reg_read(dev, r->offset, &back)))
        return fail_access(o, "poke", "read-back of", r->offset, rc);
    char label[80], warning[200] = "";
    reg_label(r, label, sizeof label);
    if ((back & check) != (word & check)) {
        const bool ro = r->reg && !(gr_regdesc_mask_of(r->reg, GR_ACCESS_RW) & mask & check);
        if (r->field)
            snprintf(warning, sizeof warning, "poke %s: the write did not stick: reads back 0x%x, not 0x%x%s", label,
                     (back & mask) >> r->field->lsb, value, ro ? " (the field is read-only)" : "");
        else
            snprintf(warning, sizeof warning, "poke %s: the write did not stick: reads back 0x%08x, not 0x%08x%s",
                     label, back, word, ro ? " (the register is read-only)" : "");
    }
    if (o->json) {
        printf("{\"command\":\"poke\",\"offset\":%u,\"offset_hex\":\"0x%03x\",", r->offset, r->offset);
        if (r->reg) {
            printf("\"name\":");
            json_str(r->reg->name);
            printf(",");
        }
        if (r->field) {
            printf("\"field\":");
            json_str(r->field->name);
            printf(",\"value\":%u,\"value_hex\":\"0x%x\",", value, value);
        }
        printf("\"written\":%u,\"written_hex\":\"0x%08x\",\"read_back\":%u,\"read_back_hex\":\"0x%08x\"", word,
               word, back, back);
        if (warning[0]) {
            printf(",\"warning\":");
            json_str(warning);
        }
        printf("}\n");
    } else if (r->field) {
        printf("0x%03x %-*s <- 0x%x (register 0x%08x)\n", r->offset, name_width(false), label, value, word);
    } else {
        printf("0x%03x %-*s <- 0x%08x\n", r->offset, name_width(false), label, value);
    }
    if (warning[0])
        note("warning: %s", warning);
    return EXIT_OK;
}

typedef struct conf_out {
    const opts_t *o;
    bool first;
    unsigned checks;
} conf_out_t;

static void conf_emit(void *user, bool ok, const char *reg, const char *check, const char *detail)
{
    conf_out_t *c = user;
    progress_step(++c->checks, 0);
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
    fflush(stdout); /* each check as it ends: the suite takes minutes on a slow link */
}

int cmd_conformance(const opts_t *o, gr_device_t *dev)
{
    conf_out_t out = {.o = o, .first = true};
    gr_conf_result_t res;
    int brc = take_binding(o, dev, "conformance");
    if (brc)
        return brc;
    char transport[128];
    gr_link_describe(gr_device_link(dev), transport, sizeof transport);
    if (o->json)
        printf("{\"command\":\"conformance\",\"checks\":[");
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
