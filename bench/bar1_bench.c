/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bar1_bench: BAR1 (the CPU's aperture into VRAM) streaming on sim://, against the 8-byte data
 * bus: simulated cycles per byte (deterministic) and wall-clock rate (this machine, noisy), for
 * reads and writes of 4 KiB to 4 MiB, with the bus models quiet and at 25% stalls. The rate per
 * byte must not fall as a stream grows: a lock moves its pages through here, so a cost that
 * grows faster than the bytes makes large locks unusable.
 * Usage: bar1_bench [MAX_BYTES]   (default 4M; a power of two from 4096)
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gr_sim.h"

#define BUS_BYTES 8.0 /* gpu_core's data bus: one beat a cycle is the ceiling */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct row {
    const char *name;
    gr_sim_config_t cfg;
} row_t;

int main(int argc, char **argv)
{
    const uint64_t max = argc > 1 ? strtoull(argv[1], NULL, 0) : 4ull << 20;
    if (max < 4096 || (max & (max - 1)) || max > (64ull << 20)) {
        fprintf(stderr, "bar1_bench: MAX_BYTES is a power of two from 4096 to 64M\n");
        return 2;
    }
    row_t rows[] = {
        {"quiet", {.seed = 1, .no_random = true}},
        {"stall 25%, latency <=8", {.seed = 1, .stall_pct = 25, .max_latency = 8}},
    };
    uint8_t *buf = malloc(max);
    if (!buf)
        return 1;
    for (uint64_t i = 0; i < max; i++)
        buf[i] = (uint8_t)(i * 131u + 7u);
    printf("# sim:// BAR1 streaming (s_ap, 16-beat bursts, 4 in flight) against the %.0f-byte bus\n", BUS_BYTES);
    printf("| %-22s | %5s | %9s | %10s | %8s | %9s | %10s | %12s |\n", "bus models", "op", "bytes", "cycles", "B/cycle",
           "% of bus", "wall MB/s", "wall/B vs 4K");
    printf("|------------------------|-------|-----------|------------|----------|-----------|------------|------------"
           "--|\n");
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        gr_sim_t *sim = NULL;
        if (gr_sim_create(&rows[r].cfg, &sim)) {
            fprintf(stderr, "bar1_bench: cannot create the simulation\n");
            free(buf);
            return 1;
        }
        for (int write = 1; write >= 0; write--) {
            double base = 0; /* wall seconds per byte at 4 KiB */
            for (uint64_t n = 4096; n <= max; n *= 4) {
                const double t0 = now_s();
                const uint64_t c0 = gr_sim_cycle(sim);
                int rc = write ? gr_sim_ap_write(sim, 0, buf, n) : gr_sim_ap_read(sim, 0, buf, n);
                const uint64_t cyc = gr_sim_cycle(sim) - c0;
                const double dt = now_s() - t0;
                if (rc) {
                    fprintf(stderr, "bar1_bench: %s of %llu bytes failed (%d)\n", write ? "write" : "read",
                            (unsigned long long)n, rc);
                    gr_sim_destroy(sim);
                    free(buf);
                    return 1;
                }
                const double per_b = dt / (double)n;
                if (n == 4096)
                    base = per_b;
                const double bpc = (double)n / (double)cyc;
                printf("| %-22s | %5s | %9llu | %10llu | %8.2f | %8.1f%% | %10.2f | %11.2fx |\n", rows[r].name,
                       write ? "write" : "read", (unsigned long long)n, (unsigned long long)cyc, bpc,
                       100.0 * bpc / BUS_BYTES, (double)n / dt / 1e6, base > 0 ? per_b / base : 0.0);
            }
        }
        gr_sim_destroy(sim);
    }
    /* What was written comes back (the table is about a working path). */
    gr_sim_t *sim = NULL;
    gr_sim_config_t q = {.seed = 1, .no_random = true};
    uint8_t *back = malloc(65536);
    int bad = !back || gr_sim_create(&q, &sim) || gr_sim_ap_write(sim, 4096, buf, 65536) ||
              gr_sim_ap_read(sim, 4096, back, 65536) || memcmp(buf, back, 65536);
    if (sim)
        gr_sim_destroy(sim);
    free(back);
    free(buf);
    printf("%s\n", bad ? "bar1_bench: read-back MISMATCH" : "read-back of 64 KiB written through BAR1: equal");
    return bad;
}
