/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_pcie_jobs: the register conformance suite and the DDI smoke test of the PCIe driver's
 * cocotb test (tb/unit/pcie/pcie_driver_jobs.c) on $GR_TEST_DEVICE: pcie:// over the VFIO
 * emulation when tb/system/on_link.sh pcie-vfio runs it (suite system-pcie-vfio-jobs). TAP: one
 * line for the conformance run, one per smoke check. The smoke test's data seed is
 * $GR_TEST_SEED (else 1).
 */
#define _GNU_SOURCE /* setenv */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** pcie_driver_jobs.c's result (as test_pcie_driver.py's JobResult mirrors it). */
typedef struct pcie_job_result {
    unsigned passed;
    unsigned failed;
    unsigned registers;
    int rc;
    uint32_t seed;
    char log[16384];
} pcie_job_result_t;

int pcie_job_conformance(void *arg);
int pcie_job_smoke(void *arg);

int main(void)
{
    const char *dev = getenv("GR_TEST_DEVICE");
    if (!dev || !*dev) {
        printf("Bail out! test_pcie_jobs needs GR_TEST_DEVICE (tb/system/on_link.sh sets it)\n");
        return 2;
    }
    setenv("PCIE_JOB_DEVICE", dev, 1);
    static pcie_job_result_t conf, smoke;
    int rc = pcie_job_conformance(&conf);
    unsigned n = 1, bad = 0;
    const bool conf_ok = rc == 0 && conf.failed == 0 && conf.passed > 0;
    bad += !conf_ok;
    printf("%s %u - gr_conformance_run on %s: %u registers, %u checks passed, %u failed\n",
           conf_ok ? "ok" : "not ok", n++, dev, conf.registers, conf.passed, conf.failed);
    if (!conf_ok)
        for (char *l = strtok(conf.log, "\n"); l; l = strtok(NULL, "\n"))
            printf("# %s\n", l);
    const char *seed = getenv("GR_TEST_SEED");
    smoke.seed = seed ? (uint32_t)strtoul(seed, NULL, 0) : 1u;
    rc = pcie_job_smoke(&smoke);
    for (char *save = NULL, *l = strtok_r(smoke.log, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(l, "ok: ", 4)) {
            printf("ok %u - smoke: %s\n", n++, l + 4);
        } else if (!strncmp(l, "not ok: ", 8)) {
            printf("not ok %u - smoke: %s\n", n++, l + 8);
            bad++;
        } else {
            printf("# %s\n", l);
        }
    }
    const bool smoke_ok = rc == 0 && smoke.failed == 0 && smoke.passed > 0;
    bad += !smoke_ok;
    printf("%s %u - the DDI smoke test ran to its end (%u checks)\n", smoke_ok ? "ok" : "not ok", n,
           smoke.passed + smoke.failed);
    printf("1..%u\n", n);
    return bad ? 1 : 0;
}
