/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_proto.h: the host end of the link protocol (bridge/PROTOCOL.md) over any byte pipe.
 *
 * One engine for every byte-stream link: simd:// (gr_link_simd.c), uart:// (gr_link_uart.c)
 * and the USB links hand it a gr_pipe_t (gr_pipe.h) and forward their gr_link ops to it.
 *
 * How it works: a service thread per open link reads the pipe, acts on every frame (ACKs,
 * replays, the device's DMA requests served from buffers of gr_proto_dma_alloc, interrupt
 * messages), sends keep-alives and watches for a dead link; calls from the user's thread queue
 * requests and sleep until their answers come. So the device's DMA is served while the user's
 * thread does something else, as on a bus-mastering link.
 *
 * Contract beyond gr_link.h:
 *   - Opening starts with a link RESET (repeated every 100 ms) and HELLO; the device's HELLO_RSP
 *     gives MaxPayload, RxWindow, the DMA window. GR_E_LINK when no RESET_ACK or HELLO_RSP comes
 *     in dead_ms; GR_E_MISMATCH for another protocol major version.
 *   - write32 is posted by default (?posted=0 makes every write wait for its answer): writes
 *     queue in the library and go out as one WR32 batch with the next read32, ap_* call,
 *     wait_irq or gr_proto_flush, or after 1 ms from the service thread, so a doorbell never
 *     waits for the next call. A posted write the device refused (GR_E_BUS), or one a link reset
 *     may have lost (GR_E_LINK), is reported by the next call that returns a status other than
 *     through its own transaction (the call's own result is then not delivered). While the
 *     link's send queue is full (a device that takes frames slower than they come), a write
 *     waits for room, as a request does, until the link is declared down; a write that returns
 *     GR_OK is sent once, never twice.
 *   - Lost frames are replayed after replay_ms, or after three smoothed round trips when the
 *     link answers slower than that (a slow line, a simulated device).
 *   - Every call gives up after timeout_ms without progress (GR_E_TIMEOUT); the link is then
 *     reset before the next call (the device may hold a half-done request).
 *   - GR_E_LINK: the link went down (the pipe died, no frame for dead_ms, the device reset the
 *     link) while the call's transaction was outstanding: it may or may not have happened. The
 *     next call resets the link (and reopens the pipe if it died) and goes on.
 *   - ap_read/ap_write are split at the device's MaxPayload and at every 4 KiB, pipelined;
 *     unaligned edges use FBE/LBE. A transfer of more than two full requests (MaxPayload of
 *     at least 512 words) starts (a read) or ends (a write) with shorter requests, so that the
 *     device's store-and-forward of one frame overlaps the next on the link. GR_E_RANGE past BAR1 (size from HELLO_RSP).
 *   - dma_alloc: page-aligned zeroed host memory; bus addresses inside HELLO_RSP's DmaBase window
 *     when the device gives one (gpuref-simd does, one per client), else from this host's own
 *     space at 0x1_0000_0000. The device reaches only these buffers: any other address, or a
 *     request that crosses a buffer's end, is answered DECERR.
 *   - ap_write_posted: AP_WR frames with POSTED, sent at once and not waited for (no round
 *     trip); performed in order before every later request; an error is reported as a posted
 *     write32's. With ?posted=0 it is ap_write.
 *   - wait_irq: the line's level as the device's IRQ messages tell it; timeout_us is wall time.
 *     When a write32 was made since the last read was answered, it starts with a read (a round
 *     trip that also flushes queued writes), so a change of the line that earlier writes caused
 *     is seen by the wait that follows them; otherwise the messages have kept the level current
 *     and it costs no round trip.
 *   - wait_irq_event: the same level without a round trip and without taking the link's lock:
 *     it may run on another thread while one thread uses the engine (gr_link_wait_irq_event).
 *     A high level told before the last write32, which the write may have lowered (an
 *     interrupt routine's dismiss), is reported only once the device says so again, or when it
 *     has not spoken for four smoothed round trips (at least 250 ms) since the write.
 *     GR_E_LINK at once while the link is down (it does not bring the link up).
 *   - One thread at a time per gr_proto_t (as gr_link_t), but for wait_irq_event.
 */
#ifndef GPUREF_GR_PROTO_H
#define GPUREF_GR_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gr_link.h"
#include "gr_pipe.h"
#include "gr_proto_link.h"
#include "gr_txlog.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of one link; gr_proto_opts_from_uri reads them from a URI. */
typedef struct gr_proto_opts {
    uint32_t replay_ms;    /**< replay timeout of the host's frames */
    uint32_t keepalive_ms; /**< idle time before a KEEPALIVE (default 100) */
    uint32_t dead_ms;      /**< no good frame while waiting: link down (default 2000) */
    uint32_t timeout_ms;   /**< one call gives up (default 5000) */
    bool posted;           /**< write32 posted and batched (default true) */
    bool faults;           /**< ?faults= given: the pipe is wrapped by gr_pipe_faults_create */
    uint64_t fault_seed;
    double fault_rate;
    char name[GR_URI_TEXT_MAX]; /**< for messages: "simd:///tmp/s.sock" */
} gr_proto_opts_t;

/** The URI keys every byte-stream backend accepts (append to a backend's own list). */
#define GR_PROTO_URI_KEYS "replay_ms", "keepalive_ms", "dead_ms", "timeout_ms", "posted", "faults"

/** Defaults, with a link's replay timeout (it depends on the link's speed). */
void gr_proto_opts_default(gr_proto_opts_t *o, uint32_t replay_ms, const char *name);

/**
 * Reads GR_PROTO_URI_KEYS from a URI into o (keys not given keep their value).
 * @return GR_OK or GR_E_BAD_URI (gr_link_error() names the key; o may be partly updated)
 */
int gr_proto_opts_from_uri(const gr_uri_t *uri, gr_proto_opts_t *o);

/** What the device said in HELLO_RSP. */
typedef struct gr_proto_hello {
    uint16_t ver_major, ver_minor;
    uint16_t max_payload, rx_window;
    uint8_t dma_tags, link, bar0_log2, bar1_log2;
    uint32_t core_hz, replay_timeout, dma_timeout;
    uint64_t dma_base, dma_size;
    uint32_t dev_caps; /**< DevCaps (GR_PROTO_DEVCAP_*; 0 from a HELLO_RSP of LEN 10) */
} gr_proto_hello_t;

/** Everything the engine counts (tests and benchmarks read it; it only grows). */
typedef struct gr_proto_counters {
    gr_proto_link_counts_t link;  /**< frames, bytes, retransmissions, CRC errors, NAKs ... */
    uint64_t round_trips;         /**< calls that waited for the device */
    uint64_t requests;            /**< request frames queued (RD32, WR32, AP_*) */
    uint64_t posted_writes;       /**< write32s sent in posted batches */
    uint64_t dma_reads, dma_writes, dma_errors; /**< requests served; DECERR answers */
    uint64_t dma_bytes;           /**< bytes the device read and wrote */
    uint64_t irqs;                /**< IRQ messages */
    uint64_t link_resets;         /**< RESET rounds started (the open's included) */
    uint64_t link_downs;          /**< times the link went down */
    uint64_t late_answers;        /**< answers to no outstanding request (after a timeout) */
    gr_pipe_fault_counts_t faults;/**< what ?faults= injected */
    uint64_t timeouts;            /**< calls that gave up after timeout_ms (GR_E_TIMEOUT) */
} gr_proto_counters_t;

typedef struct gr_proto gr_proto_t;

/**
 * Starts the engine on a pipe (which it owns from now on, closed on failure too) and brings the
 * link up (RESET, HELLO).
 * @param[out] out_p  untouched on failure
 * @return GR_OK, GR_E_LINK (no answer; gr_link_error() says what was missing), GR_E_MISMATCH
 *         (protocol version), GR_E_NO_MEMORY, GR_E_INVALID
 */
int gr_proto_open(gr_pipe_t pipe, const gr_proto_opts_t *opts, gr_proto_t **out_p);

/** Sends queued writes, stops the thread, closes the pipe, frees DMA buffers. NULL allowed. */
void gr_proto_close(gr_proto_t *p);

/** BAR0 read. GR_OK, GR_E_BUS, GR_E_TIMEOUT, GR_E_LINK (or a posted write's error). */
int gr_proto_read32(gr_proto_t *p, uint32_t offset, uint32_t *out_value);
/** Several BAR0 reads in one round trip (batched RD32 frames), in order. */
int gr_proto_read32_batch(gr_proto_t *p, const uint32_t *offsets, unsigned count,
                          uint32_t *out_values);
/** BAR0 write (posted unless ?posted=0; see the contract above). */
int gr_proto_write32(gr_proto_t *p, uint32_t offset, uint32_t value);
/** Barrier: every earlier write has been performed; GR_OK or the first write error. */
int gr_proto_flush(gr_proto_t *p);
/**
 * Turns posted writes on or off from now on (what ?posted= chose at open): a program that must
 * see each write's own answer (the register conformance suite: a write to a hole answers a bus
 * error) turns them off while it runs. The writes posted before are flushed first.
 * @param[out] out_was  the setting before (may be NULL)
 * @return the flush's status (an earlier posted write's error); the setting changes either way
 */
int gr_proto_set_posted(gr_proto_t *p, bool posted, bool *out_was);
int gr_proto_ap_read(gr_proto_t *p, uint64_t offset, void *dst, size_t bytes);
int gr_proto_ap_write(gr_proto_t *p, uint64_t offset, const void *src, size_t bytes);
int gr_proto_dma_alloc(gr_proto_t *p, size_t bytes, gr_dma_buf_t *out_buf);
/** GR_E_NOT_FOUND if no buffer starts at buf->bus. */
int gr_proto_dma_free(gr_proto_t *p, const gr_dma_buf_t *buf);
int gr_proto_wait_irq(gr_proto_t *p, uint32_t timeout_us, bool *out_raised);
/** BAR1 write, posted (see the contract above). */
int gr_proto_ap_write_posted(gr_proto_t *p, uint64_t offset, const void *src, size_t bytes);
/** The line's level without a round trip or the link's lock (see the contract above). */
int gr_proto_wait_irq_event(gr_proto_t *p, uint32_t timeout_us, bool *out_raised);

/**
 * BIND (bridge/PROTOCOL.md, "Binding"): op GR_PROTO_BIND_TAKE, _RELEASE or _FORCE, sent with
 * this process's id and host name. A device without DevCaps.BIND binds nothing: GR_OK. A taken
 * binding or force mark is asked for again after every link reset (the device forgets it then).
 * @param[out] owner  may be NULL: "pid N on HOST" of the owner when busy ("" when none)
 * @return GR_OK, GR_E_BUSY (another link holds the binding; gr_link_error() names the owner),
 *         link errors
 */
int gr_proto_bind(gr_proto_t *p, unsigned op, char *owner, size_t owner_len);

/** A copy of the counters. */
void gr_proto_counters(gr_proto_t *p, gr_proto_counters_t *out_counters);
/** The device's HELLO_RSP of the current link (zeros while the link is down). */
void gr_proto_hello(gr_proto_t *p, gr_proto_hello_t *out_hello);
/** Whether the link is up now (HELLO answered, no reset since). */
bool gr_proto_up(gr_proto_t *p);
/** HELLO_RSP's Link: "stream", "uart", "ft601", "ft2232h"; "?" for another value. */
const char *gr_proto_link_name(uint8_t link);
/** "simd:///x (up, ft601 link, protocol 1.0)": short, so that it fits gr_device_info_t's
 *  transport; the counters are gr_proto_counters' (gr_device_link_stats carries them). */
void gr_proto_describe(gr_proto_t *p, char *buf, size_t len);

/**
 * The engine behind an open byte-stream link (simd://, uart://, usb://), so a tool or benchmark
 * can read its counters (gr_proto_counters) or its HELLO_RSP. The engine stays the link's: use
 * it only while the link is open, from the thread that uses the link.
 * @param[out] out_p  untouched on failure
 * @return GR_OK, GR_E_INVALID (NULL), GR_E_UNSUPPORTED (a link without the engine: sim://)
 */
int gr_link_proto(gr_link_t *link, gr_proto_t **out_p);

/* gr_link_ops_t entries for a backend whose ctx is a gr_proto_t (the thin backends' tables). */
void gr_proto_op_close(void *ctx);
int gr_proto_op_read32(void *ctx, uint32_t offset, uint32_t *out_value);
int gr_proto_op_write32(void *ctx, uint32_t offset, uint32_t value);
int gr_proto_op_ap_read(void *ctx, uint64_t offset, void *dst, size_t bytes);
int gr_proto_op_ap_write(void *ctx, uint64_t offset, const void *src, size_t bytes);
int gr_proto_op_dma_alloc(void *ctx, size_t bytes, gr_dma_buf_t *out_buf);
int gr_proto_op_dma_free(void *ctx, const gr_dma_buf_t *buf);
/** The device's DMA requests and the answers go into the link's log (gr_link_ops_t.set_txlog). */
void gr_proto_op_set_txlog(void *ctx, gr_txlog_t *log);
int gr_proto_op_wait_irq(void *ctx, uint32_t timeout_us, bool *out_raised);
int gr_proto_op_wait_irq_event(void *ctx, uint32_t timeout_us, bool *out_raised);
int gr_proto_op_read32_batch(void *ctx, const uint32_t *offsets, unsigned count, uint32_t *out_values);
int gr_proto_op_ap_write_posted(void *ctx, uint64_t offset, const void *src, size_t bytes);
uint32_t gr_proto_op_caps(void *ctx);
void gr_proto_op_describe(void *ctx, char *buf, size_t len);
uint32_t gr_proto_op_dma_wait_cycles(void *ctx); /* HELLO_RSP's DmaTimeout (0 while down) */
uint32_t gr_proto_op_dead_ms(void *ctx);         /* the URI's dead_ms */
int gr_proto_op_bind(void *ctx, unsigned op, char *owner, size_t owner_len);

#ifdef __cplusplus
}
#endif

#endif
