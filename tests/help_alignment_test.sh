#!/usr/bin/env bash
# --help keeps its description column in both languages: CLI11 pads by bytes,
# gpuplan by display width, so "--gpu 文本 ..." lines up with "--stale"
# (issue 17: column alignment stays right with CJK widths).
set -euo pipefail
gpuplan=$1
export NO_COLOR=1
unset COLUMNS
for lang in en zh; do
  for cmd in "" compare estimate plan sensitivity serve prices gpus catalog "catalog validate" "catalog check" \
    "catalog import" fit "fit scaling" "fit progress" "fit mfu"; do
    # shellcheck disable=SC2086
    "$gpuplan" $cmd --help --lang "$lang" | python3 -c '
import re, sys, unicodedata
width = lambda s: sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
what, bad, rows = sys.argv[1], [], 0
for line in sys.stdin.read().splitlines():
    m = re.match(r"(  -\S.*?\s{2,}|  [a-z]\S* (?:TEXT|文本)\S*(?: \.\.\.)?\s{2,})(\S.*)$", line)
    if not m:
        continue
    rows += 1
    if width(m.group(1)) != 30:
        bad.append("column %d: %s" % (width(m.group(1)), line))
if rows == 0:
    bad.append("no option lines")
if bad:
    sys.exit("help of %s:\n  %s" % (what, "\n  ".join(bad)))
' "gpuplan $cmd --help --lang $lang"
  done
done
echo "help: every description starts at column 30 in English and Chinese"
