/*
 * webp-floor.c: the time libwebp alone takes to decode a batch of WebP files at the size Hoard's
 * thumbnail path asks of it, a lower bound on any thumbnailer that uses this libwebp.
 *
 *   cc -O2 -o /tmp/webp-floor Benchmarks/probes/webp-floor.c -lwebp
 *   /tmp/webp-floor 256 5 FILE.webp...   (compare's batch: Benchmarks/.results/img/batch_webp)
 *
 * Arguments: the thumbnail's longest side, the number of passes, then the files. Every file is
 * read into memory before the clock starts. Each pass decodes every file once, one after another
 * on one thread, the way Hoard's WebP decoder does (hoard_webp_decoder_read in
 * Sources/CHoardCodecs/webp.c): WebPDecode into a buffer of our own, RGB, use_threads = 1 (libwebp's
 * own filter thread, as libvips asks for too), and use_scaling to the largest power-of-two
 * fraction of the size whose longest side still reaches the thumbnail's
 * (hoard_scale_denominator). Prints each pass's seconds, then the fastest and the median.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <webp/decode.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint32_t denominator_for(uint32_t width, uint32_t height, uint32_t target) {
    uint64_t longest = width > height ? width : height;
    uint64_t denominator = 1;
    while (denominator < (1u << 24) && (longest + 2 * denominator - 1) / (2 * denominator) >= target) {
        denominator *= 2;
    }
    return (uint32_t)denominator;
}

typedef struct {
    uint8_t *bytes;
    size_t size;
} input;

static int read_file(const char *path, input *in) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return 0;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    in->bytes = size > 0 ? malloc((size_t)size) : NULL;
    in->size = (size_t)size;
    int ok = in->bytes != NULL && fread(in->bytes, 1, in->size, file) == in->size;
    fclose(file);
    return ok;
}

static int decode(const input *in, uint32_t target) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config) || WebPGetFeatures(in->bytes, in->size, &config.input) != VP8_STATUS_OK) {
        return 0;
    }
    uint32_t d = denominator_for((uint32_t)config.input.width, (uint32_t)config.input.height, target);
    int width = (int)(((uint32_t)config.input.width + d - 1) / d);
    int height = (int)(((uint32_t)config.input.height + d - 1) / d);
    size_t stride = (size_t)width * 3;
    uint8_t *pixels = malloc(stride * (size_t)height);
    if (pixels == NULL) return 0;
    config.output.colorspace = MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = stride * (size_t)height;
    config.options.use_threads = 1;
    if (d > 1) {
        config.options.use_scaling = 1;
        config.options.scaled_width = width;
        config.options.scaled_height = height;
    }
    int ok = WebPDecode(in->bytes, in->size, &config) == VP8_STATUS_OK;
    WebPFreeDecBuffer(&config.output);
    free(pixels);
    return ok;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: webp-floor SIZE PASSES FILE...\n");
        return 2;
    }
    uint32_t target = (uint32_t)strtoul(argv[1], NULL, 10);
    int passes = atoi(argv[2]);
    int count = argc - 3;
    if (target == 0 || passes < 1 || passes > 1000) {
        fprintf(stderr, "webp-floor: SIZE must be positive and PASSES 1-1000\n");
        return 2;
    }
    input *inputs = calloc((size_t)count, sizeof(input));
    double *seconds = calloc((size_t)passes, sizeof(double));
    if (inputs == NULL || seconds == NULL) return 1;
    for (int i = 0; i < count; i++) {
        if (!read_file(argv[i + 3], &inputs[i])) {
            fprintf(stderr, "webp-floor: cannot read %s\n", argv[i + 3]);
            return 1;
        }
    }
    for (int p = 0; p < passes; p++) {
        double start = now();
        for (int i = 0; i < count; i++) {
            if (!decode(&inputs[i], target)) {
                fprintf(stderr, "webp-floor: cannot decode %s\n", argv[i + 3]);
                return 1;
            }
        }
        seconds[p] = now() - start;
        printf("pass %d: %.3f s for %d files\n", p + 1, seconds[p], count);
    }
    qsort(seconds, (size_t)passes, sizeof(double), by_value);
    printf("fastest %.3f s, median %.3f s\n", seconds[0], seconds[passes / 2]);
    return 0;
}
