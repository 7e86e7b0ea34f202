// Which DCT coefficients a scaled JPEG decode uses, and whether a progressive file has delivered
// them yet: what lets jpeg.c stop reading scans early (HOARD_PROGRESSIVE_* in CHoardCodecs.h).
#include "jpeg_coefficients.h"

/// The row-major position of each coefficient in zigzag order (as libjpeg's internal table).
static const unsigned char hoard_jpeg_natural_order[DCTSIZE2] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

/// Whether the inverse DCT that makes `scaled_size` x `scaled_size` pixels of a block reads the
/// coefficient at `natural` (row-major) position: libjpeg's reduced-size IDCTs (jidctred.c) read
/// rows and columns 0, 1, 3, 5 and 7 for 2x2, all but 4 for 4x4, and only the DC for 1x1.
static int hoard_jpeg_coefficient_used(int scaled_size, int natural) {
    int row = natural / DCTSIZE, column = natural % DCTSIZE;
    switch (scaled_size) {
    case 1: return natural == 0;
    case 2: return (row < 2 || row % 2 == 1) && (column < 2 || column % 2 == 1);
    case 4: return row != 4 && column != 4;
    default: return 1;
    }
}

/// Whether every coefficient the output needs, in every component, has arrived with at most
/// `missing_bits` low bits still to come (libjpeg's `coef_bits`: -1 before the first scan of a
/// coefficient, then the successive-approximation shift still outstanding, indexed in zigzag order).
int hoard_jpeg_coefficients_ready(j_decompress_ptr cinfo, int missing_bits) {
    for (int component = 0; component < cinfo->num_components; component++) {
        int scaled_size = cinfo->comp_info[component].DCT_scaled_size;
        const int *bits = cinfo->coef_bits[component];
        for (int zigzag = 0; zigzag < DCTSIZE2; zigzag++) {
            if (!hoard_jpeg_coefficient_used(scaled_size, hoard_jpeg_natural_order[zigzag])) continue;
            if (bits[zigzag] < 0 || bits[zigzag] > missing_bits) return 0;
        }
    }
    return 1;
}
