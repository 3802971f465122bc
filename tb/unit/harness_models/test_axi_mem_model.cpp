/* SPDX-License-Identifier: Apache-2.0 */
// test_axi_mem_model.cpp: tests of the harness's AXI4 memory model (sim/harness/axi_mem_model.h)
// and its backends, driven at the pins by AxiTestMaster. Prints TAP. Options:
//   --seed N   base seed (decimal or 0x hex; default $GR_TEST_SEED, else 1); every random choice
//              derives from it
// Expected data comes from a byte-array reference and the burst pseudocode of IHI0022E A3.4.2,
// written here independently of the model's own address arithmetic.
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "axi_mem_model.h"
#include "axi_test_master.h"
#include "gpuref/gr_status.h"
#include "host_memory.h"
#include "txlog.h"
#include "vram_memory.h"

using namespace gr;

namespace {

uint64_t g_seed = 1;

struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *f, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

#define CHECK(cond, ...)                                                                              \
    do {                                                                                              \
        if (!(cond)) throw Failure(fmt("%s:%d: %s: ", __FILE__, __LINE__, #cond) + fmt(__VA_ARGS__)); \
    } while (0)

// ---- the reference: IHI0022E A3.4.2 pseudocode, beat by beat --------------------------------

struct RefBeat {
    uint64_t lane0;  // byte address of lane 0 in this beat
    unsigned lo, hi; // active byte lanes
};

std::vector<RefBeat> ref_beats(const AxiAddr &a, unsigned dbb)
{
    const uint64_t start = a.addr;
    const uint64_t nbytes = 1ull << a.size;
    const unsigned blen = a.len + 1u;
    const uint64_t aligned_addr = (start / nbytes) * nbytes;
    bool aligned = aligned_addr == start;
    const uint64_t dtsize = nbytes * blen;
    uint64_t lower_wrap = 0, upper_wrap = 0;
    if (a.burst == kBurstWrap) {
        lower_wrap = (start / dtsize) * dtsize;
        upper_wrap = lower_wrap + dtsize;
    }
    uint64_t addr = start;
    std::vector<RefBeat> out;
    for (unsigned n = 1; n <= blen; ++n) {
        RefBeat b;
        b.lane0 = (addr / dbb) * dbb;
        b.lo = unsigned(addr - (addr / dbb) * dbb);
        if (aligned)
            b.hi = unsigned(b.lo + nbytes - 1);
        else
            b.hi = unsigned(aligned_addr + nbytes - 1 - (addr / dbb) * dbb);
        out.push_back(b);
        if (a.burst != kBurstFixed) {
            if (aligned) {
                addr += nbytes;
                if (a.burst == kBurstWrap && addr >= upper_wrap) addr = lower_wrap;
            } else {
                addr = aligned_addr + nbytes;
                aligned = true;
            }
        }
    }
    return out;
}

uint64_t lanes_mask(unsigned lo, unsigned hi)
{
    uint64_t m = 0;
    for (unsigned i = lo; i <= hi; ++i)
        m |= 1ull << i;
    return m;
}

// A backend for the tests: a byte array with an optional hole [hole_lo, hole_hi) that
// does not exist (to see DECERR per beat).
class TestMemory final : public MemBackend {
public:
    explicit TestMemory(size_t size) : bytes(size, 0) {}
    bool contains(uint64_t addr, uint64_t len) const override
    {
        if (len == 0 || addr >= bytes.size() || len > bytes.size() - addr) return false;
        return addr + len <= hole_lo || addr >= hole_hi;
    }
    void read(uint64_t addr, uint8_t *dst, size_t len) const override { std::memcpy(dst, &bytes[addr], len); }
    void write(uint64_t addr, const uint8_t *src, size_t len) override
    {
        std::memcpy(&bytes[addr], src, len);
    }

    std::vector<uint8_t> bytes;
    uint64_t hole_lo = 0, hole_hi = 0;
};

// The model and a master on one set of pins.
struct Bench {
    Bench(const AxiMemConfig &mc, MemBackend &mem, const AxiTestMaster::Config &tc, TxLog *log = nullptr)
        : model(mc, mem, log), master(tc)
    {
    }

    void step()
    {
        master.drive(pins);
        model.drive(pins, cycle);
        master.sample(pins, cycle);
        model.sample(pins, cycle);
        ++cycle;
    }

    void run_to_completion(uint64_t max_cycles = 2000000)
    {
        const uint64_t end = cycle + max_cycles;
        while (!master.all_done() && cycle < end)
            step();
        CHECK(master.all_done(), "transactions still open after %" PRIu64 " cycles", max_cycles);
        for (int i = 0; i < 4; ++i)
            step(); // nothing may come after
        CHECK(model.idle(), "model not idle after the last response");
    }

    void check_clean() const
    {
        CHECK(master.errors().empty(), "the slave broke a rule: %s", master.errors()[0].c_str());
        CHECK(model.violations() == 0, "the model saw a master violation: %s",
              model.first_violation().c_str());
    }

    AxiPins pins;
    AxiMemModel model;
    AxiTestMaster master;
    uint64_t cycle = 0;
};

AxiMemConfig model_config(unsigned data_bytes, unsigned stall, unsigned lat, bool reorder, uint64_t seed)
{
    AxiMemConfig c;
    c.port = "vram";
    c.data_bytes = data_bytes;
    c.addr_bits = 32;
    c.stall_pct = stall;
    c.max_latency = lat;
    c.reorder = reorder;
    c.seed = seed;
    return c;
}

AxiTestMaster::Config master_config(unsigned data_bytes, unsigned gaps, unsigned stalls, uint64_t seed)
{
    AxiTestMaster::Config c;
    c.data_bytes = data_bytes;
    c.valid_gap_pct = gaps;
    c.ready_stall_pct = stalls;
    c.seed = seed;
    return c;
}

unsigned log2u(unsigned x)
{
    unsigned n = 0;
    while ((1u << n) < x)
        ++n;
    return n;
}

// A random legal burst inside [lo, hi) (4 KiB aligned bounds).
AxiAddr random_burst(Prng &r, unsigned dbb, uint64_t lo, uint64_t hi, unsigned ids)
{
    AxiAddr a;
    a.id = uint32_t(r.below(ids));
    a.size = uint8_t(r.below(log2u(dbb) + 1));
    const uint64_t nb = 1ull << a.size;
    const unsigned kind = unsigned(r.below(10));
    if (kind < 2) {
        a.burst = kBurstFixed;
        a.len = uint8_t(r.below(16));
        a.addr = lo + r.below(hi - lo - nb);
        a.addr = r.below(2) ? a.addr & ~(nb - 1) : a.addr;
    } else if (kind < 4) {
        a.burst = kBurstWrap;
        static const uint8_t lens[] = {1, 3, 7, 15};
        a.len = lens[r.below(4)];
        a.addr = (lo + r.below(hi - lo)) & ~(nb - 1);
    } else {
        a.burst = kBurstIncr;
        a.addr = lo + r.below(hi - lo);
        if (r.below(2)) a.addr &= ~(nb - 1);
        const uint64_t aligned = a.addr & ~(nb - 1);
        const uint64_t page_end = (a.addr | 4095) + 1;
        const uint64_t max_beats = std::min<uint64_t>(256, (page_end - aligned) / nb);
        // short bursts mostly, long ones often enough
        a.len = uint8_t(r.below(3) ? r.below(std::min<uint64_t>(max_beats, 8)) : r.below(max_beats));
    }
    a.cache = uint8_t(r.below(16));
    a.prot = uint8_t(r.below(8));
    return a;
}

MasterTxn random_write(Prng &r, const AxiAddr &a, unsigned dbb)
{
    MasterTxn t;
    t.write = true;
    t.a = a;
    const std::vector<RefBeat> beats = ref_beats(a, dbb);
    for (const RefBeat &b : beats) {
        Lanes d{};
        for (unsigned i = 0; i < dbb; ++i)
            d[i] = uint8_t(r.next());
        const uint64_t active = lanes_mask(b.lo, b.hi);
        uint64_t s;
        switch (r.below(4)) {
        case 0: s = r.next() & active; break; // sparse strobes
        case 1: s = 0; break;                 // none at all: legal, writes nothing
        default: s = active; break;
        }
        if (s == 0 && r.below(2)) s = active;
        t.wdata.push_back(d);
        t.wstrb.push_back(s);
    }
    const unsigned o = unsigned(r.below(6));
    t.order = o == 0 ? MasterTxn::Order::WFirst : o == 1 ? MasterTxn::Order::AwFirst : MasterTxn::Order::Any;
    return t;
}

void ref_apply_write(std::vector<uint8_t> &ref, const MasterTxn &t, unsigned dbb)
{
    const std::vector<RefBeat> beats = ref_beats(t.a, dbb);
    for (size_t n = 0; n < beats.size(); ++n)
        for (unsigned i = beats[n].lo; i <= beats[n].hi; ++i)
            if (t.wstrb[n] >> i & 1) ref[beats[n].lane0 + i] = t.wdata[n][i];
}

void check_read(const std::vector<uint8_t> &ref, const MasterTxn &t, unsigned dbb)
{
    const std::vector<RefBeat> beats = ref_beats(t.a, dbb);
    CHECK(t.rdata.size() == beats.size(), "read id=%u: %zu beats, want %zu", t.a.id, t.rdata.size(),
          beats.size());
    for (size_t n = 0; n < beats.size(); ++n) {
        CHECK(t.rresp[n] == kRespOkay, "read addr=0x%" PRIx64 " beat %zu: %s", t.a.addr, n,
              axi_resp_name(t.rresp[n]));
        for (unsigned i = beats[n].lo; i <= beats[n].hi; ++i)
            CHECK(t.rdata[n][i] == ref[beats[n].lane0 + i],
                  "read addr=0x%" PRIx64 " len=%u size=%u burst=%s beat %zu lane %u: 0x%02x, want 0x%02x",
                  t.a.addr, t.a.len, t.a.size, axi_burst_name(t.a.burst), n, i, t.rdata[n][i],
                  ref[beats[n].lane0 + i]);
    }
}

MasterTxn read_of(const AxiAddr &a)
{
    MasterTxn t;
    t.a = a;
    return t;
}

AxiAddr addr(uint64_t address, uint8_t len, uint8_t size, uint8_t burst, uint32_t id = 0)
{
    AxiAddr a;
    a.addr = address;
    a.len = len;
    a.size = size;
    a.burst = burst;
    a.id = id;
    return a;
}

MasterTxn full_write(const AxiAddr &a, unsigned dbb, uint8_t fill)
{
    MasterTxn t;
    t.write = true;
    t.a = a;
    const std::vector<RefBeat> beats = ref_beats(a, dbb);
    for (size_t n = 0; n < beats.size(); ++n) {
        Lanes d{};
        for (unsigned i = 0; i < dbb; ++i)
            d[i] = uint8_t(fill + n * dbb + i);
        t.wdata.push_back(d);
        t.wstrb.push_back(lanes_mask(beats[n].lo, beats[n].hi));
    }
    return t;
}

// ---- tests ----------------------------------------------------------------------------------

// Rounds of random writes (all in flight together), then random reads checked against the
// reference; the model applies writes in AW order, so the reference does too.
void random_rounds(unsigned dbb, unsigned stall, unsigned lat, bool reorder, unsigned gaps, unsigned rounds,
                   uint64_t salt)
{
    const uint64_t seed = Prng::derive(g_seed, salt);
    Prng r(seed ^ 0xabc);
    const size_t mem_size = 64 * 1024;
    VramMemory vram(mem_size);
    std::vector<uint8_t> ref(mem_size, 0);
    Bench b(model_config(dbb, stall, lat, reorder, seed), vram, master_config(dbb, gaps, stall, seed + 1));
    size_t first = 0;
    for (unsigned round = 0; round < rounds; ++round) {
        const unsigned n = 1 + unsigned(r.below(24));
        for (unsigned i = 0; i < n; ++i) {
            const MasterTxn t = random_write(r, random_burst(r, dbb, 0, mem_size, 4), dbb);
            b.master.add(t);
            ref_apply_write(ref, t, dbb);
        }
        b.run_to_completion();
        for (size_t i = first; i < b.master.txns().size(); ++i)
            CHECK(b.master.txns()[i].bresp == kRespOkay, "write %zu answered %s", i,
                  axi_resp_name(b.master.txns()[i].bresp));
        first = b.master.txns().size();
        for (unsigned i = 0; i < n + 4; ++i)
            b.master.add(read_of(random_burst(r, dbb, 0, mem_size, 4)));
        b.run_to_completion();
        for (size_t i = first; i < b.master.txns().size(); ++i)
            check_read(ref, b.master.txns()[i], dbb);
        first = b.master.txns().size();
    }
    // every byte, read back through the bus, full-width INCR bursts
    for (uint64_t a = 0; a < mem_size; a += 64 * dbb)
        b.master.add(read_of(addr(a, uint8_t(std::min<uint64_t>(63, 4096 / dbb - 1 - (a % 4096) / dbb)),
                                  uint8_t(log2u(dbb)), kBurstIncr, unsigned(a / 4096) & 3)));
    b.run_to_completion();
    for (size_t i = first; i < b.master.txns().size(); ++i)
        check_read(ref, b.master.txns()[i], dbb);
    b.check_clean();
}

void test_random_bursts_8_byte_bus_match_reference_under_stalls()
{
    random_rounds(8, 30, 8, true, 30, 150, 1);
}

void test_random_bursts_4_byte_bus_match_reference_with_heavy_stalls()
{
    random_rounds(4, 70, 20, true, 60, 40, 2);
}

void test_random_bursts_16_and_32_byte_buses_match_reference()
{
    random_rounds(16, 25, 5, true, 20, 40, 3);
    random_rounds(32, 25, 5, false, 20, 40, 4);
}

void test_random_bursts_without_stalls_match_reference()
{
    random_rounds(8, 0, 0, false, 0, 40, 5);
}

// Spec examples, with the expected lanes written out by hand (a check on the reference too).
void test_unaligned_incr_on_32_bit_bus_uses_lanes_1_to_3_then_all()
{
    TestMemory mem(8192);
    Bench b(model_config(4, 0, 0, false, g_seed), mem, master_config(4, 0, 0, g_seed));
    MasterTxn w = full_write(addr(0x1001, 2, 2, kBurstIncr), 4, 0x10); // 0x1001..0x100b
    b.master.add(w);
    b.run_to_completion();
    // beat 0: lanes 1..3 = 0x11 0x12 0x13 -> 0x1001..0x1003; beat 1: 0x14..0x17 -> 0x1004..;
    // beat 2: 0x18..0x1b -> 0x1008..0x100b
    for (unsigned i = 0; i < 16; ++i) {
        const uint8_t want = (i >= 1 && i <= 11) ? uint8_t(0x10 + i) : 0;
        CHECK(mem.bytes[0x1000 + i] == want, "byte 0x%x = 0x%02x, want 0x%02x", 0x1000 + i,
              mem.bytes[0x1000 + i], want);
    }
    CHECK(mem.bytes[0x1000] == 0, "lane 0 of beat 0 is not part of the transfer");
    b.master.add(read_of(addr(0x1001, 2, 2, kBurstIncr)));
    b.run_to_completion();
    const MasterTxn &r = b.master.txns().back();
    CHECK(r.rdata[0][1] == 0x11 && r.rdata[0][3] == 0x13, "beat 0 lanes 1..3");
    CHECK(r.rdata[1][0] == 0x14 && r.rdata[2][3] == 0x1b, "beats 1 and 2 full");
    b.check_clean();
}

void test_wrap_burst_of_four_words_wraps_at_16_bytes()
{
    TestMemory mem(8192);
    Bench b(model_config(4, 0, 0, false, g_seed), mem, master_config(4, 0, 0, g_seed));
    b.master.add(full_write(addr(0x38, 3, 2, kBurstWrap), 4, 0xa0)); // 0x38, 0x3c, 0x30, 0x34
    b.run_to_completion();
    const uint8_t want[16] = {0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
                              0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7};
    CHECK(!std::memcmp(&mem.bytes[0x30], want, 16), "WRAP placed beats wrongly");
    CHECK(mem.bytes[0x2f] == 0 && mem.bytes[0x40] == 0, "WRAP wrote outside its 16 bytes");
    b.check_clean();
}

void test_fixed_narrow_burst_hits_one_address_every_beat()
{
    TestMemory mem(8192);
    Bench b(model_config(8, 0, 0, false, g_seed), mem, master_config(8, 0, 0, g_seed));
    MasterTxn w = full_write(addr(0x203, 3, 0, kBurstFixed), 8, 0x40); // bytes at lane 3, 4 times
    b.master.add(w);
    b.run_to_completion();
    CHECK(mem.bytes[0x203] == w.wdata[3][3], "the last beat wins: 0x%02x", mem.bytes[0x203]);
    for (unsigned i = 0x200; i < 0x210; ++i)
        if (i != 0x203) CHECK(mem.bytes[i] == 0, "byte 0x%x written", i);
    b.check_clean();
}

void test_narrow_reads_put_data_on_the_addressed_lanes()
{
    TestMemory mem(8192);
    for (unsigned i = 0; i < 8192; ++i)
        mem.bytes[i] = uint8_t(i * 13 + 5);
    Bench b(model_config(8, 0, 0, false, g_seed), mem, master_config(8, 0, 0, g_seed));
    b.master.add(read_of(addr(0x105, 3, 0, kBurstIncr))); // bytes 0x105..0x108: lanes 5,6,7,0
    b.master.add(read_of(addr(0x102, 1, 1, kBurstIncr))); // halfwords 0x102, 0x104: lanes 2-3, 4-5
    b.run_to_completion();
    const MasterTxn &r1 = b.master.txns()[0];
    CHECK(r1.rdata[0][5] == mem.bytes[0x105] && r1.rdata[1][6] == mem.bytes[0x106] &&
              r1.rdata[2][7] == mem.bytes[0x107] && r1.rdata[3][0] == mem.bytes[0x108],
          "byte lanes of a narrow INCR");
    const MasterTxn &r2 = b.master.txns()[1];
    CHECK(r2.rdata[0][2] == mem.bytes[0x102] && r2.rdata[0][3] == mem.bytes[0x103] &&
              r2.rdata[1][4] == mem.bytes[0x104] && r2.rdata[1][5] == mem.bytes[0x105],
          "halfword lanes");
    b.check_clean();
}

void test_w_beats_before_aw_are_held_and_applied()
{
    TestMemory mem(65536);
    std::vector<uint8_t> ref(65536, 0);
    Prng r(Prng::derive(g_seed, 10));
    Bench b(model_config(8, 20, 4, true, g_seed), mem, master_config(8, 10, 10, g_seed));
    for (unsigned i = 0; i < 20; ++i) {
        MasterTxn t = random_write(r, random_burst(r, 8, 0, 65536, 4), 8);
        t.order = MasterTxn::Order::WFirst;
        b.master.add(t);
        ref_apply_write(ref, t, 8);
    }
    b.run_to_completion();
    for (const MasterTxn &t : b.master.txns()) {
        CHECK(t.w_last_cycle < t.addr_cycle, "W of a write finished at %" PRIu64 ", its AW at %" PRIu64,
              t.w_last_cycle, t.addr_cycle);
        CHECK(t.resp_cycle > t.addr_cycle, "B before AW");
        CHECK(t.bresp == kRespOkay, "bresp %s", axi_resp_name(t.bresp));
    }
    CHECK(mem.bytes == ref, "memory differs from the reference");
    b.check_clean();
}

// Random writes against a model with the given write order; every byte checked. The master
// presents AW and W independently (Any): its WFirst and AwFirst devices each wait for one
// channel's READY before the other's VALID, which A3.3.1 does not allow a master, and hang on
// the slave orders that wait the other way.
Bench *order_bench(AxiWriteOrder order, TestMemory &mem, std::vector<uint8_t> &ref, unsigned salt)
{
    Prng r(Prng::derive(g_seed, salt));
    AxiMemConfig mc = model_config(8, 20, 4, true, g_seed);
    mc.write_order = order;
    Bench *b = new Bench(mc, mem, master_config(8, 10, 10, g_seed));
    for (unsigned i = 0; i < 40; ++i) {
        MasterTxn t = random_write(r, random_burst(r, 8, 0, 65536, 4), 8);
        t.order = MasterTxn::Order::Any;
        b->master.add(t);
        ref_apply_write(ref, t, 8);
    }
    b->run_to_completion();
    CHECK(mem.bytes == ref, "memory differs from the reference");
    b->check_clean();
    return b;
}

void test_awaitw_order_takes_a_w_beat_before_each_aw()
{
    TestMemory mem(65536);
    std::vector<uint8_t> ref(65536, 0);
    std::unique_ptr<Bench> b(order_bench(AxiWriteOrder::AwAfterW, mem, ref, 30));
    for (const MasterTxn &t : b->master.txns())
        CHECK(t.w_first_cycle < t.addr_cycle, "first W beat at %" PRIu64 ", AW at %" PRIu64 ": AWREADY did not wait",
              t.w_first_cycle, t.addr_cycle);
}

void test_awaitwlast_order_takes_the_whole_burst_before_its_aw()
{
    TestMemory mem(65536);
    std::vector<uint8_t> ref(65536, 0);
    std::unique_ptr<Bench> b(order_bench(AxiWriteOrder::AwAfterWlast, mem, ref, 31));
    for (const MasterTxn &t : b->master.txns())
        CHECK(t.w_last_cycle < t.addr_cycle, "last W beat at %" PRIu64 ", AW at %" PRIu64 ": AWREADY did not wait",
              t.w_last_cycle, t.addr_cycle);
}

void test_wawaitaw_order_takes_w_only_after_its_aw()
{
    TestMemory mem(65536);
    std::vector<uint8_t> ref(65536, 0);
    std::unique_ptr<Bench> b(order_bench(AxiWriteOrder::WAfterAw, mem, ref, 32));
    for (const MasterTxn &t : b->master.txns())
        CHECK(t.w_first_cycle > t.addr_cycle, "first W beat at %" PRIu64 ", AW at %" PRIu64 ": WREADY did not wait",
              t.w_first_cycle, t.addr_cycle);
}

// The longest stretch of WREADY low while WVALID waits, with stall_run 1 and 40 (stall 10%).
void test_stall_run_holds_ready_low_for_long_stretches()
{
    unsigned longest[2] = {0, 0};
    for (unsigned k = 0; k < 2; ++k) {
        TestMemory mem(65536);
        std::vector<uint8_t> ref(65536, 0);
        Prng r(Prng::derive(g_seed, 33));
        AxiMemConfig mc = model_config(8, 10, 0, false, g_seed);
        mc.stall_run = k ? 40 : 1;
        Bench b(mc, mem, master_config(8, 0, 0, g_seed));
        for (unsigned i = 0; i < 60; ++i) {
            MasterTxn t = full_write(addr(0x400 * (i % 60), 15, 3, kBurstIncr, i % 4), 8, uint8_t(i));
            b.master.add(t);
            ref_apply_write(ref, t, 8);
        }
        unsigned run = 0;
        for (uint64_t n = 0; !b.master.all_done() && n < 200000; ++n) {
            b.step();
            run = b.pins.wvalid && !b.pins.wready ? run + 1 : 0;
            longest[k] = std::max(longest[k], run);
        }
        b.run_to_completion();
        CHECK(mem.bytes == ref, "memory differs from the reference (stall_run %u)", mc.stall_run);
        b.check_clean();
    }
    CHECK(longest[0] < 8 && longest[1] >= 20, "longest WREADY-low stretch %u cycles with stall_run 1 (want < 8), %u "
          "with stall_run 40 (want >= 20)", longest[0], longest[1]);
}

void test_eight_reads_outstanding_then_arready_stays_low()
{
    VramMemory vram(65536);
    Bench b(model_config(8, 0, 0, true, g_seed), vram, master_config(8, 0, 0, g_seed));
    for (unsigned i = 0; i < 12; ++i)
        b.master.add(read_of(addr(0x100 * i, 3, 3, kBurstIncr, i % 3)));
    b.master.hold_rready(true);
    for (unsigned i = 0; i < 100; ++i)
        b.step();
    CHECK(b.master.ar_handshakes() == 8, "%u ARs accepted with no R taken, want 8 (the depth)",
          b.master.ar_handshakes());
    b.master.hold_rready(false);
    b.run_to_completion();
    b.check_clean();
}

void test_eight_writes_outstanding_then_awready_stays_low()
{
    VramMemory vram(65536);
    Bench b(model_config(8, 0, 0, true, g_seed), vram, master_config(8, 0, 0, g_seed));
    for (unsigned i = 0; i < 12; ++i)
        b.master.add(full_write(addr(0x100 * i, 1, 3, kBurstIncr, i % 5), 8, uint8_t(i)));
    b.master.hold_bready(true);
    for (unsigned i = 0; i < 100; ++i)
        b.step();
    CHECK(b.master.aw_handshakes() == 8, "%u AWs accepted with no B taken, want 8", b.master.aw_handshakes());
    b.master.hold_bready(false);
    b.run_to_completion();
    b.check_clean();
}

void test_responses_of_different_ids_overtake_only_with_reorder()
{
    for (bool reorder : {false, true}) {
        VramMemory vram(65536);
        Prng r(Prng::derive(g_seed, 11));
        Bench b(model_config(8, 20, 16, reorder, g_seed), vram, master_config(8, 0, 10, g_seed));
        for (unsigned i = 0; i < 400; ++i) {
            const AxiAddr a = random_burst(r, 8, 0, 65536, 4);
            if (i % 2)
                b.master.add(read_of(a));
            else
                b.master.add(random_write(r, a, 8));
        }
        b.run_to_completion();
        b.check_clean(); // includes: per-ID order kept, IDs echoed
        if (reorder)
            CHECK(b.master.reorders() > 0, "no response ever overtook with reorder on");
        else
            CHECK(b.master.reorders() == 0, "%" PRIu64 " responses overtook with reorder off",
                  b.master.reorders());
    }
}

void test_no_random_answers_at_full_speed()
{
    VramMemory vram(65536);
    Bench b(model_config(8, 0, 0, false, g_seed), vram, master_config(8, 0, 0, g_seed));
    b.master.add(full_write(addr(0x40, 3, 3, kBurstIncr), 8, 1));
    b.master.add(read_of(addr(0x40, 3, 3, kBurstIncr)));
    b.run_to_completion();
    const MasterTxn &w = b.master.txns()[0], &rd = b.master.txns()[1];
    CHECK(w.addr_cycle == 0 && w.w_first_cycle == 0 && w.w_last_cycle == 3,
          "write took AW %" PRIu64 " W %" PRIu64 "..%" PRIu64, w.addr_cycle, w.w_first_cycle, w.w_last_cycle);
    CHECK(w.resp_cycle == 4, "B at cycle %" PRIu64 ", want 4 (one after the last W)", w.resp_cycle);
    CHECK(rd.addr_cycle == 0 && rd.resp_cycle == 4, "read AR %" PRIu64 " last R %" PRIu64 ", want 0 and 4",
          rd.addr_cycle, rd.resp_cycle);
    b.check_clean();
}

void test_incr_burst_crossing_4k_answers_slverr_and_writes_nothing()
{
    TestMemory mem(16384);
    Bench b(model_config(8, 10, 3, false, g_seed), mem, master_config(8, 10, 10, g_seed));
    b.master.add(full_write(addr(0xff8, 1, 3, kBurstIncr, 3), 8, 0x77));  // 0xff8..0x1007
    b.master.add(full_write(addr(0x1ffc, 1, 2, kBurstIncr, 4), 8, 0x66)); // 0x1ffc..0x2003
    b.master.add(read_of(addr(0x2ff0, 3, 3, kBurstIncr, 5)));             // 0x2ff0..0x300f
    b.run_to_completion();
    CHECK(b.master.txns()[0].bresp == kRespSlvErr, "bresp %s", axi_resp_name(b.master.txns()[0].bresp));
    CHECK(b.master.txns()[1].bresp == kRespSlvErr, "bresp %s", axi_resp_name(b.master.txns()[1].bresp));
    const MasterTxn &rd = b.master.txns()[2];
    CHECK(rd.rresp.size() == 4, "a refused read still returns len+1 beats");
    for (uint8_t x : rd.rresp)
        CHECK(x == kRespSlvErr, "rresp %s", axi_resp_name(x));
    for (uint8_t x : mem.bytes)
        CHECK(x == 0, "memory written by a refused burst");
    CHECK(b.model.violations() == 3, "%" PRIu64 " violations, want 3 (each burst noted)",
          b.model.violations());
    CHECK(b.master.errors().empty(), "%s", b.master.errors()[0].c_str());
    // the last legal INCR up to the boundary is fine
    b.master.add(full_write(addr(0xff8, 0, 3, kBurstIncr), 8, 0x11));
    b.run_to_completion();
    CHECK(b.master.txns().back().bresp == kRespOkay, "a burst ending at 4 KiB is legal");
}

void test_illegal_bursts_answer_slverr()
{
    TestMemory mem(16384);
    Bench b(model_config(8, 0, 0, false, g_seed), mem, master_config(8, 0, 0, g_seed));
    b.master.add(read_of(addr(0x100, 0, 4, kBurstIncr)));   // 16-byte beats on an 8-byte bus
    b.master.add(read_of(addr(0x104, 3, 3, kBurstWrap)));   // WRAP not aligned to its size
    b.master.add(read_of(addr(0x100, 4, 3, kBurstWrap)));   // WRAP of 5 beats
    b.master.add(read_of(addr(0x100, 1, 3, 3)));            // reserved burst type
    b.master.add(read_of(addr(0x100, 16, 3, kBurstFixed))); // FIXED of 17 beats
    b.master.add(full_write(addr(0x100, 2, 3, kBurstWrap), 8, 1));
    b.run_to_completion();
    for (size_t i = 0; i < 5; ++i) {
        const MasterTxn &t = b.master.txns()[i];
        CHECK(t.rresp.size() == t.a.len + 1u, "read %zu: %zu beats", i, t.rresp.size());
        for (uint8_t x : t.rresp)
            CHECK(x == kRespSlvErr, "read %zu: %s", i, axi_resp_name(x));
    }
    CHECK(b.master.txns()[5].bresp == kRespSlvErr, "WRAP write of 3 beats: %s",
          axi_resp_name(b.master.txns()[5].bresp));
    for (uint8_t x : mem.bytes)
        CHECK(x == 0, "memory written by a refused burst");
    CHECK(b.model.violations() == 6, "%" PRIu64 " violations, want 6", b.model.violations());
}

void test_decerr_per_beat_where_memory_is_missing()
{
    TestMemory mem(16384);
    for (unsigned i = 0; i < 16384; ++i)
        mem.bytes[i] = uint8_t(i);
    mem.hole_lo = 0x1010;
    mem.hole_hi = 0x1020;
    Bench b(model_config(8, 20, 2, false, g_seed), mem, master_config(8, 20, 20, g_seed));
    b.master.add(read_of(addr(0x1000, 7, 3, kBurstIncr))); // beats 2 and 3 fall in the hole
    b.run_to_completion(); // before the write below: reads and writes are not ordered in AXI
    b.master.add(full_write(addr(0x1000, 7, 3, kBurstIncr), 8, 0x80));
    b.master.add(read_of(addr(16384 - 8, 0, 3, kBurstIncr))); // last word: exists
    b.master.add(read_of(addr(16384, 0, 3, kBurstIncr)));     // past the end
    b.run_to_completion();
    const MasterTxn &r = b.master.txns()[0];
    for (unsigned n = 0; n < 8; ++n) {
        const uint8_t want = (n == 2 || n == 3) ? kRespDecErr : kRespOkay;
        CHECK(r.rresp[n] == want, "beat %u: %s, want %s", n, axi_resp_name(r.rresp[n]), axi_resp_name(want));
        if (want == kRespOkay) CHECK(r.rdata[n][0] == uint8_t(0x1000 + 8 * n), "beat %u data", n);
    }
    const MasterTxn &w = b.master.txns()[1];
    CHECK(w.bresp == kRespDecErr, "write over a hole: %s", axi_resp_name(w.bresp));
    CHECK(mem.bytes[0x1000] == w.wdata[0][0] && mem.bytes[0x1038] == w.wdata[7][0],
          "the beats that hit are written");
    CHECK(mem.bytes[0x1010] == 0x10, "the hole stays untouched");
    CHECK(b.master.txns()[2].rresp[0] == kRespOkay, "last word");
    CHECK(b.master.txns()[3].rresp[0] == kRespDecErr, "past the end: %s",
          axi_resp_name(b.master.txns()[3].rresp[0]));
    b.check_clean();
}

void test_vram_past_its_size_answers_decerr_and_stays_sparse()
{
    VramMemory vram(1 << 20);
    Bench b(model_config(8, 0, 0, false, g_seed), vram, master_config(8, 0, 0, g_seed));
    b.master.add(read_of(addr(0x80000, 15, 3, kBurstIncr))); // never written: zeros
    b.master.add(full_write(addr(1 << 20, 0, 3, kBurstIncr), 8, 1));
    b.master.add(read_of(addr((1 << 20) + 0x1000, 1, 3, kBurstIncr)));
    b.run_to_completion();
    const MasterTxn &r = b.master.txns()[0];
    for (unsigned n = 0; n < 16; ++n) {
        CHECK(r.rresp[n] == kRespOkay, "beat %u", n);
        for (unsigned i = 0; i < 8; ++i)
            CHECK(r.rdata[n][i] == 0, "unwritten VRAM reads 0");
    }
    CHECK(vram.pages_allocated() == 0, "reads allocated %zu pages", vram.pages_allocated());
    CHECK(b.master.txns()[1].bresp == kRespDecErr, "write past the end: %s",
          axi_resp_name(b.master.txns()[1].bresp));
    CHECK(b.master.txns()[2].rresp[0] == kRespDecErr && b.master.txns()[2].rresp[1] == kRespDecErr,
          "read past the end");
    b.master.add(full_write(addr(0x3000, 0, 0, kBurstIncr), 8, 9));
    b.run_to_completion();
    CHECK(vram.pages_allocated() == 1, "one byte written, %zu pages", vram.pages_allocated());
    b.check_clean();
}

void test_host_memory_serves_live_buffers_and_decerr_elsewhere()
{
    HostMemory host;
    void *cpu = nullptr, *cpu2 = nullptr;
    uint64_t bus = 0, bus2 = 0;
    CHECK(host.alloc(100, &cpu, &bus) == GR_OK, "alloc");
    CHECK(host.alloc(8192, &cpu2, &bus2) == GR_OK, "alloc");
    CHECK(bus == HostMemory::kBusBase, "first bus address 0x%" PRIx64, bus);
    CHECK(bus2 >= bus + 2 * 4096, "a guard page between buffers");
    std::memset(cpu2, 0x3c, 8192);
    AxiMemConfig mc = model_config(8, 10, 4, true, g_seed);
    mc.port = "host";
    mc.addr_bits = 64;
    Bench b(mc, host, master_config(8, 10, 10, g_seed));
    b.master.add(full_write(addr(bus + 8, 3, 3, kBurstIncr), 8, 0x50));
    b.master.add(read_of(addr(bus2 + 4096 - 16, 1, 3, kBurstIncr, 1)));
    b.master.add(read_of(addr(bus + 4096, 0, 3, kBurstIncr, 2))); // the guard page
    b.master.add(read_of(addr(0x1000, 0, 3, kBurstIncr, 3)));     // below every buffer
    b.run_to_completion();
    CHECK(b.master.txns()[0].bresp == kRespOkay, "write into a buffer");
    CHECK(static_cast<uint8_t *>(cpu)[8] == 0x50 && static_cast<uint8_t *>(cpu)[39] == 0x50 + 31,
          "the host sees what the device wrote");
    CHECK(b.master.txns()[1].rresp[1] == kRespOkay && b.master.txns()[1].rdata[1][7] == 0x3c,
          "read from a buffer");
    CHECK(b.master.txns()[2].rresp[0] == kRespDecErr, "guard page");
    CHECK(b.master.txns()[3].rresp[0] == kRespDecErr, "below the bus base");
    CHECK(host.free(bus) == GR_OK, "free");
    b.master.add(read_of(addr(bus + 8, 0, 3, kBurstIncr)));
    b.run_to_completion();
    CHECK(b.master.txns()[4].rresp[0] == kRespDecErr, "a DMA after free answers DECERR");
    b.check_clean();
}

void test_same_seed_same_timing_different_seed_different_timing()
{
    auto run = [](uint64_t seed) {
        VramMemory vram(65536);
        Prng r(Prng::derive(g_seed, 12)); // the same traffic every time
        Bench b(model_config(8, 30, 8, true, seed), vram, master_config(8, 0, 0, 99));
        for (unsigned i = 0; i < 100; ++i) {
            const AxiAddr a = random_burst(r, 8, 0, 65536, 4);
            if (i % 2)
                b.master.add(read_of(a));
            else
                b.master.add(random_write(r, a, 8));
        }
        b.run_to_completion();
        b.check_clean();
        return b.master.handshake_hash();
    };
    const uint64_t a = run(g_seed), a2 = run(g_seed), c = run(g_seed + 1);
    CHECK(a == a2, "same seed, different handshakes");
    CHECK(a != c, "different seeds, same handshakes");
}

// A master that breaks the rules, by hand: the model must notice each.
void test_model_reports_master_protocol_violations()
{
    VramMemory vram(65536);
    AxiMemConfig mc = model_config(8, 0, 0, false, g_seed);
    mc.stall_pct = 100; // never ready: every VALID has to wait
    AxiMemModel m(mc, vram, nullptr);
    AxiPins p;
    uint64_t cyc = 0;
    auto step = [&] {
        m.drive(p, cyc);
        m.sample(p, cyc);
        ++cyc;
    };
    p.awvalid = true;
    p.aw = addr(0x100, 0, 3, kBurstIncr);
    step();
    p.aw.addr = 0x108; // payload changed while waiting
    step();
    CHECK(m.violations() == 1, "AW payload change: %" PRIu64, m.violations());
    p.awvalid = false; // dropped while waiting
    step();
    CHECK(m.violations() == 2, "AWVALID drop: %" PRIu64, m.violations());
    p.wvalid = true;
    p.wstrb = 0xff;
    step();
    p.wdata[0] = 1;
    step();
    CHECK(m.violations() == 3, "W payload change: %" PRIu64, m.violations());
    p.wvalid = false;
    p.arvalid = true;
    p.ar = addr(0x100, 0, 3, kBurstIncr);
    step();
    CHECK(m.violations() == 4, "WVALID drop: %" PRIu64, m.violations());
    p.arvalid = false;
    step();
    CHECK(m.violations() == 5, "ARVALID drop: %" PRIu64, m.violations());
    p.arvalid = false;
    step();

    // WLAST on the wrong beat, WSTRB outside the active lanes
    TestMemory mem(8192);
    Bench b(model_config(8, 0, 0, false, g_seed), mem, master_config(8, 0, 0, g_seed));
    MasterTxn t = full_write(addr(0x100, 1, 3, kBurstIncr), 8, 0);
    t.wlast = {true, true};
    b.master.add(t);
    MasterTxn t2 = full_write(addr(0x204, 0, 2, kBurstIncr), 8, 0);
    t2.wstrb[0] = 0xff; // lanes 0..3 are not part of a 4-byte transfer at 0x204
    b.master.add(t2);
    MasterTxn t3 = full_write(addr(0x303, 1, 2, kBurstIncr), 8, 0x30); // beat 0: lane 3 only
    t3.wstrb[0] = 0x78; // lanes 3..6: 4..6 are outside the unaligned first beat
    b.master.add(t3);
    b.run_to_completion();
    CHECK(b.model.violations() == 3, "%" PRIu64 " violations, want 3: %s", b.model.violations(),
          b.model.first_violation().c_str());
    CHECK(mem.bytes[0x200] == 0 && mem.bytes[0x204] == t2.wdata[0][4], "only the active lanes are written");
    CHECK(mem.bytes[0x303] == t3.wdata[0][3] && mem.bytes[0x304] == t3.wdata[1][4] && mem.bytes[0x302] == 0,
          "unaligned first beat: lane 3, then the next word");
    CHECK(mem.bytes[0x308] == 0, "past the burst");
}

void test_txlog_lines_for_every_handshake()
{
    char path[] = "/tmp/gr_harness_models_txlog.XXXXXX";
    const int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    close(fd);
    {
        TxLog log;
        CHECK(log.open(path, 42) == GR_OK, "open %s", path);
        VramMemory vram(65536);
        Bench b(model_config(8, 0, 0, false, g_seed), vram, master_config(8, 0, 0, g_seed), &log);
        MasterTxn w = full_write(addr(0x40, 1, 3, kBurstIncr, 5), 8, 0x10);
        w.wstrb[1] = 0x0f;
        b.master.add(w);
        b.run_to_completion();
        b.master.add(read_of(addr(0x40, 1, 3, kBurstIncr, 6)));
        b.run_to_completion();
        b.check_clean();
    }
    FILE *f = std::fopen(path, "r");
    CHECK(f, "no log");
    std::string all;
    char line[512];
    while (std::fgets(line, sizeof line, f))
        all += line;
    std::fclose(f);
    std::remove(path);
    const char *want[] = {
        "0 vram aw id=0x5 addr=0x00000040 len=1 size=3 burst=INCR lock=0 cache=0x0 prot=0\n",
        "0 vram w data=0x1716151413121110 strb=0xff last=0\n",
        "1 vram w data=0x1f1e1d1c1b1a1918 strb=0x0f last=1\n",
        "2 vram b id=0x5 resp=OKAY\n",
        "vram ar id=0x6 addr=0x00000040 len=1 size=3 burst=INCR",
        "vram r id=0x6 data=0x1716151413121110 resp=OKAY last=0\n",
        "vram r id=0x6 data=0x000000001b1a1918 resp=OKAY last=1\n", // only WSTRB 0x0f was written
        "seed=0x2a\n",
    };
    for (const char *w : want)
        CHECK(all.find(w) != std::string::npos, "no line '%s' in:\n%s", w, all.c_str());
}

struct Test {
    const char *name;
    void (*fn)();
};

const Test kTests[] = {
    {"write order AwAfterW: a W beat of each burst is taken before its AW", test_awaitw_order_takes_a_w_beat_before_each_aw},
    {"write order AwAfterWlast: each burst's W is all taken before its AW",
     test_awaitwlast_order_takes_the_whole_burst_before_its_aw},
    {"write order WAfterAw: W is taken only after its AW", test_wawaitaw_order_takes_w_only_after_its_aw},
    {"stall_run holds READY low for long stretches", test_stall_run_holds_ready_low_for_long_stretches},
    {"random bursts on an 8-byte bus match the reference under stalls and latency",
     test_random_bursts_8_byte_bus_match_reference_under_stalls},
    {"random bursts on a 4-byte bus match the reference with heavy stalls",
     test_random_bursts_4_byte_bus_match_reference_with_heavy_stalls},
    {"random bursts on 16- and 32-byte buses match the reference",
     test_random_bursts_16_and_32_byte_buses_match_reference},
    {"random bursts without stalls match the reference", test_random_bursts_without_stalls_match_reference},
    {"unaligned INCR on a 32-bit bus uses lanes 1-3 then all lanes",
     test_unaligned_incr_on_32_bit_bus_uses_lanes_1_to_3_then_all},
    {"WRAP of four words from 0x38 wraps to 0x30", test_wrap_burst_of_four_words_wraps_at_16_bytes},
    {"FIXED narrow burst hits one address every beat", test_fixed_narrow_burst_hits_one_address_every_beat},
    {"narrow reads put data on the addressed byte lanes", test_narrow_reads_put_data_on_the_addressed_lanes},
    {"W beats before their AW are held and applied", test_w_beats_before_aw_are_held_and_applied},
    {"eight reads outstanding, then ARREADY stays low", test_eight_reads_outstanding_then_arready_stays_low},
    {"eight writes outstanding, then AWREADY stays low",
     test_eight_writes_outstanding_then_awready_stays_low},
    {"responses of different IDs overtake only with reorder; per-ID order kept",
     test_responses_of_different_ids_overtake_only_with_reorder},
    {"without randomness the model answers at full speed", test_no_random_answers_at_full_speed},
    {"INCR crossing 4 KiB answers SLVERR and writes nothing",
     test_incr_burst_crossing_4k_answers_slverr_and_writes_nothing},
    {"illegal bursts (size, WRAP, reserved, FIXED>16) answer SLVERR", test_illegal_bursts_answer_slverr},
    {"DECERR per beat where memory is missing", test_decerr_per_beat_where_memory_is_missing},
    {"VRAM past its size answers DECERR; reads do not allocate",
     test_vram_past_its_size_answers_decerr_and_stays_sparse},
    {"host memory serves live buffers, DECERR on guard pages and after free",
     test_host_memory_serves_live_buffers_and_decerr_elsewhere},
    {"same seed same handshakes, different seed different",
     test_same_seed_same_timing_different_seed_different_timing},
    {"the model reports master protocol violations", test_model_reports_master_protocol_violations},
    {"the transaction log has a line for every handshake", test_txlog_lines_for_every_handshake},
};

bool parse_u64(const char *s, uint64_t *out)
{
    const bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *digits = hex ? s + 2 : s;
    if (!*digits || *digits == '-' || *digits == '+') return false;
    char *end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(digits, &end, hex ? 16 : 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    if (const char *env = std::getenv("GR_TEST_SEED"); env && *env && !parse_u64(env, &g_seed)) {
        std::fprintf(stderr, "bad GR_TEST_SEED '%s'\n", env);
        return 2;
    }
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) {
            if (!parse_u64(argv[++i], &g_seed)) {
                std::fprintf(stderr, "bad --seed '%s'\n", argv[i]);
                return 2;
            }
        } else {
            std::fprintf(stderr, "usage: %s [--seed N]\n", argv[0]);
            return 2;
        }
    }
    const size_t n = sizeof kTests / sizeof kTests[0];
    std::printf("# seed=%" PRIu64 " (rerun with --seed %" PRIu64 ")\n1..%zu\n", g_seed, g_seed, n);
    unsigned failed = 0;
    for (size_t i = 0; i < n; ++i) {
        std::string why;
        try {
            kTests[i].fn();
        } catch (const std::exception &e) {
            why = e.what();
        }
        if (why.empty()) {
            std::printf("ok %zu - %s\n", i + 1, kTests[i].name);
        } else {
            ++failed;
            std::printf("not ok %zu - %s\n", i + 1, kTests[i].name);
            for (size_t pos = 0; pos < why.size();) {
                const size_t nl = why.find('\n', pos);
                std::printf("#   %s\n",
                            why.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos).c_str());
                if (nl == std::string::npos) break;
                pos = nl + 1;
            }
        }
        std::fflush(stdout);
    }
    if (failed) std::printf("# %u failed; seed=%" PRIu64 "\n", failed, g_seed);
    return failed ? 1 : 0;
}
