// giflib behind hoard_gif_*: the low-level record API (never DGifSlurp, which reads and keeps every
// frame), stopping once the first image is decoded; the image's LZW is decoded by gif_lzw.c, and
// its indices become pixels in gif_pixels.c.
#include "gif_lzw.h"
#include "gif_pixels.h"
#include "result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>

struct hoard_gif_decoder {
    GifFileType *gif;
    const uint8_t *data;
    size_t size;
    size_t offset;
    /// Set by the reader when the data ran out, so the error that follows is a truncation.
    int ran_out;
    /// The canvas.
    uint32_t width;
    uint32_t height;
    uint32_t channels;
    /// 1, or the power of two the image is shrunk by while its indices become pixels (an opaque
    /// image that covers its canvas, decoded for a thumbnail): each pixel out is the mean of a
    /// block of that side.
    uint32_t denominator;
    /// From the graphic control extension before the first image; -1 when there is none.
    int transparent_index;
    int warnings_are_errors;
    int consumed;
};

/// giflib's input callback: copies from memory, and says when the data ends.
static int hoard_gif_read_data(GifFileType *gif, GifByteType *destination, int length) {
    hoard_gif_decoder *decoder = gif->UserData;
    if (length <= 0) return 0;
    size_t available = decoder->size - decoder->offset;
    size_t count = (size_t)length < available ? (size_t)length : available;
    if (count < (size_t)length) decoder->ran_out = 1;
    memcpy(destination, decoder->data + decoder->offset, count);
    decoder->offset += count;
    return (int)count;
}

/// Fails `result` with giflib's text for `error`: a truncation when the data ran out.
static int hoard_gif_fail(hoard_gif_decoder *decoder, int error, hoard_codec_result *result) {
    int status = HOARD_CODEC_MALFORMED;
    if (error == D_GIF_ERR_NOT_ENOUGH_MEM) {
        status = HOARD_CODEC_OUT_OF_MEMORY;
    } else if ((decoder != NULL && decoder->ran_out) || error == D_GIF_ERR_EOF_TOO_SOON) {
        status = HOARD_CODEC_TRUNCATED;
    }
    // giflib leaves the code at 0 for some failures of its own (a short read inside a record).
    const char *text = error != 0 ? GifErrorString(error) : NULL;
    if (text == NULL) text = decoder != NULL && decoder->ran_out ? "the data ends early" : "failed without an error code";
    char message[HOARD_CODEC_MESSAGE_CAPACITY];
    snprintf(message, sizeof message, "giflib: %s", text);
    hoard_result_fail(result, status, message);
    return result->status;
}

/// The logical screen's size, read without giflib so that the pixel limit holds before it
/// allocates anything. Returns 0 when the data is too short.
static int hoard_gif_peek_screen(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height) {
    if (size < 10) return 0;
    *width = (uint32_t)data[6] | (uint32_t)data[7] << 8;
    *height = (uint32_t)data[8] | (uint32_t)data[9] << 8;
    return 1;
}

void hoard_gif_decoder_destroy(hoard_gif_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->gif != NULL) DGifCloseFile(decoder->gif, NULL);
    free(decoder);
}

/// Reads records up to the first image descriptor, keeping the transparent index of the last
/// graphic control extension before it. Returns 0 after failing `result`.
static int hoard_gif_find_first_image(hoard_gif_decoder *decoder, hoard_codec_result *result) {
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(decoder->gif, &type) == GIF_ERROR) {
            hoard_gif_fail(decoder, decoder->gif->Error, result);
            return 0;
        }
        if (type == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(decoder->gif) == GIF_ERROR) {
                hoard_gif_fail(decoder, decoder->gif->Error, result);
                return 0;
            }
            return 1;
        }
        if (type == TERMINATE_RECORD_TYPE) {
            hoard_result_fail(result, HOARD_CODEC_MALFORMED, "GIF has no image");
            return 0;
        }
        // EXTENSION_RECORD_TYPE: the only other record DGifGetRecordType returns.
        int code = 0;
        GifByteType *block = NULL;
        if (DGifGetExtension(decoder->gif, &code, &block) == GIF_ERROR) {
            hoard_gif_fail(decoder, decoder->gif->Error, result);
            return 0;
        }
        // block[0] is the sub-block's length; a graphic control extension's first one holds
        // flags, a 16-bit delay and the transparent index.
        if (code == GRAPHICS_EXT_FUNC_CODE && block != NULL && block[0] >= 4) {
            decoder->transparent_index = (block[1] & 0x01) ? block[4] : -1;
        }
        while (block != NULL) {
            if (DGifGetExtensionNext(decoder->gif, &block) == GIF_ERROR) {
                hoard_gif_fail(decoder, decoder->gif->Error, result);
                return 0;
            }
        }
    }
}

hoard_gif_decoder *hoard_gif_decoder_create(const uint8_t *data, size_t size,
                                            const hoard_decode_options *options,
                                            hoard_image_info *info, hoard_codec_result *result) {
    if (result == NULL) return NULL;
    hoard_result_reset(result);
    if (data == NULL || size == 0 || options == NULL || info == NULL) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "no GIF data or no options");
        return NULL;
    }
    memset(info, 0, sizeof *info);
    if (hoard_gif_peek_screen(data, size, &info->declared_width, &info->declared_height) &&
        !hoard_check_pixel_limit("GIF", info->declared_width, info->declared_height, options->max_pixels, result)) {
        return NULL;
    }
    hoard_gif_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) {
        hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "Out of memory creating the GIF decoder");
        return NULL;
    }
    decoder->data = data;
    decoder->size = size;
    decoder->transparent_index = -1;
    decoder->warnings_are_errors = options->warnings_are_errors;
    int error = 0;
    decoder->gif = DGifOpen(decoder, hoard_gif_read_data, &error);
    if (decoder->gif == NULL) {
        hoard_gif_fail(decoder, error, result);
        hoard_gif_decoder_destroy(decoder);
        return NULL;
    }
    if (!hoard_gif_find_first_image(decoder, result)) {
        hoard_gif_decoder_destroy(decoder);
        return NULL;
    }
    const GifImageDesc *image = &decoder->gif->Image;
    if (image->Width <= 0 || image->Height <= 0 || image->Left < 0 || image->Top < 0) {
        char message[HOARD_CODEC_MESSAGE_CAPACITY];
        snprintf(message, sizeof message, "GIF's first image is empty (%d x %d)", image->Width, image->Height);
        hoard_result_fail(result, HOARD_CODEC_MALFORMED, message);
        hoard_gif_decoder_destroy(decoder);
        return NULL;
    }
    // The canvas: the logical screen, grown to hold the first image (as Pillow and browsers do;
    // sides stay below 2^17, so nothing overflows).
    uint32_t right = (uint32_t)image->Left + (uint32_t)image->Width;
    uint32_t bottom = (uint32_t)image->Top + (uint32_t)image->Height;
    uint32_t screen_width = (uint32_t)decoder->gif->SWidth, screen_height = (uint32_t)decoder->gif->SHeight;
    decoder->width = right > screen_width ? right : screen_width;
    decoder->height = bottom > screen_height ? bottom : screen_height;
    info->declared_width = decoder->width;
    info->declared_height = decoder->height;
    if (!hoard_check_pixel_limit("GIF", decoder->width, decoder->height, options->max_pixels, result)) {
        hoard_gif_decoder_destroy(decoder);
        return NULL;
    }
    if (right > screen_width || bottom > screen_height) {
        char message[HOARD_CODEC_MESSAGE_CAPACITY];
        snprintf(message, sizeof message, "GIF's first image reaches past its %u x %u screen; canvas grown to %u x %u",
                 screen_width, screen_height, decoder->width, decoder->height);
        hoard_result_add_warning(result, message);
        if (options->warnings_are_errors) {
            hoard_result_fail(result, HOARD_CODEC_MALFORMED, message);
            hoard_gif_decoder_destroy(decoder);
            return NULL;
        }
    }
    int covers = image->Left == 0 && image->Top == 0 && right == decoder->width && bottom == decoder->height;
    decoder->channels = decoder->transparent_index >= 0 || !covers ? 4 : 3;
    // Transparency would need alpha-weighted means; such images are resampled whole instead.
    decoder->denominator = decoder->channels == 3
        ? hoard_scale_denominator(decoder->width, decoder->height, options->target_size) : 1;
    info->width = (decoder->width + decoder->denominator - 1) / decoder->denominator;
    info->height = (decoder->height + decoder->denominator - 1) / decoder->denominator;
    info->channels = decoder->channels;
    return decoder;
}

int hoard_gif_decoder_read(hoard_gif_decoder *decoder, uint8_t *pixels, size_t capacity,
                           hoard_codec_result *result) {
    if (result == NULL) return HOARD_CODEC_INVALID_ARGUMENT;
    if (decoder == NULL || pixels == NULL || decoder->consumed) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "no GIF decoder, no buffer, or already read");
        return result->status;
    }
    decoder->consumed = 1;
    uint32_t denominator = decoder->denominator;
    uint32_t out_width = (decoder->width + denominator - 1) / denominator;
    uint32_t out_height = (decoder->height + denominator - 1) / denominator;
    size_t stride = (size_t)out_width * decoder->channels;
    if (capacity / stride < out_height) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "GIF pixel buffer is too small");
        return result->status;
    }
    const GifImageDesc *image = &decoder->gif->Image;
    const ColorMapObject *colors = image->ColorMap != NULL ? image->ColorMap : decoder->gif->SColorMap;
    uint32_t width = (uint32_t)image->Width, height = (uint32_t)image->Height;
    // One byte per pixel of the first image (its sides are within the canvas the pixel limit
    // checked), a pointer per row, and a row of sums when shrinking.
    size_t count = (size_t)width * height;
    uint8_t *indices = malloc(count + HOARD_GIF_LZW_SLACK);
    const uint8_t **rows = malloc((size_t)height * sizeof *rows);
    uint64_t *sums = denominator > 1 ? malloc((size_t)out_width * 4 * sizeof *sums) : NULL;
    if (indices == NULL || rows == NULL || (denominator > 1 && sums == NULL)) {
        free(indices);
        free(rows);
        free(sums);
        hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "Out of memory for a GIF's palette indices");
        return result->status;
    }
    char message[HOARD_CODEC_MESSAGE_CAPACITY];
    int decoded = hoard_gif_lzw_decode(decoder->gif, decoder->size - decoder->offset, indices, count, message);
    if (decoded != HOARD_CODEC_OK) {
        free(indices);
        free(rows);
        free(sums);
        if (decoded == HOARD_GIF_LZW_GIFLIB_FAILED) return hoard_gif_fail(decoder, decoder->gif->Error, result);
        int status = decoded == HOARD_CODEC_OUT_OF_MEMORY ? decoded
                     : decoder->ran_out                     ? HOARD_CODEC_TRUNCATED
                                                            : HOARD_CODEC_MALFORMED;
        hoard_result_fail(result, status, message);
        return result->status;
    }
    // Rows come in stored order: four passes when interlaced, else top to bottom.
    static const uint32_t interlaced_start[] = {0, 4, 2, 1}, interlaced_step[] = {8, 8, 4, 2};
    static const uint32_t plain_start[] = {0}, plain_step[] = {1};
    const uint32_t *start = image->Interlace ? interlaced_start : plain_start;
    const uint32_t *step = image->Interlace ? interlaced_step : plain_step;
    uint32_t passes = image->Interlace ? 4 : 1;
    const uint8_t *line = indices;
    for (uint32_t pass = 0; pass < passes; pass++) {
        for (uint32_t y = start[pass]; y < height; y += step[pass], line += width) rows[y] = line;
    }
    hoard_gif_palette palette;
    hoard_gif_make_palette(colors, decoder->transparent_index, &palette);
    int outside = 0;
    if (denominator > 1) {
        // Only for an image that covers its canvas (see hoard_gif_decoder_create).
        outside = hoard_gif_put_shrunk(&palette, rows, width, height, denominator, sums, pixels);
    } else {
        // What the first image does not cover stays transparent black.
        if (decoder->channels == 4) memset(pixels, 0, stride * decoder->height);
        for (uint32_t y = 0; y < height; y++) {
            uint8_t *row = pixels + ((size_t)image->Top + y) * stride + (size_t)image->Left * decoder->channels;
            outside |= hoard_gif_put_row(&palette, decoder->channels, rows[y], width, row);
        }
    }
    free(rows);
    free(sums);
    free(indices);
    if (outside) {
        static const char message[] = "GIF pixels index colours past the end of the palette; drawn black";
        hoard_result_add_warning(result, message);
        if (decoder->warnings_are_errors) {
            hoard_result_fail(result, HOARD_CODEC_MALFORMED, message);
            return result->status;
        }
    }
    return HOARD_CODEC_OK;
}
