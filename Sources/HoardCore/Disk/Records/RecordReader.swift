import Foundation
import HoardSystem

/// Reads a key's record wherever its row places it (inside the index, in a segment, in a file of
/// its own), verified, and marks it used.
///
/// Invariant: a read never returns bytes that fail their record's checks, and never waits for a
/// writer: what it does to the index (a recency mark, removing a row found damaged, expired or
/// out of step with the files) is best effort, done only when the write lock is free.
struct RecordReader: Sendable {
    let index: DiskIndex
    let segments: SegmentStore
    let files: FileStore
    /// Where a hit's recency mark goes, to be written with others.
    let marks: RecencyMarks
    /// Recency granularity and logger.
    let configuration: DiskCache.Configuration

    /// Looks `key` up in the index and reads its record, from the index or from its file, verified.
    ///
    /// A damaged record is removed and logged; an expired one is removed (unless `options` holds
    /// ``ReadOptions/keepExpired``); a row whose file is gone (the index out of step with the
    /// folder) is removed. With ``ReadOptions/markUsed`` a hit older than
    /// ``Configuration/recencyUpdateInterval`` gets its last-use date set to now.
    ///
    /// - Parameter framing: Given the verified payload, how many of its first bytes to leave out of
    ///   the returned ``CacheRecord/Verified/payload`` (a caller's own framing, such as the
    ///   manager's type tag), so that the caller needs no second buffer over the first.
    /// - Returns: The verified entry, or `nil` for a miss.
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)``.
    func read(
        forKey key: String, options: FileStore.ReadOptions, now: Date,
        framing: (UnsafeRawBufferPointer) -> Int = { _ in 0 }
    ) throws -> CacheRecord.Verified? {
        let hash = try EntryFiles.keyHash(key)
        var read = try index.withDatabase(writing: false) { connection in
            try Self.readIndexed(
                hash: hash, key: key, keepExpired: options.contains(.keepExpired), now: now, framing: framing,
                on: connection)
        }
        if case .segment(let row, let location) = read {
            read = try readSegmentEntry(
                hash: hash, key: key, row: row, at: location, options: options, now: now, framing: framing)
        }
        switch read {
        case .missing:
            return nil
        case .inline(let found, let lastUsed, let isExpired):
            if options.contains(.markUsed), !isExpired, now.timeIntervalSinceReferenceDate - lastUsed >= configuration.recencyUpdateInterval {
                markUsed(hash, now: now)
            }
            return found
        case .damaged(let reason, let row):
            logDamagedRecord(hash: hash, reason: reason)
            removeRow(row)
            return nil
        case .expired(let row):
            removeRow(row)
            return nil
        case .file(let row):
            return try readFileEntry(key: key, row: row, options: options, now: now, framing: framing)
        case .segment:
            return nil  // replaced by what the segment holds, above
        }
    }

    // MARK: - Private

    /// What the index holds for a key.
    private enum IndexedRead {
        case missing
        case inline(CacheRecord.Verified, lastUsed: Double, isExpired: Bool)
        case damaged(String, IndexRow)
        case expired(IndexRow)
        case file(IndexRow)
        case segment(IndexRow, SegmentLocation)
    }

    /// Static, so that the closures that call it capture no copy of the reader.
    private static func readIndexed(
        hash: [UInt8], key: String, keepExpired: Bool, now: Date, framing: (UnsafeRawBufferPointer) -> Int,
        on connection: SQLiteConnection
    ) throws -> IndexedRead {
        let read = try EntryTable(connection: connection).lookUp(hash) { found -> IndexedRead in
            let placement: IndexRow.Placement = found.record != nil ? .inline : found.segment == nil ? .file : .segment
            let row = IndexRow(hash: hash, byteCount: found.byteCount, lastUsed: found.lastUsed, placement: placement)
            guard let record = found.record else {
                return found.segment.map { .segment(row, $0) } ?? .file(row)
            }
            guard record.count <= DiskCache.maximumInlineRecordByteCount else {
                return .damaged("record of \(record.count) bytes is longer than any Hoard writes", row)
            }
            switch CacheRecord.verify(record, expectedKey: key) {
            case .failure(let damage):
                return .damaged(damage.description, row)
            case .success(let header):
                let isExpired = header.isExpired(at: now)
                if isExpired, !keepExpired { return .expired(row) }
                let bytes = UnsafeRawBufferPointer(rebasing: record[header.byteCount...])
                let payload = Data(copyingPayload: UnsafeRawBufferPointer(rebasing: bytes[Self.framingByteCount(framing, of: bytes)...]))
                return .inline(CacheRecord.Verified(header: header, payload: payload), lastUsed: found.lastUsed, isExpired: isExpired)
            }
        }
        return read ?? .missing
    }

    /// Reads an entry the index places in a segment. What it finds there that is not the record
    /// (a file gone or too short, other bytes) is first taken for a compaction that moved the
    /// record since the lookup, or for a handle kept on a file since replaced: the handle is let
    /// go, the key looked up again, and the record read again through a handle opened anew at the
    /// place the row gives now. Only a record found damaged twice at the same place is damage (its
    /// row is removed and logged); one that keeps moving (compactions one after another) is a miss
    /// that removes nothing.
    private func readSegmentEntry(
        hash: [UInt8], key: String, row: IndexRow, at location: SegmentLocation, options: FileStore.ReadOptions, now: Date,
        framing: (UnsafeRawBufferPointer) -> Int
    ) throws -> IndexedRead {
        var row = row
        var location = location
        var failedHere = false
        for _ in 0..<Self.segmentReadAttempts {
            switch try segments.read(
                at: location, byteCount: row.byteCount, expectedKey: key,
                keepExpired: options.contains(.keepExpired), now: now, framing: framing)
            {
            case .found(let found):
                return .inline(found, lastUsed: row.lastUsed, isExpired: found.header.isExpired(at: now))
            case .expired:
                return .expired(row)
            case .damaged(let reason), .unavailable(let reason):
                segments.files.forget(location.id)
                let again = try index.withDatabase(writing: false) { connection in
                    try Self.readIndexed(
                        hash: hash, key: key, keepExpired: options.contains(.keepExpired), now: now, framing: framing,
                        on: connection)
                }
                guard case .segment(let newRow, let newLocation) = again else { return again }
                if newLocation == location, newRow == row {
                    // Read once more through a handle opened anew; twice is damage.
                    if failedHere { return .damaged(reason, row) }
                    failedHere = true
                } else {
                    failedHere = false
                }
                (row, location) = (newRow, newLocation)
            }
        }
        return .missing
    }

    /// How many times a read follows a record in a segment that compactions keep moving.
    private static let segmentReadAttempts = 4

    /// Reads an entry the index places in a file; a file that is gone, damaged or expired takes
    /// its row with it.
    private func readFileEntry(
        key: String, row: IndexRow, options: FileStore.ReadOptions, now: Date, framing: (UnsafeRawBufferPointer) -> Int
    ) throws -> CacheRecord.Verified? {
        let fileName = SHA256.hex(row.hash)
        let lookup = try files.read(
            named: fileName, expectedKey: key, options: options.subtracting(.markUsed).union(.payload), now: now)
        guard let file = lookup.file, let payload = file.payload else {
            // A damaged or expired file was removed, and counted, by the read.
            let isAbsent = if case .absent = lookup { true } else { false }
            if isAbsent {
                configuration.logger.debug(
                    "Disk cache index names an entry file that is gone; row removed",
                    metadata: ["path": .string(files.path(of: fileName))])
            }
            removeRow(row)
            return nil
        }
        if options.contains(.markUsed), !file.header.isExpired(at: now),
            now.timeIntervalSinceReferenceDate - row.lastUsed >= configuration.recencyUpdateInterval
        {
            markUsed(row.hash, now: now)
        }
        // A file's payload (over 68 KiB) is its own buffer: what follows the framing shares it.
        let framingByteCount = payload.withUnsafeBytes { Self.framingByteCount(framing, of: $0) }
        return CacheRecord.Verified(
            header: file.header,
            payload: framingByteCount == 0 ? payload : payload.rebased(from: framingByteCount))
    }

    /// What `framing` leaves out of `payload`, held to its length.
    static func framingByteCount(_ framing: (UnsafeRawBufferPointer) -> Int, of payload: UnsafeRawBufferPointer) -> Int {
        min(max(framing(payload), 0), payload.count)
    }

    /// Removes `row` (with its file) if it has not been replaced or used since it was read. Best
    /// effort, and never a wait for a writer: a read must not wait, and a row left behind reads as
    /// a miss again and is removed later.
    private func removeRow(_ row: IndexRow) {
        _ = index.withDatabaseWithoutWaiting { connection in
            try files.removeEntry(row.hash, ifLastUsed: row.lastUsed, on: connection)
        }
    }

    /// Sets the last-use date of `hash` to `now`, with the next batch of marks (see
    /// ``RecencyMarks``): never a wait for a writer, and a mark dropped only costs recency.
    private func markUsed(_ hash: [UInt8], now: Date) {
        marks.mark(hash, at: now)
    }

    /// Logs a record found damaged inside the index or a segment (its row is removed).
    private func logDamagedRecord(hash: [UInt8], reason: String) {
        configuration.logger.warning(
            "Removed damaged disk cache entry",
            metadata: ["path": .string(index.path), "entry": .string(SHA256.hex(hash)), "reason": .string(reason)])
    }
}
