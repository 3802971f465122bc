/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_vfio_emu.h: a gpuref card on an emulated VFIO bus, so that pcie:// (bridge/host/
 * gr_link_pcie.c) runs unmodified without a card or an IOMMU (sim/vfio/README.md).
 *
 * The library (build/vfio/libgr_vfio_emu.so) interposes open, openat, close, ioctl, pread,
 * pwrite, mmap and munmap of the process (LD_PRELOAD, or linked before libc). With $GR_VFIO_EMU=DIR set
 * when it loads, it builds a sysfs and /dev tree under DIR for one device,
 * GR_VFIO_EMU_BDF in IOMMU group GR_VFIO_EMU_GROUP, bound to vfio-pci, and answers the VFIO
 * ioctls on DIR/dev/vfio/vfio (the container), DIR/dev/vfio/<group> and the device fd as
 * linux/vfio.h and Documentation/driver-api/vfio.rst specify them:
 *
 *   pcie://0000:01:00.0?root=DIR
 *
 * Behind the device is the card (README.md): by default pcie_core (bridge/rtl/pcie: pcie_shell
 * and gpu_core) under Verilator, every BAR access a TLP on the shell's completer streams and
 * every DMA a TLP of its requester, answered by a root complex of the library's own
 * (gr_pcie_card.h); with card=tlm, gpu_core alone with the harness's bus models (sim/harness,
 * gr_sim.h). Either way the card is clocked by a thread of the library while the device fd is
 * open, BAR0 is its CSR port, BAR1 its aperture, and it reaches host memory only through the
 * IOMMU mappings VFIO_IOMMU_MAP_DMA made (an access anywhere else is an IOMMU fault: counted,
 * and answered Unsupported Request, or DECERR with card=tlm). Its interrupt is delivered to the
 * eventfd of MSI, MSI-X or INTx (VFIO_DEVICE_SET_IRQS). The BARs are offered without
 * VFIO_REGION_INFO_FLAG_MMAP (the driver reaches them with pread and pwrite at the region's
 * offset) unless the option mmap is given.
 *
 * Options ($GR_VFIO_EMU_OPTS, comma-separated, read when the library loads; or
 * gr_vfio_emu_configure before the device is opened):
 *   irqs=LIST   the interrupts the device offers, '+'-separated from msi, msix, intx
 *               (default msi, as bridge/rtl/pcie's shell)
 *   noreset     no VFIO_DEVICE_FLAGS_RESET (a function without FLR or PM reset)
 *   card=KIND   shell (the default) or tlm; kept by gr_vfio_emu_configure unless named again
 *   mmap        BAR0 and BAR1 carry VFIO_REGION_INFO_FLAG_MMAP; a mapping's loads and stores
 *               reach the card (x86-64 only: README.md, "BARs through mmap")
 *   fail=NAME   the ioctl NAME (VFIO_GET_API_VERSION, VFIO_IOMMU_MAP_DMA, ...: the list is in
 *               vfio_emu.c) fails with EIO on every fd, as a kernel or device that refuses it
 * A bad option ends the process with a message before main.
 */
#ifndef GPUREF_GR_VFIO_EMU_H
#define GPUREF_GR_VFIO_EMU_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GR_VFIO_EMU_BDF "0000:01:00.0"
#define GR_VFIO_EMU_GROUP 42u
/** The card's BAR1 (the aperture window of gpu_core). */
#define GR_VFIO_EMU_BAR1_BYTES (256u << 20)

/** Faults of the card or its slot (gr_vfio_emu_fault). */
typedef enum gr_vfio_emu_fault {
    GR_VFIO_EMU_HEALTHY = 0,
    /** the function stops completing reads: each BAR read ends in a completion timeout, which
     *  the root complex answers with all ones; writes are lost; config space still answers */
    GR_VFIO_EMU_CPL_TIMEOUT,
    /** surprise removal, as seen through the BARs: every read (BARs and config space) answers
     *  all ones, writes go nowhere; the kernel has not yet torn the device down */
    GR_VFIO_EMU_REMOVED_ALL_ONES,
    /** surprise removal after the kernel noticed: pread/pwrite on the device fd and its ioctls
     *  fail with ENODEV, and the device request interrupt (VFIO_PCI_REQ_IRQ_INDEX) fires */
    GR_VFIO_EMU_REMOVED,
} gr_vfio_emu_fault_t;

/** What the emulation saw (gr_vfio_emu_stats). */
typedef struct gr_vfio_emu_stats {
    uint64_t iommu_faults;     /**< device accesses to an IOVA no mapping covers */
    uint64_t first_fault_iova; /**< the first of them */
    uint64_t dma_blocked;      /**< device accesses while bus mastering was off (no fault) */
    uint64_t mappings;         /**< live VFIO_IOMMU_MAP_DMA mappings */
    uint64_t resets;           /**< function resets (VFIO_DEVICE_RESET, release, gr_vfio_emu_reset) */
    uint64_t irqs;             /**< interrupts signalled to an eventfd */
    uint64_t bar_reads, bar_writes; /**< pread/pwrite on BAR0 and BAR1 */
    uint64_t cycles;           /**< gpu_core clock cycles so far */
    bool open;                 /**< a device fd is open */
    bool shell;                /**< the card is pcie_core behind TLPs (card=shell), not card=tlm */
    uint64_t cq_tlps;          /**< card=shell: requests the root complex sent on CQ */
    uint64_t rq_tlps;          /**< card=shell: the shell's requests on RQ (MWr and MRd) */
    uint64_t ur_cpls;          /**< card=shell: MRd answered Unsupported Request (IOMMU faults) */
    uint64_t cc_tlps, rc_tlps; /**< card=shell: completions from the card, and to it */
    uint64_t bytes_down, bytes_up; /**< card=shell: TLP bytes (descriptors and payload) on CQ
                                        and RC, and on CC and RQ */
    uint64_t cpl_timeouts;     /**< card=shell: BAR reads that ended in a completion timeout */
    uint64_t msis;             /**< card=shell: MSIs the shell sent */
    unsigned irq_index;        /**< VFIO_PCI_*_IRQ_INDEX in use, or ~0u for none */
} gr_vfio_emu_stats_t;

/** Options as $GR_VFIO_EMU_OPTS takes them; only while no device fd is open.
 *  @return 0, or -1 (a bad option, or the device is open: nothing changed) */
int gr_vfio_emu_configure(const char *opts);

/** Puts the card in that state from now on (GR_VFIO_EMU_HEALTHY: healthy again). */
void gr_vfio_emu_fault(gr_vfio_emu_fault_t fault);

/** A reset of the function from outside the process (a slot reset, AER recovery): gpu_core is
 *  reset, whatever it was doing; VRAM keeps nothing. @return 0, -1 (no device open) */
int gr_vfio_emu_reset(void);

/** The counts so far. */
void gr_vfio_emu_stats(gr_vfio_emu_stats_t *out);

#ifdef __cplusplus
}
#endif

#endif
