/* SPDX-License-Identifier: Apache-2.0 */
// csr_driver.h: the host's side of BAR0: an AXI4-Lite master on gpu_core's s_csr port.
// One access at a time. With randomness on, AWVALID and WVALID each rise after a random
// 0..max_delay cycles (so either may lead), ARVALID likewise, and BREADY/RREADY are low on
// stall_pct percent of cycles; all from a private Prng, so a seed replays exactly.
// It checks the slave: a response with no access waiting for it, a B before both AW and W
// were taken, BVALID/RVALID dropped or their payload changed before the handshake. Each is
// counted as a violation; the driver carries on.
// Timing: as AxiMemModel (drive() from registered state, sample() at the rising edge).
#ifndef GPUREF_TB_HARNESS_CSR_DRIVER_H
#define GPUREF_TB_HARNESS_CSR_DRIVER_H

#include <cstdint>
#include <string>

#include "prng.h"
#include "txlog.h"

namespace gr {

/** Every signal of an AXI4-Lite port with 32-bit data. */
struct AxilPins {
    uint32_t awaddr = 0;
    uint8_t awprot = 0;
    bool awvalid = false, awready = false;
    uint32_t wdata = 0;
    uint8_t wstrb = 0;
    bool wvalid = false, wready = false;
    uint8_t bresp = 0;
    bool bvalid = false, bready = false;
    uint32_t araddr = 0;
    uint8_t arprot = 0;
    bool arvalid = false, arready = false;
    uint32_t rdata = 0;
    uint8_t rresp = 0;
    bool rvalid = false, rready = false;
};

struct CsrDriverConfig {
    std::string port = "csr";
    unsigned stall_pct = 0; // 0..100: BREADY/RREADY low
    unsigned max_delay = 0; // AxVALID/WVALID rise 0..max_delay cycles after the access starts
    uint64_t seed = 1;
};

class CsrDriver {
public:
    CsrDriver(const CsrDriverConfig &cfg, TxLog *log);

    /** Starts an access; only when !busy(). */
    void start_write(uint32_t addr, uint32_t data, uint8_t strb);
    void start_read(uint32_t addr);

    /** An access started and its response not yet taken. */
    bool busy() const { return op_ != Op::None; }

    /** Of the last completed access: BRESP/RRESP, and RDATA for a read. */
    uint8_t resp() const { return resp_; }
    uint32_t rdata() const { return rdata_; }

    void drive(AxilPins &p);
    void sample(const AxilPins &p, uint64_t cycle);

    uint64_t violations() const { return violations_; }
    const std::string &first_violation() const { return first_violation_; }

private:
    enum class Op { None, Read, Write };

    void violation(uint64_t cycle, const std::string &what);
    unsigned delay() { return cfg_.max_delay ? unsigned(rng_.below(cfg_.max_delay + 1)) : 0; }
    bool stall() { return cfg_.stall_pct && rng_.percent(cfg_.stall_pct); }

    const CsrDriverConfig cfg_;
    TxLog *log_;
    Prng rng_;

    Op op_ = Op::None;
    uint32_t addr_ = 0, data_ = 0;
    uint8_t strb_ = 0;
    unsigned a_wait_ = 0, w_wait_ = 0; // cycles left before AxVALID / WVALID rise
    bool a_done_ = false, w_done_ = false;
    bool a_valid_ = false, w_valid_ = false, resp_ready_ = true;

    uint8_t resp_ = 0;
    uint32_t rdata_ = 0;

    // the slave's responses waiting for ready in the previous cycle
    bool b_hold_ = false, r_hold_ = false;
    uint8_t b_held_ = 0, r_held_resp_ = 0;
    uint32_t r_held_data_ = 0;

    uint64_t violations_ = 0;
    std::string first_violation_;
};

} // namespace gr

#endif
