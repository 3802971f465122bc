/* SPDX-License-Identifier: Apache-2.0 */
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
#define KMD_MAGIC_CONTEXT 0x4b4d4358u  /* KMCX */
#define KMD_MAGIC_PACKET 0x4b4d504bu   /* KMPK */
#define KMD_MAGIC_DEAD 0xdeadbeefu

#define KMD_PAGE 4096u
#define KMD_MAX_SEGMENTS 2u

typedef struct kmd_packet kmd_packet_t;

/*
 * The DMA engine's software side (kmd_engine.c, kmd_submit.c, kmd_packet.c, kmd_interrupt.c).
 * Locks, in the order they nest: sched_lock (ring slots, packets, sequence numbers), then
 * irq_lock (what the interrupt routine shares: last reported fence, preemption snapshot), then
 * the link lock. The interrupt routine never takes sched_lock.
 */
typedef struct kmd_engine {
    bool ready;
    gr_dma_buf_t ring;          /* 2^ring_log2 entries of 32 bytes */
    gr_dma_buf_t fence;         /* the fence record (qword 0 completed, qword 1 preemption) */
    uint32_t ring_log2, ring_entries;
    pthread_mutex_t sched_lock;
    kmd_packet_t **slots;       /* the packet each ring entry runs, NULL once released */
    bool *stub_slot;            /* slot i holds the resumed command of slots[i + 1]'s packet */
    gr_dma_buf_t stubs;         /* one GR_DMA_RING_ENTRY_BYTES command area per ring slot */
    uint64_t next_seq;          /* sequence number of the next entry; index = seq % entries */
    uint64_t retire_seq;        /* oldest sequence number not yet released */
    kmd_packet_t *live;         /* every live packet (doubly linked) */
    uint64_t next_packet_id;
    atomic_uint last_submitted_fence;
    atomic_bool any_submitted;
    pthread_mutex_t irq_lock;
    uint32_t last_reported_fence;        /* irq_lock */
    bool stop_pending;                   /* irq_lock: a preemption's removed range to release */
    uint32_t stop_head, stop_tail, stop_offset, stop_done;
    atomic_uint_fast64_t n_interrupts, n_dpcs;
} kmd_engine_t;

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
    atomic_uint_fast64_t n_allocs, n_resources, n_opens, n_devices, n_contexts, n_packets;
    kmd_engine_t eng;
} kmd_adapter_t;

typedef struct kmd_device {
    uint32_t magic;
    kmd_adapter_t *adapter;
    HANDLE hDxgkDevice;
    atomic_uint live_contexts;
} kmd_device_t;

typedef struct kmd_context {
    uint32_t magic;
    kmd_adapter_t *adapter;
    kmd_device_t *device;
    DXGK_CREATECONTEXTFLAGS flags;
    /* Written by SetRootPageTable while the context is idle, read by Submit: sched_lock. */
    bool has_root;
    uint64_t root;
    uint32_t root_entries;
    uint32_t rejected_roots;
} kmd_context_t;

enum kmd_packet_state {
    KMD_PKT_PATCHED,  /* patched, not on the ring */
    KMD_PKT_QUEUED,   /* on the ring (slots[ring_index]) */
    KMD_PKT_REMOVED,  /* taken off the ring by a preemption: resubmitted or cancelled later */
};

/* Per-packet state (kmd_packet.c). All fields under sched_lock. */
struct kmd_packet {
    uint32_t magic;
    uint64_t id;               /* what the private-data tag names */
    kmd_context_t *ctx;        /* NULL for a paging packet submitted without a context */
    enum kmd_packet_state state;
    bool paging;
    bool cancelled;            /* CancelCommand came while it was on the ring */
    uint32_t fence;
    uint64_t dma_addr;         /* DmaBufferPhysicalAddress */
    uint32_t start, end;       /* submission range in the DMA buffer */
    uint32_t resume;           /* bytes of [start, end) to skip: a preemption stopped there */
    uint64_t resume_done;      /* bytes the COPY or FILL at `resume` already wrote */
    uint32_t split;            /* on the ring as a stub (the cut command, this long) + the rest */
    uint8_t *cpu;              /* pDmaBuffer of its Patch: where the command a stop cut is read */
    uint32_t stops;            /* preemptions that stopped it while it ran */
    bool advanced;             /* the last of them found it further on than where it started */
    uint32_t ring_index;
    kmd_packet_t *prev, *next;
};

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
    /* DXGK_OPERATION_NOTIFY_RESIDENCY (ExplicitResidencyNotification allocations). */
    atomic_bool resident;
    atomic_uint_fast64_t resident_addr;
} kmd_alloc_t;

typedef struct kmd_open {
    uint32_t magic;
    kmd_alloc_t *alloc;
    kmd_device_t *device;
    bool read_only;
    bool creator;
} kmd_open_t;

/* Register access under the link lock (kmd_reg.c, the bottom of the miniport). */
int kmd_reg_read(kmd_adapter_t *a, uint32_t offset, uint32_t *out_value);
/* count reads in order, in one round trip where the link batches them (gr_link_read32_batch). */
int kmd_reg_read_batch(kmd_adapter_t *a, const uint32_t *offsets, unsigned count, uint32_t *out_values);
int kmd_reg_write(kmd_adapter_t *a, uint32_t offset, uint32_t value);

kmd_adapter_t *kmd_adapter_from(HANDLE h);

#endif
