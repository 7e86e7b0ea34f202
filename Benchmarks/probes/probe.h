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

#endif
