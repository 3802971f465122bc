/* SPDX-License-Identifier: Apache-2.0 */
// vram_memory.h: the VRAM behind m_vram: sparse, 4 KiB pages allocated on first write.
// Reads of bytes never written return 0 (a model choice: real DRAM holds garbage, so the RTL
// must not rely on it; tests that care write first). Addresses at or past size() do not exist.
#ifndef GPUREF_TB_HARNESS_VRAM_MEMORY_H
#define GPUREF_TB_HARNESS_VRAM_MEMORY_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "mem_backend.h"

namespace gr {

class VramMemory final : public MemBackend {
public:
    static constexpr uint64_t kPage = 4096;

    /** size: bytes, a multiple of kPage (the caller checks). */
    explicit VramMemory(uint64_t size) : size_(size) {}

    uint64_t size() const { return size_; }
    size_t pages_allocated() const { return pages_.size(); }

    bool contains(uint64_t addr, uint64_t len) const override
    {
        return len != 0 && addr < size_ && len <= size_ - addr;
    }
    void read(uint64_t addr, uint8_t *dst, size_t len) const override;
    void write(uint64_t addr, const uint8_t *src, size_t len) override;

private:
    using Page = std::unique_ptr<uint8_t[]>;

    uint64_t size_;
    std::unordered_map<uint64_t, Page> pages_; // by page number
};

} // namespace gr

#endif
