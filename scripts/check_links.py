#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_links: every relative link in gpuref's Markdown points to a file or folder of the tree.

  check_links.py [--root DIR]   list each link to a path a fresh clone does not have; exit 1 if any

"The tree" is what git knows in DIR (tracked and untracked, not ignored; every file under DIR
outside build/ and .git/ when it is not a git checkout), so a link into build/ or to a file
never committed fails. Links with a scheme (https:, mailto:) and to an anchor of the same page
are not followed; links inside fenced code blocks and `code spans` are not links.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spdx import list_files  # noqa: E402  (the same listing of the tree)

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def links(text):
    text = re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    for m in LINK.finditer(text):
        yield m.group(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--root", default=".", help="the tree (default: .)")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    if not os.path.isdir(root):
        ap.error(f"--root {args.root}: not a directory")
    files = set(list_files(root))
    dirs = {os.path.dirname(f) for f in files}
    for d in list(dirs):
        while d:
            dirs.add(d)
            d = os.path.dirname(d)
    bad = checked = 0
    for md in sorted(f for f in files if f.endswith(".md")):
        with open(os.path.join(root, md), encoding="utf-8") as fh:
            text = fh.read()
        for target in links(text):
            if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            checked += 1
            path = os.path.normpath(os.path.join(os.path.dirname(md), target.split("#")[0]))
            if path not in files and path not in dirs:
                print(f"{md}: link to {target}: no such file in the tree")
                bad += 1
    if bad:
        print(f"check_links: {bad} of {checked} links point to files a fresh clone does not have")
        return 1
    print(f"check_links: all {checked} relative links point into the tree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
