/* SPDX-License-Identifier: Apache-2.0 */
// board_impl.h: the simulated board inside gr_board_t. Board is what the C API (board_api.cpp)
// sees; BoardImpl<V> runs one Verilated board wrapper (board.v with -GKind=N, one model class
// per kind) with its two clocks, the VRAM model on m_vram and the host side of the link chip.
//
// Every kind has the same ports (board.v says how they reach fpga_core, the PHY and the chip
// model), so one template serves every kind:
//   clk_i, chip_clk_i, rst_i
//   host_out_valid_i, host_out_data_i[31:0], host_out_keep_i[3:0], host_out_last_i (the last
//   word of one gr_board_write: a USB transfer ends there), host_out_ready_o
//   host_in_valid_o, host_in_data_o[31:0], host_in_keep_o[3:0], host_in_last_o, host_in_ready_i
//   m_vram_* as gpu_core's (AXI4 master, 64-bit data, 32-bit address)
// Byte lanes: lane i is data[8i+7:8i], valid where keep[i]; the host side keeps lanes in order.
//
// One edge at a time (the scheduler): the next edge of either clock is taken; at a falling
// edge the models of that clock domain drive their inputs (registered outputs, as sim_core
// does), at a rising edge they first sample the settled pins (every valid && ready is a
// handshake), then the clock rises. Coinciding edges are applied together, then one eval.
#ifndef GPUREF_TB_HARNESS_BOARD_IMPL_H
#define GPUREF_TB_HARNESS_BOARD_IMPL_H

#include <verilated.h>
#include <verilated_fst_c.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "axi_mem_model.h"
#include "axi_pins.h"
#include "gr_board.h"
#include "prng.h"
#include "txlog.h"
#include "vram_memory.h"
#include "vram_port.h"

namespace gr {

/** Settings after defaults (board_api.cpp resolves them). */
struct BoardSettings {
    gr_board_kind_t kind = GR_BOARD_STREAM;
    uint64_t seed = 1;
    uint64_t vram_bytes = 512ull << 20;
    uint32_t baud = 3000000;
    bool no_random = false;
    bool ft600 = false; // the FT601's FIFO mode is FT600 (ft601: the model and the PHY's strap)
    std::string fst_path;
};

/** One USB IN packet (or, on stream and uart, nothing: their bytes go to a plain queue). */
struct BoardPacket {
    std::vector<uint8_t> bytes;
    size_t off = 0; // bytes already taken by reads
};

class Board {
public:
    explicit Board(const BoardSettings &s) : set(s), vram_mem(s.vram_bytes) {}
    virtual ~Board() = default;
    Board(const Board &) = delete;
    Board &operator=(const Board &) = delete;

    virtual void open_trace() = 0;
    virtual void set_tracing(bool on) = 0;
    virtual bool has_trace() const = 0;
    /** Runs until the core has done one more rising edge. */
    virtual void core_cycle() = 0;
    virtual void reset(uint64_t cycles) = 0;

    /** The link chip whose host side this board shows (limesdr: FT601, ulx3s: UART). */
    gr_board_kind_t link() const { return gr_board_link_kind(set.kind); }
    /** limesdr and ulx3s: VRAM is inside the top, the harness's VRAM model idles. */
    bool vram_inside() const { return set.kind == GR_BOARD_LIMESDR || set.kind == GR_BOARD_ULX3S; }
    bool packets_kind() const { return link() == GR_BOARD_FT601 || link() == GR_BOARD_FT2232H; }
    size_t status_bytes() const { return link() == GR_BOARD_FT2232H ? 2 : 0; }

    size_t readable() const
    {
        if (!packets_kind()) return in_bytes.size();
        size_t n = 0;
        for (const BoardPacket &p : packets)
            n += p.bytes.size() - std::max(p.off, status_bytes());
        return n;
    }

    size_t read(uint8_t *dst, size_t cap)
    {
        size_t n = 0;
        if (!packets_kind()) {
            while (n < cap && !in_bytes.empty()) {
                dst[n++] = in_bytes.front();
                in_bytes.pop_front();
            }
            return n;
        }
        while (n < cap && !packets.empty()) {
            BoardPacket &p = packets.front();
            if (p.off < status_bytes()) p.off = status_bytes();
            const size_t take = std::min(cap - n, p.bytes.size() - p.off);
            std::memcpy(dst + n, p.bytes.data() + p.off, take);
            n += take;
            p.off += take;
            if (p.off == p.bytes.size()) packets.pop_front();
        }
        return n;
    }

    BoardSettings set;
    VramMemory vram_mem;
    TxLog log; // stays closed: the board keeps no transaction log, the models want one to exist
    uint64_t cycle = 0;   // core rising edges
    uint64_t time_ps = 0; // simulated time
    std::deque<uint8_t> out_q;       // host -> device, not yet taken
    std::deque<uint64_t> out_ends;   // where each write (USB transfer) ends, in bytes ever queued
    uint64_t out_pushed = 0, out_popped = 0;
    std::deque<uint8_t> in_bytes;    // device -> host (stream, uart)
    std::deque<BoardPacket> packets; // device -> host (ft601, ft2232h): complete packets
    BoardPacket cur;                 // the packet being received
};


// The core clock: 100 MHz on every kind but the exact board tops, which run theirs at their
// CoreHz: limesdr 70 MHz (14.286 ns here, the scheduler counts whole ps), ulx3s 30 MHz
// (33.334 ns).
constexpr uint64_t kCoreHalfPs = 5000;
constexpr uint64_t kLimesdrCoreHalfPs = 7143;
constexpr uint64_t kUlx3sCoreHalfPs = 16667;
inline uint64_t board_core_half_ps(gr_board_kind_t kind)
{
    return kind == GR_BOARD_ULX3S ? kUlx3sCoreHalfPs
         : kind == GR_BOARD_LIMESDR ? kLimesdrCoreHalfPs : kCoreHalfPs;
}
// The chip's clock, never phase-locked to the core's: the FT601 drives CLK at 100 MHz from
// its own crystal, modelled 0.3% fast so that the two clocks slide past each other; the
// FT2232H's 245 synchronous FIFO clock is 60 MHz.
constexpr uint64_t kFt601HalfPs = 4985;
constexpr uint64_t kFt2232hHalfPs = 8333;
constexpr unsigned kBoardSaltVram = 3, kBoardSaltHost = 5;
constexpr unsigned kInStallPct = 10; // host side not ready for IN data, with randomness on

template <class V> class BoardImpl final : public Board {
public:
    explicit BoardImpl(const BoardSettings &s)
        : Board(s), ctx(new VerilatedContext), rng(Prng::derive(s.seed, kBoardSaltHost))
    {
        if (!s.fst_path.empty()) ctx->traceEverOn(true);
        top.reset(new V(ctx.get(), "TOP"));
        data_bytes = unsigned(sizeof(top->m_vram_wstrb_o) * 8);
        AxiMemConfig vc;
        vc.port = "vram";
        vc.data_bytes = data_bytes;
        vc.addr_bits = unsigned(8 * sizeof(top->m_vram_awaddr_o));
        vc.depth = 8;
        vc.stall_pct = s.no_random ? 0 : 25;
        vc.max_latency = s.no_random ? 0 : 8;
        vc.reorder = !s.no_random;
        vc.seed = Prng::derive(s.seed, kBoardSaltVram);
        vram.reset(new AxiMemModel(vc, vram_mem, &log));
        lane_bytes = link() == GR_BOARD_FT601 || link() == GR_BOARD_STREAM ? 4 : 1;
        chip_half = link() == GR_BOARD_FT601 ? kFt601HalfPs : link() == GR_BOARD_FT2232H ? kFt2232hHalfPs : 0;
        // The context counts in its time precision; the scheduler in picoseconds.
        ps_scale = 1;
        for (int p = ctx->timeprecision(); p < -12; ++p)
            ps_scale *= 10;
        core_half = board_core_half_ps(s.kind);
        core_next = core_half; // clocks start low; the first edge of each is a rising one
        chip_next = chip_half ? chip_half : ~0ull;
        apply_inputs_core();
        apply_inputs_chip();
        top->clk_i = 0;
        top->chip_clk_i = 0;
        top->rst_i = 1;
        top->vram_bytes_i = set.vram_bytes; // gpu_core's size strap: the model's size
        top->ft_mode600_i = set.ft600;       // the FT601's configuration and the PHY's strap
        top->eval();
    }

    ~BoardImpl() override
    {
        if (fst) {
            fst->close();
            // gpuref-simd --fst, GR_BOARD_FST: the waveform can be large; say where it went.
            std::fprintf(stderr, "board: wrote FST waveform %s\n", set.fst_path.c_str());
        }
        if (top) top->final();
    }

    void open_trace() override
    {
        fst.reset(new VerilatedFstC);
        top->trace(fst.get(), 99);
        fst->open(set.fst_path.c_str());
        tracing = true;
    }
    void set_tracing(bool on) override
    {
        tracing = on;
        if (!on && fst) fst->flush();
    }
    bool has_trace() const override { return bool(fst); }

    void reset(uint64_t cycles) override
    {
        top->rst_i = 1;
        for (uint64_t i = 0; i < cycles; ++i)
            core_cycle();
        top->rst_i = 0;
    }

    void core_cycle() override
    {
        const uint64_t target = cycle + 1;
        while (cycle < target)
            edge();
    }

private:
    // The host side belongs to the chip's clock domain (the core's on stream and uart).
    bool host_on_chip() const { return chip_half != 0; }

    void edge()
    {
        const uint64_t t = std::min(core_next, chip_next);
        const bool core_edge = core_next == t;
        const bool chip_edge = chip_next == t;
        const bool core_rise = core_edge && !top->clk_i;
        const bool chip_rise = chip_edge && !top->chip_clk_i;

        // Rising edges: sample what the settled pins show before the flops move.
        if (core_rise) {
            sample_vram();
            if (!host_on_chip()) sample_host();
        }
        if (chip_rise) sample_host();
        // Falling edges: registered outputs of the models for the coming cycle.
        if (core_edge && !core_rise) {
            drive_vram();
            if (!host_on_chip()) drive_host();
        }
        if (chip_edge && !chip_rise) drive_host();

        if (core_edge) {
            top->clk_i = core_rise;
            core_next += core_half;
        }
        if (chip_edge) {
            top->chip_clk_i = chip_rise;
            chip_next += chip_half;
        }
        ctx->time(t * ps_scale);
        time_ps = t;
        top->eval();
        if (tracing) fst->dump(ctx->time());
        if (core_rise) ++cycle;
    }

    void apply_inputs_core()
    {
        vram_port_drive(*top, vram_pins, data_bytes);
    }

    void apply_inputs_chip()
    {
        top->host_out_valid_i = out_valid;
        top->host_out_data_i = out_data;
        top->host_out_keep_i = out_keep;
        top->host_out_last_i = out_last;
        top->host_in_ready_i = in_ready;
    }

    void drive_vram()
    {
        vram->drive(vram_pins, cycle);
        apply_inputs_core();
    }

    void sample_vram()
    {
        vram_port_sample(*top, vram_pins, data_bytes);
        vram->sample(vram_pins, cycle);
    }

    // Host -> device: one lane word from the queue, held until taken (valid/ready).
    // Device -> host: ready, with random gaps unless no_random.
    void drive_host()
    {
        // stream: the engine takes whole 32-bit words, and a socket has no transfers, so a
        // word waits for its four bytes whatever the writes were. USB chips: a word never
        // spans two transfers, and the last word of one carries last.
        const bool word_ready = link() == GR_BOARD_STREAM ? out_q.size() >= 4 : !out_q.empty();
        if (!out_valid && word_ready) {
            const uint64_t to_end = out_ends.front() - out_popped;
            const unsigned n = link() == GR_BOARD_STREAM ? 4u : unsigned(std::min<uint64_t>(lane_bytes, to_end));
            out_last = n == to_end;
            out_data = 0;
            for (unsigned i = 0; i < n; ++i)
                out_data |= uint32_t(out_q[i]) << (8 * i);
            out_keep = uint8_t((1u << n) - 1);
            out_n = n;
            out_valid = true;
        }
        in_ready = set.no_random || !rng.percent(kInStallPct);
        apply_inputs_chip();
    }

    void sample_host()
    {
        V *t = top.get();
        if (out_valid && t->host_out_ready_o) {
            out_q.erase(out_q.begin(), out_q.begin() + out_n);
            out_popped += out_n;
            while (!out_ends.empty() && out_ends.front() <= out_popped)
                out_ends.pop_front();
            out_valid = false;
        }
        if (in_ready && t->host_in_valid_o) {
            const uint32_t d = t->host_in_data_o;
            const unsigned keep = t->host_in_keep_o;
            for (unsigned i = 0; i < lane_bytes; ++i) {
                if (!(keep >> i & 1u)) continue;
                if (packets_kind())
                    cur.bytes.push_back(uint8_t(d >> (8 * i)));
                else
                    in_bytes.push_back(uint8_t(d >> (8 * i)));
            }
            if (packets_kind() && t->host_in_last_o) {
                packets.push_back(std::move(cur));
                cur = BoardPacket();
            }
        }
    }

    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<V> top;
    std::unique_ptr<VerilatedFstC> fst;
    bool tracing = false;
    Prng rng;
    unsigned data_bytes = 8;
    unsigned lane_bytes = 1;
    uint64_t core_half = kCoreHalfPs;
    uint64_t chip_half = 0;
    uint64_t ps_scale = 1;
    uint64_t core_next = 0, chip_next = 0;
    std::unique_ptr<AxiMemModel> vram;
    AxiPins vram_pins;
    bool out_valid = false;
    uint32_t out_data = 0;
    uint8_t out_keep = 0;
    bool out_last = false;
    unsigned out_n = 0;
    bool in_ready = false;
};

} // namespace gr

#endif
