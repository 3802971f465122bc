#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# boards/common/hw_check.sh: the hardware checks of a connected board running a gpuref bitstream
# (boards/<board>/check.sh calls it with the board's device URI and name).
#   boards/common/hw_check.sh BOARD URI
# Runs from the checkout's root with build/bin/gpuctl (make gpuctl), or $GPUCTL. Steps, as TAP:
#   1. the board is there (usb://ft601: an FT601 on USB, 0403:601f; uart://PATH: PATH is a
#      character device), else it refuses (exit 2) before sending anything; sim:// and
#      simd://SOCKET (BOARD sim) run the same checks on the simulation, which is how make
#      test-boards keeps this script honest;
#   2. gpuctl info answers, from a build for BOARD (ID_BUILD.BOARD, boards/board_ids.def), and
#      shows the build's stamp and date;
#   3. gpuctl conformance: every register of the map;
#   4. the DDI path end to end: two allocations, a FILL, a COPY through the DMA engine, the copy
#      read back through the engine and compared with the fill's pattern;
#   5. the same copy read back through BAR1 (--cpu) on a CPU-visible allocation;
#   6. the DDI smoke test of the simulated boards' suite (tb/boards/test_board_smoke: allocate,
#      FILL, COPY, read back, preempt and cancel, a TDR), sized for the boards' VRAM: make
#      builds it (or $BOARD_SMOKE names it); a missing one fails the step.
# Exit 0 when every step passes, 1 when one fails, 2 when no board is found.
set -u
cd "$(dirname "$0")/../.."
BOARD=${1:?usage: hw_check.sh BOARD URI}
URI=${2:?usage: hw_check.sh BOARD URI}
GPUCTL=${GPUCTL:-build/bin/gpuctl}
BOARD_SMOKE=${BOARD_SMOKE:-build/boards-sim/test_board_smoke}
if [ ! -x "$GPUCTL" ]; then
    echo "hw_check: no $GPUCTL: run 'make gpuctl' first (or set GPUCTL)" >&2
    exit 2
fi

n=0
fails=0
log=$(mktemp)
info=$(mktemp)
trap 'rm -f "$log" "$info"' EXIT
step() {  # step NAME CMD...: runs CMD into $log, one TAP line
    local name=$1
    shift
    n=$((n + 1))
    if "$@" > "$log" 2>&1; then
        echo "ok $n - $name"
        return 0
    fi
    echo "not ok $n - $name"
    sed 's/^/# /' "$log" | tail -15
    fails=$((fails + 1))
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
echo "# $BOARD on $URI, gpuctl $GPUCTL"

# 2. Who answers: a gpuref build for this board?
if ! "$GPUCTL" -d "$URI" info > "$info" 2>&1; then
    sed 's/^/# /' "$info" | tail -10
    echo "hw_check: $URI does not answer gpuctl info: is the bitstream loaded (boards/README.md)?" >&2
    exit 2
fi
sed 's/^/# /' "$info"
echo "1..6"
n=1
echo "ok 1 - a device answers on $URI (gpuctl info)"
step "the device is a gpuref build for $BOARD (ID_BUILD.BOARD)" \
    grep -Eq "^build +board 0x[0-9a-f]{2} $BOARD " "$info"

# 3. The register map.
step "gpuctl conformance" "$GPUCTL" -d "$URI" conformance

# 4. Allocate, fill, copy through the engine, read the copy back through the engine: the 64
# bytes read must be the pattern 16 times (gpuctl prints their CRC-32).
pat=0x5a17c3e9
crc=$(python3 -c "import zlib; print('0x%08x' % zlib.crc32(($pat).to_bytes(4, 'little') * 16))")
step "alloc, FILL $pat, COPY, read back through the DMA engine (crc32 $crc)" bash -c '
    out=$("$0" -d "$1" alloc 64K alloc 64K fill @1 "$2" copy @1 @2 read @2 0 64) || exit 1
    echo "$out"
    echo "$out" | grep -q "crc32 $3\$" || { echo "the copy does not hold the pattern $2"; exit 1; }' \
    "$GPUCTL" "$URI" "$pat" "$crc"

# 5. The same through BAR1 on a CPU-visible allocation.
step "alloc --cpu-visible, FILL $pat, read back through BAR1 (crc32 $crc)" bash -c '
    out=$("$0" -d "$1" alloc 64K --cpu-visible fill @1 "$2" read @1 0 64 --cpu) || exit 1
    echo "$out"
    echo "$out" | grep -q "crc32 $3\$" || { echo "BAR1 does not show the pattern $2"; exit 1; }' \
    "$GPUCTL" "$URI" "$pat" "$crc"

# 6. The DDI smoke test, as the simulated boards run it.
if [ -x "$BOARD_SMOKE" ]; then
    step "the DDI smoke test ($BOARD_SMOKE)" "$BOARD_SMOKE" "$URI"
else
    n=$((n + 1))
    echo "not ok $n - the DDI smoke test: no $BOARD_SMOKE (make builds it)"
    fails=$((fails + 1))
fi

[ "$fails" = 0 ] && echo "# $BOARD: every check passed" || echo "# $BOARD: $fails check(s) failed"
[ "$fails" = 0 ]
