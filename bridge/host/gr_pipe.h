/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_pipe.h: a byte pipe, the layer under the link protocol (bridge/PROTOCOL.md).
 *
 * A backend of a byte-stream link (a Unix socket, a UART, an FT601 or FT2232H FIFO) is only a
 * gr_pipe_ops_t; the protocol engine (gr_proto.h) does the rest, the same for every link.
 *
 * Contract of every operation:
 *   - write: sends all len bytes, in order, or fails. It may block until the bytes are taken
 *     (a full socket buffer, a UART draining at its baud rate) but not on the peer answering.
 *     GR_E_IO: the pipe is dead (peer gone, device unplugged); every later call fails too.
 *   - read: returns the bytes available now, at most max, waiting at most timeout_ms for the
 *     first one; *out_len = 0 with GR_OK when nothing came. GR_E_IO: the pipe is dead (a socket's
 *     end of file included). Bytes may be lost or corrupted on some links (a UART); never
 *     invented in order-preserving pipes, but the protocol copes with that too.
 *   - reopen (optional, NULL: cannot): re-establishes a dead pipe (a new connection to the same
 *     address). GR_OK, or the reason it cannot (the pipe stays dead).
 *   - close: releases everything; the ctx is gone after it.
 *   - One thread may read while another writes; two writers, or reopen/close while another
 *     call runs, are the caller's to prevent.
 */
#ifndef GPUREF_GR_PIPE_H
#define GPUREF_GR_PIPE_H

#include <stddef.h>
#include <stdint.h>

#include "gpuref/gr_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gr_pipe_ops {
    int (*write)(void *ctx, const void *buf, size_t len);
    int (*read)(void *ctx, void *buf, size_t max, uint32_t timeout_ms, size_t *out_len);
    int (*reopen)(void *ctx);
    void (*close)(void *ctx);
} gr_pipe_ops_t;

/** A pipe: its ops and their context. Passed by value; the owner closes it once. */
typedef struct gr_pipe {
    const gr_pipe_ops_t *ops;
    void *ctx;
} gr_pipe_t;

/**
 * A pipe over a file descriptor (a connected socket, a tty in raw mode): write loops over
 * write(2), read waits with poll(2). reopen is taken from the arguments (NULL: none); it gets
 * the fd slot to fill and its own context; release (NULL: none) gets it at close, before the
 * fd is closed.
 * @param[out] out_pipe  untouched on failure
 * @return GR_OK, GR_E_NO_MEMORY
 */
int gr_pipe_fd_create(int fd, const char *name, int (*reopen)(void *arg, int *inout_fd),
                      void *reopen_arg, void (*release)(void *arg), gr_pipe_t *out_pipe);

/** Counts of what a fault pipe injected, per direction (tx: written, rx: read). */
typedef struct gr_pipe_fault_counts {
    uint64_t tx_drops, tx_corrupts, tx_dups, tx_reorders;
    uint64_t rx_drops, rx_corrupts, rx_dups, rx_reorders;
} gr_pipe_fault_counts_t;

/**
 * Wraps a pipe with fault injection, both directions: with probability rate per write call (a
 * whole frame from the protocol engine) it drops it, corrupts a byte, sends it twice, or holds it
 * back and sends it after the next one; per read it drops a run of bytes, corrupts one,
 * repeats a run or swaps two runs. Deterministic for a seed and a sequence of calls. The wrapper
 * owns the inner pipe (closes it).
 * @param rate  0 .. 0.5
 * @param[out] out_pipe  untouched on failure
 * @return GR_OK, GR_E_INVALID (rate out of range), GR_E_NO_MEMORY
 */
int gr_pipe_faults_create(gr_pipe_t inner, uint64_t seed, double rate, gr_pipe_t *out_pipe);

/**
 * As gr_pipe_faults_create, with bytes lost, repeated and moved only in whole units of `unit`
 * bytes (1 or 4) at unit boundaries of the stream, corruption anywhere: the faults of a link
 * that moves 32-bit words and never loses part of one (a socket to a 32-bit PHY, an FT601).
 * @return GR_OK, GR_E_INVALID (rate or unit), GR_E_NO_MEMORY
 */
int gr_pipe_faults_create_units(gr_pipe_t inner, uint64_t seed, double rate, unsigned unit,
                                gr_pipe_t *out_pipe);

/** What a fault pipe (gr_pipe_faults_create) injected so far; zeros for any other pipe. */
void gr_pipe_fault_counts(const gr_pipe_t *pipe, gr_pipe_fault_counts_t *out_counts);

/**
 * Parses "SEED:RATE" (a ?faults= value): SEED an integer, RATE a probability 0..0.5 ("0.01") or
 * a percentage ("1%").
 * @return GR_OK or GR_E_BAD_URI (the outputs untouched)
 */
int gr_pipe_faults_parse(const char *text, uint64_t *out_seed, double *out_rate);

#ifdef __cplusplus
}
#endif

#endif
