#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# lint_mc_mmu.sh: the MMU's RTL checks as TAP: verilator --lint-only -Wall (each module, with and
# without GR_ASSERT, at corner parameters), Icarus elaboration, illegal parameters refused, and a
# Yosys synthesis of mc_mmu with check -assert.
# Usage: lint_mc_mmu.sh <mc_mmu.v> <mc_tlb.v> <mc_walker.v> <mc_pwc.v>
# Environment: VERILATOR, IVERILOG, YOSYS, RTL_INC, OUT (a scratch directory).
set -u
VERILATOR=${VERILATOR:-verilator}
IVERILOG=${IVERILOG:-iverilog}
YOSYS=${YOSYS:-yosys}
RTL_INC=${RTL_INC:-rtl/common}
OUT=${OUT:-build/unit/mc_mmu/lint}
SRCS=("$@")
mkdir -p "$OUT"
n=0
fails=0

echo "1..9"
tap() {  # tap <status> <name> [log]
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $n - $2"
    else
        echo "not ok $n - $2"
        fails=$((fails + 1))
        [ -n "${3:-}" ] && sed 's/^/#   /' "$3" | head -20
    fi
}

vlint() {  # vlint <log> <top> [verilator options...]
    local log=$1 top=$2
    shift 2
    "$VERILATOR" --lint-only -Wall -I"$RTL_INC" --top-module "$top" "$@" "${SRCS[@]}" > "$log" 2>&1
}

for top in mc_tlb mc_pwc mc_walker mc_mmu; do
    vlint "$OUT/$top.log" "$top"
    tap $? "verilator -Wall: $top, no warnings" "$OUT/$top.log"
done

vlint "$OUT/assert.log" mc_mmu -DGR_ASSERT
tap $? "verilator -Wall: mc_mmu with GR_ASSERT assertions" "$OUT/assert.log"

rc=0
: > "$OUT/params.log"
for p in "-GTlbEntries=1 -GIdBits=1 -GVramAddrBits=13 -GDataBytes=64 -GPwcEntries=0" \
         "-GTlbEntries=7 -GVramAddrBits=48 -GDataBytes=16 -GPtIdBits=1 -GPwcEntries=1" \
         "-GTlbEntries=64 -GDataBytes=32 -GIdBits=8 -GPwcEntries=16"; do
    # shellcheck disable=SC2086
    vlint "$OUT/p.log" mc_mmu $p || { rc=1; echo "$p:" >> "$OUT/params.log"; cat "$OUT/p.log" >> "$OUT/params.log"; }
done
tap $rc "verilator -Wall: mc_mmu at corner parameters (1..64 TLB entries, 0..16 page-walk cache entries, 13..48 address bits, 8..64-byte bus)" "$OUT/params.log"

rc=0
for d in "" "-DGR_ASSERT"; do
    # shellcheck disable=SC2086
    "$IVERILOG" -g2012 -Wall $d -I"$RTL_INC" -s mc_mmu -o "$OUT/mc_mmu.vvp" "${SRCS[@]}" \
        > "$OUT/icarus.log" 2>&1 || rc=1
done
tap $rc "icarus -g2012 elaborates mc_mmu, with and without GR_ASSERT" "$OUT/icarus.log"

# Each illegal value must stop elaboration (Verilator: $error; Icarus: $fatal at time 0).
rc=0
: > "$OUT/illegal.log"
for p in "-GTlbEntries=0" "-GTlbEntries=257" "-GDataBytes=12" "-GVramAddrBits=12" "-GVramAddrBits=49" "-GIdBits=0" \
         "-GPwcEntries=17" "-GPwcEntries=-1"; do
    if vlint "$OUT/i.log" mc_mmu "$p"; then
        rc=1
        echo "verilator accepted $p" >> "$OUT/illegal.log"
    elif ! grep -q "mc_\(mmu\|tlb\|walker\|pwc\): " "$OUT/i.log"; then
        rc=1
        echo "verilator refused $p without naming the module:" >> "$OUT/illegal.log"
        cat "$OUT/i.log" >> "$OUT/illegal.log"
    fi
done
if "$IVERILOG" -g2012 -I"$RTL_INC" -s mc_mmu -P mc_mmu.TlbEntries=257 -o "$OUT/bad.vvp" "${SRCS[@]}" \
        > "$OUT/i.log" 2>&1 && vvp -n "$OUT/bad.vvp" >> "$OUT/i.log" 2>&1; then
    rc=1
    echo "icarus ran with TlbEntries=257" >> "$OUT/illegal.log"
fi
tap $rc "illegal parameters stop elaboration with a message naming the module" "$OUT/illegal.log"

"$YOSYS" -q -l "$OUT/yosys.log" -p "read_verilog -sv -I$RTL_INC ${SRCS[*]}; synth -top mc_mmu; check -assert; tee -o $OUT/mc_mmu.stat stat" \
    > /dev/null 2>&1
rc=$?
tap $rc "yosys synth -top mc_mmu; check -assert" "$OUT/yosys.log"
[ $rc -eq 0 ] && grep -E "Number of cells" "$OUT/mc_mmu.stat" | tail -1 | sed 's/^ */# yosys mc_mmu (TlbEntries 16, PwcEntries 4): /'
exit $((fails > 0))
