// libwebp behind hoard_webp_*: WebPGetFeatures for the header, WebPDecode for the pixels (scaled
// while decoding when asked), WebPDemux for an animation's first frame and for the EXIF chunk.
#include "result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>

struct hoard_webp_decoder {
    const uint8_t *data;
    size_t size;
    /// The container, parsed when the file is extended (VP8X): frames and metadata chunks.
    WebPDemuxer *demux;
    /// An animation's first frame; `animated` says whether it is set.
    WebPIterator frame;
    int animated;
    /// The EXIF chunk, when found.
    WebPChunkIterator exif;
    int has_exif;
    /// The ICCP chunk, when found.
    WebPChunkIterator icc;
    int has_icc;
    uint32_t width;
    uint32_t height;
    uint32_t channels;
    /// Still images: decode at `width` x `height` through libwebp's scaler.
    int scaled;
    int consumed;
};

/// libwebp reports a status code, no text: its name is the message (as dwebp prints it).
static void hoard_webp_fail(hoard_codec_result *result, const char *call, VP8StatusCode code) {
    static const char *const names[] = {"OK", "OUT_OF_MEMORY", "INVALID_PARAM", "BITSTREAM_ERROR",
                                        "UNSUPPORTED_FEATURE", "SUSPENDED", "USER_ABORT", "NOT_ENOUGH_DATA"};
    int status;
    switch (code) {
    case VP8_STATUS_OUT_OF_MEMORY: status = HOARD_CODEC_OUT_OF_MEMORY; break;
    case VP8_STATUS_UNSUPPORTED_FEATURE: status = HOARD_CODEC_UNSUPPORTED; break;
    case VP8_STATUS_NOT_ENOUGH_DATA: status = HOARD_CODEC_TRUNCATED; break;
    default: status = HOARD_CODEC_MALFORMED; break;
    }
    char message[HOARD_CODEC_MESSAGE_CAPACITY];
    const char *name = (unsigned)code < sizeof names / sizeof names[0] ? names[code] : "unknown status";
    snprintf(message, sizeof message, "%s failed: %s (status %d)", call, name, (int)code);
    hoard_result_fail(result, status, message);
}

static uint32_t hoard_le24(const uint8_t *bytes) {
    return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16;
}

/// An extended file's VP8X chunk, read without libwebp: its canvas (24-bit sides, up to 2^24 each)
/// and flags. libwebp refuses canvases of 2^32 pixels or more with a bitstream error; reading the
/// sides here lets the pixel limit name them. Returns 0 when the file does not start so.
static int hoard_webp_peek_vp8x(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height,
                                uint8_t *flags) {
    if (size < 30 || memcmp(data, "RIFF", 4) != 0 || memcmp(data + 8, "WEBPVP8X", 8) != 0) return 0;
    *flags = data[20];
    *width = hoard_le24(data + 24) + 1;
    *height = hoard_le24(data + 27) + 1;
    return 1;
}

void hoard_webp_decoder_destroy(hoard_webp_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->animated) WebPDemuxReleaseIterator(&decoder->frame);
    if (decoder->has_exif) WebPDemuxReleaseChunkIterator(&decoder->exif);
    if (decoder->has_icc) WebPDemuxReleaseChunkIterator(&decoder->icc);
    WebPDemuxDelete(decoder->demux);
    free(decoder);
}

/// Sets up the first frame of an animation: its rectangle must lie on the canvas and its data be
/// complete. Returns 0 after failing `result`.
static int hoard_webp_setup_animation(hoard_webp_decoder *decoder, const WebPBitstreamFeatures *features,
                                      hoard_codec_result *result) {
    if (decoder->demux == NULL || !WebPDemuxGetFrame(decoder->demux, 1, &decoder->frame)) {
        // WebPDemuxPartial refuses what it cannot parse and gives no frame for a file cut before one.
        hoard_result_fail(result, decoder->demux == NULL ? HOARD_CODEC_MALFORMED : HOARD_CODEC_TRUNCATED,
                          decoder->demux == NULL ? "WebPDemux failed: the animation's container is invalid"
                                                 : "WebP animation has no first frame");
        return 0;
    }
    decoder->animated = 1;
    const WebPIterator *frame = &decoder->frame;
    if (!frame->complete) {
        hoard_result_fail(result, HOARD_CODEC_TRUNCATED, "WebP animation ends inside its first frame");
        return 0;
    }
    uint64_t right = (uint64_t)frame->x_offset + (uint64_t)frame->width;
    uint64_t bottom = (uint64_t)frame->y_offset + (uint64_t)frame->height;
    if (frame->width <= 0 || frame->height <= 0 || frame->x_offset < 0 || frame->y_offset < 0 ||
        right > decoder->width || bottom > decoder->height) {
        hoard_result_fail(result, HOARD_CODEC_MALFORMED, "WebP animation's first frame lies outside its canvas");
        return 0;
    }
    int covers = frame->x_offset == 0 && frame->y_offset == 0 && right == decoder->width && bottom == decoder->height;
    decoder->channels = features->has_alpha || frame->has_alpha || !covers ? 4 : 3;
    return 1;
}

hoard_webp_decoder *hoard_webp_decoder_create(const uint8_t *data, size_t size,
                                              const hoard_decode_options *options,
                                              hoard_image_info *info, hoard_codec_result *result) {
    if (result == NULL) return NULL;
    hoard_result_reset(result);
    if (data == NULL || size == 0 || options == NULL || info == NULL) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "no WebP data or no options");
        return NULL;
    }
    memset(info, 0, sizeof *info);
    uint8_t flags = 0;
    int extended = hoard_webp_peek_vp8x(data, size, &info->declared_width, &info->declared_height, &flags);
    if (extended &&
        !hoard_check_pixel_limit("WebP", info->declared_width, info->declared_height, options->max_pixels, result)) {
        return NULL;
    }
    WebPBitstreamFeatures features;
    VP8StatusCode code = WebPGetFeatures(data, size, &features);
    if (code != VP8_STATUS_OK) {
        hoard_webp_fail(result, "WebPGetFeatures", code);
        return NULL;
    }
    info->declared_width = (uint32_t)features.width;
    info->declared_height = (uint32_t)features.height;
    if (features.width <= 0 || features.height <= 0) {
        hoard_result_fail(result, HOARD_CODEC_MALFORMED, "WebP declares an empty image");
        return NULL;
    }
    if (!hoard_check_pixel_limit("WebP", info->declared_width, info->declared_height, options->max_pixels, result)) {
        return NULL;
    }
    hoard_webp_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) {
        hoard_result_fail(result, HOARD_CODEC_OUT_OF_MEMORY, "Out of memory creating the WebP decoder");
        return NULL;
    }
    decoder->data = data;
    decoder->size = size;
    decoder->width = info->declared_width;
    decoder->height = info->declared_height;
    decoder->channels = features.has_alpha ? 4 : 3;
    if (extended) {
        // Headers only: the demuxer keeps pointers into `data` and one small record per frame.
        WebPData bytes = {data, size};
        WebPDemuxState state;
        decoder->demux = WebPDemuxPartial(&bytes, &state);
        if (decoder->demux != NULL && state == WEBP_DEMUX_PARSE_ERROR) {
            WebPDemuxDelete(decoder->demux);
            decoder->demux = NULL;
        }
    }
    if (features.has_animation && !hoard_webp_setup_animation(decoder, &features, result)) {
        hoard_webp_decoder_destroy(decoder);
        return NULL;
    }
    if (decoder->demux != NULL && WebPDemuxGetChunk(decoder->demux, "EXIF", 1, &decoder->exif)) {
        decoder->has_exif = 1;
    } else if (flags & 0x08) { // EXIF_FLAG
        hoard_result_add_warning(result, "WebP declares EXIF metadata but its EXIF chunk cannot be read");
        if (options->warnings_are_errors) {
            hoard_result_fail(result, HOARD_CODEC_MALFORMED, "WebP declares EXIF metadata but its EXIF chunk cannot be read");
            hoard_webp_decoder_destroy(decoder);
            return NULL;
        }
    }
    if (decoder->demux != NULL && WebPDemuxGetChunk(decoder->demux, "ICCP", 1, &decoder->icc)) decoder->has_icc = 1;
    if (!decoder->animated && options->target_size > 0) {
        uint32_t denominator = hoard_scale_denominator(decoder->width, decoder->height, options->target_size);
        if (denominator > 1) {
            decoder->scaled = 1;
            decoder->width = (decoder->width + denominator - 1) / denominator;
            decoder->height = (decoder->height + denominator - 1) / denominator;
        }
    }
    info->width = decoder->width;
    info->height = decoder->height;
    info->channels = decoder->channels;
    return decoder;
}

int hoard_webp_decoder_icc(const hoard_webp_decoder *decoder, const uint8_t **bytes, size_t *length) {
    if (decoder == NULL || bytes == NULL || length == NULL || !decoder->has_icc) return 0;
    *bytes = decoder->icc.chunk.bytes;
    *length = decoder->icc.chunk.size;
    return 1;
}

int hoard_webp_decoder_exif(const hoard_webp_decoder *decoder, const uint8_t **bytes, size_t *length) {
    if (decoder == NULL || bytes == NULL || length == NULL || !decoder->has_exif) return 0;
    const uint8_t *payload = decoder->exif.chunk.bytes;
    size_t size = decoder->exif.chunk.size;
    // The specification says the chunk holds the TIFF structure; some writers keep JPEG's prefix.
    if (size >= 6 && memcmp(payload, "Exif\0\0", 6) == 0) {
        payload += 6;
        size -= 6;
    }
    *bytes = payload;
    *length = size;
    return 1;
}

int hoard_webp_decoder_read(hoard_webp_decoder *decoder, uint8_t *pixels, size_t capacity,
                            hoard_codec_result *result) {
    if (result == NULL) return HOARD_CODEC_INVALID_ARGUMENT;
    if (decoder == NULL || pixels == NULL || decoder->consumed) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "no WebP decoder, no buffer, or already read");
        return result->status;
    }
    decoder->consumed = 1;
    size_t stride = (size_t)decoder->width * decoder->channels;
    if (capacity / stride < decoder->height) {
        hoard_result_fail(result, HOARD_CODEC_INVALID_ARGUMENT, "WebP pixel buffer is too small");
        return result->status;
    }
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        hoard_result_fail(result, HOARD_CODEC_UNSUPPORTED, "libwebp's decoder ABI does not match its header");
        return result->status;
    }
    config.output.colorspace = decoder->channels == 4 ? MODE_RGBA : MODE_RGB;
    config.output.is_external_memory = 1;
    // Lossy files: libwebp runs the loop filter on a thread of its own beside the macroblock
    // decoding (same pixels), as libvips asks it to.
    config.options.use_threads = 1;
    config.output.u.RGBA.stride = (int)stride;
    const uint8_t *input = decoder->data;
    size_t input_size = decoder->size;
    if (decoder->animated) {
        // The first frame on a transparent canvas, as WebPAnimDecoder composes a key frame:
        // decoded in place, with the canvas's stride.
        const WebPIterator *frame = &decoder->frame;
        memset(pixels, 0, stride * decoder->height);
        size_t offset = (size_t)frame->y_offset * stride + (size_t)frame->x_offset * decoder->channels;
        config.output.u.RGBA.rgba = pixels + offset;
        config.output.u.RGBA.size = stride * (size_t)(frame->height - 1) + (size_t)frame->width * decoder->channels;
        input = frame->fragment.bytes;
        input_size = frame->fragment.size;
    } else {
        config.output.u.RGBA.rgba = pixels;
        config.output.u.RGBA.size = stride * decoder->height;
        if (decoder->scaled) {
            config.options.use_scaling = 1;
            config.options.scaled_width = (int)decoder->width;
            config.options.scaled_height = (int)decoder->height;
        }
    }
    VP8StatusCode code = WebPDecode(input, input_size, &config);
    WebPFreeDecBuffer(&config.output);
    if (code != VP8_STATUS_OK) {
        hoard_webp_fail(result, "WebPDecode", code);
        return result->status;
    }
    return HOARD_CODEC_OK;
}
