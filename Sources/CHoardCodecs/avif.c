// libavif behind hoard_avif_*: avifDecoderParse for the container, avifDecoderNextImage for the
// AV1 data (dav1d, libaom or libgav1, whichever libavif picks), avifImageYUVToRGB for 8-bit pixels.
#include "result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avif/avif.h>

struct hoard_avif_decoder {
    avifDecoder *decoder;
    /// The clean aperture within the decoded image; the whole image when there is none.
    uint32_t crop_x;
    uint32_t crop_y;
    uint32_t width;
    uint32_t height;
    uint32_t channels;
    int has_alpha;
    int quarter_turns;
    int mirror_axis;
    int consumed;
};

static int hoard_avif_status_for(avifResult code) {
    switch (code) {
    case AVIF_RESULT_OUT_OF_MEMORY: return HOARD_CODEC_OUT_OF_MEMORY;
    case AVIF_RESULT_TRUNCATED_DATA: return HOARD_CODEC_TRUNCATED;
    case AVIF_RESULT_NOT_IMPLEMENTED:
    case AVIF_RESULT_NO_CODEC_AVAILABLE: return HOARD_CODEC_UNSUPPORTED;
    default: return HOARD_CODEC_MALFORMED;
    }
}

/// Fails `result` with `status` (or the one `code` means, when it is HOARD_CODEC_OK), libavif's
/// result text and, when it wrote one, its diagnostic.
static void hoard_avif_fail(hoard_codec_result *result, int status, const char *call, avifResult code,
                            const avifDecoder *decoder) {
    char message[HOARD_CODEC_MESSAGE_CAPACITY];
    const char *detail = decoder != NULL ? decoder->diag.error : "";
    snprintf(message, sizeof message, "%s: %s%s%s", call, avifResultToString(code), detail[0] ? ": " : "", detail);
    hoard_result_fail(result, status == HOARD_CODEC_OK ? hoard_avif_status_for(code) : status, message);
}

/// libavif refuses, with a parse error, images over its own ceiling (AVIF_DEFAULT_IMAGE_SIZE_LIMIT,
/// 16384 x 16384, which a caller cannot raise) and names the declared size in its diagnostic
/// ("Item ID [1] dimensions are too large [30000x30000]"). Returns 1 and the size when it did so.
static int hoard_avif_refused_size(const avifDecoder *decoder, uint32_t *width, uint32_t *height) {
    const char *found = strstr(decoder->diag.error, "dimensions are too large [");
    unsigned w = 0, h = 0;
    if (found == NULL || sscanf(found, "dimensions are too large [%10ux%10u]", &w, &h) != 2) return 0;
    *width = w;
    *height = h;
    return 1;
}

/// The crop rectangle a clean-aperture box describes on a `width` x `height` image (ISO/IEC
/// 14496-12, 12.1.4.1): a window of widthN/widthD x heightN/heightD pixels whose centre is
/// horizOff, vertOff from the image's. Unlike libavif 0.11 this allows odd offsets on subsampled
/// chroma: the crop is made on RGB pixels. Returns 0 when the window is not whole pixels inside
/// the image (or its arithmetic would overflow).
static int hoard_avif_crop_rect(const avifCleanApertureBox *clap, uint32_t width, uint32_t height, uint32_t *x,
                                uint32_t *y, uint32_t *crop_width, uint32_t *crop_height) {
    if (clap->widthD == 0 || clap->heightD == 0 || clap->horizOffD == 0 || clap->vertOffD == 0) return 0;
    if (clap->widthN % clap->widthD != 0 || clap->heightN % clap->heightD != 0) return 0;
    uint32_t window_width = clap->widthN / clap->widthD, window_height = clap->heightN / clap->heightD;
    if (window_width == 0 || window_height == 0 || window_width > width || window_height > height) return 0;
    // left = horizOff + (width - window) / 2, as one fraction over 2 * horizOffD.
    const int64_t offsets[2] = {(int32_t)clap->horizOffN, (int32_t)clap->vertOffN};
    const int64_t denominators[2] = {clap->horizOffD, clap->vertOffD};
    const int64_t margins[2] = {(int64_t)width - window_width, (int64_t)height - window_height};
    const int64_t windows[2] = {window_width, window_height}, sides[2] = {width, height};
    uint32_t origin[2];
    for (int axis = 0; axis < 2; axis++) {
        int64_t numerator = 0, product = 0;
        if (__builtin_mul_overflow(margins[axis], denominators[axis], &product) ||
            __builtin_add_overflow(product, 2 * offsets[axis], &numerator)) {
            return 0;
        }
        int64_t denominator = 2 * denominators[axis];
        if (numerator < 0 || numerator % denominator != 0) return 0;
        int64_t start = numerator / denominator;
        if (start + windows[axis] > sides[axis]) return 0;
        origin[axis] = (uint32_t)start;
    }
    *x = origin[0];
    *y = origin[1];
    *crop_width = window_width;
    *crop_height = window_height;
    return 1;
}

// MARK: - Grid tiles

static uint32_t hoard_be32(const uint8_t *bytes) {
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
}

/// The box at `offset` within [offset, end): its header length, total length and type. Returns 0
/// when the header does not fit or the length does not.
static int hoard_avif_box(const uint8_t *data, size_t offset, size_t end, size_t *header, size_t *length,
                          const uint8_t **type) {
    if (end - offset < 8) return 0;
    uint64_t size = hoard_be32(data + offset);
    *header = 8;
    if (size == 1) {
        if (end - offset < 16) return 0;
        size = (uint64_t)hoard_be32(data + offset + 8) << 32 | hoard_be32(data + offset + 12);
        *header = 16;
    } else if (size == 0) {
        size = end - offset;
    }
    if (size < *header || size > end - offset) return 0;
    *length = (size_t)size;
    *type = data + offset + 4;
    return 1;
}

/// How many tile references (`dimg`) the file's top-level `meta` box holds, read without libavif:
/// libavif 0.11 gives every grid tile an AV1 decoder of its own (about 0.4 MB each with dav1d), so
/// a small file naming thousands of 64 x 64 tiles would cost gigabytes under any pixel limit.
/// Stops at the first box that does not fit (libavif refuses such files anyway).
static uint64_t hoard_avif_count_tiles(const uint8_t *data, size_t size) {
    uint64_t tiles = 0;
    size_t header = 0, length = 0;
    const uint8_t *type = NULL;
    for (size_t offset = 0; hoard_avif_box(data, offset, size, &header, &length, &type); offset += length) {
        if (memcmp(type, "meta", 4) != 0 || length < header + 4) continue;
        size_t meta_end = offset + length;
        for (size_t child = offset + header + 4;
             hoard_avif_box(data, child, meta_end, &header, &length, &type); child += length) {
            if (memcmp(type, "iref", 4) != 0 || length < header + 4) continue;
            size_t id_size = data[child + header] == 0 ? 2 : 4; // iref version 0 or 1
            size_t iref_end = child + length;
            size_t reference = child + header + 4;
            size_t reference_header = 0, reference_length = 0;
            const uint8_t *reference_type = NULL;
            for (; hoard_avif_box(data, reference, iref_end, &reference_header, &reference_length, &reference_type);
                 reference += reference_length) {
                size_t count_at = reference + reference_header + id_size;
                if (memcmp(reference_type, "dimg", 4) == 0 && count_at + 2 <= reference + reference_length) {
                    tiles += (uint64_t)data[count_at] << 8 | data[count_at + 1];
                }
            }
        }
    }
    return tiles;
}

/// The most grid tiles a decode may have: one per 65,536 pixels the limit allows (a 256 x 256
/// tile each), at least 64. At the 64 MP default that is 976 tiles, about 400 MB of decoders.
static uint64_t hoard_avif_max_tiles(uint64_t max_pixels) {
    uint64_t tiles = max_pixels == 0 ? UINT64_MAX : max_pixels / 65536;
    return tiles < 64 ? 64 : tiles;
}

void hoard_avif_decoder_colour(const hoard_avif_decoder *decoder, hoard_colour_info *info, const uint8_t **bytes,
                               size_t *length) {
    if (info != NULL) {
        memset(info, 0, sizeof *info);
        info->cicp_primaries = 2;
        info->cicp_transfer = 2;
    }
    if (bytes != NULL) *bytes = NULL;
    if (length != NULL) *length = 0;
    if (decoder == NULL || decoder->decoder == NULL || decoder->decoder->image == NULL) return;
    const avifImage *image = decoder->decoder->image;
    if (info != NULL) {
        info->cicp_primaries = (int)image->colorPrimaries;
        info->cicp_transfer = (int)image->transferCharacteristics;
    }
    if (bytes != NULL && length != NULL && image->icc.size > 0) {
        *bytes = image->icc.data;
        *length = image->icc.size;
    }
}

void hoard_avif_decoder_destroy(hoard_avif_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->decoder != NULL) avifDecoderDestroy(decoder->decoder);
    free(decoder);
}

/// Reads the crop, rotation and mirror of the decoded image. An invalid clean aperture is a
/// warning (and ignored), or an error when warnings are. Returns 0 after failing `result`.
static int hoard_avif_read_transforms(hoard_avif_decoder *decoder, const hoard_decode_options *options,
                                      hoard_codec_result *result) {
    const avifImage *image = decoder->decoder->image;
    decoder->width = image->width;
    decoder->height = image->height;
    if ((image->transformFlags & AVIF_TRANSFORM_CLAP) &&
        !hoard_avif_crop_rect(&image->clap, image->width, image->height, &decoder->crop_x, &decoder->crop_y,
                              &decoder->width, &decoder->height)) {
        char message[HOARD_CODEC_MESSAGE_CAPACITY];
        snprintf(message, sizeof message, "AVIF clean aperture (clap) is not a window inside the %u x %u image; ignored",
                 image->width, image->height);
        hoard_result_add_warning(result, message);
        if (options->warnings_are_errors) {
            hoard_result_fail(result, HOARD_CODEC_MALFORMED, message);
            return 0;
        }
        decoder->crop_x = decoder->crop_y = 0;
        decoder->width = image->width;
        decoder->height = image->height;
    }
    decoder->quarter_turns = (image->transformFlags & AVIF_TRANSFORM_IROT) ? image->irot.angle & 3 : 0;
#if AVIF_VERSION_MAJOR >= 1
    decoder->mirror_axis = (image->transformFlags & AVIF_TRANSFORM_IMIR) ? image->imir.axis & 1 : -1;
#else
    // libavif 0.11 calls the axis `mode`, with the meaning `axis` has again in 1.0.
    decoder->mirror_axis = (image->transformFlags & AVIF_TRANSFORM_IMIR) ? image->imir.mode & 1 : -1;
#endif
    return 1;
}

hoard_avif_decoder *hoard_avif_decoder_create(const uint8_t *data, size_t size,
                                              const hoard_decode_options *options,
                                              hoard_image_info *info, hoard_codec_result *result) {
    if (result == NULL) return NULL;
    hoard_result_reset(result);
    if (data == NULL || size == 0 || options == NULL || info == NULL) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "no AVIF data or no options");
        return NULL;
    }
    memset(info, 0, sizeof *info);
    hoard_avif_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder != NULL) decoder->decoder = avifDecoderCreate();
    if (decoder == NULL || decoder->decoder == NULL) {
        hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "Out of memory creating the AVIF decoder");
        hoard_avif_decoder_destroy(decoder);
        return NULL;
    }
    avifDecoder *avif = decoder->decoder;
    avif->maxThreads = 1;
    // Files from encoders that left out pixi, an alpha item's ispe, or wrote a clap libavif 0.11
    // cannot express decode, as in libheif and browsers; an invalid clap is checked below.
    avif->strictFlags = AVIF_STRICT_DISABLED;
    avif->ignoreExif = AVIF_TRUE; // irot and imir, not Exif, orient an AVIF (MIAF 7.3.6.7)
    avif->ignoreXMP = AVIF_TRUE;
    // The container is parsed under libavif's own ceiling (it refuses a larger one); ours is
    // checked on the declared size right after, before any AV1 frame is decoded.
    avif->imageSizeLimit = AVIF_DEFAULT_IMAGE_SIZE_LIMIT;
    avifResult code = avifDecoderSetIOMemory(avif, data, size);
    if (code == AVIF_RESULT_OK) code = avifDecoderParse(avif);
    if (code != AVIF_RESULT_OK) {
        // Over our limit too: say so. Within it (a caller allowing more than libavif does): valid
        // data this build cannot decode.
        int refused = hoard_avif_refused_size(avif, &info->declared_width, &info->declared_height);
        if (!refused || hoard_check_pixel_limit("AVIF", info->declared_width, info->declared_height,
                                                options->max_pixels, result)) {
            hoard_avif_fail(result, refused ? HOARD_CODEC_UNSUPPORTED : HOARD_CODEC_OK, "avifDecoderParse", code, avif);
        }
        hoard_avif_decoder_destroy(decoder);
        return NULL;
    }
    info->declared_width = avif->image->width;
    info->declared_height = avif->image->height;
    if (!hoard_check_pixel_limit("AVIF", avif->image->width, avif->image->height, options->max_pixels, result)) {
        hoard_avif_decoder_destroy(decoder);
        return NULL;
    }
    uint64_t tiles = hoard_avif_count_tiles(data, size), max_tiles = hoard_avif_max_tiles(options->max_pixels);
    if (tiles > max_tiles) {
        char message[HOARD_CODEC_MESSAGE_CAPACITY];
        snprintf(message, sizeof message,
                 "AVIF grids name %llu tiles, more than the %llu this pixel limit allows (each is an AV1 decoder)",
                 (unsigned long long)tiles, (unsigned long long)max_tiles);
        hoard_result_fail(result, HOARD_CODEC_UNSUPPORTED, message);
        hoard_avif_decoder_destroy(decoder);
        return NULL;
    }
    // Every AV1 frame the codec is given is held to the same limit (dav1d's frame_size_limit), so a
    // bitstream larger than its container says is refused before its frame is allocated.
    uint64_t ceiling = options->max_pixels == 0 || options->max_pixels > AVIF_DEFAULT_IMAGE_SIZE_LIMIT
                           ? AVIF_DEFAULT_IMAGE_SIZE_LIMIT
                           : options->max_pixels;
    avif->imageSizeLimit = (uint32_t)ceiling;
    code = avifDecoderNextImage(avif);
    if (code != AVIF_RESULT_OK) {
        hoard_avif_fail(result, HOARD_CODEC_OK, "avifDecoderNextImage", code, avif);
        hoard_avif_decoder_destroy(decoder);
        return NULL;
    }
    const avifImage *image = avif->image;
    if (image->width == 0 || image->height == 0 || image->yuvPlanes[AVIF_CHAN_Y] == NULL ||
        !hoard_check_pixel_limit("AVIF", image->width, image->height, options->max_pixels, result)) {
        hoard_result_fail(result, HOARD_CODEC_MALFORMED, "AVIF decoded to an empty image");
        hoard_avif_decoder_destroy(decoder);
        return NULL;
    }
    if (!hoard_avif_read_transforms(decoder, options, result)) {
        hoard_avif_decoder_destroy(decoder);
        return NULL;
    }
    decoder->has_alpha = image->alphaPlane != NULL;
    int gray = image->yuvFormat == AVIF_PIXEL_FORMAT_YUV400;
    decoder->channels = (gray ? 1 : 3) + (decoder->has_alpha ? 1 : 0);
    info->declared_width = decoder->width;
    info->declared_height = decoder->height;
    info->width = decoder->width;
    info->height = decoder->height;
    info->channels = decoder->channels;
    return decoder;
}

void hoard_avif_decoder_transform(const hoard_avif_decoder *decoder, int *quarter_turns, int *mirror_axis) {
    if (quarter_turns != NULL) *quarter_turns = decoder != NULL ? decoder->quarter_turns : 0;
    if (mirror_axis != NULL) *mirror_axis = decoder != NULL ? decoder->mirror_axis : -1;
}

int hoard_avif_decoder_read(hoard_avif_decoder *decoder, uint8_t *pixels, size_t capacity,
                            hoard_codec_result *result) {
    if (result == NULL) return HOARD_CODEC_INVALID_ARGUMENT;
    if (decoder == NULL || pixels == NULL || decoder->consumed) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "no AVIF decoder, no buffer, or already read");
        return result->status;
    }
    decoder->consumed = 1;
    size_t stride = (size_t)decoder->width * decoder->channels;
    if (capacity / stride < decoder->height) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "AVIF pixel buffer is too small");
        return result->status;
    }
    avifImage *image = decoder->decoder->image;
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, image);
    rgb.depth = 8;
    rgb.format = decoder->has_alpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
    uint32_t rgb_channels = decoder->has_alpha ? 4 : 3;
    int direct = decoder->channels == rgb_channels && decoder->width == image->width && decoder->height == image->height;
    uint8_t *converted = NULL;
    if (direct) {
        rgb.pixels = pixels;
        rgb.rowBytes = (uint32_t)stride;
    } else {
        // Cropped or gray: the whole image as RGB(A) first (its size passed the limit), then the
        // window, one channel for gray.
        rgb.rowBytes = image->width * rgb_channels;
        converted = malloc((size_t)rgb.rowBytes * image->height);
        if (converted == NULL) {
            hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "Out of memory for AVIF RGB pixels");
            return result->status;
        }
        rgb.pixels = converted;
    }
    avifResult code = avifImageYUVToRGB(image, &rgb);
    if (code != AVIF_RESULT_OK) {
        free(converted);
        hoard_avif_fail(result, HOARD_CODEC_OK, "avifImageYUVToRGB", code, NULL);
        return result->status;
    }
    if (converted != NULL) {
        for (uint32_t y = 0; y < decoder->height; y++) {
            const uint8_t *from = converted + (size_t)(decoder->crop_y + y) * rgb.rowBytes +
                                  (size_t)decoder->crop_x * rgb_channels;
            uint8_t *to = pixels + (size_t)y * stride;
            if (decoder->channels == rgb_channels) {
                memcpy(to, from, stride);
                continue;
            }
            // Gray: the red channel (libavif writes the same value to all three), then alpha.
            for (uint32_t x = 0; x < decoder->width; x++) {
                to[x * decoder->channels] = from[x * rgb_channels];
                if (decoder->has_alpha) to[x * decoder->channels + 1] = from[x * rgb_channels + 3];
            }
        }
        free(converted);
    }
    return HOARD_CODEC_OK;
}
