// libavif's encoder behind hoard_avif_encode: 8-bit RGB(A) converted to YUV 4:2:0 (BT.601, full
// range, libavif's defaults), encoded by libaom at one quantizer for colour and alpha, copied
// into a buffer of ours so that the caller frees it with hoard_codec_free.
#include "result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avif/avif.h>

/// libavif's result as the message, with the encoder's own detail when it left one.
static void hoard_avif_encode_fail(hoard_codec_result *result, const char *step, avifResult code,
                                   const avifEncoder *encoder) {
    int status = code == AVIF_RESULT_OUT_OF_MEMORY ? HOARD_CODEC_OUT_OF_MEMORY
                 : code == AVIF_RESULT_NO_CODEC_AVAILABLE ? HOARD_CODEC_UNSUPPORTED
                                                          : HOARD_CODEC_MALFORMED;
    char message[HOARD_CODEC_MESSAGE_CAPACITY];
    const char *detail = encoder != NULL && encoder->diag.error[0] != '\0' ? encoder->diag.error : "";
    snprintf(message, sizeof message, "%s failed: %s%s%s", step, avifResultToString(code), detail[0] ? ": " : "",
             detail);
    hoard_result_fail(result, status, message);
}

int hoard_avif_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels, int quality,
                      int speed, const uint8_t *icc, size_t icc_size, uint8_t **output, size_t *output_size,
                      hoard_codec_result *result) {
    if (result == NULL) return HOARD_CODEC_INVALID_ARGUMENT;
    hoard_result_reset(result);
    if (pixels == NULL || output == NULL || output_size == NULL || width == 0 || height == 0 || width > 65536 ||
        height > 65536 || (channels != 3 && channels != 4) || quality < 1 || quality > 100 || speed < 0 ||
        speed > 10 || (icc != NULL && (icc_size == 0 || icc_size > HOARD_ICC_MAX_BYTES))) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT,
                          "AVIF encoding needs pixels, a size up to 65536, 3 or 4 channels, a quality of 1-100, "
                          "a speed of 0-10 and a profile of at most 4 MiB");
        return result->status;
    }
    *output = NULL;
    *output_size = 0;
    avifImage *image = avifImageCreate(width, height, 8, AVIF_PIXEL_FORMAT_YUV420);
    if (image == NULL) {
        hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "avifImageCreate failed");
        return result->status;
    }
    if (icc != NULL) avifImageSetProfileICC(image, icc, icc_size);
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, image);
    rgb.format = channels == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
    rgb.depth = 8;
    rgb.pixels = (uint8_t *)pixels;  // read only: avifImageRGBToYUV does not write it
    rgb.rowBytes = width * channels;
    avifResult code = avifImageRGBToYUV(image, &rgb);
    if (code != AVIF_RESULT_OK) {
        hoard_avif_encode_fail(result, "avifImageRGBToYUV", code, NULL);
        avifImageDestroy(image);
        return result->status;
    }
    avifEncoder *encoder = avifEncoderCreate();
    if (encoder == NULL) {
        avifImageDestroy(image);
        hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "avifEncoderCreate failed");
        return result->status;
    }
    // libaom: libavif 1.x's quality scale (quality q is quantizer (100 - q) * 63 / 100, rounded),
    // for colour and alpha alike; one thread, the server and the tool run encodes side by side.
    int quantizer = ((100 - quality) * AVIF_QUANTIZER_WORST_QUALITY + 50) / 100;
    encoder->codecChoice = AVIF_CODEC_CHOICE_AOM;
    encoder->maxThreads = 1;
    encoder->speed = speed;
    encoder->minQuantizer = encoder->maxQuantizer = quantizer;
    encoder->minQuantizerAlpha = encoder->maxQuantizerAlpha = quantizer;
    avifRWData encoded = AVIF_DATA_EMPTY;
    code = avifEncoderWrite(encoder, image, &encoded);
    if (code != AVIF_RESULT_OK) {
        hoard_avif_encode_fail(result, "avifEncoderWrite", code, encoder);
    } else {
        uint8_t *copy = malloc(encoded.size);
        if (copy == NULL) {
            hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "no memory for the encoded AVIF");
        } else {
            memcpy(copy, encoded.data, encoded.size);
            *output = copy;
            *output_size = encoded.size;
        }
    }
    avifRWDataFree(&encoded);
    avifEncoderDestroy(encoder);
    avifImageDestroy(image);
    return result->status;
}
