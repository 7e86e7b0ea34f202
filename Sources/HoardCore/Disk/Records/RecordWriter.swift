import Foundation
import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a record where its size says it belongs: inside the index, in a segment, or in a file
/// of its own, replacing the key's previous record wherever that lived.
///
/// Invariant: readers in any process see the old record or the new one, never a mix, and never a
/// row without its record: every write is one transaction of the index, which the segment append
/// and the file rename happen inside.
struct RecordWriter: Sendable {
    let index: DiskIndex
    let segments: SegmentStore
    let files: FileStore
    /// Which records go to files of their own: longer than this.
    let inlineEntryLimit: Int

    /// Writes the record of `payload` under `header` (its payload checksum is computed on the way)
    /// for the key whose hash is `hash`.
    ///
    /// - Returns: The shared usage count after the write (see ``DiskUsage``).
    /// - Throws: As ``storeShared(header:payload:hash:now:)`` and ``storeInFile(header:payload:hash:now:)``.
    func store(header: CacheRecord.Header, payload: Data, hash: [UInt8], now: Date) throws -> DiskUsage {
        header.fileByteCount <= inlineEntryLimit
            ? try storeShared(header: header, payload: payload, hash: hash, now: now)
            : try storeInFile(header: header, payload: payload, hash: hash, now: now)
    }

    // MARK: - Private

    /// Stores a record in the shared files: inside the index under ``SegmentStore/recordThreshold``,
    /// else appended to the newest segment (see ``SegmentStore/append(_:on:)``). One transaction reads
    /// the row it replaces and writes the record and the new row, so that readers in any process
    /// see the old record or the new one. A record that lived in a file of its own loses the file
    /// in a second transaction, after the first committed (a process killed in between leaves a
    /// stale file, which ``Reconciler/reconcile()`` removes; never a row without its file): files are
    /// created and removed only under the index's write lock.
    ///
    /// - Returns: The shared usage count after the write (see ``DiskUsage``).
    /// - Throws: ``DiskCacheError/writeFailed(path:call:errno:)`` naming the index or the segment
    ///   (`ENOSPC` for a full disk: nothing committed, the old value stays);
    ///   ``DiskCacheError/indexBusy(path:waited:)``.
    private func storeShared(header: CacheRecord.Header, payload: Data, hash: [UInt8], now: Date) throws -> DiskUsage {
        let (header, record) = CacheRecord.encode(header: header, payload: payload)
        let (usage, old) = try index.withDatabase(writing: true) { connection in
            try connection.writeTransaction { () -> (DiskUsage, IndexRow?) in
                let entries = EntryTable(connection: connection)
                let (before, old) = try UsageTable(connection: connection).current(withRowOf: hash)
                return try record.withUnsafeBytes { bytes in
                    guard bytes.count >= SegmentStore.recordThreshold else {
                        try entries.upsert(hash: hash, header: header, used: now, record: bytes)
                        // The totals with this record and without the one it replaced (the
                        // index's pages may be a page more: the next write reads them).
                        var after = before
                        after.inlineBytes += bytes.count - (old?.placement == .inline ? old?.byteCount ?? 0 : 0)
                        after.entryCount += old == nil ? 1 : 0
                        return (after, old)
                    }
                    let location = try segments.append(bytes, on: connection)
                    try entries.upsert(hash: hash, header: header, used: now, record: nil, segment: location)
                    // The append lengthened one segment by the record, in this transaction.
                    var after = before
                    after.segmentFileBytes += bytes.count
                    after.liveSegmentBytes += bytes.count
                    return (after, old)
                }
            }
        }
        guard let replaced = old, replaced.placement == .file else { return usage }
        return try index.withDatabase(writing: true) { connection in
            try connection.writeTransaction {
                // Unless a file was written for the key since.
                guard try EntryTable(connection: connection).row(hash)?.placement != .file,
                    try files.remove(SHA256.hex(hash)) != nil
                else { return usage }
                return try UsageTable(connection: connection).current()
            }
        }
    }

    /// Stores a record in a file of its own: the file is written in full under a temporary
    /// name (see ``TemporaryFiles/write(header:payload:now:)``), then, in one write
    /// transaction, renamed over the entry's name and its row written. A file becomes visible
    /// only together with its row, so a clean-up (which removes files only under the same lock)
    /// never takes it for a stray. A process killed between the rename and the commit leaves a
    /// file its row does not name, which ``Reconciler/reconcile()`` adopts or removes.
    ///
    /// - Returns: The shared usage count after the write (see ``DiskUsage``).
    /// - Throws: ``DiskCacheError/writeFailed(path:call:errno:)``; ``DiskCacheError/foreignItem(path:reason:)``
    ///   when the entry's shard folder is not the cache's; ``DiskCacheError/indexBusy(path:waited:)``.
    private func storeInFile(header: CacheRecord.Header, payload: Data, hash: [UInt8], now: Date) throws -> DiskUsage {
        // A clean-up in another process may take a temporary file between its creation and its
        // lock (a window of one system call); the rename then finds it gone, and the write starts again.
        for _ in 0..<3 {
            let (temporary, header) = try files.writeTemporary(header: header, payload: payload, now: now)
            defer {
                _ = FileSystem.unlink(temporary.name, in: temporary.directory)  // ENOENT once renamed
                FileSystem.close(temporary.descriptor)  // after the commit: releases the lock
                FileSystem.close(temporary.directory)
            }
            let usage = try index.withDatabase(writing: true) { connection -> DiskUsage? in
                try connection.writeTransaction {
                    guard try files.place(temporary, header: header, hash: hash, now: now, on: connection) else { return nil }
                    return try UsageTable(connection: connection).current()
                }
            }
            if let usage { return usage }
        }
        throw DiskCacheError.writeFailed(path: files.path(of: SHA256.hex(hash)), call: "rename", errno: ENOENT)
    }
}
