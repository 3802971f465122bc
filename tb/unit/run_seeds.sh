#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run_seeds.sh: runs one unit testbench once per seed and merges the TAP streams into one.
# Usage: run_seeds.sh "SEED..." COMMAND [ARG...]
#   Each run is COMMAND ARG... +seed=S. The merged stream has one plan, the tests renumbered
#   and named "... (seed S)", the simulator's other output as "#" lines, and one extra
#   "not ok" for a run that crashed, bailed out, exited non-zero or ran fewer checks than its
#   plan. Exit status 1 when any test failed, else 0.
set -u
seeds=${1:?usage: run_seeds.sh "SEED..." COMMAND [ARG...]}
shift
[ $# -ge 1 ] || { echo "usage: run_seeds.sh \"SEED...\" COMMAND [ARG...]" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ulimit -c 0  # Verilator's $fatal aborts; no core files in the tree
n=0
failed=0
: >"$tmp/body"
for s in $seeds; do
    t0=$(date +%s%N)
    ("$@" +seed="$s"; exit $?) >"$tmp/out" 2>&1  # a crash notice lands in the output too
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    echo "# seed $s: $* +seed=$s  (exit $rc, $((ms / 1000)).$(printf %03d $((ms % 1000))) s)" >>"$tmp/body"
    # Renumber test lines, keep comments, turn everything else into comments.
    awk -v base="$n" -v seed="$s" -v out="$tmp/counts" '
        /^(not )?ok [0-9]+/ {
            ran++
            notok = ($1 == "not")
            if (notok) fails++
            sub(/^(not )?ok [0-9]+ */, "")
            sub(/^- */, "")
            printf "%s %d - %s (seed %s)\n", (notok ? "not ok" : "ok"), base + ran, $0, seed
            next
        }
        /^1\.\.[0-9]+/ { plan = substr($0, 4) + 0; hasplan = 1; next }
        /^Bail out!/ { bail = 1; print "# " $0; next }
        /^#/ { print; next }
        { print "# " $0 }
        END { printf "%d %d %d %d %d\n", ran + 0, fails + 0, hasplan + 0, plan + 0, bail + 0 > out }
    ' "$tmp/out" >>"$tmp/body"
    read -r ran fails hasplan plan bail <"$tmp/counts"
    n=$((n + ran))
    failed=$((failed + fails))
    why=""
    if [ "$hasplan" -eq 0 ]; then why="printed no plan"
    elif [ "$ran" -ne "$plan" ]; then why="ran $ran of $plan planned checks"
    elif [ "$bail" -ne 0 ]; then why="bailed out"
    elif [ "$rc" -ne 0 ] && [ "$fails" -eq 0 ]; then why="exited $rc with no failing check"
    fi
    if [ -n "$why" ]; then
        n=$((n + 1))
        failed=$((failed + 1))
        echo "not ok $n - $(basename "$1") $why (seed $s)" >>"$tmp/body"
    fi
done
echo "1..$n"
cat "$tmp/body"
[ "$failed" -eq 0 ]
