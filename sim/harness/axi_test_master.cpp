/* SPDX-License-Identifier: Apache-2.0 */
// axi_test_master.cpp: pin-level AXI4 test master (see axi_test_master.h).
#include "axi_test_master.h"

#include <cstring>

namespace gr {

size_t AxiTestMaster::add(const MasterTxn &t)
{
    txns_.push_back(t);
    const size_t idx = txns_.size() - 1;
    (t.write ? writes_ : reads_).push_back(idx);
    return idx;
}

bool AxiTestMaster::all_done() const
{
    return done_count_ == txns_.size();
}

void AxiTestMaster::error(uint64_t cycle, const std::string &what)
{
    errors_.push_back("cycle " + std::to_string(cycle) + ": " + what);
}

void AxiTestMaster::note(uint64_t cycle, unsigned channel, uint32_t id)
{
    for (uint64_t v : {cycle, uint64_t(channel), uint64_t(id)}) {
        hash_ ^= v;
        hash_ *= 0x100000001b3ull;
    }
}

// A response overtook: an older transaction of the same direction and another ID, already
// accepted by the slave, is still waiting.
void AxiTestMaster::count_reorder(const std::vector<size_t> &order, size_t &oldest, size_t idx)
{
    // Transactions before `oldest` are done: none of them can be waiting.
    while (oldest < order.size() && txns_[order[oldest]].done)
        ++oldest;
    for (size_t k = oldest; k < order.size(); ++k) {
        const size_t i = order[k];
        if (i == idx) return;
        const MasterTxn &o = txns_[i];
        if (o.addr_done && !o.done && o.a.id != txns_[idx].a.id) {
            ++reorders_;
            return;
        }
    }
}

void AxiTestMaster::drive(AxiPins &p)
{
    // AW: in order; a VALID once up stays up with its payload until the handshake.
    if (!aw_valid_ && aw_next_ < writes_.size() && writes_in_flight_ < cfg_.max_outstanding) {
        const MasterTxn &t = txns_[writes_[aw_next_]];
        const bool w_first_ok = t.order != MasterTxn::Order::WFirst || t.w_beats_done == t.a.len + 1u;
        if (w_first_ok && !gap()) {
            aw_valid_ = true;
            p.aw = t.a;
        }
    }
    p.awvalid = aw_valid_;

    // W: the beats of the writes in AW order.
    if (!w_valid_ && w_next_ < writes_.size()) {
        const MasterTxn &t = txns_[writes_[w_next_]];
        const bool aw_first_ok = t.order != MasterTxn::Order::AwFirst || t.addr_done;
        if (aw_first_ok && !gap()) {
            w_valid_ = true;
            std::memcpy(p.wdata, t.wdata[w_beat_].data(), cfg_.data_bytes);
            p.wstrb = t.wstrb[w_beat_];
            p.wlast = t.wlast.empty() ? w_beat_ == t.a.len : bool(t.wlast[w_beat_]);
        }
    }
    p.wvalid = w_valid_;

    if (!ar_valid_ && ar_next_ < reads_.size() && reads_in_flight_ < cfg_.max_outstanding && !gap()) {
        ar_valid_ = true;
        p.ar = txns_[reads_[ar_next_]].a;
    }
    p.arvalid = ar_valid_;

    p.bready = !hold_b_ && !stall();
    p.rready = !hold_r_ && !stall();
}

void AxiTestMaster::sample(const AxiPins &p, uint64_t cycle)
{
    // IHI0022E A3.2.1 on the slave's side.
    if (b_hold_ && (!p.bvalid || p.bid != b_held_id_ || p.bresp != b_held_resp_))
        error(cycle, "BVALID dropped or B payload changed before BREADY");
    if (r_hold_ && (!p.rvalid || p.rid != r_held_id_ || p.rresp != r_held_resp_ || p.rlast != r_held_last_ ||
                    std::memcmp(p.rdata, r_held_data_.data(), cfg_.data_bytes)))
        error(cycle, "RVALID dropped or R payload changed before RREADY");
    b_hold_ = p.bvalid && !p.bready;
    b_held_id_ = p.bid;
    b_held_resp_ = p.bresp;
    r_hold_ = p.rvalid && !p.rready;
    r_held_id_ = p.rid;
    r_held_resp_ = p.rresp;
    r_held_last_ = p.rlast;
    std::memcpy(r_held_data_.data(), p.rdata, cfg_.data_bytes);

    // Responses first: they may only answer handshakes of earlier cycles.
    if (p.bvalid && p.bready) {
        note(cycle, 3, p.bid);
        auto &q = b_wait_[p.bid];
        if (q.empty()) {
            error(cycle, "B with ID " + std::to_string(p.bid) + " and no write outstanding");
        } else {
            const size_t idx = q.front();
            MasterTxn &t = txns_[idx];
            if (t.w_beats_done != t.a.len + 1u) error(cycle, "B before the last W beat of its write");
            count_reorder(writes_, w_oldest_, idx);
            q.pop_front();
            t.bresp = p.bresp;
            t.resp_cycle = cycle;
            t.done = true;
            ++done_count_;
            --writes_in_flight_;
        }
    }
    if (p.rvalid && p.rready) {
        note(cycle, 5, p.rid);
        auto &q = r_wait_[p.rid];
        if (q.empty()) {
            error(cycle, "R with ID " + std::to_string(p.rid) + " and no read outstanding");
        } else {
            const size_t idx = q.front();
            MasterTxn &t = txns_[idx];
            if (t.rdata.empty()) count_reorder(reads_, r_oldest_, idx);
            Lanes d{};
            std::memcpy(d.data(), p.rdata, cfg_.data_bytes);
            t.rdata.push_back(d);
            t.rresp.push_back(p.rresp);
            const bool last = t.rdata.size() == t.a.len + 1u;
            if (p.rlast != last)
                error(cycle, last ? "RLAST low on the last beat" : "RLAST high before the last beat");
            if (last) {
                q.pop_front();
                t.resp_cycle = cycle;
                t.done = true;
                ++done_count_;
                --reads_in_flight_;
            }
        }
    }

    if (p.awvalid && p.awready) {
        note(cycle, 1, p.aw.id);
        const size_t idx = writes_[aw_next_++];
        MasterTxn &t = txns_[idx];
        t.addr_done = true;
        t.addr_cycle = cycle;
        b_wait_[t.a.id].push_back(idx);
        ++writes_in_flight_;
        ++aw_count_;
        aw_valid_ = false;
    }
    if (p.wvalid && p.wready) {
        note(cycle, 2, 0);
        MasterTxn &t = txns_[writes_[w_next_]];
        if (w_beat_ == 0) t.w_first_cycle = cycle;
        ++t.w_beats_done;
        if (++w_beat_ == t.a.len + 1u) {
            t.w_last_cycle = cycle;
            w_beat_ = 0;
            ++w_next_;
        }
        w_valid_ = false;
    }
    if (p.arvalid && p.arready) {
        note(cycle, 4, p.ar.id);
        const size_t idx = reads_[ar_next_++];
        MasterTxn &t = txns_[idx];
        t.addr_done = true;
        t.addr_cycle = cycle;
        r_wait_[t.a.id].push_back(idx);
        ++reads_in_flight_;
        ++ar_count_;
        ar_valid_ = false;
    }
}

} // namespace gr
