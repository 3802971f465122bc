/* SPDX-License-Identifier: Apache-2.0 */
// axi_test_master.h: a small AXI4 master for testing AXI slaves at the pin level (AxiPins),
// used by the tests of the harness's AxiMemModel and, in the harness, as the CPU on BAR1.
// It issues queued transactions in order per channel (AW, W, AR), with random gaps before each
// VALID and random BREADY/RREADY stalls, never more than max_outstanding per direction. Per
// transaction, W may lead AW (WFirst), follow it (AwFirst) or run independently (Any).
// WFirst holds AWVALID until every W beat of that write is taken: stronger than AXI asks of a
// slave (IHI0022E A3.3.1 lets a slave wait for AWVALID before WREADY, and forbids a master to
// wait for WREADY before AWVALID), used here because AxiMemModel promises to take W first.
// It checks the slave as it goes and records every finding in errors():
//   - a B or R whose ID has nothing outstanding, a B before its AW and last W, R beats past
//     the burst's length, RLAST on the wrong beat;
//   - BVALID/RVALID dropped, or their payload changed, before the handshake.
// Responses are matched per ID in order (as AXI requires); reorders() counts responses that
// overtook an older transaction of another ID.
#ifndef GPUREF_TB_HARNESS_AXI_TEST_MASTER_H
#define GPUREF_TB_HARNESS_AXI_TEST_MASTER_H

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "axi_pins.h"
#include "prng.h"

namespace gr {

using Lanes = std::array<uint8_t, kAxiMaxDataBytes>;

struct MasterTxn {
    enum class Order { Any, WFirst, AwFirst };

    bool write = false;
    AxiAddr a;
    std::vector<Lanes> wdata;    // write: one entry per beat, the whole bus
    std::vector<uint64_t> wstrb; // write: one entry per beat
    std::vector<bool> wlast;     // write: per beat; empty means "on the last beat" (as AXI wants)
    Order order = Order::Any;

    // results
    bool addr_done = false;
    bool done = false;
    uint8_t bresp = 0xff;
    std::vector<uint8_t> rresp; // per beat
    std::vector<Lanes> rdata;   // per beat
    uint64_t addr_cycle = 0;    // AW/AR handshake
    uint64_t w_first_cycle = 0, w_last_cycle = 0;
    unsigned w_beats_done = 0;
    uint64_t resp_cycle = 0; // B, or the last R beat
};

class AxiTestMaster {
public:
    struct Config {
        unsigned data_bytes = 8;
        unsigned valid_gap_pct = 0;    // chance per cycle that a waiting VALID does not rise yet
        unsigned ready_stall_pct = 0;  // chance per cycle that BREADY/RREADY are low
        unsigned max_outstanding = 64; // per direction
        uint64_t seed = 1;
    };

    explicit AxiTestMaster(const Config &cfg) : cfg_(cfg), rng_(cfg.seed) {}

    /** Queues a transaction; returns its index in txns(). */
    size_t add(const MasterTxn &t);

    /** Holds BREADY / RREADY low while true (to fill the slave's queues). */
    void hold_bready(bool on) { hold_b_ = on; }
    void hold_rready(bool on) { hold_r_ = on; }

    void drive(AxiPins &p);
    void sample(const AxiPins &p, uint64_t cycle);

    bool all_done() const;
    const std::vector<MasterTxn> &txns() const { return txns_; }
    const std::vector<std::string> &errors() const { return errors_; }
    uint64_t reorders() const { return reorders_; }
    uint64_t handshake_hash() const { return hash_; }
    unsigned aw_handshakes() const { return aw_count_; }
    unsigned ar_handshakes() const { return ar_count_; }

private:
    bool gap() { return cfg_.valid_gap_pct && rng_.percent(cfg_.valid_gap_pct); }
    bool stall() { return cfg_.ready_stall_pct && rng_.percent(cfg_.ready_stall_pct); }
    void error(uint64_t cycle, const std::string &what);
    void note(uint64_t cycle, unsigned channel, uint32_t id);
    void count_reorder(const std::vector<size_t> &order, size_t &oldest, size_t idx);

    Config cfg_;
    Prng rng_;
    std::vector<MasterTxn> txns_;
    std::vector<size_t> writes_, reads_; // indices into txns_, in issue order
    // Linear in the number of transactions (a BAR1 stream queues thousands): how many are done,
    // and per direction the first that may not be.
    size_t done_count_ = 0, w_oldest_ = 0, r_oldest_ = 0;
    size_t aw_next_ = 0, w_next_ = 0, ar_next_ = 0;
    unsigned w_beat_ = 0;
    unsigned writes_in_flight_ = 0, reads_in_flight_ = 0;
    bool aw_valid_ = false, w_valid_ = false, ar_valid_ = false;
    bool hold_b_ = false, hold_r_ = false;
    std::map<uint32_t, std::deque<size_t>> b_wait_, r_wait_; // per ID, oldest first

    bool b_hold_ = false, r_hold_ = false; // slave response waiting in the previous cycle
    uint32_t b_held_id_ = 0, r_held_id_ = 0;
    uint8_t b_held_resp_ = 0, r_held_resp_ = 0;
    bool r_held_last_ = false;
    Lanes r_held_data_{};

    std::vector<std::string> errors_;
    uint64_t reorders_ = 0;
    uint64_t hash_ = 0xcbf29ce484222325ull;
    unsigned aw_count_ = 0, ar_count_ = 0;
};

} // namespace gr

#endif
