#!/usr/bin/env bash
# mutate: RTL mutants the conformance suite must catch, each one deliberate bug in a copy of rtl/.
#   mutate.sh list                  the mutant names
#   mutate.sh pattern NAME          the conformance check that must fail on it (regex)
#   mutate.sh make NAME SRC DEST    copy SRC (an rtl/ tree) to DEST with the bug applied
set -eu
# Per mutant: the file under rtl/, the sed expression, the failing check (regex on gpuctl's line).
NAMES=(scratch_reset irq_ignores_enable)
declare -A FILE EXPR CHECK
FILE[scratch_reset]=csr/csr_regs.v
EXPR[scratch_reset]="s/scratch_value_q <= 32'h0;/scratch_value_q <= 32'h1;/"
CHECK[scratch_reset]="SCRATCH +reset value"
FILE[irq_ignores_enable]=csr/csr_irq.v
EXPR[irq_ignores_enable]="s/irq_q <= |(state_i & enable_i);/irq_q <= |state_i;/"
CHECK[irq_ignores_enable]="IRQ_ENABLE +line low while STATE is set"

known() {
    [ -n "${FILE[$1]:-}" ] || { echo "mutate: no mutant named '$1'" >&2; exit 1; }
}

case ${1:-} in
list)
    printf '%s\n' "${NAMES[@]}"
    ;;
pattern)
    known "$2"
    echo "${CHECK[$2]}"
    ;;
make)
    name=$2 src=$3 dest=$4
    known "$name"
    file=${FILE[$name]} expr=${EXPR[$name]}
    rm -rf "$dest" && mkdir -p "$dest" && cp -r "$src"/. "$dest"/
    sed -i "$expr" "$dest/$file"
    if cmp -s "$src/$file" "$dest/$file"; then
        echo "mutate: mutant '$name' no longer applies to $file; update tb/conformance/mutate.sh" >&2
        exit 1
    fi
    ;;
*)
    echo "usage: mutate.sh list | pattern NAME | make NAME SRC DEST" >&2
    exit 2
    ;;
esac
