/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpuctl_session.c: the allocation side of a gpuctl run (gpuctl.h, session_t): the adapter,
 * gpuctl's process and its device on the link gpuctl opened, started by the first command
 * that needs them (gpuctl_alloc.c's and gpuctl_submit.c's) and closed with everything made on
 * them at the end of the run.
 */
#include "gpuctl.h"
#include "gpuref/gr_alloc.h"
#include "gpuref/gr_device.h"
#include "gpuref/gr_status.h"

int session_start(const opts_t *o, session_t *s, const char *cmd)
{
    if (s->ad)
        return EXIT_OK;
    int rc = gr_adapter_open_link(gr_device_link(s->dev), &s->ad);
    if (rc)
        return fail_status(o, cmd, rc, EXIT_DEVICE, "%s: cannot start the adapter (miniport and VidMm): %s", cmd,
                           gr_last_error());
    rc = gr_process_create(s->ad, &s->proc);
    if (!rc)
        rc = gr_gpu_device_create(s->proc, &s->gdev);
    if (rc)
        return fail_status(o, cmd, rc, EXIT_DEVICE, "%s: cannot create gpuctl's process and device", cmd);
    return EXIT_OK;
}

void session_end(session_t *s)
{
    gr_adapter_close(s->ad); /* processes, devices, handles and system memory with it */
    s->ad = NULL;
}
