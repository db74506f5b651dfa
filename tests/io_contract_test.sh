#!/usr/bin/env bash
# The I/O half of the output contract (issue 16, item 4), as a shell script
# meets it: process substitution and FIFOs read as streams; non-UTF-8 --set
# refused; non-UTF-8 file names still give JSON that parses; -o '' named;
# a read-only -o target kept; no temporary file left by SIGTERM or SIGINT.
# Usage: io_contract_test.sh GPUPLAN SRC
set -uo pipefail
gpuplan=$1 src=$2
export GPUPLAN_TODAY=2026-12-02 NO_COLOR=1 LC_ALL=C
cd "$src"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ex=examples/qingdao-8xa100.yaml

# Process substitution and a FIFO with a writer: the same answer as the file.
want=$("$gpuplan" compare "$ex" --format csv) || fail "compare $ex"
got=$("$gpuplan" compare <(cat "$ex") --format csv) || fail "compare <(cat $ex) exited $?"
[ "$got" = "$want" ] || fail "compare <(…) differs from the file"
mkfifo "$work/scenario.yaml"
cat "$ex" >"$work/scenario.yaml" &
got=$("$gpuplan" compare "$work/scenario.yaml" --format csv) || fail "compare FIFO exited $?"
wait
[ "$got" = "$want" ] || fail "compare FIFO differs from the file"

# Non-UTF-8 text in --set: exit 3, said, nothing on stdout.
out=$("$gpuplan" compare --set $'scenario.name=caf\xe9' --format json 2>"$work/err")
rc=$?
[ "$rc" -eq 3 ] || fail "non-UTF-8 --set exited $rc"
[ -z "$out" ] || fail "non-UTF-8 --set printed to stdout"
grep -q 'is not UTF-8 text (byte 0xE9)' "$work/err" || fail "non-UTF-8 --set: $(cat "$work/err")"
# A file name that is not UTF-8 still gives JSON that parses.
cp "$ex" "$work/caf"$'\xe9'".yaml"
"$gpuplan" compare "$work/caf"$'\xe9'".yaml" --format json >"$work/out.json" || fail "non-UTF-8 file name"
python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$work/out.json" ||
  fail "JSON with a non-UTF-8 file name does not parse"

# The -o name's extension picks the format for every command that has it: a
# workbook named .xlsx, the same bytes as --format with the same name.
for cmd in "prices" "compare $ex" "estimate examples/finetune-7b-a100.yaml" "plan examples/finetune-7b-a100.yaml"; do
  # shellcheck disable=SC2086
  "$gpuplan" $cmd -o "$work/by-name.xlsx" 2>"$work/err" || fail "$cmd -o x.xlsx: $(cat "$work/err")"
  # shellcheck disable=SC2086
  "$gpuplan" $cmd --format xlsx -o "$work/by-flag.xlsx" 2>/dev/null || fail "$cmd --format xlsx"
  cmp -s "$work/by-name.xlsx" "$work/by-flag.xlsx" || fail "$cmd: -o x.xlsx differs from --format xlsx"
done

# The refusal of a command without a workbook (a chart) names exactly the
# commands that have one.
"$gpuplan" gpus --format xlsx -o "$work/gpus.xlsx" 2>"$work/refusal.xlsx" && fail "gpus wrote a workbook"
"$gpuplan" prices --format svg 2>"$work/refusal.svg" >/dev/null && fail "prices drew a chart"
for cmd in "prices" "gpus" "compare $ex" "estimate examples/finetune-7b-a100.yaml" \
  "plan examples/finetune-7b-a100.yaml" "sensitivity $ex" "serve examples/serve-7b-4090.yaml" \
  "fit scaling examples/scaling-a100.csv" "fit progress examples/trial-progress.csv --total-steps 20000" \
  "catalog validate examples/team-quotes.yaml"; do
  name=${cmd%% *}
  [ "$name" = fit ] && name="fit ${cmd#fit }" && name=${name%% examples*}
  for format in xlsx svg; do
    # shellcheck disable=SC2086
    if "$gpuplan" $cmd --format $format -o "$work/any.$format" 2>/dev/null; then
      grep -Eq "\(([^)]*[, ])?${name}[ ,)]" "$work/refusal.$format" ||
        fail "$cmd has --format $format, which the refusal does not name: $(cat "$work/refusal.$format")"
    else
      grep -Eq "\(([^)]*[, ])?${name}[ ,)]" "$work/refusal.$format" && fail "the $format refusal names $name, which has none"
    fi
  done
done

# -o '' and a read-only -o target.
"$gpuplan" prices -o '' 2>"$work/err"
[ $? -eq 3 ] || fail "-o '' did not exit 3"
grep -q "output file name is empty" "$work/err" || fail "-o '': $(cat "$work/err")"
printf 'kept\n' >"$work/budget.csv"
chmod 444 "$work/budget.csv"
"$gpuplan" prices --format csv -o "$work/budget.csv" 2>"$work/err"
[ $? -eq 3 ] || fail "read-only -o did not exit 3"
[ "$(cat "$work/budget.csv")" = kept ] || fail "read-only -o target was replaced"
[ "$(stat -c %a "$work/budget.csv")" = 444 ] || fail "read-only -o target's mode changed"

# Standard output closed or full: exit 3, as an -o file that cannot be written.
"$gpuplan" prices >&- 2>"$work/err"
[ $? -eq 3 ] || fail "closed stdout did not exit 3"
grep -q "standard output" "$work/err" || fail "closed stdout: $(cat "$work/err")"
if [ -w /dev/full ]; then
  "$gpuplan" prices >/dev/full 2>"$work/err"
  [ $? -eq 3 ] || fail "full stdout did not exit 3"
  grep -q "standard output: no space left on device" "$work/err" || fail "full stdout: $(cat "$work/err")"
fi

# A signal while the output is written: the old file stays and no temporary
# file is left. A large output (a fit whose JSON lists every point) is watched
# until its temporary file appears, and the signal is sent then.
python3 - "$gpuplan" "$work" <<'PY' || fail "signals"
import os, signal, subprocess, sys, time
gpuplan, work = sys.argv[1], sys.argv[2]
with open(os.path.join(work, "big.csv"), "w") as f:
    f.write("gpus,throughput\n")
    for i in range(100000):
        n = 1 << (i % 8)
        f.write(f"{n},{100.0 * n / (1 + 0.05 * (n - 1)) * (1 + (i % 7 - 3) * 0.001):.4f}\n")
out = os.path.join(work, "fit.json")
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    hit = False
    for attempt in range(5):
        with open(out, "w") as f:
            f.write("old\n")
        p = subprocess.Popen([gpuplan, "fit", "scaling", os.path.join(work, "big.csv"), "--format", "json", "-o", out],
                             stderr=subprocess.DEVNULL, restore_signals=True)
        while p.poll() is None:
            if any(n.startswith(".gpuplan-") for n in os.listdir(work)):
                p.send_signal(sig)
                hit = True
                break
            time.sleep(0.0005)
        p.wait()
        left = [n for n in os.listdir(work) if n.startswith(".gpuplan-")]
        if left:
            sys.exit(f"{sig.name}: left {left}")
        with open(out) as f:
            head = f.read(3)
        if hit and p.returncode == 0:
            hit = False  # it finished before the signal landed: try again
        if hit and p.returncode != -sig:
            sys.exit(f"{sig.name}: exit {p.returncode}, not killed by the signal")
        if head not in ("old", "{\n "):
            sys.exit(f"{sig.name}: {out} starts {head!r}")
        if hit:
            break
    if not hit:
        sys.exit(f"{sig.name}: the temporary file was never seen in 5 runs")
PY
echo "streams read; non-UTF-8 --set refused; JSON parses; -o '' and read-only -o kept; no temp file after signals"
