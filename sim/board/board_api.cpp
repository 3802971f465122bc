/* SPDX-License-Identifier: Apache-2.0 */
// board_api.cpp: the gr_board_* C API over gr::Board (board_impl.h). Nothing throws across it.
// The kinds built into this library come as -DGR_BOARD_HAVE_<KIND>=1 (sim/sim.mk builds every
// kind).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "board_impl.h"
#include "gr_board.h"

namespace gr {
#if GR_BOARD_HAVE_STREAM
Board *gr_board_new_stream(const BoardSettings &s);
#endif
#if GR_BOARD_HAVE_UART
Board *gr_board_new_uart(const BoardSettings &s);
#endif
#if GR_BOARD_HAVE_FT601
Board *gr_board_new_ft601(const BoardSettings &s);
#endif
#if GR_BOARD_HAVE_FT245
Board *gr_board_new_ft245(const BoardSettings &s);
#endif
#if GR_BOARD_HAVE_LIMESDR
Board *gr_board_new_limesdr(const BoardSettings &s);
#endif
#if GR_BOARD_HAVE_ULX3S
Board *gr_board_new_ulx3s(const BoardSettings &s);
#endif
} // namespace gr

using gr::Board;
using gr::BoardSettings;

struct gr_board {
    Board *b;
};

namespace {

constexpr uint64_t kResetCycles = 8;
constexpr uint32_t kDefaultBaud = 3000000;

bool parse_u64(const char *s, uint64_t *out)
{
    int base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (!*s) return false;
    for (const char *p = s; *p; ++p)
        if (base == 10 ? (*p < '0' || *p > '9') : !std::strchr("0123456789abcdefABCDEF", *p)) return false;
    errno = 0;
    char *end = nullptr;
    const unsigned long long v = std::strtoull(s, &end, base);
    if (errno || *end) return false;
    *out = v;
    return true;
}

Board *make(const BoardSettings &s)
{
    switch (s.kind) {
#if GR_BOARD_HAVE_STREAM
    case GR_BOARD_STREAM: return gr::gr_board_new_stream(s);
#endif
#if GR_BOARD_HAVE_UART
    case GR_BOARD_UART: return gr::gr_board_new_uart(s);
#endif
#if GR_BOARD_HAVE_FT601
    case GR_BOARD_FT601: return gr::gr_board_new_ft601(s);
#endif
#if GR_BOARD_HAVE_FT245
    case GR_BOARD_FT2232H: return gr::gr_board_new_ft245(s);
#endif
#if GR_BOARD_HAVE_LIMESDR
    case GR_BOARD_LIMESDR: return gr::gr_board_new_limesdr(s);
#endif
#if GR_BOARD_HAVE_ULX3S
    case GR_BOARD_ULX3S: return gr::gr_board_new_ulx3s(s);
#endif
    default: return nullptr;
    }
}

} // namespace

extern "C" {

const char *gr_board_kind_name(gr_board_kind_t kind)
{
    switch (kind) {
    case GR_BOARD_STREAM: return "stream";
    case GR_BOARD_UART: return "uart";
    case GR_BOARD_FT601: return "ft601";
    case GR_BOARD_FT2232H: return "ft2232h";
    case GR_BOARD_LIMESDR: return "limesdr";
    case GR_BOARD_ULX3S: return "ulx3s";
    default: return "?";
    }
}

gr_board_kind_t gr_board_link_kind(gr_board_kind_t kind)
{
    switch (kind) {
    case GR_BOARD_STREAM:
    case GR_BOARD_UART:
    case GR_BOARD_FT601:
    case GR_BOARD_FT2232H: return kind;
    case GR_BOARD_LIMESDR: return GR_BOARD_FT601;
    case GR_BOARD_ULX3S: return GR_BOARD_UART;
    default: return gr_board_kind_t(0);
    }
}

int gr_board_kind_parse(const char *name, gr_board_kind_t *out_kind)
{
    if (!name || !out_kind) return GR_E_INVALID;
    static const struct {
        const char *name;
        gr_board_kind_t kind;
    } names[] = {{"stream", GR_BOARD_STREAM},
                 {"uart", GR_BOARD_UART},
                 {"ft601", GR_BOARD_FT601},
                 {"ft2232h", GR_BOARD_FT2232H},
                 {"ft245", GR_BOARD_FT2232H},
                 {"limesdr", GR_BOARD_LIMESDR},
                 {"ulx3s", GR_BOARD_ULX3S}};
    for (const auto &n : names) {
        if (std::strcmp(n.name, name) == 0) {
            *out_kind = n.kind;
            return GR_OK;
        }
    }
    return GR_E_NOT_FOUND;
}

bool gr_board_kind_built(gr_board_kind_t kind)
{
    switch (kind) {
    case GR_BOARD_STREAM: return GR_BOARD_HAVE_STREAM;
    case GR_BOARD_UART: return GR_BOARD_HAVE_UART;
    case GR_BOARD_FT601: return GR_BOARD_HAVE_FT601;
    case GR_BOARD_FT2232H: return GR_BOARD_HAVE_FT245;
    case GR_BOARD_LIMESDR: return GR_BOARD_HAVE_LIMESDR;
    case GR_BOARD_ULX3S: return GR_BOARD_HAVE_ULX3S;
    default: return false;
    }
}

int gr_board_create(const gr_board_config_t *cfg, gr_board_t **out_board)
{
    if (!cfg || !out_board) return GR_E_INVALID;
    BoardSettings s;
    if (cfg->kind < GR_BOARD_STREAM || cfg->kind > GR_BOARD_ULX3S) return GR_E_INVALID;
    s.kind = cfg->kind;
    // The exact board tops carry their own VRAM, of their own size.
    const uint64_t top_vram = s.kind == GR_BOARD_LIMESDR ? 128ull << 10 : s.kind == GR_BOARD_ULX3S ? 32ull << 20 : 0;
    if (cfg->seed) {
        s.seed = cfg->seed;
    } else if (const char *env = std::getenv("GR_SIM_SEED"); env && *env) {
        uint64_t v = 0;
        if (!parse_u64(env, &v)) return GR_E_INVALID;
        s.seed = v ? v : 1;
    }
    if (cfg->vram_bytes) {
        // gpu_core's VRAM size strap: whole 64 KiB, 128 KiB..VramBytes (512 MiB as verilated).
        if (cfg->vram_bytes % (64ull << 10) || cfg->vram_bytes < (128ull << 10) || cfg->vram_bytes > (512ull << 20))
            return GR_E_INVALID;
        if (top_vram && cfg->vram_bytes != top_vram) return GR_E_INVALID;
        s.vram_bytes = cfg->vram_bytes;
    }
    if (top_vram) s.vram_bytes = top_vram;
    // The line rate is a parameter of the UART PHY and line model, fixed when they are built.
    s.baud = cfg->baud ? cfg->baud : kDefaultBaud;
    if (s.baud != kDefaultBaud) return gr_board_link_kind(s.kind) == GR_BOARD_UART ? GR_E_UNSUPPORTED : GR_E_INVALID;
    s.no_random = cfg->no_random;
    // The FT601's FIFO mode: the generic board's model and PHY strap follow it; the LimeSDR
    // top is built for the mode its chip ships in (FT600) and the field is not looked at.
    if (cfg->ft600_mode && gr_board_link_kind(s.kind) != GR_BOARD_FT601) return GR_E_INVALID;
    s.ft600 = cfg->ft600_mode && s.kind == GR_BOARD_FT601;
    const char *fst = cfg->fst_path ? cfg->fst_path : std::getenv("GR_BOARD_FST");
    if (fst) s.fst_path = fst;
    if (!gr_board_kind_built(s.kind)) return GR_E_UNSUPPORTED;
    try {
        if (!s.fst_path.empty()) {
            // Checked first: Verilator's FST writer does not survive a bad path.
            FILE *f = std::fopen(s.fst_path.c_str(), "wb");
            if (!f) return GR_E_IO;
            std::fclose(f);
        }
        Board *b = make(s);
        if (!b) return GR_E_UNSUPPORTED;
        gr_board *h = new (std::nothrow) gr_board{b};
        if (!h) {
            delete b;
            return GR_E_NO_MEMORY;
        }
        if (!s.fst_path.empty()) b->open_trace();
        b->reset(kResetCycles);
        *out_board = h;
        return GR_OK;
    } catch (const std::bad_alloc &) {
        return GR_E_NO_MEMORY;
    } catch (const std::invalid_argument &) {
        return GR_E_INVALID;
    } catch (...) {
        return GR_E_IO;
    }
}

void gr_board_destroy(gr_board_t *board)
{
    if (!board) return;
    try {
        delete board->b;
    } catch (...) {
    }
    delete board;
}

gr_board_kind_t gr_board_kind(const gr_board_t *board)
{
    return board ? board->b->set.kind : gr_board_kind_t(0);
}

uint64_t gr_board_seed(const gr_board_t *board)
{
    return board ? board->b->set.seed : 0;
}

uint64_t gr_board_cycle(const gr_board_t *board)
{
    return board ? board->b->cycle : 0;
}

uint64_t gr_board_time_ps(const gr_board_t *board)
{
    return board ? board->b->time_ps : 0;
}

void gr_board_run(gr_board_t *board, uint64_t cycles)
{
    if (!board) return;
    try {
        for (uint64_t i = 0; i < cycles; ++i)
            board->b->core_cycle();
    } catch (...) {
    }
}

int gr_board_run_until(gr_board_t *board, size_t bytes, uint64_t max_cycles, bool *out_met)
{
    if (!board) return GR_E_INVALID;
    Board *b = board->b;
    auto met = [&] { return bytes ? b->readable() >= bytes : b->out_q.empty(); };
    try {
        for (uint64_t i = 0; i < max_cycles && !met(); ++i)
            b->core_cycle();
    } catch (const std::bad_alloc &) {
        return GR_E_NO_MEMORY;
    } catch (...) {
        return GR_E_IO;
    }
    if (out_met) *out_met = met();
    return GR_OK;
}

int gr_board_write(gr_board_t *board, const void *src, size_t bytes)
{
    if (!board || (!src && bytes)) return GR_E_INVALID;
    try {
        if (bytes == 0) return GR_OK;
        const uint8_t *p = static_cast<const uint8_t *>(src);
        Board *b = board->b;
        b->out_q.insert(b->out_q.end(), p, p + bytes);
        b->out_pushed += bytes;
        b->out_ends.push_back(b->out_pushed);
    } catch (...) {
        return GR_E_NO_MEMORY;
    }
    return GR_OK;
}

size_t gr_board_write_pending(const gr_board_t *board)
{
    return board ? board->b->out_q.size() : 0;
}

int gr_board_read(gr_board_t *board, void *dst, size_t cap, size_t *out_n)
{
    if (!board || !out_n || (!dst && cap)) return GR_E_INVALID;
    *out_n = board->b->read(static_cast<uint8_t *>(dst), cap);
    return GR_OK;
}

size_t gr_board_readable(const gr_board_t *board)
{
    return board ? board->b->readable() : 0;
}

int gr_board_read_packet(gr_board_t *board, void *dst, size_t cap, size_t *out_n)
{
    if (!board || !out_n || (!dst && cap)) return GR_E_INVALID;
    Board *b = board->b;
    if (!b->packets_kind()) return GR_E_UNSUPPORTED;
    if (b->packets.empty()) {
        *out_n = 0;
        return GR_OK;
    }
    gr::BoardPacket &p = b->packets.front();
    const size_t n = p.bytes.size() - p.off;
    if (n > cap) return GR_E_RANGE;
    std::memcpy(dst, p.bytes.data() + p.off, n);
    b->packets.pop_front();
    *out_n = n;
    return GR_OK;
}

size_t gr_board_packets(const gr_board_t *board)
{
    return board ? board->b->packets.size() : 0;
}

int gr_board_trace(gr_board_t *board, bool on)
{
    if (!board) return GR_E_INVALID;
    if (!board->b->has_trace()) return GR_E_UNSUPPORTED;
    board->b->set_tracing(on);
    return GR_OK;
}

int gr_board_vram_read(gr_board_t *board, uint64_t addr, void *dst, size_t bytes)
{
    if (!board || !dst || bytes == 0) return GR_E_INVALID;
    if (board->b->vram_inside()) return GR_E_UNSUPPORTED;
    if (!board->b->vram_mem.contains(addr, bytes)) return GR_E_RANGE;
    board->b->vram_mem.read(addr, static_cast<uint8_t *>(dst), bytes);
    return GR_OK;
}

int gr_board_vram_write(gr_board_t *board, uint64_t addr, const void *src, size_t bytes)
{
    if (!board || !src || bytes == 0) return GR_E_INVALID;
    if (board->b->vram_inside()) return GR_E_UNSUPPORTED;
    if (!board->b->vram_mem.contains(addr, bytes)) return GR_E_RANGE;
    try {
        board->b->vram_mem.write(addr, static_cast<const uint8_t *>(src), bytes);
    } catch (...) {
        return GR_E_NO_MEMORY;
    }
    return GR_OK;
}

} // extern "C"
