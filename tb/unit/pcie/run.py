#!/usr/bin/env python3
"""Builds tb_pcie_shell (pcie_shell + gpu_core) under Icarus through cocotb's runner and runs
test_pcie_shell.py (or --module test_pcie_driver); prints TAP: one line per check the test recorded, and a failed line if the
test did not finish. Usage: run.py BUILD_DIR [--seed N] [--sim icarus|verilator] [--module NAME] [--extra ok|"not ok" NAME]: --extra adds one more TAP line
(make test-pcie puts the shell's lint result there)."""
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET

from cocotb.runner import get_runner

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", "..", ".."))
build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else
                        os.path.join(root, "build", "unit", "pcie"))
seed = None
if "--seed" in sys.argv:
    seed = int(sys.argv[sys.argv.index("--seed") + 1])
elif os.environ.get("GR_TEST_SEED"):
    seed = int(os.environ["GR_TEST_SEED"])
else:
    seed = int.from_bytes(os.urandom(4), "little") & 0x7fffffff

srcs = ([os.path.join(root, "rtl", "gpu_core.v")] + sorted(glob.glob(os.path.join(root, "rtl", "*", "*.v"))) +
        sorted(glob.glob(os.path.join(root, "bridge", "rtl", "pcie", "*.v"))) +
        [os.path.join(here, "tb_pcie_shell.sv")])
os.makedirs(build, exist_ok=True)
checks = os.path.join(build, "checks.json")
if os.path.exists(checks):
    os.remove(checks)
sim = sys.argv[sys.argv.index("--sim") + 1] if "--sim" in sys.argv else "icarus"
module = sys.argv[sys.argv.index("--module") + 1] if "--module" in sys.argv else "test_pcie_shell"
runner = get_runner(sim)
runner.build(verilog_sources=srcs, includes=[os.path.join(root, "rtl", "common")],
             hdl_toplevel="tb_pcie_shell", build_dir=build, always=True,
             build_args=["-g2012"] if sim == "icarus" else ["-Wno-fatal", "-j", "2"], timescale=("1ns", "1ps"), log_file=os.path.join(build, "build.log"))
env = {"PCIE_TAP_CHECKS": checks, "RANDOM_SEED": str(seed), "COCOTB_REDUCED_LOG_FMT": "1",
       "COCOTB_RESOLVE_X": "ZEROS"}
os.environ.update(env)
runner.test(test_module=module, hdl_toplevel="tb_pcie_shell",
                      build_dir=build, test_dir=here, seed=seed, extra_env=env,
                      log_file=os.path.join(build, "sim.log"), results_xml=os.path.join(build, "results.xml"))
items = json.load(open(checks)) if os.path.exists(checks) else []
failed_run = False
try:
    tree = ET.parse(os.path.join(build, "results.xml"))
    for tc in tree.iter("testcase"):
        if tc.find("failure") is not None or tc.find("error") is not None:
            failed_run = True
except (OSError, ET.ParseError):
    failed_run = True
extra = None
if "--extra" in sys.argv:
    i = sys.argv.index("--extra")
    extra = (sys.argv[i + 1] == "ok", sys.argv[i + 2])
    items.append([extra[0], extra[1]])
print(f"1..{len(items) + 1}")
print(f"# seed={seed}")
for n, (ok, name) in enumerate(items, 1):
    print(f"{'ok' if ok else 'not ok'} {n} - {name}")
print(f"{'not ok' if failed_run else 'ok'} {len(items) + 1} - the cocotb test ran to its end "
      f"(log: {os.path.relpath(os.path.join(build, 'sim.log'), root)})")
sys.exit(1 if failed_run or not all(ok for ok, _ in items) else 0)
