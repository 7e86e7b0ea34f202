/*
 * make_profiles.c: builds the ICC profiles of the colour-management fixtures with Little CMS 2.
 * Compiled and run by make_colour_fixtures.py:  cc -O2 -o make_profiles make_profiles.c -llcms2 -lm
 * Usage: make_profiles OUTPUT_FOLDER
 *
 * Writes (all ICC v4.3 as lcms makes them: matrix/TRC, chad, 'para' curves; made here from
 * published numbers, no third-party data; CC0-1.0):
 *   prophoto.icc        ProPhoto RGB: ROMM primaries, D50 white, pure gamma 1.8 (no ROMM toe)
 *   adobergb.icc        Adobe RGB (1998): D65 white, gamma 563/256
 *   p3.icc              Display P3: P3 primaries, D65 white, the sRGB curve as lcms parametric
 *                       type 4 (= ICC 'para' function type 3): 2.4, 1/1.055, 0.055/1.055, 1/12.92, 0.04045
 *   gray.icc            gray: D50 white, gamma 2.2
 *   cmyk.icc            synthetic CMYK output profile ("Hoard test CMYK", not a press standard):
 *                       AToB0 = 9-point CMYK->Lab CLUT of the ink model below, BToA0 = 17-point
 *                       Lab->CMYK CLUT inverting it (a*, b* input curves put a* = b* = 0 on a node);
 *                       AToB1/BToA1 are links to them; 79.5 kB, so a JPEG needs 2 APP2 markers
 *   gama-chrm.icc       what a browser builds for gama-chrm.png's cHRM + gAMA chunks
 *   bt2020-bt709.icc    what a browser builds for nclx primaries 9 (BT.2020) + transfer 1: the
 *                       BT.709 OETF inverted exactly (1/0.45, 1/1.099, 0.099/1.099, 1/4.5, 0.081)
 * The creation date and profile ID are fixed afterwards by make_colour_fixtures.py (lcms writes
 * the current time into the header), so the files are reproducible.
 */
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *folder;

static void report(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context;
    fprintf(stderr, "lcms error %u: %s\n", code, text);
}

static void set_text(cmsHPROFILE h, cmsTagSignature sig, const char *text) {
    cmsMLU *mlu = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(mlu, "en", "US", text);
    cmsWriteTag(h, sig, mlu);
    cmsMLUfree(mlu);
}

static void save(cmsHPROFILE h, const char *name, const char *description) {
    char path[4096];
    cmsUInt32Number size = 0;
    set_text(h, cmsSigProfileDescriptionTag, description);
    set_text(h, cmsSigCopyrightTag, "No copyright (CC0-1.0); made for Hoard's tests with Little CMS");
    if (!cmsSaveProfileToMem(h, NULL, &size)) { fprintf(stderr, "size %s\n", name); exit(1); }
    void *data = malloc(size);
    if (!cmsSaveProfileToMem(h, data, &size)) { fprintf(stderr, "save %s\n", name); exit(1); }
    snprintf(path, sizeof path, "%s/%s", folder, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size) { fprintf(stderr, "write %s\n", path); exit(1); }
    fclose(f);
    free(data);
    cmsCloseProfile(h);
}

static cmsHPROFILE rgb(double wx, double wy, const double xy[6], cmsToneCurve *curve) {
    cmsCIExyY white = {wx, wy, 1.0};
    cmsCIExyYTRIPLE primaries = {{xy[0], xy[1], 1.0}, {xy[2], xy[3], 1.0}, {xy[4], xy[5], 1.0}};
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE h = cmsCreateRGBProfile(&white, &primaries, curves);
    if (!h) { fprintf(stderr, "cmsCreateRGBProfile failed\n"); exit(1); }
    cmsSetProfileVersion(h, 4.3);
    cmsFreeToneCurve(curve);
    return h;
}

/* ---- synthetic CMYK: an ink model in linear-light sRGB ----
 * Each ink filters linear R, G, B by its transmittance at full coverage; coverage is first raised
 * by a dot gain, a = 1 - (1 - c)^1.35; the paper is ideal white. Transmittances multiply. */
static const double INK[4][3] = {
    {0.10, 0.63, 0.93},  /* cyan */
    {0.88, 0.13, 0.52},  /* magenta */
    {0.97, 0.86, 0.07},  /* yellow */
    {0.035, 0.035, 0.04} /* black */
};
static cmsHTRANSFORM linear_to_lab, lab_to_linear;

static double gain(double c) { return 1.0 - pow(1.0 - c, 1.35); }

static void ink_model(const double cmyk[4], double out[3]) {
    for (int ch = 0; ch < 3; ch++) {
        double t = 1.0;
        for (int i = 0; i < 4; i++) t *= 1.0 - gain(cmyk[i]) * (1.0 - INK[i][ch]);
        out[ch] = t;
    }
}

static int cmyk_to_lab(CMSREGISTER const cmsUInt16Number in[], CMSREGISTER cmsUInt16Number out[],
                       CMSREGISTER void *cargo) {
    (void)cargo;
    double cmyk[4], linear[3];
    cmsCIELab lab;
    for (int i = 0; i < 4; i++) cmyk[i] = in[i] / 65535.0;
    ink_model(cmyk, linear);
    cmsDoTransform(linear_to_lab, linear, &lab, 1);
    cmsFloat2LabEncoded(out, &lab);
    return 1;
}

static double ungain(double a) { return 1.0 - pow(1.0 - a, 1.0 / 1.35); }

/* Optical density left to the coloured inks, per channel, for effective coverages a[0..2]. */
static double density_error(const double a[3], const double goal[3], double residual[3]) {
    double error = 0;
    for (int ch = 0; ch < 3; ch++) {
        double density = 0;
        for (int i = 0; i < 3; i++) density -= log10(1.0 - a[i] * (1.0 - INK[i][ch]));
        residual[ch] = goal[ch] - density;
        error += residual[ch] * residual[ch];
    }
    return error;
}

/* Solves the ink model for C, M, Y at the K in cmyk[3]: Newton on optical density in the effective
 * (dot-gained) coverages, kept in [0, 1], with step halving so the error never grows; out-of-gamut
 * targets end at the clamped best effort. Returns the squared density error left. */
static double solve_cmy(const double target[3], double cmyk[4]) {
    double goal[3], a[3] = {0.3, 0.3, 0.3}, residual[3];
    double black = gain(cmyk[3]);
    for (int ch = 0; ch < 3; ch++)
        goal[ch] = -log10(fmax(target[ch], 1e-4)) + log10(1.0 - black * (1.0 - INK[3][ch]));
    double error = density_error(a, goal, residual);
    for (int iteration = 0; iteration < 100 && error > 1e-14; iteration++) {
        double jac[3][3];
        for (int ch = 0; ch < 3; ch++)
            for (int i = 0; i < 3; i++)
                jac[ch][i] = (1.0 - INK[i][ch]) / ((1.0 - a[i] * (1.0 - INK[i][ch])) * log(10.0));
        double det = jac[0][0] * (jac[1][1] * jac[2][2] - jac[1][2] * jac[2][1])
                   - jac[0][1] * (jac[1][0] * jac[2][2] - jac[1][2] * jac[2][0])
                   + jac[0][2] * (jac[1][0] * jac[2][1] - jac[1][1] * jac[2][0]);
        double delta[3];
        for (int i = 0; i < 3; i++) {
            double m[3][3];
            memcpy(m, jac, sizeof m);
            for (int ch = 0; ch < 3; ch++) m[ch][i] = residual[ch];
            delta[i] = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                      - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                      + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])) / det;
        }
        int improved = 0;
        for (double scale = 1.0; scale > 1e-4 && !improved; scale *= 0.5) {
            double next[3], next_residual[3];
            for (int i = 0; i < 3; i++) next[i] = fmin(1.0, fmax(0.0, a[i] + scale * delta[i]));
            double next_error = density_error(next, goal, next_residual);
            if (next_error < error) {
                improved = 1;
                error = next_error;
                memcpy(a, next, sizeof a);
                memcpy(residual, next_residual, sizeof residual);
            }
        }
        if (!improved) break;
    }
    for (int i = 0; i < 3; i++) cmyk[i] = ungain(a[i]);
    return error;
}

/* The BToA0 table's input curves scale a* and b* by 65280/65535 (v4 to v2 encoding), so that
 * a* = b* = 0 falls on the middle node of the 17-point grid and paper white and the neutrals are
 * nodes, not interpolations across a 16-unit step. The table is sampled in that scaled space. */
#define V4_TO_V2 (65280.0 / 65535.0)
static cmsUInt16Number v2_to_v4(cmsUInt16Number v) {
    double x = floor(v / V4_TO_V2 + 0.5);
    return (cmsUInt16Number)(x > 65535 ? 65535 : x);
}

/* Lab -> CMYK: K is a smooth function of the colour's lightest channel (skeleton black: none while
 * it is above 60 %, full at black), then C, M, Y are solved for it. Out-of-gamut colours get the
 * clamped best effort. */
static int lab_to_cmyk(CMSREGISTER const cmsUInt16Number in[], CMSREGISTER cmsUInt16Number out[],
                       CMSREGISTER void *cargo) {
    (void)cargo;
    cmsCIELab lab;
    double linear[3];
    cmsUInt16Number v4[3] = {in[0], v2_to_v4(in[1]), v2_to_v4(in[2])};
    cmsLabEncoded2Float(&lab, v4);
    cmsDoTransform(lab_to_linear, &lab, linear, 1);
    for (int ch = 0; ch < 3; ch++) linear[ch] = fmin(1.0, fmax(1e-4, linear[ch]));
    double lightest = pow(fmax(linear[0], fmax(linear[1], linear[2])), 1 / 2.2);
    double cmyk[4] = {0.3, 0.3, 0.3, lightest < 0.6 ? (0.6 - lightest) / 0.6 : 0.0};
    solve_cmy(linear, cmyk);
    for (int i = 0; i < 4; i++) out[i] = (cmsUInt16Number)floor(cmyk[i] * 65535.0 + 0.5);
    return 1;
}

static cmsHPROFILE cmyk_profile(void) {
    double xy_srgb[6] = {0.64, 0.33, 0.30, 0.60, 0.15, 0.06};
    cmsHPROFILE linear_srgb = rgb(0.3127, 0.3290, xy_srgb, cmsBuildGamma(NULL, 1.0));
    cmsHPROFILE lab = cmsCreateLab4Profile(NULL); /* D50 */
    linear_to_lab = cmsCreateTransform(linear_srgb, TYPE_RGB_DBL, lab, TYPE_Lab_DBL,
                                       INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOOPTIMIZE);
    lab_to_linear = cmsCreateTransform(lab, TYPE_Lab_DBL, linear_srgb, TYPE_RGB_DBL,
                                       INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOOPTIMIZE);
    if (!linear_to_lab || !lab_to_linear) { fprintf(stderr, "transforms failed\n"); exit(1); }

    cmsHPROFILE h = cmsCreateProfilePlaceholder(NULL);
    cmsSetProfileVersion(h, 4.3);
    cmsSetDeviceClass(h, cmsSigOutputClass);
    cmsSetColorSpace(h, cmsSigCmykData);
    cmsSetPCS(h, cmsSigLabData);
    cmsSetHeaderRenderingIntent(h, INTENT_RELATIVE_COLORIMETRIC);
    cmsWriteTag(h, cmsSigMediaWhitePointTag, cmsD50_XYZ());

    cmsPipeline *a2b = cmsPipelineAlloc(NULL, 4, 3);
    cmsStage *forward = cmsStageAllocCLut16bit(NULL, 9, 4, 3, NULL);
    cmsStageSampleCLut16bit(forward, cmyk_to_lab, NULL, 0);
    cmsPipelineInsertStage(a2b, cmsAT_END, cmsStageAllocToneCurves(NULL, 4, NULL)); /* identity "A" curves */
    cmsPipelineInsertStage(a2b, cmsAT_END, forward);
    cmsPipelineInsertStage(a2b, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, NULL)); /* identity "B" curves */
    cmsWriteTag(h, cmsSigAToB0Tag, a2b);
    cmsLinkTag(h, cmsSigAToB1Tag, cmsSigAToB0Tag);

    cmsPipeline *b2a = cmsPipelineAlloc(NULL, 3, 4);
    cmsStage *inverse = cmsStageAllocCLut16bit(NULL, 17, 3, 4, NULL);
    cmsStageSampleCLut16bit(inverse, lab_to_cmyk, NULL, 0);
    /* lcms parametric type 2 = ICC function type 1, Y = (aX + b)^g */
    const double identity[1] = {1.0}, scale[3] = {1.0, V4_TO_V2, 0.0};
    cmsToneCurve *b_curves[3] = {cmsBuildParametricToneCurve(NULL, 1, identity),
                                 cmsBuildParametricToneCurve(NULL, 2, scale),
                                 cmsBuildParametricToneCurve(NULL, 2, scale)};
    cmsPipelineInsertStage(b2a, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, b_curves));
    cmsFreeToneCurveTriple(b_curves);
    cmsPipelineInsertStage(b2a, cmsAT_END, inverse);
    cmsPipelineInsertStage(b2a, cmsAT_END, cmsStageAllocToneCurves(NULL, 4, NULL));
    cmsWriteTag(h, cmsSigBToA0Tag, b2a);
    cmsLinkTag(h, cmsSigBToA1Tag, cmsSigBToA0Tag);

    cmsPipelineFree(a2b);
    cmsPipelineFree(b2a);
    cmsDeleteTransform(linear_to_lab);
    cmsDeleteTransform(lab_to_linear);
    cmsCloseProfile(linear_srgb);
    cmsCloseProfile(lab);
    return h;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s OUTPUT_FOLDER\n", argv[0]); return 2; }
    folder = argv[1];
    cmsSetLogErrorHandler(report);

    const double romm[6] = {0.7347, 0.2653, 0.1596, 0.8404, 0.0366, 0.0001};
    const double adobe[6] = {0.64, 0.33, 0.21, 0.71, 0.15, 0.06};
    const double p3[6] = {0.680, 0.320, 0.265, 0.690, 0.150, 0.060};
    const double bt2020[6] = {0.708, 0.292, 0.170, 0.797, 0.131, 0.046};
    const double srgb_curve[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    /* BT.709 / BT.2020 OETF inverted exactly (what Skia uses for transfer 1, 6, 14 and 15) */
    const double bt709_curve[5] = {1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081};

    save(rgb(0.3457, 0.3585, romm, cmsBuildGamma(NULL, 1.8)), "prophoto.icc",
         "Hoard test ProPhoto RGB (ROMM primaries, D50, gamma 1.8)");
    save(rgb(0.3127, 0.3290, adobe, cmsBuildGamma(NULL, 563.0 / 256.0)), "adobergb.icc",
         "Hoard test Adobe RGB (1998) compatible (D65, gamma 563/256)");
    save(rgb(0.3127, 0.3290, p3, cmsBuildParametricToneCurve(NULL, 4, srgb_curve)), "p3.icc",
         "Hoard test Display P3 (P3 primaries, D65, sRGB curve)");

    cmsToneCurve *gray_curve = cmsBuildGamma(NULL, 2.2);
    cmsHPROFILE gray = cmsCreateGrayProfile(cmsD50_xyY(), gray_curve);
    cmsSetProfileVersion(gray, 4.3);
    cmsFreeToneCurve(gray_curve);
    save(gray, "gray.icc", "Hoard test gray (D50, gamma 2.2)");

    save(cmyk_profile(), "cmyk.icc", "Hoard test CMYK (synthetic ink model, not a press standard)");

    /* gama-chrm.png: cHRM white 0.3127,0.3290 and Adobe RGB primaries (as stored, x 100000), gAMA 45455 */
    const double chrm[6] = {0.64, 0.33, 0.21, 0.71, 0.15, 0.06};
    save(rgb(0.3127, 0.3290, chrm, cmsBuildGamma(NULL, 100000.0 / 45455.0)), "gama-chrm.icc",
         "Hoard test: cHRM Adobe RGB primaries, D65, gAMA 45455 (decode gamma 100000/45455)");
    save(rgb(0.3127, 0.3290, bt2020, cmsBuildParametricToneCurve(NULL, 4, bt709_curve)), "bt2020-bt709.icc",
         "Hoard test: nclx primaries 9 (BT.2020), transfer 1 (BT.709 OETF inverted), D65");
    return 0;
}
