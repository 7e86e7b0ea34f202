import Foundation
import HTTPTypes
import HoardSystem
import Testing

@testable import HoardServer

@Suite("AnswerHeads")
struct AnswerHeadsTests {
    private static func sha(_ bytes: Data) throws -> String {
        "\"" + SHA256.hex(try #require(SHA256.hash(Array(bytes))).prefix(16)) + "\""
    }

    /// A PNG signature and the start of its header: enough for the content type.
    private static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])

    @Test("a tag is the content's SHA-256 (128 bits, quoted); the same key with another date or size is made again, never answered from memory")
    func fromTheContent() throws {
        let heads = AnswerHeads(byteLimit: 1 << 20, cacheControl: "public, max-age=60")
        let first = Data("first".utf8), second = Data("other".utf8)
        let stored = Date(timeIntervalSince1970: 1_000)
        #expect(heads.head(forKey: "k", cachedAt: stored, bytes: first).entityTag == (try Self.sha(first)))
        #expect(heads.head(forKey: "k", cachedAt: stored, bytes: first).entityTag == (try Self.sha(first)))
        // Stored again: a new date, new bytes (same size) get their own head.
        #expect(heads.head(forKey: "k", cachedAt: stored.addingTimeInterval(1), bytes: second).entityTag
            == (try Self.sha(second)))
        let longer = heads.head(forKey: "k", cachedAt: stored.addingTimeInterval(1), bytes: Data("longer".utf8))
        #expect(longer.entityTag == (try Self.sha(Data("longer".utf8))))
        #expect(longer.fields[.contentLength] == "6", "a head made again has the new length")
        #expect(heads.table.count == 1)
    }

    @Test("a head's fields: a 200's name the content and its length; a 304's keep the validators and no representation fields")
    func fields() throws {
        let heads = AnswerHeads(byteLimit: 1 << 20, cacheControl: "public, max-age=60")
        let head = heads.head(forKey: "k", cachedAt: Date(timeIntervalSince1970: 0), bytes: Self.png)
        let tag = try Self.sha(Self.png)
        #expect(head.fields[.eTag] == tag && head.fields[.cacheControl] == "public, max-age=60")
        #expect(head.fields[.contentType] == "image/png" && head.fields[.xContentTypeOptions] == "nosniff")
        #expect(head.fields[.contentLength] == String(Self.png.count))
        #expect(head.notModifiedFields[.eTag] == tag && head.notModifiedFields[.cacheControl] == "public, max-age=60")
        #expect(head.notModifiedFields[.contentType] == nil && head.notModifiedFields[.contentLength] == "0")
        let unknown = heads.head(forKey: "u", cachedAt: Date(timeIntervalSince1970: 0), bytes: Data("??".utf8))
        #expect(unknown.fields[.contentType] == "application/octet-stream")
    }

    @Test("the costs held never pass the limit: a key that does not fit empties the table first; one over the limit is answered but not kept")
    func bounded() throws {
        let keys = (0..<7).map { "key-\($0)" }
        let heads = AnswerHeads(
            byteLimit: (keys[0].utf8.count + AnswerHeads.entryCost) * 3, cacheControl: "public, max-age=60")
        let bytes = Data("x".utf8)
        for (index, key) in keys.enumerated() {
            _ = heads.head(forKey: key, cachedAt: Date(timeIntervalSince1970: 0), bytes: bytes)
            #expect(heads.table.byteCount <= heads.table.byteLimit && heads.table.count == index % 3 + 1)
        }
        let huge = String(repeating: "h", count: heads.table.byteLimit)
        #expect(heads.head(forKey: huge, cachedAt: Date(timeIntervalSince1970: 0), bytes: bytes).entityTag
            == (try Self.sha(bytes)))
        #expect(heads.table.count == 1)
    }
}
