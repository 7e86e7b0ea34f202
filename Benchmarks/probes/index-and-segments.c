/*
 * index-and-segments.c: one record per store, kept inside an SQLite index (the disk tier before
 * segment files) or appended to a segment file with only its place in the index (the disk tier
 * now), with the index's settings as DiskCache opens it: WAL, synchronous=OFF, a 256 MiB memory
 * map, auto_vacuum=INCREMENTAL, 4 KiB pages, the same columns and index on (used, size).
 *
 *   cc -O2 -o /tmp/index-and-segments Benchmarks/probes/index-and-segments.c -lsqlite3 -lcrypto
 *   for layout in inline segment segment-wr; do
 *       rm -rf /tmp/p && mkdir /tmp/p && /tmp/index-and-segments /tmp/p $layout 16384 10000
 *   done
 *
 * LAYOUT: inline (the record in the row's blob, read with sqlite3_column_blob and copied out),
 * segment (pwrite at the segment's end, then the row with segment and offset; read: the row,
 * then one pread), segment-wr (the same with a WITHOUT ROWID table). COUNT stores of keys
 * "key-%08d" with a VALUE_SIZE value and a 48-byte header, then COUNT reads in the same order;
 * prints stores/s and reads/s. One connection, one thread, autocommit statements.
 */
#define _GNU_SOURCE
#include "probe.h"
#include <fcntl.h>
#include <openssl/sha.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void key_hash(int i, char key[32], unsigned char hash[32]) {
    snprintf(key, 32, "key-%08d", i);
    SHA256((const unsigned char *)key, strlen(key), hash);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s DIR inline|segment|segment-wr VALUE_SIZE COUNT\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1], *layout = argv[2];
    int segment = strncmp(layout, "segment", 7) == 0, without_rowid = strcmp(layout, "segment-wr") == 0;
    size_t value_size = (size_t)atol(argv[3]), record_size = value_size + 48 + 12;
    int count = atoi(argv[4]);
    char path[4096];
    snprintf(path, sizeof path, "%s/index.sqlite", dir);
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) return 1;
    probe_sql(db, "PRAGMA page_size=4096");
    probe_sql(db, "PRAGMA auto_vacuum=INCREMENTAL");
    probe_sql(db, "PRAGMA journal_mode=WAL");
    probe_sql(db, "PRAGMA synchronous=OFF");
    probe_sql(db, "PRAGMA mmap_size=268435456");
    probe_sql(db, without_rowid
        ? "CREATE TABLE entries(hash BLOB NOT NULL PRIMARY KEY, key TEXT NOT NULL, size INTEGER NOT NULL, "
          "created REAL NOT NULL, expires REAL, used REAL NOT NULL, record BLOB, segment INTEGER, offset INTEGER) "
          "WITHOUT ROWID"
        : "CREATE TABLE entries(hash BLOB NOT NULL PRIMARY KEY, key TEXT NOT NULL, size INTEGER NOT NULL, "
          "created REAL NOT NULL, expires REAL, used REAL NOT NULL, record BLOB, segment INTEGER, offset INTEGER)");
    probe_sql(db, "CREATE INDEX entries_by_use ON entries(used, size)");
    snprintf(path, sizeof path, "%s/segment-1", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return 1;
    sqlite3_stmt *insert, *select;
    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO entries(hash, key, size, created, expires, used, record, segment, "
                           "offset) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &insert, NULL);
    sqlite3_prepare_v2(db, segment ? "SELECT segment, offset, size FROM entries WHERE hash = ?1"
                                   : "SELECT record FROM entries WHERE hash = ?1", -1, &select, NULL);
    unsigned char *record = malloc(record_size);
    for (size_t i = 0; i < record_size; i++) record[i] = (unsigned char)rand();
    off_t end = 0;
    unsigned long check = 0;
    double started = probe_now();
    for (int i = 0; i < count; i++) {
        char key[32];
        unsigned char hash[32];
        key_hash(i, key, hash);
        sqlite3_bind_blob(insert, 1, hash, 32, SQLITE_STATIC);
        sqlite3_bind_text(insert, 2, key, -1, SQLITE_STATIC);
        sqlite3_bind_int64(insert, 3, (sqlite3_int64)record_size);
        sqlite3_bind_double(insert, 4, 1);
        sqlite3_bind_double(insert, 5, 2);
        sqlite3_bind_double(insert, 6, 1);
        if (segment) {
            if (pwrite(fd, record, record_size, end) != (ssize_t)record_size) return 1;
            sqlite3_bind_null(insert, 7);
            sqlite3_bind_int(insert, 8, 1);
            sqlite3_bind_int64(insert, 9, end);
            end += (off_t)record_size;
        } else {
            sqlite3_bind_blob(insert, 7, record, (int)record_size, SQLITE_STATIC);
            sqlite3_bind_null(insert, 8);
            sqlite3_bind_null(insert, 9);
        }
        if (sqlite3_step(insert) != SQLITE_DONE) return 1;
        sqlite3_reset(insert);
    }
    double stored = probe_now();
    for (int i = 0; i < count; i++) {
        char key[32];
        unsigned char hash[32];
        key_hash(i, key, hash);
        sqlite3_bind_blob(select, 1, hash, 32, SQLITE_STATIC);
        if (sqlite3_step(select) != SQLITE_ROW) return 1;
        unsigned char *buffer;
        size_t length;
        if (segment) {
            off_t offset = sqlite3_column_int64(select, 1);
            length = (size_t)sqlite3_column_int64(select, 2);
            sqlite3_reset(select);
            buffer = malloc(length);
            if (pread(fd, buffer, length, offset) != (ssize_t)length) return 1;
        } else {
            length = (size_t)sqlite3_column_bytes(select, 0);
            buffer = malloc(length);
            memcpy(buffer, sqlite3_column_blob(select, 0), length);
            sqlite3_reset(select);
        }
        check += buffer[length - 1];
        free(buffer);
    }
    double read = probe_now();
    printf("%-10s %7zu B: store %7.0f/s  read %7.0f/s  (check %lu)\n", layout, value_size, count / (stored - started),
           count / (read - stored), check % 7);
    return 0;
}
