/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_link_broker.h: broker://, a Unix stream socket to gpuref-broker, the daemon that owns a
 * device and its one driver stack and serves the gr_* API to many processes (host/broker/).
 *
 *   broker://PATH   PATH: the broker's socket, broker:///run/gpuref/gpu0.sock (absolute) or
 *                   broker://build/b.sock (relative)
 *
 * As a link it reads registers (read32, through the broker's driver stack) and nothing else:
 * write32, ap_read, ap_write, dma_alloc and wait_irq fail with GR_E_BUSY or GR_E_UNSUPPORTED
 * and say why (the broker owns the device: a raw write or an aperture access could reach
 * another process's memory). An adapter started over it (gr_adapter_open,
 * gr_adapter_open_link) forwards every call of the allocation and submission API to the broker
 * (host/broker/gr_broker_client.c) through gr_link_broker_call.
 *
 * Contract: open fails with GR_E_NO_DEVICE when nothing listens at PATH, GR_E_MISMATCH when the
 * broker speaks another version or layout (gr_broker_wire.h). Calls block until the broker
 * answers; one call at a time per link (a gr_wait holds the link until it returns). A broker
 * that goes away makes every call GR_E_LINK.
 */
#ifndef GPUREF_GR_LINK_BROKER_H
#define GPUREF_GR_LINK_BROKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gr_link.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const gr_link_ops_t gr_link_broker_ops;

/** True when link is a broker:// link. */
bool gr_link_is_broker(gr_link_t *link);

/**
 * One request and its answer, under the link's lock.
 * @param req, req_len       the op's fixed part; tail, tail_len: what follows it (may be NULL/0)
 * @param tail2, tail2_len   a second tail after the first (may be NULL/0)
 * @param rsp, rsp_len       where the answer's fixed part goes (exactly rsp_len bytes expected)
 * @param rsp_tail, rsp_tail_cap, out_rsp_tail_len  the rest of the answer (may be NULL/0)
 * @return the broker's status (its words in gr_last_error() on failure), GR_E_LINK (the socket
 *         failed: the broker went away), GR_E_IO (an answer of the wrong size)
 */
int gr_link_broker_call(gr_link_t *link, uint32_t op, const void *req, size_t req_len, const void *tail,
                        size_t tail_len, const void *tail2, size_t tail2_len, void *rsp, size_t rsp_len,
                        void *rsp_tail, size_t rsp_tail_cap, size_t *out_rsp_tail_len);

#ifdef __cplusplus
}
#endif

#endif
