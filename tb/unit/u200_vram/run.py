#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Builds tb_u200_vram (boards/common/vram_ram.v at 64 KiB) under Icarus through cocotb's runner,
once for each RamStyle ("ultra", the Alveo U200's, and "block", the LimeSDR's), runs
test_u200_vram.py on each and prints TAP: one line per check, and a failed line for a style whose
test did not finish. Usage: run.py BUILD_DIR [--seed N] (GR_TEST_SEED=N also replays a seed)."""
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
runner = get_runner("icarus")
items = []   # (ok, name)
for style in ("ultra", "block"):
    sbuild = os.path.join(build, style)
    checks = os.path.join(sbuild, "checks.json")
    if os.path.exists(checks):
        os.remove(checks)
    runner.build(verilog_sources=[os.path.join(root, "boards", "common", "vram_ram.v"),
                                  os.path.join(here, "tb_u200_vram.sv")],
                 includes=[os.path.join(root, "rtl", "common")],
                 parameters={"RamStyle": f'"{style}"'},
                 hdl_toplevel="tb_u200_vram", build_dir=sbuild, always=True,
                 build_args=["-g2012"], timescale=("1ns", "1ps"),
                 log_file=os.path.join(sbuild, "build.log"))
    env = {"U200_VRAM_CHECKS": checks, "RANDOM_SEED": str(seed), "COCOTB_REDUCED_LOG_FMT": "1"}
    os.environ.update(env)
    runner.test(test_module="test_u200_vram", hdl_toplevel="tb_u200_vram", build_dir=sbuild,
                test_dir=here, seed=seed, extra_env=env, log_file=os.path.join(sbuild, "sim.log"),
                results_xml=os.path.join(sbuild, "results.xml"))
    if os.path.exists(checks):
        items += [(ok, f"{style}: {name}") for ok, name in json.load(open(checks))]
    failed_run = False
    try:
        for tc in ET.parse(os.path.join(sbuild, "results.xml")).iter("testcase"):
            if tc.find("failure") is not None or tc.find("error") is not None:
                failed_run = True
    except (OSError, ET.ParseError):
        failed_run = True
    items.append((not failed_run, f"{style}: the cocotb test ran to its end "
                  f"(log: {os.path.relpath(os.path.join(sbuild, 'sim.log'), root)})"))
print(f"1..{len(items)}")
print(f"# seed={seed}")
for n, (ok, name) in enumerate(items, 1):
    print(f"{'ok' if ok else 'not ok'} {n} - {name}")
sys.exit(0 if all(ok for ok, _ in items) else 1)
