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

extension DiskCache {
    /// What ``readEntryFile(named:expectedKey:options:now:)`` reads besides the header.
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
        var header: Entry.Header
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
        case invalidHeader(Entry.Header.ParseError)
        case lengthMismatch(expected: Int, actual: Int)
        case keyMismatch
        case payloadChecksumMismatch(stored: UInt32, computed: UInt32)
        case shortRead(expected: Int, actual: Int)

        var description: String {
            switch self {
            case .notRegularFile(let kind): "not a regular file (\(kind))"
            case .symbolicLink: "a symbolic link"
            case .invalidHeader(let error): error.description
            case .lengthMismatch(let expected, let actual): "file is \(actual) bytes, header says \(expected)"
            case .keyMismatch: "key in header does not match the file name (hash collision or misplaced file)"
            case .payloadChecksumMismatch(let stored, let computed):
                "payload checksum mismatch (stored \(stored), computed \(computed))"
            case .shortRead(let expected, let actual): "short read: \(actual) of \(expected) bytes"
            }
        }
    }

    /// Reads and verifies the entry file `fileName`, removing it (and logging) when it is damaged
    /// or expired.
    ///
    /// - Parameters:
    ///   - fileName: The file's name, the SHA-256 hex of the key it must hold.
    ///   - expectedKey: The key when known (a lookup); `nil` when listing, then the header's key is
    ///     hashed and compared with `fileName`.
    /// - Returns: The verified file, or why there is none.
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` for I/O errors other than absence.
    func readEntryFile(
        named fileName: String, expectedKey: String?, options: ReadOptions, now: Date
    ) throws -> EntryLookup {
        let path = files.path(of: fileName)
        let descriptor: Int32
        switch try files.openForReading(fileName) {
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
        let header: Entry.Header
        let prefix: [UInt8]
        switch try readHeader(descriptor, status: status, path: path) {
        case .success(let parsed): (header, prefix) = parsed
        case .failure(let damage):
            discard(fileName, status: status, reason: damage.description, level: .warning)
            return .damaged
        }
        let keyMatches: Bool
        if let expectedKey {
            keyMatches = header.key.utf8.elementsEqual(expectedKey.utf8)
        } else {
            keyMatches = try Self.fileName(forKey: header.key) == fileName
        }
        guard keyMatches else {
            discard(fileName, status: status, reason: Damage.keyMismatch.description, level: .warning)
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
        let path = files.path(of: fileName)
        let removed = withIndexWithoutWaiting { connection in
            try connection.writeTransaction { try files.remove(fileName, ifSameAs: status, links: status == nil) }
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

    // MARK: - Private

    /// Reads the header; returns it with the bytes read so far (the header and possibly some payload).
    private func readHeader(
        _ descriptor: Int32, status: FileStatus, path: String
    ) throws -> Result<(Entry.Header, [UInt8]), Damage> {
        guard status.kind == .regular else { return .failure(.notRegularFile(status.kind)) }
        let fileSize = status.byteCount
        var prefix = try read(descriptor, count: min(fileSize, 16 * 1024), at: 0, path: path)
        guard prefix.count == min(fileSize, 16 * 1024) else {
            return .failure(.shortRead(expected: min(fileSize, 16 * 1024), actual: prefix.count))
        }
        var parsed = Entry.Header.parse(prefix)
        if case .failure(.truncated(let required)) = parsed, required > prefix.count, required <= fileSize {
            prefix = try read(descriptor, count: required, at: 0, path: path)
            guard prefix.count == required else {
                return .failure(.shortRead(expected: required, actual: prefix.count))
            }
            parsed = Entry.Header.parse(prefix)
        }
        switch parsed {
        case .failure(let error):
            return .failure(.invalidHeader(error))
        case .success(let header):
            guard header.fileByteCount == fileSize else {
                return .failure(.lengthMismatch(expected: header.fileByteCount, actual: fileSize))
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
        _ descriptor: Int32, header: Entry.Header, prefix: [UInt8], path: String
    ) throws -> Result<Data, Damage> {
        let count = header.payloadByteCount
        guard count > 0 else {
            let empty = CRC32C().value
            return header.payloadChecksum == empty
                ? .success(Data()) : .failure(.payloadChecksumMismatch(stored: header.payloadChecksum, computed: empty))
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
            return .failure(.payloadChecksumMismatch(stored: header.payloadChecksum, computed: crc.value))
        }
        isHandedOver = true
        return .success(Data(bytesNoCopy: memory, count: count, deallocator: .free))
    }

    /// How much of a payload is read before its checksum is updated: a quarter of a typical
    /// per-core L2 cache.
    static let payloadReadPiece = 256 * 1024

    /// Up to `count` bytes from `offset` (fewer at the end of the file).
    func read(_ descriptor: Int32, count: Int, at offset: Int, path: String) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initializedCount in
            switch FileSystem.readFully(descriptor, into: UnsafeMutableRawBufferPointer(buffer), at: offset) {
            case .success(let readCount):
                initializedCount = readCount
            case .failure(let error):
                initializedCount = 0
                throw DiskCacheError.readFailed(path: path, call: error.call, errno: error.errno)
            }
        }
    }
}
