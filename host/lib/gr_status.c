/* SPDX-License-Identifier: Apache-2.0 */
/* gr_status.c: messages and names for gr_status_t, from the one list in gr_status.h. */
#include "gpuref/gr_status.h"

const char *gr_strerror(int status)
{
    switch (status) {
#define GR_STATUS_MSG(name, value, msg) \
    case value:                         \
        return msg;
        GR_STATUS_LIST(GR_STATUS_MSG)
#undef GR_STATUS_MSG
    default:
        return "unknown status";
    }
}

const char *gr_status_name(int status)
{
    switch (status) {
#define GR_STATUS_NAME(name, value, msg) \
    case value:                          \
        return #name;
        GR_STATUS_LIST(GR_STATUS_NAME)
#undef GR_STATUS_NAME
    default:
        return "GR_E_UNKNOWN";
    }
}
