/*
 * file-store-floor.c: the work a store of a record in a file of its own cannot avoid, and nothing
 * else: the record (a 48-byte header and the value) written to a new temporary file in 256 KiB
 * chunks with its CRC-32C computed on the way (Hoard's own `hoard_crc32c_update`, the fastest path
 * the CPU has), the header written last, and the file renamed into
 * its shard folder under the SHA-256 of its key. With "index", each store also commits the row in
 * an SQLite index opened as DiskCache opens it (WAL, synchronous=OFF, no memory map, 4 KiB pages,
 * auto_vacuum=INCREMENTAL): the row and the usage count in one transaction, after the rename.
 * With "owned", also what issue 28's items 2 and 7 ask of a store, and nothing more: the `tmp` folder
 * opened (O_NOFOLLOW) and its owner checked, the temporary file `flock`ed, the shard folder opened
 * (O_NOFOLLOW), and the rename made through its descriptor inside the index's write transaction.
 *
 *   clang -O2 -I Sources/CHoardSupport/include -o /tmp/file-store-floor Benchmarks/probes/file-store-floor.c \
 *       Sources/CHoardSupport/checksum.c -lsqlite3 -lcrypto -lpthread
 *   rm -rf /dev/shm/f && mkdir /dev/shm/f && /tmp/file-store-floor /dev/shm/f files 1048576 200 2
 *
 * MODE: files, index or owned. COUNT stores of keys "key-%08d" of a VALUE_SIZE value, repeated for
 * SECONDS (each round overwrites the same keys, where `HoardMeasure disk-loop --op store` stores
 * new ones: compare the modes with each other); prints stores/s. One thread.
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
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { HEADER = 48, CHUNK = 256 * 1024 };

static void writeAll(int fd, const void *bytes, size_t length, off_t offset) {
    while (length > 0) {
        ssize_t written = pwrite(fd, bytes, length, offset);
        if (written <= 0) {
            perror("pwrite");
            exit(1);
        }
        bytes = (const uint8_t *)bytes + written;
        length -= (size_t)written;
        offset += written;
    }
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s DIR files|index|owned VALUE_SIZE COUNT SECONDS\n", argv[0]);
        return 64;
    }
    const char *root = argv[1];
    int owned = strcmp(argv[2], "owned") == 0;
    int withIndex = owned || strcmp(argv[2], "index") == 0;
    size_t size = strtoul(argv[3], NULL, 10);
    int count = atoi(argv[4]);
    double seconds = atof(argv[5]);
    uint8_t *value = malloc(size);
    for (size_t i = 0; i < size; i++) value[i] = (uint8_t)(i * 2654435761u >> 13);
    char path[4096];
    snprintf(path, sizeof path, "%s/tmp", root);
    mkdir(path, 0700);
    int rootFD = open(root, O_RDONLY | O_DIRECTORY);
    int temporaryFD = owned ? -1 : open(path, O_RDONLY | O_DIRECTORY);  // "owned" opens it for each store
    sqlite3 *db = NULL;
    sqlite3_stmt *upsert = NULL, *usage = NULL;
    if (withIndex) {
        snprintf(path, sizeof path, "%s/index.sqlite", root);
        if (sqlite3_open(path, &db) != SQLITE_OK) return 1;
        probe_sql(db, PROBE_INDEX_SQL
                "CREATE TABLE usage (id INTEGER PRIMARY KEY, bytes INTEGER NOT NULL);"
                "INSERT INTO usage VALUES (1, 0);");
        probe_prepare(db,
                      "INSERT OR REPLACE INTO entries (hash, key, size, created, expires, used, record, segment, offset)"
                      " VALUES (?1, ?2, ?3, ?4, NULL, ?4, NULL, NULL, NULL)",
                      &upsert);
        probe_prepare(db, "UPDATE usage SET bytes = bytes + ?1 WHERE id = 1", &usage);
    }
    uint8_t header[HEADER] = {0};
    long stores = 0;
    double start = probe_now();
    do {
        for (int index = 0; index < count; index++) {
            char key[32], name[80], temporary[64];
            snprintf(key, sizeof key, "key-%08d", index);
            uint8_t hash[32];
            SHA256((const uint8_t *)key, strlen(key), hash);
            for (int i = 0; i < 32; i++) snprintf(name + 3 + 2 * i, 3, "%02x", hash[i]);
            memcpy(name, name + 3, 2);
            name[2] = '\0';
            mkdirat(rootFD, name, 0700);  // the shard folder: EEXIST after the first round
            int shardFD = -1;
            if (owned) {
                shardFD = openat(rootFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (shardFD < 0) {
                    perror("openat shard");
                    return 1;
                }
                char temporaryPath[4096];
                snprintf(temporaryPath, sizeof temporaryPath, "%s/tmp", root);
                temporaryFD = open(temporaryPath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                struct stat folder;
                if (temporaryFD < 0 || fstat(temporaryFD, &folder) != 0 || folder.st_uid != geteuid()) return 1;
            }
            name[2] = '/';
            snprintf(temporary, sizeof temporary, "%d-%ld.tmp", getpid(), stores);
            int fd = openat(temporaryFD, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
            if (fd < 0) {
                perror("openat");
                return 1;
            }
            if (owned && flock(fd, LOCK_EX | LOCK_NB) != 0) return 1;
            uint32_t crc = 0xFFFFFFFFu;
            for (size_t offset = 0; offset < size; offset += CHUNK) {
                size_t length = size - offset < CHUNK ? size - offset : CHUNK;
                crc = hoard_crc32c_update(crc, value + offset, length);
                writeAll(fd, value + offset, length, (off_t)(HEADER + offset));
            }
            memcpy(header, &crc, 4);
            writeAll(fd, header, HEADER, 0);
            if (!owned) {
                if (renameat(temporaryFD, temporary, rootFD, name) != 0) {
                    perror("renameat");
                    return 1;
                }
                close(fd);
            }
            if (withIndex) {
                probe_sql(db, "BEGIN IMMEDIATE");
                if (owned && renameat(temporaryFD, temporary, shardFD, name + 3) != 0) {
                    perror("renameat");
                    return 1;
                }
                sqlite3_bind_blob(upsert, 1, hash, 32, SQLITE_STATIC);
                sqlite3_bind_text(upsert, 2, key, -1, SQLITE_STATIC);
                sqlite3_bind_int64(upsert, 3, (sqlite3_int64)(size + HEADER));
                sqlite3_bind_double(upsert, 4, probe_now());
                if (sqlite3_step(upsert) != SQLITE_DONE) return 1;
                sqlite3_reset(upsert);
                sqlite3_bind_int64(usage, 1, (sqlite3_int64)(size + HEADER));
                if (sqlite3_step(usage) != SQLITE_DONE) return 1;
                sqlite3_reset(usage);
                probe_sql(db, "COMMIT");
            }
            if (owned) {
                close(fd);  // after the commit: releases the lock
                close(shardFD);
                close(temporaryFD);
            }
            stores++;
        }
    } while (probe_now() - start < seconds);
    printf("floor (%s) %zu B x %d: store %.0f ops/s\n", argv[2], size, count, stores / (probe_now() - start));
    return 0;
}
