/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_proto_bind.h: the device end's binding (bridge/PROTOCOL.md, "Binding") for a software
 * device end that serves several links: gpuref-simd's clients. One gr_proto_bind_t per device;
 * each link is named by an opaque pointer of its owner's (its session). Not thread-safe, as
 * gr_proto_dev.
 */
#ifndef GPUREF_GR_PROTO_BIND_H
#define GPUREF_GR_PROTO_BIND_H

#include <stdbool.h>
#include <stdint.h>

#include "gr_proto_dev.h"

typedef struct gr_proto_bind {
    const void *owner;  /**< the link holding the binding (NULL: nobody) */
    uint32_t pid;       /**< as the owner's BIND gave it */
    uint32_t host[8];   /**< ... its host name, 32 bytes */
} gr_proto_bind_t;

/** A BIND frame from link `who` (d its device end): acted on and answered. *inout_forced: the
 *  link's force mark. */
void gr_proto_bind_frame(gr_proto_bind_t *b, const void *who, bool *inout_forced, gr_proto_dev_t *d,
                         const uint32_t *w, uint16_t len);

/** Whether a request (RD32, WR32, AP_RD, AP_WR) from link `who` is refused; if so its answer
 *  (RESP 1, REFUSED) has been sent and the request must not be performed. */
bool gr_proto_bind_refuses(const gr_proto_bind_t *b, const void *who, bool forced, gr_proto_dev_t *d,
                           uint8_t type, const uint32_t *w, uint16_t len);

/** Link `who` reset or went away: its binding ends. */
void gr_proto_bind_drop(gr_proto_bind_t *b, const void *who);

#endif
