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
    /// What a write did to the folder's size.
    struct WriteOutcome: Sendable, Hashable {
        /// The new entry file's length.
        var byteCount: Int
        /// The length of the entry file it replaced, 0 when there was none.
        var replacedByteCount: Int
    }

    /// Stores a record in the shared files: inside the index under ``segmentRecordThreshold``,
    /// else appended to the newest segment (see ``appendToSegment(_:on:)``). One transaction reads
    /// the row it replaces, writes the record and the new row, so that readers in any process see
    /// the old record or the new one. When the old record was a file of its own, the file is
    /// removed after the commit (a crash in between leaves a stale file that ``reconcileIndex()``
    /// removes).
    ///
    /// - Throws: ``DiskCacheError/writeFailed(path:call:errno:)`` naming the index or the segment
    ///   (`ENOSPC` for a full disk: nothing committed, the old value stays).
    func storeShared(header: Entry.Header, payload: Data, hash: [UInt8], now: Date) throws -> WriteOutcome {
        let (header, record) = Self.record(header: header, payload: payload)
        let replaced = try withIndex(writing: true) { connection in
            try connection.writeTransaction {
                let old = try indexRow(hash, on: connection)
                try record.withUnsafeBytes { bytes in
                    if bytes.count < Self.segmentRecordThreshold {
                        try upsertRow(hash: hash, header: header, used: now, record: bytes, on: connection)
                    } else {
                        let location = try appendToSegment(bytes, on: connection)
                        try upsertRow(
                            hash: hash, header: header, used: now, record: nil, segment: location, on: connection)
                    }
                }
                return old
            }
        }
        if replaced?.placement == .file { _ = try? removeEntryFile(ofHash: hash) }
        return WriteOutcome(byteCount: record.count, replacedByteCount: replaced?.byteCount ?? 0)
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

    /// Stores a record in a file of its own (see ``writeEntryFile(header:payload:location:now:)``),
    /// then points the index at it. A crash between the two leaves the old row (whose record, if
    /// inline, is then still what reads return) and a file that ``reconcileIndex()`` indexes.
    ///
    /// - Throws: ``DiskCacheError/writeFailed(path:call:errno:)``.
    func storeInFile(header: Entry.Header, payload: Data, hash: [UInt8], now: Date) throws -> WriteOutcome {
        let written = try writeEntryFile(header: header, payload: payload, location: location(forHash: hash), now: now)
        let replaced = try withIndex(writing: true) { connection in
            try connection.writeTransaction {
                let old = try indexRow(hash, on: connection)
                try upsertRow(hash: hash, header: header, used: now, record: nil, on: connection)
                return old
            }
        }
        return WriteOutcome(byteCount: written.byteCount, replacedByteCount: replaced?.byteCount ?? 0)
    }

    /// Writes the entry to a fresh temporary file and renames it over the entry path.
    ///
    /// The temporary file lives in `<root>/tmp/` (same file system, so the rename is atomic) and is
    /// `flock`ed until the rename, which tells ``trim()`` in any process that it is not abandoned.
    /// The payload is written in chunks with its CRC-32C computed on the way (one pass over the
    /// bytes), then the header, which holds the checksum, is written at offset 0. No `fsync`: a
    /// torn file after a crash is caught by the length and checksum checks.
    ///
    /// - Parameter header: The entry's header; its `payloadChecksum` is computed here.
    /// - Throws: ``DiskCacheError/writeFailed(path:call:errno:)``.
    func writeEntryFile(header: Entry.Header, payload: Data, location: Location, now: Date) throws -> WriteOutcome {
        var header = header
        var isChecksumKnown = false
        // A trim in another process may remove the temporary file between its creation and its
        // lock (a window of one system call); the rename then fails and the write starts again.
        for _ in 0..<3 {
            if let outcome = try writeOnce(
                header: &header, isChecksumKnown: &isChecksumKnown, payload: payload, location: location, now: now)
            {
                return outcome
            }
        }
        throw DiskCacheError.writeFailed(path: location.path, call: "rename", errno: ENOENT)
    }

    // MARK: - Private

    /// Bytes of payload written (and checksummed) per system call.
    private static let chunkByteCount = 256 * 1024

    /// One attempt; `nil` when the temporary file vanished before the rename.
    private func writeOnce(
        header: inout Entry.Header, isChecksumKnown: inout Bool, payload: Data, location: Location, now: Date
    ) throws -> WriteOutcome? {
        let temporary = try createTemporaryFile()
        let descriptor = temporary.descriptor
        var renamed = false
        defer {
            if !renamed { _ = FileSystem.unlink(temporary.name, in: temporary.directory) }
            FileSystem.close(descriptor)  // after the rename: releases the lock
            FileSystem.close(temporary.directory)
        }
        let headerByteCount = header.byteCount
        var checksum = CRC32C()
        let computeChecksum = !isChecksumKnown
        var written: Result<Void, SystemCallError> = payload.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let chunk = UnsafeRawBufferPointer(
                    rebasing: buffer[offset..<min(offset + Self.chunkByteCount, buffer.count)])
                if computeChecksum { checksum.update(chunk) }
                if case .failure(let error) = FileSystem.writeAll(descriptor, chunk, at: headerByteCount + offset) {
                    return .failure(error)
                }
                offset += chunk.count
            }
            return .success(())
        }
        if case .success = written {
            if computeChecksum {
                header.payloadChecksum = checksum.value
                isChecksumKnown = true
            }
            written = header.encoded().withUnsafeBytes { FileSystem.writeAll(descriptor, $0, at: 0) }
        }
        if case .failure(let error) = written {
            throw DiskCacheError.writeFailed(path: temporary.path, call: error.call, errno: error.errno)
        }
        // The modification time is the recency mark; use the cache's clock for it.
        _ = FileSystem.setTimes(descriptor, to: now)

        var replacedByteCount = 0
        if case .success(let previous) = FileSystem.linkStatus(location.path), previous.kind == .regular {
            replacedByteCount = previous.byteCount
        }
        var result = FileSystem.rename(temporary.name, in: temporary.directory, to: location.path)
        if case .failure(let error) = result, error.errno == ENOENT {
            guard case .success(let status) = FileSystem.status(of: descriptor), status.linkCount > 0 else {
                renamed = true  // nothing left to unlink
                return nil
            }
            // The shard folder does not exist yet (or was removed by `removeAll()`): create it, retry.
            if case .failure(let mkdirError) = FileSystem.makeDirectoryAndParents(location.shardPath) {
                throw DiskCacheError.writeFailed(
                    path: mkdirError.path ?? location.shardPath, call: mkdirError.call, errno: mkdirError.errno)
            }
            result = FileSystem.rename(temporary.name, in: temporary.directory, to: location.path)
        }
        switch result {
        case .success:
            renamed = true
            return WriteOutcome(byteCount: headerByteCount + payload.count, replacedByteCount: replacedByteCount)
        case .failure(let error):
            throw DiskCacheError.writeFailed(path: location.path, call: error.call, errno: error.errno)
        }
    }
}
