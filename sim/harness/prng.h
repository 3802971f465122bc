/* SPDX-License-Identifier: Apache-2.0 */
// prng.h: the harness's private random source (xoshiro256**, seeded through splitmix64).
// Every random choice of a model or driver comes from its own Prng, seeded from the gr_sim seed
// and a per-port salt, so a run replays exactly from its seed and does not depend on rand().
#ifndef GPUREF_TB_HARNESS_PRNG_H
#define GPUREF_TB_HARNESS_PRNG_H

#include <cstdint>

namespace gr {

class Prng {
public:
    explicit Prng(uint64_t seed = 1) { reseed(seed); }

    void reseed(uint64_t seed)
    {
        uint64_t x = seed;
        for (uint64_t &w : s_)
            w = splitmix64(x);
    }

    uint64_t next()
    {
        const uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    /** Uniform in [0, n); 0 when n is 0. Lemire's multiply-shift, bias below 2^-64 * n. */
    uint64_t below(uint64_t n) { return n ? uint64_t((unsigned __int128)next() * n >> 64) : 0; }

    /** Uniform in [lo, hi]. */
    uint64_t range(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }

    /** True with probability pct/100. */
    bool percent(unsigned pct) { return below(100) < pct; }

    /** One splitmix64 step: also used to derive per-port seeds from one seed. */
    static uint64_t splitmix64(uint64_t &x)
    {
        uint64_t z = (x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }

    /** A seed for one port, independent of the others': mix(seed ^ salt). */
    static uint64_t derive(uint64_t seed, uint64_t salt)
    {
        uint64_t x = seed ^ (salt * 0x2545f4914f6cdd1dull);
        return splitmix64(x);
    }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t s_[4];
};

} // namespace gr

#endif
