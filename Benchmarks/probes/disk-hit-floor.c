/*
 * disk-hit-floor.c: the work a disk hit cannot avoid, and nothing else. COUNT records of a
 * VALUE_SIZE value are stored as DiskCache lays them out: in an SQLite index opened as DiskCache
 * opens it (WAL, synchronous=OFF, no memory map, 4 KiB pages, 16 MiB of page cache), a record
 * under 2 KiB inside its row, a larger one (up to 68 KiB) appended to one segment file with its
 * row holding the offset. A record is a 48-byte header, the key and the value.
 *
 * Each read then hashes the key (SHA-256, OpenSSL's low-level calls as Hoard makes them), looks
 * the row up by that hash in a transaction of its own (autocommit, as a read that must see other
 * processes' commits), copies the record into a buffer of its own (from the row, or with one
 * `pread` from the segment), checks its key and the CRC-32C of the value (Hoard's
 * `hoard_crc32c_update`), and frees the buffer. A second connection holds a read transaction
 * open all along, as DiskCache's `ReadLockHold` does, so that the reads take no `fcntl` lock.
 * No promotion into memory, no Swift.
 *
 *   clang -O2 -I Sources/CHoardSupport/include -o /tmp/disk-hit-floor Benchmarks/probes/disk-hit-floor.c \
 *       Sources/CHoardSupport/checksum.c Sources/CHoardSupport/sha256.c -lsqlite3 -lcrypto -lpthread
 *   rm -rf /dev/shm/h && mkdir /dev/shm/h && /tmp/disk-hit-floor /dev/shm/h 16384 10000 2
 *
 * Reads keys "key-%08d" in order for SECONDS, in passes over all COUNT; prints reads/s.
 */
#define _GNU_SOURCE
#include "probe.h"
#include "CHoardSupport.h"
#include <fcntl.h>
#include <openssl/sha.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { HEADER = 48, INLINE_LIMIT = 2048 };

/* The record of `key`: header (CRC-32C of the value in its first 4 bytes, the key's length in
 * bytes 4-5), key, value. */
static size_t makeRecord(uint8_t *record, const char *key, const uint8_t *value, size_t size) {
    size_t keyLength = strlen(key);
    memset(record, 0, HEADER);
    uint32_t crc = hoard_crc32c_update(0xFFFFFFFFu, value, size);
    memcpy(record, &crc, 4);
    uint16_t length16 = (uint16_t)keyLength;
    memcpy(record + 4, &length16, 2);
    memcpy(record + HEADER, key, keyLength);
    memcpy(record + HEADER + keyLength, value, size);
    return HEADER + keyLength + size;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s DIR VALUE_SIZE COUNT SECONDS\n", argv[0]);
        return 64;
    }
    const char *root = argv[1];
    size_t size = strtoul(argv[2], NULL, 10);
    int count = atoi(argv[3]);
    double seconds = atof(argv[4]);
    uint8_t *value = malloc(size), *record = malloc(size + HEADER + 64);
    for (size_t i = 0; i < size; i++) value[i] = (uint8_t)(i * 2654435761u >> 13);

    char path[4096];
    snprintf(path, sizeof path, "%s/segment-1", root);
    int segment = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    snprintf(path, sizeof path, "%s/index.sqlite", root);
    sqlite3 *db = NULL, *holder = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK) return 1;
    probe_sql(db, PROBE_INDEX_SQL);
    sqlite3_stmt *insert = NULL, *lookUp = NULL, *hold = NULL;
    probe_prepare(db,
            "INSERT INTO entries (hash, key, size, created, expires, used, record, segment, offset)"
            " VALUES (?1, ?2, ?3, ?4, NULL, ?4, ?5, ?6, ?7)",
            &insert);
    off_t end = 0;
    probe_sql(db, "BEGIN");
    for (int index = 0; index < count; index++) {
        char key[32];
        snprintf(key, sizeof key, "key-%08d", index);
        uint8_t hash[32];
        SHA256((const uint8_t *)key, strlen(key), hash);
        size_t length = makeRecord(record, key, value, size);
        sqlite3_bind_blob(insert, 1, hash, 32, SQLITE_STATIC);
        sqlite3_bind_text(insert, 2, key, -1, SQLITE_STATIC);
        sqlite3_bind_int64(insert, 3, (sqlite3_int64)length);
        sqlite3_bind_double(insert, 4, probe_now());
        if (length < INLINE_LIMIT) {
            sqlite3_bind_blob(insert, 5, record, (int)length, SQLITE_STATIC);
            sqlite3_bind_null(insert, 6);
            sqlite3_bind_null(insert, 7);
        } else {
            if (pwrite(segment, record, length, end) != (ssize_t)length) return 1;
            sqlite3_bind_null(insert, 5);
            sqlite3_bind_int64(insert, 6, 1);
            sqlite3_bind_int64(insert, 7, end);
            end += (off_t)length;
        }
        if (sqlite3_step(insert) != SQLITE_DONE) return 1;
        sqlite3_reset(insert);
    }
    probe_sql(db, "COMMIT");

    if (sqlite3_open(path, &holder) != SQLITE_OK) return 1;
    probe_sql(holder, "BEGIN");
    probe_prepare(holder, "SELECT 1 FROM entries LIMIT 1", &hold);
    if (sqlite3_step(hold) != SQLITE_ROW) return 1;
    probe_prepare(db, "SELECT used, size, segment, offset, record FROM entries WHERE hash = ?1", &lookUp);

    long reads = 0;
    double start = probe_now();
    do {
        for (int index = 0; index < count; index++) {
            char key[32];
            int keyLength = snprintf(key, sizeof key, "key-%08d", index);
            uint8_t hash[32];
            if (hoard_sha256(key, (size_t)keyLength, hash) != 0) return 1;
            sqlite3_bind_blob(lookUp, 1, hash, 32, SQLITE_STATIC);
            if (sqlite3_step(lookUp) != SQLITE_ROW) return 1;
            size_t length = (size_t)sqlite3_column_int64(lookUp, 1);
            uint8_t *bytes = malloc(length);
            if (sqlite3_column_type(lookUp, 4) == SQLITE_BLOB) {
                memcpy(bytes, sqlite3_column_blob(lookUp, 4), length);
            } else if (pread(segment, bytes, length, (off_t)sqlite3_column_int64(lookUp, 3)) != (ssize_t)length) {
                return 1;
            }
            sqlite3_reset(lookUp);
            uint32_t crc;
            uint16_t storedKeyLength;
            memcpy(&crc, bytes, 4);
            memcpy(&storedKeyLength, bytes + 4, 2);
            if (storedKeyLength != keyLength || memcmp(bytes + HEADER, key, (size_t)keyLength) != 0) return 2;
            size_t offset = HEADER + (size_t)keyLength;
            if (hoard_crc32c_update(0xFFFFFFFFu, bytes + offset, length - offset) != crc) return 3;
            free(bytes);
            reads++;
        }
    } while (probe_now() - start < seconds);
    printf("floor %zu B x %d: retrieve %.0f ops/s\n", size, count, reads / (probe_now() - start));
    return 0;
}
