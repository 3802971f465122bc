#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run_fuzz.sh DIR SEED NAME:RUNS...: runs each libFuzzer harness DIR/NAME for RUNS inputs from
# seed SEED, starting from its committed corpus tb/fuzz/corpus/NAME (read only: new inputs go to
# DIR/work/NAME). TAP: one test per harness, with the run count and the exec rate; a failure
# shows the end of the harness's log (the whole log stays in DIR/NAME.log, the crashing input
# in DIR/crash-NAME-*).
set -u
dir=$1 seed=$2
shift 2
echo "1..$#"
echo "# libFuzzer seed=$seed (replay: $0 $dir <seed> NAME:RUNS)"
n=0 failed=0
for spec in "$@"; do
    n=$((n + 1))
    name=${spec%%:*} runs=${spec##*:}
    work=$dir/work/$name
    rm -rf "$work" && mkdir -p "$work"
    log=$dir/$name.log
    if "$dir/$name" -seed="$seed" -runs="$runs" -timeout=300 -rss_limit_mb=4096 -max_len=4096 \
        -artifact_prefix="$dir/crash-$name-" -print_final_stats=1 "$work" "tb/fuzz/corpus/$name" >"$log" 2>&1; then
        done_line=$(grep -E '^Done [0-9]+ runs' "$log" | tail -1)
        rate=$(grep -E '^stat::average_exec_per_sec' "$log" | awk '{print $2}')
        cov=$(grep -E '^#[0-9]+.*DONE' "$log" | grep -oE 'cov: [0-9]+' | tail -1)
        echo "ok $n - $name: ${done_line#Done } (${rate:-?} exec/s, ${cov:-cov ?}, corpus $(ls "tb/fuzz/corpus/$name" | wc -l) + $(ls "$work" | wc -l) new)"
        grep -E "^$name: stats:" "$log" | sed 's/^/# /'
    else
        failed=1
        echo "not ok $n - $name: see $log"
        tail -40 "$log" | sed 's/^/# /'
    fi
done
exit $failed
