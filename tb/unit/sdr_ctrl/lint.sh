#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# lint.sh: the checks make lint runs on rtl/, for the SDRAM controller (outside rtl/), as TAP:
# Verilator -Wall (default parameters, and CL 3 at 143 MHz with an extra DQ register), Icarus
# -g2012 elaboration, Yosys synth + check -assert. Usage: lint.sh OUTDIR (from the checkout).
set -u
out=${1:?usage: lint.sh OUTDIR}
mkdir -p "$out"
inc=rtl/common
srcs="boards/common/sdram/sdr_fifo.v boards/common/sdram/sdr_ctrl.v"
echo "1..3"
if ${VERILATOR:-verilator} --lint-only -Wall -I$inc --top-module sdr_ctrl $srcs &&
   ${VERILATOR:-verilator} --lint-only -Wall -I$inc -GCasLatency=3 -GTckPs=7000 -GReadDelay=1 \
       --top-module sdr_ctrl $srcs; then
    echo "ok 1 - verilator --lint-only -Wall"
else
    echo "not ok 1 - verilator --lint-only -Wall"
fi
# Icarus 11 notes every constant part-select in an always_* block ("sorry: ... all bits will
# be included"): a sensitivity remark, not an error; the rest of its output is kept.
if ${IVERILOG:-iverilog} -g2012 -Wall -I$inc -s sdr_ctrl -o "$out/sdr_ctrl.vvp" $srcs >"$out/icarus.log" 2>&1; then
    grep -v "sorry: constant selects" "$out/icarus.log" | sed 's/^/# /'
    echo "ok 2 - icarus -g2012 elaborates"
else
    sed 's/^/# /' "$out/icarus.log"
    echo "not ok 2 - icarus -g2012 elaborates"
fi
if ${YOSYS:-yosys} -q -l "$out/yosys.log" \
       -p "read_verilog -sv -I$inc $srcs; synth -top sdr_ctrl; check -assert" >/dev/null; then
    echo "ok 3 - yosys synth and check -assert"
else
    tail -5 "$out/yosys.log" | sed 's/^/# /'
    echo "not ok 3 - yosys synth and check -assert"
fi
