// libFuzzer harness: PNG bytes through hoard_png_decoder_create/read/destroy, as Image does.
#include "codec_fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    hoard_decode_options options = hoard_fuzz_options(data, size);
    hoard_image_info info;
    hoard_codec_result result;
    hoard_png_decoder *decoder = hoard_png_decoder_create(data, size, &options, &info, &result);
    if (decoder == NULL) {
        hoard_fuzz_check_failure(&result);
        return 0;
    }
    if (result.status != HOARD_CODEC_OK) hoard_fuzz_fail("decoder returned with a failure status");
    hoard_fuzz_check_info(&info, options.max_pixels, 1);
    if (info.width != info.declared_width || info.height != info.declared_height) {
        hoard_fuzz_fail("PNG output size differs from its header");
    }
    size_t count = (size_t)info.width * info.height * info.channels;
    uint8_t *pixels = hoard_fuzz_allocate_pixels(count);
    if (pixels == NULL) hoard_fuzz_fail("cannot allocate pixels under the limit");
    int status = hoard_png_decoder_read(decoder, pixels, count, &result);
    if (status != result.status) hoard_fuzz_fail("returned status differs from result.status");
    if (status != HOARD_CODEC_OK) hoard_fuzz_check_failure(&result);
    hoard_fuzz_check_guard(pixels, count);
    // A second read must be refused, not decode again.
    hoard_codec_result again;
    memset(&again, 0, sizeof again);
    if (hoard_png_decoder_read(decoder, pixels, count, &again) != HOARD_CODEC_INVALID_ARGUMENT) {
        hoard_fuzz_fail("second read was not refused");
    }
    hoard_png_decoder_destroy(decoder);
    free(pixels);
    return 0;
}
