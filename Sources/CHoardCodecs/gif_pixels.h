#ifndef HOARD_GIF_PIXELS_H
#define HOARD_GIF_PIXELS_H

#include <stdint.h>

#include <gif_lib.h>

/// What each of the 256 indices draws, worked out once per image: its colour and alpha. Without
/// any colour table an index is a gray level (as Pillow reads such files); an index past the table
/// is opaque black, and marked in `outside`; the transparent index is transparent black.
typedef struct {
    uint8_t pixel[256][4];
    uint8_t outside[256];
    /// Whether any index is outside.
    int has_outside;
} hoard_gif_palette;

/// The palette of an image with `colors` (its local table, else the global one; NULL for none)
/// and `transparent_index` (-1 for none).
void hoard_gif_make_palette(const ColorMapObject *colors, int transparent_index, hoard_gif_palette *palette);

/// One row of palette indices to pixels, `channels` (3 or 4) bytes each. Returns whether an index
/// was past the palette.
int hoard_gif_put_row(const hoard_gif_palette *palette, uint32_t channels, const uint8_t *indices, uint32_t count,
                      uint8_t *destination);

/// The opaque image whose row `y` is `rows[y]`, shrunk by `denominator` into `pixels` (RGB,
/// ceil(width / denominator) by ceil(height / denominator)): each pixel is the rounded mean of its
/// block, the blocks on the right and bottom edges as far as the image goes. `sums` has room for
/// four per pixel of a row out. Returns whether an index was past the palette.
int hoard_gif_put_shrunk(const hoard_gif_palette *palette, const uint8_t *const *rows, uint32_t width,
                         uint32_t height, uint32_t denominator, uint64_t *sums, uint8_t *pixels);

#endif
