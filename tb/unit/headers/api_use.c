/* SPDX-License-Identifier: Apache-2.0 */
/*
 * api_use.c: what a program of one's own writes against the public headers builds with
 * -Wall -Wextra -Werror -pedantic (check_headers.sh compiles it as C11; api_use.cpp is the C++
 * side): cleanup calls whose status it ignores with a (void) cast, and GR_WAIT_FOREVER.
 */
#include <stdint.h>

#include "gpuref/gr_device.h"
#include "gpuref/gr_easy.h"

_Static_assert(GR_WAIT_FOREVER == UINT64_MAX, "GR_WAIT_FOREVER is the largest timeout");

void api_use_cleanup(gr_process_t *proc, void *sysmem, gr_gpu_device_t *dev, gr_alloc_t alloc, gr_alloc_t opened,
                     gr_context_t ctx, gr_dma_buffer_t buf, gr_cmd_t *cmd, gr_session_t *session,
                     gr_device_t *device);

/* Every cleanup call, its status ignored as a program that has nothing to do about it does. */
void api_use_cleanup(gr_process_t *proc, void *sysmem, gr_gpu_device_t *dev, gr_alloc_t alloc, gr_alloc_t opened,
                     gr_context_t ctx, gr_dma_buffer_t buf, gr_cmd_t *cmd, gr_session_t *session,
                     gr_device_t *device)
{
    if (gr_cmd_wait(cmd, GR_WAIT_FOREVER) == GR_OK)
        (void)gr_cmd_destroy(cmd);
    (void)gr_alloc_unlock(dev, alloc);
    (void)gr_alloc_close(dev, opened);
    (void)gr_alloc_destroy(dev, alloc);
    (void)gr_dma_buffer_destroy(dev, buf);
    (void)gr_context_destroy(dev, ctx);
    (void)gr_sysmem_free(proc, sysmem);
    gr_session_close(session);
    gr_device_close(device);
}
