import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one place in the disk cache that calls C: thin wrappers over POSIX calls that retry on
/// `EINTR` and report failures as ``SystemCallError`` (which call, which errno).
package enum FileSystem {
    package static let readOnlyFlags: Int32 = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
    #if canImport(Darwin)
        /// Creates a new file, already `flock`ed (`O_EXLOCK`), so no trim can take it before it is written.
        package static let createExclusiveFlags: Int32 = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_EXLOCK
    #else
        /// Creates a new file; the caller `flock`s it right after.
        package static let createExclusiveFlags: Int32 = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW
    #endif

    /// `open(2)`.
    package static func open(_ path: String, flags: Int32, mode: UInt32 = 0o644) -> Result<Int32, SystemCallError> {
        syscall("open") { path.withCString { systemOpen($0, flags, mode_t(mode)) } }
    }

    /// `close(2)`; errors are ignored (the descriptor is gone either way).
    package static func close(_ descriptor: Int32) {
        _ = systemClose(descriptor)
    }

    /// `pwrite(2)` in a loop until every byte of `buffer` is written at `fileOffset`.
    package static func writeAll(
        _ descriptor: Int32, _ buffer: UnsafeRawBufferPointer, at fileOffset: Int
    ) -> Result<Void, SystemCallError> {
        guard let base = buffer.baseAddress else { return .success(()) }
        var offset = 0
        while offset < buffer.count {
            let result = syscall("pwrite") {
                systemPwrite(descriptor, base + offset, buffer.count - offset, off_t(fileOffset + offset))
            }
            switch result {
            case .success(0): return .failure(SystemCallError(call: "pwrite", errno: EIO))
            case .success(let written): offset += written
            case .failure(let error): return .failure(error)
            }
        }
        return .success(())
    }

    /// `pread(2)` in a loop until `buffer` is full or the file ends; returns the bytes read.
    package static func readFully(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at fileOffset: Int
    ) -> Result<Int, SystemCallError> {
        guard let base = buffer.baseAddress else { return .success(0) }
        var total = 0
        while total < buffer.count {
            let result = syscall("pread") {
                systemPread(descriptor, base + total, buffer.count - total, off_t(fileOffset + total))
            }
            switch result {
            case .success(0): return .success(total)
            case .success(let count): total += count
            case .failure(let error): return .failure(error)
            }
        }
        return .success(total)
    }

    /// `fstat(2)`.
    package static func status(of descriptor: Int32) -> Result<FileStatus, SystemCallError> {
        var info = stat()
        return syscall("fstat") { fstat(descriptor, &info) }.map { _ in FileStatus(info) }
    }

    /// `lstat(2)`: does not follow a symbolic link.
    package static func linkStatus(_ path: String) -> Result<FileStatus, SystemCallError> {
        var info = stat()
        return syscall("lstat") { path.withCString { lstat($0, &info) } }.map { _ in FileStatus(info) }
    }

    /// `rename(2)`: atomically replaces `destination` on the same file system.
    package static func rename(_ source: String, to destination: String) -> Result<Void, SystemCallError> {
        syscall("rename") { source.withCString { from in destination.withCString { to in systemRename(from, to) } } }
            .map { _ in () }
    }

    /// `unlink(2)`.
    package static func unlink(_ path: String) -> Result<Void, SystemCallError> {
        syscall("unlink") { path.withCString { systemUnlink($0) } }.map { _ in () }
    }

    /// `mkdir(2)` with mode 0700 (the XDG base-directory specification's mode for cache folders:
    /// only the user may read or plant entries); an existing directory is success, an existing non-directory `ENOTDIR`.
    package static func makeDirectory(_ path: String) -> Result<Void, SystemCallError> {
        if path.withCString({ mkdir($0, 0o700) }) == 0 { return .success(()) }
        var code = currentErrno()
        if code == EEXIST, case .success(let status) = status(ofPath: path) {
            if status.kind == .directory { return .success(()) }
            code = ENOTDIR
        }
        return .failure(SystemCallError(call: "mkdir", errno: code, path: path))
    }

    /// `mkdir(2)` for `path` and each missing parent, like `mkdir -p`; a failure names the folder
    /// that could not be made (or the file in its way).
    ///
    /// The deepest folder is tried first and parents only when it fails, so folders that exist
    /// cost nothing: a new cache shard used to cost a failed `mkdir` and a `stat` for every folder
    /// above it (a 60-thumbnail `hoard` batch into `/tmp/x/cache` made 217 `mkdir` calls, 161 of
    /// them failing; now 60).
    package static func makeDirectoryAndParents(_ path: String) -> Result<Void, SystemCallError> {
        switch makeDirectory(path) {
        case .success:
            return .success(())
        case .failure(let error) where error.errno == ENOENT || error.errno == ENOTDIR:
            // A parent is missing, or is not a folder: the parent's own attempt says which.
            var trimmed = Substring(path)
            while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
            guard let slash = trimmed.lastIndex(of: "/"), slash != trimmed.startIndex else { return .failure(error) }
            if case .failure(let parentError) = makeDirectoryAndParents(String(trimmed[..<slash])) {
                return .failure(parentError)
            }
            return makeDirectory(path)
        case .failure(let error):
            return .failure(error)
        }
    }

    /// `stat(2)`: follows symbolic links (for the cache's own folder, which may be one).
    package static func status(ofPath path: String) -> Result<FileStatus, SystemCallError> {
        var info = stat()
        return syscall("stat") { path.withCString { stat($0, &info) } }.map { _ in FileStatus(info) }
    }

    /// `realpath(3)`: `path` with every symbolic link in it resolved, as an absolute path without
    /// `.` or `..`. What a folder a user names is opened as, once, so that the cache's own checks
    /// against links apply inside it and not to the way there.
    package static func resolvedPath(_ path: String) -> Result<String, SystemCallError> {
        var resolved = ""
        return syscall("realpath") { () -> Int32 in
            guard let pointer = path.withCString({ realpath($0, nil) }) else { return -1 }
            defer { free(pointer) }
            resolved = String(cString: pointer)
            return 0
        }.map { _ in resolved }
    }

    /// `futimens(2)`: sets both the access and the modification time to `date`.
    package static func setTimes(_ descriptor: Int32, to date: Date) -> Result<Void, SystemCallError> {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let nanoseconds = (date.timeIntervalSince1970 - seconds) * 1_000_000_000
        let time = timespec(tv_sec: Int(seconds), tv_nsec: Int(min(max(nanoseconds, 0), 999_999_999)))
        let times = [time, time]
        return syscall("futimens") { futimens(descriptor, times) }.map { _ in () }
    }

    /// `flock(2)` with `LOCK_EX | LOCK_NB`: `true` when the lock was taken, `false` when another
    /// open file description holds it.
    package static func tryLockExclusive(_ descriptor: Int32) -> Result<Bool, SystemCallError> {
        switch syscall("flock", { flock(descriptor, LOCK_EX | LOCK_NB) }) {
        case .success: .success(true)
        case .failure(let error) where error.errno == EWOULDBLOCK: .success(false)
        case .failure(let error): .failure(error)
        }
    }


    /// `opendir(3)`/`readdir(3)`: the names in a directory, without `.` and `..`.
    package static func contentsOfDirectory(_ path: String) -> Result<[String], SystemCallError> {
        let stream: DirectoryStream
        do {
            stream = try DirectoryStream(path: path)
        } catch {
            return .failure(SystemCallError(call: error.call, errno: error.errno))
        }
        var names: [String] = []
        while let entry = stream.next() { names.append(entry.name) }
        return .success(names)
    }

    /// Removes the file (or symbolic link, never what it points to) at `path` with `unlink(2)`; a
    /// missing file is success unless `missingIsSuccess` is `false` (then it is `ENOENT`).
    ///
    /// Never removes a folder: the cache deletes only files it made, and a folder where an entry
    /// should be is somebody else's (`unlink` fails with `EISDIR` or `EPERM`).
    package static func removeFile(_ path: String, missingIsSuccess: Bool = true) -> Result<Void, SystemCallError> {
        switch unlink(path) {
        case .failure(let error) where error.errno == ENOENT && missingIsSuccess:
            return .success(())
        case let result:
            return result
        }
    }

    /// `open(2)` of a folder with `O_DIRECTORY | O_NOFOLLOW`: fails with `ELOOP` (or `ENOTDIR`)
    /// when `path` is a symbolic link, `ENOTDIR` when it is not a folder.
    package static func openDirectory(_ path: String) -> Result<Int32, SystemCallError> {
        open(path, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    }

    /// `openat(2)`: opens `name` in the folder open as `directory`.
    package static func open(
        _ name: String, in directory: Int32, flags: Int32, mode: UInt32 = 0o600
    ) -> Result<Int32, SystemCallError> {
        syscall("openat") { name.withCString { openat(directory, $0, flags, mode_t(mode)) } }
    }

    /// `fstatat(2)` with `AT_SYMLINK_NOFOLLOW`: `name` in the folder open as `directory`, itself.
    package static func linkStatus(_ name: String, in directory: Int32) -> Result<FileStatus, SystemCallError> {
        var info = stat()
        return syscall("fstatat") { name.withCString { fstatat(directory, $0, &info, AT_SYMLINK_NOFOLLOW) } }
            .map { _ in FileStatus(info) }
    }

    /// `unlinkat(2)` of the file `name` in the folder open as `directory` (never a folder).
    package static func unlink(_ name: String, in directory: Int32) -> Result<Void, SystemCallError> {
        syscall("unlinkat") { name.withCString { unlinkat(directory, $0, 0) } }.map { _ in () }
    }

    /// `renameat(2)`: moves `name` out of the folder open as `directory` to the path `destination`.
    package static func rename(_ name: String, in directory: Int32, to destination: String) -> Result<Void, SystemCallError> {
        syscall("renameat") {
            name.withCString { from in destination.withCString { to in renameat(directory, from, AT_FDCWD, to) } }
        }.map { _ in () }
    }

    /// `renameat(2)` between two open folders: `name` in `directory` becomes `destination` in
    /// `destinationDirectory`, replacing what is there. Neither name is resolved through a link.
    package static func rename(
        _ name: String, in directory: Int32, to destination: String, in destinationDirectory: Int32
    ) -> Result<Void, SystemCallError> {
        syscall("renameat") {
            name.withCString { from in
                destination.withCString { to in renameat(directory, from, destinationDirectory, to) }
            }
        }.map { _ in () }
    }

    /// `mkdirat(2)`: makes the folder `name` in the folder open as `directory`.
    package static func makeDirectory(_ name: String, in directory: Int32, mode: UInt32 = 0o700) -> Result<Void, SystemCallError> {
        syscall("mkdirat") { name.withCString { mkdirat(directory, $0, mode_t(mode)) } }.map { _ in () }
    }

    /// `openat(2)` of the folder `name` in the folder open as `directory`, with `O_DIRECTORY |
    /// O_NOFOLLOW`: fails with `ELOOP` or `ENOTDIR` when `name` is a link or not a folder.
    package static func openDirectory(_ name: String, in directory: Int32) -> Result<Int32, SystemCallError> {
        open(name, in: directory, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    }

    /// `dup(2)`.
    package static func duplicate(_ descriptor: Int32) -> Result<Int32, SystemCallError> {
        syscall("dup") { dup(descriptor) }
    }

    /// Makes `path` hold `bytes`, atomically: they are written to `<path>.<pid>-<random>.tmp`
    /// (created exclusively, never through a symbolic link), which is then renamed over `path`, so a
    /// reader sees the old file or the new one. No `fsync`. The one helper for small files written
    /// whole: the cache folder's marker and tag, the expiration mark, the tool's output files.
    /// (Entry files have their own path in `FileStore`: a locked temporary file in
    /// `tmp`, written in pieces with the checksum computed on the way.)
    ///
    /// - Returns: The failed call, with the path it was made on.
    package static func writeAtomically(
        _ bytes: some ContiguousBytes, to path: String, mode: UInt32 = 0o644
    ) -> Result<Void, SystemCallError> {
        let temporaryPath = path + ".\(processIdentifier)-\(String(UInt64.random(in: 0...UInt64.max), radix: 36)).tmp"
        let descriptor: Int32
        switch open(temporaryPath, flags: createExclusiveFlags, mode: mode) {
        case .success(let opened): descriptor = opened
        case .failure(let error): return .failure(SystemCallError(call: error.call, errno: error.errno, path: temporaryPath))
        }
        let written = bytes.withUnsafeBytes { writeAll(descriptor, $0, at: 0) }
        close(descriptor)
        let result = written.flatMap { rename(temporaryPath, to: path) }
        if case .failure(let error) = result {
            _ = unlink(temporaryPath)
            return .failure(SystemCallError(call: error.call, errno: error.errno, path: path))
        }
        return .success(())
    }

    /// The process identifier, for temporary file names.
    package static var processIdentifier: Int32 { getpid() }
}

// MARK: - Private

extension FileSystem {
    /// Calls `body`, a C function that returns -1 and sets `errno` on failure, again while it
    /// fails with `EINTR`: the one place that loop is written, for the library's system calls and
    /// the tool's (as swift-nio's `syscall(blocking:where:_:)` is for NIO's).
    ///
    /// ```swift
    /// let count = FileSystem.syscall("read") { read(descriptor, buffer, size) }
    /// ```
    ///
    /// - Returns: What `body` returned, or a ``SystemCallError`` naming `call` and `errno`.
    package static func syscall<Value: BinaryInteger>(
        _ call: String, _ body: () -> Value
    ) -> Result<Value, SystemCallError> {
        while true {
            let result = body()
            if result != -1 { return .success(result) }
            let code = currentErrno()
            if code != EINTR { return .failure(SystemCallError(call: call, errno: code)) }
        }
    }
}

/// The calling thread's `errno`.
private func currentErrno() -> Int32 {
    errno
}

// The C functions whose names the wrappers above reuse, reached through their module.
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 {
    #if canImport(Glibc)
        Glibc.open(path, flags, mode)
    #elseif canImport(Musl)
        Musl.open(path, flags, mode)
    #else
        Darwin.open(path, flags, mode)
    #endif
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
        Glibc.close(descriptor)
    #elseif canImport(Musl)
        Musl.close(descriptor)
    #else
        Darwin.close(descriptor)
    #endif
}

private func systemPwrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ offset: off_t) -> Int {
    #if canImport(Glibc)
        Glibc.pwrite(descriptor, buffer, count, offset)
    #elseif canImport(Musl)
        Musl.pwrite(descriptor, buffer, count, offset)
    #else
        Darwin.pwrite(descriptor, buffer, count, offset)
    #endif
}

private func systemPread(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: off_t) -> Int {
    #if canImport(Glibc)
        Glibc.pread(descriptor, buffer, count, offset)
    #elseif canImport(Musl)
        Musl.pread(descriptor, buffer, count, offset)
    #else
        Darwin.pread(descriptor, buffer, count, offset)
    #endif
}

private func systemRename(_ source: UnsafePointer<CChar>, _ destination: UnsafePointer<CChar>) -> Int32 {
    #if canImport(Glibc)
        Glibc.rename(source, destination)
    #elseif canImport(Musl)
        Musl.rename(source, destination)
    #else
        Darwin.rename(source, destination)
    #endif
}

private func systemUnlink(_ path: UnsafePointer<CChar>) -> Int32 {
    #if canImport(Glibc)
        Glibc.unlink(path)
    #elseif canImport(Musl)
        Musl.unlink(path)
    #else
        Darwin.unlink(path)
    #endif
}
