/*
 * Peer: libpng 1.6 (Debian libpng-dev) through its simplified API, with zlib, default settings:
 * what a C program gets from the system PNG codec, one thread, in memory.
 *
 * Build: gcc -O2 pngbench.c -o pngbench -lpng
 * Usage: pngbench PASSES FILE.png...
 *
 * The files are read into memory first. Each pass decodes every file to 8-bit RGB
 * (png_image_begin_read_from_memory + png_image_finish_read into a newly allocated buffer), then
 * encodes every decoded image with libpng's defaults (zlib level 6, adaptive filters):
 * png_image_write_get_memory_size, which compresses the image once to learn the size, then
 * png_image_write_to_memory, which compresses it again. The encode figure therefore covers two
 * compressions; Benchmarks/compare says so beside its PNG encode row.
 *
 * One line per pass, in megapixels of source per second, read by Benchmarks/compare
 * (hoardcompare/codec.py):
 *   pass 3: decode 61.2 MP/s, encode (default) 9.8 MP/s, 5123456 bytes out (libpng 1.6.39)
 */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct picture {
    unsigned char *file;   /* the PNG file's bytes */
    size_t file_size;
    png_image image;       /* as the last decode left it: width, height, format RGB */
    unsigned char *pixels; /* the last decode's pixels */
};

static double seconds_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static void fail(const char *what, const char *path) {
    fprintf(stderr, "pngbench: %s failed for %s\n", what, path);
    exit(1);
}

static void read_file(struct picture *picture, const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL || fseek(file, 0, SEEK_END) != 0) fail("opening", path);
    long size = ftell(file);
    if (size <= 0 || fseek(file, 0, SEEK_SET) != 0) fail("sizing", path);
    picture->file_size = (size_t)size;
    picture->file = malloc(picture->file_size);
    if (picture->file == NULL || fread(picture->file, 1, picture->file_size, file) != picture->file_size)
        fail("reading", path);
    fclose(file);
}

/* Decodes every picture; returns the megapixels decoded. */
static double decode_all(struct picture *pictures, int count, char **paths) {
    double megapixels = 0;
    for (int i = 0; i < count; i++) {
        struct picture *p = &pictures[i];
        memset(&p->image, 0, sizeof p->image);
        p->image.version = PNG_IMAGE_VERSION;
        if (!png_image_begin_read_from_memory(&p->image, p->file, p->file_size)) fail("reading the header", paths[i]);
        p->image.format = PNG_FORMAT_RGB;
        free(p->pixels);
        p->pixels = malloc(PNG_IMAGE_SIZE(p->image));
        if (p->pixels == NULL || !png_image_finish_read(&p->image, NULL, p->pixels, 0, NULL))
            fail("decoding", paths[i]);
        megapixels += (double)p->image.width * (double)p->image.height / 1e6;
    }
    return megapixels;
}

/* Encodes every decoded picture with the defaults; returns the bytes written. */
static size_t encode_all(struct picture *pictures, int count, char **paths) {
    size_t total = 0;
    for (int i = 0; i < count; i++) {
        png_image image = pictures[i].image;
        image.opaque = NULL;
        png_alloc_size_t size = 0;
        if (!png_image_write_get_memory_size(image, size, 0, pictures[i].pixels, 0, NULL)) fail("sizing", paths[i]);
        void *memory = malloc(size);
        if (memory == NULL || !png_image_write_to_memory(&image, memory, &size, 0, pictures[i].pixels, 0, NULL))
            fail("encoding", paths[i]);
        total += size;
        free(memory);
    }
    return total;
}

int main(int argc, char **argv) {
    if (argc < 3 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: pngbench PASSES FILE.png...\n");
        return 64;
    }
    int passes = atoi(argv[1]), count = argc - 2;
    char **paths = argv + 2;
    struct picture *pictures = calloc((size_t)count, sizeof *pictures);
    if (pictures == NULL) return 1;
    for (int i = 0; i < count; i++) read_file(&pictures[i], paths[i]);

    for (int pass = 1; pass <= passes; pass++) {
        double start = seconds_now();
        double megapixels = decode_all(pictures, count, paths);
        double decoded = seconds_now();
        size_t bytes = encode_all(pictures, count, paths);
        double encoded = seconds_now();
        printf("pass %d: decode %.1f MP/s, encode (default) %.1f MP/s, %zu bytes out (libpng %s)\n", pass,
               megapixels / (decoded - start), megapixels / (encoded - decoded), bytes, png_libpng_ver);
    }
    return 0;
}
