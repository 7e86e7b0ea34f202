// Colour descriptions and conversions: what each format says about its colours (an ICC profile, a
// PNG's sRGB/gAMA/cHRM chunks, an AVIF's nclx code points), and Little CMS 2 behind hoard_colour_*
// to check profiles and convert pixels to sRGB. Little CMS reports errors through a callback, never
// a longjmp; every context here records the first message for the caller.

#ifndef CHOARD_COLOUR_H
#define CHOARD_COLOUR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The largest ICC profile read, checked before any parsing (real RGB profiles are a few KB, CMYK
/// ones with their tables up to about 2 MB).
#define HOARD_ICC_MAX_BYTES 4194304u

/// What a file says about its colours besides an ICC profile; every field is empty when it says
/// nothing.
typedef struct {
    /// The file declares sRGB (a PNG `sRGB` chunk).
    int srgb;
    /// A PNG's `gAMA`: the file gamma times 100000 (45455 for 1/2.2), 0 when absent.
    uint32_t gamma;
    /// A PNG's `cHRM`: white, red, green and blue as x, y pairs; `has_chromaticities` says if set.
    int has_chromaticities;
    double chromaticities[8];
    /// An AVIF's `nclx` code points (ISO/IEC 23091-2): 2 (unspecified) when absent.
    int cicp_primaries;
    int cicp_transfer;
} hoard_colour_info;

/// How a pixel buffer handed to a colour transform is laid out, 8 bits per channel.
typedef enum {
    HOARD_LAYOUT_GRAY = 1,
    HOARD_LAYOUT_GRAY_ALPHA = 2,
    HOARD_LAYOUT_RGB = 3,
    HOARD_LAYOUT_RGBA = 4,
    /// CMYK as libjpeg returns it, 0 meaning no ink.
    HOARD_LAYOUT_CMYK = 5,
    /// CMYK as Adobe writes it in JPEG, inverted: 255 meaning no ink.
    HOARD_LAYOUT_CMYK_INVERTED = 6,
} hoard_pixel_layout;

/// A profile's colour space, from its header.
#define HOARD_ICC_GRAY 1
#define HOARD_ICC_RGB 3
#define HOARD_ICC_CMYK 4

/// Checks `icc` as far as Little CMS can without converting: the size limit, the header (`acsp`
/// signature, declared size no larger than the data, a device class that converts to a display:
/// input, display, output or colour space), and that the profile opens. Returns HOARD_ICC_GRAY,
/// HOARD_ICC_RGB or HOARD_ICC_CMYK, and whether it describes sRGB itself (its colorants and
/// curves within rounding of sRGB's, so converting would change nothing); or 0 after filling
/// `message` (NUL-terminated, at most `capacity` bytes).
int hoard_icc_inspect(const uint8_t *icc, size_t size, int *is_srgb, char *message, size_t capacity);

/// The profile's description (its `desc` tag, in English where it has several), ASCII and
/// NUL-terminated in `description` (at most `capacity` bytes). Returns 1, or 0 (an empty string)
/// for a profile that does not open or has no description.
int hoard_icc_description(const uint8_t *icc, size_t size, char *description, size_t capacity);

typedef struct hoard_colour_transform hoard_colour_transform;

/// A conversion from `icc` to sRGB for pixels laid out as `layout`: gray stays gray (with sRGB's
/// curve), alpha is copied, CMYK becomes RGB. Relative colorimetric, 8 bits. The profile's colour
/// space must match the layout. Returns NULL after filling `message`. A transform may be applied
/// from several threads at once.
hoard_colour_transform *hoard_colour_transform_create(const uint8_t *icc, size_t size, int layout, char *message,
                                                      size_t capacity);
/// Converts `count` pixels from `input` (the transform's layout) into `output` (gray, gray+alpha,
/// RGB or RGBA: CMYK gives RGB). `input` and `output` may be the same buffer when the layouts have
/// the same size.
void hoard_colour_transform_apply(const hoard_colour_transform *transform, const uint8_t *input, uint8_t *output,
                                  size_t count);
/// Whether `transform` converts through the direct matrix-shaper path (colour_matrix.h) rather
/// than Little CMS's general one.
int hoard_colour_transform_is_direct(const hoard_colour_transform *transform);
/// `hoard_colour_transform_apply` through Little CMS alone, whatever path `transform` takes: what
/// the direct path is checked against.
void hoard_colour_transform_apply_lcms(const hoard_colour_transform *transform, const uint8_t *input,
                                       uint8_t *output, size_t count);
void hoard_colour_transform_destroy(hoard_colour_transform *transform);

/// The transfer curves `hoard_icc_make_rgb` can describe.
#define HOARD_CURVE_GAMMA 0
#define HOARD_CURVE_SRGB 1
#define HOARD_CURVE_BT709 2

/// Makes an RGB display profile from white point and primaries (x, y pairs: white, red, green,
/// blue) and a transfer curve: a pure gamma (`gamma` is the exponent that decodes, 2.2 for a PNG
/// gAMA of 45455), sRGB's or BT.709's. On success `*output` is a buffer to release with
/// `hoard_colour_free` and 1 is returned; else 0 and `message`.
int hoard_icc_make_rgb(const double chromaticities[8], int curve, double gamma, uint8_t **output, size_t *size,
                       char *message, size_t capacity);
void hoard_colour_free(void *buffer);

/// The ICC profile a JPEG carries in its APP2 `ICC_PROFILE` markers (before its first scan),
/// assembled in sequence order. Returns 1 and a buffer to release with `hoard_colour_free`; 0 when
/// there are no such markers; -1 when there are but they do not make one profile (a number
/// repeated, missing or out of range, counts that disagree, or more than HOARD_ICC_MAX_BYTES),
/// with `message` saying which.
int hoard_jpeg_icc_profile(const uint8_t *data, size_t size, uint8_t **output, size_t *output_size, char *message,
                           size_t capacity);

/// A PNG's colour chunks before its first IDAT, read from the bytes without libpng: `sRGB`, `gAMA`
/// and `cHRM` into `info`, and the `iCCP` profile inflated (at most HOARD_ICC_MAX_BYTES). Chunks
/// whose CRC does not match are skipped. Returns 1 with a profile in `*output` (release it with
/// `hoard_colour_free`), 0 without one, -1 when an `iCCP` chunk is there but unusable (`message`).
int hoard_png_colour(const uint8_t *data, size_t size, hoard_colour_info *info, uint8_t **output,
                     size_t *output_size, char *message, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif
