/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_device.h: a gpuref device opened over a link: identification, register access, reset.
 */
#ifndef GPUREF_GR_DEVICE_H
#define GPUREF_GR_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuref/gr_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gr_device gr_device_t;
typedef struct gr_link gr_link_t;

/** What the identification header says. */
typedef struct gr_device_info {
    uint32_t magic;
    uint8_t version_major;
    uint8_t version_minor;
    uint16_t version_patch;
    uint32_t caps;        /**< ID_CAPS */
    uint32_t regmap_hash; /**< ID_REGMAP as read from the device */
    bool regmap_matches;  /**< equal to the hash this host was built with */
    uint8_t board;        /**< ID_BUILD.BOARD */
    uint32_t build_stamp; /**< ID_BUILD.STAMP */
    char transport[128];  /**< the link's description */
} gr_device_info_t;

/** gr_device_open flags. */
enum {
    /** Open even if the device's register map differs from this host's (bring-up, peek/poke). */
    GR_OPEN_ANY_MAP = 1u << 0,
};

/**
 * Opens the device at a URI (NULL: $GR_DEVICE, else "sim://") and checks its header.
 * @param[out] out_dev  untouched on failure
 * @return GR_OK, GR_E_BAD_URI (see gr_device_error()), GR_E_NO_DEVICE (ID_MAGIC is wrong: not a
 *         gpuref device), GR_E_MISMATCH (another MAJOR version or register map; the message says
 *         which), or a link error
 */
GR_API gr_status_t gr_device_open(const char *uri, unsigned flags, gr_device_t **out_dev);

/** Closes the device and its link; NULL is allowed. */
void gr_device_close(gr_device_t *dev);

/** Detail of the last failure in this thread, gr_adapter_open's and the transports' included:
 *  the text gr_last_error() (gpuref/gr_status.h) returns; never NULL. */
const char *gr_device_error(void);

/** Reads the identification header. @param[out] out_info untouched on failure */
GR_API gr_status_t gr_device_info(gr_device_t *dev, gr_device_info_t *out_info);

/**
 * One 32-bit register read or write of BAR0.
 * @return GR_OK, GR_E_ALIGN, GR_E_RANGE (checked before the link is touched), GR_E_BUS (the
 *         device answered with an error: a hole, for instance), GR_E_TIMEOUT, link errors
 */
GR_API gr_status_t gr_reg_read(gr_device_t *dev, uint32_t offset, uint32_t *out_value);
GR_API gr_status_t gr_reg_write(gr_device_t *dev, uint32_t offset, uint32_t value);

/**
 * Soft-resets the core (RESET_CTRL.CORE), waits for IRQ_STATE.RESET_DONE by polling (an
 * interrupt can be lost; the register cannot), then clears it. Every register is back at its
 * reset value afterwards.
 * @return GR_OK, GR_E_TIMEOUT (RESET_DONE did not come within timeout_us), link errors
 */
GR_API gr_status_t gr_device_soft_reset(gr_device_t *dev, uint32_t timeout_us);

/** Waits for the interrupt line (0: just sample). @param[out] out_raised line level at return */
GR_API gr_status_t gr_device_wait_irq(gr_device_t *dev, uint32_t timeout_us, bool *out_raised);

/**
 * The link's state and counters (gr_device_link_stats). A framed link (simd://, uart://, usb://)
 * speaks bridge/PROTOCOL.md: every field applies, HELLO_RSP's values while the link is up
 * (0 while it is down) and counters that only grow while the device is open. sim:// and
 * pcie:// are not framed (no frames, CRCs or replays: the RTL in this process, a bus): framed
 * is false, up is true, and every field after kind is 0. Fields are only ever appended.
 */
typedef struct gr_link_stats {
    char scheme[16];           /**< "sim", "simd", "uart", "usb", "pcie", or a registered one */
    bool framed;               /**< the link speaks bridge/PROTOCOL.md */
    bool up;                   /**< framed: up now (HELLO answered, no reset since); else true */
    char kind[14];             /**< framed: the link's kind as its device end names it (HELLO_RSP
                                    Link): "stream", "uart", "ft601", "ft2232h" (simd:// is a
                                    stream, the server's socket, whatever board it runs); else "" */
    uint16_t proto_major, proto_minor; /**< the protocol version the device speaks */
    uint16_t max_payload;      /**< MaxPayload: 32-bit words one frame may carry */
    uint16_t rx_window;        /**< RxWindow: frames the device takes before an ACK */
    uint32_t dma_tags;         /**< DmaTags: DMA requests the device keeps in flight */
    uint32_t core_hz;          /**< the device's core clock, Hz */
    uint64_t tx_frames, rx_frames; /**< frames sent, good frames received (every type) */
    uint64_t tx_bytes, rx_bytes;   /**< bytes written to and read from the link */
    uint64_t crc_errors;       /**< frames received with a bad header or payload CRC */
    uint64_t naks_sent, naks_received;
    uint64_t retransmissions;  /**< frames sent again (after a NAK or a replay timeout) */
    uint64_t replay_timeouts;  /**< times the replay timer fired */
    uint64_t duplicates;       /**< frames received twice, dropped */
    uint64_t out_of_order;     /**< frames past a gap, dropped */
    uint64_t keepalives;       /**< KEEPALIVE frames sent on an idle link */
    uint64_t timeouts;         /**< calls the device did not answer in time (GR_E_TIMEOUT) */
    uint64_t late_answers;     /**< answers to no outstanding request (after a timeout) */
    uint64_t link_resets;      /**< RESET rounds (the open's included) */
    uint64_t link_downs;       /**< times the link went down */
    uint64_t round_trips;      /**< calls that waited for the device */
    uint64_t requests;         /**< request frames sent (RD32, WR32 batches, BAR1 reads and writes) */
    uint64_t posted_writes;    /**< register writes sent posted, in batches */
    uint64_t dma_reads, dma_writes; /**< the device's DMA requests the host served */
    uint64_t dma_errors;       /**< ... answered DECERR (outside every DMA buffer) */
    uint64_t dma_bytes;        /**< bytes the device read and wrote by DMA */
    uint64_t irqs;             /**< interrupt messages */
} gr_link_stats_t;

GR_STATIC_ASSERT(sizeof(gr_link_stats_t) == 240, "gr_link_stats_t grows only by appending");

/**
 * The link's state and counters, read without touching the device (a link that is down says
 * so; the call does not bring it up).
 * @param[out] out_stats  untouched on failure
 * @return GR_OK, GR_E_INVALID (NULL)
 */
GR_API gr_status_t gr_device_link_stats(gr_device_t *dev, gr_link_stats_t *out_stats);

/** The link under the device (for the conformance suite and transport-level tools). */
gr_link_t *gr_device_link(gr_device_t *dev);

#ifdef __cplusplus
}
#endif

#endif
