/* SPDX-License-Identifier: Apache-2.0 */
// axi_mem_model.cpp: AXI4 slave over a MemBackend (contract in axi_mem_model.h).
#include "axi_mem_model.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <stdexcept>

namespace gr {

namespace {

bool is_pow2(unsigned x)
{
    return x && !(x & (x - 1));
}

uint64_t lane_bits(unsigned lo, unsigned hi)
{
    const unsigned n = hi - lo + 1;
    return (n >= 64 ? ~0ull : ((1ull << n) - 1)) << lo;
}

} // namespace

AxiMemModel::AxiMemModel(const AxiMemConfig &cfg, MemBackend &mem, TxLog *log)
    : cfg_(cfg), mem_(mem), log_(log), rng_(cfg.seed),
      addr_mask_(cfg.addr_bits >= 64 ? ~0ull : (1ull << cfg.addr_bits) - 1),
      lanes_mask_(cfg.data_bytes >= 64 ? ~0ull : (1ull << cfg.data_bytes) - 1)
{
    if (!is_pow2(cfg.data_bytes) || cfg.data_bytes > kAxiMaxDataBytes)
        throw std::invalid_argument("AxiMemModel: data_bytes must be a power of two up to 64");
    if (cfg.addr_bits < 12 || cfg.addr_bits > 64)
        throw std::invalid_argument("AxiMemModel: addr_bits must be 12..64");
    if (cfg.depth == 0 || cfg.w_buffer == 0)
        throw std::invalid_argument("AxiMemModel: depth and w_buffer must be at least 1");
    if (cfg.stall_pct > 100) throw std::invalid_argument("AxiMemModel: stall_pct is 0..100");
    if (cfg.stall_run == 0) throw std::invalid_argument("AxiMemModel: stall_run must be at least 1");
}

bool AxiMemModel::idle() const
{
    return aw_q_.empty() && w_buf_.empty() && b_q_.empty() && !b_valid_ && ar_q_.empty() && !r_active_ &&
           !r_valid_;
}

void AxiMemModel::violation(uint64_t cycle, const std::string &what)
{
    if (violations_++ == 0) first_violation_ = "cycle " + std::to_string(cycle) + ": " + what;
    if (log_) log_->note(cycle, cfg_.port.c_str(), "violation: " + what);
}

// IHI0022E A3.4.1: the legal bursts. Returns the status the whole burst will be answered with.
uint8_t AxiMemModel::check_burst(const AxiAddr &a, const char *ch, uint64_t cycle)
{
    const uint64_t nb = 1ull << a.size;
    const char *why = nullptr;
    if (nb > cfg_.data_bytes) {
        why = "AxSIZE wider than the data bus";
    } else if (a.burst == 3) {
        why = "reserved AxBURST value 3";
    } else if (a.burst == kBurstWrap && a.len != 1 && a.len != 3 && a.len != 7 && a.len != 15) {
        why = "WRAP burst length not 2, 4, 8 or 16";
    } else if (a.burst == kBurstWrap && (a.addr & (nb - 1))) {
        why = "WRAP burst start address not aligned to AxSIZE";
    } else if (a.burst == kBurstFixed && a.len > 15) {
        why = "FIXED burst longer than 16 beats";
    } else if (a.burst == kBurstIncr) {
        const uint64_t aligned = a.addr & ~(nb - 1);
        const uint64_t last = aligned + (uint64_t(a.len) + 1) * nb - 1;
        if (last < a.addr || last > addr_mask_ || (a.addr >> 12) != (last >> 12))
            why = "burst crosses a 4 KiB boundary";
    }
    if (!why) return kRespOkay;
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "%s id=0x%x addr=0x%" PRIx64 " len=%u size=%u burst=%s: %s (answered SLVERR)", ch, a.id,
                  a.addr, a.len, a.size, axi_burst_name(a.burst), why);
    violation(cycle, buf);
    return kRespSlvErr;
}

// IHI0022E A3.4.1 / A3.4.2: the address and the active byte lanes of beat n (from 0) of a legal
// burst.
AxiMemModel::Beat AxiMemModel::beat_of(const AxiAddr &a, unsigned n) const
{
    const uint64_t nb = 1ull << a.size;
    const uint64_t aligned = a.addr & ~(nb - 1);
    uint64_t addr;
    switch (a.burst) {
    case kBurstFixed: addr = a.addr; break;
    case kBurstWrap: {
        const uint64_t total = nb * (uint64_t(a.len) + 1);
        const uint64_t boundary = a.addr & ~(total - 1);
        addr = boundary + ((a.addr - boundary) + uint64_t(n) * nb) % total;
        break;
    }
    default: // INCR
        addr = n == 0 ? a.addr : aligned + uint64_t(n) * nb;
        break;
    }
    addr &= addr_mask_;
    Beat b;
    b.addr = addr;
    b.lo = unsigned(addr % cfg_.data_bytes);
    b.hi = unsigned((addr & ~(nb - 1)) % cfg_.data_bytes + nb - 1);
    return b;
}

// Which queued response goes next: the oldest if it is due; with reorder, any ID's oldest
// entry that is due (per-ID order is kept: a younger entry never passes an older of its ID).
int AxiMemModel::pick(const std::deque<Burst> &q, uint64_t cycle)
{
    if (q.empty()) return -1;
    if (!cfg_.reorder) return q.front().due <= cycle ? 0 : -1;
    int cand[64];
    unsigned n = 0;
    for (size_t i = 0; i < q.size() && n < 64; ++i) {
        bool older_same_id = false;
        for (size_t j = 0; j < i && !older_same_id; ++j)
            older_same_id = q[j].a.id == q[i].a.id;
        if (!older_same_id && q[i].due <= cycle) cand[n++] = int(i);
    }
    if (n == 0) return -1;
    return cand[rng_.below(n)];
}

// A READY stall: drawn on stall_pct of the cycles outside a stall, it lasts 1..stall_run
// cycles. With stall_run 1 this is one draw per cycle, as stall().
bool AxiMemModel::ready_stall(unsigned &run)
{
    if (run) {
        --run;
        return true;
    }
    if (!stall()) return false;
    if (cfg_.stall_run > 1) run = unsigned(rng_.below(cfg_.stall_run));
    return true;
}

void AxiMemModel::present_r_beat()
{
    const Beat bt = beat_of(r_cur_.a, r_cur_.beat);
    std::memset(r_data_, 0, sizeof r_data_);
    r_resp_ = r_cur_.status;
    if (r_resp_ == kRespOkay) {
        const unsigned n = bt.hi - bt.lo + 1;
        if (mem_.contains(bt.addr, n))
            mem_.read(bt.addr, r_data_ + bt.lo, n);
        else
            r_resp_ = kRespDecErr;
    }
    r_last_ = r_cur_.beat == r_cur_.a.len;
    r_valid_ = true;
}

void AxiMemModel::drive(AxiPins &p, uint64_t cycle)
{
    const size_t writes = aw_q_.size() + b_q_.size() + (b_valid_ ? 1 : 0);
    const size_t reads = ar_q_.size() + (r_active_ ? 1 : 0);
    // One draw per ready per cycle (outside a long stall), whatever the state, so the random
    // stream does not depend on how full the queues happen to be.
    const bool aw_stall = ready_stall(aw_run_), w_stall = ready_stall(w_run_), ar_stall = ready_stall(ar_run_);
    // The write order: after consume_w, beats wait in w_buf_ only while no AW waits for data,
    // so they belong to the next AW.
    bool aw_order = true, w_order = true;
    switch (cfg_.write_order) {
    case AxiWriteOrder::AwAfterW: aw_order = !w_buf_.empty(); break;
    case AxiWriteOrder::AwAfterWlast:
        aw_order = w_buf_.size() >= cfg_.w_buffer ||
                   std::any_of(w_buf_.begin(), w_buf_.end(), [](const WBeat &w) { return w.last; });
        break;
    case AxiWriteOrder::WAfterAw: w_order = !aw_q_.empty(); break;
    case AxiWriteOrder::Any: break;
    }
    aw_ready_ = writes < cfg_.depth && !aw_stall && aw_order;
    w_ready_ = w_buf_.size() < cfg_.w_buffer && !w_stall && w_order;
    ar_ready_ = reads < cfg_.depth && !ar_stall;

    if (!b_valid_) {
        const int i = pick(b_q_, cycle);
        if (i >= 0) {
            b_cur_ = b_q_[size_t(i)];
            b_q_.erase(b_q_.begin() + i);
            b_valid_ = true;
        }
    }

    if (!r_valid_) {
        bool go = false;
        if (!r_active_) {
            const int i = pick(ar_q_, cycle);
            if (i >= 0) {
                r_cur_ = ar_q_[size_t(i)];
                ar_q_.erase(ar_q_.begin() + i);
                r_active_ = true;
                go = true; // its latency has passed already
            }
        } else {
            go = !stall(); // a gap between two beats of one burst
        }
        if (go) present_r_beat();
    }

    p.awready = aw_ready_;
    p.wready = w_ready_;
    p.arready = ar_ready_;
    p.bvalid = b_valid_;
    p.bid = b_cur_.a.id;
    p.bresp = b_cur_.resp;
    p.rvalid = r_valid_;
    p.rid = r_cur_.a.id;
    std::memcpy(p.rdata, r_data_, cfg_.data_bytes);
    p.rresp = r_resp_;
    p.rlast = r_last_;
}

void AxiMemModel::check_holds(const AxiPins &p, uint64_t cycle)
{
    // IHI0022E A3.2.1: once VALID is asserted it stays asserted, with its information stable,
    // until the handshake.
    if (aw_hold_) {
        if (!p.awvalid)
            violation(cycle, "AWVALID dropped before AWREADY");
        else if (p.aw != aw_held_)
            violation(cycle, "AW payload changed while AWVALID waited for AWREADY");
    }
    if (w_hold_) {
        if (!p.wvalid)
            violation(cycle, "WVALID dropped before WREADY");
        else if (std::memcmp(p.wdata, w_held_.data, cfg_.data_bytes) || p.wstrb != w_held_.strb ||
                 p.wlast != w_held_.last)
            violation(cycle, "W payload changed while WVALID waited for WREADY");
    }
    if (ar_hold_) {
        if (!p.arvalid)
            violation(cycle, "ARVALID dropped before ARREADY");
        else if (p.ar != ar_held_)
            violation(cycle, "AR payload changed while ARVALID waited for ARREADY");
    }
    aw_hold_ = p.awvalid && !aw_ready_;
    aw_held_ = p.aw;
    w_hold_ = p.wvalid && !w_ready_;
    std::memcpy(w_held_.data, p.wdata, cfg_.data_bytes);
    w_held_.strb = p.wstrb;
    w_held_.last = p.wlast;
    ar_hold_ = p.arvalid && !ar_ready_;
    ar_held_ = p.ar;
}

void AxiMemModel::log_addr(uint64_t cycle, const char *ch, const AxiAddr &a)
{
    if (!log_ || !log_->enabled()) return;
    log_->line(cycle, cfg_.port.c_str(), ch,
               "id=0x%x addr=0x%0*" PRIx64 " len=%u size=%u burst=%s lock=%u cache=0x%x prot=%u", a.id,
               int((cfg_.addr_bits + 3) / 4), a.addr, a.len, a.size, axi_burst_name(a.burst), a.lock, a.cache,
               a.prot);
}

void AxiMemModel::sample(const AxiPins &p, uint64_t cycle)
{
    check_holds(p, cycle);
    const bool log = log_ && log_->enabled();

    if (p.awvalid && aw_ready_) {
        Burst b;
        b.a = p.aw;
        b.a.addr &= addr_mask_;
        log_addr(cycle, "aw", b.a);
        b.status = check_burst(b.a, "AW", cycle);
        b.resp = b.status;
        aw_q_.push_back(b);
    }
    if (p.wvalid && w_ready_) {
        WBeat w;
        std::memcpy(w.data, p.wdata, cfg_.data_bytes);
        w.strb = p.wstrb & lanes_mask_;
        w.last = p.wlast;
        if (log)
            log_->line(cycle, cfg_.port.c_str(), "w", "data=%s strb=0x%0*" PRIx64 " last=%d",
                       TxLog::hex(w.data, cfg_.data_bytes).c_str(), int((cfg_.data_bytes + 3) / 4), w.strb,
                       int(w.last));
        w_buf_.push_back(w);
    }
    if (p.arvalid && ar_ready_) {
        Burst b;
        b.a = p.ar;
        b.a.addr &= addr_mask_;
        log_addr(cycle, "ar", b.a);
        b.status = check_burst(b.a, "AR", cycle);
        b.due = cycle + 1 + latency();
        ar_q_.push_back(b);
    }
    if (b_valid_ && p.bready) {
        if (log)
            log_->line(cycle, cfg_.port.c_str(), "b", "id=0x%x resp=%s", b_cur_.a.id,
                       axi_resp_name(b_cur_.resp));
        b_valid_ = false;
    }
    if (r_valid_ && p.rready) {
        if (log)
            log_->line(cycle, cfg_.port.c_str(), "r", "id=0x%x data=%s resp=%s last=%d", r_cur_.a.id,
                       TxLog::hex(r_data_, cfg_.data_bytes).c_str(), axi_resp_name(r_resp_), int(r_last_));
        if (obs_) {
            const Beat bt = beat_of(r_cur_.a, r_cur_.beat);
            obs_r_.insert(obs_r_.end(), r_data_ + bt.lo, r_data_ + bt.hi + 1);
            obs_r_ok_ = obs_r_ok_ && r_resp_ == kRespOkay;
            if (r_last_) {
                obs_(obs_arg_, false, r_cur_.a.addr, obs_r_.data(), obs_r_.size(), obs_r_ok_);
                obs_r_.clear();
                obs_r_ok_ = true;
            }
        }
        r_valid_ = false;
        if (r_last_)
            r_active_ = false;
        else
            ++r_cur_.beat;
    }
    consume_w(cycle);
}

// Pairs W beats with AWs in order and applies them. A write is complete (its B queued) when
// its last beat is in.
void AxiMemModel::consume_w(uint64_t cycle)
{
    while (!aw_q_.empty() && !w_buf_.empty()) {
        Burst &b = aw_q_.front();
        const WBeat &w = w_buf_.front();
        const bool last = b.beat == b.a.len;
        if (w.last != last)
            violation(cycle, last ? "WLAST low on the last beat of a burst"
                                  : "WLAST high before the last beat of a burst");
        if (obs_) {
            const Beat bt = beat_of(b.a, b.beat);
            for (unsigned i = bt.lo; i <= bt.hi; ++i) {
                const bool en = w.strb >> i & 1;
                obs_w_.push_back(en ? w.data[i] : 0);
                obs_w_en_.push_back(en);
            }
        }
        if (b.status == kRespOkay) {
            const Beat bt = beat_of(b.a, b.beat);
            const uint64_t lanes = lane_bits(bt.lo, bt.hi);
            if (w.strb & ~lanes) violation(cycle, "WSTRB set outside the active byte lanes of the beat");
            if (!mem_.contains(bt.addr, bt.hi - bt.lo + 1)) {
                b.resp = kRespDecErr;
            } else {
                const uint64_t strb = w.strb & lanes;
                const uint64_t lane0 = bt.addr - bt.lo; // address of byte lane 0 in this beat
                unsigned i = bt.lo;
                while (i <= bt.hi) { // one backend write per run of enabled bytes
                    if (!(strb >> i & 1)) {
                        ++i;
                        continue;
                    }
                    unsigned j = i;
                    while (j + 1 <= bt.hi && (strb >> (j + 1) & 1))
                        ++j;
                    mem_.write(lane0 + i, w.data + i, j - i + 1);
                    i = j + 1;
                }
            }
        }
        ++b.beat;
        w_buf_.pop_front();
        if (last) {
            b.due = cycle + 1 + latency();
            if (obs_) observe_write(b);
            b_q_.push_back(b);
            aw_q_.pop_front();
        }
    }
}

void AxiMemModel::observe_write(const Burst &b)
{
    size_t lead = 0, end = obs_w_.size();
    while (lead < end && !obs_w_en_[lead])
        ++lead;
    while (end > lead && !obs_w_en_[end - 1])
        --end;
    obs_(obs_arg_, true, (b.a.addr & addr_mask_) + lead, obs_w_.data() + lead, end - lead,
         b.status == kRespOkay && b.resp == kRespOkay);
    obs_w_.clear();
    obs_w_en_.clear();
}

} // namespace gr
