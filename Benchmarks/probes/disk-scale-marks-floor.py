#!/usr/bin/env python3
"""Issue 51 probe: what SQLite alone takes for a retrieve with a recency mark on a Hoard index at scale.
Usage: disk-scale-marks-floor.py INDEX   (a COPY of index.sqlite from `HoardMeasure disk-scale-populate DIR 1000000 500`:
it writes marks). Prints lookups alone (a read transaction each), lookups with marks written 64 per
transaction that move the row to the end of the rowid order (what Hoard does), and with marks that
only set the date."""
import sqlite3, random, time, sys, shutil
src = sys.argv[1]
db = sqlite3.connect(src, isolation_level=None)
db.execute("PRAGMA cache_size=-16384"); db.execute("PRAGMA mmap_size=0"); db.execute("PRAGMA synchronous=OFF")
hashes = [r[0] for r in db.execute("SELECT hash FROM entries WHERE rowid % 97 = 0")]
print("rows sampled", len(hashes))
# drop OS/page caches effect: new connection
db.close()
db = sqlite3.connect(src, isolation_level=None)
db.execute("PRAGMA cache_size=-16384"); db.execute("PRAGMA mmap_size=0"); db.execute("PRAGMA synchronous=OFF")
pick = [random.choice(hashes) for _ in range(10000)]
t = time.perf_counter()
for h in pick:
    db.execute("BEGIN"); r = db.execute("SELECT used,size,segment,offset,record FROM entries WHERE hash=?", (h,)).fetchone(); db.execute("COMMIT")
el = time.perf_counter() - t
print("lookup only (read txn each): %.0f/s" % (10000/el))
pick = [random.choice(hashes) for _ in range(10000)]
t = time.perf_counter()
pending = []
for h in pick:
    r = db.execute("SELECT used,size,segment,offset,record FROM entries WHERE hash=?", (h,)).fetchone()
    pending.append(h)
    if len(pending) == 64:
        db.execute("BEGIN IMMEDIATE")
        for p in pending:
            db.execute("UPDATE entries SET rowid=(SELECT max(rowid) FROM entries)+1, used=max(used, ?2) WHERE hash=?1", (p, 1e9))
        db.execute("COMMIT"); pending = []
el = time.perf_counter() - t
print("lookup + batched moving mark: %.0f/s" % (10000/el))
pick = [random.choice(hashes) for _ in range(10000)]
t = time.perf_counter()
pending = []
for h in pick:
    r = db.execute("SELECT used,size,segment,offset,record FROM entries WHERE hash=?", (h,)).fetchone()
    pending.append(h)
    if len(pending) == 64:
        db.execute("BEGIN IMMEDIATE")
        for p in pending:
            db.execute("UPDATE entries SET used=max(used, ?2) WHERE hash=?1", (p, 2e9))
        db.execute("COMMIT"); pending = []
el = time.perf_counter() - t
print("lookup + batched date-only mark: %.0f/s" % (10000/el))
