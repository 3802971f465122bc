/* SPDX-License-Identifier: Apache-2.0 */
// mem_backend.h: what an AXI memory model serves: a byte-addressed store that says which
// addresses exist. HostMemory (DMA buffers) and VramMemory (sparse VRAM) implement it.
#ifndef GPUREF_TB_HARNESS_MEM_BACKEND_H
#define GPUREF_TB_HARNESS_MEM_BACKEND_H

#include <cstddef>
#include <cstdint>

namespace gr {

class MemBackend {
public:
    virtual ~MemBackend() = default;

    /** True when every byte of [addr, addr + len) exists; len > 0. Such an access cannot fail. */
    virtual bool contains(uint64_t addr, uint64_t len) const = 0;

    /** Copies out len bytes; only after contains(addr, len) said yes. */
    virtual void read(uint64_t addr, uint8_t *dst, size_t len) const = 0;

    /** Copies in len bytes; only after contains(addr, len) said yes. */
    virtual void write(uint64_t addr, const uint8_t *src, size_t len) = 0;
};

} // namespace gr

#endif
