// Shared by the C codec harnesses (png_decode.c, jpeg_decode.c, webp_decode.c, gif_decode.c,
// avif_decode.c): decoding options picked from the input, the pixel limit, and the checks every
// decode must pass whatever the bytes.
#ifndef HOARD_CODEC_FUZZ_SUPPORT_H
#define HOARD_CODEC_FUZZ_SUPPORT_H

#include "CHoardCodecs.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The pixel limit the harnesses decode with: $HOARD_FUZZ_MAX_PIXELS, else 16 MP (a quarter of the
/// library's 64 MP default, so that a bomb costs at most 64 MB of RGBA and executions stay fast).
static uint64_t hoard_fuzz_max_pixels(void) {
    static uint64_t cached = 0;
    if (cached == 0) {
        const char *text = getenv("HOARD_FUZZ_MAX_PIXELS");
        cached = text != NULL && *text != '\0' ? strtoull(text, NULL, 10) : 16000000ULL;
        if (cached == 0) cached = 16000000ULL;
    }
    return cached;
}

/// FNV-1a over the whole input: the same bytes always get the same options, so a crash reproduces.
static uint32_t hoard_fuzz_hash(const uint8_t *data, size_t size) {
    uint32_t hash = 2166136261u;
    for (size_t i = 0; i < size; i++) hash = (hash ^ data[i]) * 16777619u;
    return hash;
}

/// The library's defaults (1,000 scans, strict about truncation, lenient about warnings) for
/// three inputs in four; the rest flip one policy or ask for decode-time downscaling (JPEG, WebP, GIF).
static hoard_decode_options hoard_fuzz_options(const uint8_t *data, size_t size) {
    hoard_decode_options options;
    memset(&options, 0, sizeof options);
    options.max_pixels = hoard_fuzz_max_pixels();
    options.scale_denominator = 1;
    options.max_scans = 1000;
    uint32_t hash = hoard_fuzz_hash(data, size);
    switch (hash & 7) {
    case 5: options.allow_truncated = 1; break;
    case 6: options.warnings_are_errors = 1; break;
    case 7:
        options.target_size = 1u << ((hash >> 3) % 10); // 1 ... 512
        options.progressive_reading = (hash >> 7) % 3;  // every scan, exact, near
        break;
    default: break;
    }
    return options;
}

static void hoard_fuzz_fail(const char *what) {
    fprintf(stderr, "HARNESS CHECK FAILED: %s\n", what);
    abort();
}

/// A failed call must say why: a known status and a NUL-terminated, non-empty message.
static void hoard_fuzz_check_failure(const hoard_codec_result *result) {
    if (result->status <= HOARD_CODEC_OK || result->status > HOARD_CODEC_UNSUPPORTED) {
        hoard_fuzz_fail("failure without a known status");
    }
    if (memchr(result->message, 0, HOARD_CODEC_MESSAGE_CAPACITY) == NULL) hoard_fuzz_fail("message not terminated");
    if (result->message[0] == '\0') hoard_fuzz_fail("failure without a message");
    if (memchr(result->warnings, 0, HOARD_CODEC_WARNINGS_CAPACITY) == NULL) hoard_fuzz_fail("warnings not terminated");
}

/// What `*_decoder_create` reported must be a raster the caller can allocate: at most
/// `max_pixels`, from a header declaring at most `declared_factor` times that (64 for JPEG, whose
/// DCT scaling allocates as little as 1/64 of the declared pixels; 1 for the other formats).
static void hoard_fuzz_check_info(const hoard_image_info *info, uint64_t max_pixels, uint64_t declared_factor) {
    if (info->width == 0 || info->height == 0) hoard_fuzz_fail("empty output size");
    if (info->channels < 1 || info->channels > 4) hoard_fuzz_fail("channel count outside 1-4");
    if (info->width > info->declared_width || info->height > info->declared_height) {
        hoard_fuzz_fail("output larger than declared");
    }
    if ((uint64_t)info->width * info->height > max_pixels) {
        hoard_fuzz_fail("output raster over the pixel limit was accepted");
    }
    if ((uint64_t)info->declared_width * info->declared_height > max_pixels * declared_factor) {
        hoard_fuzz_fail("declared size over the pixel limit was accepted");
    }
}

/// The codec libraries are system libraries without ASan instrumentation: their own stores into
/// our pixel buffer are not checked. A guard band after the buffer catches a decoder that writes
/// more rows or wider rows than it announced.
enum { HOARD_FUZZ_GUARD = 4096 };

static uint8_t *hoard_fuzz_allocate_pixels(size_t count) {
    uint8_t *pixels = malloc(count + HOARD_FUZZ_GUARD);
    if (pixels != NULL) memset(pixels + count, 0xA5, HOARD_FUZZ_GUARD);
    return pixels;
}

static void hoard_fuzz_check_guard(const uint8_t *pixels, size_t count) {
    for (size_t i = 0; i < HOARD_FUZZ_GUARD; i++) {
        if (pixels[count + i] != 0xA5) hoard_fuzz_fail("decoder wrote past the pixel buffer");
    }
}

#endif
