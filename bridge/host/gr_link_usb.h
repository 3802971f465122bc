/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_link_usb.h: usb://, the USB links: an FT601 (USB 3, 32-bit FIFO) on libusb-1.0 and an
 * FT2232H (USB 2, 8-bit synchronous 245 FIFO) on libftdi1, each a byte pipe (gr_pipe.h) under
 * the protocol engine (gr_proto.h, bridge/PROTOCOL.md).
 *
 *   usb://ft601[?serial=S]                     VID 0x0403 PID 0x601F, channel 1, 245 or FT600 mode
 *   usb://ft2232h[?serial=S&interface=A]       VID 0x0403 PID 0x6010, synchronous FIFO on A
 *   plus the engine's keys: replay_ms, keepalive_ms, dead_ms, timeout_ms, posted, faults
 *
 * Contract beyond gr_link.h and gr_proto.h:
 *   - open: GR_E_NO_DEVICE when no chip matches (the message names the VID:PID, the serial
 *     asked for and how many USB devices were looked at); GR_E_BUSY when it is claimed by
 *     another program; GR_E_UNSUPPORTED when an FT601's chip configuration (read, never
 *     written) cannot be served: channel 1 both ways in 245 mode or FT600 mode with one, two
 *     or four channels, no notification messages on IN channel 1 (the message names the
 *     bytes and what to set with FTDI's configuration tool), or an FT2232H
 *     whose EEPROM does not set channel A to 245 FIFO (blank, bad checksum, another type: the
 *     message says what to program); GR_E_BAD_URI for interface=B (the chip has synchronous
 *     FIFO on channel A only); GR_E_LINK when the chip answers but no gpuref device behind it
 *     does.
 *   - A chip unplugged while open: the pipe dies (GR_E_IO below the engine) and every call
 *     answers GR_E_LINK, as the engine does for any dead link.
 *   - The pipes block a reader for at most the engine's timeout and a writer while the chip's
 *     FIFO is full (at most 10 s, then the pipe is dead).
 * bridge/README.md says what the backends send to each chip and where that comes from.
 */
#ifndef GPUREF_GR_LINK_USB_H
#define GPUREF_GR_LINK_USB_H

#include "gr_link.h"
#include "gr_pipe.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The usb:// backend (gr_link.c's table). */
extern const gr_link_ops_t gr_link_usb_ops;

/**
 * Opens an FT601 as a byte pipe.
 * @param serial  iSerialNumber to match, or NULL for the first FT601
 * @param[out] out_pipe  untouched on failure
 * @return GR_OK, GR_E_NO_DEVICE, GR_E_BUSY, GR_E_UNSUPPORTED, GR_E_IO, GR_E_NO_MEMORY
 */
int gr_usb_ft601_pipe_open(const char *serial, gr_pipe_t *out_pipe);

/**
 * Opens an FT2232H's channel A as a byte pipe in synchronous FIFO mode.
 * @param serial  iSerialNumber to match, or NULL for the first FT2232H
 * @param[out] out_pipe  untouched on failure
 * @return GR_OK, GR_E_NO_DEVICE, GR_E_BUSY, GR_E_UNSUPPORTED (the EEPROM), GR_E_IO,
 *         GR_E_NO_MEMORY, GR_E_INVALID
 */
int gr_usb_ft2232h_pipe_open(const char *serial, gr_pipe_t *out_pipe);

#ifdef __cplusplus
}
#endif

#endif
