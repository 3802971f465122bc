/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kmd_dma.h: the DMA engine's registers and bits as rtl/dma/README.md defines them, and the
 * command path's private calls (host/kmd only).
 *
 * The register map (rtl/csr/gpu_regs.rdl) is the single source of offsets and fields. Until it
 * carries the DMA block, the offsets below are the contract's; once the generated headers have
 * a name, it is checked against the value here at compile time, so a map that moves a register
 * or a field fails the build instead of driving the wrong bit.
 */
#ifndef GPUREF_KMD_DMA_H
#define GPUREF_KMD_DMA_H

#include "gpuref/gr_dma.h"
#include "gpuref/gr_regdesc.h"
#include "gpuref/gr_regmap.h"
#include "kmd_internal.h"

/* ---- registers (BAR0) -------------------------------------------------------------------- */

#define KMD_DMA_CTRL 0x300u
#define KMD_DMA_CTRL_ENABLE 0x1u  /* fetch ring entries while HEAD != TAIL */
#define KMD_DMA_CTRL_PREEMPT 0x2u /* pulse: stop at the next command boundary */
#define KMD_DMA_CTRL_RESET 0x4u   /* pulse: engine reset */
#define KMD_DMA_STATUS 0x304u
#define KMD_DMA_STATUS_IDLE 0x1u
#define KMD_DMA_STATUS_PREEMPTED 0x2u
#define KMD_DMA_STATUS_HUNG 0x4u
#define KMD_DMA_STATUS_FAULTED 0x8u
#define KMD_DMA_STATUS_RESETTING 0x10u
#define KMD_DMA_RING_BASE_LO 0x308u /* PAGE[31:12] */
#define KMD_DMA_RING_BASE_HI 0x30cu
#define KMD_DMA_RING_SIZE 0x310u    /* LOG2[3:0] */
#define KMD_DMA_RING_HEAD 0x314u    /* INDEX[15:0] */
#define KMD_DMA_RING_TAIL 0x318u    /* INDEX[15:0] */
#define KMD_DMA_FENCE_ADDR_LO 0x320u /* ADDR[31:3] */
#define KMD_DMA_FENCE_ADDR_HI 0x324u
#define KMD_DMA_COMPLETED_FENCE 0x328u
#define KMD_DMA_PREEMPT_FENCE 0x32cu
#define KMD_DMA_STOP_HEAD 0x330u
#define KMD_DMA_STOP_TAIL 0x334u
#define KMD_DMA_STOP_OFFSET 0x338u
#define KMD_DMA_STOP_DONE 0x33cu
#define KMD_DMA_WATCHDOG 0x340u
#define KMD_DMA_FAULT_STATUS 0x344u
#define KMD_DMA_FAULT_ADDR_LO 0x348u
#define KMD_DMA_FAULT_ADDR_HI 0x34cu

#define KMD_DMA_INDEX_MASK 0xffffu
#define KMD_DMA_RING_PAGE_MASK 0xfffff000u
#define KMD_DMA_FENCE_ADDR_MASK 0xfffffff8u
#define KMD_DMA_RING_LOG2_MASK 0xfu
#define KMD_DMA_FAULT_TYPE(v) ((v)&0xfu)
#define KMD_DMA_FAULT_MMU_TYPE(v) (((v) >> 4) & 0x7u)
#define KMD_DMA_FAULT_WRITE(v) (((v) >> 8) & 0x1u)
#define KMD_DMA_FAULT_ENTRY(v) (((v) >> 16) & 0xffffu)

/* IRQ_STATE / IRQ_ENABLE bits of the engine. */
#define KMD_IRQ_DMA_FENCE (1u << 2)
#define KMD_IRQ_DMA_PREEMPTED (1u << 3)
#define KMD_IRQ_DMA_FAULT (1u << 4)
#define KMD_IRQ_DMA_ALL (KMD_IRQ_DMA_FENCE | KMD_IRQ_DMA_PREEMPTED | KMD_IRQ_DMA_FAULT)

/* The generated map, when it has the DMA block, must agree with the contract above. */
#define KMD_CHECK_REG(name, value) _Static_assert(GR_REG_##name == (value), #name " offset")
#ifdef GR_REG_DMA_CTRL
KMD_CHECK_REG(DMA_CTRL, KMD_DMA_CTRL);
KMD_CHECK_REG(DMA_STATUS, KMD_DMA_STATUS);
KMD_CHECK_REG(DMA_RING_BASE_LO, KMD_DMA_RING_BASE_LO);
KMD_CHECK_REG(DMA_RING_BASE_HI, KMD_DMA_RING_BASE_HI);
KMD_CHECK_REG(DMA_RING_SIZE, KMD_DMA_RING_SIZE);
KMD_CHECK_REG(DMA_RING_HEAD, KMD_DMA_RING_HEAD);
KMD_CHECK_REG(DMA_RING_TAIL, KMD_DMA_RING_TAIL);
KMD_CHECK_REG(DMA_FENCE_ADDR_LO, KMD_DMA_FENCE_ADDR_LO);
KMD_CHECK_REG(DMA_FENCE_ADDR_HI, KMD_DMA_FENCE_ADDR_HI);
KMD_CHECK_REG(DMA_COMPLETED_FENCE, KMD_DMA_COMPLETED_FENCE);
KMD_CHECK_REG(DMA_PREEMPT_FENCE, KMD_DMA_PREEMPT_FENCE);
KMD_CHECK_REG(DMA_STOP_HEAD, KMD_DMA_STOP_HEAD);
KMD_CHECK_REG(DMA_STOP_TAIL, KMD_DMA_STOP_TAIL);
KMD_CHECK_REG(DMA_STOP_OFFSET, KMD_DMA_STOP_OFFSET);
KMD_CHECK_REG(DMA_STOP_DONE, KMD_DMA_STOP_DONE);
KMD_CHECK_REG(DMA_WATCHDOG, KMD_DMA_WATCHDOG);
KMD_CHECK_REG(DMA_FAULT_STATUS, KMD_DMA_FAULT_STATUS);
KMD_CHECK_REG(DMA_FAULT_ADDR_LO, KMD_DMA_FAULT_ADDR_LO);
KMD_CHECK_REG(DMA_FAULT_ADDR_HI, KMD_DMA_FAULT_ADDR_HI);
#endif
#ifdef GPU_REGS__DMA_CTRL__ENABLE_bm
_Static_assert(GPU_REGS__DMA_CTRL__ENABLE_bm == KMD_DMA_CTRL_ENABLE, "DMA_CTRL.ENABLE");
_Static_assert(GPU_REGS__DMA_CTRL__PREEMPT_bm == KMD_DMA_CTRL_PREEMPT, "DMA_CTRL.PREEMPT");
_Static_assert(GPU_REGS__DMA_CTRL__RESET_bm == KMD_DMA_CTRL_RESET, "DMA_CTRL.RESET");
#endif
#ifdef GPU_REGS__DMA_STATUS__IDLE_bm
_Static_assert(GPU_REGS__DMA_STATUS__IDLE_bm == KMD_DMA_STATUS_IDLE, "DMA_STATUS.IDLE");
_Static_assert(GPU_REGS__DMA_STATUS__RESETTING_bm == KMD_DMA_STATUS_RESETTING, "DMA_STATUS.RESETTING");
#endif
#ifdef GPU_REGS__IRQ_STATE__DMA_FENCE_bm
_Static_assert(GPU_REGS__IRQ_STATE__DMA_FENCE_bm == KMD_IRQ_DMA_FENCE, "IRQ_STATE.DMA_FENCE");
_Static_assert(GPU_REGS__IRQ_STATE__DMA_PREEMPTED_bm == KMD_IRQ_DMA_PREEMPTED,
               "IRQ_STATE.DMA_PREEMPTED");
_Static_assert(GPU_REGS__IRQ_STATE__DMA_FAULT_bm == KMD_IRQ_DMA_FAULT, "IRQ_STATE.DMA_FAULT");
#endif
#ifdef GPU_REGS__DMA_FAULT_STATUS__ENTRY_bm
_Static_assert(GPU_REGS__DMA_FAULT_STATUS__TYPE_bm == 0xfu, "DMA_FAULT_STATUS.TYPE");
_Static_assert(GPU_REGS__DMA_FAULT_STATUS__ENTRY_bm == 0xffff0000u, "DMA_FAULT_STATUS.ENTRY");
#endif
_Static_assert(GPU_REGS__ID_CAPS__DMA_bm == 0x2u, "ID_CAPS.DMA is bit 1");

/* Page-table entry bits of the MMU (rtl/mc/README.md, "Entry bits"). */
#define KMD_PTE_VALID (UINT64_C(1) << 0)
#define KMD_PTE_WRITABLE (UINT64_C(1) << 1)
#define KMD_PTE_SYSTEM (UINT64_C(1) << 2)
#define KMD_PTE_CACHEABLE (UINT64_C(1) << 3)
#define KMD_PTE_LEAF (UINT64_C(1) << 4)
#define KMD_PTE_PT64 (UINT64_C(1) << 5)
#define KMD_PTE_ADDR_MASK UINT64_C(0x000ffffffffff000) /* bits 51:12 */
#define KMD_PT_ENTRIES 512u   /* L3, L2, L1, L0 tables */
#define KMD_PT64_ENTRIES 32u  /* 64 KiB-page table */

/* ---- the ring, the fence record, sizes --------------------------------------------------- */

#define KMD_RING_LOG2 8u /* 256 entries, 8 KiB */
_Static_assert((1u << KMD_RING_LOG2) - 1u == GR_KMD_RING_CAPACITY, "one ring slot stays free");
#define KMD_DMA_BUFFER_BYTES (64u * 1024u) /* DmaBufferSize and PagingBufferSize */
#define KMD_ALLOCATION_LIST_SIZE 256u
#define KMD_PATCH_LIST_SIZE 1024u
#define KMD_IDLE_POLLS 200000u  /* DMA_STATUS reads before a reset is declared stuck */
#define KMD_PAGING_CHUNK (1024u * 1024u) /* bytes per paging COPY/FILL: what a preemption redoes */

/* The tag in a DMA buffer's private data that names its packet. */
#define KMD_PACKET_TAG_MAGIC 0x4b505247u /* "GRPK" little-endian */
typedef struct kmd_packet_tag {
    uint32_t magic;
    uint32_t reserved;
    uint64_t id;
} kmd_packet_tag_t;
_Static_assert(sizeof(kmd_packet_tag_t) == GR_KMD_DMA_PRIVATE_BYTES, "the tag is the private data");

/* A fence is done when it is not after the completed one, modulo 2^32. */
/*
 * Whether a submission is the kernel's own and its ring entry gets PRIV (GR_DMA_ENTRY_PRIV): a
 * paging buffer (VidMm's DxgkDdiBuildPagingBuffer output, Flags.Paging) or a packet of the
 * system context, which only the OS creates (DXGK_CREATECONTEXTFLAGS.SystemContext). Never a
 * user context's packet: those reach memory only through their GPU virtual address space.
 */
static inline bool kmd_privileged(const kmd_context_t *ctx, bool paging)
{
    return paging || (ctx && ctx->flags.SystemContext);
}

static inline bool kmd_fence_done(uint32_t fence, uint32_t completed)
{
    return (int32_t)(fence - completed) <= 0;
}

/* A segment's VRAM range (the segment descriptors of DXGKQAITYPE_QUERYSEGMENT4). */
static inline bool kmd_segment_range(const kmd_adapter_t *a, uint32_t id, uint64_t *out_base,
                                     uint64_t *out_size)
{
    uint64_t visible = a->ap_bytes < a->vram_bytes ? a->ap_bytes : a->vram_bytes;
    if (id == 1) {
        *out_base = 0;
        *out_size = visible;
        return true;
    }
    if (id == 2 && a->segment_count == 2) {
        *out_base = visible;
        *out_size = a->vram_bytes - visible;
        return true;
    }
    return false;
}

/* Whether [addr, addr + bytes) lies inside segment id; bytes may be 0. */
static inline bool kmd_in_segment(const kmd_adapter_t *a, uint32_t id, uint64_t addr, uint64_t bytes)
{
    uint64_t base = 0, size = 0;
    return kmd_segment_range(a, id, &base, &size) && addr >= base && addr - base <= size &&
           bytes <= size - (addr - base);
}

/* ---- kmd_engine.c ------------------------------------------------------------------------- */

/* Brings the engine up if the build, the link and the callbacks allow; STATUS_SUCCESS either way
 * unless bring-up itself failed (then everything it did is undone). */
NTSTATUS kmd_engine_start(kmd_adapter_t *a);
/* Resets the engine, drops its interrupt enables, frees the ring, fence record and packets. */
void kmd_engine_stop(kmd_adapter_t *a);
/* DMA_CTRL.RESET with ENABLE clear, then waits for IDLE and !RESETTING: 0, or -1 if stuck. */
int kmd_engine_reset_and_wait(kmd_adapter_t *a);
/* Writes ring base, size and fence address unless they already hold these values. */
int kmd_engine_program_ring(kmd_adapter_t *a);
/* Reads the fence record under the link lock (the sim writes host memory only inside link calls;
 * kmd_reg.c). */
void kmd_fence_read(kmd_adapter_t *a, uint32_t *out_done, uint32_t *out_preempt);

/* ---- kmd_packet.c ------------------------------------------------------------------------- */

/* All under sched_lock. */
kmd_packet_t *kmd_packet_new(kmd_adapter_t *a);
void kmd_packet_free(kmd_adapter_t *a, kmd_packet_t *p);
kmd_packet_t *kmd_packet_find(kmd_adapter_t *a, uint64_t id);
/* The packet a private-data range's tag names, or NULL (no room, no tag, stale id). */
kmd_packet_t *kmd_packet_from_private(kmd_adapter_t *a, const void *priv, uint32_t priv_size,
                                      uint32_t start, uint32_t end);
void kmd_packet_write_tag(void *priv, uint32_t start, const kmd_packet_t *p);
/* The COPY or FILL whose first qword is at cmd, `avail` bytes of buffer from there: its length in
 * bytes (its size operand in *out_size), or 0 when it is neither or does not fit. */
uint32_t kmd_cut_command(const uint8_t *cmd, uint32_t avail, uint64_t *out_size);
/* Releases ring entries that completed or that a preemption removed (their packets freed or
 * kept for resubmission). */
void kmd_retire(kmd_adapter_t *a);
/* Frees every packet: of one context (ctx != NULL, and detaches those on the ring), or all. */
void kmd_packets_drop(kmd_adapter_t *a, kmd_context_t *ctx);

/* ---- kmd_context.c ------------------------------------------------------------------------ */

kmd_context_t *kmd_context_from(kmd_adapter_t *a, HANDLE h);

/* ---- kmd_interrupt.c ---------------------------------------------------------------------- */

/* Under irq_lock: reports the fence if it is newer than the last one reported; true if it did. */
bool kmd_report_completed_locked(kmd_adapter_t *a, uint32_t done);
void kmd_notify(kmd_adapter_t *a, DXGKARGCB_NOTIFY_INTERRUPT_DATA *d);
void kmd_queue_dpc(kmd_adapter_t *a);

#endif
