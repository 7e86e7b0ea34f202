import Foundation
import HoardSystem
import Logging

/// Removal on request: by the index's selection, by key and value prefix, or everything; each
/// gives back the space it frees. The trim (in Maintenance.swift) deletes through the same
/// ``deleteRows(_:onlyIfUnused:)``.
extension Maintenance {
    /// Removes every entry whose row `selection` picks at `date`.
    ///
    /// - Returns: The rows deleted.
    @discardableResult
    func deleteRows(_ selection: EntryTable.Selection, at date: Date) throws -> [IndexRow] {
        let selected = try index.withDatabase(writing: false) { try EntryTable(connection: $0).rows(selection, at: date) }
        let deleted = try deleteRows(selected, onlyIfUnused: false)
        if !deleted.isEmpty { try reclaimAfterRemoval() }
        return deleted
    }

    /// Gives back the space removed records leave: segments with few live records left, and the
    /// index's free pages. On a full disk, where a compaction cannot copy records, what is left
    /// waits for the next trim: the removal itself has been done.
    private func reclaimAfterRemoval() throws {
        do {
            try segments.compact()
            try reclaimFreePages()
        } catch let error as DiskCacheError where error.errno == ENOSPC {
            configuration.logger.warning(
                "Disk cache space not all given back: the disk is full", metadata: ["error": .string(error.description)])
        }
    }

    /// Deletes `rows` (with `onlyIfUnused`, only those not used or replaced since they were read)
    /// with their files, in transactions of ``IndexLog/maintenanceBatchRowCount`` rows; returns
    /// the rows deleted.
    func deleteRows(_ rows: [IndexRow], onlyIfUnused: Bool) throws -> [IndexRow] {
        var deleted: [IndexRow] = []
        let batchRowCount = index.log.maintenanceBatchRowCount
        for start in stride(from: 0, to: rows.count, by: batchRowCount) {
            let batch = rows[start..<min(start + batchRowCount, rows.count)]
            deleted += try index.withDatabaseForCleanup { connection in
                try connection.writeTransaction {
                    try batch.filter {
                        try files.removeEntry($0.hash, ifLastUsed: onlyIfUnused ? $0.lastUsed : nil, on: connection)
                    }
                }
            }
        }
        return deleted
    }

    /// The rows whose records are files of their own.
    func fileRows() throws -> [IndexRow] {
        try index.withDatabase(writing: false) { try EntryTable(connection: $0).fileRows() }
    }
    /// Removes every entry that `shouldRemove` picks by its key and the first bytes of its value.
    ///
    /// Reads each entry's key and the first bytes of its payload (up to 16 KiB, unverified:
    /// enough to recognise a type tag), from the index or the entry's file, never whole payloads.
    ///
    /// - Parameter shouldRemove: Given each live entry's key and payload prefix.
    /// - Returns: The keys of the entries removed.
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` or
    ///   ``DiskCacheError/readFailed(path:call:errno:)``.
    /// - Complexity: O(m) for m entries, plus a header read per entry file.
    @discardableResult
    func removeEntries(where shouldRemove: (_ key: String, _ payloadPrefix: ArraySlice<UInt8>) -> Bool) throws -> [String] {
        let now = configuration.now()
        // Inline records: the key and the payload's first bytes, straight from the index.
        var picked = try index.withDatabase(writing: false) { try EntryTable(connection: $0).pickInline(liveAt: now, shouldRemove) }
        picked += try segments.pickEntries(now: now, where: shouldRemove)
        // Entries in files: their headers and first bytes, from the files.
        for row in try fileRows() {
            guard
                let entry = try files.read(
                    named: SHA256.hex(row.hash), expectedKey: nil, options: [.payloadPrefix], now: now
                ).file,
                shouldRemove(entry.header.key, entry.payloadPrefix ?? [])
            else { continue }
            picked.append((row.hash, entry.header.key, row.lastUsed))
        }
        var removed: [String] = []
        let batchRowCount = index.log.maintenanceBatchRowCount
        for start in stride(from: 0, to: picked.count, by: batchRowCount) {
            let batch = picked[start..<min(start + batchRowCount, picked.count)]
            removed += try index.withDatabaseForCleanup { connection in
                try connection.writeTransaction {
                    // Rows replaced since they were picked stay.
                    try batch.filter { try files.removeEntry($0.hash, ifLastUsed: $0.lastUsed, on: connection) }.map(\.key)
                }
            }
        }
        if !removed.isEmpty { try reclaimAfterRemoval() }
        return removed
    }

    /// Removes every entry, and every temporary file no live writer holds (see ``DiskCache/removeAll()``).
    func removeAll() throws {
        let now = configuration.now()
        do {
            try deleteRows(.all, at: now)
        } catch let error as DiskCacheError where error.errno == ENOSPC {
            // Even with every file gone, the index had no room to log the deletion: it holds
            // nothing worth keeping now, so it is made anew (other processes notice within a second).
            guard index.beginRebuild() else { throw error }
            try resetIndex()
        }
        // Files the index does not know of too (left by a crash, or an earlier Hoard), under the
        // write lock: a file with a row by then is a store that landed after the clear.
        let leftovers = try files.scan().filter { $0.status.kind == .regular }
        if !leftovers.isEmpty {
            try index.withDatabaseForCleanup { connection in
                try connection.writeTransaction {
                    let entries = EntryTable(connection: connection)
                    for file in leftovers {
                        guard let hash = SHA256.bytes(fromHex: file.fileName),
                            try entries.row(hash)?.placement != .file
                        else { continue }
                        try files.remove(file.fileName, ifSameAs: file.status)
                    }
                }
            }
        }
        try files.removeAbandonedTemporaryFiles(now: now)
    }

    /// Replaces the index with an empty one and removes every segment file; for ``DiskCache/removeAll()``
    /// on a full disk. Call between ``DiskIndex/beginRebuild()`` and its end.
    private func resetIndex() throws {
        defer { index.endRebuild() }
        configuration.logger.warning(
            "Disk cache index had no room to record a clear on a full disk: made anew", metadata: ["path": .string(index.path)])
        try reconciler.makeIndexAnew(replacing: nil)
        try segments.removeAllFiles()
    }
}
