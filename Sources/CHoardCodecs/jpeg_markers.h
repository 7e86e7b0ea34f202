// The marker segments of a JPEG before its first scan, walked over the bytes without libjpeg: for
// the size its frame header declares and for its ICC profile.
#ifndef CHOARD_JPEG_MARKERS_H
#define CHOARD_JPEG_MARKERS_H

#include <stddef.h>
#include <stdint.h>

/// One marker segment: its marker byte, its body (after the length field) and how much of the body
/// the data holds (`available`, less than `length` when the data ends inside it).
typedef struct {
    uint8_t marker;
    const uint8_t *body;
    size_t length;
    size_t available;
} hoard_jpeg_segment;

/// Steps to the next segment that has a length, from `*offset` (2 to start, after SOI), skipping
/// fill bytes and markers without one. Returns 0 at SOS or EOI, at the end of the data, at a byte
/// that is not a marker, or at a length below 2.
int hoard_jpeg_next_segment(const uint8_t *data, size_t size, size_t *offset, hoard_jpeg_segment *segment);

#endif
