/* SPDX-License-Identifier: Apache-2.0 */
// csr_driver.cpp: AXI4-Lite master for BAR0 (contract in csr_driver.h).
#include "csr_driver.h"

#include "axi_pins.h"

namespace gr {

CsrDriver::CsrDriver(const CsrDriverConfig &cfg, TxLog *log) : cfg_(cfg), log_(log), rng_(cfg.seed) {}

void CsrDriver::violation(uint64_t cycle, const std::string &what)
{
    if (violations_++ == 0) first_violation_ = "cycle " + std::to_string(cycle) + ": " + what;
    if (log_) log_->note(cycle, cfg_.port.c_str(), "violation: " + what);
}

void CsrDriver::start_write(uint32_t addr, uint32_t data, uint8_t strb)
{
    op_ = Op::Write;
    addr_ = addr;
    data_ = data;
    strb_ = strb;
    a_wait_ = delay();
    w_wait_ = delay();
    a_done_ = w_done_ = false;
}

void CsrDriver::start_read(uint32_t addr)
{
    op_ = Op::Read;
    addr_ = addr;
    a_wait_ = delay();
    w_wait_ = 0;
    a_done_ = false;
    w_done_ = true;
}

void CsrDriver::drive(AxilPins &p)
{
    // A valid, once up, stays up until its handshake (a_wait_ stays 0 until then).
    a_valid_ = op_ != Op::None && !a_done_ && a_wait_ == 0;
    w_valid_ = op_ == Op::Write && !w_done_ && w_wait_ == 0;
    if (a_wait_) --a_wait_;
    if (w_wait_) --w_wait_;
    // Idle, ready stays high: a stray response is taken (and reported), never left hanging.
    const bool s = stall();
    resp_ready_ = op_ == Op::None || !s;

    p.awvalid = op_ == Op::Write && a_valid_;
    p.awaddr = addr_;
    p.awprot = 0;
    p.wvalid = w_valid_;
    p.wdata = data_;
    p.wstrb = strb_;
    p.bready = resp_ready_;
    p.arvalid = op_ == Op::Read && a_valid_;
    p.araddr = addr_;
    p.arprot = 0;
    p.rready = resp_ready_;
}

void CsrDriver::sample(const AxilPins &p, uint64_t cycle)
{
    const char *port = cfg_.port.c_str();
    const bool log = log_ && log_->enabled();
    // A response may only follow the handshakes of earlier cycles (IHI0022E A3.3.1).
    const bool a_before = a_done_, w_before = w_done_;

    // IHI0022E A3.2.1 for the slave's responses.
    if (b_hold_ && (!p.bvalid || p.bresp != b_held_))
        violation(cycle, "BVALID dropped or BRESP changed before BREADY");
    if (r_hold_ && (!p.rvalid || p.rresp != r_held_resp_ || p.rdata != r_held_data_))
        violation(cycle, "RVALID dropped or R payload changed before RREADY");
    b_hold_ = p.bvalid && !p.bready;
    b_held_ = p.bresp;
    r_hold_ = p.rvalid && !p.rready;
    r_held_resp_ = p.rresp;
    r_held_data_ = p.rdata;

    if (p.awvalid && p.awready) {
        if (log) log_->line(cycle, port, "aw", "addr=0x%04x prot=%u", p.awaddr, p.awprot);
        a_done_ = true;
    }
    if (p.wvalid && p.wready) {
        if (log) log_->line(cycle, port, "w", "data=0x%08x strb=0x%x", p.wdata, p.wstrb);
        w_done_ = true;
    }
    if (p.arvalid && p.arready) {
        if (log) log_->line(cycle, port, "ar", "addr=0x%04x prot=%u", p.araddr, p.arprot);
        a_done_ = true;
    }
    if (p.bvalid && p.bready) {
        if (log) log_->line(cycle, port, "b", "resp=%s", axi_resp_name(p.bresp));
        if (op_ != Op::Write) {
            violation(cycle, "B with no write outstanding");
        } else {
            if (!a_before || !w_before) violation(cycle, "B before both AW and W were taken");
            resp_ = p.bresp;
            op_ = Op::None;
        }
    }
    if (p.rvalid && p.rready) {
        if (log) log_->line(cycle, port, "r", "data=0x%08x resp=%s", p.rdata, axi_resp_name(p.rresp));
        if (op_ != Op::Read) {
            violation(cycle, "R with no read outstanding");
        } else {
            if (!a_before) violation(cycle, "R before AR was taken");
            resp_ = p.rresp;
            rdata_ = p.rdata;
            op_ = Op::None;
        }
    }
}

} // namespace gr
