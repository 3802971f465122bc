/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dxgk_kernel.c: the bottom of the OS stand-in, below VidMm and VidSch: the process-wide kernel
 * handle table with the DXGKRNL_INTERFACE callbacks that read it (DxgkCbGetHandleData,
 * DxgkCbGetHandleParent), and the translation of a DDI's NTSTATUS into a gr_status_t.
 */
#include "dxgk_kernel.h"
#include "dxgk_handle.h"
#include "dxgk_objects.h"
#include "dxgk_threading.h"

/* ---- kernel handles and callbacks ---------------------------------------------------------- */

static dxgk_htab_t kernel_handles;
static pthread_once_t kernel_once = PTHREAD_ONCE_INIT;
static gr_status_t kernel_init_rc;

static void kernel_init(void)
{
    kernel_init_rc = dxgk_htab_init(&kernel_handles);
}

dxgk_htab_t *dxgk_kernel_handles(void)
{
    pthread_once(&kernel_once, kernel_init);
    return kernel_init_rc ? NULL : &kernel_handles;
}

/* DxgkCbGetHandleData: the miniport's hAllocation / hResource behind a kernel handle. */
static VOID *APIENTRY cb_get_handle_data(IN_CONST_PDXGKARGCB_GETHANDLEDATA args)
{
    dxgk_thr_callback(NULL, DXGK_CB_GET_HANDLE_DATA); /* no adapter argument: IRQL only */
    dxgk_htab_t *t = dxgk_kernel_handles();
    if (!t || !args || args->Flags.Value)
        return NULL;
    if (args->Type == DXGK_HANDLE_ALLOCATION) {
        dxgk_kalloc_t *ka = dxgk_htab_lookup(t, args->hObject, DXGK_HANDLE_ALLOCATION);
        return ka ? ka->info.hAllocation : NULL;
    }
    if (args->Type == DXGK_HANDLE_RESOURCE) {
        dxgk_kres_t *kr = dxgk_htab_lookup(t, args->hObject, DXGK_HANDLE_RESOURCE);
        return kr ? kr->hResource : NULL;
    }
    return NULL;
}

/* DxgkCbGetHandleParent: the resource handle of an allocation handle (0 if none). */
static D3DKMT_HANDLE APIENTRY cb_get_handle_parent(IN_D3DKMT_HANDLE hAllocation)
{
    dxgk_thr_callback(NULL, DXGK_CB_GET_HANDLE_PARENT);
    dxgk_htab_t *t = dxgk_kernel_handles();
    dxgk_kalloc_t *ka = t ? dxgk_htab_lookup(t, hAllocation, DXGK_HANDLE_ALLOCATION) : NULL;
    return ka && ka->res->has_resource ? ka->res->kh : 0;
}

gr_status_t dxgk_status_from_nt(NTSTATUS st)
{
    switch (st) {
    case STATUS_SUCCESS:
        return GR_OK;
    case STATUS_NO_MEMORY:
    case STATUS_INSUFFICIENT_RESOURCES:
    case STATUS_GRAPHICS_NO_VIDEO_MEMORY:
        return GR_E_NO_MEMORY;
    case STATUS_NOT_SUPPORTED:
    case STATUS_NOT_IMPLEMENTED:
        return GR_E_UNSUPPORTED;
    case STATUS_DEVICE_NOT_READY:
        return GR_E_NO_DEVICE;
    case STATUS_UNSUCCESSFUL:
        return GR_E_IO;
    default:
        return GR_E_INVALID;
    }
}

void dxgk_kernel_fill_callbacks(DXGKRNL_INTERFACE *cb)
{
    cb->DxgkCbGetHandleData = cb_get_handle_data;
    cb->DxgkCbGetHandleParent = cb_get_handle_parent;
}
