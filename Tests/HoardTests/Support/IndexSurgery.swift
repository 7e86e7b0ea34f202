import Foundation
import HoardSystem
import Testing

@testable import HoardCore

/// Reaches into a cache's index the way damage would: reads and rewrites the record kept for a key
/// inside the index or in a segment file, behind the cache's back.
enum IndexSurgery {
    /// Where the index places `key`'s record, or `nil` when there is no row.
    static func placement(in cache: DiskCache, key: String) throws -> IndexRow.Placement? {
        let hash = try DiskCache.keyHash(key)
        return try cache.index.withConnection(writing: true) { try EntryTable(connection: $0).row(hash)?.placement }
    }

    /// The segment, offset and length of `key`'s record, or `nil` when it is not in a segment.
    static func segmentLocation(in cache: DiskCache, key: String) throws -> (path: String, offset: Int, count: Int)? {
        let hash = try DiskCache.keyHash(key)
        return try cache.index.withConnection(writing: true) { connection in
            let select = try connection.uncachedStatement(
                "SELECT segment, offset, size FROM entries WHERE hash = ?1 AND segment IS NOT NULL")
            defer { select.reset() }
            select.bind(1, hash)
            guard try select.step() else { return nil }
            return (cache.segments.path(of: select.int(0)), select.int(1), select.int(2))
        }
    }

    /// The record kept for `key` inside the index or in a segment, or `nil` (no row, or a file entry).
    static func record(in cache: DiskCache, key: String) throws -> [UInt8]? {
        if let location = try segmentLocation(in: cache, key: key) {
            let handle = try #require(FileHandle(forReadingAtPath: location.path))
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(location.offset))
            return [UInt8](try handle.read(upToCount: location.count) ?? Data())
        }
        let hash = try DiskCache.keyHash(key)
        return try cache.index.withConnection(writing: true) { connection -> [UInt8]? in
            let select = try connection.uncachedStatement("SELECT record FROM entries WHERE hash = ?1 AND record IS NOT NULL")
            defer { select.reset() }
            select.bind(1, hash)
            return try select.step() ? select.blob(0) : nil
        }
    }

    /// Makes `key`'s record read as `bytes`, leaving the rest of the row as it is: inside the
    /// index, the record column; in a segment, `bytes` written past the segment's end and the
    /// row's offset and length pointed at them.
    static func setRecord(in cache: DiskCache, key: String, to bytes: [UInt8]) throws {
        let hash = try DiskCache.keyHash(key)
        guard let location = try segmentLocation(in: cache, key: key) else {
            try cache.index.withConnection(writing: true) { connection in
                let update = try connection.uncachedStatement("UPDATE entries SET record = ?2 WHERE hash = ?1")
                defer { update.reset() }
                update.bind(1, hash)
                update.bind(2, bytes)
                try update.run()
            }
            return
        }
        let handle = try #require(FileHandle(forUpdatingAtPath: location.path))
        defer { try? handle.close() }
        let end = try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
        try cache.index.withConnection(writing: true) { connection in
            let update = try connection.uncachedStatement("UPDATE entries SET offset = ?2, size = ?3 WHERE hash = ?1")
            defer { update.reset() }
            update.bind(1, hash)
            update.bind(2, Int(end))
            update.bind(3, bytes.count)
            try update.run()
        }
    }

    /// Flips one bit of the byte at `offset` of `key`'s record where it is kept (in place).
    static func flipRecordByte(in cache: DiskCache, key: String, at offset: Int) throws {
        if let location = try segmentLocation(in: cache, key: key) {
            let handle = try #require(FileHandle(forUpdatingAtPath: location.path))
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(location.offset + offset))
            let byte = try #require(try handle.read(upToCount: 1)?.first)
            try handle.seek(toOffset: UInt64(location.offset + offset))
            try handle.write(contentsOf: Data([byte ^ 0x01]))
            return
        }
        var bytes = try #require(try record(in: cache, key: key), "no record kept for \(key)")
        bytes[offset] ^= 0x01
        try setRecord(in: cache, key: key, to: bytes)
    }
}
