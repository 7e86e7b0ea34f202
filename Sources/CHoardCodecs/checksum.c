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
static pthread_once_t hoard_crc_once = PTHREAD_ONCE_INIT;
static int hoard_crc_hardware;

static void hoard_crc_initialize(void) {
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
#if defined(HOARD_CRC_X86)
    hoard_crc_hardware = __builtin_cpu_supports("sse4.2");
#elif defined(HOARD_CRC_ARM) && defined(__APPLE__)
    hoard_crc_hardware = 1; // every Apple arm64 CPU has the CRC extension
#elif defined(HOARD_CRC_ARM) && defined(__linux__)
    hoard_crc_hardware = (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#endif
}

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

#if defined(HOARD_CRC_X86)
__attribute__((target("sse4.2"))) static uint32_t hoard_crc_hardware_update(uint32_t crc, const uint8_t *bytes,
                                                                             size_t length) {
#if defined(__x86_64__)
    uint64_t wide = crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        wide = _mm_crc32_u64(wide, word);
        bytes += 8;
        length -= 8;
    }
    crc = (uint32_t)wide;
#endif
    while (length--) crc = _mm_crc32_u8(crc, *bytes++);
    return crc;
}
#elif defined(HOARD_CRC_ARM)
__attribute__((target("crc"))) static uint32_t hoard_crc_hardware_update(uint32_t crc, const uint8_t *bytes,
                                                                          size_t length) {
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        crc = __crc32cd(crc, word);
        bytes += 8;
        length -= 8;
    }
    while (length--) crc = __crc32cb(crc, *bytes++);
    return crc;
}
#endif

uint32_t hoard_crc32c_update(uint32_t state, const void *bytes, size_t length) {
    if (bytes == NULL || length == 0) return state;
    pthread_once(&hoard_crc_once, hoard_crc_initialize);
#if defined(HOARD_CRC_X86) || defined(HOARD_CRC_ARM)
    if (hoard_crc_hardware) return hoard_crc_hardware_update(state, bytes, length);
#endif
    return hoard_crc_software(state, bytes, length);
}

uint32_t hoard_crc32c_update_portable(uint32_t state, const void *bytes, size_t length) {
    if (bytes == NULL || length == 0) return state;
    pthread_once(&hoard_crc_once, hoard_crc_initialize);
    return hoard_crc_software(state, bytes, length);
}

int hoard_crc32c_is_hardware_accelerated(void) {
    pthread_once(&hoard_crc_once, hoard_crc_initialize);
    return hoard_crc_hardware;
}
