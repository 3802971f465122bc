/*
 * kmd_packet.c: per-packet state. A packet is created by DxgkDdiPatch (or DxgkDdiSubmitCommand
 * for a packet that was not patched), named by a tag in its DMA buffer's private data
 * (kmd_packet_tag_t), queued on a ring slot by SubmitCommand, and freed when it completes, when
 * CancelCommand names it, when a reset removes it or when its context goes away.
 *
 * Tags carry an id, never a pointer: a tag left in a reused DMA buffer, or one the OS made up,
 * finds no live packet and changes nothing. Everything here runs under the engine's sched_lock.
 */
#include <stdlib.h>
#include <string.h>

#include "kmd_dma.h"

kmd_packet_t *kmd_packet_new(kmd_adapter_t *a)
{
    kmd_engine_t *e = &a->eng;
    kmd_packet_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->magic = KMD_MAGIC_PACKET;
    p->id = e->next_packet_id++;
    p->next = e->live;
    if (e->live)
        e->live->prev = p;
    e->live = p;
    atomic_fetch_add(&a->n_packets, 1);
    return p;
}

void kmd_packet_free(kmd_adapter_t *a, kmd_packet_t *p)
{
    kmd_engine_t *e = &a->eng;
    if (p->prev)
        p->prev->next = p->next;
    else
        e->live = p->next;
    if (p->next)
        p->next->prev = p->prev;
    p->magic = KMD_MAGIC_DEAD;
    free(p);
    atomic_fetch_sub(&a->n_packets, 1);
}

kmd_packet_t *kmd_packet_find(kmd_adapter_t *a, uint64_t id)
{
    for (kmd_packet_t *p = a->eng.live; p; p = p->next)
        if (p->id == id)
            return p;
    return NULL;
}

kmd_packet_t *kmd_packet_from_private(kmd_adapter_t *a, const void *priv, uint32_t priv_size,
                                      uint32_t start, uint32_t end)
{
    if (!priv || start > end || end > priv_size || end - start < sizeof(kmd_packet_tag_t))
        return NULL;
    kmd_packet_tag_t tag;
    memcpy(&tag, (const uint8_t *)priv + start, sizeof tag);
    if (tag.magic != KMD_PACKET_TAG_MAGIC || tag.reserved != 0 || tag.id == 0)
        return NULL;
    return kmd_packet_find(a, tag.id);
}

void kmd_packet_write_tag(void *priv, uint32_t start, const kmd_packet_t *p)
{
    kmd_packet_tag_t tag = {KMD_PACKET_TAG_MAGIC, 0, p->id};
    memcpy((uint8_t *)priv + start, &tag, sizeof tag);
}

/* Takes a packet off its ring slot. */
static void release_slot(kmd_engine_t *e, uint32_t index)
{
    e->slots[index] = NULL;
}

void kmd_retire(kmd_adapter_t *a)
{
    kmd_engine_t *e = &a->eng;
    uint32_t done = 0;
    kmd_fence_read(a, &done, NULL);

    bool stopped = false;
    uint32_t stop_head = 0, stop_tail = 0, stop_offset = 0;
    pthread_mutex_lock(&e->irq_lock);
    if (e->stop_pending) {
        stopped = true;
        stop_head = e->stop_head;
        stop_tail = e->stop_tail;
        stop_offset = e->stop_offset;
        e->stop_pending = false;
    }
    pthread_mutex_unlock(&e->irq_lock);

    const uint32_t mask = e->ring_entries - 1;
    if (stopped) {
        /* [STOP_HEAD, STOP_TAIL) left the ring without running (or, for the first, mid-way). */
        for (uint32_t i = stop_head & mask; i != (stop_tail & mask); i = (i + 1) & mask) {
            kmd_packet_t *p = e->slots[i];
            if (!p)
                continue;
            release_slot(e, i);
            if (kmd_fence_done(p->fence, done) || p->cancelled) {
                kmd_packet_free(a, p);
                continue;
            }
            /* The first removed entry may have been running: resume it at the stopped command. */
            uint32_t len = p->end - p->start - p->resume;
            if (i == (stop_head & mask) && stop_offset < len && stop_offset % 8 == 0)
                p->resume += stop_offset;
            p->state = KMD_PKT_REMOVED;
        }
    }
    /* Entries complete in ring order: release from the oldest while their fences are done. */
    for (; e->retire_seq != e->next_seq; e->retire_seq++) {
        uint32_t i = (uint32_t)e->retire_seq & mask;
        kmd_packet_t *p = e->slots[i];
        if (!p)
            continue;
        if (!kmd_fence_done(p->fence, done))
            break;
        release_slot(e, i);
        kmd_packet_free(a, p);
    }
}

void kmd_packets_drop(kmd_adapter_t *a, kmd_context_t *ctx)
{
    kmd_engine_t *e = &a->eng;
    kmd_packet_t *p = e->live;
    while (p) {
        kmd_packet_t *next = p->next;
        if (!ctx) {
            /* Adapter stop: the engine was reset, nothing runs any more. */
            if (p->state == KMD_PKT_QUEUED)
                release_slot(e, p->ring_index);
            kmd_packet_free(a, p);
        } else if (p->ctx == ctx) {
            if (p->state == KMD_PKT_QUEUED) {
                /* Still on the ring: its slot keeps the ring's accounting right until it
                 * retires, then it is freed (it no longer belongs to any context). */
                p->cancelled = true;
                p->ctx = NULL;
            } else {
                kmd_packet_free(a, p);
            }
        }
        p = next;
    }
}
