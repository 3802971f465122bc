/* SPDX-License-Identifier: Apache-2.0 */
// axi_mem_model.h: an AXI4 slave (IHI0022 rev E, AXI4) serving a MemBackend; the harness
// puts one on m_host (HostMemory) and one on m_vram (VramMemory).
//
// What it does, per the spec:
//   - FIXED, INCR and WRAP bursts; AxSIZE up to the bus width (narrow transfers); unaligned
//     start addresses on INCR and FIXED; WSTRB byte enables; data on its byte lanes.
//   - W beats may arrive before their AW (up to w_buffer beats are held); W data belongs to
//     the AWs in the order they were accepted (AXI4 has no WID).
//   - write_order picks among the orders IHI0022E A3.3.1 lets a slave impose (a master must
//     cope with each; a master that waits for AWREADY before WVALID hangs on the first two):
//       AwAfterW      AWREADY only once a W beat of that burst is in (W taken before AW);
//       AwAfterWlast  AWREADY only once the burst's last W beat is in;
//       WAfterAw      WREADY only while an accepted AW waits for its data;
//       Any           AW and W taken independently (the default).
//   - up to `depth` writes (AW accepted, B not yet taken) and `depth` reads (AR accepted, last R
//     not yet taken) outstanding. Responses keep the order of their requests per ID; with
//     `reorder`, responses of different IDs may overtake each other (as behind an interconnect).
//     Read bursts are not interleaved.
//   - B comes after the last W beat and its AW; the ID is echoed on B and R; RLAST marks the
//     last beat. Once BVALID/RVALID is high it and its payload hold until the handshake.
//   - Responses: OKAY; DECERR where the backend has no memory (per beat on reads; a write
//     answers DECERR if any beat missed, and the beats that hit are written); SLVERR for a
//     burst the spec forbids (crossing 4 KiB, AxSIZE wider than the bus, reserved AxBURST,
//     WRAP with an unaligned address or a length other than 2/4/8/16, FIXED longer than 16):
//     such a write changes nothing; such a read returns len+1 beats of SLVERR.
//   - Exclusive accesses (AxLOCK) are not supported: they complete as normal accesses with
//     OKAY, which tells an AXI4 master that the exclusive access failed.
//   - Backpressure and latency from a private seeded Prng: AWREADY, WREADY and ARREADY low on
//     stall_pct percent of cycles (each such stall lasting 1..stall_run cycles: long stretches
//     of READY low), gaps of stall_pct between R beats, first R beat and B 1 + 0..max_latency
//     cycles after the request is complete. Same seed, same behaviour.
// It checks the master: AxVALID/WVALID dropped or payload changed before the handshake, WLAST
// on the wrong beat, WSTRB outside the active byte lanes, illegal bursts. Each is counted as
// a violation (and noted in the transaction log); the model carries on.
//
// Timing: drive() sets the slave's outputs for the coming cycle from registered state (the
// inputs of the master are not looked at: no combinational paths). sample() sees the settled
// pins just before the rising edge and acts on every handshake (valid && ready) of that cycle.
#ifndef GPUREF_TB_HARNESS_AXI_MEM_MODEL_H
#define GPUREF_TB_HARNESS_AXI_MEM_MODEL_H

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "axi_pins.h"
#include "mem_backend.h"
#include "prng.h"
#include "txlog.h"

namespace gr {

/** Which channel a slave may make wait for the other (IHI0022E A3.3.1). */
enum class AxiWriteOrder { Any, AwAfterW, AwAfterWlast, WAfterAw };

struct AxiMemConfig {
    std::string port = "mem"; // name in the log and in violation messages
    unsigned data_bytes = 8;  // bus width in bytes: a power of two, 1..kAxiMaxDataBytes
    unsigned addr_bits = 64;  // AxADDR width (addresses are masked to it)
    unsigned depth = 8;       // outstanding writes, and outstanding reads (each >= 1)
    unsigned w_buffer = 256;  // W beats held ahead of their AW (>= 1)
    unsigned stall_pct = 0;   // 0..100
    unsigned max_latency = 0; // extra response cycles, 0..N
    unsigned stall_run = 1;   // a READY stall lasts 1..stall_run cycles (>= 1)
    AxiWriteOrder write_order = AxiWriteOrder::Any;
    bool reorder = false;     // responses of different IDs may overtake each other
    uint64_t seed = 1;
};

class AxiMemModel {
public:
    /** Throws std::invalid_argument for a bad config. mem and log (may be null) outlive it. */
    AxiMemModel(const AxiMemConfig &cfg, MemBackend &mem, TxLog *log);

    /** Sets awready, wready, arready and the B and R channels for cycle `cycle`. */
    void drive(AxiPins &p, uint64_t cycle);

    /** Takes the handshakes of cycle `cycle` (pins settled, before the rising edge). */
    void sample(const AxiPins &p, uint64_t cycle);

    /** Nothing accepted and not yet answered. */
    bool idle() const;

    uint64_t violations() const { return violations_; }
    const std::string &first_violation() const { return first_violation_; }

    const AxiMemConfig &config() const { return cfg_; }

    /** Called once per burst the master completes: a write when its last W beat has been
     *  applied, a read when its last R beat is taken. addr is the first byte, data the burst's
     *  bytes in address order (a write's leading and trailing bytes without a strobe left out,
     *  those inside as 0), ok false if any beat answered an error. INCR bursts only. */
    using BurstObserver = void (*)(void *arg, bool write, uint64_t addr, const uint8_t *data, size_t bytes,
                                   bool ok);
    void set_burst_observer(BurstObserver fn, void *arg) { obs_ = fn, obs_arg_ = arg; }

private:
    struct Burst {
        AxiAddr a;
        uint8_t status = kRespOkay; // SLVERR if the spec forbids the burst
        uint8_t resp = kRespOkay;   // write: worst response so far
        unsigned beat = 0;          // next beat to transfer
        uint64_t due = 0;           // first cycle its response may go out
    };
    struct WBeat {
        uint8_t data[kAxiMaxDataBytes];
        uint64_t strb;
        bool last;
    };
    struct Beat {
        uint64_t addr; // address of the first active byte
        unsigned lo;   // active byte lanes lo..hi
        unsigned hi;
    };

    uint8_t check_burst(const AxiAddr &a, const char *ch, uint64_t cycle);
    Beat beat_of(const AxiAddr &a, unsigned n) const;
    int pick(const std::deque<Burst> &q, uint64_t cycle);
    bool stall() { return cfg_.stall_pct && rng_.percent(cfg_.stall_pct); }
    bool ready_stall(unsigned &run);
    uint64_t latency() { return cfg_.max_latency ? rng_.below(uint64_t(cfg_.max_latency) + 1) : 0; }
    void present_r_beat();
    void consume_w(uint64_t cycle);
    void check_holds(const AxiPins &p, uint64_t cycle);
    void log_addr(uint64_t cycle, const char *ch, const AxiAddr &a);
    void violation(uint64_t cycle, const std::string &what);

    const AxiMemConfig cfg_;
    MemBackend &mem_;
    TxLog *log_;
    Prng rng_;
    const uint64_t addr_mask_;
    const uint64_t lanes_mask_; // WSTRB bits that exist

    // writes
    std::deque<Burst> aw_q_;  // accepted AWs waiting for (more) W beats, in order
    std::deque<WBeat> w_buf_; // accepted W beats not yet matched to an AW
    std::deque<Burst> b_q_;   // complete writes waiting for their B
    bool aw_ready_ = false, w_ready_ = false;
    unsigned aw_run_ = 0, w_run_ = 0, ar_run_ = 0; // cycles left of a READY stall
    bool b_valid_ = false;
    Burst b_cur_;

    // reads
    std::deque<Burst> ar_q_; // accepted ARs not yet started
    bool r_active_ = false;  // r_cur_ is being returned
    Burst r_cur_;
    bool ar_ready_ = false;
    bool r_valid_ = false;
    uint8_t r_data_[kAxiMaxDataBytes] = {};
    uint8_t r_resp_ = kRespOkay;
    bool r_last_ = false;

    // protocol checks on the master: what was waiting for ready in the previous cycle
    bool aw_hold_ = false, w_hold_ = false, ar_hold_ = false;
    AxiAddr aw_held_, ar_held_;
    WBeat w_held_{};

    uint64_t violations_ = 0;
    std::string first_violation_;

    // the burst observer: the bytes of the burst in progress on each direction
    BurstObserver obs_ = nullptr;
    void *obs_arg_ = nullptr;
    std::vector<uint8_t> obs_r_, obs_w_, obs_w_en_;
    bool obs_r_ok_ = true;
    void observe_write(const Burst &b);
};

} // namespace gr

#endif
