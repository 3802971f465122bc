/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpuref-broker: the daemon that owns one device and its one driver stack (the miniport, VidMm,
 * VidSch) and serves the gr_* API to other processes over a Unix socket (broker://PATH). Each
 * client process gets dxgk processes of its own; one that goes away is cleaned up as the kernel
 * would (host/broker/README.md: the messages, the ownership and the cleanup).
 *
 *   gpuref-broker --socket PATH [--group GROUP] [--quiet] URI
 *
 * URI is any device: sim://, simd://, uart://, usb://, pcie://. SIGTERM and SIGINT end it
 * cleanly: every client is disconnected and cleaned up, then the adapter closed and the socket
 * removed.
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuref/gr_alloc.h"
#include "gpuref/gr_status.h"
#include "gr_broker.h"

static volatile int stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuref-broker --socket PATH [--group GROUP] [--quiet] URI\n"
               "  Owns the device at URI (sim://, simd://PATH, uart://, usb://, pcie://) and serves the gr_* API\n"
               "  to other processes at broker://PATH.\n"
               "  --socket PATH   the Unix socket to listen on (made owner-only, mode 0600)\n"
               "  --group GROUP   give the socket to GROUP, mode 0660: its members may use the device\n"
               "  --quiet         no line per client on stderr\n");
}

int main(int argc, char **argv)
{
    static const struct option longs[] = {{"socket", required_argument, NULL, 's'},
                                          {"group", required_argument, NULL, 'g'},
                                          {"quiet", no_argument, NULL, 'q'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    gr_broker_opts_t o = {.stop = &stop};
    int ch;
    while ((ch = getopt_long(argc, argv, "s:g:qh", longs, NULL)) != -1) {
        switch (ch) {
        case 's':
            o.socket_path = optarg;
            break;
        case 'g':
            o.group = optarg;
            break;
        case 'q':
            o.quiet = true;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (!o.socket_path || optind != argc - 1) {
        fprintf(stderr, "gpuref-broker: %s\n", !o.socket_path ? "--socket PATH is required" : "one device URI is required");
        usage(stderr);
        return 2;
    }
    const char *uri = argv[optind];
    if (gr_brk_uri(uri)) {
        fprintf(stderr, "gpuref-broker: %s is a broker already: give the device's own URI\n", uri);
        return 2;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* The broker keeps the link: its driver stack stops while a client holds the device raw. */
    gr_link_t *link = NULL;
    int rc = gr_link_open(uri, &link);
    if (rc) {
        fprintf(stderr, "gpuref-broker: %s: %s\n", uri, gr_last_error());
        return 1;
    }
    if (!o.quiet)
        fprintf(stderr, "gpuref-broker: pid %ld serving %s at broker://%s%s%s\n", (long)getpid(), uri, o.socket_path,
                o.group ? " for group " : "", o.group ? o.group : "");
    rc = gr_broker_serve(link, &o);
    if (rc)
        fprintf(stderr, "gpuref-broker: %s: %s\n", uri, gr_last_error());
    gr_link_close(link);
    return rc ? 1 : 0;
}
