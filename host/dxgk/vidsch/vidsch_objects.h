/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch_objects.h: VidSch's objects (private to host/dxgk/vidsch/vidsch_*.c). README.md, "VidSch".
 * Types only: each file's functions are in its own header (vidsch_sync.h, vidsch_ddi.h,
 * vidsch_sched.h, vidsch_paging.h, vidsch_timeline.h; vidsch.h for the adapter).
 *
 * Locks, in the order they nest (after process->lock, before adapter->vidmm_lock):
 *   vs->lock        contexts, packets, queues, requests, statistics; waiters sleep on vs->cond
 *   (class_lock)    the scheduler-class lock (the adapter's, dxgk_ddi.c): held around every
 *                   first-level DDI call, never with vs->lock held (the scheduler drops vs->lock around its DDI calls)
 *   vs->irq_lock    the interrupt lock (stands in for the interrupt spin lock): held by the
 *                   interrupt thread around the ISR and by DxgkCbSynchronizeExecution; taken
 *                   with nothing else held
 *   vs->ev_lock     a spin lock for the events DxgkCbNotifyInterrupt records
 * A packet is owned by the scheduler thread while it calls a DDI about it (pkt->busy): no other
 * thread frees or moves it then.
 */
#ifndef GPUREF_DXGK_VIDSCH_OBJECTS_H
#define GPUREF_DXGK_VIDSCH_OBJECTS_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "d3dkmddi.h"
#include "dxgk_objects.h"
#include "gpuref/gr_submit.h"
#include "gr_link.h"

#define VS_DEFAULT_QUANTUM 200000u
#define VS_DEFAULT_TDR 2000000u
#define VS_MIN_TDR 10000u
#define VS_DEFAULT_HW_CAP 4u     /* packets on the hardware when the miniport says 0 */
#define VS_TDR_STRIKES 2u        /* timeouts in a row in which a packet (preempted in time) made no progress: a reset */
#define VS_SLICE_US 5u           /* interrupt thread: simulated time per wait_irq while busy */
/* Interrupt thread: slices the device may run without the scheduler looking. On sim:// the device
 * runs only in these slices, so a starved scheduler thread (a loaded host) would otherwise see
 * the device run far past its quantum and timeouts; this bounds its reaction, in device time,
 * to about 8,000 cycles whatever the host's load. On a board the slices only sample the line. */
#define VS_LEASH_SLICES 16u
#define VS_IDLE_POLL_NS 2000000L /* interrupt thread, idle: wall time between samples */
#define VS_POLL_NS 300000L       /* scheduler: wall time between fence polls while busy */
/* Interrupt thread on a link that tells its line's changes (gr_link_wait_irq_event): wall time
 * of one wait, which only bounds how soon the thread sees VidSch stop. */
#define VS_EVENT_WAIT_US 10000u
/* The fastest the device's clock is taken to run before VidSch has measured it: faster than any
 * gpuref device (100 MHz boards, 250 MHz on PCIe). */
#define VS_RATE_DEFAULT 1e9
#define VS_RATE_SPAN_NS 20000000ull /* readings at least this far apart measure the rate */
#define VS_RATE_FIRST_NS 5000000ull /* the same for the first measure (the start takes one) */
#define VS_EVENTS 64u

typedef struct vs_context vs_context_t;
typedef struct vs_dmabuf vs_dmabuf_t;
typedef struct vs_packet vs_packet_t;

typedef enum vs_pkt_state {
    VS_PKT_QUEUED,    /* in its context's queue, not patched */
    VS_PKT_PATCHED,   /* patched, not on the hardware (also: preempted, waiting to run again) */
    VS_PKT_ON_HW,     /* submitted, in the hardware queue */
    VS_PKT_RETIRED,   /* completed, cancelled or dropped; about to be freed */
} vs_pkt_state_t;

struct vs_dmabuf {
    uint32_t magic;
    gr_dma_buffer_t handle;
    gr_gpu_device_t *device;
    gr_dma_buf_t mem; /* from gr_link_dma_alloc */
    uint32_t size;
    uint32_t in_flight; /* vs->lock */
    uint64_t gpu_va;    /* where the device's address space maps it (vidmm_packet.h) */
    vs_dmabuf_t *next;  /* the device's list */
};

struct vs_packet {
    uint32_t magic;
    vs_context_t *ctx;
    vs_packet_t *next, *prev;       /* the context's queue, in submission order */
    vs_packet_t *hw_next, *hw_prev; /* the hardware queue, in fence order */
    uint64_t seq;                   /* the caller's fence */
    vs_dmabuf_t *buf;
    uint32_t start, end;
    void *priv;                     /* DMA buffer private data, DmaBufferPrivateDataSize bytes */
    uint32_t priv_size;
    DXGK_ALLOCATIONLIST *alist;
    uint32_t alist_n;
    D3DDDI_PATCHLOCATIONLIST *plist;
    uint32_t plist_n;
    dxgk_open_t **opens;            /* alist_n opens holding a GPU reference */
    vs_pkt_state_t state;
    bool patched;                   /* Patch succeeded at least once: owes a completion or a cancel */
    bool busy;                      /* the scheduler is in a DDI about it */
    bool resubmit;                  /* was on the hardware before: Flags.Resubmission */
    uint32_t fence;                 /* SubmissionFenceId of its last Patch (and submission) */
    uint32_t preemptions, strikes;
    uint64_t quantum;               /* doubles with each preemption */
    uint64_t run_start;             /* cycles when it became the hardware queue's head */
    bool running;                   /* run_start is valid */
    /* Paging packets (ctx NULL): VidMm's paging buffers, in the paging queue (vidsch_paging.c). */
    bool paging;
    struct vs_pgbuf *pgbuf;         /* the paging buffer it runs (p->buf is its DMA memory) */
    struct dxgk_paging_job *job;    /* told when it retires (vidsch_paging.h) */
};

/* A non-OK result of a retired packet (results are OK unless listed). */
typedef struct vs_result {
    uint64_t seq;
    gr_status_t status;
} vs_result_t;

struct vs_context {
    uint32_t magic;
    gr_context_t handle;
    gr_gpu_device_t *device;
    gr_adapter_t *ad;
    HANDLE hContext;
    DXGK_CONTEXTINFO info;
    vs_packet_t *head, *tail; /* unretired packets, in order */
    uint32_t queued;          /* unretired packets */
    uint64_t next_seq;        /* last handed out */
    uint64_t retired_seq;     /* every seq up to this one retired */
    vs_result_t *bad;         /* cancelled / reset results */
    uint32_t bad_n, bad_cap;
    bool lost;                /* guilty of a TDR: refuses submissions */
    bool cancelling;          /* a cancel is in progress: nothing of it is scheduled */
    bool dead;                /* destroyed (DestroyContext called); waiting for refs to drop */
    uint32_t refs;            /* API calls using it (waits) */
    vs_context_t *next;       /* the adapter's list (round-robin order) */
};

/* A request to the scheduler thread, made by an API thread that waits for it. */
typedef enum vs_req_kind { VS_REQ_CANCEL, VS_REQ_PREEMPT } vs_req_kind_t;

typedef struct vs_request {
    vs_req_kind_t kind;
    vs_context_t *ctx;
    bool done;
    gr_status_t status;
    uint32_t count;
    struct vs_request *next;
} vs_request_t;

typedef enum vs_ev_kind { VS_EV_COMPLETED, VS_EV_PREEMPTED, VS_EV_FAULT, VS_EV_TIMEOUT } vs_ev_kind_t;

typedef struct vs_event {
    vs_ev_kind_t kind;
    uint32_t fence;          /* completed / faulted fence */
    uint32_t preempt_fence;  /* preempted */
    bool fence_valid;
} vs_event_t;

/* VS_PR_PAGING: a paging packet waits behind a context's packet (vidsch_paging.c). */
typedef enum vs_preempt_reason {
    VS_PR_NONE,
    VS_PR_QUANTUM,
    VS_PR_EXPLICIT,
    VS_PR_CANCEL,
    VS_PR_TDR,
    VS_PR_PAGING
} vs_preempt_reason_t;

/*
 * VidSch's timeline (vidsch_timeline.h): a bounded ring of scheduling events that
 * gr_adapter_timeline (gpuref/gr_submit.h) reads. It lives inside dxgk_vidsch_t, which is zeroed
 * at allocation: an empty ring needs no set-up and nothing to free.
 */
/* Events kept; older ones are overwritten (their index tells a reader how many it missed). */
#define VS_TIMELINE_CAP 2048u

typedef struct vs_timeline {
    gr_sched_event_t ev[VS_TIMELINE_CAP]; /* event i at ev[i % VS_TIMELINE_CAP] */
    uint64_t next;                        /* index of the next event */
    uint64_t last_cycles;                 /* of the newest event (keeps cycles monotonic) */
} vs_timeline_t;

typedef struct dxgk_vidsch {
    gr_adapter_t *ad;
    bool engine;        /* the miniport reports a node and the scheduling caps VidSch needs */
    bool running;       /* threads started */
    DXGK_VIDSCHCAPS caps;
    uint32_t hw_cap;

    pthread_mutex_t lock;
    pthread_cond_t cond; /* any state change: waiters, the scheduler */

    vs_context_t *contexts; /* round robin: the next turn starts after rr_last */
    vs_context_t *rr_last;
    vs_packet_t *hw_head, *hw_tail;
    uint32_t hw_count;
    vs_packet_t *ahead;     /* patched ahead while the hardware queue was full */
    uint32_t last_fence;    /* last fence id handed out (submission or preemption) */
    uint32_t last_submitted;
    uint32_t completed;     /* last completed fence seen */
    bool any_submitted;
    vs_request_t *requests;

    /* Preemption in flight. */
    vs_preempt_reason_t preempt_reason;
    uint32_t preempt_fence;
    uint64_t preempt_at;

    /* TDR in progress (no submissions). */
    bool tdr_pending;
    uint32_t tdr_fence; /* guilty fence (0: the head) */
    bool tdr_external;  /* the device was reset under VidSch: nobody is guilty, everything on
                           the hardware is lost (GR_E_DEVICE_RESET) */

    /* Interrupt-time events. */
    pthread_spinlock_t ev_lock;
    vs_event_t ev[VS_EVENTS];
    uint32_t ev_n;

    pthread_mutex_t irq_lock;
    sem_t dpc_sem;
    atomic_bool dpc_queued, dpc_running;
    atomic_bool kick;  /* DPC notified / request made: the scheduler should look */
    atomic_uint slices_unseen; /* device slices run since the scheduler last looked (VS_LEASH_SLICES) */
    atomic_bool stop;
    pthread_t int_thread, dpc_thread, sched_thread;
    pthread_mutex_t idle_lock; /* the interrupt thread sleeps here while idle */
    pthread_cond_t idle_cond;

    gr_sched_params_t params;
    bool trace; /* $GR_VIDSCH_TRACE: one line per scheduling event on stderr */
    _Atomic uint64_t now; /* last clock reading (monotonic) */
    /* The device's counter as last read, and what VidSch adds to it so that its clock goes on
     * when the counter restarts (a core reset by anyone): both under ad->link_lock. */
    uint64_t clock_raw, clock_base;
    atomic_bool clock_restarted; /* seen by vs_clock_read, handled by the scheduler */
    /* Event mode (the link tells its line's changes: gr_link_wait_irq_event): the interrupt
     * thread waits for the device's message instead of sampling the line, and the clock is read
     * only when a decision needs it (vidsch_sync.c, vs_clock_bound). Written under
     * ad->link_lock: the wall time of the last reading, the reading a rate is measured from, the
     * fastest rate measured (cycles per wall second). */
    bool irq_events;
    _Atomic uint64_t clock_wall_ns;
    uint64_t rate_c0, rate_w0;
    _Atomic double rate_max;
    atomic_bool link_trouble; /* the interrupt thread found the link down: read the clock */
    bool now_fresh;           /* the scheduler's look read the clock (vs->lock) */
    /* The link failed every clock read for gr_link_dead_ms: the device is lost for good, every
     * packet retired and every call answered with GR_E_LINK (the scheduler sets it). */
    atomic_bool link_lost;
    char lost_reason[256]; /* written once, before link_lost is set */

    /* Counters (vs->lock, or atomics for the interrupt side). */
    gr_sched_stats_t st;
    atomic_uint_fast64_t n_interrupts, n_dpcs;
    uint64_t live_packets, live_contexts;
    uint64_t retire_gen; /* packets retired so far (VidMm waits for it to move) */

    /* The paging queue (vidsch_paging.c): paging packets not retired, in submission order (served
     * before any context's work), and idle paging buffers. */
    vs_packet_t *pg_head, *pg_tail;
    struct vs_pgbuf *pg_free;

    vs_timeline_t timeline; /* scheduling events for gr_adapter_timeline (vidsch_timeline.c) */
} dxgk_vidsch_t;

#define VS_MAGIC_CONTEXT 0x56534358u /* VSCX */
#define VS_MAGIC_PACKET 0x5653504bu  /* VSPK */
#define VS_MAGIC_DMABUF 0x56534442u  /* VSDB */
#define VS_MAGIC_DEAD 0xdeadbeefu

#endif
