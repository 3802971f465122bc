/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_uri: libFuzzer harness for device URIs: gr_uri_parse, and gr_link_open on sim:// (its
 * parameter parsing, then a real simulation started and closed).
 *
 * Checked on every input:
 *   - gr_uri_parse returns GR_OK or GR_E_BAD_URI; on failure the output is untouched and
 *     gr_link_error() says something;
 *   - a parsed URI keeps the grammar gr_link.h states (scheme of [a-z0-9], no key twice, keys and
 *     values non-empty, at most GR_URI_MAX_PARAMS) and rebuilds to exactly the input text;
 *   - gr_link_open of a sim:// URI returns GR_OK or GR_E_BAD_URI (output untouched on failure);
 *     a URI whose only parameter is seed opens exactly when the seed is a decimal or 0x hex
 *     number in 1..2^64-1 (no sign, no space), and then the link reports that seed.
 * URIs with fst=, trace=, axilog= or txlog= are parsed but not opened: they name files to write.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuref/gr_status.h"
#include "gr_link.h"

#define URI_MAX 1024

static void check(bool ok, const char *what, const char *text)
{
    if (!ok) {
        fprintf(stderr, "fuzz_uri: %s: '%s' (%s)\n", what, text, gr_link_error());
        abort();
    }
}

/* The seed grammar, written apart from the one in gr_link_sim.c: decimal digits, or 0x and hex
 * digits; the value must fit 64 bits and not be 0. */
static bool reference_seed(const char *s, uint64_t *out)
{
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (!*s)
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            return false;
        if (v > (UINT64_MAX - d) / base)
            return false;
        v = v * base + d;
    }
    *out = v;
    return v != 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* The input alone decides: nothing from the environment. */
    unsetenv("GR_DEVICE");
    unsetenv("GR_SIM_SEED");
    unsetenv("GR_SIM_FST");
    unsetenv("GR_SIM_AXILOG");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > URI_MAX)
        return 0;
    char text[URI_MAX + 1];
    memcpy(text, data, size);
    text[size] = '\0'; /* an embedded NUL ends the URI, as it would for any caller */

    gr_uri_t uri, before;
    memset(&uri, 0xa5, sizeof uri);
    before = uri;
    int rc = gr_uri_parse(text, &uri);
    if (rc != GR_OK) {
        check(rc == GR_E_BAD_URI, "gr_uri_parse returned an undocumented status", text);
        check(memcmp(&uri, &before, sizeof uri) == 0, "gr_uri_parse changed its output on failure", text);
        check(strcmp(gr_link_error(), "no error") != 0, "gr_uri_parse failed without a message", text);
        return 0;
    }

    check(uri.scheme[0] != '\0', "empty scheme accepted", text);
    for (const char *p = uri.scheme; *p; p++)
        check(islower((unsigned char)*p) || isdigit((unsigned char)*p), "scheme character outside [a-z0-9]", text);
    check(uri.param_count <= GR_URI_MAX_PARAMS, "too many parameters", text);
    check(strchr(uri.path, '?') == NULL, "'?' in the path", text);
    char rebuilt[URI_MAX + 64];
    int n = snprintf(rebuilt, sizeof rebuilt, "%s://%s", uri.scheme, uri.path);
    for (unsigned i = 0; i < uri.param_count; i++) {
        const char *k = uri.params[i].key, *v = uri.params[i].value;
        check(k[0] && v[0], "empty key or value accepted", text);
        check(!strchr(k, '=') && !strchr(k, '&') && !strchr(v, '&'), "'=' in a key or '&' in a part", text);
        for (unsigned j = 0; j < i; j++)
            check(strcmp(uri.params[j].key, k) != 0, "a key given twice accepted", text);
        check(gr_uri_param(&uri, k) == v, "gr_uri_param does not find a parsed key", text);
        n += snprintf(rebuilt + n, sizeof rebuilt - (size_t)n, "%c%s=%s", i ? '&' : '?', k, v);
    }
    check(strcmp(rebuilt, text) == 0, "the parsed URI does not rebuild to the input", text);

    if (strcmp(uri.scheme, "sim") != 0 || gr_uri_param(&uri, "fst") || gr_uri_param(&uri, "trace") ||
        gr_uri_param(&uri, "axilog") || gr_uri_param(&uri, "txlog"))
        return 0;
    gr_link_t *const sentinel = (gr_link_t *)(uintptr_t)0x10;
    gr_link_t *link = sentinel;
    rc = gr_link_open(text, &link);
    check(rc == GR_OK || rc == GR_E_BAD_URI, "gr_link_open returned an undocumented status", text);
    const char *seed = gr_uri_param(&uri, "seed");
    uint64_t want = 0;
    bool seed_ok = seed && reference_seed(seed, &want);
    if (seed && !seed_ok)
        check(rc == GR_E_BAD_URI, "a bad seed opened", text);
    if (rc != GR_OK) {
        check(link == sentinel, "gr_link_open changed its output on failure", text);
        check(!(seed_ok && uri.param_count == 1 && !uri.path[0]), "a good seed alone was refused", text);
        return 0;
    }
    if (seed) {
        char desc[128];
        gr_link_describe(link, desc, sizeof desc);
        const char *p = strstr(desc, "seed=");
        check(p && strtoull(p + 5, NULL, 10) == want, "the link runs with another seed than the URI's", text);
    }
    gr_link_close(link);
    return 0;
}
