// GIF's LZW (GIF89a, appendix F), decoded here rather than by DGifGetLine, which moves one pixel at
// a time through a stack and reads the code stream a byte at a time: on photos turned into GIFs it
// was most of a thumbnail's time. Every string is a copy of bytes already decoded (an entry is the
// previous string and one more byte, which is where that string was written), so a code costs a
// short copy instead of a walk along the table. giflib still parses the file and hands over the
// image's compressed sub-blocks (DGifGetCode, DGifGetCodeNext). The code width grows as giflib
// grows it (when the running code passes 2^width, counted per code read), and the table stops
// growing at 4,096 entries until a clear code. Refused as damaged: a code past the table (which
// giflib turns into some pixels), a code that is not a pixel right after a clear, and the end code
// or the end of the sub-blocks before the last pixel (which giflib refuses too).
#include "gif_lzw.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    GifFileType *gif;
    GifByteType *block; // the current sub-block: block[0] is its length, the bytes follow
    int position;
    uint64_t bits;
    int bit_count;
    int ended; // the sub-blocks' terminator has been read
} hoard_gif_code_reader;

// Takes the next sub-block. Returns 0 when giflib fails (its error is then in gif->Error).
static int hoard_gif_next_block(hoard_gif_code_reader *reader) {
    if (DGifGetCodeNext(reader->gif, &reader->block) == GIF_ERROR) return 0;
    reader->position = 1;
    if (reader->block == NULL) reader->ended = 1;
    return 1;
}

// Reads one code of `width` bits into *code. Returns 1, 0 when the sub-blocks ended first, or -1
// when giflib failed.
static inline int hoard_gif_read_code(hoard_gif_code_reader *reader, int width, int *code) {
    while (reader->bit_count < width) {
        while (!reader->ended && reader->position > reader->block[0]) {
            if (!hoard_gif_next_block(reader)) return -1;
        }
        if (reader->ended) return 0;
        reader->bits |= (uint64_t)reader->block[reader->position++] << reader->bit_count;
        reader->bit_count += 8;
    }
    *code = (int)(reader->bits & ((1u << width) - 1));
    reader->bits >>= width;
    reader->bit_count -= width;
    return 1;
}

int hoard_gif_lzw_decode(GifFileType *gif, uint8_t *indices, size_t count,
                        char message[HOARD_CODEC_MESSAGE_CAPACITY]) {
    int code_size = 0;
    hoard_gif_code_reader reader = {.gif = gif};
    if (DGifGetCode(gif, &code_size, &reader.block) == GIF_ERROR) return HOARD_GIF_LZW_GIFLIB_FAILED;
    reader.position = 1;
    reader.ended = reader.block == NULL;
    if (code_size < 1 || code_size > 8) {
        snprintf(message, HOARD_CODEC_MESSAGE_CAPACITY, "GIF's LZW code size is %d (must be 1 to 8)", code_size);
        return HOARD_CODEC_MALFORMED;
    }
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
        int code = 0;
        int read = hoard_gif_read_code(&reader, width, &code);
        if (read < 0) return HOARD_GIF_LZW_GIFLIB_FAILED;
        if (read == 0) {
            defect = "GIF image data ends before its last pixel";
            break;
        }
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
    if (defect != NULL) {
        snprintf(message, HOARD_CODEC_MESSAGE_CAPACITY, "%s", defect);
        return HOARD_CODEC_MALFORMED;
    }
    while (!reader.ended) {
        if (!hoard_gif_next_block(&reader)) return HOARD_GIF_LZW_GIFLIB_FAILED;
    }
    return HOARD_CODEC_OK;
}
