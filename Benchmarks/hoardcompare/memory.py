"""memory: MemoryCache against NSCache and a Mutex-locked dictionary (peers/memcache_bench.swift)."""
import re

from .report import best, row, side
from .runner import Section

MUTEX = "Mutex<[String: Data]>"
PEER_LINE = re.compile(r"^(.+?)\s+set\s+(\d+)\s+get\s+(\d+)\s", re.M)
HOARD_LINE = re.compile(r"MemoryCache (\w+)\s+set\s+([\d.]+) M ops/s\s+get \(hit\)\s+([\d.]+) M ops/s")


def measure_memory(c):
    """memcache_bench (NSCache, Mutex<[String: Data]>) and HoardMeasure memory, alternating."""
    peer, hoard = {}, {}  # name -> ([set M ops/s], [get M ops/s])
    for _ in range(c.reps):
        for m in PEER_LINE.finditer(c.run([c.tools["memcache_bench"], "5"], "memory")):
            sets, gets = peer.setdefault(m.group(1).strip(), ([], []))
            sets.append(int(m.group(2)) / 1e6)
            gets.append(int(m.group(3)) / 1e6)
        for m in HOARD_LINE.finditer(c.run([c.tools["measure"], "memory", "5"], "memory")):
            sets, gets = hoard.setdefault(m.group(1), ([], []))
            sets.append(float(m.group(2)))
            gets.append(float(m.group(3)))
    nscaches = [n for n in peer if n.startswith("NSCache")]
    short = lambda name: name.replace("NSCache<NSString,NSData>", "NSCache")
    if MUTEX not in peer or not nscaches or "lru" not in hoard or "s3fifo" not in hoard:
        raise RuntimeError(f"unexpected memory output; found peers {sorted(peer)}, Hoard policies {sorted(hoard)}")
    rows = []
    for op, index in (("get hit", 1), ("set", 0)):
        for policy, name in (("lru", "LRU"), ("s3fifo", "S3-FIFO")):
            h = side(f"MemoryCache ({name})", hoard[policy][index])
            rows.append(row("memory", f"memory {op}, 1 thread, {name}", "M ops/s", h, side(MUTEX, peer[MUTEX][index]),
                            target=0.5 if op == "get hit" else None))
            ns, other_ns = best(*[side(short(n), peer[n][index]) for n in nscaches])
            rows.append(row("memory", f"memory {op}, 1 thread, {name}", "M ops/s", h, ns, others=other_ns,
                            target=4.0 if op == "get hit" else None))
    return rows


SECTIONS = [Section(
    "memory", measure_memory, frozenset({"measure", "memcache_bench"}),
    "Hoard: `MemoryCache<String, Data>` (one `Mutex` around a dictionary and the policy's queues), "
    "no limits, LRU and S3-FIFO (the default of `Hoard`'s memory tier). Peers: `peers/memcache_bench.swift` "
    "built with `swiftc -O -parse-as-library`: `Mutex<[String: Data]>` (no eviction at all: the bound "
    "for a locked cache) and `NSCache<NSString, NSData>` (the faster of its prebuilt-NSString-key and "
    "String-bridged runs). Both: 100k keys `k<i>`, 16-byte values, one thread, median of 5 passes per "
    "process, processes alternated.")]
