/* SPDX-License-Identifier: Apache-2.0 */
// api_use.cpp: the C++ side of api_use.c: every call of gr_device.h and gr_regdesc.h returns
// gr_status_t, as the rest of the public headers do (one status type), and cleanup calls take a
// (void) cast under -Werror.
#include <cstdint>
#include <type_traits>

#include "gpuref/gr_device.h"
#include "gpuref/gr_easy.h"
#include "gpuref/gr_regdesc.h"

#define RETURNS_STATUS(call) \
    static_assert(std::is_same<decltype(call), gr_status_t>::value, #call " returns gr_status_t")

RETURNS_STATUS(gr_device_open(nullptr, 0u, nullptr));
RETURNS_STATUS(gr_device_info(nullptr, nullptr));
RETURNS_STATUS(gr_reg_read(nullptr, 0u, nullptr));
RETURNS_STATUS(gr_reg_write(nullptr, 0u, 0u));
RETURNS_STATUS(gr_device_soft_reset(nullptr, 0u));
RETURNS_STATUS(gr_device_wait_irq(nullptr, 0u, nullptr));
RETURNS_STATUS(gr_device_link_stats(nullptr, nullptr));
RETURNS_STATUS(gr_regdesc_parse_offset(nullptr, nullptr));
RETURNS_STATUS(gr_alloc_destroy(nullptr, 0u));
RETURNS_STATUS(gr_cmd_wait(nullptr, 0u));
static_assert(GR_WAIT_FOREVER == UINT64_MAX, "GR_WAIT_FOREVER is the largest timeout");

void api_use_cleanup_cxx(gr_gpu_device_t *dev, gr_alloc_t alloc, gr_cmd_t *cmd);
void api_use_cleanup_cxx(gr_gpu_device_t *dev, gr_alloc_t alloc, gr_cmd_t *cmd)
{
    (void)gr_cmd_destroy(cmd);
    (void)gr_alloc_destroy(dev, alloc);
}
