#!/usr/bin/env python3
"""Two HoardMeasure builds' `disk DIR 1`, alternated: each pair runs seconds apart, so both sides of
a pair see the same machine, where a noisy VM moves one side's figures by 20-40% between runs.

    Benchmarks/probes/alternate-disk.py BEFORE AFTER FOLDER [ROUNDS]

BEFORE and AFTER are HoardMeasure binaries; FOLDER's parent must exist (the file system under
test); ROUNDS defaults to 30. Prints, per row, each side's median, their ratio and in how many
pairs AFTER was ahead.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

LINE = re.compile(r"DiskCache\s+(\d+) B x\s+\d+: store\s+(\d+) ops/s\s+retrieve\s+(\d+) ops/s")


def run(binary, folder):
    """One `disk FOLDER 1` run after `sync` and a second's rest: {(op, size): ops/s}."""
    shutil.rmtree(folder, ignore_errors=True)
    os.sync()
    time.sleep(1)
    out = subprocess.run([binary, "disk", folder, "1"], check=True, capture_output=True, text=True).stdout
    shutil.rmtree(folder, ignore_errors=True)
    figures = {}
    for size, store, retrieve in LINE.findall(out):
        figures[("store", int(size))] = float(store)
        figures[("retrieve", int(size))] = float(retrieve)
    return figures


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    before, after, folder = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) == 5 else 30
    pairs = [(run(before, folder + "-before"), run(after, folder + "-after")) for _ in range(rounds)]
    for key in sorted(pairs[0][0], key=lambda k: (k[0], k[1])):
        old = [p[0][key] for p in pairs]
        new = [p[1][key] for p in pairs]
        ahead = sum(1 for a, b in zip(old, new) if b > a)
        print(f"{key[0]:8} {key[1]:>8} B: before {statistics.median(old):9.0f}  after {statistics.median(new):9.0f}  "
              f"ratio {statistics.median(new) / statistics.median(old):.3f}  after ahead in {ahead}/{rounds}")


if __name__ == "__main__":
    main()
