// The resampler's inner loop: a weighted sum of rows of floats, with AVX2 and FMA where the CPU has
// them (chosen at run time; the build targets baseline x86-64) and portable C elsewhere.
#include "CHoardCodecs.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#define HOARD_HAS_AVX2_PATH 1
#endif

// Floats summed per block: the accumulators stay in registers while every row is read once.
#define HOARD_SUM_BLOCK 32

static void hoard_sum_portable(float *out, const float *const *rows, const float *weights, size_t count,
                               size_t start, size_t length) {
    size_t i = start;
    for (; i + HOARD_SUM_BLOCK <= length; i += HOARD_SUM_BLOCK) {
        float sums[HOARD_SUM_BLOCK] = {0};
        for (size_t k = 0; k < count; k++) {
            const float *row = rows[k] + i;
            float weight = weights[k];
            for (size_t j = 0; j < HOARD_SUM_BLOCK; j++) sums[j] += weight * row[j];
        }
        memcpy(out + i, sums, sizeof sums);
    }
    for (; i < length; i++) {
        float sum = 0;
        for (size_t k = 0; k < count; k++) sum += weights[k] * rows[k][i];
        out[i] = sum;
    }
}

#ifdef HOARD_HAS_AVX2_PATH
__attribute__((target("avx2,fma"))) static void hoard_sum_avx2(float *out, const float *const *rows,
                                                                const float *weights, size_t count, size_t length) {
    size_t i = 0;
    for (; i + HOARD_SUM_BLOCK <= length; i += HOARD_SUM_BLOCK) {
        __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps(), c = _mm256_setzero_ps(), d = _mm256_setzero_ps();
        for (size_t k = 0; k < count; k++) {
            const float *row = rows[k] + i;
            __m256 weight = _mm256_set1_ps(weights[k]);
            a = _mm256_fmadd_ps(weight, _mm256_loadu_ps(row), a);
            b = _mm256_fmadd_ps(weight, _mm256_loadu_ps(row + 8), b);
            c = _mm256_fmadd_ps(weight, _mm256_loadu_ps(row + 16), c);
            d = _mm256_fmadd_ps(weight, _mm256_loadu_ps(row + 24), d);
        }
        _mm256_storeu_ps(out + i, a);
        _mm256_storeu_ps(out + i + 8, b);
        _mm256_storeu_ps(out + i + 16, c);
        _mm256_storeu_ps(out + i + 24, d);
    }
    hoard_sum_portable(out, rows, weights, count, i, length);
}
#endif

void hoard_weighted_row_sum(float *out, const float *const *rows, const float *weights, size_t count,
                            size_t length) {
#ifdef HOARD_HAS_AVX2_PATH
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        hoard_sum_avx2(out, rows, weights, count, length);
        return;
    }
#endif
    hoard_sum_portable(out, rows, weights, count, 0, length);
}
