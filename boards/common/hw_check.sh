#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# boards/common/hw_check.sh: the hardware checks of a connected board running a gpuref bitstream
# (boards/<board>/check.sh calls it with the board's device URI and name), and the diff of the
# board's transaction logs against the simulation's (docs/txlog.md).
#   boards/common/hw_check.sh BOARD URI
# Runs from the checkout's root with build/bin/gpuctl (make gpuctl), or $GPUCTL. Steps, as TAP:
#   1. the board is there (usb://ft601: an FT601 on USB, 0403:601f; uart://PATH: PATH is a
#      character device), else it refuses (exit 2) before sending anything; sim:// and
#      simd://SOCKET (BOARD sim) run the same checks on the simulation, which is how make
#      test-boards keeps this script honest (sim://?freshvram=0: VRAM as a board's, which the
#      driver zeroes before use, as the reference's);
#   2. gpuctl info answers, from a build for BOARD (ID_BUILD.BOARD, boards/board_ids.def), and
#      shows the build's stamp and date;
#   3. gpuctl conformance, every register of the map, with ?txlog= (the board's first client
#      after gpuctl info, which only reads), and gpuctl info after it for the link's counters;
#   4. the DDI smoke test without its preemption step (test_board_smoke --no-preempt: where a
#      preemption lands depends on the link's latency), with ?txlog=;
#   5. the DDI path end to end: two allocations (16 KiB each: the LimeSDR's VRAM is 128 KiB, the
#      page tables' included), a FILL, a COPY through the DMA engine, the copy read back through
#      the engine and compared with the fill's pattern;
#   6. the same copy read back through BAR1 (--cpu) on a CPU-visible allocation;
#   7. the whole DDI smoke test (tb/boards/test_board_smoke: allocate, FILL, COPY, read back,
#      preempt and cancel, a TDR), sized for the boards' VRAM: make builds it (or $BOARD_SMOKE
#      names it); a missing one fails the step (and step 4);
#   8. the reference: the runs of steps 3 and 4 on sim:// as this board is built (its VRAM
#      strap; VRAM not fresh, as a board's: freshvram=0), with ?txlog=; the URI is $HW_CHECK_REF
#      when set;
#   9. gpuctl tracediff of the reference's conformance log against the board's: the same content;
#  10. the same for the smoke test's logs.
# Then one report: the board, its build stamp, the link's counters (those of conformance's
# client: they count per client), each step's result and where the logs are. The logs stay in $HW_CHECK_DIR
# (default build/hw_check/BOARD): the first divergence is read there (boards/README.md, "The
# first hour with a new board").
# Exit 0 when every step passes, 1 when one fails, 2 when no board is found.
set -u
cd "$(dirname "$0")/../.."
BOARD=${1:?usage: hw_check.sh BOARD URI}
URI=${2:?usage: hw_check.sh BOARD URI}
GPUCTL=${GPUCTL:-build/bin/gpuctl}
BOARD_SMOKE=${BOARD_SMOKE:-build/boards-sim/test_board_smoke}
DIR=${HW_CHECK_DIR:-build/hw_check/$BOARD}
if [ ! -x "$GPUCTL" ]; then
    echo "hw_check: no $GPUCTL: run 'make gpuctl' first (or set GPUCTL)" >&2
    exit 2
fi
# The reference is sim:// built as the board is: the VRAM strap of its top (what ID_BUILD and
# the link do not make alike, the rest of the build does).
case "$BOARD" in
    limesdr_mini_v2) ref_vram="&vram=128K" ;;
    ulx3s) ref_vram="&vram=32M" ;;
    *) ref_vram= ;;
esac
REF=${HW_CHECK_REF:-sim://?freshvram=0$ref_vram}
# with_param URI KEY=VALUE: the URI with one more parameter
with_param() { case "$1" in *\?*) echo "$1&$2" ;; *) echo "$1?$2" ;; esac; }

n=0
fails=0
names=()
results=()
log=$(mktemp)
info=$(mktemp)
trap 'rm -f "$log" "$info"' EXIT
record() { # record NAME ok|"not ok": one TAP line, kept for the report
    n=$((n + 1))
    names[n]=$1
    results[n]=$2
    echo "$2 $n - $1"
    [ "$2" = ok ] || fails=$((fails + 1))
}
step() {  # step NAME CMD...: runs CMD into $log, one TAP line
    local name=$1
    shift
    if "$@" > "$log" 2>&1; then
        record "$name" ok
        return 0
    fi
    record "$name" "not ok"
    sed 's/^/# /' "$log" | tail -15
    return 1
}

# 1. Is a board there at all? Nothing is sent before this answers.
case "$URI" in
    usb://ft601*)
        if ! command -v lsusb > /dev/null; then
            echo "hw_check: lsusb is missing (Debian: usbutils); cannot look for the FT601" >&2
            exit 2
        fi
        if ! lsusb -d 0403:601f > /dev/null 2>&1; then
            echo "hw_check: no FT601 (USB 0403:601f) found: is the $BOARD plugged in?" >&2
            exit 2
        fi ;;
    uart://*)
        path=${URI#uart://}
        path=${path%%\?*}
        if [ ! -c "$path" ]; then
            echo "hw_check: no serial device $path: is the $BOARD plugged in (its FT231X)?" >&2
            exit 2
        fi ;;
    sim://*) ;;
    simd://*)
        path=${URI#simd://}
        path=${path%%\?*}
        # simd:// alone is the default socket: gpuctl finds it (and says where it looked).
        if [ -n "$path" ] && [ ! -S "$path" ]; then
            echo "hw_check: no gpuref-simd socket $path" >&2
            exit 2
        fi ;;
    *)
        echo "hw_check: $URI: expected usb://ft601, uart://PATH, sim:// or simd://SOCKET" >&2
        exit 2 ;;
esac
if ! mkdir -p "$DIR" || ! rm -f "$DIR"/*.log "$DIR"/*.diff; then
    echo "hw_check: cannot use $DIR for the logs (HW_CHECK_DIR)" >&2
    exit 2
fi
echo "# $BOARD on $URI, gpuctl $GPUCTL, reference $REF, logs in $DIR"

# 2. Who answers: a gpuref build for this board?
if ! "$GPUCTL" -d "$URI" info > "$info" 2>&1; then
    sed 's/^/# /' "$info" | tail -10
    echo "hw_check: $URI does not answer gpuctl info: is the bitstream loaded (boards/README.md)?" >&2
    exit 2
fi
sed 's/^/# /' "$info"
build=$(sed -n 's/^build *//p' "$info")
echo "1..10"
record "a device answers on $URI (gpuctl info)" ok
step "the device is a gpuref build for $BOARD (ID_BUILD.BOARD)" \
    grep -Eq "^build +board 0x[0-9a-f]{2} $BOARD " "$info"

# 3. The register map, logged; the link's counters of this client after it.
step "gpuctl conformance, with txlog= ($DIR/board_conf.log)" \
    "$GPUCTL" -d "$(with_param "$URI" "txlog=$DIR/board_conf.log")" conformance info
cp "$log" "$DIR/board_conf.out"

# 4. The DDI smoke test without preemption, logged.
have_smoke=false
[ -x "$BOARD_SMOKE" ] && have_smoke=true
if $have_smoke; then
    step "the DDI smoke test without preemption, with txlog= ($DIR/board_smoke.log)" \
        "$BOARD_SMOKE" --no-preempt "$(with_param "$URI" "txlog=$DIR/board_smoke.log")"
    cp "$log" "$DIR/board_smoke.out"
else
    record "the DDI smoke test without preemption: no $BOARD_SMOKE (make builds it)" "not ok"
fi

# 5. Allocate, fill, copy through the engine, read the copy back through the engine: the 64
# bytes read must be the pattern 16 times (gpuctl prints their CRC-32).
pat=0x5a17c3e9
crc=$(python3 -c "import zlib; print('0x%08x' % zlib.crc32(($pat).to_bytes(4, 'little') * 16))")
step "alloc, FILL $pat, COPY, read back through the DMA engine (crc32 $crc)" bash -c '
    out=$("$0" -d "$1" alloc 16K alloc 16K fill @1 "$2" copy @1 @2 read @2 0 64) || exit 1
    echo "$out"
    echo "$out" | grep -q "crc32 $3\$" || { echo "the copy does not hold the pattern $2"; exit 1; }' \
    "$GPUCTL" "$URI" "$pat" "$crc"

# 6. The same through BAR1 on a CPU-visible allocation.
step "alloc --cpu-visible, FILL $pat, read back through BAR1 (crc32 $crc)" bash -c '
    out=$("$0" -d "$1" alloc 16K --cpu-visible fill @1 "$2" read @1 0 64 --cpu) || exit 1
    echo "$out"
    echo "$out" | grep -q "crc32 $3\$" || { echo "BAR1 does not show the pattern $2"; exit 1; }' \
    "$GPUCTL" "$URI" "$pat" "$crc"

# 7. The whole DDI smoke test, as the simulated boards run it.
if $have_smoke; then
    step "the DDI smoke test ($BOARD_SMOKE)" "$BOARD_SMOKE" "$URI"
else
    record "the DDI smoke test: no $BOARD_SMOKE (make builds it)" "not ok"
fi

# 8. The reference: the same two runs on sim://, as this board is built.
ref_ok=false
if $have_smoke; then
    step "the reference on $REF: conformance and the smoke test without preemption, with txlog=" bash -c '
        "$0" -d "$1" conformance info || exit 1
        "$3" --no-preempt "$2"' "$GPUCTL" "$(with_param "$REF" "txlog=$DIR/ref_conf.log")" \
        "$(with_param "$REF" "txlog=$DIR/ref_smoke.log")" "$BOARD_SMOKE" && ref_ok=true
else
    record "the reference on $REF: no $BOARD_SMOKE (make builds it)" "not ok"
fi

# 9, 10. The board's logs against the reference's: the same content.
for what in conf smoke; do
    title=$([ $what = conf ] && echo "conformance" || echo "the smoke test")
    if $ref_ok && [ -s "$DIR/board_$what.log" ]; then
        step "gpuctl tracediff: $title on $BOARD has the content of the reference" \
            "$GPUCTL" tracediff "$DIR/ref_$what.log" "$DIR/board_$what.log"
        cp "$log" "$DIR/$what.diff"
    else
        record "gpuctl tracediff: $title: no log to compare (steps 3, 4 and 8 write them)" "not ok"
    fi
done

# The report.
echo "# ---- report: $BOARD on $URI --------------------------------------------"
echo "# build      ${build:-(gpuctl info printed no build line)}"
counters() { # counters FILE: the link's counters gpuctl info printed into it
    [ -f "$1" ] || { echo "(no output)"; return; }
    if grep -q "^link .* is not a framed link" "$1"; then
        echo "not a framed link: no frames, CRCs or replays to count"
    elif grep -q "^  errors" "$1"; then
        sed -n 's/^  \(frames\|errors\|state\|dma\) *//p; s/^ \{12\}//p' "$1" | grep -v "^$" | paste -sd ';' |
            sed 's/;/; /g'
    else
        echo "(none printed)"
    fi
}
echo "# link       conformance's client (1,500 round trips): $(counters "$DIR/board_conf.out")"
for i in $(seq 1 "$n"); do
    printf '# step %-2s   %-6s %s\n' "$i" "${results[i]}" "${names[i]}"
done
for what in conf smoke; do
    [ -s "$DIR/$what.diff" ] || continue
    grep -E "^(first divergence|  [AB] line|  [AB]: |  DDI step|[0-9]+ differences?$|same content)" "$DIR/$what.diff" |
        sed "s/^/# $what: /"
done
echo "# logs       $DIR: board_{conf,smoke}.log, ref_{conf,smoke}.log, {conf,smoke}.diff"
if [ "$fails" = 0 ]; then
    echo "# result     PASS: $BOARD, every one of $n checks"
else
    echo "# result     FAIL: $BOARD, $fails of $n checks failed"
fi
[ "$fails" = 0 ]
