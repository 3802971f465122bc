/*
 * kmd.h: gpuref's display miniport (the "KMD"), as the OS stand-in (host/dxgk) sees it.
 *
 * The miniport reaches the hardware only through a gr_link (BAR0 registers) and the OS only
 * through the DXGKRNL_INTERFACE callback table it is given at start (d3dkmddi.h declares the
 * WDK's table; gpuref's OS stand-in fills DxgkCbGetHandleData). The DDIs keep their WDK names
 * and prototypes (DXGKDDI_* function types), so this code can be lifted into a WDDM driver.
 *
 * d3dkmddi.h does not (yet) carry the argument structures of DxgkDdiAddDevice,
 * DxgkDdiStartDevice, DxgkDdiCreateDevice and DxgkDdiDestroyDevice, nor of the paging
 * operations a real driver would use to program the VPR and move the CPU window. Those are the
 * gr_kmd_* calls below; each says which DDI it stands in for.
 *
 * Threading (host/kmd/README.md): every DDI declared here is a "level zero" DDI: several
 * threads may be inside it at once (never two of one process). The miniport's shared state is
 * atomics and one mutex per adapter; it never calls back into the OS while holding it.
 */
#ifndef GPUREF_KMD_KMD_H
#define GPUREF_KMD_KMD_H

#include <pthread.h>
#include <stdint.h>

#include "d3dkmddi.h"
#include "gr_link.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What the miniport is given when its adapter starts (DxgkDdiAddDevice + DxgkDdiStartDevice). */
typedef struct gr_kmd_start_info {
    gr_link_t *link;                 /**< the device's link; BAR0 for the miniport */
    pthread_mutex_t *link_lock;      /**< serialises every use of link (the OS uses BAR1 too) */
    const DXGKRNL_INTERFACE *dxgkrnl; /**< callbacks; copied */
} gr_kmd_start_info_t;

/** Live miniport objects, for leak checks and tests (relaxed counters). */
typedef struct gr_kmd_counts {
    uint64_t allocations; /**< hAllocation from CreateAllocation not yet destroyed */
    uint64_t resources;   /**< hResource not yet destroyed (DestroyResource) */
    uint64_t opens;       /**< hDeviceSpecificAllocation not yet closed */
    uint64_t devices;     /**< hDevice not yet destroyed */
} gr_kmd_counts_t;

/**
 * DxgkDdiAddDevice + DxgkDdiStartDevice: reads the memory controller's registers
 * (ID_CAPS, MC_VRAM_SIZE_LO/HI, MC_AP_SIZE), puts the CPU window at VRAM 0 (MC_AP_BASE) and
 * returns the adapter context (the hAdapter of every adapter DDI).
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER (NULL argument), STATUS_NO_MEMORY,
 *         STATUS_DEVICE_NOT_READY (no memory controller, or VRAM/aperture sizes unusable),
 *         STATUS_UNSUCCESSFUL (a register access failed)
 */
NTSTATUS gr_kmd_start_adapter(const gr_kmd_start_info_t *info, HANDLE *out_hAdapter);

/** DxgkDdiStopDevice + DxgkDdiRemoveDevice; NULL is allowed. */
void gr_kmd_stop_adapter(HANDLE hAdapter);

/**
 * DxgkDdiCreateDevice: per-device state (one per gr_gpu_device_t); hDxgkDevice is the OS's.
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER, STATUS_NO_MEMORY
 */
NTSTATUS gr_kmd_create_device(HANDLE hAdapter, HANDLE hDxgkDevice, HANDLE *out_hDevice);

/** DxgkDdiDestroyDevice: the OS has closed every allocation of the device first. */
NTSTATUS gr_kmd_destroy_device(HANDLE hDevice);

/**
 * Programs the video protected range [base, limit) (VRAM addresses, 4 KiB aligned) and sets
 * VPR_CTRL.ENABLE; limit == base disables it. Stands in for the VPR setup a driver does at
 * start. VPR_CTRL.LOCK is not set (the sim's soft reset would not clear it).
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER (unaligned, past VRAM),
 *         STATUS_DEVICE_NOT_READY (the range is locked to other values until a hard reset),
 *         STATUS_UNSUCCESSFUL (register access failed)
 */
NTSTATUS gr_kmd_set_vpr(HANDLE hAdapter, uint64_t base, uint64_t limit);

/**
 * Points the CPU window (BAR1) at VRAM so that the CPU can reach [vram_addr, vram_addr+bytes):
 * the mechanism behind CpuVisibleOnDemand, and behind every CPU copy the OS makes. Blocks
 * until no other thread holds the window; the caller must call gr_kmd_release_cpu_window().
 * When the range already lies in the default window (MC_AP_BASE 0) nothing is written.
 * @param[out] out_ap_offset  BAR1 offset of vram_addr
 * @param[out] out_ap_bytes   bytes reachable from there (<= bytes; the caller loops)
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER (past VRAM, zero bytes),
 *         STATUS_UNSUCCESSFUL (MC_AP_BASE write failed; the window is not held then)
 */
NTSTATUS gr_kmd_acquire_cpu_window(HANDLE hAdapter, uint64_t vram_addr, uint64_t bytes,
                                   uint64_t *out_ap_offset, uint64_t *out_ap_bytes);

/** Puts the window back at VRAM 0 (if it moved) and releases it. */
NTSTATUS gr_kmd_release_cpu_window(HANDLE hAdapter);

/**
 * Drops every GPU TLB entry (MMU_INVALIDATE.ALL): stands in for the FlushTlb paging operation
 * (DXGK_OPERATION_FLUSH_TLB) VidMm asks for after changing page tables.
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER, STATUS_UNSUCCESSFUL (register access)
 */
NTSTATUS gr_kmd_flush_tlb(HANDLE hAdapter);

/** The live-object counters. */
NTSTATUS gr_kmd_counts(HANDLE hAdapter, gr_kmd_counts_t *out_counts);

/* The DDIs, with the WDK's prototypes. */
DXGKDDI_QUERYADAPTERINFO DxgkDdiQueryAdapterInfo;
DXGKDDI_CREATEALLOCATION DxgkDdiCreateAllocation;
DXGKDDI_OPENALLOCATIONINFO DxgkDdiOpenAllocation;
DXGKDDI_CLOSEALLOCATION DxgkDdiCloseAllocation;
DXGKDDI_DESTROYALLOCATION DxgkDdiDestroyAllocation;

#ifdef __cplusplus
}
#endif

#endif
