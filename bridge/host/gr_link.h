/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_link.h: the transport between the host driver and a gpuref device.
 *
 * One ops table, one backend per file (gr_link_<scheme>.c), picked at run time by URI:
 *   sim://[?key=value&...]   the RTL in-process under Verilator (the default)
 *   simd://PATH[?...]        gpuref-simd, the simulation server, on a Unix socket
 *   uart://DEVICE[?baud=N&...]  a serial line to a board (or gpuref-simd --pty)
 *   usb://ft601, usb://ft2232h  a board's USB FIFO chip
 *   pcie://DDDD:BB:DD.F[?...]   a board on PCIe through VFIO (gr_link_pcie.h)
 * Byte-stream links speak bridge/PROTOCOL.md through one engine (gr_proto.h).
 * Every scheme also takes ?txlog=FILE: the host-side transaction log of the link (gr_txlog.h,
 * docs/txlog.md), kept here, above the backends, so that every link writes the same lines.
 * The miniport and the tools see the hardware only through these calls, so the same code runs
 * against the simulation and, with another backend, against a board.
 *
 * Contract of every operation (a backend's own header states what it adds):
 *   - Returns a gr_status_t; outputs go through out_ pointers and are untouched on failure.
 *   - read32/write32: one aligned 32-bit access to BAR0. They block until the device answers:
 *     GR_E_BUS when it answers with an error response, GR_E_TIMEOUT when it does not answer.
 *     (The byte-stream links post writes by default: an error comes back from a later call;
 *     gr_proto.h states the rule, ?posted=0 turns it off.)
 *     Offsets are checked before the link is touched (GR_E_ALIGN, GR_E_RANGE).
 *   - ap_read/ap_write: the CPU's access to BAR1, the aperture into VRAM (bytes, any length
 *     and alignment inside the window). GR_E_BUS when the device answers with an error.
 *   - dma_alloc/dma_free: host memory the device can reach (cpu pointer + bus address).
 *   - wait_irq: blocks until the interrupt line is high or timeout_us passes (0: just sample).
 *     An interrupt can be missed on some links; device state in registers or memory is the truth.
 *   - Calls on one gr_link_t from several threads are serialized: each runs alone, under the
 *     link's lock (a sequence of calls that must not be interleaved needs the caller's own
 *     lock, as the miniport's link_lock). gr_link_close must not race any other call.
 */
#ifndef GPUREF_GR_LINK_H
#define GPUREF_GR_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuref/gr_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GR_URI_MAX_PARAMS 16
#define GR_URI_TEXT_MAX 256
/** The key every scheme takes: ?txlog=FILE writes the link's transaction log (gr_txlog.h). */
#define GR_LINK_TXLOG_KEY "txlog"

/** A parsed device URI: scheme://path?key=value&key=value */
typedef struct gr_uri {
    char scheme[16];
    char path[GR_URI_TEXT_MAX];
    unsigned param_count;
    struct {
        char key[32];
        char value[GR_URI_TEXT_MAX];
    } params[GR_URI_MAX_PARAMS];
} gr_uri_t;

/** Link capabilities (gr_link_caps). */
enum {
    GR_LINK_CAP_DMA = 1u << 0,      /**< dma_alloc works: the device can reach host memory */
    GR_LINK_CAP_IRQ = 1u << 1,      /**< wait_irq sees the device's interrupt line */
    GR_LINK_CAP_WAVEFORM = 1u << 2, /**< simulation: waveforms can be recorded */
    GR_LINK_CAP_SIMULATED = 1u << 3, /**< the device is a simulation (time advances only in calls) */
    /** write32 is posted and no error response to it ever comes back (PCIe memory writes):
     *  GR_OK says the write left, not that the device took it */
    GR_LINK_CAP_POSTED_WRITES = 1u << 4,
    /** The open made the device: its VRAM holds nothing any earlier user wrote (sim://). Without
     * it VidMm zeroes VRAM before it first hands a page out (host/dxgk/README.md). */
    GR_LINK_CAP_FRESH_VRAM = 1u << 5,
    /** A read the device answers with an error (or not at all) returns all ones, as the root
     *  complex answers it, not GR_E_BUS: PCIe seen from user space (pcie://) */
    GR_LINK_CAP_READ_ERRORS_ALL_ONES = 1u << 6
};

struct gr_txlog; /* gr_txlog.h */

typedef struct gr_dma_buf {
    void *cpu;
    uint64_t bus;
    size_t bytes;
} gr_dma_buf_t;

typedef struct gr_link_ops {
    const char *scheme;               /**< "sim" */
    const char *summary;              /**< one line for help texts */
    const char *const *param_keys;    /**< accepted ?keys, NULL-terminated */
    int (*open)(const gr_uri_t *uri, void **out_ctx);
    void (*close)(void *ctx);
    int (*read32)(void *ctx, uint32_t offset, uint32_t *out_value);
    int (*write32)(void *ctx, uint32_t offset, uint32_t value);
    int (*ap_read)(void *ctx, uint64_t offset, void *dst, size_t bytes);
    int (*ap_write)(void *ctx, uint64_t offset, const void *src, size_t bytes);
    int (*dma_alloc)(void *ctx, size_t bytes, gr_dma_buf_t *out_buf);
    int (*dma_free)(void *ctx, const gr_dma_buf_t *buf);
    int (*wait_irq)(void *ctx, uint32_t timeout_us, bool *out_raised);
    uint32_t (*caps)(void *ctx);
    /** Writes a short description of the open link ("sim seed=1 vram=256MiB"). */
    void (*describe)(void *ctx, char *buf, size_t len);
    /** Optional (NULL: 0). The longest, in the device's core cycles, that one DMA request of
     *  the device may wait for its answer from host memory before the link itself fails it
     *  (HELLO_RSP's DmaTimeout on a byte-stream link); 0 where the device is on a bus with no
     *  such wait (sim://, PCIe). */
    uint32_t (*dma_wait_cycles)(void *ctx);
    /** Optional (NULL: GR_LINK_DEAD_MS_DEFAULT). How long, in wall ms, the layers above let
     *  this link's operations fail one after another before they give the device up for lost
     *  (a byte-stream link: its URI's dead_ms); 0: the link's operations never fail that way. */
    uint32_t (*dead_ms)(void *ctx);
    /** Optional (NULL: the log has no DMA lines, as on pcie://, where the device reaches host
     *  memory without the host seeing it). The link's transaction log (?txlog=, gr_txlog.h),
     *  once, right after open: the backend records each DMA request of the device and its
     *  answer into it (gr_txlog_dma) until close. */
    void (*set_txlog)(void *ctx, struct gr_txlog *log);
    /** Optional (NULL: the device needs no binding from this link: GR_OK). gr_link_bind. */
    int (*bind)(void *ctx, unsigned op, char *owner, size_t owner_len);
    /** Optional (NULL: read32 after read32). count BAR0 reads performed in order, in one round
     *  trip where the link can batch them (a byte-stream link's RD32 batch). */
    int (*read32_batch)(void *ctx, const uint32_t *offsets, unsigned count, uint32_t *out_values);
    /** Optional (NULL: ap_write). A BAR1 write that does not wait for the device's answer: it is
     *  performed before any later operation, and an error is reported by a later call, as a
     *  posted write32's (gr_proto.h). */
    int (*ap_write_posted)(void *ctx, uint64_t offset, const void *src, size_t bytes);
    /** Optional (NULL: GR_E_UNSUPPORTED). Waits until the device has told that its interrupt
     *  line is high, or timeout_us of wall time passes, without a round trip and without the
     *  link's lock: it may run while another thread uses the link (the backend guards it). A
     *  link whose device tells the line's changes by itself (a byte-stream link's IRQ
     *  messages) has it; GR_E_LINK while the link is down. */
    int (*wait_irq_event)(void *ctx, uint32_t timeout_us, bool *out_raised);
} gr_link_ops_t;

/** gr_link_bind's op (the values of bridge/PROTOCOL.md's BIND). */
enum { GR_LINK_BIND_RELEASE = 0, GR_LINK_BIND_TAKE = 1, GR_LINK_BIND_FORCE = 2 };

/** gr_link_dead_ms for a backend without the operation (10 s). */
#define GR_LINK_DEAD_MS_DEFAULT 10000u

typedef struct gr_link gr_link_t;

/**
 * Parses a URI. Accepted: scheme "://" [path] ["?" key=value ("&" key=value)*]: a scheme of
 * lower-case letters and digits, no '?' without a parameter, every key and value non-empty,
 * no key twice, at most GR_URI_MAX_PARAMS parameters, each part within its gr_uri_t field.
 * @param[out] out_uri  untouched on failure
 * @return GR_OK or GR_E_BAD_URI (gr_link_error() says what is wrong)
 */
int gr_uri_parse(const char *text, gr_uri_t *out_uri);

/** The value of ?key, or NULL. */
const char *gr_uri_param(const gr_uri_t *uri, const char *key);

/**
 * Opens the device a URI names (NULL: $GR_DEVICE, else "sim://").
 * @param[out] out_link  untouched on failure
 * @return GR_OK, GR_E_BAD_URI (malformed, unknown scheme or parameter; the message names the
 *         accepted schemes and keys, and starts with "GR_DEVICE='...':" when the URI came from
 *         there), or the backend's error
 */
int gr_link_open(const char *uri, gr_link_t **out_link);

/** Closes and frees; NULL is allowed. */
void gr_link_close(gr_link_t *link);

/** Detail of the last failure in this thread (URI errors, backend messages); never NULL.
 *  The same text as the public gr_last_error() (gpuref/gr_status.h). */
const char *gr_link_error(void);

/** "sim://, simd://, ..." (the schemes built into this binary and those registered, comma-separated). */
const char *gr_link_schemes(void);

/**
 * Adds a backend that is not built into the library (a test's transport: tb/unit/pcie's
 * cocotb://); gr_link_open finds it by ops->scheme from then on. ops must outlive every link.
 * Registering the same table again does nothing.
 * @return GR_OK, GR_E_INVALID (NULL ops or a mandatory operation missing), GR_E_BUSY (another
 *         table has that scheme), GR_E_NO_MEMORY (the few slots are full)
 */
int gr_link_register(const gr_link_ops_t *ops);

int gr_link_read32(gr_link_t *link, uint32_t offset, uint32_t *out_value);
int gr_link_write32(gr_link_t *link, uint32_t offset, uint32_t value);
int gr_link_ap_read(gr_link_t *link, uint64_t offset, void *dst, size_t bytes);
int gr_link_ap_write(gr_link_t *link, uint64_t offset, const void *src, size_t bytes);
int gr_link_dma_alloc(gr_link_t *link, size_t bytes, gr_dma_buf_t *out_buf);
int gr_link_dma_free(gr_link_t *link, const gr_dma_buf_t *buf);
int gr_link_wait_irq(gr_link_t *link, uint32_t timeout_us, bool *out_raised);
/** gr_link_ops_t.read32_batch: count reads in order (one round trip where the link batches). */
int gr_link_read32_batch(gr_link_t *link, const uint32_t *offsets, unsigned count, uint32_t *out_values);
/** gr_link_ops_t.ap_write_posted (ap_write on a link without it). */
int gr_link_ap_write_posted(gr_link_t *link, uint64_t offset, const void *src, size_t bytes);
/** gr_link_ops_t.wait_irq_event: NOT under the link's lock; GR_E_UNSUPPORTED without it. */
int gr_link_wait_irq_event(gr_link_t *link, uint32_t timeout_us, bool *out_raised);
uint32_t gr_link_caps(gr_link_t *link);
/** gr_link_ops_t.dma_wait_cycles of the open link (0 for NULL, or a backend without it). The
 *  miniport sizes the engine's watchdog from it (host/kmd/README.md). */
uint32_t gr_link_dma_wait_cycles(gr_link_t *link);
/** gr_link_ops_t.dead_ms of the open link (GR_LINK_DEAD_MS_DEFAULT for NULL or a backend
 *  without it). VidSch gives the device up for lost when its clock reads have failed for this
 *  long (host/dxgk/README.md). */
uint32_t gr_link_dead_ms(gr_link_t *link);
/**
 * Exclusive binding: one driver stack per device (bridge/PROTOCOL.md, "Binding"). TAKE binds the
 * device to this link (the adapter does, at open; released at close), RELEASE lets it go, FORCE
 * marks this link as writing without the binding (gpuctl --force). A backend without binding
 * (sim://: the device is this process's own; pcie://, usb://: see bridge/README.md) says GR_OK.
 * @param[out] owner  may be NULL: the owner ("pid N on HOST") when busy
 * @return GR_OK, GR_E_BUSY (another link holds it; gr_link_error() names the owner), link errors
 */
int gr_link_bind(gr_link_t *link, unsigned op, char *owner, size_t owner_len);
/** The backend's own context when the link is served by ops (a backend's accessors use it); else NULL. */
void *gr_link_backend_ctx(gr_link_t *link, const gr_link_ops_t *ops);
/** fn(backend context, arg) under the link's lock, as one more operation: a backend's own calls
 *  beyond gr_link_ops_t (sim://'s waveforms) that touch what the operations touch. Returns fn's
 *  result, or GR_E_INVALID when the link is not served by ops. */
int gr_link_backend_call(gr_link_t *link, const gr_link_ops_t *ops, int (*fn)(void *ctx, void *arg), void *arg);
const char *gr_link_scheme(const gr_link_t *link);
void gr_link_describe(gr_link_t *link, char *buf, size_t len);
/**
 * A marker in the link's transaction log, when one is open (?txlog=): the line "ddi TEXT"
 * (docs/txlog.md), TEXT formatted as printf does (at most 120 characters, no line breaks). The
 * miniport names each DDI it enters, so that gpuctl tracediff can say in which DDI step two logs
 * part and compare each DDI's accesses on their own. The calling thread stays in that DDI for
 * the log until it marks another: a line it writes after another thread's marker is preceded by
 * its own again. Nothing is formatted without a log; the device sees nothing either way.
 */
void gr_link_mark(gr_link_t *link, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** As gr_link_mark, but the marker line is written only before the thread's next line (a DDI
 *  that runs as often as the link's timing makes it, the interrupt routine: a marker only when
 *  it touched the link). */
void gr_link_mark_quiet(gr_link_t *link, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* For backends: record the detail gr_link_error() returns. */
void gr_link_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* For the layers above: forget the detail (an open starts with this, so that on failure it
 * can tell a lower layer's fresh detail from an old one), and whether one was recorded since. */
void gr_link_clear_error(void);
bool gr_link_has_error(void);

#ifdef __cplusplus
}
#endif

#endif
