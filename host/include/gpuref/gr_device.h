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

/** The link under the device (for the conformance suite and transport-level tools). */
gr_link_t *gr_device_link(gr_device_t *dev);

#ifdef __cplusplus
}
#endif

#endif
