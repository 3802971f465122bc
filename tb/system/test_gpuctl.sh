#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test_gpuctl: gpuctl's commands, output and exit codes on sim://, as a user runs them. TAP.
# Usage: test_gpuctl.sh PATH/TO/gpuctl
set -u
GPUCTL=${1:?usage: test_gpuctl.sh PATH/TO/gpuctl}
. "$(dirname "$0")/../lib/tap.sh"
tap_init gpuctl
chain=$TAP_DIR/chain # stdout of a check that several later checks inspect

# What this build's register map says the header holds (the generated header is the source).
REGS_H="$(dirname "$0")/../../host/include/gpuref/gr_regs.h"
reset_of() { printf '%d' "$(sed -n "s/^#define GPU_REGS__$1_reset \(0x[0-9a-f]*\)$/\1/p" "$REGS_H")"; }
V_MAJOR=$(reset_of ID_VERSION__MAJOR)
V_MINOR=$(reset_of ID_VERSION__MINOR)
V_PATCH=$(reset_of ID_VERSION__PATCH)
CAP_DMA=$(reset_of ID_CAPS__DMA)
yes_no() { [ "$1" = 1 ] && echo yes || echo no; }
py_bool() { [ "$1" = 1 ] && echo True || echo False; }

check "--help exits 0" 0 "$GPUCTL" --help
expect "--help lists the commands" "conformance" "$out"
check "no command is a usage error" 2 "$GPUCTL"
check "unknown command is a usage error" 2 "$GPUCTL" -d sim:// frobnicate
expect "unknown command is named" "unknown command 'frobnicate'" "$err"

check "info on sim:// succeeds" 0 "$GPUCTL" -d sim:// info
expect "info shows the magic" "ID_MAGIC 0x47505552 \"GPUR\"" "$out"
expect "info shows the map version and that it matches" \
    "version $V_MAJOR\.$V_MINOR\.$V_PATCH, hash 0x[0-9a-f]{8} \(matches this host\)" "$out"
expect "info shows capabilities" "caps +0x0000000$((1 + 2 * CAP_DMA)): MC=yes DMA=$(yes_no "$CAP_DMA")" "$out"

expect "info names the simulation board, the stamp in hex and no date (ID_BUILD, ID_DATE)" \
    "^build +board 0x00 sim \(simulation[^)]*\), stamp 0x[0-9a-f]{6}, date none$" "$out"
check "info --json succeeds" 0 "$GPUCTL" -d sim:// --json info
check "info --json is valid JSON with the magic" 0 python3 -c \
    'import json,sys; d=json.load(open(sys.argv[1])); assert d["magic"]==0x47505552 and d["regmap_matches"] is True and d["caps"]=={"MC":True,"DMA":'"$(py_bool "$CAP_DMA")"'}, d' "$prev"
check "info --json: board 0 is sim, build_date 0 reads none" 0 bash -c \
    '"$0" -d sim:// --json info | python3 -c "import json,sys; d=json.load(sys.stdin); assert (d[\"board\"], d[\"board_name\"], d[\"build_date\"], d[\"build_date_text\"]) == (0, \"sim\", 0, \"none\"), d"' "$GPUCTL"

check "bogus:// fails" 2 "$GPUCTL" -d bogus:// info
expect "bogus:// message names the accepted schemes" "unknown transport scheme 'bogus://'; accepted schemes: sim://" "$err"

check "poke then peek of SCRATCH round-trips" 0 "$GPUCTL" -d sim:// poke SCRATCH 0xcafe1234 peek SCRATCH
expect "peek shows the poked value" "^0x020 SCRATCH +0xcafe1234" "$out"
check "offsets work where names do" 0 "$GPUCTL" -d sim:// poke 0x20 7 peek 32
expect "peek by offset decodes the name" "^0x020 SCRATCH +0x00000007" "$out"

check "peek of a hole is a device error" 3 "$GPUCTL" -d sim:// peek 0x100
expect "the hole's error says bus error" "bus error" "$err"
check "misaligned offset is a usage error" 2 "$GPUCTL" -d sim:// peek 0x22
check "offset past BAR0 is a usage error" 2 "$GPUCTL" -d sim:// peek 0x10000
check "unknown register name is a usage error" 2 "$GPUCTL" -d sim:// peek NOPE
check "value over 32 bits is a usage error" 2 "$GPUCTL" -d sim:// poke SCRATCH 0x100000000

check "regs dumps every register" 0 "$GPUCTL" -d sim:// regs
check "regs lists all registers of the map" 0 bash -c \
    "[ \$(grep -Ec '^0x[0-9a-f]{3} ' '$prev') -eq \$(grep -c '^#define GR_REG_' '$(dirname "$0")/../../host/include/gpuref/gr_regmap.h') ]"
check "peek --json decodes fields" 0 bash -c \
    "'$GPUCTL' -d sim:// --json peek ID_VERSION | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"fields\"]=={\"PATCH\":$V_PATCH,\"MINOR\":$V_MINOR,\"MAJOR\":$V_MAJOR}, d'"

# ---- the command line, as the tools beside it (git, ip) have it ------------------------------
# help: the whole usage and each command's; --version; global options anywhere on the line.
check "gpuctl help exits 0" 0 "$GPUCTL" help
expect "... and lists the commands" "^  conformance +register conformance suite" "$out"
check "gpuctl help peek exits 0" 0 "$GPUCTL" help peek
expect "... with peek's synopsis" "^usage: gpuctl .*peek REG" "$out"
expect "... and what REG may be (REG.FIELD too)" "NAME\.FIELD \(DMA_STATUS\.IDLE\)" "$out"
check "peek --help is peek's help, not a register name" 0 "$GPUCTL" peek --help
expect "... peek's synopsis" "^usage: gpuctl .*peek REG" "$out"
check "--help peek is peek's help too (as git --help log)" 0 "$GPUCTL" --help peek
expect "... peek's synopsis" "^usage: gpuctl .*peek REG" "$out"
check "alloc 4K -h is alloc's help (the line's other words do not matter)" 0 "$GPUCTL" alloc 4K -h
expect "... alloc's options" "--read-only-share +shared, and opened read-only" "$out"
check "help of a command that does not exist is a usage error" 2 "$GPUCTL" help frob
expect "... naming it" "no command named 'frob'" "$err"
GPUREF_VERSION=$(sed -n 's/^GPUREF_VERSION := //p' "$(dirname "$0")/../../host/host.mk")
check "--version exits 0" 0 "$GPUCTL" --version
expect "... and prints the build's version and commit" \
    "^gpuctl ${GPUREF_VERSION//./\\.}( \(commit [0-9a-f]{7,}(-dirty)?\))?$" "$out"
check "global options after the command: info -d sim://" 0 "$GPUCTL" info -d sim://
expect "... run info" "^device +gpuref gpu_core" "$out"
check "... and -d after the command is the device opened" 2 "$GPUCTL" info -d bogus://
expect "... so bogus:// is refused" "unknown transport scheme 'bogus://'" "$err"
check "--json between commands applies to the whole line" 0 "$GPUCTL" poke SCRATCH 3 --json peek SCRATCH
check "... every document JSON" 0 python3 -c \
    'import json,sys; d=[json.loads(l) for l in open(sys.argv[1])]; assert [x["command"] for x in d]==["poke","peek"] and d[1]["value"]==3, d' "$prev"
check "an unknown global option is a usage error" 2 "$GPUCTL" -x info
expect "... naming it" "unknown option '-x'" "$err"
check "an option after a command that takes none is a usage error" 2 "$GPUCTL" info --frob
expect "... saying where options go" "unknown option '--frob': the global options are" "$err"

# did you mean: a slip of a command, register or field gets the closest name; a word far from
# every name gets none.
check "a slip of a command is a usage error" 2 "$GPUCTL" -d sim:// inof
expect "... with the command it is a slip of" "unknown command 'inof'; did you mean 'info'\?" "$err"
check "a word far from every command" 2 "$GPUCTL" -d sim:// frobnicate
check "... gets no hint" 0 test "$(grep -c 'did you mean' "$err")" = 0
check "a slip of a register name is a usage error" 2 "$GPUCTL" -d sim:// peek SCRACTH
expect "... with the register it is a slip of" "no register named 'SCRACTH'; did you mean 'SCRATCH'\?" "$err"
check "a slip of a field name is a usage error" 2 "$GPUCTL" -d sim:// peek dma_status.idel
expect "... with the field it is a slip of" "DMA_STATUS has no field named 'idel'; did you mean 'IDLE'\?" "$err"

# version: as --version; alone on the line.
check "gpuctl version exits 0" 0 "$GPUCTL" version
expect "... and prints what --version prints" \
    "^gpuctl ${GPUREF_VERSION//./\\.}( \(commit [0-9a-f]{7,}(-dirty)?\))?$" "$out"
check "gpuctl --json version" 0 "$GPUCTL" --json version
check "... is one document with the version" 0 python3 -c \
    'import json,sys; d=json.load(open(sys.argv[1])); assert d["command"]=="version" and d["version"]==sys.argv[2], d' \
    "$prev" "$GPUREF_VERSION"
check "version with a command after it is a usage error" 2 "$GPUCTL" version info
check "version after a command is a usage error" 2 "$GPUCTL" -d sim:// info version
expect "... saying it stands alone" "version stands alone on the line" "$err"
check "gpuctl help version" 0 "$GPUCTL" help version
expect "... its synopsis" "^usage: gpuctl \[--json\] version$" "$out"

# regs PATTERN: only the registers whose name holds it (any case), or matches it as a glob.
REGMAP_H="$(dirname "$0")/../../host/include/gpuref/gr_regmap.h"
reg_names() { sed -n 's/^#define GR_REG_\([A-Z0-9_]*\) .*/\1/p' "$REGMAP_H"; }
check "regs DMA" 0 "$GPUCTL" -d sim:// regs DMA
cp "$out" "$chain"
check "... every register whose name holds DMA, and no other" 0 test \
    "$(grep -E '^0x[0-9a-f]{3} ' "$chain" | awk '{print $2}' | tr '\n' ' ')" = "$(reg_names | grep DMA | tr '\n' ' ')"
check "... and there are some" 0 test "$(grep -cE '^0x[0-9a-f]{3} ' "$chain")" -gt 3
check "regs 'dma_ctrl*' (a glob, any case)" 0 "$GPUCTL" -d sim:// regs 'dma_ctrl*'
check "... the names it matches" 0 test \
    "$(grep -E '^0x[0-9a-f]{3} ' "$prev" | awk '{print $2}' | tr '\n' ' ')" = "$(reg_names | grep '^DMA_CTRL' | tr '\n' ' ')"
check "regs PATTERN then another command" 0 "$GPUCTL" -d sim:// regs SCRATCH peek SCRATCH
check "... regs shows one register, then peek runs" 0 test "$(grep -cE '^0x020 SCRATCH' "$prev")" = 2
check "regs followed by a command word is the whole dump, then the command" 0 "$GPUCTL" -d sim:// regs info
expect "... info ran" "^device +gpuref gpu_core" "$out"
check "regs of a pattern no name holds is a usage error" 2 "$GPUCTL" -d sim:// regs NOSUCHREG
expect "... saying so" "regs: no register name contains 'NOSUCHREG'" "$err"
check "regs --json DMA_STATUS" 0 "$GPUCTL" -d sim:// --json regs DMA_STATUS
check "... one document, the pattern and the one register" 0 python3 -c \
    'import json,sys; d=json.load(open(sys.argv[1])); assert d["pattern"]=="DMA_STATUS" and [r["name"] for r in d["registers"]]==["DMA_STATUS"], d' "$prev"

# JSON a tool reads whole: JSON Lines, and register contents and offsets as hex strings beside
# the numbers.
check "--json info peek poke regs" 0 "$GPUCTL" -d sim:// --json info peek SCRATCH poke SCRATCH 0xcafe \
    peek DMA_STATUS.IDLE regs ID_MAGIC
cp "$out" "$chain"
check "... JSON Lines python3 -m json.tool reads" 0 python3 -m json.tool --json-lines "$chain"
check "... with KEY_hex beside register values and offsets" 0 python3 -c '
import json, sys
d = [json.loads(l) for l in open(sys.argv[1])]
info, peek, poke, field, regs = d
assert info["magic"] == 0x47505552 and info["magic_hex"] == "0x47505552", info
assert info["regmap_hash_hex"] == "0x%08x" % info["regmap_hash"], info
assert info["caps_value_hex"] == "0x%08x" % info["caps_value"], info
assert peek["offset"] == 0x20 and peek["offset_hex"] == "0x020" and peek["value_hex"] == "0x%08x" % peek["value"], peek
assert poke["written"] == 0xcafe and poke["written_hex"] == "0x0000cafe" and poke["read_back_hex"] == "0x0000cafe", poke
assert field["value_hex"] == "0x%x" % field["value"] and field["register_hex"] == "0x%08x" % field["register"], field
r = regs["registers"][0]
assert r["name"] == "ID_MAGIC" and r["value_hex"] == "0x47505552", r
assert r["fields_hex"] == {k: "0x%x" % v for k, v in r["fields"].items()}, r
' "$chain"

# Link health as data: sim:// is not a framed link, and says so (simd:// in suite system-simd).
check "info on sim:// names the link" 0 "$GPUCTL" -d sim:// info
expect "... not a framed link" "^link +sim:// is not a framed link: no frames, CRCs or replays to count" "$out"
check "info --json on sim://: the link's fields" 0 bash -c \
    '"$0" -d sim:// --json info | python3 -c "import json,sys; l=json.load(sys.stdin)[\"link\"]; assert (l[\"scheme\"], l[\"framed\"], l[\"up\"], l[\"tx_frames\"], l[\"crc_errors\"]) == (\"sim\", False, True, 0, 0), l"' "$GPUCTL"

# Output that streams: each command's output reaches a pipe when the command ends, not when
# gpuctl exits (stdio would hold it all: the first line came with the last, 51 s later).
check "info's line reaches a pipe long before the commands after it end" 0 bash -c '
"$0" -d sim:// info alloc 8M fill @1 7 read @1 --sum 2>/dev/null | python3 -c "
import sys, time
first = sys.stdin.readline(); t1 = time.monotonic()
rest = sys.stdin.read(); t2 = time.monotonic()
print(\"# first line %.2f s before the end\" % (t2 - t1))
assert first.startswith(\"device \"), first
assert \"crc32\" in rest, rest
assert t2 - t1 > 0.5, t2 - t1
"' "$GPUCTL"
check "--json: each document reaches a pipe as its command ends" 0 bash -c '
"$0" -d sim:// --json info alloc 8M fill @1 7 read @1 --sum 2>/dev/null | python3 -c "
import json, sys, time
first = json.loads(sys.stdin.readline()); t1 = time.monotonic()
rest = [json.loads(l) for l in sys.stdin]; t2 = time.monotonic()
assert first[\"command\"] == \"info\" and [d[\"command\"] for d in rest] == [\"alloc\", \"fill\", \"read\"], rest
assert t2 - t1 > 0.5, t2 - t1
"' "$GPUCTL"

# Progress: on a terminal (stderr a pty), a long command draws a line and erases it; never
# into a file or a pipe, never with --json.
progress_on_pty() {
    python3 - "$@" <<'PY'
import os, pty, re, subprocess, sys, threading
json_mode = sys.argv[1] == "json"
m, s = pty.openpty()
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, stderr=s)
os.close(s)
chunks = []
def drain():
    while True:
        try:
            d = os.read(m, 4096)
        except OSError:
            break
        if not d:
            break
        chunks.append(d)
t = threading.Thread(target=drain)
t.start()
out = p.stdout.read().decode()
rc = p.wait()
t.join(10)
err = b"".join(chunks).decode(errors="replace")
assert rc == 0, (rc, err)
if json_mode:
    assert err == "", repr(err)
else:
    assert re.search(r"\r\x1b\[Kgpuctl: fill @1 7: [0-9]+\.[0-9] s", err), repr(err)
    assert err.endswith("\r\x1b[K"), repr(err[-40:])
assert "\r" not in out and "gpuctl:" not in out, out
PY
}
check "a long fill shows its progress on a terminal's stderr, then erases it" 0 \
    progress_on_pty text "$GPUCTL" -d sim:// alloc 8M fill @1 7
check "... never with --json" 0 progress_on_pty json "$GPUCTL" -d sim:// --json alloc 8M fill @1 7
check "... nor into a file (stderr holds nothing)" 0 bash -c \
    'e=$(mktemp); "$0" -d sim:// alloc 8M fill @1 7 >/dev/null 2>"$e"; r=$?; [ -s "$e" ] && r=1; rm -f "$e"; exit $r' \
    "$GPUCTL"

# --json: one document a line, each with "command"; errors at every stage are documents too.
for bad in "peek SCRACH" "alloc 1Q" "free @9" "peek 0x3"; do
    # shellcheck disable=SC2086
    check "--json $bad: a usage error (exit 2)" 2 "$GPUCTL" -d sim:// --json $bad
    cp "$err" "$chain" # its stderr, which the next check's own would replace
    check "... found while parsing, and still a JSON error document" 0 python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
d = json.loads(lines[0])
assert d["command"] == sys.argv[2] and d["error"] == "usage" and d["message"] in open(sys.argv[3]).read(), d' \
        "$prev" "${bad%% *}" "$chain"
done
check "--json peek 0x100: a device error (exit 3)" 3 "$GPUCTL" -d sim:// --json peek 0x100
check "... a JSON error document with the command" 0 python3 -c \
    'import json,sys; d=json.load(open(sys.argv[1])); assert (d["command"],d["error"],d["offset"])==("peek","GR_E_BUS",256), d' "$prev"
check "--json: a device that cannot be opened" 2 "$GPUCTL" --json -d bogus:// info
check "... is a JSON document of command open" 0 python3 -c \
    'import json,sys; d=json.load(open(sys.argv[1])); assert d["command"]=="open" and d["error"]=="GR_E_BAD_URI" and "bogus://" in d["message"], d' "$prev"
check "--json: an unknown command" 2 "$GPUCTL" --json frobnicate
check "... is a JSON document of the line (command gpuctl)" 0 python3 -c \
    'import json,sys; d=json.load(open(sys.argv[1])); assert d["command"]=="gpuctl" and d["error"]=="usage" and "frobnicate" in d["message"], d' "$prev"
check "--json: every command's document names it" 0 "$GPUCTL" -d sim:// --json info regs poke SCRATCH 1 \
    peek SCRATCH peek SCRATCH.VALUE alloc 4K alloc 4K ls fill @1 1 copy @1 @2 read @2 0 8 free @1 timeline
check "... one document a line, in order" 0 python3 -c '
import json, sys
d = [json.loads(l) for l in open(sys.argv[1])]
assert [x["command"] for x in d] == ["info", "regs", "poke", "peek", "peek", "alloc", "alloc", "ls", "fill",
                                     "copy", "read", "free", "timeline"], [x.get("command") for x in d]
assert len(d[1]["registers"]) > 10 and d[4]["field"] == "VALUE" and d[4]["value"] == 1, d[4]' "$prev"
check "--json conformance names its command" 0 "$GPUCTL" -d sim:// --json conformance
check "... in its document" 0 python3 -c \
    'import json,sys; d=json.load(open(sys.argv[1])); assert d["command"]=="conformance" and d["failed"]==0, d["failed"]' "$prev"
check "2>&1 keeps the order: alloc's document before the error that follows it" 3 \
    bash -c "'$GPUCTL' -d sim:// --json alloc 4K peek 0x100 2>&1"
check "... alloc, then the JSON error, then the message" 0 python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 3, lines
assert json.loads(lines[0])["command"] == "alloc" and json.loads(lines[1])["command"] == "peek", lines
assert lines[2].startswith("gpuctl: read of 0x0100: bus error"), lines' "$prev"
check "2>&1 without --json: the output before the error" 3 bash -c "'$GPUCTL' -d sim:// peek SCRATCH peek 0x100 2>&1"
check "... comes first" 0 bash -c "head -1 '$prev' | grep -q '^0x020 SCRATCH'"

# REG.FIELD: peek prints the field, poke changes only it (read-modify-write).
check "peek DMA_STATUS.IDLE reads one field" 0 "$GPUCTL" -d sim:// peek DMA_STATUS.IDLE
expect "... the idle engine's IDLE bit" "^0x304 DMA_STATUS\.IDLE +0x1$" "$out"
check "poke of a field keeps the register's other fields" 0 "$GPUCTL" -d sim:// --json \
    poke IRQ_ENABLE 0x11 poke IRQ_ENABLE.DMA_FENCE 1 peek IRQ_ENABLE poke irq_enable.mc_fault 1 \
    poke IRQ_ENABLE.RESET_DONE 0 peek IRQ_ENABLE peek IRQ_ENABLE.DMA_FENCE
check "... 0x11, then 0x15, then 0x16" 0 python3 -c '
import json, sys
d = [json.loads(l) for l in open(sys.argv[1])]
assert d[1]["written"] == 0x15 and d[2]["value"] == 0x15, d[1:3]
assert d[5]["value"] == 0x16 and d[6] == {"command": "peek", "offset": 0x44, "offset_hex": "0x044", "name": "IRQ_ENABLE",
    "field": "DMA_FENCE", "value": 1, "value_hex": "0x1", "register": 0x16, "register_hex": "0x00000016"}, d[5:]
assert not any("warning" in x for x in d), d' "$prev"
check "a value wider than the field is a usage error" 2 "$GPUCTL" -d sim:// poke IRQ_ENABLE.DMA_FENCE 2
expect "... naming the field's range" "IRQ_ENABLE\.DMA_FENCE is 1 bit wide: '2' is out of range \(0 to 0x1\)" "$err"
check "a field the register does not have is a usage error" 2 "$GPUCTL" -d sim:// peek SCRATCH.NOPE
expect "... listing its fields" "SCRATCH has no field named 'NOPE' \(its fields: VALUE\)" "$err"
check "poke of a read-only register succeeds" 0 "$GPUCTL" -d sim:// poke ID_MAGIC 0
expect "... with a warning that it did not stick" \
    "warning: poke ID_MAGIC: the write did not stick: reads back 0x47505552, not 0x00000000 \(the register is read-only\)" "$err"
check "... and in --json a warning member" 0 bash -c \
    "'$GPUCTL' -d sim:// --json poke ID_MAGIC 0 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"read_back\"]==0x47505552 and \"did not stick\" in d[\"warning\"], d'"
check "a poke that sticks has no warning" 0 "$GPUCTL" -d sim:// poke SCRATCH 0x5a5a
check "... stderr empty" 0 test ! -s "$err"

# Sizes: the parser accepts what its message says, and a buffer too big is "no room" at any size.
check "alloc 1T is a size the parser accepts (no segment holds it: exit 3)" 3 "$GPUCTL" -d sim:// alloc 1T
expect "... refused as no room" "alloc 1T: no segment it may use has room \(1 TiB asked; the largest segment holds 256 MiB\)" "$err"
check "alloc 2T is past the parser's range (exit 2)" 2 "$GPUCTL" -d sim:// alloc 2T
expect "... which the message states" "'2T' is not a size \(1 byte to 1 TiB: " "$err"
for size in 4G 5G 64G; do
    check "alloc $size: no segment has room (exit 3), as for 1G" 3 "$GPUCTL" -d sim:// --json alloc "$size"
    check "... GR_E_NO_MEMORY, not a refused combination" 0 python3 -c \
        'import json,sys; d=json.load(open(sys.argv[1])); assert d["command"]=="alloc" and d["error"]=="GR_E_NO_MEMORY" and "no segment it may use has room" in d["message"], d' "$prev"
done

# regs: columns line up however long a register's name is.
check "regs" 0 "$GPUCTL" -d sim:// regs
check "... the value column is at one place on every register line, the bits on every field line" 0 python3 -c '
import re, sys
lines = open(sys.argv[1]).read().splitlines()
regs = [re.search(r" 0x[0-9a-f]{8}  ", l).start() for l in lines if re.match(r"^0x[0-9a-f]{3} ", l)]
bits = [l.index("[") for l in lines if l.startswith("    ")]
assert len(regs) > 10 and len(set(regs)) == 1, sorted(set(regs))
assert len(bits) > 10 and len(set(bits)) == 1, sorted(set(bits))' "$prev"

# Exit status, one check a class (host/README.md, gpuctl --help).
check "exit 0: success" 0 "$GPUCTL" -d sim:// peek SCRATCH
check "exit 1: checks failed (VPR_CTRL.LOCK set: conformance's VPR checks cannot write)" 1 \
    "$GPUCTL" -d sim:// poke VPR_CTRL.LOCK 1 conformance
expect "... the failing check named" "^FAIL VPR_CTRL " "$out"
check "exit 2: usage error" 2 "$GPUCTL" -d sim:// peek
check "exit 3: device or access error" 3 "$GPUCTL" -d sim:// peek 0x100

# Messages name the variable or URI they come from, a file's path and the system's reason, and
# the accepted range.
check "GR_SIM_SEED=abc is refused" 2 env GR_SIM_SEED=abc "$GPUCTL" info
expect "... naming the variable" "GR_SIM_SEED='abc' is not a seed \(accepted: 0\.\." "$err"
check "GR_DEVICE=usb:// is refused" 2 env GR_DEVICE=usb:// "$GPUCTL" info
expect "... naming the variable" "GR_DEVICE='usb://': usb:// names a chip" "$err"
check "sim://?fst= a path that cannot be opened" 3 "$GPUCTL" -d 'sim://?fst=/nonexistent/x.fst' info
expect "... names the path and the reason" "cannot open FST file '/nonexistent/x\.fst': No such file or directory" "$err"
check "GR_SIM_FST= a path that cannot be opened" 3 env GR_SIM_FST=/nonexistent/y.fst "$GPUCTL" info
expect "... names the path, the variable and the reason" \
    "cannot open FST file '/nonexistent/y\.fst' from GR_SIM_FST: No such file or directory" "$err"
check "sim://?stall=95 is refused" 2 "$GPUCTL" -d 'sim://?stall=95' info
expect "... with the accepted range" "bad value '95' for stall \(accepted: 0\.\.90" "$err"
check "GR_SIM_AXI=bogus is refused" 2 env GR_SIM_AXI=bogus "$GPUCTL" info
expect "... naming the variable and the accepted orders" \
    "GR_SIM_AXI='bogus' is not an AXI order \(accepted: any, awaitw, awaitwlast, wawaitaw\)" "$err"
check "GR_SIM_REORDER=2 is refused" 2 env GR_SIM_REORDER=2 "$GPUCTL" info
expect "... naming the variable and the range" "GR_SIM_REORDER='2' is neither 0 nor 1 \(accepted: 0\.\.1\)" "$err"
check "GR_SIM_STALL_RUN=0 is refused" 2 env GR_SIM_STALL_RUN=0 "$GPUCTL" info
expect "... naming the variable and the range" "GR_SIM_STALL_RUN='0' is out of range \(accepted: 1\.\.1000" "$err"
check "simd:// with GR_SIMD_SOCKET naming no server" 3 env GR_SIMD_SOCKET=/nonexistent/s.sock "$GPUCTL" -d simd:// info
expect "... names the variable, the path and the reason" \
    "GR_SIMD_SOCKET='/nonexistent/s\.sock': simd:///nonexistent/s\.sock: cannot connect to /nonexistent/s\.sock: No such file or directory" "$err"

# ---- allocations: alloc, free, ls (the miniport and VidMm over gpuctl's own link) ----------
# sim:// defaults to 512 MiB of VRAM: segment 1 is the 256 MiB BAR1 window, segment 2 the rest
# with the VPR in its top 1/16 (16 MiB, 4 of the map's 64 cells). The device's root page table
# takes the first page of segment 2, so a 64 KiB-aligned buffer there starts at 0x10000.
check "--help lists alloc, free and ls" 0 "$GPUCTL" --help
expect "--help shows alloc's options" "alloc SIZE\|WxH \[OPTION\.\.\.\]" "$out"
expect "--help shows free and ls" "free HANDLE.*" "$out"
expect "--help names the map characters" "'#' allocated" "$out"

check "alloc, alloc, ls, free, ls chain on one device" 0 "$GPUCTL" -d sim:// alloc 1M alloc 64K --cpu-visible ls free @1 ls
expect "alloc @1: GPU-only 1 MiB in segment 2 after the root page table, first GPU VA" \
    "^@1 handle 0x[0-9a-f]{8}: buffer, size 1 MiB, segment 2 offset 0x10000 \(VRAM 0x10010000\), GPU VA 0x100000000, flags none$" "$out"
expect "alloc @2: CPU-visible 64 KiB at the start of segment 1, next 2 MiB VA slot" \
    "^@2 handle 0x[0-9a-f]{8}: buffer, size 64 KiB, segment 1 offset 0x0 \(VRAM 0x0\), GPU VA 0x100200000, flags CpuVisible$" "$out"
cp "$out" "$chain"
h1=$(sed -n 's/^@1 handle \(0x[0-9a-f]*\):.*/\1/p' "$chain" | head -1)
h2=$(sed -n 's/^@2 handle \(0x[0-9a-f]*\):.*/\1/p' "$chain" | head -1)
check "the two handles differ and are not 0" 0 test -n "$h1" -a -n "$h2" -a "$h1" != "$h2" -a "$h1" != 0x00000000
check "the first ls lists both, the second only @2" 0 bash -c \
    "[ \"\$(grep -c '^allocations: ' '$chain')\" = 2 ] && grep -q '^allocations: 2$' '$chain' && grep -q '^allocations: 1$' '$chain' &&
     [ \"\$(grep -c '^  @1 handle $h1: ' '$chain')\" = 1 ] && [ \"\$(grep -c '^  @2 handle $h2: ' '$chain')\" = 2 ]"
expect "free names the freed handle" "^freed @1 handle $h1$" "$chain"
expect "segment 1 line: base, size, CPU-visible, one allocation" \
    "^segment 1: base 0x0, 256 MiB, CPU-visible; 255.94 MiB free \(largest 255.94 MiB\), 1 allocation$" "$chain"
expect "segment 1 map: 64 KiB partly fills the first 4 MiB cell, the rest free" \
    "^  0x0000000000 \|\+\.{63}\| 0x0010000000$" "$chain"
expect "segment 2 line: the VPR's 16 MiB at +0xf000000" "^segment 2: base 0x10000000, 256 MiB, VPR 16 MiB at \+0xf000000; " "$chain"
expect "segment 2 map: page tables and @1 in the first cell, the VPR's 4 cells free" \
    "^  0x0010000000 \|\+\.{59}vvvv\| 0x0020000000$" "$chain"

check "alloc/ls/free --json" 0 "$GPUCTL" -d sim:// --json alloc 1M alloc 64K --cpu-visible ls free @1 ls
check "--json: real offsets, sizes, VAs, flags; ls maps and ranges; free" 0 python3 - "$prev" <<'PY'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
assert len(docs) == 5, len(docs)
a1, a2, ls1, fr, ls2 = docs
assert (a1["ref"], a1["segment"], a1["offset"], a1["vram_address"], a1["size"], a1["alignment"],
        a1["gpu_va"], a1["flags_wddm2"], a1["flags"], a1["bus_address"]) == \
       (1, 2, 0x10000, 0x10010000, 1 << 20, 1 << 16, 1 << 32, 0, [], 0), a1
assert (a2["segment"], a2["offset"], a2["size"], a2["gpu_va"], a2["flags_wddm2"], a2["flags"], a2["creator"]) == \
       (1, 0, 65536, (1 << 32) + (2 << 20), 1, ["CpuVisible"], True), a2
assert a1["handle"] != a2["handle"] and a1["handle"] and a2["handle"]
assert [x["handle"] for x in ls1["allocations"]] == [a1["handle"], a2["handle"]]
s1, s2 = ls1["segments"]
assert (s1["id"], s1["base"], s1["size"], s1["cpu_visible"], s1["vpr"], s1["allocations"]) == (1, 0, 256 << 20, True, False, 1), s1
assert (s2["base"], s2["size"], s2["vpr"], s2["vpr_offset"], s2["vpr_size"]) == (256 << 20, 256 << 20, True, 0xf000000, 16 << 20), s2
for s in (s1, s2):  # the ranges tile the segment in address order
    pos = 0
    for r in s["ranges"]:
        assert r["offset"] == pos and r["size"] > 0, (s["id"], r, pos)
        pos += r["size"]
    assert pos == s["size"]
    assert sum(r["size"] for r in s["ranges"] if r["kind"] == "free") == s["free_bytes"]
    assert len(s["map"]) == 64
assert [r for r in s1["ranges"] if r["kind"] == "allocation"] == [{"offset": 0, "size": 65536, "kind": "allocation"}]
assert s1["map"] == "+" + "." * 63 and s1["free_bytes"] == (256 << 20) - 65536
assert {"offset": 0x10000, "size": 1 << 20, "kind": "allocation"} in s2["ranges"]
assert sum(r["size"] for r in s2["ranges"] if r["kind"] == "vpr_free") == 16 << 20
assert s2["map"].endswith("vvvv") and s2["map"][0] == "+" and set(s2["map"][1:60]) == {"."}, s2["map"]
assert fr == {"command": "free", "ref": 1, "freed": [a1["handle"]], "live": False}, fr
assert [x["handle"] for x in ls2["allocations"]] == [a2["handle"]]
t1, t2 = ls2["segments"]
assert t2["free_bytes"] >= s2["free_bytes"] + (1 << 20), (t2["free_bytes"], s2["free_bytes"])
assert not any(r["offset"] == 0x10000 and r["kind"] == "allocation" for r in t2["ranges"])
PY

check "alloc options: placement, VPR, system memory, sharing, surfaces" 0 "$GPUCTL" -d sim:// --json \
    alloc 4K --cpu-visible --from-end alloc 1M --vpr alloc 8K --existing-sysmem --cpu read-write \
    alloc 64K --read-only-share alloc 640x480 --format X8R8G8B8 --mips 2 alloc 64K --overlay --no-large-pages ls
check "--json: each option has its effect" 0 python3 - "$prev" <<'PY'
import json, sys
fe, vpr, sysm, sh, surf, ov, ls = [json.loads(l) for l in open(sys.argv[1])]
seg = {s["id"]: s for s in ls["segments"]}
# FromEndOfSegment: the top page of segment 1 below its Overlay/Capture range (the last fifth,
# page-aligned up), which VidMm keeps for them while ordinary allocations fit below.
floor = -(-((256 << 20) // 5 * 4) // 4096) * 4096
assert (fe["segment"], fe["offset"], fe["flags"]) == (1, floor - 4096, ["CpuVisible", "FromEndOfSegment"]), fe
# CreateInVpr: inside segment 2's VPR, which shows it in its ranges.
s2 = seg[2]
assert vpr["segment"] == 2 and s2["vpr_offset"] <= vpr["offset"] and vpr["offset"] + vpr["size"] <= s2["vpr_offset"] + s2["vpr_size"], vpr
assert vpr["flags"] == ["CreateInVpr", "HardwareProtected"]
assert {"offset": vpr["offset"], "size": 1 << 20, "kind": "allocation"} in s2["ranges"]
# ExistingSysMem: host memory the device reaches, mapped at a GPU VA, no VRAM.
assert (sysm["segment"], sysm["vram_address"], sysm["size"]) == (0, 0, 8192), sysm
assert sysm["bus_address"] >= 1 << 32 and sysm["bus_address"] % 4096 == 0 and sysm["gpu_va"] != 0
assert sysm["flags"] == ["CpuVisible", "Cached", "ExistingSysMem"], sysm["flags"]
# --read-only-share: the peer process's read-only open of the same VRAM.
p = sh["peer"]
assert sh["shared"] != 0 and p["shared"] == sh["shared"] and p["read_only"] and not p["creator"] and p["process"] == "peer"
assert p["vram_address"] == sh["vram_address"] and p["handle"] != sh["handle"] and p["gpu_va"] != 0
# 640x480 X8R8G8B8, 2 mips: pitch 2560 x 480 = 1228800, mip 1 1280 x 240 = 307200 -> 1536000 bytes.
assert (surf["kind"], surf["size"], surf["alignment"], surf["offset"] % 65536) == ("surface 640x480 X8R8G8B8", 1536000, 65536, 0), surf
# Overlay: in the last fifth of its segment; 4 KiB alignment without large pages.
so = seg[ov["segment"]]
assert ov["offset"] * 5 >= so["size"] * 4 and ov["alignment"] == 4096 and ov["flags"] == ["DisableLargePageMapping", "Overlay"], ov
ls_handles = [(a["handle"], a["process"]) for a in ls["allocations"]]
assert len(ls_handles) == 7 and (p["handle"], "peer") in ls_handles, ls_handles
PY
h_other=$("$GPUCTL" -d sim:// alloc 4K | sed -n 's/^@1 handle \(0x[0-9a-f]*\):.*/\1/p')
check "a handle printed by another run means nothing here (sim:// devices end with gpuctl)" 2 \
    "$GPUCTL" -d sim:// alloc 4K free "$h_other"
expect "... and is named" "free $h_other: no allocation of this run has that handle" "$err"

# ---- bad input: a clear error, exit 2, nothing done ----
check "alloc without a size is a usage error" 2 "$GPUCTL" -d sim:// alloc
expect "alloc without a size says what it takes" "alloc takes a size" "$err"
check "alloc 0 is a usage error" 2 "$GPUCTL" -d sim:// alloc 0
check "a size with a bad unit is a usage error" 2 "$GPUCTL" -d sim:// alloc 12Q
expect "the bad size is named" "'12Q' is not a size" "$err"
check "an unknown alloc option is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K --frob
expect "the unknown option is named" "unknown alloc option '--frob'" "$err"
check "contradicting CPU access options are a usage error" 2 "$GPUCTL" -d sim:// alloc 4K --cpu-visible --on-demand
check "--cpu with an unknown mode is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K --cpu sometimes
check "surface options on a buffer are a usage error" 2 "$GPUCTL" -d sim:// alloc 4K --mips 2
check "a bad WxH is a usage error" 2 "$GPUCTL" -d sim:// alloc 640x
check "a usage error later in the chain runs nothing" 2 "$GPUCTL" -d sim:// alloc 4K alloc 4K --frob
check "... so nothing was printed" 0 test ! -s "$prev"
check "free @N before the N-th alloc is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K free @2
expect "free @2 says how many allocs come before it" "free @2: only 1 alloc command comes before it" "$err"
check "free of a handle this run does not have is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K free 0x1234
expect "the unknown handle is named" "free 0x00001234: no allocation of this run has that handle" "$err"
check "free 0 is a usage error" 2 "$GPUCTL" -d sim:// free 0
check "double free is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K free @1 free @1
expect "double free says so" "free @1: already freed" "$err"
check "conformance after alloc is a usage error (its reset would pull the memory away)" 2 "$GPUCTL" -d sim:// alloc 4K conformance
check "a combination the miniport refuses is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K --cached
expect "the refusal says the driver refused, and why it matters" "alloc 4K --cached: the driver refuses this combination.*GR_E_INVALID" "$err"
check "... with --json, a JSON error and no allocation" 2 "$GPUCTL" -d sim:// --json alloc 4K --vpr --cpu-visible
check "--json refusal document" 0 python3 -c \
    'import json,sys; d=[json.loads(l) for l in open(sys.argv[1])]; assert d==[{"command":"alloc","error":"GR_E_INVALID","message":d[0]["message"]}] and "--vpr" in d[0]["message"], d' "$prev"
check "an allocation no segment can hold is a device error" 3 "$GPUCTL" -d sim:// alloc 1G --cpu-visible
expect "no room is said" "no segment it may use has room" "$err"

# ---- the command path: copy, fill, read, bench, timeline (VidSch, the miniport, the DMA engine) --
# Every packet runs through gr_submit on one GPU context of gpuctl's device; the engine's own
# copies are checked by reading back, through the engine and through a CPU lock (BAR1).
crc_of() { python3 -c 'import sys,zlib; print("0x%08x" % zlib.crc32(eval(sys.argv[1])))' "$1"; }
check "--help lists copy, fill, read, bench and timeline" 0 "$GPUCTL" --help
expect "--help shows copy's syntax" "copy SRC DST \[BYTES\] \[--src-offset N\] \[--dst-offset N\]" "$out"
expect "--help shows fill, read and bench" "fill DST PATTERN .*" "$out"
expect "--help shows read's options" "read SRC \[OFFSET\] \[LENGTH\] \[--sum\] \[--cpu\]" "$out"
expect "--help shows bench and timeline" "timeline +the scheduler's events" "$out"

check "fill, copy, read, copy with offsets, read by CPU lock, timeline: one chain" 0 "$GPUCTL" -d sim:// \
    alloc 1M alloc 1M alloc 64K --cpu-visible fill @1 0x11223344 copy @1 @2 read @2 --sum \
    copy @2 @3 16K --src-offset 8K --dst-offset 32K read @3 0 64K --cpu --sum read @3 32K 32 timeline
cp "$out" "$chain"
expect "fill reports bytes, engine cycles, bytes a cycle and the bus share" \
    "^fill @1\+0x0 with 0x11223344: 1 MiB in [0-9]+ cycles, [0-9]\.[0-9]{2} B/cycle \([0-9.]+% of the 8-byte bus\); submit to fence [0-9]+ cycles$" "$chain"
expect "copy reports the same" "^copy @1\+0x0 -> @2\+0x0: 1 MiB in [0-9]+ cycles, [0-9]\.[0-9]{2} B/cycle" "$chain"
check "a 1 MiB copy takes at least 131072 cycles (8 bytes a cycle at most)" 0 bash -c \
    "c=\$(sed -n 's/^copy @1+0x0 -> @2+0x0: 1 MiB in \([0-9]*\) cycles.*/\1/p' '$chain'); [ \"\$c\" -ge 131072 ] && [ \"\$c\" -lt 1000000 ]"
expect "the copied 1 MiB reads back (through the engine) as the fill's pattern" \
    "^@2: 1 MiB at \+0x0 through the DMA engine, crc32 $(crc_of "bytes.fromhex('44332211') * (1 << 18)")$" "$chain"
expect "16 KiB at +8K landed at +32K of the CPU-visible buffer, nothing else (read by a CPU lock)" \
    "^@3: 64 KiB at \+0x0 through a CPU lock \(BAR1\), crc32 $(crc_of "bytes(32768) + bytes.fromhex('44332211') * 4096 + bytes(16384)")$" "$chain"
expect "read shows a hexdump with the allocation's offsets" \
    "^@3\+00008000  44 33 22 11 44 33 22 11  44 33 22 11 44 33 22 11  \|D3\"\.D3\"\.D3\"\.D3\"\.\|$" "$chain"
expect "timeline: ten events, header first" "^timeline: 10 events$" "$chain"
check "timeline: five packets, each submitted then completed, cycles never going back" 0 python3 - "$chain" <<'PY'
import re, sys
rows = [l.split() for l in open(sys.argv[1]) if re.match(r"^ +[0-9]+ +[0-9]+  (submit|complete) ", l)]
assert len(rows) == 10, rows
assert [r[2] for r in rows] == ["submit", "complete"] * 5, rows
assert [int(r[4]) for r in rows] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5], rows          # the context's fences
cycles = [int(r[0]) for r in rows]
assert cycles == sorted(cycles) and cycles[1] - cycles[0] >= 131072, cycles        # the 1 MiB fill took time
assert len({r[3] for r in rows}) == 1                                              # one context
PY

check "the same with --json" 0 "$GPUCTL" -d sim:// --json alloc 64K alloc 64K fill @1 0xa5a5a5a5 \
    copy @1 @2 4K --dst-offset 8 read @2 0 16 read @2 --sum bench --sizes 4K,64K --runs 1 timeline
check "--json: copy, read, bench and timeline documents hold real numbers" 0 python3 - "$prev" <<'PY'
import json, sys, zlib
a1, a2, fl, cp, rd, sm, bn, tl = [json.loads(l) for l in open(sys.argv[1])]
assert (fl["command"], fl["dst"], fl["pattern"], fl["bytes"]) == ("fill", "@1", 0xa5a5a5a5, 65536), fl
assert (cp["command"], cp["src"], cp["dst"], cp["src_space"], cp["bytes"], cp["dst_offset"]) == ("copy", "@1", "@2", "gpuva", 4096, 8), cp
assert cp["src_address"] == a1["gpu_va"] and cp["dst_address"] == a2["gpu_va"] + 8, cp
assert cp["cycles"] >= 4096 // 8 and cp["submit_to_fence_cycles"] >= cp["cycles"], cp
assert abs(cp["bytes_per_cycle"] - 4096 / cp["cycles"]) < 1e-3 and abs(cp["bus_percent"] - cp["bytes_per_cycle"] * 12.5) < 0.01, cp
assert rd["data"] == "00" * 8 + "a5" * 8 and rd["crc32"] == zlib.crc32(bytes.fromhex(rd["data"])) and rd["via"] == "engine", rd
assert sm["bytes"] == 65536 and "data" not in sm
assert sm["crc32"] == zlib.crc32(bytes(8) + b"\xa5" * 4096 + bytes(65536 - 4104)), sm
assert bn["addressing"] == "gpuva" and bn["verified"] is True and [r["size"] for r in bn["results"]] == [4096, 65536], bn
for r in bn["results"]:
    assert r["size"] / 8 <= r["cycles"] and 0 < r["bus_percent"] <= 100 and r["min_cycles"] <= r["cycles"] <= r["max_cycles"], r
ev = tl["events"]
assert [e["index"] for e in ev] == list(range(len(ev))) and tl["next"] == len(ev), tl
assert all(b["cycles"] >= a["cycles"] for a, b in zip(ev, ev[1:]))
sub = {e["fence"]: e for e in ev if e["kind"] == "submit"}
done = {e["fence"]: e for e in ev if e["kind"] == "complete"}
assert sub.keys() == done.keys() and len(sub) >= 6, ev                # fill, copy, 2 reads, bench's packets
assert all(done[f]["index"] > sub[f]["index"] and done[f]["seq"] == sub[f]["seq"] for f in sub)
assert {e["kind"] for e in ev} == {"submit", "complete"} and all(e["status"] is None for e in ev)
PY

check "a copy from a physical VRAM address (vram:ADDRESS) is refused: user packets name GPU VAs only" 2 \
    "$GPUCTL" -d sim:// alloc 1M alloc 64K copy vram:0x10010000 @2 8K
expect "... saying why" "a user packet names GPU virtual addresses only" "$err"
check "... and ran nothing (checked before the device opened)" 0 test ! -s "$prev"
check "the engine writes system memory through SYSTEM PTEs; the CPU sees it in its own pages" 0 "$GPUCTL" -d sim:// \
    alloc 64K alloc 8K --existing-sysmem --cpu read-write fill @1 0x0badcafe copy @1 @2 read @2 0 16 --cpu
expect "... the pattern, read through the CPU's mapping" \
    "^@2\+00000000  fe ca ad 0b fe ca ad 0b  fe ca ad 0b fe ca ad 0b  " "$out"
check "a copy into the VPR is allowed (only copies out of it are not)" 0 "$GPUCTL" -d sim:// \
    alloc 64K alloc 1M --vpr fill @1 5 copy @1 @2 64K

check "bench prints a table of sizes" 0 "$GPUCTL" -d sim:// bench --sizes 4K,64K --runs 1
expect "bench's header" "^ +size +cycles +B/cycle +% of 8 B bus +submit->fence$" "$out"
expect "bench's 64 KiB row" "^ +64 KiB +[0-9]+ +[0-9]\.[0-9]{2} +[0-9.]+% +[0-9]+$" "$out"
expect "bench checks what it copied" "^the 64 KiB copy's destination holds the source's pattern$" "$out"
check "--json bench by GPU VA" 0 "$GPUCTL" -d sim:// --json bench --sizes 1K --runs 2
check "--json bench document" 0 python3 -c \
    'import json,sys; d=json.load(open(sys.argv[1])); assert d["addressing"]=="gpuva" and d["verified"] and d["runs"]==2 and d["results"][0]["size"]==1024, d' "$prev"
check "bench --physical is gone (VRAM addresses patched into a user packet)" 2 "$GPUCTL" -d sim:// bench --physical
expect "... saying why" "would need a privileged ring entry; user packets use GPU VAs only" "$err"

# ---- the command path's bad input: exit 2, a message, nothing run ----
check "copy without SRC and DST is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K copy @1
expect "... saying what it takes" "copy takes SRC and DST" "$err"
check "... and ran nothing (checked before the device opened)" 0 test ! -s "$prev"
check "copy of an allocation made later is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K copy @1 @2 alloc 4K
expect "... naming how many come before" "copy @2: only 1 alloc command comes before it" "$err"
check "a handle value is not @N" 2 "$GPUCTL" -d sim:// alloc 4K copy 0x1234 @1
check "a size that is not whole qwords is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K alloc 4K copy @1 @2 12
expect "... saying why" "size 12 is not a multiple of 8 \(the engine moves whole qwords\)" "$err"
check "a misaligned offset is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K alloc 4K copy @1 @2 --src-offset 4
check "an unknown copy option is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K alloc 4K copy @1 @2 --frob
check "a physical destination is refused" 2 "$GPUCTL" -d sim:// alloc 4K copy @1 vram:0x10000000
expect "... saying why" "SRC and DST must be allocations" "$err"
check "a fill pattern over 32 bits is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K fill @1 0x100000000
expect "... FILL repeats 32 bits" "not a 32-bit value \(the engine's FILL repeats 32 bits\)" "$err"
check "read @0 is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K read @0
check "an unknown read option is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K read @1 --frob
check "bench --sizes 0 is a usage error" 2 "$GPUCTL" -d sim:// bench --sizes 0
check "bench --sizes over 64M is a usage error" 2 "$GPUCTL" -d sim:// bench --sizes 128M
check "bench --sizes with a trailing comma is a usage error" 2 "$GPUCTL" -d sim:// bench --sizes 4K,
check "bench --runs 0 is a usage error" 2 "$GPUCTL" -d sim:// bench --runs 0
check "conformance after a copy is refused" 2 "$GPUCTL" -d sim:// alloc 4K alloc 4K copy @1 @2 conformance
check "... and ran nothing" 0 test ! -s "$prev"

# Sizes and offsets are checked against the allocations when the command runs, before it
# submits anything: GR_VIDSCH_TRACE shows the fill's submission and no other.
check "a copy past the source's end is a usage error" 2 env GR_VIDSCH_TRACE=1 "$GPUCTL" -d sim:// alloc 4K alloc 4K fill @2 1 copy @1 @2 8K
expect "... naming the allocation and its size" "copy source @1: 8192 bytes at offset 0x0 run past its end \(4096 bytes\)" "$err"
check "... and submitted nothing (only the fill before it)" 0 test "$(grep -c ': submit ' "$err")" = 1
check "an offset past the destination's end is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K alloc 4K copy @1 @2 --dst-offset 4K
expect "... saying so" "copy destination @2: offset 0x1000 is past its end \(4096 bytes\)" "$err"
check "a fill past the end is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K fill @1 1 8K
check "a read past the end is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K read @1 4K 8
check "--json: a range error is a JSON error document" 2 "$GPUCTL" -d sim:// --json alloc 4K alloc 4K copy @1 @2 8K
check "--json range error document" 0 python3 -c \
    'import json,sys; d=[json.loads(l) for l in open(sys.argv[1])][-1]; assert d["command"]=="copy" and d["error"]=="GR_E_RANGE" and "run past its end" in d["message"], d' "$prev"
check "a copy of a freed allocation is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K alloc 4K free @2 copy @1 @2
expect "... saying so" "copy @2: already freed" "$err"
check "overlapping ranges of one allocation are refused" 2 "$GPUCTL" -d sim:// alloc 8K copy @1 @1 4K --dst-offset 2K
expect "... saying why" "ranges overlap" "$err"
check "... while disjoint ranges of one allocation copy" 0 "$GPUCTL" -d sim:// alloc 8K copy @1 @1 4K --dst-offset 4K
check "a copy out of the VPR is refused (the engine would fault)" 2 "$GPUCTL" -d sim:// alloc 1M --vpr alloc 64K copy @1 @2 4K
expect "... saying why" "protected content never leaves the VPR" "$err"
check "reading protected content is refused" 2 "$GPUCTL" -d sim:// alloc 1M --vpr read @1
check "read --cpu of a GPU-only allocation is refused" 2 "$GPUCTL" -d sim:// alloc 4K read @1 --cpu
expect "... saying the engine can read it" "without --cpu it is read through the engine" "$err"

# ---- residency: evict, resident, ls (VidMm pages content on the engine) -----------------------
# An evicted allocation's content lives in host memory; copy, fill, read and a CPU lock page it
# back in (anywhere its segments allow; its GPU VA stays), and it must come back bit-exact.
check "--help lists evict and resident" 0 "$GPUCTL" --help
expect "--help shows evict's syntax" "evict @N \[@N\.\.\.\]" "$out"
expect "--help shows resident's syntax" "resident @N \[@N\.\.\.\]" "$out"

check "evict, ls, read back through the engine and through a CPU lock, ls, timeline: one chain" 0 "$GPUCTL" -d sim:// \
    alloc 1M alloc 64K --cpu-visible fill @1 0x5eed0001 fill @2 0x5eed0002 read @1 --sum read @2 --sum --cpu \
    evict @1 @2 ls read @1 --sum read @2 --sum --cpu ls timeline
cp "$out" "$chain"
crc1=$(crc_of "bytes.fromhex('0100ed5e') * (1 << 18)")
crc2=$(crc_of "bytes.fromhex('0200ed5e') * (1 << 14)")
expect "evict names each allocation and where it was" \
    "^@1 handle 0x[0-9a-f]{8}: evicted, was segment 2 offset 0x10000 \(VRAM 0x10010000\)$" "$chain"
expect "... the CPU-visible one too" "^@2 handle 0x[0-9a-f]{8}: evicted, was segment 1 offset 0x0 \(VRAM 0x0\)$" "$chain"
expect "evict's summary: two evicted, 1 MiB + 64 KiB copied out by the engine in paging packets" \
    "^evict: 2 evicted; the engine copied 1\.06 MiB out of VRAM in [0-9]+ paging packets?$" "$chain"
check "the first ls shows both evicted, not in VRAM; the second both resident again" 0 bash -c \
    "[ \"\$(grep -c '^  @1 handle 0x[0-9a-f]*: buffer, size 1 MiB, not in VRAM, GPU VA 0x100000000, flags none; evicted$' '$chain')\" = 1 ] &&
     [ \"\$(grep -c '^  @2 handle 0x[0-9a-f]*: buffer, size 64 KiB, not in VRAM, GPU VA 0x100200000, flags CpuVisible; evicted$' '$chain')\" = 1 ] &&
     [ \"\$(grep -c '^  @1 handle 0x[0-9a-f]*: buffer, size 1 MiB, segment 2 offset 0x[0-9a-f]* (VRAM 0x[0-9a-f]*), GPU VA 0x100000000, flags none; resident$' '$chain')\" = 1 ] &&
     [ \"\$(grep -c '^  @2 handle 0x[0-9a-f]*: .*, GPU VA 0x100200000, flags CpuVisible; resident$' '$chain')\" = 1 ]"
check "read through the engine pages @1 in: the same CRC before and after the eviction, the fill's" 0 test \
    "$(grep -c "^@1: 1 MiB at +0x0 through the DMA engine, crc32 $crc1$" "$chain")" = 2
check "read --cpu pages @2 in through its lock: the same CRC before and after, the fill's" 0 test \
    "$(grep -c "^@2: 64 KiB at +0x0 through a CPU lock (BAR1), crc32 $crc2$" "$chain")" = 2
check "the timeline shows VidMm's paging packets (context 'paging'), each submitted and completed" 0 python3 - "$chain" <<'PY'
import re, sys
rows = [l.split() for l in open(sys.argv[1]) if re.match(r"^ +[0-9]+ +[0-9]+  (submit|complete) ", l)]
paging = [r for r in rows if r[3] == "paging"]
assert paging and len(paging) % 2 == 0, rows
sub = [r[5] for r in paging if r[2] == "submit"]
done = [r[5] for r in paging if r[2] == "complete"]
assert sorted(sub) == sorted(done) and len(sub) >= 3, paging   # the eviction's and two page-ins
assert all(r[4] == "-" for r in paging)                          # no context, no gr_submit sequence
PY

check "evict, resident and ls with --json" 0 "$GPUCTL" -d sim:// --json alloc 1M alloc 64K --overlay \
    alloc 8K --existing-sysmem alloc 64K --permanent-sysmem --cpu-visible fill @1 0x0badf00d \
    evict @1 @4 ls resident @1 @3 ls read @1 0 16
check "--json: the residency documents and ls's residency and pin reasons hold real values" 0 python3 - "$prev" <<'PY'
import json, sys
d = [json.loads(l) for l in open(sys.argv[1])]
a1, a2, a3, a4, fl, ev, ls1, rs, ls2, rd = d
assert ev["command"] == "evict" and [x["ref"] for x in ev["allocations"]] == [1, 4], ev
e1, e4 = ev["allocations"]
assert (e1["handle"], e1["before"], e1["residency"], e1["segment"], e1["vram_address"], e1["before_vram_address"], e1["pinned"]) == \
       (a1["handle"], "resident", "evicted", 0, 0, a1["vram_address"], []), e1
assert (e4["before"], e4["residency"]) == ("resident", "evicted"), e4
# @4 is a clean PermanentSysMem allocation: discarded, not copied; @1's 1 MiB is copied out.
assert (ev["evictions"], ev["discards"], ev["page_ins"], ev["bytes_evicted"], ev["bytes_paged_in"]) == (2, 1, 0, 1 << 20, 0), ev
assert ev["paging_packets"] >= 1
by = {x["ref"]: x for x in ls1["allocations"]}
assert (by[1]["residency"], by[1]["pinned"], by[1]["segment"], by[1]["gpu_va"]) == ("evicted", [], 0, a1["gpu_va"]), by[1]
assert (by[2]["residency"], by[2]["pinned"]) == ("resident", ["overlay"]), by[2]
assert (by[3]["residency"], by[3]["pinned"]) == ("system", ["system"]), by[3]
assert (by[4]["residency"], by[4]["pinned"]) == ("evicted", []), by[4]
assert rs["command"] == "resident" and [x["ref"] for x in rs["allocations"]] == [1, 3], rs
r1, r3 = rs["allocations"]
assert (r1["before"], r1["residency"], r1["segment"]) == ("evicted", "resident", 2) and r1["vram_address"] != 0, r1
assert (r3["before"], r3["residency"], r3["pinned"]) == ("system", "system", ["system"]), r3
assert (rs["evictions"], rs["page_ins"], rs["bytes_paged_in"], rs["bytes_evicted"]) == (0, 1, 1 << 20, 0), rs
by2 = {x["ref"]: x for x in ls2["allocations"]}
assert (by2[1]["residency"], by2[1]["vram_address"], by2[1]["gpu_va"]) == ("resident", r1["vram_address"], a1["gpu_va"]), by2[1]
assert by2[4]["residency"] == "evicted"                           # resident named only @1 and @3
assert by2[2]["vram_address"] == a2["vram_address"]               # the overlay never moved
assert rd["data"] == "0df0ad0b" * 4, rd                           # paged in bit-exact
PY

check "a clean PermanentSysMem allocation is discarded, not copied" 0 "$GPUCTL" -d sim:// \
    alloc 64K --permanent-sysmem --cpu-visible evict @1
expect "... evict says so, and that the engine copied nothing" \
    "^evict: 1 evicted \(1 discarded: a clean PermanentSysMem allocation's system copy is its content\); the engine copied nothing in [0-9]+ paging packets?$" "$out"
check "resident of resident and system-memory allocations moves nothing" 0 "$GPUCTL" -d sim:// \
    alloc 64K alloc 8K --existing-sysmem resident @1 @2 evict @1 evict @1
expect "... resident says where the resident one is" \
    "^@1 handle 0x[0-9a-f]{8}: already resident, segment 2 offset 0x10000 \(VRAM 0x10010000\)$" "$out"
expect "... and that the other is in system memory" "^@2 handle 0x[0-9a-f]{8}: system memory, never in VRAM$" "$out"
expect "... no paging for it" "^resident: 0 paged in, 0 evicted to make room; the engine copied nothing in 0 paging packets$" "$out"
expect "evicting an evicted one is nothing to do" "^@1 handle 0x[0-9a-f]{8}: already evicted$" "$out"

# Pinned: GR_E_BUSY, exit 2, the reason named, and nothing evicted, not even the evictable
# allocation named with it (GR_VIDSCH_TRACE: no paging packet after the fill).
check "evicting an overlay is refused (exit 2)" 2 env GR_VIDSCH_TRACE=1 "$GPUCTL" -d sim:// \
    alloc 64K fill @1 1 alloc 64K --overlay evict @1 @2
expect "... naming it and why it is pinned" \
    "evict @1 @2: @2 is pinned \(overlay: an Overlay or Capture allocation is never evicted\); nothing was evicted: .*\(GR_E_BUSY\)" "$err"
check "... and evicting nothing: no paging packet, only the fill was submitted" 0 test \
    "$(grep -c ': submit ' "$err")" = 1
check "evicting a VPR allocation is refused (exit 2)" 2 "$GPUCTL" -d sim:// alloc 1M --vpr evict @1
expect "... protected content stays in the VPR" "@1 is pinned \(protected: protected content in the VPR never leaves it\)" "$err"
check "evicting an ExistingSysMem allocation is refused (exit 2)" 2 "$GPUCTL" -d sim:// alloc 8K --existing-sysmem evict @1
expect "... it is system memory" "@1 is pinned \(system: it lives in the caller's system memory, never in VRAM\)" "$err"
check "--json: a pinned refusal is a JSON error document" 2 "$GPUCTL" -d sim:// --json alloc 64K --overlay alloc 1M --vpr evict @2 @1
check "--json pinned document names both reasons" 0 python3 -c \
    'import json,sys; d=[json.loads(l) for l in open(sys.argv[1])][-1]; assert d["command"]=="evict" and d["error"]=="GR_E_BUSY" and "@2 is pinned (protected" in d["message"] and "@1 is pinned (overlay" in d["message"], d' "$prev"

# ---- residency: bad input is a usage error, and nothing runs ----
check "evict without an allocation is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K evict
expect "... saying what it takes" "evict takes one or more allocations of this run \(@N \.\.\.\)" "$err"
check "... and ran nothing (checked before the device opened)" 0 test ! -s "$prev"
check "evict of a handle value is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K evict 0x1234
expect "... naming the word" "evict takes one or more allocations of this run \(@N \.\.\.\), not '0x1234'" "$err"
check "resident @N before the N-th alloc is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K resident @1 @2
expect "... saying how many come before" "resident @2: only 1 alloc command comes before it" "$err"
check "... and ran nothing" 0 test ! -s "$prev"
check "an allocation named twice is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K alloc 4K evict @1 @2 @1
expect "... saying so" "evict: @1 is named twice" "$err"
check "resident @0 is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K resident @0
expect "... saying what @N is" "resident: '@0' is not @N" "$err"
check "evict of a freed allocation is a usage error" 2 "$GPUCTL" -d sim:// alloc 4K free @1 evict @1
expect "... saying so" "evict @1: already freed" "$err"
check "conformance after evict is refused" 2 "$GPUCTL" -d sim:// alloc 4K evict @1 conformance

# ---- long work: past the TDR timeout (2,000,000 cycles, about 12 MiB), with default settings ----
# Each command below outlives several timeouts: VidSch preempts it at each, the miniport resumes the
# COPY or FILL past the bytes it wrote, and nothing is reset. These two checks move 256 MiB through
# the engine (about 45 million device cycles): about 2.5 minutes of this suite's 3 on a loaded
# two-core machine.
check "a 64 MiB fill and a 64 MiB copy complete (default scheduling)" 0 "$GPUCTL" -d sim:// \
    alloc 64M alloc 64M fill @1 0x64c0ffee copy @1 @2 read @2 0 8 read @2 0x3fffff8 8 timeline
cp "$out" "$chain"
expect "... the copy's first qword holds the pattern" "^@2\+00000000  ee ff c0 64 ee ff c0 64" "$chain"
expect "... and its last" "^@2\+03fffff8  ee ff c0 64 ee ff c0 64" "$chain"
expect "... preempted for the TDR timeout on the way" "preempt .* tdr, preemption fence" "$chain"
check "... and never reset" 0 test "$(grep -cE ' tdr +0x| tdr  ' "$chain")" = 0
check "bench --sizes 64M completes and checks its copy" 0 "$GPUCTL" -d sim:// bench --sizes 64M --runs 1
expect "... the 64 MiB copy's destination holds the pattern" "the 64 MiB copy's destination holds the source's pattern" "$out"

# ---- protected content never reaches a place the CPU can read ----
check "a copy out of a Protected allocation is refused (exit 2)" 2 "$GPUCTL" -d sim:// \
    alloc 64K --protected alloc 64K fill @1 0x5ec7e7 copy @1 @2 read @2 0 16
expect "... saying why" "copy @1 -> @2: @1 is Protected and @2 is not: protected content only goes to protected allocations" "$err"
check "... and the pattern is never shown" 0 test "$(grep -c 'e7 c7 5e' "$out")" = 0
check "Protected to Protected runs" 0 "$GPUCTL" -d sim:// alloc 64K --protected alloc 64K --protected \
    fill @1 0x5ec7e7 copy @1 @2

# ---- a CPU lock moves only the pages read ----
check "read --cpu of 8 bytes at the end of a 16 MiB allocation" 0 "$GPUCTL" -d sim:// \
    alloc 16M --cpu-visible fill @1 0x77665544 4K read @1 0 8 --cpu read @1 0xfffff8 8 --cpu
expect "... shows the filled start" "^@1\+00000000  44 55 66 77 44 55 66 77" "$out"
expect "... and the untouched end" "^@1\+00fffff8  00 00 00 00 00 00 00 00" "$out"

tap_end
