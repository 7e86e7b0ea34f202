#!/usr/bin/env python3
"""Issue 51 probe: what SQLite alone takes for a retrieve with a recency mark on a Hoard index at scale.
Usage: disk-scale-marks-floor.py INDEX   (a COPY of index.sqlite from `HoardMeasure disk-scale-populate DIR 1000000 500`:
it writes marks). Prints lookups alone (a read transaction each), lookups with marks written 64 per
transaction that move the row to the end of the rowid order (what Hoard does), and with marks that
only set the date."""
import random
import sqlite3
import sys
import time

LOOKUP = "SELECT used, size, segment, offset, record FROM entries WHERE hash = ?"
MOVING_MARK = "UPDATE entries SET rowid = (SELECT max(rowid) FROM entries) + 1, used = max(used, ?2) WHERE hash = ?1"
DATE_MARK = "UPDATE entries SET used = max(used, ?2) WHERE hash = ?1"
READS, BATCH = 10_000, 64


def connect(path):
    db = sqlite3.connect(path, isolation_level=None)
    for pragma in ("cache_size=-16384", "mmap_size=0", "synchronous=OFF"):  # as Hoard's connections
        db.execute("PRAGMA " + pragma)
    return db


def rate(db, hashes, mark=None, date=0.0):
    """Reads per second of READS random keys: each in a read transaction of its own without MARK;
    with it, marks written BATCH per write transaction (as RecencyMarks writes them)."""
    picked = [random.choice(hashes) for _ in range(READS)]
    pending = []
    start = time.perf_counter()
    for key in picked:
        if mark is None:
            db.execute("BEGIN")
        db.execute(LOOKUP, (key,)).fetchone()
        if mark is None:
            db.execute("COMMIT")
            continue
        pending.append(key)
        if len(pending) == BATCH:
            db.execute("BEGIN IMMEDIATE")
            for marked in pending:
                db.execute(mark, (marked, date))
            db.execute("COMMIT")
            pending = []
    return READS / (time.perf_counter() - start)


path = sys.argv[1]
sampling = connect(path)
hashes = [row[0] for row in sampling.execute("SELECT hash FROM entries WHERE rowid % 97 = 0")]
sampling.close()
print("rows sampled", len(hashes))
db = connect(path)  # a new connection: nothing of the sampling in its page cache
print("lookup only (read txn each): %.0f/s" % rate(db, hashes))
print("lookup + batched moving mark: %.0f/s" % rate(db, hashes, MOVING_MARK, 1e9))
print("lookup + batched date-only mark: %.0f/s" % rate(db, hashes, DATE_MARK, 2e9))
