import Foundation
import HoardSystem

/// One compaction of a segment store: copies the live records out of segments that are mostly
/// dead into the newest one, then removes the emptied segments and any segment file no row names.
///
/// Invariant: a record's row is pointed at its copy in the same write transaction that appends it,
/// and a segment file goes only with its row, under the write lock, so a reader finds each record
/// at its old place (through a handle it holds) or at its new one, never neither.
struct SegmentCompaction {
    /// The segments compacted.
    let store: SegmentStore

    /// Bytes moved per transaction when a segment is compacted, at most (a batch ends at the
    /// record that reaches it).
    static let compactionBatchByteCount = 4 << 20

    /// Gives back the space that removed and replaced records leave in segment files.
    ///
    /// A segment that no row names is removed. A segment other than the newest whose live records
    /// fill half of it or less has them copied to the newest segment, ``IndexLog/maintenanceBatchRowCount``
    /// records or ``compactionBatchByteCount`` bytes at a time, each batch one write transaction that appends the copies and points the rows at
    /// them; then the segment is removed. Readers are never blocked: one that looked a record up
    /// at its old place reads it there through a handle it has open, or looks it up again. A
    /// process killed during a batch loses that batch's copies only (bytes past the newest
    /// segment's committed end); killed after a segment's row went, it leaves a file no row names,
    /// which the next compaction removes with the other strays: segment files that no row of the
    /// `segments` table names, listed while holding the write lock (so that none is being made).
    ///
    /// - Returns: How many segment files were removed.
    /// - Throws: ``DiskCacheError`` when the index cannot be read or written, or the folder listed.
    /// - Complexity: O(m) for m entries (one scan of the index), plus the bytes of the live
    ///   records moved.
    ///
    /// - Parameters:
    ///   - sealingNewest: Start a new segment first when the newest is half dead or more (and at
    ///     least 64 KiB), so that it can be compacted too: what a trim over the limit does.
    ///   - anyDeadBytes: Copy the live records out of every segment that holds any dead bytes,
    ///     not only those half dead: what a trim does when nothing else brings it under its mark.
    func run(sealingNewest: Bool, anyDeadBytes: Bool) throws -> Int {
        let (lengths, live) = try store.index.withDatabase(writing: false) { connection in
            (try SegmentTable(connection: connection).lengths(), try SegmentTable(connection: connection).liveBytes())
        }
        var newest = lengths.keys.max()
        if sealingNewest, let id = newest, let length = lengths[id], length >= 64 * 1024,
            (live[id] ?? 0) * 2 <= length || anyDeadBytes && (live[id] ?? 0) < length
        {
            newest = try store.index.withDatabase(writing: true) { connection in
                try connection.writeTransaction { try SegmentTable(connection: connection).insert() }
            }
        }
        var removed = 0
        for (id, length) in lengths.sorted(by: { $0.key < $1.key }) {
            let liveBytes = live[id] ?? 0
            if liveBytes > 0 {
                let isWorthMoving = anyDeadBytes ? liveBytes < length : liveBytes * 2 <= length
                guard id != newest, isWorthMoving else { continue }
                try moveRecords(outOf: id)
            }
            if try removeSegment(id) { removed += 1 }
        }
        removed += try removeStraySegmentFiles()
        return removed
    }

    // MARK: - Private

    /// Copies the records of segment `id` to the newest segment, a batch per transaction; a
    /// record found damaged on the way loses its row instead.
    private func moveRecords(outOf id: Int) throws {
        while true {
            let (count, damaged) = try store.index.withDatabase(writing: true) { connection in
                try connection.writeTransaction { () -> (Int, [(hash: [UInt8], reason: String)]) in
                    let entries = EntryTable(connection: connection)
                    let rows = try entries.rows(inSegment: id, limit: store.index.log.maintenanceBatchRowCount)
                    var damaged: [(hash: [UInt8], reason: String)] = []
                    var batchBytes = 0
                    for row in rows where batchBytes < Self.compactionBatchByteCount {
                        batchBytes += row.size
                        let location = SegmentLocation(id: id, offset: row.offset)
                        switch try store.read(
                            at: location, byteCount: row.size, expectedKey: row.key, keepExpired: true, now: store.configuration.now())
                        {
                        case .found(let entry):
                            var record = entry.header.encoded()
                            record.append(contentsOf: entry.payload)
                            let moved = try record.withUnsafeBytes { try store.append($0, on: connection) }
                            try entries.move(row.hash, to: moved)
                        case .damaged(let reason), .unavailable(let reason):
                            damaged.append((row.hash, reason))
                            try entries.delete(row.hash)  // a segment's record: no file goes with the row
                        case .expired:  // not returned with keepExpired; an expired record need not move
                            try entries.delete(row.hash)  // a segment's record: no file goes with the row
                        }
                    }
                    return (rows.count, damaged)
                }
            }
            for (hash, reason) in damaged {
                store.configuration.logger.warning(
                    "Removed damaged disk cache entry",
                    metadata: ["path": .string(store.index.path), "entry": .string(SHA256.hex(hash)), "reason": .string(reason)])
            }
            guard count > 0 else { return }
        }
    }

    /// Removes segment `id`'s row and then its file, if no entry row names it.
    private func removeSegment(_ id: Int) throws -> Bool {
        let isGone = try store.index.withDatabase(writing: true) { connection in
            try connection.writeTransaction {
                guard try !EntryTable(connection: connection).namesSegment(id) else { return false }
                try SegmentTable(connection: connection).delete(id)
                // The file goes under the same lock as its row.
                try store.removeFile(id)
                return true
            }
        }
        return isGone
    }

    /// Removes the segment files that the `segments` table does not name. A file is made inside
    /// the write transaction that adds its row, so the files found without a row are checked
    /// again holding the write lock: a segment being made meanwhile has its row by then.
    private func removeStraySegmentFiles() throws -> Int {
        let names: [String]
        switch FileSystem.contentsOfDirectory(store.rootPath) {
        case .success(let listed): names = listed
        case .failure(let error):
            throw DiskCacheError.directoryUnavailable(path: store.rootPath, call: error.call, errno: error.errno)
        }
        let onDisk = names.compactMap(SegmentFiles.id(inFileName:))
        guard !onDisk.isEmpty else { return 0 }
        let known = { (connection: SQLiteConnection) throws -> Set<Int> in
            Set(try SegmentTable(connection: connection).lengths().keys)
        }
        let unnamed = try store.index.withDatabase(writing: false) { connection in
            let named = try known(connection)
            return onDisk.filter { !named.contains($0) }
        }
        guard !unnamed.isEmpty else { return 0 }
        let strays = try store.index.withDatabase(writing: true) { connection in
            try connection.writeTransaction { () -> [Int] in
                let named = try known(connection)
                let strays = unnamed.filter { !named.contains($0) }
                for id in strays { try store.removeFile(id) }
                return strays
            }
        }
        if !strays.isEmpty {
            store.configuration.logger.debug(
                "Removed segment files no index row names", metadata: ["path": .string(store.rootPath), "files": "\(strays.count)"])
        }
        return strays.count
    }
}
