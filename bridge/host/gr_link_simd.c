/* SPDX-License-Identifier: Apache-2.0 */
/* gr_link_simd.c: simd://, a Unix socket to gpuref-simd under the protocol engine (see
 * gr_link_simd.h). */
#define _POSIX_C_SOURCE 200809L
#include "gr_link_simd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

int gr_simd_default_socket(bool make_dir, char *buf, size_t len, const char **out_from)
{
    static const char file[] = "gpuref-simd.sock";
    char dir[256];
    char path[sizeof dir + sizeof file + 1];
    const char *from;
    const char *env = getenv("GR_SIMD_SOCKET");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (env && env[0]) {
        from = "GR_SIMD_SOCKET";
        snprintf(path, sizeof path, "%s", env);
    } else if (xdg && xdg[0] == '/') {
        from = "XDG_RUNTIME_DIR";
        snprintf(path, sizeof path, "%s/%s", xdg, file);
    } else {
        /* A directory of our own in the shared temporary directory, as tmux and ssh-agent
         * keep theirs: the socket inside it is reachable by this user alone. */
        const char *tmp = getenv("TMPDIR");
        from = tmp && tmp[0] == '/' ? "TMPDIR" : "/tmp";
        if (!(tmp && tmp[0] == '/'))
            tmp = "/tmp";
        if (snprintf(dir, sizeof dir, "%s/gpuref-%lu", tmp, (unsigned long)getuid()) >= (int)sizeof dir) {
            gr_link_set_error("the socket directory in %s (from %s) would be longer than a socket address holds",
                              tmp, from);
            return GR_E_RANGE;
        }
        if (make_dir && mkdir(dir, 0700) != 0 && errno != EEXIST) {
            gr_link_set_error("cannot make the socket directory %s: %s", dir, strerror(errno));
            return GR_E_IO;
        }
        struct stat st;
        if (lstat(dir, &st) == 0) {
            if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077)) {
                gr_link_set_error("%s is not a private directory of this user's (it must be a directory, "
                                  "owned by uid %lu, mode 0700): refusing to use a socket in it; remove it or set "
                                  "GR_SIMD_SOCKET",
                                  dir, (unsigned long)getuid());
                return GR_E_IO;
            }
        } else if (make_dir) {
            gr_link_set_error("cannot look at the socket directory %s: %s", dir, strerror(errno));
            return GR_E_IO;
        }
        /* A client finds no directory when no server made one: connect() then says so. */
        snprintf(path, sizeof path, "%s/%s", dir, file);
    }
    if (strlen(path) >= len || strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        gr_link_set_error("the default socket %s (from %s) is longer than a Unix socket address holds (%zu bytes)",
                          path, from, sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
        return GR_E_RANGE;
    }
    memcpy(buf, path, strlen(path) + 1);
    if (out_from)
        *out_from = from;
    return GR_OK;
}

static int simd_open_path(const gr_uri_t *uri, const char *path, void **out_ctx);

static int simd_open(const gr_uri_t *uri, void **out_ctx)
{
    if (uri->path[0])
        return simd_open_path(uri, uri->path, out_ctx);
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    const char *from = NULL;
    int rc = gr_simd_default_socket(false, path, sizeof path, &from);
    if (rc) {
        char why[512];
        snprintf(why, sizeof why, "%s", gr_link_error());
        gr_link_set_error("simd://: %s", why);
        return rc == GR_E_RANGE ? GR_E_BAD_URI : GR_E_NO_DEVICE;
    }
    rc = simd_open_path(uri, path, out_ctx);
    if (rc) {
        /* The URI named no socket: say where this one came from. */
        char why[512];
        snprintf(why, sizeof why, "%s", gr_link_error());
        if (!strcmp(from, "GR_SIMD_SOCKET"))
            gr_link_set_error("GR_SIMD_SOCKET='%s': %s", path, why);
        else
            gr_link_set_error("%s (the default socket, from %s; GR_SIMD_SOCKET or simd://PATH names another)",
                              why, from);
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
    .read32_batch = gr_proto_op_read32_batch,
    .ap_write_posted = gr_proto_op_ap_write_posted,
    .wait_irq_event = gr_proto_op_wait_irq_event,
    .caps = simd_caps,
    .describe = gr_proto_op_describe,
    .dma_wait_cycles = gr_proto_op_dma_wait_cycles,
    .dead_ms = gr_proto_op_dead_ms,
    .bind = gr_proto_op_bind,
    .set_txlog = gr_proto_op_set_txlog,
};
