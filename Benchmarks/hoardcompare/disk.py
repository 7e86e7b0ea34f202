"""disk: DiskCache, and Hoard with a disk tier, against diskcache (peers/diskcache_bench.py)."""
import os
import re
import shutil
from pathlib import Path

from .report import best, ratio_text, row, side
from .runner import PYTHON, RESULTS, SHM_BASE, Section, filesystem, log

# (bytes, count, name, store target, retrieve target); "before" = the ratio, in the same run, of
# HoardMeasure built from the commit before the index ($COMPARE_BASELINE_MEASURE), when given.
DISK_CASES = [(1024, 10_000, "1 KiB", 1.5, 1.5), (16 * 1024, 10_000, "16 KiB", 1.5, 1.5),
              (64 * 1024, 2_000, "64 KiB", 1.5, "before"), (1024 * 1024, 200, "1 MiB", 1.5, "before")]
# diskcache_bench.py's default sizes are 1 KiB, 64 KiB and 1 MiB; the 16 KiB row is a second call.
PEER_EXTRA_SIZE = ["--size", "16384", "--count", "10000"]
PEER_LINE = re.compile(r"^(cache|fanout)\s+(\d+)Ki\s+(\d+) \|\s+(\d+)\s+[\d.]+ \|\s+(\d+)\s", re.M)
HOARD_LINE = re.compile(r"DiskCache\s+(\d+) B x\s+(\d+): store\s+(\d+) ops/s\s+retrieve\s+(\d+) ops/s")
# The same sizes through the manager (`HoardMeasure hoard-disk`): memory tier of one entry, target 1.5x.
MANAGER_CASES = [(1024, 10_000, "1 KiB"), (16 * 1024, 10_000, "16 KiB")]
MANAGER_LINE = re.compile(r"Hoard\(disk\)\s+(\d+) B x\s+(\d+): store\s+(\d+) ops/s\s+retrieve\s+(\d+) ops/s")


def collect(text, pattern, into):
    """Appends each line's store and retrieve figures to INTO[key]: (kind, bytes) for diskcache's
    lines, bytes for Hoard's."""
    for m in pattern.finditer(text):
        if pattern is PEER_LINE:
            key, store, retrieve = (m.group(1), int(m.group(2)) * 1024), m.group(4), m.group(5)
        else:
            key, store, retrieve = int(m.group(1)), m.group(3), m.group(4)
        runs = into.setdefault(key, ([], []))
        runs[0].append(float(store))
        runs[1].append(float(retrieve))


def places():
    """The folders both sides work in: under the work folder, and on tmpfs when /dev/shm is writable."""
    found = [("workdir", RESULTS / "tmp" / "disk")]
    if Path("/dev/shm").is_dir() and os.access("/dev/shm", os.W_OK):
        found.append(("/dev/shm", SHM_BASE / "disk"))
    else:
        log("!! /dev/shm is not writable: tmpfs rows skipped")
    return found


def diskcache_sides(peer, size, index):
    """diskcache.Cache and FanoutCache at SIZE, the faster first."""
    return best(side("diskcache.Cache", peer[("cache", size)][index]),
                side("diskcache.FanoutCache(shards=8)", peer.get(("fanout", size), ([], []))[index]))


def measure_disk(c):
    """diskcache_bench.py --reps 1 (also at 16 KiB) and HoardMeasure disk DIR 1 --sync, alternating, in
    one folder; with $COMPARE_BASELINE_MEASURE, the HoardMeasure of the commit before the index too (or
    of another build: $COMPARE_BASELINE_LABEL names it in the table)."""
    baseline = os.environ.get("COMPARE_BASELINE_MEASURE")
    peer_script = c.peers / "diskcache_bench.py"
    rows = []
    for place, folder in places():
        fs = filesystem(folder)
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        peer, hoard, before, manager = {}, {}, {}, {}
        for _ in range(c.reps):
            collect(c.run([PYTHON, peer_script, "--reps", "1", "--dir", folder], "disk"), PEER_LINE, peer)
            collect(c.run([PYTHON, peer_script, "--reps", "1", "--dir", folder] + PEER_EXTRA_SIZE, "disk"),
                    PEER_LINE, peer)
            collect(c.run([c.tools["measure"], "disk", folder, "1", "--sync"], "disk"), HOARD_LINE, hoard)
            collect(c.run([c.tools["measure"], "hoard-disk", folder, "1", "--sync"], "disk"), MANAGER_LINE, manager)
            if baseline:
                collect(c.run([baseline, "disk", folder, "1", "--sync"], "disk"), HOARD_LINE, before)
        for size, count, name, store_target, retrieve_target in DISK_CASES:
            if size not in hoard or ("cache", size) not in peer:
                raise RuntimeError(f"no {name} figures in the disk output (see logs/disk.log)")
            for op, index, target in (("store", 0, store_target), ("retrieve", 1, retrieve_target)):
                p, others = diskcache_sides(peer, size, index)
                note = ""
                if size in before:
                    label = os.environ.get("COMPARE_BASELINE_LABEL", "before the index")
                    was = side(f"DiskCache {label} (same run)", before[size][index])
                    others = list(others) + [was]
                    was_ratio = was["value"] / p["value"] if p["value"] else None
                    note = f"{label}: {ratio_text(was_ratio)}" if was_ratio else ""
                    if target == "before":
                        target = was_ratio
                if target == "before":
                    target, note = None, "no baseline run ($COMPARE_BASELINE_MEASURE unset)"
                rows.append(row("disk", f"disk {op}, {name} x {count}, {place} ({fs})", "ops/s",
                                side("DiskCache", hoard[size][index]), p, others=others, target=target, note=note))
        for size, count, name in MANAGER_CASES:
            if size not in manager:
                raise RuntimeError(f"no {name} figures from hoard-disk (see logs/disk.log)")
            for op, index in (("store", 0), ("retrieve", 1)):
                p, others = diskcache_sides(peer, size, index)
                rows.append(row("disk", f"Hoard {op} (disk tier, memory of 1), {name} x {count}, {place} ({fs})",
                                "ops/s", side("Hoard manager", manager[size][index]), p, others=others, target=1.5,
                                note="store/retrieve(Data.self) through Hoard"))
        shutil.rmtree(folder, ignore_errors=True)
    return rows


SECTIONS = [Section(
    "disk", measure_disk, frozenset({"measure"}),
    "Both in a fresh folder under the same parent (`Benchmarks/.results/tmp/disk`, and "
    "`/dev/shm/hoard-compare/disk`), one thread, `peers/diskcache_bench.py`'s keys `key-%08d` and 64 "
    "incompressible random values cycled, 1 KiB x 10000, 16 KiB x 10000 (diskcache through a second "
    "`diskcache_bench.py --size 16384 --count 10000` call), 64 KiB x 2000, 1 MiB x 200; "
    "`sync()` and 1 s sleep before every repetition of every size on both sides; processes alternated. "
    "Hoard: `DiskCache`, records under 2 KiB inside its SQLite index (WAL, `synchronous=OFF`), up to 68 KiB "
    "appended to shared segment files with their place in the index, larger ones in a file each written to a "
    "`flock`ed temporary file then renamed; CRC-32C checked on every read; from the second read in a row a "
    "read transaction held open for 20 ms, so that reads take no WAL lock; with `$COMPARE_BASELINE_MEASURE`, "
    "the `DiskCache` of the commit before the index (a file per entry), or of the build "
    "`$COMPARE_BASELINE_LABEL` names, runs beside them, and the 64 KiB and 1 MiB retrieve rows' targets are "
    "its ratios in this run. "
    "diskcache: SQLite index in WAL mode with `synchronous=NORMAL` (no fsync per commit, only at "
    "checkpoints), values under 32 KiB inline in SQLite, larger ones in their own files (no fsync); "
    "ratio against the faster of `Cache` and `FanoutCache(shards=8)`.")]
