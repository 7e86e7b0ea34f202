#!/usr/bin/env python3
"""A disk hit's floor beside diskcache, Hoard's manager and DiskCache, alternated round by round so
that a noisy VM's swings fall on every side alike.

    clang -O2 -I Sources/CHoardSupport/include -o /tmp/disk-hit-floor Benchmarks/probes/disk-hit-floor.c \\
        Sources/CHoardSupport/checksum.c Sources/CHoardSupport/sha256.c -lsqlite3 -lcrypto -lpthread
    Benchmarks/probes/hit-floor.py /tmp/disk-hit-floor Benchmarks/.build/release/HoardMeasure /dev/shm/hf [ROUNDS]

Each round, at 1 KiB and 16 KiB (10,000 keys): diskcache's `get` through `Cache` and
`FanoutCache(shards=8)` (the faster counts, as in `compare`); `disk-hit-floor` (the work a hit
cannot avoid, in C); and `HoardMeasure hoard-disk-overhead DIR 1` (`Hoard.retrieve(Data.self)`
with a memory tier of one entry, and `DiskCache` alone). Prints each side's median over the rounds
and its ratio to diskcache's. ROUNDS defaults to 10; FOLDER's parent is the file system measured.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

import diskcache

SIZES = (1024, 16384)
COUNT = 10_000
OVERHEAD = re.compile(r"overhead\s+(\d+) B x\s+\d+: Hoard\s+(\d+) ops/s\s+DiskCache\s+(\d+) ops/s")
FLOOR = re.compile(r"retrieve (\d+) ops/s")


def diskcache_gets(folder, size):
    """The faster of Cache's and FanoutCache's gets/s over COUNT keys stored just before."""
    best = 0.0
    for kind in ("cache", "fanout"):
        shutil.rmtree(folder, ignore_errors=True)
        cache = diskcache.FanoutCache(folder, shards=8) if kind == "fanout" else diskcache.Cache(folder)
        keys = [f"key-{index:08d}" for index in range(COUNT)]
        values = [os.urandom(size) for _ in range(64)]
        for index, key in enumerate(keys):
            cache.set(key, values[index % 64])
        started = time.perf_counter()
        for key in keys:
            if len(cache.get(key)) != size:
                sys.exit(f"diskcache lost {key}")
        best = max(best, COUNT / (time.perf_counter() - started))
        cache.close()
    shutil.rmtree(folder, ignore_errors=True)
    return best


def floor_gets(binary, folder, size):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    out = subprocess.run([binary, folder, str(size), str(COUNT), "1"], check=True, capture_output=True, text=True)
    shutil.rmtree(folder, ignore_errors=True)
    return float(FLOOR.search(out.stdout).group(1))


def hoard_gets(binary, folder):
    """{size: (manager gets/s, DiskCache gets/s)} from one hoard-disk-overhead run."""
    shutil.rmtree(folder, ignore_errors=True)
    out = subprocess.run([binary, "hoard-disk-overhead", folder, "1"], check=True, capture_output=True, text=True)
    shutil.rmtree(folder, ignore_errors=True)
    return {int(size): (float(hoard), float(disk)) for size, hoard, disk in OVERHEAD.findall(out.stdout)}


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    floor_binary, measure_binary, folder = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) == 5 else 10
    figures = {(side, size): [] for side in ("diskcache", "floor", "manager", "DiskCache") for size in SIZES}
    for _ in range(rounds):
        for size in SIZES:
            figures[("diskcache", size)].append(diskcache_gets(folder + "-dc", size))
            figures[("floor", size)].append(floor_gets(floor_binary, folder + "-floor", size))
        for size, (manager, disk) in hoard_gets(measure_binary, folder + "-hoard").items():
            figures[("manager", size)].append(manager)
            figures[("DiskCache", size)].append(disk)
    for size in SIZES:
        peer = statistics.median(figures[("diskcache", size)])
        print(f"{size:>6} B, median of {rounds} rounds:")
        for side in ("diskcache", "floor", "DiskCache", "manager"):
            rates = figures[(side, size)]
            median = statistics.median(rates)
            print(f"  {side:10} {median:9.0f} gets/s  {median / peer:5.2f}x diskcache  "
                  f"(range {min(rates):.0f}-{max(rates):.0f})")


if __name__ == "__main__":
    main()
