/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_txlog.h: the host-side transaction log of a link (?txlog=FILE on every scheme).
 *
 * gr_link.c opens one per link when the URI names a file, and records into it every register
 * access, BAR1 burst, DMA buffer allocated and freed, and interrupt level the host saw change;
 * a backend records the device's DMA requests and their answers (the byte-stream engine as
 * DMA_RD/DMA_WR arrive, sim:// as gpu_core's m_host bursts complete). One text line each, in
 * the order they happened; docs/txlog.md states the format and `gpuctl tracediff` reads it.
 *
 * Every call is safe from any thread (the byte-stream engine serves DMA on its own thread): a
 * line is written whole under the log's lock. Every recording call takes NULL and does nothing.
 */
#ifndef GPUREF_GR_TXLOG_H
#define GPUREF_GR_TXLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gr_txlog gr_txlog_t;

/** The first line of every log, with the format's version. */
#define GR_TXLOG_MAGIC "# gpuref txlog v1"
/** Data up to this many bytes is written out in full as well as digested. */
#define GR_TXLOG_INLINE_BYTES 32u

/**
 * Opens (truncates) path for a link of this scheme.
 * @param[out] out_log  untouched on failure
 * @return GR_OK, GR_E_IO (gr_link_error() names the file and the reason), GR_E_NO_MEMORY
 */
int gr_txlog_open(const char *path, const char *scheme, gr_txlog_t **out_log);

/** Writes what is buffered and closes; NULL is allowed. */
void gr_txlog_close(gr_txlog_t *log);

/** A comment line ("# text"): the link's description once it is open. */
void gr_txlog_note(gr_txlog_t *log, const char *text);

/**
 * The calling thread entered DDI text (gr_link_mark): a marker line ("ddi text") now when `now`,
 * and before each later line of this thread whenever the last marker in the file names another
 * thread's DDI, so that the last marker before a host thread's line is its own thread's DDI.
 */
void gr_txlog_mark(gr_txlog_t *log, const char *text, bool now);

/** One BAR0 access and the status the caller got. */
void gr_txlog_reg(gr_txlog_t *log, bool write, uint32_t offset, uint32_t value, int status);

/** One BAR1 burst of the host (data: what was written, or what was read when status is GR_OK). */
void gr_txlog_ap(gr_txlog_t *log, bool write, uint64_t offset, const void *data, size_t bytes, int status);

/** A DMA buffer given to the device (status GR_OK) or refused, and one taken back. */
void gr_txlog_alloc(gr_txlog_t *log, uint64_t bus, size_t bytes, int status);
void gr_txlog_free(gr_txlog_t *log, uint64_t bus, int status);

/**
 * One DMA request of the device and its answer: write (the device wrote host memory) or read,
 * at bus for bytes (the enabled bytes: a write's first and last disabled ones left out); data
 * the bytes read or written (NULL when the request was refused), ok false when the host
 * answered with an error.
 */
void gr_txlog_dma(gr_txlog_t *log, bool write, uint64_t bus, const void *data, size_t bytes, bool ok);

/** The interrupt level the host saw, when it differs from the one it saw before (first: low). */
void gr_txlog_irq(gr_txlog_t *log, bool level);

/**
 * The digest the log writes for data at bus address (or BAR1 offset) `at`: CRC-32 (zlib's) of
 * the bytes with every naturally aligned 64-bit little-endian word whose value lies inside a DMA
 * buffer of this log replaced by GR_TXLOG_RELOC(k, offset) (k: the buffer's number, from 1 in
 * the order they were allocated), so that the same content written on two links, whose host
 * bus addresses differ, digests alike. Exposed for the tests.
 */
uint32_t gr_txlog_digest(gr_txlog_t *log, uint64_t at, const void *data, size_t bytes);
#define GR_TXLOG_RELOC(k, offset) (0xb5ull << 56 | (uint64_t)(k) << 32 | (uint64_t)(offset))

#ifdef __cplusplus
}
#endif

#endif
