/*
 * gpuctl_out.c: what every gpuctl command shares, at the bottom of gpuctl (gpuctl.h): JSON
 * strings, the messages on stderr (each after stdout is flushed, so that `2>&1` keeps the
 * order), error reports as text and as JSON documents, sizes for people, and the number and size
 * parsers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout);
    fputs("gpuctl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
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
    if (rc)
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

