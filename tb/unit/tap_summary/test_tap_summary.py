#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""test_tap_summary: tb/tap_summary.py, run as `make test` runs it, on the TAP files in fixtures/.

Each check runs the script in a process of its own (the environment decides CI), and reads its
exit status, its closing line and the suite's line. TAP; no test name holds a '#' (it would
start a directive).
Usage: test_tap_summary.py
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "tap_summary.py")
FIX = os.path.join(HERE, "fixtures")
CLOSING = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")

results = []


def run(*names, ci=False):
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    paths = [os.path.join(FIX, n + ".tap") for n in names]
    p = subprocess.run([sys.executable, SCRIPT, *paths], env=env, capture_output=True, text=True)
    lines = p.stdout.splitlines()
    m = CLOSING.match(lines[-1]) if lines else None
    counts = tuple(int(x) for x in m.groups()) if m else None
    return p.returncode, counts, p.stdout


def check(name, cond, out=""):
    results.append(cond)
    print(f"{'ok' if cond else 'not ok'} {len(results)} - {name}")
    if not cond:
        for line in out.splitlines():
            print(f"#   {line}")


rc, c, out = run("pass")
check("3 passes: exit 0, closing line alone on the last line: 3 passed, 0 failed, 0 skipped",
      rc == 0 and c == (3, 0, 0), out)
check("... a description that says 'skip' is no skip", c == (3, 0, 0), out)
rc, c, out = run("skip")
check("a SKIP directive, in any case, is skipped, not passed: 1 passed, 0 failed, 2 skipped",
      rc == 0 and c == (1, 0, 2), out)
rc, c, out = run("cmocka_skip")
check("cmocka's skip (not ok N, SKIP directive) is skipped, not failed: 2 passed, 0 failed, 1 skipped",
      rc == 0 and c == (2, 0, 1), out)
rc, c, out = run("plan_skip")
check("a plan of 1..0 with a SKIP directive is one skipped test", rc == 0 and c == (0, 0, 1), out)
rc, c, out = run("short_plan")
check("a plan of 3 with 2 tests run fails: exit 1, one failure", rc == 1 and c == (2, 1, 0), out)
check("... the suite's line says why", "planned 3 tests, ran 2" in out, out)
rc, c, out = run("crash")
check("a non-zero exit with every test passed fails", rc == 1 and c == (2, 1, 0)
      and "exited 139 with no failing test" in out, out)
rc, c, out = run("no_plan")
check("no plan fails", rc == 1 and c == (2, 1, 0) and "no TAP plan" in out, out)
rc, c, out = run("bail")
check("'Bail out!' fails", rc == 1 and c == (1, 1, 0) and "the model did not start" in out, out)
rc, c, out = run("fail")
check("a failing test fails, its skip stays a skip: 1 passed, 1 failed, 1 skipped",
      rc == 1 and c == (1, 1, 1), out)
rc, c, out = run("pass", "skip", "cmocka_skip", "short_plan")
check("several suites add up: 8 passed, 1 failed, 3 skipped", rc == 1 and c == (8, 1, 3), out)
rc, c, out = run("skip", ci=True)
check("CI=true: each skip is a failure: 1 passed, 2 failed, 0 skipped, exit 1",
      rc == 1 and c == (1, 2, 0), out)
check("... named in the suite's line",
      "skipped under CI=true: ok 2 - a board # SKIP no board in this build" in out, out)
rc, c, out = run("cmocka_skip", "plan_skip", ci=True)
check("CI=true: cmocka's skip and a skipped plan fail too", rc == 1 and c == (2, 2, 0), out)
rc, c, out = run("pass", ci=True)
check("CI=true with no skip passes", rc == 0 and c == (3, 0, 0), out)
rc, c, out = run()
check("no TAP file at all fails", rc == 1 and c == (0, 1, 0), out)
p = subprocess.run([sys.executable, SCRIPT, os.path.join(FIX, "absent.tap")], capture_output=True,
                   text=True)
check("a TAP file that is not there fails", p.returncode == 1
      and p.stdout.splitlines()[-1] == "0 passed, 1 failed, 0 skipped", p.stdout)
print(f"1..{len(results)}")
sys.exit(0 if all(results) else 1)
