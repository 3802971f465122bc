#!/usr/bin/env bash
# test_boards_sim: the exact ECP5 board tops (boards/limesdr_mini_v2/limesdr_top.v,
# boards/ulx3s/ulx3s_top.v) simulated whole by gpuref-simd (--board limesdr|ulx3s: the top with
# its PLL and I/O primitives' models, its link chip's model and, on the ULX3S, the SDRAM model),
# reached over simd:// as a board is: ID_BUILD names the board, MC_VRAM_SIZE is the top's own
# VRAM, the register conformance suite passes, and the DDI smoke test (test_board_smoke:
# allocate, fill, copy, preempt and cancel, TDR) passes. TAP; the wall seconds of each board
# are printed. Both kinds are built into gpuref-simd (board.mk): a kind missing from its --help
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
n=0
fails=0
dir=$(mktemp -d /tmp/gr-boards.XXXXXX)
out=$dir/out
err=$dir/err
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() {
    n=$((n + 1)); echo "not ok $n - $1"; fails=$((fails + 1))
    sed 's/^/# /' "$err" | head -12
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
# missing KIND NAME: NAME fails, for want of a KIND board in gpuref-simd.
missing() { echo "no $1 board in this build (board.mk builds every kind)" >"$err"; bad "$2"; }

# check NAME EXPECTED_EXIT CMD...: runs CMD (at most 300 s: a hang fails), checks the exit code.
check() {
    local name=$1 want=$2
    shift 2
    timeout 300 "$@" >"$out" 2>"$err"
    local got=$?
    if [ "$got" -eq "$want" ]; then ok "$name"; else
        echo "# exit $got, wanted $want"
        grep -E "^not ok|FAIL|stopped|error|timed out" "$out" | head -8 >>"$err"
        bad "$name"
    fi
}
expect() { if grep -Eq -- "$2" "$3"; then ok "$1"; else echo "# no /$2/ in:"; sed 's/^/#   /' "$3" | head -8; bad "$1"; fi; }

start_server() {
    # A fresh log: the last server's banner must not pass for this one's.
    rm -f "$dir/server.log"
    "$SIMD" --seed "$SEED" "$@" >"$dir/server.log" 2>&1 &
    server=$!
    for _ in $(seq 1 600); do
        if grep -Eq "^gpuref-simd: serving " "$dir/server.log" 2>/dev/null; then return 0; fi
        kill -0 "$server" 2>/dev/null || break
        sleep 0.1
    done
    cp "$dir/server.log" "$err"
    return 1
}
stop_server() {
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
    server=
}

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
    sock=$dir/$kind.sock
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
echo "1..$n"
exit $((fails > 0))
