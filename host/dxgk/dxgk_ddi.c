/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dxgk_ddi.c: the adapter's DDI table and threading checker, and the DDI calls the adapter and
 * VidMm make through them, each under the checker with the DDI's documented level. Part of the
 * core, below VidMm and VidSch: both call the miniport through the table the adapter owns.
 */
#define _GNU_SOURCE
#include <string.h>

#include "dxgk_ddi.h"
#include "dxgk_objects.h"
#include "dxgk_threading.h"
#include "kmd.h"

/* The miniport's DDIs (host/kmd). */
static void ddi_table_default(gr_dxgk_ddi_table_t *t)
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

gr_status_t dxgk_ddi_init(gr_adapter_t *ad)
{
    ddi_table_default(&ad->ddi);
    if (dxgk_thr_create(0, &ad->thr))
        return GR_E_NO_MEMORY;
    if (pthread_mutex_init(&ad->class_lock, NULL)) {
        dxgk_thr_destroy(ad->thr);
        ad->thr = NULL;
        return GR_E_NO_MEMORY;
    }
    return GR_OK;
}

void dxgk_ddi_fini(gr_adapter_t *ad)
{
    if (!ad->thr)
        return;
    pthread_mutex_destroy(&ad->class_lock);
    dxgk_thr_destroy(ad->thr);
    ad->thr = NULL;
}

void dxgk_vidsch_class_lock(gr_adapter_t *ad)
{
    dxgk_thr_may_block(ad->thr, "the scheduler-class lock");
    pthread_mutex_lock(&ad->class_lock);
}

void dxgk_vidsch_class_unlock(gr_adapter_t *ad)
{
    pthread_mutex_unlock(&ad->class_lock);
}

/* ---- the adapter's and VidMm's call sites -------------------------------------------------------- */

/* Start and stop run before the scheduler's threads exist and after they end. */
#define DXGK_ALONE (DXGK_THR_SCHED_QUIESCED | DXGK_THR_HW_IDLE)

NTSTATUS dxgk_call_start_adapter(gr_adapter_t *ad, const gr_kmd_start_info_t *si)
{
    dxgk_thr_t *t = ad->thr;
    dxgk_ddi_enter(t, DXGK_DDI_START_DEVICE, NULL, DXGK_ALONE);
    NTSTATUS st = gr_kmd_start_adapter(si, &ad->hAdapter);
    dxgk_ddi_leave(t, DXGK_DDI_START_DEVICE, NULL);
    return st;
}

void dxgk_call_stop_adapter(gr_adapter_t *ad)
{
    dxgk_thr_t *t = ad->thr;
    dxgk_ddi_enter(t, DXGK_DDI_STOP_DEVICE, NULL, DXGK_ALONE);
    gr_kmd_stop_adapter(ad->hAdapter);
    dxgk_ddi_leave(t, DXGK_DDI_STOP_DEVICE, NULL);
}

NTSTATUS dxgk_call_set_vpr(gr_adapter_t *ad, uint64_t base, uint64_t limit)
{
    dxgk_thr_t *t = ad->thr;
    dxgk_ddi_enter(t, DXGK_DDI_SET_VPR, NULL, DXGK_ALONE);
    NTSTATUS st = gr_kmd_set_vpr(ad->hAdapter, base, limit);
    dxgk_ddi_leave(t, DXGK_DDI_SET_VPR, NULL);
    return st;
}

NTSTATUS dxgk_call_query_adapter_info(gr_adapter_t *ad, const DXGKARG_QUERYADAPTERINFO *q)
{
    gr_adapter_t *vs_ad = ad;
    dxgk_ddi_enter(vs_ad->thr, DXGK_DDI_QUERY_ADAPTER_INFO, NULL, 0);
    NTSTATUS st = vs_ad->ddi.QueryAdapterInfo(ad->hAdapter, q);
    dxgk_ddi_leave(vs_ad->thr, DXGK_DDI_QUERY_ADAPTER_INFO, NULL);
    return st;
}

NTSTATUS dxgk_call_create_device(gr_process_t *p, gr_gpu_device_t *d)
{
    dxgk_thr_t *t = p->adapter->thr;
    dxgk_ddi_enter(t, DXGK_DDI_CREATE_DEVICE, p, 0);
    NTSTATUS st = gr_kmd_create_device(p->adapter->hAdapter, d, &d->hDevice);
    dxgk_ddi_leave(t, DXGK_DDI_CREATE_DEVICE, p);
    return st;
}

NTSTATUS dxgk_call_destroy_device(gr_process_t *p, gr_gpu_device_t *d)
{
    dxgk_thr_t *t = p->adapter->thr;
    dxgk_ddi_enter(t, DXGK_DDI_DESTROY_DEVICE, p, 0);
    NTSTATUS st = gr_kmd_destroy_device(d->hDevice);
    dxgk_ddi_leave(t, DXGK_DDI_DESTROY_DEVICE, p);
    return st;
}

NTSTATUS dxgk_call_counts(gr_adapter_t *ad, gr_kmd_counts_t *out)
{
    dxgk_thr_t *t = ad->thr;
    dxgk_ddi_enter(t, DXGK_DDI_KMD_COUNTS, NULL, 0);
    NTSTATUS st = gr_kmd_counts(ad->hAdapter, out);
    dxgk_ddi_leave(t, DXGK_DDI_KMD_COUNTS, NULL);
    return st;
}

NTSTATUS dxgk_call_create_allocation(gr_adapter_t *ad, gr_process_t *p, DXGKARG_CREATEALLOCATION *c)
{
    gr_adapter_t *vs_ad = ad;
    dxgk_ddi_enter(vs_ad->thr, DXGK_DDI_CREATE_ALLOCATION, p, 0);
    NTSTATUS st = vs_ad->ddi.CreateAllocation(ad->hAdapter, c);
    dxgk_ddi_leave(vs_ad->thr, DXGK_DDI_CREATE_ALLOCATION, p);
    return st;
}

NTSTATUS dxgk_call_open_allocation(gr_gpu_device_t *dev, const DXGKARG_OPENALLOCATION *o)
{
    gr_adapter_t *vs_ad = dev->process->adapter;
    dxgk_ddi_enter(vs_ad->thr, DXGK_DDI_OPEN_ALLOCATION, dev->process, 0);
    NTSTATUS st = vs_ad->ddi.OpenAllocation(dev->hDevice, o);
    dxgk_ddi_leave(vs_ad->thr, DXGK_DDI_OPEN_ALLOCATION, dev->process);
    return st;
}

NTSTATUS dxgk_call_close_allocation(gr_gpu_device_t *dev, const DXGKARG_CLOSEALLOCATION *c)
{
    gr_adapter_t *vs_ad = dev->process->adapter;
    dxgk_ddi_enter(vs_ad->thr, DXGK_DDI_CLOSE_ALLOCATION, dev->process, 0);
    NTSTATUS st = vs_ad->ddi.CloseAllocation(dev->hDevice, c);
    dxgk_ddi_leave(vs_ad->thr, DXGK_DDI_CLOSE_ALLOCATION, dev->process);
    return st;
}

/* VidMm destroys allocations from whichever process dropped the last reference; the call site
 * does not know which, so the per-process rule is not applied to it. */
NTSTATUS dxgk_call_destroy_allocation(gr_adapter_t *ad, const DXGKARG_DESTROYALLOCATION *d)
{
    gr_adapter_t *vs_ad = ad;
    dxgk_ddi_enter(vs_ad->thr, DXGK_DDI_DESTROY_ALLOCATION, NULL, 0);
    NTSTATUS st = vs_ad->ddi.DestroyAllocation(ad->hAdapter, d);
    dxgk_ddi_leave(vs_ad->thr, DXGK_DDI_DESTROY_ALLOCATION, NULL);
    return st;
}

/* The stand-in for BuildPagingBuffer(FLUSH_TLB): first level, so under the class lock. */
NTSTATUS dxgk_call_flush_tlb(gr_adapter_t *ad)
{
    gr_adapter_t *vs_ad = ad;
    dxgk_vidsch_class_lock(ad);
    dxgk_ddi_enter(vs_ad->thr, DXGK_DDI_FLUSH_TLB, NULL, 0);
    NTSTATUS st = gr_kmd_flush_tlb(ad->hAdapter);
    dxgk_ddi_leave(vs_ad->thr, DXGK_DDI_FLUSH_TLB, NULL);
    dxgk_vidsch_class_unlock(ad);
    return st;
}

NTSTATUS dxgk_call_build_paging_buffer(gr_adapter_t *ad, DXGKARG_BUILDPAGINGBUFFER *a)
{
    gr_adapter_t *vs_ad = ad;
    dxgk_vidsch_class_lock(ad);
    dxgk_ddi_enter(vs_ad->thr, DXGK_DDI_BUILD_PAGING_BUFFER, NULL, 0);
    NTSTATUS st = vs_ad->ddi.BuildPagingBuffer(ad->hAdapter, a);
    dxgk_ddi_leave(vs_ad->thr, DXGK_DDI_BUILD_PAGING_BUFFER, NULL);
    dxgk_vidsch_class_unlock(ad);
    return st;
}

NTSTATUS dxgk_call_acquire_cpu_window(gr_adapter_t *ad, uint64_t vram, uint64_t bytes, uint64_t *out_ap_offset,
                                      uint64_t *out_ap_bytes)
{
    /* The caller holds the gate for its whole copy (dxgk_frame_buffer_hold): taking it again
     * here, under the window the miniport holds from acquire to release, would nest the two
     * locks both ways. */
    dxgk_thr_t *t = ad->thr;
    dxgk_ddi_enter(t, DXGK_DDI_ACQUIRE_CPU_WINDOW, NULL, DXGK_THR_GATE_HELD);
    NTSTATUS st = gr_kmd_acquire_cpu_window(ad->hAdapter, vram, bytes, out_ap_offset, out_ap_bytes);
    dxgk_ddi_leave_held(t, DXGK_DDI_ACQUIRE_CPU_WINDOW, NULL, true);
    return st;
}

NTSTATUS dxgk_call_release_cpu_window(gr_adapter_t *ad)
{
    dxgk_thr_t *t = ad->thr;
    dxgk_ddi_enter(t, DXGK_DDI_RELEASE_CPU_WINDOW, NULL, DXGK_THR_GATE_HELD);
    NTSTATUS st = gr_kmd_release_cpu_window(ad->hAdapter);
    dxgk_ddi_leave_held(t, DXGK_DDI_RELEASE_CPU_WINDOW, NULL, true);
    return st;
}

void dxgk_frame_buffer_hold(gr_adapter_t *ad)
{
    dxgk_thr_hold(ad->thr);
}

void dxgk_frame_buffer_unhold(gr_adapter_t *ad)
{
    dxgk_thr_unhold(ad->thr);
}
