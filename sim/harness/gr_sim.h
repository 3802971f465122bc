/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_sim.h: gpu_core verilated, with AXI4 models of host memory and VRAM, behind a C API.
 *
 * The bridge's sim:// backend is the main user; tests may use it directly. One gr_sim_t is one
 * device; several may exist at once. Not thread-safe: one thread drives a given gr_sim_t.
 * Time advances only inside these calls (mmio, run, wait_irq); the clock is nominally 100 MHz.
 * Environment: GR_SIM_SEED, GR_SIM_FST, GR_SIM_AXILOG, GR_SIM_AXI, GR_SIM_STALL_RUN (see
 * gr_sim_config_t), GR_SIM_REORDER=0 (the memory models keep responses of different AXI IDs in
 * order too). See README.md.
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

/**
 * The write order the memory models (m_host and m_vram) impose, each one a legal AXI4 slave
 * may choose (IHI0022E A3.3.1); gpu_core must work with every one. The names are those of
 * $GR_SIM_AXI and the sim:// key axi=.
 */
typedef enum gr_sim_axi_order {
    GR_SIM_AXI_DEFAULT = 0,   /**< $GR_SIM_AXI, else GR_SIM_AXI_ANY */
    GR_SIM_AXI_ANY,           /**< "any": AW and W taken independently, W may come first */
    GR_SIM_AXI_AWAITW,        /**< "awaitw": AWREADY only once a W beat of the burst is in */
    GR_SIM_AXI_AWAITWLAST,    /**< "awaitwlast": AWREADY only once the burst's last W beat is in */
    GR_SIM_AXI_WAWAITAW,      /**< "wawaitaw": WREADY only once the burst's AW is in */
} gr_sim_axi_order_t;

/** Options; zero-initialise and set what matters. Environment variables fill what is left 0/NULL. */
typedef struct gr_sim_config {
    uint64_t seed;           /**< random latency and backpressure; 0: $GR_SIM_SEED (decimal or
                                  0x hex; 0 there means 1), else 1 */
    uint64_t vram_bytes;     /**< VRAM size: the sparse model's and gpu_core's strap
                                  (vram_bytes_i, so MC_VRAM_SIZE reports it): 128 KiB..512 MiB
                                  (the VramBytes it is verilated with) in whole 64 KiB; 0: 512 MiB */
    unsigned stall_pct;      /**< 0..90: percent of cycles a model or the CSR driver stalls; 0: 25 */
    unsigned max_latency;    /**< extra cycles (0..N, N <= 1000) a model waits before answering; 0: 8 */
    bool no_random;          /**< true: no stalls, no latency, no reordering across AXI IDs
                                  (stall_pct/max_latency ignored; axi_order still applies) */
    gr_sim_axi_order_t axi_order; /**< the memory models' write order; 0: $GR_SIM_AXI ("any",
                                  "awaitw", "awaitwlast", "wawaitaw"), else any */
    unsigned stall_run;      /**< 1..1000: a memory model's AWREADY/WREADY/ARREADY stall lasts
                                  1..stall_run cycles (long stretches of READY low); 0:
                                  $GR_SIM_STALL_RUN, else 1 */
    const char *fst_path;    /**< waveform file, VCD if it ends in ".vcd", else FST (with a GTKWave
                                  save file next to it: gr_sim_trace_start); NULL: $GR_SIM_FST;
                                  NULL or "": none */
    const char *axilog_path;  /**< AXI transaction log; NULL: $GR_SIM_AXILOG; NULL or "": none */
    uint64_t trace_from;     /**< the waveform records cycles trace_from..trace_to (both
                                  included; gr_sim_cycle's count, reset cycles 0..7); 0: from reset */
    uint64_t trace_to;       /**< 0: to the end; else at least trace_from */
} gr_sim_config_t;

/**
 * The name of a write order ("any", ...), or NULL for a value outside gr_sim_axi_order_t
 * (GR_SIM_AXI_DEFAULT included).
 */
const char *gr_sim_axi_order_name(gr_sim_axi_order_t order);

/**
 * The write order named name (as gr_sim_axi_order_name gives it).
 * @param[out] out_order  untouched on failure
 * @return GR_OK, GR_E_INVALID (unknown name, a NULL argument)
 */
int gr_sim_axi_order_parse(const char *name, gr_sim_axi_order_t *out_order);

/**
 * Builds the device, holds reset for 8 cycles and releases it (gr_sim_cycle() is 8 then).
 * @param cfg  NULL: all defaults, as a zeroed config
 * @param[out] out_sim  the new simulation; untouched on failure
 * @return GR_OK, GR_E_INVALID (bad config, bad $GR_SIM_SEED, $GR_SIM_REORDER, $GR_SIM_AXI or
 *         $GR_SIM_STALL_RUN, out_sim NULL), GR_E_IO (waveform or log file cannot be opened), GR_E_NO_MEMORY;
 *         gr_sim_error() says which and why
 */
int gr_sim_create(const gr_sim_config_t *cfg, gr_sim_t **out_sim);

/**
 * Why this thread's last gr_sim_create (or gr_sim_trace_start, gr_sim_trace_stop) failed, in
 * words: a file's path, the environment variable it came from and the system's reason ("cannot
 * open FST file 'x.fst' from GR_SIM_FST: No such file or directory"), or the bad setting or
 * variable with its accepted range ("GR_SIM_STALL_RUN='0' is out of range (accepted: 1..1000,
 * decimal or 0x hex)").
 * @return never NULL; "no error" after a success
 */
const char *gr_sim_error(void);

/** Finishes the waveform and log, frees everything. NULL is allowed. */
void gr_sim_destroy(gr_sim_t *sim);

/** The seed in use (after environment defaults), to print with a failure. */
uint64_t gr_sim_seed(const gr_sim_t *sim);

/** AXI protocol violations the models have found so far on every port (csr, host, vram and
 *  the BAR1 master's checks of s_ap), summed; each port's first is also printed on stderr.
 *  0 for NULL. */
uint64_t gr_sim_violations(const gr_sim_t *sim);

/**
 * One 32-bit read of BAR0 over the AXI4-Lite CSR port.
 * Alignment and range are checked first, without a bus cycle. After GR_E_TIMEOUT the access stays
 * on the bus (AXI cannot take it back); the next access first gives it another 10000 cycles and
 * discards its answer, else fails with GR_E_TIMEOUT too.
 * @return GR_OK, GR_E_INVALID (sim or out_value NULL), GR_E_ALIGN (offset not 4-aligned),
 *         GR_E_RANGE (offset >= 0x10000, past BAR0),
 *         GR_E_BUS (SLVERR/DECERR; *out_value untouched), GR_E_TIMEOUT (no response in 10000 cycles)
 */
int gr_sim_mmio_read(gr_sim_t *sim, uint32_t offset, uint32_t *out_value);

/** One 32-bit write of BAR0, all strobes set. Same errors as gr_sim_mmio_read. */
int gr_sim_mmio_write(gr_sim_t *sim, uint32_t offset, uint32_t value);

/** As gr_sim_mmio_write, with explicit write strobes (for tests of partial writes).
 *  GR_E_INVALID if strb has bits above 0xf. */
int gr_sim_mmio_write_strb(gr_sim_t *sim, uint32_t offset, uint32_t value, uint8_t strb);

/** Runs the clock for that many cycles. NULL: nothing. */
void gr_sim_run(gr_sim_t *sim, uint64_t cycles);

/** Cycles since gr_sim_create (the reset cycles included). */
uint64_t gr_sim_cycle(const gr_sim_t *sim);

/** The irq_o level now. */
bool gr_sim_irq(const gr_sim_t *sim);

/**
 * Runs until irq_o is high or max_cycles have passed (no cycle at all if it is high already).
 * @param[out] out_raised  true if irq_o is high on return
 * @return GR_OK (raised or not), GR_E_INVALID (sim or out_raised NULL)
 */
int gr_sim_wait_irq(gr_sim_t *sim, uint64_t max_cycles, bool *out_raised);

/** Waveform dumping on or off from now on, inside the window (needs an open waveform; on when
 *  one is opened). GR_E_UNSUPPORTED without one, GR_E_INVALID for NULL. */
int gr_sim_trace(gr_sim_t *sim, bool on);

/** A waveform file as gr_sim_trace_info and gr_sim_trace_stop describe it. */
typedef struct gr_sim_trace_info {
    bool open;              /**< being written (gr_sim_trace_stop: false, it is closed now) */
    bool vcd;               /**< VCD; else FST */
    char path[1024];        /**< the waveform file */
    char gtkw_path[1024];   /**< the GTKWave save file written next to it */
    uint64_t from, to;      /**< the window in cycles (to: UINT64_MAX for no end) */
    bool recorded;          /**< at least one cycle was recorded */
    uint64_t first_cycle;   /**< the first and last cycle recorded (when recorded) */
    uint64_t last_cycle;
} gr_sim_trace_info_t;

/**
 * Starts writing a waveform from now on: VCD if path ends in ".vcd" (any case), else FST; every
 * signal of gpu_core, cycles from..to (both included; 0 and 0: every cycle from now on). A
 * GTKWave save file goes next to it at once (path with its extension replaced by ".gtkw"):
 * gpu_core's ports, DMA engine and MMU signals in groups, the waveform named as its dumpfile.
 * Each cycle recorded is two timestamps, the falling edge (cycle * 10 ns) and the rising one
 * (5 ns later), in picoseconds. A VCD is made from an FST recorded beside it (path + ".part.fst",
 * removed) when the waveform is closed. One waveform at a time per gr_sim_t.
 * @return GR_OK, GR_E_INVALID (NULL, empty path, from after to), GR_E_BUSY (one is open),
 *         GR_E_IO (a file cannot be written: gr_sim_error() names it and why)
 */
int gr_sim_trace_start(gr_sim_t *sim, const char *path, uint64_t from, uint64_t to);

/**
 * Closes the waveform (a VCD is written now) and says what it holds.
 * @param[out] out_info  may be NULL
 * @return GR_OK, GR_E_INVALID (NULL sim), GR_E_UNSUPPORTED (none open), GR_E_IO (the VCD could
 *         not be written: gr_sim_error() says why; the waveform is closed all the same)
 */
int gr_sim_trace_stop(gr_sim_t *sim, gr_sim_trace_info_t *out_info);

/** The open waveform, if any (info.open false: none). @return GR_OK, GR_E_INVALID (NULL) */
int gr_sim_trace_info(const gr_sim_t *sim, gr_sim_trace_info_t *out_info);

/**
 * Host memory the device may reach on m_host (the DMA region): page-aligned, zero-filled, rounded
 * up to whole pages (all of which the device may use). Bus addresses come from a private space
 * (as behind an IOMMU) from 0x1_0000_0000 up, with an unmapped guard page after each buffer, and
 * are never handed out twice; an access outside every live buffer answers DECERR on m_host.
 * @param[out] out_cpu  pointer the host uses
 * @param[out] out_bus  address the device uses
 * @return GR_OK, GR_E_INVALID (bytes 0, a NULL argument), GR_E_NO_MEMORY; outputs untouched on failure
 */
int gr_sim_dma_alloc(gr_sim_t *sim, size_t bytes, void **out_cpu, uint64_t *out_bus);

/** Frees a buffer by its bus address. GR_E_NOT_FOUND if no buffer starts there, GR_E_INVALID for NULL. */
int gr_sim_dma_free(gr_sim_t *sim, uint64_t bus);

/** One burst of gpu_core on m_host, as the host memory model completed it: write (the device
 *  wrote host memory) or read, the first byte's bus address, the bytes (a write's leading and
 *  trailing bytes without a strobe left out), ok false when a beat answered an error. */
typedef void (*gr_sim_host_observer_t)(void *arg, bool write, uint64_t bus, const uint8_t *data, size_t bytes,
                                       bool ok);

/** fn(arg, ...) for every m_host burst from now on (NULL: none), on the thread that clocks the
 *  model, inside the call that does (sim://'s transaction log, gr_txlog.h). */
void gr_sim_set_host_observer(gr_sim_t *sim, gr_sim_host_observer_t fn, void *arg);

/** Host memory behind an IOMMU of the caller's (sim/vfio: VFIO_IOMMU_MAP_DMA): m_host reaches
 *  through it instead of the buffers of gr_sim_dma_alloc. Called on the thread that clocks the
 *  model. contains says whether every byte of [bus, bus + len) (len > 0) is reachable; an access
 *  where it says no gets DECERR. read and write are called only after contains said yes. */
typedef struct gr_sim_host_port {
    bool (*contains)(void *arg, uint64_t bus, uint64_t len);
    void (*read)(void *arg, uint64_t bus, void *dst, size_t len);
    void (*write)(void *arg, uint64_t bus, const void *src, size_t len);
    void *arg;
} gr_sim_host_port_t;

/** m_host through port from now on (copied; NULL: the model's own buffers again).
 *  @return GR_OK, GR_E_INVALID (NULL sim, or a port with a callback missing) */
int gr_sim_set_host_port(gr_sim_t *sim, const gr_sim_host_port_t *port);

/**
 * The CPU's access to BAR1 (the aperture into VRAM) through gpu_core's s_ap port, as AXI4
 * bursts of whole bus beats with strobes, at most 16 beats and never across 4 KiB.
 * @return GR_OK, GR_E_RANGE (past the 256 MiB window), GR_E_BUS (an error response: the
 *         aperture is not built in, or the window reaches past VRAM; dst untouched),
 *         GR_E_TIMEOUT, GR_E_INVALID
 */
int gr_sim_ap_read(gr_sim_t *sim, uint64_t offset, void *dst, size_t bytes);
int gr_sim_ap_write(gr_sim_t *sim, uint64_t offset, const void *src, size_t bytes);

/** VRAM backdoor (no bus cycles): for tests and for checking what the device wrote.
 *  Bytes never written read 0. GR_OK, GR_E_INVALID (NULL, bytes 0), GR_E_RANGE (past vram_bytes). */
int gr_sim_vram_read(gr_sim_t *sim, uint64_t addr, void *dst, size_t bytes);
int gr_sim_vram_write(gr_sim_t *sim, uint64_t addr, const void *src, size_t bytes);

/** Host-memory backdoor by bus address (no bus cycles): for tests that check what the device
 *  wrote in host memory they hold no pointer to. GR_OK, GR_E_INVALID (NULL, bytes 0),
 *  GR_E_RANGE (not inside one live buffer). */
int gr_sim_host_read(gr_sim_t *sim, uint64_t bus, void *dst, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
