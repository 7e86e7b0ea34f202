#!/usr/bin/env python3
"""Peer: diskcache (PyPI `diskcache`) at scale, as `HoardMeasure disk-scale-populate` and
`disk-scale-use` measure Hoard's DiskCache (Benchmarks/hoardcompare/diskscale.py).

Usage:
  diskcache_scale.py populate DIR COUNT SIZE   COUNT values of SIZE random bytes, keys key-%08d
  diskcache_scale.py use DIR COUNT SIZE        in a new process: open, first set, 10,000 sets of new
                                               keys, 10,000 gets of random stored keys, count and
                                               volume, and a cull to half the volume

diskcache.Cache with no size limit to speak of (size_limit 2^40, no eviction during the filling),
its defaults otherwise (SQLite in WAL mode, synchronous=NORMAL, values under 32 KiB inside SQLite).
One line each, in the format of HoardMeasure's.
"""
import os
import random
import sys
import time

import diskcache


def populate(folder, count, size):
    values = [os.urandom(size) for _ in range(64)]
    cache = diskcache.Cache(folder, size_limit=1 << 40, cull_limit=0)
    started = time.perf_counter()
    for index in range(count):
        cache.set(f"key-{index:08d}", values[index % 64])
    elapsed = time.perf_counter() - started
    cache.close()
    print(f"scale-populate {count:8d} x {size:6d} B: {count / elapsed:8.0f} ops/s")


def use(folder, count, size):
    values = [os.urandom(size) for _ in range(64)]
    started = time.perf_counter()
    cache = diskcache.Cache(folder, size_limit=1 << 40, cull_limit=0)
    opened = time.perf_counter()
    cache.set("first-store", values[0])
    first = time.perf_counter()
    operations = 10_000
    for index in range(operations):
        cache.set(f"new-{index:08d}", values[index % 64])
    stored = time.perf_counter()
    picked = [f"key-{random.randrange(count):08d}" for _ in range(operations)]
    before_gets = time.perf_counter()
    for key in picked:
        value = cache.get(key)
        if value is None or len(value) != size:
            raise SystemExit(f"diskcache_scale: lost {key}")
    got = time.perf_counter()
    entries = len(cache)
    volume = cache.volume()
    counted = time.perf_counter()
    if entries < count:
        raise SystemExit(f"diskcache_scale: counts {entries} of {count}")
    cache.reset("size_limit", max(1, volume // 2))
    trim_started = time.perf_counter()
    cache.cull()
    trimmed = time.perf_counter()
    kept = len(cache)
    cache.close()
    print(f"scale {count:8d} x {size:6d} B: open {(opened - started) * 1000:8.2f} ms  "
          f"first-store {(first - opened) * 1000:8.2f} ms  store {operations / (stored - first):8.0f} ops/s  "
          f"retrieve {operations / (got - before_gets):8.0f} ops/s  stats {(counted - got) * 1000:8.2f} ms  "
          f"trim-half {trimmed - trim_started:8.2f} s  kept {kept}")


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in ("populate", "use"):
        raise SystemExit(__doc__)
    (populate if sys.argv[1] == "populate" else use)(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
