#include "jpeg_errors.h"

#include <jerror.h>

static int hoard_jpeg_status_for(int message_code) {
    switch (message_code) {
    case JERR_OUT_OF_MEMORY:
    case JERR_NO_BACKING_STORE:
        return HOARD_CODEC_OUT_OF_MEMORY;
    case JERR_BAD_PRECISION:
    case JERR_SOF_UNSUPPORTED:
    case JERR_NOT_COMPILED:
        return HOARD_CODEC_UNSUPPORTED;
    default:
        return HOARD_CODEC_MALFORMED;
    }
}

void hoard_jpeg_fail(j_common_ptr cinfo, int status, const char *message) {
    hoard_jpeg_errors *errors = (hoard_jpeg_errors *)cinfo->err;
    hoard_result_fail(errors->result, status, message);
    longjmp(errors->jump, 1);
}

static void hoard_jpeg_on_error_exit(j_common_ptr cinfo) {
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    hoard_jpeg_fail(cinfo, hoard_jpeg_status_for(cinfo->err->msg_code), message);
}

static void hoard_jpeg_on_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return; // trace messages
    hoard_jpeg_errors *errors = (hoard_jpeg_errors *)cinfo->err;
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    cinfo->err->num_warnings++;
    hoard_result_add_warning(errors->result, message);
    if (cinfo->err->msg_code == JWRN_JPEG_EOF && !errors->allow_truncated) {
        hoard_jpeg_fail(cinfo, HOARD_CODEC_TRUNCATED, message);
    }
    if (errors->warnings_are_errors) hoard_jpeg_fail(cinfo, HOARD_CODEC_MALFORMED, message);
}

static void hoard_jpeg_on_output_message(j_common_ptr cinfo) { (void)cinfo; /* never print */ }

void hoard_jpeg_on_progress(j_common_ptr cinfo) {
    hoard_jpeg_progress *progress = (hoard_jpeg_progress *)cinfo->progress;
    if (!cinfo->is_decompressor || progress->max_scans == 0) return;
    int scan = ((j_decompress_ptr)cinfo)->input_scan_number;
    if (scan > 0 && (uint32_t)scan > progress->max_scans) {
        char message[JMSG_LENGTH_MAX];
        snprintf(message, sizeof message, "JPEG has more than %u scans", (unsigned)progress->max_scans);
        hoard_jpeg_fail(cinfo, HOARD_CODEC_MALFORMED, message);
    }
}

void hoard_jpeg_install_errors(hoard_jpeg_errors *errors, hoard_codec_result *result) {
    jpeg_std_error(&errors->pub);
    errors->pub.error_exit = hoard_jpeg_on_error_exit;
    errors->pub.emit_message = hoard_jpeg_on_emit_message;
    errors->pub.output_message = hoard_jpeg_on_output_message;
    errors->result = result;
}

/// After a longjmp the status must say what failed.
int hoard_jpeg_failed(hoard_codec_result *result) {
    if (result->status == HOARD_CODEC_OK) {
        hoard_result_fail(result, HOARD_CODEC_MALFORMED, "libjpeg failed without a message");
    }
    return result->status;
}
