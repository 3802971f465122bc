/* SPDX-License-Identifier: Apache-2.0 */
// vram_memory.cpp: sparse VRAM (see vram_memory.h).
#include "vram_memory.h"

#include <algorithm>
#include <cstring>

namespace gr {

void VramMemory::read(uint64_t addr, uint8_t *dst, size_t len) const
{
    while (len) {
        const uint64_t off = addr % kPage;
        const size_t n = std::min<uint64_t>(len, kPage - off);
        auto it = pages_.find(addr / kPage);
        if (it == pages_.end())
            std::memset(dst, 0, n);
        else
            std::memcpy(dst, it->second.get() + off, n);
        addr += n;
        dst += n;
        len -= n;
    }
}

void VramMemory::write(uint64_t addr, const uint8_t *src, size_t len)
{
    while (len) {
        const uint64_t off = addr % kPage;
        const size_t n = std::min<uint64_t>(len, kPage - off);
        Page &page = pages_[addr / kPage];
        if (!page) page.reset(new uint8_t[kPage]()); // value-initialised: zeros
        std::memcpy(page.get() + off, src, n);
        addr += n;
        src += n;
        len -= n;
    }
}

} // namespace gr
