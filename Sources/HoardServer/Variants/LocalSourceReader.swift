#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import HoardImage
import HoardSystem

/// Reads `local:` sources below a root folder: every folder on the way is opened with
/// `O_DIRECTORY | O_NOFOLLOW` from the one before, and the file is looked at without following a
/// link before it is opened (`fstatat` with `AT_SYMLINK_NOFOLLOW`), so no symbolic link is followed,
/// nothing outside the root is reached, and no device or FIFO is ever opened; only a regular file
/// no larger than the limit is read. Nothing is held open between the look and the read: a request
/// waiting for another's decode holds no descriptor.
struct LocalSourceReader: Sendable {
    /// The root folder's path.
    let root: String
    /// The largest file read, in bytes.
    let maximumBytes: Int

    /// A source file as it was looked at: what identifies this version of it.
    struct Found: Sendable {
        let components: [String]
        let fingerprint: ThumbnailKey.FileFingerprint
        /// The absolute path, as the tool names the file in its keys.
        let path: String
    }

    /// Looks at the file at `components` below the root, without opening it.
    ///
    /// - Throws: ``ServeError/sourceMissing(_:)`` for a missing file or folder;
    ///   ``ServeError/sourceRefused(_:)`` for a link, a device, a FIFO or another non-regular file,
    ///   or a component that is not one plain name; ``ServeError/sourceTooLarge(_:)`` past the limit.
    func find(_ components: [String]) throws(ServeError) -> Found {
        let (directory, name) = try openFolder(of: components)
        defer { FileSystem.close(directory) }
        var status = stat()
        let looked = FileSystem.syscall("fstatat") { name.withCString { fstatat(directory, $0, &status, AT_SYMLINK_NOFOLLOW) } }
        if case .failure(let error) = looked { throw Self.serveError(error, Self.shown(components)) }
        let fingerprint = try check(status, Self.shown(components))
        let path = URL(fileURLWithPath: root).standardizedFileURL.path + "/" + components.joined(separator: "/")
        return Found(components: components, fingerprint: fingerprint, path: path)
    }

    /// The bytes of `found`, which must still be the version looked at.
    ///
    /// - Throws: As ``find(_:)``; ``ServeError/sourceMissing(_:)`` when the file changed since.
    func read(_ found: Found) throws(ServeError) -> Data {
        let shown = Self.shown(found.components)
        let (directory, name) = try openFolder(of: found.components)
        defer { FileSystem.close(directory) }
        let file: Int32
        switch FileSystem.open(name, in: directory, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) {
        case .success(let descriptor): file = descriptor
        case .failure(let error): throw Self.serveError(error, shown)
        }
        defer { FileSystem.close(file) }
        var status = stat()
        guard fstat(file, &status) == 0 else { throw .sourceMissing("\(shown) cannot be read") }
        guard try check(status, shown) == found.fingerprint else { throw .sourceMissing("\(shown) changed while read") }
        var bytes = Data(count: Int(status.st_size))
        let read = bytes.withUnsafeMutableBytes { FileSystem.readFully(file, into: $0, at: 0) }
        guard case .success(let count) = read, count == bytes.count else {
            throw .sourceMissing("\(shown) changed or could not be read")
        }
        return bytes
    }

    /// The folder holding the file, opened from the root one component at a time without
    /// following links, and the file's name in it.
    private func openFolder(of components: [String]) throws(ServeError) -> (directory: Int32, name: String) {
        let shown = Self.shown(components)
        guard let name = components.last, components.allSatisfy(ImageSource.isPlainName) else {
            throw .sourceRefused("\(shown) is not a path of plain names")
        }
        var directory: Int32
        switch FileSystem.openDirectory(root) {
        case .success(let descriptor): directory = descriptor
        case .failure(let error): throw .internalError("the root folder cannot be opened: \(error)")
        }
        for component in components.dropLast() {
            let next = FileSystem.open(component, in: directory, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            FileSystem.close(directory)
            switch next {
            case .success(let descriptor): directory = descriptor
            case .failure(let error): throw Self.serveError(error, shown)
            }
        }
        return (directory, name)
    }

    /// Refuses anything but a regular file within the limit, and gives its fingerprint: its size
    /// and modification time to the nanosecond, as `ThumbnailKey(file:)` reads them.
    private func check(_ status: stat, _ shown: String) throws(ServeError) -> ThumbnailKey.FileFingerprint {
        guard status.st_mode & S_IFMT == S_IFREG else { throw .sourceRefused("\(shown) is not a regular file") }
        guard Int(status.st_size) <= maximumBytes else {
            throw .sourceTooLarge("\(shown) is \(status.st_size) bytes; the limit is \(maximumBytes)")
        }
        #if canImport(Darwin)
            let modified = status.st_mtimespec
        #else
            let modified = status.st_mtim
        #endif
        guard
            let fingerprint = try? ThumbnailKey.FileFingerprint(
                byteCount: Int(status.st_size), modificationSeconds: Int(modified.tv_sec),
                modificationNanoseconds: Int(modified.tv_nsec))
        else { throw .sourceMissing("\(shown) has an invalid modification time") }
        return fingerprint
    }

    private static func shown(_ components: [String]) -> String {
        "local:///" + components.joined(separator: "/")
    }

    private static func serveError(_ error: SystemCallError, _ shown: String) -> ServeError {
        switch error.errno {
        case ENOENT: .sourceMissing("\(shown) does not exist")
        case ELOOP, ENOTDIR, EMLINK: .sourceRefused("\(shown) passes through a link or a non-folder")
        case EACCES, EPERM: .sourceRefused("\(shown) may not be read")
        default: .internalError("\(shown) cannot be opened: \(error)")
        }
    }
}
