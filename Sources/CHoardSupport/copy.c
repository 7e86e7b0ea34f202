// A plain copy loop for payloads taken out of records.
#include "CHoardSupport.h"

// Why not memcpy: for blocks above a few KiB, glibc (2.36, Debian 12) copies with `rep movsb`, which
// on some AMD Zen CPUs runs at a small fraction of its speed for some distances between source and
// destination modulo 4 KiB (glibc bug 30994), among them a destination just below the source. A
// payload copied out of a record, from the record's header length onwards into a new allocation
// next to the record's, lands there on every call (the DocC article "Measurements behind the design",
// "Figures behind the source's choices"). Whole 64-byte blocks through vector registers run at full
// speed at any offset. `no_builtin` keeps the compiler from turning the loop back into a call to memcpy.
__attribute__((no_builtin("memcpy"))) void hoard_copy_bytes(void *restrict destination, const void *restrict source,
                                                            size_t count) {
    unsigned char *to = destination;
    const unsigned char *from = source;
    for (; count >= 64; count -= 64, to += 64, from += 64) __builtin_memcpy(to, from, 64);
    for (; count >= 8; count -= 8, to += 8, from += 8) __builtin_memcpy(to, from, 8);
    while (count--) *to++ = *from++;
}
