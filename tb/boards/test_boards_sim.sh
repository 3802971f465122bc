#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test_boards_sim: the exact ECP5 board tops (boards/limesdr_mini_v2/limesdr_top.v,
# boards/ulx3s/ulx3s_top.v) simulated whole by gpuref-simd (--board limesdr|ulx3s: the top with
# its PLL and I/O primitives' models, its link chip's model and, on the ULX3S, the SDRAM model),
# reached over simd:// as a board is: ID_BUILD names the board, MC_VRAM_SIZE is the top's own
# VRAM, the register conformance suite passes, and the DDI smoke test (test_board_smoke:
# allocate, fill, copy, preempt and cancel, TDR) passes. TAP; the wall seconds of each board
# are printed. Both kinds are built into gpuref-simd (sim/sim.mk): a kind missing from its --help
# fails. The conformance suite runs on the boards in $BOARDS_SIM_CONFORMANCE (default both; over
# the ULX3S's simulated 3 Mbaud line its 187 checks take about a minute, one register round trip
# on the line after another; BOARDS_SIM_CONFORMANCE=limesdr leaves the ULX3S's out, a skip,
# which fails under CI=true).
# Usage: test_boards_sim.sh GPUREF_SIMD GPUCTL TEST_BOARD_SMOKE [SEED [KIND...]]
set -u
SIMD=${1:?usage: test_boards_sim.sh gpuref-simd gpuctl test_board_smoke [seed [kind...]]}
GPUCTL=${2:?usage: test_boards_sim.sh gpuref-simd gpuctl test_board_smoke [seed [kind...]]}
SMOKE=${3:?usage: test_boards_sim.sh gpuref-simd gpuctl test_board_smoke [seed [kind...]]}
SEED=${4:-${GR_TEST_SEED:-1}}
shift $(($# < 4 ? $# : 4))
KINDS=${*:-limesdr ulx3s}
CONF_KINDS=${BOARDS_SIM_CONFORMANCE-limesdr ulx3s}
echo "# seed=$SEED (replay: test_boards_sim.sh $SIMD $GPUCTL $SMOKE $SEED $KINDS)"
. "$(dirname "$0")/../lib/tap.sh"
tap_init boards
TAP_TIMEOUT=300 # a hang fails

built=$("$SIMD" --help | sed -n 's/^Built-in board kinds: //p')
check "gpuref-simd --help names the exact board tops" 0 "$SIMD" --help
expect "... limesdr and ulx3s among the built-in kinds" "^Built-in board kinds: .*limesdr ulx3s" "$out"
check "--board limesdr --vram 1M is a usage error (the top has its own VRAM)" 2 "$SIMD" --board limesdr --vram 1M
expect "... naming the board's VRAM" "limesdr board has 128K of VRAM in its top" "$err"
check "--pty --board limesdr is a usage error (an FT601 board)" 2 "$SIMD" --pty --board limesdr

# Each board: ID_BUILD.BOARD, the VRAM size, conformance, the DDI smoke test.
for kind in $KINDS; do
    case $kind in
    limesdr) board_id=0x20; vram=0x00020000; L="dead_ms=30000&timeout_ms=60000" ;;
    ulx3s) board_id=0x21; vram=0x02000000
        L="dead_ms=60000&timeout_ms=120000&keepalive_ms=2000&replay_ms=5000" ;;
    *) echo "Bail out! unknown board kind '$kind' (limesdr, ulx3s)"; exit 2 ;;
    esac
    if ! grep -qw "$kind" <<<"$built"; then
        missing "$kind" "$kind: the exact top under gpuref-simd"
        continue
    fi
    t0=$(date +%s)
    sock=$TAP_DIR/$kind.sock
    if ! start_server --socket "$sock" --board "$kind"; then bad "gpuref-simd serves the $kind board"; continue; fi
    ok "gpuref-simd serves the $kind board (its top's PLL locked, the link came up)"
    dev="simd://$sock?$L"
    check "$kind: ID_BUILD over simd://" 0 "$GPUCTL" -d "$dev" peek ID_BUILD.BOARD
    expect "$kind: ID_BUILD.BOARD is the top's BoardId, $board_id" "(0x0*${board_id#0x}\b|\b$((board_id))\b)" "$out"
    check "$kind: MC_VRAM_SIZE_LO over simd://" 0 "$GPUCTL" -d "$dev" peek MC_VRAM_SIZE_LO
    expect "$kind: ... is the top's own VRAM, $vram bytes" "$vram" "$out"
    check "$kind: gpuctl info (magic, register map version and hash, capabilities)" 0 "$GPUCTL" -d "$dev" info
    if grep -qw "$kind" <<<"$CONF_KINDS"; then
        check "$kind: register conformance over simd://" 0 "$GPUCTL" -d "$dev" conformance
    else
        skip "$kind: register conformance over simd://" "not in BOARDS_SIM_CONFORMANCE"
    fi
    check "$kind: the DDI smoke test (allocate, fill, copy, preempt, cancel, TDR)" 0 "$SMOKE" "$dev"
    grep -E "^(ok|not ok|# [0-9.]+ s$)" "$out" | sed "s/^/#   /"
    stop_server
    echo "# $kind: $(($(date +%s) - t0)) s wall"
done
tap_end
