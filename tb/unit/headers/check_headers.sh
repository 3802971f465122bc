#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_headers.sh: every public header compiles alone, first thing in a translation unit, as
# C11 and as C++17 with -Wall -Wextra -Werror -pedantic, so a program in either language can
# include any one of them without another before it. Then what a program writes against them:
# api_use.c (C11) and api_use.cpp (C++17) build under the same flags (cleanup calls ignored
# with (void), GR_WAIT_FOREVER, gr_status_t from every call), and api_unused.c does not (a
# status that matters still cannot be dropped). TAP on stdout.
#   tb/unit/headers/check_headers.sh OUTDIR HEADER...   (HEADER relative to host/include)
# CC and CXX pick the compilers (gcc, g++).
set -u
out=$1
shift
CC=${CC:-gcc}
CXX=${CXX:-g++}
mkdir -p "$out"
echo "1..$(($# * 2 + 3))"
n=0
fails=0
for h in "$@"; do
    name=$(echo "$h" | tr '/.' '__')
    printf '#include "%s"\n#include "%s" /* twice: the include guard holds */\nint gr_header_check_%s;\n' \
        "$h" "$h" "$name" >"$out/$name.c"
    cp "$out/$name.c" "$out/$name.cpp"
    for lang in c c++; do
        n=$((n + 1))
        if [ "$lang" = c ]; then
            cmd=("$CC" -std=c11 -x c "$out/$name.c")
        else
            cmd=("$CXX" -std=c++17 -x c++ "$out/$name.cpp")
        fi
        if log=$("${cmd[@]}" -Wall -Wextra -Werror -pedantic -Ihost/include -fsyntax-only 2>&1); then
            echo "ok $n - $h compiles alone as $lang"
        else
            echo "not ok $n - $h compiles alone as $lang"
            echo "$log" | head -20 | sed 's/^/# /'
            fails=$((fails + 1))
        fi
    done
done
dir=$(dirname "$0")
# Compiled to objects: GCC emits warn_unused_result only past -fsyntax-only.
flags=(-Wall -Wextra -Werror -pedantic -Ihost/include -c)
n=$((n + 1))
if log=$("$CC" -std=c11 "${flags[@]}" -o "$out/api_use_c.o" "$dir/api_use.c" 2>&1); then
    echo "ok $n - api_use.c: (void) on every cleanup call and GR_WAIT_FOREVER build with -Werror (C11)"
else
    echo "not ok $n - api_use.c builds with -Werror (C11)"
    echo "$log" | head -20 | sed 's/^/# /'
    fails=$((fails + 1))
fi
n=$((n + 1))
if log=$("$CXX" -std=c++17 "${flags[@]}" -o "$out/api_use_cxx.o" "$dir/api_use.cpp" 2>&1); then
    echo "ok $n - api_use.cpp: every gr_device.h call returns gr_status_t; (void) cleanups build (C++17)"
else
    echo "not ok $n - api_use.cpp builds with -Werror (C++17)"
    echo "$log" | head -20 | sed 's/^/# /'
    fails=$((fails + 1))
fi
n=$((n + 1))
log=$("$CC" -std=c11 "${flags[@]}" -o "$out/api_unused.o" "$dir/api_unused.c" 2>&1)
if [ $? -ne 0 ] && echo "$log" | grep -q 'unused-result'; then
    echo "ok $n - api_unused.c: dropping gr_device_open's status fails to build (warn_unused_result)"
else
    echo "not ok $n - api_unused.c must fail to build on warn_unused_result"
    echo "$log" | head -20 | sed 's/^/# /'
    fails=$((fails + 1))
fi
[ "$fails" -eq 0 ]
