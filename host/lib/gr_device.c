/* SPDX-License-Identifier: Apache-2.0 */
/* gr_device.c: opening a device over a link and checking that it is the one we were built for. */
#include "gpuref/gr_device.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuref/gr_regdesc.h"
#include "gr_link.h"
#include "gr_proto.h"

/* The host's idea of the device must be the generated one, or the header check is meaningless. */
#define GR_DEVICE_MAGIC 0x47505552u /* "GPUR" */
#define GR_DEVICE_MAJOR 0u
_Static_assert(GR_DEVICE_MAGIC == GPU_REGS__ID_MAGIC__VALUE_reset, "ID_MAGIC differs from the map");
_Static_assert(GR_DEVICE_MAJOR == GPU_REGS__ID_VERSION__MAJOR_reset, "MAJOR differs from the map");

/* Polling interval while waiting for a reset to finish. */
#define RESET_POLL_US 1u

struct gr_device {
    gr_link_t *link;
};

/* Failures are recorded where the transports record theirs, so that gr_device_error(),
 * gr_last_error() and a backend's detail are one text. */
static void set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gr_link_set_error("%s", msg);
}

const char *gr_device_error(void)
{
    return gr_last_error();
}

static int check_header(gr_link_t *link, unsigned flags)
{
    uint32_t magic = 0, version = 0, hash = 0;
    int rc = gr_link_read32(link, GR_REG_ID_MAGIC, &magic);
    if (rc) {
        set_error("cannot read ID_MAGIC: %s", gr_strerror(rc));
        return rc == GR_E_BUS ? GR_E_NO_DEVICE : rc;
    }
    if (magic != GR_DEVICE_MAGIC) {
        set_error("not a gpuref device: ID_MAGIC reads 0x%08x, expected 0x%08x", magic,
                  GR_DEVICE_MAGIC);
        return GR_E_NO_DEVICE;
    }
    if ((rc = gr_link_read32(link, GR_REG_ID_VERSION, &version)) ||
        (rc = gr_link_read32(link, GR_REG_ID_REGMAP, &hash))) {
        set_error("cannot read the identification header: %s", gr_strerror(rc));
        return rc;
    }
    if (GR_FIELD_GET(ID_VERSION, MAJOR, version) != GR_DEVICE_MAJOR) {
        set_error("device register map version %u.%u, this host drives %u.x",
                  (unsigned)GR_FIELD_GET(ID_VERSION, MAJOR, version),
                  (unsigned)GR_FIELD_GET(ID_VERSION, MINOR, version), GR_DEVICE_MAJOR);
        return GR_E_MISMATCH;
    }
    if (hash != GR_REGMAP_HASH && !(flags & GR_OPEN_ANY_MAP)) {
        set_error("device register map 0x%08x differs from this host's 0x%08x "
                  "(rebuild one side from the same gpu_regs.rdl)",
                  hash, GR_REGMAP_HASH);
        return GR_E_MISMATCH;
    }
    return GR_OK;
}

gr_status_t gr_device_open(const char *uri, unsigned flags, gr_device_t **out_dev)
{
    if (!out_dev || (flags & ~(unsigned)GR_OPEN_ANY_MAP)) {
        set_error("invalid arguments to gr_device_open");
        return GR_E_INVALID;
    }
    gr_device_t *dev = calloc(1, sizeof *dev);
    if (!dev) {
        set_error("out of memory");
        return GR_E_NO_MEMORY;
    }
    gr_link_clear_error();
    int rc = gr_link_open(uri, &dev->link);
    if (rc) {
        /* The backend's own words (path, key, server) when it left some. */
        if (!gr_link_has_error())
            set_error("cannot open '%s': %s", uri ? uri : "(default device)", gr_strerror(rc));
        goto fail_link;
    }
    rc = check_header(dev->link, flags);
    if (rc)
        goto fail_header;
    *out_dev = dev;
    return GR_OK;

fail_header:
    gr_link_close(dev->link);
fail_link:
    free(dev);
    return rc;
}

void gr_device_close(gr_device_t *dev)
{
    if (!dev)
        return;
    gr_link_close(dev->link);
    free(dev);
}

gr_link_t *gr_device_link(gr_device_t *dev)
{
    return dev ? dev->link : NULL;
}

gr_status_t gr_device_info(gr_device_t *dev, gr_device_info_t *out_info)
{
    if (!dev || !out_info)
        return GR_E_INVALID;
    uint32_t magic, version, caps, hash, build;
    int rc;
    if ((rc = gr_link_read32(dev->link, GR_REG_ID_MAGIC, &magic)) ||
        (rc = gr_link_read32(dev->link, GR_REG_ID_VERSION, &version)) ||
        (rc = gr_link_read32(dev->link, GR_REG_ID_CAPS, &caps)) ||
        (rc = gr_link_read32(dev->link, GR_REG_ID_REGMAP, &hash)) ||
        (rc = gr_link_read32(dev->link, GR_REG_ID_BUILD, &build)))
        return rc;
    gr_device_info_t info = {
        .magic = magic,
        .version_major = (uint8_t)GR_FIELD_GET(ID_VERSION, MAJOR, version),
        .version_minor = (uint8_t)GR_FIELD_GET(ID_VERSION, MINOR, version),
        .version_patch = (uint16_t)GR_FIELD_GET(ID_VERSION, PATCH, version),
        .caps = caps,
        .regmap_hash = hash,
        .regmap_matches = hash == GR_REGMAP_HASH,
        .board = (uint8_t)GR_FIELD_GET(ID_BUILD, BOARD, build),
        .build_stamp = GR_FIELD_GET(ID_BUILD, STAMP, build),
    };
    gr_link_describe(dev->link, info.transport, sizeof info.transport);
    *out_info = info;
    return GR_OK;
}

gr_status_t gr_device_link_stats(gr_device_t *dev, gr_link_stats_t *out_stats)
{
    if (!dev || !out_stats)
        return GR_E_INVALID;
    gr_link_stats_t st;
    memset(&st, 0, sizeof st);
    snprintf(st.scheme, sizeof st.scheme, "%s", gr_link_scheme(dev->link));
    st.up = true;
    gr_proto_t *p = NULL;
    if (gr_link_proto(dev->link, &p) == GR_OK) {
        gr_proto_counters_t c;
        gr_proto_hello_t h;
        gr_proto_counters(p, &c);
        gr_proto_hello(p, &h);
        st.framed = true;
        st.up = gr_proto_up(p);
        if (st.up)
            snprintf(st.kind, sizeof st.kind, "%s", gr_proto_link_name(h.link));
        st.proto_major = h.ver_major;
        st.proto_minor = h.ver_minor;
        st.max_payload = h.max_payload;
        st.rx_window = h.rx_window;
        st.dma_tags = h.dma_tags;
        st.core_hz = h.core_hz;
        st.tx_frames = c.link.tx_frames;
        st.rx_frames = c.link.rx_frames;
        st.tx_bytes = c.link.tx_bytes;
        st.rx_bytes = c.link.rx_bytes;
        st.crc_errors = c.link.crc_errors;
        st.naks_sent = c.link.naks_sent;
        st.naks_received = c.link.naks_received;
        st.retransmissions = c.link.retransmissions;
        st.replay_timeouts = c.link.replay_timeouts;
        st.duplicates = c.link.duplicates;
        st.out_of_order = c.link.out_of_order;
        st.keepalives = c.link.keepalives;
        st.timeouts = c.timeouts;
        st.late_answers = c.late_answers;
        st.link_resets = c.link_resets;
        st.link_downs = c.link_downs;
        st.round_trips = c.round_trips;
        st.requests = c.requests;
        st.posted_writes = c.posted_writes;
        st.dma_reads = c.dma_reads;
        st.dma_writes = c.dma_writes;
        st.dma_errors = c.dma_errors;
        st.dma_bytes = c.dma_bytes;
        st.irqs = c.irqs;
    }
    *out_stats = st;
    return GR_OK;
}

gr_status_t gr_reg_read(gr_device_t *dev, uint32_t offset, uint32_t *out_value)
{
    if (!dev)
        return GR_E_INVALID;
    return gr_link_read32(dev->link, offset, out_value);
}

gr_status_t gr_reg_write(gr_device_t *dev, uint32_t offset, uint32_t value)
{
    if (!dev)
        return GR_E_INVALID;
    return gr_link_write32(dev->link, offset, value);
}

gr_status_t gr_device_soft_reset(gr_device_t *dev, uint32_t timeout_us)
{
    if (!dev)
        return GR_E_INVALID;
    const uint32_t done = GR_FIELD_SET(IRQ_STATE, RESET_DONE, 1);
    int rc = gr_link_write32(dev->link, GR_REG_RESET_CTRL, GR_FIELD_SET(RESET_CTRL, CORE, 1));
    if (rc)
        return rc;
    for (uint32_t waited = 0;; waited += RESET_POLL_US) {
        uint32_t state = 0;
        if ((rc = gr_link_read32(dev->link, GR_REG_IRQ_STATE, &state)))
            return rc;
        if (state & done)
            break;
        if (waited >= timeout_us) {
            set_error("soft reset: IRQ_STATE.RESET_DONE not set after %u us", timeout_us);
            return GR_E_TIMEOUT;
        }
        bool raised;
        if ((rc = gr_link_wait_irq(dev->link, RESET_POLL_US, &raised)))
            return rc;
    }
    return gr_link_write32(dev->link, GR_REG_IRQ_STATE, done);
}

gr_status_t gr_device_wait_irq(gr_device_t *dev, uint32_t timeout_us, bool *out_raised)
{
    if (!dev)
        return GR_E_INVALID;
    return gr_link_wait_irq(dev->link, timeout_us, out_raised);
}
