// Internal helpers shared by png.c and jpeg.c: filling a hoard_codec_result.
#ifndef CHOARD_RESULT_H
#define CHOARD_RESULT_H

#include "CHoardCodecs.h"

void hoard_result_reset(hoard_codec_result *result);
void hoard_result_fail(hoard_codec_result *result, int status, const char *message);
void hoard_result_add_warning(hoard_codec_result *result, const char *message);
int hoard_pixel_count_allowed(uint64_t width, uint64_t height, uint64_t max_pixels);

#endif
