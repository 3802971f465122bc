/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_usb_emu.h: an FT601 and an FT2232H on an emulated USB bus, for testing the usb://
 * backends on the real libusb (and libftdi on it) without hardware.
 *
 * A umockdev testbed holds the devices (sysfs attributes and descriptors as the chips present
 * them, from their datasheets), and an ioctl handler on each device node services the usbdevfs
 * ioctls libusb's Linux backend issues: every URB libusb submits is passed to a gr_board
 * (gr_board.h) of that chip, so its bytes go through the chip's model, the PHY RTL and the
 * link engine into gpu_core, and the IN URBs are answered with the USB packets the chip model
 * sends. What the chip itself does in silicon (the FT601's read-request sessions, the FT2232H's
 * vendor requests, modem-status bytes and latency-timer packets) is done here.
 *
 * Simulated time advances in the handler: while an IN or OUT URB is outstanding, each reap
 * libusb attempts runs the board for a slice of core cycles until the URB can complete.
 *
 * Use: create the emulation, add the devices, and only then let libusb initialise (it
 * enumerates at init). The process must run with umockdev's preload library, linked in as
 * libusb's own tests do (-Wl,--no-as-needed -lumockdev-preload) or through umockdev-wrapper.
 * The handler runs on umockdev's worker thread; the boards are touched only there once added.
 */
#ifndef GPUREF_GR_USB_EMU_H
#define GPUREF_GR_USB_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gr_board.h"
#include "gpuref/gr_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gr_usb_emu gr_usb_emu_t;

/** USB identities (FTDI's defaults for the chips). */
#define GR_USB_FTDI_VID 0x0403u
#define GR_USB_FT601_PID 0x601fu
#define GR_USB_FT2232H_PID 0x6010u

/** What an emulated device has seen (read with gr_usb_emu_stats). */
typedef struct gr_usb_emu_stats {
    uint64_t urbs_submitted, urbs_reaped, urbs_discarded;
    uint64_t control_requests;   /**< control URBs (standard and vendor) */
    uint64_t bytes_out, bytes_in; /**< bulk payload bytes to and from the chip */
    uint64_t read_requests;      /**< FT601 read-request commands on EP 0x01 */
    uint64_t overlapped_requests; /**< FT601: read requests while a session was still open */
    uint64_t in_aborts, out_aborts;   /**< FT601: abort commands (0) on an IN / OUT pipe */
    uint64_t in_flushes, out_flushes; /**< FT601: flush commands (3) on an IN / OUT pipe */
    uint64_t in_bytes_flushed;   /**< FT601: bytes a flush of EP 0x82 dropped */
    uint64_t in_discarded_with_data; /**< IN URBs cancelled (a timeout) after data had come */
    uint64_t in_held_after_full_packet; /**< IN URBs left waiting with whole packets in and the
                                      FPGA's data at an end (no zero-length packet follows) */
    uint64_t config_writes;      /**< FT601: vendor request 0xCF OUT (a configuration write;
                                      refused, the configuration stays) */
    uint64_t unknown_ioctls;     /**< ioctls not emulated (answered ENOTTY) */
    uint64_t claims_refused;     /**< interface claims refused (EBUSY: another open of the node holds it) */
    uint64_t bitmode_settle_us;  /**< FT2232H: wall time from the last bit-mode reset on
                                      channel A to synchronous FIFO mode (0 before that) */
} gr_usb_emu_stats_t;

/**
 * Creates the testbed (empty). Must come before the process's first libusb_init.
 * @param[out] out_emu  untouched on failure
 * @return GR_OK, GR_E_UNSUPPORTED (umockdev's preload library is not active in this process),
 *         GR_E_NO_MEMORY
 */
int gr_usb_emu_create(gr_usb_emu_t **out_emu);

/**
 * Adds a chip on a bus of its own, backed by a new board of that kind. An FT601 takes its
 * chip configuration from the file $GR_FT601_EMU_CONFIG names (152 bytes), else the default
 * (245 mode, one channel), as gr_usb_emu_add_ft601 with NULL.
 * @param cfg  the board (kind GR_BOARD_FT601 or GR_BOARD_FT2232H; seed, fst_path...)
 * @param serial  its iSerialNumber string (at most 31 characters)
 * @param[out] out_index  device index for the other calls (may be NULL)
 * @return GR_OK, GR_E_INVALID (another kind, bad serial, a bad $GR_FT601_EMU_CONFIG), GR_E_IO
 *         ($GR_FT601_EMU_CONFIG unreadable), or gr_board_create's error
 */
int gr_usb_emu_add(gr_usb_emu_t *emu, const gr_board_config_t *cfg, const char *serial,
                   unsigned *out_index);

/**
 * Adds an FT601 with the given 152-byte chip configuration (FT_60XCONFIGURATION), instead of
 * $GR_FT601_EMU_CONFIG's file or the default (245 mode, one channel, no optional features).
 * Its FIFOMode (byte 138) sets the board's bus mode (gr_board_config_t.ft600_mode), its
 * ChannelConfig (byte 139) the data pipes, its OptionalFeatureSupport (bytes 140-141) how
 * sessions end (usb_emu.c says what is modelled).
 * @param config  152 bytes, or NULL (then as gr_usb_emu_add)
 * @return as gr_usb_emu_add; GR_E_INVALID also for a configuration the chip cannot have
 *         (FIFOMode not 0 or 1, ChannelConfig above 4, 245 mode with more than one channel) or
 *         config on an FT2232H; GR_E_IO when $GR_FT601_EMU_CONFIG cannot be read, GR_E_INVALID
 *         when its file is not 152 bytes
 */
int gr_usb_emu_add_ft601(gr_usb_emu_t *emu, const gr_board_config_t *cfg, const char *serial,
                         const uint8_t *config, unsigned *out_index);

/**
 * Unplugs a device: every outstanding URB completes with ENODEV and every later ioctl on it
 * fails with ENODEV, as the kernel answers on an open file of a device that is gone. (Its
 * node and sysfs entry stay: umockdev cannot take a node from a client that has it open.)
 * @return GR_OK, GR_E_NOT_FOUND (no such index)
 */
int gr_usb_emu_unplug(gr_usb_emu_t *emu, unsigned index);

/**
 * Puts an EEPROM image behind an FT2232H (before any client opens it): 128 bytes (a 93C46, read
 * twice over as its address wraps) or 256 (a 93C56). The default is a board's image for
 * synchronous FIFO (channel A 245 FIFO, checksum good). As on the chip, bit mode 0x40 moves data
 * only when the image sets channel A to 245 FIFO and its checksum holds; all 0xff is a blank one.
 * @return GR_OK, GR_E_NOT_FOUND (no such index), GR_E_INVALID (not an FT2232H, bad size)
 */
int gr_usb_emu_set_eeprom(gr_usb_emu_t *emu, unsigned index, const uint8_t *image, size_t bytes);

/** Counters of a device. GR_OK, GR_E_NOT_FOUND, GR_E_INVALID. */
int gr_usb_emu_stats(gr_usb_emu_t *emu, unsigned index, gr_usb_emu_stats_t *out_stats);

/** Core cycles the device's board has run (consistent between URBs). */
uint64_t gr_usb_emu_cycles(gr_usb_emu_t *emu, unsigned index);

/** Removes the testbed and frees the boards. Close every libusb handle first. NULL allowed. */
void gr_usb_emu_destroy(gr_usb_emu_t *emu);

#ifdef __cplusplus
}
#endif

#endif
