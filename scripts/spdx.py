#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""spdx: every source file of gpuref names its licence in an SPDX-License-Identifier line.

  spdx.py --check [--root DIR] [PATH...]   list the source files without the line; exit 1 if any
  spdx.py --fix   [--root DIR] [PATH...]   insert the line, in each file's own comment syntax

The files are those git knows in DIR (tracked and untracked, not ignored), or every file under
DIR outside build/ and .git/ when DIR is not a git checkout; PATHs narrow that to files or
folders. The line counts when it is within the first HEAD_LINES lines. --fix puts it first, or
after a first line that must stay first: a shebang, Verilator's `verilator_config, or a line
saying the file is generated (STYLE.md: generated files say so in their first line).

Source files, by name, with the comment each gets:
  //   Verilog and SystemVerilog (.v .sv .vh .svh), Verilator configuration (.vlt),
       SystemRDL (.rdl)
  /**/ C and C++ (.c .h .cpp .hpp .cc), the linker's version scripts (.map), X-macro tables (.def)
  #    Python, shell, Makefiles and .mk, Tcl, constraints (.lpf .xdc), gnuplot (.gp),
       sanitizer suppressions (.supp), and any file without a suffix whose first line is a
       shebang
Not checked, on purpose: LICENSE itself; documentation (.md); data a program reads whole
(.json, .txt such as requirements.txt, the bench's DEPS lists, the fuzzers' corpora under
tb/fuzz/corpus, where a comment line would change the input); editor and tool settings
(.gitignore, .editorconfig, .clang-format). LICENSE covers them.
"""
import argparse
import os
import re
import subprocess
import sys

LICENSE_ID = "Apache-2.0"
HEAD_LINES = 5
TAG = "SPDX-License-Identifier:"

SLASH = ("// ", "")
BLOCK = ("/* ", " */")
HASH = ("# ", "")
BY_SUFFIX = {
    ".v": SLASH, ".sv": SLASH, ".vh": SLASH, ".svh": SLASH, ".vlt": SLASH, ".rdl": SLASH,
    ".c": BLOCK, ".h": BLOCK, ".cpp": BLOCK, ".hpp": BLOCK, ".cc": BLOCK, ".map": BLOCK,
    ".def": BLOCK,
    ".py": HASH, ".sh": HASH, ".mk": HASH, ".tcl": HASH, ".lpf": HASH, ".xdc": HASH,
    ".gp": HASH, ".supp": HASH,
}
BY_NAME = {"Makefile": HASH, "GNUmakefile": HASH}
SKIP_DIRS = ("build/", ".git/", "tb/fuzz/corpus/")
SHEBANG_COMMENT = HASH

# A first line that must stay first: a shebang, Verilator's config marker, or "generated".
KEEP_FIRST = re.compile(r"^(#!|`verilator_config|\W{0,4}\s*generated\b)", re.IGNORECASE)


def comment_style(rel, first_line):
    """The (open, close) comment for rel, or None when rel is not a source file."""
    if any(rel.startswith(d) or ("/" + d) in rel for d in SKIP_DIRS):
        return None
    name = os.path.basename(rel)
    if name in BY_NAME:
        return BY_NAME[name]
    suffix = os.path.splitext(name)[1]
    if suffix in BY_SUFFIX:
        return BY_SUFFIX[suffix]
    if suffix == "" and first_line.startswith("#!"):
        return SHEBANG_COMMENT
    return None


def list_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], check=True, capture_output=True).stdout
        if subprocess.run(["git", "-C", root, "rev-parse", "--show-prefix"], check=True,
                          capture_output=True, text=True).stdout.strip():
            raise subprocess.CalledProcessError(1, "git")  # root is inside another checkout
        files = sorted(set(p for p in out.decode().split("\0") if p))
    except (subprocess.CalledProcessError, FileNotFoundError):
        files = []
        for top, dirs, names in os.walk(root):
            rel_top = os.path.relpath(top, root)
            dirs[:] = sorted(d for d in dirs
                             if os.path.normpath(os.path.join(rel_top, d)) + "/" not in SKIP_DIRS)
            files += [os.path.normpath(os.path.join(rel_top, n)) for n in names]
        files.sort()
    return [f for f in files if os.path.isfile(os.path.join(root, f))]


def read_head(path):
    with open(path, "rb") as fh:
        return fh.read()


def has_tag(data):
    head = data.split(b"\n", HEAD_LINES)[:HEAD_LINES]
    return any(TAG.encode() in line for line in head)


def fixed(data, style):
    """data with the SPDX line inserted in the comment syntax style."""
    line = f"{style[0]}{TAG} {LICENSE_ID}{style[1]}\n".encode()
    if b"\r\n" in data.split(b"\n", 1)[0] + b"\n":
        line = line.replace(b"\n", b"\r\n")
    first, nl, rest = data.partition(b"\n")
    if KEEP_FIRST.match(first.decode("utf-8", "replace")):
        return first + nl + (b"" if nl else b"\n") + line + rest
    return line + data


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="list source files without the line")
    mode.add_argument("--fix", action="store_true", help="insert the line where it is missing")
    ap.add_argument("--root", default=".", help="the tree (default: .)")
    ap.add_argument("paths", nargs="*", help="files or folders under the root (default: all)")
    args = ap.parse_args()

    root = os.path.abspath(args.root)
    if not os.path.isdir(root):
        ap.error(f"--root {args.root}: not a directory")
    files = list_files(root)
    if args.paths:
        wanted = []
        for p in args.paths:
            rel = os.path.normpath(os.path.relpath(os.path.abspath(p), root))
            if rel.startswith("..") or not os.path.exists(os.path.join(root, rel)):
                ap.error(f"{p}: not a file or folder under {root}")
            wanted.append(rel)
        files = [f for f in files
                 if any(f == w or f.startswith(w.rstrip("/") + "/") or w == "." for w in wanted)]

    checked, missing = 0, []
    for rel in files:
        data = read_head(os.path.join(root, rel))
        style = comment_style(rel, data.split(b"\n", 1)[0].decode("utf-8", "replace"))
        if style is None:
            continue
        checked += 1
        if not has_tag(data):
            missing.append((rel, style, data))

    if args.check:
        for rel, _, _ in missing:
            print(f"{rel}: no {TAG} line in its first {HEAD_LINES} lines")
        if missing:
            print(f"spdx: {len(missing)} of {checked} source files lack the line "
                  f"(scripts/spdx.py --fix adds it)")
            return 1
        print(f"spdx: all {checked} source files carry {TAG}")
        return 0

    for rel, style, data in missing:
        with open(os.path.join(root, rel), "wb") as fh:
            fh.write(fixed(data, style))
        print(f"{rel}: {style[0]}{TAG} {LICENSE_ID}{style[1]}")
    print(f"spdx: added the line to {len(missing)} of {checked} source files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
