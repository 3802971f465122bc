#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test_trace: waveforms a gpuctl user aims, on sim://: `trace on FILE` / `trace off` around
# commands, sim://?trace=PATH&trace_from=N&trace_to=M, VCD or FST by the extension, the GTKWave
# save file next to each, the path and cycles printed when a trace is closed, and the errors.
# The VCDs are parsed: the cycles gpuctl reports are the first and last timestamps in the file
# (cycle c: c * 10000 ps and 5000 ps later). TAP.
# Usage: test_trace.sh PATH/TO/gpuctl OUTDIR
set -u
GPUCTL=${1:?usage: test_trace.sh PATH/TO/gpuctl OUTDIR}
dir=${2:?usage: test_trace.sh PATH/TO/gpuctl OUTDIR}
rm -rf "$dir" && mkdir -p "$dir"
unset GR_SIM_FST GR_DEVICE
. "$(dirname "$0")/../lib/tap.sh"
tap_init trace
out=$dir/stdout
err=$dir/stderr
# stamps FILE: "FIRST LAST COUNT" of the VCD's timestamps.
stamps() { awk '/^#[0-9]+$/ { t = substr($0, 2); if (!c++) f = t; l = t } END { print f, l, c }' "$1"; }
# names VCD: every signal's full name, as GTKWave and the .gtkw spell it.
names() {
    awk '$1 == "$scope" { s[++d] = $3 } $1 == "$upscope" { d-- }
         $1 == "$var" { p = s[1]; for (i = 2; i <= d; i++) p = p "." s[i]; print p "." $5 ($6 == "$end" ? "" : $6) }
         $1 == "$enddefinitions" { exit }' "$1"
}
# rises VCD PORT: gpu_core's 1-bit PORT goes to 1 after the VCD's first timestamp.
rises() {
    awk -v want="$2" '$1 == "$scope" { s[++d] = $3 } $1 == "$upscope" { d-- }
         $1 == "$var" && d == 2 && s[2] == "gpu_core" && $5 == want { id = $4 }
         /^#/ { n++ } n > 1 && id != "" && $0 == "1" id { found = 1; exit }
         END { exit !found }' "$1"
}
# gtkw_ok GTKW VCD: every signal the save file names is in the VCD (and there are some).
gtkw_ok() {
    names "$2" | sort -u >"$dir/names"
    grep '^TOP\.' "$1" | sort -u >"$dir/wanted"
    [ -s "$dir/wanted" ] && [ -z "$(comm -23 "$dir/wanted" "$dir/names")" ]
}

tap_plan 23

# ---- trace on FILE / trace off around one command ----
check "trace on c.vcd, copy, trace off: exit 0" 0 "$GPUCTL" -d 'sim://?norandom=1' alloc 64K alloc 64K \
    fill @1 7 trace on "$dir/c.vcd" copy @1 @2 trace off read @2 0 8
expect "trace on says where it records and the save file" "^trace: recording $dir/c.vcd \(VCD\) from cycle [0-9]+; GTKWave save file $dir/c.gtkw$" "$out"
expect "trace off prints the path, the cycles and how to open it" "^trace: wrote $dir/c.vcd \(VCD, cycles [0-9]+\.\.[0-9]+\); open with: gtkwave -a $dir/c.gtkw $dir/c.vcd$" "$out"
from=$(sed -n 's/^trace: wrote .*cycles \([0-9]*\)\.\.\([0-9]*\)).*/\1/p' "$out")
to=$(sed -n 's/^trace: wrote .*cycles \([0-9]*\)\.\.\([0-9]*\)).*/\2/p' "$out")
read -r first last count < <(stamps "$dir/c.vcd")
truth "the VCD starts at the cycle trace on printed ($from: ${first:-none} ps)" [ "${first:-x}" = "$((from * 10000))" ]
truth "the VCD ends at the cycle trace off printed ($to: ${last:-none} ps)" [ "${last:-x}" = "$((to * 10000 + 5000))" ]
truth "the window around the copy is a whole 8-byte-a-cycle copy (${count:-0} timestamps for 8,192+ cycles)" \
    [ "${count:-0}" -ge 16384 ]
truth "the copy is in the window: m_vram_wvalid_o rises while it was recorded" rises "$dir/c.vcd" m_vram_wvalid_o
truth "every signal c.gtkw names is in c.vcd" gtkw_ok "$dir/c.gtkw" "$dir/c.vcd"
expect "c.gtkw opens c.vcd" "^\[dumpfile\] \"$dir/c.vcd\"$" "$dir/c.gtkw"
expect "c.gtkw groups the DMA engine" "^-DMA engine \(u_dma\)$" "$dir/c.gtkw"
expect "c.gtkw groups the MMU" "^-MMU \(u_mc\.u_mmu\)$" "$dir/c.gtkw"

# ---- the URI's window, FST and VCD ----
check "sim://?trace=w.vcd&trace_from=5000&trace_to=5999 with a fill: exit 0" 0 "$GPUCTL" \
    -d "sim://?norandom=1&trace=$dir/w.vcd&trace_from=5000&trace_to=5999" alloc 64K fill @1 1
expect "gpuctl prints the URI's trace when it closes it, with its window" "^trace: wrote $dir/w.vcd \(VCD, cycles 5000\.\.5999\)" "$out"
read -r first last count < <(stamps "$dir/w.vcd")
truth "the window's VCD holds cycles 5000..5999 only (${first:-none}..${last:-none} ps, ${count:-0} stamps)" \
    [ "${first:-x} ${last:-x} ${count:-x}" = "50000000 59995000 2000" ]
check "sim://?trace=w.fst&trace_from=5000&trace_to=5999: exit 0" 0 "$GPUCTL" \
    -d "sim://?norandom=1&trace=$dir/w.fst&trace_from=5000&trace_to=5999" alloc 64K fill @1 1
truth "the FST is written and not empty, its .gtkw next to it" [ -s "$dir/w.fst" ] && [ -s "$dir/w.gtkw" ]
check "--json: the closed trace is a document with its command" 0 "$GPUCTL" --json \
    -d "sim://?trace=$dir/j.fst&trace_from=10&trace_to=20" info
expect "--json trace document" '^\{"command":"trace","state":"wrote","path":"[^"]*j.fst","format":"fst","gtkw":"[^"]*j.gtkw","first_cycle":10,"last_cycle":20\}$' "$out"

# ---- errors ----
check "trace off with nothing recording is a usage error" 2 "$GPUCTL" -d sim:// trace off
expect "... and says so" "no waveform is being recorded" "$err"
check "trace on into a missing directory is a device error" 3 "$GPUCTL" -d sim:// trace on /nonexistent-gpuref/x.vcd
expect "... naming the file and the reason" "cannot open VCD file '/nonexistent-gpuref/x.vcd': No such file or directory" "$err"
check "trace_from after trace_to is a bad URI" 2 "$GPUCTL" -d "sim://?trace=$dir/x.vcd&trace_from=9&trace_to=8" info

tap_end
