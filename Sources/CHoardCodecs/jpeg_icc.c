// A JPEG's ICC profile from its APP2 markers, read from the bytes without libjpeg: a pure function
// over the data (fuzzed on its own), and the place where the size limit holds before any copy.
#include "CHoardColour.h"
#include "jpeg_markers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOARD_ICC_SIGNATURE "ICC_PROFILE"
#define HOARD_ICC_SIGNATURE_LENGTH 12 // with its NUL
#define HOARD_ICC_HEADER_LENGTH (HOARD_ICC_SIGNATURE_LENGTH + 2)

static void hoard_icc_message(char *message, size_t capacity, const char *text) {
    if (message != NULL && capacity > 0) snprintf(message, capacity, "%s", text);
}

int hoard_jpeg_icc_profile(const uint8_t *data, size_t size, uint8_t **output, size_t *output_size, char *message,
                           size_t capacity) {
    if (data == NULL || output == NULL || output_size == NULL) return 0;
    *output = NULL;
    *output_size = 0;
    // Each chunk's data and length by sequence number (1-255); `count` is what the first declared.
    const uint8_t *chunks[256] = {NULL};
    size_t lengths[256] = {0};
    int count = 0, seen = 0;
    size_t total = 0;
    size_t offset = 2; // after SOI
    hoard_jpeg_segment segment;
    while (hoard_jpeg_next_segment(data, size, &offset, &segment)) {
        if (segment.available < segment.length) break; // the data ends inside it
        const uint8_t *body = segment.body;
        size_t body_length = segment.length;
        if (segment.marker != 0xE2 || body_length < HOARD_ICC_HEADER_LENGTH ||
            memcmp(body, HOARD_ICC_SIGNATURE, HOARD_ICC_SIGNATURE_LENGTH) != 0) {
            continue;
        }
        int sequence = body[HOARD_ICC_SIGNATURE_LENGTH], declared = body[HOARD_ICC_SIGNATURE_LENGTH + 1];
        if (count == 0) count = declared;
        if (declared == 0 || declared != count || sequence == 0 || sequence > count) {
            hoard_icc_message(message, capacity, "JPEG ICC profile markers disagree on their count or number one out of range");
            return -1;
        }
        if (chunks[sequence] != NULL) {
            hoard_icc_message(message, capacity, "JPEG ICC profile marker number repeated");
            return -1;
        }
        chunks[sequence] = body + HOARD_ICC_HEADER_LENGTH;
        lengths[sequence] = body_length - HOARD_ICC_HEADER_LENGTH;
        total += lengths[sequence];
        seen += 1;
        if (total > HOARD_ICC_MAX_BYTES) {
            hoard_icc_message(message, capacity, "JPEG ICC profile is larger than the limit");
            return -1;
        }
    }
    if (seen == 0) return 0;
    if (seen != count || total == 0) {
        hoard_icc_message(message, capacity, "JPEG ICC profile is missing one of its markers");
        return -1;
    }
    uint8_t *profile = malloc(total);
    if (profile == NULL) {
        hoard_icc_message(message, capacity, "Out of memory assembling the JPEG ICC profile");
        return -1;
    }
    size_t at = 0;
    for (int sequence = 1; sequence <= count; sequence++) {
        memcpy(profile + at, chunks[sequence], lengths[sequence]);
        at += lengths[sequence];
    }
    *output = profile;
    *output_size = total;
    return 1;
}
