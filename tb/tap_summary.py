#!/usr/bin/env python3
"""Sums TAP files into gpuref's closing line, "N passed, N failed".

Each file is one suite's TAP output with a "# exit N" line and a "# wall seconds N" line (the
suite's run time, printed beside it to keep an eye on the CI budget) written by the Makefile. A suite
also fails (one failure counted) when it exited non-zero without a failing test line, printed
no plan, or ran fewer tests than its plan said: a crash must never pass quietly.
"""
import re
import sys


def summarize(path):
    passed = failed = 0
    plan = None
    exit_code = None
    seconds = None
    problems = []
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError as e:
        return 0, 1, [f"{path}: {e.strerror}"], None
    for line in lines:
        if re.match(r"^ok\b", line):
            passed += 1
        elif re.match(r"^not ok\b", line):
            failed += 1
        elif m := re.match(r"^1\.\.(\d+)", line):
            plan = (plan or 0) + int(m.group(1))  # a suite may run several TAP producers
        elif m := re.match(r"^# exit (\d+)", line):
            exit_code = int(m.group(1))
        elif m := re.match(r"^# wall seconds (\d+)", line):
            seconds = int(m.group(1))
        elif line.startswith("Bail out!"):
            problems.append(line)
    if plan is None:
        problems.append("no TAP plan")
    elif plan != passed + failed:
        problems.append(f"planned {plan} tests, ran {passed + failed}")
    if exit_code not in (0, None) and failed == 0:
        problems.append(f"exited {exit_code} with no failing test")
    if problems:
        failed += 1
    return passed, failed, problems, seconds


def main(paths):
    total_p = total_f = total_s = 0
    for path in paths:
        p, f, problems, seconds = summarize(path)
        total_p += p
        total_f += f
        total_s += seconds or 0
        name = path.rsplit("/", 1)[-1].removesuffix(".tap")
        state = "ok" if f == 0 else "FAILED"
        took = f"{seconds:5d} s" if seconds is not None else "    - s"
        print(f"  {name:<34} {p:4d} passed {f:4d} failed {took}  {state}"
              + (f"  ({'; '.join(problems)})" if problems else ""))
    print(f"{total_p} passed, {total_f} failed ({total_s} s in the suites)")
    return 1 if total_f or not paths else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
