/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidsch_paging.c: VidSch's paging queue. VidMm's paging buffers (what DxgkDdiBuildPagingBuffer
 * wrote) run as paging packets: no context (hContext NULL, Flags.Paging on Patch and
 * SubmitCommand), on the node's one fence sequence, served before any context's work. The
 * scheduler thread patches and submits them (vidsch_sched.c); this file queues them, keeps the
 * pool of paging buffers, retires them, and is what VidMm waits on. README.md, "Residency".
 *
 * Preemption: a paging packet taken off the hardware keeps its fence id and is resubmitted first
 * ("the Dxgkrnl scheduler will resubmit preempted paging commands with the same fence IDs that
 * were originally used for them, and the paging commands will be scheduled prior to any other
 * commands on that engine", GPU preemption page); the miniport recognises it by buffer, range and
 * fence and resumes it at the command the preemption stopped. TDR: an innocent paging packet is
 * resubmitted the same way after RestartFromTimeout (the miniport freed its state in the reset,
 * so it runs again from its start: every paging operation VidMm builds can run twice); a guilty
 * one retires with GR_E_DEVICE_RESET and VidMm undoes the operation.
 */
#define _GNU_SOURCE /* pthread spin locks (vidsch_objects.h) */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dxgk_threading.h"
#include "gr_link.h"
#include "vidsch_objects.h"
#include "vidsch_paging.h"
#include "vidsch_sync.h"
#include "vidsch_timeline.h"

/* A paging buffer: VidMm fills pub; dma is what a packet names (p->buf). */
typedef struct vs_pgbuf {
    dxgk_pgbuf_t pub;
    vs_dmabuf_t dma;
    struct vs_pgbuf *next; /* vs->pg_free */
} vs_pgbuf_t;

static vs_pgbuf_t *pgbuf_of(dxgk_pgbuf_t *pub)
{
    return (vs_pgbuf_t *)((char *)pub - offsetof(vs_pgbuf_t, pub));
}

bool dxgk_vidsch_paging_ready(gr_adapter_t *ad)
{
    dxgk_vidsch_t *vs = ad ? ad->vidsch : NULL;
    return vs && vs->engine && ad->paging_buffer_size >= 8;
}

static void pgbuf_free(gr_adapter_t *ad, vs_pgbuf_t *b)
{
    pthread_mutex_lock(&ad->link_lock);
    (void)gr_link_dma_free(ad->link, &b->dma.mem);
    pthread_mutex_unlock(&ad->link_lock);
    free(b->pub.priv);
    free(b);
}

gr_status_t dxgk_vidsch_paging_get(gr_adapter_t *ad, dxgk_pgbuf_t **out)
{
    if (!dxgk_vidsch_paging_ready(ad))
        return GR_E_UNSUPPORTED;
    dxgk_vidsch_t *vs = ad->vidsch;
    pthread_mutex_lock(&vs->lock);
    vs_pgbuf_t *b = vs->pg_free;
    if (b)
        vs->pg_free = b->next;
    pthread_mutex_unlock(&vs->lock);
    if (b) {
        b->next = NULL;
        *out = &b->pub;
        return GR_OK;
    }
    b = calloc(1, sizeof *b);
    if (!b)
        return GR_E_NO_MEMORY;
    const uint32_t size = ad->paging_buffer_size, priv = ad->paging_priv_size;
    b->pub.priv = calloc(1, priv ? priv : 1);
    if (!b->pub.priv) {
        free(b);
        return GR_E_NO_MEMORY;
    }
    pthread_mutex_lock(&ad->link_lock);
    int rc = gr_link_dma_alloc(ad->link, size, &b->dma.mem);
    pthread_mutex_unlock(&ad->link_lock);
    if (rc) {
        free(b->pub.priv);
        free(b);
        return rc == GR_E_INVALID ? GR_E_NO_MEMORY : (gr_status_t)rc;
    }
    /* The engine fetches qwords: DMA buffers are 8-byte aligned on both sides. */
    if ((uintptr_t)b->dma.mem.cpu % 8 || b->dma.mem.bus % 8) {
        pgbuf_free(ad, b);
        return GR_E_MISMATCH;
    }
    b->dma.magic = VS_MAGIC_DMABUF;
    b->dma.size = size;
    b->pub.cpu = b->dma.mem.cpu;
    b->pub.size = size;
    b->pub.priv_size = priv;
    *out = &b->pub;
    return GR_OK;
}

void dxgk_vidsch_paging_put(gr_adapter_t *ad, dxgk_pgbuf_t *pub)
{
    if (!pub)
        return;
    dxgk_vidsch_t *vs = ad->vidsch;
    vs_pgbuf_t *b = pgbuf_of(pub);
    pthread_mutex_lock(&vs->lock);
    b->next = vs->pg_free;
    vs->pg_free = b;
    pthread_mutex_unlock(&vs->lock);
}

gr_status_t dxgk_vidsch_paging_submit(gr_adapter_t *ad, dxgk_paging_job_t *job, dxgk_pgbuf_t *pub, uint32_t bytes)
{
    if (!job || !pub)
        return GR_E_INVALID;
    dxgk_vidsch_t *vs = ad->vidsch;
    if (bytes == 0 || bytes > pub->size || bytes % 8) {
        dxgk_vidsch_paging_put(ad, pub);
        return GR_E_INVALID;
    }
    vs_packet_t *k = calloc(1, sizeof *k);
    if (!k) {
        dxgk_vidsch_paging_put(ad, pub);
        return GR_E_NO_MEMORY;
    }
    vs_pgbuf_t *b = pgbuf_of(pub);
    k->magic = VS_MAGIC_PACKET;
    k->paging = true;
    k->pgbuf = b;
    k->buf = &b->dma;
    k->start = 0;
    k->end = bytes;
    k->priv = pub->priv;
    k->priv_size = pub->priv_size;
    k->state = VS_PKT_QUEUED;
    k->job = job;
    pthread_mutex_lock(&vs->lock);
    if (!vs->engine || atomic_load(&vs->stop)) {
        pthread_mutex_unlock(&vs->lock);
        free(k);
        dxgk_vidsch_paging_put(ad, pub);
        return GR_E_UNSUPPORTED;
    }
    k->quantum = vs->params.quantum_cycles;
    k->prev = vs->pg_tail;
    if (vs->pg_tail)
        vs->pg_tail->next = k;
    else
        vs->pg_head = k;
    vs->pg_tail = k;
    b->dma.in_flight++;
    job->outstanding++;
    vs->live_packets++;
    vs_wake(vs);
    pthread_mutex_unlock(&vs->lock);
    return GR_OK;
}

gr_status_t dxgk_vidsch_paging_wait(gr_adapter_t *ad, dxgk_paging_job_t *job)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_thr_may_block(vs->ad->thr, "waiting for a paging buffer");
    pthread_mutex_lock(&vs->lock);
    while (job->outstanding) {
        /* The scheduler polls the fence when woken: an interrupt may be lost. */
        vs_wake(vs);
        vs_cond_wait_ns(vs, 200000L);
    }
    gr_status_t st = job->status;
    pthread_mutex_unlock(&vs->lock);
    return st;
}

vs_packet_t *vs_paging_next(dxgk_vidsch_t *vs)
{
    for (vs_packet_t *p = vs->pg_head; p; p = p->next) {
        if (p->state == VS_PKT_ON_HW)
            continue;
        return p->busy ? NULL : p;
    }
    return NULL;
}

void vs_paging_retire(dxgk_vidsch_t *vs, vs_packet_t *p, gr_status_t result)
{
    if (p->prev)
        p->prev->next = p->next;
    else
        vs->pg_head = p->next;
    if (p->next)
        p->next->prev = p->prev;
    else
        vs->pg_tail = p->prev;
    p->state = VS_PKT_RETIRED;
    if (result == GR_OK)
        vs->st.completed++;
    vs_tl_retire(vs, p, result);
    dxgk_paging_job_t *j = p->job;
    j->outstanding--;
    if (result != GR_OK && j->status == GR_OK)
        j->status = result;
    vs_pgbuf_t *b = p->pgbuf;
    if (--b->dma.in_flight == 0) {
        b->next = vs->pg_free;
        vs->pg_free = b;
    }
    vs->live_packets--;
    vs->retire_gen++;
    p->magic = VS_MAGIC_DEAD;
    free(p);
    pthread_cond_broadcast(&vs->cond);
}

void vs_paging_free_pool(dxgk_vidsch_t *vs)
{
    pthread_mutex_lock(&vs->lock);
    vs_pgbuf_t *list = vs->pg_free;
    vs->pg_free = NULL;
    pthread_mutex_unlock(&vs->lock);
    while (list) {
        vs_pgbuf_t *next = list->next;
        pgbuf_free(vs->ad, list);
        list = next;
    }
}

/* ---- what VidMm reads and waits for -------------------------------------------------------------- */

uint32_t dxgk_vidsch_gpu_refs(gr_adapter_t *ad, const dxgk_kalloc_t *ka)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    if (!vs)
        return 0;
    pthread_mutex_lock(&vs->lock);
    uint32_t n = ka->gpu_refs;
    pthread_mutex_unlock(&vs->lock);
    return n;
}

uint64_t dxgk_vidsch_wait_retire(gr_adapter_t *ad, uint64_t gen, long ns)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    dxgk_thr_may_block(vs->ad->thr, "waiting for the GPU to retire a packet");
    pthread_mutex_lock(&vs->lock);
    if (vs->retire_gen == gen) {
        vs_wake(vs);
        vs_cond_wait_ns(vs, ns);
    }
    uint64_t now = vs->retire_gen;
    pthread_mutex_unlock(&vs->lock);
    return now;
}

/* ---- VidMm's waits (vidsch_paging.h) ------------------------------------------------------ */

void dxgk_vidsch_wait_open_idle(gr_adapter_t *ad, dxgk_open_t *op)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    if (!vs)
        return;
    dxgk_thr_may_block(vs->ad->thr, "waiting for the GPU to finish with an allocation");
    pthread_mutex_lock(&vs->lock);
    while (op->gpu_refs) {
        atomic_store(&vs->kick, true);
        vs_cond_wait_ns(vs, 1000000L);
    }
    pthread_mutex_unlock(&vs->lock);
}

void dxgk_vidsch_wait_alloc_idle(gr_adapter_t *ad, dxgk_kalloc_t *ka)
{
    dxgk_vidsch_t *vs = ad->vidsch;
    if (!vs)
        return;
    dxgk_thr_may_block(vs->ad->thr, "waiting for the GPU to finish with an allocation");
    pthread_mutex_lock(&vs->lock);
    while (ka->gpu_refs) {
        atomic_store(&vs->kick, true);
        vs_cond_wait_ns(vs, 1000000L);
    }
    pthread_mutex_unlock(&vs->lock);
}
