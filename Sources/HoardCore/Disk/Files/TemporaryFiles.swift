import Foundation
import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A temporary file being written: the `tmp` folder it lives in (open), its name there, and
/// the file itself (open, locked).
struct TemporaryFile {
    var directory: Int32
    var name: String
    var descriptor: Int32
    /// The path, for error messages only: every operation goes through `directory`.
    var path: String
}

/// The cache's `tmp` folder, where a large record is written in full before it is renamed into
/// place: `<pid>-<base-36 digits>.tmp` files, each `flock`ed by its writer until it closes it.
///
/// Invariant: a temporary file is removed only when no live writer holds its lock (or, where
/// `flock` is unsupported, it is older than ``DiskCache/Configuration/abandonedTemporaryFileAge``),
/// and only a regular file with the cache's own name, through the folder's descriptor.
struct TemporaryFiles: Sendable {
    /// The cache folder, whose `tmp` folder this is.
    let folder: CacheFolder
    /// The age rule for file systems without `flock`, and the logger.
    let configuration: DiskCache.Configuration

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

    /// Writes the record of `payload` to a new temporary file in `<root>/tmp/` (same file system,
    /// so that the rename is atomic), `flock`ed until the caller closes it, which tells a clean-up
    /// in any process that it is not abandoned. The payload is written in chunks with its
    /// CRC-32C computed on the way (one pass over the bytes), then the header, which holds the
    /// checksum, at offset 0. No `fsync`: a torn file after a crash fails its length or checksum
    /// check.
    ///
    /// - Returns: The open, locked temporary file and the header with its checksum.
    /// - Throws: ``DiskCacheError/writeFailed(path:call:errno:)``.
    func write(
        header: CacheRecord.Header, payload: Data, now: Date
    ) throws -> (TemporaryFile, CacheRecord.Header) {
        var header = header
        let temporary = try create()
        let descriptor = temporary.descriptor
        var isKept = false
        defer {
            if !isKept {
                _ = FileSystem.unlink(temporary.name, in: temporary.directory)
                FileSystem.close(descriptor)
                FileSystem.close(temporary.directory)
            }
        }
        let headerByteCount = header.byteCount
        var checksum = CRC32C()
        var written: Result<Void, SystemCallError> = payload.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let chunk = UnsafeRawBufferPointer(
                    rebasing: buffer[offset..<min(offset + Self.chunkByteCount, buffer.count)])
                checksum.update(chunk)
                if case .failure(let error) = FileSystem.writeAll(descriptor, chunk, at: headerByteCount + offset) {
                    return .failure(error)
                }
                offset += chunk.count
            }
            return .success(())
        }
        if case .success = written {
            header.payloadChecksum = checksum.value
            written = header.encoded().withUnsafeBytes { FileSystem.writeAll(descriptor, $0, at: 0) }
        }
        if case .failure(let error) = written {
            throw DiskCacheError.writeFailed(path: temporary.path, call: error.call, errno: error.errno)
        }
        // The modification time is the recency mark of a file the index does not know yet.
        _ = FileSystem.setTimes(descriptor, to: now)
        isKept = true
        return (temporary, header)
    }

    /// Creates and locks `<root>/tmp/<pid>-<random>.tmp`, creating the folder when missing.
    ///
    /// - Throws: ``DiskCacheError/foreignItem(path:reason:)`` or
    ///   ``DiskCacheError/writeFailed(path:call:errno:)``.
    func create() throws(DiskCacheError) -> TemporaryFile {
        guard let directory = try folder.openTemporaryDirectory(creating: true) else {
            throw .writeFailed(path: folder.temporaryDirectoryPath, call: "open", errno: ENOENT)
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
                    path: folder.temporaryDirectoryPath + "/" + name)
            case .failure(let error) where error.errno == EEXIST:
                continue
            case .failure(let error):
                FileSystem.close(directory)
                throw .writeFailed(path: folder.temporaryDirectoryPath + "/" + name, call: error.call, errno: error.errno)
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
    func removeAbandoned(now: Date) throws(DiskCacheError) -> Int {
        guard let directory = try folder.openTemporaryDirectory(creating: false) else { return 0 }
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
                metadata: ["count": "\(removed)", "path": .string(folder.temporaryDirectoryPath)])
        }
        return removed
    }

    // MARK: - Private

    /// Bytes of payload written (and checksummed) per system call.
    private static let chunkByteCount = 256 * 1024
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
