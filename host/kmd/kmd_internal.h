/* kmd_internal.h: the miniport's private objects (host/kmd only). */
#ifndef GPUREF_KMD_INTERNAL_H
#define GPUREF_KMD_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpuref/gr_alloc_private.h"
#include "kmd.h"

/* Tags that make a stale or foreign handle from the OS fail loudly instead of corrupting. */
#define KMD_MAGIC_ADAPTER 0x4b4d4441u  /* KMDA */
#define KMD_MAGIC_DEVICE 0x4b4d4444u   /* KMDD */
#define KMD_MAGIC_ALLOC 0x4b4d414cu    /* KMAL */
#define KMD_MAGIC_RESOURCE 0x4b4d5253u /* KMRS */
#define KMD_MAGIC_OPEN 0x4b4d4f50u     /* KMOP */
#define KMD_MAGIC_DEAD 0xdeadbeefu

#define KMD_PAGE 4096u
#define KMD_MAX_SEGMENTS 2u

typedef struct kmd_adapter {
    uint32_t magic;
    gr_link_t *link;
    pthread_mutex_t *link_lock;
    DXGKRNL_INTERFACE cb;
    uint32_t id_caps;
    uint64_t vram_bytes;
    uint64_t ap_bytes;
    uint32_t segment_count;   /* 1 when the aperture covers all of VRAM, else 2 */
    uint32_t vpr_segment;     /* 1-based id of the segment that may hold the VPR */
    pthread_mutex_t window_lock; /* held from acquire_cpu_window to release_cpu_window */
    bool window_moved;
    atomic_uint_fast64_t n_allocs, n_resources, n_opens, n_devices;
} kmd_adapter_t;

typedef struct kmd_device {
    uint32_t magic;
    kmd_adapter_t *adapter;
    HANDLE hDxgkDevice;
} kmd_device_t;

typedef struct kmd_resource {
    uint32_t magic;
    kmd_adapter_t *adapter;
    gr_resource_private_t priv; /* zero when the UMD gave none */
    atomic_uint live_allocs;
} kmd_resource_t;

/* Surface layout: subresource = mip + slice * mip_levels (the D3D numbering). */
typedef struct kmd_alloc {
    uint32_t magic;
    kmd_adapter_t *adapter;
    kmd_resource_t *resource; /* NULL without Flags.Resource */
    gr_alloc_private_t priv;
    uint64_t size;         /* bytes before page rounding */
    uint32_t bytes_per_texel;
    uint64_t slice_stride; /* surfaces: bytes from one array slice to the next */
    uint64_t mip_offset[15];
    uint32_t mip_pitch[15];
} kmd_alloc_t;

typedef struct kmd_open {
    uint32_t magic;
    kmd_alloc_t *alloc;
    kmd_device_t *device;
    bool read_only;
    bool creator;
} kmd_open_t;

/* Register access under the link lock. */
int kmd_reg_read(kmd_adapter_t *a, uint32_t offset, uint32_t *out_value);
int kmd_reg_write(kmd_adapter_t *a, uint32_t offset, uint32_t value);

kmd_adapter_t *kmd_adapter_from(HANDLE h);

#endif
