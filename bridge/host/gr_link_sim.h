/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_link_sim.h: the sim:// backend: gpu_core under Verilator in this process (sim/harness).
 *
 * URI: sim://[?seed=N&stall=PCT&latency=CYCLES&norandom=1&vram=BYTES[K|M|G]&trace=PATH
 *             &trace_from=CYCLE&trace_to=CYCLE&axilog=PATH&axi=ORDER&stallrun=CYCLES
 *             &freshvram=0|1]
 *   seed      1..2^64-1: random latency and backpressure of the bus models (default
 *             $GR_SIM_SEED, 0..2^64-1 with 0 as 1, else 1)
 *   stall     0..90, percent of cycles a model or the CSR driver stalls (default 25)
 *   latency   0..1000 extra cycles a model may wait before answering (default 8)
 *   norandom  0 or 1; 1: no stalls and no latency
 *   vram      VRAM size, 128K..512M in whole 64 KiB (default 512M): the VRAM model's and
 *             gpu_core's size strap, so MC_VRAM_SIZE reports it and the driver sizes its
 *             segments from it
 *   trace     record a waveform (default $GR_SIM_FST): VCD if PATH ends in .vcd, else FST, with a
 *             GTKWave save file next to it (PATH's extension replaced by .gtkw); fst= is the same
 *             key under its first name (not both)
 *   trace_from, trace_to
 *             record only cycles trace_from..trace_to, both included (gr_sim_cycle's count;
 *             decimal or 0x hex; trace_to 0 or absent: to the end); they need a waveform file
 *   axilog    write a log of every AXI handshake of gpu_core's ports (default $GR_SIM_AXILOG;
 *             not the link's txlog=, which every scheme takes: gr_txlog.h)
 *   axi       the write order the memory models impose, each one a legal AXI4 slave may choose
 *             (default $GR_SIM_AXI, else any): any (AW and W taken independently, W may come
 *             first), awaitw (AWREADY only once a W beat of the burst is in), awaitwlast (only
 *             once its last W beat is in), wawaitaw (WREADY only once the burst's AW is in)
 *   freshvram 0 or 1 (default 1): 0 leaves out GR_LINK_CAP_FRESH_VRAM, so the driver treats VRAM
 *             as a board's (zeroed before a page is first handed out): a run that does on
 *             sim:// what it does on a board, for gpuctl tracediff
 *   stallrun  1..1000: each READY stall of a memory model lasts 1..stallrun cycles (default
 *             $GR_SIM_STALL_RUN, else 1); with stall, long stretches of READY low
 * Numbers are decimal or 0x hex: no sign, no space, no leading '+'. A value out of range or
 * malformed (here or in $GR_SIM_SEED) fails with GR_E_BAD_URI and a message that names it and
 * the accepted range.
 *
 * Contract beyond gr_link.h: nothing blocks on the outside world; simulated time advances only
 * inside calls. wait_irq's timeout is simulated time at the nominal 100 MHz clock (100 cycles a
 * microsecond). read32/write32 return GR_E_TIMEOUT after 10000 cycles without a response.
 * dma_alloc hands out page-aligned, zeroed host memory served to the device on m_host.
 */
#ifndef GPUREF_GR_LINK_SIM_H
#define GPUREF_GR_LINK_SIM_H

#include "gr_link.h"
#include "gr_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const gr_link_ops_t gr_link_sim_ops;

/** The simulation behind a sim:// link (for tests: its VRAM and host-memory backdoors); NULL for
 *  another scheme. */
gr_sim_t *gr_link_sim_of(gr_link_t *link);

/* Waveforms opened and closed while the link is in use. Each runs under the link's lock, as the
 * operations do: another thread (the miniport's interrupt wait) may be clocking the same model,
 * and a gr_sim_t is driven by one thread at a time. Errors as gr_sim_trace_start and
 * gr_sim_trace_stop return them, their detail in gr_sim_error(); GR_E_INVALID for a link that is
 * not sim://. */

/** gr_sim_trace_start(path, whole run), then the new waveform and the cycle it starts at. */
int gr_link_sim_trace_start(gr_link_t *link, const char *path, gr_sim_trace_info_t *out_info, uint64_t *out_cycle);
/** gr_sim_trace_stop: the waveform is closed; out_info describes it. */
int gr_link_sim_trace_stop(gr_link_t *link, gr_sim_trace_info_t *out_info);
/** gr_sim_trace_info: the waveform being written, or out_info->open false. */
int gr_link_sim_trace_info(gr_link_t *link, gr_sim_trace_info_t *out_info);

/** Simulated cycles per microsecond of wait_irq timeout. */
#define GR_LINK_SIM_CYCLES_PER_US 100u

#ifdef __cplusplus
}
#endif

#endif
