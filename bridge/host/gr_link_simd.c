/* gr_link_simd.c: simd://, a Unix socket to gpuref-simd under the protocol engine (see
 * gr_link_simd.h). */
#define _POSIX_C_SOURCE 200809L
#include "gr_link_simd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "gr_proto.h"

static const char *const simd_keys[] = {GR_PROTO_URI_KEYS, NULL};

typedef struct simd_addr {
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
} simd_addr_t;

/* Connects to the server; GR_E_NO_DEVICE with the reason when nobody listens. */
static int simd_connect(void *arg, int *inout_fd)
{
    simd_addr_t *a = arg;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        gr_link_set_error("simd://%s: socket: %s", a->path, strerror(errno));
        return GR_E_IO;
    }
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, a->path, strlen(a->path) + 1);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int e = errno;
        close(fd);
        gr_link_set_error("simd://%s: cannot connect to %s: %s (is gpuref-simd running? "
                          "gpuref-simd --socket %s &)", a->path, a->path, strerror(e), a->path);
        return GR_E_NO_DEVICE;
    }
    if (*inout_fd >= 0)
        close(*inout_fd);
    *inout_fd = fd;
    return GR_OK;
}

static int simd_open_path(const gr_uri_t *uri, const char *path, void **out_ctx);

static int simd_open(const gr_uri_t *uri, void **out_ctx)
{
    const char *path = uri->path, *from_env = NULL;
    if (!path[0]) {
        path = getenv("GR_SIMD_SOCKET");
        from_env = path && path[0] ? "GR_SIMD_SOCKET" : NULL;
    }
    if (!path || !path[0])
        path = GR_SIMD_DEFAULT_SOCKET;
    int rc = simd_open_path(uri, path, out_ctx);
    if (rc && from_env) {
        /* The URI named no socket: say where this one came from. */
        char why[512];
        snprintf(why, sizeof why, "%s", gr_link_error());
        gr_link_set_error("%s='%s': %s", from_env, path, why);
    }
    return rc;
}

/* simd_open with the socket's path known. */
static int simd_open_path(const gr_uri_t *uri, const char *path, void **out_ctx)
{
    simd_addr_t *a = calloc(1, sizeof *a);
    if (!a)
        return GR_E_NO_MEMORY;
    if (strlen(path) >= sizeof a->path) {
        gr_link_set_error("simd://%s: socket path longer than %zu bytes", path, sizeof a->path - 1);
        free(a);
        return GR_E_BAD_URI;
    }
    strcpy(a->path, path);
    char name[GR_URI_TEXT_MAX + 8];
    snprintf(name, sizeof name, "simd://%s", path);
    gr_proto_opts_t o;
    gr_proto_opts_default(&o, 200, name);
    /* A loaded machine can starve the server for a while: a link is not dead that soon. */
    o.dead_ms = 10000;
    o.timeout_ms = 15000;
    int rc = gr_proto_opts_from_uri(uri, &o);
    int fd = -1;
    if (!rc)
        rc = simd_connect(a, &fd);
    if (rc) {
        free(a);
        return rc;
    }
    gr_pipe_t pipe;
    rc = gr_pipe_fd_create(fd, name, simd_connect, a, free, &pipe);
    if (rc) {
        close(fd);
        free(a);
        return rc;
    }
    gr_proto_t *p = NULL;
    rc = gr_proto_open(pipe, &o, &p); /* owns the pipe from here */
    if (rc)
        return rc;
    *out_ctx = p;
    return GR_OK;
}

static uint32_t simd_caps(void *ctx)
{
    return gr_proto_op_caps(ctx) | GR_LINK_CAP_SIMULATED;
}

const gr_link_ops_t gr_link_simd_ops = {
    .scheme = "simd",
    .summary = "gpuref-simd, the simulation server, over a Unix socket (several processes)",
    .param_keys = simd_keys,
    .open = simd_open,
    .close = gr_proto_op_close,
    .read32 = gr_proto_op_read32,
    .write32 = gr_proto_op_write32,
    .ap_read = gr_proto_op_ap_read,
    .ap_write = gr_proto_op_ap_write,
    .dma_alloc = gr_proto_op_dma_alloc,
    .dma_free = gr_proto_op_dma_free,
    .wait_irq = gr_proto_op_wait_irq,
    .caps = simd_caps,
    .describe = gr_proto_op_describe,
    .dma_wait_cycles = gr_proto_op_dma_wait_cycles,
};
