/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_link_cocotb.h: cocotb://, a test-only gr_link backend whose operations are served by a
 * cocotb test (tb/unit/pcie/test_pcie_driver.py): BAR0 and BAR1 accesses become TLPs of
 * cocotbext-pcie's root complex, DMA buffers are root-complex memory, the interrupt is the MSI.
 *
 * Not part of libgpuref: tb/tb.mk builds it with libgpuref's PIC objects into
 * a shared library the test loads with ctypes.
 *
 * How the driver and the simulator meet: cocotb runs the simulation in one thread and lets a
 * thread it started (cocotb.external) call into the simulation only through cocotb.function
 * coroutines, one at a time, while the simulation waits for that thread otherwise. So the test
 * calls gr_link_cocotb_run in such a thread: it starts the driver's job in a thread of its own
 * and serves every cocotb:// operation of every driver thread (the job's, VidSch's worker) by
 * calling the installed callbacks, one after another, until the job returns. Simulated time
 * advances only inside those callbacks, as on sim://.
 *
 * URI: cocotb:// (no path, no parameters). Contract beyond gr_link.h: wait_irq's timeout is
 * simulated microseconds; it reports an MSI received since the last report (edge, latched).
 * Writes to BAR0 are posted: an error response to them is not seen. dma_alloc hands out
 * page-aligned, zeroed memory of the root complex.
 */
#ifndef GPUREF_GR_LINK_COCOTB_H
#define GPUREF_GR_LINK_COCOTB_H

#include <stddef.h>
#include <stdint.h>

#include "gr_link.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The test's side of each operation; each returns a gr_status_t and sets its outputs only on
 *  GR_OK. out_cpu is the address of the buffer's memory in this process. */
typedef struct gr_link_cocotb_cb {
    int (*read32)(uint32_t offset, uint32_t *out_value);
    int (*write32)(uint32_t offset, uint32_t value);
    int (*ap_read)(uint64_t offset, void *dst, size_t bytes);
    int (*ap_write)(uint64_t offset, const void *src, size_t bytes);
    int (*dma_alloc)(size_t bytes, uint64_t *out_cpu, uint64_t *out_bus);
    int (*dma_free)(uint64_t bus);
    int (*wait_irq)(uint32_t timeout_us, int *out_raised);
    /* optional (NULL: gr_link_cocotb_counts reports no TLPs): TLPs and their wire bytes on the
     * root port so far, out[0..3] = TLPs down, TLPs up, bytes down, bytes up */
    int (*tlp_counts)(uint64_t *out4);
} gr_link_cocotb_cb_t;

/**
 * Registers cocotb:// (gr_link_register) with these callbacks (copied).
 * @return GR_OK, GR_E_INVALID (NULL or a callback missing), as gr_link_register
 */
int gr_link_cocotb_install(const gr_link_cocotb_cb_t *cb);

/** A driver job: returns a gr_status_t. */
typedef int (*gr_link_cocotb_job_fn)(void *arg);

/**
 * Runs job(arg) in a thread of its own and serves cocotb:// operations until it returns. Call it
 * from a cocotb.external thread; operations outside it fail with GR_E_LINK.
 * @return the job's status, GR_E_BUSY (a run is under way), GR_E_INVALID (NULL job), or
 *         GR_E_NO_MEMORY (no thread)
 */
int gr_link_cocotb_run(gr_link_cocotb_job_fn job, void *arg);

/** The number of operations served since the library was loaded (the test reports it). */
uint64_t gr_link_cocotb_ops_served(void);

/** What crossed the link since the library was loaded (bench/link measures calls with it). */
typedef struct gr_link_cocotb_counts {
    uint64_t round_trips;          /**< read32 and ap_read served: the host waited for the device */
    uint64_t tlps_down, tlps_up;   /**< TLPs root complex -> device and back, the device's DMA
                                        requests and the completions to them included */
    uint64_t bytes_down, bytes_up; /**< their bytes on the wire: header, payload and 8 bytes of
                                        framing, sequence number and LCRC each (no DLLPs) */
} gr_link_cocotb_counts_t;

/**
 * Reads the counts; the TLP fields come from the tlp_counts callback (zero without one).
 * Call it inside gr_link_cocotb_run (the callback is served like an operation).
 * @param[out] out  untouched on failure
 * @return GR_OK, GR_E_INVALID (NULL), GR_E_LINK (outside gr_link_cocotb_run), or the callback's
 */
int gr_link_cocotb_counts(gr_link_cocotb_counts_t *out);

#ifdef __cplusplus
}
#endif

#endif
