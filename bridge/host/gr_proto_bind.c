/* SPDX-License-Identifier: Apache-2.0 */
/* gr_proto_bind.c: the device end's binding for software device ends (gr_proto_bind.h). */
#include "gr_proto_bind.h"

#include <string.h>

void gr_proto_bind_frame(gr_proto_bind_t *b, const void *who, bool *inout_forced, gr_proto_dev_t *d,
                         const uint32_t *w, uint16_t len)
{
    if (len != GR_PROTO_BIND_WORDS) {
        d->bad_frames++;
        return;
    }
    const unsigned op = w[0] >> 16;
    uint32_t result = 0;
    if (op == GR_PROTO_BIND_TAKE) {
        if (!b->owner || b->owner == who) {
            b->owner = who;
            b->pid = w[1];
            memcpy(b->host, &w[2], sizeof b->host);
        } else {
            result = 1;
        }
    } else if (op == GR_PROTO_BIND_RELEASE) {
        if (b->owner == who)
            memset(b, 0, sizeof *b);
    } else if (op == GR_PROTO_BIND_FORCE) {
        *inout_forced = true;
    } else {
        d->bad_frames++;
        return;
    }
    uint32_t rsp[GR_PROTO_BIND_WORDS] = {result << 16 | (w[0] & 0xffffu), b->owner ? b->pid : 0};
    if (b->owner)
        memcpy(&rsp[2], b->host, sizeof b->host);
    (void)gr_proto_dev_send(d, GR_PT_BIND_RSP, rsp, GR_PROTO_BIND_WORDS);
}

bool gr_proto_bind_refuses(const gr_proto_bind_t *b, const void *who, bool forced, gr_proto_dev_t *d,
                           uint8_t type, const uint32_t *w, uint16_t len)
{
    if (!b->owner || b->owner == who || forced || type == GR_PT_RD32 || len < 1)
        return false;
    static uint32_t rsp[GR_PROTO_MAX_PAYLOAD];
    const uint32_t id = w[0] & 0xffffu;
    uint16_t n = 1;
    if (type == GR_PT_WR32) {
        uint32_t count = w[0] >> 16;
        if (count > GR_PROTO_MAX_PAYLOAD - 1u)
            count = GR_PROTO_MAX_PAYLOAD - 1u;
        rsp[0] = count << 16 | id;
        for (uint32_t i = 0; i < count; i++)
            rsp[1 + i] = GR_RESP_REFUSED;
        n = (uint16_t)(1u + count);
        type = GR_PT_WR32_RSP;
    } else if (type == GR_PT_AP_RD) {
        uint32_t dwords = len >= 4 ? w[3] & 0xffffu : 0;
        if (dwords > GR_PROTO_MAX_PAYLOAD - 1u)
            dwords = GR_PROTO_MAX_PAYLOAD - 1u;
        rsp[0] = (uint32_t)GR_RESP_REFUSED << 16 | id;
        memset(&rsp[1], 0, 4u * dwords);
        n = (uint16_t)(1u + dwords);
        type = GR_PT_AP_RD_RSP;
    } else if (type == GR_PT_AP_WR) {
        rsp[0] = (uint32_t)GR_RESP_REFUSED << 16 | id;
        type = GR_PT_AP_WR_RSP;
    } else {
        return false;
    }
    (void)gr_proto_dev_send(d, type, rsp, n);
    return true;
}

void gr_proto_bind_drop(gr_proto_bind_t *b, const void *who)
{
    if (b->owner == who)
        memset(b, 0, sizeof *b);
}
