/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch_ddi.c: the DDI calls VidSch makes through the adapter's DDI table (dxgk_ddi.h), each
 * under the threading checker (dxgk_threading.h) with the DDI's documented level.
 */
#define _GNU_SOURCE /* pthread spin locks (vidsch_objects.h) */
#include <string.h>

#include "dxgk_threading.h"
#include "kmd.h"
#include "vidsch_ddi.h"
#include "vidsch_objects.h"

/* Process-context DDIs carry their process (the checker's one-thread-per-process rule). */
NTSTATUS vs_ddi_create_context(gr_adapter_t *ad, gr_gpu_device_t *dev, DXGKARG_CREATECONTEXT *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->ad->thr, DXGK_DDI_CREATE_CONTEXT, dev->process, 0);
    NTSTATUS st = vs->ad->ddi.CreateContext(dev->hDevice, a);
    dxgk_ddi_leave(vs->ad->thr, DXGK_DDI_CREATE_CONTEXT, dev->process);
    return st;
}

NTSTATUS vs_ddi_destroy_context(gr_adapter_t *ad, gr_gpu_device_t *dev, HANDLE hContext)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->ad->thr, DXGK_DDI_DESTROY_CONTEXT, dev->process, 0);
    NTSTATUS st = vs->ad->ddi.DestroyContext(hContext);
    dxgk_ddi_leave(vs->ad->thr, DXGK_DDI_DESTROY_CONTEXT, dev->process);
    return st;
}

void vs_ddi_set_root_page_table(gr_adapter_t *ad, const void *process, const DXGKARG_SETROOTPAGETABLE *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->ad->thr, DXGK_DDI_SET_ROOT_PAGE_TABLE, process, 0);
    vs->ad->ddi.SetRootPageTable(ad->hAdapter, a);
    dxgk_ddi_leave(vs->ad->thr, DXGK_DDI_SET_ROOT_PAGE_TABLE, process);
}

/* The scheduler thread's DDIs: no process (a system thread), scheduler-class lock held. */
NTSTATUS vs_ddi_patch(gr_adapter_t *ad, const DXGKARG_PATCH *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->ad->thr, DXGK_DDI_PATCH, NULL, 0);
    NTSTATUS st = vs->ad->ddi.Patch(ad->hAdapter, a);
    dxgk_ddi_leave(vs->ad->thr, DXGK_DDI_PATCH, NULL);
    return st;
}

NTSTATUS vs_ddi_submit(gr_adapter_t *ad, const DXGKARG_SUBMITCOMMAND *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->ad->thr, DXGK_DDI_SUBMIT_COMMAND, NULL, 0);
    NTSTATUS st = vs->ad->ddi.SubmitCommand(ad->hAdapter, a);
    dxgk_ddi_leave(vs->ad->thr, DXGK_DDI_SUBMIT_COMMAND, NULL);
    return st;
}

NTSTATUS vs_ddi_preempt(gr_adapter_t *ad, const DXGKARG_PREEMPTCOMMAND *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->ad->thr, DXGK_DDI_PREEMPT_COMMAND, NULL, 0);
    NTSTATUS st = vs->ad->ddi.PreemptCommand(ad->hAdapter, a);
    dxgk_ddi_leave(vs->ad->thr, DXGK_DDI_PREEMPT_COMMAND, NULL);
    return st;
}

NTSTATUS vs_ddi_cancel(gr_adapter_t *ad, const DXGKARG_CANCELCOMMAND *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->ad->thr, DXGK_DDI_CANCEL_COMMAND, NULL, 0);
    NTSTATUS st = vs->ad->ddi.CancelCommand(ad->hAdapter, a);
    dxgk_ddi_leave(vs->ad->thr, DXGK_DDI_CANCEL_COMMAND, NULL);
    return st;
}

NTSTATUS vs_ddi_query_fence(gr_adapter_t *ad, DXGKARG_QUERYCURRENTFENCE *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->ad->thr, DXGK_DDI_QUERY_CURRENT_FENCE, NULL, 0);
    NTSTATUS st = vs->ad->ddi.QueryCurrentFence(ad->hAdapter, a);
    dxgk_ddi_leave(vs->ad->thr, DXGK_DDI_QUERY_CURRENT_FENCE, NULL);
    return st;
}

NTSTATUS vs_ddi_packet_progress(gr_adapter_t *ad, uint32_t fence, gr_kmd_packet_progress_t *out)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->ad->thr, DXGK_DDI_PACKET_PROGRESS, NULL, 0);
    NTSTATUS st = gr_kmd_packet_progress(ad->hAdapter, fence, out);
    dxgk_ddi_leave(vs->ad->thr, DXGK_DDI_PACKET_PROGRESS, NULL);
    return st;
}

/* Third level: the scheduler passes nothing through while it resets (it is the caller). */
NTSTATUS vs_ddi_reset(gr_adapter_t *ad)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->ad->thr, DXGK_DDI_RESET_FROM_TIMEOUT, NULL, DXGK_THR_SCHED_QUIESCED);
    NTSTATUS st = vs->ad->ddi.ResetFromTimeout(ad->hAdapter);
    dxgk_ddi_leave(vs->ad->thr, DXGK_DDI_RESET_FROM_TIMEOUT, NULL);
    return st;
}

NTSTATUS vs_ddi_restart(gr_adapter_t *ad)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    unsigned flags = DXGK_THR_SCHED_QUIESCED;
    pthread_mutex_lock(&vs->lock);
    if (vs->hw_count == 0)
        flags |= DXGK_THR_HW_IDLE;
    pthread_mutex_unlock(&vs->lock);
    dxgk_ddi_enter(vs->ad->thr, DXGK_DDI_RESTART_FROM_TIMEOUT, NULL, flags);
    NTSTATUS st = vs->ad->ddi.RestartFromTimeout(ad->hAdapter);
    dxgk_ddi_leave(vs->ad->thr, DXGK_DDI_RESTART_FROM_TIMEOUT, NULL);
    return st;
}

BOOLEAN vs_ddi_interrupt(gr_adapter_t *ad)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->ad->thr, DXGK_DDI_INTERRUPT_ROUTINE, NULL, 0);
    BOOLEAN r = vs->ad->ddi.InterruptRoutine(ad->hAdapter, 0);
    dxgk_ddi_leave(vs->ad->thr, DXGK_DDI_INTERRUPT_ROUTINE, NULL);
    return r;
}

void vs_ddi_dpc(gr_adapter_t *ad)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->ad->thr, DXGK_DDI_DPC_ROUTINE, NULL, 0);
    vs->ad->ddi.DpcRoutine(ad->hAdapter);
    dxgk_ddi_leave(vs->ad->thr, DXGK_DDI_DPC_ROUTINE, NULL);
}
