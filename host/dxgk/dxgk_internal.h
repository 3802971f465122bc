/*
 * dxgk_internal.h: the OS stand-in's objects (private to host/dxgk): adapter, processes,
 * devices, kernel allocations and resources, per-process opens.
 *
 * Locks, always taken in this order: process->lock (one API call of a process at a time, as
 * dxgkrnl never has two threads of a process in the miniport), the residency lock
 * (vidmm_residency.h: residency state, each allocation's list of opens, every GPU VA space),
 * VidSch's lock (vidsch_internal.h) and the scheduler-class lock (adapter->class_lock,
 * dxgk_ddi.c), adapter->vidmm_lock (segments, reference counts, lock state, shared table), the
 * miniport's CPU-window lock, link_lock.
 * No lock but process->lock, the residency lock (and, for first-level DDIs, the scheduler-class
 * lock) is held while a DDI runs, so DDIs of different processes overlap. Every DDI call goes
 * through the adapter's DDI table and the threading checker (dxgk_ddi.h, dxgk_threading.h).
 */
#ifndef GPUREF_DXGK_INTERNAL_H
#define GPUREF_DXGK_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "d3dkmddi.h"
#include "dxgk_ddi.h"
#include "dxgk_handle.h"
#include "dxgk_threading.h"
#include "gpuref/gr_alloc.h"
#include "gr_link.h"
#include "kmd.h"
#include "vidmm_gpuva.h"
#include "vidmm_segment.h"

/* Handle types: the kernel table uses DXGK_HANDLE_ALLOCATION (1) and DXGK_HANDLE_RESOURCE (2). */
#define DXGK_HT_OPEN 3u   /* a process's allocation handle */
#define DXGK_HT_SHARED 4u /* an adapter's shared-resource handle */
#define DXGK_HT_CONTEXT 5u /* a process's GPU context handle (VidSch) */
#define DXGK_HT_DMABUF 6u  /* a process's DMA buffer handle (VidSch) */

/* VidSch's adapter state (vidsch_internal.h) and the threading checker (dxgk_threading.h). */
typedef struct dxgk_vidsch dxgk_vidsch_t;

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
/* VidMm's residency state of an adapter (vidmm_residency.c) and an evicted allocation's store. */
typedef struct dxgk_res dxgk_res_t;
typedef struct dxgk_store dxgk_store_t;
/* A buffer of host memory the device reaches (gr_sysmem_alloc; dxgk_sysmem.c). */
typedef struct dxgk_sysmem dxgk_sysmem_t;

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
    dxgk_sysmem_t *sysmem_buf; /* the buffer holding it (one reference held) */
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
    dxgk_store_t *store;      /* evicted (not PermanentSysMem): the backing store */
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
    dxgk_vidsch_t *vidsch; /* the GPU scheduler (vidsch/) */
    gr_dxgk_ddi_table_t ddi;    /* the miniport's DDIs, called through dxgk_ddi.c */
    dxgk_thr_t *thr;            /* the DDI threading checker */
    pthread_mutex_t class_lock; /* the scheduler-class lock (first-level DDIs) */
    bool owns_link;               /* false: gr_adapter_open_link, the caller closes it */
    uint64_t test_disabled_rules; /* flag rules VidMm skips (tests only; 0) */
    /* DXGK_QUERYSEGMENTOUT4: paging buffers (0: the miniport pages nothing; no eviction). */
    uint32_t paging_buffer_size, paging_priv_size;
    dxgk_res_t *res; /* residency and eviction (vidmm_residency.c) */
};

struct gr_process {
    gr_adapter_t *adapter;
    pthread_mutex_t lock;
    dxgk_htab_t handles;
    gr_gpu_device_t *devices; /* list */
    dxgk_sysmem_t *sysmem;    /* its gr_sysmem_alloc buffers (list, under lock) */
    gr_process_t *next;
};

struct gr_gpu_device {
    gr_process_t *process;
    HANDLE hDevice;
    gr_gpuva_space_t *va_space; /* this device's GPU virtual address space */
    uint64_t va_next;           /* VA cursor: addresses are not reused */
    gr_gpu_device_t *next;
};

/* The kernel handle table behind DxgkCbGetHandleData (process-wide: the callback has no
 * adapter argument; dxgk_kernel.c). */
dxgk_htab_t *dxgk_kernel_handles(void);
/* DxgkCbGetHandleData and DxgkCbGetHandleParent, into the table the miniport gets at start. */
void dxgk_kernel_fill_callbacks(DXGKRNL_INTERFACE *cb);

/* Closes or destroys every handle of a device; process lock held. */
void dxgk_device_release_all(gr_gpu_device_t *dev);

/* A DDI's NTSTATUS as a gr_status_t (dxgk_kernel.c). */
gr_status_t dxgk_status_from_nt(NTSTATUS st);

/* System memory the device reaches (dxgk_sysmem.c). Lookup: the process's buffer that holds
 * all of [cpu, cpu+bytes) and the bus address of cpu (process lock held; GR_E_NOT_FOUND).
 * get/put: references (the process's own, one per allocation backed by it); the last put
 * frees the buffer through the link. free_all: the process's references, at its end. */
gr_status_t dxgk_sysmem_lookup(gr_process_t *p, const void *cpu, uint64_t bytes, dxgk_sysmem_t **out_buf,
                               uint64_t *out_bus);
void dxgk_sysmem_get(gr_adapter_t *ad, dxgk_sysmem_t *m);
void dxgk_sysmem_put(gr_adapter_t *ad, dxgk_sysmem_t *m);
void dxgk_process_free_sysmem(gr_process_t *p);

/* Placement (vidmm/vidmm_place.c; vidmm_lock held). dxgk_place sets segment, offset, vram and in_vpr,
 * or fails with GR_E_NO_MEMORY changing nothing; dxgk_unplace gives the space back. */
gr_status_t dxgk_place(gr_adapter_t *ad, dxgk_kalloc_t *ka);
void dxgk_unplace(gr_adapter_t *ad, dxgk_kalloc_t *ka);
/* The next run of ka's stale pages (dxgk_segment_t.stale) at or after byte *from of ka, as a
 * byte offset into ka and a length; the run is no longer stale (the caller zeroes it, or
 * unplaces ka, which marks all of ka stale again). False when no stale page is left. */
bool dxgk_stale_next(gr_adapter_t *ad, const dxgk_kalloc_t *ka, uint64_t *from, uint64_t *out_off,
                     uint64_t *out_len);
/* ka's pages are no longer stale: a page-in writes all of them. */
void dxgk_stale_clear(gr_adapter_t *ad, const dxgk_kalloc_t *ka);
/* Where in a segment placement may put ka: [*lo, *hi); false when it may not use the segment
 * (not in its set) or takes no ordinary segment space (VPR, caller-backed). */
bool dxgk_place_window(const gr_adapter_t *ad, const dxgk_kalloc_t *ka, uint32_t segment, uint64_t *lo,
                       uint64_t *hi);
/* ExistingSysMem / ExistingKernelSysMem: the caller's memory is the backing store. */
bool dxgk_caller_backed(const dxgk_kalloc_t *ka);
bool dxgk_flags_caller_backed(DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 fl);
/* Bytes the allocation takes: its size in whole pages. */
uint64_t dxgk_alloc_bytes(const dxgk_kalloc_t *ka);
/* One 4 KiB page-table page from the heaps (the CPU-invisible segment first); not zeroed. */
gr_status_t dxgk_pt_page_alloc(gr_adapter_t *ad, uint64_t *out_pa);
/* The same with vidmm_lock held, and a page back to its heap (vidmm_lock held). */
gr_status_t dxgk_pt_page_alloc_locked(gr_adapter_t *ad, uint64_t *out_pa);
void dxgk_pt_page_free_locked(gr_adapter_t *ad, uint64_t pa);

/* GPU VA of an open (vidmm/vidmm_place.c; residency lock held). map: gives the open a VA if it has
 * none and maps it to where the allocation is now (an evicted allocation keeps its VA
 * unmapped: an access faults); unmap: takes the mapping away, the VA stays the open's. */
gr_status_t dxgk_gpuva_map_open(dxgk_open_t *op);
void dxgk_gpuva_unmap_open(dxgk_open_t *op);

/* The page-table callbacks of a device's address space (vidmm/vidmm_alloc.c: they take pages
 * from the residency reserve when the heaps are full); user is the device. */
extern const gr_gpuva_ops_t dxgk_gpuva_ops;
/* First GPU VA handed out (4 GiB: never equal to a VRAM address, which catches mix-ups). */
#define DXGK_VA_BASE (UINT64_C(1) << 32)

/* For calls whose failure is impossible by construction (freeing a block VidMm placed itself)
 * and that carry warn_unused_result, which a (void) cast does not silence. */
#define DXGK_CANNOT_FAIL(call) \
    do {                       \
        if (call) {            \
        }                      \
    } while (0)

/* ---- the DDI calls through the adapter's table (dxgk_ddi.c) ---- */

/**
 * First step of adapter open, before any DDI: the DDI table (the miniport's functions), the
 * threading checker and the scheduler-class lock.
 * @return GR_OK, GR_E_NO_MEMORY
 */
gr_status_t dxgk_ddi_init(gr_adapter_t *ad);
/** Frees what dxgk_ddi_init made (nothing when it failed or did not run). */
void dxgk_ddi_fini(gr_adapter_t *ad);

/*
 * The DDIs VidMm and the adapter code call, through the adapter's DDI table (or, for the gpuref
 * stand-ins that are not DDIs, directly) under the threading checker with their documented
 * level. process: the calling process, NULL for the OS's own threads.
 */
NTSTATUS dxgk_call_start_adapter(gr_adapter_t *ad, const gr_kmd_start_info_t *si);
void dxgk_call_stop_adapter(gr_adapter_t *ad);
NTSTATUS dxgk_call_set_vpr(gr_adapter_t *ad, uint64_t base, uint64_t limit);
NTSTATUS dxgk_call_query_adapter_info(gr_adapter_t *ad, const DXGKARG_QUERYADAPTERINFO *q);
NTSTATUS dxgk_call_create_device(gr_process_t *p, gr_gpu_device_t *d);
NTSTATUS dxgk_call_destroy_device(gr_process_t *p, gr_gpu_device_t *d);
NTSTATUS dxgk_call_counts(gr_adapter_t *ad, gr_kmd_counts_t *out);
NTSTATUS dxgk_call_create_allocation(gr_adapter_t *ad, gr_process_t *p, DXGKARG_CREATEALLOCATION *c);
NTSTATUS dxgk_call_open_allocation(gr_gpu_device_t *dev, const DXGKARG_OPENALLOCATION *o);
NTSTATUS dxgk_call_close_allocation(gr_gpu_device_t *dev, const DXGKARG_CLOSEALLOCATION *c);
NTSTATUS dxgk_call_destroy_allocation(gr_adapter_t *ad, const DXGKARG_DESTROYALLOCATION *d);
NTSTATUS dxgk_call_flush_tlb(gr_adapter_t *ad);
/* The CPU-window pair: only inside dxgk_frame_buffer_hold (they do not take the gate again). */
NTSTATUS dxgk_call_acquire_cpu_window(gr_adapter_t *ad, uint64_t vram, uint64_t bytes, uint64_t *out_ap_offset,
                                      uint64_t *out_ap_bytes);
NTSTATUS dxgk_call_release_cpu_window(gr_adapter_t *ad);
/* Holds off a reset (third level) around the OS's own use of the frame buffer through BAR1. */
void dxgk_frame_buffer_hold(gr_adapter_t *ad);
void dxgk_frame_buffer_unhold(gr_adapter_t *ad);

/** The scheduler-class lock (first-level DDIs made outside the scheduler thread take it). */
void dxgk_vidsch_class_lock(gr_adapter_t *ad);
void dxgk_vidsch_class_unlock(gr_adapter_t *ad);

/*
 * DxgkDdiBuildPagingBuffer through the DDI table: first level, so under the scheduler-class
 * lock, from VidMm's thread (no process).
 */
NTSTATUS dxgk_call_build_paging_buffer(gr_adapter_t *ad, DXGKARG_BUILDPAGINGBUFFER *a);

#endif
