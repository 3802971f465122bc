#!/usr/bin/env bash
# check_headers.sh: every public header compiles alone, first thing in a translation unit, as
# C11 and as C++17 with -Wall -Wextra -Werror -pedantic, so a program in either language can
# include any one of them without another before it. TAP on stdout.
#   tb/unit/headers/check_headers.sh OUTDIR HEADER...   (HEADER relative to host/include)
# CC and CXX pick the compilers (gcc, g++). Headers named in NO_PEDANTIC (d3dkmddi.h and the
# dispmprt.h that includes it: the WDK's layout has anonymous structs, which ISO C++ lacks, and
# enumerators past INT_MAX, which ISO C lacks) are checked without -pedantic.
set -u
out=$1
shift
CC=${CC:-gcc}
CXX=${CXX:-g++}
mkdir -p "$out"
echo "1..$(($# * 2))"
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
        pedantic=-pedantic
        case " ${NO_PEDANTIC:-} " in *" $h "*) pedantic= ;; esac
        if log=$("${cmd[@]}" -Wall -Wextra -Werror $pedantic -Ihost/include -fsyntax-only 2>&1); then
            echo "ok $n - $h compiles alone as $lang${pedantic:+ (-pedantic)}"
        else
            echo "not ok $n - $h compiles alone as $lang"
            echo "$log" | head -20 | sed 's/^/# /'
            fails=$((fails + 1))
        fi
    done
done
[ "$fails" -eq 0 ]
