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
/// giflib hands over after `DGifGetImageDesc`, all of them read to their terminator first.
/// `indices` has room for `count + HOARD_GIF_LZW_SLACK` bytes; `remaining` is how many bytes of the
/// file are left to read, a bound on the sub-blocks' size (they are joined into one allocation).
///
/// Returns HOARD_CODEC_OK; HOARD_CODEC_MALFORMED for damaged data or HOARD_CODEC_OUT_OF_MEMORY,
/// with `message` saying what; or HOARD_GIF_LZW_GIFLIB_FAILED.
int hoard_gif_lzw_decode(GifFileType *gif, size_t remaining, uint8_t *indices, size_t count,
                         char message[HOARD_CODEC_MESSAGE_CAPACITY]);

#endif
