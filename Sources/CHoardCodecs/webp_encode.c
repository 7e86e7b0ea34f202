// libwebp's encoder behind hoard_webp_encode: the advanced API (WebPConfig, WebPPicture,
// WebPEncode) writing into a buffer of ours, so that the caller frees it with hoard_codec_free.
#include "result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/encode.h>
#include <webp/mux.h>

/// The bytes written so far: grown with realloc, handed to the caller on success.
typedef struct {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
} hoard_webp_buffer;

/// WebPPicture's writer: appends `size` bytes; returns 0 (libwebp's VP8_ENC_ERROR_BAD_WRITE) when
/// memory runs out.
static int hoard_webp_write(const uint8_t *data, size_t size, const WebPPicture *picture) {
    hoard_webp_buffer *buffer = (hoard_webp_buffer *)picture->custom_ptr;
    if (size == 0) return 1;
    if (size > SIZE_MAX - buffer->size) return 0;
    size_t needed = buffer->size + size;
    if (needed > buffer->capacity) {
        size_t capacity = buffer->capacity < 4096 ? 4096 : buffer->capacity;
        while (capacity < needed) capacity = capacity > SIZE_MAX / 2 ? needed : capacity * 2;
        uint8_t *grown = realloc(buffer->bytes, capacity);
        if (grown == NULL) return 0;
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->size, data, size);
    buffer->size = needed;
    return 1;
}

/// libwebp reports a WebPEncodingError code, no text: its name and meaning are the message.
static void hoard_webp_encode_fail(hoard_codec_result *result, WebPEncodingError code) {
    static const char *const names[] = {
        "OK",
        "OUT_OF_MEMORY (allocating the encoder)",
        "BITSTREAM_OUT_OF_MEMORY (flushing bits)",
        "NULL_PARAMETER",
        "INVALID_CONFIGURATION",
        "BAD_DIMENSION (a side over 16383 pixels)",
        "PARTITION0_OVERFLOW (the first partition is over 512 KiB; try a lower quality)",
        "PARTITION_OVERFLOW (a partition is over 16 MiB)",
        "BAD_WRITE (out of memory for the output)",
        "FILE_TOO_BIG (over 4 GiB)",
        "USER_ABORT",
    };
    int status = code == VP8_ENC_ERROR_OUT_OF_MEMORY || code == VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY ||
                         code == VP8_ENC_ERROR_BAD_WRITE
                     ? HOARD_CODEC_OUT_OF_MEMORY
                     : HOARD_CODEC_MALFORMED;
    const char *name = (unsigned)code < sizeof names / sizeof names[0] ? names[code] : "unknown error";
    char message[HOARD_CODEC_MESSAGE_CAPACITY];
    snprintf(message, sizeof message, "WebPEncode failed: %s (error %d)", name, (int)code);
    hoard_result_fail(result, status, message);
}

/// Wraps an encoded bitstream with an ICCP chunk through WebPMux (which writes the VP8X header),
/// and frees the bitstream.
static int hoard_webp_add_icc(hoard_webp_buffer *bitstream, const uint8_t *icc, size_t icc_size, uint8_t **output,
                              size_t *output_size, hoard_codec_result *result) {
    WebPData image = {bitstream->bytes, bitstream->size};
    WebPData profile = {icc, icc_size};
    WebPData assembled = {NULL, 0};
    WebPMux *mux = WebPMuxNew();
    int ok = mux != NULL && WebPMuxSetImage(mux, &image, 0) == WEBP_MUX_OK &&
             WebPMuxSetChunk(mux, "ICCP", &profile, 0) == WEBP_MUX_OK && WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK;
    WebPMuxDelete(mux);
    free(bitstream->bytes);
    uint8_t *copy = ok ? malloc(assembled.size) : NULL;
    if (copy == NULL) {
        WebPDataClear(&assembled);
        hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "WebPMux could not add the ICC profile");
        return result->status;
    }
    // Released with hoard_codec_free (free), not WebPFree.
    memcpy(copy, assembled.bytes, assembled.size);
    *output = copy;
    *output_size = assembled.size;
    WebPDataClear(&assembled);
    return HOARD_CODEC_OK;
}

int hoard_webp_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels, int quality,
                      int lossless, const uint8_t *icc, size_t icc_size, uint8_t **output, size_t *output_size,
                      hoard_codec_result *result) {
    if (result == NULL) return HOARD_CODEC_INVALID_ARGUMENT;
    hoard_result_reset(result);
    if (pixels == NULL || output == NULL || output_size == NULL || width == 0 || height == 0 ||
        width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION || (channels != 3 && channels != 4) ||
        quality < 1 || quality > 100 || (icc != NULL && (icc_size == 0 || icc_size > HOARD_ICC_MAX_BYTES))) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT,
                          "WebP encoding needs pixels, a size up to 16383, 3 or 4 channels, a quality of 1-100 "
                          "and a profile of at most 4 MiB");
        return result->status;
    }
    *output = NULL;
    *output_size = 0;
    WebPConfig config;
    if (!WebPConfigInit(&config)) {
        hoard_result_fail(result, HOARD_CODEC_UNSUPPORTED, "libwebp's encoder ABI does not match its header");
        return result->status;
    }
    if (lossless) {
        // Lossless: every pixel kept, RGB under transparent pixels too (`exact`); the quality is
        // then the effort, cwebp -lossless's default.
        config.lossless = 1;
        config.exact = 1;
        config.quality = 75;
    } else {
        config.quality = (float)quality;
    }
    if (!WebPValidateConfig(&config)) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "WebPValidateConfig refused the configuration");
        return result->status;
    }
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) {
        hoard_result_fail(result, HOARD_CODEC_UNSUPPORTED, "libwebp's picture ABI does not match its header");
        return result->status;
    }
    picture.width = (int)width;
    picture.height = (int)height;
    picture.use_argb = lossless; // lossless encodes ARGB; lossy converts to YUV 4:2:0 once, on import
    int stride = (int)(width * channels);
    int imported = channels == 4 ? WebPPictureImportRGBA(&picture, pixels, stride)
                                 : WebPPictureImportRGB(&picture, pixels, stride);
    if (!imported) {
        WebPPictureFree(&picture);
        hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "WebPPictureImport failed: out of memory");
        return result->status;
    }
    hoard_webp_buffer buffer = {NULL, 0, 0};
    picture.writer = hoard_webp_write;
    picture.custom_ptr = &buffer;
    int encoded = WebPEncode(&config, &picture);
    WebPEncodingError code = picture.error_code;
    WebPPictureFree(&picture);
    if (!encoded || buffer.size == 0) {
        free(buffer.bytes);
        hoard_webp_encode_fail(result, encoded ? VP8_ENC_ERROR_BAD_WRITE : code);
        return result->status;
    }
    if (icc != NULL) return hoard_webp_add_icc(&buffer, icc, icc_size, output, output_size, result);
    *output = buffer.bytes;
    *output_size = buffer.size;
    return HOARD_CODEC_OK;
}
