// libjpeg(-turbo)'s decoder behind hoard_jpeg_decoder_*: its setjmp calls stay here; the error manager
// they jump from is in jpeg_errors.c, the encoder in jpeg_encode.c.
#include "jpeg_coefficients.h"
#include "jpeg_errors.h"
#include "jpeg_markers.h"
#include "result.h"

#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

// MARK: - Decoding

struct hoard_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    hoard_jpeg_errors errors;
    hoard_jpeg_progress progress;
    int created;
    int consumed;
    /// The output is CMYK from libjpeg and is converted to RGB row by row.
    int from_cmyk;
    /// Adobe CMYK files store inverted values (0 means full ink).
    int cmyk_inverted;
    uint32_t channels;
    /// `HOARD_PROGRESSIVE_*`: how much of a progressive file a scaled decode reads.
    uint32_t progressive_reading;
};

/// Walks the marker segments up to the first SOFn and reads the size it declares, without libjpeg,
/// so the pixel limit holds even for a file that stops before its first scan. Returns 0 when no
/// SOF comes before SOS or the end of the data.
static int hoard_jpeg_peek_size(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height) {
    size_t offset = 2; // after SOI
    hoard_jpeg_segment segment;
    while (hoard_jpeg_next_segment(data, size, &offset, &segment)) {
        uint8_t marker = segment.marker;
        int is_frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
        if (!is_frame) continue;
        if (segment.available < 5) return 0;
        *height = (uint32_t)segment.body[1] << 8 | segment.body[2];
        *width = (uint32_t)segment.body[3] << 8 | segment.body[4];
        return 1;
    }
    return 0;
}

void hoard_jpeg_decoder_destroy(hoard_jpeg_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->created) jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder);
}

/// The most pixels a JPEG header may declare under a raster limit of `max_pixels`: 64 times it
/// (1/8 of each side is the smallest scale), 0 (none) when there is no limit.
static uint64_t hoard_jpeg_declared_limit(uint64_t max_pixels) {
    return max_pixels > UINT64_MAX / 64 ? 0 : max_pixels * 64;
}

hoard_jpeg_decoder *hoard_jpeg_decoder_create(const uint8_t *data, size_t size,
                                              const hoard_decode_options *options,
                                              hoard_image_info *info, hoard_codec_result *result) {
    if (result == NULL) return NULL;
    hoard_result_reset(result);
    uint32_t denominator = options ? (options->scale_denominator ? options->scale_denominator : 1) : 1;
    if (data == NULL || size == 0 || size > ULONG_MAX || options == NULL || info == NULL ||
        (denominator != 1 && denominator != 2 && denominator != 4 && denominator != 8)) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT,
                          "no JPEG data, no options, or a scale other than 1/1, 1/2, 1/4, 1/8");
        return NULL;
    }
    memset(info, 0, sizeof *info);
    // The limit is on the raster a decode allocates, which DCT scaling makes as small as 1/64 of
    // the declared pixels: only a header that even 1/8 scale cannot bring within it is refused here.
    uint64_t declared_limit = hoard_jpeg_declared_limit(options->max_pixels);
    if (hoard_jpeg_peek_size(data, size, &info->declared_width, &info->declared_height) &&
        !hoard_check_pixel_limit("JPEG", info->declared_width, info->declared_height, declared_limit, result)) {
        return NULL;
    }
    hoard_jpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) {
        hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "Out of memory creating the JPEG decoder");
        return NULL;
    }
    j_decompress_ptr cinfo = &decoder->cinfo;
    cinfo->err = &decoder->errors.pub;
    hoard_jpeg_install_errors(&decoder->errors, result);
    decoder->errors.allow_truncated = options->allow_truncated;
    decoder->errors.warnings_are_errors = options->warnings_are_errors;
    if (setjmp(decoder->errors.jump)) {
        hoard_jpeg_failed(result);
        hoard_jpeg_decoder_destroy(decoder);
        return NULL;
    }
    jpeg_create_decompress(cinfo);
    decoder->created = 1;
    decoder->progress.pub.progress_monitor = hoard_jpeg_on_progress;
    decoder->progress.max_scans = options->max_scans;
    cinfo->progress = &decoder->progress.pub;
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_mem_src(cinfo, (unsigned char *)data, (unsigned long)size);
    jpeg_read_header(cinfo, TRUE);

    info->declared_width = cinfo->image_width;
    info->declared_height = cinfo->image_height;
    if (!hoard_check_pixel_limit("JPEG", cinfo->image_width, cinfo->image_height, declared_limit, result)) {
        hoard_jpeg_decoder_destroy(decoder);
        return NULL;
    }
    if (options->max_pixels > 0) {
        // Cap libjpeg's own allocations (a progressive file keeps every coefficient: up to 8 bytes
        // per pixel for 4 components at 4:4:4) so a lying header cannot take more than its limit allows.
        uint64_t cap = options->max_pixels * 8 + 16 * 1024 * 1024;
        cinfo->mem->max_memory_to_use = cap > (uint64_t)LONG_MAX ? LONG_MAX : (long)cap;
    }
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
        cinfo->out_color_space = JCS_GRAYSCALE;
        decoder->channels = 1;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo->out_color_space = JCS_CMYK;
        decoder->cmyk_inverted = cinfo->saw_Adobe_marker;
        if (options->raw_cmyk) {
            decoder->channels = 4;
            info->cmyk_layout = decoder->cmyk_inverted ? HOARD_LAYOUT_CMYK_INVERTED : HOARD_LAYOUT_CMYK;
        } else {
            decoder->from_cmyk = 1;
            decoder->channels = 3;
        }
        break;
    default:
        cinfo->out_color_space = JCS_EXT_RGB;
        decoder->channels = 3;
        break;
    }
    if (options->target_size > 0) {
        // Output sides are ceil(side / denominator); keep the longest one at least the target.
        uint64_t longest = cinfo->image_width > cinfo->image_height ? cinfo->image_width : cinfo->image_height;
        denominator = 8;
        while (denominator > 1 && (longest + denominator - 1) / denominator < options->target_size) {
            denominator /= 2;
        }
    }
    cinfo->scale_num = 1;
    cinfo->scale_denom = denominator;
    if (cinfo->progressive_mode && denominator > 1) decoder->progressive_reading = options->progressive_reading;
    jpeg_calc_output_dimensions(cinfo);
    info->width = cinfo->output_width;
    info->height = cinfo->output_height;
    info->channels = decoder->channels;
    if (!hoard_check_scaled_pixel_limit("JPEG", cinfo->output_width, cinfo->output_height, denominator,
                                        options->max_pixels, result)) {
        hoard_jpeg_decoder_destroy(decoder);
        return NULL;
    }
    return decoder;
}

int hoard_jpeg_decoder_exif(const hoard_jpeg_decoder *decoder, const uint8_t **bytes, size_t *length) {
    if (decoder == NULL || bytes == NULL || length == NULL) return 0;
    for (jpeg_saved_marker_ptr marker = decoder->cinfo.marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length >= 6 &&
            memcmp(marker->data, "Exif\0\0", 6) == 0) {
            *bytes = marker->data + 6;
            *length = marker->data_length - 6;
            return 1;
        }
    }
    return 0;
}

void hoard_cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, size_t count, int inverted) {
    for (size_t x = 0; x < count; x++) {
        unsigned c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
        if (!inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        rgb[0] = (uint8_t)((c * k + 127) / 255);
        rgb[1] = (uint8_t)((m * k + 127) / 255);
        rgb[2] = (uint8_t)((y * k + 127) / 255);
        cmyk += 4;
        rgb += 3;
    }
}

/// Starts a scaled decode of a progressive file that reads scans only until the coefficients the
/// scale uses are ready (see `HOARD_PROGRESSIVE_*`), in libjpeg's buffered-image mode. Each scan
/// still goes through the scan-count check. Returns whether the whole file was read.
static int hoard_jpeg_start_progressive(hoard_jpeg_decoder *decoder) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    int missing_bits = decoder->progressive_reading == HOARD_PROGRESSIVE_NEAR && cinfo->scale_denom == 8 ? 1 : 0;
    cinfo->buffered_image = TRUE;
    // Smoothing guesses coefficients that have not arrived; the ones the scale uses have.
    cinfo->do_block_smoothing = FALSE;
    jpeg_start_decompress(cinfo);
    int status;
    do {
        status = jpeg_consume_input(cinfo);
        hoard_jpeg_on_progress((j_common_ptr)cinfo);
    } while (status != JPEG_REACHED_EOI && status != JPEG_SUSPENDED &&
             !(status == JPEG_SCAN_COMPLETED && hoard_jpeg_coefficients_ready(cinfo, missing_bits)));
    jpeg_start_output(cinfo, cinfo->input_scan_number);
    return status == JPEG_REACHED_EOI;
}

int hoard_jpeg_decoder_read(hoard_jpeg_decoder *decoder, uint8_t *pixels, size_t capacity,
                            hoard_codec_result *result) {
    if (result == NULL) return HOARD_CODEC_INVALID_ARGUMENT;
    if (decoder == NULL || pixels == NULL || decoder->consumed) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "no JPEG decoder, no buffer, or already read");
        return result->status;
    }
    decoder->consumed = 1;
    decoder->errors.result = result;
    j_decompress_ptr cinfo = &decoder->cinfo;
    size_t stride = (size_t)cinfo->output_width * decoder->channels;
    if (stride == 0 || capacity / stride < cinfo->output_height) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "JPEG pixel buffer is too small");
        return result->status;
    }
    if (setjmp(decoder->errors.jump)) {
        return hoard_jpeg_failed(result);
    }
    int early = decoder->progressive_reading != HOARD_PROGRESSIVE_EVERY_SCAN;
    if (early) {
        early = !hoard_jpeg_start_progressive(decoder);
    } else {
        jpeg_start_decompress(cinfo);
    }
    if (decoder->from_cmyk) {
        // Freed with the decompressor, also after a longjmp.
        JSAMPARRAY row = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE,
                                                     cinfo->output_width * 4, 1);
        while (cinfo->output_scanline < cinfo->output_height) {
            uint8_t *destination = pixels + (size_t)cinfo->output_scanline * stride;
            if (jpeg_read_scanlines(cinfo, row, 1) == 1) {
                hoard_cmyk_to_rgb(row[0], destination, cinfo->output_width, decoder->cmyk_inverted);
            }
        }
    } else {
        JSAMPROW rows[16];
        while (cinfo->output_scanline < cinfo->output_height) {
            JDIMENSION count = cinfo->output_height - cinfo->output_scanline;
            if (count > 16) count = 16;
            for (JDIMENSION i = 0; i < count; i++) {
                rows[i] = pixels + (size_t)(cinfo->output_scanline + i) * stride;
            }
            jpeg_read_scanlines(cinfo, rows, count);
        }
    }
    if (early) {
        // The scans after the ones read are not needed: neither read nor checked.
        jpeg_abort_decompress(cinfo);
        return HOARD_CODEC_OK;
    }
    if (decoder->progressive_reading != HOARD_PROGRESSIVE_EVERY_SCAN) jpeg_finish_output(cinfo);
    jpeg_finish_decompress(cinfo);
    return HOARD_CODEC_OK;
}
