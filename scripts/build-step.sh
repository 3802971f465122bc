#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# build-step.sh: runs one long build step with its output in a log, and says what it does: a line
# when it starts (with the log's path), a progress line every PROGRESS_SECONDS (default 15) while
# it runs when --progress names a folder of C++ files being compiled, and a line with its time at
# the end. On failure it prints the log's last 40 lines and exits with the step's status.
#
#   build-step.sh [--append] [--progress DIR [--runtime]] TAG WHAT LOG -- COMMAND [ARG...]
#
# --append adds to LOG instead of starting it afresh. --runtime counts Verilator's run-time
# objects (VM_GLOBAL_* of DIR's V*_classes.mk) among the files to compile, for a step that
# builds libverilated.a beside the model. With V=1 in the environment (make V=1) the
# command is printed too. The top Makefile's Verilator builds (verilated_lib in mk/rules.mk)
# run through it.
set -u
append=0 progress="" runtime=0
while [ $# -gt 0 ]; do
    case $1 in
    --append) append=1; shift ;;
    --progress) progress=${2:?--progress needs a folder}; shift 2 ;;
    --runtime) runtime=1; shift ;;
    *) break ;;
    esac
done
if [ $# -lt 5 ] || [ "$4" != "--" ]; then
    echo "usage: build-step.sh [--append] [--progress DIR [--runtime]] TAG WHAT LOG -- COMMAND [ARG...]" >&2
    exit 2
fi
tag=$1 what=$2 log=$3
shift 4
every=${PROGRESS_SECONDS:-15}
mkdir -p "$(dirname "$log")"
[ "$append" = 1 ] || : >"$log"
say() { printf '  %-8s %s\n' "$tag" "$*"; }

say "$what (log: $log)"
[ "${V:-0}" = 1 ] && echo "$*"
t0=$(date +%s)
"$@" >>"$log" 2>&1 &
pid=$!
# Forward an interrupt to the step, so that ^C does not leave a compiler running.
trap 'kill "$pid" 2>/dev/null; wait "$pid"; exit 130' INT TERM

if [ -n "$progress" ]; then
    last=-1
    while kill -0 "$pid" 2>/dev/null; do
        for _ in $(seq "$every"); do
            sleep 1
            kill -0 "$pid" 2>/dev/null || break 2
        done
        total=0 done=0
        for c in "$progress"/*.cpp; do
            [ -e "$c" ] || continue
            total=$((total + 1))
            [ -e "${c%.cpp}.o" ] && done=$((done + 1))
        done
        if [ "$runtime" = 1 ]; then
            for g in $(sed -n '/^VM_GLOBAL_[A-Z]* += /,/^$/p' "$progress"/*_classes.mk 2>/dev/null |
                       grep -v '+=' | tr -d '\\\t '); do
                total=$((total + 1))
                [ -e "$progress/$g.o" ] && done=$((done + 1))
            done
        fi
        if [ "$total" -gt 0 ] && [ "$done" != "$last" ]; then
            say "$what: $done of $total files compiled ($(( $(date +%s) - t0 )) s)"
            last=$done
        fi
    done
fi

wait "$pid"
rc=$?
secs=$(( $(date +%s) - t0 ))
if [ "$rc" != 0 ]; then
    {
        say "$what: FAILED (exit $rc) after $secs s; the last 40 lines of $log:"
        tail -n 40 "$log"
        echo "(the whole log: $log)"
    } >&2
    exit "$rc"
fi
say "$what: done in $secs s"
