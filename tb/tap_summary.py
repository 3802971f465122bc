#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Sums TAP files into gpuref's closing line, "N passed, N failed, N skipped".

Each file is one suite's TAP output with a "# exit N" line and a "# wall seconds N" line (the
suite's run time, printed beside it to keep an eye on the CI budget) written by the Makefile.

A test line with a SKIP directive ("ok 3 - x # SKIP why", or cmocka's "not ok 3 # SKIP x") is
counted as skipped, never as passed or failed, and a plan of "1..0 # SKIP why" is one skipped
test. A suite also fails (one failure counted) when it exited non-zero without a failing test
line, printed no plan, or ran a different number of tests than its plan said: a crash must never
pass quietly.

Under CI=true every suite is expected to run every one of its tests (each skip left in the suites
is a configuration CI does not use: a build without GR_DEBUG, a board left out by hand), so
there a skip is a failure, named in the suite's line.

Usage: tap_summary.py SUITE.tap... (exit 1 when anything failed or no file was given).
"""
import os
import re
import sys

TEST = re.compile(r"^(not )?ok\b")
# The TAP directive: "#", optional blanks, SKIP (any case, SKIPPED too), then a blank or the end.
SKIP = re.compile(r"#\s*skip\S*(\s|$)", re.IGNORECASE)
PLAN = re.compile(r"^1\.\.(\d+)")


def summarize(path, ci=False):
    """Returns passed, failed, skipped, the problems found (strings) and the wall seconds."""
    passed = failed = skipped = 0
    plan = None
    exit_code = None
    seconds = None
    problems = []
    ci_skips = []
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError as e:
        return 0, 1, 0, [f"{path}: {e.strerror}"], None
    for line in lines:
        if m := TEST.match(line):
            if SKIP.search(line):
                skipped += 1
                ci_skips.append(line)
            elif m.group(1):
                failed += 1
            else:
                passed += 1
        elif m := PLAN.match(line):
            plan = (plan or 0) + int(m.group(1))  # a suite may run several TAP producers
            if int(m.group(1)) == 0 and SKIP.search(line):
                skipped += 1  # the whole producer skipped: one skip, not nothing
                plan += 1
                ci_skips.append(line)
        elif m := re.match(r"^# exit (\d+)", line):
            exit_code = int(m.group(1))
        elif m := re.match(r"^# wall seconds (\d+)", line):
            seconds = int(m.group(1))
        elif line.startswith("Bail out!"):
            problems.append(line)
    ran = passed + failed + skipped
    if plan is None:
        problems.append("no TAP plan")
    elif plan != ran:
        problems.append(f"planned {plan} tests, ran {ran}")
    if exit_code not in (0, None) and failed == 0:
        problems.append(f"exited {exit_code} with no failing test")
    if problems:
        failed += 1
    if ci and ci_skips:
        # CI runs every test: each skip there counts as a failure, and says which it was.
        failed += len(ci_skips)
        skipped -= len(ci_skips)
        problems += [f"skipped under CI=true: {s}" for s in ci_skips]
    return passed, failed, skipped, problems, seconds


def main(paths, ci=None):
    if ci is None:
        ci = os.environ.get("CI", "").lower() == "true"
    total_p = total_f = total_k = total_s = 0
    for path in paths:
        p, f, k, problems, seconds = summarize(path, ci)
        total_p += p
        total_f += f
        total_k += k
        total_s += seconds or 0
        name = path.rsplit("/", 1)[-1].removesuffix(".tap")
        state = "ok" if f == 0 else "FAILED"
        took = f"{seconds:5d} s" if seconds is not None else "    - s"
        print(f"  {name:<34} {p:4d} passed {f:4d} failed {k:3d} skipped {took}  {state}"
              + (f"  ({'; '.join(problems)})" if problems else ""))
    if not paths:
        print("no TAP files: nothing ran")
        total_f += 1
    print(f"({total_s} s in the suites{', CI=true: a skip fails' if ci else ''})")
    print(f"{total_p} passed, {total_f} failed, {total_k} skipped")
    return 1 if total_f else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
