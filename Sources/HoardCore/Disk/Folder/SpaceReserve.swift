import Foundation
import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Room kept for a clean-up on a full disk: a file of zeros, `space-reserve`, in the cache folder.
///
/// Deleting rows needs room in the index's log, and the checkpoint that gives the log's room
/// back may first need the database file to grow (the pages the log holds that the file does not
/// have yet). On a disk the cache filled itself, neither has any: a clean-up that finds the disk
/// full removes this file and tries again (``DiskIndex/withDatabaseForCleanup(_:)``). The next
/// open or trim that finds room to spare makes it again.
///
/// Invariant: the reserve is made only as a new file (`O_CREAT | O_EXCL | O_NOFOLLOW`: never
/// through a link, never over another file), only while the disk has twice its size free, and
/// removed only when it is a regular file; one that could not be made whole is removed.
struct SpaceReserve: Sendable {
    /// The reserve's name in the cache folder.
    static let fileName = "space-reserve"

    /// The cache folder.
    let rootPath: String
    /// The reserve's path.
    let path: String
    /// Its size: half the index's log limit, which is what a checkpoint can need the database
    /// file to grow by, and 64 KiB for the log itself.
    let byteCount: Int

    /// The reserve of the cache in `rootPath`, whose index's log is limited to `logByteLimit`.
    init(rootPath: String, logByteLimit: Int) {
        self.rootPath = rootPath
        path = rootPath + "/" + Self.fileName
        byteCount = Self.byteCount(forLogByteLimit: logByteLimit)
    }

    /// The reserve's size for an index whose log is limited to `logByteLimit`.
    static func byteCount(forLogByteLimit logByteLimit: Int) -> Int {
        logByteLimit / 2 + 64 * 1024
    }

    /// Makes the reserve when it is missing and the disk has at least twice its size free.
    ///
    /// - Returns: Whether a reserve is there now.
    @discardableResult
    func make() -> Bool {
        switch FileSystem.linkStatus(path) {
        case .success(let status): return status.kind == .regular
        case .failure(let error) where error.errno == ENOENT: break
        case .failure: return false
        }
        guard let free = Self.availableByteCount(in: rootPath), free / 2 >= byteCount else { return false }
        guard case .success(let descriptor) = FileSystem.open(path, flags: FileSystem.createExclusiveFlags, mode: 0o600)
        else { return false }  // another process is making it, or the folder is not writable
        defer { FileSystem.close(descriptor) }
        let piece = [UInt8](repeating: 0, count: 64 * 1024)
        let isWhole = piece.withUnsafeBytes { zeros in
            stride(from: 0, to: byteCount, by: zeros.count).allSatisfy { offset in
                let count = min(zeros.count, byteCount - offset)
                return (try? FileSystem.writeAll(descriptor, UnsafeRawBufferPointer(rebasing: zeros[..<count]), at: offset).get())
                    != nil
            }
        }
        if !isWhole { _ = FileSystem.unlink(path) }
        return isWhole
    }

    /// Removes the reserve, if it is there and a regular file.
    ///
    /// - Returns: Whether one was removed.
    @discardableResult
    func release() -> Bool {
        guard case .success(let status) = FileSystem.linkStatus(path), status.kind == .regular else { return false }
        return (try? FileSystem.unlink(path).get()) != nil
    }

    /// The bytes an unprivileged writer may still write on the file system holding `folder`, or
    /// `nil` when it cannot be told.
    private static func availableByteCount(in folder: String) -> Int? {
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { return nil }
        let (bytes, overflow) = Int(clamping: info.f_bavail).multipliedReportingOverflow(by: Int(clamping: info.f_frsize))
        return overflow ? .max : bytes
    }
}
