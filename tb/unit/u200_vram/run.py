#!/usr/bin/env python3
"""Builds tb_u200_vram (boards/alveo_u200/u200_vram.v at 64 KiB) under Icarus through cocotb's
runner, runs test_u200_vram.py and prints TAP: one line per check, and a failed line if the test
did not finish. Usage: run.py BUILD_DIR [--seed N] (GR_TEST_SEED=N also replays a seed)."""
import json
import os
import sys
import xml.etree.ElementTree as ET

from cocotb.runner import get_runner

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", "..", ".."))
build = os.path.abspath(sys.argv[1])
if "--seed" in sys.argv:
    seed = int(sys.argv[sys.argv.index("--seed") + 1])
elif os.environ.get("GR_TEST_SEED"):
    seed = int(os.environ["GR_TEST_SEED"])
else:
    seed = int.from_bytes(os.urandom(4), "little") & 0x7fffffff
os.makedirs(build, exist_ok=True)
checks = os.path.join(build, "checks.json")
if os.path.exists(checks):
    os.remove(checks)
runner = get_runner("icarus")
runner.build(verilog_sources=[os.path.join(root, "boards", "alveo_u200", "u200_vram.v"),
                              os.path.join(here, "tb_u200_vram.sv")],
             hdl_toplevel="tb_u200_vram", build_dir=build, always=True, build_args=["-g2012"],
             timescale=("1ns", "1ps"), log_file=os.path.join(build, "build.log"))
env = {"U200_VRAM_CHECKS": checks, "RANDOM_SEED": str(seed), "COCOTB_REDUCED_LOG_FMT": "1"}
os.environ.update(env)
runner.test(test_module="test_u200_vram", hdl_toplevel="tb_u200_vram", build_dir=build,
            test_dir=here, seed=seed, extra_env=env, log_file=os.path.join(build, "sim.log"),
            results_xml=os.path.join(build, "results.xml"))
items = json.load(open(checks)) if os.path.exists(checks) else []
failed_run = False
try:
    for tc in ET.parse(os.path.join(build, "results.xml")).iter("testcase"):
        if tc.find("failure") is not None or tc.find("error") is not None:
            failed_run = True
except (OSError, ET.ParseError):
    failed_run = True
print(f"1..{len(items) + 1}")
print(f"# seed={seed}")
for n, (ok, name) in enumerate(items, 1):
    print(f"{'ok' if ok else 'not ok'} {n} - {name}")
print(f"{'not ok' if failed_run else 'ok'} {len(items) + 1} - the cocotb test ran to its end "
      f"(log: {os.path.relpath(os.path.join(build, 'sim.log'), root)})")
sys.exit(1 if failed_run or not all(ok for ok, _ in items) else 0)
