// GIF palette indices to pixels: row by row at full size, or shrunk by a power of two while
// they are read, each pixel the mean of its block.
#include "gif_pixels.h"

#include <string.h>

void hoard_gif_make_palette(const ColorMapObject *colors, int transparent_index, hoard_gif_palette *palette) {
    palette->has_outside = 0;
    for (int index = 0; index < 256; index++) {
        uint8_t *pixel = palette->pixel[index];
        palette->outside[index] = 0;
        pixel[3] = 255;
        if (colors == NULL) {
            pixel[0] = pixel[1] = pixel[2] = (uint8_t)index;
        } else if (index < colors->ColorCount) {
            pixel[0] = colors->Colors[index].Red;
            pixel[1] = colors->Colors[index].Green;
            pixel[2] = colors->Colors[index].Blue;
        } else {
            pixel[0] = pixel[1] = pixel[2] = 0;
            palette->outside[index] = 1;
        }
        if (index == transparent_index) {
            memset(pixel, 0, 4);
            palette->outside[index] = 0;
        }
        palette->has_outside |= palette->outside[index];
    }
}

int hoard_gif_put_row(const hoard_gif_palette *palette, uint32_t channels, const uint8_t *indices,
                             uint32_t count, uint8_t *destination) {
    uint8_t outside = 0;
    if (channels == 4) {
        for (uint32_t x = 0; x < count; x++) {
            memcpy(destination + (size_t)x * 4, palette->pixel[indices[x]], 4);
            outside |= palette->outside[indices[x]];
        }
    } else {
        for (uint32_t x = 0; x < count; x++) {
            memcpy(destination + (size_t)x * 3, palette->pixel[indices[x]], 3);
            outside |= palette->outside[indices[x]];
        }
    }
    return outside;
}

/// Red, green and blue in 21-bit lanes of one integer, so that one addition sums all three: a
/// lane holds the sum of 8,224 values of 255 before it spills into the next.
#define HOARD_GIF_LANE_BITS 21
#define HOARD_GIF_LANE_MASK ((UINT64_C(1) << HOARD_GIF_LANE_BITS) - 1)
#define HOARD_GIF_MAX_LANE_COUNT 8192

/// Whether any index of `line` is past the palette.
static int hoard_gif_any_outside(const hoard_gif_palette *palette, const uint8_t *line, uint32_t count) {
    uint8_t outside = 0;
    for (uint32_t x = 0; x < count; x++) outside |= palette->outside[line[x]];
    return outside;
}

/// Adds the three lanes of `lanes` to `sums`.
static inline void hoard_gif_unpack(uint64_t lanes, uint64_t *sums) {
    sums[0] += lanes & HOARD_GIF_LANE_MASK;
    sums[1] += lanes >> HOARD_GIF_LANE_BITS & HOARD_GIF_LANE_MASK;
    sums[2] += lanes >> (2 * HOARD_GIF_LANE_BITS);
}

int hoard_gif_put_shrunk(const hoard_gif_palette *palette, const uint8_t *const *rows, uint32_t width,
                                uint32_t height, uint32_t denominator, uint64_t *sums, uint8_t *pixels) {
    uint64_t packed[256];
    for (int index = 0; index < 256; index++) {
        const uint8_t *pixel = palette->pixel[index];
        packed[index] = (uint64_t)pixel[0] | (uint64_t)pixel[1] << HOARD_GIF_LANE_BITS |
                        (uint64_t)pixel[2] << (2 * HOARD_GIF_LANE_BITS);
    }
    uint32_t out_width = (width + denominator - 1) / denominator;
    uint32_t out_height = (height + denominator - 1) / denominator;
    uint64_t *lanes = sums + 3 * (size_t)out_width;
    // Blocks up to 90 pixels a side are summed whole in lanes; wider ones a row at a time, in
    // pieces short enough for the lanes.
    int whole_blocks = denominator <= HOARD_GIF_MAX_LANE_COUNT / denominator;
    uint32_t piece = denominator < HOARD_GIF_MAX_LANE_COUNT ? denominator : HOARD_GIF_MAX_LANE_COUNT;
    uint32_t shift = 0;
    while ((UINT32_C(1) << shift) < denominator) shift++;
    int outside = 0;
    for (uint32_t out_y = 0; out_y < out_height; out_y++) {
        memset(sums, 0, (size_t)out_width * 4 * sizeof *sums);
        uint32_t top = out_y * denominator;
        uint32_t bottom = height - top < denominator ? height : top + denominator;
        for (uint32_t y = top; y < bottom; y++) {
            const uint8_t *line = rows[y];
            if (palette->has_outside) outside |= hoard_gif_any_outside(palette, line, width);
            if (whole_blocks) {
                uint32_t left = 0;
                for (uint32_t out_x = 0; out_x < out_width; out_x++, left += denominator) {
                    uint32_t right = width - left < denominator ? width : left + denominator;
                    uint64_t block = 0;
                    for (uint32_t x = left; x < right; x++) block += packed[line[x]];
                    lanes[out_x] += block;
                }
            } else {
                for (uint32_t left = 0; left < width; left += piece) {
                    uint32_t right = width - left < piece ? width : left + piece;
                    uint64_t block = 0;
                    for (uint32_t x = left; x < right; x++) block += packed[line[x]];
                    hoard_gif_unpack(block, sums + 3 * (size_t)(left / denominator));
                }
            }
        }
        uint8_t *row = pixels + (size_t)out_y * out_width * 3;
        for (uint32_t out_x = 0; out_x < out_width; out_x++) {
            uint64_t *sum = sums + 3 * (size_t)out_x;
            hoard_gif_unpack(lanes[out_x], sum);
            uint32_t left = out_x * denominator;
            uint64_t columns = width - left < denominator ? width - left : denominator;
            uint64_t count = columns * (bottom - top);
            // A whole block divides by a power of two.
            int whole = count == (uint64_t)denominator * denominator;
            for (int channel = 0; channel < 3; channel++) {
                uint64_t rounded = sum[channel] + count / 2;
                row[out_x * 3 + channel] = (uint8_t)(whole ? rounded >> (2 * shift) : rounded / count);
            }
        }
    }
    return outside;
}
