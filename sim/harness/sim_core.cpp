/* SPDX-License-Identifier: Apache-2.0 */
// sim_core.cpp: gr_sim_t, the simulated device: the Verilated gpu_core with its clock and reset,
// the CSR driver on s_csr, AxiMemModels on m_host (HostMemory) and m_vram (VramMemory), s_ap
// held idle, the waveform (FST or VCD, with a window and a GTKWave save file) and the
// transaction log; and the gr_sim_* C API over it.
//
// One clock cycle (step()):
//   1. the driver and the models set their outputs from their state (registered outputs);
//   2. clk low, eval: the core's combinational logic settles on the new inputs;
//   3. the driver and the models sample the settled pins: every valid && ready is a handshake;
//   4. clk high, eval: the core's flops take the same handshakes.
// The waveform shows inputs changing at the falling edge, mid-cycle, and the clock period is
// 10 ns (nominally 100 MHz).
#include <verilated.h>
#include <verilated_fst_c.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <sys/stat.h>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "Vgpu_core.h"
#include "axi_mem_model.h"
#include "axi_pins.h"
#include "axi_test_master.h"
#include "csr_driver.h"
#include "gpuref/gr_regmap.h"
#include "gr_sim.h"
#include "host_memory.h"
#include "txlog.h"
#include "vram_memory.h"
#include "wave.h"

// Why the last gr_sim_create of this thread failed (defined with the C API below); resolve()
// names the setting or environment variable and the accepted range.
__attribute__((format(printf, 1, 2))) static void set_sim_error(const char *fmt, ...);

namespace {

using namespace gr;

constexpr uint64_t kResetCycles = 8;
constexpr uint64_t kMmioTimeout = 10000; // cycles
// The VRAM size strap (gpu_core's vram_bytes_i): up to the VramBytes it is verilated with (its
// default, 512 MiB), in 64 KiB granules, from 128 KiB (the smallest the driver runs in).
constexpr uint64_t kMaxVramBytes = 512ull << 20;
constexpr uint64_t kMinVramBytes = 128ull << 10;
constexpr uint64_t kVramGranule = 64ull << 10;
constexpr uint64_t kDefaultVramBytes = kMaxVramBytes;
constexpr unsigned kDefaultStallPct = 25;
constexpr unsigned kMaxStallPct = 90;
constexpr unsigned kDefaultMaxLatency = 8;
constexpr unsigned kMaxMaxLatency = 1000;
constexpr unsigned kMaxStallRun = 1000;
constexpr unsigned kCsrMaxDelay = 4; // AWVALID/WVALID/ARVALID rise 0..4 cycles into an access
constexpr unsigned kModelDepth = 8;
// Salts that give every port its own random stream from the one seed.
constexpr uint64_t kSaltCsr = 1, kSaltHost = 2, kSaltVram = 3, kSaltAp = 4;
// BAR1: gpu_core's default ApAddrBits (28) makes a 256 MiB window.
constexpr uint64_t kApBytes = 256ull << 20;
constexpr unsigned kApMaxBeats = 16; // beats per burst the host issues (a CPU write-combining line)
constexpr unsigned kApMaxOutstanding = 4;

// The settings after environment defaults.
struct Settings {
    uint64_t seed = 1;
    uint64_t vram_bytes = kDefaultVramBytes;
    unsigned stall_pct = kDefaultStallPct;
    unsigned max_latency = kDefaultMaxLatency;
    bool no_random = false;
    bool reorder = true; // responses of different AXI IDs may overtake each other
    gr_sim_axi_order_t axi_order = GR_SIM_AXI_ANY;
    unsigned stall_run = 1;
    std::string fst_path;
    std::string axilog_path;
    const char *fst_from = nullptr;   // the environment variable fst_path came from, if any
    const char *axilog_from = nullptr; // the same for axilog_path
    uint64_t trace_from = 0;          // cycles of the waveform window, both recorded
    uint64_t trace_to = UINT64_MAX;
};

// Verilator's run-time keeps process-wide state (Verilated::s_lastContextp, the scope table)
// that constructing or destroying a VerilatedContext or a model writes without a lock of its
// own: simulations made or destroyed on different threads at once take this first.
std::mutex &verilated_mutex()
{
    static std::mutex m;
    return m;
}

// "123" or "0x7b"; false for anything else (empty, sign, junk, overflow).
bool parse_u64(const char *s, uint64_t *out)
{
    int base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    // strtoull would also take a sign, a space or a second 0x after the first.
    if (!std::isxdigit((unsigned char)*s) || (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))) return false;
    errno = 0;
    char *end = nullptr;
    const unsigned long long v = std::strtoull(s, &end, base);
    if (errno || *end) return false;
    *out = v;
    return true;
}

int resolve(const gr_sim_config_t *cfg, Settings *out)
{
    static const gr_sim_config_t zero = {};
    const gr_sim_config_t &c = cfg ? *cfg : zero;
    Settings s;

    if (c.seed) {
        s.seed = c.seed;
    } else if (const char *env = std::getenv("GR_SIM_SEED"); env && *env) {
        uint64_t v = 0;
        if (!parse_u64(env, &v)) {
            set_sim_error("GR_SIM_SEED='%s' is not a seed (accepted: 0..18446744073709551615, decimal or 0x hex; "
                          "0: 1)", env);
            return GR_E_INVALID;
        }
        s.seed = v ? v : 1; // 0 means "default" here as in the config
    }

    if (c.vram_bytes) {
        if (c.vram_bytes % kVramGranule || c.vram_bytes < kMinVramBytes || c.vram_bytes > kMaxVramBytes) {
            set_sim_error("vram_bytes %llu is out of range (accepted: 128K..512M in whole 64K, "
                          "gpu_core's VRAM size strap)",
                          (unsigned long long)c.vram_bytes);
            return GR_E_INVALID;
        }
        s.vram_bytes = c.vram_bytes;
    }
    if (c.stall_pct > kMaxStallPct) {
        set_sim_error("stall_pct %u is out of range (accepted: 0..%u)", c.stall_pct, kMaxStallPct);
        return GR_E_INVALID;
    }
    if (c.max_latency > kMaxMaxLatency) {
        set_sim_error("max_latency %u is out of range (accepted: 0..%u)", c.max_latency, kMaxMaxLatency);
        return GR_E_INVALID;
    }
    if (c.stall_pct) s.stall_pct = c.stall_pct;
    if (c.max_latency) s.max_latency = c.max_latency;
    s.no_random = c.no_random;
    if (const char *env = std::getenv("GR_SIM_REORDER"); env && *env) {
        if (std::strcmp(env, "0") && std::strcmp(env, "1")) {
            set_sim_error("GR_SIM_REORDER='%s' is neither 0 nor 1 (accepted: 0..1)", env);
            return GR_E_INVALID;
        }
        s.reorder = env[0] == '1';
    }
    if (c.axi_order != GR_SIM_AXI_DEFAULT) {
        if (!gr_sim_axi_order_name(c.axi_order)) {
            set_sim_error("axi_order %d is not an AXI order (GR_SIM_AXI_*)", (int)c.axi_order);
            return GR_E_INVALID;
        }
        s.axi_order = c.axi_order;
    } else if (const char *env = std::getenv("GR_SIM_AXI"); env && *env) {
        if (gr_sim_axi_order_parse(env, &s.axi_order) != GR_OK) {
            set_sim_error("GR_SIM_AXI='%s' is not an AXI order (accepted: any, awaitw, awaitwlast, wawaitaw)", env);
            return GR_E_INVALID;
        }
    }
    if (c.stall_run > kMaxStallRun) {
        set_sim_error("stall_run %u is out of range (accepted: 0..%u; 0: the default)", c.stall_run, kMaxStallRun);
        return GR_E_INVALID;
    }
    if (c.stall_run) {
        s.stall_run = c.stall_run;
    } else if (const char *env = std::getenv("GR_SIM_STALL_RUN"); env && *env) {
        uint64_t v = 0;
        if (!parse_u64(env, &v) || v == 0 || v > kMaxStallRun) {
            set_sim_error("GR_SIM_STALL_RUN='%s' is out of range (accepted: 1..%u, decimal or 0x hex)", env,
                          kMaxStallRun);
            return GR_E_INVALID;
        }
        s.stall_run = unsigned(v);
    }
    if (s.no_random) {
        s.stall_pct = 0;
        s.max_latency = 0;
        s.reorder = false;
    }

    const char *fst = c.fst_path ? c.fst_path : std::getenv("GR_SIM_FST");
    const char *log = c.axilog_path ? c.axilog_path : std::getenv("GR_SIM_AXILOG");
    if (fst) s.fst_path = fst;
    if (log) s.axilog_path = log;
    s.fst_from = fst && !c.fst_path ? "GR_SIM_FST" : nullptr;
    s.axilog_from = log && !c.axilog_path ? "GR_SIM_AXILOG" : nullptr;
    if (c.trace_to && c.trace_from > c.trace_to) {
        set_sim_error("trace_from %llu is after trace_to %llu (the window's first and last cycle)",
                      (unsigned long long)c.trace_from, (unsigned long long)c.trace_to);
        return GR_E_INVALID;
    }
    s.trace_from = c.trace_from;
    s.trace_to = c.trace_to ? c.trace_to : UINT64_MAX;
    *out = s;
    return GR_OK;
}

// Verilated ports <-> byte arrays (lane i = byte i), for every width Verilator may use.
template <typename T> void port_to_bytes(uint8_t *dst, unsigned n, T v)
{
    for (unsigned i = 0; i < n; ++i)
        dst[i] = i < 8 ? uint8_t(uint64_t(v) >> (8 * i)) : 0;
}
template <std::size_t W> void port_to_bytes(uint8_t *dst, unsigned n, const VlWide<W> &v)
{
    for (unsigned i = 0; i < n; ++i)
        dst[i] = uint8_t(v[i / 4] >> (8 * (i % 4)));
}
template <typename T> void bytes_to_port(T &port, const uint8_t *src, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n && i < 8; ++i)
        v |= uint64_t(src[i]) << (8 * i);
    port = T(v);
}
template <std::size_t W> void bytes_to_port(VlWide<W> &port, const uint8_t *src, unsigned n)
{
    for (unsigned w = 0; w < W; ++w)
        port[w] = 0;
    for (unsigned i = 0; i < n; ++i)
        port[i / 4] |= EData(src[i]) << (8 * (i % 4));
}

} // namespace

// Copies one AXI4 master port of the core (prefix m_host or m_vram) into an AxiPins, and the
// slave model's answers back. A macro because the ports differ only in their names.
#define GR_AXI_FROM_CORE(top, pfx, p, nbytes)                   \
    do {                                                        \
        (p).awvalid = (top)->pfx##_awvalid_o;                   \
        (p).aw.id = (top)->pfx##_awid_o;                        \
        (p).aw.addr = (top)->pfx##_awaddr_o;                    \
        (p).aw.len = (top)->pfx##_awlen_o;                      \
        (p).aw.size = (top)->pfx##_awsize_o;                    \
        (p).aw.burst = (top)->pfx##_awburst_o;                  \
        (p).aw.lock = (top)->pfx##_awlock_o;                    \
        (p).aw.cache = (top)->pfx##_awcache_o;                  \
        (p).aw.prot = (top)->pfx##_awprot_o;                    \
        (p).wvalid = (top)->pfx##_wvalid_o;                     \
        port_to_bytes((p).wdata, nbytes, (top)->pfx##_wdata_o); \
        (p).wstrb = (top)->pfx##_wstrb_o;                       \
        (p).wlast = (top)->pfx##_wlast_o;                       \
        (p).bready = (top)->pfx##_bready_o;                     \
        (p).arvalid = (top)->pfx##_arvalid_o;                   \
        (p).ar.id = (top)->pfx##_arid_o;                        \
        (p).ar.addr = (top)->pfx##_araddr_o;                    \
        (p).ar.len = (top)->pfx##_arlen_o;                      \
        (p).ar.size = (top)->pfx##_arsize_o;                    \
        (p).ar.burst = (top)->pfx##_arburst_o;                  \
        (p).ar.lock = (top)->pfx##_arlock_o;                    \
        (p).ar.cache = (top)->pfx##_arcache_o;                  \
        (p).ar.prot = (top)->pfx##_arprot_o;                    \
        (p).rready = (top)->pfx##_rready_o;                     \
    } while (0)

#define GR_AXI_TO_CORE(top, pfx, p, nbytes)                     \
    do {                                                        \
        (top)->pfx##_awready_i = (p).awready;                   \
        (top)->pfx##_wready_i = (p).wready;                     \
        (top)->pfx##_bvalid_i = (p).bvalid;                     \
        (top)->pfx##_bid_i = (p).bid;                           \
        (top)->pfx##_bresp_i = (p).bresp;                       \
        (top)->pfx##_arready_i = (p).arready;                   \
        (top)->pfx##_rvalid_i = (p).rvalid;                     \
        (top)->pfx##_rid_i = (p).rid;                           \
        bytes_to_port((top)->pfx##_rdata_i, (p).rdata, nbytes); \
        (top)->pfx##_rresp_i = (p).rresp;                       \
        (top)->pfx##_rlast_i = (p).rlast;                       \
    } while (0)

// One waveform file being written: Verilator's FST writer, and for a VCD the FST it converts
// when the file is closed (the model is verilated with --trace-fst only: building it a second
// time for Verilator's VCD writer would double the build of gpu_core, sim/harness/README.md).
struct Wave {
    std::unique_ptr<VerilatedFstC> fst;
    std::string path;     // the file asked for
    std::string fst_path; // the file Verilator writes: path, or a temporary next to a VCD
    std::string gtkw_path;
    bool vcd = false;
    uint64_t from = 0, to = UINT64_MAX; // the window: cycles recorded
    uint64_t first = UINT64_MAX, last = 0; // cycles recorded so far
};

// m_host's memory: the model's own buffers, or an IOMMU of the caller's (gr_sim_set_host_port).
class HostRoute final : public MemBackend {
public:
    explicit HostRoute(HostMemory &own) : own_(own) {}
    void set_port(const gr_sim_host_port_t *p)
    {
        has_port_ = p != nullptr;
        if (p) port_ = *p;
    }
    bool contains(uint64_t addr, uint64_t len) const override
    {
        return has_port_ ? port_.contains(port_.arg, addr, len) : own_.contains(addr, len);
    }
    void read(uint64_t addr, uint8_t *dst, size_t len) const override
    {
        if (has_port_) port_.read(port_.arg, addr, dst, len);
        else own_.read(addr, dst, len);
    }
    void write(uint64_t addr, const uint8_t *src, size_t len) override
    {
        if (has_port_) port_.write(port_.arg, addr, src, len);
        else own_.write(addr, src, len);
    }

private:
    HostMemory &own_;
    bool has_port_ = false;
    gr_sim_host_port_t port_{};
};

struct gr_sim {
    explicit gr_sim(const Settings &s);
    gr_sim(const gr_sim &) = delete;
    gr_sim &operator=(const gr_sim &) = delete;
    ~gr_sim();

    void step();
    void run(uint64_t cycles);
    int csr_access(bool write, uint32_t offset, uint32_t value, uint8_t strb, uint32_t *out_value);
    int csr_finish();
    int ap_access(bool write, uint64_t offset, uint8_t *buf, size_t bytes);
    void report(); // violations found by the driver or the models, once per port, on stderr
    void dump()
    {
        if (!wave || !tracing || cycle < wave->from || cycle > wave->to) return;
        wave->fst->dump(ctx->time());
        if (wave->first == UINT64_MAX) wave->first = cycle;
        wave->last = cycle;
    }
    int open_wave(const std::string &path, uint64_t from, uint64_t to, std::string *err);
    int close_wave(gr_sim_trace_info_t *out_info, std::string *err = nullptr);
    void wave_info(gr_sim_trace_info_t *out) const;

    Settings set;
    TxLog log;
    HostMemory host_mem;
    HostRoute host_route{host_mem};
    VramMemory vram_mem;

    // Members are destroyed in reverse order: the trace before the model it reads, the model
    // before its context, the AXI models before the memories and the log they use (the
    // destructor drops wave, top and ctx itself, in that order, under verilated_mutex()).
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vgpu_core> top;
    std::unique_ptr<Wave> wave;
    bool tracing = true; // gr_sim_trace: dumping on (while a waveform is open, inside its window)
    uint64_t half_period = 5; // in units of the context's time precision

    unsigned data_bytes;
    CsrDriver csr;
    std::unique_ptr<AxiMemModel> host;
    std::unique_ptr<AxiMemModel> vram;
    AxilPins csr_pins;
    std::unique_ptr<AxiTestMaster> ap; // the CPU on BAR1, only during a gr_sim_ap_* call
    AxiPins ap_pins;
    uint64_t ap_calls = 0;
    uint64_t ap_violations = 0;
    std::string ap_first_violation;
    uint64_t reported_ap = 0;
    AxiPins host_pins;
    AxiPins vram_pins;
    bool rst = true;
    uint64_t cycle = 0;
    uint64_t reported_csr = 0, reported_host = 0, reported_vram = 0;
};

gr_sim::gr_sim(const Settings &s)
    : set(s), vram_mem(s.vram_bytes), data_bytes(0),
      csr(CsrDriverConfig{"csr", s.stall_pct, s.no_random ? 0 : kCsrMaxDelay, Prng::derive(s.seed, kSaltCsr)},
          &log)
{
    {
        std::lock_guard<std::mutex> lock(verilated_mutex());
        ctx.reset(new VerilatedContext);
        // The model is single-threaded (verilated without --threads), but a context defaults to
        // hardware_concurrency() threads and starts all but one as idle workers when the model
        // is added; each of them writes Verilator's process-wide last-context pointer as it
        // starts, racing with the next simulation's context. One thread: no workers at all.
        ctx->threads(1);
        // Always: a waveform may be started later (gr_sim_trace_start), and Verilator wants this
        // before the model exists. It costs nothing until a trace is attached.
        ctx->traceEverOn(true);
        top.reset(new Vgpu_core(ctx.get(), "TOP"));
    }
    // The data bus width is a gpu_core parameter; its WSTRB port has one bit per byte and
    // Verilator stores it in 8, 16, 32 or 64 bits.
    data_bytes = unsigned(sizeof(top->m_host_wstrb_o) * 8);
    const uint64_t vram_limit =
        sizeof(top->m_vram_awaddr_o) >= 8 ? ~0ull : (1ull << (8 * sizeof(top->m_vram_awaddr_o)));
    if (s.vram_bytes > vram_limit) throw std::invalid_argument("vram_bytes past the VRAM address space");

    AxiMemConfig hc;
    hc.port = "host";
    hc.data_bytes = data_bytes;
    hc.addr_bits = unsigned(8 * sizeof(top->m_host_awaddr_o));
    hc.depth = kModelDepth;
    hc.stall_pct = s.stall_pct;
    hc.max_latency = s.max_latency;
    hc.reorder = s.reorder;
    hc.stall_run = s.stall_run;
    switch (s.axi_order) {
    case GR_SIM_AXI_AWAITW: hc.write_order = AxiWriteOrder::AwAfterW; break;
    case GR_SIM_AXI_AWAITWLAST: hc.write_order = AxiWriteOrder::AwAfterWlast; break;
    case GR_SIM_AXI_WAWAITAW: hc.write_order = AxiWriteOrder::WAfterAw; break;
    default: hc.write_order = AxiWriteOrder::Any; break;
    }
    hc.seed = Prng::derive(s.seed, kSaltHost);
    host.reset(new AxiMemModel(hc, host_route, &log));
    AxiMemConfig vc = hc;
    vc.port = "vram";
    vc.addr_bits = unsigned(8 * sizeof(top->m_vram_awaddr_o));
    vc.seed = Prng::derive(s.seed, kSaltVram);
    vram.reset(new AxiMemModel(vc, vram_mem, &log));

    // 5 ns in the context's precision (Verilator's default is 1 ps).
    for (int p = ctx->timeprecision(); p < -9; ++p)
        half_period *= 10;
}

gr_sim::~gr_sim()
{
    report();
    if (wave) {
        // A VCD is written now; a failure has nobody to tell. Nobody else closes this waveform
        // (GR_SIM_FST, sim://?trace=): say where it went, for it can be hundreds of MB.
        gr_sim_trace_info_t t;
        if (close_wave(&t) == GR_OK) {
            struct stat st;
            const double mb = stat(t.path, &st) == 0 ? double(st.st_size) / (1 << 20) : 0.0;
            std::fprintf(stderr, "gr_sim: wrote %s (%s, %.1f MiB, cycles %" PRIu64 "..%" PRIu64
                                 "); open with: gtkwave -a %s %s\n",
                         t.path, t.vcd ? "VCD" : "FST", mb, t.first_cycle, t.last_cycle, t.gtkw_path, t.path);
        }
    }
    if (top) top->final();
    log.close();
    // As in the constructor: the model's and the context's destructors touch Verilator's
    // process-wide state too (scopes, the thread's context).
    std::lock_guard<std::mutex> lock(verilated_mutex());
    wave.reset();
    top.reset();
    ctx.reset();
}

void gr_sim::step()
{
    Vgpu_core *t = top.get();

    // 1. registered outputs of the host side
    csr.drive(csr_pins);
    host->drive(host_pins, cycle);
    vram->drive(vram_pins, cycle);

    t->rst_i = rst;
    t->vram_bytes_i = set.vram_bytes; // the strap: the model's size, taken while rst_i is high
    t->s_csr_awaddr_i = uint16_t(csr_pins.awaddr);
    t->s_csr_awprot_i = csr_pins.awprot;
    t->s_csr_awvalid_i = csr_pins.awvalid;
    t->s_csr_wdata_i = csr_pins.wdata;
    t->s_csr_wstrb_i = csr_pins.wstrb;
    t->s_csr_wvalid_i = csr_pins.wvalid;
    t->s_csr_bready_i = csr_pins.bready;
    t->s_csr_araddr_i = uint16_t(csr_pins.araddr);
    t->s_csr_arprot_i = csr_pins.arprot;
    t->s_csr_arvalid_i = csr_pins.arvalid;
    t->s_csr_rready_i = csr_pins.rready;
    // BAR1: the CPU's bursts during a gr_sim_ap_* call, else idle with responses taken.
    if (ap) {
        ap->drive(ap_pins);
    } else {
        ap_pins.awvalid = ap_pins.wvalid = ap_pins.arvalid = false;
        ap_pins.bready = ap_pins.rready = true;
    }
    t->s_ap_awvalid_i = ap_pins.awvalid;
    t->s_ap_awid_i = ap_pins.aw.id;
    t->s_ap_awaddr_i = uint32_t(ap_pins.aw.addr);
    t->s_ap_awlen_i = ap_pins.aw.len;
    t->s_ap_awsize_i = ap_pins.aw.size;
    t->s_ap_awburst_i = ap_pins.aw.burst;
    t->s_ap_awlock_i = ap_pins.aw.lock;
    t->s_ap_awcache_i = ap_pins.aw.cache;
    t->s_ap_awprot_i = ap_pins.aw.prot;
    t->s_ap_wvalid_i = ap_pins.wvalid;
    bytes_to_port(t->s_ap_wdata_i, ap_pins.wdata, data_bytes);
    t->s_ap_wstrb_i = ap_pins.wstrb;
    t->s_ap_wlast_i = ap_pins.wlast;
    t->s_ap_bready_i = ap_pins.bready;
    t->s_ap_arvalid_i = ap_pins.arvalid;
    t->s_ap_arid_i = ap_pins.ar.id;
    t->s_ap_araddr_i = uint32_t(ap_pins.ar.addr);
    t->s_ap_arlen_i = ap_pins.ar.len;
    t->s_ap_arsize_i = ap_pins.ar.size;
    t->s_ap_arburst_i = ap_pins.ar.burst;
    t->s_ap_arlock_i = ap_pins.ar.lock;
    t->s_ap_arcache_i = ap_pins.ar.cache;
    t->s_ap_arprot_i = ap_pins.ar.prot;
    t->s_ap_rready_i = ap_pins.rready;
    GR_AXI_TO_CORE(t, m_host, host_pins, data_bytes);
    GR_AXI_TO_CORE(t, m_vram, vram_pins, data_bytes);

    // 2. falling edge: settle
    t->clk_i = 0;
    t->eval();
    dump();

    // 3. sample the handshakes of this cycle
    csr_pins.awready = t->s_csr_awready_o;
    csr_pins.wready = t->s_csr_wready_o;
    csr_pins.bvalid = t->s_csr_bvalid_o;
    csr_pins.bresp = t->s_csr_bresp_o;
    csr_pins.arready = t->s_csr_arready_o;
    csr_pins.rvalid = t->s_csr_rvalid_o;
    csr_pins.rdata = t->s_csr_rdata_o;
    csr_pins.rresp = t->s_csr_rresp_o;
    GR_AXI_FROM_CORE(t, m_host, host_pins, data_bytes);
    GR_AXI_FROM_CORE(t, m_vram, vram_pins, data_bytes);
    ap_pins.awready = t->s_ap_awready_o;
    ap_pins.wready = t->s_ap_wready_o;
    ap_pins.bvalid = t->s_ap_bvalid_o;
    ap_pins.bid = t->s_ap_bid_o;
    ap_pins.bresp = t->s_ap_bresp_o;
    ap_pins.arready = t->s_ap_arready_o;
    ap_pins.rvalid = t->s_ap_rvalid_o;
    ap_pins.rid = t->s_ap_rid_o;
    port_to_bytes(ap_pins.rdata, data_bytes, t->s_ap_rdata_o);
    ap_pins.rresp = t->s_ap_rresp_o;
    ap_pins.rlast = t->s_ap_rlast_o;
    csr.sample(csr_pins, cycle);
    if (ap) ap->sample(ap_pins, cycle);
    host->sample(host_pins, cycle);
    vram->sample(vram_pins, cycle);

    // 4. rising edge
    ctx->timeInc(half_period);
    t->clk_i = 1;
    t->eval();
    dump();
    ctx->timeInc(half_period);
    ++cycle;
}

void gr_sim::run(uint64_t cycles)
{
    for (uint64_t i = 0; i < cycles; ++i)
        step();
    report();
}

void gr_sim::report()
{
    struct {
        const char *port;
        uint64_t n;
        const std::string *first;
        uint64_t *reported;
    } ports[] = {
        {"csr", csr.violations(), &csr.first_violation(), &reported_csr},
        {"host", host->violations(), &host->first_violation(), &reported_host},
        {"vram", vram->violations(), &vram->first_violation(), &reported_vram},
        {"ap", ap_violations, &ap_first_violation, &reported_ap},
    };
    for (auto &p : ports) {
        if (p.n && !*p.reported)
            std::fprintf(stderr, "gr_sim: %s: AXI protocol violation (seed=0x%" PRIx64 "): %s\n", p.port,
                         set.seed, p.first->c_str());
        *p.reported = p.n;
    }
    log.flush();
}

// Files first: a bad path is the caller's likeliest mistake, and Verilator's FST writer does
// not survive one. The save file is written at once, so that it exists while the run goes on.
int gr_sim::open_wave(const std::string &path, uint64_t from, uint64_t to, std::string *err)
{
    std::unique_ptr<Wave> w(new Wave);
    w->path = path;
    w->vcd = wave_is_vcd(path);
    w->fst_path = w->vcd ? path + ".part.fst" : path;
    w->gtkw_path = wave_gtkw_path(path);
    w->from = from;
    w->to = to;
    for (const std::string *p : {&w->path, &w->fst_path}) {
        FILE *f = std::fopen(p->c_str(), "wb");
        if (!f) {
            *err = std::string("cannot open ") + (p == &w->path && w->vcd ? "VCD" : "FST") + " file '" + *p +
                   "': " + std::strerror(errno);
            if (p != &w->path) std::remove(w->path.c_str());
            return GR_E_IO;
        }
        std::fclose(f);
        if (!w->vcd) break;
    }
    int rc = wave_write_gtkw(w->gtkw_path, w->path, err);
    if (rc != GR_OK) {
        std::remove(w->path.c_str());
        if (w->vcd) std::remove(w->fst_path.c_str());
        return rc;
    }
    w->fst.reset(new VerilatedFstC);
    top->trace(w->fst.get(), 99);
    w->fst->open(w->fst_path.c_str());
    wave = std::move(w);
    return GR_OK;
}

void gr_sim::wave_info(gr_sim_trace_info_t *out) const
{
    gr_sim_trace_info_t i = {};
    if (wave) {
        i.open = true;
        i.vcd = wave->vcd;
        std::snprintf(i.path, sizeof i.path, "%s", wave->path.c_str());
        std::snprintf(i.gtkw_path, sizeof i.gtkw_path, "%s", wave->gtkw_path.c_str());
        i.from = wave->from;
        i.to = wave->to;
        i.recorded = wave->first != UINT64_MAX;
        i.first_cycle = i.recorded ? wave->first : 0;
        i.last_cycle = wave->last;
    }
    *out = i;
}

int gr_sim::close_wave(gr_sim_trace_info_t *out_info, std::string *err)
{
    gr_sim_trace_info_t info;
    wave_info(&info);
    wave->fst->close();
    int rc = GR_OK;
    if (wave->vcd) {
        std::string why;
        rc = wave_fst_to_vcd(wave->fst_path, wave->path, &why);
        std::remove(wave->fst_path.c_str());
        if (rc != GR_OK && err) *err = why;
    }
    {
        std::lock_guard<std::mutex> lock(verilated_mutex());
        wave.reset();
    }
    info.open = false;
    if (out_info) *out_info = info;
    return rc;
}

// A timed-out access keeps its valids up (AXI forbids taking them back); the next access first
// gives it another timeout's worth of cycles to finish, and discards its result.
int gr_sim::csr_finish()
{
    for (uint64_t n = 0; csr.busy() && n < kMmioTimeout; ++n)
        step();
    return csr.busy() ? GR_E_TIMEOUT : GR_OK;
}

int gr_sim::csr_access(bool write, uint32_t offset, uint32_t value, uint8_t strb, uint32_t *out_value)
{
    if (offset & 3) return GR_E_ALIGN;
    if (offset >= GR_REGMAP_BAR0_BYTES) return GR_E_RANGE;
    int rc = csr_finish();
    if (rc == GR_OK) {
        if (write)
            csr.start_write(offset, value, strb);
        else
            csr.start_read(offset);
        rc = csr_finish();
    }
    report();
    if (rc != GR_OK) return rc;
    if (csr.resp() != kRespOkay) return GR_E_BUS;
    if (out_value) *out_value = csr.rdata();
    return GR_OK;
}

// The CPU's access to BAR1: bursts of full bus beats (strobes trim the ends), at most
// kApMaxBeats long and never across 4 KiB, a few in flight, all from a fresh master whose
// randomness is derived from the seed and the call count.
int gr_sim::ap_access(bool write, uint64_t offset, uint8_t *buf, size_t bytes)
{
    if (bytes == 0 || offset >= kApBytes || bytes > kApBytes - offset) return GR_E_RANGE;
    AxiTestMaster::Config mc;
    mc.data_bytes = data_bytes;
    mc.valid_gap_pct = set.stall_pct;
    mc.ready_stall_pct = set.stall_pct;
    mc.max_outstanding = kApMaxOutstanding;
    mc.seed = Prng::derive(Prng::derive(set.seed, kSaltAp), ++ap_calls);
    ap.reset(new AxiTestMaster(mc));
    unsigned size = 0;
    while ((1u << size) < data_bytes)
        ++size;
    const uint64_t end = offset + bytes;
    std::vector<std::pair<uint64_t, size_t>> bursts; // first beat address, index of txn
    for (uint64_t a = offset & ~uint64_t(data_bytes - 1); a < end;) {
        const uint64_t page_end = (a | 4095) + 1;
        const uint64_t stop = std::min({end, page_end, a + uint64_t(kApMaxBeats) * data_bytes});
        const unsigned beats = unsigned((stop - a + data_bytes - 1) / data_bytes);
        MasterTxn t;
        t.write = write;
        t.a.id = uint32_t(ap_calls % 16);
        t.a.addr = a;
        t.a.len = uint8_t(beats - 1);
        t.a.size = uint8_t(size);
        t.a.burst = kBurstIncr;
        if (write) {
            for (unsigned b = 0; b < beats; ++b) {
                Lanes lanes{};
                uint64_t strb = 0;
                for (unsigned i = 0; i < data_bytes; ++i) {
                    const uint64_t byte = a + uint64_t(b) * data_bytes + i;
                    if (byte >= offset && byte < end) {
                        lanes[i] = buf[byte - offset];
                        strb |= 1ull << i;
                    }
                }
                t.wdata.push_back(lanes);
                t.wstrb.push_back(strb);
            }
        }
        bursts.emplace_back(a, ap->add(t));
        a += uint64_t(beats) * data_bytes;
    }
    const uint64_t limit = kMmioTimeout * (bursts.size() + 1);
    for (uint64_t n = 0; !ap->all_done() && n < limit; ++n)
        step();
    const bool done = ap->all_done();
    for (const std::string &e : ap->errors()) {
        if (ap_violations++ == 0) ap_first_violation = e;
    }
    int rc = done ? GR_OK : GR_E_TIMEOUT;
    if (rc == GR_OK) {
        for (const auto &bt : bursts) {
            const MasterTxn &t = ap->txns()[bt.second];
            if (write ? t.bresp != kRespOkay
                      : std::any_of(t.rresp.begin(), t.rresp.end(), [](uint8_t r) { return r != kRespOkay; }))
                rc = GR_E_BUS;
        }
    }
    if (rc == GR_OK && !write) {
        for (const auto &bt : bursts) {
            const MasterTxn &t = ap->txns()[bt.second];
            for (size_t b = 0; b < t.rdata.size(); ++b)
                for (unsigned i = 0; i < data_bytes; ++i) {
                    const uint64_t byte = bt.first + b * data_bytes + i;
                    if (byte >= offset && byte < end) buf[byte - offset] = t.rdata[b][i];
                }
        }
    }
    // A timed-out burst cannot be taken back from the bus; the master stays to finish it.
    if (done) ap.reset();
    report();
    return rc;
}

// ---- C API ---------------------------------------------------------------------------------
// Nothing may throw across it: every entry point catches and maps to a status.

// gr_sim_error()'s text: why this thread's last gr_sim_create failed.
static thread_local char g_sim_error[512];

static void set_sim_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(g_sim_error, sizeof g_sim_error, fmt, ap);
    va_end(ap);
}

extern "C" {

const char *gr_sim_axi_order_name(gr_sim_axi_order_t order)
{
    switch (order) {
    case GR_SIM_AXI_ANY: return "any";
    case GR_SIM_AXI_AWAITW: return "awaitw";
    case GR_SIM_AXI_AWAITWLAST: return "awaitwlast";
    case GR_SIM_AXI_WAWAITAW: return "wawaitaw";
    default: return nullptr;
    }
}

int gr_sim_axi_order_parse(const char *name, gr_sim_axi_order_t *out_order)
{
    if (!name || !out_order) return GR_E_INVALID;
    for (gr_sim_axi_order_t o : {GR_SIM_AXI_ANY, GR_SIM_AXI_AWAITW, GR_SIM_AXI_AWAITWLAST, GR_SIM_AXI_WAWAITAW}) {
        if (!std::strcmp(name, gr_sim_axi_order_name(o))) {
            *out_order = o;
            return GR_OK;
        }
    }
    return GR_E_INVALID;
}

const char *gr_sim_error(void)
{
    return g_sim_error[0] ? g_sim_error : "no error";
}

int gr_sim_create(const gr_sim_config_t *cfg, gr_sim_t **out_sim)
{
    g_sim_error[0] = '\0';
    if (!out_sim) {
        set_sim_error("no place for the simulation (out_sim is NULL)");
        return GR_E_INVALID;
    }
    try {
        Settings s;
        int rc = resolve(cfg, &s);
        if (rc != GR_OK) return rc; // resolve() said why

        // Files first: a bad path is the caller's likeliest mistake, and Verilator's FST
        // writer does not survive one.
        if (!s.fst_path.empty()) {
            FILE *f = std::fopen(s.fst_path.c_str(), "wb");
            if (!f) {
                set_sim_error("cannot open FST file '%s'%s%s: %s", s.fst_path.c_str(),
                              s.fst_from ? " from " : "", s.fst_from ? s.fst_from : "", std::strerror(errno));
                return GR_E_IO;
            }
            std::fclose(f);
        }
        std::unique_ptr<gr_sim> sim;
        try {
            sim.reset(new gr_sim(s));
        } catch (const std::invalid_argument &e) {
            set_sim_error("invalid configuration: %s", e.what());
            return GR_E_INVALID;
        }
        if (!s.axilog_path.empty() && sim->log.open(s.axilog_path.c_str(), s.seed) != GR_OK) {
            // TxLog::open fails only in its fopen, which set errno.
            set_sim_error("cannot open AXI log '%s'%s%s: %s", s.axilog_path.c_str(),
                          s.axilog_from ? " from " : "", s.axilog_from ? s.axilog_from : "", std::strerror(errno));
            return GR_E_IO;
        }
        if (!s.fst_path.empty()) {
            std::string why;
            if ((rc = sim->open_wave(s.fst_path, s.trace_from, s.trace_to, &why)) != GR_OK) {
                set_sim_error("%s", why.c_str());
                return rc;
            }
        }
        sim->rst = true;
        sim->run(kResetCycles);
        sim->rst = false;
        *out_sim = sim.release();
        return GR_OK;
    } catch (const std::bad_alloc &) {
        set_sim_error("out of memory building the simulation");
        return GR_E_NO_MEMORY;
    } catch (...) {
        set_sim_error("the simulation could not be built (an exception in the model)");
        return GR_E_IO;
    }
}

void gr_sim_destroy(gr_sim_t *sim)
{
    try {
        delete sim;
    } catch (...) {
    }
}

uint64_t gr_sim_seed(const gr_sim_t *sim)
{
    return sim ? sim->set.seed : 0;
}

uint64_t gr_sim_violations(const gr_sim_t *sim)
{
    if (!sim) return 0;
    return sim->csr.violations() + sim->host->violations() + sim->vram->violations() + sim->ap_violations;
}

int gr_sim_mmio_read(gr_sim_t *sim, uint32_t offset, uint32_t *out_value)
{
    if (!sim || !out_value) return GR_E_INVALID;
    try {
        return sim->csr_access(false, offset, 0, 0, out_value);
    } catch (const std::bad_alloc &) {
        return GR_E_NO_MEMORY;
    } catch (...) {
        return GR_E_IO;
    }
}

int gr_sim_mmio_write(gr_sim_t *sim, uint32_t offset, uint32_t value)
{
    return gr_sim_mmio_write_strb(sim, offset, value, 0xf);
}

int gr_sim_mmio_write_strb(gr_sim_t *sim, uint32_t offset, uint32_t value, uint8_t strb)
{
    if (!sim || strb > 0xf) return GR_E_INVALID;
    try {
        return sim->csr_access(true, offset, value, strb, nullptr);
    } catch (const std::bad_alloc &) {
        return GR_E_NO_MEMORY;
    } catch (...) {
        return GR_E_IO;
    }
}

void gr_sim_run(gr_sim_t *sim, uint64_t cycles)
{
    if (!sim) return;
    try {
        sim->run(cycles);
    } catch (...) {
    }
}

uint64_t gr_sim_cycle(const gr_sim_t *sim)
{
    return sim ? sim->cycle : 0;
}

bool gr_sim_irq(const gr_sim_t *sim)
{
    return sim && sim->top->irq_o;
}

int gr_sim_wait_irq(gr_sim_t *sim, uint64_t max_cycles, bool *out_raised)
{
    if (!sim || !out_raised) return GR_E_INVALID;
    try {
        for (uint64_t n = 0; !sim->top->irq_o && n < max_cycles; ++n)
            sim->step();
        sim->report();
        *out_raised = sim->top->irq_o;
        return GR_OK;
    } catch (const std::bad_alloc &) {
        return GR_E_NO_MEMORY;
    } catch (...) {
        return GR_E_IO;
    }
}

int gr_sim_trace(gr_sim_t *sim, bool on)
{
    if (!sim) return GR_E_INVALID;
    if (!sim->wave) return GR_E_UNSUPPORTED;
    sim->tracing = on;
    if (!on) sim->wave->fst->flush();
    return GR_OK;
}

int gr_sim_trace_start(gr_sim_t *sim, const char *path, uint64_t from, uint64_t to)
{
    g_sim_error[0] = '\0';
    if (!sim || !path || !*path) {
        set_sim_error("gr_sim_trace_start: %s", !sim ? "sim is NULL" : "no path");
        return GR_E_INVALID;
    }
    if (to && from > to) {
        set_sim_error("gr_sim_trace_start: the window's first cycle %" PRIu64 " is after its last %" PRIu64, from, to);
        return GR_E_INVALID;
    }
    if (sim->wave) {
        set_sim_error("a waveform is being written already ('%s'): stop it first", sim->wave->path.c_str());
        return GR_E_BUSY;
    }
    try {
        std::string why;
        const int rc = sim->open_wave(path, from, to ? to : UINT64_MAX, &why);
        if (rc != GR_OK) set_sim_error("%s", why.c_str());
        else sim->tracing = true;
        return rc;
    } catch (const std::bad_alloc &) {
        set_sim_error("out of memory starting a waveform");
        return GR_E_NO_MEMORY;
    }
}

int gr_sim_trace_stop(gr_sim_t *sim, gr_sim_trace_info_t *out_info)
{
    g_sim_error[0] = '\0';
    if (!sim) {
        set_sim_error("gr_sim_trace_stop: sim is NULL");
        return GR_E_INVALID;
    }
    if (!sim->wave) {
        set_sim_error("no waveform is being written");
        return GR_E_UNSUPPORTED;
    }
    std::string why;
    const int rc = sim->close_wave(out_info, &why);
    if (rc != GR_OK) set_sim_error("%s", why.c_str());
    return rc;
}

int gr_sim_trace_info(const gr_sim_t *sim, gr_sim_trace_info_t *out_info)
{
    if (!sim || !out_info) return GR_E_INVALID;
    sim->wave_info(out_info);
    return GR_OK;
}

int gr_sim_dma_alloc(gr_sim_t *sim, size_t bytes, void **out_cpu, uint64_t *out_bus)
{
    if (!sim || !out_cpu || !out_bus || bytes == 0) return GR_E_INVALID;
    try {
        return sim->host_mem.alloc(bytes, out_cpu, out_bus);
    } catch (...) {
        return GR_E_NO_MEMORY;
    }
}

int gr_sim_dma_free(gr_sim_t *sim, uint64_t bus)
{
    if (!sim) return GR_E_INVALID;
    return sim->host_mem.free(bus);
}

void gr_sim_set_host_observer(gr_sim_t *sim, gr_sim_host_observer_t fn, void *arg)
{
    if (sim) sim->host->set_burst_observer(fn, arg);
}

int gr_sim_set_host_port(gr_sim_t *sim, const gr_sim_host_port_t *port)
{
    if (!sim || (port && (!port->contains || !port->read || !port->write))) return GR_E_INVALID;
    sim->host_route.set_port(port);
    return GR_OK;
}

int gr_sim_ap_read(gr_sim_t *sim, uint64_t offset, void *dst, size_t bytes)
{
    if (!sim || !dst || bytes == 0) return GR_E_INVALID;
    try {
        std::vector<uint8_t> tmp(bytes); // dst stays untouched on failure
        int rc = sim->ap_access(false, offset, tmp.data(), bytes);
        if (rc == GR_OK) std::memcpy(dst, tmp.data(), bytes);
        return rc;
    } catch (const std::bad_alloc &) {
        return GR_E_NO_MEMORY;
    } catch (...) {
        return GR_E_IO;
    }
}

int gr_sim_ap_write(gr_sim_t *sim, uint64_t offset, const void *src, size_t bytes)
{
    if (!sim || !src || bytes == 0) return GR_E_INVALID;
    try {
        std::vector<uint8_t> tmp(static_cast<const uint8_t *>(src), static_cast<const uint8_t *>(src) + bytes);
        return sim->ap_access(true, offset, tmp.data(), bytes);
    } catch (const std::bad_alloc &) {
        return GR_E_NO_MEMORY;
    } catch (...) {
        return GR_E_IO;
    }
}

int gr_sim_vram_read(gr_sim_t *sim, uint64_t addr, void *dst, size_t bytes)
{
    if (!sim || !dst || bytes == 0) return GR_E_INVALID;
    if (!sim->vram_mem.contains(addr, bytes)) return GR_E_RANGE;
    sim->vram_mem.read(addr, static_cast<uint8_t *>(dst), bytes);
    return GR_OK;
}

int gr_sim_host_read(gr_sim_t *sim, uint64_t bus, void *dst, size_t bytes)
{
    if (!sim || !dst || bytes == 0) return GR_E_INVALID;
    if (!sim->host_mem.contains(bus, bytes)) return GR_E_RANGE;
    sim->host_mem.read(bus, static_cast<uint8_t *>(dst), bytes);
    return GR_OK;
}

int gr_sim_vram_write(gr_sim_t *sim, uint64_t addr, const void *src, size_t bytes)
{
    if (!sim || !src || bytes == 0) return GR_E_INVALID;
    if (!sim->vram_mem.contains(addr, bytes)) return GR_E_RANGE;
    try {
        sim->vram_mem.write(addr, static_cast<const uint8_t *>(src), bytes);
    } catch (const std::bad_alloc &) {
        return GR_E_NO_MEMORY;
    }
    return GR_OK;
}

} // extern "C"
