/* SPDX-License-Identifier: Apache-2.0 */
/*
 * api_unused.c: must NOT build (check_headers.sh): a call whose status matters keeps
 * warn_unused_result, so dropping gr_device_open's status is an error under -Werror.
 */
#include "gpuref/gr_device.h"

void api_unused(gr_device_t **out);
void api_unused(gr_device_t **out)
{
    gr_device_open("sim://", 0, out);
}
