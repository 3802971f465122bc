/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_alloc_private.h: the private data gpuref's user-mode side hands to its miniport
 * (host/kmd) when it creates allocations, as a WDDM UMD does through pfnAllocateCb.
 *
 * Two blobs, both opaque to the OS (dxgkrnl, here host/dxgk) and read only by
 * DxgkDdiCreateAllocation:
 *   - gr_alloc_private_t, one per allocation, in DXGK_ALLOCATIONINFO.pPrivateDriverData;
 *   - gr_resource_private_t, one per call, in DXGKARG_CREATEALLOCATION.pPrivateDriverData
 *     (optional: NULL/0 is a lone allocation without a resource).
 *
 * Versioning: each blob starts with {version, struct_size}. The miniport accepts exactly
 * GR_ALLOC_PRIVATE_VERSION and PrivateDriverDataSize == struct_size == sizeof(the struct);
 * anything else, an unknown kind/format/cpu_access/flag bit or a non-zero reserved word fails
 * with STATUS_INVALID_PARAMETER (the UMD and KMD disagree: nothing is guessed).
 * A later version adds fields at the end and bumps the version; the miniport then accepts
 * both.
 *
 * What each request turns into (DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 and placement) is listed in
 * host/kmd/README.md.
 */
#ifndef GPUREF_GR_ALLOC_PRIVATE_H
#define GPUREF_GR_ALLOC_PRIVATE_H

#include <stdint.h>

#include "gpuref/gr_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The one version this miniport understands. */
#define GR_ALLOC_PRIVATE_VERSION 1u

/** What an allocation holds. */
typedef enum gr_alloc_kind {
    GR_ALLOC_KIND_BUFFER = 1,    /**< linear bytes: buffer_bytes */
    GR_ALLOC_KIND_SURFACE2D = 2, /**< 2D surface: format, width, height, mips, array slices */
} gr_alloc_kind_t;

/** How the CPU reaches it (gr_alloc_lock). */
typedef enum gr_alloc_cpu_access {
    GR_CPU_ACCESS_NONE = 0,       /**< never locked: any VRAM segment, lock fails */
    GR_CPU_ACCESS_READ = 1,       /**< CPU reads back: CpuVisible + Cached */
    GR_CPU_ACCESS_WRITE = 2,      /**< CPU uploads: CpuVisible (write-combined, uncached) */
    GR_CPU_ACCESS_READ_WRITE = 3, /**< both: CpuVisible + Cached */
    GR_CPU_ACCESS_ON_DEMAND = 4,  /**< CpuVisibleOnDemand: any VRAM, aperture moved at lock */
} gr_alloc_cpu_access_t;

/** Request bits of gr_alloc_private_t.flags. */
enum {
    GR_ALLOC_PRIV_OVERLAY = 1u << 0,            /**< Overlay: pinned, last 20% of a segment */
    GR_ALLOC_PRIV_CAPTURE = 1u << 1,            /**< Capture: pinned, last 20% of a segment */
    GR_ALLOC_PRIV_PROTECTED = 1u << 2,          /**< Protected: never mapped to user mode */
    GR_ALLOC_PRIV_HISTORY_BUFFER = 1u << 3,     /**< HistoryBuffer: a buffer, CpuVisible only */
    GR_ALLOC_PRIV_PHYSICAL = 1u << 4,           /**< AccessedPhysically: contiguous, by PA */
    GR_ALLOC_PRIV_EXPLICIT_RESIDENCY = 1u << 5, /**< ExplicitResidencyNotification (+PHYSICAL) */
    GR_ALLOC_PRIV_SHARED = 1u << 6,             /**< layout other devices may open */
    GR_ALLOC_PRIV_PERMANENT_SYSMEM = 1u << 7,   /**< PermanentSysMem: needs CPU access */
    GR_ALLOC_PRIV_CACHED = 1u << 8,             /**< Cached: needs CPU access */
    GR_ALLOC_PRIV_NO_LARGE_PAGES = 1u << 9,     /**< DisableLargePageMapping, 4 KiB alignment */
    GR_ALLOC_PRIV_FROM_END = 1u << 10,          /**< FromEndOfSegment: placed top-down */
    GR_ALLOC_PRIV_IN_VPR = 1u << 11,            /**< CreateInVpr + HardwareProtected */
    GR_ALLOC_PRIV_EXISTING_SYSMEM = 1u << 12,   /**< ExistingSysMem: caller's pages back it */
};
/** Every defined request bit. */
#define GR_ALLOC_PRIV_ALL_FLAGS 0x1fffu

/** Per-allocation private data (DXGK_ALLOCATIONINFO.pPrivateDriverData). 64 bytes. */
typedef struct gr_alloc_private {
    uint32_t version;      /**< GR_ALLOC_PRIVATE_VERSION */
    uint32_t struct_size;  /**< sizeof(gr_alloc_private_t) */
    uint32_t kind;         /**< gr_alloc_kind_t */
    uint32_t flags;        /**< GR_ALLOC_PRIV_* */
    uint32_t cpu_access;   /**< gr_alloc_cpu_access_t */
    uint32_t format;       /**< surfaces: a D3DDDIFORMAT listed in host/kmd/README.md; buffers 0 */
    uint32_t width;        /**< surfaces: 1..16384 texels; buffers 0 */
    uint32_t height;       /**< surfaces: 1..16384 texels; buffers 0 */
    uint32_t mip_levels;   /**< surfaces: 1..full chain; buffers 0 */
    uint32_t array_size;   /**< surfaces: 1..2048 slices; buffers 0 */
    uint64_t buffer_bytes; /**< buffers: 1..4 GiB; surfaces 0 */
    uint32_t reserved[4];  /**< zero */
} gr_alloc_private_t;

/** Per-resource private data (DXGKARG_CREATEALLOCATION.pPrivateDriverData). 32 bytes. */
typedef struct gr_resource_private {
    uint32_t version;     /**< GR_ALLOC_PRIVATE_VERSION */
    uint32_t struct_size; /**< sizeof(gr_resource_private_t) */
    uint32_t flags;       /**< none defined yet: zero */
    uint32_t tag;         /**< free for the UMD (a debug name hash); the miniport keeps it */
    uint32_t reserved[4]; /**< zero */
} gr_resource_private_t;

GR_STATIC_ASSERT(sizeof(gr_alloc_private_t) == 64, "gr_alloc_private_t is part of the UMD/KMD ABI");
GR_STATIC_ASSERT(sizeof(gr_resource_private_t) == 32, "gr_resource_private_t is ABI");

#ifdef __cplusplus
}
#endif

#endif
