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

/// The records from ``recordThreshold`` bytes to the inline limit, appended to shared segment
/// files (`segment-<id>`): appending, reading, compacting, and the dead bytes in between.
///
/// Invariant: the bytes at a committed segment and offset never change while the file exists, and
/// every segment's length is in the index (the `segments` table), so the bytes segments take,
/// dead records included, are counted where every process sees them and a compaction gives
/// them back: with the index and entry files, bytes on disk ≤ limit + slack. Only regular,
/// single-link files the cache made are written (see ``SegmentFiles``).
final class SegmentStore: Sendable {
    /// The cache folder's path.
    let rootPath: String
    /// The index, whose rows name the segments and the records in them.
    let index: DiskIndex
    /// How long a segment grows before the next record starts a new one: a quarter of the size
    /// limit, from 1 MiB to 32 MiB, so that the space compaction has to copy stays small beside
    /// the cache.
    let byteLimit: Int
    /// The logger and the clock.
    let configuration: DiskCache.Configuration
    /// The segment files this process has open.
    let files: SegmentFiles

    /// The segment store of the cache in `rootPath`; nothing is opened until used.
    init(rootPath: String, index: DiskIndex, configuration: DiskCache.Configuration) {
        self.rootPath = rootPath
        self.index = index
        self.configuration = configuration
        byteLimit = min(max(configuration.sizeLimit / 4, 1 << 20), 32 << 20)
        files = SegmentFiles(rootPath: rootPath)
    }

    /// The smallest record kept in a segment file rather than inside the index: half of an index
    /// page. From there on a segment stores faster and reads as fast or faster, because SQLite no
    /// longer writes and walks a chain of overflow pages (the DocC article "Measurements behind the
    /// design", *Segments from 2 KiB*). Below it, the record shares the row's page and a read is one
    /// B-tree lookup.
    static let recordThreshold = 2048

    /// Writes `record` at the end of the newest segment (starting a new one when it is full, or
    /// when its file is not one the cache may write: a link, a folder, a file with another name)
    /// and moves the segment's committed end; call inside a write transaction, and add the
    /// record's bytes to the shared usage count in it. The bytes go past the committed end first,
    /// and the end moves with the commit: a process killed in between leaves bytes past the end,
    /// which the next append writes over.
    ///
    /// - Returns: The segment and offset that now hold the record, once the transaction commits.
    /// - Throws: ``DiskCacheError/writeFailed(path:call:errno:)``.
    func append(_ record: UnsafeRawBufferPointer, on connection: SQLiteConnection) throws -> SegmentLocation {
        let table = SegmentTable(connection: connection)
        var location: SegmentLocation?
        // A length outside 0...limit (a damaged row) starts a new segment rather than an append
        // at a place nobody can trust.
        if let newest = try table.newest(),
            newest.length == 0 || (newest.length > 0 && newest.length <= byteLimit - record.count)
        {
            location = SegmentLocation(id: newest.id, offset: newest.length)
        }
        var handle: SegmentFiles.Handle?
        if let found = location {
            switch files.handle(found.id, writable: true) {
            case .success(let opened): handle = opened
            case .failure(.foreign(let reason)):
                logForeignSegment(found.id, reason: reason)  // left alone; a new segment takes the record
            case .failure(let failure): throw segmentError(failure, id: found.id, writing: true)
            }
        }
        // A new segment; a name taken by something foreign (made behind the cache's back) is
        // passed over for the next.
        for attempt in 0..<3 where handle == nil {
            let id = try table.insert()
            location = SegmentLocation(id: id, offset: 0)
            switch files.handle(id, writable: true, creating: true) {
            case .success(let opened): handle = opened
            case .failure(.foreign(let reason)) where attempt < 2: logForeignSegment(id, reason: reason)
            case .failure(let failure): throw segmentError(failure, id: id, writing: true)
            }
        }
        guard let handle, let location else {
            throw DiskCacheError.writeFailed(path: rootPath, call: "open segment", errno: EEXIST)
        }
        if case .failure(let error) = FileSystem.writeAll(handle.descriptor, record, at: location.offset) {
            throw DiskCacheError.writeFailed(path: handle.path, call: error.call, errno: error.errno)
        }
        try table.setLength(of: location.id, to: location.offset + record.count)
        return location
    }

    /// What reading a record from a segment found.
    enum SegmentRead {
        /// The verified record: its header and payload.
        case found(CacheRecord.Verified)
        /// The record is expired (and `keepExpired` was not asked for).
        case expired
        /// The file is gone or shorter than the row says: moved by a compaction since the lookup,
        /// or the index is out of step with the files.
        case unavailable(String)
        /// The bytes there are not the record the row names.
        case damaged(String)
    }

    /// Reads and verifies the `byteCount`-byte record of `key` at `location`.
    ///
    /// The record is read with one `pread` into memory that becomes the payload's storage, so the
    /// payload is not copied again.
    ///
    /// - Parameters:
    ///   - expectedKey: The key the record must hold; `nil` to take the header's (listing).
    ///   - framing: How many of the verified payload's first bytes the payload handed back leaves
    ///     out (see ``RecordReader/read(forKey:options:now:framing:)``).
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` for I/O errors other than absence.
    func read(
        at location: SegmentLocation, byteCount: Int, expectedKey: String?, keepExpired: Bool, now: Date,
        framing: (UnsafeRawBufferPointer) -> Int = { _ in 0 }
    ) throws -> SegmentRead {
        guard (CacheRecord.Header.fixedByteCount...DiskCache.maximumInlineRecordByteCount).contains(byteCount),
            (0...SQLiteStatement.maximumByteCount).contains(location.offset)
        else {
            return .damaged("row gives a record of \(byteCount) bytes at offset \(location.offset)")
        }
        let handle: SegmentFiles.Handle
        switch files.handle(location.id, writable: false) {
        case .success(let opened): handle = opened
        case .failure(.missing): return .unavailable("segment \(location.id) is gone")
        case .failure(.foreign(let reason)): return .unavailable("segment \(location.id) is \(reason)")
        case .failure(let failure): throw segmentError(failure, id: location.id, writing: false)
        }
        guard let memory = malloc(byteCount + Self.copyAlignmentSlack) else {
            throw DiskCacheError.readFailed(path: handle.path, call: "malloc", errno: ENOMEM)
        }
        var isHandedOver = false
        defer { if !isHandedOver { free(memory) } }
        let start = memory + Self.copyAlignmentShift(destination: UInt(bitPattern: memory), fileOffset: location.offset)
        let buffer = UnsafeMutableRawBufferPointer(start: start, count: byteCount)
        switch FileSystem.readFully(handle.descriptor, into: buffer, at: location.offset) {
        case .failure(let error):
            throw DiskCacheError.readFailed(path: handle.path, call: error.call, errno: error.errno)
        case .success(let count) where count < byteCount:
            return .unavailable("segment \(location.id) ends \(count) bytes into a \(byteCount)-byte record")
        case .success:
            break
        }
        let record = UnsafeRawBufferPointer(buffer)
        let header: CacheRecord.Header
        switch CacheRecord.verify(record, expectedKey: expectedKey) {
        case .failure(let damage): return .damaged("segment \(location.id) at \(location.offset): \(damage)")
        case .success(let verified): header = verified
        }
        if !keepExpired, header.isExpired(at: now) { return .expired }
        let payloadBytes = UnsafeRawBufferPointer(rebasing: record[header.byteCount...])
        let framingByteCount = RecordReader.framingByteCount(framing, of: payloadBytes)
        isHandedOver = true
        let payload = Data(
            bytesNoCopy: start + header.byteCount + framingByteCount, count: header.payloadByteCount - framingByteCount,
            deallocator: .custom { _, _ in free(memory) })
        return .found(CacheRecord.Verified(header: header, payload: payload))
    }

    /// The bytes in segment files that no live record takes: what removals and replacements left,
    /// until a compaction gives them back.
    ///
    /// - Throws: ``DiskCacheError`` when the index cannot be read.
    func deadByteCount() throws -> Int {
        try index.withDatabase(writing: false) { connection in
            let live = try SegmentTable(connection: connection).liveBytes()
            return try SegmentTable(connection: connection).lengths().reduce(0) { sum, segment in
                sum + max(0, segment.value - (live[segment.key] ?? 0))
            }
        }
    }

    /// The live entries in segments that `shouldRemove` picks by their key and the first bytes of
    /// their payload (up to 16 KiB, unverified, as for inline records), read from the segments.
    ///
    /// A segment that is gone by the time its rows are read (a compaction in another process moved
    /// its records) starts the pass again with the rows as they are now. In the third pass a row
    /// naming a segment that is gone is out of step with the files, not an entry (a read of its
    /// key is a miss, and removes it), and is passed over.
    ///
    /// - Throws: ``DiskCacheError`` when the index or a segment cannot be read.
    func pickEntries(
        now: Date, where shouldRemove: (_ key: String, _ payloadPrefix: ArraySlice<UInt8>) -> Bool
    ) throws -> [(hash: [UInt8], key: String, lastUsed: Double)] {
        var pass = 1
        while true {
            if let picked = try pickEntriesOnce(now: now, where: shouldRemove, finalPass: pass == 3) {
                return picked
            }
            pass += 1
        }
    }

    /// One pass of ``pickEntries(now:where:)``: `nil` when a segment was gone, unless
    /// `finalPass`.
    private func pickEntriesOnce(
        now: Date, where shouldRemove: (_ key: String, _ payloadPrefix: ArraySlice<UInt8>) -> Bool, finalPass: Bool
    ) throws -> [(hash: [UInt8], key: String, lastUsed: Double)]? {
        let rows = try index.withDatabase(writing: false) { try EntryTable(connection: $0).segmentRows(liveAt: now) }
        var picked: [(hash: [UInt8], key: String, lastUsed: Double)] = []
        for row in rows {
            let headerByteCount = CacheRecord.Header.fixedByteCount + row.key.utf8.count
            let count = max(0, min(row.size, headerByteCount + 16 * 1024))
            let handle: SegmentFiles.Handle
            switch files.handle(row.location.id, writable: false) {
            case .success(let opened): handle = opened
            case .failure(.foreign): continue  // not the cache's: its rows read as misses
            case .failure(.missing): if finalPass { continue } else { return nil }
            case .failure(let failure): throw segmentError(failure, id: row.location.id, writing: false)
            }
            let prefix = try FileSystem.readBytes(handle.descriptor, count: count, at: row.location.offset, path: handle.path)
            if shouldRemove(row.key, prefix[min(headerByteCount, prefix.count)...]) {
                picked.append((row.hash, row.key, row.lastUsed))
            }
        }
        return picked
    }

    /// Gives back the space that removed and replaced records leave in segment files (see
    /// ``SegmentCompaction/run(sealingNewest:anyDeadBytes:)``).
    ///
    /// - Returns: How many segment files were removed.
    @discardableResult
    func compact(sealingNewest: Bool = false, anyDeadBytes: Bool = false) throws -> Int {
        try SegmentCompaction(store: self).run(sealingNewest: sealingNewest, anyDeadBytes: anyDeadBytes)
    }

    /// Removes segment `id`'s file if it is a regular file with no other name (never what a link
    /// points to, never a file somebody linked elsewhere).
    func removeFile(_ id: Int) throws {
        files.forget(id)
        let path = files.path(of: id)
        guard case .success(let status) = FileSystem.linkStatus(path), status.kind == .regular, status.linkCount == 1
        else { return }
        if case .failure(let error) = FileSystem.removeFile(path) {
            throw DiskCacheError.removeFailed(path: path, call: error.call, errno: error.errno)
        }
    }
    /// Removes every segment file in the folder (what a clear on a full disk does, with a new index).
    ///
    /// - Throws: ``DiskCacheError/removeFailed(path:call:errno:)``.
    func removeAllFiles() throws {
        guard case .success(let names) = FileSystem.contentsOfDirectory(rootPath) else { return }
        for id in names.compactMap(SegmentFiles.id(inFileName:)) { try removeFile(id) }
    }

    /// The segment file's path, for messages.
    func path(of id: Int) -> String { files.path(of: id) }

    /// The ``DiskCacheError`` for a segment file that cannot be opened.
    func segmentError(_ failure: SegmentFiles.OpenFailure, id: Int, writing: Bool) -> DiskCacheError {
        let path = files.path(of: id)
        switch failure {
        case .missing:
            return writing
                ? .writeFailed(path: path, call: "open", errno: ENOENT) : .readFailed(path: path, call: "open", errno: ENOENT)
        case .foreign(let reason):
            return .foreignItem(path: path, reason: reason)
        case .system(let error):
            return writing
                ? .writeFailed(path: path, call: error.call, errno: error.errno)
                : .readFailed(path: path, call: error.call, errno: error.errno)
        }
    }
    // MARK: - Private

    /// Logs a segment file the cache will not write (once per file and process is enough for
    /// a reader of the log, but a warning each time costs nothing on this rare path).
    private func logForeignSegment(_ id: Int, reason: String) {
        configuration.logger.warning(
            "Disk cache segment is not the cache's own file: left alone, a new segment is started",
            metadata: ["path": .string(files.path(of: id)), "reason": .string(reason)])
    }

    /// Bytes allocated beyond a record read from a segment, so that ``copyAlignmentShift(destination:fileOffset:)``
    /// can move where it lands.
    static let copyAlignmentSlack = 128

    /// How far past `destination` to read a record that starts at `fileOffset`, so that the
    /// kernel's copy out of the page cache does not write 1 to 64 bytes ahead of where it reads
    /// within a page. The `rep movsb` that copy uses runs far slower there on AMD Zen (the effect
    /// glibc bug 30994 is about; the DocC article "Measurements behind the design", *Figures behind
    /// the source's choices*).
    static func copyAlignmentShift(destination: UInt, fileOffset: Int) -> Int {
        let ahead = Int((destination &- UInt(truncatingIfNeeded: fileOffset)) & 4095)
        return (1...64).contains(ahead) ? copyAlignmentSlack - ahead : 0
    }
}
