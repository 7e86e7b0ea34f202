#!/usr/bin/env python3
"""Peer: diskcache (PyPI `diskcache`), the disk cache a Python user would pick instead of Hoard.

Measures set and get throughput from one thread, warm page cache: for each value size, a fresh
cache folder under --dir, COUNT keys `key-%08d`, values cycled from 64 incompressible random
buffers (os.urandom), every set timed, then every get (each checked for its length). Both
`diskcache.Cache` and `diskcache.FanoutCache(shards=8)` run, Cache first.

Usage:
  diskcache_bench.py [--reps N] [--dir DIR] [--no-sync]                 1 KiB x 10000, 64 KiB x 2000, 1 MiB x 200
  diskcache_bench.py --size BYTES --count N [--reps N] [--dir DIR]      one other size (compare's 16 KiB row)

Before every repetition: os.sync() and a one-second sleep (unless --no-sync), so that no dirty pages
or pending discards of the previous one are written back while it runs. One line per cache and
size, read by Benchmarks/compare (hoardcompare/disk.py):
  cache        64Ki   2000 |       1785     117.0 |      20953    1373.2   (runs ...)
  kind       value   count |  set ops/s  set MB/s |  get ops/s  get MB/s
with the medians of the repetitions.
"""
import argparse
import os
import shutil
import statistics
import tempfile
import time

import diskcache

DEFAULT_CASES = [(1024, 10_000), (64 * 1024, 2_000), (1024 * 1024, 200)]
KINDS = ("cache", "fanout")
DISTINCT_VALUES = 64


def open_cache(kind, folder):
    """diskcache's plain Cache, or FanoutCache with 8 shards."""
    return diskcache.FanoutCache(folder, shards=8) if kind == "fanout" else diskcache.Cache(folder)


def measure_once(kind, size, count, parent):
    """Seconds for COUNT sets, then COUNT gets, in a new cache folder under PARENT (removed after)."""
    folder = tempfile.mkdtemp(prefix=f"diskcache-{kind}-", dir=parent)
    try:
        cache = open_cache(kind, folder)
        keys = [f"key-{index:08d}" for index in range(count)]
        values = [os.urandom(size) for _ in range(min(count, DISTINCT_VALUES))]
        started = time.perf_counter()
        for index, key in enumerate(keys):
            cache.set(key, values[index % len(values)])
        stored = time.perf_counter()
        for key in keys:
            value = cache.get(key)
            if value is None or len(value) != size:
                raise SystemExit(f"diskcache_bench: {kind} lost {key} ({size} B)")
        read = time.perf_counter()
        cache.close()
        return stored - started, read - stored
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def settle(enabled):
    """Lets the kernel write back what the previous repetition left."""
    if enabled:
        os.sync()
        time.sleep(1.0)


def report(kind, size, count, set_runs, get_runs):
    set_seconds, get_seconds = statistics.median(set_runs), statistics.median(get_runs)
    megabytes = size * count / 1e6
    runs = (f"set runs s: {', '.join(f'{s:.3f}' for s in set_runs)}; "
            f"get: {', '.join(f'{s:.3f}' for s in get_runs)}")
    print(f"{kind:8} {size // 1024:>6}Ki {count:>6} | {count / set_seconds:>10.0f} {megabytes / set_seconds:>9.1f} | "
          f"{count / get_seconds:>10.0f} {megabytes / get_seconds:>9.1f}   ({runs})", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5, help="repetitions per case (median reported)")
    parser.add_argument("--dir", help="parent of the cache folders (default: the system temp folder)")
    parser.add_argument("--no-sync", action="store_true", help="no os.sync() and 1 s sleep before each repetition")
    parser.add_argument("--size", type=int, help="value size in bytes (with --count): this case only")
    parser.add_argument("--count", type=int, help="entries for --size")
    args = parser.parse_args()
    if (args.size is None) != (args.count is None):
        parser.error("--size and --count go together")
    if args.reps < 1:
        parser.error("--reps must be at least 1")
    cases = [(args.size, args.count)] if args.size is not None else DEFAULT_CASES
    if args.dir:
        os.makedirs(args.dir, exist_ok=True)

    print(f"diskcache {diskcache.__version__}; reps={args.reps}; median reported")
    print(f"{'kind':8} {'value':>8} {'n':>6} | {'set ops/s':>10} {'set MB/s':>9} | {'get ops/s':>10} {'get MB/s':>9}")
    for kind in KINDS:
        for size, count in cases:
            set_runs, get_runs = [], []
            for _ in range(args.reps):
                settle(not args.no_sync)
                set_seconds, get_seconds = measure_once(kind, size, count, args.dir)
                set_runs.append(set_seconds)
                get_runs.append(get_seconds)
            report(kind, size, count, set_runs, get_runs)


if __name__ == "__main__":
    main()
