/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dma_ref.h: a reference model of the DMA engine in plain C, written from the contract in
 * rtl/dma/README.md (and the page-table format of rtl/mc/README.md), not from the RTL.
 *
 * The model runs ring entries and their commands one after another, to completion, through
 * callbacks that read and write host memory and VRAM. It has no clock: where the contract leaves
 * a result to the engine's timing it says so instead of guessing (undetermined byte ranges,
 * a [min, max] for counters, timestamps as "some counter value" to be checked for bounds).
 * GPU virtual addresses translate through tb/models/mmu_ref/ref_walker.c; the TLB is not
 * modelled (it is transparent as long as the stream invalidates after changing a table).
 *
 * Usage:
 *   gr_dma_ref_t m;
 *   gr_dma_ref_init(&m, &bus);                 // reset values, as after a core reset
 *   m.ring_base = ...; m.ring_log2 = ...; m.fence_addr = ...; m.enable = true;
 *   m.tail = 3;                                // entries written through bus before
 *   gr_dma_ref_run(&m, NULL);                  // GR_DMA_REF_IDLE, _FAULT, _HANG, ...
 *   ... compare memory and the fields below with the device ...
 */
#ifndef GPUREF_TB_MODELS_DMA_REF_DMA_REF_H
#define GPUREF_TB_MODELS_DMA_REF_DMA_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuref/gr_dma.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The two bus ports the engine masters. */
typedef enum gr_dma_ref_port {
    GR_DMA_REF_HOST = 0, /**< m_host: 64-bit bus addresses */
    GR_DMA_REF_VRAM = 1, /**< m_vram: VRAM addresses (page tables are read here too) */
} gr_dma_ref_port_t;

/**
 * Memory as the engine sees it. The model never passes an access that crosses a 4 KiB boundary.
 * read/write return 0, or non-zero for an error response (SLVERR/DECERR): a failed write
 * changes nothing, a failed read leaves dst unspecified.
 * timestamp (may be NULL) gives the value a TIMESTAMP command writes; NULL: 1, 2, 3, ...
 */
typedef struct gr_dma_ref_bus {
    int (*read)(void *ctx, gr_dma_ref_port_t port, uint64_t addr, void *dst, size_t bytes);
    int (*write)(void *ctx, gr_dma_ref_port_t port, uint64_t addr, const void *src, size_t bytes);
    uint64_t (*timestamp)(void *ctx);
    void *ctx;
} gr_dma_ref_bus_t;

/** What gr_dma_ref_run stopped on. */
typedef enum gr_dma_ref_result {
    GR_DMA_REF_IDLE = 0,     /**< HEAD == TAIL (or ENABLE clear): nothing left to run */
    GR_DMA_REF_FAULT = 1,    /**< a fault stopped the engine (faulted, fault_* set) */
    GR_DMA_REF_HANG = 2,     /**< a WAIT is never satisfied and the watchdog is on (hung) */
    GR_DMA_REF_STUCK = 3,    /**< a WAIT is never satisfied and the watchdog is off: the device
                                  would wait for ever; nothing is recorded */
    GR_DMA_REF_STOPPED = 4,  /**< reached the stop point given to gr_dma_ref_run */
    GR_DMA_REF_BAD_STOP = 5, /**< the stop point cannot happen (bytes past a command, bytes
                                  inside a command that is not COPY or FILL): state as at the
                                  last consistent point */
} gr_dma_ref_result_t;

/**
 * A place where a preemption may stop the engine, as the device reports it: the entry
 * (DMA_STOP_HEAD), the number of commands completed since the model was initialised
 * (DMA_PERF_CMDS, from the same starting point), and the bytes the stopped COPY or FILL wrote
 * (DMA_STOP_DONE). The model stops at the first point where HEAD == entry and its command count
 * == cmds: before an entry is fetched, before a command, or after an entry's last command (before
 * its completion). With done > 0 it runs the first `done` bytes of the COPY or FILL found there
 * (done may equal its size: every burst issued, the command not completed).
 */
typedef struct gr_dma_ref_stop {
    uint32_t entry;
    uint64_t cmds;
    uint64_t done;
} gr_dma_ref_stop_t;

/** A range whose bytes the contract does not fix: each holds either what the model's memory
 *  holds (the command wrote it) or `data` (its value before the command: not written). */
typedef struct gr_dma_ref_maybe {
    gr_dma_ref_port_t port;
    uint64_t addr;
    uint32_t bytes; /**< within one 4 KiB page */
    uint8_t data[4096];
} gr_dma_ref_maybe_t;

/** One TIMESTAMP write (the model wrote bus->timestamp()'s value there). */
typedef struct gr_dma_ref_stamp {
    gr_dma_ref_port_t port;
    uint64_t addr; /**< bus address of the 8 bytes */
} gr_dma_ref_stamp_t;

#define GR_DMA_REF_MAX_MAYBE  64u
#define GR_DMA_REF_MAX_STAMPS 256u

typedef struct gr_dma_ref {
    /* ---- registers the host programs (reset values after gr_dma_ref_init) ---- */
    bool enable;            /**< DMA_CTRL.ENABLE */
    uint64_t ring_base;     /**< DMA_RING_BASE (bits 11:0 ignored) */
    unsigned ring_log2;     /**< DMA_RING_SIZE.LOG2 (reset 4) */
    uint32_t tail;          /**< DMA_RING_TAIL (used modulo the ring size) */
    uint64_t fence_addr;    /**< DMA_FENCE_ADDR (bits 2:0 ignored) */
    uint32_t preempt_fence; /**< DMA_PREEMPT_FENCE */
    uint32_t watchdog;      /**< DMA_WATCHDOG.CYCLES (reset 0x100000; only 0 or not matters) */
    bool mmu_enable;        /**< MMU_CTRL.ENABLE */
    uint64_t mmu_root;      /**< MMU_ROOT (VRAM address of the L3 table) */
    bool vpr_enable;        /**< VPR_CTRL.ENABLE */
    uint64_t vpr_base;      /**< VPR_BASE (bits 11:0 ignored) */
    uint64_t vpr_limit;     /**< VPR_LIMIT (bits 11:0 ignored): the VPR is [base, limit) */
    unsigned vram_addr_bits; /**< gpu_core VramAddrBits (32) */

    /* ---- state the device shows ---- */
    uint32_t head;            /**< DMA_RING_HEAD */
    uint32_t completed_fence; /**< DMA_COMPLETED_FENCE */
    bool preempted, hung, faulted; /**< DMA_STATUS bits */
    uint32_t fault_status;    /**< DMA_FAULT_STATUS (TYPE, MMU_TYPE, WRITE, ENTRY) */
    uint64_t fault_addr;      /**< DMA_FAULT_ADDR */
    bool fault_addr_known;    /**< false for a hang (the contract gives no address) */
    uint32_t stop_head, stop_tail, stop_offset; /**< DMA_STOP_* */
    uint64_t stop_done_min, stop_done_max;      /**< DMA_STOP_DONE lies in [min, max] */
    /** A write's error response comes after the engine moved on: STOP_OFFSET may then be any
     *  offset up to stop_offset_max (the end of the entry's buffer), with DMA_STOP_DONE 0 when it
     *  is past stop_offset. Equal to stop_offset otherwise. */
    uint32_t stop_offset_max;
    uint64_t perf_cmds;       /**< DMA_PERF_CMDS (64 bits here; the register is its low 32) lies
                                   in [perf_cmds, perf_cmds_max]: equal unless a write's error
                                   response stopped the engine (the command may have counted) */
    uint64_t perf_cmds_max;
    uint64_t perf_bytes_min;  /**< DMA_PERF_BYTES lies in [min, max]: equal unless a fault */
    uint64_t perf_bytes_max;  /**< stopped a COPY or FILL part way */
    bool irq_fence, irq_preempted, irq_fault; /**< IRQ_STATE bits the engine set */

    /* MC fault unit (MC_FAULT_*): the first MMU or VPR fault, SOURCE 2 */
    bool mc_fault_valid;
    unsigned mc_fault_type; /**< 1 unmapped, 2 read-only, 3 page-table read error, 4 VPR */
    bool mc_fault_write;
    uint64_t mc_fault_addr;
    uint32_t mc_fault_count;

    /* ---- what the contract leaves open ---- */
    unsigned maybe_count; /**< kept across runs; the user clears it once it has looked */
    gr_dma_ref_maybe_t maybe[GR_DMA_REF_MAX_MAYBE];
    bool maybe_overflow;  /**< a faulting command had more pieces than maybe[] holds */
    unsigned stamp_count; /**< TIMESTAMP writes since init, in order */
    gr_dma_ref_stamp_t stamps[GR_DMA_REF_MAX_STAMPS];
    bool stamps_overflow;

    /* ---- private ---- */
    gr_dma_ref_bus_t bus;
    uint64_t next_stamp;
    bool in_progress;     /* an entry was fetched and neither completed nor removed */
    uint32_t cur_entry;   /* its index */
    uint32_t cur_offset;  /* top-level offset of the command running or stopped */
    uint32_t cur_len;     /* its buffer's length */
    bool cur_posted;      /* stopped by a write's error response */
    bool cur_use_root;
    bool cur_priv;          /**< the entry in progress has PRIV (a kernel packet) */
    uint64_t cur_root;
} gr_dma_ref_t;

/** DMA_FAULT_STATUS fields. */
#define GR_DMA_REF_FAULT_TYPE(s)     ((s) & 0xfu)
#define GR_DMA_REF_FAULT_MMU_TYPE(s) (((s) >> 4) & 0x7u)
#define GR_DMA_REF_FAULT_WRITE(s)    (((s) >> 8) & 0x1u)
#define GR_DMA_REF_FAULT_ENTRY(s)    (((s) >> 16) & 0xffffu)

/** Reset values (core reset); keeps a copy of *bus. */
void gr_dma_ref_init(gr_dma_ref_t *m, const gr_dma_ref_bus_t *bus);

/**
 * Runs entries while ENABLE and HEAD != TAIL, each to completion, until something stops it.
 * After GR_DMA_REF_FAULT or _HANG it runs nothing more (as the device) until
 * gr_dma_ref_engine_reset. @param stop  NULL, or where a preemption stops the run.
 */
gr_dma_ref_result_t gr_dma_ref_run(gr_dma_ref_t *m, const gr_dma_ref_stop_t *stop);

/**
 * DMA_CTRL.PREEMPT at the point the model is at (after gr_dma_ref_run returned IDLE or
 * STOPPED): records the removed entries in STOP_*, HEAD = TAIL, writes preempt_fence to the
 * fence record's second qword, sets preempted and irq_preempted.
 * @return 0, or -1 when the engine is hung or faulted (the contract does not say; not done)
 */
int gr_dma_ref_preempt(gr_dma_ref_t *m);

/** DMA_CTRL.RESET: records the removed entries in STOP_*, HEAD = TAIL, clears hung, faulted and
 *  preempted; writes no fence. */
void gr_dma_ref_engine_reset(gr_dma_ref_t *m);

/**
 * Whether the byte at (port, addr) is one the contract leaves open (see gr_dma_ref_maybe_t).
 * @param[out] out_other  the value it has if the command did not write it (may be NULL); if it
 *                        did, the model's memory holds its value
 */
bool gr_dma_ref_maybe_byte(const gr_dma_ref_t *m, gr_dma_ref_port_t port, uint64_t addr,
                           uint8_t *out_other);

/** Ring size in entries. */
static inline uint32_t gr_dma_ref_ring_entries(const gr_dma_ref_t *m)
{
    return 1u << m->ring_log2;
}

#ifdef __cplusplus
}
#endif

#endif
