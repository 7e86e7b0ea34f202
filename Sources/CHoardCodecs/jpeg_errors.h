// libjpeg's error and progress managers as Hoard sets them up, shared by the decoder (jpeg.c) and
// the encoder (jpeg_encode.c): errors jump back to the caller's setjmp with the library's message,
// warnings are collected, nothing prints, and progressive files have a scan limit.
#ifndef CHOARD_JPEG_ERRORS_H
#define CHOARD_JPEG_ERRORS_H

#include "result.h"

#include <setjmp.h>
#include <stdio.h>

#include <jpeglib.h>

/// libjpeg's error manager, extended with the jump target and the caller's policy.
typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    hoard_codec_result *result;
    int allow_truncated;
    int warnings_are_errors;
} hoard_jpeg_errors;

/// A progress monitor that refuses progressive files with too many scans (each scan costs a pass
/// over the whole coefficient buffer, so a few hundred tiny scans make a cheap denial of service).
typedef struct {
    struct jpeg_progress_mgr pub;
    uint32_t max_scans;
} hoard_jpeg_progress;

/// Fails `cinfo`'s call with `status` and `message`: records them and jumps to its setjmp.
void hoard_jpeg_fail(j_common_ptr cinfo, int status, const char *message);
/// The progress monitor's callback: fails a decode past its scan limit.
void hoard_jpeg_on_progress(j_common_ptr cinfo);
/// Sets up `errors` to report into `result`.
void hoard_jpeg_install_errors(hoard_jpeg_errors *errors, hoard_codec_result *result);
/// After a longjmp the status must say what failed.
int hoard_jpeg_failed(hoard_codec_result *result);

#endif
