// libFuzzer harness: JPEG bytes through hoard_jpeg_decoder_create/exif/read/destroy, as Image does.
#include "codec_fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    hoard_decode_options options = hoard_fuzz_options(data, size);
    hoard_image_info info;
    hoard_codec_result result;
    hoard_jpeg_decoder *decoder = hoard_jpeg_decoder_create(data, size, &options, &info, &result);
    if (decoder == NULL) {
        hoard_fuzz_check_failure(&result);
        return 0;
    }
    if (result.status != HOARD_CODEC_OK) hoard_fuzz_fail("decoder returned with a failure status");
    hoard_fuzz_check_info(&info, options.max_pixels, 64);
    if (info.channels != 1 && info.channels != 3) hoard_fuzz_fail("JPEG output is not gray or RGB");
    const uint8_t *exif = NULL;
    size_t exif_length = 0;
    if (hoard_jpeg_decoder_exif(decoder, &exif, &exif_length) == 1) {
        if (exif == NULL) hoard_fuzz_fail("EXIF found without bytes");
        // Touch every byte: an out-of-range span shows up under ASan as a read of freed or foreign memory.
        volatile uint8_t sum = 0;
        for (size_t i = 0; i < exif_length; i++) sum += exif[i];
        (void)sum;
    }
    size_t count = (size_t)info.width * info.height * info.channels;
    uint8_t *pixels = hoard_fuzz_allocate_pixels(count);
    if (pixels == NULL) hoard_fuzz_fail("cannot allocate pixels under the limit");
    int status = hoard_jpeg_decoder_read(decoder, pixels, count, &result);
    if (status != result.status) hoard_fuzz_fail("returned status differs from result.status");
    if (status != HOARD_CODEC_OK) hoard_fuzz_check_failure(&result);
    hoard_fuzz_check_guard(pixels, count);
    hoard_codec_result again;
    memset(&again, 0, sizeof again);
    if (hoard_jpeg_decoder_read(decoder, pixels, count, &again) != HOARD_CODEC_INVALID_ARGUMENT) {
        hoard_fuzz_fail("second read was not refused");
    }
    hoard_jpeg_decoder_destroy(decoder);
    free(pixels);
    return 0;
}
