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
enum FileSystem {
    static let readOnlyFlags: Int32 = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
    #if canImport(Darwin)
        /// Creates a new file, already `flock`ed (`O_EXLOCK`), so no trim can take it before it is written.
        static let createExclusiveFlags: Int32 = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_EXLOCK
    #else
        /// Creates a new file; the caller `flock`s it right after.
        static let createExclusiveFlags: Int32 = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW
    #endif

    /// `open(2)`.
    static func open(_ path: String, flags: Int32, mode: UInt32 = 0o644) -> Result<Int32, SystemCallError> {
        while true {
            let descriptor = path.withCString { systemOpen($0, flags, mode_t(mode)) }
            if descriptor >= 0 { return .success(descriptor) }
            let code = currentErrno()
            if code != EINTR { return .failure(SystemCallError(call: "open", errno: code)) }
        }
    }

    /// `close(2)`; errors are ignored (the descriptor is gone either way).
    static func close(_ descriptor: Int32) {
        _ = systemClose(descriptor)
    }

    /// `pwrite(2)` in a loop until every byte of `buffer` is written at `fileOffset`.
    static func writeAll(
        _ descriptor: Int32, _ buffer: UnsafeRawBufferPointer, at fileOffset: Int
    ) -> Result<Void, SystemCallError> {
        guard let base = buffer.baseAddress else { return .success(()) }
        var offset = 0
        while offset < buffer.count {
            let written = systemPwrite(descriptor, base + offset, buffer.count - offset, off_t(fileOffset + offset))
            if written > 0 {
                offset += written
            } else if written == 0 {
                return .failure(SystemCallError(call: "pwrite", errno: EIO))
            } else {
                let code = currentErrno()
                if code != EINTR { return .failure(SystemCallError(call: "pwrite", errno: code)) }
            }
        }
        return .success(())
    }

    /// `pread(2)` in a loop until `buffer` is full or the file ends; returns the bytes read.
    static func readFully(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at fileOffset: Int
    ) -> Result<Int, SystemCallError> {
        guard let base = buffer.baseAddress else { return .success(0) }
        var total = 0
        while total < buffer.count {
            let count = systemPread(descriptor, base + total, buffer.count - total, off_t(fileOffset + total))
            if count > 0 {
                total += count
            } else if count == 0 {
                break
            } else {
                let code = currentErrno()
                if code != EINTR { return .failure(SystemCallError(call: "pread", errno: code)) }
            }
        }
        return .success(total)
    }

    /// `fstat(2)`.
    static func status(of descriptor: Int32) -> Result<FileStatus, SystemCallError> {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            return .failure(SystemCallError(call: "fstat", errno: currentErrno()))
        }
        return .success(FileStatus(info))
    }

    /// `lstat(2)`: does not follow a symbolic link.
    static func linkStatus(_ path: String) -> Result<FileStatus, SystemCallError> {
        var info = stat()
        guard path.withCString({ lstat($0, &info) }) == 0 else {
            return .failure(SystemCallError(call: "lstat", errno: currentErrno()))
        }
        return .success(FileStatus(info))
    }

    /// `rename(2)`: atomically replaces `destination` on the same file system.
    static func rename(_ source: String, to destination: String) -> Result<Void, SystemCallError> {
        let result = source.withCString { from in destination.withCString { to in systemRename(from, to) } }
        return result == 0 ? .success(()) : .failure(SystemCallError(call: "rename", errno: currentErrno()))
    }

    /// `unlink(2)`.
    static func unlink(_ path: String) -> Result<Void, SystemCallError> {
        path.withCString { systemUnlink($0) } == 0
            ? .success(()) : .failure(SystemCallError(call: "unlink", errno: currentErrno()))
    }

    /// `mkdir(2)`; an existing directory is success, an existing non-directory `ENOTDIR`.
    static func makeDirectory(_ path: String) -> Result<Void, SystemCallError> {
        if path.withCString({ mkdir($0, 0o755) }) == 0 { return .success(()) }
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
    static func makeDirectoryAndParents(_ path: String) -> Result<Void, SystemCallError> {
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
    static func status(ofPath path: String) -> Result<FileStatus, SystemCallError> {
        var info = stat()
        guard path.withCString({ stat($0, &info) }) == 0 else {
            return .failure(SystemCallError(call: "stat", errno: currentErrno()))
        }
        return .success(FileStatus(info))
    }

    /// `futimens(2)`: sets both the access and the modification time to `date`.
    static func setTimes(_ descriptor: Int32, to date: Date) -> Result<Void, SystemCallError> {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let nanoseconds = (date.timeIntervalSince1970 - seconds) * 1_000_000_000
        let time = timespec(tv_sec: Int(seconds), tv_nsec: Int(min(max(nanoseconds, 0), 999_999_999)))
        let times = [time, time]
        return futimens(descriptor, times) == 0
            ? .success(()) : .failure(SystemCallError(call: "futimens", errno: currentErrno()))
    }

    /// `flock(2)` with `LOCK_EX | LOCK_NB`: `true` when the lock was taken, `false` when another
    /// open file description holds it.
    static func tryLockExclusive(_ descriptor: Int32) -> Result<Bool, SystemCallError> {
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return .success(true) }
            let code = currentErrno()
            if code == EWOULDBLOCK { return .success(false) }
            if code != EINTR { return .failure(SystemCallError(call: "flock", errno: code)) }
        }
    }

    /// `opendir(3)`/`readdir(3)`: the names in a directory, without `.` and `..`.
    static func contentsOfDirectory(_ path: String) -> Result<[String], SystemCallError> {
        guard let directory = path.withCString({ opendir($0) }) else {
            return .failure(SystemCallError(call: "opendir", errno: currentErrno()))
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = entry.pointee.name
            if name != "." && name != ".." { names.append(name) }
        }
        return .success(names)
    }

    /// Removes a file, or a directory with everything in it; a missing item is success unless
    /// `missingIsSuccess` is `false` (then it is `ENOENT`).
    static func removeItem(_ path: String, missingIsSuccess: Bool = true) -> Result<Void, SystemCallError> {
        switch unlink(path) {
        case .success:
            return .success(())
        case .failure(let error) where error.errno == ENOENT:
            return missingIsSuccess ? .success(()) : .failure(error)
        case .failure(let error) where error.errno == EISDIR || error.errno == EPERM:
            guard case .success(let status) = linkStatus(path), status.kind == .directory else {
                return .failure(error)
            }
            do {
                try FileManager.default.removeItem(atPath: path)
                return .success(())
            } catch {
                return linkStatus(path).isFailure
                    ? .success(()) : .failure(SystemCallError(call: "rmdir", errno: ENOTEMPTY))
            }
        case .failure(let error):
            return .failure(error)
        }
    }

    /// The process identifier, for temporary file names.
    static var processIdentifier: Int32 { getpid() }
}

// MARK: - Private

extension Result {
    fileprivate var isFailure: Bool {
        if case .failure = self { true } else { false }
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
