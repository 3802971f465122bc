/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpuctl_out.c: what every gpuctl command shares, at the bottom of gpuctl (gpuctl.h): JSON
 * strings, the messages on stderr (each after stdout is flushed, so that `2>&1` keeps the
 * order), the progress line of a long command on a terminal, error reports as text and as JSON
 * documents, sizes for people, "did you mean", and the number and size parsers.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuctl.h"
#include "gpuref/gr_status.h"

void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

/* "1 MiB", "64 KiB", "4097 B" when a unit divides it; else "239.98 MiB" (JSON has the bytes). */
const char *fmt_size(uint64_t v, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0, big = 0;
    uint64_t exact = v;
    while (u < 4 && exact && exact % 1024 == 0) {
        exact /= 1024;
        u++;
    }
    for (uint64_t t = v; big < 4 && t >= 1024; t /= 1024)
        big++;
    if (big > u)
        snprintf(buf, len, "%.2f %s", (double)v / (double)(UINT64_C(1) << (10 * big)), unit[big]);
    else
        snprintf(buf, len, "%llu %s", (unsigned long long)exact, unit[u]);
    return buf;
}

/* --json given anywhere on the line: parse errors are JSON documents too. */
static bool json_errors;

void set_json_errors(bool on)
{
    json_errors = on;
}

/* ---- the progress line ----------------------------------------------------------------------
 * A thread redraws one line on stderr ("gpuctl: copy @1 @2: 12.5 s") every 200 ms once the command
 * has run for 500 ms, and erases it when the command ends; note() erases it before it writes.
 * Only on a terminal and never with --json: a pipe or a log gets the results alone. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    bool running, stop, drawn;
    char what[200];
    unsigned done, total; /* progress_step's; total 0: a count alone */
    struct timespec start;
} prog = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static double since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Called with prog.mu held. */
static void progress_erase(void)
{
    if (prog.drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        prog.drawn = false;
    }
}

static void *progress_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&prog.mu);
    while (!prog.stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (prog.drawn ? 200 : 500) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&prog.cv, &prog.mu, &until);
        if (prog.stop)
            break;
        char step[48] = "";
        if (prog.total)
            snprintf(step, sizeof step, ", %u of %u", prog.done, prog.total);
        else if (prog.done)
            snprintf(step, sizeof step, ", %u done", prog.done);
        fprintf(stderr, "\r\033[Kgpuctl: %s: %.1f s%s", prog.what, since(&prog.start), step);
        fflush(stderr);
        prog.drawn = true;
    }
    progress_erase();
    pthread_mutex_unlock(&prog.mu);
    return NULL;
}

void progress_begin(const opts_t *o, const char *what)
{
    if (o->json || prog.running || !isatty(STDERR_FILENO))
        return;
    pthread_mutex_lock(&prog.mu);
    snprintf(prog.what, sizeof prog.what, "%s", what);
    prog.done = prog.total = 0;
    prog.stop = prog.drawn = false;
    clock_gettime(CLOCK_MONOTONIC, &prog.start);
    pthread_mutex_unlock(&prog.mu);
    prog.running = pthread_create(&prog.thread, NULL, progress_thread, NULL) == 0;
}

void progress_step(unsigned done, unsigned total)
{
    pthread_mutex_lock(&prog.mu);
    prog.done = done;
    prog.total = total;
    pthread_mutex_unlock(&prog.mu);
}

void progress_end(void)
{
    if (!prog.running)
        return;
    pthread_mutex_lock(&prog.mu);
    prog.stop = true;
    pthread_cond_signal(&prog.cv);
    pthread_mutex_unlock(&prog.mu);
    pthread_join(prog.thread, NULL);
    prog.running = false;
}

void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout);
    pthread_mutex_lock(&prog.mu);
    progress_erase();
    fputs("gpuctl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    pthread_mutex_unlock(&prog.mu);
    va_end(ap);
}

/* ---- did you mean ------------------------------------------------------------------------- */

/* Edits (insert, delete, substitute, swap two neighbours) from a to b, ignoring case; stops
 * counting past 9. */
static unsigned edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 10;
    unsigned d[41][41];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            const int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            unsigned v = d[i - 1][j - 1] + (ca != cb);
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[la][lb] > 9 ? 10 : d[la][lb];
}

void suggest_init(suggest_t *s, const char *word)
{
    s->word = word;
    s->best = NULL;
    s->dist = 10;
}

void suggest_consider(suggest_t *s, const char *candidate)
{
    /* Close enough to be a slip: one edit in a short word, two from five letters on, three
     * from ten; and never the whole word replaced. */
    const size_t len = strlen(s->word);
    const unsigned limit = len >= 10 ? 3 : len >= 5 ? 2 : 1;
    const unsigned d = edit_distance(s->word, candidate);
    if (d <= limit && d < len && d < s->dist) {
        s->best = candidate;
        s->dist = d;
    }
}

const char *suggest_text(const suggest_t *s, char *buf, size_t len)
{
    if (s->best)
        snprintf(buf, len, "; did you mean '%s'?", s->best);
    else if (len)
        buf[0] = '\0';
    return buf;
}

/* One error document: {"command","error","message"}. */
void json_error(const char *cmd, const char *error, const char *msg)
{
    printf("{\"command\":");
    json_str(cmd);
    printf(",\"error\":");
    json_str(error);
    printf(",\"message\":");
    json_str(msg);
    printf("}\n");
}

int fail_status(const opts_t *o, const char *cmd, int rc, int exit_code, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (o->json)
        json_error(cmd, rc ? gr_status_name(rc) : "usage", msg);
    /* A lost link says what happened (the detail the failed call left). */
    const char *why = rc == GR_E_LINK ? gr_last_error() : "";
    if (rc && why[0])
        note("%s: %s (%s): %s", msg, gr_strerror(rc), gr_status_name(rc), why);
    else if (rc)
        note("%s: %s (%s)", msg, gr_strerror(rc), gr_status_name(rc));
    else
        note("%s", msg);
    return exit_code;
}

int parse_fail(const char *cmd, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (json_errors)
        json_error(cmd, "usage", msg);
    note("%s", msg);
    return -1;
}

int parse_u32(const char *text, uint32_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || !*text || *end || v > 0xffffffffull || text[0] == '-')
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Bytes: a number (0x allowed) with an optional K, M, G or T (binary) suffix; 1 byte (0 when
 * zero_ok) to 1 TiB (SIZE_FORMS). */
int parse_size_ex(const char *text, bool zero_ok, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    if (!*text || text[0] < '0' || text[0] > '9')
        return -1;
    unsigned long long v = strtoull(text, &end, 0);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    else if (*end == 'T' || *end == 't')
        shift = 40;
    if (shift)
        end++;
    if (errno || end == text || *end || (v == 0 && !zero_ok) || v > (1ull << (40 - shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

