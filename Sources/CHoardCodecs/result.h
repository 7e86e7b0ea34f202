// Internal helpers shared by the decoders: filling a hoard_codec_result, the pixel limit, and the
// scale a thumbnail-sized decode picks.
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
/// The same for the raster a scaled decode allocates: `width` x `height` at 1/`denominator` scale.
int hoard_check_scaled_pixel_limit(const char *format, uint64_t width, uint64_t height, uint32_t denominator,
                                   uint64_t max_pixels, hoard_codec_result *result);
/// The largest power of two `d` whose scaled longest side, ceil(longest / d), still covers
/// `target`: the rule JPEG's DCT scaling follows, without its 1/8 floor (WebP and GIF decodes
/// scaled for a thumbnail). 1 when `target` is 0.
uint32_t hoard_scale_denominator(uint32_t width, uint32_t height, uint32_t target);

#endif
