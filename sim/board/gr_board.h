/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_board.h: a whole board in simulation, seen from the USB cable (or the UART line, or the
 * socket): fpga_core (gpu_core + link engine, bridge/rtl/) and the kind's PHY verilated
 * together with the model of its link chip (sim/models/), VRAM on m_vram, and the chip's "USB
 * side" as byte queues behind a C API.
 *
 * Kinds and what the host side is:
 *   stream   the link engine's 32-bit word stream itself, no chip (what gpuref-simd serves on
 *            a socket): bytes in, taken four at a time (least significant first), bytes out
 *   uart     the UART line model: bytes in, 8N1 on the wire at `baud`, bytes out
 *   ft601    the FT601 model's USB side: 32-bit words OUT, IN words grouped in USB packets
 *   ft2232h  the FT2232H model (link_phy_ft245): bytes OUT, IN packets of up to 512 bytes, each
 *            starting with the chip's two modem-status bytes
 *   limesdr  the exact LimeSDR Mini v2 top (boards/limesdr_mini_v2/limesdr_top.v: PLL, FT601
 *            PHY, fpga_core, 128 KiB of block RAM VRAM) with the FT601 model: as ft601
 *   ulx3s    the exact ULX3S top (boards/ulx3s/ulx3s_top.v: PLL, UART PHY, fpga_core, the SDRAM
 *            controller) with the UART line model and the SDRAM model: as uart
 * The last two are whole boards as their bitstreams are built: VRAM is inside them (the
 * harness's VRAM model and the backdoor below are not there), its size is the top's.
 *
 * Clocks: the core runs at 100 MHz (10 ns), on limesdr and ulx3s at their tops' 70 MHz
 * (14.286 ns) and 30 MHz (33.334 ns); the chip
 * has its own clock, not phase-locked to the core: FT601 9.97 ns (100.3 MHz), FT2232H 60 MHz
 * (16.667 ns); stream, uart and ulx3s run on the core clock. An event scheduler orders the
 * edges of both in simulated picoseconds (gr_board_time_ps).
 *
 * Time advances only inside gr_board_run/gr_board_run_until and the calls that say so. One
 * thread drives a given gr_board_t; several may exist in one process. See README.md.
 */
#ifndef GPUREF_GR_BOARD_H
#define GPUREF_GR_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuref/gr_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gr_board gr_board_t;

/**
 * The board: 1..4 are the link chips on the generic board (board.v; the HELLO_RSP `Link` field
 * uses the same numbers), 5 and 6 the exact tops of two boards, which speak over one of those
 * links (gr_board_link_kind).
 */
typedef enum gr_board_kind {
    GR_BOARD_STREAM = 1,
    GR_BOARD_UART = 2,
    GR_BOARD_FT601 = 3,
    GR_BOARD_FT2232H = 4,
    GR_BOARD_LIMESDR = 5, /**< LimeSDR Mini v2 top, FT601 */
    GR_BOARD_ULX3S = 6    /**< ULX3S top, UART */
} gr_board_kind_t;

/** Options; zero-initialise and set what matters (kind is required). */
typedef struct gr_board_config {
    gr_board_kind_t kind;
    uint64_t seed;        /**< VRAM model latency/backpressure and the host side's IN stalls;
                               0: $GR_SIM_SEED (decimal or 0x hex), else 1 */
    uint64_t vram_bytes;  /**< VRAM size: the model's and gpu_core's strap (MC_VRAM_SIZE),
                               128 KiB..512 MiB in whole 64 KiB; 0: 512 MiB. limesdr and
                               ulx3s: 0 or their top's size (128 KiB, 32 MiB) only */
    uint32_t baud;        /**< uart and ulx3s only: line rate; 0 or 3000000 (the rate the UART
                               PHY and line model are built for; others: GR_E_UNSUPPORTED) */
    bool no_random;       /**< VRAM answers at full speed and the host takes IN data every cycle */
    bool ft600_mode;      /**< ft601: the chip's FIFO mode is FT600 (multi-channel, channel 1)
                               instead of 245; the model and link_phy_ft601's strap both follow
                               it. limesdr: its top is built for FT600 mode (the stock board)
                               and this is not looked at. Other kinds: must be false */
    const char *fst_path; /**< FST waveform of the whole board; NULL: $GR_BOARD_FST; "": none */
} gr_board_config_t;

/** "stream", "uart", "ft601", "ft2232h", "limesdr", "ulx3s"; "?" for anything else. */
const char *gr_board_kind_name(gr_board_kind_t kind);

/**
 * The link chip whose host side a board shows: the kind itself for 1..4, GR_BOARD_FT601 for
 * limesdr, GR_BOARD_UART for ulx3s; 0 for anything else.
 */
gr_board_kind_t gr_board_link_kind(gr_board_kind_t kind);

/**
 * The kind a name denotes ("ft245" is accepted for ft2232h).
 * @param[out] out_kind  untouched on failure
 * @return GR_OK, GR_E_INVALID (NULL), GR_E_NOT_FOUND (no such kind)
 */
int gr_board_kind_parse(const char *name, gr_board_kind_t *out_kind);

/** Whether this build of the library has the kind (its RTL top existed when it was built). */
bool gr_board_kind_built(gr_board_kind_t kind);

/**
 * Builds the board, holds reset for 8 core cycles and releases it (limesdr and ulx3s then
 * still hold their core in reset until their PLL model locks, about 220 core cycles).
 * @param[out] out_board  untouched on failure
 * @return GR_OK, GR_E_INVALID (NULL, unknown kind, bad vram_bytes/$GR_SIM_SEED, a baud on
 *         another kind, a vram_bytes limesdr or ulx3s do not have, ft600_mode on a UART or FT2232H board), GR_E_UNSUPPORTED (kind not built into this library, another baud on
 *         uart), GR_E_IO (waveform file),
 *         GR_E_NO_MEMORY
 */
int gr_board_create(const gr_board_config_t *cfg, gr_board_t **out_board);

/** Finishes the waveform and frees everything. NULL is allowed. */
void gr_board_destroy(gr_board_t *board);

gr_board_kind_t gr_board_kind(const gr_board_t *board);
uint64_t gr_board_seed(const gr_board_t *board);

/** Core clock cycles since gr_board_create (reset included). */
uint64_t gr_board_cycle(const gr_board_t *board);

/** Simulated time since gr_board_create, in picoseconds. */
uint64_t gr_board_time_ps(const gr_board_t *board);

/** Runs the core clock for that many cycles (the chip clock runs alongside). NULL: nothing. */
void gr_board_run(gr_board_t *board, uint64_t cycles);

/**
 * Runs until at least `bytes` bytes can be read with gr_board_read (or, with bytes 0, until
 * the host->device queue is empty), or max_cycles core cycles pass.
 * @param[out] out_met  whether the condition holds on return (may be NULL)
 * @return GR_OK, GR_E_INVALID (board NULL)
 */
int gr_board_run_until(gr_board_t *board, size_t bytes, uint64_t max_cycles, bool *out_met);

/**
 * Host -> device: queues bytes for the chip's USB OUT side (uart: the line model's transmit
 * side; stream: the link engine's input). They enter as the simulation runs, at the pace the
 * chip accepts them. On ft601 the bytes go as 32-bit words, little endian; a last partial word
 * carries byte enables for its bytes only.
 * @return GR_OK, GR_E_INVALID (NULL with bytes > 0)
 */
int gr_board_write(gr_board_t *board, const void *src, size_t bytes);

/** Host -> device bytes queued and not yet taken by the chip. */
size_t gr_board_write_pending(const gr_board_t *board);

/**
 * Device -> host: the bytes that have reached the host side so far, in order, as a host
 * library sees them (ft2232h: without the two modem-status bytes of each packet, as libftdi
 * strips them). Takes no simulation time.
 * @param[out] out_n  bytes copied (0 when none are there); untouched on failure
 * @return GR_OK, GR_E_INVALID (NULL board, out_n, or dst with cap > 0)
 */
int gr_board_read(gr_board_t *board, void *dst, size_t cap, size_t *out_n);

/** Bytes gr_board_read would give now. */
size_t gr_board_readable(const gr_board_t *board);

/**
 * One raw USB IN packet as the chip sent it (ft2232h: with its two modem-status bytes), for
 * emulating the USB device itself. A packet gr_board_read has begun is returned from where it
 * stopped (ft2232h: without its status bytes then).
 * @param[out] out_n  the packet's length (0: no packet complete yet); untouched on failure
 * @return GR_OK, GR_E_INVALID, GR_E_RANGE (cap smaller than the packet; nothing taken),
 *         GR_E_UNSUPPORTED (stream and uart have no packets)
 */
int gr_board_read_packet(gr_board_t *board, void *dst, size_t cap, size_t *out_n);

/** Complete IN packets waiting (stream and uart: 0). */
size_t gr_board_packets(const gr_board_t *board);

/** Waveform dumping on or off (needs fst_path). GR_E_UNSUPPORTED without one. */
int gr_board_trace(gr_board_t *board, bool on);

/** VRAM backdoor (no bus cycles). GR_OK, GR_E_INVALID (NULL, bytes 0), GR_E_RANGE,
 *  GR_E_UNSUPPORTED (limesdr, ulx3s: their VRAM is inside the top). */
int gr_board_vram_read(gr_board_t *board, uint64_t addr, void *dst, size_t bytes);
int gr_board_vram_write(gr_board_t *board, uint64_t addr, const void *src, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
