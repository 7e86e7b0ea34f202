import Foundation
import HoardCore
import Testing

/// The record codec as a user's own tier sees it: through its public API alone (no `@testable`).
@Suite("CacheRecord, public")
struct CacheRecordPublicTests {
    private let entry = CacheTierEntry(
        bytes: Data("value".utf8), createdAt: Date(timeIntervalSince1970: 1_700_000_000),
        expiresAt: Date(timeIntervalSince1970: 1_800_000_000))

    @Test("a record decodes to the entry it was made from, dates included, and names its key")
    func roundTrip() throws {
        let record = try #require(CacheRecord.encode(entry, forKey: "k"))
        let decoded = try CacheRecord.decode(record, forKey: "k").get()
        #expect(decoded.bytes == entry.bytes)
        #expect(decoded.createdAt == entry.createdAt && decoded.expiresAt == entry.expiresAt)
        #expect(CacheRecord.key(of: record) == "k")
    }

    @Test("another key's record, a flipped payload byte, a cut record and foreign bytes are refused")
    func damage() throws {
        let record = try #require(CacheRecord.encode(entry, forKey: "k"))
        #expect(CacheRecord.decode(record, forKey: "other") == .failure(.otherKey))
        var flipped = record
        flipped[flipped.count - 1] ^= 0x01
        guard case .failure(.payloadChecksumMismatch) = CacheRecord.decode(flipped, forKey: "k") else {
            Issue.record("a flipped payload byte was accepted")
            return
        }
        #expect(throws: CacheRecord.Damage.self) { try CacheRecord.decode(Array(record.dropLast()), forKey: "k").get() }
        #expect(throws: CacheRecord.Damage.self) { try CacheRecord.decode(Array("not a record".utf8), forKey: "k").get() }
        #expect(CacheRecord.key(of: Array("not a record".utf8)) == nil)
    }

    @Test("a key longer than the disk tier's limit makes no record")
    func longKey() {
        #expect(CacheRecord.encode(entry, forKey: String(repeating: "k", count: DiskCache.maximumKeyByteCount + 1)) == nil)
    }
}
