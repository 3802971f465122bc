/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_link_uart.h: uart://, a serial line (a board's USB-UART bridge, or the pseudo-terminal of
 * `gpuref-simd --pty`) carrying the link protocol (bridge/PROTOCOL.md) through the engine of
 * gr_proto.h.
 *
 *   uart://DEVICE[?baud=N&replay_ms=&keepalive_ms=&dead_ms=&timeout_ms=&posted=&faults=SEED:RATE]
 *   DEVICE  the tty: uart:///dev/ttyUSB0
 *   baud    any rate the driver takes, standard or not (Linux termios2 with BOTHER; a
 *           pseudo-terminal ignores it); default 3000000, the boards' rate
 *   replay_ms defaults to three times a largest frame at the baud rate plus 50 ms, dead_ms to
 *   at least four times replay_ms (2000 at the least); the engine stretches the replay timer to
 *   three measured round trips when acknowledgements come slower. The line of gpuref-simd --pty
 *   is simulated, so much slower in wall time than its baud rate: give dead_ms and timeout_ms
 *   room there (tb/system/test_simd.sh uses 30000 and 60000).
 *
 * Contract beyond gr_link.h and gr_proto.h: the line is raw 8N1 without flow control (the
 * protocol's credits keep the device's buffer from overrunning). The tty is locked (flock) for
 * as long as it is open: a second opener gets GR_E_BUSY. Open errors name the path and errno:
 * GR_E_NO_DEVICE (no such tty), GR_E_BUSY, GR_E_IO (permission, not a tty, a rate the driver
 * refuses); GR_E_LINK when the tty opens but no gpuref device answers on it.
 */
#ifndef GPUREF_GR_LINK_UART_H
#define GPUREF_GR_LINK_UART_H

#include "gr_link.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const gr_link_ops_t gr_link_uart_ops;

#define GR_UART_DEFAULT_BAUD 3000000u

#ifdef __cplusplus
}
#endif

#endif
