#!/usr/bin/env bash
# The manager's reads, two builds side by side in one run: BASE and NEW are HoardMeasure binaries
# (say, of the commit before a change and of the change). Each round runs both, in alternating
# order, on the same folder: 1 KiB and 16 KiB through `hoard-disk` (memory of one entry, so every
# retrieve reads the disk) and memory hits through `hoard-hit`. Prints every line, then the medians.
#
#   Benchmarks/probes/manager-ab.sh /tmp/base/HoardMeasure Benchmarks/.build/release/HoardMeasure [rounds]
set -euo pipefail
base=$1 new=$2 rounds=${3:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
log=$dir/log
run() { # label binary
    "$2" hoard-disk "$dir/work" 1 --retrieve-rounds 3 | sed "s/^/$1 /" >>"$log"
    "$2" hoard-hit "$dir/work" 7 | sed "s/^/$1 /" >>"$log"
}
for round in $(seq "$rounds"); do
    if ((round % 2)); then run base "$base"; run new "$new"; else run new "$new"; run base "$base"; fi
done
cat "$log"
python3 - "$log" <<'PY'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    side = line.split()[0]
    if m := re.search(r"(\d+) B x \d+: store +(\d+) ops/s +retrieve +(\d+) ops/s", line):
        rows.setdefault((f"retrieve {m[1]} B (ops/s)", side), []).append(float(m[3]))
    elif m := re.search(r"memory hit +([\d.]+) M hits/s", line):
        rows.setdefault(("memory hit (M/s)", side), []).append(float(m[1]))
print("\n| read | base | new | new / base |\n|---|---|---|---|")
for name in sorted({name for name, _ in rows}):
    b, n = statistics.median(rows[(name, "base")]), statistics.median(rows[(name, "new")])
    print(f"| {name} | {b:,.3f} | {n:,.3f} | {n / b:.3f} |")
PY
