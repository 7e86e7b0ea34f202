// An SQLite busy handler that retries every millisecond: SQLite's own (sqlite3_busy_timeout)
// sleeps up to 100 ms between tries, so a connection that waits loses the lock, again and again,
// to one that takes it in a loop (a writer storing as fast as it can starves a trim's batches).

#include "CHoardSupport.h"

#include <time.h>

static int64_t hoard_monotonic_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

int hoard_busy_wait(void *context, int count) {
    hoard_busy_wait_state *state = context;
    int64_t now = hoard_monotonic_nanoseconds();
    if (count == 0) state->started = now;
    if (now - state->started >= (int64_t)state->timeout_milliseconds * 1000000) return 0;
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
    return 1;
}
