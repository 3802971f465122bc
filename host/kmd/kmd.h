/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kmd.h: gpuref's display miniport (the "KMD"), as the OS stand-in (host/dxgk) sees it.
 *
 * The miniport reaches the hardware only through a gr_link (BAR0 registers, and host memory
 * from its dma_alloc for the DMA engine's ring and fence record) and the OS only through the
 * DXGKRNL_INTERFACE callback table it is given at start (d3dkmddi.h declares the WDK's table;
 * the miniport calls DxgkCbGetHandleData, DxgkCbNotifyInterrupt, DxgkCbQueueDpc and
 * DxgkCbNotifyDpc). The DDIs keep their WDK names and prototypes (DXGKDDI_* function types),
 * so this code can be lifted into a WDDM driver.
 *
 * d3dkmddi.h does not (yet) carry the argument structures of DxgkDdiAddDevice,
 * DxgkDdiStartDevice, DxgkDdiCreateDevice and DxgkDdiDestroyDevice, nor of the paging
 * operations a real driver would use to program the VPR and move the CPU window. Those are the
 * gr_kmd_* calls below; each says which DDI it stands in for.
 *
 * Threading (host/kmd/README.md): the allocation DDIs are "level zero" DDIs: several threads
 * may be inside them at once (never two of one process). The command-path DDIs follow the
 * levels their WDK pages give (README "The engine, and what the OS must provide"): Patch,
 * BuildPagingBuffer, SubmitCommand and PreemptCommand from one scheduler thread at a time, the
 * TDR DDIs alone, the interrupt routine from the OS's interrupt thread *without* the link lock
 * held, the DPC never twice at once. The miniport's shared state is atomics and a few mutexes
 * per adapter; it calls DxgkCbNotifyInterrupt/DxgkCbQueueDpc only under its interrupt lock
 * (the stand-in for the interrupt spin lock) and no other callback under any of its locks.
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
    uint64_t contexts;    /**< hContext from CreateContext not yet destroyed */
    uint64_t packets;     /**< per-packet states (Patch/Submit) not yet completed or cancelled */
} gr_kmd_counts_t;

/**
 * Bytes of DMA buffer private data the miniport needs per submission (the packet tag): its
 * DXGK_CONTEXTINFO.DmaBufferPrivateDataSize and DXGK_QUERYSEGMENTOUT4.PagingBufferPrivateDataSize.
 */
#define GR_KMD_DMA_PRIVATE_BYTES 16u

/** Entries the engine's ring holds at once (one slot stays free). */
#define GR_KMD_RING_CAPACITY 255u

/** What the miniport knows about one context (tests, diagnostics). */
typedef struct gr_kmd_context_info {
    HANDLE hDevice;           /**< the miniport device the context belongs to */
    UINT flags;               /**< DXGK_CREATECONTEXTFLAGS.Value it was created with */
    int has_root;             /**< DxgkDdiSetRootPageTable accepted a root */
    uint64_t root;            /**< its VRAM address (the ring entry's ROOT) */
    uint32_t root_entries;    /**< NumEntries given with it */
    uint32_t rejected_roots;  /**< SetRootPageTable calls ignored for bad input */
} gr_kmd_context_info_t;

/**
 * DxgkDdiAddDevice + DxgkDdiStartDevice: reads the memory controller's registers
 * (ID_CAPS, MC_VRAM_SIZE_LO/HI, MC_AP_SIZE), puts the CPU window at VRAM 0 (MC_AP_BASE),
 * brings the DMA engine up when the build has one, the link can hand out DMA memory and the
 * interface has DxgkCbNotifyInterrupt, DxgkCbQueueDpc and DxgkCbNotifyDpc (ring and fence
 * record, IRQ enables), and returns the adapter context (the hAdapter of every adapter DDI).
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

/**
 * DxgkDdiDestroyDevice: the OS has closed every allocation of the device and destroyed its
 * contexts first.
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER (not a device, or it still has contexts)
 */
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

/** Where a packet taken off the engine by a preemption stands (gr_kmd_packet_progress). */
typedef struct gr_kmd_packet_progress {
    uint32_t stops;        /**< preemptions that stopped it while it ran */
    uint32_t advanced;     /**< 1: the last of them found it further on than where it started */
    uint32_t resume_offset; /**< bytes of its submission range that will not run again */
    uint64_t resume_done;  /**< bytes the COPY or FILL there already wrote (not written again) */
} gr_kmd_packet_progress_t;

/**
 * Whether a packet removed from the engine by a preemption made progress while it ran: the
 * OS's test of a hang for a GPU that honours preemption (a packet that answers preemption
 * requests and moves on is long, not hung). gpuref's stand-in: WDDM's DMA_PREEMPTED
 * notification carries no progress. The packet is the one last submitted with
 * SubmissionFenceId `fence`, not yet resubmitted, completed or cancelled.
 * @param[out] out_progress  untouched on failure
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER (bad adapter, NULL out, no such packet)
 */
NTSTATUS gr_kmd_packet_progress(HANDLE hAdapter, UINT fence, gr_kmd_packet_progress_t *out_progress);

/**
 * Whether the DMA engine is up (ID_CAPS.DMA, a DMA-capable link and the interrupt callbacks):
 * the command-path DDIs that need it return STATUS_DEVICE_NOT_READY otherwise.
 */
int gr_kmd_engine_ready(HANDLE hAdapter);

/**
 * A context's state as the miniport holds it.
 * @param[out] out_info  untouched on failure
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER (not a live context of that adapter)
 */
NTSTATUS gr_kmd_context_query(HANDLE hAdapter, HANDLE hContext, gr_kmd_context_info_t *out_info);

/**
 * What the last DXGK_OPERATION_NOTIFY_RESIDENCY said about an allocation
 * (ExplicitResidencyNotification allocations only).
 * @param[out] out_resident  1 committed, 0 evicted or never notified
 * @param[out] out_vram_addr its VRAM address while resident, else 0
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER (not an hAllocation of that adapter)
 */
NTSTATUS gr_kmd_alloc_residency(HANDLE hAdapter, HANDLE hAllocation, int *out_resident,
                                uint64_t *out_vram_addr);

/* The DDIs, with the WDK's prototypes. */
DXGKDDI_QUERYADAPTERINFO DxgkDdiQueryAdapterInfo;
DXGKDDI_CREATEALLOCATION DxgkDdiCreateAllocation;
DXGKDDI_OPENALLOCATIONINFO DxgkDdiOpenAllocation;
DXGKDDI_CLOSEALLOCATION DxgkDdiCloseAllocation;
DXGKDDI_DESTROYALLOCATION DxgkDdiDestroyAllocation;

/* The command path (host/kmd/README.md, "The command path"). */
DXGKDDI_CREATECONTEXT DxgkDdiCreateContext;
DXGKDDI_DESTROYCONTEXT DxgkDdiDestroyContext;
DXGKDDI_SETROOTPAGETABLE DxgkDdiSetRootPageTable;
DXGKDDI_PATCH DxgkDdiPatch;
DXGKDDI_SUBMITCOMMAND DxgkDdiSubmitCommand;
DXGKDDI_PREEMPTCOMMAND DxgkDdiPreemptCommand;
DXGKDDI_QUERYCURRENTFENCE DxgkDdiQueryCurrentFence;
DXGKDDI_CANCELCOMMAND DxgkDdiCancelCommand;
DXGKDDI_BUILDPAGINGBUFFER DxgkDdiBuildPagingBuffer;
DXGKDDI_RESETFROMTIMEOUT DxgkDdiResetFromTimeout;
DXGKDDI_RESTARTFROMTIMEOUT DxgkDdiRestartFromTimeout;
/* MiniportDeviceContext is the hAdapter; line-based: MessageNumber 0. */
DXGKDDI_INTERRUPT_ROUTINE DxgkDdiInterruptRoutine;
DXGKDDI_DPC_ROUTINE DxgkDdiDpcRoutine;

#ifdef __cplusplus
}
#endif

#endif
