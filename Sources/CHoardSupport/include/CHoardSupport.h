// CHoardSupport: the C that the cache core and the Redis client need, and that links no image
// library: CRC-32C, SHA-256 (the platform's library), a copy routine, `dirent` fields read in place
// and ThreadSanitizer annotations. Nothing here exits, prints or jumps.

#ifndef CHOARD_SUPPORT_H
#define CHOARD_SUPPORT_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - Memory

/// Copies `count` bytes between regions that do not overlap, at full speed whatever their relative
/// alignment (see copy.c for why not memcpy).
void hoard_copy_bytes(void *restrict destination, const void *restrict source, size_t count);

// MARK: - Record locks

/// Takes an exclusive open-file-description lock on the byte at `offset` (its low 62 bits) of the
/// file open as `descriptor` (for writing), without waiting: 1 when taken (or already held through
/// this open file), 0 when another open file holds it, -1 on error (errno; ENOTSUP off Linux).
int hoard_record_try_lock(int descriptor, uint64_t offset);
/// Releases the lock `hoard_record_try_lock` took: 0, or -1 on error (errno).
int hoard_record_unlock(int descriptor, uint64_t offset);
/// Whether another open file holds a lock on the byte at `offset`: 1, 0, or -1 on error (errno).
int hoard_record_is_locked(int descriptor, uint64_t offset);

// MARK: - Waiting for SQLite's locks

/// What `hoard_busy_wait` keeps for one SQLite connection: how long a wait may last, and when the
/// current one began (CLOCK_MONOTONIC, nanoseconds).
typedef struct {
    int32_t timeout_milliseconds;
    int64_t started;
} hoard_busy_wait_state;
/// An SQLite busy handler (`sqlite3_busy_handler`, with a `hoard_busy_wait_state *` as its
/// context): sleeps 1 ms and asks to try again until `timeout_milliseconds` have passed since the
/// wait began (its first call, `count` 0); then 0, and SQLite returns SQLITE_BUSY.
int hoard_busy_wait(void *context, int count);

// MARK: - Checksums

/// Continues a CRC-32C (Castagnoli, as in iSCSI, ext4 and RocksDB) over `length` bytes. `state` is
/// the running register: start with 0xFFFFFFFF and take the bitwise complement at the end. Takes
/// the fastest path the CPU has (see `hoard_crc_path`).
uint32_t hoard_crc32c_update(uint32_t state, const void *bytes, size_t length);

/// The ways `hoard_crc32c_update` computes, slowest first.
typedef enum {
    /// A slicing-by-8 table: any CPU.
    HOARD_CRC_PATH_TABLE = 0,
    /// The CRC32C instruction (SSE4.2, ARMv8 CRC) over three interleaved streams.
    HOARD_CRC_PATH_INSTRUCTION = 1,
    /// Carry-less multiplication folding 32-byte lanes (x86-64 with AVX2 and VPCLMULQDQ), for
    /// inputs of 256 bytes or more; the instruction path finishes.
    HOARD_CRC_PATH_FOLDING_256 = 2,
    /// The same over 64-byte lanes (x86-64 with AVX-512 and VPCLMULQDQ).
    HOARD_CRC_PATH_FOLDING_512 = 3,
} hoard_crc_path;
/// The fastest `hoard_crc_path` this CPU has: the one `hoard_crc32c_update` takes.
int hoard_crc32c_best_path(void);
/// `hoard_crc32c_update` through `path` (a `hoard_crc_path`), for tests; a path this CPU lacks
/// falls back to the fastest one it has.
uint32_t hoard_crc32c_update_path(int path, uint32_t state, const void *bytes, size_t length);

// MARK: - Hashing

/// Writes the SHA-256 of `length` bytes to `digest` (32 bytes), with the platform's library
/// (OpenSSL's libcrypto on Linux, CommonCrypto on Apple platforms). Returns 0, or -1 when the
/// library fails (out of memory, or an OpenSSL configuration without SHA-256).
int hoard_sha256(const void *bytes, size_t length, uint8_t digest[32]);
/// Writes the HMAC-SHA256 of `length` bytes under a key of `key_length` bytes to `mac` (32
/// bytes), with the platform's library. Returns 0, or -1 when the library fails.
int hoard_hmac_sha256(const void *key, size_t key_length, const void *bytes, size_t length, uint8_t mac[32]);

// MARK: - ThreadSanitizer

/// Tells ThreadSanitizer that the lock identified by `lock` was just acquired. Synchronization's
/// `Mutex` locks inside a library that is not built with TSan, so TSan cannot see the ordering on
/// its own. Does nothing unless this file is compiled with `-fsanitize=thread`.
void hoard_tsan_acquire(void *lock);
/// Tells ThreadSanitizer that the lock identified by `lock` is about to be released.
void hoard_tsan_release(void *lock);

/// The name of a `readdir(3)` record, read in place: `*length` is set to its length in bytes,
/// bounded by the record (`d_reclen`, or `d_namlen` on Apple platforms), never by a copy of the
/// whole `struct dirent`, which is longer than the record `readdir` returns for a short name.
const char *hoard_dirent_name(const struct dirent *entry, size_t *length);

/// The record's `d_type` (`DT_REG`, `DT_DIR`, `DT_LNK`, `DT_UNKNOWN`, ...), read in place.
unsigned char hoard_dirent_type(const struct dirent *entry);

#ifdef __cplusplus
}
#endif

#endif
