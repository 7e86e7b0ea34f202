import Foundation
import HoardSystem
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The records too large for a segment, one file each: written in full under a temporary name,
/// renamed into place with their index row, read and verified, removed with their row.
///
/// Invariant: an entry file becomes visible only together with its row (the rename and the row's
/// write are one transaction under the index's write lock), and every file it removes goes under
/// that lock too, so no clean-up in any process takes a file a writer is making visible for a
/// stray. A reader sees the old record, the new one, or a miss. Names are resolved through
/// ``EntryFiles``, never through a link; files being written are ``TemporaryFiles``'.
final class FileStore: Sendable {
    /// The cache folder, whose `tmp` folder holds files being written.
    let folder: CacheFolder
    /// The index, whose write lock orders files becoming visible and going.
    let index: DiskIndex
    /// Recency granularity, temporary-file age, logger.
    let configuration: DiskCache.Configuration
    /// The entry files, reached through descriptors.
    private let entryFiles: EntryFiles

    /// What ``read(named:expectedKey:options:now:)`` reads besides the header.
    struct ReadOptions: OptionSet, Sendable {
        let rawValue: Int
        /// Read and verify the payload.
        static let payload = ReadOptions(rawValue: 1)
        /// Mark the entry as recently used (throttled by `recencyUpdateInterval`).
        static let markUsed = ReadOptions(rawValue: 2)
        /// Return an expired entry instead of removing it (it is then not marked used either).
        static let keepExpired = ReadOptions(rawValue: 4)
        /// Keep the payload's first bytes that the header read brought along (up to 16 KiB, not
        /// verified), for a look at what the entry holds without reading it all.
        static let payloadPrefix = ReadOptions(rawValue: 8)
    }

    /// A verified entry file.
    struct EntryFile: Sendable {
        var header: CacheRecord.Header
        var status: FileStatus
        /// The verified payload, when ``ReadOptions/payload`` was asked for.
        var payload: Data?
        /// The payload's first bytes (unverified), when ``ReadOptions/payloadPrefix`` was asked for.
        var payloadPrefix: ArraySlice<UInt8>?
    }

    /// What a read found at an entry path.
    enum EntryLookup: Sendable {
        /// No file.
        case absent
        /// A damaged file, now removed (or replaced meanwhile) and logged.
        case damaged
        /// An expired entry, now removed.
        case expired
        /// A verified entry.
        case found(EntryFile)

        /// The entry when found, else `nil`.
        var file: EntryFile? {
            if case .found(let file) = self { file } else { nil }
        }
    }

    /// Why a file at an entry path is not a usable entry.
    enum Damage: Error, Sendable, Hashable, CustomStringConvertible {
        case notRegularFile(FileStatus.Kind)
        case symbolicLink
        /// The bytes are not an intact record for the file's key.
        case record(CacheRecord.Damage)
        case shortRead(expected: Int, actual: Int)

        var description: String {
            switch self {
            case .notRegularFile(let kind): "not a regular file (\(kind))"
            case .symbolicLink: "a symbolic link"
            case .record(let damage): damage.description
            case .shortRead(let expected, let actual): "short read: \(actual) of \(expected) bytes"
            }
        }
    }

    /// Where large records are written before they are renamed into place.
    let temporaryFiles: TemporaryFiles

    /// Opens the cache folder's entry files and keeps what the store needs.
    ///
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)``.
    init(folder: CacheFolder, index: DiskIndex, configuration: DiskCache.Configuration) throws(DiskCacheError) {
        self.folder = folder
        self.index = index
        self.configuration = configuration
        entryFiles = try EntryFiles(rootPath: folder.rootPath)
        temporaryFiles = TemporaryFiles(folder: folder, configuration: configuration)
    }

    /// The path of an entry file, for messages and logs only.
    func path(of fileName: String) -> String { entryFiles.path(of: fileName) }

    /// Reads and verifies the entry file `fileName`, removing it (and logging) when it is damaged
    /// or expired.
    ///
    /// - Parameters:
    ///   - fileName: The file's name, the SHA-256 hex of the key it must hold.
    ///   - expectedKey: The key when known (a lookup); `nil` when listing, then the header's key is
    ///     hashed and compared with `fileName`.
    /// - Returns: The verified file, or why there is none.
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` for I/O errors other than absence.
    func read(
        named fileName: String, expectedKey: String?, options: ReadOptions, now: Date
    ) throws -> EntryLookup {
        let path = entryFiles.path(of: fileName)
        let descriptor: Int32
        switch try entryFiles.openForReading(fileName) {
        case .file(let opened):
            descriptor = opened
        case .absent:
            return .absent
        case .link:
            // The link itself goes (it sits where the cache keeps its own file); what it points
            // to is never opened.
            discard(fileName, status: nil, reason: Damage.symbolicLink.description, level: .warning)
            return .damaged
        case .foreign(let reason):
            configuration.logger.warning(
                "Disk cache entry is not the cache's own file: left alone, read as a miss",
                metadata: ["path": .string(path), "reason": .string(reason)])
            return .damaged
        }
        defer { FileSystem.close(descriptor) }

        let status: FileStatus
        switch FileSystem.status(of: descriptor) {
        case .success(let value): status = value
        case .failure(let error): throw DiskCacheError.readFailed(path: path, call: error.call, errno: error.errno)
        }
        let header: CacheRecord.Header
        let prefix: [UInt8]
        switch try readHeader(descriptor, status: status, path: path) {
        case .success(let parsed): (header, prefix) = parsed
        case .failure(let damage):
            discard(fileName, status: status, reason: damage.description, level: .warning)
            return .damaged
        }
        let keyMatches: Bool
        if let expectedKey {
            keyMatches = ExactString(header.key) == ExactString(expectedKey)
        } else {
            keyMatches = try EntryFiles.fileName(forKey: header.key) == fileName
        }
        guard keyMatches else {
            discard(fileName, status: status, reason: Damage.record(.otherKey).description, level: .warning)
            return .damaged
        }
        let isExpired = header.isExpired(at: now)
        if isExpired, !options.contains(.keepExpired) {
            discard(fileName, status: status, reason: "expired", level: .debug)
            return .expired
        }
        var payload: Data?
        if options.contains(.payload) {
            switch try readPayload(descriptor, header: header, prefix: prefix, path: path) {
            case .success(let bytes): payload = bytes
            case .failure(let damage):
                discard(fileName, status: status, reason: damage.description, level: .warning)
                return .damaged
            }
        }
        if options.contains(.markUsed), !isExpired,
            now.timeIntervalSince(status.modificationDate) >= configuration.recencyUpdateInterval
        {
            // Best effort: a file owned by another user cannot be touched, and that only costs recency.
            _ = FileSystem.setTimes(descriptor, to: now)
        }
        let payloadPrefix = options.contains(.payloadPrefix) ? prefix[min(header.byteCount, prefix.count)...] : nil
        return .found(EntryFile(header: header, status: status, payload: payload, payloadPrefix: payloadPrefix))
    }

    /// Removes entry file `fileName` if it is still the file described by `status` (another
    /// process may have renamed a fresh entry into place since it was opened), and logs why. Best
    /// effort, and never a wait: it takes the index's write lock (under which files are made
    /// visible) only when it is free, and leaves the file for a later read or trim otherwise.
    func discard(_ fileName: String, status: FileStatus?, reason: String, level: Logger.Level) {
        let path = entryFiles.path(of: fileName)
        let removed = index.withDatabaseWithoutWaiting { _ in
            try entryFiles.remove(fileName, ifSameAs: status, links: status == nil)
        }
        switch removed {
        case .some(.some):
            let message: Logger.Message =
                level == .debug ? "Removed expired disk cache entry" : "Removed damaged disk cache entry"
            configuration.logger.log(level: level, message, metadata: ["path": .string(path), "reason": .string(reason)])
        case .some(.none) where status.map({ $0.kind != .regular }) ?? false:
            configuration.logger.warning(
                "Cannot remove damaged or expired disk cache entry: not a regular file, left alone",
                metadata: ["path": .string(path), "reason": .string(reason)])
        case .some(.none):
            break  // replaced or removed meanwhile
        case .none:
            configuration.logger.debug(
                "Damaged or expired disk cache entry left for later: the index is busy",
                metadata: ["path": .string(path), "reason": .string(reason)])
        }
    }

    /// Deletes the row of `hash`, only if its last-use date is still `lastUsed` when given (a row
    /// replaced or used since it was read is kept), with the entry file of a row that named one
    /// (inside the caller's transaction, so that no writer is making a file visible meanwhile);
    /// returns whether a row went. The row's trigger takes it off the running totals.
    func removeEntry(_ hash: [UInt8], ifLastUsed lastUsed: Double? = nil, on connection: SQLiteConnection) throws -> Bool {
        // The row is read first, not with `DELETE ... RETURNING`: SQLite 3.40 gives a wrong
        // `record IS NOT NULL` in a RETURNING clause.
        guard let row = try EntryTable(connection: connection).row(hash), lastUsed == nil || row.lastUsed == lastUsed else {
            return false
        }
        try EntryTable(connection: connection).delete(hash)
        if row.placement == .file {
            try entryFiles.remove(SHA256.hex(hash))
        }
        // A record in a segment leaves dead bytes there until a compaction; one inside the index,
        // a free page until a vacuum.
        return true
    }

    /// Renames the temporary file into place as the entry of `hash` and writes its row, inside the
    /// caller's write transaction: the file becomes visible only together with its row, so a
    /// clean-up (which removes files only under the same lock) never takes it for a stray.
    ///
    /// - Returns: Whether the file was renamed; `false` when the temporary file is gone (a clean-up
    ///   in another process took it between its creation and its lock).
    /// - Throws: ``DiskCacheError/writeFailed(path:call:errno:)``; ``DiskCacheError/foreignItem(path:reason:)``.
    func place(_ temporary: TemporaryFile, header: CacheRecord.Header, hash: [UInt8], now: Date, on connection: SQLiteConnection) throws -> Bool {
        guard try entryFiles.moveIntoPlace(temporary: temporary.name, in: temporary.directory, as: SHA256.hex(hash)) else {
            return false
        }
        try EntryTable(connection: connection).upsert(hash: hash, header: header, used: now, record: nil)
        return true
    }

    /// Writes the record of `payload` to a new, locked temporary file (see ``TemporaryFiles/write(header:payload:now:)``).
    func writeTemporary(header: CacheRecord.Header, payload: Data, now: Date) throws -> (TemporaryFile, CacheRecord.Header) {
        try temporaryFiles.write(header: header, payload: payload, now: now)
    }

    /// Removes the temporary files no live writer holds; returns how many.
    @discardableResult
    func removeAbandonedTemporaryFiles(now: Date) throws(DiskCacheError) -> Int {
        try temporaryFiles.removeAbandoned(now: now)
    }

    /// The entry files in the folder (see ``EntryFiles/scan()``).
    func scan() throws(DiskCacheError) -> [EntryFiles.Scanned] { try entryFiles.scan() }

    /// The status of entry file `fileName`, or `nil` when there is none.
    func status(of fileName: String) -> FileStatus? { entryFiles.status(of: fileName) }

    /// Removes entry file `fileName` (see ``EntryFiles/remove(_:ifSameAs:links:)``); call under the
    /// index's write lock.
    @discardableResult
    func remove(_ fileName: String, ifSameAs expected: FileStatus? = nil) throws(DiskCacheError) -> Int? {
        try entryFiles.remove(fileName, ifSameAs: expected)
    }

    // MARK: - Private

    /// How much of a payload is read before its checksum is updated: a quarter of a typical
    /// per-core L2 cache.
    static let payloadReadPiece = 256 * 1024

    /// Reads the header; returns it with the bytes read so far (the header and possibly some payload).
    private func readHeader(
        _ descriptor: Int32, status: FileStatus, path: String
    ) throws -> Result<(CacheRecord.Header, [UInt8]), Damage> {
        guard status.kind == .regular else { return .failure(.notRegularFile(status.kind)) }
        let fileSize = status.byteCount
        var prefix = try FileSystem.readBytes(descriptor, count: min(fileSize, 16 * 1024), at: 0, path: path)
        guard prefix.count == min(fileSize, 16 * 1024) else {
            return .failure(.shortRead(expected: min(fileSize, 16 * 1024), actual: prefix.count))
        }
        var parsed = CacheRecord.Header.parse(prefix)
        if case .failure(.truncated(let required)) = parsed, required > prefix.count, required <= fileSize {
            prefix = try FileSystem.readBytes(descriptor, count: required, at: 0, path: path)
            guard prefix.count == required else {
                return .failure(.shortRead(expected: required, actual: prefix.count))
            }
            parsed = CacheRecord.Header.parse(prefix)
        }
        switch parsed {
        case .failure(let error):
            return .failure(.record(.header(error.description)))
        case .success(let header):
            guard header.fileByteCount == fileSize else {
                return .failure(.record(.lengthMismatch(expected: header.fileByteCount, actual: fileSize)))
            }
            return .success((header, prefix))
        }
    }

    /// Reads the payload (reusing what `prefix` already holds) and checks its CRC-32C.
    ///
    /// The bytes go into memory that is not zeroed first (`Data(count:)` would clear a megabyte
    /// only for the read to overwrite it), and become the returned `Data` only once verified. They
    /// are read and checked in pieces of ``payloadReadPiece`` bytes, so that the checksum reads
    /// each piece while it is still in the CPU's cache.
    private func readPayload(
        _ descriptor: Int32, header: CacheRecord.Header, prefix: [UInt8], path: String
    ) throws -> Result<Data, Damage> {
        let count = header.payloadByteCount
        guard count > 0 else {
            let empty = CRC32C().value
            return header.payloadChecksum == empty
                ? .success(Data()) : .failure(.record(.payloadChecksumMismatch(stored: header.payloadChecksum, computed: empty)))
        }
        guard let memory = malloc(count) else {
            throw DiskCacheError.readFailed(path: path, call: "malloc", errno: ENOMEM)
        }
        var isHandedOver = false
        defer { if !isHandedOver { free(memory) } }
        let buffer = UnsafeMutableRawBufferPointer(start: memory, count: count)
        var crc = CRC32C()
        var done = min(max(prefix.count - header.byteCount, 0), count)
        if done > 0 {
            prefix.withUnsafeBytes { source in
                let already = UnsafeRawBufferPointer(rebasing: source[header.byteCount..<header.byteCount + done])
                buffer.copyMemory(from: already)
                crc.update(already)
            }
        }
        while done < count {
            let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[done..<min(count, done + Self.payloadReadPiece)])
            switch FileSystem.readFully(descriptor, into: piece, at: header.byteCount + done) {
            case .failure(let error):
                throw DiskCacheError.readFailed(path: path, call: error.call, errno: error.errno)
            case .success(let readCount):
                crc.update(UnsafeRawBufferPointer(rebasing: piece[..<readCount]))
                done += readCount
                guard readCount == piece.count else { return .failure(.shortRead(expected: count, actual: done)) }
            }
        }
        guard crc.value == header.payloadChecksum else {
            return .failure(.record(.payloadChecksumMismatch(stored: header.payloadChecksum, computed: crc.value)))
        }
        isHandedOver = true
        return .success(Data(bytesNoCopy: memory, count: count, deallocator: .free))
    }
}
