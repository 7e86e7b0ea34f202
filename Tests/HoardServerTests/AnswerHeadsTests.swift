import Foundation
@testable import HoardServer
import HoardSystem
import Testing

@Suite("EntityTags")
struct EntityTagsTests {
    private static func sha(_ bytes: Data) throws -> String {
        "\"" + SHA256.hex(try #require(SHA256.hash(Array(bytes))).prefix(16)) + "\""
    }

    @Test("a tag is the content's SHA-256 (128 bits, quoted); the same key with another date or size is hashed again, never answered from memory")
    func fromTheContent() throws {
        let tags = EntityTags(byteLimit: 1 << 20)
        let first = Data("first".utf8), second = Data("other".utf8)
        let stored = Date(timeIntervalSince1970: 1_000)
        #expect(tags.tag(forKey: "k", cachedAt: stored, bytes: first) == (try Self.sha(first)))
        #expect(tags.tag(forKey: "k", cachedAt: stored, bytes: first) == (try Self.sha(first)))
        // Stored again: a new date, new bytes (same size) get their own tag.
        #expect(tags.tag(forKey: "k", cachedAt: stored.addingTimeInterval(1), bytes: second) == (try Self.sha(second)))
        #expect(tags.tag(forKey: "k", cachedAt: stored.addingTimeInterval(1), bytes: Data("longer".utf8))
            == (try Self.sha(Data("longer".utf8))))
        #expect(tags.table.count == 1)
    }

    @Test("the costs held never pass the limit: a key that does not fit empties the table first; one over the limit is answered but not kept")
    func bounded() throws {
        let keys = (0..<7).map { "key-\($0)" }
        let tags = EntityTags(byteLimit: (keys[0].utf8.count + 128) * 3)
        let bytes = Data("x".utf8)
        for (index, key) in keys.enumerated() {
            _ = tags.tag(forKey: key, cachedAt: Date(timeIntervalSince1970: 0), bytes: bytes)
            #expect(tags.table.byteCount <= tags.table.byteLimit && tags.table.count == index % 3 + 1)
        }
        let huge = String(repeating: "h", count: tags.table.byteLimit)
        #expect(tags.tag(forKey: huge, cachedAt: Date(timeIntervalSince1970: 0), bytes: bytes) == (try Self.sha(bytes)))
        #expect(tags.table.count == 1)
    }
}
