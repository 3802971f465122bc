/* SPDX-License-Identifier: Apache-2.0 */
// pcie_card.cpp: pcie_core under Verilator with a root complex of our own in front of it
// (gr_pcie_card.h). The root complex speaks the UltraScale+ PCIe4 hard IP's user interface as
// PG213 describes it (64-bit AXI4-Stream, DWORD-aligned, no straddling): the CQ and RQ
// descriptors take two beats and their payload starts in the low half of the third; the CC and
// RC descriptors take a beat and a half and their payload starts in the high half of the second.
// TLP rules (Byte Count, Lower Address, the Read Completion Boundary, byte enables) are the PCIe
// Base Specification's.
#include <verilated.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <algorithm>
#include <map>
#include <memory>
#include <new>
#include <vector>

#include "Vpcie_card.h"
#include "axi_mem_model.h"
#include "axi_pins.h"
#include "gr_pcie_card.h"
#include "vram_memory.h"
#include "vram_port.h"

using namespace gr;

namespace {

constexpr uint64_t kResetCycles = 16;
constexpr uint64_t kVramBytes = 512ull << 20;  // gpu_core's VramBytes, the strap as sim:// sets it
constexpr unsigned kVramDataBytes = 8;          // gpu_core's m_vram: 64-bit data
constexpr uint64_t kBar0Base = 0xf0000000ull;  // where the root complex put the BARs (any
constexpr uint64_t kBar1Base = 0x4000000000ull; // address aligned to the BAR's size will do)
constexpr unsigned kBar0Aperture = 16;          // log2 of the BAR sizes, as the hard IP reports
constexpr unsigned kBar1Aperture = 28;          // them in every CQ descriptor
constexpr unsigned kMaxPayload = 256;           // Max_Payload_Size (cfg_max_payload 1)
constexpr unsigned kMaxPayloadCode = 1;
constexpr unsigned kMaxReadReqCode = 2;         // Max_Read_Request_Size 512
constexpr unsigned kRcb = 64;                   // the root complex's Read Completion Boundary
constexpr uint64_t kReadLatency = 100;          // cycles from an MRd to its first completion
constexpr uint64_t kCplTimeout = 20000;         // cycles: the root complex's completion timeout
// Cycles a posted write runs on after the completer is done with it: gpu_core's irq_o follows
// a write's B in 1..2, and pcie_irq's rearm asks for its MSI RearmDelay (8) cycles later. A
// system call (the pwrite, or the fault of a mapped BAR) takes longer than this on a real host.
constexpr uint64_t kSettleCycles = 32;
constexpr unsigned kCplUR = 1, kCplCA = 4;      // completion status
constexpr unsigned kErrNonSC = 2;               // RC error code: terminated by a non-SC status

struct Beat {
    uint64_t data = 0;
    uint8_t keep = 0;
    bool last = false;
    uint64_t user = 0; // tuser[63:0] (CQ's first/last BE, sop, discontinue; RC's discontinue)
};

struct Tlp {
    std::vector<Beat> beats;
    uint64_t due = 0; // first cycle it may go out
};

struct Read {
    uint64_t first; // first byte (address inside the BAR)
    size_t bytes;
    uint64_t dw_base; // first DWORD's address
    std::vector<uint8_t> data;
    uint64_t sent_at = UINT64_MAX; // cycle its last beat was taken
    bool done = false;
    int status = GR_OK;
};

uint8_t lead(uint8_t be) { return be ? uint8_t(__builtin_ctz(be)) : 0; }
uint8_t trail(uint8_t be) { return be ? uint8_t(3 - (31 - __builtin_clz(be))) : 0; }

template <typename T> void set_wide(T &port, uint64_t lo, uint32_t hi)
{
    port[0] = uint32_t(lo);
    port[1] = uint32_t(lo >> 32);
    port[2] = hi;
}

} // namespace

struct gr_pcie_card {
    gr_pcie_card(uint64_t seed, const gr_sim_host_port_t &p);
    ~gr_pcie_card();
    void step();
    void run(uint64_t n)
    {
        for (uint64_t i = 0; i < n; ++i)
            step();
    }
    void send_cq(uint64_t addr, bool bar1, bool write, unsigned dwords, uint8_t fbe, uint8_t lbe,
                 const uint32_t *payload, uint8_t tag);
    int read(bool bar1, uint64_t off, uint8_t *dst, size_t bytes);
    void write(bool bar1, uint64_t off, const uint8_t *src, size_t bytes, bool last);
    // Posted writes leave once the card has taken them; a card that stops taking CQ loses them.
    void drain_cq()
    {
        uint64_t t0 = cycle;
        for (size_t left = cq.size(); !cq.empty() && cycle - t0 < kCplTimeout;) {
            step();
            if (cq.size() != left) // progress: the wait runs from the last beat taken
                left = cq.size(), t0 = cycle;
        }
        cq.clear();
        // ... and once the completer is free again (it holds CQ while it works), kSettleCycles
        // for gpu_core and the shell to act on it.
        step();
        while (!cq_ready && cycle - t0 < kCplTimeout)
            step();
        run(kSettleCycles);
    }
    void take_cc(const std::vector<Beat> &b);
    void take_rq(const std::vector<Beat> &b);

    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vpcie_card> top;
    VramMemory vram_mem{kVramBytes};
    std::unique_ptr<AxiMemModel> vram;
    AxiPins vram_pins;
    gr_sim_host_port_t port;
    uint64_t cycle = 0;
    bool rst = true;
    bool bus_master = false, msi_en = false, intx_disable = false;

    std::deque<Beat> cq;       // beats to send on CQ
    std::deque<Tlp> rc;        // completions to send on RC, in order
    size_t rc_beat = 0;        // next beat of rc.front()
    std::vector<Beat> cc_in, rq_in;
    std::map<uint8_t, Read *> reads; // outstanding BAR reads by tag
    Read *last_read = nullptr;       // the read whose MRd is on CQ (alone: see read)
    bool cq_ready = true;            // the completer took CQ beats in the last cycle
    bool mute = false;               // the card's completions are lost (gr_pcie_card_mute)
    uint8_t next_tag = 0;
    bool msi_ack = false, msi_failed = false, inta = false, inta_acked = false, int_sent = false;
    unsigned msis_new = 0;
    gr_pcie_card_counts_t counts{};
};

gr_pcie_card::gr_pcie_card(uint64_t seed, const gr_sim_host_port_t &p) : port(p)
{
    ctx.reset(new VerilatedContext);
    ctx->threads(1);
    top.reset(new Vpcie_card(ctx.get(), "TOP"));
    AxiMemConfig vc;
    vc.port = "vram";
    vc.addr_bits = 32;
    vc.seed = seed;
    vram.reset(new AxiMemModel(vc, vram_mem, nullptr));
    run(kResetCycles);
    rst = false;
    step();
}

gr_pcie_card::~gr_pcie_card()
{
    if (top) top->final();
}

void gr_pcie_card::step()
{
    Vpcie_card *t = top.get();
    vram->drive(vram_pins, cycle);

    t->rst_i = rst;
    t->vram_bytes_i = kVramBytes;
    // CQ: the next beat, held until taken
    const bool cq_v = !rst && !cq.empty();
    const Beat cqb = cq_v ? cq.front() : Beat();
    t->s_axis_cq_tvalid_i = cq_v;
    t->s_axis_cq_tdata_i = cqb.data;
    t->s_axis_cq_tkeep_i = cqb.keep;
    t->s_axis_cq_tlast_i = cqb.last;
    set_wide(t->s_axis_cq_tuser_i, cqb.user, 0);
    t->m_axis_cc_tready_i = 1;
    t->m_axis_rq_tready_i = 1;
    // RC: the next beat of the first completion that is due
    const bool rc_v = !rst && !rc.empty() && rc.front().due <= cycle;
    const Beat rcb = rc_v ? rc.front().beats[rc_beat] : Beat();
    t->s_axis_rc_tvalid_i = rc_v;
    t->s_axis_rc_tdata_i = rcb.data;
    t->s_axis_rc_tkeep_i = rcb.keep;
    t->s_axis_rc_tlast_i = rcb.last;
    set_wide(t->s_axis_rc_tuser_i, rcb.user, 0);
    t->cfg_max_payload_i = kMaxPayloadCode;
    t->cfg_max_read_req_i = kMaxReadReqCode;
    t->cfg_interrupt_msi_enable_i = msi_en ? 1 : 0;
    t->cfg_interrupt_msi_sent_i = msi_ack && !msi_failed;
    t->cfg_interrupt_msi_fail_i = msi_ack && msi_failed;
    t->cfg_interrupt_sent_i = int_sent;
    // function 0: I/O off, memory on, bus master, INTx disable
    t->cfg_function_status_i = uint16_t(0x2 | (bus_master ? 0x4 : 0) | (intx_disable ? 0x8 : 0));
    t->tap_sel_i = 0;
    vram_port_drive(*t, vram_pins, kVramDataBytes);

    t->clk_i = 0;
    t->eval();

    // the handshakes of this cycle
    msi_ack = false;
    int_sent = false;
    cq_ready = t->s_axis_cq_tready_o;
    if (cq_v && t->s_axis_cq_tready_o) {
        counts.bytes_down += (cqb.keep & 2) ? 8 : 4;
        cq.pop_front();
        if (last_read && cq.empty()) {
            last_read->sent_at = cycle;
            last_read = nullptr;
        }
    }
    if (t->m_axis_cc_tvalid_o) {
        Beat b;
        b.data = t->m_axis_cc_tdata_o;
        b.keep = t->m_axis_cc_tkeep_o;
        b.last = t->m_axis_cc_tlast_o;
        counts.bytes_up += (b.keep & 2) ? 8 : 4;
        cc_in.push_back(b);
        if (b.last) {
            take_cc(cc_in);
            cc_in.clear();
        }
    }
    if (t->m_axis_rq_tvalid_o) {
        Beat b;
        b.data = t->m_axis_rq_tdata_o;
        b.keep = t->m_axis_rq_tkeep_o;
        b.last = t->m_axis_rq_tlast_o;
        b.user = t->m_axis_rq_tuser_o;
        counts.bytes_up += (b.keep & 2) ? 8 : 4;
        rq_in.push_back(b);
        if (b.last) {
            take_rq(rq_in);
            rq_in.clear();
        }
    }
    if (rc_v && t->s_axis_rc_tready_o) {
        counts.bytes_down += (rcb.keep & 2) ? 8 : 4;
        if (++rc_beat == rc.front().beats.size()) {
            rc.pop_front();
            rc_beat = 0;
            counts.rc_tlps++;
        }
    }
    if (!rst && (t->cfg_interrupt_msi_int_o & 1)) {
        msi_ack = true; // the hard IP's answer, a cycle later
        msi_failed = !bus_master;
        if (bus_master) {
            msis_new++;
            counts.msis++;
        }
    }
    const bool a = t->cfg_interrupt_int_o & 1;
    if (a != inta_acked) {
        inta_acked = a;
        int_sent = true; // Assert_INTA / Deassert_INTA sent
    }
    inta = a;
    vram_port_sample(*t, vram_pins, kVramDataBytes);
    vram->sample(vram_pins, cycle);

    t->clk_i = 1;
    t->eval();
    ++cycle;
}

// One memory request on CQ: two descriptor beats, then the payload two DWORDs a beat.
void gr_pcie_card::send_cq(uint64_t addr, bool bar1, bool write, unsigned dwords, uint8_t fbe,
                           uint8_t lbe, const uint32_t *payload, uint8_t tag)
{
    const uint64_t a = (bar1 ? kBar1Base : kBar0Base) + addr;
    const uint32_t dw0 = uint32_t(a) & ~3u, dw1 = uint32_t(a >> 32);
    const uint32_t dw2 = (dwords & 0x7ffu) | (write ? 1u : 0u) << 11; // requester ID 0 (the RC)
    const uint32_t dw3 = tag | (bar1 ? 1u : 0u) << 16 | (bar1 ? kBar1Aperture : kBar0Aperture) << 19;
    const uint64_t user0 = uint64_t(fbe) | uint64_t(lbe) << 4 | 1ull << 40; // sop
    const uint64_t user = uint64_t(fbe) | uint64_t(lbe) << 4;
    Beat b;
    b.data = dw0 | uint64_t(dw1) << 32;
    b.keep = 3;
    b.user = user0;
    cq.push_back(b);
    b.data = dw2 | uint64_t(dw3) << 32;
    b.user = user;
    b.last = !write;
    cq.push_back(b);
    if (!write) return;
    for (unsigned i = 0; i < dwords; i += 2) {
        Beat p;
        p.data = payload[i] | (i + 1 < dwords ? uint64_t(payload[i + 1]) << 32 : 0);
        p.keep = i + 1 < dwords ? 3 : 1;
        p.last = i + 2 >= dwords;
        p.user = user;
        cq.push_back(p);
    }
}

// The completer's answer to one of our reads: data placed by Byte Count (the bytes still to come
// including this completion's), done when the last byte is in or on any status but SC.
void gr_pcie_card::take_cc(const std::vector<Beat> &b)
{
    counts.cc_tlps++;
    if (b.size() < 2 || mute) return; // malformed, or lost
    const uint32_t dw0 = uint32_t(b[0].data), dw1 = uint32_t(b[0].data >> 32), dw2 = uint32_t(b[1].data);
    const unsigned lower = dw0 & 0x7f, byte_count = (dw0 >> 16) & 0x1fff, dwords = dw1 & 0x7ff;
    const unsigned status = (dw1 >> 11) & 7;
    auto it = reads.find(uint8_t(dw2 & 0xff));
    if (it == reads.end()) {
        counts.unexpected_cpls++;
        return;
    }
    Read *r = it->second;
    if (status != 0) {
        r->status = status == kCplUR || status == kCplCA ? GR_E_BUS : GR_E_IO;
        r->done = true;
        reads.erase(it);
        return;
    }
    std::vector<uint32_t> pl;
    pl.push_back(uint32_t(b[1].data >> 32));
    for (size_t i = 2; i < b.size(); ++i) {
        pl.push_back(uint32_t(b[i].data));
        if (b[i].keep & 2) pl.push_back(uint32_t(b[i].data >> 32));
    }
    const size_t left = byte_count ? byte_count : 4096;
    if (left > r->bytes) {
        r->status = GR_E_IO; // more bytes than asked for: a malformed completion
        r->done = true;
        reads.erase(it);
        return;
    }
    const size_t done_before = r->bytes - left;
    const uint64_t at = r->first + done_before; // this completion's first byte
    if ((at & 0x7f) != lower && r->bytes) {
        r->status = GR_E_IO; // a Lower Address that does not match: a malformed completion
        r->done = true;
        reads.erase(it);
        return;
    }
    const size_t off = size_t((at & ~3ull) - r->dw_base);
    for (size_t i = 0; i < pl.size() && i < dwords; ++i)
        for (unsigned k = 0; k < 4; ++k)
            if (off + 4 * i + k < r->data.size()) r->data[off + 4 * i + k] = uint8_t(pl[i] >> (8 * k));
    const size_t here = dwords * 4 - (at & 3);
    if (byte_count <= here) {
        r->done = true;
        reads.erase(it);
    }
}

// A request of the card: an MWr goes to host memory, an MRd is answered on RC, both only where
// the IOMMU (the port) maps the IOVA.
void gr_pcie_card::take_rq(const std::vector<Beat> &b)
{
    if (b.size() < 2) return;
    const uint32_t dw0 = uint32_t(b[0].data), dw1 = uint32_t(b[0].data >> 32);
    const uint32_t dw2 = uint32_t(b[1].data), dw3 = uint32_t(b[1].data >> 32);
    const uint64_t addr = (uint64_t(dw1) << 32) | (dw0 & ~3u);
    const unsigned dwords = (dw2 & 0x7ff) ? (dw2 & 0x7ff) : 1024, type = (dw2 >> 11) & 0xf;
    const uint8_t tag = uint8_t(dw3), fbe = uint8_t(b[0].user & 0xf), lbe = uint8_t((b[0].user >> 4) & 0xf);
    const bool ok = port.contains(port.arg, addr, uint64_t(dwords) * 4);
    if (type == 1) { // MWr
        counts.rq_mwr++;
        if (!ok) {
            counts.iommu_faults++; // posted: the write is dropped, nothing comes back
            return;
        }
        std::vector<uint32_t> pl;
        for (size_t i = 2; i < b.size(); ++i) {
            pl.push_back(uint32_t(b[i].data));
            if (b[i].keep & 2) pl.push_back(uint32_t(b[i].data >> 32));
        }
        // the enabled bytes, written in runs
        std::vector<uint8_t> data(size_t(dwords) * 4, 0), en(size_t(dwords) * 4, 0);
        for (unsigned i = 0; i < dwords && i < pl.size(); ++i) {
            const uint8_t be = dwords == 1 ? fbe : i == 0 ? fbe : i == dwords - 1 ? lbe : 0xf;
            for (unsigned k = 0; k < 4; ++k) {
                data[4 * i + k] = uint8_t(pl[i] >> (8 * k));
                en[4 * i + k] = be >> k & 1;
            }
        }
        for (size_t i = 0; i < data.size();) {
            if (!en[i]) {
                ++i;
                continue;
            }
            size_t j = i;
            while (j < data.size() && en[j])
                ++j;
            port.write(port.arg, addr + i, &data[i], j - i);
            i = j;
        }
        return;
    }
    if (type != 0) return; // nothing else is expected of the shell's requester
    counts.rq_mrd++;
    const size_t first_lead = lead(fbe);
    size_t total;
    if (dwords == 1) total = fbe ? size_t(4 - lead(fbe) - trail(fbe)) : 1;
    else total = size_t(dwords) * 4 - first_lead - trail(lbe);
    const uint64_t due = cycle + kReadLatency;
    auto cpl = [&](uint64_t at, unsigned ndw, size_t byte_count, unsigned status, const std::vector<uint32_t> &data) {
        Tlp t;
        t.due = due;
        const uint32_t c0 = uint32_t(at & 0xfff) | (status ? kErrNonSC << 12 : 0) |
                            uint32_t(byte_count & 0x1fff) << 16 | (byte_count <= ndw * 4 - (at & 3) || status ? 1u << 30 : 0);
        const uint32_t c1 = (ndw & 0x7ff) | status << 11;
        const uint32_t c2 = tag;
        Beat x;
        x.data = c0 | uint64_t(c1) << 32;
        x.keep = 3;
        t.beats.push_back(x);
        x.data = c2 | (ndw ? uint64_t(data[0]) << 32 : 0);
        x.keep = ndw ? 3 : 1;
        x.last = ndw <= 1;
        t.beats.push_back(x);
        for (unsigned i = 1; i < ndw; i += 2) {
            Beat p;
            p.data = data[i] | (i + 1 < ndw ? uint64_t(data[i + 1]) << 32 : 0);
            p.keep = i + 1 < ndw ? 3 : 1;
            p.last = i + 2 >= ndw;
            t.beats.push_back(p);
        }
        rc.push_back(t);
    };
    if (!ok) {
        counts.iommu_faults++; // the root complex answers Unsupported Request
        counts.ur_cpls++;
        cpl(addr + first_lead, 0, total, kCplUR, {});
        return;
    }
    std::vector<uint32_t> all(dwords);
    port.read(port.arg, addr, all.data(), size_t(dwords) * 4);
    // completions cut at every RCB boundary
    size_t left = total;
    uint64_t at = addr + first_lead;
    unsigned i = 0;
    while (i < dwords) {
        const uint64_t dw_at = addr + 4ull * i;
        const uint64_t end = (dw_at / kRcb + 1) * kRcb;
        unsigned n = unsigned((end - dw_at) / 4);
        if (n > dwords - i) n = dwords - i;
        std::vector<uint32_t> d(all.begin() + i, all.begin() + i + n);
        cpl(at, n, left, 0, d);
        const size_t here = std::min(left, size_t(n) * 4 - (at & 3));
        left -= here;
        at += here;
        i += n;
    }
}

int gr_pcie_card::read(bool bar1, uint64_t off, uint8_t *dst, size_t bytes)
{
    Read r;
    r.first = off;
    r.bytes = bytes;
    r.dw_base = off & ~3ull;
    const unsigned dwords = unsigned(((off + bytes + 3) & ~3ull) - r.dw_base) / 4;
    r.data.assign(size_t(dwords) * 4, 0xff);
    const uint8_t fbe = uint8_t((0xfu << (off & 3)) & (dwords == 1 ? 0xfu >> ((4 - ((off + bytes) & 3)) & 3) : 0xfu));
    const uint8_t lbe = dwords == 1 ? 0 : uint8_t(0xfu >> ((4 - ((off + bytes) & 3)) & 3));
    uint8_t tag = next_tag++;
    while (reads.count(tag)) // a tag whose completion never came stays taken
        tag = next_tag++;
    reads[tag] = &r;
    send_cq(off, bar1, false, dwords, fbe, lbe, nullptr, tag);
    last_read = &r;
    // The completion timeout runs from the request's last beat (or, for a card that never takes
    // it from CQ, from its queueing).
    const uint64_t t0 = cycle;
    while (!r.done && cycle - (r.sent_at == UINT64_MAX ? t0 : r.sent_at) < kCplTimeout)
        step();
    if (last_read == &r) {
        last_read = nullptr;
        cq.clear(); // never taken: the request is abandoned
    }
    if (!r.done) {
        reads.erase(tag); // a late completion is an Unexpected Completion, dropped
        counts.cpl_timeouts++;
        r.status = GR_E_TIMEOUT;
    }
    if (r.status != GR_OK) {
        std::memset(dst, 0xff, bytes);
        return r.status;
    }
    std::memcpy(dst, r.data.data() + (off - r.dw_base), bytes);
    return GR_OK;
}

// One MWr on CQ; the last of a call's writes waits until the card has taken them all (the CPU
// posts the others back to back).
void gr_pcie_card::write(bool bar1, uint64_t off, const uint8_t *src, size_t bytes, bool last)
{
    const uint64_t dw_base = off & ~3ull;
    const unsigned dwords = unsigned(((off + bytes + 3) & ~3ull) - dw_base) / 4;
    std::vector<uint32_t> pl(dwords, 0);
    for (size_t i = 0; i < bytes; ++i)
        pl[(off - dw_base + i) / 4] |= uint32_t(src[i]) << (8 * ((off + i) & 3));
    const uint8_t fbe = uint8_t((0xfu << (off & 3)) & (dwords == 1 ? 0xfu >> ((4 - ((off + bytes) & 3)) & 3) : 0xfu));
    const uint8_t lbe = dwords == 1 ? 0 : uint8_t(0xfu >> ((4 - ((off + bytes) & 3)) & 3));
    send_cq(off, bar1, true, dwords, fbe, lbe, pl.data(), 0);
    counts.cq_tlps++;
    if (last) drain_cq();
}

// ---- the C API -----------------------------------------------------------------------------
extern "C" {

int gr_pcie_card_create(uint64_t seed, const gr_sim_host_port_t *port, gr_pcie_card_t **out_card)
{
    if (!port || !port->contains || !port->read || !port->write || !out_card) return GR_E_INVALID;
    try {
        *out_card = new gr_pcie_card(seed ? seed : 1, *port);
    } catch (const std::bad_alloc &) {
        return GR_E_NO_MEMORY;
    }
    return GR_OK;
}

void gr_pcie_card_destroy(gr_pcie_card_t *card) { delete card; }

void gr_pcie_card_run(gr_pcie_card_t *card, uint64_t cycles) { card->run(cycles); }

uint64_t gr_pcie_card_cycle(const gr_pcie_card_t *card) { return card->cycle; }

void gr_pcie_card_config(gr_pcie_card_t *card, bool bus_master, bool msi_enable, bool intx_disable)
{
    card->bus_master = bus_master;
    card->msi_en = msi_enable;
    card->intx_disable = intx_disable;
}

int gr_pcie_card_bar0_read(gr_pcie_card_t *card, uint32_t offset, uint32_t *out_value)
{
    uint8_t b[4];
    card->counts.cq_tlps++;
    const int rc = card->read(false, offset, b, 4);
    std::memcpy(out_value, b, 4);
    return rc;
}

void gr_pcie_card_bar0_write(gr_pcie_card_t *card, uint32_t offset, uint32_t value)
{
    uint8_t b[4];
    std::memcpy(b, &value, 4);
    card->write(false, offset, b, 4, true);
}

int gr_pcie_card_bar1_read(gr_pcie_card_t *card, uint64_t offset, void *dst, size_t bytes)
{
    uint8_t *d = static_cast<uint8_t *>(dst);
    int rc = GR_OK;
    while (bytes) {
        size_t n = kMaxPayload - (offset % kMaxPayload);
        if (n > bytes) n = bytes;
        card->counts.cq_tlps++;
        const int r = card->read(true, offset, d, n);
        if (r && !rc) rc = r;
        offset += n, d += n, bytes -= n;
    }
    return rc;
}

void gr_pcie_card_bar1_write(gr_pcie_card_t *card, uint64_t offset, const void *src, size_t bytes)
{
    const uint8_t *s = static_cast<const uint8_t *>(src);
    while (bytes) {
        size_t n = kMaxPayload - (offset % kMaxPayload);
        if (n > bytes) n = bytes;
        card->write(true, offset, s, n, n == bytes);
        offset += n, s += n, bytes -= n;
    }
}

unsigned gr_pcie_card_take_msis(gr_pcie_card_t *card)
{
    const unsigned n = card->msis_new;
    card->msis_new = 0;
    return n;
}

bool gr_pcie_card_inta(const gr_pcie_card_t *card) { return card->inta; }

bool gr_pcie_card_irq_line(const gr_pcie_card_t *card) { return card->top->irq_o; }

void gr_pcie_card_mute(gr_pcie_card_t *card, bool mute) { card->mute = mute; }

void gr_pcie_card_counts(const gr_pcie_card_t *card, gr_pcie_card_counts_t *out) { *out = card->counts; }

} // extern "C"
