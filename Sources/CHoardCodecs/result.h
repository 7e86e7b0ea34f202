// Internal helpers shared by png.c and jpeg.c: filling a hoard_codec_result.
#ifndef CHOARD_RESULT_H
#define CHOARD_RESULT_H

#include "CHoardCodecs.h"

void hoard_result_reset(hoard_codec_result *result);
void hoard_result_fail(hoard_codec_result *result, int status, const char *message);
void hoard_result_add_warning(hoard_codec_result *result, const char *message);
/// Returns 1 when `width * height` is within `max_pixels` (0: no limit); else fails `result` with
/// HOARD_CODEC_TOO_LARGE and a message naming `format` and the declared size, and returns 0.
int hoard_check_pixel_limit(const char *format, uint64_t width, uint64_t height, uint64_t max_pixels,
                            hoard_codec_result *result);

#endif
