/* SPDX-License-Identifier: Apache-2.0 */
/* gr_link.c: URI parsing, the backend registry and dispatch through the ops table. */
#include "gr_link.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr_link_broker.h"
#include "gr_link_pcie.h"
#include "gr_link_sim.h"
#include "gr_link_simd.h"
#include "gr_link_uart.h"
#include "gr_link_usb.h"
#include "gr_proto.h"
#include "gr_txlog.h"
#include "gpuref/gr_regmap.h"

struct gr_link {
    const gr_link_ops_t *ops;
    void *ctx;
    /* Every operation runs under it: a backend is entered by one thread at a time (sim:// is
     * one Verilated model that each call clocks; two threads clocking it at once lose AXI
     * handshakes), whoever calls. */
    pthread_mutex_t lock;
    gr_txlog_t *txlog; /* ?txlog=FILE, or NULL */
};

/* One operation on the backend, alone. */
#define LINK_LOCKED(link, call)                                                                  \
    do {                                                                                         \
        pthread_mutex_lock(&(link)->lock);                                                       \
        rc = (call);                                                                             \
        pthread_mutex_unlock(&(link)->lock);                                                     \
    } while (0)

static const gr_link_ops_t *const backends[] = {&gr_link_sim_ops, &gr_link_simd_ops,
                                               &gr_link_uart_ops, &gr_link_usb_ops,
                                               &gr_link_pcie_ops, &gr_link_broker_ops};
#define BACKEND_COUNT (sizeof backends / sizeof backends[0])

/* Backends a program adds at run time (gr_link_register): a test's transport that is not part
 * of the library, as tb/unit/pcie's cocotb:// is. */
#define EXTRA_MAX 4
static const gr_link_ops_t *extra_backends[EXTRA_MAX];
static unsigned extra_count;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

static _Thread_local char last_error[512];

void gr_link_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

void gr_link_clear_error(void)
{
    last_error[0] = '\0';
}

bool gr_link_has_error(void)
{
    return last_error[0] != '\0';
}

/* The one per-thread detail of the library: every layer records into it (gr_link_set_error). */
const char *gr_last_error(void)
{
    return last_error[0] ? last_error : "no error";
}

const char *gr_link_error(void)
{
    return gr_last_error();
}

/* The backend for a scheme, built-in or registered; NULL if none. */
static const gr_link_ops_t *find_backend(const char *scheme)
{
    for (size_t i = 0; i < BACKEND_COUNT; i++)
        if (strcmp(backends[i]->scheme, scheme) == 0)
            return backends[i];
    const gr_link_ops_t *ops = NULL;
    pthread_mutex_lock(&registry_lock);
    for (unsigned i = 0; i < extra_count && !ops; i++)
        if (strcmp(extra_backends[i]->scheme, scheme) == 0)
            ops = extra_backends[i];
    pthread_mutex_unlock(&registry_lock);
    return ops;
}

const char *gr_link_schemes(void)
{
    /* Rebuilt only when gr_link_register has added one since, so a caller's copy stays valid
     * as long as the registry does not change. */
    static char list[160];
    static size_t listed;
    pthread_mutex_lock(&registry_lock);
    size_t total = BACKEND_COUNT + extra_count;
    if (listed != total) {
        list[0] = '\0';
        for (size_t i = 0; i < total; i++) {
            const gr_link_ops_t *ops = i < BACKEND_COUNT ? backends[i] : extra_backends[i - BACKEND_COUNT];
            strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, ops->scheme, sizeof list - strlen(list) - 1);
            strncat(list, "://", sizeof list - strlen(list) - 1);
        }
        listed = total;
    }
    pthread_mutex_unlock(&registry_lock);
    return list;
}

int gr_link_register(const gr_link_ops_t *ops)
{
    if (!ops || !ops->scheme || !ops->open || !ops->close || !ops->read32 || !ops->write32 ||
        !ops->caps || !ops->describe) {
        gr_link_set_error("gr_link_register: NULL ops, scheme or mandatory operation");
        return GR_E_INVALID;
    }
    const gr_link_ops_t *have = find_backend(ops->scheme);
    if (have == ops)
        return GR_OK;
    if (have) {
        gr_link_set_error("gr_link_register: scheme '%s://' is taken", ops->scheme);
        return GR_E_BUSY;
    }
    int rc = GR_OK;
    pthread_mutex_lock(&registry_lock);
    if (extra_count == EXTRA_MAX) {
        gr_link_set_error("gr_link_register: at most %d added backends", EXTRA_MAX);
        rc = GR_E_NO_MEMORY;
    } else {
        extra_backends[extra_count++] = ops;
    }
    pthread_mutex_unlock(&registry_lock);
    return rc;
}

/* Copies [s, s+n) into dst (size cap) and fails if it does not fit. */
static int copy_part(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        return -1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 0;
}

int gr_uri_parse(const char *text, gr_uri_t *out_uri)
{
    gr_uri_t uri;
    memset(&uri, 0, sizeof uri);
    if (!text || !out_uri) {
        gr_link_set_error("no URI given");
        return GR_E_BAD_URI;
    }
    const char *sep = strstr(text, "://");
    if (!sep || sep == text) {
        gr_link_set_error("'%s' is not a device URI (scheme://...); accepted schemes: %s", text,
                          gr_link_schemes());
        return GR_E_BAD_URI;
    }
    for (const char *p = text; p < sep; p++) {
        if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p)) {
            gr_link_set_error("bad character in URI scheme of '%s'; accepted schemes: %s", text,
                              gr_link_schemes());
            return GR_E_BAD_URI;
        }
    }
    if (copy_part(uri.scheme, sizeof uri.scheme, text, (size_t)(sep - text))) {
        gr_link_set_error("URI scheme too long in '%s'; accepted schemes: %s", text,
                          gr_link_schemes());
        return GR_E_BAD_URI;
    }
    const char *rest = sep + 3;
    const char *query = strchr(rest, '?');
    size_t path_len = query ? (size_t)(query - rest) : strlen(rest);
    if (copy_part(uri.path, sizeof uri.path, rest, path_len)) {
        gr_link_set_error("URI path too long in '%s'", text);
        return GR_E_BAD_URI;
    }
    if (query) {
        const char *p = query + 1;
        if (!*p) {
            gr_link_set_error("URI '%s' has nothing after '?' (key=value&... or no '?')", text);
            return GR_E_BAD_URI;
        }
        while (*p) {
            const char *amp = strchr(p, '&');
            size_t len = amp ? (size_t)(amp - p) : strlen(p);
            const char *eq = memchr(p, '=', len);
            if (!eq || eq == p || eq + 1 == p + len) {
                gr_link_set_error("URI parameter '%.*s' is not key=value (both non-empty)", (int)len, p);
                return GR_E_BAD_URI;
            }
            if (uri.param_count == GR_URI_MAX_PARAMS) {
                gr_link_set_error("too many URI parameters (at most %d)", GR_URI_MAX_PARAMS);
                return GR_E_BAD_URI;
            }
            unsigned i = uri.param_count++;
            if (copy_part(uri.params[i].key, sizeof uri.params[i].key, p, (size_t)(eq - p)) ||
                copy_part(uri.params[i].value, sizeof uri.params[i].value, eq + 1,
                          len - (size_t)(eq - p) - 1)) {
                gr_link_set_error("URI parameter '%.*s' too long", (int)len, p);
                return GR_E_BAD_URI;
            }
            for (unsigned j = 0; j < i; j++) {
                if (strcmp(uri.params[j].key, uri.params[i].key) == 0) {
                    gr_link_set_error("URI parameter '%s' given twice", uri.params[i].key);
                    return GR_E_BAD_URI;
                }
            }
            if (!amp)
                break;
            p = amp + 1;
            if (!*p) {
                gr_link_set_error("URI ends with '&'");
                return GR_E_BAD_URI;
            }
        }
    }
    *out_uri = uri;
    return GR_OK;
}

const char *gr_uri_param(const gr_uri_t *uri, const char *key)
{
    for (unsigned i = 0; i < uri->param_count; i++)
        if (strcmp(uri->params[i].key, key) == 0)
            return uri->params[i].value;
    return NULL;
}

/* Every ?key must be one the backend accepts; the message lists them. */
static int check_params(const gr_link_ops_t *ops, const gr_uri_t *uri)
{
    for (unsigned i = 0; i < uri->param_count; i++) {
        bool known = strcmp(uri->params[i].key, GR_LINK_TXLOG_KEY) == 0;
        for (const char *const *k = ops->param_keys; k && *k; k++)
            known = known || strcmp(*k, uri->params[i].key) == 0;
        if (!known) {
            char keys[256] = "";
            for (const char *const *k = ops->param_keys; k && *k; k++) {
                strncat(keys, k == ops->param_keys ? "" : ", ", sizeof keys - strlen(keys) - 1);
                strncat(keys, *k, sizeof keys - strlen(keys) - 1);
            }
            gr_link_set_error("unknown parameter '%s' for %s://; accepted: %s%s" GR_LINK_TXLOG_KEY,
                              uri->params[i].key, ops->scheme, keys, keys[0] ? ", " : "");
            return GR_E_BAD_URI;
        }
    }
    return GR_OK;
}

static int link_open_text(const char *text, gr_link_t **out_link);

int gr_link_open(const char *text, gr_link_t **out_link)
{
    if (!out_link) {
        gr_link_set_error("no output pointer");
        return GR_E_INVALID;
    }
    const char *from_env = NULL;
    if (!text || !*text) {
        text = getenv("GR_DEVICE");
        from_env = text && *text ? "GR_DEVICE" : NULL;
    }
    if (!text || !*text)
        text = "sim://";
    int rc = link_open_text(text, out_link);
    if (rc && from_env) {
        /* The caller named no device: say where the bad one came from. */
        char why[sizeof last_error];
        snprintf(why, sizeof why, "%s", last_error);
        gr_link_set_error("%s='%s': %s", from_env, text, why);
    }
    return rc;
}

/* gr_link_open once the URI text is known. */
static int link_open_text(const char *text, gr_link_t **out_link)
{
    gr_uri_t uri;
    int rc = gr_uri_parse(text, &uri);
    if (rc)
        return rc;
    const gr_link_ops_t *ops = find_backend(uri.scheme);
    if (!ops) {
        gr_link_set_error("unknown transport scheme '%s://'; accepted schemes: %s", uri.scheme,
                          gr_link_schemes());
        return GR_E_BAD_URI;
    }
    rc = check_params(ops, &uri);
    if (rc)
        return rc;
    gr_link_t *link = calloc(1, sizeof *link);
    if (!link) {
        gr_link_set_error("out of memory");
        return GR_E_NO_MEMORY;
    }
    link->ops = ops;
    if (pthread_mutex_init(&link->lock, NULL)) {
        free(link);
        gr_link_set_error("out of memory");
        return GR_E_NO_MEMORY;
    }
    /* The log is the link's, not the backend's: the key is taken out of what the backend
     * sees, and the file is opened first, so a log that cannot be written leaves the device
     * untouched. */
    char txlog[GR_URI_TEXT_MAX] = ""; /* a copy: the parameters move below */
    const char *s = gr_uri_param(&uri, GR_LINK_TXLOG_KEY);
    if (s) {
        snprintf(txlog, sizeof txlog, "%s", s);
        rc = gr_txlog_open(txlog, ops->scheme, &link->txlog);
        if (rc) {
            pthread_mutex_destroy(&link->lock);
            free(link);
            return rc;
        }
        unsigned j = 0;
        for (unsigned i = 0; i < uri.param_count; i++)
            if (strcmp(uri.params[i].key, GR_LINK_TXLOG_KEY) != 0)
                uri.params[j++] = uri.params[i];
        uri.param_count = j;
    }
    rc = ops->open(&uri, &link->ctx);
    if (rc) {
        gr_txlog_close(link->txlog);
        if (txlog[0])
            remove(txlog);
        pthread_mutex_destroy(&link->lock);
        free(link);
        return rc;
    }
    if (link->txlog) {
        char what[256];
        ops->describe(link->ctx, what, sizeof what);
        gr_txlog_note(link->txlog, what);
        if (ops->set_txlog)
            ops->set_txlog(link->ctx, link->txlog);
        else
            gr_txlog_note(link->txlog, "this link does not see the device's DMA: no dmard/dmawr lines");
    }
    *out_link = link;
    return GR_OK;
}

void gr_link_close(gr_link_t *link)
{
    if (!link)
        return;
    link->ops->close(link->ctx);
    gr_txlog_close(link->txlog);
    pthread_mutex_destroy(&link->lock);
    free(link);
}

/* The operations with their log lines, under the link's lock: the order of the lines is the
 * order of the calls. */
static int link_read32(gr_link_t *link, uint32_t offset, uint32_t *out_value)
{
    uint32_t v = 0;
    int rc = link->ops->read32(link->ctx, offset, &v);
    gr_txlog_reg(link->txlog, false, offset, v, rc);
    if (!rc)
        *out_value = v;
    return rc;
}

static int link_write32(gr_link_t *link, uint32_t offset, uint32_t value)
{
    int rc = link->ops->write32(link->ctx, offset, value);
    gr_txlog_reg(link->txlog, true, offset, value, rc);
    return rc;
}

static int link_ap_read(gr_link_t *link, uint64_t offset, void *dst, size_t bytes)
{
    int rc = link->ops->ap_read(link->ctx, offset, dst, bytes);
    gr_txlog_ap(link->txlog, false, offset, dst, bytes, rc);
    return rc;
}

static int link_ap_write(gr_link_t *link, uint64_t offset, const void *src, size_t bytes)
{
    int rc = link->ops->ap_write(link->ctx, offset, src, bytes);
    gr_txlog_ap(link->txlog, true, offset, src, bytes, rc);
    return rc;
}

static int link_dma_alloc(gr_link_t *link, size_t bytes, gr_dma_buf_t *out_buf)
{
    int rc = link->ops->dma_alloc(link->ctx, bytes, out_buf);
    gr_txlog_alloc(link->txlog, rc ? 0 : out_buf->bus, bytes, rc);
    return rc;
}

static int link_dma_free(gr_link_t *link, const gr_dma_buf_t *buf)
{
    int rc = link->ops->dma_free(link->ctx, buf);
    gr_txlog_free(link->txlog, buf->bus, rc);
    return rc;
}

static int link_wait_irq(gr_link_t *link, uint32_t timeout_us, bool *out_raised)
{
    int rc = link->ops->wait_irq(link->ctx, timeout_us, out_raised);
    if (!rc)
        gr_txlog_irq(link->txlog, *out_raised);
    return rc;
}

/* Offsets are checked here, once, so no backend can put a bad access on the wire. */
static int check_offset(uint32_t offset)
{
    if (offset >= GR_REGMAP_BAR0_BYTES)
        return GR_E_RANGE;
    if (offset & 3u)
        return GR_E_ALIGN;
    return GR_OK;
}

int gr_link_read32(gr_link_t *link, uint32_t offset, uint32_t *out_value)
{
    if (!link || !out_value)
        return GR_E_INVALID;
    int rc = check_offset(offset);
    if (!rc)
        LINK_LOCKED(link, link_read32(link, offset, out_value));
    return rc;
}

int gr_link_write32(gr_link_t *link, uint32_t offset, uint32_t value)
{
    if (!link)
        return GR_E_INVALID;
    int rc = check_offset(offset);
    if (!rc)
        LINK_LOCKED(link, link_write32(link, offset, value));
    return rc;
}

int gr_link_ap_read(gr_link_t *link, uint64_t offset, void *dst, size_t bytes)
{
    if (!link || !dst || bytes == 0)
        return GR_E_INVALID;
    if (!link->ops->ap_read)
        return GR_E_UNSUPPORTED;
    int rc;
    LINK_LOCKED(link, link_ap_read(link, offset, dst, bytes));
    return rc;
}

int gr_link_ap_write(gr_link_t *link, uint64_t offset, const void *src, size_t bytes)
{
    if (!link || !src || bytes == 0)
        return GR_E_INVALID;
    if (!link->ops->ap_write)
        return GR_E_UNSUPPORTED;
    int rc;
    LINK_LOCKED(link, link_ap_write(link, offset, src, bytes));
    return rc;
}

int gr_link_dma_alloc(gr_link_t *link, size_t bytes, gr_dma_buf_t *out_buf)
{
    if (!link || !out_buf || bytes == 0)
        return GR_E_INVALID;
    if (!link->ops->dma_alloc)
        return GR_E_UNSUPPORTED;
    int rc;
    LINK_LOCKED(link, link_dma_alloc(link, bytes, out_buf));
    return rc;
}

int gr_link_dma_free(gr_link_t *link, const gr_dma_buf_t *buf)
{
    if (!link || !buf)
        return GR_E_INVALID;
    if (!link->ops->dma_free)
        return GR_E_UNSUPPORTED;
    int rc;
    LINK_LOCKED(link, link_dma_free(link, buf));
    return rc;
}

int gr_link_wait_irq(gr_link_t *link, uint32_t timeout_us, bool *out_raised)
{
    if (!link || !out_raised)
        return GR_E_INVALID;
    if (!link->ops->wait_irq)
        return GR_E_UNSUPPORTED;
    int rc;
    LINK_LOCKED(link, link_wait_irq(link, timeout_us, out_raised));
    return rc;
}

int gr_link_read32_batch(gr_link_t *link, const uint32_t *offsets, unsigned count, uint32_t *out_values)
{
    if (!link || !offsets || !out_values || count == 0)
        return GR_E_INVALID;
    for (unsigned i = 0; i < count; i++) {
        int rc = check_offset(offsets[i]);
        if (rc)
            return rc;
    }
    if (!link->ops->read32_batch) {
        /* One by one, under one hold of the lock; out_values untouched on failure. */
        uint32_t *v = malloc(sizeof *v * count);
        if (!v)
            return GR_E_NO_MEMORY;
        int rc = GR_OK;
        pthread_mutex_lock(&link->lock);
        for (unsigned i = 0; i < count && !rc; i++)
            rc = link_read32(link, offsets[i], &v[i]);
        pthread_mutex_unlock(&link->lock);
        if (!rc)
            memcpy(out_values, v, sizeof *v * count);
        free(v);
        return rc;
    }
    pthread_mutex_lock(&link->lock);
    int rc = link->ops->read32_batch(link->ctx, offsets, count, out_values);
    for (unsigned i = 0; i < count; i++)
        gr_txlog_reg(link->txlog, false, offsets[i], rc ? 0 : out_values[i], rc);
    pthread_mutex_unlock(&link->lock);
    return rc;
}

int gr_link_ap_write_posted(gr_link_t *link, uint64_t offset, const void *src, size_t bytes)
{
    if (!link || !src || bytes == 0)
        return GR_E_INVALID;
    if (!link->ops->ap_write_posted)
        return gr_link_ap_write(link, offset, src, bytes);
    int rc;
    pthread_mutex_lock(&link->lock);
    rc = link->ops->ap_write_posted(link->ctx, offset, src, bytes);
    gr_txlog_ap(link->txlog, true, offset, src, bytes, rc);
    pthread_mutex_unlock(&link->lock);
    return rc;
}

int gr_link_wait_irq_event(gr_link_t *link, uint32_t timeout_us, bool *out_raised)
{
    if (!link || !out_raised)
        return GR_E_INVALID;
    if (!link->ops->wait_irq_event)
        return GR_E_UNSUPPORTED;
    return link->ops->wait_irq_event(link->ctx, timeout_us, out_raised);
}

uint32_t gr_link_caps(gr_link_t *link)
{
    return link ? link->ops->caps(link->ctx) : 0;
}

uint32_t gr_link_dma_wait_cycles(gr_link_t *link)
{
    return link && link->ops->dma_wait_cycles ? link->ops->dma_wait_cycles(link->ctx) : 0;
}

int gr_link_bind(gr_link_t *link, unsigned op, char *owner, size_t owner_len)
{
    int rc;
    if (!link || op > GR_LINK_BIND_FORCE)
        return GR_E_INVALID;
    if (owner && owner_len)
        owner[0] = 0;
    if (!link->ops->bind)
        return GR_OK;
    LINK_LOCKED(link, link->ops->bind(link->ctx, op, owner, owner_len));
    return rc;
}

uint32_t gr_link_dead_ms(gr_link_t *link)
{
    return link && link->ops->dead_ms ? link->ops->dead_ms(link->ctx) : GR_LINK_DEAD_MS_DEFAULT;
}

void *gr_link_backend_ctx(gr_link_t *link, const gr_link_ops_t *ops)
{
    return link && link->ops == ops ? link->ctx : NULL;
}

int gr_link_backend_call(gr_link_t *link, const gr_link_ops_t *ops, int (*fn)(void *ctx, void *arg), void *arg)
{
    int rc;
    if (!link || link->ops != ops || !fn)
        return GR_E_INVALID;
    LINK_LOCKED(link, fn(link->ctx, arg));
    return rc;
}

const char *gr_link_scheme(const gr_link_t *link)
{
    return link ? link->ops->scheme : "";
}

void gr_link_describe(gr_link_t *link, char *buf, size_t len)
{
    if (!buf || !len)
        return;
    if (!link) {
        snprintf(buf, len, "(none)");
        return;
    }
    pthread_mutex_lock(&link->lock);
    link->ops->describe(link->ctx, buf, len);
    pthread_mutex_unlock(&link->lock);
}

static void link_mark(gr_link_t *link, bool now, const char *fmt, va_list ap)
{
    char text[121];
    vsnprintf(text, sizeof text, fmt, ap);
    text[strcspn(text, "\r\n")] = '\0';
    gr_txlog_mark(link->txlog, text, now);
}

/* The log is set at open and kept until close: no lock to look at it. The marker takes only the
 * log's own lock, so a DDI may call it holding any of its own. */
void gr_link_mark(gr_link_t *link, const char *fmt, ...)
{
    if (!link || !link->txlog || !fmt)
        return;
    va_list ap;
    va_start(ap, fmt);
    link_mark(link, true, fmt, ap);
    va_end(ap);
}

void gr_link_mark_quiet(gr_link_t *link, const char *fmt, ...)
{
    if (!link || !link->txlog || !fmt)
        return;
    va_list ap;
    va_start(ap, fmt);
    link_mark(link, false, fmt, ap);
    va_end(ap);
}

int gr_link_proto(gr_link_t *link, gr_proto_t **out_p)
{
    if (!link || !out_p)
        return GR_E_INVALID;
    /* Every byte-stream backend's context is its engine: they all close it with this op. */
    if (link->ops->close != gr_proto_op_close)
        return GR_E_UNSUPPORTED;
    *out_p = link->ctx;
    return GR_OK;
}
