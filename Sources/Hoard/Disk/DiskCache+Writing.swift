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
    /// Stores a record in the shared files: inside the index under ``segmentRecordThreshold``,
    /// else appended to the newest segment (see ``appendToSegment(_:on:)``). One transaction reads
    /// the row it replaces and writes the record and the new row, so that readers in any process
    /// see the old record or the new one. A record that lived in a file of its own loses the file
    /// in a second transaction, after the first committed (a process killed in between leaves a
    /// stale file, which ``reconcileIndex()`` removes; never a row without its file): files are
    /// created and removed only under the index's write lock.
    ///
    /// - Returns: The shared usage count after the write (see ``Usage``).
    /// - Throws: ``DiskCacheError/writeFailed(path:call:errno:)`` naming the index or the segment
    ///   (`ENOSPC` for a full disk: nothing committed, the old value stays);
    ///   ``DiskCacheError/indexBusy(path:waited:)``.
    func storeShared(header: Entry.Header, payload: Data, hash: [UInt8], now: Date) throws -> Usage {
        let (header, record) = Self.record(header: header, payload: payload)
        let (usage, old) = try withIndex(writing: true) { connection in
            try connection.writeTransaction { () -> (Usage, IndexRow?) in
                let entries = EntryTable(connection: connection)
                let old = try entries.row(hash)
                try record.withUnsafeBytes { bytes in
                    if bytes.count < Self.segmentRecordThreshold {
                        try entries.upsert(hash: hash, header: header, used: now, record: bytes)
                    } else {
                        let location = try appendToSegment(bytes, on: connection)
                        try entries.upsert(hash: hash, header: header, used: now, record: nil, segment: location)
                    }
                }
                return (try currentUsage(on: connection), old)
            }
        }
        noteInlineChange(adding: record.count < Self.segmentRecordThreshold ? record.count : 0, replacing: old)
        guard let replaced = old, replaced.placement == .file else { return usage }
        return try withIndex(writing: true) { connection in
            try connection.writeTransaction {
                // Unless a file was written for the key since.
                guard try indexRow(hash, on: connection)?.placement != .file,
                    try files.remove(SHA256.hex(hash)) != nil
                else { return usage }
                try UsageTable(connection: connection).addFileBytes(-replaced.byteCount)
                return try currentUsage(on: connection)
            }
        }
    }

    /// Adds this process's own change to the bytes inside a small index (see
    /// ``TrimState/inlineByteCount``), which other processes' changes join at the next measure.
    private func noteInlineChange(adding added: Int, replacing old: IndexRow?) {
        let removed = old?.placement == .inline ? old?.byteCount ?? 0 : 0
        guard added != removed else { return }
        state.withLock { state in
            guard state.indexByteCount <= Self.smallIndexByteCount else { return }
            state.inlineByteCount = max(0, state.inlineByteCount + added - removed)
        }
    }

    /// The record of `payload` under `header`: the header, with the payload's checksum computed
    /// here, then the payload.
    static func record(header: Entry.Header, payload: Data) -> (header: Entry.Header, bytes: [UInt8]) {
        var header = header
        var checksum = CRC32C()
        payload.withUnsafeBytes { checksum.update($0) }
        header.payloadChecksum = checksum.value
        var record = header.encoded()
        record.append(contentsOf: payload)
        return (header, record)
    }

    /// Stores a record in a file of its own: the file is written in full under a temporary
    /// name (see ``writeTemporaryEntryFile(header:payload:now:)``), then, in one write
    /// transaction, renamed over the entry's name and its row written. A file becomes visible
    /// only together with its row, so a clean-up (which removes files only under the same lock)
    /// never takes it for a stray. A process killed between the rename and the commit leaves a
    /// file its row does not name, which ``reconcileIndex()`` adopts or removes.
    ///
    /// - Returns: The shared usage count after the write (see ``Usage``).
    /// - Throws: ``DiskCacheError/writeFailed(path:call:errno:)``; ``DiskCacheError/foreignItem(path:reason:)``
    ///   when the entry's shard folder is not the cache's; ``DiskCacheError/indexBusy(path:waited:)``.
    func storeInFile(header: Entry.Header, payload: Data, hash: [UInt8], now: Date) throws -> Usage {
        let fileName = SHA256.hex(hash)
        // A clean-up in another process may take a temporary file between its creation and its
        // lock (a window of one system call); the rename then finds it gone, and the write starts again.
        for _ in 0..<3 {
            let (temporary, header) = try writeTemporaryEntryFile(header: header, payload: payload, now: now)
            defer {
                _ = FileSystem.unlink(temporary.name, in: temporary.directory)  // ENOENT once renamed
                FileSystem.close(temporary.descriptor)  // after the commit: releases the lock
                FileSystem.close(temporary.directory)
            }
            let usage = try withIndex(writing: true) { connection -> Usage? in
                try connection.writeTransaction {
                    guard try files.moveIntoPlace(temporary: temporary.name, in: temporary.directory, as: fileName) else {
                        return nil
                    }
                    let entries = EntryTable(connection: connection)
                    let old = try entries.row(hash)
                    try entries.upsert(hash: hash, header: header, used: now, record: nil)
                    let replaced = old?.byteCount ?? 0
                    try UsageTable(connection: connection).addFileBytes(
                        header.fileByteCount - (old?.placement == .file ? replaced : 0))
                    return try currentUsage(on: connection)
                }
            }
            if let usage { return usage }
        }
        throw DiskCacheError.writeFailed(path: files.path(of: fileName), call: "rename", errno: ENOENT)
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
    func writeTemporaryEntryFile(
        header: Entry.Header, payload: Data, now: Date
    ) throws -> (TemporaryFile, Entry.Header) {
        var header = header
        let temporary = try createTemporaryFile()
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

    // MARK: - Private

    /// Bytes of payload written (and checksummed) per system call.
    private static let chunkByteCount = 256 * 1024
}
