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
    for (int c = 0; c < 3; c++) {
        shaper->in_table[c] = c;
        shaper->out_table[c] = c;
        for (int earlier = 0; earlier < c; earlier++) {
            if (memcmp(shaper->in[earlier], shaper->in[c], sizeof shaper->in[c]) == 0) {
                shaper->in_table[c] = earlier;
                break;
            }
        }
        for (int earlier = 0; earlier < c; earlier++) {
            if (memcmp(shaper->out[earlier], shaper->out[c], sizeof shaper->out[c]) == 0) {
                shaper->out_table[c] = earlier;
                break;
            }
        }
    }
    return 1;
}

/// The index of linear light `linear` in an output table, clipped to the target's gamut as the
/// relative colorimetric intent does (branch-free, so the loop's arithmetic vectorises).
static inline int hoard_out_index(float linear) {
    float clipped = fminf(fmaxf(linear, 0.0f), 1.0f);
    return (int)(clipped * HOARD_MATRIX_OUT_STEPS + 0.5f);
}

void hoard_matrix_shaper_apply(const hoard_matrix_shaper *shaper, const uint8_t *input, uint8_t *output,
                               size_t count, int channels) {
    const float *m = shaper->matrix;
    const float *in_r = shaper->in[shaper->in_table[0]], *in_g = shaper->in[shaper->in_table[1]],
                *in_b = shaper->in[shaper->in_table[2]];
    const uint8_t *out_r = shaper->out[shaper->out_table[0]], *out_g = shaper->out[shaper->out_table[1]],
                  *out_b = shaper->out[shaper->out_table[2]];
    const float m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3], m4 = m[4], m5 = m[5], m6 = m[6], m7 = m[7], m8 = m[8];
    for (size_t p = 0; p < count; p++) {
        float r = in_r[input[0]], g = in_g[input[1]], b = in_b[input[2]];
        int x = hoard_out_index(m0 * r + m1 * g + m2 * b);
        int y = hoard_out_index(m3 * r + m4 * g + m5 * b);
        int z = hoard_out_index(m6 * r + m7 * g + m8 * b);
        output[0] = out_r[x];
        output[1] = out_g[y];
        output[2] = out_b[z];
        if (channels == 4) output[3] = input[3];
        input += channels;
        output += channels;
    }
}
