/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dxgk_process.c: a process object and its place in its adapter's list (dxgk_objects.h), the
 * few lines gr_process_create (dxgk_adapter.c) and the broker client's (host/broker) share:
 * both stand below the adapter's files, so the core holds them.
 */
#include <pthread.h>
#include <stdlib.h>

#include "dxgk_objects.h"

gr_process_t *dxgk_process_new(void)
{
    gr_process_t *p = calloc(1, sizeof *p);
    if (p && pthread_mutex_init(&p->lock, NULL)) {
        free(p);
        p = NULL;
    }
    return p;
}

void dxgk_process_join(gr_adapter_t *ad, gr_process_t *p)
{
    p->adapter = ad;
    pthread_mutex_lock(&ad->proc_lock);
    p->next = ad->procs;
    ad->procs = p;
    pthread_mutex_unlock(&ad->proc_lock);
}

void dxgk_process_free(gr_process_t *p)
{
    gr_adapter_t *ad = p->adapter;
    if (ad) {
        pthread_mutex_lock(&ad->proc_lock);
        for (gr_process_t **pp = &ad->procs; *pp; pp = &(*pp)->next)
            if (*pp == p) {
                *pp = p->next;
                break;
            }
        pthread_mutex_unlock(&ad->proc_lock);
    }
    pthread_mutex_destroy(&p->lock);
    free(p);
}
