/* SPDX-License-Identifier: Apache-2.0 */
// axi_pins.h: the signals of one AXI4 port as plain values, between a Verilated model and the
// C++ models. The harness copies the Verilated ports in and out of an AxiPins each cycle; the
// unit tests in tb/unit/harness_models drive one directly. Data buses are little-endian byte
// arrays (lane i = byte i), so one struct serves every bus width up to kAxiMaxDataBytes.
#ifndef GPUREF_TB_HARNESS_AXI_PINS_H
#define GPUREF_TB_HARNESS_AXI_PINS_H

#include <cstdint>

namespace gr {

constexpr unsigned kAxiMaxDataBytes = 64; // 512-bit bus; WSTRB fits a uint64_t

// xRESP encodings (IHI0022 A3.4.4)
constexpr uint8_t kRespOkay = 0;
constexpr uint8_t kRespExOkay = 1;
constexpr uint8_t kRespSlvErr = 2;
constexpr uint8_t kRespDecErr = 3;

// AxBURST encodings (IHI0022 A3.4.1); 3 is reserved
constexpr uint8_t kBurstFixed = 0;
constexpr uint8_t kBurstIncr = 1;
constexpr uint8_t kBurstWrap = 2;

/** One AW or AR request. */
struct AxiAddr {
    uint32_t id = 0;
    uint64_t addr = 0;
    uint8_t len = 0;  // beats - 1
    uint8_t size = 0; // log2(bytes per beat)
    uint8_t burst = kBurstIncr;
    uint8_t lock = 0;
    uint8_t cache = 0;
    uint8_t prot = 0;

    bool operator==(const AxiAddr &o) const
    {
        return id == o.id && addr == o.addr && len == o.len && size == o.size && burst == o.burst &&
               lock == o.lock && cache == o.cache && prot == o.prot;
    }
    bool operator!=(const AxiAddr &o) const { return !(*this == o); }
};

/** Every signal of one AXI4 port. Comments say who drives it. */
struct AxiPins {
    // AW
    bool awvalid = false; // master
    AxiAddr aw;           // master
    bool awready = false; // slave
    // W
    bool wvalid = false; // master
    uint8_t wdata[kAxiMaxDataBytes] = {};
    uint64_t wstrb = 0;
    bool wlast = false;
    bool wready = false; // slave
    // B
    bool bvalid = false; // slave
    uint32_t bid = 0;
    uint8_t bresp = 0;
    bool bready = false; // master
    // AR
    bool arvalid = false; // master
    AxiAddr ar;           // master
    bool arready = false; // slave
    // R
    bool rvalid = false; // slave
    uint32_t rid = 0;
    uint8_t rdata[kAxiMaxDataBytes] = {};
    uint8_t rresp = 0;
    bool rlast = false;
    bool rready = false; // master
};

inline const char *axi_resp_name(uint8_t resp)
{
    switch (resp & 3) {
    case kRespOkay: return "OKAY";
    case kRespExOkay: return "EXOKAY";
    case kRespSlvErr: return "SLVERR";
    default: return "DECERR";
    }
}

inline const char *axi_burst_name(uint8_t burst)
{
    switch (burst & 3) {
    case kBurstFixed: return "FIXED";
    case kBurstIncr: return "INCR";
    case kBurstWrap: return "WRAP";
    default: return "RESERVED";
    }
}

} // namespace gr

#endif
