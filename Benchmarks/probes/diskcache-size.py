#!/usr/bin/env python3
"""diskcache at one more value size, measured by the peer script's own one(): the 16 KiB row of
Benchmarks/compare's disk section (bench_diskcache.py measures 1 KiB, 64 KiB and 1 MiB only).
Usage: diskcache-size.py PEERS_DIR DIR BYTES COUNT
Prints bench_diskcache.py's lines for diskcache.Cache and FanoutCache(shards=8), after sync() and a
one-second sleep each, as bench_diskcache.py does.
"""
import os
import sys
import time

peers, folder, size, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, peers)
import bench_diskcache  # noqa: E402  (the peer's script, imported from PEERS_DIR)

os.makedirs(folder, exist_ok=True)
for kind in ("cache", "fanout"):
    os.sync()
    time.sleep(1.0)
    store, retrieve = bench_diskcache.one(kind, size, count, folder)
    mb = size * count / 1e6
    print(f"{kind:8} {size // 1024:>6}Ki {count:>6} | {count / store:>10.0f} {mb / store:>9.1f} | "
          f"{count / retrieve:>10.0f} {mb / retrieve:>9.1f}")
