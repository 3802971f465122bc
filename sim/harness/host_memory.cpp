/* SPDX-License-Identifier: Apache-2.0 */
// host_memory.cpp: DMA buffers behind a private bus address space (see host_memory.h).
#include "host_memory.h"

#include <sys/mman.h>

#include <cstring>

#include "gpuref/gr_status.h"

namespace gr {

HostMemory::~HostMemory()
{
    for (auto &kv : bufs_)
        munmap(kv.second.cpu, kv.second.bytes);
}

int HostMemory::alloc(size_t bytes, void **out_cpu, uint64_t *out_bus)
{
    if (bytes == 0 || !out_cpu || !out_bus) return GR_E_INVALID;
    if (bytes > kMaxBuffer) return GR_E_NO_MEMORY;
    const uint64_t rounded = (uint64_t(bytes) + kPage - 1) & ~(kPage - 1);
    // The next base plus the buffer and its guard page must stay inside 64 bits.
    if (next_bus_ > ~0ull - rounded - kPage) return GR_E_NO_MEMORY;

    // Anonymous mappings are page-aligned and zero-filled, and cost nothing until touched.
    void *p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return GR_E_NO_MEMORY;
    const uint64_t bus = next_bus_;
    try {
        bufs_.emplace(bus, Buffer{static_cast<uint8_t *>(p), rounded});
    } catch (...) {
        munmap(p, rounded);
        return GR_E_NO_MEMORY;
    }
    next_bus_ = bus + rounded + kPage;
    *out_cpu = p;
    *out_bus = bus;
    return GR_OK;
}

int HostMemory::free(uint64_t bus)
{
    auto it = bufs_.find(bus);
    if (it == bufs_.end()) return GR_E_NOT_FOUND;
    munmap(it->second.cpu, it->second.bytes);
    bufs_.erase(it);
    return GR_OK;
}

const HostMemory::Buffer *HostMemory::find(uint64_t addr, uint64_t *out_base) const
{
    auto it = bufs_.upper_bound(addr);
    if (it == bufs_.begin()) return nullptr;
    --it;
    if (addr - it->first >= it->second.bytes) return nullptr;
    *out_base = it->first;
    return &it->second;
}

bool HostMemory::contains(uint64_t addr, uint64_t len) const
{
    uint64_t base = 0;
    const Buffer *b = find(addr, &base);
    return b && len != 0 && len <= b->bytes - (addr - base);
}

void HostMemory::read(uint64_t addr, uint8_t *dst, size_t len) const
{
    uint64_t base = 0;
    const Buffer *b = find(addr, &base);
    std::memcpy(dst, b->cpu + (addr - base), len);
}

void HostMemory::write(uint64_t addr, const uint8_t *src, size_t len)
{
    uint64_t base = 0;
    const Buffer *b = find(addr, &base);
    std::memcpy(b->cpu + (addr - base), src, len);
}

} // namespace gr
