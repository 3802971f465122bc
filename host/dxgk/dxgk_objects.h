/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dxgk_objects.h: the OS stand-in's objects (private to host/dxgk): adapter, processes,
 * devices, kernel allocations and resources, per-process opens. Types only: each file's
 * functions are in its own header (dxgk_ddi.h, dxgk_kernel.h, dxgk_sysmem.h, vidmm/vidmm_*.h,
 * vidsch/vidsch*.h). This one includes only headers of types and of files that use no object
 * (handles, threading, the link, VidMm's segment and GPU VA pieces), so any file may include it.
 *
 * Locks, always taken in this order: process->lock (one API call of a process at a time, as
 * dxgkrnl never has two threads of a process in the miniport), the residency lock
 * (vidmm_residency.h: residency state, each allocation's list of opens, every GPU VA space),
 * VidSch's lock (vidsch_objects.h) and the scheduler-class lock (adapter->class_lock,
 * dxgk_ddi.c), adapter->vidmm_lock (segments, reference counts, lock state, shared table), the
 * miniport's CPU-window lock, link_lock.
 * No lock but process->lock, the residency lock (and, for first-level DDIs, the scheduler-class
 * lock) is held while a DDI runs, so DDIs of different processes overlap. Every DDI call goes
 * through the adapter's DDI table and the threading checker (dxgk_ddi.h, dxgk_threading.h).
 */
#ifndef GPUREF_DXGK_OBJECTS_H
#define GPUREF_DXGK_OBJECTS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "d3dkmddi.h"
#include "dxgk_ddi_table.h"
#include "dxgk_handle.h"
#include "dxgk_threading.h"
#include "gpuref/gr_alloc.h"
#include "gr_link.h"
#include "vidmm_gpuva.h"
#include "vidmm_segment.h"

/* Handle types: the kernel table uses DXGK_HANDLE_ALLOCATION (1) and DXGK_HANDLE_RESOURCE (2). */
#define DXGK_HT_OPEN 3u   /* a process's allocation handle */
#define DXGK_HT_SHARED 4u /* an adapter's shared-resource handle */
#define DXGK_HT_CONTEXT 5u /* a process's GPU context handle (VidSch) */
#define DXGK_HT_DMABUF 6u  /* a process's DMA buffer handle (VidSch) */

typedef struct dxgk_segment {
    uint32_t id;
    DXGK_SEGMENTDESCRIPTOR4 desc;
    uint64_t base, size;
    bool cpu_visible;
    gr_seg_t *heap;
    /* The VPR, when in this segment: reserved in heap, sub-allocated by vpr_heap. */
    uint64_t vpr_offset, vpr_size;
    gr_seg_t *vpr_heap;
    /* A bit per 4 KiB page: it may hold what an allocation that left it wrote (vidmm_place.c).
     * A new allocation's stale pages are zeroed before it is handed out. */
    uint64_t *stale;
} dxgk_segment_t;

typedef struct dxgk_kres dxgk_kres_t;
typedef struct dxgk_kalloc dxgk_kalloc_t;
typedef struct dxgk_open dxgk_open_t;
/* Objects of the subsystems, opaque here: VidSch's adapter state (vidsch/vidsch_objects.h),
 * VidMm's residency state of an adapter and an evicted allocation's store
 * (vidmm/vidmm_residency.c), a buffer of host memory the device reaches (gr_sysmem_alloc;
 * dxgk_sysmem.h). */
struct dxgk_vidsch;
struct dxgk_res;
struct dxgk_store;
struct dxgk_sysmem;

struct dxgk_kalloc {
    D3DKMT_HANDLE kh;      /* kernel handle (DxgkCbGetHandleData) */
    gr_adapter_t *adapter;
    dxgk_kres_t *res;
    DXGK_ALLOCATIONINFO info; /* the miniport's answer */
    void *priv;               /* copy of the UMD's private data */
    uint32_t priv_size;
    uint32_t segment;         /* 0: system memory */
    uint64_t offset, vram;
    bool in_vpr;
    void *sysmem;             /* ExistingSysMem/ExistingKernelSysMem: the caller's */
    struct dxgk_sysmem *sysmem_buf; /* the buffer holding it (one reference held) */
    uint64_t sysmem_bus;      /* its host bus address: what the GPU VA maps to */
    void *sys_copy;           /* PermanentSysMem: kept for the allocation's life, host memory
                                 from the link (the engine reaches it at sys_copy_bus) */
    uint64_t sys_copy_bus;
    gr_dma_buf_t sys_copy_mem; /* its link buffer (bytes 0: plain host memory, no link DMA) */
    uint32_t refs;            /* live opens, creator's included */
    uint32_t gpu_refs;        /* packets in flight that list it (VidSch's lock) */
    bool destroyed;
    /* Lock state. */
    struct dxgk_open *locker;
    void *lock_buf;
    uint32_t lock_flags;
    uint64_t lock_lo, lock_span; /* the locked pages: [lock_lo, lock_lo + lock_span) of it */
    /* Residency (vidmm_residency.c, under the residency lock). */
    bool tracked;             /* in the adapter's residency list (VRAM allocations, until destroyed) */
    bool evicted;             /* content in store (or sys_copy), no segment space */
    bool dirty;               /* a submission wrote it since its system copy was last equal */
    uint32_t res_pins;        /* residency operations in progress that need it where it is */
    uint64_t last_use;        /* LRU: the residency tick of its last submission, lock or commit */
    struct dxgk_store *store; /* evicted (not PermanentSysMem): the backing store */
    dxgk_open_t *opens;       /* every open of it, for their GPU VAs */
    dxgk_kalloc_t *res_next, *res_prev;
};

struct dxgk_kres {
    D3DKMT_HANDLE kh;
    HANDLE hResource; /* the miniport's; NULL without a resource */
    bool has_resource;
    uint32_t count, live;
    dxgk_kalloc_t **allocs;
    bool shared;
    gr_shared_t shared_handle;
    void *priv;
    uint32_t priv_size;
};

struct dxgk_open {
    gr_alloc_t handle;
    gr_gpu_device_t *device;
    dxgk_kalloc_t *ka;
    HANDLE hDeviceSpecific;
    bool creator, read_only;
    uint64_t gpu_va;   /* its VA, kept while the allocation is evicted (0: none) */
    bool mapped;       /* gpu_va maps the allocation now (residency lock) */
    uint32_t gpu_refs; /* packets in flight that list this open (VidSch's lock) */
    uint64_t sub_offset;
    uint32_t pitch;
    dxgk_open_t *ka_next; /* the allocation's list of opens (residency lock) */
};

/* Test hook: runs on the miniport's DXGK_ALLOCATIONINFO array before VidMm checks it. */
typedef void (*dxgk_create_hook_fn)(void *ctx, DXGK_ALLOCATIONINFO *infos, UINT count);

struct gr_adapter {
    gr_link_t *link;
    pthread_mutex_t link_lock;
    HANDLE hAdapter;
    DXGKRNL_INTERFACE dxgkrnl;
    DXGK_DRIVERCAPS caps;
    uint32_t nseg;
    dxgk_segment_t seg[GR_ALLOC_MAX_SEGMENTS];
    uint32_t vpr_segment; /* 0: no VPR */
    pthread_mutex_t vidmm_lock;
    dxgk_htab_t shared;
    pthread_mutex_t proc_lock;
    gr_process_t *procs; /* list */
    atomic_uint_fast64_t n_create, n_open, n_close, n_destroy, n_destroy_res, n_window_moves;
    dxgk_create_hook_fn create_hook;
    void *create_hook_ctx;
    struct dxgk_vidsch *vidsch; /* the GPU scheduler (vidsch/) */
    gr_dxgk_ddi_table_t ddi;    /* the miniport's DDIs, called through dxgk_ddi.c */
    dxgk_thr_t *thr;            /* the DDI threading checker */
    pthread_mutex_t class_lock; /* the scheduler-class lock (first-level DDIs) */
    bool owns_link;               /* false: gr_adapter_open_link, the caller closes it */
    bool vram_used;               /* an earlier driver stack ran on the device (gr_brk_driver_start) */
    bool keep_binding;            /* close leaves the link's binding held (gr_brk_driver_stop) */
    uint64_t test_disabled_rules; /* flag rules VidMm skips (tests only; 0) */
    /* DXGK_QUERYSEGMENTOUT4: paging buffers (0: the miniport pages nothing; no eviction). */
    uint32_t paging_buffer_size, paging_priv_size;
    struct dxgk_res *res; /* residency and eviction (vidmm_residency.c) */
    /* broker:// (host/broker): the driver stack is a broker's; every public call is forwarded
     * over link, and only link, procs and proc_lock are used here. */
    bool broker;
};

struct gr_process {
    gr_adapter_t *adapter;
    pthread_mutex_t lock;
    dxgk_htab_t handles;
    gr_gpu_device_t *devices; /* list */
    struct dxgk_sysmem *sysmem; /* its gr_sysmem_alloc buffers (list, under lock) */
    uint32_t broker_id;         /* broker://: the broker's id of it */
    gr_process_t *next;
};

struct gr_gpu_device {
    gr_process_t *process;
    HANDLE hDevice;
    gr_gpuva_space_t *va_space; /* this device's GPU virtual address space */
    uint64_t va_next;           /* VA cursor (from DXGK_VA_BASE): addresses are not reused */
    uint32_t broker_id;         /* broker://: the broker's id of it */
    gr_gpu_device_t *next;
};

/* First GPU VA handed out (4 GiB: never equal to a VRAM address, which catches mix-ups). */
#define DXGK_VA_BASE (UINT64_C(1) << 32)

/* A process object, and its place in the adapter's list (dxgk_adapter.c): gr_process_create
 * and the broker client's (host/broker) make theirs with these. new: NULL when out of memory. */
gr_process_t *dxgk_process_new(void);
void dxgk_process_join(gr_adapter_t *ad, gr_process_t *p);
/* Takes p out of its adapter's list (if it joined) and frees it. */
void dxgk_process_free(gr_process_t *p);

/* For calls whose failure is impossible by construction (freeing a block VidMm placed itself)
 * and that carry warn_unused_result, which a (void) cast does not silence. */
#define DXGK_CANNOT_FAIL(call) \
    do {                       \
        if (call) {            \
        }                      \
    } while (0)

#endif

