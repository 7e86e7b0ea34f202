/*
 * disk-layouts.c: stores and retrieves small cache entries with three on-disk layouts, single
 * thread, no fsync of our own, and prints stores/s, retrieves/s and inodes per layout and size.
 *
 *   files     Hoard's DiskCache today: per entry, open(O_CREAT|O_EXCL) a temporary file in
 *             DIR/tmp, flock(LOCK_EX), pwrite the record, close, rename to DIR/<2 hex>/<64 hex>
 *             (shard folder made when rename reports ENOENT). Retrieve: open, fstat, pread, close.
 *   segments  lower bound of an append-only store: pwrite the record at the end of the open
 *             segment (a new one every 64 MiB), pwrite a 64-byte index record at the end of the
 *             open index file, remember key -> (segment, offset, length) in an in-memory hash
 *             table. Retrieve: table lookup + pread. No locking, no recovery, no compaction.
 *   sqlite-*  libsqlite3, one connection, journal_mode=WAL, auto_vacuum=INCREMENTAL, one
 *             autocommit INSERT OR REPLACE per store with a reused prepared statement, the
 *             record as a blob. Retrieve: SELECT record, expires ... WHERE hash=?, blob copied
 *             into a malloc'd buffer. Variants: WITHOUT ROWID (wr) or rowid table with
 *             hash UNIQUE (rowid), page size 4/8/16 KiB, synchronous NORMAL or OFF. NORMAL is the
 *             design; OFF is printed only to show what the WAL checkpoints' fsyncs cost (with
 *             synchronous=NORMAL SQLite fsyncs the WAL and database at every checkpoint, which
 *             the other two layouts never do) and is not eligible for the headline.
 *
 * A record is a 48-byte header + a 16-byte key field ("key-%08d", zero padded) + the value; every
 * layout builds it in one buffer and hashes the key with SHA-256 (OpenSSL) on store and on
 * retrieve. Values cycle through 64 random buffers. Retrieves read every key once in a shuffled
 * order (the same for all layouts), straight after the stores, so the page cache is warm: these
 * are hit costs, not cold-disk costs. Each retrieve checks the length, the key and the value's
 * first and last 8 bytes.
 *
 * Each (layout, size) run uses a fresh folder under BASE, after sync() and 1 s of sleep; the
 * layouts are interleaved within each repetition so they share the machine's noise; the table
 * gives the median of the repetitions (raw values in brackets). Inodes: files and folders inside
 * the run's folder after the stores (with the sqlite connection still open, so -wal and -shm
 * count). BASE folders are created if missing and removed at the end if this program made them.
 *
 * Build: cc -O2 -o /tmp/disk-layouts Benchmarks/probes/disk-layouts.c -lsqlite3 -lcrypto
 * Usage: /tmp/disk-layouts [-r REPS=3] [-d DIVISOR=1] BASE...   (DIVISOR shrinks counts for a smoke test)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <openssl/sha.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define HEADER 48
#define KEYFIELD 16
#define BUFFERS 64
#define SEGMENT_LIMIT (64u << 20)

static void die(const char *what, const char *detail) {
    fprintf(stderr, "disk-layouts: %s: %s\n", what, detail ? detail : strerror(errno));
    exit(1);
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void) {
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return rng_state;
}

static void write_all(int fd, const void *bytes, size_t length, off_t offset) {
    const char *p = bytes;
    while (length > 0) {
        ssize_t n = pwrite(fd, p, length, offset);
        if (n < 0) { if (errno == EINTR) continue; die("pwrite", NULL); }
        p += n; length -= (size_t)n; offset += n;
    }
}

static void read_all(int fd, void *bytes, size_t length, off_t offset) {
    char *p = bytes;
    while (length > 0) {
        ssize_t n = pread(fd, p, length, offset);
        if (n < 0) { if (errno == EINTR) continue; die("pread", NULL); }
        if (n == 0) die("pread", "unexpected end of file");
        p += n; length -= (size_t)n; offset += n;
    }
}

/* ---- the workload shared by every layout ---- */

typedef struct {
    size_t value_size, record_size;
    int count;
    unsigned char *values[BUFFERS];
    int *order;            /* retrieve order */
    unsigned char *record; /* store scratch buffer */
    double created;
} workload;

static void make_key(int i, char key[KEYFIELD]) {
    memset(key, 0, KEYFIELD);
    snprintf(key, KEYFIELD, "key-%08d", i);
}

static void hash_key(const char key[KEYFIELD], unsigned char hash[32]) {
    SHA256((const unsigned char *)key, strlen(key), hash);
}

/* Header + key + value into w->record. */
static void build_record(workload *w, int i, const char key[KEYFIELD]) {
    unsigned char *r = w->record;
    static const unsigned char magic[8] = {0x89, 0x48, 0x44, 0x43, 0x0D, 0x0A, 0x1A, 0x0A};
    uint32_t flags = 0, key_length = (uint32_t)strlen(key);
    uint64_t value_length = w->value_size, checksum = 0;
    double expires = w->created + 86400;
    memcpy(r, magic, 8);
    memcpy(r + 8, &flags, 4);
    memcpy(r + 12, &key_length, 4);
    memcpy(r + 16, &value_length, 8);
    memcpy(r + 24, &w->created, 8);
    memcpy(r + 32, &expires, 8);
    memcpy(r + 40, &checksum, 8);
    memcpy(r + HEADER, key, KEYFIELD);
    memcpy(r + HEADER + KEYFIELD, w->values[i % BUFFERS], w->value_size);
}

static void check_record(const workload *w, const unsigned char *r, size_t length, int i,
                         const char key[KEYFIELD]) {
    const unsigned char *v = w->values[i % BUFFERS], *got = r + HEADER + KEYFIELD;
    size_t n = w->value_size;
    if (length != w->record_size || memcmp(r + HEADER, key, KEYFIELD) != 0 ||
        memcmp(got, v, 8) != 0 || memcmp(got + n - 8, v + n - 8, 8) != 0)
        die("retrieve", "wrong record");
}

static void to_hex(const unsigned char hash[32], char hex[65]) {
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) { hex[2 * i] = digits[hash[i] >> 4]; hex[2 * i + 1] = digits[hash[i] & 15]; }
    hex[64] = 0;
}

/* ---- (a) one file per entry ---- */

typedef struct { const char *dir; } files_state;

static void *files_open(const char *dir, const workload *w) {
    (void)w;
    char path[4096];
    snprintf(path, sizeof path, "%s/tmp", dir);
    if (mkdir(path, 0755) != 0) die("mkdir", NULL);
    files_state *s = malloc(sizeof *s);
    s->dir = dir;
    return s;
}

static void files_store(void *state, workload *w, int i) {
    files_state *s = state;
    char key[KEYFIELD], hex[65], temporary[4096], final[4096];
    unsigned char hash[32];
    make_key(i, key);
    hash_key(key, hash);
    to_hex(hash, hex);
    build_record(w, i, key);
    snprintf(temporary, sizeof temporary, "%s/tmp/%016llx.tmp", s->dir, (unsigned long long)next_random());
    int fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) die("open", NULL);
    if (flock(fd, LOCK_EX) != 0) die("flock", NULL);
    write_all(fd, w->record, w->record_size, 0);
    if (close(fd) != 0) die("close", NULL);
    snprintf(final, sizeof final, "%s/%.2s/%s", s->dir, hex, hex);
    if (rename(temporary, final) != 0) {
        if (errno != ENOENT) die("rename", NULL);
        char shard[4096];
        snprintf(shard, sizeof shard, "%s/%.2s", s->dir, hex);
        if (mkdir(shard, 0755) != 0 && errno != EEXIST) die("mkdir", NULL);
        if (rename(temporary, final) != 0) die("rename", NULL);
    }
}

static void files_retrieve(void *state, workload *w, int i) {
    files_state *s = state;
    char key[KEYFIELD], hex[65], path[4096];
    unsigned char hash[32];
    struct stat st;
    make_key(i, key);
    hash_key(key, hash);
    to_hex(hash, hex);
    snprintf(path, sizeof path, "%s/%.2s/%s", s->dir, hex, hex);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) die("open", NULL);
    if (fstat(fd, &st) != 0) die("fstat", NULL);
    unsigned char *buffer = malloc((size_t)st.st_size);
    read_all(fd, buffer, (size_t)st.st_size, 0);
    close(fd);
    check_record(w, buffer, (size_t)st.st_size, i, key);
    free(buffer);
}

static void files_close(void *state) { free(state); }

/* ---- (b) append-only segments + index file + in-memory hash table ---- */

typedef struct { unsigned char hash[32]; uint32_t segment, occupied; uint64_t offset, length; } slot;

typedef struct {
    const char *dir;
    int index_fd, segment_fds[4096], segments;
    uint64_t segment_end, index_end;
    slot *table;
    size_t mask;
} segments_state;

static void segments_roll(segments_state *s) {
    char path[4096];
    snprintf(path, sizeof path, "%s/segment-%06d", s->dir, s->segments);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) die("open", NULL);
    s->segment_fds[s->segments++] = fd;
    s->segment_end = 0;
}

static void *segments_open(const char *dir, const workload *w) {
    segments_state *s = calloc(1, sizeof *s);
    char path[4096];
    s->dir = dir;
    snprintf(path, sizeof path, "%s/index", dir);
    s->index_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (s->index_fd < 0) die("open", NULL);
    size_t capacity = 1024;
    while (capacity < (size_t)w->count * 2) capacity *= 2;
    s->table = calloc(capacity, sizeof(slot));
    s->mask = capacity - 1;
    segments_roll(s);
    return s;
}

static slot *segments_find(segments_state *s, const unsigned char hash[32]) {
    uint64_t h;
    memcpy(&h, hash, 8);
    for (size_t i = h & s->mask;; i = (i + 1) & s->mask)
        if (!s->table[i].occupied || memcmp(s->table[i].hash, hash, 32) == 0) return &s->table[i];
}

static void segments_store(void *state, workload *w, int i) {
    segments_state *s = state;
    char key[KEYFIELD];
    unsigned char hash[32], index_record[64] = {0};
    make_key(i, key);
    hash_key(key, hash);
    build_record(w, i, key);
    if (s->segment_end + w->record_size > SEGMENT_LIMIT && s->segment_end > 0) segments_roll(s);
    uint32_t segment = (uint32_t)s->segments - 1;
    uint64_t offset = s->segment_end, length = w->record_size;
    write_all(s->segment_fds[segment], w->record, w->record_size, (off_t)offset);
    s->segment_end += length;
    memcpy(index_record, hash, 32);
    memcpy(index_record + 32, &segment, 4);
    memcpy(index_record + 40, &offset, 8);
    memcpy(index_record + 48, &length, 8);
    write_all(s->index_fd, index_record, 64, (off_t)s->index_end);
    s->index_end += 64;
    slot *found = segments_find(s, hash);
    memcpy(found->hash, hash, 32);
    found->occupied = 1; found->segment = segment; found->offset = offset; found->length = length;
}

static void segments_retrieve(void *state, workload *w, int i) {
    segments_state *s = state;
    char key[KEYFIELD];
    unsigned char hash[32];
    make_key(i, key);
    hash_key(key, hash);
    slot *found = segments_find(s, hash);
    if (!found->occupied) die("retrieve", "missing key");
    unsigned char *buffer = malloc(found->length);
    read_all(s->segment_fds[found->segment], buffer, found->length, (off_t)found->offset);
    check_record(w, buffer, found->length, i, key);
    free(buffer);
}

static void segments_close(void *state) {
    segments_state *s = state;
    for (int i = 0; i < s->segments; i++) close(s->segment_fds[i]);
    close(s->index_fd);
    free(s->table);
    free(s);
}

/* ---- (c) SQLite ---- */

typedef struct { int page_size, without_rowid, synchronous_off; } sqlite_variant;
typedef struct { sqlite3 *db; sqlite3_stmt *insert, *select; } sqlite_state;

static void sql(sqlite3 *db, const char *statement) {
    char *message = NULL;
    if (sqlite3_exec(db, statement, NULL, NULL, &message) != SQLITE_OK) die(statement, message);
}

static void *sqlite_open(const char *dir, const sqlite_variant *v) {
    sqlite_state *s = calloc(1, sizeof *s);
    char path[4096], statement[256];
    snprintf(path, sizeof path, "%s/cache.sqlite", dir);
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        die("sqlite3_open_v2", sqlite3_errmsg(s->db));
    snprintf(statement, sizeof statement, "PRAGMA page_size=%d", v->page_size);
    sql(s->db, statement); /* before anything is written */
    sql(s->db, "PRAGMA auto_vacuum=INCREMENTAL");
    sql(s->db, "PRAGMA journal_mode=WAL");
    sql(s->db, v->synchronous_off ? "PRAGMA synchronous=OFF" : "PRAGMA synchronous=NORMAL");
    sql(s->db, v->without_rowid
        ? "CREATE TABLE entries(hash BLOB PRIMARY KEY, key TEXT NOT NULL, size INTEGER NOT NULL, "
          "created REAL NOT NULL, expires REAL, used REAL NOT NULL, record BLOB) WITHOUT ROWID"
        : "CREATE TABLE entries(hash BLOB UNIQUE, key TEXT NOT NULL, size INTEGER NOT NULL, "
          "created REAL NOT NULL, expires REAL, used REAL NOT NULL, record BLOB)");
    sql(s->db, "CREATE INDEX entries_used ON entries(used)");
    sqlite3_stmt *check;
    sqlite3_prepare_v2(s->db, "PRAGMA page_size", -1, &check, NULL);
    if (sqlite3_step(check) != SQLITE_ROW || sqlite3_column_int(check, 0) != v->page_size) die("page_size", "not applied");
    sqlite3_finalize(check);
    if (sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO entries(hash, key, size, created, expires, used, record) "
                           "VALUES(?, ?, ?, ?, ?, ?, ?)", -1, &s->insert, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db, "SELECT record, expires FROM entries WHERE hash=?", -1, &s->select, NULL) != SQLITE_OK)
        die("prepare", sqlite3_errmsg(s->db));
    return s;
}

static void sqlite_store(void *state, workload *w, int i) {
    sqlite_state *s = state;
    char key[KEYFIELD];
    unsigned char hash[32];
    make_key(i, key);
    hash_key(key, hash);
    build_record(w, i, key);
    sqlite3_stmt *q = s->insert;
    sqlite3_bind_blob(q, 1, hash, 32, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 3, (sqlite3_int64)w->value_size);
    sqlite3_bind_double(q, 4, w->created);
    sqlite3_bind_double(q, 5, w->created + 86400);
    sqlite3_bind_double(q, 6, w->created);
    sqlite3_bind_blob(q, 7, w->record, (int)w->record_size, SQLITE_STATIC);
    if (sqlite3_step(q) != SQLITE_DONE) die("insert", sqlite3_errmsg(s->db));
    sqlite3_reset(q);
}

static void sqlite_retrieve(void *state, workload *w, int i) {
    sqlite_state *s = state;
    char key[KEYFIELD];
    unsigned char hash[32];
    make_key(i, key);
    hash_key(key, hash);
    sqlite3_stmt *q = s->select;
    sqlite3_bind_blob(q, 1, hash, 32, SQLITE_STATIC);
    if (sqlite3_step(q) != SQLITE_ROW) die("select", sqlite3_errmsg(s->db));
    const void *blob = sqlite3_column_blob(q, 0);
    size_t length = (size_t)sqlite3_column_bytes(q, 0);
    volatile double expires = sqlite3_column_double(q, 1);
    (void)expires;
    unsigned char *buffer = malloc(length);
    memcpy(buffer, blob, length);
    sqlite3_reset(q);
    check_record(w, buffer, length, i, key);
    free(buffer);
}

static void sqlite_close(void *state) {
    sqlite_state *s = state;
    sqlite3_finalize(s->insert);
    sqlite3_finalize(s->select);
    if (sqlite3_close(s->db) != SQLITE_OK) die("sqlite3_close", sqlite3_errmsg(s->db));
    free(s);
}

/* ---- driver ---- */

typedef struct {
    const char *name;
    int kind; /* 0 files, 1 segments, 2 sqlite */
    sqlite_variant variant;
    int headline_eligible;
} design;

static const design designs[] = {
    {"files", 0, {0, 0, 0}, 1},
    {"segments", 1, {0, 0, 0}, 1},
    {"sqlite-wr-4k", 2, {4096, 1, 0}, 1},
    {"sqlite-rowid-4k", 2, {4096, 0, 0}, 1},
    {"sqlite-rowid-8k", 2, {8192, 0, 0}, 1},
    {"sqlite-rowid-16k", 2, {16384, 0, 0}, 1},
    {"sqlite-wr-8k", 2, {8192, 1, 0}, 1},
    {"sqlite-wr-16k", 2, {16384, 1, 0}, 1},
    {"sqlite-wr-4k-syncOFF", 2, {4096, 1, 1}, 0},
};
#define DESIGNS ((int)(sizeof designs / sizeof designs[0]))

static const size_t sizes[] = {1024, 16384, 65536, 262144};
static const int counts[] = {10000, 10000, 2000, 1000};
#define SIZES 4

static long walk_count;
static int count_entry(const char *p, const struct stat *st, int type, struct FTW *f) {
    (void)p; (void)st; (void)type;
    if (f->level > 0) walk_count++;
    return 0;
}
static int remove_entry(const char *p, const struct stat *st, int type, struct FTW *f) {
    (void)st; (void)type; (void)f;
    if (remove(p) != 0) die("remove", NULL);
    return 0;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int n) {
    double sorted[64];
    memcpy(sorted, values, n * sizeof(double));
    qsort(sorted, n, sizeof(double), compare_doubles);
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

static void run(const char *base, const design *d, workload *w, double *store_rate, double *retrieve_rate, long *inodes) {
    static int run_number;
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/run-%d-%d", base, (int)getpid(), run_number++);
    if (mkdir(dir, 0755) != 0) die("mkdir", NULL);
    sync();
    sleep(1);

    void *state = d->kind == 0 ? files_open(dir, w) : d->kind == 1 ? segments_open(dir, w) : sqlite_open(dir, &d->variant);
    void (*store)(void *, workload *, int) = d->kind == 0 ? files_store : d->kind == 1 ? segments_store : sqlite_store;
    void (*retrieve)(void *, workload *, int) = d->kind == 0 ? files_retrieve : d->kind == 1 ? segments_retrieve : sqlite_retrieve;

    double start = now_seconds();
    for (int i = 0; i < w->count; i++) store(state, w, i);
    double stored = now_seconds();
    walk_count = 0;
    nftw(dir, count_entry, 64, FTW_PHYS);
    double counted = now_seconds();
    for (int i = 0; i < w->count; i++) retrieve(state, w, w->order[i]);
    double retrieved = now_seconds();

    if (d->kind == 0) files_close(state); else if (d->kind == 1) segments_close(state); else sqlite_close(state);
    nftw(dir, remove_entry, 64, FTW_DEPTH | FTW_PHYS);
    *store_rate = w->count / (stored - start);
    *retrieve_rate = w->count / (retrieved - counted);
    *inodes = walk_count;
}

static const char *fs_name(const char *path) {
    struct statfs s;
    if (statfs(path, &s) != 0) die("statfs", NULL);
    switch ((unsigned long)s.f_type) {
    case 0xEF53: return "ext4";
    case 0x01021994: return "tmpfs";
    case 0x9123683E: return "btrfs";
    case 0x58465342: return "xfs";
    case 0x794C7630: return "overlay";
    default: return "other";
    }
}

int main(int argc, char **argv) {
    int reps = 3, divisor = 1, option;
    while ((option = getopt(argc, argv, "r:d:")) != -1) {
        if (option == 'r') reps = atoi(optarg);
        else if (option == 'd') divisor = atoi(optarg);
        else return 2;
    }
    if (optind >= argc || reps < 1 || reps > 64 || divisor < 1) {
        fprintf(stderr, "usage: %s [-r REPS=3] [-d DIVISOR=1] BASE...\n", argv[0]);
        return 2;
    }
    printf("sqlite %s, %d repetitions, medians [raw]; stores/s and retrieves/s are operations per second\n",
           sqlite3_libversion(), reps);
    for (int b = optind; b < argc; b++) {
        const char *base = argv[b];
        int made = mkdir(base, 0755) == 0;
        if (!made && errno != EEXIST) die("mkdir", NULL);
        const char *fs = fs_name(base);
        static double store_rates[SIZES][DESIGNS][64], retrieve_rates[SIZES][DESIGNS][64];
        static long inodes[SIZES][DESIGNS];
        workload ws[SIZES];
        for (int z = 0; z < SIZES; z++) {
            workload *w = &ws[z];
            w->value_size = sizes[z];
            w->record_size = HEADER + KEYFIELD + sizes[z];
            w->count = counts[z] / divisor;
            w->record = malloc(w->record_size);
            w->created = (double)time(NULL);
            for (int k = 0; k < BUFFERS; k++) {
                w->values[k] = malloc(w->value_size);
                for (size_t j = 0; j < w->value_size; j += 8) { uint64_t r = next_random(); memcpy(w->values[k] + j, &r, 8); }
            }
            w->order = malloc(w->count * sizeof(int));
            for (int i = 0; i < w->count; i++) w->order[i] = i;
            for (int i = w->count - 1; i > 0; i--) { int j = (int)(next_random() % (uint64_t)(i + 1)), t = w->order[i]; w->order[i] = w->order[j]; w->order[j] = t; }
        }
        for (int r = 0; r < reps; r++)
            for (int z = 0; z < SIZES; z++)
                for (int d = 0; d < DESIGNS; d++) {
                    run(base, &designs[d], &ws[z], &store_rates[z][d][r], &retrieve_rates[z][d][r], &inodes[z][d]);
                    fprintf(stderr, "%s rep %d %6zu B %-21s stores/s %9.0f retrieves/s %9.0f inodes %ld\n", fs, r + 1,
                            sizes[z], designs[d].name, store_rates[z][d][r], retrieve_rates[z][d][r], inodes[z][d]);
                }
        printf("\n%s (%s), counts 1K/16K: %d, 64K: %d, 256K: %d\n", base, fs, ws[0].count, ws[2].count, ws[3].count);
        printf("%-5s %6s %-21s %9s %-29s %9s %-29s %6s\n", "fs", "value", "design", "stores/s", "", "retr/s", "", "inodes");
        for (int z = 0; z < SIZES; z++) {
            int best = -1;
            for (int d = 0; d < DESIGNS; d++)
                if (designs[d].kind == 2 && designs[d].headline_eligible &&
                    (best < 0 || median(store_rates[z][d], reps) > median(store_rates[z][best], reps))) best = d;
            for (int d = 0; d < DESIGNS; d++) {
                char raw_s[128] = "[", raw_r[128] = "[";
                for (int r = 0; r < reps && r < 4; r++) {
                    char v[32];
                    snprintf(v, sizeof v, "%s%.0f", r ? " " : "", store_rates[z][d][r]); strncat(raw_s, v, sizeof raw_s - strlen(raw_s) - 2);
                    snprintf(v, sizeof v, "%s%.0f", r ? " " : "", retrieve_rates[z][d][r]); strncat(raw_r, v, sizeof raw_r - strlen(raw_r) - 2);
                }
                strcat(raw_s, "]"); strcat(raw_r, "]");
                printf("%-5s %5zuK %-21s %9.0f %-29s %9.0f %-29s %6ld%s\n", fs, sizes[z] / 1024, designs[d].name,
                       median(store_rates[z][d], reps), raw_s, median(retrieve_rates[z][d], reps), raw_r, inodes[z][d],
                       d == best ? "  <- fastest sqlite (stores)" : "");
            }
        }
        fflush(stdout);
        if (made && rmdir(base) != 0) die("rmdir", NULL);
        for (int z = 0; z < SIZES; z++) {
            for (int k = 0; k < BUFFERS; k++) free(ws[z].values[k]);
            free(ws[z].order); free(ws[z].record);
        }
    }
    return 0;
}
