// libFuzzer harness: colour descriptions. A JPEG's bytes through hoard_jpeg_icc_profile, a PNG's
// through hoard_png_colour, anything else as an ICC profile; every profile found then goes through
// hoard_icc_inspect and, when it opens, a Little CMS transform for each pixel layout its colour
// space allows, applied to a few pixels.
#include "CHoardCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hoard_fuzz_fail(const char *what) {
    fprintf(stderr, "icc harness: %s\n", what);
    abort();
}

static void hoard_fuzz_profile(const uint8_t *icc, size_t size) {
    char message[200];
    int is_srgb = 0;
    int space = hoard_icc_inspect(icc, size, &is_srgb, message, sizeof message);
    if (space == 0) {
        if (message[0] == '\0') hoard_fuzz_fail("a refused profile without a message");
        return;
    }
    if (size > HOARD_ICC_MAX_BYTES) hoard_fuzz_fail("a profile over the limit was accepted");
    int layouts[2] = {0, 0};
    switch (space) {
    case HOARD_ICC_GRAY: layouts[0] = HOARD_LAYOUT_GRAY, layouts[1] = HOARD_LAYOUT_GRAY_ALPHA; break;
    case HOARD_ICC_RGB: layouts[0] = HOARD_LAYOUT_RGB, layouts[1] = HOARD_LAYOUT_RGBA; break;
    case HOARD_ICC_CMYK: layouts[0] = HOARD_LAYOUT_CMYK, layouts[1] = HOARD_LAYOUT_CMYK_INVERTED; break;
    default: hoard_fuzz_fail("an unknown colour space");
    }
    uint8_t input[16 * 4], output[16 * 4];
    for (size_t i = 0; i < sizeof input; i++) input[i] = (uint8_t)(i * 37);
    for (int i = 0; i < 2; i++) {
        hoard_colour_transform *transform = hoard_colour_transform_create(icc, size, layouts[i], message, sizeof message);
        if (transform == NULL) continue;
        hoard_colour_transform_apply(transform, input, output, 16);
        hoard_colour_transform_destroy(transform);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char message[200];
    uint8_t *profile = NULL;
    size_t length = 0;
    int found = 0;
    if (size >= 2 && data[0] == 0xFF && data[1] == 0xD8) {
        found = hoard_jpeg_icc_profile(data, size, &profile, &length, message, sizeof message);
    } else if (size >= 8 && memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0) {
        hoard_colour_info info;
        found = hoard_png_colour(data, size, &info, &profile, &length, message, sizeof message);
    } else {
        hoard_fuzz_profile(data, size);
        return 0;
    }
    if (found == 1) {
        if (profile == NULL || length == 0 || length > HOARD_ICC_MAX_BYTES) hoard_fuzz_fail("a profile out of bounds");
        hoard_fuzz_profile(profile, length);
    } else if (profile != NULL) {
        hoard_fuzz_fail("a buffer returned without a profile");
    }
    hoard_colour_free(profile);
    return 0;
}
