#ifndef HOARD_GIF_LZW_H
#define HOARD_GIF_LZW_H

#include <stddef.h>
#include <stdint.h>

#include <gif_lib.h>

#include "result.h"

/// GIF's string table holds at most this many codes.
enum { HOARD_GIF_LZW_MAX_CODES = 4096 };
/// The room `indices` needs past its `count` bytes: a code's string may run past the last pixel,
/// and strings are copied eight bytes at a time.
enum { HOARD_GIF_LZW_SLACK = HOARD_GIF_LZW_MAX_CODES + 8 };
/// What `hoard_gif_lzw_decode` returns when giflib failed; its error is in `gif->Error`.
enum { HOARD_GIF_LZW_GIFLIB_FAILED = -1 };

/// Decodes the current image's `count` palette indices (stored order) from the LZW sub-blocks
/// giflib hands over after `DGifGetImageDesc`, then reads them to their terminator, as giflib does.
/// `indices` has room for `count + HOARD_GIF_LZW_SLACK` bytes.
///
/// Returns HOARD_CODEC_OK; HOARD_CODEC_MALFORMED for damaged data, with `message` saying what;
/// or HOARD_GIF_LZW_GIFLIB_FAILED.
int hoard_gif_lzw_decode(GifFileType *gif, uint8_t *indices, size_t count,
                         char message[HOARD_CODEC_MESSAGE_CAPACITY]);

#endif
