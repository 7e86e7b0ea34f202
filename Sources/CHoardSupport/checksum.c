// CRC-32C (Castagnoli) for the disk cache's entry checksums. Four paths, the fastest the CPU has:
// carry-less multiplication over 64-byte lanes (x86-64 with AVX-512 and VPCLMULQDQ) or over
// 32-byte lanes (AVX2 and VPCLMULQDQ), the SSE4.2 or ARMv8 CRC instruction over three interleaved
// streams, or a portable slicing-by-8 table.
#include "CHoardSupport.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define HOARD_CRC_X86 1
#if defined(__x86_64__)
#include <immintrin.h>
#define HOARD_CRC_FOLDING 1
#endif
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
static int hoard_crc_best; // a hoard_crc_path

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

#if defined(HOARD_CRC_FOLDING)
// Folding (Gopal et al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ", Intel,
// 2009). Bytes loaded little-endian into a 128-bit lane are a polynomial whose first bit is the
// highest power: bit j of the lane is x^(127 - j). Its low half H and high half L give
// H x^64 + L, and moving the lane D bits along the message multiplies it by x^D, which modulo P
// is H (x^(64+D) mod P) + L (x^D mod P): two carry-less products of 64 by 32 bits, XORed into the
// lane found D bits further on. A carry-less product of two such reflected operands comes out
// multiplied by x, so the constants are one power lower. What is left, one lane, is a 16-byte
// message whose CRC from zero is the CRC so far; the CRC instruction takes it, then the tail.
enum { HOARD_CRC_FOLD_MINIMUM = 256 }; // shorter inputs take the instruction path

// By distance in bits: 128 ends both paths, 256 and 1024 serve 32-byte lanes, 512 and 2048 64-byte ones.
static __m128i hoard_crc_fold_by_128, hoard_crc_fold_by_256, hoard_crc_fold_by_512, hoard_crc_fold_by_1024,
    hoard_crc_fold_by_2048;

// x^power mod P, reflected into the upper half of a 64-bit lane (bit 63 - d holds x^d).
static uint64_t hoard_crc_power(unsigned power) {
    uint32_t remainder = 1; // x^0; bit d is x^d, P = 0x1EDC6F41 in this order
    while (power--) remainder = (remainder << 1) ^ ((remainder & 0x80000000u) ? 0x1EDC6F41u : 0);
    uint32_t reflected = 0;
    for (int bit = 0; bit < 32; bit++) reflected |= ((remainder >> bit) & 1u) << (31 - bit);
    return (uint64_t)reflected << 32;
}

static __m128i hoard_crc_fold_constants(unsigned distance) {
    // The low half (H) is multiplied by the low constant, the high half (L) by the high one.
    return _mm_set_epi64x((long long)hoard_crc_power(distance - 1), (long long)hoard_crc_power(distance + 63));
}

// One 128-bit lane, and the end both folding paths share: the whole 16-byte blocks left are folded
// into the lane, the CRC instruction reduces it, then takes the tail.
#define HOARD_CRC_FOLD128_TARGET __attribute__((target("pclmul,sse4.2")))

HOARD_CRC_FOLD128_TARGET static inline __m128i hoard_crc_fold128(__m128i lane, __m128i constants, __m128i next) {
    __m128i high = _mm_clmulepi64_si128(lane, constants, 0x00);
    __m128i low = _mm_clmulepi64_si128(lane, constants, 0x11);
    return _mm_xor_si128(_mm_xor_si128(high, low), next);
}

HOARD_CRC_FOLD128_TARGET static inline uint32_t hoard_crc_fold_finish(__m128i last, const uint8_t *bytes,
                                                                       size_t length) {
    for (; length >= 16; bytes += 16, length -= 16)
        last = hoard_crc_fold128(last, hoard_crc_fold_by_128, _mm_loadu_si128((const __m128i *)bytes));
    uint32_t crc = (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(last));
    crc = (uint32_t)_mm_crc32_u64(crc, (uint64_t)_mm_extract_epi64(last, 1));
    return hoard_crc_hardware_update(crc, bytes, length);
}

#define HOARD_CRC_FOLD_TARGET __attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse4.2")))

HOARD_CRC_FOLD_TARGET static inline __m512i hoard_crc_fold512(__m512i lanes, __m512i constants, __m512i next) {
    __m512i high = _mm512_clmulepi64_epi128(lanes, constants, 0x00);
    __m512i low = _mm512_clmulepi64_epi128(lanes, constants, 0x11);
    return _mm512_ternarylogic_epi64(high, low, next, 0x96); // high ^ low ^ next
}


// Needs length >= HOARD_CRC_FOLD_MINIMUM.
HOARD_CRC_FOLD_TARGET static uint32_t hoard_crc_folding512_update(uint32_t crc, const uint8_t *bytes, size_t length) {
    __m512i lanes[4];
    for (int index = 0; index < 4; index++) lanes[index] = _mm512_loadu_si512(bytes + 64 * index);
    lanes[0] = _mm512_xor_si512(lanes[0], _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)crc)));
    bytes += 256;
    length -= 256;
    const __m512i by2048 = _mm512_broadcast_i32x4(hoard_crc_fold_by_2048);
    for (; length >= 256; bytes += 256, length -= 256)
        for (int index = 0; index < 4; index++)
            lanes[index] = hoard_crc_fold512(lanes[index], by2048, _mm512_loadu_si512(bytes + 64 * index));
    const __m512i by512 = _mm512_broadcast_i32x4(hoard_crc_fold_by_512);
    __m512i lane = hoard_crc_fold512(lanes[0], by512, lanes[1]);
    lane = hoard_crc_fold512(lane, by512, lanes[2]);
    lane = hoard_crc_fold512(lane, by512, lanes[3]);
    for (; length >= 64; bytes += 64, length -= 64) lane = hoard_crc_fold512(lane, by512, _mm512_loadu_si512(bytes));
    __m128i last = _mm512_extracti32x4_epi32(lane, 0);
    last = hoard_crc_fold128(last, hoard_crc_fold_by_128, _mm512_extracti32x4_epi32(lane, 1));
    last = hoard_crc_fold128(last, hoard_crc_fold_by_128, _mm512_extracti32x4_epi32(lane, 2));
    last = hoard_crc_fold128(last, hoard_crc_fold_by_128, _mm512_extracti32x4_epi32(lane, 3));
    return hoard_crc_fold_finish(last, bytes, length);
}

// The same folding over 32-byte lanes, for CPUs with VPCLMULQDQ but not AVX-512 (AMD Zen 3, Intel's
// client cores since Alder Lake).
#define HOARD_CRC_FOLD256_TARGET __attribute__((target("avx2,vpclmulqdq,pclmul,sse4.2")))

HOARD_CRC_FOLD256_TARGET static inline __m256i hoard_crc_fold256(__m256i lanes, __m256i constants, __m256i next) {
    __m256i high = _mm256_clmulepi64_epi128(lanes, constants, 0x00);
    __m256i low = _mm256_clmulepi64_epi128(lanes, constants, 0x11);
    return _mm256_xor_si256(_mm256_xor_si256(high, low), next);
}

// Needs length >= HOARD_CRC_FOLD_MINIMUM.
HOARD_CRC_FOLD256_TARGET static uint32_t hoard_crc_folding256_update(uint32_t crc, const uint8_t *bytes,
                                                                      size_t length) {
    __m256i lanes[4];
    for (int index = 0; index < 4; index++) lanes[index] = _mm256_loadu_si256((const __m256i *)(bytes + 32 * index));
    lanes[0] = _mm256_xor_si256(lanes[0], _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)crc)));
    bytes += 128;
    length -= 128;
    const __m256i by1024 = _mm256_broadcastsi128_si256(hoard_crc_fold_by_1024);
    for (; length >= 128; bytes += 128, length -= 128)
        for (int index = 0; index < 4; index++)
            lanes[index] =
                hoard_crc_fold256(lanes[index], by1024, _mm256_loadu_si256((const __m256i *)(bytes + 32 * index)));
    const __m256i by256 = _mm256_broadcastsi128_si256(hoard_crc_fold_by_256);
    __m256i lane = hoard_crc_fold256(lanes[0], by256, lanes[1]);
    lane = hoard_crc_fold256(lane, by256, lanes[2]);
    lane = hoard_crc_fold256(lane, by256, lanes[3]);
    for (; length >= 32; bytes += 32, length -= 32)
        lane = hoard_crc_fold256(lane, by256, _mm256_loadu_si256((const __m256i *)bytes));
    __m128i last =
        hoard_crc_fold128(_mm256_castsi256_si128(lane), hoard_crc_fold_by_128, _mm256_extracti128_si256(lane, 1));
    return hoard_crc_fold_finish(last, bytes, length);
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

// Finds the fastest path the CPU has and builds its constants.
static void hoard_crc_initialize(void) {
    int instruction = 0;
#if defined(HOARD_CRC_X86)
    instruction = __builtin_cpu_supports("sse4.2");
#elif defined(HOARD_CRC_ARM) && defined(__APPLE__)
    instruction = 1; // every Apple arm64 CPU has the CRC extension
#elif defined(HOARD_CRC_ARM) && defined(__linux__)
    instruction = (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#endif
    hoard_crc_best = instruction ? HOARD_CRC_PATH_INSTRUCTION : HOARD_CRC_PATH_TABLE;
#if defined(HOARD_CRC_X86) || defined(HOARD_CRC_ARM)
    if (instruction) {
        hoard_crc_make_shift(hoard_crc_long_shift, HOARD_CRC_LONG);
        hoard_crc_make_shift(hoard_crc_short_shift, HOARD_CRC_SHORT);
    }
#endif
#if defined(HOARD_CRC_FOLDING)
    // __builtin_cpu_supports reports AVX and AVX-512 only when the OS saves their registers (XGETBV).
    if (instruction && __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("vpclmulqdq") &&
        __builtin_cpu_supports("avx2")) {
        hoard_crc_fold_by_128 = hoard_crc_fold_constants(128);
        hoard_crc_fold_by_256 = hoard_crc_fold_constants(256);
        hoard_crc_fold_by_512 = hoard_crc_fold_constants(512);
        hoard_crc_fold_by_1024 = hoard_crc_fold_constants(1024);
        hoard_crc_fold_by_2048 = hoard_crc_fold_constants(2048);
        hoard_crc_best = HOARD_CRC_PATH_FOLDING_256;
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"))
            hoard_crc_best = HOARD_CRC_PATH_FOLDING_512;
    }
#endif
}

uint32_t hoard_crc32c_update(uint32_t state, const void *bytes, size_t length) {
    if (bytes == NULL || length == 0) return state;
    pthread_once(&hoard_crc_once, hoard_crc_initialize);
    return hoard_crc32c_update_path(hoard_crc_best, state, bytes, length);
}

uint32_t hoard_crc32c_update_path(int path, uint32_t state, const void *bytes, size_t length) {
    if (bytes == NULL || length == 0) return state;
    pthread_once(&hoard_crc_once, hoard_crc_initialize);
    if (path > hoard_crc_best) path = hoard_crc_best;
#if defined(HOARD_CRC_FOLDING)
    if (path == HOARD_CRC_PATH_FOLDING_512 && length >= HOARD_CRC_FOLD_MINIMUM)
        return hoard_crc_folding512_update(state, bytes, length);
    if (path == HOARD_CRC_PATH_FOLDING_256 && length >= HOARD_CRC_FOLD_MINIMUM)
        return hoard_crc_folding256_update(state, bytes, length);
#endif
#if defined(HOARD_CRC_X86) || defined(HOARD_CRC_ARM)
    if (path >= HOARD_CRC_PATH_INSTRUCTION) return hoard_crc_hardware_update(state, bytes, length);
#endif
    pthread_once(&hoard_crc_software_once, hoard_crc_initialize_software);
    return hoard_crc_software(state, bytes, length);
}

int hoard_crc32c_best_path(void) {
    pthread_once(&hoard_crc_once, hoard_crc_initialize);
    return hoard_crc_best;
}
