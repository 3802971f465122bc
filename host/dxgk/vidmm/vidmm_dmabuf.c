/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_dmabuf.c: DMA buffers mapped into their device's GPU virtual address space
 * (vidmm_packet.h). The mapping takes a VA slot of its own from the device's cursor, as every
 * open does (vidmm_place.c), under the residency lock that guards the page tables.
 */
#include "vidmm_packet.h"

#include "vidmm_gpuva.h"
#include "vidmm_residency.h"

#define DMABUF_PAGE UINT64_C(4096)
#define DMABUF_SLOT (UINT64_C(2) << 20)

static uint64_t span(uint64_t bytes)
{
    return (bytes + DMABUF_PAGE - 1) & ~(DMABUF_PAGE - 1);
}

gr_status_t dxgk_dmabuf_map(gr_gpu_device_t *dev, uint64_t bus, uint64_t bytes, uint64_t *out_va)
{
    if (!dev || !out_va || !bytes || bus % DMABUF_PAGE)
        return GR_E_INVALID;
    gr_adapter_t *ad = dev->process->adapter;
    const uint64_t size = span(bytes);
    dxgk_res_lock(ad);
    /* A table page per 2 MiB of 4 KiB PTEs, and the levels above. */
    dxgk_res_reserve_pt(ad, (uint32_t)(size / DMABUF_SLOT) + 4u);
    const uint64_t va = (dev->va_next + DMABUF_SLOT - 1) & ~(DMABUF_SLOT - 1);
    gr_status_t rc = gr_gpuva_map(dev->va_space, va, bus, size, GR_GPUVA_WRITABLE | GR_GPUVA_SYSTEM);
    if (!rc)
        dev->va_next = va + size;
    dxgk_res_unlock(ad);
    if (rc)
        return rc == GR_E_INVALID ? GR_E_NO_MEMORY : rc;
    *out_va = va;
    return GR_OK;
}

void dxgk_dmabuf_unmap(gr_gpu_device_t *dev, uint64_t va, uint64_t bytes)
{
    if (!dev || !va)
        return;
    gr_adapter_t *ad = dev->process->adapter;
    dxgk_res_lock(ad);
    DXGK_CANNOT_FAIL(gr_gpuva_unmap(dev->va_space, va, span(bytes)));
    dxgk_res_unlock(ad);
}
