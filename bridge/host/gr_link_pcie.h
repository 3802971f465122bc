/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_link_pcie.h: pcie://, a gpuref board on PCIe (bridge/rtl/pcie's shell) reached from user
 * space through VFIO, or through uio_pci_generic as a fallback without DMA.
 *
 *   pcie://DDDD:BB:DD.F[?anyid=1&root=DIR]
 *   DDDD:BB:DD.F  the PCI address, exactly as lspci -D prints it: domain (4 hex digits), bus (2),
 *                 device (2, 00..1f), function (1, 0..7); hex in either case
 *   anyid=1       accept any vendor:device ID (a board whose top sets other IDs); ID_MAGIC is
 *                 still checked
 *   root=DIR      look for sysfs under DIR/sys and device nodes under DIR/dev instead of /sys
 *                 and /dev (the tests' fixture trees; nothing else needs it)
 *
 * The device is found at /sys/bus/pci/devices/<bdf>. Its vendor:device ID must be
 * GR_PCIE_VENDOR_ID:GR_PCIE_DEVICE_ID, the values a board's PCIe hard IP is configured with (the
 * Xilinx vendor ID and a device ID of gpuref's own); the real check is ID_MAGIC read from BAR0
 * once it is mapped. Its `driver` link decides the path:
 *   - vfio-pci: the IOMMU group (`iommu_group` link) is opened at /dev/vfio/<group> with the
 *     container /dev/vfio/vfio (type 1 v2 IOMMU, else type 1); the function is reset
 *     (VFIO_DEVICE_RESET, when the device offers it); BAR0 and BAR1 are mmapped when their
 *     regions carry VFIO_REGION_INFO_FLAG_MMAP, else reached with pread/pwrite on the device fd
 *     at the region's offset; memory space is enabled in the command register through the
 *     config region; without a function reset the DMA engine is reset (DMA_CTRL.RESET, until
 *     DMA_STATUS.IDLE) and IRQ_ENABLE cleared; only then bus mastering is enabled, so nothing an
 *     earlier user started reaches the new mappings. dma_alloc maps anonymous memory with
 *     VFIO_IOMMU_MAP_DMA at an IOVA of its own (gr_dma_buf_t.bus is an IOVA, which is what the
 *     device must be given), next fit: a freed IOVA comes back only after the window has gone
 *     round, so a device holding a stale one meets an IOMMU fault, not another buffer. Vector 0
 *     of MSI-X, else MSI, else INTx is delivered to an eventfd (VFIO_DEVICE_SET_IRQS); INTx,
 *     masked by each delivery, is unmasked at the next wait_irq. The device request interrupt
 *     (the kernel asking for a device being removed) goes to a second eventfd. Closing turns bus
 *     mastering off before the buffers are unmapped.
 *   - uio_pci_generic: BAR0 and BAR1 are mmapped from sysfs resource0 and resource1, the command
 *     register is written through sysfs `config`, and interrupts are INTx through /dev/uioN
 *     (uio_pci_generic does not do MSI; the shell signals INTA while MSI is off). No DMA: without
 *     an IOMMU there is no safe bus address to give the device (physical addresses from
 *     /proc/self/pagemap stay valid only for pinned memory the kernel does not migrate, and a
 *     wrong one lets the device write anywhere), so dma_alloc fails with GR_E_UNSUPPORTED and
 *     gr_link_caps() lacks GR_LINK_CAP_DMA: registers, the aperture and interrupts work.
 *
 * Contract beyond gr_link.h:
 *   - read32/write32 are single 32-bit loads and stores on the mapped BAR0 (or one pread or
 *     pwrite of 4 bytes); ap_read and ap_write copy through the mapped BAR1 with naturally
 *     aligned 8-byte accesses in the middle and byte accesses at unaligned ends (or one pread or
 *     pwrite, which vfio-pci splits). A write returns once it is posted; a read blocks until the
 *     completion comes back. PCIe gives user space no error status: a read the device answers
 *     with UR or CA, or never answers, returns all ones (the root complex's answer). So a read32
 *     of all ones, or a BAR access that fails, asks config space what happened:
 *     GR_E_NO_DEVICE  the device is gone (surprise removal: its vendor ID reads all ones, or
 *                     VFIO answers ENODEV, or the request interrupt came); every call after it
 *                     fails so without touching the device; dma_free and close still work;
 *     GR_E_DEVICE_RESET  memory decoding is off: the function was reset from outside (a slot
 *                     reset, a link that went down); memory space and bus mastering are turned
 *                     back on, and the registers are at their reset values;
 *     GR_E_TIMEOUT    config space answers but ID_MAGIC reads all ones too: the device does not
 *                     complete reads (a completion timeout);
 *     else the all-ones value was the register's. A BAR write is posted: its loss shows at the
 *     next read. ap_* outside BAR1: GR_E_RANGE.
 *   - wait_irq blocks in ppoll on the eventfd (or /dev/uioN) for at most timeout_us; each
 *     wake-up consumes every interrupt counted so far. GR_E_UNSUPPORTED without an interrupt
 *     (the device offers none of MSI-X, MSI, INTx), GR_E_NO_DEVICE once the device is gone.
 *   - Open errors, each with a message naming the file and the fix:
 *     GR_E_BAD_URI   a malformed address (the message gives the accepted form) or parameter;
 *     GR_E_NO_DEVICE no such device in sysfs, no driver bound, a vendor:device ID or ID_MAGIC
 *                    that is not gpuref's, /dev/vfio/<group> (or /dev/uioN) missing;
 *     GR_E_BUSY      bound to another driver (named, with the commands that rebind it), the
 *                    group held by another process or not viable (another device in the group
 *                    is bound to a host driver);
 *     GR_E_UNSUPPORTED no `iommu_group` (no IOMMU: intel_iommu=on / amd_iommu=on, or
 *                    uio_pci_generic without DMA; vfio's noiommu mode is not supported), no
 *                    type 1 IOMMU, a BAR that is empty or cannot be read and written;
 *     GR_E_TIMEOUT   without a function reset, the DMA engine does not go idle after its own;
 *     GR_E_IO        permission denied (the file is named; a udev rule giving the group's node
 *                    to a `vfio` group the user is in is the usual fix), an ioctl or read that
 *                    fails (a node that is not VFIO's answers ENOTTY), a BAR0 too small.
 */
#ifndef GPUREF_GR_LINK_PCIE_H
#define GPUREF_GR_LINK_PCIE_H

#include "gr_link.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const gr_link_ops_t gr_link_pcie_ops;

/** The IDs a gpuref board's PCIe hard IP is configured with: Xilinx's vendor ID, and 0x6770
 *  ("gp") as the device ID. */
#define GR_PCIE_VENDOR_ID 0x10eeu
#define GR_PCIE_DEVICE_ID 0x6770u

/** First IOVA dma_alloc hands out (4 GiB: above the 32-bit MMIO and MSI windows), and the end
 *  of its range (64 GiB; every IOMMU has at least 39 address bits). When the kernel reports the
 *  IOMMU's valid IOVA ranges (VFIO_IOMMU_GET_INFO), the window is narrowed to the largest part
 *  of this one inside them; none of 1 MiB or more fails the open with GR_E_UNSUPPORTED. */
#define GR_PCIE_IOVA_BASE 0x100000000ull
#define GR_PCIE_IOVA_END 0x1000000000ull

#ifdef __cplusplus
}
#endif

#endif
