// CRC-32C (Castagnoli) for the disk cache's entry checksums: the SSE4.2 or ARMv8 CRC instruction
// when the CPU has it, else a portable slicing-by-8 table.
#include "CHoardCodecs.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define HOARD_CRC_X86 1
#elif defined(__aarch64__)
#include <arm_acle.h>
#if defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif
#define HOARD_CRC_ARM 1
#endif

static uint32_t hoard_crc_tables[8][256];
static pthread_once_t hoard_crc_once = PTHREAD_ONCE_INIT, hoard_crc_software_once = PTHREAD_ONCE_INIT;
static int hoard_crc_hardware;

static uint32_t hoard_crc_software(uint32_t crc, const uint8_t *bytes, size_t length) {
    while (length >= 8) {
        uint32_t low, high;
        memcpy(&low, bytes, 4);
        memcpy(&high, bytes + 4, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        low = __builtin_bswap32(low);
        high = __builtin_bswap32(high);
#endif
        low ^= crc;
        crc = hoard_crc_tables[7][low & 0xFF] ^ hoard_crc_tables[6][(low >> 8) & 0xFF] ^
              hoard_crc_tables[5][(low >> 16) & 0xFF] ^ hoard_crc_tables[4][low >> 24] ^
              hoard_crc_tables[3][high & 0xFF] ^ hoard_crc_tables[2][(high >> 8) & 0xFF] ^
              hoard_crc_tables[1][(high >> 16) & 0xFF] ^ hoard_crc_tables[0][high >> 24];
        bytes += 8;
        length -= 8;
    }
    while (length--) crc = hoard_crc_tables[0][(crc ^ *bytes++) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(HOARD_CRC_X86) || defined(HOARD_CRC_ARM)
// Appending zero bytes to a message is linear in the CRC register: a 32x32 matrix over GF(2) whose
// column `bit` is the image of the register `1 << bit`. Applied one register byte at a time
// through four 256-entry tables, it moves a stream's CRC past the streams that follow it.
static uint32_t hoard_gf2_times(const uint32_t matrix[32], uint32_t vector) {
    uint32_t sum = 0;
    for (int bit = 0; vector != 0; bit++, vector >>= 1)
        if (vector & 1) sum ^= matrix[bit];
    return sum;
}

// `result = left * right`; `result` may be `right` but not `left`.
static void hoard_gf2_multiply(uint32_t result[32], const uint32_t left[32], const uint32_t right[32]) {
    for (int bit = 0; bit < 32; bit++) result[bit] = hoard_gf2_times(left, right[bit]);
}

// The tables that move a CRC register past `length` zero bytes.
static void hoard_crc_make_shift(uint32_t table[4][256], size_t length) {
    uint32_t power[32], square[32], result[32];
    power[0] = 0x82F63B78u; // one zero bit: the register shifts right, the polynomial enters
    for (int bit = 1; bit < 32; bit++) power[bit] = 1u << (bit - 1);
    for (int doubling = 0; doubling < 3; doubling++) { // 2, 4, then 8 bits: one zero byte
        hoard_gf2_multiply(square, power, power);
        memcpy(power, square, sizeof square);
    }
    for (int bit = 0; bit < 32; bit++) result[bit] = 1u << bit;
    for (; length != 0; length >>= 1) {
        if (length & 1) hoard_gf2_multiply(result, power, result);
        hoard_gf2_multiply(square, power, power);
        memcpy(power, square, sizeof square);
    }
    // The map is linear, so each table entry is the sum of its bits' images: 8 matrix products
    // per table instead of 256.
    for (int byte = 0; byte < 4; byte++) {
        table[byte][0] = 0;
        for (uint32_t bit = 1; bit < 256; bit <<= 1) {
            uint32_t image = hoard_gf2_times(result, bit << (8 * byte));
            for (uint32_t lower = 0; lower < bit; lower++) table[byte][bit | lower] = image ^ table[byte][lower];
        }
    }
}

// The CRC instruction takes 3 cycles but can start one every cycle, so the hardware path runs three
// independent streams over three consecutive blocks and joins them: crc(A B C) is crc(A) moved past
// B and C, plus crc(B) from zero moved past C, plus crc(C) from zero.
enum { HOARD_CRC_LONG = 8192, HOARD_CRC_SHORT = 256 }; // bytes per stream
static uint32_t hoard_crc_long_shift[4][256], hoard_crc_short_shift[4][256];

static inline uint32_t hoard_crc_shift(const uint32_t table[4][256], uint32_t crc) {
    return table[0][crc & 0xFF] ^ table[1][(crc >> 8) & 0xFF] ^ table[2][(crc >> 16) & 0xFF] ^ table[3][crc >> 24];
}
#endif

#if defined(HOARD_CRC_X86)
#define HOARD_CRC_TARGET __attribute__((target("sse4.2")))
HOARD_CRC_TARGET static inline uint32_t hoard_crc_word(uint32_t crc, const uint8_t *bytes) {
    uint64_t word;
    memcpy(&word, bytes, 8);
#if defined(__x86_64__)
    return (uint32_t)_mm_crc32_u64(crc, word);
#else
    return _mm_crc32_u32(_mm_crc32_u32(crc, (uint32_t)word), (uint32_t)(word >> 32));
#endif
}
HOARD_CRC_TARGET static inline uint32_t hoard_crc_byte(uint32_t crc, uint8_t byte) { return _mm_crc32_u8(crc, byte); }
#elif defined(HOARD_CRC_ARM)
#define HOARD_CRC_TARGET __attribute__((target("crc")))
HOARD_CRC_TARGET static inline uint32_t hoard_crc_word(uint32_t crc, const uint8_t *bytes) {
    uint64_t word;
    memcpy(&word, bytes, 8);
    return __crc32cd(crc, word);
}
HOARD_CRC_TARGET static inline uint32_t hoard_crc_byte(uint32_t crc, uint8_t byte) { return __crc32cb(crc, byte); }
#endif

#if defined(HOARD_CRC_X86) || defined(HOARD_CRC_ARM)
// Consumes whole groups of three `stream`-byte blocks from `*bytes`.
HOARD_CRC_TARGET static inline uint32_t hoard_crc_streams(uint32_t crc, const uint8_t **bytes, size_t *length,
                                                          size_t stream, const uint32_t shift[4][256]) {
    const uint8_t *cursor = *bytes;
    for (; *length >= 3 * stream; *length -= 3 * stream) {
        uint32_t second = 0, third = 0;
        for (const uint8_t *end = cursor + stream; cursor < end; cursor += 8) {
            crc = hoard_crc_word(crc, cursor);
            second = hoard_crc_word(second, cursor + stream);
            third = hoard_crc_word(third, cursor + 2 * stream);
        }
        crc = hoard_crc_shift(shift, crc) ^ second;
        crc = hoard_crc_shift(shift, crc) ^ third;
        cursor += 2 * stream;
    }
    *bytes = cursor;
    return crc;
}

HOARD_CRC_TARGET static uint32_t hoard_crc_hardware_update(uint32_t crc, const uint8_t *bytes, size_t length) {
    crc = hoard_crc_streams(crc, &bytes, &length, HOARD_CRC_LONG, hoard_crc_long_shift);
    crc = hoard_crc_streams(crc, &bytes, &length, HOARD_CRC_SHORT, hoard_crc_short_shift);
    for (; length >= 8; length -= 8, bytes += 8) crc = hoard_crc_word(crc, bytes);
    while (length--) crc = hoard_crc_byte(crc, *bytes++);
    return crc;
}
#endif

// The slicing tables, built only when the table path runs (no CRC instruction, or the tests).
static void hoard_crc_initialize_software(void) {
    for (uint32_t byte = 0; byte < 256; byte++) {
        uint32_t crc = byte;
        for (int bit = 0; bit < 8; bit++) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        hoard_crc_tables[0][byte] = crc;
    }
    for (uint32_t byte = 0; byte < 256; byte++) {
        uint32_t crc = hoard_crc_tables[0][byte];
        for (int slice = 1; slice < 8; slice++) {
            crc = hoard_crc_tables[0][crc & 0xFF] ^ (crc >> 8);
            hoard_crc_tables[slice][byte] = crc;
        }
    }
}

// Detects the CRC instruction and builds the hardware path's shift tables.
static void hoard_crc_initialize(void) {
#if defined(HOARD_CRC_X86)
    hoard_crc_hardware = __builtin_cpu_supports("sse4.2");
#elif defined(HOARD_CRC_ARM) && defined(__APPLE__)
    hoard_crc_hardware = 1; // every Apple arm64 CPU has the CRC extension
#elif defined(HOARD_CRC_ARM) && defined(__linux__)
    hoard_crc_hardware = (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#endif
#if defined(HOARD_CRC_X86) || defined(HOARD_CRC_ARM)
    if (hoard_crc_hardware) {
        hoard_crc_make_shift(hoard_crc_long_shift, HOARD_CRC_LONG);
        hoard_crc_make_shift(hoard_crc_short_shift, HOARD_CRC_SHORT);
    }
#endif
}

uint32_t hoard_crc32c_update(uint32_t state, const void *bytes, size_t length) {
    if (bytes == NULL || length == 0) return state;
    pthread_once(&hoard_crc_once, hoard_crc_initialize);
#if defined(HOARD_CRC_X86) || defined(HOARD_CRC_ARM)
    if (hoard_crc_hardware) return hoard_crc_hardware_update(state, bytes, length);
#endif
    pthread_once(&hoard_crc_software_once, hoard_crc_initialize_software);
    return hoard_crc_software(state, bytes, length);
}

uint32_t hoard_crc32c_update_portable(uint32_t state, const void *bytes, size_t length) {
    if (bytes == NULL || length == 0) return state;
    pthread_once(&hoard_crc_software_once, hoard_crc_initialize_software);
    return hoard_crc_software(state, bytes, length);
}

int hoard_crc32c_is_hardware_accelerated(void) {
    pthread_once(&hoard_crc_once, hoard_crc_initialize);
    return hoard_crc_hardware;
}
