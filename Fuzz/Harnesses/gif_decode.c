// libFuzzer harness: GIF bytes through hoard_gif_decoder_create/read/destroy, as Image does.
#include "codec_fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    hoard_decode_options options = hoard_fuzz_options(data, size);
    hoard_image_info info;
    hoard_codec_result result;
    hoard_gif_decoder *decoder = hoard_gif_decoder_create(data, size, &options, &info, &result);
    if (decoder == NULL) {
        hoard_fuzz_check_failure(&result);
        return 0;
    }
    if (result.status != HOARD_CODEC_OK) hoard_fuzz_fail("decoder returned with a failure status");
    hoard_fuzz_check_info(&info, options.max_pixels, 1);
    if (info.channels != 3 && info.channels != 4) hoard_fuzz_fail("GIF output is not RGB or RGBA");
    int shrunk = info.width != info.declared_width || info.height != info.declared_height;
    if (shrunk && (options.target_size == 0 || info.channels != 3)) {
        hoard_fuzz_fail("GIF output size differs from its canvas without an opaque image shrunk for a target");
    }
    if (shrunk && (info.width == 0 || info.height == 0 || info.width > info.declared_width ||
                   info.height > info.declared_height)) {
        hoard_fuzz_fail("a shrunk GIF is empty or larger than its canvas");
    }
    size_t count = (size_t)info.width * info.height * info.channels;
    uint8_t *pixels = hoard_fuzz_allocate_pixels(count);
    if (pixels == NULL) hoard_fuzz_fail("cannot allocate pixels under the limit");
    int status = hoard_gif_decoder_read(decoder, pixels, count, &result);
    if (status != result.status) hoard_fuzz_fail("returned status differs from result.status");
    if (status != HOARD_CODEC_OK) hoard_fuzz_check_failure(&result);
    hoard_fuzz_check_guard(pixels, count);
    // A second read must be refused, not decode again.
    hoard_codec_result again;
    memset(&again, 0, sizeof again);
    if (hoard_gif_decoder_read(decoder, pixels, count, &again) != HOARD_CODEC_INVALID_ARGUMENT) {
        hoard_fuzz_fail("second read was not refused");
    }
    hoard_gif_decoder_destroy(decoder);
    free(pixels);
    return 0;
}
