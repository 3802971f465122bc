#!/usr/bin/env bash
# test_gpuctl: gpuctl's commands, output and exit codes on sim://, as a user runs them. TAP.
# Usage: test_gpuctl.sh PATH/TO/gpuctl
set -u
GPUCTL=${1:?usage: test_gpuctl.sh PATH/TO/gpuctl}
n=0
fails=0
out=$(mktemp)
err=$(mktemp)
prev=$(mktemp) # stdout of the previous check, for checks that inspect it with another program
trap 'rm -f "$out" "$err" "$prev"' EXIT

# check NAME EXPECTED_EXIT CMD...: runs CMD, records stdout/stderr, checks the exit code.
check() {
    local name=$1 want=$2
    shift 2
    n=$((n + 1))
    "$@" >"$out" 2>"$err"
    local got=$?
    cp "$out" "$prev"
    if [ "$got" -eq "$want" ]; then
        echo "ok $n - $name"
        return 0
    fi
    echo "not ok $n - $name (exit $got, wanted $want)"
    sed 's/^/# /' "$err" | head -5
    fails=$((fails + 1))
    return 1
}

# expect NAME PATTERN FILE: the file matches the extended regex.
expect() {
    n=$((n + 1))
    if grep -Eq -- "$2" "$3"; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1 (no match for /$2/)"
        sed 's/^/# /' "$3" | head -10
        fails=$((fails + 1))
    fi
}


check "--help exits 0" 0 "$GPUCTL" --help
expect "--help lists the commands" "conformance" "$out"
check "no command is a usage error" 2 "$GPUCTL"
check "unknown command is a usage error" 2 "$GPUCTL" -d sim:// frobnicate
expect "unknown command is named" "unknown command 'frobnicate'" "$err"

check "info on sim:// succeeds" 0 "$GPUCTL" -d sim:// info
expect "info shows the magic" "ID_MAGIC 0x47505552 \"GPUR\"" "$out"
expect "info shows the map version and that it matches" "version 0\.1\.0, hash 0x[0-9a-f]{8} \(matches this host\)" "$out"
expect "info shows capabilities" "caps +0x00000001: MC=yes DMA=no" "$out"

check "info --json succeeds" 0 "$GPUCTL" -d sim:// --json info
check "info --json is valid JSON with the magic" 0 python3 -c \
    'import json,sys; d=json.load(open(sys.argv[1])); assert d["magic"]==0x47505552 and d["regmap_matches"] is True and d["caps"]=={"MC":True,"DMA":False}, d' "$prev"

check "bogus:// fails" 2 "$GPUCTL" -d bogus:// info
expect "bogus:// message names the accepted schemes" "unknown transport scheme 'bogus://'; accepted schemes: sim://" "$err"

check "poke then peek of SCRATCH round-trips" 0 "$GPUCTL" -d sim:// poke SCRATCH 0xcafe1234 peek SCRATCH
expect "peek shows the poked value" "^0x020 SCRATCH +0xcafe1234" "$out"
check "offsets work where names do" 0 "$GPUCTL" -d sim:// poke 0x20 7 peek 32
expect "peek by offset decodes the name" "^0x020 SCRATCH +0x00000007" "$out"

check "peek of a hole is a device error" 3 "$GPUCTL" -d sim:// peek 0x100
expect "the hole's error says bus error" "bus error" "$err"
check "misaligned offset is a usage error" 2 "$GPUCTL" -d sim:// peek 0x22
check "offset past BAR0 is a usage error" 2 "$GPUCTL" -d sim:// peek 0x10000
check "unknown register name is a usage error" 2 "$GPUCTL" -d sim:// peek NOPE
check "value over 32 bits is a usage error" 2 "$GPUCTL" -d sim:// poke SCRATCH 0x100000000

check "regs dumps every register" 0 "$GPUCTL" -d sim:// regs
check "regs lists all registers of the map" 0 bash -c \
    "[ \$(grep -Ec '^0x[0-9a-f]{3} ' '$prev') -eq \$(grep -c '^#define GR_REG_' '$(dirname "$0")/../../host/include/gpuref/gr_regmap.h') ]"
check "peek --json decodes fields" 0 bash -c \
    "'$GPUCTL' -d sim:// --json peek ID_VERSION | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"fields\"]=={\"PATCH\":0,\"MINOR\":1,\"MAJOR\":0}, d'"
echo "1..$n"
exit $((fails > 0))
