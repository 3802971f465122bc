/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_vpr_lock: a register writer cannot reach protected content once the miniport has locked
 * the VPR (VPR_CTRL.LOCK). On sim://: a HardwareProtected allocation (CreateInVpr) filled by
 * the engine; then, in the same process, under the adapter's link lock, the attack of a raw
 * register client: VPR_CTRL = 0, VPR_BASE = VPR_LIMIT = 0, the BAR1 window moved over the
 * allocation and read. Locked, the VPR registers keep their values and BAR1 reads zeros. The
 * control: on a fresh device whose VPR is programmed without LOCK, the same attack reads the
 * protected words, so the test fails for the bug it names (a VPR left unlocked).
 *
 * Usage: test_vpr_lock [SEED] (default 1). TAP on stdout.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_device.h"
#include "gpuref/gr_easy.h"
#include "gpuref/gr_regdesc.h"
#include "gpuref/gr_submit.h"
#include "gr_link.h"

#define SECRET 0x44444444u

static int test_no, failed;

static void tap(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tap(bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s %d - ", ok ? "ok" : "not ok", ++test_no);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failed += !ok;
}

typedef struct attack {
    uint64_t vram;                           /* the protected bytes' VRAM address */
    uint32_t base, limit, ctrl;              /* the VPR registers after the attack */
    uint32_t words[4];                       /* what BAR1 showed there */
    int rc;
} attack_t;

/* The raw register client: turn the VPR off, move the BAR1 window over the target, read. */
static int attack_fn(gr_link_t *l, void *ctx)
{
    attack_t *a = ctx;
    uint32_t old_ap = 0;
    const uint32_t win = (uint32_t)(a->vram & ~UINT64_C(0xfff));
    a->rc = gr_link_read32(l, GR_REG_MC_AP_BASE, &old_ap);
    if (!a->rc)
        a->rc = gr_link_write32(l, GR_REG_VPR_CTRL, 0);
    if (!a->rc)
        a->rc = gr_link_write32(l, GR_REG_VPR_BASE, 0);
    if (!a->rc)
        a->rc = gr_link_write32(l, GR_REG_VPR_LIMIT, 0);
    if (!a->rc)
        a->rc = gr_link_write32(l, GR_REG_MC_AP_BASE, win);
    if (!a->rc)
        a->rc = gr_link_ap_read(l, a->vram - win, a->words, sizeof a->words);
    if (!a->rc)
        a->rc = gr_link_read32(l, GR_REG_VPR_BASE, &a->base);
    if (!a->rc)
        a->rc = gr_link_read32(l, GR_REG_VPR_LIMIT, &a->limit);
    if (!a->rc)
        a->rc = gr_link_read32(l, GR_REG_VPR_CTRL, &a->ctrl);
    int rc = gr_link_write32(l, GR_REG_MC_AP_BASE, old_ap);
    return a->rc ? a->rc : rc;
}

static bool any_secret(const attack_t *a)
{
    for (int i = 0; i < 4; i++)
        if (a->words[i] == SECRET)
            return true;
    return false;
}

static void locked_case(const char *uri)
{
    gr_session_t *s;
    int rc = gr_session_open(uri, &s);
    if (rc) {
        tap(false, "locked: gr_session_open(%s): %s (%s)", uri, gr_status_name(rc), gr_last_error());
        return;
    }
    gr_gpu_device_t *dev = gr_session_device(s);
    gr_alloc_private_t priv = {.version = GR_ALLOC_PRIVATE_VERSION, .struct_size = sizeof priv,
                               .kind = GR_ALLOC_KIND_BUFFER, .flags = GR_ALLOC_PRIV_IN_VPR,
                               .cpu_access = GR_CPU_ACCESS_NONE, .buffer_bytes = 4096};
    gr_alloc_desc_t d = {.private_data = &priv, .private_size = sizeof priv};
    gr_alloc_t h;
    gr_alloc_info_t info;
    gr_cmd_t *c;
    if ((rc = gr_alloc_create(dev, NULL, &d, 1, &h, NULL)) || (rc = gr_alloc_query(dev, h, &info)) ||
        (rc = gr_cmd_create(dev, gr_session_context(s), 0, &c))) {
        tap(false, "locked: a HardwareProtected allocation: %s (%s)", gr_status_name(rc), gr_last_error());
        gr_session_close(s);
        return;
    }
    rc = gr_cmd_fill(c, h, 0, 4096, SECRET);
    if (!rc)
        rc = gr_cmd_submit_wait(c, GR_WAIT_FOREVER);
    (void)gr_cmd_destroy(c);
    tap(rc == GR_OK, "locked: the engine filled a HardwareProtected allocation at VRAM 0x%" PRIx64 " with 0x%08x (%s)",
        info.vram_address, SECRET, gr_status_name(rc));
    attack_t a = {.vram = info.vram_address};
    gr_adapter_t *ad = gr_session_adapter(s);
    rc = gr_adapter_with_link(ad, attack_fn, &a);
    tap(rc == GR_OK && GR_FIELD_GET(VPR_CTRL, LOCK, a.ctrl) && GR_FIELD_GET(VPR_CTRL, ENABLE, a.ctrl),
        "locked: after VPR_CTRL = 0 the VPR is still enabled and locked (VPR_CTRL 0x%08x)", a.ctrl);
    tap(rc == GR_OK && a.base != 0 && a.limit > a.base && info.vram_address >= a.base && info.vram_address < a.limit,
        "locked: VPR_BASE and VPR_LIMIT kept their values (0x%08x..0x%08x) around the allocation", a.base, a.limit);
    tap(rc == GR_OK && !any_secret(&a), "locked: BAR1 over the protected allocation reads 0x%08x 0x%08x 0x%08x 0x%08x, "
        "not the protected 0x%08x", a.words[0], a.words[1], a.words[2], a.words[3], SECRET);
    (void)gr_alloc_destroy(dev, h);
    gr_session_close(s);
}

/* The same attack on a VPR programmed without LOCK: the protected words come out. */
static void unlocked_control(const char *uri)
{
    gr_device_t *dev;
    int rc = gr_device_open(uri, 0, &dev);
    if (rc) {
        tap(false, "control: gr_device_open(%s): %s", uri, gr_status_name(rc));
        return;
    }
    gr_link_t *l = gr_device_link(dev);
    const uint32_t vpr = 0x100000u, secret[4] = {SECRET, SECRET, SECRET, SECRET};
    attack_t a = {.vram = vpr + 0x40};
    rc = gr_link_write32(l, GR_REG_MC_AP_BASE, 0);
    if (!rc)
        rc = gr_link_ap_write(l, a.vram, secret, sizeof secret);
    if (!rc)
        rc = gr_link_write32(l, GR_REG_VPR_BASE, vpr);
    if (!rc)
        rc = gr_link_write32(l, GR_REG_VPR_LIMIT, vpr + 0x10000u);
    if (!rc)
        rc = gr_link_write32(l, GR_REG_VPR_CTRL, GR_FIELD_SET(VPR_CTRL, ENABLE, 1));
    uint32_t seen[4] = {1, 1, 1, 1};
    if (!rc)
        rc = gr_link_ap_read(l, a.vram, seen, sizeof seen);
    tap(rc == GR_OK && seen[0] == 0 && seen[3] == 0, "control: an enabled, unlocked VPR reads zeros through BAR1");
    if (!rc)
        rc = attack_fn(l, &a);
    tap(rc == GR_OK && any_secret(&a), "control: unlocked, the same register writer turns it off and reads the "
        "protected 0x%08x (read 0x%08x): what the lock prevents", SECRET, a.words[0]);
    gr_device_close(dev);
}

int main(int argc, char **argv)
{
    unsigned long seed = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;
    char uri[64];
    printf("1..6\n");
    snprintf(uri, sizeof uri, "sim://?seed=%lu", seed);
    locked_case(uri);
    snprintf(uri, sizeof uri, "sim://?seed=%lu", seed + 1);
    unlocked_control(uri);
    return failed ? 1 : 0;
}
