// Open-file-description record locks on one byte of a file: the fetch leases that processes
// sharing a cache folder take (see LocalFetchLeases.swift). An OFD lock belongs to the open file,
// not the process: closing another descriptor of the file does not drop it, two opens in one
// process conflict like two processes, and the kernel drops it when the holder exits, however it
// exits. Linux only (F_OFD_*, since 3.15); elsewhere every call fails with ENOTSUP.

#define _GNU_SOURCE
#include "CHoardSupport.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#if defined(F_OFD_SETLK) && defined(F_OFD_GETLK)

static struct flock hoard_byte(short type, uint64_t offset) {
    struct flock lock;
    memset(&lock, 0, sizeof lock);  // l_pid must be 0 for OFD locks
    lock.l_type = type;
    lock.l_whence = SEEK_SET;
    lock.l_start = (off_t)(offset & 0x3FFFFFFFFFFFFFFFull);
    lock.l_len = 1;
    return lock;
}

int hoard_record_try_lock(int descriptor, uint64_t offset) {
    struct flock lock = hoard_byte(F_WRLCK, offset);
    if (fcntl(descriptor, F_OFD_SETLK, &lock) == 0) return 1;
    return errno == EAGAIN || errno == EACCES ? 0 : -1;
}

int hoard_record_unlock(int descriptor, uint64_t offset) {
    struct flock lock = hoard_byte(F_UNLCK, offset);
    return fcntl(descriptor, F_OFD_SETLK, &lock) == 0 ? 0 : -1;
}

int hoard_record_is_locked(int descriptor, uint64_t offset) {
    struct flock lock = hoard_byte(F_WRLCK, offset);
    if (fcntl(descriptor, F_OFD_GETLK, &lock) != 0) return -1;
    return lock.l_type == F_UNLCK ? 0 : 1;
}

#else

int hoard_record_try_lock(int descriptor, uint64_t offset) {
    (void)descriptor;
    (void)offset;
    errno = ENOTSUP;
    return -1;
}

int hoard_record_unlock(int descriptor, uint64_t offset) {
    (void)descriptor;
    (void)offset;
    errno = ENOTSUP;
    return -1;
}

int hoard_record_is_locked(int descriptor, uint64_t offset) {
    (void)descriptor;
    (void)offset;
    errno = ENOTSUP;
    return -1;
}

#endif
