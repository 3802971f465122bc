/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_dma.h: the DMA engine's memory formats (ring entries, commands, fence record), as
 * rtl/dma/README.md defines them, with encoders that write them into a caller's buffer.
 * Everything is little-endian qwords; the encoders store through gr_dma_put64 so the layout is
 * the same on any host.
 */
#ifndef GPUREF_GR_DMA_H
#define GPUREF_GR_DMA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Ring entry: 4 qwords. */
#define GR_DMA_RING_ENTRY_BYTES 32u
#define GR_DMA_ENTRY_USE_ROOT   0x1ull            /* qword 2 bit 0 */
#define GR_DMA_ENTRY_ROOT_MASK  0x000ffffffffff000ull /* qword 2 bits 51:12 */
#define GR_DMA_ENTRY_IRQ        0x1ull            /* qword 3 bit 0 */
/* qword 3 bit 1: a privileged (kernel) entry. Only its commands may name VRAM-physical or
 * host-physical space or INDIRECT; an entry without it must have USE_ROOT. The miniport sets it
 * for its own and VidMm's paging packets only, never for a user context's. */
#define GR_DMA_ENTRY_PRIV       0x2ull

/* Fence record at DMA_FENCE_ADDR: qword 0 completed fence id, qword 1 preemption fence id. */
#define GR_DMA_FENCE_RECORD_BYTES   16u
#define GR_DMA_FENCE_RECORD_DONE    0u
#define GR_DMA_FENCE_RECORD_PREEMPT 8u

/* Command opcodes (header bits 7:0) and lengths in qwords. */
enum gr_dma_opcode {
    GR_DMA_OP_NOP            = 0x00,
    GR_DMA_OP_COPY           = 0x01,
    GR_DMA_OP_FILL           = 0x02,
    GR_DMA_OP_FENCE          = 0x03,
    GR_DMA_OP_INDIRECT       = 0x04,
    GR_DMA_OP_TLB_INVALIDATE = 0x05,
    GR_DMA_OP_TIMESTAMP      = 0x06,
    GR_DMA_OP_WAIT           = 0x07,
};

#define GR_DMA_NOP_QWORDS            1u
#define GR_DMA_COPY_QWORDS           4u
#define GR_DMA_FILL_QWORDS           3u
#define GR_DMA_FENCE_QWORDS          3u
#define GR_DMA_INDIRECT_QWORDS       3u
#define GR_DMA_TLB_INVALIDATE_QWORDS 1u
#define GR_DMA_TIMESTAMP_QWORDS      2u
#define GR_DMA_WAIT_QWORDS           3u

/* Address spaces (header bits 9:8 source, 11:10 destination). VRAM and HOST need a PRIV entry. */
enum gr_dma_space {
    GR_DMA_SPACE_GPUVA = 0, /* through the MMU */
    GR_DMA_SPACE_VRAM  = 1, /* VRAM physical */
    GR_DMA_SPACE_HOST  = 2, /* host bus address */
};

#define GR_DMA_HDR_SRC_SHIFT 8u
#define GR_DMA_HDR_DST_SHIFT 10u
#define GR_DMA_HDR_IRQ       (1u << 12)

/* DMA_FAULT_STATUS.TYPE */
enum gr_dma_fault_type {
    GR_DMA_FAULT_NONE      = 0,
    GR_DMA_FAULT_HANG      = 1,
    GR_DMA_FAULT_MMU       = 2,
    GR_DMA_FAULT_BUS       = 3,
    GR_DMA_FAULT_BAD_CMD   = 4,
    GR_DMA_FAULT_VPR_COPY  = 5,
    GR_DMA_FAULT_BAD_ENTRY = 6,
    GR_DMA_FAULT_PRIVILEGE = 7, /* an unprivileged entry: a physical space, INDIRECT, or no root */
};

/* A command buffer being written: encoders append at `used` and refuse to pass `capacity`. */
typedef struct gr_dma_writer {
    uint8_t *buf;
    size_t capacity; /* bytes */
    size_t used;     /* bytes */
    int overflow;    /* set once an encoder did not fit; nothing was written by it */
} gr_dma_writer_t;

static inline void gr_dma_put64(uint8_t *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t gr_dma_get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline void gr_dma_writer_init(gr_dma_writer_t *w, void *buf, size_t capacity)
{
    w->buf = (uint8_t *)buf;
    w->capacity = capacity;
    w->used = 0;
    w->overflow = 0;
}

static inline uint64_t gr_dma_header(enum gr_dma_opcode op, unsigned src, unsigned dst,
                                     uint32_t flags, uint32_t imm)
{
    uint32_t h = (uint32_t)op | ((uint32_t)src << GR_DMA_HDR_SRC_SHIFT) |
                 ((uint32_t)dst << GR_DMA_HDR_DST_SHIFT) | flags;
    return (uint64_t)h | ((uint64_t)imm << 32);
}

/* Appends `n` qwords; returns 0, or -1 (and sets overflow) when they do not fit. */
static inline int gr_dma_emit(gr_dma_writer_t *w, const uint64_t *q, unsigned n)
{
    if (w->overflow || w->capacity - w->used < (size_t)n * 8u) {
        w->overflow = 1;
        return -1;
    }
    for (unsigned i = 0; i < n; i++)
        gr_dma_put64(w->buf + w->used + 8u * i, q[i]);
    w->used += (size_t)n * 8u;
    return 0;
}

static inline int gr_dma_nop(gr_dma_writer_t *w)
{
    const uint64_t q[1] = {gr_dma_header(GR_DMA_OP_NOP, 0, 0, 0, 0)};
    return gr_dma_emit(w, q, 1);
}

static inline int gr_dma_copy(gr_dma_writer_t *w, enum gr_dma_space src_space, uint64_t src,
                              enum gr_dma_space dst_space, uint64_t dst, uint64_t bytes)
{
    const uint64_t q[4] = {gr_dma_header(GR_DMA_OP_COPY, src_space, dst_space, 0, 0), src, dst,
                           bytes};
    return gr_dma_emit(w, q, 4);
}

static inline int gr_dma_fill(gr_dma_writer_t *w, enum gr_dma_space dst_space, uint64_t dst,
                              uint64_t bytes, uint32_t pattern)
{
    const uint64_t q[3] = {gr_dma_header(GR_DMA_OP_FILL, 0, dst_space, 0, pattern), dst, bytes};
    return gr_dma_emit(w, q, 3);
}

static inline int gr_dma_fence(gr_dma_writer_t *w, enum gr_dma_space dst_space, uint64_t dst,
                               uint64_t value, int irq)
{
    const uint64_t q[3] = {
        gr_dma_header(GR_DMA_OP_FENCE, 0, dst_space, irq ? GR_DMA_HDR_IRQ : 0, 0), dst, value};
    return gr_dma_emit(w, q, 3);
}

/* INDIRECT runs a buffer named by its host bus address: in a PRIV (kernel) entry only. */
static inline int gr_dma_indirect(gr_dma_writer_t *w, uint64_t host_addr, uint32_t bytes)
{
    const uint64_t q[3] = {gr_dma_header(GR_DMA_OP_INDIRECT, 0, 0, 0, 0), host_addr, bytes};
    return gr_dma_emit(w, q, 3);
}

static inline int gr_dma_tlb_invalidate(gr_dma_writer_t *w)
{
    const uint64_t q[1] = {gr_dma_header(GR_DMA_OP_TLB_INVALIDATE, 0, 0, 0, 0)};
    return gr_dma_emit(w, q, 1);
}

static inline int gr_dma_timestamp(gr_dma_writer_t *w, enum gr_dma_space dst_space, uint64_t dst)
{
    const uint64_t q[2] = {gr_dma_header(GR_DMA_OP_TIMESTAMP, 0, dst_space, 0, 0), dst};
    return gr_dma_emit(w, q, 2);
}

static inline int gr_dma_wait(gr_dma_writer_t *w, enum gr_dma_space src_space, uint64_t src,
                              uint64_t value)
{
    const uint64_t q[3] = {gr_dma_header(GR_DMA_OP_WAIT, src_space, 0, 0, 0), src, value};
    return gr_dma_emit(w, q, 3);
}

/* Writes one ring entry (32 bytes) at `entry`, without PRIV (a user entry: GPU VAs only, and it
 * needs use_root). `root` 0 with use_root 0: the MMU_ROOT register. */
static inline void gr_dma_ring_entry(uint8_t *entry, uint64_t buffer, uint32_t bytes,
                                     uint32_t fence_id, int use_root, uint64_t root, int irq)
{
    gr_dma_put64(entry + 0, buffer);
    gr_dma_put64(entry + 8, (uint64_t)bytes | ((uint64_t)fence_id << 32));
    gr_dma_put64(entry + 16,
                 (root & GR_DMA_ENTRY_ROOT_MASK) | (use_root ? GR_DMA_ENTRY_USE_ROOT : 0));
    gr_dma_put64(entry + 24, irq ? GR_DMA_ENTRY_IRQ : 0);
}

/* Marks a ring entry written by gr_dma_ring_entry as privileged (GR_DMA_ENTRY_PRIV): only the
 * kernel side does this, for its own packets. */
static inline void gr_dma_ring_entry_set_priv(uint8_t *entry)
{
    gr_dma_put64(entry + 24, gr_dma_get64(entry + 24) | GR_DMA_ENTRY_PRIV);
}

#ifdef __cplusplus
}
#endif

#endif /* GPUREF_GR_DMA_H */
