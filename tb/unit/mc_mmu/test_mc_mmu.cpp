/* SPDX-License-Identifier: Apache-2.0 */
// test_mc_mmu.cpp: Verilator unit test of mc_mmu (TLB + page-table walker) against a C
// reference walker (ref_walker.c, written from rtl/mc/README.md) and a model of the documented
// TLB policy.
//
// A sparse VRAM model serves m_pt_* with seeded random ARREADY, read latency and RVALID gaps,
// and answers DECERR or SLVERR for some table pages. Random page tables (two roots; every page
// size, SYSTEM/CACHEABLE/WRITABLE mixes, invalid entries at every level, LEAF above L1, table
// pointers beyond VRAM, reserved bits set at random) are translated by random request streams
// with random rsp_ready backpressure, random invalidate pulses and enable_i toggles; between
// bursts entries are rewritten with or without an invalidate, and the root switches.
//
// Every response is predicted in request order: a physical request by the reference; a
// translated one by the TLB model at the cycle the MMU decided (invalidate pulses applied in
// cycle order) and, on a miss, by the reference walk, started where the model of the page-walk
// cache says (the levels it knows are answered from its pointers, as the RTL does, stale or
// not), whose remaining entry addresses must be exactly the reads the MMU issued. Directed tests
// follow (stale mapping kept without invalidate, invalidate, invalidate by page, invalidate
// during a walk, physical mode, read errors, capacity, reset, and the page-walk cache: reads
// per cached level, dropped by either invalidate and by a change of root, refilled after).
//
// Output: TAP. Options: --seed N (default 1), --bursts N, --verbose.
// Test-only assumptions about the RTL's timing: a walk's first ARVALID rises the cycle after the
// walk started (mc_walker's StIdle -> StAr), which dates the TLB decision of a miss; the walk's
// result is held from the cycle after its last page-table R beat (StDone), which dates its fill
// of the TLB and the page-walk cache (rtl/mc/README.md).
#include "Vmc_mmu.h"
#include "verilated.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "prng.h"
#include "ref_walker.h"

namespace {

constexpr unsigned VRAM_BITS = 32;  // mc_mmu VramAddrBits in this build
constexpr unsigned TLB_ENTRIES = 16;
constexpr unsigned PWC_ENTRIES = 4;  // mc_mmu PwcEntries (its default)
constexpr unsigned ID_MASK = 0xf;
constexpr uint64_t VA_MASK = (1ull << 48) - 1;
constexpr uint64_t RESERVED_BITS = 0xfff0000000000fc0ull;  // [63:52], [11:6]
constexpr uint64_t ATTR_BITS = GR_PTE_WRITABLE | GR_PTE_SYSTEM | GR_PTE_CACHEABLE;

uint64_t low_mask(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

// ---- VRAM: sparse 8-byte words; some 4 KiB pages answer an error -------------------------------
struct Vram {
    std::unordered_map<uint64_t, uint64_t> words;  // addr >> 3
    std::map<uint64_t, unsigned> err_pages;        // addr >> 12 -> RRESP (2 SLVERR, 3 DECERR)

    uint64_t read(uint64_t addr) const
    {
        auto it = words.find(addr >> 3);
        return it == words.end() ? 0 : it->second;
    }
    void write(uint64_t addr, uint64_t v) { words[addr >> 3] = v; }
    unsigned resp(uint64_t addr) const
    {
        auto it = err_pages.find(addr >> 12);
        return it == err_pages.end() ? 0 : it->second;
    }
};

int vram_read64(void *ctx, uint64_t addr, uint64_t *out)
{
    const Vram *m = static_cast<const Vram *>(ctx);
    if (m->resp(addr) != 0)
        return -1;
    *out = m->read(addr);
    return 0;
}

// ---- the documented TLB policy --------------------------------------------------------------
struct TlbModel {
    struct Entry {
        bool valid = false;
        uint64_t vpn = 0;  // VA[47:12]
        unsigned bits = 12;
        uint64_t base = 0;
        bool w = false, s = false, c = false;
    };
    std::vector<Entry> e = std::vector<Entry>(TLB_ENTRIES);
    unsigned rr = 0;

    static bool covers(const Entry &x, uint64_t vpn)
    {
        unsigned sh = x.bits - 12;
        return x.valid && (x.vpn >> sh) == (vpn >> sh);
    }
    int lookup(uint64_t vpn) const
    {
        for (unsigned i = 0; i < e.size(); i++)
            if (covers(e[i], vpn))
                return int(i);
        return -1;
    }
    // A fill that an invalidate of its own cycle drops still moves the round-robin pointer
    // when it would have taken it (no entry free).
    void rotate()
    {
        for (const Entry &x : e)
            if (!x.valid)
                return;
        rr = (rr + 1) % unsigned(e.size());
    }
    void fill(uint64_t vpn, const gr_ref_result_t &r)
    {
        unsigned v = 0;
        bool free_found = false;
        for (unsigned i = 0; i < e.size() && !free_found; i++)
            if (!e[i].valid) {
                v = i;
                free_found = true;
            }
        if (!free_found) {
            v = rr;
            rr = (rr + 1) % unsigned(e.size());
        }
        Entry &x = e[v];
        x.valid = true;
        x.vpn = vpn & ~low_mask(r.page_bits - 12);
        x.bits = r.page_bits;
        x.base = r.page_base;
        x.w = r.page_writable;
        x.s = r.page_system;
        x.c = r.page_cacheable;
    }
    void inv_all()
    {
        for (auto &x : e)
            x.valid = false;
    }
    void inv_page(uint64_t vpn)
    {
        for (auto &x : e)
            if (covers(x, vpn))
                x.valid = false;
    }
    void reset()
    {
        inv_all();
        rr = 0;
    }
};

// ---- the documented page-walk cache policy (rtl/mc/README.md, "Page-walk cache") ---------------
struct PwcModel {
    struct Entry {
        bool valid = false;
        uint64_t tag = 0;  // VA[47:21]
        bool has_l0 = false, pt64 = false;
        uint64_t l2 = 0, l1 = 0, l0 = 0;  // table byte addresses
    };
    std::vector<Entry> e = std::vector<Entry>(PWC_ENTRIES);
    unsigned rr = 0;
    uint64_t root = 0;  // root_i[VramAddrBits-1:12] << 12 of the entries

    // Where a walk of vpn from root starts: 3 (the root) .. 0, and the entry that says so.
    struct Start {
        int level = 3;
        Entry x;
    };
    static uint64_t root_key(uint64_t r) { return r & low_mask(VRAM_BITS) & ~0xfffull; }
    Start lookup(uint64_t vpn, uint64_t r) const
    {
        Start st;
        if (root_key(r) != root)
            return st;
        uint64_t tag = vpn >> 9;
        for (int level = 0; level <= 2; level++)
            for (const Entry &x : e) {
                bool m = level == 0 ? (x.valid && x.has_l0 && x.tag == tag)
                                    : x.valid && (x.tag >> (9 * level)) == (tag >> (9 * level));
                if (m) {
                    st.level = level;
                    st.x = x;
                    return st;
                }
            }
        return st;
    }
    // As the TLB's: a dropped fill moves the pointer when it would have taken it (same root,
    // no entry with its tag, none free).
    void rotate(uint64_t vpn, uint64_t r)
    {
        uint64_t tag = vpn >> 9;
        if (root_key(r) != root)
            return;
        for (const Entry &x : e)
            if (!x.valid || x.tag == tag)
                return;
        rr = (rr + 1) % unsigned(e.size());
    }
    void fill(uint64_t vpn, uint64_t r, const Entry &path)
    {
        uint64_t tag = vpn >> 9;
        int v = -1;
        bool rotate = false;
        if (root_key(r) != root) {
            for (auto &x : e)
                x.valid = false;
            root = root_key(r);
        }
        for (unsigned i = 0; i < e.size() && v < 0; i++)
            if (e[i].valid && e[i].tag == tag)
                v = int(i);
        for (unsigned i = 0; i < e.size() && v < 0; i++)
            if (!e[i].valid)
                v = int(i);
        if (v < 0) {
            v = int(rr);
            rotate = true;
        }
        if (rotate)
            rr = (rr + 1) % unsigned(e.size());
        e[size_t(v)] = path;
        e[size_t(v)].valid = true;
        e[size_t(v)].tag = tag;
    }
    void flush()
    {
        for (auto &x : e)
            x.valid = false;
    }
    void reset()
    {
        flush();
        rr = 0;
        root = 0;
    }
};

// The reference walk with the levels above `st.level` answered from the cache entry's pointers,
// as the RTL takes them: the first 3 - level reads of the result are not bus reads.
struct PwcRead {
    const gr_ref_mmu_t *mem;
    const PwcModel::Start *st;
    unsigned n = 0;
};

int pwc_read64(void *ctx, uint64_t addr, uint64_t *out)
{
    PwcRead *p = static_cast<PwcRead *>(ctx);
    unsigned k = p->n++;
    if (int(k) < 3 - p->st->level) {
        const PwcModel::Entry &x = p->st->x;
        uint64_t next = k == 0 ? x.l2 : k == 1 ? x.l1 : x.l0;
        *out = GR_PTE_VALID | next | (k == 2 && x.pt64 ? GR_PTE_PT64 : 0);
        return 0;
    }
    return p->mem->read64(p->mem->ctx, addr, out);
}

void walk_from(const gr_ref_mmu_t &mmu, const PwcModel::Start &st, uint64_t va, bool write,
               gr_ref_result_t *out)
{
    PwcRead pr{&mmu, &st};
    gr_ref_mmu_t m = mmu;
    m.read64 = pwc_read64;
    m.ctx = &pr;
    gr_ref_translate(&m, va, write, false, out);
}

// The path a good walk went through, as the cache keeps it.
PwcModel::Entry walk_path(const gr_ref_result_t &r)
{
    PwcModel::Entry x;
    x.l2 = r.read_addr[1] & ~0xfffull;
    x.l1 = r.read_addr[2] & ~0xfffull;
    x.has_l0 = r.reads == 4;
    x.l0 = x.has_l0 ? r.read_addr[3] & ~0xfffull : 0;
    x.pt64 = x.has_l0 && r.page_bits == 16;
    return x;
}

struct Req {
    uint64_t va = 0;
    bool write = false;
    bool physical = false;
    unsigned id = 0;
};

struct Rsp {
    unsigned id = 0;
    uint64_t pa = 0;
    bool system = false, cacheable = false;
    unsigned shift = 0;
    unsigned fault = 0;
    bool operator==(const Rsp &o) const
    {
        return id == o.id && pa == o.pa && system == o.system && cacheable == o.cacheable &&
               shift == o.shift && (fault != 0) == (o.fault != 0) && fault == o.fault;
    }
};

// One request's story, for the directed tests.
struct Obs {
    Req req;
    bool physical = false;  // as the MMU saw it (enable_i low makes it physical)
    bool walked = false;
    unsigned reads = 0;
    int pwc_level = 3;  // the model's: where the walk started
    std::vector<uint64_t> read_addrs;
    Rsp expect;
    Rsp got;
    bool answered = false;
};

struct Pulse {
    uint64_t cycle;
    bool all;
    uint64_t vpn;
};

struct PendingRead {
    uint64_t addr;
    uint64_t data;
    unsigned resp;
    uint64_t ready_at;
};

// A named check's failure count and the first message.
struct Check {
    explicit Check(const char *n) : name(n) {}
    const char *name;
    unsigned fails = 0;
    std::string first;
};

std::string fmt(const char *f, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

std::string rsp_str(const Rsp &r)
{
    return fmt("id %u pa 0x%013" PRIx64 " sys %d cache %d shift %u fault %u", r.id, r.pa,
               r.system, r.cacheable, r.shift, r.fault);
}

class Bench {
public:
    Vmc_mmu *top;
    gr::Prng rng;
    uint64_t cyc = 0;
    bool verbose = false;
    Vram mem;

    // knobs
    unsigned rsp_ready_pct = 100, arready_pct = 100, rvalid_pct = 100;
    unsigned rlat_min = 0, rlat_max = 0, req_gap_pct = 0;
    unsigned inv_permille = 0, invpage_permille = 0, enable_flip_permille = 0;
    std::vector<uint64_t> invpage_vas;  // where random page invalidates aim
    bool enable = true;
    uint64_t root = 0;
    std::function<void(Bench &)> on_cycle;  // a directed test's hook, before eval
    bool force_inv = false;                 // one cycle, set by a hook or a directed test

    // driver and scoreboard
    std::deque<Req> to_send;
    bool presenting = false;
    Req cur;
    std::deque<size_t> accepted;  // indexes into log: accepted, response not loaded
    std::deque<size_t> loaded;    // loaded, not yet taken
    std::vector<Obs> log;
    std::vector<uint64_t> reads_since_load;
    int64_t first_ar_cycle = -1;  // first cycle with ARVALID since the last response
    int64_t last_r_cycle = -1;    // the last page-table R beat's cycle since the last response
    std::deque<Pulse> pulses;

    // model
    TlbModel tlb;
    PwcModel pwc;
    uint64_t m_hits = 0, m_misses = 0, m_walks = 0, translated = 0;

    // VRAM slave
    std::deque<PendingRead> rq;
    bool r_presenting = false;
    unsigned outstanding = 0;

    // protocol history
    bool ar_wait = false;
    uint64_t ar_wait_addr = 0;
    bool rsp_wait = false;
    Rsp rsp_wait_payload;

    // coverage
    std::set<unsigned> cov_shift, cov_fault, cov_attr;
    std::set<int> cov_pwc;  // levels walks started at
    unsigned cov_decerr = 0, cov_slverr = 0, cov_phys = 0, cov_stale_hits = 0, cov_hits = 0;
    unsigned cov_inv_in_flight = 0;

    // checks
    Check c_rsp{"every response equals the reference walk or the TLB model's entry"};
    Check c_reads{"each miss reads exactly the reference walk's entries below the page-walk cache's level; hits and physical requests read nothing"};
    Check c_policy{"each hit or miss is the documented TLB policy's (lowest free, else round-robin; invalidates by cycle)"};
    Check c_order{"one response per accepted request, in order, with its id"};
    Check c_axi{"m_pt: ARLEN 0, ARSIZE 3, INCR, ARID 0, ARCACHE 0010, ARPROT 001, AR held until ARREADY, one read outstanding"};
    Check c_hold{"a response holds its payload until rsp_ready_i"};
    Check c_count{"counters: hits and misses equal the model's, hits + misses == translated requests, walks == misses"};
    Check c_idle{"idle_o high once every response is taken, low while a request is held"};
    Check c_hang{"no request waits more than 20000 cycles"};

    explicit Bench(uint64_t seed) : top(new Vmc_mmu), rng(seed) {}
    ~Bench()
    {
        top->final();
        delete top;
    }

    void fail(Check &c, const std::string &msg)
    {
        if (c.fails++ == 0)
            c.first = fmt("cycle %" PRIu64 ": ", cyc) + msg;
        if (verbose)
            printf("# FAIL [%s] cycle %" PRIu64 ": %s\n", c.name, cyc, msg.c_str());
    }

    gr_ref_mmu_t ref_mmu() const
    {
        gr_ref_mmu_t m;
        m.vram_addr_bits = VRAM_BITS;
        m.root = root;
        m.enable = enable;
        m.read64 = vram_read64;
        m.ctx = const_cast<Vram *>(&mem);
        return m;
    }

    static Rsp from_ref(const gr_ref_result_t &r, unsigned id)
    {
        Rsp x;
        x.id = id;
        x.pa = r.pa;
        x.system = r.system;
        x.cacheable = r.cacheable;
        x.shift = r.page_shift;
        x.fault = r.fault;
        return x;
    }

    Rsp dut_rsp() const
    {
        Rsp x;
        x.id = top->rsp_id_o;
        x.pa = top->rsp_pa_o;
        x.system = top->rsp_system_o;
        x.cacheable = top->rsp_cacheable_o;
        x.shift = top->rsp_page_shift_o;
        x.fault = top->rsp_fault_o ? top->rsp_fault_type_o : 0;
        if (top->rsp_fault_o != (top->rsp_fault_type_o != 0))
            x.fault = 7;  // never equal to a prediction
        return x;
    }

    void apply_pulses_before(uint64_t cycle, bool *any = nullptr)
    {
        while (!pulses.empty() && pulses.front().cycle < cycle) {
            const Pulse &p = pulses.front();
            if (p.all)
                tlb.inv_all();
            else
                tlb.inv_page(p.vpn);
            pwc.flush();  // either kind empties the page-walk cache
            if (any)
                *any = true;
            pulses.pop_front();
        }
    }

    // The response register took a new response at the edge ending cycle u.
    void on_load(uint64_t u)
    {
        if (accepted.empty()) {
            fail(c_order, "a response with no request outstanding");
            return;
        }
        Obs &o = log[accepted.front()];
        accepted.pop_front();
        std::vector<uint64_t> reads;
        reads.swap(reads_since_load);
        int64_t far = first_ar_cycle;
        first_ar_cycle = -1;
        int64_t last_r = last_r_cycle;
        last_r_cycle = -1;
        o.walked = !reads.empty();
        o.reads = unsigned(reads.size());
        o.read_addrs = reads;
        gr_ref_mmu_t mmu = ref_mmu();
        mmu.enable = true;  // enable_i counted at the handshake (o.physical); it may differ now
        gr_ref_result_t ref;

        if (o.physical) {
            gr_ref_translate(&mmu, o.req.va, o.req.write, true, &ref);
            o.expect = from_ref(ref, o.req.id);
            if (o.walked)
                fail(c_reads, fmt("physical request VA 0x%012" PRIx64 " read page tables", o.req.va));
            cov_phys++;
        } else {
            translated++;
            uint64_t vpn = (o.req.va & VA_MASK) >> 12;
            uint64_t d = o.walked ? uint64_t(far - 1) : u;
            apply_pulses_before(d);
            int idx = tlb.lookup(vpn);
            PwcModel::Start st = pwc.lookup(vpn, root);
            if (verbose)
                printf("# load u=%" PRIu64 " d=%" PRIu64 " va 0x%012" PRIx64 " %s model %d pwc %d\n",
                       u, d, o.req.va, o.walked ? "walked" : "hit", idx, st.level);
            if (idx >= 0)
                gr_ref_translate(&mmu, o.req.va, o.req.write, false, &ref);
            else
                walk_from(mmu, st, o.req.va, o.req.write, &ref);
            unsigned skip = unsigned(3 - st.level);
            if ((idx >= 0) == o.walked)
                fail(c_policy, fmt("VA 0x%012" PRIx64 ": model says %s, the MMU %s", o.req.va,
                                   idx >= 0 ? "hit" : "miss", o.walked ? "walked" : "did not walk"));
            if (!o.walked && idx >= 0) {
                const TlbModel::Entry &x = tlb.e[size_t(idx)];
                gr_ref_result_t h;
                memset(&h, 0, sizeof h);
                gr_ref_page_response(x.base, x.bits, x.w, x.s, x.c, o.req.va & VA_MASK,
                                     o.req.write, &h);
                o.expect = from_ref(h, o.req.id);
                m_hits++;
                cov_hits++;
                if (!(from_ref(h, 0) == from_ref(ref, 0)))
                    cov_stale_hits++;
                apply_pulses_before(u + 1);
            } else {
                o.expect = from_ref(ref, o.req.id);
                m_misses++;
                m_walks++;
                // The fill's cycle: the first the walker holds its result, the cycle after the
                // last page-table read's R beat (not the cycle the response is taken). A pulse
                // before it stops the fill; one in it drops the fill, which still moves the
                // round-robin pointers; later ones act on what it filled.
                uint64_t f = (o.walked && last_r >= 0) ? uint64_t(last_r + 1) : u;
                bool early = false, late = false;
                apply_pulses_before(f, &early);
                bool dropped = !pulses.empty() && pulses.front().cycle == f;
                o.pwc_level = st.level;
                if (o.walked)
                    cov_pwc.insert(st.level);
                if (ref.have_page && !early) {
                    if (dropped) {
                        tlb.rotate();
                        pwc.rotate(vpn, root);
                    } else {
                        tlb.fill(vpn, ref);
                        pwc.fill(vpn, root, walk_path(ref));
                    }
                }
                apply_pulses_before(u + 1, &late);
                if (early || late)
                    cov_inv_in_flight++;
                if (o.walked) {
                    bool same = ref.reads > skip && reads.size() == ref.reads - skip;
                    for (size_t i = 0; same && i < reads.size(); i++)
                        same = reads[i] == ref.read_addr[skip + i];
                    if (!same) {
                        std::string s = fmt("VA 0x%012" PRIx64 ": read", o.req.va);
                        for (uint64_t a : reads)
                            s += fmt(" 0x%" PRIx64, a);
                        s += fmt("; reference (page-walk cache from level %d)", st.level);
                        for (unsigned i = skip; i < ref.reads; i++)
                            s += fmt(" 0x%" PRIx64, ref.read_addr[i]);
                        fail(c_reads, s);
                    }
                }
            }
            if (o.expect.fault)
                cov_fault.insert(o.expect.fault);
            else {
                cov_shift.insert(o.expect.shift);
                cov_attr.insert(unsigned(o.expect.system) | unsigned(o.expect.cacheable) << 1 |
                                unsigned(o.req.write) << 2);
            }
        }
        loaded.push_back(size_t(&o - &log[0]));
    }

    void drive_inputs()
    {
        if (!presenting && !to_send.empty() && !rng.percent(req_gap_pct)) {
            cur = to_send.front();
            to_send.pop_front();
            presenting = true;
        }
        top->req_valid_i = presenting;
        // Don't-care payload while not valid: random, so a design that looks at it shows.
        top->req_va_i = presenting ? cur.va : rng.next() & VA_MASK;
        top->req_write_i = presenting ? cur.write : rng.below(2);
        top->req_physical_i = presenting ? cur.physical : rng.below(2);
        top->req_id_i = presenting ? cur.id : unsigned(rng.below(16));
        top->rsp_ready_i = rng.percent(rsp_ready_pct);
        if (enable_flip_permille && rng.below(1000) < enable_flip_permille)
            enable = !enable;
        top->enable_i = enable;
        top->root_i = uint32_t(root);
        top->vram_pages_i = 1u << (VRAM_BITS - 12); // all of the VRAM space: beyond() is its end
        bool inv = force_inv || (inv_permille && rng.below(1000) < inv_permille);
        bool invp = invpage_permille && !invpage_vas.empty() && rng.below(1000) < invpage_permille;
        force_inv = false;
        top->tlb_invalidate_i = inv;
        top->tlb_inv_page_i = invp;
        top->tlb_inv_page_va_i = invp ? (invpage_vas[rng.below(invpage_vas.size())] +
                                         rng.below(1ull << 21)) & VA_MASK
                                      : rng.next() & VA_MASK;

        top->m_pt_arready_i = rng.percent(arready_pct);
        if (!r_presenting && !rq.empty() && cyc >= rq.front().ready_at && rng.percent(rvalid_pct))
            r_presenting = true;
        top->m_pt_rvalid_i = r_presenting;
        top->m_pt_rdata_i = r_presenting ? rq.front().data : rng.next();
        top->m_pt_rresp_i = r_presenting ? rq.front().resp : unsigned(rng.below(4));
        top->m_pt_rlast_i = r_presenting ? 1 : unsigned(rng.below(2));
        top->m_pt_rid_i = 0;
    }

    void step()
    {
        drive_inputs();
        if (on_cycle)
            on_cycle(*this);
        top->eval();

        // ---- observe this cycle's handshakes ----
        // Requests accepted before this cycle and responses not yet taken keep the MMU busy.
        if (top->idle_o && (!accepted.empty() || !loaded.empty()))
            fail(c_idle, "idle_o high with a request in flight");
        bool req_hs = top->req_valid_i && top->req_ready_o;
        bool rsp_hs = top->rsp_valid_o && top->rsp_ready_i;
        bool ar_hs = top->m_pt_arvalid_o && top->m_pt_arready_i;
        bool r_hs = top->m_pt_rvalid_i && top->m_pt_rready_o;

        if (ar_wait && !(top->m_pt_arvalid_o && top->m_pt_araddr_o == ar_wait_addr))
            fail(c_axi, fmt("ARVALID/ARADDR changed before ARREADY (was 0x%" PRIx64 ")", ar_wait_addr));
        ar_wait = top->m_pt_arvalid_o && !top->m_pt_arready_i;
        ar_wait_addr = top->m_pt_araddr_o;
        if (top->m_pt_arvalid_o &&
            (top->m_pt_arlen_o != 0 || top->m_pt_arsize_o != 3 || top->m_pt_arburst_o != 1 ||
             top->m_pt_arid_o != 0 || top->m_pt_arcache_o != 2 || top->m_pt_arprot_o != 1 ||
             (top->m_pt_araddr_o & 7) != 0))
            fail(c_axi, fmt("AR fields: addr 0x%x len %u size %u burst %u id %u cache %u prot %u",
                            top->m_pt_araddr_o, top->m_pt_arlen_o, top->m_pt_arsize_o,
                            top->m_pt_arburst_o, top->m_pt_arid_o, top->m_pt_arcache_o,
                            top->m_pt_arprot_o));
        if (top->m_pt_arvalid_o && first_ar_cycle < 0)
            first_ar_cycle = int64_t(cyc);  // ARVALID's rise, not the handshake, dates the walk
        if (ar_hs) {
            if (outstanding != 0)
                fail(c_axi, "a second read issued while one is outstanding");
            outstanding++;
            uint64_t a = top->m_pt_araddr_o;
            reads_since_load.push_back(a);
            unsigned resp = mem.resp(a);
            if (resp == 3)
                cov_decerr++;
            if (resp == 2)
                cov_slverr++;
            rq.push_back({a, resp ? rng.next() : mem.read(a), resp,
                          cyc + 1 + rlat_min + rng.below(rlat_max - rlat_min + 1)});
        }
        if (r_hs) {
            last_r_cycle = int64_t(cyc);
            rq.pop_front();
            r_presenting = false;
            if (outstanding)
                outstanding--;
        }

        if (rsp_wait && !(top->rsp_valid_o && dut_rsp() == rsp_wait_payload))
            fail(c_hold, "response changed or dropped before rsp_ready_i");
        rsp_wait = top->rsp_valid_o && !top->rsp_ready_i;
        rsp_wait_payload = dut_rsp();

        if (top->tlb_invalidate_i)
            pulses.push_back({cyc, true, 0});
        if (top->tlb_inv_page_i)
            pulses.push_back({cyc, false, (top->tlb_inv_page_va_i & VA_MASK) >> 12});
        if (verbose && (top->tlb_invalidate_i || top->tlb_inv_page_i))
            printf("# pulse %" PRIu64 " %s 0x%012" PRIx64 "\n", cyc, top->tlb_invalidate_i ? "all" : "page",
                   uint64_t(top->tlb_inv_page_va_i));

        if (req_hs) {
            Obs o;
            o.req = cur;
            o.physical = cur.physical || !enable;
            log.push_back(o);
            accepted.push_back(log.size() - 1);
            presenting = false;
        }
        if (rsp_hs) {
            if (loaded.empty()) {
                fail(c_order, "rsp_valid_o with no response expected");
            } else {
                Obs &o = log[loaded.front()];
                loaded.pop_front();
                o.got = dut_rsp();
                o.answered = true;
                if (!(o.got == o.expect)) {
                    std::string m = fmt("VA 0x%012" PRIx64 " %s%s: got %s, want %s", o.req.va,
                                        o.req.write ? "write" : "read",
                                        o.physical ? " physical" : (o.walked ? " walked" : " hit"),
                                        rsp_str(o.got).c_str(), rsp_str(o.expect).c_str());
                    fail(o.got.id != o.expect.id ? c_order : c_rsp, m);
                }
            }
        }

        bool pre_valid = top->rsp_valid_o, pre_ready = top->rsp_ready_i;
        top->clk_i = 1;
        top->eval();
        top->clk_i = 0;
        top->eval();
        if (top->rsp_valid_o && (!pre_valid || pre_ready))
            on_load(cyc);
        cyc++;
    }

    bool drained() const
    {
        return to_send.empty() && !presenting && accepted.empty() && loaded.empty();
    }

    // Sends reqs and waits until every response is taken; returns their log entries.
    std::vector<Obs> run(const std::vector<Req> &reqs)
    {
        size_t first = log.size();
        for (const Req &r : reqs)
            to_send.push_back(r);
        uint64_t start = cyc;
        while (!drained()) {
            step();
            if (cyc - start > 20000 + 2000 * reqs.size()) {
                fail(c_hang, fmt("%zu requests still waiting", to_send.size() + accepted.size()));
                printf("Bail out! the MMU hung (see the check above)\n");
                report_and_exit();
            }
        }
        // One more cycle without traffic: the MMU must be idle.
        step();
        if (!top->idle_o)
            fail(c_idle, "idle_o low after every response was taken");
        std::vector<Obs> out(log.begin() + long(first), log.end());
        return out;
    }

    Obs one(uint64_t va, bool write = false, bool physical = false)
    {
        return run({Req{va, write, physical, unsigned(rng.below(16))}})[0];
    }

    void check_counters(const char *where)
    {
        uint32_t h = top->tlb_hits_o, m = top->tlb_misses_o, w = top->walks_o;
        if (h != uint32_t(m_hits) || m != uint32_t(m_misses) || w != uint32_t(m_walks) ||
            uint64_t(h) + m != translated)
            fail(c_count, fmt("%s: hits %u misses %u walks %u; model %" PRIu64 " %" PRIu64
                              " %" PRIu64 ", translated %" PRIu64,
                              where, h, m, w, m_hits, m_misses, m_walks, translated));
    }

    void reset(unsigned cycles)
    {
        top->rst_i = 1;
        for (unsigned i = 0; i < cycles; i++) {
            top->req_valid_i = 0;
            top->m_pt_rvalid_i = 0;
            top->m_pt_arready_i = 0;
            top->tlb_invalidate_i = 0;
            top->tlb_inv_page_i = 0;
            top->clk_i = 1;
            top->eval();
            top->clk_i = 0;
            top->eval();
            cyc++;
        }
        top->rst_i = 0;
        // The common reset also empties the VRAM side and the bench's bookkeeping.
        to_send.clear();
        presenting = false;
        accepted.clear();
        loaded.clear();
        reads_since_load.clear();
        first_ar_cycle = -1;
        last_r_cycle = -1;
        pulses.clear();
        rq.clear();
        r_presenting = false;
        outstanding = 0;
        ar_wait = rsp_wait = false;
        tlb.reset();
        pwc.reset();
        m_hits = m_misses = m_walks = translated = 0;
    }

    void pulse_invalidate()
    {
        force_inv = true;
        step();
    }

    void pulse_inv_page(uint64_t va)
    {
        on_cycle = [va](Bench &b) {
            b.top->tlb_inv_page_i = 1;
            b.top->tlb_inv_page_va_i = va & VA_MASK;
        };
        step();
        on_cycle = nullptr;
    }

    void quiet()
    {
        rsp_ready_pct = arready_pct = rvalid_pct = 100;
        rlat_min = rlat_max = 0;
        req_gap_pct = 0;
        inv_permille = invpage_permille = enable_flip_permille = 0;
    }

    unsigned tap = 0, failures = 0;

    void tap_line(bool ok, const std::string &name, const std::string &why = "")
    {
        tap++;
        printf("%s %u - %s\n", ok ? "ok" : "not ok", tap, name.c_str());
        if (!ok) {
            failures++;
            if (!why.empty())
                printf("#   %s\n", why.c_str());
        }
        fflush(stdout);
    }
    void tap_check(const Check &c) { tap_line(c.fails == 0, c.name, fmt("%u failures; first at %s", c.fails, c.first.c_str())); }

    [[noreturn]] void report_and_exit();
};

uint64_t g_seed = 1;
constexpr unsigned PLAN = 21;

void Bench::report_and_exit()
{
    // A hang: report the generic checks so the plan still adds up, then fail.
    for (Check *c : {&c_rsp, &c_reads, &c_policy, &c_order, &c_axi, &c_hold, &c_count, &c_idle, &c_hang})
        tap_check(*c);
    while (tap < PLAN)
        tap_line(false, "not reached (hang)");
    printf("# seed=%" PRIu64 " FAILED\n", g_seed);
    exit(1);
}

// ---- random page tables -------------------------------------------------------------------
struct Region {
    uint64_t va;
    unsigned bits;  // log2 of the region covered by the entry (page size for leaves)
};

struct Slot {  // an entry written by the generator, rewritable later
    uint64_t addr;
    int level;  // 3..0; 0 also for PT64 entries
    bool pt64;
    uint64_t va;
    int root;
};

class Gen {
public:
    Gen(Bench &b) : b_(b), rng_(b.rng) {}

    std::vector<Region> regions[2];
    std::vector<Region> err_regions[2];  // behind an entry pointing to an SLVERR/DECERR table
    std::vector<Slot> slots;

    uint64_t alloc_table()
    {
        uint64_t t = next_table_;
        next_table_ += 0x1000;
        return t;
    }

    uint64_t junk() { return rng_.next() & RESERVED_BITS; }

    uint64_t beyond_vram_page() { return rng_.range(1ull << (VRAM_BITS - 12), (1ull << 40) - 1) << 12; }

    uint64_t leaf(int level)
    {
        uint64_t a = rng_.next() & ATTR_BITS;
        uint64_t pa;
        if (a & GR_PTE_SYSTEM)
            pa = rng_.below(1ull << 40) << 12;
        else if (rng_.percent(6))
            pa = beyond_vram_page();
        else
            pa = rng_.below(1ull << (VRAM_BITS - 12)) << 12;
        uint64_t e = GR_PTE_VALID | a | pa | junk();
        if (level == 0)
            e |= rng_.next() & (GR_PTE_LEAF | GR_PTE_PT64);  // ignored in L0/PT64 entries
        else
            e |= GR_PTE_LEAF | (rng_.next() & GR_PTE_PT64);  // PT64 ignored with LEAF
        return e;
    }

    uint64_t invalid() { return rng_.next() & ~GR_PTE_VALID; }

    uint64_t err_table(unsigned resp)
    {
        uint64_t t = alloc_table();
        b_.mem.err_pages[t >> 12] = resp;
        return t;
    }

    // One entry of a level-`level` table for the region at va; recurses into new tables.
    uint64_t make_entry(int level, bool pt64, uint64_t va, int root)
    {
        unsigned bits = level == 0 ? (pt64 ? 16 : 12) : 12 + 9 * unsigned(level);
        unsigned k = unsigned(rng_.below(100));
        if (level == 0) {
            regions[root].push_back({va, bits});
            return k < 82 ? leaf(0) : invalid();
        }
        uint64_t ptr_junk = junk() | (rng_.next() & ATTR_BITS);
        if (level == 1) {
            if (k < 30)
                return pointer(level, va, root, false, ptr_junk);
            if (k < 50)
                return pointer(level, va, root, true, ptr_junk);
            if (k < 80) {
                regions[root].push_back({va, 21});
                return leaf(1);
            }
        } else if (k < 72) {
            return pointer(level, va, root, false, ptr_junk | (rng_.next() & GR_PTE_PT64));
        } else if (k < 80) {
            regions[root].push_back({va, bits});
            return GR_PTE_VALID | GR_PTE_LEAF | (rng_.next() & ~GR_PTE_VALID);  // LEAF above L1
        }
        regions[root].push_back({va, bits});
        if (k < 88)
            return invalid();
        if (k < 92)
            return GR_PTE_VALID | beyond_vram_page() | ptr_junk;
        err_regions[root].push_back({va, bits});
        if (k < 96)
            return GR_PTE_VALID | err_table(3) | ptr_junk;
        return GR_PTE_VALID | err_table(2) | ptr_junk;
    }

    uint64_t pointer(int level, uint64_t va, int root, bool pt64, uint64_t extra)
    {
        uint64_t t = alloc_table();
        fill_table(level - 1, t, va, pt64, root);
        return GR_PTE_VALID | t | extra | (pt64 ? GR_PTE_PT64 : 0);
    }

    void fill_table(int level, uint64_t table, uint64_t prefix, bool pt64, int root)
    {
        unsigned slots_n = (level == 0 && pt64) ? 32 : 512;
        unsigned shift = level == 0 ? (pt64 ? 16 : 12) : 12 + 9 * unsigned(level);
        unsigned n = level == 3 ? 3 : level == 0 ? unsigned(rng_.range(3, 8)) : unsigned(rng_.range(2, 3));
        std::set<unsigned> used;
        while (used.size() < n)
            used.insert(unsigned(rng_.below(slots_n)));
        for (unsigned idx : used) {
            uint64_t va = prefix | uint64_t(idx) << shift;
            uint64_t addr = table + idx * 8ull;
            b_.mem.write(addr, make_entry(level, pt64, va, root));
            slots.push_back({addr, level, pt64, va, root});
        }
        // An entry never written reads as zero: unmapped.
        unsigned idx = unsigned(rng_.below(slots_n));
        if (!used.count(idx))
            regions[root].push_back({prefix | uint64_t(idx) << shift, shift});
    }

    uint64_t make_root(int root)
    {
        uint64_t t = alloc_table();
        fill_table(3, t, 0, false, root);
        // Make sure each root has a DECERR and an SLVERR table behind an L3 entry.
        for (unsigned resp = 2; resp <= 3; resp++) {
            unsigned idx = unsigned(rng_.below(512));
            uint64_t addr = t + idx * 8ull;
            if (b_.mem.read(addr) != 0)
                continue;
            uint64_t va = uint64_t(idx) << 39;
            b_.mem.write(addr, GR_PTE_VALID | err_table(resp) | junk());
            slots.push_back({addr, 3, false, va, root});
            regions[root].push_back({va, 39});
            err_regions[root].push_back({va, 39});
        }
        return t;
    }

    // The deepest generated entry whose region holds va (the one a rewrite changes most).
    const Slot *slot_for(uint64_t va, int root) const
    {
        const Slot *best = nullptr;
        for (const Slot &s : slots) {
            unsigned bits = s.level == 0 ? (s.pt64 ? 16 : 12) : 12 + 9 * unsigned(s.level);
            if (s.root == root && (s.va >> bits) == (va >> bits) && (!best || s.level < best->level))
                best = &s;
        }
        return best;
    }

    void rewrite(Slot s) { b_.mem.write(s.addr, make_entry(s.level, s.pt64, s.va, s.root)); }  // a copy: make_entry may grow slots

private:
    Bench &b_;
    gr::Prng &rng_;
    uint64_t next_table_ = 0x01000000;
};

// ---- directed helpers: explicit mappings at a separate root ---------------------------------
class Mapper {
public:
    Mapper(Bench &b, uint64_t first_table) : b_(b), next_(first_table) {}
    uint64_t alloc()
    {
        uint64_t t = next_;
        next_ += 0x1000;
        return t;
    }
    uint64_t root() { return root_ ? root_ : (root_ = alloc()); }

    // The table at `level` for va (3 = the root), creating tables on the way.
    uint64_t table(uint64_t va, int level, bool pt64 = false)
    {
        uint64_t t = root();
        for (int l = 3; l > level; l--) {
            uint64_t a = t + ((va >> (12 + 9 * l)) & 511) * 8;
            uint64_t e = b_.mem.read(a);
            if (!(e & GR_PTE_VALID) || (e & GR_PTE_LEAF)) {
                e = GR_PTE_VALID | alloc() | (l == 1 && pt64 ? GR_PTE_PT64 : 0);
                b_.mem.write(a, e);
            }
            t = e & GR_PTE_ADDR_MASK;
        }
        return t;
    }
    // Writes a leaf; returns the entry's address.
    uint64_t map(uint64_t va, unsigned bits, uint64_t pa, uint64_t attrs)
    {
        uint64_t a;
        if (bits == 21) {
            a = table(va, 1) + ((va >> 21) & 511) * 8;
            b_.mem.write(a, GR_PTE_VALID | GR_PTE_LEAF | pa | attrs);
        } else if (bits == 16) {
            a = table(va, 0, true) + ((va >> 16) & 31) * 8;
            b_.mem.write(a, GR_PTE_VALID | pa | attrs);
        } else {
            a = table(va, 0) + ((va >> 12) & 511) * 8;
            b_.mem.write(a, GR_PTE_VALID | pa | attrs);
        }
        return a;
    }
    // The L1 entry's address for va.
    uint64_t l1_entry(uint64_t va) { return table(va, 1) + ((va >> 21) & 511) * 8; }

private:
    Bench &b_;
    uint64_t next_;
    uint64_t root_ = 0;
};

void random_phase(Bench &b, unsigned bursts)
{
    Gen g(b);
    uint64_t roots[2] = {g.make_root(0), g.make_root(1)};
    int cur_root = 0;
    b.root = roots[0];
    std::vector<uint64_t> recent;
    std::vector<uint64_t> hot;
    for (const Region &r : g.regions[0])
        b.invpage_vas.push_back(r.va);

    for (unsigned burst = 0; burst < bursts; burst++) {
        // Per-burst knobs: from no stall at all to heavy backpressure on every side.
        static const unsigned ready_pcts[] = {100, 80, 40, 15};
        b.rsp_ready_pct = ready_pcts[b.rng.below(4)];
        b.arready_pct = ready_pcts[b.rng.below(4)];
        b.rvalid_pct = ready_pcts[b.rng.below(4)];
        b.rlat_min = 0;
        b.rlat_max = unsigned(b.rng.below(3) == 0 ? 12 : b.rng.below(3));
        b.req_gap_pct = unsigned(b.rng.below(3) * 25);
        unsigned inv_mode = unsigned(b.rng.below(5));
        b.inv_permille = inv_mode == 3 ? 15 : 0;
        b.invpage_permille = inv_mode == 4 ? 30 : 0;
        b.enable_flip_permille = b.rng.below(6) == 0 ? 20 : 0;
        if (b.enable_flip_permille == 0)
            b.enable = true;

        std::vector<Req> reqs;
        unsigned n = unsigned(b.rng.range(1, 24));
        // Mostly a small hot set of regions (TLB hits, and pressure on its 16 entries), some
        // recent pages again, some from the other root's tables, some anywhere.
        const std::vector<Region> &pool = g.regions[b.rng.below(8) == 0 ? 1 - cur_root : cur_root];
        // The hot set: fixed pages, kept from the last burst half the time.
        if (hot.empty() || b.rng.percent(50)) {
            hot.clear();
            unsigned hot_n = unsigned(b.rng.range(2, 24));
            gr_ref_mmu_t mmu = b.ref_mmu();
            mmu.enable = true;
            for (unsigned i = 0; i < hot_n; i++) {
                // Mostly pages that translate (faults are never cached, so they never hit).
                uint64_t va = 0;
                for (unsigned tries = 0; tries < 8; tries++) {
                    const Region &reg = pool[b.rng.below(pool.size())];
                    va = (reg.va + b.rng.below(1ull << std::min(reg.bits, 30u))) & VA_MASK;
                    gr_ref_result_t r;
                    gr_ref_translate(&mmu, va, false, false, &r);
                    if (r.fault == 0 || b.rng.percent(15))
                        break;
                }
                hot.push_back(va);
            }
        }
        for (unsigned i = 0; i < n; i++) {
            Req r;
            unsigned k = unsigned(b.rng.below(100));
            if (k < 5) {
                r.va = b.rng.next() & VA_MASK;
            } else if (k < 7 && !g.err_regions[cur_root].empty()) {
                const Region &reg = g.err_regions[cur_root][b.rng.below(g.err_regions[cur_root].size())];
                r.va = reg.va + b.rng.below(1ull << std::min(reg.bits, 30u));
            } else if (k < 25 && !recent.empty()) {
                r.va = (recent[b.rng.below(recent.size())] & ~0xfffull) | b.rng.below(4096);
            } else if (k < 40) {
                const Region &reg = pool[b.rng.below(pool.size())];
                r.va = reg.va + b.rng.below(1ull << std::min(reg.bits, 30u));
            } else {
                r.va = (hot[b.rng.below(hot.size())] & ~0xfffull) | b.rng.below(4096);
            }
            r.va &= VA_MASK;
            r.write = b.rng.percent(40);
            r.physical = b.rng.percent(8);
            r.id = unsigned(b.rng.below(16));
            reqs.push_back(r);
            recent.push_back(r.va);
            if (recent.size() > 6)
                recent.erase(recent.begin());
        }
        b.run(reqs);
        b.check_counters("after a burst");

        // Between bursts (nothing in flight): rewrite entries, switch roots, invalidate or not.
        b.quiet();
        unsigned k = unsigned(b.rng.below(100));
        if (k < 25) {
            unsigned m = unsigned(b.rng.range(1, 4));
            for (unsigned i = 0; i < m; i++) {
                // Mostly an entry behind a page just used: it may sit in the TLB.
                const Slot *s = b.rng.percent(75) && !recent.empty()
                                    ? g.slot_for(recent[b.rng.below(recent.size())], cur_root)
                                    : nullptr;
                g.rewrite(s ? *s : g.slots[b.rng.below(g.slots.size())]);
            }
            if (b.rng.percent(35))
                b.pulse_invalidate();
        } else if (k < 31) {
            cur_root = 1 - cur_root;
            b.root = roots[cur_root];
            if (b.rng.percent(70))
                b.pulse_invalidate();
        } else if (k < 36) {
            b.pulse_invalidate();
        }
    }
    b.quiet();
    b.enable = true;
}

}  // namespace

int main(int argc, char **argv)
{
    unsigned bursts = 400;
    bool verbose = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            g_seed = strtoull(argv[++i], nullptr, 0);
        else if (!strcmp(argv[i], "--bursts") && i + 1 < argc)
            bursts = unsigned(strtoul(argv[++i], nullptr, 0));
        else if (!strcmp(argv[i], "--verbose"))
            verbose = true;
        else if (argv[i][0] != '+') {
            fprintf(stderr, "usage: %s [--seed N] [--bursts N] [--verbose]\n", argv[0]);
            return 2;
        }
    }
    Verilated::commandArgs(argc, argv);
    printf("1..%u\n# seed=%" PRIu64 "\n", PLAN, g_seed);
    Bench b(g_seed);
    b.verbose = verbose;
    b.reset(4);

    // ---- random phase ---------------------------------------------------------------------
    random_phase(b, bursts);
    b.check_counters("end of the random phase");
    printf("# random phase: %zu requests, %u hits (%u on a stale entry), %" PRIu64 " walks, %u "
           "physical, %u DECERR / %u SLVERR reads, %u walks overlapped by an invalidate, %" PRIu64
           " cycles\n",
           b.log.size(), b.cov_hits, b.cov_stale_hits, b.m_walks, b.cov_phys, b.cov_decerr,
           b.cov_slverr, b.cov_inv_in_flight, b.cyc);
    {
        bool ok = b.cov_shift.count(12) && b.cov_shift.count(16) && b.cov_shift.count(21) &&
                  b.cov_fault.count(1) && b.cov_fault.count(2) && b.cov_fault.count(3) &&
                  b.cov_attr.size() == 8 && b.cov_decerr && b.cov_slverr && b.cov_phys &&
                  b.cov_stale_hits && b.cov_hits && b.cov_inv_in_flight && b.cov_pwc.size() == 4;
        b.tap_line(ok, "random traffic covers 4K/64K/2M pages, faults 1/2/3, every system/cacheable/write mix, DECERR, SLVERR, physical, stale hits, invalidates during walks, walks from every page-walk cache level",
                   fmt("shifts %zu faults %zu attrs %zu decerr %u slverr %u phys %u stale %u inv-in-walk %u pwc levels %zu",
                       b.cov_shift.size(), b.cov_fault.size(), b.cov_attr.size(), b.cov_decerr,
                       b.cov_slverr, b.cov_phys, b.cov_stale_hits, b.cov_inv_in_flight,
                       b.cov_pwc.size()));
    }

    // ---- directed tests, at their own root ---------------------------------------------------
    Mapper mp(b, 0x40000000);
    b.root = mp.root();
    b.pulse_invalidate();
    const uint64_t W = GR_PTE_WRITABLE, S = GR_PTE_SYSTEM, C = GR_PTE_CACHEABLE;

    // Stale mapping kept without an invalidate; the new one used after.
    {
        uint64_t va = 0x123456789000ull;
        uint64_t pte = mp.map(va, 12, 0x0abcd000, W | C);
        Obs a = b.one(va + 0x10);
        Obs h = b.one(va + 0x20, true);
        b.mem.write(pte, GR_PTE_VALID | 0x0def0000 | S);  // moved, read-only, system
        Obs s1 = b.one(va + 0x30);
        Obs s2 = b.one(va + 0x40, true);
        bool ok = a.walked && a.got.pa == 0x0abcd010 && !h.walked && h.got.pa == 0x0abcd020 &&
                  !s1.walked && s1.got.pa == 0x0abcd030 && s1.got.cacheable && !s1.got.system &&
                  !s2.walked && s2.got.fault == 0 && s2.got.pa == 0x0abcd040;
        b.tap_line(ok, "a PTE rewritten without invalidate: the TLB's old mapping is still used, no walk",
                   fmt("walked %d/%d/%d/%d pa %" PRIx64 " %" PRIx64 " %" PRIx64, a.walked, h.walked,
                       s1.walked, s2.walked, a.got.pa, s1.got.pa, s2.got.pa));
        b.pulse_invalidate();
        Obs n1 = b.one(va + 0x50);
        Obs n2 = b.one(va + 0x60, true);
        Obs n3 = b.one(va + 0x70);
        ok = n1.walked && n1.got.pa == 0x0def0050 && n1.got.system && !n1.got.cacheable &&
             n1.got.shift == 12 && !n2.walked && n2.got.fault == 2 && n2.got.pa == 0 &&
             !n3.walked && n3.got.pa == 0x0def0070;
        b.tap_line(ok, "after tlb_invalidate_i the new mapping is walked and used (and a write to it faults read-only from the TLB)",
                   fmt("walked %d/%d/%d pa %" PRIx64 " fault %u", n1.walked, n2.walked, n3.walked,
                       n1.got.pa, n2.got.fault));
    }

    // Invalidate by page: only the entries covering that VA.
    {
        b.pulse_invalidate();
        uint64_t v4a = 0x000200003000ull, v4b = 0x000200004000ull;
        uint64_t v64 = 0x000200210000ull, v2m = 0x000200600000ull;
        mp.map(v4a, 12, 0x00111000, W);
        mp.map(v4b, 12, 0x00112000, W);
        mp.map(v64, 16, 0x00220000, W);
        mp.map(v2m, 21, 0x00400000, W);
        std::vector<Req> all = {{v4a, false, false, 1}, {v4b, false, false, 2},
                                {v64 + 0x5008, false, false, 3}, {v2m + 0x1ff008, false, false, 4}};
        auto walks = [&](const std::vector<Obs> &o) {
            std::string s;
            for (const Obs &x : o)
                s += x.walked ? "W" : "h";
            return s;
        };
        std::string first = walks(b.run(all));
        std::string again = walks(b.run(all));
        b.pulse_inv_page(v4a + 0x123);
        std::string after4k = walks(b.run(all));
        b.pulse_inv_page(v64 + 0xf000);
        std::string after64k = walks(b.run(all));
        b.pulse_inv_page(v2m + 0x100000);
        std::string after2m = walks(b.run(all));
        bool ok = first == "WWWW" && again == "hhhh" && after4k == "Whhh" && after64k == "hhWh" &&
                  after2m == "hhhW";
        b.tap_line(ok, "tlb_inv_page_i drops only the 4K, 64K or 2M entry covering its VA",
                   first + " " + again + " " + after4k + " " + after64k + " " + after2m);
    }

    // Invalidate during a walk: the walk answers with what it read and fills nothing.
    {
        bool ok = true;
        std::string why;
        b.rlat_min = 4;
        b.rlat_max = 8;
        uint64_t va = 0x000300000000ull;
        uint64_t pte = mp.map(va, 12, 0x00777000, W);
        for (int delay = -1; delay <= 12; delay += 3) {
            b.pulse_invalidate();
            b.mem.write(pte, GR_PTE_VALID | 0x00777000 | W);
            // delay -1: the pulse meets the leaf's R beat; else `delay` cycles after the first AR.
            int64_t fired = -1;
            b.on_cycle = [&](Bench &x) {
                bool walking = !x.reads_since_load.empty() || x.top->m_pt_arvalid_o;
                if (fired >= 0 || !walking)
                    return;
                bool leaf_beat = x.r_presenting && x.rq.front().addr == pte;
                bool when = delay < 0 ? leaf_beat
                                      : x.first_ar_cycle >= 0 && int64_t(x.cyc) >= x.first_ar_cycle + delay;
                if (when) {
                    x.top->tlb_invalidate_i = 1;
                    fired = int64_t(x.cyc);
                }
            };
            Obs w = b.one(va + 0x8);
            b.on_cycle = nullptr;
            b.mem.write(pte, GR_PTE_VALID | 0x00888000 | W);  // no invalidate after this
            Obs again = b.one(va + 0x8);
            Obs third = b.one(va + 0x8);
            // `again` reads from the root: the interrupted walk filled no page-walk cache entry.
            bool fine = fired >= 0 && w.walked && w.got.pa == 0x00777008 && again.walked &&
                        again.reads == 4 && again.got.pa == 0x00888008 && !third.walked &&
                        third.got.pa == 0x00888008;
            if (!fine) {
                ok = false;
                why += fmt("delay %d: fired %d walked %d/%d/%d reads %u pa %" PRIx64 " %" PRIx64 "; ",
                           delay, int(fired >= 0), w.walked, again.walked, third.walked, again.reads,
                           w.got.pa, again.got.pa);
            }
        }
        b.quiet();
        b.tap_line(ok, "tlb_invalidate_i during a walk: the request gets what the walk read, and neither the TLB nor the page-walk cache is filled with it", why);
    }

    // Physical mode.
    {
        uint64_t va = 0x00ab12345678ull;
        mp.map(va & ~0xfffull, 12, 0x00999000, W | S | C);
        b.check_counters("before physical");
        uint64_t h0 = b.top->tlb_hits_o, m0 = b.top->tlb_misses_o;
        b.enable = false;
        Obs p1 = b.one(va, true);
        b.enable = true;
        Obs p2 = b.one(va, false, true);
        Obs t = b.one(va);
        bool ok = !p1.walked && p1.got.pa == 0x12345678 && !p1.got.system && !p1.got.cacheable &&
                  p1.got.shift == 12 && p1.got.fault == 0 && !p2.walked && p2.got.pa == 0x12345678 &&
                  t.walked && t.got.pa == 0x00999678 && t.got.system &&
                  b.top->tlb_hits_o == h0 && b.top->tlb_misses_o == m0 + 1;
        b.tap_line(ok, "physical mode (enable_i low, or req_physical_i): PA = VA[31:0], system 0, no walk, not counted",
                   fmt("pa %" PRIx64 " %" PRIx64 " %" PRIx64, p1.got.pa, p2.got.pa, t.got.pa));
    }

    // Page-table read errors and addresses beyond VRAM (from the root: the cache emptied first).
    {
        b.pulse_invalidate();
        uint64_t vd = 0x000400000000ull, vs = 0x000400200000ull, vb = 0x000400400000ull;
        uint64_t vl = 0x000400600000ull, vsys = 0x000400800000ull;
        uint64_t dec = mp.alloc(), slv = mp.alloc();
        b.mem.err_pages[dec >> 12] = 3;
        b.mem.err_pages[slv >> 12] = 2;
        b.mem.write(mp.l1_entry(vd), GR_PTE_VALID | dec);
        b.mem.write(mp.l1_entry(vs), GR_PTE_VALID | slv | GR_PTE_PT64);
        b.mem.write(mp.l1_entry(vb), GR_PTE_VALID | (1ull << 32));  // next table beyond VRAM
        mp.map(vl, 21, 1ull << 33, W);                              // VRAM page beyond VRAM
        mp.map(vsys, 21, 1ull << 45, W | S);                        // host page: any address
        std::vector<Obs> o = b.run({{vd, false, false, 1}, {vs + 0x10000, false, false, 2},
                                    {vb, false, false, 3}, {vl, false, false, 4},
                                    {vsys + 0x1234, true, false, 5}});
        std::vector<Obs> o2 = b.run({{vd, false, false, 1}, {vs + 0x10000, false, false, 2}});
        bool ok = o[0].got.fault == 3 && o[0].reads == 4 && o[1].got.fault == 3 && o[1].reads == 4 &&
                  o[2].got.fault == 3 && o[2].reads == 3 && o[3].got.fault == 3 && o[3].reads == 3 &&
                  o[4].got.fault == 0 && o[4].got.pa == ((1ull << 45) | 0x1234) && o[4].got.system &&
                  o[4].got.shift == 21 && o2[0].walked && o2[0].got.fault == 3 && o2[1].walked &&
                  o2[1].got.fault == 3;
        b.tap_line(ok, "DECERR/SLVERR table reads, tables and VRAM pages beyond VRAM: fault 3, never cached; host pages anywhere",
                   fmt("faults %u %u %u %u %u reads %u %u %u %u", o[0].got.fault, o[1].got.fault,
                       o[2].got.fault, o[3].got.fault, o[4].got.fault, o[0].reads, o[1].reads,
                       o[2].reads, o[3].reads));
    }

    // Capacity: TlbEntries pages stay; one more evicts exactly one.
    {
        b.pulse_invalidate();
        std::vector<Req> pages;
        for (unsigned i = 0; i <= TLB_ENTRIES; i++) {
            uint64_t va = 0x000500000000ull + uint64_t(i) * 0x1000;
            mp.map(va, 12, 0x00a00000 + uint64_t(i) * 0x1000, W);
            pages.push_back({va + 8 * i, false, false, i & ID_MASK});
        }
        std::vector<Req> first16(pages.begin(), pages.begin() + TLB_ENTRIES);
        std::vector<Obs> f = b.run(first16);
        std::vector<Obs> h = b.run(first16);
        Obs extra = b.run({pages[TLB_ENTRIES]})[0];
        std::vector<Obs> r = b.run(first16);
        unsigned fw = 0, hw = 0, rw = 0;
        for (const Obs &x : f)
            fw += x.walked;
        for (const Obs &x : h)
            hw += x.walked;
        // The evicted page walks again and its refill evicts another, and so on.
        for (const Obs &x : r)
            rw += x.walked;
        bool ok = fw == TLB_ENTRIES && hw == 0 && extra.walked && rw >= 1;
        b.tap_line(ok, "16 pages fill the 16-entry TLB and all hit; a 17th evicts one of them",
                   fmt("walks %u %u %d %u", fw, hw, extra.walked, rw));
    }

    // Reset in the middle of a walk.
    {
        b.pulse_invalidate();
        b.rlat_min = 6;
        b.rlat_max = 6;
        uint64_t va = 0x000600000000ull;
        mp.map(va, 12, 0x00b00000, W);
        b.to_send.push_back({va, false, false, 3});
        unsigned guard = 0;
        while (b.reads_since_load.size() < 2 && guard++ < 1000)
            b.step();
        b.reset(2);
        bool clean = !b.top->rsp_valid_o && b.top->idle_o && !b.top->m_pt_arvalid_o &&
                     b.top->tlb_hits_o == 0 && b.top->tlb_misses_o == 0 && b.top->walks_o == 0;
        b.quiet();
        Obs a = b.one(va + 0x18);
        Obs c = b.one(va + 0x28);
        bool ok = clean && a.walked && a.got.pa == 0x00b00018 && !c.walked && c.got.pa == 0x00b00028 &&
                  b.top->tlb_hits_o == 1 && b.top->tlb_misses_o == 1 && b.top->walks_o == 1;
        b.tap_line(ok, "rst_i during a walk: no response, counters and TLB cleared, translation works after",
                   fmt("clean %d walked %d/%d pa %" PRIx64, clean, a.walked, c.walked, a.got.pa));
    }

    // The page-walk cache: a miss reads only below the deepest table it knows.
    {
        b.pulse_invalidate();
        const uint64_t a = 0x010000003000ull;  // L3 2, L2 0, L1 0, L0 3
        const uint64_t v1 = a + 0x1000;        // the same 2 MiB
        const uint64_t v2 = a + 0x200000;      // the same 1 GiB
        const uint64_t v3 = a + 0x40000000;    // the same 512 GiB
        const uint64_t v4 = a + 0x8000000000;  // another L3 entry
        const uint64_t v64 = 0x010000400000ull;  // a 64 KiB page, then its neighbour
        const uint64_t v2m = 0x010000600000ull;  // a 2 MiB page in the same 1 GiB
        uint64_t pte[5];
        const uint64_t vas[5] = {a, v1, v2, v3, v4};
        for (int i = 0; i < 5; i++)
            pte[i] = mp.map(vas[i], 12, 0x00c00000 + uint64_t(i) * 0x1000, W);
        uint64_t p64a = mp.map(v64, 16, 0x00d00000, W);
        uint64_t p64b = mp.map(v64 + 0x10000, 16, 0x00d10000, W);
        uint64_t l1_2m = mp.map(v2m, 21, 0x00e00000, W);
        std::vector<Obs> o;
        for (uint64_t va : {a, v1, v2, v3, v4, v64, v64 + 0x10000, v2m})
            o.push_back(b.one(va + 0x18));
        auto only = [](const Obs &x, uint64_t addr) {
            return x.reads == 1 && x.read_addrs[0] == addr;
        };
        bool ok = o[0].reads == 4 && o[0].read_addrs[3] == pte[0] && only(o[1], pte[1]) &&
                  o[2].reads == 2 && o[2].read_addrs[1] == pte[2] && o[3].reads == 3 &&
                  o[3].read_addrs[2] == pte[3] && o[4].reads == 4 && o[4].read_addrs[3] == pte[4] &&
                  o[5].reads == 2 && o[5].read_addrs[1] == p64a && only(o[6], p64b) &&
                  only(o[7], l1_2m);
        for (int i = 0; i < 5; i++)
            ok = ok && o[size_t(i)].got.pa == 0x00c00018 + uint64_t(i) * 0x1000;
        ok = ok && o[5].got.pa == 0x00d00018 && o[6].got.pa == 0x00d10018 &&
             o[7].got.pa == 0x00e00018 && o[7].got.shift == 21;
        std::string why;
        for (const Obs &x : o)
            why += fmt("%u ", x.reads);
        b.tap_line(ok, "page-walk cache: a miss reads 1 entry in a cached 2 MiB region (4K or 64K table), 2 in a cached 1 GiB, 3 in a cached 512 GiB, 4 otherwise, and answers as a full walk",
                   "reads " + why);
    }

    // Invalidates and a change of root empty it; without them it keeps what it read.
    {
        b.pulse_invalidate();
        const uint64_t a = 0x020000005000ull;
        mp.map(a, 12, 0x00f05000, W);
        mp.map(a + 0x1000, 12, 0x00f06000, W);
        Obs first = b.one(a);
        // The L1 entry of a's 2 MiB region now points to another L0 table, mapping other pages.
        auto move_l0 = [&](uint64_t pa_base) {
            uint64_t t = mp.alloc();
            for (unsigned i = 0; i < 512; i++)
                b.mem.write(t + i * 8ull, GR_PTE_VALID | W | (pa_base + i * 0x1000ull));
            b.mem.write(mp.l1_entry(a), GR_PTE_VALID | t);
            return t;
        };
        uint64_t t1 = move_l0(0x01000000);  // page i of the region at 0x01000000 + i * 4 KiB
        Obs stale = b.one(a + 0x1000);      // no invalidate: the cached pointer is used
        b.pulse_invalidate();
        Obs fresh = b.one(a + 0x2000);
        Obs next = b.one(a + 0x3000);
        bool ok1 = first.reads == 4 && stale.reads == 1 && stale.got.pa == 0x00f06000 &&
                   fresh.reads == 4 && fresh.read_addrs[3] == t1 + 7 * 8 &&
                   fresh.got.pa == 0x01007000 && next.reads == 1 && next.got.pa == 0x01008000;
        b.tap_line(ok1, "tlb_invalidate_i empties the page-walk cache: after an L1 entry moves to another table, the next miss in its 2 MiB walks from the root and finds the new table (the cache is used again after)",
                   fmt("reads %u %u %u %u pa %" PRIx64 " %" PRIx64 " %" PRIx64, first.reads, stale.reads,
                       fresh.reads, next.reads, stale.got.pa, fresh.got.pa, next.got.pa));

        uint64_t t2 = move_l0(0x02000000);
        b.pulse_inv_page(0x7f0000000000ull);  // any page: the whole cache goes
        Obs by_page = b.one(a + 0x4000);
        bool ok2 = by_page.reads == 4 && by_page.read_addrs[3] == t2 + 9 * 8 &&
                   by_page.got.pa == 0x02009000;
        // Another root mapping the same VAs elsewhere, switched to without an invalidate.
        Mapper other(b, 0x48000000);
        other.map(a + 0x5000, 12, 0x03005000, W);
        other.map(a + 0x6000, 12, 0x03006000, W);
        uint64_t root_a = b.root;
        b.root = other.root();
        Obs r1 = b.one(a + 0x5000);
        Obs r2 = b.one(a + 0x6000);
        b.root = root_a;
        Obs back1 = b.one(a + 0x7000);
        Obs back2 = b.one(a + 0x8000);
        bool ok3 = r1.reads == 4 && r1.read_addrs[0] == other.root() + 4 * 8 &&
                   r1.got.pa == 0x03005000 && r2.reads == 1 && r2.got.pa == 0x03006000 &&
                   back1.reads == 4 && back1.got.pa == 0x0200c000 && back2.reads == 1 &&
                   back2.got.pa == 0x0200d000;
        b.tap_line(ok2 && ok3, "tlb_inv_page_i (any VA) empties the page-walk cache too, and a walk from another root never uses entries of the old one (either way, and without an invalidate)",
                   fmt("reads %u %u %u %u %u pa %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64,
                       by_page.reads, r1.reads, r2.reads, back1.reads, back2.reads, by_page.got.pa,
                       r1.got.pa, r2.got.pa, back1.got.pa, back2.got.pa));
    }
    b.check_counters("end");

    // ---- the checks that ran all along -----------------------------------------------------
    for (Check *c : {&b.c_rsp, &b.c_reads, &b.c_policy, &b.c_order, &b.c_axi, &b.c_hold, &b.c_count,
                     &b.c_idle, &b.c_hang})
        b.tap_check(*c);
    if (b.tap != PLAN)
        printf("# plan mismatch: %u tests for a plan of %u\n", b.tap, PLAN);
    if (b.failures)
        printf("# seed=%" PRIu64 " FAILED (%u checks); replay: --seed %" PRIu64 " --verbose\n", g_seed,
               b.failures, g_seed);
    return b.failures ? 1 : 0;
}
