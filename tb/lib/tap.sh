# SPDX-License-Identifier: Apache-2.0
# tb/lib/tap.sh: what the shell suites share, sourced (`. "$(dirname "$0")/../lib/tap.sh"`):
# TAP lines, checks of a command's exit code and output, the plan and the exit status, and a
# gpuref-simd server started in the background and stopped. Bash; the suite sets `set -u`.
#
# tap_init PREFIX      a private directory ($TAP_DIR, removed on exit, a server in it stopped),
#                      $out and $err (the last check's stdout and stderr), $prev (a copy of the
#                      last check's stdout, for a later check to read) and $server_log
# ok NAME              "ok N - NAME"
# bad NAME             "not ok N - NAME" and the tail of $err (TAP_TAIL lines, default 12)
# skip NAME REASON     "ok N - NAME # SKIP REASON" (tap_summary.py counts it as a skip)
# missing KIND NAME    NAME fails, for want of a KIND board in gpuref-simd
# check NAME WANT CMD...   runs CMD (stdout in $out, stderr in $err) and checks its exit code;
#                      under TAP_TIMEOUT=S (default 0: none) a CMD that runs longer than S
#                      seconds fails (a shell function runs without the limit)
# expect NAME ERE FILE FILE matches the extended regular expression ERE
# truth NAME CMD...    CMD succeeds (a function or builtin too)
# tap_plan N           prints the plan first; tap_end checks that N tests ran
# tap_end              prints the plan if it was not printed first, exits 1 if a test failed
# start_server ARGS... gpuref-simd ($SIMD) --seed $SEED ARGS in the background, waiting for its
#                      banner (the socket listens or the pty is there; at most 60 s); its log is
#                      $server_log. On failure the log is in $err and it returns 1.
# stop_server          SIGTERM, wait; returns the server's exit status (0: a clean stop)
# server_tail          the last lines of $server_log as TAP comments (after a failure)

n=0
fails=0
server=
TAP_TIMEOUT=${TAP_TIMEOUT:-0}
TAP_TAIL=${TAP_TAIL:-12}
tap_planned=

tap_cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; fi
    [ -n "${TAP_DIR:-}" ] && rm -rf "$TAP_DIR"
}

tap_init() {
    TAP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gr-${1:-tap}.XXXXXX")
    out=$TAP_DIR/out
    err=$TAP_DIR/err
    prev=$TAP_DIR/prev
    server_log=$TAP_DIR/server.log
    : >"$out"
    : >"$err"
    : >"$prev"
    trap tap_cleanup EXIT
}

ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() {
    n=$((n + 1))
    fails=$((fails + 1))
    echo "not ok $n - $1"
    [ -s "$err" ] && sed 's/^/# /' "$err" | head -"$TAP_TAIL"
    return 0
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
missing() { echo "no $1 board in this build (sim/sim.mk builds every kind)" >"$err"; bad "$2"; }

check() {
    local name=$1 want=$2 got
    shift 2
    if [ "$TAP_TIMEOUT" -gt 0 ] && ! declare -F "$1" >/dev/null; then
        timeout "$TAP_TIMEOUT" "$@" >"$out" 2>"$err"
    else
        "$@" >"$out" 2>"$err"
    fi
    got=$?
    cp "$out" "$prev"
    if [ "$got" -eq "$want" ]; then
        ok "$name"
        return 0
    fi
    if [ "$TAP_TIMEOUT" -gt 0 ] && [ "$got" -eq 124 ]; then
        echo "# exit $got, wanted $want (timed out after $TAP_TIMEOUT s)"
    else
        echo "# exit $got, wanted $want"
    fi
    # what the command's own output says failed, after its stderr
    grep -E "^not ok|FAIL|stopped|error|timed out" "$out" | head -8 >>"$err"
    bad "$name"
    return 1
}

expect() {
    if grep -Eq -- "$2" "$3"; then
        ok "$1"
        return 0
    fi
    echo "# no /$2/ in $3:"
    sed 's/^/#   /' "$3" | head -"$TAP_TAIL"
    : >"$err"
    bad "$1"
    return 1
}

truth() {
    local name=$1
    shift
    if "$@"; then ok "$name"; else : >"$err"; bad "$name"; fi
}

tap_plan() { tap_planned=$1; echo "1..$1"; }
tap_end() {
    if [ -z "$tap_planned" ]; then
        echo "1..$n"
    elif [ "$n" -ne "$tap_planned" ]; then
        echo "# planned $tap_planned tests, ran $n"
        fails=$((fails + 1))
    fi
    exit $((fails > 0))
}

start_server() {
    # Emptied here, not by the background job's redirection: that runs in the forked child,
    # and until it does, the loop below could read the last server's banner.
    : >"$server_log"
    "$SIMD" --seed "$SEED" "$@" >>"$server_log" 2>&1 &
    server=$!
    local i
    for i in $(seq 1 600); do
        # the banner comes once the socket listens (or the pty is there)
        if grep -Eq "^gpuref-simd: (serving |.* board on /)" "$server_log" 2>/dev/null; then
            return 0
        fi
        kill -0 "$server" 2>/dev/null || break
        sleep 0.1
    done
    cp "$server_log" "$err"
    return 1
}

stop_server() {
    local rc
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
    rc=$?
    server=
    return $rc
}

server_tail() {
    echo "# gpuref-simd's log:"
    tail -20 "$server_log" | sed 's/^/#   /'
}
