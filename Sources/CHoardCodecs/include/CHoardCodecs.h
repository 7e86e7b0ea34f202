// CHoardCodecs: the image codecs' C: libpng, libjpeg(-turbo), libwebp, giflib and libavif. (The
// checksums, the hash, the copy and the system shims are in CHoardSupport, which links none of them.)
//
// Every setjmp/longjmp, libjpeg error_exit and libpng error callback lives in the .c files of this
// target: a longjmp across Swift frames is undefined behaviour. Swift sees only the prefixed
// functions and plain structs below; no library type leaks out. Every function reports failure
// through a status code and the library's own message text: nothing here exits or prints (dav1d,
// the AV1 decoder libavif drives, logs some refusals to standard error itself; libavif 0.11 offers
// no way to silence it).

#ifndef CHOARD_CODECS_H
#define CHOARD_CODECS_H

#include <stddef.h>
#include <stdint.h>

#include "CHoardColour.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What went wrong, if anything.
typedef enum {
    HOARD_CODEC_OK = 0,
    /// A caller error: null pointer, zero size, bad channel count or quality, short buffer.
    HOARD_CODEC_INVALID_ARGUMENT = 1,
    /// The library rejected the data; `message` holds its text.
    HOARD_CODEC_MALFORMED = 2,
    /// The data ended before the image did.
    HOARD_CODEC_TRUNCATED = 3,
    /// The header declares more pixels than the caller allows (`hoard_image_info` holds the size).
    HOARD_CODEC_TOO_LARGE = 4,
    /// The library could not allocate memory, or hit the memory cap the caller set.
    HOARD_CODEC_OUT_OF_MEMORY = 5,
    /// Valid data this build cannot decode (12-bit or lossless JPEG, for example).
    HOARD_CODEC_UNSUPPORTED = 6,
} hoard_codec_status;

#define HOARD_CODEC_MESSAGE_CAPACITY 200
#define HOARD_CODEC_WARNINGS_CAPACITY 1024

/// The outcome of a call: a status, the library's error text, and the warnings it emitted.
typedef struct {
    int status;
    /// NUL-terminated; empty when `status` is `HOARD_CODEC_OK`.
    char message[HOARD_CODEC_MESSAGE_CAPACITY];
    /// NUL-terminated, one warning per line; cut at the capacity (`warning_count` still counts all).
    char warnings[HOARD_CODEC_WARNINGS_CAPACITY];
    int warning_count;
} hoard_codec_result;

/// Decoding settings shared by every format.
typedef struct {
    /// Refuse images whose decoded raster (after JPEG DCT scaling) would hold more than this many
    /// pixels, and JPEG headers declaring more than 64 times it; 0 means no limit.
    uint64_t max_pixels;
    /// JPEG only: DCT scaling denominator, 1, 2, 4 or 8 (0 is read as 1). Ignored when
    /// `target_size` is set.
    uint32_t scale_denominator;
    /// JPEG: pick the smallest DCT scale (1/8, 1/4, 1/2, 1/1) whose longest side is still at least
    /// this many pixels; 0 means use `scale_denominator`. Still WebP: the same rule over every
    /// power of two (libwebp scales while decoding). GIF whose first image is opaque and covers
    /// its canvas: the same rule, each pixel the mean of its block. 0 means full size.
    uint32_t target_size;
    /// JPEG only: accept data that ends early (libjpeg's "Premature end of JPEG file").
    int allow_truncated;
    /// Fail on any warning, not only on truncation.
    int warnings_are_errors;
    /// JPEG only: refuse progressive files with more scans than this; 0 means no limit.
    uint32_t max_scans;
    /// JPEG only: how much of a progressive file a scaled decode (1/2, 1/4 or 1/8) reads; one of
    /// the `HOARD_PROGRESSIVE_*` values. Full-size and baseline decodes read everything.
    uint32_t progressive_reading;
    /// JPEG only: give CMYK and YCCK files as their 4 CMYK channels (for a colour transform through
    /// their profile) instead of converting them to RGB by formula.
    int raw_cmyk;
} hoard_decode_options;

/// Read every scan of a progressive JPEG.
#define HOARD_PROGRESSIVE_EVERY_SCAN 0
/// Stop once every coefficient the scaled inverse DCT uses is final: the pixels are those of
/// reading every scan.
#define HOARD_PROGRESSIVE_EXACT 1
/// At 1/8 scale, stop once every coefficient the scaled inverse DCT uses lacks at most its lowest
/// bit (the last refinement scans, usually the largest, are skipped); at 1/4 and 1/2, as EXACT.
#define HOARD_PROGRESSIVE_NEAR 2

/// What a decoder learned from the header.
typedef struct {
    /// The size the header declares: for GIF the canvas (the logical screen, grown to hold the
    /// first image), for AVIF the image after its clean-aperture crop (the size before the crop
    /// when the limit refused it).
    uint32_t declared_width;
    uint32_t declared_height;
    /// The size of the pixels `*_decoder_read` writes (smaller than declared when DCT scaling or
    /// WebP scaling applies).
    uint32_t width;
    uint32_t height;
    /// Interleaved 8-bit channels per pixel: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA (or CMYK).
    uint32_t channels;
    /// A JPEG read with `raw_cmyk`: `HOARD_LAYOUT_CMYK` or `HOARD_LAYOUT_CMYK_INVERTED` when its 4
    /// channels are CMYK; else 0.
    uint32_t cmyk_layout;
} hoard_image_info;

/// Frees a buffer returned by an encoder.
void hoard_codec_free(void *buffer);

// MARK: - PNG

typedef struct hoard_png_decoder hoard_png_decoder;

/// Reads the PNG header of `data` and sets up 8-bit output in 1-4 channels (palette expanded,
/// tRNS turned into alpha, 16-bit reduced to its high byte, interlacing undone, gamma not applied).
/// `data` must stay valid until the decoder is destroyed. Returns NULL on failure.
hoard_png_decoder *hoard_png_decoder_create(const uint8_t *data, size_t size,
                                            const hoard_decode_options *options,
                                            hoard_image_info *info, hoard_codec_result *result);
/// Decodes all pixels into `pixels` (`width * height * channels` bytes, tightly packed).
/// The decoder cannot be read twice. Returns a `hoard_codec_status`.
int hoard_png_decoder_read(hoard_png_decoder *decoder, uint8_t *pixels, size_t capacity,
                           hoard_codec_result *result);
void hoard_png_decoder_destroy(hoard_png_decoder *decoder);

/// Encodes 8-bit pixels (1-4 channels, tightly packed) as PNG at zlib `compression_level` 0-9,
/// with `icc` (when not NULL) as its iCCP profile.
/// On success `*output` is a buffer to release with `hoard_codec_free`.
int hoard_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels,
                     int compression_level, const uint8_t *icc, size_t icc_size, uint8_t **output,
                     size_t *output_size, hoard_codec_result *result);

// MARK: - JPEG

typedef struct hoard_jpeg_decoder hoard_jpeg_decoder;

/// Reads the JPEG header of `data` and sets up 8-bit output: gray (1 channel) or RGB (3; CMYK and
/// YCCK are converted). `data` must stay valid until the decoder is destroyed. Returns NULL on failure.
hoard_jpeg_decoder *hoard_jpeg_decoder_create(const uint8_t *data, size_t size,
                                              const hoard_decode_options *options,
                                              hoard_image_info *info, hoard_codec_result *result);
/// The body of the first APP1 "Exif" segment (starting at the TIFF header), if there is one.
/// Returns 1 and sets `bytes`/`length` (valid while the decoder lives), else returns 0.
int hoard_jpeg_decoder_exif(const hoard_jpeg_decoder *decoder, const uint8_t **bytes, size_t *length);
/// Decodes all pixels into `pixels` (`width * height * channels` bytes, tightly packed).
/// The decoder cannot be read twice. Returns a `hoard_codec_status`.
int hoard_jpeg_decoder_read(hoard_jpeg_decoder *decoder, uint8_t *pixels, size_t capacity,
                            hoard_codec_result *result);
void hoard_jpeg_decoder_destroy(hoard_jpeg_decoder *decoder);
/// CMYK (inverted when Adobe wrote it) to RGB by formula, for files without a usable profile: each
/// colour channel times the key, both as ink-free.
void hoard_cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, size_t count, int inverted);

// MARK: - Resampling

/// `out[i] = Σ weights[k] * rows[k][i]` for `i` in `0..<length`, `k` in `0..<count`: the vertical
/// pass of the resampler. Uses AVX2 and FMA when the CPU has them (checked at run time), else
/// portable C; the two may differ in the last bit of a float.
void hoard_weighted_row_sum(float *out, const float *const *rows, const float *weights, size_t count,
                            size_t length);

/// Encodes 8-bit gray (1 channel) or RGB (3 channels) pixels as baseline JPEG, 4:2:0 chroma
/// subsampling for RGB, at `quality` 1-100, with `icc` (when not NULL) in APP2 markers. On success `*output` is a buffer to release with
/// `hoard_codec_free`.
int hoard_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels,
                      int quality, const uint8_t *icc, size_t icc_size, uint8_t **output, size_t *output_size,
                      hoard_codec_result *result);

// MARK: - WebP

typedef struct hoard_webp_decoder hoard_webp_decoder;

/// Reads the WebP header of `data` and sets up 8-bit RGB, or RGBA when the file has alpha.
/// A still image may be scaled while decoding (`target_size`); an animation gives its first frame
/// composited on a transparent canvas the size VP8X declares (no scaling). `data` must stay valid
/// until the decoder is destroyed. Returns NULL on failure.
hoard_webp_decoder *hoard_webp_decoder_create(const uint8_t *data, size_t size,
                                              const hoard_decode_options *options,
                                              hoard_image_info *info, hoard_codec_result *result);
/// The payload of the EXIF chunk (starting at the TIFF header; an `Exif\0\0` prefix is skipped),
/// if there is one. Returns 1 and sets `bytes`/`length` (valid while the decoder lives), else 0.
int hoard_webp_decoder_exif(const hoard_webp_decoder *decoder, const uint8_t **bytes, size_t *length);
/// The payload of the ICCP chunk, if there is one. Returns 1 and sets `bytes`/`length` (valid
/// while the decoder lives), else 0.
int hoard_webp_decoder_icc(const hoard_webp_decoder *decoder, const uint8_t **bytes, size_t *length);
/// Decodes all pixels into `pixels` (`width * height * channels` bytes, tightly packed).
/// The decoder cannot be read twice. Returns a `hoard_codec_status`.
int hoard_webp_decoder_read(hoard_webp_decoder *decoder, uint8_t *pixels, size_t capacity,
                            hoard_codec_result *result);
void hoard_webp_decoder_destroy(hoard_webp_decoder *decoder);

/// Encodes 8-bit RGB (3 channels) or RGBA (4, tightly packed) pixels as WebP, sides up to 16383.
/// Lossy (`lossless` 0): VP8 at `quality` 1-100, 4:2:0, alpha (if any) compressed losslessly.
/// Lossless (`lossless` 1): VP8L keeping every pixel, RGB under transparent pixels too; `quality`
/// must still be 1-100 but the effort is libwebp's default (75). With `icc` (when not NULL) the
/// file is extended (VP8X) with an ICCP chunk. On success `*output` is a buffer
/// to release with `hoard_codec_free`.
int hoard_webp_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels, int quality,
                      int lossless, const uint8_t *icc, size_t icc_size, uint8_t **output, size_t *output_size,
                      hoard_codec_result *result);

/// Encodes 8-bit RGB (3 channels) or RGBA (4, tightly packed) pixels as AVIF: YUV 4:2:0 (BT.601,
/// full range), AV1 by libaom at `quality` 1-100 (libavif 1.x's scale: quantizer
/// (100 - quality) * 63 / 100 for colour and alpha) and `speed` 0 (slowest) to 10, one thread.
/// With `icc` (when not NULL) the profile goes in a `colr` box. On success `*output` is a buffer
/// to release with `hoard_codec_free`.
int hoard_avif_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels, int quality,
                      int speed, const uint8_t *icc, size_t icc_size, uint8_t **output, size_t *output_size,
                      hoard_codec_result *result);

// MARK: - GIF

typedef struct hoard_gif_decoder hoard_gif_decoder;

/// Reads the GIF header and the records up to the first image descriptor, and sets up 8-bit RGB,
/// or RGBA when the first image has a transparent colour or leaves part of the canvas uncovered.
/// The canvas is the logical screen, grown to hold the first image if it reaches past it.
/// Nothing after the first image is ever read. `data` must stay valid until the decoder is
/// destroyed. Returns NULL on failure.
hoard_gif_decoder *hoard_gif_decoder_create(const uint8_t *data, size_t size,
                                            const hoard_decode_options *options,
                                            hoard_image_info *info, hoard_codec_result *result);
/// Decodes the first image (interlacing undone, its palette applied, its transparent colour and
/// the canvas it does not cover as transparent black) into `pixels` (`width * height * channels`
/// bytes, the size `info` gave: shrunk by a power of two when `target_size` asked for it and the
/// image is opaque and covers the canvas). The decoder cannot be read twice. Returns a
/// `hoard_codec_status`.
int hoard_gif_decoder_read(hoard_gif_decoder *decoder, uint8_t *pixels, size_t capacity,
                           hoard_codec_result *result);
void hoard_gif_decoder_destroy(hoard_gif_decoder *decoder);

// MARK: - AVIF

typedef struct hoard_avif_decoder hoard_avif_decoder;

/// Parses the AVIF container, checks the declared size against the limit, then decodes the AV1
/// data of the primary item (or the first frame of a sequence; grids assembled by libavif) with
/// the same limit on every frame the AV1 decoder sees. Output is 8 bits per channel (10 and 12
/// reduced): gray for 4:0:0, else RGB, each with alpha when the file has it; the clean aperture
/// (`clap`) is applied, the rotation and mirror are reported by `hoard_avif_decoder_transform`.
/// `data` must stay valid until the decoder is destroyed. Returns NULL on failure.
hoard_avif_decoder *hoard_avif_decoder_create(const uint8_t *data, size_t size,
                                              const hoard_decode_options *options,
                                              hoard_image_info *info, hoard_codec_result *result);
/// The display transform after the crop: `irot` as quarter turns anticlockwise (0-3), then `imir`
/// as the axis (-1 no mirror, 0 top and bottom exchanged, 1 left and right exchanged).
void hoard_avif_decoder_transform(const hoard_avif_decoder *decoder, int *quarter_turns, int *mirror_axis);
/// The `colr` boxes: an ICC profile (`bytes`/`length`, valid while the decoder lives; NULL when
/// none) and the nclx primaries and transfer in `info` (2, unspecified, when absent).
void hoard_avif_decoder_colour(const hoard_avif_decoder *decoder, hoard_colour_info *info, const uint8_t **bytes,
                               size_t *length);
/// Converts the decoded pixels into `pixels` (`width * height * channels` bytes, tightly packed).
/// The decoder cannot be read twice. Returns a `hoard_codec_status`.
int hoard_avif_decoder_read(hoard_avif_decoder *decoder, uint8_t *pixels, size_t capacity,
                            hoard_codec_result *result);
void hoard_avif_decoder_destroy(hoard_avif_decoder *decoder);

#ifdef __cplusplus
}
#endif

#endif
