/* probe.h: what the C probes beside it share. Each probe is one file, compiled on its own. */
#ifndef HOARD_PROBE_H
#define HOARD_PROBE_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The monotonic clock, in seconds. */
static inline double probe_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Runs SQL on DB, or ends the probe with SQLite's message. */
static inline void probe_sql(sqlite3 *db, const char *statement) {
    char *message = NULL;
    if (sqlite3_exec(db, statement, NULL, NULL, &message) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", statement, message);
        exit(1);
    }
}

/* Prepares SQL on DB into STATEMENT, or ends the probe with SQLite's message. */
static inline void probe_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **statement) {
    if (sqlite3_prepare_v2(db, sql, -1, statement, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
        exit(1);
    }
}

/* SQL that makes a new database an index as DiskCache opens one (WAL, synchronous=OFF, no memory
 * map, 4 KiB pages, auto_vacuum=INCREMENTAL, 16 MiB of page cache) with its `entries` table
 * (schema 4): for the probes that time rows written and read as DiskCache's are. */
#define PROBE_INDEX_SQL                                                                                     \
    "PRAGMA page_size = 4096; PRAGMA auto_vacuum = INCREMENTAL; PRAGMA journal_mode = WAL;"                \
    "PRAGMA synchronous = OFF; PRAGMA mmap_size = 0; PRAGMA cache_size = -16384;"                          \
    "CREATE TABLE entries (hash BLOB NOT NULL PRIMARY KEY, key TEXT NOT NULL, size INTEGER NOT NULL,"      \
    " created REAL NOT NULL, expires REAL, used REAL NOT NULL, record BLOB, segment INTEGER, offset INTEGER);"

#endif
