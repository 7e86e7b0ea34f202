import Foundation
import Testing

@testable import HoardCore

/// The one record codec: what it writes verifies, anything else is refused with the reason, and
/// the disk tier and the Redis tier keep the same bytes for the same entry.
@Suite("CacheRecord")
struct CacheRecordTests {
    private let header = CacheRecord.Header(
        key: "photos/1.jpg", creationDate: Date(timeIntervalSinceReferenceDate: 700_000_000),
        expirationDate: Date(timeIntervalSinceReferenceDate: 700_086_400), payloadByteCount: 5, payloadChecksum: 0)
    private let payload = Data("hello".utf8)

    @Test func encodedRecordVerifiesAndGivesThePayloadBack() throws {
        let (written, bytes) = CacheRecord.encode(header: header, payload: payload)
        #expect(bytes.count == written.fileByteCount)
        let verified = try bytes.withUnsafeBytes { try CacheRecord.verify($0, expectedKey: "photos/1.jpg").get() }
        #expect(verified == written)
        #expect(Data(bytes[verified.byteCount...]) == payload)
        #expect(verified.payloadChecksum != 0)
    }

    @Test func damagedRecordsAreRefusedWithTheirReason() {
        let (_, bytes) = CacheRecord.encode(header: header, payload: payload)
        func verify(_ record: [UInt8], key: String? = "photos/1.jpg") -> Result<CacheRecord.Header, CacheRecord.Damage> {
            record.withUnsafeBytes { CacheRecord.verify($0, expectedKey: key) }
        }
        #expect(verify(bytes, key: "photos/2.jpg") == .failure(.otherKey))
        #expect(verify(bytes + [0]) == .failure(.lengthMismatch(expected: bytes.count, actual: bytes.count + 1)))
        var flippedPayload = bytes
        flippedPayload[bytes.count - 1] ^= 0x20
        guard case .failure(.payloadChecksumMismatch) = verify(flippedPayload) else {
            Issue.record("a flipped payload byte verified")
            return
        }
        var flippedHeader = bytes
        flippedHeader[20] ^= 0x01
        guard case .failure(.header) = verify(flippedHeader) else {
            Issue.record("a flipped header byte verified")
            return
        }
        for length in [0, 1, 47, CacheRecord.Header.fixedByteCount + 3, bytes.count - 1] {
            if case .success = verify(Array(bytes.prefix(length))) { Issue.record("\(length) bytes verified") }
        }
    }

    @Test func theKeyIsComparedByItsBytes() throws {
        for key in ["photos/1.jpg", "фото/1.jpg", "", "e\u{301}"] {
            var keyed = header
            keyed.key = key
            let (_, bytes) = CacheRecord.encode(header: keyed, payload: payload)
            func verify(_ expected: String?) -> Result<CacheRecord.Header, CacheRecord.Damage> {
                bytes.withUnsafeBytes { CacheRecord.verify($0, expectedKey: expected) }
            }
            #expect(try verify(key).get().key == key)
            #expect(try verify(nil).get().key == key)
            #expect(verify(key + "x") == .failure(.otherKey))
            #expect(verify(String(key.dropLast())) == .failure(.otherKey) || key.isEmpty)
            if key == "e\u{301}" { #expect(verify("\u{e9}") == .failure(.otherKey), "canonically equal is not equal") }
        }
        // Key bytes that are not UTF-8, under a header checksum that matches: refused whatever key
        // is expected.
        var keyed = header
        keyed.key = "ab"
        var (_, bytes) = CacheRecord.encode(header: keyed, payload: payload)
        let keyStart = CacheRecord.Header.fixedByteCount
        bytes[keyStart] = 0xFF
        var checksum = CRC32C()
        checksum.update(Array(bytes[0..<44]))
        checksum.update(Array(bytes[keyStart..<keyStart + 2]))
        withUnsafeBytes(of: checksum.value.littleEndian) { bytes.replaceSubrange(44..<48, with: $0) }
        for expected in ["ab", "\u{FFFD}b", nil] as [String?] {
            let result = bytes.withUnsafeBytes { CacheRecord.verify($0, expectedKey: expected) }
            #expect(result == .failure(.header(CacheRecord.Header.ParseError.keyNotUTF8.description)), "\(String(describing: expected))")
        }
    }

    @Test func redisValueAndDiskRecordAreTheSameBytes() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        let entry = CacheTierEntry(bytes: payload, createdAt: header.creationDate, expiresAt: header.expirationDate)
        let redisValue = try #require(CacheRecord.encode(entry, forKey: header.key))
        try parts.writer.store(header: header, payload: payload, hash: EntryFiles.keyHash(header.key), now: parts.clock.now)
        let hash = try EntryFiles.keyHash(header.key)
        let stored = try parts.index.withDatabase(writing: false) { connection -> [UInt8]? in
            try EntryTable(connection: connection).lookUp(hash) { $0.record.map { Array($0) } } ?? nil
        }
        #expect(stored == redisValue)
        #expect(CacheRecord.decode(redisValue, forKey: header.key) == .success(entry))
        #expect(CacheRecord.decode(redisValue, forKey: "another") == .failure(.otherKey))
    }
}
