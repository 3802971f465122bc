/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_alloc.h: video memory allocations on a gpuref adapter, D3DKMT-style.
 *
 * The calls play the roles of the D3DKMT thunks and of dxgkrnl behind them (host/dxgk): an
 * adapter is started once (the miniport reports its caps and segments), simulated processes
 * get devices, and devices create, open, lock, close and destroy allocations. Every call
 * reaches the miniport (host/kmd) only through its DDIs, in the order dxgkrnl makes them.
 *
 * Objects:
 *   gr_adapter_t     one started device (a link, the miniport, VidMm's segments)
 *   gr_process_t     a simulated process: owns a handle table; its handles mean nothing
 *                    elsewhere
 *   gr_gpu_device_t  a WDDM device (D3DKMT_CREATEDEVICE; DxgkDdiCreateDevice) in a process.
 *                    Named so as not to clash with gr_device_t (gr_device.h), which is the
 *                    register-level handle on the hardware.
 *   gr_alloc_t       a 32-bit allocation handle in one process: never 0, unforgeable (a
 *                    random per-process salt and multiplier mix slot index and generation),
 *                    stale once closed or destroyed (its slot is not reused at once, and a
 *                    reused slot has a new generation)
 *   gr_shared_t      a 32-bit handle that names a shared resource adapter-wide (as an NT
 *                    handle would); gr_alloc_open turns it into handles of another process
 *   gr_sysmem_t      host memory of a process that the device can reach (the backing store
 *                    of ExistingSysMem allocations)
 *
 * Residency: VRAM can be over-subscribed. An allocation in a segment is resident (its
 * segment and offset) or evicted (its content in host memory the DMA engine reaches; its GPU
 * VAs unmapped, so a stray access faults). VidMm evicts the least recently used allocations
 * when a creation, a submission, a lock or gr_alloc_make_resident needs room, and pages an
 * evicted allocation back in (to any place its segment set allows; its GPU VAs stay the same)
 * before a submission that lists it reaches the hardware, at a lock, or on request. Content
 * moves only on the DMA engine, through paging buffers the miniport builds
 * (DxgkDdiBuildPagingBuffer), and comes back bit-exact. A clean PermanentSysMem allocation is
 * discarded, not copied: its system copy is the truth. Never evicted (pinned, GR_PIN_*):
 * Overlay/Capture, VPR allocations, locked ones, ExistingSysMem/ExistingKernelSysMem (system
 * memory anyway), and any allocation a packet in flight lists. ExplicitResidencyNotification
 * allocations are told of every commit and eviction (DXGK_OPERATION_NOTIFY_RESIDENCY).
 * host/dxgk/README.md, "Residency", has the rules.
 *
 * Errors: GR_E_INVALID also covers a handle that is 0, forged, stale, of another process or
 * of another device of the process; such a call changes nothing. Thread safety: calls on
 * different processes run concurrently (the miniport sees concurrent level-zero DDIs); calls
 * on one process are serialised, as dxgkrnl serialises a process's calls into the miniport.
 */
#ifndef GPUREF_GR_ALLOC_H
#define GPUREF_GR_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuref/gr_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gr_adapter gr_adapter_t;
typedef struct gr_process gr_process_t;
typedef struct gr_gpu_device gr_gpu_device_t;
typedef struct gr_link gr_link_t;
typedef uint32_t gr_alloc_t;
typedef uint32_t gr_shared_t;

/** Most segments an adapter reports (gr_adapter_segments). */
#define GR_ALLOC_MAX_SEGMENTS 8u
/** Segment id of an allocation backed by system memory (ExistingSysMem, ExistingKernelSysMem). */
#define GR_SEGMENT_SYSTEM 0u

/** gr_resource_desc_t.flags */
enum {
    /** The resource may be opened by other processes (D3DKMT CreateShared). */
    GR_RESOURCE_SHARED = 1u << 0,
};

/** gr_alloc_open flags */
enum {
    GR_OPEN_READ_ONLY = 1u << 0, /**< DXGK_OPENALLOCATIONFLAGS.ReadOnly: no GPU or CPU writes */
};

/** Most handles one gr_alloc_make_resident / gr_alloc_evict call takes. */
#define GR_ALLOC_MAX_RESIDENCY_LIST 256u

/** gr_alloc_info_t.residency */
enum {
    GR_RESIDENCY_RESIDENT = 0, /**< in its segment (segment, offset, vram_address) */
    GR_RESIDENCY_EVICTED = 1,  /**< in host memory, not in VRAM; its GPU VA faults until paged in */
    GR_RESIDENCY_SYSTEM = 2,   /**< the caller's system memory (ExistingSysMem): never in VRAM */
};

/** gr_alloc_info_t.pinned: why VidMm will not evict an allocation now (0: it may). */
enum {
    GR_PIN_OVERLAY = 1u << 0,   /**< Overlay or Capture */
    GR_PIN_PROTECTED = 1u << 1, /**< Protected / CreateInVpr / HardwareProtected: in the VPR, stays put */
    GR_PIN_LOCKED = 1u << 2,    /**< locked for the CPU */
    GR_PIN_SYSTEM = 1u << 3,    /**< backed by the caller's system memory */
    GR_PIN_GPU = 1u << 4,       /**< a packet in flight (or a submission being made) lists it */
    GR_PIN_NO_PAGING = 1u << 5, /**< the adapter cannot page (no DMA engine) */
};

/** gr_alloc_lock flags */
enum {
    GR_LOCK_READ_ONLY = 1u << 0, /**< unlock does not write back */
    GR_LOCK_DISCARD = 1u << 1,   /**< the old contents are not read (the buffer is zeroed) */
};

/** One allocation to create (D3DDDI_ALLOCATIONINFO). */
typedef struct gr_alloc_desc {
    const void *private_data; /**< the UMD's data for the miniport: gr_alloc_private_t */
    uint32_t private_size;    /**< bytes at private_data */
    /**
     * ExistingSysMem/ExistingKernelSysMem backing store, else NULL: page aligned, inside one
     * buffer from gr_sysmem_alloc of the device's process (the device's host bus address of
     * it is that buffer's; gr_sysmem_t says why other memory cannot serve)
     */
    void *sysmem;
    uint64_t sysmem_bytes;    /**< bytes at sysmem: whole pages, at least the allocation */
} gr_alloc_desc_t;

/** The resource the allocations belong to (DXGKARG_CREATEALLOCATION resource fields). */
typedef struct gr_resource_desc {
    const void *private_data; /**< gr_resource_private_t, or NULL */
    uint32_t private_size;
    uint32_t flags; /**< GR_RESOURCE_* */
} gr_resource_desc_t;

/** What a handle refers to (gr_alloc_query). */
typedef struct gr_alloc_info {
    uint32_t segment;       /**< 1-based segment id; GR_SEGMENT_SYSTEM for system memory */
    uint64_t offset;        /**< bytes from the segment's start */
    uint64_t vram_address;  /**< VRAM address (segment base + offset); 0 in system memory */
    uint64_t size;          /**< bytes, as the miniport sized it (page multiple) */
    uint32_t alignment;     /**< bytes, as the miniport asked */
    uint32_t flags_wddm2;   /**< DXGK_ALLOCATIONINFOFLAGS_WDDM2_0.Value */
    uint32_t supported_segments; /**< SupportedWriteSegmentSet (bit n: segment n+1) */
    uint32_t preferred_segments; /**< PreferredSegment.Value */
    bool read_only;         /**< this handle was opened read-only */
    bool creator;           /**< this handle came from gr_alloc_create */
    bool shared;            /**< its resource is shared */
    bool locked;            /**< the allocation is locked now */
    uint64_t gpu_va;        /**< GPU virtual address in the device's space; 0: not mapped */
    uint64_t subresource_offset; /**< of the subresource named at gr_alloc_open (0 at create) */
    uint32_t pitch;              /**< its row pitch (0 for buffers) */
    uint64_t bus_address;        /**< system memory: the host bus address of its first byte,
                                      which gpu_va maps to (SYSTEM PTEs); 0 in VRAM */
    uint32_t residency;          /**< GR_RESIDENCY_*; evicted: segment, offset and vram_address
                                      are 0 and gpu_va (kept) faults */
    uint32_t pinned;             /**< GR_PIN_* bits: why it cannot be evicted now (0: it can) */
} gr_alloc_info_t;

/** One segment as VidMm manages it. */
typedef struct gr_segment_info {
    uint32_t id;          /**< 1-based */
    uint64_t base;        /**< VRAM address of offset 0 */
    uint64_t size;        /**< bytes */
    bool cpu_visible;     /**< DXGK_SEGMENTFLAGS.CpuVisible */
    bool vpr;             /**< holds the video protected range */
    uint64_t vpr_offset;  /**< VPR start, bytes from the segment's start */
    uint64_t vpr_size;    /**< VPR bytes (0: none) */
    uint64_t free_bytes;  /**< free space outside the VPR */
    uint64_t largest_free;
    uint64_t allocations; /**< live allocations (in the VPR too) */
} gr_segment_info_t;

/** Kinds of range a segment walk reports. */
typedef enum gr_segment_range_kind {
    GR_RANGE_FREE = 0,
    GR_RANGE_ALLOCATION = 1,
    GR_RANGE_VPR_FREE = 2, /**< free space inside the VPR */
} gr_segment_range_kind_t;

/**
 * One range of a segment map, in address order (gr_segment_walk). Return false to stop.
 */
typedef bool (*gr_segment_walk_fn)(void *ctx, uint64_t offset, uint64_t size, gr_segment_range_kind_t kind);

/** Counters of the adapter (tests and tools). */
typedef struct gr_adapter_stats {
    uint64_t ddi_create_allocation; /**< DxgkDdiCreateAllocation calls */
    uint64_t ddi_open_allocation;
    uint64_t ddi_close_allocation;
    uint64_t ddi_destroy_allocation;
    uint64_t ddi_destroy_resource;  /**< DestroyAllocation calls with DestroyResource set */
    uint64_t kmd_allocations;       /**< miniport objects alive (gr_kmd_counts) */
    uint64_t kmd_resources;
    uint64_t kmd_opens;
    uint64_t kmd_devices;
    uint64_t lock_window_moves;     /**< locks/unlocks that moved the CPU window */
    /* Residency (VidMm's paging; host/dxgk/README.md, "Residency"). */
    uint64_t evictions;             /**< allocations evicted (for room, or gr_alloc_evict) */
    uint64_t discards;              /**< ... of which discarded, not copied (clean PermanentSysMem) */
    uint64_t page_ins;              /**< evicted allocations paged back in (committed) */
    uint64_t bytes_evicted;         /**< bytes the DMA engine copied VRAM -> host memory */
    uint64_t bytes_paged_in;        /**< bytes the DMA engine copied host memory -> VRAM */
    uint64_t paging_packets;        /**< paging buffers submitted to the engine */
    uint64_t paging_failures;       /**< evictions or page-ins undone (a paging buffer failed) */
    uint64_t evicted_now;           /**< allocations evicted at this moment */
    uint64_t bytes_zeroed;          /**< VRAM bytes zeroed for new allocations (pages others had left) */
    uint64_t relocations;           /**< allocations moved inside their segment to make room (VRAM -> VRAM) */
    uint64_t bytes_relocated;       /**< bytes the DMA engine copied for them */
} gr_adapter_stats_t;

/**
 * Opens the device at a URI and starts the adapter: the miniport reads the memory
 * controller, VidMm asks DxgkDdiQueryAdapterInfo for DRIVERCAPS and QUERYSEGMENT4 (twice),
 * builds one range allocator per segment and sets up the VPR in the segment the miniport
 * marks VprSupported (the top 1/16 of it, 64 KiB aligned).
 * @param uri  NULL: $GR_DEVICE, else "sim://"
 * @param[out] out_adapter  untouched on failure
 * @return GR_OK, GR_E_INVALID (out_adapter NULL), GR_E_BAD_URI, link errors,
 *         GR_E_NO_DEVICE (the miniport did not start: no memory controller),
 *         GR_E_MISMATCH (the miniport's answers break a documented rule), GR_E_NO_MEMORY
 */
GR_API gr_status_t gr_adapter_open(const char *uri, gr_adapter_t **out_adapter);

/**
 * gr_adapter_open over a link the caller has already opened and keeps: gr_adapter_close
 * leaves it open (close it after the adapter). For tools that reach the device through the
 * link too (gpuctl's register commands: on sim:// the device lives inside its link, so they
 * and the allocations must share one). The adapter serialises its own link accesses; the
 * caller's direct ones must not run while an adapter call does (one thread interleaving
 * them is fine; threads use gr_adapter_with_link). Starting changes device state, as
 * gr_adapter_open does: MC_AP_BASE back to 0, VPR_BASE/LIMIT programmed and VPR_CTRL.ENABLE
 * set (cleared again by gr_adapter_close).
 * @param[out] out_adapter  untouched on failure
 * @return as gr_adapter_open (without GR_E_BAD_URI); GR_E_INVALID for a NULL argument
 */
GR_API gr_status_t gr_adapter_open_link(gr_link_t *link, gr_adapter_t **out_adapter);

/**
 * Destroys every process left, stops the miniport and closes the link (unless it came from
 * gr_adapter_open_link). NULL is allowed.
 */
void gr_adapter_close(gr_adapter_t *adapter);

/** The adapter's link (BAR0/BAR1 for tools and tests); the adapter keeps ownership. */
gr_link_t *gr_adapter_link(gr_adapter_t *adapter);

/**
 * Runs fn with the link lock held, so that raw BAR0/BAR1 accesses do not interleave with the
 * adapter's own (the link is single-threaded).
 * @return fn's result, or GR_E_INVALID for a NULL argument
 */
GR_API int gr_adapter_with_link(gr_adapter_t *adapter, int (*fn)(gr_link_t *link, void *ctx), void *ctx);

/**
 * The segments, in id order.
 * @param[out] out_segments  room for max entries
 * @param[out] out_count     segments reported (may exceed max: then only max were written)
 * @return GR_OK, GR_E_INVALID (NULL pointer)
 */
GR_API gr_status_t gr_adapter_segments(gr_adapter_t *adapter, gr_segment_info_t *out_segments, uint32_t max,
                                       uint32_t *out_count);

/**
 * Walks one segment's occupancy in address order (for drawing maps): allocations, free
 * ranges and the VPR's free ranges tile [0, size). fn runs with VidMm's lock held: it must not
 * call into the adapter.
 * @return GR_OK, GR_E_INVALID (no such segment, NULL pointer)
 */
GR_API gr_status_t gr_segment_walk(gr_adapter_t *adapter, uint32_t segment, gr_segment_walk_fn fn, void *ctx);

/** The adapter's counters. @param[out] out_stats untouched on failure */
GR_API gr_status_t gr_adapter_stats(gr_adapter_t *adapter, gr_adapter_stats_t *out_stats);

/**
 * Creates a simulated process with its own handle table.
 * @param[out] out_process  untouched on failure
 * @return GR_OK, GR_E_INVALID, GR_E_NO_MEMORY
 */
GR_API gr_status_t gr_process_create(gr_adapter_t *adapter, gr_process_t **out_process);

/**
 * Destroys the process's devices (closing and destroying their handles) and gives back its
 * gr_sysmem_alloc buffers (one still backing an allocation that another process holds open
 * lives until that allocation is destroyed); NULL is allowed.
 */
void gr_process_destroy(gr_process_t *process);

/**
 * Host memory of a process that the device can reach: what an ExistingSysMem (or
 * ExistingKernelSysMem) allocation names as its backing store (gr_alloc_desc_t.sysmem, any
 * page-aligned run of whole pages inside one buffer). dxgkrnl pins a process's own pages and
 * maps them for the device; here the device reaches host memory only through the link's DMA
 * allocator (sim://: buffers served on m_host from a private bus space, as behind an IOMMU),
 * so the memory comes from it, VidMm knows each buffer's bus address and refuses memory that
 * is in none of the process's buffers (GR_E_NOT_FOUND): the device could not reach it.
 */
typedef struct gr_sysmem {
    void *cpu;      /**< the process's pointer: page aligned, zeroed when allocated */
    uint64_t bus;   /**< the device's (host bus) address of cpu[0]; contiguous over bytes */
    uint64_t bytes; /**< whole pages */
} gr_sysmem_t;

/**
 * Allocates host memory the device can reach, owned by the process (gr_sysmem_t).
 * @param bytes  rounded up to whole pages; 1 byte to 1 TiB
 * @param[out] out_mem  untouched on failure
 * @return GR_OK, GR_E_INVALID, GR_E_UNSUPPORTED (the link cannot give the device host
 *         memory), GR_E_NO_MEMORY, link errors
 */
GR_API gr_status_t gr_sysmem_alloc(gr_process_t *process, uint64_t bytes, gr_sysmem_t *out_mem);

/**
 * Gives back a buffer from gr_sysmem_alloc (cpu: its gr_sysmem_t.cpu).
 * @return GR_OK, GR_E_INVALID (NULL), GR_E_NOT_FOUND (not the start of a buffer of this
 *         process), GR_E_BUSY (an allocation is still backed by it: destroy that first;
 *         nothing changed)
 */
gr_status_t gr_sysmem_free(gr_process_t *process, void *cpu);

/**
 * Creates a device in a process (DxgkDdiCreateDevice).
 * @param[out] out_device  untouched on failure
 * @return GR_OK, GR_E_INVALID, GR_E_NO_MEMORY
 */
GR_API gr_status_t gr_gpu_device_create(gr_process_t *process, gr_gpu_device_t **out_device);

/** Closes/destroys every handle of the device, then DxgkDdiDestroyDevice. NULL is allowed. */
void gr_gpu_device_destroy(gr_gpu_device_t *device);

/**
 * Creates one resource's allocations: DxgkDdiCreateAllocation, then VidMm checks each
 * DXGK_ALLOCATIONINFO against the documented flag rules (vidmm_flag_rules.h), places each
 * allocation (preferred segments first, then the supported set; alignment; FromEndOfSegment
 * top-down; Overlay/Capture in the last 20% of a segment; CreateInVpr/HardwareProtected
 * inside the VPR; every allocation contiguous), then opens them for the device
 * (DxgkDdiOpenAllocation with Create set) and maps each into its GPU virtual address space:
 * VRAM at the allocation's VRAM address, ExistingSysMem/ExistingKernelSysMem with SYSTEM
 * PTEs at the host bus address of the caller's memory (gr_sysmem_t).
 * @param resource  NULL: allocations without a resource (DXGK_CREATEALLOCATIONFLAGS.Resource 0)
 * @param[out] out_handles  count handles; untouched on failure
 * @param[out] out_shared   the shared handle (required with GR_RESOURCE_SHARED, else may be NULL)
 * @return GR_OK; GR_E_INVALID (bad arguments, the miniport refused the private data, or its
 *         answer broke a flag rule; nothing was created: DxgkDdiDestroyAllocation undid what
 *         the miniport made; also ExistingSysMem memory that is NULL, not page aligned,
 *         not whole pages or smaller than the allocation, and memory given without it);
 *         GR_E_NOT_FOUND (ExistingSysMem memory not inside one gr_sysmem_alloc buffer of the
 *         device's process: the device cannot reach it; nothing was created);
 *         GR_E_NO_MEMORY (no allowed segment has room even after evicting every allocation
 *         that may be evicted; nothing was created, and nothing was evicted when no segment
 *         could hold it at all)
 *
 * When a segment is full VidMm evicts least-recently-used allocations from the segments the
 * new one may use (never a pinned one, never in a segment where evicting cannot make room).
 */
GR_API gr_status_t gr_alloc_create(gr_gpu_device_t *device, const gr_resource_desc_t *resource,
                                   const gr_alloc_desc_t *descs, uint32_t count, gr_alloc_t *out_handles,
                                   gr_shared_t *out_shared);

/**
 * Opens every allocation of a shared resource for a device (DxgkDdiOpenAllocation with
 * Create clear, ReadOnly from flags, SubresourceIndex for the first allocation).
 * @param[out] out_handles  room for max handles, one per allocation of the resource
 * @param[out] out_count    allocations in the resource (written also when max is too small)
 * @param[out] out_info     may be NULL: gr_alloc_query of the first handle
 * @return GR_OK, GR_E_INVALID (stale or unknown shared handle, bad flag, or the miniport
 *         refused: subresource index past the last one, allocation not laid out for sharing),
 *         GR_E_RANGE (max is smaller than the resource; *out_count says how many)
 */
GR_API gr_status_t gr_alloc_open(gr_gpu_device_t *device, gr_shared_t shared, uint32_t flags,
                                 uint32_t subresource_index, gr_alloc_t *out_handles, uint32_t max,
                                 uint32_t *out_count, gr_alloc_info_t *out_info);

/**
 * Closes a handle from gr_alloc_open (DxgkDdiCloseAllocation). When it was the last reference,
 * the allocation is destroyed as by gr_alloc_destroy. A lock held through it is dropped.
 * @return GR_OK, GR_E_INVALID (bad, stale, foreign or creator handle: use gr_alloc_destroy)
 */
gr_status_t gr_alloc_close(gr_gpu_device_t *device, gr_alloc_t handle);

/**
 * Destroys a handle from gr_alloc_create: DxgkDdiCloseAllocation for the device; when no
 * other process holds the allocation open, the OS waits until the GPU no longer uses it (the
 * hook is empty until the engine exists), calls DxgkDdiDestroyAllocation (with
 * DestroyResource when it is the resource's last allocation) and returns its segment space.
 * @return GR_OK, GR_E_INVALID (bad, stale, foreign or opened handle: use gr_alloc_close)
 */
gr_status_t gr_alloc_destroy(gr_gpu_device_t *device, gr_alloc_t handle);

/**
 * Locks an allocation for the CPU and returns a pointer to its bytes. An evicted allocation
 * is paged in first (except PermanentSysMem); a locked allocation is never evicted.
 *   - CpuVisible in VRAM: a host buffer filled from VRAM through BAR1 (aperture offset =
 *     VRAM address - MC_AP_BASE); unlock writes it back;
 *   - CpuVisibleOnDemand: the same, the miniport moving the window (MC_AP_BASE) onto the
 *     allocation for each copy and back after;
 *   - PermanentSysMem: the system copy (brought up to date from VRAM first when a submission
 *     wrote the allocation since; stays evicted if it was); unlock writes it into VRAM when the
 *     allocation is resident (evicted, the copy is already the truth);
 *   - ExistingSysMem/ExistingKernelSysMem: the caller's own memory (gr_sysmem_t).
 * @param[out] out_ptr  page-aligned, size bytes long; untouched on failure
 * @return GR_OK, GR_E_INVALID (bad handle or flag; a read-only handle without
 *         GR_LOCK_READ_ONLY; not CpuVisible, CpuVisibleOnDemand or system memory; Protected
 *         or in the VPR: never mapped for the CPU), GR_E_BUSY (already locked),
 *         GR_E_NO_MEMORY (also: it cannot be paged in), GR_E_DEVICE_RESET (the paging buffer
 *         that paged it in was lost in a GPU reset), link errors (nothing stays locked then)
 */
GR_API gr_status_t gr_alloc_lock(gr_gpu_device_t *device, gr_alloc_t handle, uint32_t flags, void **out_ptr);

/**
 * Locks only the pages holding [offset, offset + bytes) (D3DDDICB_LOCK's NumPages/pPages: a
 * lock of some pages of an allocation), as gr_alloc_lock otherwise. Only those pages cross
 * BAR1, at lock and at unlock: reading a few bytes of a large allocation costs a page, not the
 * allocation. Writes outside them through the pointer are undefined (a lock of the whole
 * allocation is gr_alloc_lock).
 * @param[out] out_ptr  the byte at offset (inside a page-aligned buffer); untouched on failure
 * @return as gr_alloc_lock, and GR_E_RANGE (bytes 0, or the range is not inside the allocation)
 */
GR_API gr_status_t gr_alloc_lock_range(gr_gpu_device_t *device, gr_alloc_t handle, uint32_t flags, uint64_t offset,
                                       uint64_t bytes, void **out_ptr);

/**
 * Unlocks: writes the locked pages back to VRAM through BAR1 (unless locked
 * GR_LOCK_READ_ONLY) and frees the buffer. The allocation is unlocked even when the write-back fails.
 * @return GR_OK, GR_E_INVALID (bad handle, not locked through this handle), link errors
 */
gr_status_t gr_alloc_unlock(gr_gpu_device_t *device, gr_alloc_t handle);

/**
 * What a handle refers to.
 * @param[out] out_info  untouched on failure
 * @return GR_OK, GR_E_INVALID
 */
GR_API gr_status_t gr_alloc_query(gr_gpu_device_t *device, gr_alloc_t handle, gr_alloc_info_t *out_info);

/**
 * Makes allocations resident (D3DKMTMakeResident): each evicted one is paged in, evicting
 * least-recently-used others if needed (never one of the list, never a pinned one, waiting for
 * packets in flight to retire when only they stand in the way), and all count as used now.
 * Resident and system-memory allocations need nothing.
 * @param handles  count handles of the device, each at most once
 * @return GR_OK; GR_E_INVALID (NULL, count 0 or above GR_ALLOC_MAX_RESIDENCY_LIST, a bad, stale,
 *         forged or foreign handle, a handle twice; nothing changed); GR_E_NO_MEMORY (they
 *         cannot all be resident at once: those this call paged in are evicted again);
 *         GR_E_DEVICE_RESET (a paging buffer was lost in a GPU reset; that page-in was undone);
 *         link errors
 */
GR_API gr_status_t gr_alloc_make_resident(gr_gpu_device_t *device, const gr_alloc_t *handles, uint32_t count);

/**
 * Evicts allocations now (D3DKMTEvict, taken as "evict at once"): each resident one's content
 * goes to host memory on the DMA engine (a clean PermanentSysMem one is discarded), its GPU VAs
 * are unmapped in every device and its segment space is given back. Already evicted ones need
 * nothing. A later submission, lock or gr_alloc_make_resident pages it back in.
 * @return GR_OK; GR_E_INVALID (as gr_alloc_make_resident; nothing changed); GR_E_BUSY (one of
 *         them is pinned: gr_alloc_info_t.pinned says why; nothing changed); GR_E_UNSUPPORTED
 *         (the adapter cannot page: no DMA engine); GR_E_NO_MEMORY (no host memory for a
 *         backing store); GR_E_DEVICE_RESET (a paging buffer was lost in a GPU reset); after a
 *         failure those this call evicted are paged back in as far as possible
 */
GR_API gr_status_t gr_alloc_evict(gr_gpu_device_t *device, const gr_alloc_t *handles, uint32_t count);

/** What the GPU's MMU answers for one access (MMU_PROBE_STATUS / MMU_PROBE_PA). */
typedef struct gr_gpu_probe {
    bool fault;          /**< the access would fault (also logged in MC_FAULT_*) */
    uint32_t fault_type; /**< 1 unmapped, 2 write to read-only, 3 page-table read error */
    uint64_t pa;         /**< physical address (VRAM, or host bus if system) */
    bool system;
    bool cacheable;
    uint32_t page_shift; /**< 12, 16 or 21 */
} gr_gpu_probe_t;

/**
 * Asks the hardware MMU what an engine access by this device at a GPU virtual address would
 * do: the device's address space is made the MMU's current one (MMU_ROOT, TLB invalidated,
 * translation on) and MMU_PROBE translates the address, as the DMA engine will. A read-only
 * open's mapping answers a write with fault type 2.
 * @param[out] out_probe  untouched on failure
 * @return GR_OK (whether or not the access faults), GR_E_INVALID, GR_E_TIMEOUT, link errors
 */
GR_API gr_status_t gr_gpu_device_probe(gr_gpu_device_t *device, uint64_t va, bool write,
                                       gr_gpu_probe_t *out_probe);

#ifdef __cplusplus
}
#endif

#endif
