// libjpeg's encoder behind hoard_jpeg_encode: baseline JPEG into a buffer libjpeg allocates, with
// an ICC profile in APP2 markers when given.
#include "jpeg_errors.h"

#include <stdlib.h>

// MARK: - Encoding

typedef struct {
    struct jpeg_compress_struct cinfo;
    hoard_jpeg_errors errors;
    unsigned char *buffer;
    unsigned long size;
} hoard_jpeg_encoder;

int hoard_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels,
                      int quality, const uint8_t *icc, size_t icc_size, uint8_t **output, size_t *output_size,
                      hoard_codec_result *result) {
    if (result == NULL) return HOARD_CODEC_INVALID_ARGUMENT;
    hoard_result_reset(result);
    if (pixels == NULL || output == NULL || output_size == NULL || width == 0 || height == 0 ||
        width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION || (channels != 1 && channels != 3) ||
        quality < 1 || quality > 100 || (icc != NULL && (icc_size == 0 || icc_size > HOARD_ICC_MAX_BYTES))) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT,
                          "JPEG encoding needs pixels, a size up to 65500, 1 or 3 channels, a quality of 1-100 and "
                          "a profile of at most 4 MiB");
        return result->status;
    }
    *output = NULL;
    *output_size = 0;
    // On the heap: libjpeg changes the buffer fields between setjmp and a possible longjmp.
    hoard_jpeg_encoder *encoder = calloc(1, sizeof *encoder);
    if (encoder == NULL) {
        hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "Out of memory creating the JPEG encoder");
        return result->status;
    }
    j_compress_ptr cinfo = &encoder->cinfo;
    cinfo->err = &encoder->errors.pub;
    hoard_jpeg_install_errors(&encoder->errors, result);
    if (setjmp(encoder->errors.jump)) {
        jpeg_destroy_compress(cinfo);
        free(encoder->buffer);
        free(encoder);
        return hoard_jpeg_failed(result);
    }
    jpeg_create_compress(cinfo);
    jpeg_mem_dest(cinfo, &encoder->buffer, &encoder->size);
    cinfo->image_width = width;
    cinfo->image_height = height;
    cinfo->input_components = (int)channels;
    cinfo->in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_EXT_RGB;
    jpeg_set_defaults(cinfo); // 4:2:0 for colour, Huffman tables from the standard, baseline
    jpeg_set_quality(cinfo, quality, TRUE);
    jpeg_start_compress(cinfo, TRUE);
    if (icc != NULL) jpeg_write_icc_profile(cinfo, icc, (unsigned int)icc_size);
    size_t stride = (size_t)width * channels;
    JSAMPROW rows[16];
    while (cinfo->next_scanline < cinfo->image_height) {
        JDIMENSION count = cinfo->image_height - cinfo->next_scanline;
        if (count > 16) count = 16;
        for (JDIMENSION i = 0; i < count; i++) {
            rows[i] = (JSAMPROW)(pixels + (size_t)(cinfo->next_scanline + i) * stride);
        }
        jpeg_write_scanlines(cinfo, rows, count);
    }
    jpeg_finish_compress(cinfo);
    jpeg_destroy_compress(cinfo);
    *output = encoder->buffer;
    *output_size = encoder->size;
    free(encoder);
    return HOARD_CODEC_OK;
}
