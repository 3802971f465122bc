/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_link.h: the link benchmark's entry point (bench/link/README.md). main() in the
 * standalone builds (bench_link, bench_link_usb); in the PCIe build (GR_BENCH_COCOTB) the
 * cocotb test's job pcie_job_bench (tb/unit/pcie/pcie_driver_jobs.c) calls it inside
 * gr_link_cocotb_run, where cocotb:// is served.
 */
#ifndef GPUREF_BENCH_LINK_H
#define GPUREF_BENCH_LINK_H

/**
 * Measures the links the options name and prints the tables (bench/link/README.md).
 * @param argc, argv  as main's: [--seed N] [--simd PATH] [--quick] [--smoke] [--only LIST]
 *                    [--out FILE]
 * @return 0 when every measurement ran and read back exact, 1 otherwise, 2 on a bad option
 */
int bench_link_main(int argc, char **argv);

#endif
