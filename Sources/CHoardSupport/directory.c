#include "CHoardSupport.h"

#include <string.h>

const char *hoard_dirent_name(const struct dirent *entry, size_t *length) {
#if defined(__APPLE__)
    size_t capacity = entry->d_namlen;
#else
    // d_reclen covers the fixed fields, the name and its NUL (plus padding): the name cannot run
    // past it, and nothing after it belongs to this record.
    size_t start = offsetof(struct dirent, d_name);
    size_t capacity = entry->d_reclen > start ? entry->d_reclen - start : 0;
#endif
    *length = strnlen(entry->d_name, capacity);
    return entry->d_name;
}

unsigned char hoard_dirent_type(const struct dirent *entry) { return entry->d_type; }
