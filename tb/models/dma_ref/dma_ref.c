/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dma_ref.c: the DMA engine's reference model (see dma_ref.h). Follows rtl/dma/README.md rule by
 * rule; the comments quote the rule each step implements.
 */
#include "dma_ref.h"

#include <string.h>

#include "ref_walker.h"

#define PAGE 4096u

/* Where a command stands when something stops it: the top-level offset and the bytes done. */
typedef struct run_ctx {
    const gr_dma_ref_stop_t *stop;
    bool stop_pending; /* a stop with done > 0 was found at a check point: the next COPY/FILL */
} run_ctx_t;

typedef enum step {
    STEP_OK = 0,
    STEP_FAULT,
    STEP_HANG,
    STEP_STUCK,
    STEP_STOPPED,
    STEP_BAD_STOP,
} step_t;

/* ---- small helpers ------------------------------------------------------------------------- */

static uint32_t ring_mask(const gr_dma_ref_t *m)
{
    return gr_dma_ref_ring_entries(m) - 1u;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static int bus_read(gr_dma_ref_t *m, gr_dma_ref_port_t port, uint64_t addr, void *dst, size_t n)
{
    return m->bus.read(m->bus.ctx, port, addr, dst, n);
}

static int bus_write(gr_dma_ref_t *m, gr_dma_ref_port_t port, uint64_t addr, const void *src,
                     size_t n)
{
    return m->bus.write(m->bus.ctx, port, addr, src, n);
}

static int read_qword(gr_dma_ref_t *m, gr_dma_ref_port_t port, uint64_t addr, uint64_t *out)
{
    uint8_t b[8];
    if (bus_read(m, port, addr, b, 8) != 0)
        return -1;
    *out = gr_dma_get64(b);
    return 0;
}

static void fault(gr_dma_ref_t *m, unsigned type, unsigned mmu_type, bool write, uint64_t addr)
{
    m->faulted = true;
    m->fault_status = (type & 0xfu) | ((mmu_type & 0x7u) << 4) | ((write ? 1u : 0u) << 8) |
                      ((m->cur_entry & 0xffffu) << 16);
    m->fault_addr = addr;
    m->fault_addr_known = true;
    /* "DMA_FAULT[4] (HUNG or FAULTED was set)" */
    m->irq_fault = true;
}

/* "MMU and VPR faults are also logged by the memory controller's fault unit with
 * MC_FAULT_STATUS.SOURCE = 2": the first one is held, every one is counted. */
static void mc_log(gr_dma_ref_t *m, unsigned type, bool write, uint64_t addr)
{
    if (m->mc_fault_count != UINT32_MAX)
        m->mc_fault_count++;
    if (m->mc_fault_valid)
        return;
    m->mc_fault_valid = true;
    m->mc_fault_type = type;
    m->mc_fault_write = write;
    m->mc_fault_addr = addr & ((1ull << 48) - 1);
}

/* ---- translation --------------------------------------------------------------------------- */

typedef struct xlate {
    gr_dma_ref_port_t port;
    uint64_t pa;
} xlate_t;

static int walker_read64(void *ctx, uint64_t addr, uint64_t *out_value)
{
    return read_qword((gr_dma_ref_t *)ctx, GR_DMA_REF_VRAM, addr, out_value);
}

/* Spaces: "0 GPU virtual (through the MMU; a leaf with SYSTEM routes to m_host), 1 VRAM
 * physical, 2 host physical". Returns false after recording an MMU fault. */
static bool xlate(gr_dma_ref_t *m, unsigned space, uint64_t addr, bool write, xlate_t *out)
{
    if (space == GR_DMA_SPACE_VRAM) {
        out->port = GR_DMA_REF_VRAM;
        out->pa = addr;
        return true;
    }
    if (space == GR_DMA_SPACE_HOST) {
        out->port = GR_DMA_REF_HOST;
        out->pa = addr;
        return true;
    }
    /* "USE_ROOT: GPU VAs of this entry translate through ROOT with the MMU on (clear: through
     * MMU_ROOT, translated only while MMU_CTRL.ENABLE)" */
    gr_ref_mmu_t mmu = {
        .vram_addr_bits = m->vram_addr_bits,
        .root = m->cur_use_root ? m->cur_root : m->mmu_root,
        .enable = m->cur_use_root || m->mmu_enable,
        .read64 = walker_read64,
        .ctx = m,
    };
    gr_ref_result_t r;
    gr_ref_translate(&mmu, addr, write, false, &r);
    if (r.fault != GR_REF_FAULT_NONE) {
        /* "the faulting address (GPU VA ...)", MMU_TYPE "as MC_FAULT_STATUS.TYPE" */
        fault(m, GR_DMA_FAULT_MMU, r.fault, write, addr);
        mc_log(m, r.fault, write, addr);
        return false;
    }
    out->port = r.system ? GR_DMA_REF_HOST : GR_DMA_REF_VRAM;
    out->pa = r.pa;
    return true;
}

static bool in_vpr(const gr_dma_ref_t *m, const xlate_t *x)
{
    if (!m->vpr_enable || x->port != GR_DMA_REF_VRAM)
        return false;
    uint64_t base = m->vpr_base & ~(uint64_t)(PAGE - 1), limit = m->vpr_limit & ~(uint64_t)(PAGE - 1);
    return x->pa >= base && x->pa < limit;
}

/* ---- undetermined bytes -------------------------------------------------------------------- */

/* Before a COPY/FILL piece is written its old bytes are kept as a tentative "maybe" record: if a
 * fault stops the command later, the bytes written so far may or may not be in memory. The
 * model's memory holds the new bytes, the record the old ones. */
static void maybe_keep(gr_dma_ref_t *m, gr_dma_ref_port_t port, uint64_t addr, uint32_t n,
                       unsigned *tentative)
{
    if (m->maybe_count + *tentative >= GR_DMA_REF_MAX_MAYBE) {
        m->maybe_overflow = true;
        return;
    }
    gr_dma_ref_maybe_t *r = &m->maybe[m->maybe_count + *tentative];
    r->port = port;
    r->addr = addr;
    r->bytes = n;
    if (bus_read(m, port, addr, r->data, n) != 0)
        return; /* the write will fail too */
    (*tentative)++;
}

bool gr_dma_ref_maybe_byte(const gr_dma_ref_t *m, gr_dma_ref_port_t port, uint64_t addr,
                           uint8_t *out_other)
{
    for (unsigned i = 0; i < m->maybe_count; i++) {
        const gr_dma_ref_maybe_t *r = &m->maybe[i];
        if (r->port == port && addr >= r->addr && addr - r->addr < r->bytes) {
            if (out_other)
                *out_other = r->data[addr - r->addr];
            return true;
        }
    }
    return false;
}

/* ---- stops --------------------------------------------------------------------------------- */

/* A check point: before an entry, before a command, after an entry's last command. */
static bool at_stop(const gr_dma_ref_t *m, const run_ctx_t *rc)
{
    return rc->stop && m->head == rc->stop->entry && m->perf_cmds == rc->stop->cmds;
}

static void set_done(gr_dma_ref_t *m, uint64_t lo, uint64_t hi)
{
    m->stop_done_min = lo;
    m->stop_done_max = hi;
}

/* ---- COPY and FILL ------------------------------------------------------------------------- */

/* Runs a COPY (src_space != 4) or a FILL of `size` bytes, at most `limit` of them (a stop).
 * Splits at every 4 KiB boundary of source and destination: "bursts never cross 4 KiB" and the
 * VPR is page-granular, so each piece lies in one page on either side. */
static step_t move(gr_dma_ref_t *m, bool is_copy, unsigned src_space, uint64_t src,
                   unsigned dst_space, uint64_t dst, uint64_t size, uint32_t pattern, uint64_t limit)
{
    uint8_t buf[PAGE];
    unsigned tentative = 0;
    uint64_t done = 0;
    const uint64_t min0 = m->perf_bytes_min, max0 = m->perf_bytes_max;
    while (done < limit) {
        uint64_t d = dst + done;
        uint64_t n = min64(limit - done, PAGE - (d & (PAGE - 1)));
        uint64_t s = src + done;
        if (is_copy)
            n = min64(n, PAGE - (s & (PAGE - 1)));
        xlate_t xs = {0}, xd;
        bool ok = true;
        if (is_copy && !xlate(m, src_space, s, false, &xs))
            ok = false;
        else if (!xlate(m, dst_space, d, true, &xd))
            ok = false;
        else if (is_copy && in_vpr(m, &xs) && !in_vpr(m, &xd)) {
            /* "A copy whose source page is inside the enabled VPR and whose destination page is
             * outside it (or in host memory) faults VPR copy before moving any byte of that
             * page"; the address: "the source address of the first protected qword, in the
             * command's source space" (MC_FAULT_STATUS.SOURCE). */
            fault(m, GR_DMA_FAULT_VPR_COPY, 0, false, s);
            mc_log(m, 4, false, s);
            ok = false;
        } else if (is_copy && bus_read(m, xs.port, xs.pa, buf, (size_t)n) != 0) {
            /* "bus error response": the address as the command gave it */
            fault(m, GR_DMA_FAULT_BUS, 0, false, s);
            ok = false;
        }
        if (!ok) {
            /* Bytes already moved may or may not be in memory: the engine may have read ahead
             * and not written them yet. */
            m->maybe_count += tentative;
            m->perf_bytes_min = min0;
            m->perf_bytes_max = max0 + done;
            set_done(m, 0, done);
            return STEP_FAULT;
        }
        if (!is_copy)
            for (uint64_t i = 0; i < n; i++)
                buf[i] = (uint8_t)(pattern >> (8 * ((done + i) & 3)));
        maybe_keep(m, xd.port, xd.pa, (uint32_t)n, &tentative);
        if (bus_write(m, xd.port, xd.pa, buf, (size_t)n) != 0) {
            /* A write's error comes back with its response, after the earlier writes were
             * issued (they are in memory); later bursts of this command may have been issued
             * and counted before the engine saw it. */
            fault(m, GR_DMA_FAULT_BUS, 0, true, d);
            m->cur_posted = true;
            m->perf_bytes_min = min0 + done;
            m->perf_bytes_max = max0 + size;
            m->perf_cmds_max++;
            set_done(m, done, size);
            return STEP_FAULT;
        }
        done += n;
    }
    m->perf_bytes_min = min0 + done;
    m->perf_bytes_max = max0 + done;
    set_done(m, done, done);
    return limit < size ? STEP_STOPPED : STEP_OK;
}

/* ---- commands ------------------------------------------------------------------------------ */

static unsigned cmd_qwords(unsigned op)
{
    static const unsigned q[8] = {
        GR_DMA_NOP_QWORDS,      GR_DMA_COPY_QWORDS,     GR_DMA_FILL_QWORDS,
        GR_DMA_FENCE_QWORDS,    GR_DMA_INDIRECT_QWORDS, GR_DMA_TLB_INVALIDATE_QWORDS,
        GR_DMA_TIMESTAMP_QWORDS, GR_DMA_WAIT_QWORDS,
    };
    return op < 8 ? q[op] : 0;
}

static step_t run_buffer(gr_dma_ref_t *m, run_ctx_t *rc, uint64_t base, uint64_t len, bool nested);

/* One command at base + off; *out_next is the offset after it. */
static step_t run_command(gr_dma_ref_t *m, run_ctx_t *rc, uint64_t base, uint64_t len,
                          uint64_t off, bool nested, uint64_t *out_next)
{
    uint64_t at = base + off;
    uint64_t q[4] = {0};
    if (read_qword(m, GR_DMA_REF_HOST, at, &q[0]) != 0) {
        fault(m, GR_DMA_FAULT_BUS, 0, false, at);
        return STEP_FAULT;
    }
    uint32_t hdr = (uint32_t)q[0];
    unsigned op = hdr & 0xffu;
    unsigned src = (hdr >> GR_DMA_HDR_SRC_SHIFT) & 3u;
    unsigned dst = (hdr >> GR_DMA_HDR_DST_SHIFT) & 3u;
    bool irq = (hdr & GR_DMA_HDR_IRQ) != 0;
    bool uses_src = op == GR_DMA_OP_COPY || op == GR_DMA_OP_WAIT;
    bool uses_dst = op == GR_DMA_OP_COPY || op == GR_DMA_OP_FILL || op == GR_DMA_OP_FENCE ||
                    op == GR_DMA_OP_TIMESTAMP;
    unsigned nq = cmd_qwords(op);

    /* "the opcode is known, reserved header bits and unused spaces are zero, no space is 3";
     * the IRQ bit belongs to FENCE only (elsewhere it is a reserved bit). */
    bool bad = nq == 0 || (hdr >> 13) != 0 || src == 3 || dst == 3 || (!uses_src && src) ||
               (!uses_dst && dst) || (irq && op != GR_DMA_OP_FENCE);
    /* "the command fits in its buffer" */
    if (!bad && len - off < (uint64_t)nq * 8)
        bad = true;
    if (bad) {
        fault(m, GR_DMA_FAULT_BAD_CMD, 0, false, at);
        return STEP_FAULT;
    }
    for (unsigned i = 1; i < nq; i++) {
        if (read_qword(m, GR_DMA_REF_HOST, at + 8u * i, &q[i]) != 0) {
            fault(m, GR_DMA_FAULT_BUS, 0, false, at + 8u * i);
            return STEP_FAULT;
        }
    }
    /* "COPY and FILL addresses and sizes are multiples of 8; FENCE, TIMESTAMP and WAIT addresses
     * are 8-byte aligned; INDIRECT is not nested, its buffer is 8-byte aligned and its length a
     * multiple of 8" */
    switch (op) {
    case GR_DMA_OP_COPY: bad = ((q[1] | q[2] | q[3]) & 7u) != 0; break;
    case GR_DMA_OP_FILL: bad = ((q[1] | q[2]) & 7u) != 0; break;
    case GR_DMA_OP_FENCE:
    case GR_DMA_OP_TIMESTAMP:
    case GR_DMA_OP_WAIT: bad = (q[1] & 7u) != 0; break;
    case GR_DMA_OP_INDIRECT: bad = nested || ((q[1] | q[2]) & 7u) != 0; break;
    default: break;
    }
    if (bad) {
        fault(m, GR_DMA_FAULT_BAD_CMD, 0, false, at);
        return STEP_FAULT;
    }
    /* "In an entry without PRIV, a command that names VRAM-physical or host-physical space
     * (source or destination), and every INDIRECT, is a privilege fault (the command does
     * nothing)", at the command's host address, after the bad-command checks. */
    if (!m->cur_priv && (src != GR_DMA_SPACE_GPUVA || dst != GR_DMA_SPACE_GPUVA || op == GR_DMA_OP_INDIRECT)) {
        fault(m, GR_DMA_FAULT_PRIVILEGE, 0, false, at);
        return STEP_FAULT;
    }

    /* A stop found at this command's check point with bytes done: only a COPY or FILL can
     * have written bytes; an INDIRECT passes the stop on to its first command. A COPY or FILL
     * may be stopped after its last burst too (all bytes written, the command not completed). */
    uint64_t limit = UINT64_MAX;
    bool stopping = false;
    if (rc->stop_pending) {
        if (op == GR_DMA_OP_INDIRECT) {
            /* handled by the nested buffer's first check point */
        } else if (op == GR_DMA_OP_COPY || op == GR_DMA_OP_FILL) {
            uint64_t size = op == GR_DMA_OP_COPY ? q[3] : q[2];
            if (rc->stop->done > size)
                return STEP_BAD_STOP;
            limit = rc->stop->done;
            stopping = true;
            rc->stop_pending = false;
        } else {
            return STEP_BAD_STOP;
        }
    }

    step_t st = STEP_OK;
    xlate_t x;
    uint8_t b[8];
    switch (op) {
    case GR_DMA_OP_NOP:
        break;
    case GR_DMA_OP_COPY:
        st = move(m, true, src, q[1], dst, q[2], q[3], 0, min64(q[3], limit));
        if (st == STEP_STOPPED || st == STEP_OK)
            st = stopping ? STEP_STOPPED : STEP_OK;
        break;
    case GR_DMA_OP_FILL:
        st = move(m, false, 0, 0, dst, q[1], q[2], (uint32_t)(q[0] >> 32), min64(q[2], limit));
        if (st == STEP_STOPPED || st == STEP_OK)
            st = stopping ? STEP_STOPPED : STEP_OK;
        break;
    case GR_DMA_OP_FENCE:
    case GR_DMA_OP_TIMESTAMP: {
        /* "FENCE and TIMESTAMP write only after every earlier write of the entry has its
         * response": in this sequential model every earlier write is done already. */
        if (!xlate(m, dst, q[1], true, &x))
            return STEP_FAULT;
        uint64_t v;
        if (op == GR_DMA_OP_FENCE)
            v = q[2];
        else
            v = m->bus.timestamp ? m->bus.timestamp(m->bus.ctx) : ++m->next_stamp;
        gr_dma_put64(b, v);
        if (bus_write(m, x.port, x.pa, b, 8) != 0) {
            fault(m, GR_DMA_FAULT_BUS, 0, true, q[1]);
            m->cur_posted = true;
            m->perf_cmds_max++;
            return STEP_FAULT;
        }
        if (op == GR_DMA_OP_TIMESTAMP) {
            if (m->stamp_count < GR_DMA_REF_MAX_STAMPS)
                m->stamps[m->stamp_count++] = (gr_dma_ref_stamp_t){x.port, x.pa};
            else
                m->stamps_overflow = true;
        }
        /* "header IRQ raises DMA_FENCE after the write" */
        if (op == GR_DMA_OP_FENCE && irq)
            m->irq_fence = true;
        break;
    }
    case GR_DMA_OP_INDIRECT:
        /* "runs it, then continues here" */
        st = run_buffer(m, rc, q[1], q[2], true);
        break;
    case GR_DMA_OP_TLB_INVALIDATE:
        /* The model keeps no TLB: every translation walks the tables as they are now. */
        break;
    case GR_DMA_OP_WAIT: {
        uint64_t v;
        if (!xlate(m, src, q[1], false, &x))
            return STEP_FAULT;
        if (read_qword(m, x.port, x.pa, &v) != 0) {
            fault(m, GR_DMA_FAULT_BUS, 0, false, q[1]);
            return STEP_FAULT;
        }
        /* "re-reads the qword at the source every 64 cycles until it is at least the value
         * (unsigned)": nothing else runs meanwhile, so what it reads now it reads for ever.
         * "WAIT's re-reads are not progress": the watchdog fires, unless it is off. */
        if (v < q[2]) {
            if (m->watchdog == 0)
                return STEP_STUCK;
            m->hung = true;
            m->fault_status = GR_DMA_FAULT_HANG | ((m->cur_entry & 0xffffu) << 16);
            m->fault_addr_known = false;
            m->irq_fault = true;
            return STEP_HANG;
        }
        break;
    }
    default:
        break;
    }
    if (st != STEP_OK)
        return st;
    /* "Commands completed" (DMA_PERF_CMDS): an INDIRECT completes when its buffer has run. */
    m->perf_cmds++;
    m->perf_cmds_max++;
    *out_next = off + (uint64_t)nq * 8;
    return STEP_OK;
}

static step_t run_buffer(gr_dma_ref_t *m, run_ctx_t *rc, uint64_t base, uint64_t len, bool nested)
{
    uint64_t off = 0;
    while (off < len) {
        if (!nested)
            m->cur_offset = (uint32_t)off;
        set_done(m, 0, 0);
        if (at_stop(m, rc)) {
            if (rc->stop->done == 0)
                return STEP_STOPPED;
            rc->stop_pending = true;
        } else if (rc->stop && m->head == rc->stop->entry && m->perf_cmds > rc->stop->cmds) {
            return STEP_BAD_STOP;
        }
        uint64_t next = off;
        step_t st = run_command(m, rc, base, len, off, nested, &next);
        if (st != STEP_OK)
            return st;
        off = next;
    }
    return STEP_OK;
}

/* ---- ring entries -------------------------------------------------------------------------- */

static step_t run_entry(gr_dma_ref_t *m, run_ctx_t *rc)
{
    uint32_t idx = m->head;
    uint64_t at = (m->ring_base & ~(uint64_t)(PAGE - 1)) + (uint64_t)idx * GR_DMA_RING_ENTRY_BYTES;
    m->in_progress = true;
    m->cur_entry = idx;
    m->cur_offset = 0;
    m->cur_len = 0;
    m->cur_posted = false;
    m->cur_use_root = false;
    m->cur_priv = false;
    /* "PREEMPTED: the last stop was a preemption (cleared when an entry starts)" */
    m->preempted = false;
    set_done(m, 0, 0);

    uint64_t q[4];
    for (unsigned i = 0; i < 4; i++) {
        if (read_qword(m, GR_DMA_REF_HOST, at + 8u * i, &q[i]) != 0) {
            fault(m, GR_DMA_FAULT_BUS, 0, false, at + 8u * i);
            return STEP_FAULT;
        }
    }
    uint64_t buffer = q[0];
    uint32_t len = (uint32_t)q[1];
    uint32_t fence_id = (uint32_t)(q[1] >> 32);
    /* "Every other bit is reserved and must be zero. An entry with a reserved bit set, a
     * misaligned buffer or a length not a multiple of 8 is a bad ring entry fault; nothing of
     * it runs." The address: "a bad command or ring entry: its host address". */
    if ((buffer & 7u) || (len & 7u) || (q[2] & ~(GR_DMA_ENTRY_USE_ROOT | GR_DMA_ENTRY_ROOT_MASK)) ||
        (q[3] & ~(GR_DMA_ENTRY_IRQ | GR_DMA_ENTRY_PRIV))) {
        fault(m, GR_DMA_FAULT_BAD_ENTRY, 0, false, at);
        return STEP_FAULT;
    }
    /* "An entry without PRIV must have USE_ROOT": else its GPU VAs would translate through
     * MMU_ROOT (another address space) or, with the MMU off, not at all. A privilege fault at
     * the entry's host address; nothing of it runs. */
    if (!(q[3] & GR_DMA_ENTRY_PRIV) && !(q[2] & GR_DMA_ENTRY_USE_ROOT)) {
        fault(m, GR_DMA_FAULT_PRIVILEGE, 0, false, at);
        return STEP_FAULT;
    }
    m->cur_priv = (q[3] & GR_DMA_ENTRY_PRIV) != 0;
    m->cur_len = len;
    m->cur_use_root = (q[2] & GR_DMA_ENTRY_USE_ROOT) != 0;
    m->cur_root = q[2] & GR_DMA_ENTRY_ROOT_MASK;

    step_t st = run_buffer(m, rc, buffer, len, false);
    if (st != STEP_OK)
        return st;
    /* After the last command, before the completion. */
    m->cur_offset = len;
    set_done(m, 0, 0);
    if (at_stop(m, rc) && rc->stop->done == 0)
        return STEP_STOPPED;
    if (rc->stop && m->head == rc->stop->entry)
        return STEP_BAD_STOP; /* the device says it stopped inside an entry the model finished */

    /* "it waits until every write the entry made has its response, writes the entry's fence id
     * (zero-extended to 64 bits) to the fence record's first qword, sets DMA_COMPLETED_FENCE,
     * raises DMA_FENCE if the entry asks, and advances HEAD" */
    uint8_t b[8];
    uint64_t rec = m->fence_addr & ~7ull;
    gr_dma_put64(b, fence_id);
    if (bus_write(m, GR_DMA_REF_HOST, rec + GR_DMA_FENCE_RECORD_DONE, b, 8) != 0) {
        fault(m, GR_DMA_FAULT_BUS, 0, true, rec + GR_DMA_FENCE_RECORD_DONE);
        return STEP_FAULT;
    }
    m->completed_fence = fence_id;
    if (q[3] & GR_DMA_ENTRY_IRQ)
        m->irq_fence = true;
    m->head = (m->head + 1u) & ring_mask(m);
    m->in_progress = false;
    m->cur_offset = 0;
    return STEP_OK;
}

/* ---- public -------------------------------------------------------------------------------- */

void gr_dma_ref_init(gr_dma_ref_t *m, const gr_dma_ref_bus_t *bus)
{
    memset(m, 0, sizeof(*m));
    m->bus = *bus;
    m->ring_log2 = 4;          /* DMA_RING_SIZE.LOG2 reset 4 */
    m->watchdog = 0x00100000u; /* DMA_WATCHDOG reset */
    m->vram_addr_bits = 32;
}

gr_dma_ref_result_t gr_dma_ref_run(gr_dma_ref_t *m, const gr_dma_ref_stop_t *stop)
{
    /* "The engine then issues nothing more until an engine reset." */
    if (m->hung)
        return GR_DMA_REF_HANG;
    if (m->faulted)
        return GR_DMA_REF_FAULT;
    run_ctx_t rc = {.stop = stop, .stop_pending = false};
    for (;;) {
        if (at_stop(m, &rc) && stop->done == 0)
            return GR_DMA_REF_STOPPED;
        /* "With ENABLE set and HEAD != TAIL the engine reads the entry at HEAD" */
        if (!m->enable || m->head == (m->tail & ring_mask(m)))
            return stop ? GR_DMA_REF_BAD_STOP : GR_DMA_REF_IDLE;
        switch (run_entry(m, &rc)) {
        case STEP_OK: break;
        case STEP_FAULT: return GR_DMA_REF_FAULT;
        case STEP_HANG: return GR_DMA_REF_HANG;
        case STEP_STUCK: return GR_DMA_REF_STUCK;
        case STEP_STOPPED: return GR_DMA_REF_STOPPED;
        case STEP_BAD_STOP: return GR_DMA_REF_BAD_STOP;
        }
    }
}

/* "records the removed entries (STOP_HEAD = the entry in progress, or HEAD if none; STOP_TAIL =
 * TAIL), STOP_OFFSET and STOP_DONE, sets HEAD = TAIL" */
static void record_stop(gr_dma_ref_t *m)
{
    m->stop_head = m->in_progress ? m->cur_entry : m->head;
    m->stop_tail = m->tail & 0xffffu;
    m->stop_offset = m->in_progress ? m->cur_offset : 0;
    m->stop_offset_max = m->in_progress && m->cur_posted ? m->cur_len : m->stop_offset;
    if (!m->in_progress)
        set_done(m, 0, 0);
    m->head = m->tail & ring_mask(m);
    m->in_progress = false;
}

int gr_dma_ref_preempt(gr_dma_ref_t *m)
{
    if (m->hung || m->faulted)
        return -1;
    record_stop(m);
    /* "writes DMA_PREEMPT_FENCE (zero-extended) to the fence record's second qword, sets
     * PREEMPTED and raises DMA_PREEMPTED" */
    uint8_t b[8];
    gr_dma_put64(b, m->preempt_fence);
    (void)bus_write(m, GR_DMA_REF_HOST, (m->fence_addr & ~7ull) + GR_DMA_FENCE_RECORD_PREEMPT, b, 8);
    m->preempted = true;
    m->irq_preempted = true;
    return 0;
}

void gr_dma_ref_engine_reset(gr_dma_ref_t *m)
{
    record_stop(m);
    /* "HUNG, FAULTED, PREEMPTED and RESETTING clear ... No fence is written." */
    m->hung = false;
    m->faulted = false;
    m->preempted = false;
}
