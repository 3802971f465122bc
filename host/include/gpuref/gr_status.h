/* SPDX-License-Identifier: Apache-2.0 */
/* gr_status.h: the status codes every gpuref call returns. */
#ifndef GPUREF_GR_STATUS_H
#define GPUREF_GR_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One list feeds the enum, gr_strerror() and gr_status_name(): X(name, value, message).
 * 0 is success; every error is negative and keeps its value forever (scripts and logs see it).
 */
#define GR_STATUS_LIST(X)                                                                  \
    X(GR_OK, 0, "success")                                                                 \
    X(GR_E_INVALID, -1, "invalid argument")                                                \
    X(GR_E_NO_MEMORY, -2, "out of memory")                                                 \
    X(GR_E_RANGE, -3, "offset or size out of range")                                       \
    X(GR_E_ALIGN, -4, "misaligned offset or size")                                         \
    X(GR_E_BUS, -5, "bus error: the device answered with an error response")               \
    X(GR_E_TIMEOUT, -6, "timed out")                                                       \
    X(GR_E_NO_DEVICE, -7, "no device answers at that address")                             \
    X(GR_E_BAD_URI, -8, "malformed or unknown device URI")                                 \
    X(GR_E_UNSUPPORTED, -9, "not supported by this device or transport")                   \
    X(GR_E_MISMATCH, -10, "device does not match this host build (magic, version or map)") \
    X(GR_E_IO, -11, "transport I/O error")                                                 \
    X(GR_E_NOT_FOUND, -12, "not found (register, field, buffer or mapping)")               \
    X(GR_E_BUSY, -13, "resource busy")                                                     \
    X(GR_E_CANCELLED, -14, "cancelled: the submission will never run")                     \
    X(GR_E_DEVICE_RESET, -15, "lost in a GPU reset (timeout detection and recovery)")     \
    X(GR_E_LINK, -16, "link down: the transaction may or may not have happened")

/*
 * A compile-time check that reads the same in C11 and C++ (a public header may be included from
 * either; C++ before C++23 has no _Static_assert, and C11 spells static_assert only with
 * <assert.h>).
 */
#ifdef __cplusplus
#define GR_STATIC_ASSERT(expr, msg) static_assert(expr, msg)
#else
#define GR_STATIC_ASSERT(expr, msg) _Static_assert(expr, msg)
#endif

/*
 * GR_API marks the calls whose status must be looked at (warn_unused_result). The cleanup calls
 * (gr_*_close, gr_*_destroy, gr_*_free, gr_alloc_unlock) return a status too but carry no mark:
 * GCC ignores a (void) cast for this attribute, and a caller that has nothing to do with a
 * cleanup's failure must be able to say so with (void) under -Werror.
 */
#ifndef GR_API
#define GR_API __attribute__((warn_unused_result))
#endif

typedef enum gr_status {
#define GR_STATUS_ENUM(name, value, msg) name = value,
    GR_STATUS_LIST(GR_STATUS_ENUM)
#undef GR_STATUS_ENUM
} gr_status_t;

/** Human-readable message for a status; never NULL (unknown codes get a generic message). */
const char *gr_strerror(int status);

/** The status's symbolic name ("GR_E_BUS"); "GR_E_UNKNOWN" for a code not in the list. */
const char *gr_status_name(int status);

/**
 * What went wrong in this thread's last failed open, in words: gr_device_open, gr_adapter_open
 * and gr_adapter_open_link record it, with what the transport said (the URI's mistake and the
 * schemes and keys it accepts, a file that cannot be opened with its path and the system's
 * reason, a server that does not answer), and the transports add theirs when a link fails
 * later. A status says which kind of failure; this says which file, key or step.
 * @return never NULL; "no error" when nothing has failed in this thread. Read it right after
 *         the failing call: the next failure replaces it, and a success does not clear it.
 */
const char *gr_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
