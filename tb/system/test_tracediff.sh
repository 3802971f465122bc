#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test_tracediff: the host-side transaction log (?txlog=, docs/txlog.md) and gpuctl tracediff.
# The register conformance suite and the DDI smoke test (tb/boards/test_board_smoke, without
# its preemption step: --no-preempt) run on sim:// as the reference, then on simulated boards
# (gpuref-simd --board ft601 over simd://, the UART board over uart:// on a pty) and on sim://
# with other bus timing; each log must have the same content as the reference (exit 0). A run
# that really differs must be caught, with the register named: another VRAM strap
# (sim://?vram=), and an RTL mutant of the conformance suite (tb/conformance/mutate.sh). The
# miniport's DDI markers ("ddi" lines) are in the log, left out of the comparison, and name the
# DDI step of a divergence: the last marker before it.
# The UART board runs less: on its simulated 3 Mbaud line conformance's 1,500 round trips take
# minutes on a loaded machine, and the smoke test's BAR1 pages more; it runs gpuctl info, regs
# (every register read), a poke and a peek.
# Usage: test_tracediff.sh GPUREF_SIMD GPUCTL TEST_BOARD_SMOKE MUTANT_GPUCTL MUTANT_PATTERN [SEED]
#   MUTANT_GPUCTL is gpuctl built on a mutant's RTL (build/mutant/NAME/gpuctl), MUTANT_PATTERN
#   the register tracediff must name for it.
set -u
SIMD=${1:?usage: test_tracediff.sh gpuref-simd gpuctl test_board_smoke mutant-gpuctl mutant-register [seed]}
GPUCTL=${2:?usage}
SMOKE=${3:?usage}
MUTANT=${4:?usage}
MUTANT_REG=${5:?usage}
SEED=${6:-${GR_TEST_SEED:-1}}
echo "# seed=$SEED (replay: test_tracediff.sh $SIMD $GPUCTL $SMOKE $MUTANT $MUTANT_REG $SEED)"
. "$(dirname "$0")/../lib/tap.sh"
tap_init tracediff
TAP_TIMEOUT=300 # a hang fails
L=$TAP_DIR
# sim:// as a board looks to the driver: VRAM that may hold an earlier user's data
# (freshvram=0), so the driver zeroes it as it does on a board.
REF="sim://?seed=$SEED&freshvram=0"
SLOW="replay_ms=5000&dead_ms=30000&timeout_ms=60000"
# What the UART board runs: every register read once, and a write read back.
REGS="info regs poke SCRATCH 0x5a5aa5a5 peek SCRATCH"

# tracediff NAME WANT A B: gpuctl tracediff's exit status, its output in $out
tracediff() { check "$1" "$2" "$GPUCTL" tracediff "$3" "$4"; }

# ---- the reference, and what tracediff does with the command line -----------------------
check "sim://: conformance with txlog=" 0 "$GPUCTL" -d "$REF&txlog=$L/ref_conf.log" conformance
check "sim://: the DDI smoke test with txlog=" 0 "$SMOKE" --no-preempt "$REF&txlog=$L/ref_smoke.log"
expect "the log starts with its magic and the scheme" "^# gpuref txlog v1 scheme=sim$" <(head -1 "$L/ref_conf.log")
expect "conformance's log has its register accesses (ID_MAGIC read)" "^rd 0x0000 0x47505552 ok$" "$L/ref_conf.log"
expect "... a WAIT's polls of memory written once, with their count" "^dmard-repeat [0-9]+$" "$L/ref_smoke.log"
expect "... VidSch's reads of the clock too" "^clock-reads [0-9]+$" "$L/ref_smoke.log"
expect "the smoke test's log has the device's DMA writes (a fence)" "^dmawr 0x[0-9a-f]+ h[0-9]+\+0x[0-9a-f]+ 8 crc=0x[0-9a-f]{8} data=[0-9a-f]{16} ok$" "$L/ref_smoke.log"
expect "... its BAR1 bursts" "^apwr 0x[0-9a-f]+ [0-9]+ crc=0x[0-9a-f]{8}( data=[0-9a-f]+)? ok$" "$L/ref_smoke.log"
expect "... its DMA buffers" "^alloc 0x[0-9a-f]+ [0-9]+ h1 ok$" "$L/ref_smoke.log"
expect "... its interrupts" "^irq 1$" "$L/ref_smoke.log"
expect "... the miniport's DDI markers: the adapter's start" "^ddi gr_kmd_start_adapter$" "$L/ref_smoke.log"
expect "... DxgkDdiCreateAllocation" "^ddi DxgkDdiCreateAllocation n=[0-9]+$" "$L/ref_smoke.log"
expect "... DxgkDdiSubmitCommand with its fence" "^ddi DxgkDdiSubmitCommand fence=[1-9][0-9]*$" "$L/ref_smoke.log"
truth "... the interrupt routine's marker only where its thread touched the link: right before its own access or irq line" awk \
    '/^ddi DxgkDdiInterruptRoutine$/ { getline; n++; if ($1 != "rd" && $1 != "wr" && $1 != "irq") bad = 1 } END { exit !(n > 0 && !bad) }' \
    "$L/ref_smoke.log"
# A fence interrupt reads IRQ_STATE alone and acknowledges: a look that reads more (DMA_STOP_*,
# which a TDR moves) reads what depends on when it runs, and a late look then differs. The
# device's own DMA lines carry no marker and may fall between (on sim:// the RTL runs inside the
# read), so only the host's accesses count.
truth "... a fence interrupt's look: IRQ_STATE read, then its acknowledgement, nothing between" awk \
    '/^ddi / { ddi = $2; next } /^(irq|dmard|dmawr|dmard-repeat|clock-reads) / { next }
     ddi == "DxgkDdiInterruptRoutine" {
         if (want && !($1 == "wr" && $2 == "0x0040")) bad = 1
         want = 0
         if ($1 == "rd" && $2 == "0x0040" && $3 == "0x00000004") { want = 1; n++ }
     } END { exit !(n > 0 && !bad) }' "$L/ref_smoke.log"
truth "the smoke test's log stays small (under 64 KiB: the clock reads and the memory polls counted)" test "$(stat -c %s "$L/ref_smoke.log")" -lt 65536
tracediff "a log against itself: the same (exit 0)" 0 "$L/ref_conf.log" "$L/ref_conf.log"
expect "... says so" "^same content" "$out"
tracediff "a missing file: exit 2" 2 "$L/ref_conf.log" "$L/none.log"
expect "... naming it" "cannot open '$L/none.log'" "$err"
printf 'rd 0x0000 0x47505552 ok\n' >"$L/bare.log"
tracediff "a file that is not a transaction log: exit 2" 2 "$L/bare.log" "$L/ref_conf.log"
expect "... saying so" "is not a gpuref transaction log" "$err"
{ head -3 "$L/ref_conf.log"; echo "rd 0x0000 what"; } >"$L/broken.log"
tracediff "a line it cannot read: exit 2" 2 "$L/ref_conf.log" "$L/broken.log"
expect "... naming the line" "broken.log:4: not a transaction log line" "$err"
check "one log only: a usage error (exit 2)" 2 "$GPUCTL" tracediff "$L/ref_conf.log"
# A fault report of 0 read in the interrupt routine, with a buffer at a bus address whose low
# half is 0 on one link and not on the other: a plain read, the same on both.
fault_log() { # BUS
    printf '# gpuref txlog v1 scheme=sim\n# crafted\nalloc %s 4096 h1 ok\nddi DxgkDdiInterruptRoutine\n' "$1"
    printf 'rd 0x0040 0x00000010 ok\nrd 0x0344 0x00000000 ok\nrd 0x0348 0x00000000 ok\nrd 0x034c 0x00000000 ok\n'
    printf 'wr 0x0040 0x00000010 ok\nfree %s h1 ok\n' "$1"
}
fault_log 0x0100000000 >"$L/fault_a.log"
fault_log 0x0140000000 >"$L/fault_b.log"
tracediff "DMA_FAULT_ADDR 0 beside a buffer at 0x1_0000_0000 and at 0x1_4000_0000: the same (a report, not an address the driver programs)" \
    0 "$L/fault_a.log" "$L/fault_b.log"
check "an unknown scheme key is still refused beside txlog=" 2 "$GPUCTL" -d "sim://?txlog=$L/x.log&nokey=1" info
expect "... and txlog is among the accepted keys" "accepted: .*txlog" "$err"
truth "... and the refused open left no log behind" test ! -e "$L/x.log"
echo keep >"$L/keep.fst"
check "a backend that refuses its URI (seed=0) fails the open" 2 "$GPUCTL" -d "sim://?txlog=$L/y.log&trace=$L/keep.fst&seed=0" info
truth "... the log it had opened is removed" test ! -e "$L/y.log"
truth "... and no other file the URI names is touched" grep -qx keep "$L/keep.fst"
check "a log that cannot be written fails the open" 3 "$GPUCTL" -d "sim://?txlog=$L/no/dir/x.log" info
expect "... naming the file" "cannot open the transaction log '$L/no/dir/x.log'" "$err"

# ---- the same commands on other timing and other links: the same content -----------------
check "sim:// with other bus timing (seed+1, stalls, latency): conformance" 0 "$GPUCTL" -d \
    "sim://?seed=$((SEED + 1))&stall=60&latency=20&freshvram=0&txlog=$L/t_conf.log" conformance
tracediff "... tracediff against the reference: the same" 0 "$L/ref_conf.log" "$L/t_conf.log"
check "sim:// with other bus timing: the smoke test" 0 "$SMOKE" --no-preempt \
    "sim://?seed=$((SEED + 1))&stall=60&latency=20&freshvram=0&txlog=$L/t_smoke.log"
tracediff "... tracediff against the reference: the same" 0 "$L/ref_smoke.log" "$L/t_smoke.log"

# One fresh server per run: a board keeps its registers from one client to the next, and the
# driver reads some before it programs them.
board_run() { # KIND NAME CMD... (the argument @DEV@ stands for the device's URI)
    local kind=$1 name=$2 a
    shift 2
    local sock=$L/$kind.sock cmd=()
    for a in "$@"; do
        if [ "$a" = @DEV@ ]; then cmd+=("simd://$sock?$SLOW&txlog=$L/${kind}_$name.log"); else cmd+=("$a"); fi
    done
    if ! start_server --socket "$sock" --board "$kind"; then bad "gpuref-simd serves the $kind board"; return; fi
    check "$kind: $name over simd:// with txlog=" 0 "${cmd[@]}"
    stop_server
    tracediff "$kind: $name, tracediff against sim://: the same" 0 "$L/ref_$name.log" "$L/${kind}_$name.log"
    [ -s "$out" ] && grep -E "^(first|  [AB] line|[0-9]+ diff)" "$out" | sed 's/^/#   /'
}
board_run ft601 conf "$GPUCTL" -d @DEV@ conformance
expect "ft601: the log names the link" "^# simd://" <(sed -n 2p "$L/ft601_conf.log")
board_run ft601 smoke "$SMOKE" --no-preempt @DEV@

check "sim://: gpuctl info, regs, poke and peek with txlog=" 0 "$GPUCTL" -d "$REF&txlog=$L/ref_regs.log" $REGS
if start_server --pty --pty-link "$L/pty"; then
    tty=$(cat "$L/pty")
    check "uart: gpuctl info, regs, poke and peek over uart:// with txlog=" 0 "$GPUCTL" -d "uart://$tty?$SLOW&txlog=$L/uart_regs.log" $REGS
    stop_server
    tracediff "uart: tracediff against sim://: the same" 0 "$L/ref_regs.log" "$L/uart_regs.log"
    [ -s "$out" ] && grep -E "^(first|  [AB] line|[0-9]+ diff)" "$out" | sed 's/^/#   /'
else
    bad "gpuref-simd --pty starts"
fi

# ---- runs that really differ ---------------------------------------------------------------
check "sim://?vram=256M (another VRAM strap): conformance" 0 "$GPUCTL" -d \
    "sim://?seed=$SEED&freshvram=0&vram=256M&txlog=$L/vram_conf.log" conformance
tracediff "... tracediff against the reference: different (exit 1)" 1 "$L/ref_conf.log" "$L/vram_conf.log"
expect "... the first divergence is the VRAM size register, by name and field" \
    "^first divergence: register reads #[0-9]+; MC_VRAM_SIZE_LO\.[A-Z_]+ 0x20000000 vs 0x10000000" "$out"
expect "... with both lines" "^  B line [0-9]+: read MC_VRAM_SIZE_LO \(0x[0-9a-f]+\) -> 0x10000000" "$out"
expect "... and a count" "^[0-9]+ differences?$" "$out"
truth "... conformance enters no DDI: no DDI step is named" bash -c "! grep -q 'DDI step' '$out'"
check "sim://?vram=256M: the smoke test" 0 "$SMOKE" --no-preempt "sim://?seed=$SEED&freshvram=0&vram=256M&txlog=$L/vram_smoke.log"
tracediff "... tracediff against the reference: different (exit 1)" 1 "$L/ref_smoke.log" "$L/vram_smoke.log"
expect "... the VRAM size register, among the reads of the adapter's start" \
    "^first divergence: register reads in gr_kmd_start_adapter #[0-9]+; MC_VRAM_SIZE_LO" "$out"
expect "... read in the adapter's start: the DDI step named" \
    "^  DDI step: gr_kmd_start_adapter \(A line [0-9]+, B line [0-9]+\)$" "$out"

# ---- DDI markers: not compared, and the last one before a divergence names its step ---------
grep -v '^ddi ' "$L/ref_smoke.log" >"$L/nomark.log"
tracediff "the smoke test's log without its markers: the same (markers are not compared; without them on one side nothing is cut by DDI)" 0 "$L/ref_smoke.log" "$L/nomark.log"
# The device's first DMA write after the first submission, its first byte changed (with its
# digest): the step is the last marker before that line.
at=$(awk '/^ddi DxgkDdiSubmitCommand/ { s = 1 } s && /^dmawr .* crc=/ { print NR; exit }' "$L/ref_smoke.log")
step=$(awk -v at="${at:-0}" 'NR < at && /^ddi / { m = substr($0, 5) } END { print m }' "$L/ref_smoke.log")
sed "${at:-1}s/crc=0x[0-9a-f]*/crc=0x00000bad/; ${at:-1}s/data=[0-9a-f][0-9a-f]/data=ee/" "$L/ref_smoke.log" >"$L/bad_dma.log"
truth "a DMA write after a DxgkDdiSubmitCommand found and changed (line ${at:-none}, step '$step')" \
    test -n "${at:-}" -a -n "$step"
tracediff "... tracediff: different (exit 1)" 1 "$L/ref_smoke.log" "$L/bad_dma.log"
expect "... the first divergence is that DMA write" "^  B line ${at:-0}: dmawr .* crc=0x00000bad" "$out"
expect "... in the DDI step of the last marker before it" "^  DDI step: $step \(A line [0-9]+, B line [0-9]+\)$" "$out"
check "... --json names it too" 1 "$GPUCTL" --json tracediff "$L/ref_smoke.log" "$L/bad_dma.log"
expect "... as a_ddi_step and b_ddi_step" "\"a_ddi_step\": \"$step\", \"a_ddi_line\": [0-9]+, \"b_ddi_step\": \"$step\"" "$out"
# The same marker with other words in B (the same DDI: the streams are cut alike).
mark=$(awk -v at="${at:-0}" 'NR < at && /^ddi / { m = NR } END { print m }' "$L/ref_smoke.log")
sed "${mark:-1}s/\$/ x=1/" "$L/bad_dma.log" >"$L/bad_dma_other.log"
tracediff "a marker with other words in B: each log's own last marker is named" 1 "$L/ref_smoke.log" "$L/bad_dma_other.log"
expect "... A's and B's" "^  DDI step: A $step \(line ${mark:-0}\), B $step x=1 \(line ${mark:-0}\)$" "$out"

check "an RTL mutant (tb/conformance/mutate.sh): conformance fails on it" 1 "$MUTANT" -d "$REF&txlog=$L/mutant_conf.log" conformance
tracediff "... tracediff against the reference: different (exit 1)" 1 "$L/ref_conf.log" "$L/mutant_conf.log"
expect "... naming $MUTANT_REG" "^  A line [0-9]+: (read|write) $MUTANT_REG " "$out"
tap_end
