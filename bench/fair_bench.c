/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fair_bench: what one client's register read waits for on a shared gpuref-simd board while
 * two other clients flood it. For each board kind, gpuref-simd is started (seed 1); two client
 * processes flood it: as wire-fuzz's flooders do, frames written as fast as the socket takes
 * them without regard to credit (RD32 of 64 reads, or posted WR32 of 512 writes to SCRATCH;
 * each sent again from the last one the server acknowledged, its frames acknowledged in turn),
 * or through the host library, BAR1 writes of 256 KiB one after another (gr_link_ap_write);
 * a third client of the host library reads SCRATCH over and over (gr_link_read32: one round
 * trip each) and its wall latency is printed, median and max (--flood URI KIND is one flooder,
 * as this program starts each). Wall time depends on the machine and its load: printed, never
 * asserted (the deterministic bound is suite wire-fuzz's).
 *
 * Usage: fair_bench --simd GPUREF_SIMD [--boards stream,ft601] [--trips N] [--seconds S]
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpuref/gr_regmap.h"
#include "gpuref/gr_status.h"
#include "gr_link.h"
#include "gr_proto_frame.h"

#define WARMUP_S 2.0 /* the flooders fill their shares before the first read */

typedef enum { FLOOD_NONE, FLOOD_RD32, FLOOD_POSTED, FLOOD_BAR1 } flood_t;

static const char *const flood_names[] = {"none", "RD32 of 64 reads, credit ignored",
                                          "posted WR32 of 512 writes, credit ignored",
                                          "BAR1 writes of 256 KiB (host library)"};

#define BURST 16u /* frames written from the oldest the server has not acknowledged */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Starts gpuref-simd on sock; waits until it accepts (120 s at most). */
static pid_t server_start(const char *simd, const char *board, const char *sock, const char *log)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(sock) >= sizeof sa.sun_path)
        return -1;
    fflush(stdout); /* the child's freopen would write this process's buffered output again */
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(log, "w", stdout) || !freopen(log, "a", stderr))
            _exit(127);
        execl(simd, simd, "--socket", sock, "--board", board, "--seed", "1", "--verbose", (char *)NULL);
        _exit(127);
    }
    if (pid < 0)
        return -1;
    memcpy(sa.sun_path, sock, strlen(sock) + 1);
    for (int i = 0; i < 1200; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        bool up = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
        if (fd >= 0)
            close(fd);
        if (up)
            return pid;
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return -1;
        sleep_s(0.1);
    }
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    return -1;
}

/* A flooder on the socket itself: RESET, HELLO (SEQ 0), then bursts of frames from the oldest
 * the server has not acknowledged, whatever its credit, the server's reliable frames
 * acknowledged in every frame. */
static int flood_raw(const char *path, flood_t kind)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || strlen(path) >= sizeof sa.sun_path)
        return 1;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    /* A small socket buffer: the acknowledgements in its frames must not wait behind much (the
     * server drops a client that leaves 1,024 of its frames unacknowledged). */
    int sndbuf = 32768;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
        return 1;
    static uint32_t w[GR_PROTO_MAX_PAYLOAD];
    static uint8_t out[BURST * GR_PROTO_FRAME_BYTES(GR_PROTO_MAX_PAYLOAD)];
    uint32_t epoch = (uint32_t)getpid() & 0xffffu;
    gr_proto_hdr_t h = {.type = GR_PT_RESET, .len = 1};
    size_t len = gr_proto_frame_encode(out, &h, &epoch), at = 0;
    uint16_t acked = 0, expected = 0;
    gr_proto_rx_t rx;
    if (gr_proto_rx_init(&rx, GR_PROTO_MAX_PAYLOAD))
        return 1;
    for (;;) {
        if (at == len) {
            len = at = 0;
            for (unsigned i = 0; i < BURST; i++) {
                uint16_t n = kind == FLOOD_RD32 ? 64 : 512;
                w[0] = (uint32_t)n << 16 | i;
                if ((uint16_t)(acked + i) == 0) {
                    w[0] = GR_PROTO_VER_MAJOR << 16 | GR_PROTO_VER_MINOR;
                    w[1] = GR_PROTO_MAX_PAYLOAD;
                    h = (gr_proto_hdr_t){GR_PT_HELLO, GR_PROTO_FLAG_REL, 2, 0, 0};
                } else if (kind == FLOOD_RD32) {
                    for (unsigned k = 0; k < n; k++)
                        w[1 + k] = GR_REG_SCRATCH;
                    h = (gr_proto_hdr_t){GR_PT_RD32, GR_PROTO_FLAG_REL, (uint16_t)(1 + n), 0, 0};
                } else {
                    w[1] = 1; /* POSTED */
                    for (unsigned k = 0; k < n; k++) {
                        w[2 + 2 * k] = 0xfu << 16 | GR_REG_SCRATCH;
                        w[3 + 2 * k] = k;
                    }
                    h = (gr_proto_hdr_t){GR_PT_WR32, GR_PROTO_FLAG_REL, (uint16_t)(2 + 2 * n), 0, 0};
                }
                h.seq = (uint16_t)(acked + i);
                h.ack = expected;
                len += gr_proto_frame_encode(out + len, &h, w);
            }
        }
        ssize_t n = send(fd, out + at, len - at, MSG_DONTWAIT);
        if (n > 0)
            at += (size_t)n;
        else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return 1;
        for (;;) {
            size_t room = 0;
            uint8_t *dst = gr_proto_rx_space(&rx, &room);
            ssize_t r = recv(fd, dst, room, MSG_DONTWAIT);
            if (r == 0)
                return 1;
            if (r < 0)
                break;
            gr_proto_rx_commit(&rx, (size_t)r);
            gr_proto_hdr_t f;
            gr_proto_rx_event_t ev;
            while ((ev = gr_proto_rx_next(&rx, &f)) != GR_RX_NONE) {
                if (ev != GR_RX_FRAME || f.type == GR_PT_RESET_ACK)
                    continue;
                if ((int16_t)(uint16_t)(f.ack - acked) > 0)
                    acked = f.ack;
                if ((f.flags & GR_PROTO_FLAG_REL) && f.seq == expected)
                    expected++;
            }
        }
    }
}

/* A flooding client, until killed: this program run again with --flood URI KIND. */
static int flood(const char *uri, flood_t kind)
{
    if (kind != FLOOD_BAR1)
        return flood_raw(uri + strlen("simd://"), kind);
    gr_link_t *l = NULL;
    if (gr_link_open(uri, &l))
        return 1;
    static uint8_t buf[256u << 10];
    for (;;)
        if (gr_link_ap_write(l, 0, buf, sizeof buf))
            sleep_s(0.001);
}

static pid_t flooder_start(const char *uri, flood_t kind)
{
    char k[8];
    snprintf(k, sizeof k, "%d", (int)kind);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "fair_bench", "--flood", uri, k, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Clients the server dropped for want of reading or acknowledging (its --verbose log): a
 * flooder that stopped flooding. */
static unsigned drops(const char *log)
{
    unsigned n = 0;
    char line[512];
    FILE *f = fopen(log, "r");
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, " dropped: ") && !strstr(line, "dropped: closed") &&
             !strstr(line, "dropped: socket error");
    if (f)
        fclose(f);
    return n;
}

typedef struct result {
    unsigned trips, failed;
    double median_ms, max_ms;
} result_t;

static int run_row(const char *uri, flood_t kind, unsigned max_trips, double max_s, result_t *r)
{
    pid_t fl[2] = {0, 0};
    if (kind != FLOOD_NONE) {
        for (int k = 0; k < 2; k++)
            fl[k] = flooder_start(uri, kind);
        sleep_s(WARMUP_S);
    }
    gr_link_t *l = NULL;
    int rc = gr_link_open(uri, &l);
    double *lat = calloc(max_trips, sizeof *lat);
    memset(r, 0, sizeof *r);
    if (!rc && lat) {
        const double end = now_s() + max_s;
        while (r->trips < max_trips && now_s() < end) {
            uint32_t v;
            double t0 = now_s();
            if (gr_link_read32(l, GR_REG_SCRATCH, &v))
                r->failed++;
            lat[r->trips++] = (now_s() - t0) * 1e3;
        }
        qsort(lat, r->trips, sizeof *lat, cmp_double);
        r->median_ms = r->trips ? lat[r->trips / 2] : 0;
        r->max_ms = r->trips ? lat[r->trips - 1] : 0;
    }
    if (l)
        gr_link_close(l);
    for (int k = 0; k < 2; k++)
        if (fl[k] > 0) {
            kill(fl[k], SIGKILL);
            waitpid(fl[k], NULL, 0);
        }
    free(lat);
    return rc ? rc : lat ? GR_OK : GR_E_NO_MEMORY;
}

int main(int argc, char **argv)
{
    const char *simd = NULL, *boards = "stream,ft601";
    unsigned trips = 60;
    double seconds = 20;
    if (argc == 4 && !strcmp(argv[1], "--flood"))
        return flood(argv[2], (flood_t)atoi(argv[3]));
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--simd") && i + 1 < argc)
            simd = argv[++i];
        else if (!strcmp(argv[i], "--boards") && i + 1 < argc)
            boards = argv[++i];
        else if (!strcmp(argv[i], "--trips") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            trips = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc && atof(argv[i + 1]) > 0)
            seconds = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: fair_bench --simd GPUREF_SIMD [--boards stream,ft601] "
                            "[--trips N] [--seconds S]\n");
            return 2;
        }
    }
    if (!simd) {
        fprintf(stderr, "fair_bench: --simd GPUREF_SIMD is required\n");
        return 2;
    }
    char dir[] = "/tmp/fair-bench-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("fair_bench: mkdtemp");
        return 1;
    }
    printf("# a client's SCRATCH read (one round trip) beside two flooding clients: at most %u "
           "reads or %.0f s per row, %s\n", trips, seconds, simd);
    printf("| board | the two others flood with | reads | failed | median ms | max ms | flooders dropped |\n");
    printf("|---|---|---:|---:|---:|---:|---:|\n");
    int status = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", boards);
    for (char *save = NULL, *b = strtok_r(list, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
        char sock[128], log[160], uri[160];
        snprintf(sock, sizeof sock, "%s/%s.sock", dir, b);
        snprintf(log, sizeof log, "%s/%s.log", dir, b);
        snprintf(uri, sizeof uri, "simd://%s", sock);
        pid_t srv = server_start(simd, b, sock, log);
        if (srv < 0) {
            fprintf(stderr, "fair_bench: gpuref-simd --board %s did not start (log: %s)\n", b, log);
            status = 1;
            continue;
        }
        for (flood_t k = FLOOD_NONE; k <= FLOOD_BAR1; k++) {
            result_t r;
            const unsigned d0 = drops(log);
            int rc = run_row(uri, k, trips, seconds, &r);
            if (rc) {
                fprintf(stderr, "fair_bench: %s, %s: %s\n", b, flood_names[k], gr_strerror(rc));
                status = 1;
                continue;
            }
            printf("| %s | %s | %u | %u | %.1f | %.1f | %u |\n", b, flood_names[k], r.trips, r.failed,
                   r.median_ms, r.max_ms, drops(log) - d0);
            fflush(stdout);
        }
        kill(srv, SIGTERM);
        waitpid(srv, NULL, 0);
    }
    return status;
}
