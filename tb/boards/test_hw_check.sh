#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test_hw_check: boards/common/hw_check.sh, the bring-up check of a board, kept honest on the
# simulation: on sim:// (a board and its reference the same simulation), on gpuref-simd's FT601
# board over simd:// (the RTL packet engine, the FT601 PHY and the chip's model: the logs of a
# framed link diffed against sim://'s), and on that board with another VRAM strap, which must
# fail with MC_VRAM_SIZE_LO named in the report; and on the LimeSDR Mini v2's exact top
# (gpuref-simd --board limesdr) as that board, against its own reference (sim:// with the top's
# VRAM strap). A URI that names no board is refused (exit 2) before anything is sent. TAP.
# Usage: test_hw_check.sh GPUREF_SIMD GPUCTL TEST_BOARD_SMOKE [SEED]
set -u
SIMD=${1:?usage: test_hw_check.sh gpuref-simd gpuctl test_board_smoke [seed]}
GPUCTL=${2:?usage: test_hw_check.sh gpuref-simd gpuctl test_board_smoke [seed]}
SMOKE=${3:?usage: test_hw_check.sh gpuref-simd gpuctl test_board_smoke [seed]}
SEED=${4:-${GR_TEST_SEED:-1}}
echo "# seed=$SEED (replay: test_hw_check.sh $SIMD $GPUCTL $SMOKE $SEED)"
. "$(dirname "$0")/../lib/tap.sh"
tap_init hw_check
TAP_TIMEOUT=900 # a hang fails
HW=boards/common/hw_check.sh
SLOW="replay_ms=5000&dead_ms=30000&timeout_ms=60000"
export GPUCTL BOARD_SMOKE=$SMOKE

# hw NAME WANT DIR URI: hw_check.sh sim URI with its logs in DIR; its report in $out
hw() { HW_CHECK_DIR=$3 check "$1" "$2" "$HW" sim "$4"; }

hw "sim://?freshvram=0 (VRAM as a board's): every step passes (exit 0)" 0 "$TAP_DIR/sim" "sim://?freshvram=0"
expect "... the report names the build" "^# build +board 0x00 sim .*stamp 0x[0-9a-f]{6}" "$out"
expect "... says sim:// has no link counters (not framed)" "^# link .*not a framed link" "$out"
expect "... lists every step, the diffs among them" "^# step 10 +ok +gpuctl tracediff: the smoke test" "$out"
expect "... and ends with PASS" "^# result +PASS: sim, every one of 10 checks$" "$out"
truth "... the logs stay in HW_CHECK_DIR" test -s "$TAP_DIR/sim/board_conf.log" -a -s "$TAP_DIR/sim/ref_smoke.log"
expect "... the smoke test's log carries the driver's DDI markers" "^ddi DxgkDdiSubmitCommand fence=[0-9]+$" \
    "$TAP_DIR/sim/board_smoke.log"

# The FT601 board, one fresh server per run of hw_check (a board keeps its registers).
board() { # NAME WANT DIR [gpuref-simd options]
    local name=$1 want=$2 dir=$3
    shift 3
    if ! start_server --socket "$TAP_DIR/ft601.sock" --board ft601 "$@"; then
        bad "gpuref-simd serves the FT601 board ($*)"
        return 1
    fi
    hw "$name" "$want" "$dir" "simd://$TAP_DIR/ft601.sock?$SLOW"
    stop_server
}
if board "the FT601 board over simd://: every step passes, its logs the same as sim://'s" 0 "$TAP_DIR/ft601"; then
    expect "... the report has the link's counters (a framed link)" "^# link .*crc 0, NAKs sent [0-9]+" "$out"
    expect "... conformance: the same content as the reference" "^# conf: same content" "$out"
    expect "... the smoke test: the same content" "^# smoke: same content" "$out"
    truth "... the board's log is the FT601 link's" grep -q "^# simd://" "$TAP_DIR/ft601/board_conf.log"
fi
if board "the FT601 board with 256 MiB of VRAM (another strap): hw_check fails (exit 1)" 1 "$TAP_DIR/vram" --vram 256M; then
    expect "... the step that fails is the diff of conformance's logs" "^not ok 9 - gpuctl tracediff: conformance" "$out"
    expect "... the report names the register and both values" \
        "^# conf: first divergence: register reads #[0-9]+; MC_VRAM_SIZE_LO\.[A-Z_]+ 0x20000000 vs 0x10000000" "$out"
    expect "... and the DDI step of the smoke test's divergence" "^# smoke:   DDI step: gr_kmd_start_adapter" "$out"
    expect "... and ends with FAIL" "^# result +FAIL: sim, [0-9]+ of 10 checks failed$" "$out"
fi

# The LimeSDR Mini v2's exact top (its PLL, FT601 PHY and 128 KiB of VRAM) as that board: its
# logs against the board's reference, sim:// with the top's VRAM strap.
if start_server --socket "$TAP_DIR/lime.sock" --board limesdr; then
    HW_CHECK_DIR=$TAP_DIR/lime check "the LimeSDR Mini v2's exact top over simd://: every step passes (exit 0)" 0 \
        "$HW" limesdr_mini_v2 "simd://$TAP_DIR/lime.sock?$SLOW"
    stop_server
    expect "... its reference is sim:// with the top's 128 KiB of VRAM" "reference sim://\?freshvram=0&vram=128K" "$out"
    expect "... the board's build line" "^# build +board 0x20 limesdr_mini_v2 " "$out"
    expect "... both diffs the same content" "^# smoke: same content" "$out"
else
    bad "gpuref-simd serves the LimeSDR Mini v2's top"
fi

check "a URI that names no board: refused before anything is sent (exit 2)" 2 "$HW" sim "simd://$TAP_DIR/none.sock"
expect "... saying what is missing" "no gpuref-simd socket" "$err"
tap_end
