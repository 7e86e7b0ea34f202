import Foundation
import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension DiskCache {
    /// A temporary file being written: the `tmp` folder it lives in (open), its name there, and
    /// the file itself (open, locked).
    struct TemporaryFile {
        var directory: Int32
        var name: String
        var descriptor: Int32
        /// The path, for error messages only: every operation goes through `directory`.
        var path: String
    }

    /// Whether `name` is one the cache gives its temporary files: `<pid>-<base-36 digits>.tmp`.
    ///
    /// Clean-up removes only files with such names, so that nothing a user put in `tmp` is touched.
    static func isTemporaryFileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count > 6, bytes.count <= 40, name.hasSuffix(".tmp"),
            let dash = bytes.firstIndex(of: 0x2D), dash > 0
        else { return false }
        let isDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) }
        let isBase36 = { (byte: UInt8) in isDigit(byte) || (0x61...0x7A).contains(byte) }
        let random = bytes[(dash + 1)..<(bytes.count - 4)]
        return bytes[..<dash].allSatisfy(isDigit) && !random.isEmpty && random.allSatisfy(isBase36)
    }

    /// Opens the cache's `tmp` folder without following a symbolic link, creating it (mode 0700)
    /// when missing.
    ///
    /// - Throws: ``DiskCacheError/foreignItem(path:reason:)`` when `tmp` is a symbolic link, not a
    ///   folder, or owned by another user: it is not the cache's, so nothing is written into it or
    ///   removed from it. ``DiskCacheError/writeFailed(path:call:errno:)`` when it cannot be opened
    ///   or created.
    func openTemporaryDirectory(creating: Bool) throws(DiskCacheError) -> Int32? {
        var created = false
        while true {
            switch FileSystem.openDirectory(temporaryDirectoryPath) {
            case .success(let descriptor):
                if case .success(let status) = FileSystem.status(of: descriptor), status.owner != geteuid() {
                    FileSystem.close(descriptor)
                    throw .foreignItem(path: temporaryDirectoryPath, reason: "a folder owned by another user")
                }
                return descriptor
            case .failure(let error) where error.errno == ENOENT && creating && !created:
                created = true
                if case .failure(let mkdirError) = FileSystem.makeDirectory(temporaryDirectoryPath),
                    mkdirError.errno != EEXIST
                {
                    throw .writeFailed(path: temporaryDirectoryPath, call: mkdirError.call, errno: mkdirError.errno)
                }
            case .failure(let error) where error.errno == ENOENT:
                return nil
            case .failure(let error) where error.errno == ELOOP || error.errno == ENOTDIR || error.errno == EMLINK:
                let isLink = if case .success(let status) = FileSystem.linkStatus(temporaryDirectoryPath) {
                    status.kind == .symbolicLink
                } else { false }
                throw .foreignItem(path: temporaryDirectoryPath, reason: isLink ? "a symbolic link" : "not a folder")
            case .failure(let error):
                throw .writeFailed(path: temporaryDirectoryPath, call: error.call, errno: error.errno)
            }
        }
    }

    /// Creates and locks `<root>/tmp/<pid>-<random>.tmp`, creating the folder when missing.
    ///
    /// - Throws: ``DiskCacheError/foreignItem(path:reason:)`` or
    ///   ``DiskCacheError/writeFailed(path:call:errno:)``.
    func createTemporaryFile() throws(DiskCacheError) -> TemporaryFile {
        guard let directory = try openTemporaryDirectory(creating: true) else {
            throw .writeFailed(path: temporaryDirectoryPath, call: "open", errno: ENOENT)
        }
        while true {
            let name = "\(FileSystem.processIdentifier)-\(String(UInt64.random(in: 0...UInt64.max), radix: 36)).tmp"
            switch FileSystem.open(name, in: directory, flags: FileSystem.createExclusiveFlags, mode: 0o600) {
            case .success(let descriptor):
                // A trim may take the file between open and flock (Darwin's O_EXLOCK closes that
                // window; Linux has no atomic equivalent). If the trim holds the lock now, or has
                // already removed the file, start again with a fresh name. (Where flock is
                // unsupported, abandoned files are recognised by age instead.)
                let isHeldElsewhere = if case .success(false) = FileSystem.tryLockExclusive(descriptor) { true } else { false }
                if isHeldElsewhere || FileSystem.status(of: descriptor).map(\.linkCount) == .success(0) {
                    FileSystem.close(descriptor)
                    continue
                }
                return TemporaryFile(
                    directory: directory, name: name, descriptor: descriptor,
                    path: temporaryDirectoryPath + "/" + name)
            case .failure(let error) where error.errno == EEXIST:
                continue
            case .failure(let error):
                FileSystem.close(directory)
                throw .writeFailed(path: temporaryDirectoryPath + "/" + name, call: error.call, errno: error.errno)
            }
        }
    }

    /// Removes the temporary files that no live writer holds; returns how many.
    ///
    /// A writer holds an `flock` on its temporary file from creation to rename, and the kernel
    /// releases it when the writer dies, so a file whose lock this can take is abandoned (or was
    /// just renamed into place, in which case its temporary name is already gone). Only regular
    /// files with the cache's own temporary names are removed, through a descriptor of the `tmp`
    /// folder opened with `O_NOFOLLOW` (`unlinkat`): never a folder, never a file reached through a
    /// symbolic link, never a file the cache did not name.
    ///
    /// - Throws: ``DiskCacheError/foreignItem(path:reason:)`` when `tmp` is not the cache's own
    ///   folder (a symbolic link, a file, another user's folder).
    @discardableResult
    func removeAbandonedTemporaryFiles(now: Date) throws(DiskCacheError) -> Int {
        guard let directory = try openTemporaryDirectory(creating: false) else { return 0 }
        defer { FileSystem.close(directory) }
        guard case .success(let listed) = FileSystem.duplicate(directory),
            let stream = try? DirectoryStream(descriptor: listed)
        else { return 0 }
        var removed = 0
        while let entry = stream.next() {
            guard Self.isTemporaryFileName(entry.name), entry.kind == .regular || entry.kind == .unknown,
                case .success(let descriptor) = FileSystem.open(
                    entry.name, in: directory, flags: FileSystem.readOnlyFlags)
            else { continue }
            defer { FileSystem.close(descriptor) }  // after the unlink: nobody can lock it meanwhile
            guard case .success(let status) = FileSystem.status(of: descriptor), status.kind == .regular,
                isAbandonedTemporaryFile(descriptor, status: status, now: now),
                case .success(let named) = FileSystem.linkStatus(entry.name, in: directory),
                named.isSameFile(as: status),
                case .success = FileSystem.unlink(entry.name, in: directory)
            else { continue }
            removed += 1
        }
        if removed > 0 {
            configuration.logger.info(
                "Removed abandoned disk cache temporary files",
                metadata: ["count": "\(removed)", "path": .string(temporaryDirectoryPath)])
        }
        return removed
    }

    // MARK: - Private

    /// Whether no live writer holds the open temporary file: its lock is free or, where `flock`
    /// is unsupported, it has not been written for ``Configuration/abandonedTemporaryFileAge``.
    private func isAbandonedTemporaryFile(_ descriptor: Int32, status: FileStatus, now: Date) -> Bool {
        switch FileSystem.tryLockExclusive(descriptor) {
        case .success(let locked):
            return locked
        case .failure:
            return now.timeIntervalSince(status.modificationDate) >= configuration.abandonedTemporaryFileAge
        }
    }
}
