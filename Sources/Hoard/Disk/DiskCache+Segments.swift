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
    /// The smallest record kept in a segment file rather than inside the index: half of an index
    /// page. From there on a segment stores faster (1.5x at 2 KiB, 1.9x at 16 KiB, 3.2x at 64 KiB
    /// in `Benchmarks/probes/index-and-segments.c`) and reads as fast (16 KiB) or faster (1.3x at
    /// 64 KiB), because SQLite no longer writes and walks a chain of overflow pages. Below it, the
    /// record shares the row's page and a read is one B-tree lookup.
    static let segmentRecordThreshold = 2048

    /// How long a segment grows before the next record starts a new one: a quarter of the size
    /// limit, from 1 MiB to 32 MiB, so that the space compaction has to copy stays small beside
    /// the cache.
    var segmentByteLimit: Int {
        min(max(configuration.sizeLimit / 4, 1 << 20), 32 << 20)
    }

    /// Writes `record` at the end of the newest segment (starting a new one when it is full, or
    /// when its file is not one the cache may write: a link, a folder, a file with another name)
    /// and moves the segment's committed end; call inside a write transaction, and add the
    /// record's bytes to the shared usage count in it. The bytes go past the committed end first,
    /// and the end moves with the commit: a process killed in between leaves bytes past the end,
    /// which the next append writes over.
    ///
    /// - Returns: The segment and offset that now hold the record, once the transaction commits.
    /// - Throws: ``DiskCacheError/writeFailed(path:call:errno:)``.
    func appendToSegment(_ record: UnsafeRawBufferPointer, on connection: SQLiteConnection) throws -> SegmentLocation {
        let table = SegmentTable(connection: connection)
        var location: SegmentLocation?
        // A length outside 0...limit (a damaged row) starts a new segment rather than an append
        // at a place nobody can trust.
        if let newest = try table.newest(),
            newest.length == 0 || (newest.length > 0 && newest.length <= segmentByteLimit - record.count)
        {
            location = SegmentLocation(id: newest.id, offset: newest.length)
        }
        var handle: SegmentFiles.Handle?
        if let found = location {
            switch segments.handle(found.id, writable: true) {
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
            switch segments.handle(id, writable: true, creating: true) {
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

    /// Logs a segment file the cache will not write (once per file and process is enough for
    /// a reader of the log, but a warning each time costs nothing on this rare path).
    private func logForeignSegment(_ id: Int, reason: String) {
        configuration.logger.warning(
            "Disk cache segment is not the cache's own file: left alone, a new segment is started",
            metadata: ["path": .string(segments.path(of: id)), "reason": .string(reason)])
    }

    /// Where a record lives in the segment files.
    struct SegmentLocation: Sendable, Hashable {
        var id: Int
        var offset: Int
    }

    /// What reading a record from a segment found.
    enum SegmentRead {
        /// The verified record: its header and payload.
        case found(FoundEntry)
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
    /// - Parameter expectedKey: The key the record must hold; `nil` to take the header's (listing).
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` for I/O errors other than absence.
    func readSegmentRecord(
        at location: SegmentLocation, byteCount: Int, expectedKey: String?, keepExpired: Bool, now: Date
    ) throws -> SegmentRead {
        guard (Entry.Header.fixedByteCount...Self.maximumInlineRecordByteCount).contains(byteCount),
            (0...SQLiteStatement.maximumByteCount).contains(location.offset)
        else {
            return .damaged("row gives a record of \(byteCount) bytes at offset \(location.offset)")
        }
        let handle: SegmentFiles.Handle
        switch segments.handle(location.id, writable: false) {
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
        let header: Entry.Header
        switch Self.verifyRecord(record, expectedKey: expectedKey) {
        case .failure(let damage): return .damaged("segment \(location.id) at \(location.offset): \(damage)")
        case .success(let verified): header = verified
        }
        if !keepExpired, header.isExpired(at: now) { return .expired }
        isHandedOver = true
        let payload = Data(
            bytesNoCopy: start + header.byteCount, count: header.payloadByteCount,
            deallocator: .custom { _, _ in free(memory) })
        return .found(FoundEntry(header: header, payload: payload))
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
    func pickSegmentEntries(
        now: Date, where shouldRemove: (_ key: String, _ payloadPrefix: ArraySlice<UInt8>) -> Bool
    ) throws -> [(hash: [UInt8], key: String, lastUsed: Double)] {
        var pass = 1
        while true {
            if let picked = try pickSegmentEntriesOnce(now: now, where: shouldRemove, finalPass: pass == 3) {
                return picked
            }
            pass += 1
        }
    }

    /// One pass of ``pickSegmentEntries(now:where:)``: `nil` when a segment was gone, unless
    /// `finalPass`.
    private func pickSegmentEntriesOnce(
        now: Date, where shouldRemove: (_ key: String, _ payloadPrefix: ArraySlice<UInt8>) -> Bool, finalPass: Bool
    ) throws -> [(hash: [UInt8], key: String, lastUsed: Double)]? {
        let rows = try withIndex(writing: false) { try EntryTable(connection: $0).segmentRows(liveAt: now) }
        var picked: [(hash: [UInt8], key: String, lastUsed: Double)] = []
        for row in rows {
            let headerByteCount = Entry.Header.fixedByteCount + row.key.utf8.count
            let count = max(0, min(row.size, headerByteCount + 16 * 1024))
            let handle: SegmentFiles.Handle
            switch segments.handle(row.location.id, writable: false) {
            case .success(let opened): handle = opened
            case .failure(.foreign): continue  // not the cache's: its rows read as misses
            case .failure(.missing): if finalPass { continue } else { return nil }
            case .failure(let failure): throw segmentError(failure, id: row.location.id, writing: false)
            }
            let prefix = try read(handle.descriptor, count: count, at: row.location.offset, path: handle.path)
            if shouldRemove(row.key, prefix[min(headerByteCount, prefix.count)...]) {
                picked.append((row.hash, row.key, row.lastUsed))
            }
        }
        return picked
    }

    /// Bytes allocated beyond a record read from a segment, so that ``copyAlignmentShift(destination:fileOffset:)``
    /// can move where it lands.
    static let copyAlignmentSlack = 128

    /// How far past `destination` to read a record that starts at `fileOffset`, so that the
    /// kernel's copy out of the page cache does not write 1 to 64 bytes ahead of where it reads
    /// within a page. The `rep movsb` that copy uses runs at a third of its speed there on AMD
    /// Zen (2.9 against 10 GB/s for 16 KiB in a C probe here: the effect glibc bug 30994 is about).
    static func copyAlignmentShift(destination: UInt, fileOffset: Int) -> Int {
        let ahead = Int((destination &- UInt(truncatingIfNeeded: fileOffset)) & 4095)
        return (1...64).contains(ahead) ? copyAlignmentSlack - ahead : 0
    }

    /// The ``DiskCacheError`` for a segment file that cannot be opened.
    func segmentError(_ failure: SegmentFiles.OpenFailure, id: Int, writing: Bool) -> DiskCacheError {
        let path = segments.path(of: id)
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
}
