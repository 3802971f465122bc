/*
 * gr_link_simd.h: simd://, a Unix stream socket to gpuref-simd (host/tools/gpuref_simd.c), the
 * simulation server that runs a board's RTL and lets several processes share one device. The
 * bytes on the socket are the link protocol (bridge/PROTOCOL.md), spoken by the engine of
 * gr_proto.h.
 *
 *   simd://PATH[?replay_ms=&keepalive_ms=&dead_ms=&timeout_ms=&posted=&faults=SEED:RATE]
 *   PATH  the server's socket: simd:///tmp/gr.sock (absolute) or simd://build/x.sock (relative);
 *         simd:// alone: $GR_SIMD_SOCKET, else build/gpuref-simd.sock (gpuref-simd's default)
 *   the keys are the engine's (gr_proto.h); replay_ms defaults to 200, dead_ms to 10000 and
 *   timeout_ms to 15000 (a simulation server on a loaded machine answers late, not never)
 *
 * Contract beyond gr_link.h and gr_proto.h: open fails with GR_E_NO_DEVICE when nothing
 * listens at PATH (the message names the path, the errno and how to start the server). A server
 * that goes away makes every call GR_E_LINK; the next call after it is back reconnects.
 * The device is simulated but free-running: time passes while the client waits, as on a board.
 */
#ifndef GPUREF_GR_LINK_SIMD_H
#define GPUREF_GR_LINK_SIMD_H

#include "gr_link.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const gr_link_ops_t gr_link_simd_ops;

/** Where gpuref-simd listens and simd:// connects when no path is given. */
#define GR_SIMD_DEFAULT_SOCKET "build/gpuref-simd.sock"

#ifdef __cplusplus
}
#endif

#endif
