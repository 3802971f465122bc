/* SPDX-License-Identifier: Apache-2.0 */
// host_memory.h: the host's DMA-able memory as the device sees it through an IOMMU.
// Buffers are page-aligned, zero-filled, sized up to whole pages, and get bus addresses from a
// private space starting at kBusBase. Bus addresses are never reused within one HostMemory and
// every buffer is followed by an unmapped guard page, so an overrun or a DMA after free lands
// outside every live buffer, where the AXI model answers DECERR.
#ifndef GPUREF_TB_HARNESS_HOST_MEMORY_H
#define GPUREF_TB_HARNESS_HOST_MEMORY_H

#include <cstddef>
#include <cstdint>
#include <map>

#include "mem_backend.h"

namespace gr {

class HostMemory final : public MemBackend {
public:
    static constexpr uint64_t kBusBase = 0x1'0000'0000ull; // above 4 GiB: catches 32-bit truncation
    static constexpr uint64_t kPage = 4096;
    static constexpr uint64_t kMaxBuffer = 1ull << 40; // one buffer, after rounding up

    HostMemory() = default;
    HostMemory(const HostMemory &) = delete;
    HostMemory &operator=(const HostMemory &) = delete;
    ~HostMemory() override;

    /**
     * New buffer of at least bytes (rounded up to pages), zero-filled.
     * @return GR_OK, GR_E_INVALID (bytes is 0), GR_E_NO_MEMORY; outputs untouched on failure
     */
    int alloc(size_t bytes, void **out_cpu, uint64_t *out_bus);

    /** @return GR_OK, GR_E_NOT_FOUND (no live buffer starts at bus) */
    int free(uint64_t bus);

    size_t buffers() const { return bufs_.size(); }

    bool contains(uint64_t addr, uint64_t len) const override;
    void read(uint64_t addr, uint8_t *dst, size_t len) const override;
    void write(uint64_t addr, const uint8_t *src, size_t len) override;

private:
    struct Buffer {
        uint8_t *cpu;
        uint64_t bytes; // whole pages
    };

    // The buffer holding addr, or nullptr.
    const Buffer *find(uint64_t addr, uint64_t *out_base) const;

    std::map<uint64_t, Buffer> bufs_; // by bus base address
    uint64_t next_bus_ = kBusBase;
};

} // namespace gr

#endif
