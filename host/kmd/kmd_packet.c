/* SPDX-License-Identifier: Apache-2.0 */
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
    e->stub_slot[index] = false;
}

uint32_t kmd_cut_command(const uint8_t *cmd, uint32_t avail, uint64_t *out_size)
{
    if (!cmd || avail < 8)
        return 0;
    const uint64_t hdr = gr_dma_get64(cmd);
    uint32_t bytes = 0, size_q = 0;
    if ((hdr & 0xffu) == GR_DMA_OP_COPY) {
        bytes = GR_DMA_COPY_QWORDS * 8u;
        size_q = 3;
    } else if ((hdr & 0xffu) == GR_DMA_OP_FILL) {
        bytes = GR_DMA_FILL_QWORDS * 8u;
        size_q = 2;
    }
    if (!bytes || bytes > avail)
        return 0;
    *out_size = gr_dma_get64(cmd + 8u * size_q);
    return bytes;
}

/* The bytes a stop says the cut COPY or FILL at the packet's resume point wrote, if they are a
 * proper part of it (else 0: the command runs again from its first byte). */
static uint64_t cut_done(const kmd_packet_t *p, uint64_t done)
{
    uint64_t size = 0;
    const uint32_t avail = p->end - p->start - p->resume;
    if (!done || done % 8 || !p->cpu ||
        !kmd_cut_command(p->cpu + p->start + p->resume, avail, &size) || done >= size)
        return 0;
    return done;
}

/* A stop inside the packet's main entry, `off` bytes into it, with `done` bytes of the command
 * there written. */
static void note_stop(kmd_packet_t *p, uint32_t off, uint32_t done)
{
    const uint32_t was = p->resume;
    const uint64_t was_done = p->resume_done;
    /* A split submission reached its main entry only after the stub's command completed. */
    p->resume += p->split;
    p->resume_done = 0;
    const uint32_t len = p->end - p->start - p->resume;
    if (off < len && off % 8 == 0) {
        p->resume += off;
        p->resume_done = cut_done(p, done);
    }
    p->stops++;
    p->advanced = p->resume > was || (p->resume == was && p->resume_done > was_done);
}

/* A stop inside the stub that resumed the packet's cut command. */
static void note_stub_stop(kmd_packet_t *p, uint32_t off, uint32_t done)
{
    const uint64_t was_done = p->resume_done;
    if (off == 0 && cut_done(p, was_done + done))
        p->resume_done = was_done + done;
    p->stops++;
    p->advanced = p->resume_done > was_done;
}

void kmd_retire(kmd_adapter_t *a)
{
    kmd_engine_t *e = &a->eng;
    uint32_t done = 0;
    kmd_fence_read(a, &done, NULL);

    bool stopped = false;
    uint32_t stop_head = 0, stop_tail = 0, stop_offset = 0, stop_done = 0;
    pthread_mutex_lock(&e->irq_lock);
    if (e->stop_pending) {
        stopped = true;
        stop_head = e->stop_head;
        stop_tail = e->stop_tail;
        stop_offset = e->stop_offset;
        stop_done = e->stop_done;
        e->stop_pending = false;
    }
    pthread_mutex_unlock(&e->irq_lock);

    const uint32_t mask = e->ring_entries - 1;
    if (stopped) {
        /* [STOP_HEAD, STOP_TAIL) left the ring without running (or, for the first, mid-way). */
        const uint32_t head = stop_head & mask;
        const kmd_packet_t *in_stub = NULL;
        for (uint32_t i = head; i != (stop_tail & mask); i = (i + 1) & mask) {
            kmd_packet_t *p = e->slots[i];
            if (!p)
                continue;
            if (e->stub_slot[i]) {
                /* The resumed command of the packet whose main entry follows. */
                release_slot(e, i);
                if (i == head) {
                    note_stub_stop(p, stop_offset, stop_done);
                    in_stub = p;
                }
                continue;
            }
            release_slot(e, i);
            /* A stub the engine ran before this entry goes with it. */
            const uint32_t prev = (i - 1) & mask;
            if (e->stub_slot[prev] && e->slots[prev] == p)
                release_slot(e, prev);
            if (kmd_fence_done(p->fence, done) || p->cancelled) {
                kmd_packet_free(a, p);
                continue;
            }
            /* The running entry resumes at the stopped command, past the bytes it wrote. */
            if (i == head)
                note_stop(p, stop_offset, stop_done);
            else if (p != in_stub)
                p->advanced = false; /* it did not run */
            p->split = 0;
            p->state = KMD_PKT_REMOVED;
        }
    }
    /* Entries complete in ring order: release from the oldest while their fences are done. */
    for (; e->retire_seq != e->next_seq; e->retire_seq++) {
        uint32_t i = (uint32_t)e->retire_seq & mask;
        kmd_packet_t *p = e->slots[i];
        if (!p)
            continue;
        if (e->stub_slot[i]) {
            /* Held while its main entry is: the engine's HEAD may still be on it. */
            if (e->slots[(i + 1) & mask] == p && !kmd_fence_done(p->fence, done))
                break;
            release_slot(e, i);
            continue;
        }
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
            if (p->state == KMD_PKT_QUEUED) {
                release_slot(e, p->ring_index);
                if (p->split)
                    release_slot(e, (p->ring_index - 1) & (e->ring_entries - 1));
            }
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
