#include "jpeg_markers.h"

int hoard_jpeg_next_segment(const uint8_t *data, size_t size, size_t *offset, hoard_jpeg_segment *segment) {
    while (*offset + 4 <= size) {
        size_t at = *offset;
        if (data[at] != 0xFF) return 0;
        uint8_t marker = data[at + 1];
        if (marker == 0xFF) { // fill byte
            *offset += 1;
            continue;
        }
        if (marker == 0x01 || marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7)) { // no length
            *offset += 2;
            continue;
        }
        if (marker == 0xDA || marker == 0xD9) return 0; // SOS or EOI
        size_t length = (size_t)data[at + 2] << 8 | data[at + 3];
        if (length < 2) return 0;
        segment->marker = marker;
        segment->body = data + at + 4;
        segment->length = length - 2;
        segment->available = size - at - 4 < length - 2 ? size - at - 4 : length - 2;
        *offset += 2 + length;
        return 1;
    }
    return 0;
}
