// GIF's LZW (GIF89a, appendix F), decoded here rather than by DGifGetLine, which moves one pixel at
// a time through a stack and reads the code stream a byte at a time: on photos turned into GIFs it
// was most of a thumbnail's time. Every string is a copy of bytes already decoded (an entry is the
// previous string and one more byte, which is where that string was written), so a code costs a
// short copy instead of a walk along the table. giflib still parses the file and hands over the
// image's compressed sub-blocks (DGifGetCode, DGifGetCodeNext), which are joined before any code
// is read. The code width grows as giflib
// grows it (when the running code passes 2^width, counted per code read), and the table stops
// growing at 4,096 entries until a clear code. Refused as damaged: a code past the table (which
// giflib turns into some pixels), a code that is not a pixel right after a clear, and the end code
// or the end of the sub-blocks before the last pixel (which giflib refuses too).
#include "gif_lzw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The image's compressed sub-blocks, joined: giflib reads them (DGifGetCode, DGifGetCodeNext) and
/// they are copied end to end, with eight zero bytes after them, so that a code is read with one
/// unaligned eight-byte load instead of a byte at a time across sub-block boundaries.
typedef struct {
    uint8_t *bytes;
    size_t count;
    size_t capacity;
} hoard_gif_code_stream;

/// Appends the sub-block `block` (block[0] is its length). Returns 0 when out of memory.
static int hoard_gif_append_block(hoard_gif_code_stream *stream, const GifByteType *block) {
    size_t length = block[0];
    if (stream->capacity - stream->count < length + 8) {
        size_t capacity = stream->capacity * 2 + length + 8 + 4096;
        uint8_t *bytes = realloc(stream->bytes, capacity);
        if (bytes == NULL) return 0;
        stream->bytes = bytes;
        stream->capacity = capacity;
    }
    memcpy(stream->bytes + stream->count, block + 1, length);
    stream->count += length;
    return 1;
}

/// Reads every sub-block of the current image after `first`, to their terminator, into `stream`
/// (allocated, with room for eight bytes past what it holds). Returns HOARD_CODEC_OK,
/// HOARD_CODEC_OUT_OF_MEMORY, or HOARD_GIF_LZW_GIFLIB_FAILED.
static int hoard_gif_join_blocks(GifFileType *gif, GifByteType *first, hoard_gif_code_stream *stream) {
    for (GifByteType *block = first; block != NULL;) {
        if (!hoard_gif_append_block(stream, block)) return HOARD_CODEC_OUT_OF_MEMORY;
        if (DGifGetCodeNext(gif, &block) == GIF_ERROR) return HOARD_GIF_LZW_GIFLIB_FAILED;
    }
    memset(stream->bytes + stream->count, 0, 8);
    return HOARD_CODEC_OK;
}

/// The `width` bits at bit `position` of the stream, least significant first (the stream has eight
/// readable bytes past its end).
static inline int hoard_gif_code_at(const uint8_t *bytes, uint64_t position, int width) {
    uint64_t eight;
    memcpy(&eight, bytes + (position >> 3), 8);
    return (int)((eight >> (position & 7)) & ((UINT64_C(1) << width) - 1));
}

int hoard_gif_lzw_decode(GifFileType *gif, size_t remaining, uint8_t *indices, size_t count,
                        char message[HOARD_CODEC_MESSAGE_CAPACITY]) {
    int code_size = 0;
    GifByteType *first = NULL;
    if (DGifGetCode(gif, &code_size, &first) == GIF_ERROR) return HOARD_GIF_LZW_GIFLIB_FAILED;
    if (code_size < 1 || code_size > 8) {
        snprintf(message, HOARD_CODEC_MESSAGE_CAPACITY, "GIF's LZW code size is %d (must be 1 to 8)", code_size);
        return HOARD_CODEC_MALFORMED;
    }
    // Usually one allocation: the sub-blocks' bytes are fewer than the file's remaining ones, and
    // codes of at most 12 bits for `count` pixels take at most 1.5 bytes a pixel, unless the stream
    // pads them with clear codes (then it grows, never past twice the file's size).
    size_t expected = count < remaining / 2 ? 2 * count + 4096 : remaining;
    hoard_gif_code_stream stream = {.bytes = malloc(expected + 8), .capacity = expected + 8};
    int joined = stream.bytes == NULL ? HOARD_CODEC_OUT_OF_MEMORY : hoard_gif_join_blocks(gif, first, &stream);
    if (joined != HOARD_CODEC_OK) {
        free(stream.bytes);
        if (joined == HOARD_CODEC_OUT_OF_MEMORY) {
            snprintf(message, HOARD_CODEC_MESSAGE_CAPACITY, "Out of memory for a GIF's LZW data");
        }
        return joined;
    }
    const uint64_t bit_count = (uint64_t)stream.count * 8;
    uint64_t position = 0;
    // Each entry's string is somewhere in what is already decoded: where (start) and how long
    // (length; 0 while the entry is not defined). A code's string is copied from there.
    size_t start[HOARD_GIF_LZW_MAX_CODES];
    uint16_t length[HOARD_GIF_LZW_MAX_CODES];
    const int clear = 1 << code_size, end = clear + 1;
    for (int code = 0; code < clear; code++) length[code] = 1;
    memset(length + clear, 0, sizeof length[0] * (size_t)(HOARD_GIF_LZW_MAX_CODES - clear));
    int width = code_size + 1, running_code = end + 1, limit = 1 << width, previous = -1;
    size_t written = 0, previous_start = 0;
    const char *defect = NULL;
    while (written < count) {
        if (bit_count - position < (uint64_t)width) {
            defect = "GIF image data ends before its last pixel";
            break;
        }
        int code = hoard_gif_code_at(stream.bytes, position, width);
        position += (uint64_t)width;
        if (running_code < HOARD_GIF_LZW_MAX_CODES + 1 && ++running_code > limit && width < 12) {
            limit <<= 1;
            width++;
        }
        if (code == clear) {
            width = code_size + 1;
            limit = 1 << width;
            running_code = end + 1;
            previous = -1;
            memset(length + clear, 0, sizeof length[0] * (size_t)(HOARD_GIF_LZW_MAX_CODES - clear));
            continue;
        }
        if (code == end) {
            defect = "GIF image data has its end code before its last pixel";
            break;
        }
        int defined = length[code] != 0;
        if (previous < 0) {
            if (code > clear) {
                defect = "GIF image data starts with a code that is not a pixel";
                break;
            }
        } else {
            // The entry this code adds, when its slot (giflib's running code - 2) is free: the
            // previous string and the first byte of this one, which is where the previous string
            // was written, one byte longer. A code may name that very entry (its string is then
            // the previous one and that one's first byte).
            int next = running_code - 2;
            if (!defined && (code != next || length[next] != 0)) {
                defect = "GIF image data has a code past its table";
                break;
            }
            if (length[next] == 0) {
                start[next] = previous_start;
                length[next] = (uint16_t)(length[previous] + 1);
            }
        }
        uint8_t *out = indices + written;
        size_t run = length[code];
        if (code < clear) {
            *out = (uint8_t)code;
        } else {
            // Eight bytes at a time, each read before it is written (the eight bytes read may reach
            // into those written): the buffer has room past its end, and what a copy writes past
            // `run` is written over by the strings that follow.
            const uint8_t *from = indices + start[code];
            size_t copied = defined ? run : run - 1; // the entry just made ends where it starts
            for (size_t offset = 0; offset < copied; offset += 8) {
                uint64_t eight;
                memcpy(&eight, from + offset, 8);
                memcpy(out + offset, &eight, 8);
            }
            if (!defined) out[run - 1] = from[0];
        }
        previous_start = written;
        written += run;
        previous = code;
    }
    free(stream.bytes);
    if (defect != NULL) {
        snprintf(message, HOARD_CODEC_MESSAGE_CAPACITY, "%s", defect);
        return HOARD_CODEC_MALFORMED;
    }
    return HOARD_CODEC_OK;
}
