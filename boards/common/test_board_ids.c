/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_board_ids: the board table gpuctl's `info` decodes ID_BUILD.BOARD with, and its date
 * format for ID_DATE (host/tools/gpuctl_build.h), against boards/board_ids.def as the build
 * scripts read it. TAP. Usage: test_board_ids PATH/TO/boards
 * (the simulation build has BoardId 0 and BuildDate 0, so these decodes are tested here).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../host/tools/gpuctl_build.h"

static int n, fails;

static void ok(int cond, const char *what)
{
    n++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n, what);
    if (!cond)
        fails++;
}

static int board_is(uint8_t id, const char *want)
{
    const char *name, *desc;
    gpuctl_board_of(id, &name, &desc);
    if (strcmp(name, want) != 0)
        printf("# board 0x%02x: got %s, wanted %s\n", id, name, want);
    return strcmp(name, want) == 0 && desc && desc[0];
}

static int date_is(uint32_t v, const char *want)
{
    char buf[40];
    gpuctl_date_of(v, buf, sizeof buf);
    if (strcmp(buf, want) != 0)
        printf("# date 0x%08x: got '%s', wanted '%s'\n", v, buf, want);
    return strcmp(buf, want) == 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_board_ids PATH/TO/boards\n");
        return 2;
    }
    char path[512], line[256], msg[300];
    snprintf(path, sizeof path, "%s/board_ids.def", argv[1]);
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("Bail out! cannot open %s\n", path);
        return 1;
    }
    printf("1..14\n");
    /* The file as build.sh reads it (lines starting "GR_BOARD("), against the compiled table. */
    unsigned lines = 0, match = 0, folders = 1, seen[256] = {0}, dup = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned id;
        char name[64];
        if (sscanf(line, "GR_BOARD(0x%x, %63[a-z0-9_],", &id, name) != 2)
            continue;
        lines++;
        if (id > 255 || seen[id]++)
            dup++;
        for (size_t i = 0; i < GPUCTL_BOARD_COUNT; i++)
            if (gpuctl_boards[i].id == id && strcmp(gpuctl_boards[i].name, name) == 0)
                match++;
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", argv[1], name);
        if (strcmp(name, "sim") != 0 && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))) {
            printf("# %s has no folder %s\n", name, path);
            folders = 0;
        }
    }
    fclose(f);
    snprintf(msg, sizeof msg, "board_ids.def: %u boards, each in gpuctl's table with its id", lines);
    ok(lines == GPUCTL_BOARD_COUNT && match == lines && lines >= 4, msg);
    ok(dup == 0, "no id is given twice");
    ok(folders, "every board but sim has its folder under boards/");
    ok(board_is(0x00, "sim"), "0x00 decodes as sim");
    ok(board_is(0x10, "alveo_u200"), "0x10 decodes as alveo_u200");
    ok(board_is(0x20, "limesdr_mini_v2"), "0x20 decodes as limesdr_mini_v2");
    ok(board_is(0x21, "ulx3s"), "0x21 decodes as ulx3s");
    ok(board_is(0xfe, "unknown"), "an id not in the table decodes as unknown");
    ok(date_is(0, "none"), "ID_DATE 0 reads as no date");
    ok(date_is(0x20261126u, "2026-11-26"), "ID_DATE 0x20261126 reads 2026-11-26");
    ok(date_is(0x19991231u, "1999-12-31"), "ID_DATE 0x19991231 reads 1999-12-31");
    ok(date_is(0x2026112au, "0x2026112a (not a date)"), "a digit above 9 is not a date");
    ok(date_is(0x20261301u, "0x20261301 (not a date)"), "month 13 is not a date");
    ok(date_is(0x20260100u, "0x20260100 (not a date)"), "day 0 is not a date");
    return fails != 0;
}
