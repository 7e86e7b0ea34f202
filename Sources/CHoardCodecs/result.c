#include "result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hoard_codec_free(void *buffer) { free(buffer); }

void hoard_result_reset(hoard_codec_result *result) {
    result->status = HOARD_CODEC_OK;
    result->message[0] = '\0';
    result->warnings[0] = '\0';
    result->warning_count = 0;
}

void hoard_result_fail(hoard_codec_result *result, int status, const char *message) {
    // Keep the first failure: later ones are usually consequences of it.
    if (result->status != HOARD_CODEC_OK) return;
    result->status = status;
    strncpy(result->message, message ? message : "", HOARD_CODEC_MESSAGE_CAPACITY - 1);
    result->message[HOARD_CODEC_MESSAGE_CAPACITY - 1] = '\0';
}

void hoard_result_add_warning(hoard_codec_result *result, const char *message) {
    result->warning_count += 1;
    size_t used = strlen(result->warnings);
    size_t length = strlen(message);
    // One line per warning; the count keeps counting when the text no longer fits.
    if (used + length + 2 > HOARD_CODEC_WARNINGS_CAPACITY) return;
    memcpy(result->warnings + used, message, length);
    result->warnings[used + length] = '\n';
    result->warnings[used + length + 1] = '\0';
}

int hoard_check_pixel_limit(const char *format, uint64_t width, uint64_t height, uint64_t max_pixels,
                            hoard_codec_result *result) {
    // Both factors fit in 32 bits, so the product cannot overflow 64.
    if (max_pixels == 0 || width * height <= max_pixels) return 1;
    char message[HOARD_CODEC_MESSAGE_CAPACITY];
    snprintf(message, sizeof message, "%s declares %llu x %llu pixels, more than the limit of %llu", format,
             (unsigned long long)width, (unsigned long long)height, (unsigned long long)max_pixels);
    hoard_result_fail(result, HOARD_CODEC_TOO_LARGE, message);
    return 0;
}

uint32_t hoard_scale_denominator(uint32_t width, uint32_t height, uint32_t target) {
    uint64_t longest = width > height ? width : height;
    uint64_t denominator = 1;
    while (target > 0 && denominator < (1u << 24) && (longest + 2 * denominator - 1) / (2 * denominator) >= target) {
        denominator *= 2;
    }
    return (uint32_t)denominator;
}

int hoard_check_scaled_pixel_limit(const char *format, uint64_t width, uint64_t height, uint32_t denominator,
                                   uint64_t max_pixels, hoard_codec_result *result) {
    if (max_pixels == 0 || width * height <= max_pixels) return 1;
    char message[HOARD_CODEC_MESSAGE_CAPACITY];
    snprintf(message, sizeof message, "%s decodes to %llu x %llu pixels at 1/%u scale, more than the limit of %llu",
             format, (unsigned long long)width, (unsigned long long)height, denominator,
             (unsigned long long)max_pixels);
    hoard_result_fail(result, HOARD_CODEC_TOO_LARGE, message);
    return 0;
}
