/* SPDX-License-Identifier: Apache-2.0 */
/*
 * usb_env.c: puts an emulated FT601 or FT2232H on the process's USB bus before main runs, so
 * that a program built with it reaches usb:// with no change to its code: the usb flavours of
 * the system suites (build/usb/test_*_usb, the link matrix in tb/tb.mk) and of the
 * demo (build/usb/gr_demo_usb, `make demo DEVICE=usb-ft601`). Linked in with the emulation
 * (usb_emu.c), the boards and umockdev's preload library. $GR_USB_EMU names the chip and the
 * serial it answers with:
 *
 *   GR_USB_EMU=ft601:GRSIM601A build/usb/test_alloc_usb    (the device: usb://ft601?serial=GRSIM601A)
 *
 * An FT601 takes its chip configuration from $GR_FT601_EMU_CONFIG when set (gr_usb_emu.h).
 * Unset, nothing is emulated (libusb sees an empty bus). The board's seed is $GR_TEST_SEED
 * (else 1). A bad value ends the process with a TAP "Bail out!" before main.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr_board.h"
#include "gr_usb_emu.h"

static gr_usb_emu_t *g_emu;

static void stop(void)
{
    gr_usb_emu_destroy(g_emu);
    g_emu = NULL;
}

static void bail(const char *what, const char *detail)
{
    printf("Bail out! GR_USB_EMU: %s (%s)\n", what, detail);
    fflush(stdout);
    exit(2);
}

/* A constructor: the chip must be on the bus before the program's first libusb_init. The
 * preload library and glib are shared libraries, set up before this runs. */
__attribute__((constructor)) static void usb_env_start(void)
{
    const char *spec = getenv("GR_USB_EMU");
    if (!spec || !*spec || g_emu)
        return;
    char kind_name[16] = "";
    const char *colon = strchr(spec, ':');
    const size_t klen = colon ? (size_t)(colon - spec) : strlen(spec);
    const char *serial = colon ? colon + 1 : "";
    if (klen >= sizeof kind_name || !*serial)
        bail("expected KIND:SERIAL with KIND ft601 or ft2232h", spec);
    memcpy(kind_name, spec, klen);
    gr_board_kind_t kind;
    if (!strcmp(kind_name, "ft601"))
        kind = GR_BOARD_FT601;
    else if (!strcmp(kind_name, "ft2232h"))
        kind = GR_BOARD_FT2232H;
    else
        bail("the chip is ft601 or ft2232h", spec);
    if (!gr_board_kind_built(kind))
        bail("no board of this kind in this build", kind_name);
    const char *env = getenv("GR_TEST_SEED");
    gr_board_config_t cfg = {.kind = kind, .seed = env && *env ? strtoull(env, NULL, 10) : 1};
    if (!cfg.seed)
        cfg.seed = 1;
    int rc = gr_usb_emu_create(&g_emu);
    if (rc)
        bail("umockdev's preload library is not in this process", gr_status_name(rc));
    rc = gr_usb_emu_add(g_emu, &cfg, serial, NULL);
    if (rc)
        bail("cannot add the chip to the emulated bus", gr_status_name(rc));
    const char *ft601_cfg = getenv("GR_FT601_EMU_CONFIG");
    printf("# usb: an emulated %s (serial %s) on the bus, board seed %llu%s%s\n", kind_name, serial,
           (unsigned long long)cfg.seed, kind == GR_BOARD_FT601 && ft601_cfg && *ft601_cfg ? ", configuration " : "",
           kind == GR_BOARD_FT601 && ft601_cfg && *ft601_cfg ? ft601_cfg : "");
    fflush(stdout);
    atexit(stop);
}
