#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test_readme_links: every relative link in the Markdown points to a file a fresh clone has
# (scripts/check_links.py), and the check fires on one that does not. TAP.
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
CHECK="python3 $ROOT/scripts/check_links.py"
. "$(dirname "$0")/../../lib/tap.sh"
tap_init links
tmp=$TAP_DIR
TAP_TAIL=20
tap_plan 3

if $CHECK --root "$ROOT" >"$err" 2>&1; then ok "$(tail -1 "$err")"
else bad "Markdown links to files a fresh clone does not have"; fi

# A scratch tree (not a git checkout): a README with good links, a link into build/ and one to a
# file that does not exist, and links the check must not follow.
t=$tmp/t
mkdir -p "$t/docs" "$t/bench" "$t/build/bench"
touch "$t/docs/a.md" "$t/build/bench/plot.png" "$t/bench/x.gp"
cat >"$t/bench/README.md" <<'MD'
See [a](../docs/a.md), [the folder](../docs/), [x](x.gp#L1), [web](https://example.org/),
[top](#top), `[code](missing-in-code.md)`, and ![plot](../build/bench/plot.png).
Also [gone](../docs/gone.md).
```
[in a block](also-missing.md)
```
MD
$CHECK --root "$t" >"$err" 2>&1; rc=$?
if [ "$rc" = 1 ] && grep -q "bench/README.md: link to ../build/bench/plot.png" "$err" &&
    grep -q "bench/README.md: link to ../docs/gone.md" "$err" && [ "$(grep -c 'no such file' "$err")" = 2 ]; then
    ok "a link into build/ and one to a missing file fail, named; code, anchors and URLs are not followed"
else bad "the check did not fire as it should (exit $rc)"; fi

sed -i '/plot.png/d; /gone.md/d' "$t/bench/README.md"
if $CHECK --root "$t" >"$err" 2>&1 && grep -q "all 3 relative links" "$err"; then
    ok "with those two gone the tree passes (3 links checked)"
else bad "a tree with good links failed"; fi
tap_end
