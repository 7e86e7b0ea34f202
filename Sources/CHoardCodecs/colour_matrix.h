// A direct path for the commonest colour conversion, a matrix-shaper RGB profile (Display P3,
// Adobe RGB, ProPhoto, most camera and phone profiles) to sRGB: three input curves, one 3x3
// matrix, three output curves, all as tables. Little CMS's own 8-bit path for these does the same
// in fixed point at about a quarter of the speed.

#ifndef HOARD_COLOUR_MATRIX_H
#define HOARD_COLOUR_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include <lcms2.h>

/// Entries of each output table: linear light in steps of 1/16384 (a fifth of an 8-bit level
/// where sRGB's curve is steepest).
#define HOARD_MATRIX_OUT_STEPS 16384

typedef struct {
    /// Linear light of each 8-bit input value, per channel.
    float in[3][256];
    /// Source linear RGB to target linear RGB (row-major), through PCS XYZ (D50).
    float matrix[9];
    /// The target's 8-bit value of linear light i / HOARD_MATRIX_OUT_STEPS, per channel.
    uint8_t out[3][HOARD_MATRIX_OUT_STEPS + 1];
    /// The tables each channel reads: the same one for channels whose curves agree (sRGB's three,
    /// a camera profile's three), so that the working set stays in the first-level cache.
    int in_table[3], out_table[3];
} hoard_matrix_shaper;

/// Fills `shaper` for converting `source` to `target` with the relative colorimetric intent when
/// both are RGB matrix-shaper profiles whose matrices can be inverted: returns 1; else 0 (use
/// Little CMS's general path).
int hoard_matrix_shaper_init(hoard_matrix_shaper *shaper, cmsHPROFILE source, cmsHPROFILE target);

/// Converts `count` pixels of `channels` bytes (3, or 4 with alpha last, copied).
void hoard_matrix_shaper_apply(const hoard_matrix_shaper *shaper, const uint8_t *input, uint8_t *output,
                               size_t count, int channels);

#endif
