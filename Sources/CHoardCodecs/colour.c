// Little CMS 2 behind hoard_icc_* and hoard_colour_transform_*: checking a profile, converting
// pixels to sRGB, and making a profile from primaries and a curve. Each call works in a context of
// its own, whose error handler keeps the first message (Little CMS never longjmps).
#include "CHoardColour.h"
#include "colour_matrix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lcms2.h>

/// A context's user data: the first error Little CMS reported in it.
typedef struct {
    char message[200];
} hoard_lcms_log;

struct hoard_colour_transform {
    cmsContext context;
    cmsHTRANSFORM transform;
    hoard_lcms_log log;
    /// 3 or 4 with the direct matrix-shaper path (`matrix` set), else 0: Little CMS converts.
    int matrix_channels;
    hoard_matrix_shaper matrix;
};

static void hoard_lcms_error(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)code;
    hoard_lcms_log *log = cmsGetContextUserData(context);
    if (log != NULL && log->message[0] == '\0') snprintf(log->message, sizeof log->message, "%s", text);
}

static cmsContext hoard_lcms_context(hoard_lcms_log *log) {
    log->message[0] = '\0';
    cmsContext context = cmsCreateContext(NULL, log);
    if (context != NULL) cmsSetLogErrorHandlerTHR(context, hoard_lcms_error);
    return context;
}

static void hoard_colour_message(char *message, size_t capacity, const char *prefix, const hoard_lcms_log *log) {
    if (message == NULL || capacity == 0) return;
    if (log != NULL && log->message[0] != '\0') {
        snprintf(message, capacity, "%s: %s", prefix, log->message);
    } else {
        snprintf(message, capacity, "%s", prefix);
    }
}

static uint32_t hoard_icc_be32(const uint8_t *bytes) {
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
}

/// The header checks made before Little CMS sees the bytes. Returns the colour space or 0.
static int hoard_icc_check_header(const uint8_t *icc, size_t size, char *message, size_t capacity) {
    if (icc == NULL || size < 132) {
        hoard_colour_message(message, capacity, "ICC profile is shorter than its header", NULL);
        return 0;
    }
    if (size > HOARD_ICC_MAX_BYTES) {
        hoard_colour_message(message, capacity, "ICC profile is larger than the 4 MiB limit", NULL);
        return 0;
    }
    uint32_t declared = hoard_icc_be32(icc);
    if (memcmp(icc + 36, "acsp", 4) != 0 || declared < 132 || declared > size) {
        hoard_colour_message(message, capacity, "ICC profile header is invalid (signature or declared size)", NULL);
        return 0;
    }
    uint32_t tags = hoard_icc_be32(icc + 128);
    if (tags > (declared - 132) / 12) {
        hoard_colour_message(message, capacity, "ICC profile declares more tags than it holds", NULL);
        return 0;
    }
    const uint8_t *class = icc + 12;
    if (memcmp(class, "scnr", 4) != 0 && memcmp(class, "mntr", 4) != 0 && memcmp(class, "prtr", 4) != 0 &&
        memcmp(class, "spac", 4) != 0) {
        hoard_colour_message(message, capacity, "ICC profile is not an input, display, output or colour space profile",
                             NULL);
        return 0;
    }
    const uint8_t *space = icc + 16;
    if (memcmp(space, "GRAY", 4) == 0) return HOARD_ICC_GRAY;
    if (memcmp(space, "RGB ", 4) == 0) return HOARD_ICC_RGB;
    if (memcmp(space, "CMYK", 4) == 0) return HOARD_ICC_CMYK;
    hoard_colour_message(message, capacity, "ICC profile's colour space is not gray, RGB or CMYK", NULL);
    return 0;
}

/// sRGB's transfer curve, as a parametric curve of type 4.
static cmsToneCurve *hoard_srgb_curve(cmsContext context) {
    const cmsFloat64Number parameters[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
    return cmsBuildParametricToneCurve(context, 4, parameters);
}

/// Whether `profile` is an RGB matrix-shaper whose colorants and curves are sRGB's within rounding.
static int hoard_icc_matches_srgb(cmsContext context, cmsHPROFILE profile) {
    if (cmsGetColorSpace(profile) != cmsSigRgbData || !cmsIsMatrixShaper(profile)) return 0;
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(context);
    if (srgb == NULL) return 0;
    int matches = 1;
    const cmsTagSignature colorants[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int channel = 0; channel < 3 && matches; channel++) {
        const cmsCIEXYZ *ours = cmsReadTag(profile, colorants[channel]);
        const cmsCIEXYZ *reference = cmsReadTag(srgb, colorants[channel]);
        const cmsToneCurve *curve = cmsReadTag(profile, curves[channel]);
        const cmsToneCurve *reference_curve = cmsReadTag(srgb, curves[channel]);
        if (ours == NULL || reference == NULL || curve == NULL || reference_curve == NULL) {
            matches = 0;
            break;
        }
        if (fabs(ours->X - reference->X) > 0.002 || fabs(ours->Y - reference->Y) > 0.002 ||
            fabs(ours->Z - reference->Z) > 0.002) {
            matches = 0;
        }
        for (int step = 0; step <= 32 && matches; step++) {
            cmsFloat32Number x = (cmsFloat32Number)step / 32;
            if (fabsf(cmsEvalToneCurveFloat(curve, x) - cmsEvalToneCurveFloat(reference_curve, x)) > 0.5f / 255) {
                matches = 0;
            }
        }
    }
    cmsCloseProfile(srgb);
    return matches;
}

int hoard_icc_inspect(const uint8_t *icc, size_t size, int *is_srgb, char *message, size_t capacity) {
    if (is_srgb != NULL) *is_srgb = 0;
    int space = hoard_icc_check_header(icc, size, message, capacity);
    if (space == 0) return 0;
    hoard_lcms_log log;
    cmsContext context = hoard_lcms_context(&log);
    if (context == NULL) {
        hoard_colour_message(message, capacity, "Out of memory opening an ICC profile", NULL);
        return 0;
    }
    cmsHPROFILE profile = cmsOpenProfileFromMemTHR(context, icc, (cmsUInt32Number)size);
    if (profile == NULL) {
        hoard_colour_message(message, capacity, "ICC profile does not open", &log);
        cmsDeleteContext(context);
        return 0;
    }
    if (is_srgb != NULL) *is_srgb = hoard_icc_matches_srgb(context, profile);
    cmsCloseProfile(profile);
    cmsDeleteContext(context);
    return space;
}

int hoard_icc_description(const uint8_t *icc, size_t size, char *description, size_t capacity) {
    if (description == NULL || capacity == 0) return 0;
    description[0] = '\0';
    if (hoard_icc_check_header(icc, size, NULL, 0) == 0) return 0;
    hoard_lcms_log log;
    cmsContext context = hoard_lcms_context(&log);
    if (context == NULL) return 0;
    cmsHPROFILE profile = cmsOpenProfileFromMemTHR(context, icc, (cmsUInt32Number)size);
    cmsUInt32Number written = 0;
    if (profile != NULL) {
        written = cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", description,
                                         (cmsUInt32Number)capacity);
        cmsCloseProfile(profile);
    }
    cmsDeleteContext(context);
    description[capacity - 1] = '\0';
    return written > 1;
}

hoard_colour_transform *hoard_colour_transform_create(const uint8_t *icc, size_t size, int layout, char *message,
                                                      size_t capacity) {
    int space = hoard_icc_check_header(icc, size, message, capacity);
    if (space == 0) return NULL;
    cmsUInt32Number input, output;
    int expected;
    switch (layout) {
    case HOARD_LAYOUT_GRAY: input = TYPE_GRAY_8, output = TYPE_GRAY_8, expected = HOARD_ICC_GRAY; break;
    case HOARD_LAYOUT_GRAY_ALPHA: input = TYPE_GRAYA_8, output = TYPE_GRAYA_8, expected = HOARD_ICC_GRAY; break;
    case HOARD_LAYOUT_RGB: input = TYPE_RGB_8, output = TYPE_RGB_8, expected = HOARD_ICC_RGB; break;
    case HOARD_LAYOUT_RGBA: input = TYPE_RGBA_8, output = TYPE_RGBA_8, expected = HOARD_ICC_RGB; break;
    case HOARD_LAYOUT_CMYK: input = TYPE_CMYK_8, output = TYPE_RGB_8, expected = HOARD_ICC_CMYK; break;
    case HOARD_LAYOUT_CMYK_INVERTED: input = TYPE_CMYK_8_REV, output = TYPE_RGB_8, expected = HOARD_ICC_CMYK; break;
    default:
        hoard_colour_message(message, capacity, "Unknown pixel layout for a colour transform", NULL);
        return NULL;
    }
    if (space != expected) {
        hoard_colour_message(message, capacity, "ICC profile's colour space does not match the pixels", NULL);
        return NULL;
    }
    hoard_colour_transform *transform = calloc(1, sizeof *transform);
    if (transform == NULL) {
        hoard_colour_message(message, capacity, "Out of memory creating a colour transform", NULL);
        return NULL;
    }
    transform->context = hoard_lcms_context(&transform->log);
    cmsHPROFILE source = NULL, target = NULL;
    if (transform->context != NULL) {
        source = cmsOpenProfileFromMemTHR(transform->context, icc, (cmsUInt32Number)size);
        if (expected == HOARD_ICC_GRAY) {
            cmsToneCurve *curve = hoard_srgb_curve(transform->context);
            if (curve != NULL) target = cmsCreateGrayProfileTHR(transform->context, cmsD50_xyY(), curve);
            cmsFreeToneCurve(curve);
        } else {
            target = cmsCreate_sRGBProfileTHR(transform->context);
        }
    }
    if (source != NULL && target != NULL) {
        // No cache: the transform is then safe to apply from several threads at once.
        cmsUInt32Number flags = cmsFLAGS_NOCACHE;
        if (layout == HOARD_LAYOUT_GRAY_ALPHA || layout == HOARD_LAYOUT_RGBA) flags |= cmsFLAGS_COPY_ALPHA;
        transform->transform = cmsCreateTransformTHR(transform->context, source, input, target, output,
                                                     INTENT_RELATIVE_COLORIMETRIC, flags);
        if (transform->transform != NULL && (layout == HOARD_LAYOUT_RGB || layout == HOARD_LAYOUT_RGBA) &&
            hoard_matrix_shaper_init(&transform->matrix, source, target)) {
            transform->matrix_channels = layout == HOARD_LAYOUT_RGB ? 3 : 4;
        }
    }
    if (source != NULL) cmsCloseProfile(source);
    if (target != NULL) cmsCloseProfile(target);
    if (transform->transform == NULL) {
        hoard_colour_message(message, capacity, "ICC profile cannot convert to sRGB", &transform->log);
        hoard_colour_transform_destroy(transform);
        return NULL;
    }
    return transform;
}

void hoard_colour_transform_apply(const hoard_colour_transform *transform, const uint8_t *input, uint8_t *output,
                                  size_t count) {
    if (transform == NULL || input == NULL || output == NULL) return;
    if (transform->matrix_channels != 0) {
        hoard_matrix_shaper_apply(&transform->matrix, input, output, count, transform->matrix_channels);
        return;
    }
    // Little CMS counts pixels in 32 bits: convert in slices.
    const size_t slice = 1u << 24;
    cmsUInt32Number input_size = T_BYTES(cmsGetTransformInputFormat(transform->transform)) *
                                 (T_CHANNELS(cmsGetTransformInputFormat(transform->transform)) +
                                  T_EXTRA(cmsGetTransformInputFormat(transform->transform)));
    cmsUInt32Number output_size = T_BYTES(cmsGetTransformOutputFormat(transform->transform)) *
                                  (T_CHANNELS(cmsGetTransformOutputFormat(transform->transform)) +
                                   T_EXTRA(cmsGetTransformOutputFormat(transform->transform)));
    for (size_t done = 0; done < count; done += slice) {
        size_t now = count - done < slice ? count - done : slice;
        cmsDoTransform(transform->transform, input + done * input_size, output + done * output_size,
                       (cmsUInt32Number)now);
    }
}

int hoard_colour_transform_is_direct(const hoard_colour_transform *transform) {
    return transform != NULL && transform->matrix_channels != 0;
}

void hoard_colour_transform_apply_lcms(const hoard_colour_transform *transform, const uint8_t *input,
                                       uint8_t *output, size_t count) {
    if (transform == NULL || input == NULL || output == NULL) return;
    hoard_colour_transform copy = *transform;
    copy.matrix_channels = 0;
    hoard_colour_transform_apply(&copy, input, output, count);
}

void hoard_colour_transform_destroy(hoard_colour_transform *transform) {
    if (transform == NULL) return;
    if (transform->transform != NULL) cmsDeleteTransform(transform->transform);
    if (transform->context != NULL) cmsDeleteContext(transform->context);
    free(transform);
}

static int hoard_chromaticity_valid(double x, double y) {
    return isfinite(x) && isfinite(y) && x >= 0 && x <= 1 && y > 0.001 && y <= 1 && x + y <= 1.0001;
}

int hoard_icc_make_rgb(const double chromaticities[8], int curve, double gamma, uint8_t **output, size_t *size,
                       char *message, size_t capacity) {
    if (chromaticities == NULL || output == NULL || size == NULL) return 0;
    *output = NULL;
    *size = 0;
    for (int i = 0; i < 8; i += 2) {
        if (!hoard_chromaticity_valid(chromaticities[i], chromaticities[i + 1])) {
            hoard_colour_message(message, capacity, "Chromaticities out of range", NULL);
            return 0;
        }
    }
    if (curve == HOARD_CURVE_GAMMA && !(isfinite(gamma) && gamma >= 0.1 && gamma <= 10)) {
        hoard_colour_message(message, capacity, "Gamma out of range", NULL);
        return 0;
    }
    hoard_lcms_log log;
    cmsContext context = hoard_lcms_context(&log);
    if (context == NULL) {
        hoard_colour_message(message, capacity, "Out of memory making a profile", NULL);
        return 0;
    }
    cmsToneCurve *tone = NULL;
    if (curve == HOARD_CURVE_SRGB) {
        tone = hoard_srgb_curve(context);
    } else if (curve == HOARD_CURVE_BT709) {
        const cmsFloat64Number parameters[5] = {1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081};
        tone = cmsBuildParametricToneCurve(context, 4, parameters);
    } else {
        tone = cmsBuildGamma(context, gamma);
    }
    const cmsCIExyY white = {chromaticities[0], chromaticities[1], 1.0};
    const cmsCIExyYTRIPLE primaries = {
        {chromaticities[2], chromaticities[3], 1.0},
        {chromaticities[4], chromaticities[5], 1.0},
        {chromaticities[6], chromaticities[7], 1.0},
    };
    cmsToneCurve *curves[3] = {tone, tone, tone};
    cmsHPROFILE profile = tone != NULL ? cmsCreateRGBProfileTHR(context, &white, &primaries, curves) : NULL;
    cmsUInt32Number length = 0;
    uint8_t *bytes = NULL;
    if (profile != NULL && cmsSaveProfileToMem(profile, NULL, &length) && length > 0 &&
        (bytes = malloc(length)) != NULL && !cmsSaveProfileToMem(profile, bytes, &length)) {
        free(bytes);
        bytes = NULL;
    }
    if (profile != NULL) cmsCloseProfile(profile);
    if (tone != NULL) cmsFreeToneCurve(tone);
    if (bytes == NULL) hoard_colour_message(message, capacity, "Cannot make an RGB profile", &log);
    cmsDeleteContext(context);
    if (bytes == NULL) return 0;
    *output = bytes;
    *size = length;
    return 1;
}

void hoard_colour_free(void *buffer) { free(buffer); }
