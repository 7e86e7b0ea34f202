#include "colour_matrix.h"

#include <math.h>
#include <string.h>

/// The three colorants of a matrix-shaper profile as the columns of `m` (XYZ, D50), and its
/// three curves; 0 when a tag is missing.
static int hoard_read_matrix_shaper(cmsHPROFILE profile, double m[9], cmsToneCurve *curves[3]) {
    if (cmsGetColorSpace(profile) != cmsSigRgbData || !cmsIsMatrixShaper(profile)) return 0;
    const cmsTagSignature colorants[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    const cmsTagSignature trcs[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int c = 0; c < 3; c++) {
        const cmsCIEXYZ *xyz = cmsReadTag(profile, colorants[c]);
        curves[c] = cmsReadTag(profile, trcs[c]);
        if (xyz == NULL || curves[c] == NULL) return 0;
        m[0 + c] = xyz->X;
        m[3 + c] = xyz->Y;
        m[6 + c] = xyz->Z;
    }
    return 1;
}

static int hoard_invert3(const double m[9], double inverse[9]) {
    double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5], g = m[6], h = m[7], i = m[8];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    if (!isfinite(det) || fabs(det) < 1e-9) return 0;
    double k = 1.0 / det;
    inverse[0] = (e * i - f * h) * k;
    inverse[1] = (c * h - b * i) * k;
    inverse[2] = (b * f - c * e) * k;
    inverse[3] = (f * g - d * i) * k;
    inverse[4] = (a * i - c * g) * k;
    inverse[5] = (c * d - a * f) * k;
    inverse[6] = (d * h - e * g) * k;
    inverse[7] = (b * g - a * h) * k;
    inverse[8] = (a * e - b * d) * k;
    return 1;
}

int hoard_matrix_shaper_init(hoard_matrix_shaper *shaper, cmsHPROFILE source, cmsHPROFILE target) {
    double from[9], to[9], back[9];
    cmsToneCurve *source_curves[3], *target_curves[3];
    if (!hoard_read_matrix_shaper(source, from, source_curves) || !hoard_read_matrix_shaper(target, to, target_curves) ||
        !hoard_invert3(to, back)) {
        return 0;
    }
    for (int row = 0; row < 3; row++) {
        for (int column = 0; column < 3; column++) {
            double sum = 0;
            for (int k = 0; k < 3; k++) sum += back[row * 3 + k] * from[k * 3 + column];
            if (!isfinite(sum)) return 0;
            shaper->matrix[row * 3 + column] = (float)sum;
        }
    }
    for (int c = 0; c < 3; c++) {
        for (int v = 0; v < 256; v++) {
            float linear = cmsEvalToneCurveFloat(source_curves[c], (float)v / 255.0f);
            if (!isfinite(linear)) return 0;
            shaper->in[c][v] = linear;
        }
        cmsToneCurve *reverse = cmsReverseToneCurve(target_curves[c]);
        if (reverse == NULL) return 0;
        for (int i = 0; i <= HOARD_MATRIX_OUT_STEPS; i++) {
            float encoded = cmsEvalToneCurveFloat(reverse, (float)i / HOARD_MATRIX_OUT_STEPS);
            float level = encoded * 255.0f + 0.5f;
            shaper->out[c][i] = (uint8_t)(level <= 0 ? 0 : level >= 255 ? 255 : level);
        }
        cmsFreeToneCurve(reverse);
    }
    return 1;
}

static inline uint8_t hoard_encode(const uint8_t *table, float linear) {
    // Clipped to the target's gamut, as the relative colorimetric intent does.
    float index = linear * HOARD_MATRIX_OUT_STEPS + 0.5f;
    if (!(index > 0)) return table[0];
    if (index >= HOARD_MATRIX_OUT_STEPS) return table[HOARD_MATRIX_OUT_STEPS];
    return table[(int)index];
}

void hoard_matrix_shaper_apply(const hoard_matrix_shaper *shaper, const uint8_t *input, uint8_t *output,
                               size_t count, int channels) {
    const float *m = shaper->matrix;
    for (size_t p = 0; p < count; p++) {
        float r = shaper->in[0][input[0]], g = shaper->in[1][input[1]], b = shaper->in[2][input[2]];
        output[0] = hoard_encode(shaper->out[0], m[0] * r + m[1] * g + m[2] * b);
        output[1] = hoard_encode(shaper->out[1], m[3] * r + m[4] * g + m[5] * b);
        output[2] = hoard_encode(shaper->out[2], m[6] * r + m[7] * g + m[8] * b);
        if (channels == 4) output[3] = input[3];
        input += channels;
        output += channels;
    }
}
