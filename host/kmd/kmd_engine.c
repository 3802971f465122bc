/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kmd_engine.c: the DMA engine's bring-up and shutdown (rtl/dma/README.md): a ring and a fence
 * record in host memory the miniport owns, the engine's interrupt enables, ENABLE.
 */
#include <stdlib.h>
#include <string.h>

#include "kmd_dma.h"

static bool have_callbacks(const kmd_adapter_t *a)
{
    return a->cb.DxgkCbNotifyInterrupt && a->cb.DxgkCbQueueDpc && a->cb.DxgkCbNotifyDpc;
}

int kmd_engine_reset_and_wait(kmd_adapter_t *a)
{
    if (kmd_reg_write(a, KMD_DMA_CTRL, KMD_DMA_CTRL_RESET))
        return -1;
    /* Each read lets the device run (on sim:// time only advances inside link calls). */
    for (uint32_t i = 0; i < KMD_IDLE_POLLS; i++) {
        uint32_t st = 0;
        if (kmd_reg_read(a, KMD_DMA_STATUS, &st))
            return -1;
        if ((st & KMD_DMA_STATUS_IDLE) && !(st & KMD_DMA_STATUS_RESETTING))
            return 0;
    }
    return -1;
}

int kmd_engine_program_ring(kmd_adapter_t *a)
{
    kmd_engine_t *e = &a->eng;
    const uint32_t want[5][2] = {
        {KMD_DMA_RING_BASE_LO, (uint32_t)e->ring.bus & KMD_DMA_RING_PAGE_MASK},
        {KMD_DMA_RING_BASE_HI, (uint32_t)(e->ring.bus >> 32)},
        {KMD_DMA_RING_SIZE, e->ring_log2},
        {KMD_DMA_FENCE_ADDR_LO, (uint32_t)e->fence.bus & KMD_DMA_FENCE_ADDR_MASK},
        {KMD_DMA_FENCE_ADDR_HI, (uint32_t)(e->fence.bus >> 32)},
    };
    for (unsigned i = 0; i < 5; i++) {
        uint32_t v = 0;
        if (kmd_reg_read(a, want[i][0], &v))
            return -1;
        if (v != want[i][1] && kmd_reg_write(a, want[i][0], want[i][1]))
            return -1;
    }
    return 0;
}

/*
 * DMA_WATCHDOG counts cycles without progress on the running entry. Across a byte-stream link
 * one answer from host memory may legally take up to the link's DMA wait (HELLO_RSP's
 * DmaTimeout): a 3 Mbaud UART busy with one 4 KiB BAR1 write holds it back 1.4M cycles, past
 * the register's 1M-cycle reset value, and the engine would be reset as hung. So the watchdog
 * gets that wait on top of its reset value: a slow link is not a hang, a dead one still ends
 * in the link engine's bus error (the clearer fault), and a hung engine is still caught. On
 * sim:// and PCIe (no such wait) the reset value stays. Raised only: a test may have set it.
 */
static int program_watchdog(kmd_adapter_t *a)
{
    pthread_mutex_lock(a->link_lock);
    const uint64_t wait = gr_link_dma_wait_cycles(a->link);
    pthread_mutex_unlock(a->link_lock);
    if (!wait)
        return 0;
    uint64_t want = wait + GPU_REGS__DMA_WATCHDOG__CYCLES_reset;
    if (want > UINT32_MAX)
        want = UINT32_MAX;
    uint32_t have = 0;
    if (kmd_reg_read(a, KMD_DMA_WATCHDOG, &have))
        return -1;
    return have && have < want ? kmd_reg_write(a, KMD_DMA_WATCHDOG, (uint32_t)want) : 0;
}

static int dma_alloc(kmd_adapter_t *a, size_t bytes, gr_dma_buf_t *out)
{
    pthread_mutex_lock(a->link_lock);
    int rc = gr_link_dma_alloc(a->link, bytes, out);
    pthread_mutex_unlock(a->link_lock);
    return rc;
}

static void dma_free(kmd_adapter_t *a, gr_dma_buf_t *b)
{
    if (!b->cpu)
        return;
    pthread_mutex_lock(a->link_lock);
    (void)gr_link_dma_free(a->link, b);
    pthread_mutex_unlock(a->link_lock);
    memset(b, 0, sizeof *b);
}

static int irq_enable_bits(kmd_adapter_t *a, bool on)
{
    uint32_t en = 0;
    if (kmd_reg_read(a, GR_REG_IRQ_ENABLE, &en))
        return -1;
    en = on ? (en | KMD_IRQ_DMA_ALL) : (en & ~KMD_IRQ_DMA_ALL);
    return kmd_reg_write(a, GR_REG_IRQ_ENABLE, en);
}

/* The hardware half of start: ring, fence record, registers, interrupt enables. */
static NTSTATUS engine_bring_up(kmd_adapter_t *a)
{
    kmd_engine_t *e = &a->eng;
    NTSTATUS st = STATUS_NO_MEMORY;
    e->slots = calloc(e->ring_entries, sizeof *e->slots);
    e->stub_slot = calloc(e->ring_entries, sizeof *e->stub_slot);
    if (!e->slots || !e->stub_slot)
        goto fail_slots;
    /* Page-sized: DMA_RING_BASE holds bits 63:12, and the fence record gets a page of its own. */
    if (dma_alloc(a, (size_t)e->ring_entries * GR_DMA_RING_ENTRY_BYTES, &e->ring))
        goto fail_slots;
    if (dma_alloc(a, KMD_PAGE, &e->fence))
        goto fail_ring;
    /* The commands a preemption cut, resumed (kmd_submit.c): one area per ring slot. */
    if (dma_alloc(a, (size_t)e->ring_entries * GR_DMA_RING_ENTRY_BYTES, &e->stubs))
        goto fail_fence;
    st = STATUS_DEVICE_NOT_READY;
    if (e->ring.bus & (KMD_PAGE - 1) || e->fence.bus & 7 || e->stubs.bus & 7)
        goto fail_stubs;
    memset(e->ring.cpu, 0, e->ring.bytes);
    memset(e->fence.cpu, 0, e->fence.bytes);
    memset(e->stubs.cpu, 0, e->stubs.bytes);

    st = STATUS_UNSUCCESSFUL;
    uint32_t head = 0;
    if (kmd_engine_reset_and_wait(a) || kmd_engine_program_ring(a) || program_watchdog(a) ||
        kmd_reg_read(a, KMD_DMA_RING_HEAD, &head))
        goto fail_stubs;
    /* The engine takes TAIL modulo the ring size; so does the sequence number's index. */
    e->next_seq = head & (e->ring_entries - 1);
    e->retire_seq = e->next_seq;
    if (kmd_reg_write(a, KMD_DMA_RING_TAIL, (uint32_t)e->next_seq) ||
        kmd_reg_write(a, GR_REG_IRQ_STATE, KMD_IRQ_DMA_ALL) || irq_enable_bits(a, true))
        goto fail_stubs;
    if (kmd_reg_write(a, KMD_DMA_CTRL, KMD_DMA_CTRL_ENABLE)) {
        (void)irq_enable_bits(a, false);
        goto fail_stubs;
    }
    e->ready = true;
    return STATUS_SUCCESS;

fail_stubs:
    dma_free(a, &e->stubs);
fail_fence:
    dma_free(a, &e->fence);
fail_ring:
    dma_free(a, &e->ring);
fail_slots:
    free(e->slots);
    free(e->stub_slot);
    e->slots = NULL;
    e->stub_slot = NULL;
    return st;
}

NTSTATUS kmd_engine_start(kmd_adapter_t *a)
{
    kmd_engine_t *e = &a->eng;
    memset(e, 0, sizeof *e);
    /* Contexts and packet state are software: they exist with or without the engine. */
    if (pthread_mutex_init(&e->sched_lock, NULL))
        return STATUS_NO_MEMORY;
    if (pthread_mutex_init(&e->irq_lock, NULL)) {
        pthread_mutex_destroy(&e->sched_lock);
        return STATUS_NO_MEMORY;
    }
    e->next_packet_id = 1;
    e->ring_log2 = KMD_RING_LOG2;
    e->ring_entries = 1u << KMD_RING_LOG2;

    pthread_mutex_lock(a->link_lock);
    uint32_t link_caps = gr_link_caps(a->link);
    pthread_mutex_unlock(a->link_lock);
    if (!(a->id_caps & GPU_REGS__ID_CAPS__DMA_bm) || !have_callbacks(a) ||
        !(link_caps & GR_LINK_CAP_DMA))
        return STATUS_SUCCESS;
    NTSTATUS st = engine_bring_up(a);
    if (st) {
        pthread_mutex_destroy(&e->irq_lock);
        pthread_mutex_destroy(&e->sched_lock);
    }
    return st;
}

void kmd_engine_stop(kmd_adapter_t *a)
{
    kmd_engine_t *e = &a->eng;
    if (e->ready) {
        /* The engine must stop touching the ring and the fence record before they are freed. */
        (void)kmd_engine_reset_and_wait(a);
        (void)irq_enable_bits(a, false);
        (void)kmd_reg_write(a, GR_REG_IRQ_STATE, KMD_IRQ_DMA_ALL);
    }
    pthread_mutex_lock(&e->sched_lock);
    kmd_packets_drop(a, NULL);
    pthread_mutex_unlock(&e->sched_lock);
    if (e->ready) {
        e->ready = false;
        dma_free(a, &e->stubs);
        dma_free(a, &e->fence);
        dma_free(a, &e->ring);
        free(e->slots);
        free(e->stub_slot);
        e->slots = NULL;
        e->stub_slot = NULL;
    }
    pthread_mutex_destroy(&e->irq_lock);
    pthread_mutex_destroy(&e->sched_lock);
}

int gr_kmd_engine_ready(HANDLE hAdapter)
{
    kmd_adapter_t *a = kmd_adapter_from(hAdapter);
    return a && a->eng.ready;
}
