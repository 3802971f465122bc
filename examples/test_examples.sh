#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test_examples.sh: the examples built and run against an installed gpuref, as a program outside
# this tree builds them: pkg-config alone gives the compile and link flags. TAP on stdout.
#   examples/test_examples.sh PREFIX OUTDIR [LIBPREFIX]   (PREFIX: where `make install` put
#   gpuref; LIBPREFIX: where `make install-lib` put it, checked to hold the library alone)
# CC and CXX pick the compilers (gcc, g++). The examples run on sim:// with fixed seeds, and as
# clients of the installed gpuref-broker on sim:// (broker://).
set -u
prefix=$1
out=$2
libprefix=${3:-}
CC=${CC:-gcc}
CXX=${CXX:-g++}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# The installed library is found as a system one would be (no rpath in the examples).
export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset GR_DEVICE GR_SIM_FST GR_SIM_AXILOG GR_SIM_SEED

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
    n=$((n + 1))
    echo "not ok $n - $1"
    [ -n "${2:-}" ] && echo "$2" | head -30 | sed 's/^/# /'
    fails=$((fails + 1))
}
# check NAME COMMAND...: passes when COMMAND succeeds; its output is shown on failure.
check() {
    local name=$1 log
    shift
    if log=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$log"; fi
}

plan=22
[ -n "$libprefix" ] && plan=23
echo "1..$plan"

# ---- make install-lib: the library, its headers and gpuref.pc, no programs ----
if [ -n "$libprefix" ]; then
    check "make install-lib installs the library, the headers and gpuref.pc, and no programs" \
        bash -c 'cd "$1" && test -f lib/libgpuref.a -a -f lib/pkgconfig/gpuref.pc -a -f include/gpuref/gr_device.h \
                 -a -f include/d3dkmddi.h && test -L lib/libgpuref.so && test ! -e bin' _ "$libprefix"
fi

# ---- the installed tree ----
check "pkg-config finds gpuref under $prefix" pkg-config --exists gpuref
cflags=$(pkg-config --cflags gpuref)
libs=$(pkg-config --libs gpuref)
soname=$(readelf -d "$prefix/lib/libgpuref.so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ -n "$soname" ] && [ -e "$prefix/lib/$soname" ] && [ -f "$prefix/lib/libgpuref.a" ]; then
    ok "libgpuref.so (soname $soname, the link to it installed) and libgpuref.a installed"
else
    not_ok "libgpuref.so with a soname and libgpuref.a installed" "$(ls -l "$prefix/lib")"
fi
# The API alone is exported: Verilator's and the miniport's symbols stay inside.
others=$(nm -D --defined-only "$prefix/lib/libgpuref.so" | awk '$2 ~ /^[TDBR]$/ && $3 !~ /^gr_/ {print $3}')
if [ -z "$others" ] && nm -D --defined-only "$prefix/lib/libgpuref.so" | grep -q ' T gr_adapter_open$'; then
    ok "libgpuref.so exports the gr_* API and nothing else"
else
    not_ok "libgpuref.so exports the gr_* API and nothing else" "$others"
fi
check "installed gpuctl drives sim:// (gpuctl -d sim:// info)" "$prefix/bin/gpuctl" -d 'sim://?seed=1' info

# ---- fill_copy.c as C ----
# shellcheck disable=SC2086 # the flags are words
check "fill_copy.c compiles as C11 with only pkg-config's flags" \
    $CC -std=c11 -Wall -Wextra -Werror -pedantic "$here/fill_copy.c" $cflags $libs -o "$out/fill_copy"
check "fill_copy (C) links libgpuref.so from $prefix" sh -c "ldd '$out/fill_copy' | grep -q '$prefix/lib/libgpuref.so'"
if log=$("$out/fill_copy" 'sim://?seed=1' 2>&1) && echo "$log" | grep -q "every word reads back"; then
    ok "fill_copy (C) on sim://?seed=1: the copy reads back"
else
    not_ok "fill_copy (C) on sim://?seed=1: the copy reads back" "$log"
fi
# A waveform the library alone closes (GR_SIM_FST, sim://?trace=) is named when it is written.
rm -f "$out/fill_copy.fst"
if log=$(GR_SIM_FST="$out/fill_copy.fst" "$out/fill_copy" 'sim://?seed=1' 2>&1) &&
    echo "$log" | grep -Eq "^gr_sim: wrote $out/fill_copy\.fst \(FST, [0-9.]+ MiB, cycles [0-9]+\.\.[0-9]+\); open with: gtkwave" &&
    [ -s "$out/fill_copy.fst" ]; then
    ok "fill_copy with GR_SIM_FST: the waveform is written and its path printed"
else
    not_ok "fill_copy with GR_SIM_FST: the waveform is written and its path printed" "$log"
fi
if log=$("$out/fill_copy" 'sim://?seed=2&stall=60' 2>&1) && echo "$log" | grep -q "every word reads back"; then
    ok "fill_copy (C) on sim://?seed=2&stall=60: the copy reads back"
else
    not_ok "fill_copy (C) on sim://?seed=2&stall=60: the copy reads back" "$log"
fi

# ---- the same file as C++ ----
# shellcheck disable=SC2086
check "fill_copy.c compiles as C++17 (g++ -x c++) with only pkg-config's flags" \
    $CXX -std=c++17 -Wall -Wextra -Werror -pedantic -x c++ "$here/fill_copy.c" -x none $cflags $libs \
    -o "$out/fill_copy_cxx"
if log=$("$out/fill_copy_cxx" 'sim://?seed=3' 2>&1) && echo "$log" | grep -q "every word reads back"; then
    ok "fill_copy (C++) on sim://?seed=3: the copy reads back"
else
    not_ok "fill_copy (C++) on sim://?seed=3: the copy reads back" "$log"
fi

# ---- a static link: libgpuref.a and pkg-config --static's Libs.private are the whole line ----
static_libs=$(pkg-config --static --libs-only-l --libs-only-other gpuref | sed 's/-lgpuref//')
# shellcheck disable=SC2086
check "fill_copy.c links statically against libgpuref.a with pkg-config --static's libraries" \
    $CC -std=c11 "$here/fill_copy.c" $cflags $(pkg-config --libs-only-L gpuref) \
    -Wl,-Bstatic -lgpuref -Wl,-Bdynamic $static_libs -o "$out/fill_copy_static"
if log=$("$out/fill_copy_static" 'sim://?seed=4' 2>&1) && echo "$log" | grep -q "every word reads back" &&
    ! ldd "$out/fill_copy_static" | grep -q libgpuref; then
    ok "fill_copy (static) on sim://?seed=4: the copy reads back, no libgpuref.so loaded"
else
    not_ok "fill_copy (static) on sim://?seed=4: the copy reads back, no libgpuref.so loaded" "$log"
fi

# ---- easy_copy.c: the convenience layer (gr_easy.h), as C and as C++ ----
# shellcheck disable=SC2086
check "easy_copy.c compiles as C11 with only pkg-config's flags" \
    $CC -std=c11 -Wall -Wextra -Werror -pedantic "$here/easy_copy.c" $cflags $libs -o "$out/easy_copy"
if log=$("$out/easy_copy" 'sim://?seed=5' 2>&1) && echo "$log" | grep -q "every word reads back"; then
    ok "easy_copy (C) on sim://?seed=5: the copy reads back"
else
    not_ok "easy_copy (C) on sim://?seed=5: the copy reads back" "$log"
fi
# shellcheck disable=SC2086
check "easy_copy.c compiles as C++17 (g++ -x c++) with only pkg-config's flags" \
    $CXX -std=c++17 -Wall -Wextra -Werror -pedantic -x c++ "$here/easy_copy.c" -x none $cflags $libs \
    -o "$out/easy_copy_cxx"
if log=$("$out/easy_copy_cxx" 'sim://?seed=6&stall=60' 2>&1) && echo "$log" | grep -q "every word reads back"; then
    ok "easy_copy (C++) on sim://?seed=6&stall=60: the copy reads back"
else
    not_ok "easy_copy (C++) on sim://?seed=6&stall=60: the copy reads back" "$log"
fi

# ---- over broker://: the installed gpuref-broker owns sim://, the examples are its clients ----
bdir=$(mktemp -d "${TMPDIR:-/tmp}/gpuref-examples.XXXXXX")
"$prefix/bin/gpuref-broker" --socket "$bdir/sock" --quiet 'sim://?seed=7' 2>"$bdir/broker.log" &
broker=$!
for _ in $(seq 1 300); do [ -S "$bdir/sock" ] && break; sleep 0.1; done
for ex in fill_copy easy_copy fill_copy_cxx; do
    if log=$("$out/$ex" "broker://$bdir/sock" 2>&1) && echo "$log" | grep -q "every word reads back"; then
        ok "$ex over broker:// (the installed gpuref-broker on sim://): the copy reads back"
    else
        not_ok "$ex over broker:// (the installed gpuref-broker on sim://): the copy reads back" \
            "$log$(printf '\n'; cat "$bdir/broker.log")"
    fi
done
kill "$broker" 2>/dev/null
wait "$broker" 2>/dev/null
rm -rf "$bdir"

# ---- a failed open says why, through the public API ----
log=$("$out/fill_copy" 'sim://?fst=/nonexistent/x.fst' 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && echo "$log" | grep -qF "cannot open FST file '/nonexistent/x.fst': No such file or directory"; then
    ok "fill_copy on sim://?fst=/nonexistent/x.fst exits 2 naming the file and the reason"
else
    not_ok "fill_copy on sim://?fst=/nonexistent/x.fst exits 2 naming the file and the reason" "exit $rc: $log"
fi
log=$("$out/fill_copy" 'bogus://' 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && echo "$log" | grep -q "sim://"; then
    ok "fill_copy on bogus:// exits 2 naming the accepted schemes"
else
    not_ok "fill_copy on bogus:// exits 2 naming the accepted schemes" "exit $rc: $log"
fi

[ "$fails" -eq 0 ]
