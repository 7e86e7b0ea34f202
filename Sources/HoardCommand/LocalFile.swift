import Foundation
import Hoard
import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads local files whole, and asks what a path is, with plain system calls.
///
/// Only regular files are read, and only up to a limit the caller gives: a device (`/dev/zero`),
/// a FIFO or a socket named like an image must fail at once, never grow without bound or block.
/// `Data(contentsOf:)` costs more than the read itself for the small files of a warm run, and on
/// Linux it leaks its 4 KiB buffer for a file whose size is 0 (found by LeakSanitizer in
/// `scripts/sanitize address`).
enum LocalFile {
    /// Why a file could not be read.
    struct ReadError: Error, LocalizedError, CustomStringConvertible {
        enum Reason: Sendable, Equatable {
            /// A system call failed: its name and `errno`.
            case systemCall(String, Int32)
            /// Not a regular file: what it is instead ("a FIFO", "a directory", ...).
            case notRegularFile(String)
            /// The file is larger than the caller's limit.
            case tooLarge(byteCount: Int, limit: Int)
            /// A stream (standard input) went on past the caller's limit.
            case streamTooLong(limit: Int)
            /// The file ended after `read` of the `byteCount` bytes it had when opened.
            case shrank(byteCount: Int, read: Int)
        }

        let reason: Reason

        var description: String {
            switch reason {
            case .systemCall(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
            case .notRegularFile(let kind): "is \(kind), not a regular file"
            case .tooLarge(let byteCount, let limit):
                "is \(byteCount) bytes, larger than the limit of \(limit) bytes"
            case .streamTooLong(let limit): "is longer than the limit of \(limit) bytes"
            case .shrank(let byteCount, let read): "was cut short while read: \(read) of its \(byteCount) bytes"
            }
        }

        var errorDescription: String? { description }
    }

    /// The bytes of the regular file at `path`: its `st_size` bytes (fewer if it shrinks meanwhile).
    ///
    /// The file is opened with `O_NONBLOCK`, so opening a FIFO cannot block (opening a socket fails
    /// with `ENXIO`), then `fstat` of the open descriptor refuses anything but a regular file, and
    /// its size is checked against `maximumByteCount` before anything is read.
    ///
    /// ```swift
    /// let bytes = try LocalFile.read("/photos/a.jpg", maximumByteCount: 64 << 20)
    /// ```
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - maximumByteCount: The largest file accepted; at most this many bytes are read.
    /// - Returns: The file's bytes.
    /// - Throws: ``ReadError``: the failing call, what the file is if not a regular file, or its
    ///   size and the limit.
    static func read(_ path: String, maximumByteCount: Int) throws(ReadError) -> Data {
        let (descriptor, size) = try openRegularFile(path, maximumByteCount: maximumByteCount)
        defer { close(descriptor) }
        return try readAll(descriptor, upTo: size, isExact: true)
    }

    /// Opens the regular file at `path` for reading (as ``read(_:maximumByteCount:)`` does) and
    /// gives its descriptor, which the caller closes, and its size.
    ///
    /// - Throws: ``ReadError`` as ``read(_:maximumByteCount:)``.
    static func openRegularFile(_ path: String, maximumByteCount: Int) throws(ReadError) -> (descriptor: Int32, byteCount: Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let code = errno
            // open(2) of a socket fails with ENXIO: say what it is rather than "No such device".
            if code == ENXIO, let type = fileType(path, followingLinks: true), type != S_IFREG {
                throw ReadError(reason: .notRegularFile(kindName(type)))
            }
            throw ReadError(reason: .systemCall("open", code))
        }
        var isKept = false
        defer { if !isKept { close(descriptor) } }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw ReadError(reason: .systemCall("fstat", errno)) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw ReadError(reason: .notRegularFile(kindName(status.st_mode)))
        }
        let size = Int(status.st_size)
        guard size <= maximumByteCount else {
            throw ReadError(reason: .tooLarge(byteCount: size, limit: maximumByteCount))
        }
        isKept = true
        return (descriptor, size)
    }

    /// Reads from `descriptor` until `buffer` is full.
    ///
    /// - Throws: ``ReadError``: `read`'s `errno`, or ``ReadError/Reason/shrank(byteCount:read:)``
    ///   when the file ends first (it was cut short while read).
    static func readExactly(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(ReadError) {
        var length = 0
        while length < buffer.count {
            let result = FileSystem.syscall("read") { readSome(descriptor, UnsafeMutableRawBufferPointer(rebasing: buffer[length...])) }
            switch result {
            case .success(0): throw ReadError(reason: .shrank(byteCount: buffer.count, read: length))
            case .success(let count): length += count
            case .failure(let error): throw ReadError(reason: .systemCall(error.call, error.errno))
            }
        }
    }

    /// Standard input until its end, refused once it passes `maximumByteCount` bytes.
    ///
    /// - Throws: ``ReadError``: `read`'s `errno`, or ``ReadError/Reason/streamTooLong(limit:)``.
    static func readStandardInput(maximumByteCount: Int) throws(ReadError) -> Data {
        try readAll(STDIN_FILENO, upTo: maximumByteCount, isExact: false)
    }

    /// Whether something exists at `path` (a symbolic link counts as what it points to).
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    /// Whether `path` is a folder, or a symbolic link to one. One `stat` call: `FileManager`'s
    /// first use in a process is a noticeable part of a cached rerun's work.
    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// The paths of the regular files at any depth under `folder` whose names `include` accepts,
    /// unsorted.
    ///
    /// A symbolic link is followed with `stat` and counts only when it points to a regular file: a
    /// folder it points to is not entered (no cycles), and devices, FIFOs and sockets are skipped,
    /// linked or not. Subfolders that cannot be read are skipped. Each entry read, of any kind,
    /// spends one unit of `budget`; when it runs out the walk stops and nothing is returned.
    ///
    /// ```swift
    /// var budget = FolderEntryBudget(limit: 1_000_000)
    /// let images = try LocalFile.files(under: "/photos", budget: &budget) { $0.hasSuffix(".jpg") }
    /// ```
    ///
    /// - Parameters:
    ///   - folder: The folder to search (an absolute path).
    ///   - budget: The directory entries this walk may still read; spent as it reads.
    ///   - include: Whether a file's name is wanted.
    /// - Returns: The paths found.
    /// - Throws: ``FolderWalkError``: `folder` itself cannot be opened, or the budget ran out.
    /// - Complexity: O(*n*) in the entries under `folder`, with a `stat` only for links and for
    ///   entries whose type the file system does not report.
    static func files(
        under folder: String, budget: inout FolderEntryBudget, where include: (String) -> Bool
    ) throws(FolderWalkError) -> [String] {
        guard !budget.isExhausted else { throw .budgetExhausted(limit: budget.limit) }
        let root = folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        var found: [String] = []
        var pending = [root]
        var isRoot = true
        while let directory = pending.popLast() {
            let stream: DirectoryStream
            do {
                stream = try DirectoryStream(path: directory)
            } catch {
                if isRoot { throw .unreadable(folder: folder, error) }
                continue
            }
            isRoot = false
            let prefix = directory == "/" ? "/" : directory + "/"
            while let entry = stream.next() {
                guard budget.spend() else { throw .budgetExhausted(limit: budget.limit) }
                let path = prefix + entry.name
                switch entry.kind {
                case .directory:
                    pending.append(path)
                case .regular:
                    if include(entry.name) { found.append(path) }
                case .symbolicLink:
                    if include(entry.name), fileType(path, followingLinks: true) == S_IFREG { found.append(path) }
                case .unknown:
                    switch fileType(path, followingLinks: false) {
                    case S_IFDIR: pending.append(path)
                    case S_IFREG: if include(entry.name) { found.append(path) }
                    case S_IFLNK:
                        if include(entry.name), fileType(path, followingLinks: true) == S_IFREG { found.append(path) }
                    default: break
                    }
                case .special:
                    break
                }
            }
        }
        return found
    }

    // MARK: - Private

    /// `S_IFMT` of `path`'s mode from `stat` or `lstat`, or `nil` when the call fails.
    private static func fileType(_ path: String, followingLinks: Bool) -> mode_t? {
        var status = stat()
        let result = followingLinks ? stat(path, &status) : lstat(path, &status)
        return result == 0 ? status.st_mode & S_IFMT : nil
    }

    /// The name of a file type (`st_mode`), with its article, for messages.
    private static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "of unknown type"
        }
    }

    /// Reads from `descriptor` until end of file. With `isExact`, reads at most `byteCount` bytes
    /// and stops there; otherwise more than `byteCount` bytes is an error.
    private static func readAll(_ descriptor: Int32, upTo byteCount: Int, isExact: Bool) throws(ReadError) -> Data {
        // One byte more than the limit tells a stream that is too long from one that fits exactly.
        let capacity = isExact || byteCount == Int.max ? byteCount : byteCount + 1
        var data = Data(count: isExact ? byteCount : min(capacity, 64 * 1024))
        var length = 0
        while true {
            if length == data.count {
                if data.count == capacity { break }
                let doubled = data.count.multipliedReportingOverflow(by: 2)
                data.count = doubled.overflow ? capacity : min(capacity, doubled.partialValue)
            }
            let result = FileSystem.syscall("read") {
                data.withUnsafeMutableBytes { buffer in
                    readSome(descriptor, UnsafeMutableRawBufferPointer(rebasing: buffer[length...]))
                }
            }
            let count: Int
            switch result {
            case .success(let read): count = read
            case .failure(let error): throw ReadError(reason: .systemCall(error.call, error.errno))
            }
            if count == 0 { break }
            length += count
        }
        if !isExact, length > byteCount { throw ReadError(reason: .streamTooLong(limit: byteCount)) }
        data.count = length
        return data
    }
}

/// `read(2)` into `buffer`: outside ``LocalFile``, whose own `read` would shadow it.
private func readSome(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    return read(descriptor, base, buffer.count)
}
