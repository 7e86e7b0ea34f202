"""disk-scale: DiskCache and diskcache at a million entries (issue 51): what a new process pays on
a full folder, against diskcache with the same entries (peers/diskcache_scale.py)."""
import re
import shutil

from .report import row, side
from .runner import PYTHON, RESULTS, Section, filesystem

# (count, bytes, name): the folders both sides fill, then use from a new process.
SCALE_CASES = [(1_000_000, 500, "1 M x 500 B"), (100_000, 16 * 1024, "100 k x 16 KiB")]
# Hoard's own rates at small sizes, which its rates at scale are held to (within 20 %; its first
# store at 1 M within 5x of its first store on 10 entries).
SMALL_CASES = [(10, 500), (10_000, 500), (10_000, 16 * 1024)]
LINE = re.compile(
    r"scale\s+(\d+) x\s+(\d+) B: open\s+([\d.]+) ms\s+first-store\s+([\d.]+) ms\s+store\s+(\d+) ops/s\s+"
    r"retrieve\s+(\d+) ops/s\s+stats\s+([\d.]+) ms\s+trim-half\s+([\d.]+) s\s+kept (\d+)")
FIELDS = ["open", "first", "store", "retrieve", "stats", "trim"]


def use_figures(text):
    """The figures of a `use` line: open and first store (ms), store and retrieve (ops/s), stats
    (ms), trim to half (s)."""
    m = LINE.search(text)
    if not m:
        raise RuntimeError("no scale line in the output (see logs/disk-scale.log)")
    return dict(zip(FIELDS, (float(m.group(i)) for i in range(3, 9))))


def fill_and_use(c, hoard_side, folder, count, size):
    """One side on a new folder: populate, then use in a new process; its figures."""
    shutil.rmtree(folder, ignore_errors=True)
    if hoard_side:
        c.run([c.tools["measure"], "disk-scale-populate", folder, str(count), str(size)], "disk-scale")
        text = c.run([c.tools["measure"], "disk-scale-use", folder, str(count), str(size)], "disk-scale")
    else:
        script = c.peers / "diskcache_scale.py"
        c.run([PYTHON, script, "populate", folder, str(count), str(size)], "disk-scale")
        text = c.run([PYTHON, script, "use", folder, str(count), str(size)], "disk-scale")
    shutil.rmtree(folder, ignore_errors=True)
    return use_figures(text)


def measure_disk_scale(c):
    """Both sides on each scale case (one repetition each: a million entries take minutes to fill),
    then Hoard on the small cases."""
    base = RESULTS / "tmp" / "disk-scale"
    fs = filesystem(base)
    rows = []
    small = {(count, size): fill_and_use(c, True, base / "hoard", count, size) for count, size in SMALL_CASES}
    for count, size, name in SCALE_CASES:
        hoard = fill_and_use(c, True, base / "hoard", count, size)
        peer = fill_and_use(c, False, base / "diskcache", count, size)
        place = f"{name}, workdir ({fs})"
        for field, work, unit, better in [
            ("open", "open of a new process", "ms", "lower"), ("first", "first store of a new process", "ms", "lower"),
            ("store", "store of new keys", "ops/s", "higher"), ("retrieve", "retrieve of random keys", "ops/s", "higher"),
            ("stats", "count and bytes", "ms", "lower"), ("trim", "trim to half the bytes", "s", "lower")]:
            target = 1.5 if better == "higher" else 1 / 1.5
            rows.append(row("disk-scale", f"{work}, {place}", unit, side("DiskCache", [hoard[field]]),
                            side("diskcache.Cache", [peer[field]]), target=target, better=better))
        # Hoard at scale against Hoard small.
        reference = small[(10_000, size)]
        for field, work in [("store", "store of new keys"), ("retrieve", "retrieve of random keys")]:
            rows.append(row("disk-scale", f"{work}, {place}, against 10 k", "ops/s", side("DiskCache at scale", [hoard[field]]),
                            side("DiskCache at 10 k", [reference[field]]), target=0.8,
                            note="within 20 % of its rate at 10 k"))
        if size == 500:
            rows.append(row("disk-scale", f"first store of a new process, {place}, against 10 entries", "ms",
                            side("DiskCache at scale", [hoard["first"]]), side("DiskCache on 10 entries", [small[(10, 500)]["first"]]),
                            target=5, better="lower", note="at most 5x"))
    shutil.rmtree(base, ignore_errors=True)
    return rows


SECTIONS = [Section(
    "disk-scale", measure_disk_scale, frozenset({"measure"}),
    "Both fill a new folder (`Benchmarks/.results/tmp/disk-scale`) with COUNT values of SIZE random bytes "
    "(64 cycled) under keys `key-%08d` (1 M x 500 B, 100 k x 16 KiB), no limit to speak of; then a new process "
    "opens it and times: the open, its first store, 10,000 stores of new keys, 10,000 retrieves of random "
    "stored keys (each checked for its length), the count and bytes, and a trim to half the bytes. One "
    "repetition per side. Hoard: `DiskCache` (`HoardMeasure disk-scale-populate` and `disk-scale-use`), "
    "count and bytes from the index's running totals, the trim `trim()` of a second instance whose limit is "
    "half the bytes (low-water mark 1). diskcache: `diskcache.Cache(size_limit=2**40, cull_limit=0)` "
    "(`peers/diskcache_scale.py`), count and bytes `len(cache)` and `volume()`, the trim `reset('size_limit', "
    "volume // 2)` then `cull()`. Also Hoard's store and retrieve rates at scale against its own at 10 k, and "
    "its first store at 1 M against its first store on 10 entries.")]
