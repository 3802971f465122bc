/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_link_simd.h: simd://, a Unix stream socket to gpuref-simd (host/tools/gpuref_simd.c), the
 * simulation server that runs a board's RTL and lets several processes share one device. The
 * bytes on the socket are the link protocol (bridge/PROTOCOL.md), spoken by the engine of
 * gr_proto.h.
 *
 *   simd://PATH[?replay_ms=&keepalive_ms=&dead_ms=&timeout_ms=&posted=&faults=SEED:RATE]
 *   PATH  the server's socket: simd:///tmp/gr.sock (absolute) or simd://build/x.sock (relative);
 *         simd:// alone: the default socket (gr_simd_default_socket), gpuref-simd's too
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

/**
 * Where gpuref-simd listens and simd:// connects when no path is given, the same from any
 * directory:
 *   1. $GR_SIMD_SOCKET, when set and not empty;
 *   2. $XDG_RUNTIME_DIR/gpuref-simd.sock, when XDG_RUNTIME_DIR is an absolute path (the
 *      user's own runtime directory, as systemd makes it: /run/user/UID);
 *   3. ${TMPDIR:-/tmp}/gpuref-UID/gpuref-simd.sock: a directory of this user's alone, made
 *      with mode 0700 when make_dir is set (the server). It is refused, by both ends, when it
 *      is not a directory (a symlink included), belongs to another user, or lets group or
 *      others in: in a shared /tmp someone else could have made it first.
 * @param make_dir  create the fallback directory if it is missing (gpuref-simd does; a client
 *                  only connects)
 * @param[out] buf       the path (at most len - 1 bytes); untouched on failure
 * @param[out] out_from  may be NULL: which rule chose it ("GR_SIMD_SOCKET", "XDG_RUNTIME_DIR",
 *                       "TMPDIR" or "/tmp"), for messages
 * @return GR_OK, GR_E_RANGE (longer than a socket address holds), GR_E_IO (the fallback
 *         directory cannot be made or is unsafe; gr_link_error() says which and why)
 */
int gr_simd_default_socket(bool make_dir, char *buf, size_t len, const char **out_from);

#ifdef __cplusplus
}
#endif

#endif
