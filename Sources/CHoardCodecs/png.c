// libpng behind hoard_png_*: every png_jmpbuf and libpng callback stays in this file.
#include "result.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// MARK: - Callbacks shared by reading and writing

/// Where a libpng callback finds the call's result and policy.
typedef struct {
    hoard_codec_result *result;
    int warnings_are_errors;
    /// Set by the reader when the data ran out, so the error that follows is a truncation.
    int ran_out;
} hoard_png_context;

static void hoard_png_on_error(png_structp png, png_const_charp message) {
    hoard_png_context *context = png_get_error_ptr(png);
    int status = HOARD_CODEC_MALFORMED;
    if (context->ran_out) {
        status = HOARD_CODEC_TRUNCATED;
    } else if (strstr(message, "memory") != NULL || strstr(message, "Out of") != NULL) {
        status = HOARD_CODEC_OUT_OF_MEMORY;
    }
    hoard_result_fail(context->result, status, message);
    png_longjmp(png, 1);
}

static void hoard_png_on_warning(png_structp png, png_const_charp message) {
    hoard_png_context *context = png_get_error_ptr(png);
    hoard_result_add_warning(context->result, message);
    if (context->warnings_are_errors) {
        hoard_result_fail(context->result, HOARD_CODEC_MALFORMED, message);
        png_longjmp(png, 1);
    }
}

/// After a longjmp the status must say what failed, even if libpng gave no message.
static int hoard_png_failed(hoard_codec_result *result) {
    if (result->status == HOARD_CODEC_OK) {
        hoard_result_fail(result, HOARD_CODEC_MALFORMED, "libpng failed without a message");
    }
    return result->status;
}

// MARK: - Decoding

struct hoard_png_decoder {
    png_structp png;
    png_infop info;
    hoard_png_context context;
    const uint8_t *data;
    size_t size;
    size_t offset;
    uint32_t width;
    uint32_t height;
    uint32_t channels;
    png_bytep *rows;
    int consumed;
};

static void hoard_png_read_data(png_structp png, png_bytep destination, size_t length) {
    hoard_png_decoder *decoder = png_get_io_ptr(png);
    if (length > decoder->size - decoder->offset) {
        decoder->context.ran_out = 1;
        png_error(png, "Read beyond end of data");
    }
    memcpy(destination, decoder->data + decoder->offset, length);
    decoder->offset += length;
}

/// Reads the size from IHDR (always the first chunk) without libpng, so the pixel limit holds even
/// for a file that stops right after its header. Returns 0 when the bytes are not laid out so.
static int hoard_png_peek_size(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height) {
    if (size < 24 || memcmp(data + 12, "IHDR", 4) != 0) return 0;
    *width = (uint32_t)data[16] << 24 | (uint32_t)data[17] << 16 | (uint32_t)data[18] << 8 | data[19];
    *height = (uint32_t)data[20] << 24 | (uint32_t)data[21] << 16 | (uint32_t)data[22] << 8 | data[23];
    return 1;
}

void hoard_png_decoder_destroy(hoard_png_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->png != NULL) {
        png_destroy_read_struct(&decoder->png, decoder->info ? &decoder->info : NULL, NULL);
    }
    free(decoder->rows);
    free(decoder);
}

hoard_png_decoder *hoard_png_decoder_create(const uint8_t *data, size_t size,
                                            const hoard_decode_options *options,
                                            hoard_image_info *info, hoard_codec_result *result) {
    if (result == NULL) return NULL;
    hoard_result_reset(result);
    if (data == NULL || size == 0 || options == NULL || info == NULL) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "no PNG data or no options");
        return NULL;
    }
    memset(info, 0, sizeof *info);
    if (hoard_png_peek_size(data, size, &info->declared_width, &info->declared_height) &&
        !hoard_check_pixel_limit("PNG", info->declared_width, info->declared_height, options->max_pixels, result)) {
        return NULL;
    }
    hoard_png_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) {
        hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "Out of memory creating the PNG decoder");
        return NULL;
    }
    decoder->data = data;
    decoder->size = size;
    decoder->context.result = result;
    decoder->context.warnings_are_errors = options->warnings_are_errors;
    decoder->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &decoder->context,
                                          hoard_png_on_error, hoard_png_on_warning);
    if (decoder->png != NULL) decoder->info = png_create_info_struct(decoder->png);
    if (decoder->png == NULL || decoder->info == NULL) {
        hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "Out of memory creating the PNG decoder");
        hoard_png_decoder_destroy(decoder);
        return NULL;
    }
    if (setjmp(png_jmpbuf(decoder->png))) {
        hoard_png_failed(result);
        hoard_png_decoder_destroy(decoder);
        return NULL;
    }
    png_set_read_fn(decoder->png, decoder, hoard_png_read_data);
    // Our own pixel-count limit decides; libpng's default 1,000,000 px per side would pre-empt it.
    png_set_user_limits(decoder->png, 0x7fffffff, 0x7fffffff);
    // Hoard uses IHDR, PLTE, tRNS and IDAT only. The other chunks libpng knows are skipped like
    // unknown ones: read through in small pieces to check their CRC, never buffered. libpng
    // allocates the declared length of a text, profile or scale chunk before reading it, so a
    // 57-byte file declaring a 1 GiB sCAL chunk made it ask malloc for 1 GiB.
    static const png_byte unused_chunks[] = "bKGD\0cHRM\0cICP\0cLLI\0eXIf\0gAMA\0hIST\0iCCP\0iTXt\0mDCV\0"
                                            "oFFs\0pCAL\0pHYs\0sBIT\0sCAL\0sPLT\0sRGB\0sTER\0tEXt\0tIME\0zTXt";
    png_set_keep_unknown_chunks(decoder->png, PNG_HANDLE_CHUNK_NEVER, unused_chunks, (int)(sizeof unused_chunks / 5));
    png_read_info(decoder->png, decoder->info);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0;
    png_get_IHDR(decoder->png, decoder->info, &width, &height, &bit_depth, &color_type, NULL, NULL, NULL);
    info->declared_width = width;
    info->declared_height = height;
    if (!hoard_check_pixel_limit("PNG", width, height, options->max_pixels, result)) {
        hoard_png_decoder_destroy(decoder);
        return NULL;
    }
    // Stored values, 8 bits per channel: no gamma, no background, no premultiplication.
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(decoder->png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(decoder->png);
    if (png_get_valid(decoder->png, decoder->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(decoder->png);
    if (bit_depth == 16) png_set_strip_16(decoder->png);
    png_set_interlace_handling(decoder->png);
    png_read_update_info(decoder->png, decoder->info);

    decoder->width = width;
    decoder->height = height;
    decoder->channels = png_get_channels(decoder->png, decoder->info);
    if (decoder->channels < 1 || decoder->channels > 4 ||
        png_get_rowbytes(decoder->png, decoder->info) != (size_t)width * decoder->channels) {
        hoard_result_fail(result, HOARD_CODEC_UNSUPPORTED, "PNG pixel layout is not 8-bit with 1 to 4 channels");
        hoard_png_decoder_destroy(decoder);
        return NULL;
    }
    info->width = width;
    info->height = height;
    info->channels = decoder->channels;
    return decoder;
}

int hoard_png_decoder_read(hoard_png_decoder *decoder, uint8_t *pixels, size_t capacity,
                           hoard_codec_result *result) {
    if (result == NULL) return HOARD_CODEC_INVALID_ARGUMENT;
    if (decoder == NULL || pixels == NULL || decoder->consumed) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "no PNG decoder, no buffer, or already read");
        return result->status;
    }
    decoder->consumed = 1;
    decoder->context.result = result;
    size_t stride = (size_t)decoder->width * decoder->channels;
    if (capacity / stride < decoder->height) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "PNG pixel buffer is too small");
        return result->status;
    }
    decoder->rows = malloc(sizeof(png_bytep) * decoder->height);
    if (decoder->rows == NULL) {
        hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "Out of memory for PNG row pointers");
        return result->status;
    }
    for (uint32_t y = 0; y < decoder->height; y++) decoder->rows[y] = pixels + (size_t)y * stride;
    if (setjmp(png_jmpbuf(decoder->png))) {
        return hoard_png_failed(result);
    }
    png_read_image(decoder->png, decoder->rows);
    // Reads up to IEND, checking every remaining chunk's CRC: a file cut after its pixels is an error.
    png_read_end(decoder->png, NULL);
    return HOARD_CODEC_OK;
}

// MARK: - Encoding

typedef struct {
    hoard_png_context context;
    uint8_t *data;
    size_t size;
    size_t capacity;
} hoard_png_sink;

static void hoard_png_write_data(png_structp png, png_bytep bytes, size_t length) {
    hoard_png_sink *sink = png_get_io_ptr(png);
    if (length > sink->capacity - sink->size) {
        size_t capacity = sink->capacity;
        while (length > capacity - sink->size) {
            if (capacity > SIZE_MAX / 2) png_error(png, "Out of memory: PNG output too large");
            capacity *= 2;
        }
        uint8_t *grown = realloc(sink->data, capacity);
        if (grown == NULL) png_error(png, "Out of memory growing the PNG output");
        sink->data = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->data + sink->size, bytes, length);
    sink->size += length;
}

static void hoard_png_flush_data(png_structp png) { (void)png; }

int hoard_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels,
                     int compression_level, const uint8_t *icc, size_t icc_size, uint8_t **output,
                     size_t *output_size, hoard_codec_result *result) {
    static const int color_types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                      PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    if (result == NULL) return HOARD_CODEC_INVALID_ARGUMENT;
    hoard_result_reset(result);
    if (pixels == NULL || output == NULL || output_size == NULL || width == 0 || height == 0 ||
        width > 0x7fffffff || height > 0x7fffffff || channels < 1 || channels > 4 ||
        compression_level < 0 || compression_level > 9 || (icc != NULL && (icc_size < 132 || icc_size > HOARD_ICC_MAX_BYTES))) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT,
                          "PNG encoding needs pixels, a size, 1-4 channels, a level of 0-9 and a profile of 132 B to 4 MiB");
        return result->status;
    }
    *output = NULL;
    *output_size = 0;
    // Everything libpng's callbacks change lives on the heap: locals changed between setjmp and
    // longjmp would be indeterminate afterwards.
    hoard_png_sink *sink = calloc(1, sizeof *sink);
    png_bytep *rows = malloc(sizeof(png_bytep) * height);
    png_structp png = NULL;
    png_infop info = NULL;
    if (sink != NULL) {
        sink->context.result = result;
        sink->capacity = 64 * 1024;
        sink->data = malloc(sink->capacity);
        png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink->context,
                                      hoard_png_on_error, hoard_png_on_warning);
        info = png ? png_create_info_struct(png) : NULL;
    }
    if (sink == NULL || rows == NULL || sink->data == NULL || png == NULL || info == NULL) {
        hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "Out of memory creating the PNG encoder");
        if (png != NULL) png_destroy_write_struct(&png, info ? &info : NULL);
        if (sink != NULL) free(sink->data);
        free(sink);
        free(rows);
        return result->status;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(rows);
        free(sink->data);
        free(sink);
        return hoard_png_failed(result);
    }
    png_set_write_fn(png, sink, hoard_png_write_data, hoard_png_flush_data);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_set_IHDR(png, info, width, height, 8, color_types[channels - 1], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, compression_level);
    if (icc != NULL) png_set_iCCP(png, info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, icc, (png_uint_32)icc_size);
    size_t stride = (size_t)width * channels;
    for (uint32_t y = 0; y < height; y++) rows[y] = (png_bytep)(pixels + (size_t)y * stride);
    png_write_info(png, info);
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(rows);
    *output = sink->data;
    *output_size = sink->size;
    free(sink);
    return HOARD_CODEC_OK;
}
