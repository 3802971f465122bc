/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dxgk_sysmem.c: host memory a process hands the device as the backing store of
 * ExistingSysMem / ExistingKernelSysMem allocations (gr_sysmem_alloc, gr_sysmem_free).
 *
 * dxgkrnl pins a process's pages and maps them for the device. The stand-in cannot make
 * arbitrary process memory visible to the device: only the link's DMA allocator can (sim://
 * serves its buffers on m_host behind a private bus space; a board maps pinned pages). So a
 * process takes its buffers from here, VidMm finds the bus address of a caller's pointer by
 * looking it up among the process's buffers, and refuses any other pointer (GR_E_NOT_FOUND).
 *
 * Lifetime: each buffer is reference-counted under the adapter's VidMm lock: one reference
 * for the process (until gr_sysmem_free or the process ends) and one for every allocation it
 * backs (until the allocation is destroyed, which may be after its creator's end when another
 * process holds it open). The last reference frees it through the link, so the device never
 * reaches memory that was given back. The process's list is under its process lock.
 */
#include <stdlib.h>
#include <string.h>

#include "dxgk_objects.h"
#include "dxgk_sysmem.h"
#include "gr_link.h"

#define PAGE UINT64_C(4096)

struct dxgk_sysmem {
    gr_dma_buf_t buf;    /* buf.bytes: whole pages */
    uint32_t refs;       /* under the adapter's vidmm_lock */
    dxgk_sysmem_t *next; /* in the owner's list while the owner holds its reference */
};

static void sysmem_release(gr_adapter_t *ad, dxgk_sysmem_t *m)
{
    pthread_mutex_lock(&ad->link_lock);
    (void)gr_link_dma_free(ad->link, &m->buf);
    pthread_mutex_unlock(&ad->link_lock);
    free(m);
}

void dxgk_sysmem_get(gr_adapter_t *ad, dxgk_sysmem_t *m)
{
    pthread_mutex_lock(&ad->vidmm_lock);
    m->refs++;
    pthread_mutex_unlock(&ad->vidmm_lock);
}

void dxgk_sysmem_put(gr_adapter_t *ad, dxgk_sysmem_t *m)
{
    pthread_mutex_lock(&ad->vidmm_lock);
    bool last = --m->refs == 0;
    pthread_mutex_unlock(&ad->vidmm_lock);
    if (last)
        sysmem_release(ad, m);
}

gr_status_t gr_sysmem_alloc(gr_process_t *p, uint64_t bytes, gr_sysmem_t *out_mem)
{
    if (!p || !out_mem || bytes == 0 || bytes > (UINT64_C(1) << 40))
        return GR_E_INVALID;
    gr_adapter_t *ad = p->adapter;
    uint64_t size = (bytes + PAGE - 1) & ~(PAGE - 1);
    dxgk_sysmem_t *m = calloc(1, sizeof *m);
    if (!m)
        return GR_E_NO_MEMORY;
    pthread_mutex_lock(&ad->link_lock);
    int rc = (gr_link_caps(ad->link) & GR_LINK_CAP_DMA) ? gr_link_dma_alloc(ad->link, (size_t)size, &m->buf)
                                                         : GR_E_UNSUPPORTED;
    pthread_mutex_unlock(&ad->link_lock);
    if (rc) {
        free(m);
        return (gr_status_t)rc;
    }
    /* What VidMm relies on, whatever the backend: page-aligned, whole pages, zeroed. */
    if ((uintptr_t)m->buf.cpu % PAGE || m->buf.bus % PAGE || m->buf.bytes < size) {
        sysmem_release(ad, m);
        return GR_E_MISMATCH;
    }
    m->buf.bytes = (size_t)size;
    memset(m->buf.cpu, 0, (size_t)size);
    m->refs = 1;
    pthread_mutex_lock(&p->lock);
    m->next = p->sysmem;
    p->sysmem = m;
    pthread_mutex_unlock(&p->lock);
    gr_sysmem_t out = {.cpu = m->buf.cpu, .bus = m->buf.bus, .bytes = size};
    *out_mem = out;
    return GR_OK;
}

gr_status_t gr_sysmem_free(gr_process_t *p, void *cpu)
{
    if (!p || !cpu)
        return GR_E_INVALID;
    gr_adapter_t *ad = p->adapter;
    pthread_mutex_lock(&p->lock);
    dxgk_sysmem_t **pp = &p->sysmem;
    while (*pp && (*pp)->buf.cpu != cpu)
        pp = &(*pp)->next;
    dxgk_sysmem_t *m = *pp;
    if (!m) {
        pthread_mutex_unlock(&p->lock);
        return GR_E_NOT_FOUND;
    }
    pthread_mutex_lock(&ad->vidmm_lock);
    bool busy = m->refs > 1; /* an allocation is backed by it: the device may reach it */
    pthread_mutex_unlock(&ad->vidmm_lock);
    if (busy) {
        pthread_mutex_unlock(&p->lock);
        return GR_E_BUSY;
    }
    *pp = m->next;
    pthread_mutex_unlock(&p->lock);
    dxgk_sysmem_put(ad, m);
    return GR_OK;
}

gr_status_t dxgk_sysmem_lookup(gr_process_t *p, const void *cpu, uint64_t bytes, dxgk_sysmem_t **out_buf,
                               uint64_t *out_bus)
{
    uintptr_t lo = (uintptr_t)cpu;
    for (dxgk_sysmem_t *m = p->sysmem; m; m = m->next) {
        uintptr_t base = (uintptr_t)m->buf.cpu;
        if (lo >= base && lo - base <= m->buf.bytes && bytes <= m->buf.bytes - (lo - base)) {
            *out_buf = m;
            *out_bus = m->buf.bus + (lo - base);
            return GR_OK;
        }
    }
    return GR_E_NOT_FOUND;
}

void dxgk_process_free_sysmem(gr_process_t *p)
{
    pthread_mutex_lock(&p->lock);
    dxgk_sysmem_t *list = p->sysmem;
    p->sysmem = NULL;
    pthread_mutex_unlock(&p->lock);
    while (list) {
        dxgk_sysmem_t *next = list->next;
        list->next = NULL;
        dxgk_sysmem_put(p->adapter, list); /* freed now, or by the last allocation it backs */
        list = next;
    }
}
