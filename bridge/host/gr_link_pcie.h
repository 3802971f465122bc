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
 *     container /dev/vfio/vfio (type 1 v2 IOMMU, else type 1); BAR0 and BAR1 are mmapped through
 *     VFIO_DEVICE_GET_REGION_INFO; memory space and bus mastering are enabled in the command
 *     register through the config region; dma_alloc maps anonymous memory with
 *     VFIO_IOMMU_MAP_DMA at an IOVA of its own (so gr_dma_buf_t.bus is an IOVA, which is what
 *     the device must be given); MSI vector 0 is delivered to an eventfd (VFIO_DEVICE_SET_IRQS).
 *   - uio_pci_generic: BAR0 and BAR1 are mmapped from sysfs resource0 and resource1, the command
 *     register is written through sysfs `config`, and interrupts are INTx through /dev/uioN
 *     (uio_pci_generic does not do MSI; the shell signals INTA while MSI is off). No DMA: without
 *     an IOMMU there is no safe bus address to give the device (physical addresses from
 *     /proc/self/pagemap stay valid only for pinned memory the kernel does not migrate, and a
 *     wrong one lets the device write anywhere), so dma_alloc fails with GR_E_UNSUPPORTED and
 *     gr_link_caps() lacks GR_LINK_CAP_DMA: registers, the aperture and interrupts work.
 *
 * Contract beyond gr_link.h:
 *   - read32/write32 are single volatile 32-bit loads and stores on the mapped BAR0; ap_read and
 *     ap_write copy through the mapped BAR1 with naturally aligned 8-byte accesses in the middle
 *     and byte accesses at unaligned ends. A write returns once the CPU has posted it; a read
 *     blocks until the completion comes back. PCIe gives user space no error status: a read the
 *     device answers with UR or CA, or never answers, returns all ones (the root complex's
 *     answer), so these calls never return GR_E_BUS or GR_E_TIMEOUT. ap_* outside BAR1:
 *     GR_E_RANGE.
 *   - wait_irq blocks in ppoll on the eventfd (or /dev/uioN) for at most timeout_us; each
 *     wake-up consumes every interrupt counted so far.
 *   - Open errors, each with a message naming the file and the fix:
 *     GR_E_BAD_URI   a malformed address (the message gives the accepted form) or parameter;
 *     GR_E_NO_DEVICE no such device in sysfs, no driver bound, a vendor:device ID or ID_MAGIC
 *                    that is not gpuref's, /dev/vfio/<group> (or /dev/uioN) missing;
 *     GR_E_BUSY      bound to another driver (named, with the commands that rebind it), the
 *                    group held by another process or not viable (another device in the group
 *                    is bound to a host driver);
 *     GR_E_UNSUPPORTED no `iommu_group` (no IOMMU: intel_iommu=on / amd_iommu=on, or
 *                    uio_pci_generic without DMA; vfio's noiommu mode is not supported), no
 *                    type 1 IOMMU, a BAR that cannot be mmapped;
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
