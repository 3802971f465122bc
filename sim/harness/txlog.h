/* SPDX-License-Identifier: Apache-2.0 */
// txlog.h: the transaction log: one text line per completed handshake on every port.
// Line format (README.md documents it):  <cycle> <port> <channel> key=value ...
// Lines starting with '#' are comments (header, protocol violations found by the models).
#ifndef GPUREF_TB_HARNESS_TXLOG_H
#define GPUREF_TB_HARNESS_TXLOG_H

#include <cstdint>
#include <cstdio>
#include <string>

namespace gr {

class TxLog {
public:
    TxLog() = default;
    TxLog(const TxLog &) = delete;
    TxLog &operator=(const TxLog &) = delete;
    ~TxLog() { close(); }

    /** Opens (truncates) path and writes the header. @return GR_OK, GR_E_IO */
    int open(const char *path, uint64_t seed);
    void close();
    bool enabled() const { return f_ != nullptr; }
    void flush();

    /** One handshake: "<cycle> <port> <channel> <fields>". No-op when not enabled. */
    void line(uint64_t cycle, const char *port, const char *channel, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));

    /** A comment line: "# <cycle> <port> <text>". */
    void note(uint64_t cycle, const char *port, const std::string &text);

    /** Bytes as one hex number, lane n-1 first (as a waveform viewer shows the bus): "0x...". */
    static std::string hex(const uint8_t *bytes, unsigned n);

private:
    FILE *f_ = nullptr;
};

} // namespace gr

#endif
