/* SPDX-License-Identifier: Apache-2.0 */
// txlog.cpp: the transaction log (see txlog.h and README.md for the format).
#include "txlog.h"

#include <cinttypes>
#include <cstdarg>

#include "gpuref/gr_status.h"

namespace gr {

int TxLog::open(const char *path, uint64_t seed)
{
    close();
    f_ = std::fopen(path, "w");
    if (!f_) return GR_E_IO;
    std::fprintf(f_, "# gpuref gr_sim transaction log v1, seed=0x%" PRIx64 "\n", seed);
    std::fprintf(f_, "# cycle port channel fields...\n");
    return GR_OK;
}

void TxLog::close()
{
    if (f_) std::fclose(f_);
    f_ = nullptr;
}

void TxLog::flush()
{
    if (f_) std::fflush(f_);
}

void TxLog::line(uint64_t cycle, const char *port, const char *channel, const char *fmt, ...)
{
    if (!f_) return;
    std::fprintf(f_, "%" PRIu64 " %s %s ", cycle, port, channel);
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(f_, fmt, ap);
    va_end(ap);
    std::fputc('\n', f_);
}

void TxLog::note(uint64_t cycle, const char *port, const std::string &text)
{
    if (f_) std::fprintf(f_, "# %" PRIu64 " %s %s\n", cycle, port, text.c_str());
}

std::string TxLog::hex(const uint8_t *bytes, unsigned n)
{
    static const char digits[] = "0123456789abcdef";
    std::string s = "0x";
    s.reserve(2 + 2 * n);
    for (unsigned i = n; i-- > 0;) {
        s += digits[bytes[i] >> 4];
        s += digits[bytes[i] & 15];
    }
    return s;
}

} // namespace gr
