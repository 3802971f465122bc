#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_layers.py: the host side's layering, checked from its includes and its object files.

The components, what each may depend on, and which of a component's headers the others may
include are the table LAYERS below: the one place they are written. The checks:

  includes  every `#include "..."` of a file in a component resolves to a header of the same
            component or of one it may depend on (and, when that component lists the headers
            it offers others, to one of those)
  include cycles
            no loop among headers through their includes
  pair cycles
            no loop among the modules of host/ through their includes, where a module is a
            .c file and its .h taken as one (x.c and x.h): an edge A -> B when A.c or A.h
            includes B.h. A header that declares a file's functions and the file itself then
            never sit on two sides of a loop (check_pair_loops; --self-test shows it fires)
  calls     with --objdir: from `nm` of each source's object file, which file defines a symbol
            that another file uses; the defining file's component must be one the user's may
            depend on, and no loop among files through those uses
  shipped   nothing shipped (SHIPPED: host/, bridge/, sim/) includes a file of tb/, which holds
            tests only; and with --shipped, nothing in the given build products comes from tb/:
            for an object file, archive, library or program, the source files and include
            folders its DWARF names (readelf), for a Verilator command file (verilate.cmd), the
            Verilog sources and -I folders it names

Run it as anyone can (make check-layers does this after building the objects):

    python3 scripts/check_layers.py --objdir build/host --shipped build/lib/libgpuref.a ...

Exit status 0 when every check holds, 1 when one fails (each failure on its own line), 2 for a
usage error. --tap prints the checks as TAP for make test; --graph prints every file's
dependencies, the lowest files first; --self-test runs only the pair check's own test: fixture
trees it writes in a temporary folder (PAIR_FIXTURES: loops it must find, and the first one
mended, which must pass), as every run also does.
"""
import argparse
import os
import re
import subprocess
import sys

# ---- the table -----------------------------------------------------------------------------
# name: (where, may depend on, headers the others may include (None: all of them)).
# `where` lists folders, or files without their .c/.h; a file belongs to the component with
# the longest entry that holds it. The order is the layering, lowest first: a component depends
# only on components listed before it, but for VidMm and VidSch, which meet through the headers
# NARROW names below.
LAYERS = [
    ("include", ["host/include"], [], None),
    # The simulator that ships (the Verilator harness, the boards, the chips' models and the USB
    # chip emulation); it uses the public headers only.
    ("sim", ["sim"], ["include"], None),
    # The tests: nothing shipped depends on them (a component that lists no other).
    ("tb", ["tb"], [], None),
    # The status words (gr_strerror) sit below the transports, which report through them.
    ("status", ["host/lib/gr_status"], ["include"], None),
    # The transports; of them only the sim:// backend, gpu_core under Verilator in the process,
    # reaches into the simulator.
    ("bridge-sim", ["bridge/host/gr_link_sim"], ["include", "status", "bridge", "sim"], None),
    ("bridge", ["bridge/host"], ["include", "status", "bridge-sim"], None),
    # The device API: open, identify, registers; the register map as data.
    ("lib", ["host/lib/gr_device", "host/lib/gr_regdesc", "host/lib/gr_regdesc_query"],
     ["include", "status", "bridge"], None),
    ("conformance", ["host/conformance"], ["include", "status", "lib", "bridge"], None),
    ("kmd", ["host/kmd"], ["include", "status", "lib", "bridge"], ["kmd.h"]),
    # VidMm's self-contained pieces (range allocator and its placement policy, page tables, flag
    # rules) use nothing of the OS stand-in, so the core's objects may hold them.
    ("vidmm-base", ["host/dxgk/vidmm/vidmm_segment", "host/dxgk/vidmm/vidmm_policy", "host/dxgk/vidmm/vidmm_gpuva",
                    "host/dxgk/vidmm/vidmm_gpuva_dev", "host/dxgk/vidmm/vidmm_flag_rules"],
     ["include", "status", "lib", "bridge"], None),
    # The core below VidMm and VidSch: objects, handles, threading, the DDI table, host memory.
    ("dxgk", ["host/dxgk"], ["include", "status", "lib", "bridge", "kmd", "vidmm-base"], None),
    # The broker's client side (host/broker): the public calls of an adapter opened over
    # broker://, which VidMm, VidSch and the adapter hand over to at the top of each call.
    ("broker", ["host/broker/gr_broker_client", "host/broker/gr_broker"], ["include", "status", "bridge", "dxgk"],
     None),
    ("vidmm", ["host/dxgk/vidmm"], ["include", "status", "lib", "bridge", "kmd", "dxgk", "vidmm-base",
                                    "vidsch", "broker"], None),
    ("vidsch", ["host/dxgk/vidsch"], ["include", "status", "lib", "bridge", "kmd", "dxgk", "vidmm-base",
                                      "vidmm", "broker"], None),
    # The top of the OS stand-in: adapter open and close start and stop VidMm and VidSch.
    ("adapter", ["host/dxgk/dxgk_adapter"], ["include", "status", "lib", "bridge", "kmd", "dxgk",
                                             "vidmm-base", "vidmm", "vidsch", "broker"], None),
    # Any other file of host/lib: calls made of the public API (allocations, submission) sit on
    # top of the OS stand-in.
    ("lib-api", ["host/lib"], ["include", "status", "lib", "bridge", "kmd", "dxgk", "vidmm-base",
                               "vidmm", "vidsch", "adapter"], None),
    # The broker's server (gr_broker_serve): made of public calls, as lib-api.
    ("broker-server", ["host/broker"], ["include", "status", "lib", "bridge", "broker", "vidmm", "vidsch",
                                        "adapter"], None),
    ("tools", ["host/tools"], ["include", "status", "lib", "bridge", "bridge-sim", "sim", "conformance",
                               "kmd", "dxgk", "vidmm-base", "vidmm", "vidsch", "adapter", "lib-api", "broker",
                               "broker-server"],
     None),
]
# What one component offers another, where that is narrower than its public headers (above):
# (user, provider) -> headers the user may include. VidMm and VidSch meet through one small
# header each way, and nothing else: vidsch_paging.h (what VidMm asks of VidSch: run a paging
# buffer, wait for its fence, wait until the GPU is done with an allocation) and
# vidmm_packet.h (what VidSch asks of VidMm: make a packet's allocation list resident and
# release it, map a DMA buffer at a GPU VA). The adapter, which starts and stops them, takes
# residency's life (vidmm_residency.h), the allocation API's device side (vidmm_alloc.h: the
# page-table callbacks, a device's release) and VidSch's life (vidsch.h).
NARROW = {
    ("vidmm", "vidsch"): ["vidsch_paging.h"],
    ("vidsch", "vidmm"): ["vidmm_packet.h"],
    ("adapter", "vidmm"): ["vidmm_residency.h", "vidmm_alloc.h"],
    ("adapter", "vidsch"): ["vidsch.h"],
    ("tools", "vidmm"): ["vidmm_residency.h"],
}
# The folders whose files are checked (the others are only looked up as include targets).
CHECKED = ["host/lib", "host/conformance", "host/kmd", "host/dxgk", "host/broker", "host/tools", "bridge/host"]
# What ships (libgpuref, gpuctl, gpuref-simd): none of these folders' files may include one of
# tb/ (C, C++ and Verilog includes alike).
SHIPPED = ["host", "bridge", "sim"]
SHIPPED_EXTS = (".c", ".h", ".cpp", ".v", ".vh", ".sv", ".svh")
TESTS = "tb"
# Loops are checked among these files (bridge/host registers its backends in gr_link.c, which
# they report errors through: outside host/, left to its own folder).
LOOP_SCOPE = "host/"
# Where a quoted include is looked for after the including file's own folder: the build's -I
# paths (HOST_CFLAGS, mk/rules.mk), in their order.
INCLUDE_DIRS = ["host/include", "bridge/host", "sim/harness", "sim/board", "host/conformance", "host/kmd", "host/dxgk", "host/dxgk/vidmm", "host/dxgk/vidsch",
                "host/broker", "host/tools"]
# Loops tolerated for now, each the set of its files; empty when the layering holds everywhere.
KNOWN_LOOPS = []

# ... and where a Verilog `include is looked for after the file's own folder (the -I of the
# Verilator and Icarus commands).
VERILOG_INCLUDE_DIRS = ["rtl/common", "bridge/rtl"]

COMPONENTS = {name: (where, deps, offers) for name, where, deps, offers in LAYERS}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
VERILOG_INCLUDE_RE = re.compile(r'^\s*`include\s+"([^"]+)"', re.M)


def component_of(path):
    best, best_len = None, -1
    stem = os.path.splitext(path)[0]
    for name, (where, _, _) in COMPONENTS.items():
        for w in where:
            if (path.startswith(w + "/") or stem == w) and len(w) > best_len:
                best, best_len = name, len(w)
    return best


def source_files(root):
    out = []
    for top in CHECKED:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(dirpath, n), root))
    return sorted(out)


def resolve(root, path, inc):
    for d in [os.path.dirname(path)] + INCLUDE_DIRS:
        cand = os.path.normpath(os.path.join(d, inc))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def allowed(user, target_path):
    """None when `user` may include/use target_path, else the reason it may not."""
    prov = component_of(target_path)
    if prov is None or prov == user:
        return None
    _, deps, offers = COMPONENTS[user]
    if prov not in deps:
        return "%s may not depend on %s" % (user, prov)
    name = os.path.basename(target_path)
    narrow = NARROW.get((user, prov))
    if target_path.endswith(".h"):
        if narrow is not None and name not in narrow:
            return "%s may include only %s of %s" % (user, ", ".join(narrow), prov)
        if narrow is None and COMPONENTS[prov][2] is not None and name not in COMPONENTS[prov][2]:
            return "%s offers only %s" % (prov, ", ".join(COMPONENTS[prov][2]))
    return None


def cycles(edges):
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index, low, onstack, stack, out, counter = {}, {}, set(), [], [], [0]
    nodes = sorted(set(edges) | {v for vs in edges.values() for v in vs})
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        onstack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    onstack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in onstack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                scc = []
                while True:
                    v = stack.pop()
                    onstack.discard(v)
                    scc.append(v)
                    if v == node:
                        break
                if len(scc) > 1:
                    out.append(sorted(scc))
    return sorted(out)


def loop_text(scc, edges, why):
    """The loop's members and the edges among them, with what makes each edge."""
    parts = []
    for a in scc:
        for b in sorted(edges.get(a, ())):
            if b in scc:
                parts.append("%s -> %s (%s)" % (a, b, ", ".join(sorted(why[(a, b)])[:4])))
    return "; ".join(parts)


def check_includes(root, files):
    failures, edges, why = [], {}, {}
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        user = component_of(path)
        for inc in INCLUDE_RE.findall(text):
            target = resolve(root, path, inc)
            if target is None:
                continue
            reason = allowed(user, target)
            if reason:
                failures.append("include: %s includes %s: %s" % (path, target, reason))
            a, b = path, target
            if a != b:
                edges.setdefault(a, set()).add(b)
                why.setdefault((a, b), set()).add(os.path.basename(target))
    return failures, edges, why


# ---- loops among modules: a .c file and its .h as one -----------------------------------------

def module_of(path):
    """The module a file belongs to: x.c and x.h are both module x."""
    return os.path.splitext(path)[0]


def module_edges(edges):
    """Include edges among files (check_includes) as edges among modules, with what makes each
    edge; a file's include of its own module's header is no edge."""
    medges, mwhy = {}, {}
    for a, targets in edges.items():
        for b in targets:
            ma, mb = module_of(a), module_of(b)
            if ma != mb:
                medges.setdefault(ma, set()).add(mb)
                mwhy.setdefault((ma, mb), set()).add(
                    "%s includes %s" % (os.path.basename(a), os.path.basename(b)))
    return medges, mwhy


def pair_loops(edges):
    """The loops among the modules of LOOP_SCOPE through their includes, each the sorted list
    of its modules (none is tolerated)."""
    return [c for c in cycles(module_edges(edges)[0]) if c[0].startswith(LOOP_SCOPE)]


def check_pair_loops(edges):
    """Failures: each loop of pair_loops, with the includes that make it."""
    medges, mwhy = module_edges(edges)
    return ["module include loop: " + loop_text(c, medges, mwhy) for c in pair_loops(edges)]


# The pair check's fixtures: (name, {path: text}, the module loops it must report). "loops"
# holds the two shapes: a header of one module includes the header of another whose .c
# includes the first header back (dxgk_internal.h and dxgk_ddi before the split), and two .c
# files that include each other's header. Neither has a loop among files, so only the pair
# check finds them. "split" is the first shape mended as host/dxgk is: the type both need in
# a header of its own.
PAIR_FIXTURES = [
    ("loops", {
        "host/dxgk/fx_objects.h": '#include "fx_ddi.h"\n',
        "host/dxgk/fx_ddi.h": "",
        "host/dxgk/fx_ddi.c": '#include "fx_ddi.h"\n#include "fx_objects.h"\n',
        "host/dxgk/vidsch/fx_a.h": "",
        "host/dxgk/vidsch/fx_a.c": '#include "fx_a.h"\n#include "fx_b.h"\n',
        "host/dxgk/vidsch/fx_b.h": "",
        "host/dxgk/vidsch/fx_b.c": '#include "fx_b.h"\n#include "fx_a.h"\n',
    }, [["host/dxgk/fx_ddi", "host/dxgk/fx_objects"],
        ["host/dxgk/vidsch/fx_a", "host/dxgk/vidsch/fx_b"]]),
    ("split", {
        "host/dxgk/fx_objects.h": '#include "fx_ddi_table.h"\n',
        "host/dxgk/fx_ddi_table.h": "",
        "host/dxgk/fx_ddi.h": "",
        "host/dxgk/fx_ddi.c": '#include "fx_ddi.h"\n#include "fx_objects.h"\n',
    }, []),
]


def self_test_pair_loops():
    """Failures of the pair check on PAIR_FIXTURES, each written into a temporary tree: [] when
    it reports exactly the loops each fixture has."""
    import tempfile
    out = []
    for name, tree, expect in PAIR_FIXTURES:
        with tempfile.TemporaryDirectory() as root:
            for rel, text in tree.items():
                os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                    f.write(text)
            _, edges, _ = check_includes(root, source_files(root))
            if cycles(edges):
                out.append("self-test %s: the fixture has a loop among files: %s" % (name, cycles(edges)))
            found = pair_loops(edges)
            if found != expect or len(check_pair_loops(edges)) != len(expect):
                out.append("self-test %s: the pair check finds %s, not %s" %
                           (name, found or "no loop", expect or "no loop"))
    return out


def pair_check_results(inc_edges):
    """The pair check's results for main: no module loop in the tree's include edges
    (inc_edges; None: the self-test alone), and the check's test on its fixtures."""
    out = []
    if inc_edges is not None:
        out.append(("no include loop among modules (x.c and x.h as one)", check_pair_loops(inc_edges)))
    out.append(("the module loop check finds each loop of its fixtures", self_test_pair_loops()))
    return out


def nm_symbols(obj):
    out = subprocess.run(["nm", obj], check=True, capture_output=True, text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRCGSVW":
            defined.add(parts[2])
    return defined, used


def check_calls(root, files, objdir):
    sources = [p for p in files if p.endswith(".c")]
    defs, uses, missing = {}, {}, []
    for src in sources:
        obj = os.path.join(objdir, os.path.splitext(src)[0] + ".o")
        if not os.path.isfile(obj):
            missing.append(src)
            continue
        d, u = nm_symbols(obj)
        uses[src] = u
        for s in d:
            defs.setdefault(s, set()).add(src)
    failures, edges, why = [], {}, {}
    for src, used in sorted(uses.items()):
        for sym in sorted(used):
            for definer in sorted(defs.get(sym, ())):
                if definer == src:
                    continue
                reason = allowed(component_of(src), definer)
                if reason:
                    failures.append("call: %s uses %s of %s: %s" % (src, sym, definer, reason))
                a, b = src, definer
                edges.setdefault(a, set()).add(b)
                why.setdefault((a, b), set()).add(sym)
    return failures, edges, why, missing


def in_tests(root, path, base=None):
    """True when path (absolute, or relative to base, default root) lies in tb/ of root."""
    full = os.path.normpath(os.path.join(base or root, path))
    rel = os.path.relpath(full, os.path.abspath(root))
    return rel == TESTS or rel.startswith(TESTS + "/")


def check_shipped_includes(root):
    """Every include of a shipped file (SHIPPED) that lands in tb/."""
    failures = []
    for top in SHIPPED:
        for dirpath, dirs, names in os.walk(os.path.join(root, top)):
            dirs.sort()
            for n in sorted(names):
                if not n.endswith(SHIPPED_EXTS):
                    continue
                path = os.path.relpath(os.path.join(dirpath, n), root)
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    text = f.read()
                verilog = n.endswith((".v", ".vh", ".sv", ".svh"))
                found = VERILOG_INCLUDE_RE.findall(text) if verilog else INCLUDE_RE.findall(text)
                for inc in found:
                    search = VERILOG_INCLUDE_DIRS if verilog else INCLUDE_DIRS
                    for d in [os.path.dirname(path)] + search:
                        cand = os.path.normpath(os.path.join(d, inc))
                        if os.path.isfile(os.path.join(root, cand)):
                            break
                    else:
                        cand = None
                    if (cand and in_tests(root, cand)) or inc.startswith(TESTS + "/"):
                        failures.append("shipped: %s includes %s, a file of %s/ (tests only)"
                                        % (path, cand or inc, TESTS))
    return failures


def readelf(args, path):
    run = subprocess.run(["readelf", "-W"] + args + [path], capture_output=True, text=True)
    if run.returncode != 0 and not run.stdout:
        raise OSError(run.stderr.strip() or "readelf failed on %s" % path)
    return run.stdout


def dwarf_sources(path):
    """(compile units as (dir, name), the strings of .debug_line_str) of an ELF file or archive."""
    units, comp_dir, name = [], None, None
    for line in readelf(["--debug-dump=info", "--dwarf-depth=1"], path).splitlines():
        if "DW_TAG_compile_unit" in line or "DW_TAG_partial_unit" in line:
            if name:
                units.append((comp_dir, name))
            comp_dir, name = None, None
        elif "DW_AT_name" in line:
            name = line.rsplit(": ", 1)[-1].strip()
        elif "DW_AT_comp_dir" in line:
            comp_dir = line.rsplit(": ", 1)[-1].strip()
    if name:
        units.append((comp_dir, name))
    strings = re.findall(r"^\s*\[\s*[0-9a-f]+\]\s+(.*)$",
                         readelf(["-p", ".debug_line_str"], path), re.M)
    return units, strings


def check_shipped_products(root, paths):
    """Whatever of tb/ the build products `paths` were made from."""
    failures, root = [], os.path.abspath(root)
    for path in paths:
        if not os.path.isfile(path):
            failures.append("shipped: no build product %s (build it first: make all)" % path)
            continue
        with open(path, "rb") as f:
            magic = f.read(8)
        hits = set()
        if magic[:4] == b"\x7fELF" or magic == b"!<arch>\n":
            units, strings = dwarf_sources(path)
            if not units:
                failures.append("shipped: %s carries no debug information to check (build with -g)"
                                % path)
            dirs = {d for d, _ in units if d} or {root}
            for d, n in units:
                if in_tests(root, n, d or root):
                    hits.add(os.path.relpath(os.path.normpath(os.path.join(d or root, n)), root))
            # The line tables' folders and files, relative to a unit's folder when not absolute.
            for st in strings:
                for d in dirs:
                    if in_tests(root, st, d):
                        hits.add(os.path.relpath(os.path.normpath(os.path.join(d, st)), root))
        else:
            with open(path, encoding="utf-8", errors="replace") as f:
                words = f.read().split()
            for w in words:
                w = re.sub(r"^(-I|-y|-v|-f|\+incdir\+)", "", w)
                if w.startswith("-"):
                    continue
                if in_tests(root, w):
                    hits.add(os.path.relpath(os.path.normpath(os.path.join(root, w)), root))
        for h in sorted(hits):
            failures.append("shipped: %s is built from %s (tb/ holds tests only)" % (path, h))
    return failures


def order(edges):
    """Files lowest first (those that use nothing come first), for --graph."""
    nodes = sorted(set(edges) | {v for vs in edges.values() for v in vs})
    depth = {}

    def d(n, seen=()):
        if n in depth:
            return depth[n]
        if n in seen:
            return 0
        depth[n] = 1 + max([d(m, seen + (n,)) for m in edges.get(n, ())] or [-1])
        return depth[n]
    for n in nodes:
        d(n)
    return sorted(nodes, key=lambda n: (depth[n], n))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=".", help="the tree's top folder (default: .)")
    ap.add_argument("--objdir", help="where host.mk puts the objects (build/host): checks calls too")
    ap.add_argument("--tap", action="store_true", help="TAP output, for make test")
    ap.add_argument("--graph", action="store_true", help="print each file's dependencies")
    ap.add_argument("--shipped", nargs="+", default=[], metavar="PRODUCT",
                    help="build products that ship (objects, archives, libraries, programs, "
                         "verilate.cmd files): none may be built from tb/")
    ap.add_argument("--self-test", action="store_true",
                    help="only the pair check's own test, on its fixtures (PAIR_FIXTURES)")
    args = ap.parse_args()
    if args.objdir and not os.path.isdir(args.objdir):
        print("check_layers: no object folder %s (build it first: make all)" % args.objdir,
              file=sys.stderr)
        return 2
    if args.self_test:
        return report(pair_check_results(None), args.tap)
    files = source_files(args.root)
    results = []  # (name, failures)
    inc_fail, inc_edges, inc_why = check_includes(args.root, files)
    results.append(("every include is allowed by the layer table", inc_fail))
    known = [set(k) for k in KNOWN_LOOPS]
    loops = [c for c in cycles(inc_edges) if set(c) not in known and c[0].startswith(LOOP_SCOPE)]
    results.append(("no include loop among files",
                    ["include loop: " + loop_text(c, inc_edges, inc_why) for c in loops]))
    results.append(("nothing shipped (%s) includes a file of %s/" % (", ".join(SHIPPED), TESTS),
                    check_shipped_includes(args.root)))
    if args.shipped:
        results.append(("nothing in %d shipped build products is built from %s/"
                        % (len(args.shipped), TESTS),
                        check_shipped_products(args.root, args.shipped)))
    results += pair_check_results(inc_edges)
    if args.objdir:
        call_fail, call_edges, call_why, missing = check_calls(args.root, files, args.objdir)
        results.append(("every object file of a source exists in " + args.objdir,
                        ["no object: " + m for m in missing]))
        results.append(("every symbol a file uses is defined in a component it may depend on",
                        call_fail))
        loops = [c for c in cycles(call_edges) if set(c) not in known and c[0].startswith(LOOP_SCOPE)]
        results.append(("no call loop among files (nm of the objects)",
                        ["call loop: " + loop_text(c, call_edges, call_why) for c in loops]))
        if args.graph:
            for n in order(call_edges):
                print("%s: %s" % (n, " ".join(sorted(call_edges.get(n, ())))))
    elif args.graph:
        for n in order(inc_edges):
            print("%s: %s" % (n, " ".join(sorted(inc_edges.get(n, ())))))
    status = report(results, args.tap)
    for k in KNOWN_LOOPS:
        print(("# " if args.tap else "") + "known loop, tolerated: " + " ".join(k))
    return status


def report(results, tap):
    """Prints each (name, failures) of results, as TAP or in words; 1 when one failed, else 0."""
    if tap:
        print("1..%d" % len(results))
    bad = 0
    for i, (name, fails) in enumerate(results, 1):
        for f in fails:
            print(("# " if tap else "") + f)
        if tap:
            print("%s %d - %s" % ("not ok" if fails else "ok", i, name))
        elif not fails:
            print("ok: " + name)
        bad += bool(fails)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
