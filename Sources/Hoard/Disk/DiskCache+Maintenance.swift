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
    /// The keys of the entries in the cache, in no particular order.
    ///
    /// Reads the index, not the entries: expired entries are left out. An entry whose record turns
    /// out damaged when read is a miss.
    ///
    /// ```swift
    /// for key in try cache.keys() where key.hasPrefix("thumb:") { try cache.remove(forKey: key) }
    /// ```
    ///
    /// - Returns: The keys, each once.
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the folder cannot be
    ///   listed; ``DiskCacheError/readFailed(path:call:errno:)`` when an entry cannot be read.
    /// - Complexity: O(m) for m entries, one index scan.
    public func keys() throws -> [String] {
        try entryInfos().map(\.key)
    }

    /// Removes every entry whose expiration date has come.
    ///
    /// Expired entries are never returned whether or not this runs; it gives their space back.
    ///
    /// ```swift
    /// let removed = try cache.removeExpired()
    /// ```
    ///
    /// - Returns: How many entries were removed (damaged files removed on the way are not counted).
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` or
    ///   ``DiskCacheError/readFailed(path:call:errno:)``.
    /// - Complexity: O(m) for m entries, one index scan, plus one `unlink` per removed entry file.
    @discardableResult
    public func removeExpired() throws -> Int {
        try deleteRows(.expired, at: configuration.now()).count
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
    func removeEntryFiles(where shouldRemove: (_ key: String, _ payloadPrefix: ArraySlice<UInt8>) -> Bool) throws -> [String] {
        let now = configuration.now()
        // Inline records: the key and the payload's first bytes, straight from the index.
        var picked = try withIndex(writing: false) { try EntryTable(connection: $0).pickInline(liveAt: now, shouldRemove) }
        picked += try pickSegmentEntries(now: now, where: shouldRemove)
        // Entries in files: their headers and first bytes, from the files.
        for row in try fileRows() {
            guard
                let entry = try readEntryFile(
                    named: SHA256.hex(row.hash), expectedKey: nil, options: [.payloadPrefix], now: now
                ).file,
                shouldRemove(entry.header.key, entry.payloadPrefix ?? [])
            else { continue }
            picked.append((row.hash, entry.header.key, row.lastUsed))
        }
        var removed: [String] = []
        for start in stride(from: 0, to: picked.count, by: Self.deletionBatchRowCount) {
            let batch = picked[start..<min(start + Self.deletionBatchRowCount, picked.count)]
            removed += try withCleanupIndex { connection in
                try connection.writeTransaction {
                    // Rows replaced since they were picked stay.
                    try batch.filter { try deleteRow($0.hash, ifLastUsed: $0.lastUsed, on: connection) }.map(\.key)
                }
            }
        }
        if !removed.isEmpty { try reclaimAfterRemoval() }
        return removed
    }

    /// Removes every entry created before `date` (by the header's creation date, not by last use).
    ///
    /// ```swift
    /// try cache.removeOlderThan(Date().addingTimeInterval(-7 * 86_400))   // older than a week
    /// ```
    ///
    /// - Parameter date: Entries created strictly before this moment are removed.
    /// - Returns: How many entries were removed.
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)``,
    ///   ``DiskCacheError/readFailed(path:call:errno:)`` or ``DiskCacheError/removeFailed(path:call:errno:)``.
    /// - Complexity: O(m) for m entries, one index scan, plus one `unlink` per removed entry file.
    @discardableResult
    public func removeOlderThan(_ date: Date) throws -> Int {
        try deleteRows(.createdBefore, at: date).count
    }

    /// Removes every entry, and every temporary file no live writer holds.
    ///
    /// Writes running at the same time in other processes may land after it; they are kept.
    ///
    /// ```swift
    /// try cache.removeAll()
    /// ```
    ///
    /// Only entry files are removed: a folder, a symbolic link or any other file found where an
    /// entry could be is left alone.
    ///
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the folder cannot be
    ///   listed; ``DiskCacheError/removeFailed(path:call:errno:)`` when a file cannot be removed;
    ///   ``DiskCacheError/foreignItem(path:reason:)`` when `tmp` is not the cache's own folder.
    /// - Complexity: O(m) for m entry files.
    public func removeAll() throws {
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
            try withCleanupIndex { connection in
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
        try removeAbandonedTemporaryFiles(now: now)
        try recountUsage()
    }

    /// Replaces the index with an empty one and removes every segment file; for ``removeAll()``
    /// on a full disk. Call between ``DiskIndex/beginRebuild()`` and its end.
    private func resetIndex() throws {
        defer { index.endRebuild() }
        configuration.logger.warning(
            "Disk cache index had no room to record a clear on a full disk: made anew", metadata: ["path": .string(index.path)])
        try makeIndexAnew(replacing: nil)
        if case .success(let names) = FileSystem.contentsOfDirectory(rootPath) {
            for id in names.compactMap(SegmentFiles.id(inFileName:)) { try removeSegmentFile(id) }
        }
    }

    /// The bytes the entries' records take now (headers and keys included), by the index.
    ///
    /// Counts entries written by every process, expired or not, until they are removed.
    ///
    /// ```swift
    /// let megabytes = try cache.totalSize / 1_048_576
    /// ```
    ///
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the folder cannot be listed.
    /// - Complexity: O(m) for m entries: one scan of an index of the index.
    public var totalSize: Int {
        get throws { try indexedByteCount() }
    }

    /// The bytes the cache takes on disk now: its segment files (removed and replaced records
    /// included, until a trim gives their space back), entry files, and the index with its log.
    /// What ``Configuration/sizeLimit`` bounds.
    ///
    /// ```swift
    /// print("cache uses \(try cache.bytesOnDisk / 1_048_576) MiB")
    /// ```
    ///
    /// - Throws: ``DiskCacheError`` when the index cannot be read or written.
    /// - Complexity: O(m) for m entries: a count of the index, and an `lstat` per segment file.
    public var bytesOnDisk: Int {
        get throws { try recount().onDisk }
    }

    /// Deletes the rows `selection` picks at `date` (with their files), gives the space back, and
    /// returns the deleted rows.
    @discardableResult
    func deleteRows(_ selection: EntryTable.Selection, at date: Date) throws -> [IndexRow] {
        let selected = try withIndex(writing: false) { try EntryTable(connection: $0).rows(selection, at: date) }
        let deleted = try deleteRows(selected, onlyIfUnused: false)
        if !deleted.isEmpty { try reclaimAfterRemoval() }
        return deleted
    }

    /// Gives back the space removed records leave: segments with few live records left, and the
    /// index's free pages. On a full disk, where a compaction cannot copy records, what is left
    /// waits for the next trim: the removal itself has been done.
    private func reclaimAfterRemoval() throws {
        do {
            try compactSegments()
            try reclaimFreePages()
        } catch let error as DiskCacheError where error.errno == ENOSPC {
            configuration.logger.warning(
                "Disk cache space not all given back: the disk is full", metadata: ["error": .string(error.description)])
        }
    }

    /// Rows deleted per transaction: a writer in another thread or process waits at most one batch.
    static let deletionBatchRowCount = 256

    /// Deletes `rows` (with `onlyIfUnused`, only those not used or replaced since they were read)
    /// with their files, in transactions of ``deletionBatchRowCount`` rows; returns the rows deleted.
    func deleteRows(_ rows: [IndexRow], onlyIfUnused: Bool) throws -> [IndexRow] {
        var deleted: [IndexRow] = []
        for start in stride(from: 0, to: rows.count, by: Self.deletionBatchRowCount) {
            let batch = rows[start..<min(start + Self.deletionBatchRowCount, rows.count)]
            deleted += try withCleanupIndex { connection in
                try connection.writeTransaction {
                    try batch.filter {
                        try deleteRow($0.hash, ifLastUsed: onlyIfUnused ? $0.lastUsed : nil, on: connection)
                    }
                }
            }
        }
        return deleted
    }

    /// The rows whose records are files of their own.
    func fileRows() throws -> [IndexRow] {
        try withIndex(writing: false) { try EntryTable(connection: $0).fileRows() }
    }
}
