#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""board_report: what an ECP5 board build reached, from nextpnr's --report JSON and log.

  board_report.py --board B --part P --report report.json --log nextpnr.log
                  [--stat synth.stat] [--seconds SYNTH,PNR,PACK] [--bit FILE]
  (--netlist BOARD.json --top TOP adds LUT4 and FF per instance of the flattened netlist;
   --ioregs REGS,PINS --iojson BOARD.json --top TOP checks the I/O registers, below)

Prints every clock's Fmax against its constraint (MET / MISSED), the utilisation of LUT4, FF,
block RAM (DP16KD) and DSP (MULT18X18D) as a share of the part, the build's seconds and the
critical path's two ends. Exit 0 when every clock meets its constraint, 3 when one misses
(build.sh passes that on).
--ioregs REGS,PINS: the top asks for REGS flip-flops in the pins' I/O cells (syn_useioff, the
PHY's link_phy_ioreg instances) on PINS pins. Checked: the synthesized netlist has exactly REGS
such flip-flops (an attribute lost in synthesis would leave one in the fabric without a word
from nextpnr), and nextpnr's report uses exactly PINS IOLOGIC cells (nextpnr stops with an
error when it cannot put a syn_useioff flip-flop in its pin's IOLOGIC). Exit 4 when either
differs, whatever the clocks did.
"""
import argparse
import json
import re
import sys


def by_instance(netlist, top, depth):
    """LUT4 and FF of the flattened netlist per instance path (depth levels below the top),
    attributed by the hierarchical name of the net each cell drives: the synthesized design's
    area by block, without a second synthesis."""
    m = json.load(open(netlist))["modules"][top]
    name_of = {}
    for n, v in m["netnames"].items():
        if v.get("hide_name", 0):
            continue
        for b in v["bits"]:
            if isinstance(b, int):
                name_of.setdefault(b, n)
    rows, total = {}, {"LUT4": 0, "FF": 0}
    for c in m["cells"].values():
        kind = {"LUT4": "LUT4", "TRELLIS_FF": "FF"}.get(c["type"])
        if not kind:
            continue
        out = c["connections"].get("Z" if kind == "LUT4" else "Q", [None])[0]
        path = name_of.get(out, "").split(".")[:-1]
        key = ".".join(path[:depth]) or "(top)"
        rows.setdefault(key, {"LUT4": 0, "FF": 0})[kind] += 1
        total[kind] += 1
    print(f"  area by instance (LUT4 / FF by the name of the net each drives, {depth} levels):")
    for key, v in sorted(rows.items(), key=lambda kv: -kv[1]["LUT4"])[:12]:
        print(f"    {key:38} LUT4 {v['LUT4']:6} ({100.0 * v['LUT4'] / max(total['LUT4'], 1):4.1f}%)  FF {v['FF']:6}")


def ioff_count(netlist, top):
    """syn_useioff flip-flops under the top, through the instances of modules synthesis kept."""
    mods = json.load(open(netlist))["modules"]
    memo = {}

    def count(name):
        if name not in memo:
            memo[name] = 0
            n = 0
            for c in mods[name]["cells"].values():
                if c["type"] == "TRELLIS_FF":
                    # yosys writes a true attribute as a binary number ("000...1")
                    n += str(c.get("attributes", {}).get("syn_useioff", "")).strip("0") != ""
                elif c["type"] in mods and mods[c["type"]]["cells"]:
                    n += count(c["type"])
            memo[name] = n
        return memo[name]
    return count(top)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--board")
    ap.add_argument("--part")
    ap.add_argument("--report")
    ap.add_argument("--log")
    ap.add_argument("--stat")
    ap.add_argument("--seconds", default="")
    ap.add_argument("--bit")
    ap.add_argument("--netlist", help="yosys JSON netlist: area by instance")
    ap.add_argument("--top")
    ap.add_argument("--ioregs", help="REGS,PINS: flip-flops the top puts in I/O cells, on how many pins")
    ap.add_argument("--iojson", help="yosys JSON netlist for --ioregs (default: --netlist)")
    a = ap.parse_args()
    r = json.load(open(a.report))
    use = r.get("utilization", {})

    def share(kind, label):
        u = use.get(kind, {})
        used, avail = u.get("used", 0), u.get("available", 0)
        pct = f"{100.0 * used / avail:.1f}%" if avail else "-"
        return f"{label} {used}/{avail} ({pct})"

    print(f"{a.board} ({a.part}): " + ", ".join([
        share("TRELLIS_COMB", "LUT4"), share("TRELLIS_FF", "FF"),
        share("DP16KD", "DP16KD"), share("MULT18X18D", "MULT18X18D")]))
    secs = [s for s in a.seconds.split(",") if s]
    if len(secs) == 3:
        synth = f"{secs[0]} s" if secs[0] != "0" else "reused"
        print(f"  build: synth_ecp5 {synth}, nextpnr {secs[1]} s, ecppack {secs[2]} s")

    # Every clock: nextpnr's Fmax and the constraint it was given (from the .lpf, or derived
    # through a PLL from its input's).
    missed = []
    fmax = r.get("fmax", {})
    if not fmax:
        print("  no clock found in the report (is the top's clock constrained?)")
        missed.append("(none)")
    for clk in sorted(fmax):
        v = fmax[clk]
        got, want = v.get("achieved", 0.0), v.get("constraint", 0.0)
        ok = got >= want
        verdict = "MET" if ok else "MISSED"
        if not ok:
            missed.append(clk)
        print(f"  clock {clk}: Fmax {got:.2f} MHz, constraint {want:.2f} MHz: {verdict}")

    # The critical path's two ends per clock, from the last (post-route) report in the log.
    paths, cur = {}, None
    for line in (open(a.log).read().splitlines() if a.log else []):
        m = re.match(r"Info: Critical path report for clock '([^']*)'", line)
        if m:
            cur = m.group(1)
            paths[cur] = []
        elif cur and re.match(r"Info: [\d.]+ ns logic", line):
            cur = None
        elif cur and ("Source " in line or "Sink " in line):
            paths[cur].append(line.split("Source ", 1)[-1].split("Sink ", 1)[-1].strip())
    for clk, ends in sorted(paths.items()):
        if ends:
            print(f"  critical path of {clk}: {ends[0]}")
            print(f"      to {ends[-1]}")
    if a.netlist and a.top:
        by_instance(a.netlist, a.top, 3)
    io_bad = False
    if a.ioregs:
        want_regs, want_pins = (int(x) for x in a.ioregs.split(","))
        regs = ioff_count(a.iojson or a.netlist, a.top)
        pins = use.get("IOLOGIC", {}).get("used", 0) + use.get("SIOLOGIC", {}).get("used", 0)
        io_bad = regs != want_regs or pins != want_pins
        print(f"  I/O registers: {regs} flip-flops marked for the I/O cells (want {want_regs}), "
              f"{pins} IOLOGIC cells used (want {want_pins}): "
              + ("NOT AS EXPECTED" if io_bad else "all in their pins' I/O cells"))
    if a.bit:
        if missed:
            print(f"  bitstream {a.bit}: written, but TIMING NOT MET ({', '.join(missed)}): "
                  "not safe to run at the constrained clock")
        else:
            print(f"  bitstream {a.bit}: timing met")
    return 4 if io_bad else 3 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
