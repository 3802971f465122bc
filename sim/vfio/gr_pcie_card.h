/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_pcie_card.h: the card behind the VFIO emulation at the TLP level: pcie_core
 * (bridge/rtl/pcie: pcie_shell + gpu_core, what a PCIe board carries) under Verilator, with the
 * UltraScale+ PCIe4 hard IP's user interface driven by a root complex of our own (pcie_card.cpp,
 * written from the PCIe Base Specification and the hard IP's descriptor formats, PG213):
 *
 *   - BAR0/BAR1 accesses are memory requests on the completer request stream (CQ); reads wait for
 *     their completions on CC, matched by tag (a completion for no outstanding tag is dropped, as
 *     an Unexpected Completion); no completion within the root complex's completion timeout
 *     reads all ones.
 *   - The shell's requests on RQ reach host memory only through the port (the IOMMU): an MWr
 *     to an IOVA the port does not cover is dropped (a DMA remapping fault), an MRd there is
 *     answered with an Unsupported Request completion; an MRd that is covered is answered on RC
 *     after a fixed latency, in completions cut at every Read Completion Boundary (64 bytes).
 *   - MSI: the shell's cfg_interrupt_msi_int pulse is answered with cfg_interrupt_msi_sent (with
 *     _fail while bus mastering is off, for an MSI is a memory write) and counted; INTA is the
 *     shell's cfg_interrupt_int[0], each change acknowledged with cfg_interrupt_sent.
 *   - VRAM: gpu_core's m_vram on the harness's AXI4 memory model (sim/harness).
 *
 * One thread at a time drives a card. Time advances only inside these calls.
 */
#ifndef GPUREF_GR_PCIE_CARD_H
#define GPUREF_GR_PCIE_CARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gr_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gr_pcie_card gr_pcie_card_t;

/** What the root complex saw (gr_pcie_card_counts). */
typedef struct gr_pcie_card_counts {
    uint64_t cq_tlps, cc_tlps;   /**< requests sent to the card, completions taken from it */
    uint64_t rq_mwr, rq_mrd;     /**< the card's memory writes and reads */
    uint64_t rc_tlps;            /**< completions sent to the card */
    uint64_t iommu_faults;       /**< RQ requests the port did not cover */
    uint64_t ur_cpls;            /**< Unsupported Request completions sent (MRd not covered) */
    uint64_t msis;               /**< MSIs the card sent (cfg_interrupt_msi_sent) */
    uint64_t cpl_timeouts;       /**< BAR reads the card did not complete in time */
    uint64_t bytes_down, bytes_up; /**< descriptor and payload bytes: CQ and RC, CC and RQ */
    uint64_t unexpected_cpls;    /**< completions for no outstanding tag (dropped) */
} gr_pcie_card_counts_t;

/** Builds the card, holds reset and releases it. port: host memory as the IOMMU maps it (copied).
 *  @return GR_OK, GR_E_NO_MEMORY, GR_E_INVALID (a NULL argument) */
int gr_pcie_card_create(uint64_t seed, const gr_sim_host_port_t *port, gr_pcie_card_t **out_card);
void gr_pcie_card_destroy(gr_pcie_card_t *card);

/** Clocks the card (user_clk cycles). */
void gr_pcie_card_run(gr_pcie_card_t *card, uint64_t cycles);
uint64_t gr_pcie_card_cycle(const gr_pcie_card_t *card);

/** The configuration the hard IP would hold: bus mastering (Command register bit 2), MSI enabled
 *  (the MSI capability's enable, or MSI-X's: the shell has one vector, sent as MSI), and
 *  INTx disabled (Command register bit 10). */
void gr_pcie_card_config(gr_pcie_card_t *card, bool bus_master, bool msi_enable, bool intx_disable);

/** A BAR0 DWORD read (one MRd of one DWORD). @return GR_OK; GR_E_BUS (a UR or CA completion,
 *  *out_value all ones); GR_E_TIMEOUT (no completion in time, all ones) */
int gr_pcie_card_bar0_read(gr_pcie_card_t *card, uint32_t offset, uint32_t *out_value);
/** A BAR0 DWORD write (a posted MWr: returns once the card has taken it from CQ). */
void gr_pcie_card_bar0_write(gr_pcie_card_t *card, uint32_t offset, uint32_t value);
/** BAR1 accesses of any length and alignment, cut into requests of at most 256 bytes that
 *  never cross a 256-byte boundary; reads as for BAR0 (dst is all ones where a read failed). */
int gr_pcie_card_bar1_read(gr_pcie_card_t *card, uint64_t offset, void *dst, size_t bytes);
void gr_pcie_card_bar1_write(gr_pcie_card_t *card, uint64_t offset, const void *src, size_t bytes);

/** MSIs sent since the last call. */
unsigned gr_pcie_card_take_msis(gr_pcie_card_t *card);
/** INTA as the card asserts it (cfg_interrupt_int[0]). */
bool gr_pcie_card_inta(const gr_pcie_card_t *card);
/** gpu_core's irq_o. */
bool gr_pcie_card_irq_line(const gr_pcie_card_t *card);

/** The function stops completing (a card that hangs): its completions are lost, so each BAR
 *  read ends in the root complex's completion timeout; false: it completes again. */
void gr_pcie_card_mute(gr_pcie_card_t *card, bool mute);

void gr_pcie_card_counts(const gr_pcie_card_t *card, gr_pcie_card_counts_t *out);

#ifdef __cplusplus
}
#endif

#endif
