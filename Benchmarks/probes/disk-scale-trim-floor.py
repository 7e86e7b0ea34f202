#!/usr/bin/env python3
"""Issue 51 probe: what SQLite alone takes to trim a Hoard index at scale to about a third of its rows.
Usage: disk-scale-trim-floor.py INDEX BATCH   (a COPY of index.sqlite from `HoardMeasure disk-scale-populate`;
the index keeps its schema and triggers). Deletes the oldest 64 % of the rows in transactions of BATCH
rows (Hoard: 64 at a 4 MiB log), then gives the free pages back with incremental_vacuum(64) steps."""
import sqlite3, time, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
for p in ["cache_size=-16384","mmap_size=0","synchronous=OFF","recursive_triggers=ON","journal_size_limit=4194304","wal_autocheckpoint=1024"]:
    db.execute("PRAGMA "+p)
n = db.execute("SELECT count(*) FROM entries").fetchone()[0]
target = n * 64 // 100
batch = int(sys.argv[2])
t = time.perf_counter()
done = 0
while done < target:
    db.execute("BEGIN IMMEDIATE")
    rows = [r[0] for r in db.execute("SELECT rowid FROM entries ORDER BY rowid LIMIT ?", (batch,))]
    db.executemany("DELETE FROM entries WHERE rowid = ?", [(r,) for r in rows])
    db.execute("COMMIT"); done += len(rows)
d = time.perf_counter() - t
t = time.perf_counter()
while True:
    free = db.execute("PRAGMA freelist_count").fetchone()[0]
    if free == 0: break
    db.execute("PRAGMA incremental_vacuum(64)")
v = time.perf_counter() - t
print("deleted %d of %d rows in batches of %d: %.1f s; vacuum %.1f s" % (done, n, batch, d, v))
