/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mmio_bench: the cost of a register access on sim://, in simulated cycles (deterministic) and
 * in wall-clock time (this machine, noisy), with and without random bus backpressure.
 * Usage: mmio_bench [ACCESSES]   (default 20000)
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpuref/gr_regmap.h"
#include "gr_sim.h"

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
    unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 20000u;
    row_t rows[] = {
        {"no backpressure", {.seed = 1, .no_random = true}},
        {"stall 25%, latency <=8", {.seed = 1, .stall_pct = 25, .max_latency = 8}},
        {"stall 60%, latency <=20", {.seed = 1, .stall_pct = 60, .max_latency = 20}},
    };
    printf("# sim:// register access cost, %u reads + %u writes per row\n", n, n);
    printf("| %-24s | %11s | %12s | %13s | %14s |\n", "bus models", "cycles/read",
           "cycles/write", "accesses/s", "sim cycles/s");
    printf("|%s|%s|%s|%s|%s|\n", "--------------------------", "-------------", "--------------",
           "---------------", "----------------");
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        gr_sim_t *sim = NULL;
        if (gr_sim_create(&rows[r].cfg, &sim)) {
            fprintf(stderr, "mmio_bench: cannot create the simulation\n");
            return 1;
        }
        uint32_t v;
        double t0 = now_s();
        uint64_t c0 = gr_sim_cycle(sim);
        for (unsigned i = 0; i < n; i++)
            if (gr_sim_mmio_read(sim, GR_REG_SCRATCH, &v))
                return 1;
        uint64_t c1 = gr_sim_cycle(sim);
        for (unsigned i = 0; i < n; i++)
            if (gr_sim_mmio_write(sim, GR_REG_SCRATCH, i))
                return 1;
        uint64_t c2 = gr_sim_cycle(sim);
        double dt = now_s() - t0;
        printf("| %-24s | %11.2f | %12.2f | %13.0f | %14.0f |\n", rows[r].name,
               (double)(c1 - c0) / n, (double)(c2 - c1) / n, 2.0 * n / dt, (double)(c2 - c0) / dt);
        gr_sim_destroy(sim);
    }
    return 0;
}
