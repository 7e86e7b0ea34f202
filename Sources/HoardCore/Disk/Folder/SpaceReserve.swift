import Foundation
import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Room kept for a clean-up on a full disk: a file of allocated blocks, `space-reserve`, in the
/// cache folder.
///
/// Deleting rows needs room in the index's log, and the checkpoint that gives the log's room
/// back may first need the database file to grow (the pages the log holds that the file does not
/// have yet). On a disk the cache filled itself, neither has any: a clean-up that finds the disk
/// full removes this file and tries again (``DiskIndex/withDatabaseForCleanup(_:)``). The next
/// open or trim that finds room to spare makes it again.
///
/// Invariant: the reserve is made or completed only in a regular file of its own name with no
/// other link (never through a symbolic link, never into a file another name shares), only while
/// the disk has twice its size free, and removed only when it is a regular file; one that could
/// not be made whole is removed, and one a killed process left short is completed.
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

    /// Makes the reserve when it is missing, or completes one a process killed while making it
    /// left short, when the disk has at least twice its size free; cuts one made for a larger
    /// limit back to this size.
    ///
    /// The blocks are allocated (`posix_fallocate`), not written: the page cache stays clean.
    ///
    /// - Returns: Whether a whole reserve is there now.
    @discardableResult
    func make() -> Bool {
        switch FileSystem.linkStatus(path) {
        case .success(let status):
            guard status.kind == .regular, status.linkCount == 1 else { return false }
            if status.byteCount > byteCount { return shrink() }
            if status.byteCount == byteCount { return true }
        case .failure(let error) where error.errno == ENOENT: break
        case .failure: return false
        }
        guard let free = Self.availableByteCount(in: rootPath), free / 2 >= byteCount else { return false }
        guard case .success(let descriptor) = FileSystem.open(path, flags: O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode: 0o600)
        else { return false }  // a link or a folder took its place, or the folder is not writable
        defer { FileSystem.close(descriptor) }
        guard case .success(let status) = FileSystem.status(of: descriptor), status.kind == .regular, status.linkCount == 1
        else { return false }
        let isWhole = Self.allocate(descriptor, byteCount: byteCount)
        // Removed only while the name is still the file this call could not complete.
        if !isWhole, case .success(let now) = FileSystem.linkStatus(path), now.isSameFile(as: status) {
            _ = FileSystem.unlink(path)
        }
        return isWhole
    }

    /// Cuts the reserve back to ``byteCount``, through a descriptor opened without following a
    /// link and checked to be a regular file of one link.
    private func shrink() -> Bool {
        guard case .success(let descriptor) = FileSystem.open(path, flags: O_WRONLY | O_CLOEXEC | O_NOFOLLOW, mode: 0)
        else { return false }
        defer { FileSystem.close(descriptor) }
        guard case .success(let status) = FileSystem.status(of: descriptor), status.kind == .regular, status.linkCount == 1
        else { return false }
        return ftruncate(descriptor, off_t(byteCount)) == 0
    }

    /// Gives the file `descriptor` at least `byteCount` bytes of allocated blocks: allocated by the
    /// file system where it can, else written as zeros.
    private static func allocate(_ descriptor: Int32, byteCount: Int) -> Bool {
        #if canImport(Glibc) || canImport(Musl)
            let code = posix_fallocate(descriptor, 0, off_t(byteCount))
            if code == 0 { return true }
            guard code == EOPNOTSUPP || code == EINVAL else { return false }  // ENOSPC, EIO, ...
        #endif
        let piece = [UInt8](repeating: 0, count: 64 * 1024)
        return piece.withUnsafeBytes { zeros in
            stride(from: 0, to: byteCount, by: zeros.count).allSatisfy { offset in
                let count = min(zeros.count, byteCount - offset)
                return (try? FileSystem.writeAll(descriptor, UnsafeRawBufferPointer(rebasing: zeros[..<count]), at: offset).get())
                    != nil
            }
        }
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
