#!/usr/bin/env bash
# The memory-hit cost of the tier seam (issue 16): Hoard.retrieve answered by the memory tier,
# built from the commit before the seam and from the working tree, run alternately in one run.
#
#   Benchmarks/probes/memory-hit-seam.sh [BEFORE_COMMIT] [ROUNDS]
#
# Builds two copies of the HoardMeasure hoard-hit code (Sources/HoardMeasure/HoardHit.swift, with
# probes/memory-hit/main.swift) in release mode under $WORK (default /tmp/hoard-memory-hit), each
# against its own Hoard, then runs them alternately ROUNDS times (each the median of 5 passes over
# 10,000 keys) and prints the median of each side and their ratio.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
before_commit=${1:-2c97ea8}
rounds=${2:-6}
work=${WORK:-/tmp/hoard-memory-hit}
rm -rf "$work" && mkdir -p "$work"
git -C "$repo" worktree add -f --detach "$work/hoard-before" "$before_commit" -q
trap 'git -C "$repo" worktree remove --force "$work/hoard-before"' EXIT
for side in before after; do
  dependency=$([ "$side" = before ] && echo "$work/hoard-before" || echo "$repo")
  mkdir -p "$work/$side/Sources/HitMeasure"
  cp "$repo/Benchmarks/probes/memory-hit/main.swift" "$repo/Benchmarks/Sources/HoardMeasure/HoardHit.swift" \
    "$work/$side/Sources/HitMeasure/"
  cat > "$work/$side/Package.swift" <<PACKAGE
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "HitMeasure", platforms: [.macOS(.v15)],
    dependencies: [.package(path: "$dependency")],
    targets: [.executableTarget(name: "HitMeasure", dependencies: [.product(name: "Hoard", package: "$(basename "$dependency")")])]
)
PACKAGE
  (cd "$work/$side" && swift build -c release >/dev/null)
done
for round in $(seq "$rounds"); do
  "$work/before/.build/release/HitMeasure" "$work/cache-before-$round" 5 | awk '{print $(NF-2)}' >> "$work/before.txt"
  "$work/after/.build/release/HitMeasure" "$work/cache-after-$round" 5 | awk '{print $(NF-2)}' >> "$work/after.txt"
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
before=$(median "$work/before.txt")
after=$(median "$work/after.txt")
echo "memory hit via Hoard.retrieve, M hits/s (median of $rounds runs each, alternated):"
echo "  before ($before_commit): $before"
echo "  after (working tree):   $after"
awk -v b="$before" -v a="$after" 'BEGIN { printf "  after / before: %.2fx\n", a / b }'
