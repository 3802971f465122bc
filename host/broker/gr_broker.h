/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_broker.h: the broker (host/broker/README.md). The client side: the public calls of
 * gr_alloc.h and gr_submit.h on an adapter opened over broker:// (gr_link_broker.h), which the
 * OS stand-in hands over to these at the top of each call; the server side: gr_broker_serve,
 * the daemon's loop (gpuref-broker, and gpuref-simd --broker).
 */
#ifndef GPUREF_GR_BROKER_H
#define GPUREF_GR_BROKER_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuref/gr_alloc.h"
#include "gpuref/gr_submit.h"
#include "gr_link.h"

/* True when dev's adapter is a broker client's (the OS stand-in's files, which know the object). */
#define GR_BROKER_DEV(dev) ((dev) && (dev)->process && (dev)->process->adapter->broker)

/* ---- client: each has the signature of the public call it stands for -------------------- */

/** True when uri (NULL or "": $GR_DEVICE) is a broker:// URI. */
bool gr_brk_uri(const char *uri);
/** An adapter whose driver stack is a broker's: over link, or a link opened from uri (then
 *  owned) when link is NULL. */
gr_status_t gr_brk_adapter_start(const char *uri, gr_link_t *link, gr_adapter_t **out_adapter);
void gr_brk_adapter_close(gr_adapter_t *ad);
gr_status_t gr_brk_adapter_segments(gr_adapter_t *ad, gr_segment_info_t *out, uint32_t max, uint32_t *out_count);
gr_status_t gr_brk_segment_walk(gr_adapter_t *ad, uint32_t segment, gr_segment_walk_fn fn, void *ctx);
gr_status_t gr_brk_adapter_stats(gr_adapter_t *ad, gr_adapter_stats_t *out);
gr_status_t gr_brk_process_create(gr_adapter_t *ad, gr_process_t **out_process);
void gr_brk_process_destroy(gr_process_t *p);
gr_status_t gr_brk_gpu_device_create(gr_process_t *p, gr_gpu_device_t **out_device);
void gr_brk_gpu_device_destroy(gr_gpu_device_t *d);
gr_status_t gr_brk_alloc_create(gr_gpu_device_t *dev, const gr_resource_desc_t *resource, const gr_alloc_desc_t *descs,
                                uint32_t count, gr_alloc_t *out_handles, gr_shared_t *out_shared);
gr_status_t gr_brk_alloc_open(gr_gpu_device_t *dev, gr_shared_t shared, uint32_t flags, uint32_t subresource_index,
                              gr_alloc_t *out_handles, uint32_t max, uint32_t *out_count, gr_alloc_info_t *out_info);
gr_status_t gr_brk_alloc_close(gr_gpu_device_t *dev, gr_alloc_t h);
gr_status_t gr_brk_alloc_destroy(gr_gpu_device_t *dev, gr_alloc_t h);
gr_status_t gr_brk_alloc_lock(gr_gpu_device_t *dev, gr_alloc_t h, uint32_t flags, bool whole, uint64_t offset,
                              uint64_t bytes, void **out_ptr);
gr_status_t gr_brk_alloc_unlock(gr_gpu_device_t *dev, gr_alloc_t h);
gr_status_t gr_brk_alloc_query(gr_gpu_device_t *dev, gr_alloc_t h, gr_alloc_info_t *out);
gr_status_t gr_brk_alloc_residency(gr_gpu_device_t *dev, const gr_alloc_t *handles, uint32_t count, bool evict);
gr_status_t gr_brk_gpu_device_probe(gr_gpu_device_t *dev, uint64_t va, bool write, gr_gpu_probe_t *out);
gr_status_t gr_brk_context_create(gr_gpu_device_t *dev, const void *priv, uint32_t priv_size, gr_context_t *out);
gr_status_t gr_brk_context_destroy(gr_gpu_device_t *dev, gr_context_t h);
gr_status_t gr_brk_context_info(gr_gpu_device_t *dev, gr_context_t h, gr_context_info_t *out);
gr_status_t gr_brk_dma_buffer_create(gr_gpu_device_t *dev, gr_context_t ctx, uint32_t bytes, gr_dma_buffer_t *out);
gr_status_t gr_brk_dma_buffer_info(gr_gpu_device_t *dev, gr_dma_buffer_t h, gr_dma_buffer_info_t *out);
gr_status_t gr_brk_dma_buffer_destroy(gr_gpu_device_t *dev, gr_dma_buffer_t h);
gr_status_t gr_brk_submit(gr_gpu_device_t *dev, gr_context_t h, const gr_submission_t *s, uint64_t *out_fence);
gr_status_t gr_brk_wait(gr_gpu_device_t *dev, gr_context_t h, uint64_t fence, uint64_t timeout_cycles);
gr_status_t gr_brk_cancel(gr_gpu_device_t *dev, gr_context_t h, uint32_t *out_cancelled);
gr_status_t gr_brk_preempt(gr_gpu_device_t *dev, gr_context_t h);
gr_status_t gr_brk_set_scheduling(gr_adapter_t *ad, const gr_sched_params_t *p);
gr_status_t gr_brk_sched_stats(gr_adapter_t *ad, gr_sched_stats_t *out);
gr_status_t gr_brk_cycles(gr_adapter_t *ad, uint64_t *out_cycles);
gr_status_t gr_brk_timeline(gr_adapter_t *ad, uint64_t since, gr_sched_event_t *out_events, size_t cap, size_t *out_n,
                            uint64_t *out_next);
/* VidMm's test reservation (vidmm_residency.h), made in the broker: its own user's only. */
gr_status_t gr_brk_test_reserve(gr_adapter_t *ad, uint32_t segment, bool whole, uint64_t lo, uint64_t hi,
                                uint64_t leave_bytes);
void gr_brk_test_unreserve(gr_adapter_t *ad);

/* ---- server --------------------------------------------------------------------------------- */

typedef struct gr_broker_opts {
    const char *socket_path; /**< where to listen (an existing socket file is replaced) */
    const char *group;       /**< NULL: the socket is 0600; a group name or number: 0660, that group */
    bool quiet;              /**< no log of clients coming and going on stderr */
    volatile int *stop;      /**< the loop returns when *stop becomes non-zero (a signal handler's) */
} gr_broker_opts_t;

/**
 * Starts the one driver stack on the device at link (gr_adapter_open_link; the caller keeps the
 * link and closes it after) and serves it to clients on a Unix socket until *opts->stop: a
 * thread per connection, each connection's processes its own. Lends the device raw to one
 * client at a time while nobody uses it (host/broker/README.md).
 * @return GR_OK after a stop, gr_adapter_open_link's errors, GR_E_IO (the socket cannot be
 *         made; gr_last_error() says why), GR_E_NOT_FOUND (no such group)
 */
gr_status_t gr_broker_serve(gr_link_t *link, const gr_broker_opts_t *opts);

/* ---- the driver stack's side, for the server (host/dxgk/dxgk_adapter.c) --------------------- */

/** gr_adapter_open_link; vram_used: a driver stack ran on the device before, so VRAM holds what
 *  its clients left whatever the link says (VidMm zeroes pages before handing them out). */
gr_status_t gr_brk_driver_start(gr_link_t *link, bool vram_used, gr_adapter_t **out_adapter);
/** gr_adapter_close; keep_binding: the link keeps the device's binding (a raw session follows). */
void gr_brk_driver_stop(gr_adapter_t *adapter, bool keep_binding);

#endif
