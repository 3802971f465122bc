/*
 * vidsch_ddi.c: the DDI table and the calls VidSch makes through it, each under the threading
 * checker (dxgk_threading.h) with the DDI's documented level.
 */
#define _GNU_SOURCE /* pthread spin locks (vidsch_internal.h) */
#include <string.h>

#include "kmd.h"
#include "vidsch_internal.h"

void dxgk_ddi_table_default(gr_dxgk_ddi_table_t *t)
{
    memset(t, 0, sizeof *t);
    t->QueryAdapterInfo = DxgkDdiQueryAdapterInfo;
    t->CreateAllocation = DxgkDdiCreateAllocation;
    t->OpenAllocation = DxgkDdiOpenAllocation;
    t->CloseAllocation = DxgkDdiCloseAllocation;
    t->DestroyAllocation = DxgkDdiDestroyAllocation;
    t->CreateContext = DxgkDdiCreateContext;
    t->DestroyContext = DxgkDdiDestroyContext;
    t->SetRootPageTable = DxgkDdiSetRootPageTable;
    t->Patch = DxgkDdiPatch;
    t->SubmitCommand = DxgkDdiSubmitCommand;
    t->PreemptCommand = DxgkDdiPreemptCommand;
    t->CancelCommand = DxgkDdiCancelCommand;
    t->QueryCurrentFence = DxgkDdiQueryCurrentFence;
    t->ResetFromTimeout = DxgkDdiResetFromTimeout;
    t->RestartFromTimeout = DxgkDdiRestartFromTimeout;
    t->InterruptRoutine = DxgkDdiInterruptRoutine;
    t->DpcRoutine = DxgkDdiDpcRoutine;
    t->BuildPagingBuffer = DxgkDdiBuildPagingBuffer;
}

/* Process-context DDIs carry their process (the checker's one-thread-per-process rule). */
NTSTATUS vs_ddi_create_context(gr_adapter_t *ad, gr_gpu_device_t *dev, DXGKARG_CREATECONTEXT *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_CREATE_CONTEXT, dev->process, 0);
    NTSTATUS st = vs->ddi.CreateContext(dev->hDevice, a);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_CREATE_CONTEXT, dev->process);
    return st;
}

NTSTATUS vs_ddi_destroy_context(gr_adapter_t *ad, gr_gpu_device_t *dev, HANDLE hContext)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_DESTROY_CONTEXT, dev->process, 0);
    NTSTATUS st = vs->ddi.DestroyContext(hContext);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_DESTROY_CONTEXT, dev->process);
    return st;
}

void vs_ddi_set_root_page_table(gr_adapter_t *ad, const void *process, const DXGKARG_SETROOTPAGETABLE *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_SET_ROOT_PAGE_TABLE, process, 0);
    vs->ddi.SetRootPageTable(ad->hAdapter, a);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_SET_ROOT_PAGE_TABLE, process);
}

/* The scheduler thread's DDIs: no process (a system thread), scheduler-class lock held. */
NTSTATUS vs_ddi_patch(gr_adapter_t *ad, const DXGKARG_PATCH *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_PATCH, NULL, 0);
    NTSTATUS st = vs->ddi.Patch(ad->hAdapter, a);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_PATCH, NULL);
    return st;
}

NTSTATUS vs_ddi_submit(gr_adapter_t *ad, const DXGKARG_SUBMITCOMMAND *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_SUBMIT_COMMAND, NULL, 0);
    NTSTATUS st = vs->ddi.SubmitCommand(ad->hAdapter, a);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_SUBMIT_COMMAND, NULL);
    return st;
}

NTSTATUS vs_ddi_preempt(gr_adapter_t *ad, const DXGKARG_PREEMPTCOMMAND *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_PREEMPT_COMMAND, NULL, 0);
    NTSTATUS st = vs->ddi.PreemptCommand(ad->hAdapter, a);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_PREEMPT_COMMAND, NULL);
    return st;
}

NTSTATUS vs_ddi_cancel(gr_adapter_t *ad, const DXGKARG_CANCELCOMMAND *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_CANCEL_COMMAND, NULL, 0);
    NTSTATUS st = vs->ddi.CancelCommand(ad->hAdapter, a);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_CANCEL_COMMAND, NULL);
    return st;
}

NTSTATUS vs_ddi_query_fence(gr_adapter_t *ad, DXGKARG_QUERYCURRENTFENCE *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_QUERY_CURRENT_FENCE, NULL, 0);
    NTSTATUS st = vs->ddi.QueryCurrentFence(ad->hAdapter, a);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_QUERY_CURRENT_FENCE, NULL);
    return st;
}

NTSTATUS vs_ddi_packet_progress(gr_adapter_t *ad, uint32_t fence, gr_kmd_packet_progress_t *out)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_PACKET_PROGRESS, NULL, 0);
    NTSTATUS st = gr_kmd_packet_progress(ad->hAdapter, fence, out);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_PACKET_PROGRESS, NULL);
    return st;
}

/* Third level: the scheduler passes nothing through while it resets (it is the caller). */
NTSTATUS vs_ddi_reset(gr_adapter_t *ad)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_RESET_FROM_TIMEOUT, NULL, DXGK_THR_SCHED_QUIESCED);
    NTSTATUS st = vs->ddi.ResetFromTimeout(ad->hAdapter);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_RESET_FROM_TIMEOUT, NULL);
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
    dxgk_ddi_enter(vs->thr, DXGK_DDI_RESTART_FROM_TIMEOUT, NULL, flags);
    NTSTATUS st = vs->ddi.RestartFromTimeout(ad->hAdapter);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_RESTART_FROM_TIMEOUT, NULL);
    return st;
}

BOOLEAN vs_ddi_interrupt(gr_adapter_t *ad)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_INTERRUPT_ROUTINE, NULL, 0);
    BOOLEAN r = vs->ddi.InterruptRoutine(ad->hAdapter, 0);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_INTERRUPT_ROUTINE, NULL);
    return r;
}

void vs_ddi_dpc(gr_adapter_t *ad)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_DPC_ROUTINE, NULL, 0);
    vs->ddi.DpcRoutine(ad->hAdapter);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_DPC_ROUTINE, NULL);
}

/* ---- the adapter's and VidMm's call sites -------------------------------------------------------- */

/* Start and stop run before the scheduler's threads exist and after they end. */
#define DXGK_ALONE (DXGK_THR_SCHED_QUIESCED | DXGK_THR_HW_IDLE)

NTSTATUS dxgk_call_start_adapter(gr_adapter_t *ad, const gr_kmd_start_info_t *si)
{
    dxgk_thr_t *t = ad->vidsch->thr;
    dxgk_ddi_enter(t, DXGK_DDI_START_DEVICE, NULL, DXGK_ALONE);
    NTSTATUS st = gr_kmd_start_adapter(si, &ad->hAdapter);
    dxgk_ddi_leave(t, DXGK_DDI_START_DEVICE, NULL);
    return st;
}

void dxgk_call_stop_adapter(gr_adapter_t *ad)
{
    dxgk_thr_t *t = ad->vidsch->thr;
    dxgk_ddi_enter(t, DXGK_DDI_STOP_DEVICE, NULL, DXGK_ALONE);
    gr_kmd_stop_adapter(ad->hAdapter);
    dxgk_ddi_leave(t, DXGK_DDI_STOP_DEVICE, NULL);
}

NTSTATUS dxgk_call_set_vpr(gr_adapter_t *ad, uint64_t base, uint64_t limit)
{
    dxgk_thr_t *t = ad->vidsch->thr;
    dxgk_ddi_enter(t, DXGK_DDI_SET_VPR, NULL, DXGK_ALONE);
    NTSTATUS st = gr_kmd_set_vpr(ad->hAdapter, base, limit);
    dxgk_ddi_leave(t, DXGK_DDI_SET_VPR, NULL);
    return st;
}

NTSTATUS dxgk_call_query_adapter_info(gr_adapter_t *ad, const DXGKARG_QUERYADAPTERINFO *q)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_QUERY_ADAPTER_INFO, NULL, 0);
    NTSTATUS st = vs->ddi.QueryAdapterInfo(ad->hAdapter, q);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_QUERY_ADAPTER_INFO, NULL);
    return st;
}

NTSTATUS dxgk_call_create_device(gr_process_t *p, gr_gpu_device_t *d)
{
    dxgk_thr_t *t = p->adapter->vidsch->thr;
    dxgk_ddi_enter(t, DXGK_DDI_CREATE_DEVICE, p, 0);
    NTSTATUS st = gr_kmd_create_device(p->adapter->hAdapter, d, &d->hDevice);
    dxgk_ddi_leave(t, DXGK_DDI_CREATE_DEVICE, p);
    return st;
}

NTSTATUS dxgk_call_destroy_device(gr_process_t *p, gr_gpu_device_t *d)
{
    dxgk_thr_t *t = p->adapter->vidsch->thr;
    dxgk_ddi_enter(t, DXGK_DDI_DESTROY_DEVICE, p, 0);
    NTSTATUS st = gr_kmd_destroy_device(d->hDevice);
    dxgk_ddi_leave(t, DXGK_DDI_DESTROY_DEVICE, p);
    return st;
}

NTSTATUS dxgk_call_counts(gr_adapter_t *ad, gr_kmd_counts_t *out)
{
    dxgk_thr_t *t = ad->vidsch->thr;
    dxgk_ddi_enter(t, DXGK_DDI_KMD_COUNTS, NULL, 0);
    NTSTATUS st = gr_kmd_counts(ad->hAdapter, out);
    dxgk_ddi_leave(t, DXGK_DDI_KMD_COUNTS, NULL);
    return st;
}

NTSTATUS dxgk_call_create_allocation(gr_adapter_t *ad, gr_process_t *p, DXGKARG_CREATEALLOCATION *c)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_CREATE_ALLOCATION, p, 0);
    NTSTATUS st = vs->ddi.CreateAllocation(ad->hAdapter, c);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_CREATE_ALLOCATION, p);
    return st;
}

NTSTATUS dxgk_call_open_allocation(gr_gpu_device_t *dev, const DXGKARG_OPENALLOCATION *o)
{
    dxgk_vidsch_t *vs = dev->process->adapter->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_OPEN_ALLOCATION, dev->process, 0);
    NTSTATUS st = vs->ddi.OpenAllocation(dev->hDevice, o);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_OPEN_ALLOCATION, dev->process);
    return st;
}

NTSTATUS dxgk_call_close_allocation(gr_gpu_device_t *dev, const DXGKARG_CLOSEALLOCATION *c)
{
    dxgk_vidsch_t *vs = dev->process->adapter->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_CLOSE_ALLOCATION, dev->process, 0);
    NTSTATUS st = vs->ddi.CloseAllocation(dev->hDevice, c);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_CLOSE_ALLOCATION, dev->process);
    return st;
}

/* VidMm destroys allocations from whichever process dropped the last reference; the call site
 * does not know which, so the per-process rule is not applied to it. */
NTSTATUS dxgk_call_destroy_allocation(gr_adapter_t *ad, const DXGKARG_DESTROYALLOCATION *d)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_ddi_enter(vs->thr, DXGK_DDI_DESTROY_ALLOCATION, NULL, 0);
    NTSTATUS st = vs->ddi.DestroyAllocation(ad->hAdapter, d);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_DESTROY_ALLOCATION, NULL);
    return st;
}

/* The stand-in for BuildPagingBuffer(FLUSH_TLB): first level, so under the class lock. */
NTSTATUS dxgk_call_flush_tlb(gr_adapter_t *ad)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_vidsch_class_lock(ad);
    dxgk_ddi_enter(vs->thr, DXGK_DDI_FLUSH_TLB, NULL, 0);
    NTSTATUS st = gr_kmd_flush_tlb(ad->hAdapter);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_FLUSH_TLB, NULL);
    dxgk_vidsch_class_unlock(ad);
    return st;
}

NTSTATUS dxgk_call_build_paging_buffer(gr_adapter_t *ad, DXGKARG_BUILDPAGINGBUFFER *a)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_vidsch_class_lock(ad);
    dxgk_ddi_enter(vs->thr, DXGK_DDI_BUILD_PAGING_BUFFER, NULL, 0);
    NTSTATUS st = vs->ddi.BuildPagingBuffer(ad->hAdapter, a);
    dxgk_ddi_leave(vs->thr, DXGK_DDI_BUILD_PAGING_BUFFER, NULL);
    dxgk_vidsch_class_unlock(ad);
    return st;
}

NTSTATUS dxgk_call_acquire_cpu_window(gr_adapter_t *ad, uint64_t vram, uint64_t bytes, uint64_t *out_ap_offset,
                                      uint64_t *out_ap_bytes)
{
    /* The caller holds the gate for its whole copy (dxgk_frame_buffer_hold): taking it again
     * here, under the window the miniport holds from acquire to release, would nest the two
     * locks both ways. */
    dxgk_thr_t *t = ad->vidsch->thr;
    dxgk_ddi_enter(t, DXGK_DDI_ACQUIRE_CPU_WINDOW, NULL, DXGK_THR_GATE_HELD);
    NTSTATUS st = gr_kmd_acquire_cpu_window(ad->hAdapter, vram, bytes, out_ap_offset, out_ap_bytes);
    dxgk_ddi_leave_held(t, DXGK_DDI_ACQUIRE_CPU_WINDOW, NULL, true);
    return st;
}

NTSTATUS dxgk_call_release_cpu_window(gr_adapter_t *ad)
{
    dxgk_thr_t *t = ad->vidsch->thr;
    dxgk_ddi_enter(t, DXGK_DDI_RELEASE_CPU_WINDOW, NULL, DXGK_THR_GATE_HELD);
    NTSTATUS st = gr_kmd_release_cpu_window(ad->hAdapter);
    dxgk_ddi_leave_held(t, DXGK_DDI_RELEASE_CPU_WINDOW, NULL, true);
    return st;
}

void dxgk_frame_buffer_hold(gr_adapter_t *ad)
{
    dxgk_thr_hold(ad->vidsch->thr);
}

void dxgk_frame_buffer_unhold(gr_adapter_t *ad)
{
    dxgk_thr_unhold(ad->vidsch->thr);
}
