import Foundation
import Testing

@testable import Hoard

/// Reaches into a cache's index the way damage would: reads and rewrites the record kept inside
/// it for a key, behind the cache's back.
enum IndexSurgery {
    /// The record the index keeps inline for `key`, or `nil` (no row, or a file entry).
    static func record(in cache: DiskCache, key: String) throws -> [UInt8]? {
        let hash = try DiskCache.keyHash(key)
        return try cache.index.withConnection { connection -> [UInt8]? in
            let select = try connection.statement("SELECT record FROM entries WHERE hash = ?1 AND record IS NOT NULL")
            defer { select.reset() }
            select.bind(1, hash)
            return try select.step() ? select.blob(0) : nil
        }
    }

    /// Replaces the inline record of `key` with `bytes`, leaving the rest of the row as it is.
    static func setRecord(in cache: DiskCache, key: String, to bytes: [UInt8]) throws {
        let hash = try DiskCache.keyHash(key)
        try cache.index.withConnection { connection in
            let update = try connection.statement("UPDATE entries SET record = ?2 WHERE hash = ?1")
            update.bind(1, hash)
            update.bind(2, bytes)
            try update.run()
        }
    }

    /// Flips one bit of the byte at `offset` of `key`'s inline record.
    static func flipRecordByte(in cache: DiskCache, key: String, at offset: Int) throws {
        var bytes = try #require(try record(in: cache, key: key), "no inline record for \(key)")
        bytes[offset] ^= 0x01
        try setRecord(in: cache, key: key, to: bytes)
    }
}
