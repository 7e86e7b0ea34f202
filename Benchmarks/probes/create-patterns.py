#!/usr/bin/env python3
"""Times three ways of creating a cache entry file, alternated, on the file system holding BASE.

Usage: create-patterns.py BASE [SIZE=65536] [COUNT=1000] [ROUNDS=5]

  temp+rename    create a temporary file in BASE/x/tmp, write, rename into BASE/x/s (Hoard's DiskCache)
  tmpfile+link   open(O_TMPFILE) in BASE/x/s, write, linkat(/proc/self/fd/N) into place
  plain          create the final name, write, close (diskcache's value files)

Each round makes COUNT new files per pattern in a fresh folder, after sync() and 0.3 s, and
deletes them afterwards; prints microseconds per file for every round and the median. Linux only
(O_TMPFILE, /proc).
"""
import ctypes, os, shutil, statistics, sys, tempfile, time

AT_FDCWD, AT_SYMLINK_FOLLOW = -100, 0x400
libc = ctypes.CDLL(None, use_errno=True)


def link_descriptor(descriptor, destination):
    source = f"/proc/self/fd/{descriptor}".encode()
    if libc.linkat(AT_FDCWD, source, AT_FDCWD, destination.encode(), AT_SYMLINK_FOLLOW) != 0:
        raise OSError(ctypes.get_errno(), "linkat", destination)


def timed(count, create_one):
    """Seconds taken by create_one(0) ... create_one(count - 1)."""
    start = time.perf_counter()
    for i in range(count):
        create_one(i)
    return time.perf_counter() - start


def temp_rename(folder, value, count):
    os.mkdir(folder + "/tmp"); os.mkdir(folder + "/s")

    def create_one(i):
        temporary = f"{folder}/tmp/{i}.tmp"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.pwrite(descriptor, value, 0)
        os.rename(temporary, f"{folder}/s/k{i}")
        os.close(descriptor)
    return timed(count, create_one)


def tmpfile_link(folder, value, count):
    os.mkdir(folder + "/s")

    def create_one(i):
        descriptor = os.open(folder + "/s", os.O_WRONLY | os.O_TMPFILE, 0o644)
        os.pwrite(descriptor, value, 0)
        link_descriptor(descriptor, f"{folder}/s/k{i}")
        os.close(descriptor)
    return timed(count, create_one)


def plain(folder, value, count):
    os.mkdir(folder + "/s")

    def create_one(i):
        descriptor = os.open(f"{folder}/s/k{i}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.pwrite(descriptor, value, 0)
        os.close(descriptor)
    return timed(count, create_one)


def main():
    base = sys.argv[1]
    given = [int(argument) for argument in sys.argv[2:5]]
    size, count, rounds = given + [65536, 1000, 5][len(given):]
    value = os.urandom(size)
    patterns = {"temp+rename": temp_rename, "tmpfile+link": tmpfile_link, "plain": plain}
    times = {name: [] for name in patterns}
    for _ in range(rounds):
        for name, pattern in patterns.items():
            folder = tempfile.mkdtemp(dir=base)
            os.sync(); time.sleep(0.3)
            times[name].append(pattern(folder, value, count) / count * 1e6)
            shutil.rmtree(folder)
    for name, values in times.items():
        rounds_text = " ".join(f"{v:7.1f}" for v in values)
        print(f"{base} {size:8d} B  {name:13} us/file {rounds_text}   median {statistics.median(values):7.1f}")


if __name__ == "__main__":
    main()
