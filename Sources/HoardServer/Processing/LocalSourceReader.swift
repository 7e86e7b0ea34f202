#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import HoardImage
import HoardSystem

/// Reads `local:` sources below a root folder: every folder on the way is opened with
/// `O_DIRECTORY | O_NOFOLLOW` from the one before, the file with `O_NOFOLLOW | O_NONBLOCK`, so no
/// symbolic link is followed and nothing outside the root is reached; only a regular file no
/// larger than the limit is read.
struct LocalSourceReader: Sendable {
    /// The root folder's path.
    let root: String
    /// The largest file read, in bytes.
    let maximumBytes: Int

    /// An open source file: what identifies this version of it, and its bytes on demand.
    final class OpenFile: Sendable {
        let descriptor: Int32
        let byteCount: Int
        let fingerprint: ThumbnailKey.FileFingerprint
        /// The absolute path, as the tool names the file in its keys.
        let path: String
        let shown: String

        init(descriptor: Int32, byteCount: Int, fingerprint: ThumbnailKey.FileFingerprint, path: String, shown: String) {
            self.descriptor = descriptor
            self.byteCount = byteCount
            self.fingerprint = fingerprint
            self.path = path
            self.shown = shown
        }

        deinit { FileSystem.close(descriptor) }

        /// The file's bytes, as it was when opened.
        ///
        /// - Throws: ``ServeError/sourceMissing(_:)`` when it shrank or cannot be read.
        func read() throws(ServeError) -> Data {
            var bytes = Data(count: byteCount)
            let read = bytes.withUnsafeMutableBytes { FileSystem.readFully(descriptor, into: $0, at: 0) }
            guard case .success(let count) = read, count == byteCount else {
                throw .sourceMissing("\(shown) changed or could not be read")
            }
            return bytes
        }
    }

    /// Opens the file at `components` below the root, without reading it.
    ///
    /// - Throws: ``ServeError/sourceMissing(_:)`` for a missing file or folder;
    ///   ``ServeError/sourceRefused(_:)`` for a link, a device, a FIFO or another non-regular file;
    ///   ``ServeError/sourceTooLarge(_:)`` past the limit.
    func open(_ components: [String]) throws(ServeError) -> OpenFile {
        let shown = "local:///" + components.joined(separator: "/")
        var directory = try open(root, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, shown)
        defer { FileSystem.close(directory) }
        for component in components.dropLast() {
            let next = try open(component, in: directory, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, shown)
            FileSystem.close(directory)
            directory = next
        }
        let file = try open(components.last!, in: directory, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, shown)
        var status = stat()
        guard fstat(file, &status) == 0 else {
            FileSystem.close(file)
            throw .sourceMissing("\(shown) cannot be read")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            FileSystem.close(file)
            throw .sourceRefused("\(shown) is not a regular file")
        }
        guard Int(status.st_size) <= maximumBytes else {
            FileSystem.close(file)
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
        else {
            FileSystem.close(file)
            throw .sourceMissing("\(shown) has an invalid modification time")
        }
        let path = URL(fileURLWithPath: root).standardizedFileURL.path + "/" + components.joined(separator: "/")
        return OpenFile(descriptor: file, byteCount: Int(status.st_size), fingerprint: fingerprint, path: path, shown: shown)
    }

    private func open(_ name: String, in directory: Int32, flags: Int32, _ shown: String) throws(ServeError) -> Int32 {
        switch FileSystem.open(name, in: directory, flags: flags) {
        case .success(let descriptor): return descriptor
        case .failure(let error):
            switch error.errno {
            case ENOENT: throw .sourceMissing("\(shown) does not exist")
            case ELOOP, ENOTDIR, EMLINK: throw .sourceRefused("\(shown) passes through a link or a non-folder")
            default: throw .sourceMissing("\(shown) cannot be opened (errno \(error.errno))")
            }
        }
    }
}
