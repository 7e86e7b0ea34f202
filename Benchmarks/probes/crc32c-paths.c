/*
 * crc32c-paths.c: the speed of each of hoard_crc32c_update's paths (Sources/CHoardSupport/checksum.c)
 * on this CPU, at the record sizes the disk tier checks: 1 KiB and 16 KiB (segment records, in L1
 * or L2 after the read that fetched them) and 1 MiB (a file of its own).
 *
 *   clang -O2 -I Sources/CHoardSupport/include -o /tmp/crc32c-paths Benchmarks/probes/crc32c-paths.c \
 *       Sources/CHoardSupport/checksum.c -lpthread
 *   /tmp/crc32c-paths
 *
 * clang, the Swift toolchain's, is what SwiftPM builds the package's C with; gcc's build of the
 * folding paths runs slower.
 *
 * For each path this CPU has and each size, the best of 7 runs of enough repetitions over the same
 * buffer to last about 50 ms, in GB/s (10^9 bytes). A path the CPU lacks is reported as such, not
 * timed (hoard_crc32c_update_path would fall back to a faster one's figure).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "CHoardSupport.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void) {
    static const char *names[] = {"table", "instruction", "folding, 32-byte lanes", "folding, 64-byte lanes"};
    static const size_t sizes[] = {1024, 16384, 1 << 20};
    uint8_t *bytes = malloc(1 << 20);
    if (bytes == NULL) return 1;
    for (size_t index = 0; index < (1 << 20); index++) bytes[index] = (uint8_t)(index * 131 + (index >> 9));
    int best = hoard_crc32c_best_path();
    printf("fastest path: %s\n", names[best]);
    volatile uint32_t sink = 0;
    for (int path = HOARD_CRC_PATH_TABLE; path <= HOARD_CRC_PATH_FOLDING_512; path++) {
        if (path > best) {
            printf("%-24s not on this CPU\n", names[path]);
            continue;
        }
        printf("%-24s", names[path]);
        for (size_t size = 0; size < sizeof sizes / sizeof *sizes; size++) {
            size_t length = sizes[size];
            size_t repetitions = (size_t)(50e6 / (double)length / (path == HOARD_CRC_PATH_TABLE ? 20 : 1)) + 1;
            double fastest = 1e9;
            for (int run = 0; run < 7; run++) {
                double started = now();
                for (size_t repetition = 0; repetition < repetitions; repetition++)
                    sink += hoard_crc32c_update_path(path, 0xFFFFFFFFu, bytes, length);
                double elapsed = now() - started;
                if (elapsed < fastest) fastest = elapsed;
            }
            printf("  %7zu B %6.1f GB/s", length, (double)length * (double)repetitions / fastest / 1e9);
        }
        printf("\n");
    }
    free(bytes);
    return (int)(sink & 0);
}
