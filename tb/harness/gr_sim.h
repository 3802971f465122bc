/*
 * gr_sim.h: gpu_core verilated, with AXI4 models of host memory and VRAM, behind a C API.
 *
 * The bridge's sim:// backend is the main user; tests may use it directly. One gr_sim_t is one
 * device; several may exist at once. Not thread-safe: one thread drives a given gr_sim_t.
 * Time advances only inside these calls (mmio, run, wait_irq); the clock is nominally 100 MHz.
 */
#ifndef GPUREF_GR_SIM_H
#define GPUREF_GR_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuref/gr_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gr_sim gr_sim_t;

/** Options; zero-initialise and set what matters. Environment variables fill what is left 0/NULL. */
typedef struct gr_sim_config {
    uint64_t seed;           /**< random latency and backpressure; 0: $GR_SIM_SEED, else 1 */
    uint64_t vram_bytes;     /**< VRAM model size, sparse; 0: 256 MiB */
    unsigned stall_pct;      /**< 0..90: percent of cycles a model or the CSR driver stalls; 0: 25 */
    unsigned max_latency;    /**< extra cycles (0..N) a model waits before answering; 0: 8 */
    bool no_random;          /**< true: no stalls and no latency (stall_pct/max_latency ignored) */
    const char *fst_path;    /**< FST waveform file; NULL: $GR_SIM_FST; NULL or "": none */
    const char *txlog_path;  /**< AXI transaction log; NULL: $GR_SIM_TXLOG; NULL or "": none */
} gr_sim_config_t;

/**
 * Builds the device, holds reset for 8 cycles and releases it.
 * @param[out] out_sim  the new simulation; untouched on failure
 * @return GR_OK, GR_E_INVALID (bad config), GR_E_IO (waveform or log file cannot be opened),
 *         GR_E_NO_MEMORY
 */
int gr_sim_create(const gr_sim_config_t *cfg, gr_sim_t **out_sim);

/** Finishes the waveform and log, frees everything. NULL is allowed. */
void gr_sim_destroy(gr_sim_t *sim);

/** The seed in use (after environment defaults), to print with a failure. */
uint64_t gr_sim_seed(const gr_sim_t *sim);

/**
 * One 32-bit read of BAR0 over the AXI4-Lite CSR port.
 * @return GR_OK, GR_E_ALIGN (offset not 4-aligned), GR_E_RANGE (past BAR0),
 *         GR_E_BUS (SLVERR/DECERR; *out_value untouched), GR_E_TIMEOUT (no response in 10000 cycles)
 */
int gr_sim_mmio_read(gr_sim_t *sim, uint32_t offset, uint32_t *out_value);

/** One 32-bit write of BAR0, all strobes set. Same errors as gr_sim_mmio_read. */
int gr_sim_mmio_write(gr_sim_t *sim, uint32_t offset, uint32_t value);

/** As gr_sim_mmio_write, with explicit write strobes (for tests of partial writes). */
int gr_sim_mmio_write_strb(gr_sim_t *sim, uint32_t offset, uint32_t value, uint8_t strb);

/** Runs the clock for that many cycles. */
void gr_sim_run(gr_sim_t *sim, uint64_t cycles);

/** Cycles since gr_sim_create. */
uint64_t gr_sim_cycle(const gr_sim_t *sim);

/** The irq_o level now. */
bool gr_sim_irq(const gr_sim_t *sim);

/**
 * Runs until irq_o is high or max_cycles have passed.
 * @param[out] out_raised  true if irq_o is high on return
 */
int gr_sim_wait_irq(gr_sim_t *sim, uint64_t max_cycles, bool *out_raised);

/** Waveform dumping on or off from now on (needs fst_path). GR_E_UNSUPPORTED without one. */
int gr_sim_trace(gr_sim_t *sim, bool on);

/**
 * Host memory the device may reach on m_host (the DMA region): page-aligned, zero-filled.
 * Bus addresses come from a private space (as behind an IOMMU); an access outside every
 * live buffer answers DECERR on m_host.
 * @param[out] out_cpu  pointer the host uses
 * @param[out] out_bus  address the device uses
 */
int gr_sim_dma_alloc(gr_sim_t *sim, size_t bytes, void **out_cpu, uint64_t *out_bus);

/** Frees a buffer by its bus address. GR_E_NOT_FOUND if no buffer starts there. */
int gr_sim_dma_free(gr_sim_t *sim, uint64_t bus);

/** VRAM backdoor (no bus cycles): for tests and for checking what the device wrote. */
int gr_sim_vram_read(gr_sim_t *sim, uint64_t addr, void *dst, size_t bytes);
int gr_sim_vram_write(gr_sim_t *sim, uint64_t addr, const void *src, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
