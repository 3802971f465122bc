/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kmd_reg.c: the bottom of the miniport, which its other files call and which calls none of
 * them: the adapter behind a handle, register reads and writes under the link lock, and the
 * fence record the engine writes in host memory.
 */
#include "kmd_dma.h"

kmd_adapter_t *kmd_adapter_from(HANDLE h)
{
    kmd_adapter_t *a = h;
    return a && a->magic == KMD_MAGIC_ADAPTER ? a : NULL;
}

int kmd_reg_read(kmd_adapter_t *a, uint32_t offset, uint32_t *out_value)
{
    pthread_mutex_lock(a->link_lock);
    int rc = gr_link_read32(a->link, offset, out_value);
    pthread_mutex_unlock(a->link_lock);
    return rc;
}

int kmd_reg_read_batch(kmd_adapter_t *a, const uint32_t *offsets, unsigned count, uint32_t *out_values)
{
    pthread_mutex_lock(a->link_lock);
    int rc = gr_link_read32_batch(a->link, offsets, count, out_values);
    pthread_mutex_unlock(a->link_lock);
    return rc;
}

int kmd_reg_write(kmd_adapter_t *a, uint32_t offset, uint32_t value)
{
    pthread_mutex_lock(a->link_lock);
    int rc = gr_link_write32(a->link, offset, value);
    pthread_mutex_unlock(a->link_lock);
    return rc;
}

void kmd_fence_read(kmd_adapter_t *a, uint32_t *out_done, uint32_t *out_preempt)
{
    const uint8_t *rec = a->eng.fence.cpu;
    pthread_mutex_lock(a->link_lock);
    uint64_t done = gr_dma_get64(rec + GR_DMA_FENCE_RECORD_DONE);
    uint64_t preempt = gr_dma_get64(rec + GR_DMA_FENCE_RECORD_PREEMPT);
    pthread_mutex_unlock(a->link_lock);
    *out_done = (uint32_t)done;
    if (out_preempt)
        *out_preempt = (uint32_t)preempt;
}
