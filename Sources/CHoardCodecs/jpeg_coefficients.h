#ifndef HOARD_JPEG_COEFFICIENTS_H
#define HOARD_JPEG_COEFFICIENTS_H

#include <stddef.h>
#include <stdio.h>

#include <jpeglib.h>

/// Whether every coefficient the output needs, in every component (each at its own scaled DCT
/// size), has arrived with at most `missing_bits` low bits still to come. Progressive files only:
/// reads libjpeg's `coef_bits`.
int hoard_jpeg_coefficients_ready(j_decompress_ptr cinfo, int missing_bits);

#endif
