/* pcie_driver_jobs.c: the driver's work that test_pcie_driver.py runs over cocotb:// (through
 * gr_link_cocotb_run): the register conformance suite, and a DDI smoke test. Each job fills a
 * result the test reads with ctypes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gr_conformance.h"
#include "gr_link.h"
#include "gpuref/gr_device.h"
#include "gpuref/gr_status.h"

/** Result of a job (mirrored by test_pcie_driver.py's JobResult). */
typedef struct pcie_job_result {
    unsigned passed;
    unsigned failed;
    unsigned registers;
    int rc;            /* the job's status: GR_OK when it ran to its end */
    char log[16384];   /* one line per failed check, then the job's last error */
} pcie_job_result_t;

static void note(pcie_job_result_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(pcie_job_result_t *r, const char *fmt, ...)
{
    size_t n = strlen(r->log);
    if (n + 1 >= sizeof r->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->log + n, sizeof r->log - n, fmt, ap);
    va_end(ap);
}

static void conf_emit(void *user, bool ok, const char *reg, const char *check, const char *detail)
{
    if (!ok)
        note(user, "not ok: %s %s: %s\n", reg, check, detail ? detail : "");
}

/** gr_conformance_run on cocotb://. */
int pcie_job_conformance(void *arg)
{
    pcie_job_result_t *r = arg;
    gr_device_t *dev;
    int rc = gr_device_open("cocotb://", 0, &dev);
    if (rc) {
        note(r, "gr_device_open(cocotb://): %s (%s)\n", gr_strerror(rc), gr_last_error());
        return r->rc = rc;
    }
    gr_conf_result_t res = {0};
    rc = gr_conformance_run(dev, conf_emit, r, &res);
    r->passed = res.passed;
    r->failed = res.failed;
    r->registers = res.registers;
    if (rc)
        note(r, "gr_conformance_run stopped: %s (%s)\n", gr_strerror(rc), gr_last_error());
    gr_device_close(dev);
    return r->rc = rc;
}
