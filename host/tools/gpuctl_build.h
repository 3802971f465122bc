/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpuctl_build.h: what gpuctl's `info` makes of ID_BUILD and ID_DATE: the board's name from
 * boards/board_ids.def (the one table of board ids, which the board build scripts read too)
 * and the build's date. Header-only, so that boards/common/test_board_ids.c tests the very
 * code gpuctl runs.
 */
#ifndef GPUCTL_BUILD_H
#define GPUCTL_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** One board of boards/board_ids.def. */
typedef struct {
    uint8_t id;       /**< ID_BUILD.BOARD */
    const char *name; /**< its folder under boards/ */
    const char *desc; /**< what it is, for people */
} gpuctl_board_t;

/** Every board gpuref is built for, by ID_BUILD.BOARD. */
static const gpuctl_board_t gpuctl_boards[] = {
#define GR_BOARD(id, name, desc) {id, #name, desc},
#include "../../boards/board_ids.def"
#undef GR_BOARD
};

/** Number of entries of gpuctl_boards. */
#define GPUCTL_BOARD_COUNT (sizeof gpuctl_boards / sizeof gpuctl_boards[0])

/**
 * The board's folder name and description from its ID_BUILD.BOARD; "unknown" for an id this
 * gpuctl does not know (a board added after it was built).
 */
static inline void gpuctl_board_of(uint8_t id, const char **name, const char **desc)
{
    *name = "unknown";
    *desc = "an id this gpuctl does not know";
    for (size_t i = 0; i < GPUCTL_BOARD_COUNT; i++)
        if (gpuctl_boards[i].id == id) {
            *name = gpuctl_boards[i].name;
            *desc = gpuctl_boards[i].desc;
        }
}

/**
 * ID_DATE (BCD YYYYMMDD) as "2026-11-26" into buf; "none" for 0 (a build that gave no date)
 * and "0x........ (not a date)" for a value that is not eight decimal digits of a month 1..12
 * and a day 1..31 (a device that fills the register otherwise).
 */
static inline void gpuctl_date_of(uint32_t v, char *buf, size_t len)
{
    unsigned d[8];
    if (v == 0) {
        snprintf(buf, len, "none");
        return;
    }
    for (int i = 0; i < 8; i++) {
        d[i] = (v >> (28 - 4 * i)) & 0xfu;
        if (d[i] > 9) {
            snprintf(buf, len, "0x%08x (not a date)", v);
            return;
        }
    }
    unsigned month = d[4] * 10 + d[5], day = d[6] * 10 + d[7];
    if (month < 1 || month > 12 || day < 1 || day > 31) {
        snprintf(buf, len, "0x%08x (not a date)", v);
        return;
    }
    snprintf(buf, len, "%u%u%u%u-%02u-%02u", d[0], d[1], d[2], d[3], month, day);
}

#endif
