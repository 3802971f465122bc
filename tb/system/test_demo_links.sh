#!/usr/bin/env bash
# test_demo_links.sh GR_DEMO GPUREF_SIMD KIND...: the whole co-simulation demo (allocation,
# command path, preemption and cancel, TDR, isolation, residency, conformance) on each simulated
# board kind, through gpuref-simd and the board's link RTL, PHY and chip model (scripts/demo.sh,
# what `make demo DEVICE=KIND` runs). TAP: one test a kind; a failure shows the log's tail.
set -u
demo=$1 simd=$2
shift 2
echo "1..$#"
n=0 fails=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for kind in "$@"; do
    n=$((n + 1))
    t0=$(date +%s)
    if "$(dirname "$0")/../../scripts/demo.sh" "$demo" "$simd" "$kind" >"$log" 2>&1 &&
        grep -q "^demo complete" "$log"; then
        echo "ok $n - the demo on a simulated $kind board ($(($(date +%s) - t0)) s)"
    else
        echo "not ok $n - the demo on a simulated $kind board"
        tail -20 "$log" | sed 's/^/# /'
        fails=$((fails + 1))
    fi
done
[ "$fails" -eq 0 ]
