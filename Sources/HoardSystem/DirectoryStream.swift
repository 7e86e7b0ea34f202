import CHoardSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The entries of one folder, read with `readdir(3)`: what the disk tier's listing and the tool's
/// folder walk share.
///
/// Each record's name is read in place, bounded by the record's own length (see
/// `hoard_dirent_name`): `readdir` returns variable-length records, and copying the whole
/// `struct dirent` (280 bytes on Linux) out of a short one read past the end of its buffer.
///
/// ```swift
/// guard let stream = DirectoryStream(path: "/var/cache/app") else { return }
/// while let entry = stream.next() {
///     if entry.kind == .regular { print(entry.name) }
/// }
/// ```
package final class DirectoryStream {
    /// What kind of file an entry is, as the file system reports it without a `stat`.
    package enum Kind: Sendable, Equatable {
        case regular
        case directory
        case symbolicLink
        /// A FIFO, a socket, or a character or block device.
        case special
        /// The file system does not report types (`DT_UNKNOWN`): ask with `lstat`.
        case unknown
    }

    /// One entry: its name (never `.` or `..`) and its kind.
    package struct Entry: Sendable, Equatable {
        package var name: String
        package var kind: Kind
    }

    #if canImport(Darwin)
        private let stream: UnsafeMutablePointer<DIR>
    #else
        private let stream: OpaquePointer
    #endif

    /// Opens `path` with `opendir(3)` (a symbolic link to a folder is followed).
    ///
    /// - Throws: ``SystemCallError`` for `opendir`.
    package init(path: String) throws(SystemCallError) {
        guard let opened = path.withCString({ opendir($0) }) else {
            throw SystemCallError(call: "opendir", errno: errno, path: path)
        }
        stream = opened
    }

    /// Lists the folder open as `descriptor` with `fdopendir(3)`, which takes the descriptor over:
    /// it is closed with the stream, or at once when this throws.
    ///
    /// - Throws: ``SystemCallError`` for `fdopendir`.
    package init(descriptor: Int32) throws(SystemCallError) {
        guard let opened = fdopendir(descriptor) else {
            let code = errno
            close(descriptor)
            throw SystemCallError(call: "fdopendir", errno: code)
        }
        stream = opened
    }

    deinit {
        closedir(stream)
    }

    /// The next entry other than `.` and `..`, or `nil` at the end (or on a read error).
    package func next() -> Entry? {
        while let record = readdir(stream) {
            var length = 0
            guard let name = hoard_dirent_name(record, &length) else { continue }
            let bytes = UnsafeRawBufferPointer(start: name, count: length)
            if length == 1 && bytes[0] == 0x2E || length == 2 && bytes[0] == 0x2E && bytes[1] == 0x2E { continue }
            return Entry(name: String(decoding: bytes, as: UTF8.self), kind: Self.kind(hoard_dirent_type(record)))
        }
        return nil
    }

    private static func kind(_ type: UInt8) -> Kind {
        switch Int32(type) {
        case Int32(DT_REG): .regular
        case Int32(DT_DIR): .directory
        case Int32(DT_LNK): .symbolicLink
        case Int32(DT_UNKNOWN): .unknown
        default: .special
        }
    }
}
