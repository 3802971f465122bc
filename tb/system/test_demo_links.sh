#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test_demo_links.sh GR_DEMO GPUREF_SIMD KIND...: the whole co-simulation demo (allocation,
# command path, preemption and cancel, TDR, isolation, residency, conformance) on each simulated
# board kind, through gpuref-simd and the board's link RTL, PHY and chip model (scripts/demo.sh,
# what `make demo DEVICE=KIND` runs). KIND broker: the demo unchanged as a client of
# gpuref-broker ($GPUREF_BROKER) on sim://, the broker lending it the device for steps 2 to 5 and
# starting its driver stack again after. TAP: one test a kind; a failure shows the log's tail.
set -u
demo=$1 simd=$2
shift 2
. "$(dirname "$0")/../lib/tap.sh"
tap_init demo
TAP_TAIL=20
tap_plan $#
for kind in "$@"; do
    t0=$(date +%s)
    what="on a simulated $kind board"
    [ "$kind" = broker ] && what="over broker:// (gpuref-broker on sim://: lent the device, driver stack started again)"
    if "$(dirname "$0")/../../scripts/demo.sh" "$demo" "$simd" "$kind" >"$out" 2>&1 &&
        grep -q "^demo complete" "$out" &&
        { [ "$kind" != broker ] || grep -q "gave the device back: driver stack started" "$out"; }; then
        ok "the demo $what ($(($(date +%s) - t0)) s)"
    else
        tail -"$TAP_TAIL" "$out" >"$err"
        bad "the demo $what"
    fi
done
tap_end
