#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run_conformance: gpuctl conformance as TAP, plus checks on the run itself.
# Usage: run_conformance.sh GPUCTL URI EXPECT
#   EXPECT=pass  the suite must pass and cover every register of the map
#   EXPECT=fail:PATTERN  the suite must fail (exit 1) with a FAIL line matching PATTERN
#                (a mutant of the RTL: the suite must catch it)
set -u
GPUCTL=$1 URI=$2 EXPECT=$3
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$GPUCTL" -d "$URI" conformance >"$log" 2>&1
rc=$?
n=0
if [ "$EXPECT" = pass ]; then
    # Every check gpuctl printed becomes a TAP line.
    while IFS= read -r line; do
        case "$line" in
        "ok "*) n=$((n + 1)); echo "ok $n - $(echo ${line#ok })" ;;
        "FAIL "*) n=$((n + 1)); echo "not ok $n - $(echo ${line#FAIL })" ;;
        *) echo "# $line" ;;
        esac
    done <"$log"
    n=$((n + 1))
    if [ $rc -eq 0 ]; then echo "ok $n - gpuctl conformance exits 0 on $URI"; else echo "not ok $n - gpuctl conformance exits $rc on $URI"; fi
    n=$((n + 1))
    missing=$(grep -o '^#define GR_REG_[A-Z0-9_]*' "$(dirname "$0")/../../host/include/gpuref/gr_regmap.h" |
        sed 's/#define GR_REG_//' | while read -r reg; do
            grep -q "^ok   $reg .*reset value" "$log" || echo "$reg"
        done)
    if [ -z "$missing" ]; then echo "ok $n - every register of the map had its reset value checked"
    else echo "not ok $n - registers without a reset-value check: $missing"; fi
else
    pattern=${EXPECT#fail:}
    sed 's/^/# /' "$log" | grep -E "^# (FAIL|conformance:)"
    n=$((n + 1))
    if [ $rc -eq 1 ]; then echo "ok $n - conformance exits 1 on the mutant"; else echo "not ok $n - conformance exits $rc on the mutant (wanted 1)"; fi
    n=$((n + 1))
    if grep -Eq "^FAIL $pattern" "$log"; then echo "ok $n - the failing check is: $pattern"
    else echo "not ok $n - no failing check matches: $pattern"; fi
fi
echo "1..$n"
