#!/usr/bin/env python3
"""board_report: what an ECP5 board build reached, from nextpnr's --report JSON and log.

  board_report.py --board B --part P --report report.json --log nextpnr.log
                  [--stat synth.stat] [--seconds SYNTH,PNR,PACK] [--bit FILE]
  board_report.py --area area.stat      cells per module of a hierarchical synthesis

Prints every clock's Fmax against its constraint (MET / MISSED), the utilisation of LUT4, FF,
block RAM (DP16KD) and DSP (MULT18X18D) as a share of the part, the build's seconds and the
critical path's two ends. Exit 0 when every clock meets its constraint, 3 when one misses
(build.sh passes that on).
"""
import argparse
import json
import re
import sys


def area(path):
    """The cells of each module in a `stat` of a hierarchy that was not flattened, biggest
    first, by LUT4 (and FF)."""
    mods, cur = {}, None
    for line in open(path):
        m = re.match(r"=== (\S+) ===", line.strip())
        if m:
            cur = m.group(1)
            mods[cur] = {}
            continue
        m = re.match(r"\s+(\d+)\s+(?:\S+\s+)?\$?(\w+)\s*$", line) or re.match(r"\s+(\w+)\s+(\d+)\s*$", line)
        if cur and m:
            a, b = m.groups()
            n, cell = (int(a), b) if a.isdigit() else (int(b), a)
            mods[cur][cell] = mods[cur].get(cell, 0) + n
    rows = []
    for name, cells in mods.items():
        lut = cells.get("LUT4", 0)
        ff = sum(v for k, v in cells.items() if k.startswith("TRELLIS_FF"))
        ram = cells.get("DP16KD", 0)
        ccu = cells.get("CCU2C", 0)
        rows.append((lut, ff, ram, ccu, name))
    rows.sort(reverse=True)
    print("module (own cells, not its submodules')        LUT4      FF  DP16KD  CCU2C")
    for lut, ff, ram, ccu, name in rows[:15]:
        print(f"  {name[:44]:44} {lut:7} {ff:7} {ram:7} {ccu:6}")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--board")
    ap.add_argument("--part")
    ap.add_argument("--report")
    ap.add_argument("--log")
    ap.add_argument("--stat")
    ap.add_argument("--seconds", default="")
    ap.add_argument("--bit")
    ap.add_argument("--area")
    ap.add_argument("--floor", type=float, default=0.0,
                    help="MHz every clock must reach instead of its constraint (a check that "
                         "holds today where the constraint is not met yet)")
    a = ap.parse_args()
    if a.area:
        return area(a.area)

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
        if a.floor:
            ok = got >= min(a.floor, want)
            verdict += f" (required here: {min(a.floor, want):.2f} MHz, {'reached' if ok else 'NOT reached'})"
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
    if a.bit:
        if missed:
            print(f"  bitstream {a.bit}: written, but TIMING NOT MET ({', '.join(missed)}): "
                  "not safe to run at the constrained clock")
        else:
            print(f"  bitstream {a.bit}: timing met")
    return 3 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
