#!/bin/bash
# Issue 28, item 6: processes opening one new cache folder at once must all succeed.
#
#   Benchmarks/probes/concurrent-opens.sh <HoardMeasure> PARENT [ROUNDS] [PROCESSES]
#
# Each round starts PROCESSES (default 12) `HoardMeasure populate DIR 1 1024` at once on a folder
# that does not exist yet (each opens the cache there and stores one value), waits for them all,
# and counts those that failed; then removes the folder. ROUNDS defaults to 250. The race this
# looks for is rare: run it against the build before the fix too, in the same hour.
set -u
measure=${1:?usage: $0 HoardMeasure PARENT [ROUNDS] [PROCESSES]}
parent=${2:?usage: $0 HoardMeasure PARENT [ROUNDS] [PROCESSES]}
rounds=${3:-250}
processes=${4:-12}
work=$(mktemp -d "$parent/concurrent-opens.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
for round in $(seq "$rounds"); do
  pids=()
  for index in $(seq "$processes"); do
    "$measure" populate "$work/cache" 1 1024 > "$work/out-$index" 2>&1 &
    pids+=($!)
  done
  for index in $(seq "$processes"); do
    if ! wait "${pids[$((index - 1))]}"; then
      failures=$((failures + 1))
      echo "round $round, process $index failed: $(tail -c 300 "$work/out-$index")"
    fi
  done
  rm -rf "$work/cache"
done
echo "$failures failures in $((rounds * processes)) opens"
