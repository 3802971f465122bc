#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test_simd: gpuref-simd and the byte-stream transports against the RTL (a simulated board):
# --vram straps the board's VRAM size (MC_VRAM_SIZE);
# the conformance suite and gpuctl over simd:// (the DMA engine through the server included),
# gpuctl over uart:// on the server's pseudo-terminal, two gpuctl processes sharing one device,
# link faults on the client's link and on the server's link to the RTL, and the server killed
# mid-transfer (a link error, no hang) and back. TAP. Every board kind is built into
# gpuref-simd (sim/sim.mk): a kind missing from its --help fails the tests that need it.
# Usage: test_simd.sh PATH/TO/gpuref-simd PATH/TO/gpuctl [SEED]
set -u
SIMD=${1:?usage: test_simd.sh gpuref-simd gpuctl [seed]}
GPUCTL=${2:?usage: test_simd.sh gpuref-simd gpuctl [seed]}
SEED=${3:-${GR_TEST_SEED:-1}}
echo "# seed=$SEED (replay: test_simd.sh $SIMD $GPUCTL $SEED)"
. "$(dirname "$0")/../lib/tap.sh"
tap_init simd
dir=$TAP_DIR
TAP_TIMEOUT=120 # a hang fails

built=$("$SIMD" --help | sed -n 's/^Built-in board kinds: //p')
# Wall-time limits with room for a loaded machine (the simulation then runs slowly).
L="dead_ms=20000&timeout_ms=30000"

check "gpuref-simd --version" 0 "$SIMD" --version
expect "--version names the protocol" "link protocol 1\.0" "$out"
check "gpuref-simd rejects an unknown board" 2 "$SIMD" --board nosuch
check "gpuref-simd --pty takes the uart board only" 2 "$SIMD" --pty --board ft601
# A bad setting from the environment or a file that cannot be written is named, before any board.
check "gpuref-simd: GR_SIM_SEED=abc is a usage error" 2 env GR_SIM_SEED=abc "$SIMD" --socket "$dir/bad.sock"
expect "... naming the variable and the range" "GR_SIM_SEED='abc' is not a seed \(accepted: 0\.\." "$err"
check "gpuref-simd: an FST file that cannot be opened" 1 env GR_BOARD_FST=/nonexistent/b.fst "$SIMD" --socket "$dir/bad.sock"
expect "... names the path, the variable and the reason" \
    "cannot open FST file '/nonexistent/b\.fst' from GR_BOARD_FST: No such file or directory" "$err"
check "gpuref-simd --vram 64K is a usage error" 2 "$SIMD" --vram 64K --socket "$dir/bad.sock"
expect "... naming the range" "bad value '64K' for --vram \(accepted: 128K\.\.512M in whole 64K" "$err"
check "gpuref-simd --quiet goes with a board, not --connect" 2 "$SIMD" --connect "$dir/none.sock" --quiet
# The VRAM size strap reaches gpu_core through the board (board.v, fpga_core): MC_VRAM_SIZE
# (on a --quiet board).
if grep -qw stream <<<"$built"; then
    sock=$dir/vram.sock
    if start_server --socket "$sock" --board stream --vram 192K --quiet; then
        expect "--quiet: the banner says the board runs without randomness" "\(seed [0-9]+, quiet\)" "$server_log"
        check "--vram 192K: MC_VRAM_SIZE_LO over simd://" 0 "$GPUCTL" -d "simd://$sock?$L" peek MC_VRAM_SIZE_LO
        expect "... reads 0x30000" "0x00030000" "$out"
        stop_server
    else
        bad "gpuref-simd starts a stream board with --vram 192K"
    fi
else
    missing stream "--vram on a board"
fi

# --fst: where the board's waveform went is said when it is written (it grows fast).
if grep -qw stream <<<"$built"; then
    if start_server --socket "$dir/fst.sock" --board stream --quiet --fst "$dir/board.fst"; then
        check "--fst: a register read on the recorded board" 0 "$GPUCTL" -d "simd://$dir/fst.sock?$L" peek SCRATCH
        stop_server
        expect "--fst: the server names the waveform it wrote" "^board: wrote FST waveform $dir/board\.fst$" \
            "$server_log"
        check "... and it is there" 0 test -s "$dir/board.fst"
    else
        bad "gpuref-simd starts a stream board with --fst"
    fi
else
    skip "--fst on a board" "no stream board in this build"
fi

# The default socket: the server and simd:// with no path find the same one from any directory
# ($XDG_RUNTIME_DIR, else a private ${TMPDIR:-/tmp}/gpuref-UID), and refuse a directory that
# another user could have made.
GPUCTL_ABS=$(cd "$(dirname "$GPUCTL")" && pwd)/$(basename "$GPUCTL")
if grep -qw stream <<<"$built"; then
    xdg=$dir/xdg
    mkdir -m 700 "$xdg"
    if GR_SIMD_SOCKET= XDG_RUNTIME_DIR=$xdg start_server --board stream --quiet; then
        expect "no --socket: the server listens on \$XDG_RUNTIME_DIR/gpuref-simd.sock" \
            "on $xdg/gpuref-simd\.sock " "$server_log"
        check "simd:// with no path, from /, reaches it" 0 env GR_SIMD_SOCKET= XDG_RUNTIME_DIR="$xdg" \
            bash -c 'cd / && exec "$0" "$@"' "$GPUCTL_ABS" -d "simd://?$L" peek ID_MAGIC
        expect "... and reads the magic" "0x47505552" "$out"
        stop_server
    else
        bad "gpuref-simd starts with no --socket under XDG_RUNTIME_DIR"
    fi
    tmp=$dir/tmp
    mkdir "$tmp"
    if GR_SIMD_SOCKET= XDG_RUNTIME_DIR= TMPDIR=$tmp start_server --board stream --quiet; then
        expect "no XDG_RUNTIME_DIR: the server listens in \$TMPDIR/gpuref-UID" \
            "on $tmp/gpuref-$UID/gpuref-simd\.sock " "$server_log"
        check "... a directory the server made mode 0700" 0 test "$(stat -c %a "$tmp/gpuref-$UID")" = 700
        check "simd:// with no path, from /, reaches it" 0 env -u XDG_RUNTIME_DIR GR_SIMD_SOCKET= TMPDIR="$tmp" \
            bash -c 'cd / && exec "$0" "$@"' "$GPUCTL_ABS" -d "simd://?$L" peek ID_MAGIC
        expect "... and reads the magic" "0x47505552" "$out"
        stop_server
    else
        bad "gpuref-simd starts with no --socket and no XDG_RUNTIME_DIR"
    fi
    chmod 777 "$tmp/gpuref-$UID"
    check "a fallback directory open to others: the server refuses it" 1 env -u XDG_RUNTIME_DIR GR_SIMD_SOCKET= \
        TMPDIR="$tmp" "$SIMD" --board stream
    expect "... naming it and the rule" "$tmp/gpuref-$UID is not a private directory of this user's .*mode 0700" "$err"
    check "... and so does simd://" 3 env -u XDG_RUNTIME_DIR GR_SIMD_SOCKET= TMPDIR="$tmp" "$GPUCTL" -d simd:// info
    expect "... naming it" "$tmp/gpuref-$UID is not a private directory" "$err"
else
    skip "the default socket" "no stream board in this build"
fi

for kind in stream ft601 ft2232h; do
    if ! grep -qw "$kind" <<<"$built"; then
        missing "$kind" "simd://, $kind board"
        continue
    fi
    sock=$dir/$kind.sock
    if ! start_server --socket "$sock" --board "$kind"; then bad "gpuref-simd starts a $kind board"; continue; fi
    ok "gpuref-simd serves a $kind board"
    check "$kind: gpuctl info over simd://" 0 "$GPUCTL" -d "simd://$sock?$L" info
    # The link's state and counters, whole (gr_device_link_stats), in text and as JSON numbers.
    # HELLO_RSP's Link names the client's link: gpuref-simd's socket, a stream on every board.
    expect "$kind: info shows the link up, its kind and HELLO_RSP's values" \
        "^link +simd://, up, stream link, protocol 1\.0, MaxPayload [1-9][0-9]* words, RxWindow [1-9][0-9]* frames, DmaTags [1-9][0-9]*, core [1-9][0-9]* Hz$" "$out"
    expect "$kind: ... the frames each way" "^  frames +sent [1-9][0-9]* \([1-9][0-9]* bytes\), received [1-9][0-9]* \([1-9][0-9]* bytes\)" "$out"
    expect "$kind: ... and the errors, whole" "^  errors +crc 0, NAKs sent 0, NAKs received 0, retransmissions 0, replay timeouts [0-9]+,$" "$out"
    check "$kind: info --json over simd://: the link's fields as numbers" 0 bash -c \
        '"$0" -d "$1" --json peek SCRATCH info | python3 -c "
import json, sys
d = [json.loads(l) for l in sys.stdin][1]
l = d[\"link\"]
assert (l[\"scheme\"], l[\"framed\"], l[\"up\"], l[\"kind\"], l[\"protocol\"]) == (\"simd\", True, True, \"stream\", \"1.0\"), l
assert all(isinstance(l[k], int) for k in (\"max_payload\", \"rx_window\", \"dma_tags\", \"core_hz\", \"tx_frames\",
    \"rx_frames\", \"tx_bytes\", \"rx_bytes\", \"crc_errors\", \"naks_sent\", \"naks_received\", \"retransmissions\",
    \"replay_timeouts\", \"timeouts\", \"link_resets\", \"link_downs\", \"round_trips\")), l
assert l[\"tx_frames\"] > 0 and l[\"rx_frames\"] > 0 and l[\"round_trips\"] >= 6 and l[\"link_resets\"] >= 1, l
assert l[\"crc_errors\"] == 0 and l[\"timeouts\"] == 0 and l[\"max_payload\"] > 0 and l[\"core_hz\"] > 0, l
assert \"crc e\" not in d[\"transport\"] and d[\"transport\"].endswith(\")\"), d[\"transport\"]
"' "$GPUCTL" "simd://$sock?$L"
    # Writes are posted by default; the suite turns that off while it runs, since it checks
    # that a write to a hole answers a bus error itself. After it writes are posted again: a
    # poke of a hole is refused at its read-back, not at the write.
    check "$kind: conformance over simd://, writes posted" 0 "$GPUCTL" -d "simd://$sock?$L" conformance
    check "$kind: ... then a poke of a hole" 3 "$GPUCTL" -d "simd://$sock?$L" conformance poke 0x100 1
    expect "$kind: ... is posted again (refused at its read-back)" "read-back of 0x0100: bus error" "$err"
    check "$kind: one process pokes SCRATCH" 0 "$GPUCTL" -d "simd://$sock?$L" poke SCRATCH 5
    check "$kind: another process peeks it" 0 "$GPUCTL" -d "simd://$sock?$L" peek SCRATCH
    expect "$kind: the second process reads 5" "(0x0*5|[^0-9]5)\b" "$out"
    # two at once: each writes and reads back its own value many times, interleaved
    "$GPUCTL" -d "simd://$sock?posted=0&$L" poke SCRATCH 0x1111 peek SCRATCH conformance >"$dir/a" 2>&1 &
    a=$!
    "$GPUCTL" -d "simd://$sock?$L" info regs >"$dir/b" 2>&1
    rb=$?
    wait $a
    ra=$?
    if [ $ra -eq 0 ] && [ $rb -eq 0 ]; then ok "$kind: two gpuctl processes at once"; else
        cp "$dir/a" "$err"; cat "$dir/b" >>"$err"; bad "$kind: two gpuctl processes at once ($ra, $rb)"; fi
    # the DMA engine's ring, buffers and copies in host memory reached through the server:
    # a fill, a copy, both read back through the engine and the copy through BAR1
    check "$kind: fill, copy and read back through the server" 0 \
        "$GPUCTL" -d "simd://$sock?$L" alloc 256K alloc 256K --cpu-visible fill @1 0x11223344 \
        copy @1 @2 read @1 --sum read @2 --sum read @2 --cpu --sum
    want=$(python3 -c "import zlib; print(hex(zlib.crc32(bytes.fromhex('44332211') * 65536)))")
    if [ "$(grep -c "crc32 $want" "$out")" -eq 3 ]; then ok "$kind: all three read $want"; else
        cp "$out" "$err"; bad "$kind: all three read $want"; fi
    check "$kind: conformance with link faults (faults=$SEED:0.01)" 0 \
        "$GPUCTL" -d "simd://$sock?posted=0&$L&faults=$SEED:0.01&replay_ms=50" conformance
    # the server killed while a client works: the client fails with a link error, no hang
    "$GPUCTL" -d "simd://$sock?posted=0&dead_ms=1000&timeout_ms=3000" conformance conformance conformance \
        >"$dir/k" 2>&1 &
    k=$!
    sleep 1
    kill -9 "$server"; wait "$server" 2>/dev/null; server=
    t0=$(date +%s)
    wait $k
    rk=$?
    t1=$(date +%s)
    cp "$dir/k" "$err"
    if [ $rk -ne 0 ] && [ $((t1 - t0)) -lt 60 ]; then ok "$kind: server killed mid-run: the client fails (exit $rk) in $((t1 - t0)) s"; else
        bad "$kind: server killed mid-run (exit $rk after $((t1 - t0)) s)"; fi
    # killed while a client waits on the DMA engine (gr_wait): the wait ends with GR_E_LINK once
    # the device could not be read for the link's dead_ms (VidSch's wall-clock bound beside its
    # device-cycle one), under SIGKILL (the socket file stays) and SIGTERM (it goes); stream only
    if [ "$kind" = stream ]; then
        for sig in KILL TERM; do
            if [ -z "$server" ] && ! start_server --socket "$sock" --board "$kind"; then
                bad "$kind: the server restarts for SIG$sig"; continue; fi
            "$GPUCTL" -d "simd://$sock?dead_ms=3000" alloc 2M alloc 2M fill @1 7 copy @1 @2 fill @2 9 \
                copy @2 @1 read @1 --sum >"$dir/w" 2>"$dir/we" &
            k=$!
            for _ in $(seq 600); do grep -q "^fill" "$dir/w" && break; sleep 0.1; done
            kill -"$sig" "$server"; wait "$server" 2>/dev/null; server=
            t0=$(date +%s)
            wait $k
            rk=$?
            t1=$(date +%s)
            cat "$dir/w" "$dir/we" >"$err"
            if [ $rk -eq 3 ] && [ $((t1 - t0)) -lt 60 ] && grep -q "GR_E_LINK" "$dir/we"; then
                ok "$kind: SIG$sig under a client waiting on the engine: GR_E_LINK (exit $rk) in $((t1 - t0)) s"
            else bad "$kind: SIG$sig under a client waiting on the engine (exit $rk after $((t1 - t0)) s)"; fi
        done
    fi
    # another client's core reset under a client waiting on the engine: DMA_TIMESTAMP restarts
    # lower than VidSch's clock, which would hold a cycle deadline for minutes; the wait ends
    # with GR_E_DEVICE_RESET (a TDR with nobody guilty) and the device serves on
    if [ "$kind" = stream ]; then
        if start_server --socket "$sock" --board "$kind"; then
            "$GPUCTL" -d "simd://$sock?$L" alloc 4M alloc 4M fill @1 7 copy @1 @2 read @2 --sum \
                >"$dir/w" 2>"$dir/we" &
            k=$!
            for _ in $(seq 1200); do grep -q "^fill" "$dir/w" && break; sleep 0.1; done
            # the waiting client holds the device's binding: a reset from another needs --force
            "$GPUCTL" -d "simd://$sock?$L" poke RESET_CTRL 1 >/dev/null 2>"$dir/pe"
            rp=$?
            t0=$(date +%s)
            "$GPUCTL" -d "simd://$sock?$L" --force poke RESET_CTRL 1 >/dev/null 2>&1
            wait $k
            rk=$?
            t1=$(date +%s)
            cat "$dir/w" "$dir/we" >"$err"
            if [ $rk -eq 3 ] && [ $((t1 - t0)) -lt 60 ] && grep -q "GR_E_DEVICE_RESET" "$dir/we"; then
                ok "$kind: a core reset by another client under a waiting one: GR_E_DEVICE_RESET (exit $rk) in $((t1 - t0)) s"
            else bad "$kind: a core reset by another client under a waiting one (exit $rk after $((t1 - t0)) s)"; fi
            if [ $rp -eq 3 ] && grep -q "another driver stack owns the device (pid [0-9]* on " "$dir/pe"; then
                ok "$kind: ... without --force that reset is refused, naming the owner (exit 3)"
            else bad "$kind: ... without --force that reset is refused, naming the owner (exit $rp: $(cat "$dir/pe"))"; fi
            check "$kind: ... and the device serves on" 0 "$GPUCTL" -d "simd://$sock?$L" alloc 64K fill @1 3 read @1 --sum
            stop_server
        else bad "$kind: the server restarts for the core reset"; fi
    fi
    check "$kind: no server: open fails naming the socket" 3 "$GPUCTL" -d "simd://$sock" info
    expect "$kind: the message names the socket" "$sock" "$err"
    # back, this time with faults on its own link to the RTL: the RTL's link layer recovers
    if start_server --socket "$sock" --board "$kind" --faults "$SEED:0.005"; then
        check "$kind: the server is back: gpuctl works again" 0 "$GPUCTL" -d "simd://$sock?$L" peek SCRATCH
        check "$kind: conformance with faults between the server and the RTL" 0 \
            "$GPUCTL" -d "simd://$sock?posted=0&$L" conformance
        # DMA through the faults too: the engine's reads and writes of host memory cross the
        # faulty link as DMA_RD/DMA_WR requests; none may be lost or applied twice.
        check "$kind: DMA with faults between the server and the RTL" 0 "$GPUCTL" -d "simd://$sock?$L" \
            alloc 256K alloc 256K --cpu-visible fill @1 0x11223344 copy @1 @2 read @2 --sum
        expect "$kind: ... the copy is exact (crc32 of 256 KiB of 0x11223344)" "crc32 0x4d1bca5a" "$out"
    else bad "$kind: the server restarts"; fi
    stop_server
    if [ $? -eq 0 ]; then ok "$kind: SIGTERM stops the server cleanly"; else bad "$kind: SIGTERM stops the server cleanly"; fi
    if [ ! -e "$sock" ]; then ok "$kind: the socket is removed"; else bad "$kind: the socket is removed"; fi
done

if grep -qw uart <<<"$built"; then
    # The simulated line is far slower than a real one in wall time (3 Mbaud: a 4 KiB frame is
    # 1.4M core cycles), and the client's timers are wall time: they get room for that. The
    # whole conformance suite would take minutes here; it runs over simd:// above.
    if start_server --pty --pty-link "$dir/pty"; then
        tty=$(cat "$dir/pty")
        slow="replay_ms=5000&dead_ms=30000&timeout_ms=60000"
        ok "gpuref-simd --pty gives $tty"
        check "uart: gpuctl info over uart:// on the pty" 0 "$GPUCTL" -d "uart://$tty?$slow" info
        expect "uart: the device answers with its magic" "GPUR" "$out"
        check "uart: poke and peek" 0 "$GPUCTL" -d "uart://$tty?$slow" poke SCRATCH 0x77 peek SCRATCH
        expect "uart: reads back 0x77" "0x0*77" "$out"
        check "uart: with faults on the line" 0 "$GPUCTL" -d "uart://$tty?$slow&faults=$SEED:0.01" \
            poke SCRATCH 0x78 peek SCRATCH
        expect "uart: reads back 0x78 through the faults" "0x0*78" "$out"
        stop_server
    else
        bad "gpuref-simd --pty starts"
    fi
else
    missing uart "uart:// on gpuref-simd --pty"
fi

tap_end
