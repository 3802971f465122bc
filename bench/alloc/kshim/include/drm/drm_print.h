/* SPDX-License-Identifier: Apache-2.0 */
/* drm/drm_print.h for user space: a drm_printer is a printf callback. */
#ifndef KSHIM_DRM_PRINT_H
#define KSHIM_DRM_PRINT_H
#include <stdarg.h>
#include <linux/kshim.h>

struct drm_printer {
    void (*printfn)(struct drm_printer *p, const char *fmt, va_list args);
    void *arg;
};

static inline __printf(2, 3) void drm_printf(struct drm_printer *p, const char *f, ...)
{
    va_list args;
    va_start(args, f);
    if (p && p->printfn)
        p->printfn(p, f, args);
    va_end(args);
}

#define DRM_ERROR(fmt, ...) fprintf(stderr, "drm: " fmt, ##__VA_ARGS__)
#define DRM_DEBUG(fmt, ...)                                                                        \
    do {                                                                                           \
    } while (0)
#endif
