/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_conformance.h: the register-level conformance suite. It runs on any transport (it sees the
 * device only through gr_device / gr_link) and is driven by the generated register description,
 * so a register added to gpu_regs.rdl is checked without touching this code.
 */
#ifndef GPUREF_GR_CONFORMANCE_H
#define GPUREF_GR_CONFORMANCE_H

#include <stdbool.h>

#include "gpuref/gr_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One check's result, as it happens. reg is the register's name ("" for device-wide checks). */
typedef void (*gr_conf_emit_fn)(void *user, bool ok, const char *reg, const char *check,
                                const char *detail);

typedef struct gr_conf_result {
    unsigned passed;
    unsigned failed;
    unsigned registers; /**< registers of the map that were checked */
} gr_conf_result_t;

/**
 * Runs every check. The device is soft-reset first and last, so it ends at its reset state.
 * @param[out] out_result  counts; filled even when checks fail
 * @return GR_OK when the suite ran (failed checks are counted, not returned), or the link error
 *         that stopped it
 */
int gr_conformance_run(gr_device_t *dev, gr_conf_emit_fn emit, void *user,
                       gr_conf_result_t *out_result);

#ifdef __cplusplus
}
#endif

#endif
