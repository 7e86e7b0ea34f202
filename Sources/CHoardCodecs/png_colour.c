// A PNG's colour chunks read from the bytes, without libpng: libpng allocates a chunk's declared
// length before reading it, so the decoder skips these chunks and this parser, which inflates a
// profile only up to the size limit, reads them (and is fuzzed on its own).
#include "CHoardColour.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

static uint32_t hoard_png_be32(const uint8_t *bytes) {
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
}

static void hoard_png_colour_message(char *message, size_t capacity, const char *text) {
    if (message != NULL && capacity > 0) snprintf(message, capacity, "%s", text);
}

/// Inflates an iCCP chunk's zlib stream into a new buffer of at most HOARD_ICC_MAX_BYTES.
static int hoard_png_inflate_profile(const uint8_t *stream, size_t length, uint8_t **output, size_t *output_size,
                                     char *message, size_t capacity) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) {
        hoard_png_colour_message(message, capacity, "PNG iCCP: zlib could not start");
        return -1;
    }
    size_t allocated = 64 * 1024, used = 0;
    uint8_t *buffer = malloc(allocated);
    int status = Z_OK;
    z.next_in = (Bytef *)stream;
    z.avail_in = (uInt)(length > UINT32_MAX ? UINT32_MAX : length);
    while (buffer != NULL && status == Z_OK) {
        if (used == allocated) {
            if (allocated >= HOARD_ICC_MAX_BYTES) break;
            size_t grown = allocated * 2 > HOARD_ICC_MAX_BYTES ? HOARD_ICC_MAX_BYTES : allocated * 2;
            uint8_t *larger = realloc(buffer, grown);
            if (larger == NULL) {
                free(buffer);
                buffer = NULL;
                break;
            }
            buffer = larger;
            allocated = grown;
        }
        z.next_out = buffer + used;
        z.avail_out = (uInt)(allocated - used);
        status = inflate(&z, Z_NO_FLUSH);
        used = allocated - z.avail_out;
    }
    inflateEnd(&z);
    if (buffer == NULL || status != Z_STREAM_END) {
        free(buffer);
        hoard_png_colour_message(message, capacity,
                                 buffer == NULL ? "PNG iCCP: out of memory"
                                 : status == Z_OK ? "PNG iCCP: profile larger than the 4 MiB limit"
                                                  : "PNG iCCP: compressed profile is damaged or cut short");
        return -1;
    }
    *output = buffer;
    *output_size = used;
    return 1;
}

int hoard_png_colour(const uint8_t *data, size_t size, hoard_colour_info *info, uint8_t **output,
                     size_t *output_size, char *message, size_t capacity) {
    if (data == NULL || info == NULL || output == NULL || output_size == NULL) return 0;
    memset(info, 0, sizeof *info);
    info->cicp_primaries = 2;
    info->cicp_transfer = 2;
    *output = NULL;
    *output_size = 0;
    const uint8_t *profile = NULL;
    size_t profile_length = 0;
    size_t offset = 8; // after the signature
    while (offset <= size && size - offset >= 12) {
        uint32_t length = hoard_png_be32(data + offset);
        const uint8_t *type = data + offset + 4;
        if (length > size - offset - 12) break;
        if (memcmp(type, "IDAT", 4) == 0 || memcmp(type, "IEND", 4) == 0) break;
        const uint8_t *body = data + offset + 8;
        uint32_t crc = hoard_png_be32(body + length);
        offset += 12 + (size_t)length;
        if ((uint32_t)crc32(crc32(0, type, 4), body, length) != crc) continue;
        if (memcmp(type, "sRGB", 4) == 0 && length == 1) {
            info->srgb = 1;
        } else if (memcmp(type, "gAMA", 4) == 0 && length == 4) {
            info->gamma = hoard_png_be32(body);
        } else if (memcmp(type, "cHRM", 4) == 0 && length == 32) {
            for (int i = 0; i < 8; i++) info->chromaticities[i] = hoard_png_be32(body + 4 * i) / 100000.0;
            info->has_chromaticities = 1;
        } else if (memcmp(type, "iCCP", 4) == 0 && profile == NULL) {
            // A keyword of 1-79 bytes, its NUL, the compression method (0), then the zlib stream.
            const uint8_t *end = memchr(body, 0, length < 80 ? length : 80);
            if (end == NULL || end == body || (size_t)(end - body) + 2 > length || end[1] != 0) {
                hoard_png_colour_message(message, capacity, "PNG iCCP: invalid keyword or compression method");
                return -1;
            }
            profile = end + 2;
            profile_length = length - (size_t)(profile - body);
        }
    }
    if (profile == NULL) return 0;
    return hoard_png_inflate_profile(profile, profile_length, output, output_size, message, capacity);
}
