import Foundation
@testable import HoardServer
import NIOCore
import Testing

/// The memo of recent answers on its own: bytes held within the limit, heads kept apart.
@Suite("RecentAnswers")
struct RecentAnswersTests {
    @Test("an answer remembered is given back with its bytes and head, marked varying by Accept as each caller asks")
    func remembers() throws {
        let memo = RecentAnswers(byteLimit: 1 << 20, cacheControl: "public, max-age=60")
        let made = memo.remember(Data("image".utf8), cachedAt: Date(timeIntervalSince1970: 100), forKey: "k", variesByAccept: false)
        let again = try #require(memo.answer(forKey: "k", variesByAccept: true))
        #expect(again.bytes == ByteBuffer(string: "image") && again.variesByAccept && !made.variesByAccept)
        #expect(again.head.entityTag == made.head.entityTag && again.head.fields[.cacheControl] == "public, max-age=60")
        #expect(memo.answer(forKey: "other", variesByAccept: false) == nil)
    }

    @Test("bytes beyond the limit are not held; with no memory the heads are still kept, so no answer is hashed twice")
    func limits() {
        let small = RecentAnswers(byteLimit: 4, cacheControl: "c")
        _ = small.remember(Data("too large".utf8), cachedAt: Date(timeIntervalSince1970: 100), forKey: "k", variesByAccept: false)
        #expect(small.answer(forKey: "k", variesByAccept: false) == nil)

        let none = RecentAnswers(byteLimit: 0, cacheControl: "c")
        _ = none.remember(Data("image".utf8), cachedAt: Date(timeIntervalSince1970: 100), forKey: "k", variesByAccept: false)
        #expect(none.answer(forKey: "k", variesByAccept: false) == nil)
        #expect(none.heads.table.count == 1)
        let changed = none.remember(Data("image".utf8), cachedAt: Date(timeIntervalSince1970: 200), forKey: "k", variesByAccept: false)
        #expect(changed.head.entityTag != nil && none.heads.table.count == 1, "a stored-again entry replaces its head")
    }
}
