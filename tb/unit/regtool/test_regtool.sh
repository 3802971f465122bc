#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test_regtool: the register map generator keeps every output in step with gpu_regs.rdl. TAP.
# Usage: test_regtool.sh PYTHON   (the venv's python, with the pinned SystemRDL tools)
set -u
PY=${1:?usage: test_regtool.sh PYTHON}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
REGTOOL=$ROOT/rtl/csr/regtool/regtool.py
. "$(dirname "$0")/../../lib/tap.sh"
tap_init regtool
tmp=$TAP_DIR
run() { "$PY" "$REGTOOL" --root "$1" ${2:-} >"$err" 2>&1; }

# A scratch tree holding what regtool reads and writes.
copy_tree() {
    rm -rf "$tmp/t" && mkdir -p "$tmp/t/rtl/csr" "$tmp/t/host/include/gpuref" "$tmp/t/host/lib"
    cp "$ROOT"/rtl/csr/gpu_regs.rdl "$ROOT"/rtl/csr/csr_regs.v "$ROOT"/rtl/csr/REGISTERS.md "$tmp/t/rtl/csr/"
    cp "$ROOT"/host/include/gpuref/gr_regs.h "$ROOT"/host/include/gpuref/gr_regmap.h "$tmp/t/host/include/gpuref/"
    cp "$ROOT"/host/lib/gr_regdesc.c "$tmp/t/host/lib/"
}

# add_reg TEXT: a register added at the end of the map's body.
add_reg() {
    python3 - "$tmp/t/rtl/csr/gpu_regs.rdl" "$1" <<'PY'
import sys
path, text = sys.argv[1], sys.argv[2]
src = open(path).read()
end = src.rstrip().rfind("};")
open(path, "w").write(src[:end] + text + "\n" + src[end:])
PY
}

if run "$ROOT" --check; then ok "committed outputs match gpu_regs.rdl"; else bad "committed outputs are stale (make regs)"; fi

copy_tree
add_reg '    reg { field { sw = rw; } VALUE[31:0] = 0; } SCRATCH2 @ 0x030;'
if ! run "$tmp/t" --check && grep -q "csr_regs.v" "$err" && grep -q "gr_regdesc.c" "$err"; then
    ok "an edited map without regeneration is reported stale, naming the outputs"
else bad "an edited map without regeneration was not reported stale"; fi

if run "$tmp/t" && run "$tmp/t" --check && grep -q "scratch2_value_q" "$tmp/t/rtl/csr/csr_regs.v" &&
    grep -q "GR_REG_SCRATCH2 0x030u" "$tmp/t/host/include/gpuref/gr_regmap.h"; then
    ok "regenerating brings every output in step, with the new register"
else bad "regenerating did not bring the outputs in step"; fi

hash_before=$(grep -o 'GR_REGMAP_HASH 0x[0-9a-f]*' "$ROOT/host/include/gpuref/gr_regmap.h")
hash_after=$(grep -o 'GR_REGMAP_HASH 0x[0-9a-f]*' "$tmp/t/host/include/gpuref/gr_regmap.h")
if [ -n "$hash_before" ] && [ "$hash_before" != "$hash_after" ]; then
    ok "the map hash changes with the source ($hash_before -> ${hash_after#GR_REGMAP_HASH })"
else bad "the map hash did not change with the source"; fi

copy_tree
add_reg '    reg { field { sw = w; } GO[0:0] = 0; } WRONLY @ 0x030;'
if ! run "$tmp/t" && grep -q "sw=w hw=na is not supported" "$err"; then
    ok "an unsupported field kind is refused with a message"
else bad "an unsupported field kind was not refused"; fi

copy_tree
add_reg '    reg { field { sw = rw; hw = r; onwrite = woclr; hwset = true; } EV[0:0] = 0; } EVENTS @ 0x030;'
if ! run "$tmp/t" && grep -q "precedence=hw" "$err"; then
    ok "a W1C field that could lose an event (precedence=sw) is refused"
else bad "a W1C field with precedence=sw was accepted"; fi

copy_tree
add_reg '    reg { field { sw = rw; } V[31:0] = 0; } BROKEN @ 0x030'
if ! run "$tmp/t" && [ -s "$err" ]; then
    ok "a syntax error in the map fails the generator"
else bad "a syntax error in the map did not fail the generator"; fi

copy_tree
add_reg '    reg { field { hw = w; swacc = true; } V[31:0] = 0; } LATCHED @ 0x030;'
if run "$tmp/t" && grep -q "output wire latched_v_swacc_o" "$tmp/t/rtl/csr/csr_regs.v" &&
    grep -q "assign latched_v_swacc_o = req_i & ~we_i & sel_latched;" "$tmp/t/rtl/csr/csr_regs.v"; then
    ok "swacc gives the hardware a read strobe of its register"
else bad "swacc did not give a read strobe"; fi

copy_tree
add_reg '    reg { field { sw = rw; gr_volatile = true; } V[31:0] = 0; } VOL @ 0x030;'
if ! run "$tmp/t" && grep -q "gr_volatile needs a hardware-driven field" "$err"; then
    ok "gr_volatile on a software-written field is refused"
else bad "gr_volatile on a software-written field was accepted"; fi

copy_tree
add_reg '    reg { field { sw = rw; gr_action = true; } V[0:0] = 0; } ACT @ 0x030;'
if ! run "$tmp/t" && grep -q "gr_action needs a singlepulse field" "$err"; then
    ok "gr_action on a field that is not a strobe is refused"
else bad "gr_action on a non-strobe field was accepted"; fi

# The generated sources name the licence, and a licence line in the source is not part of the
# map: the hash (ID_REGMAP in the RTL) stays, and the outputs stay fresh.
copy_tree
missing=""
for f in rtl/csr/csr_regs.v host/include/gpuref/gr_regs.h host/include/gpuref/gr_regmap.h host/lib/gr_regdesc.c; do
    head -5 "$tmp/t/$f" | grep -q "SPDX-License-Identifier: Apache-2.0" || missing="$missing $f"
done
sed -i '1a // SPDX-License-Identifier: Apache-2.0' "$tmp/t/rtl/csr/gpu_regs.rdl"
if [ -z "$missing" ] && grep -q "SPDX" "$tmp/t/rtl/csr/gpu_regs.rdl" && run "$tmp/t" --check; then
    ok "every generated source names the licence; an SPDX line in gpu_regs.rdl leaves the hash and outputs as they are"
else bad "generated sources without the SPDX line:${missing:- none}, or the source's licence line changed the outputs"; fi

tap_end
