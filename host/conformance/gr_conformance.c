/* SPDX-License-Identifier: Apache-2.0 */
/* gr_conformance.c: register conformance checks over the generated register description. */
#include "gr_conformance.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuref/gr_regdesc.h"
#include "gr_link.h"
#include "gr_proto.h"

/* Generous for any link: a soft reset takes a handful of cycles on the RTL. */
#define RESET_TIMEOUT_US 1000u
/* Long enough for a registered interrupt line to follow its registers on any link. */
#define IRQ_SETTLE_US 2u

typedef struct run {
    gr_device_t *dev;
    gr_conf_emit_fn emit;
    void *user;
    gr_conf_result_t result;
    int fatal; /* a link error that makes further checks meaningless */
} run_t;

static void report(run_t *r, bool ok, const char *reg, const char *check, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void report(run_t *r, bool ok, const char *reg, const char *check, const char *fmt, ...)
{
    char detail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if (ok)
        r->result.passed++;
    else
        r->result.failed++;
    if (r->emit)
        r->emit(r->user, ok, reg, check, detail);
}

/* Link failures other than the bus errors a check expects end the run: they say nothing of
 * the register and everything of the link. */
static bool rd(run_t *r, const char *reg, uint32_t off, uint32_t *v)
{
    int rc = gr_reg_read(r->dev, off, v);
    if (rc) {
        report(r, false, reg, "read", "read of 0x%03x failed: %s", off, gr_strerror(rc));
        if (rc != GR_E_BUS)
            r->fatal = rc;
        return false;
    }
    return true;
}

static bool wr(run_t *r, const char *reg, uint32_t off, uint32_t v)
{
    int rc = gr_reg_write(r->dev, off, v);
    if (rc) {
        report(r, false, reg, "write", "write of 0x%08x to 0x%03x failed: %s", v, off,
               gr_strerror(rc));
        if (rc != GR_E_BUS)
            r->fatal = rc;
        return false;
    }
    return true;
}

/* Bits of fields carrying a flag (GR_FIELD_VOLATILE: never compared across reads;
 * GR_FIELD_ACTION: never written 1, the device would access memory). */
static uint32_t mask_flagged(const gr_reg_desc_t *reg, unsigned flag)
{
    uint32_t m = 0;
    for (unsigned i = 0; i < reg->field_count; i++)
        if (reg->fields[i].flags & flag)
            m |= gr_field_mask(&reg->fields[i]);
    return m;
}

static void check_soft_reset(run_t *r)
{
    int rc = gr_device_soft_reset(r->dev, RESET_TIMEOUT_US);
    report(r, rc == GR_OK, "RESET_CTRL", "soft reset completes with IRQ_STATE.RESET_DONE",
           "%s", rc ? gr_strerror(rc) : "RESET_DONE set, then cleared by W1C");
    if (rc && rc != GR_E_TIMEOUT)
        r->fatal = rc;
}

static void check_reset_value(run_t *r, const gr_reg_desc_t *reg)
{
    uint32_t v;
    if (!rd(r, reg->name, reg->offset, &v))
        return;
    /* Hardware-driven fields depend on the build, and fields a soft reset keeps (the VPR) on
     * what came before; everything else must be the map's value. */
    uint32_t known = gr_regdesc_mask(reg) & ~gr_regdesc_mask_of(reg, GR_ACCESS_HW_RO) &
                     ~gr_regdesc_mask_kept(reg);
    uint32_t reserved = ~gr_regdesc_mask(reg);
    uint32_t expect = gr_regdesc_reset(reg) & known;
    bool ok = (v & known) == expect && (v & reserved) == 0;
    report(r, ok, reg->name, "reset value", "read 0x%08x, expected 0x%08x (mask 0x%08x)", v,
           expect, known | reserved);
}

/* Read-only fields keep their value whatever is written over them (a free-running counter
 * is written over, but not compared). */
static void check_read_only(run_t *r, const gr_reg_desc_t *reg)
{
    uint32_t ro = gr_regdesc_mask_of(reg, GR_ACCESS_CONST) | gr_regdesc_mask_of(reg, GR_ACCESS_HW_RO);
    if (!ro)
        return;
    uint32_t same = ro & ~mask_flagged(reg, GR_FIELD_VOLATILE);
    uint32_t before, after;
    if (!rd(r, reg->name, reg->offset, &before))
        return;
    /* Only read-only registers get the inverse written whole: elsewhere it would fire strobes. */
    if (ro != gr_regdesc_mask(reg))
        return;
    if (!wr(r, reg->name, reg->offset, ~before) || !rd(r, reg->name, reg->offset, &after))
        return;
    report(r, (after & same) == (before & same), reg->name, "read-only fields ignore writes",
           "wrote 0x%08x over 0x%08x, read 0x%08x (compared 0x%08x)", ~before, before, after, same);
}

/* Whether reg is held by a VPR a driver locked: VPR_CTRL.LOCK (the miniport sets it once it
 * programmed the VPR) keeps VPR_BASE, VPR_LIMIT and VPR_CTRL.ENABLE until a hard reset. Only the
 * state a driver leaves counts (enabled over a range); a lock on a disabled or empty VPR leaves
 * the registers unusable, and the walk below reports them. */
static bool vpr_locked(run_t *r, const gr_reg_desc_t *reg)
{
    uint32_t ctrl, base, limit;
    if (reg->offset != GR_REG_VPR_BASE && reg->offset != GR_REG_VPR_LIMIT && reg->offset != GR_REG_VPR_CTRL)
        return false;
    return rd(r, "VPR_CTRL", GR_REG_VPR_CTRL, &ctrl) && rd(r, "VPR_BASE", GR_REG_VPR_BASE, &base) &&
           rd(r, "VPR_LIMIT", GR_REG_VPR_LIMIT, &limit) && GR_FIELD_GET(VPR_CTRL, LOCK, ctrl) &&
           GR_FIELD_GET(VPR_CTRL, ENABLE, ctrl) && limit > base;
}

/* A locked register's read-write bits ignore writes (the inverse is written, then the value). */
static void check_locked(run_t *r, const gr_reg_desc_t *reg, uint32_t rw)
{
    uint32_t before, after;
    if (!rd(r, reg->name, reg->offset, &before))
        return;
    const uint32_t w = (before ^ rw) & ~gr_regdesc_mask_of(reg, GR_ACCESS_W1S);
    if (!wr(r, reg->name, reg->offset, w) || !rd(r, reg->name, reg->offset, &after))
        return;
    report(r, after == before, reg->name, "locked (VPR_CTRL.LOCK): writes ignored",
           "wrote 0x%08x over 0x%08x, read 0x%08x", w, before, after);
    wr(r, reg->name, reg->offset, before & ~gr_regdesc_mask_of(reg, GR_ACCESS_W1S));
}

/* Walking ones through every read-write bit, then all ones (reserved bits must stay zero). */
static void check_read_write(run_t *r, const gr_reg_desc_t *reg)
{
    uint32_t rw = gr_regdesc_mask_of(reg, GR_ACCESS_RW);
    if (!rw)
        return;
    if (vpr_locked(r, reg)) {
        check_locked(r, reg, rw);
        return;
    }
    unsigned bad = 0, walked = 0;
    uint32_t first_w = 0, first_r = 0;
    for (unsigned bit = 0; bit < 32; bit++) {
        uint32_t w = 1u << bit;
        if (!(rw & w))
            continue;
        uint32_t v;
        if (!wr(r, reg->name, reg->offset, w) || !rd(r, reg->name, reg->offset, &v))
            return;
        walked++;
        if ((v & gr_regdesc_mask(reg)) != w && !bad++) {
            first_w = w;
            first_r = v;
        }
    }
    report(r, bad == 0, reg->name, "walking ones round-trip",
           bad ? "%u of %u bits wrong, first: wrote 0x%08x read 0x%08x" : "%u bits", bad ? bad : walked,
           walked, first_w, first_r);
    /* Sticky (W1S) bits are never written 1: a lock would hold until the next hard reset.
     * Nor are action strobes: a preemption would write the fence record. */
    uint32_t ones = ~gr_regdesc_mask_of(reg, GR_ACCESS_W1S) & ~mask_flagged(reg, GR_FIELD_ACTION);
    uint32_t v;
    if (!wr(r, reg->name, reg->offset, ones) || !rd(r, reg->name, reg->offset, &v))
        return;
    report(r, v == rw, reg->name, "all ones: read-write bits set, reserved bits zero",
           "read 0x%08x, expected 0x%08x", v, rw);
    if (!wr(r, reg->name, reg->offset, 0) || !rd(r, reg->name, reg->offset, &v))
        return;
    report(r, (v & rw) == 0, reg->name, "zeros round-trip", "read 0x%08x", v);
    wr(r, reg->name, reg->offset, gr_regdesc_reset(reg));
}

/* Strobe registers read zero whatever was written (RESET_CTRL is covered by the reset check). */
static void check_pulse(run_t *r, const gr_reg_desc_t *reg)
{
    uint32_t pulse = gr_regdesc_mask_of(reg, GR_ACCESS_PULSE);
    if (!pulse || reg->offset == GR_REG_RESET_CTRL)
        return;
    uint32_t zero = pulse | ~gr_regdesc_mask(reg);
    uint32_t v;
    if (!wr(r, reg->name, reg->offset,
            ~gr_regdesc_mask_of(reg, GR_ACCESS_W1S) & ~mask_flagged(reg, GR_FIELD_ACTION)) ||
        !rd(r, reg->name, reg->offset, &v))
        return;
    report(r, (v & zero) == 0, reg->name, "strobe fields and reserved bits read zero",
           "read 0x%08x (mask 0x%08x)", v, zero);
    wr(r, reg->name, reg->offset, gr_regdesc_reset(reg));
}

/* Sticky fields: writing 0 must not set them. Writing 1 is not tried: it holds until a hard
 * reset, and the suite must leave a board as it found it. */
static void check_sticky(run_t *r, const gr_reg_desc_t *reg)
{
    uint32_t w1s = gr_regdesc_mask_of(reg, GR_ACCESS_W1S);
    if (!w1s)
        return;
    uint32_t before, v;
    if (!rd(r, reg->name, reg->offset, &before) ||
        !wr(r, reg->name, reg->offset, before & ~w1s) || !rd(r, reg->name, reg->offset, &v))
        return;
    report(r, (v & w1s) == (before & w1s), reg->name, "writing 0 to sticky fields changes nothing",
           "read 0x%08x", v);
}

/* Write-1-to-clear fields: a 1 written over a clear bit must leave it clear (a W1C bit that
 * behaves as read-write would be set). Only clear bits get the 1: a set one would lose its
 * record (a fault's), and clearing is the interrupt check's to see. */
static void check_w1c(run_t *r, const gr_reg_desc_t *reg)
{
    uint32_t w1c = gr_regdesc_mask_of(reg, GR_ACCESS_W1C);
    if (!w1c)
        return;
    uint32_t before, v;
    if (!rd(r, reg->name, reg->offset, &before))
        return;
    uint32_t ones = w1c & ~before;
    if (!ones || !wr(r, reg->name, reg->offset, ones) || !rd(r, reg->name, reg->offset, &v))
        return;
    report(r, (v & ones) == 0, reg->name, "writing 1 to W1C bits leaves them clear",
           "wrote 0x%08x over 0x%08x, read 0x%08x", ones, before, v);
}

/*
 * The interrupt block: TEST sets STATE; writing 1 to a STATE bit clears that bit only; writing
 * 0 clears nothing; the line is high exactly when a set bit is enabled.
 */
static void check_irq(run_t *r)
{
    const gr_reg_desc_t *state = gr_regdesc_find("IRQ_STATE");
    const gr_reg_desc_t *enable = gr_regdesc_find("IRQ_ENABLE");
    const gr_reg_desc_t *test = gr_regdesc_find("IRQ_TEST");
    uint32_t src = gr_regdesc_mask_of(state, GR_ACCESS_W1C);
    uint32_t v;
    bool line;
    if (!wr(r, "IRQ_STATE", state->offset, 0xffffffffu) || !rd(r, "IRQ_STATE", state->offset, &v))
        return;
    report(r, v == 0, "IRQ_STATE", "clear all: reads zero, reserved bits zero", "read 0x%08x", v);

    if (!wr(r, "IRQ_TEST", test->offset, 0xffffffffu) || !rd(r, "IRQ_STATE", state->offset, &v))
        return;
    report(r, v == src, "IRQ_TEST", "TEST sets every STATE bit (and no reserved bit)",
           "read 0x%08x, expected 0x%08x", v, src);

    if (!wr(r, "IRQ_STATE", state->offset, 0) || !rd(r, "IRQ_STATE", state->offset, &v))
        return;
    report(r, v == src, "IRQ_STATE", "writing 0 clears nothing", "read 0x%08x", v);

    if (gr_device_wait_irq(r->dev, IRQ_SETTLE_US, &line) == GR_OK)
        report(r, !line, "IRQ_ENABLE", "line low while STATE is set but not enabled",
               "irq %s", line ? "high" : "low");

    for (unsigned bit = 0; bit < 32; bit++) {
        uint32_t b = 1u << bit;
        if (!(src & b))
            continue;
        char name[64];
        snprintf(name, sizeof name, "enable bit %u raises the line", bit);
        if (!wr(r, "IRQ_ENABLE", enable->offset, b))
            return;
        int rc = gr_device_wait_irq(r->dev, IRQ_SETTLE_US, &line);
        report(r, rc == GR_OK && line, "IRQ_ENABLE", name, "irq %s", line ? "high" : "low");
        if (!wr(r, "IRQ_STATE", state->offset, b) || !rd(r, "IRQ_STATE", state->offset, &v))
            return;
        snprintf(name, sizeof name, "W1C of bit %u clears only that bit", bit);
        report(r, v == (src & ~b), "IRQ_STATE", name, "read 0x%08x, expected 0x%08x", v, src & ~b);
        rc = gr_device_wait_irq(r->dev, IRQ_SETTLE_US, &line);
        snprintf(name, sizeof name, "line falls when bit %u is cleared", bit);
        report(r, rc == GR_OK && !line, "IRQ_STATE", name, "irq %s", line ? "high" : "low");
        /* Put the other bits back for the next round. */
        if (!wr(r, "IRQ_TEST", test->offset, src))
            return;
    }
    wr(r, "IRQ_ENABLE", enable->offset, 0);
    wr(r, "IRQ_STATE", state->offset, src);
}

/* Every unmapped word up to just past the last register, and the last word of BAR0. */
static unsigned list_holes(uint32_t *holes, unsigned cap)
{
    uint32_t top = 0;
    for (unsigned i = 0; i < gr_regdesc_count; i++)
        top = gr_regdesc[i].offset > top ? gr_regdesc[i].offset : top;
    unsigned n = 0;
    for (uint32_t off = 0; off <= top + 4u && n < cap; off += 4u)
        if (!gr_regdesc_at(off))
            holes[n++] = off;
    if (n < cap && !gr_regdesc_at(GR_REGMAP_BAR0_BYTES - 4u))
        holes[n++] = GR_REGMAP_BAR0_BYTES - 4u;
    return n;
}

/* Holes answer with a bus error and writes into them change no register. */
static void check_holes(run_t *r)
{
    uint32_t holes[256], before[256], after[256];
    unsigned holes_n = list_holes(holes, 256);
    unsigned n = gr_regdesc_count < 256 ? gr_regdesc_count : 256;
    for (unsigned i = 0; i < n; i++)
        if (!rd(r, gr_regdesc[i].name, gr_regdesc[i].offset, &before[i]))
            return;
    unsigned read_bad = 0, write_bad = 0;
    /* Where a read's error reaches the caller only as the root complex's all ones (PCIe from
     * user space), that is what a hole must answer. */
    const bool ones = (gr_link_caps(gr_device_link(r->dev)) & GR_LINK_CAP_READ_ERRORS_ALL_ONES) != 0;
    for (unsigned h = 0; h < holes_n; h++) {
        uint32_t v = 0;
        const int rc = gr_reg_read(r->dev, holes[h], &v);
        read_bad += ones ? rc != GR_OK || v != 0xffffffffu : rc != GR_E_BUS;
        write_bad += gr_reg_write(r->dev, holes[h], 0xffffffffu) != GR_E_BUS;
    }
    report(r, read_bad == 0, "", ones ? "reads of holes answer all ones (a bus error, as the link shows it)"
                                      : "reads of holes answer a bus error",
           "%u holes (0x%03x..0x%04x), %u answered otherwise", holes_n, holes[0],
           holes[holes_n - 1], read_bad);
    /* A link whose writes are posted for good (PCIe) never hears a write's error: the check
     * cannot be made there; that the writes changed nothing still is, below. */
    if (!(gr_link_caps(gr_device_link(r->dev)) & GR_LINK_CAP_POSTED_WRITES))
        report(r, write_bad == 0, "", "writes to holes answer a bus error", "%u answered otherwise",
               write_bad);
    unsigned changed = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!rd(r, gr_regdesc[i].name, gr_regdesc[i].offset, &after[i]))
            return;
        uint32_t same = ~mask_flagged(&gr_regdesc[i], GR_FIELD_VOLATILE);
        changed += (after[i] & same) != (before[i] & same);
    }
    report(r, changed == 0, "", "writes to holes change no register", "%u registers changed",
           changed);
}

int gr_conformance_run(gr_device_t *dev, gr_conf_emit_fn emit, void *user,
                       gr_conf_result_t *out_result)
{
    if (!dev || !out_result)
        return GR_E_INVALID;
    run_t r = {.dev = dev, .emit = emit, .user = user};
    /* Each write must answer for itself (a write to a hole is a bus error): on a byte-stream
     * link whose writes are posted (gr_proto.h), an error would only surface at a later call.
     * Posted writes are off while the suite runs, and back as they were after. An error an
     * earlier posted write left behind belongs to that write, not to this suite. */
    gr_proto_t *proto = NULL;
    bool was_posted = false;
    if (gr_link_proto(gr_device_link(dev), &proto) == GR_OK)
        (void)gr_proto_set_posted(proto, false, &was_posted);

    check_soft_reset(&r);
    for (unsigned i = 0; i < gr_regdesc_count && !r.fatal; i++)
        check_reset_value(&r, &gr_regdesc[i]);
    for (unsigned i = 0; i < gr_regdesc_count && !r.fatal; i++) {
        const gr_reg_desc_t *reg = &gr_regdesc[i];
        check_read_only(&r, reg);
        check_read_write(&r, reg);
        check_pulse(&r, reg);
        check_sticky(&r, reg);
        check_w1c(&r, reg);
        r.result.registers++;
    }
    if (!r.fatal)
        check_irq(&r);
    if (!r.fatal)
        check_holes(&r);
    if (!r.fatal) {
        /* The soft reset must undo everything the checks left behind. */
        uint32_t scratch = 0;
        if (wr(&r, "SCRATCH", GR_REG_SCRATCH, 0x5a5aa5a5u))
            check_soft_reset(&r);
        if (!r.fatal && rd(&r, "SCRATCH", GR_REG_SCRATCH, &scratch))
            report(&r, scratch == gr_regdesc_reset(gr_regdesc_find("SCRATCH")), "RESET_CTRL",
                   "soft reset returns SCRATCH to its reset value", "read 0x%08x", scratch);
    }
    if (proto && was_posted)
        (void)gr_proto_set_posted(proto, true, NULL);
    *out_result = r.result;
    return r.fatal;
}
