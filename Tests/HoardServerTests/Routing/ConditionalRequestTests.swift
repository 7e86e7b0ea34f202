import Foundation
import HTTPTypes
@testable import HoardServer
import NIOCore
import Testing

/// `If-None-Match` on its own: which conditions name a tag, and the answer each gets.
@Suite("ConditionalRequest")
struct ConditionalRequestTests {
    private let answer = Answer(
        bytes: ByteBuffer(string: "image"),
        head: Answer.Head(bytes: Data("image".utf8), entityTag: "\"abc\"", cacheControl: "public, max-age=60"),
        variesByAccept: true)

    @Test("a condition names the tag strongly, weakly, in a list or with *; another tag or none does not")
    func matching() {
        for condition in ["\"abc\"", "W/\"abc\"", "\"x\", \"abc\"", " W/\"x\" ,W/\"abc\"", "*"] {
            #expect(ConditionalRequest.matches(condition, "\"abc\""), "\(condition)")
        }
        for condition in ["\"abcd\"", "abc", "\"x\"", ""] {
            #expect(!ConditionalRequest.matches(condition, "\"abc\""), "\(condition)")
        }
        #expect(ConditionalRequest.matches("\"abc\"", "W/\"abc\""), "a weak tag matches by weak comparison")
    }

    @Test("a match is a 304 with the validators, Vary and no body; no match is the 200 with its bytes")
    func answers() {
        let notModified = ConditionalRequest(ifNoneMatch: "W/\"abc\"").response(with: answer)
        #expect(notModified.status == .notModified && notModified.body == nil)
        #expect(notModified.headers[.eTag] == "\"abc\"" && notModified.headers[.contentType] == nil)
        #expect(notModified.headers[.vary] == "Accept")

        for condition in [nil, "\"other\""] {
            let full = ConditionalRequest(ifNoneMatch: condition).response(with: answer)
            #expect(full.status == .ok && full.body == ByteBuffer(string: "image"))
            #expect(full.headers[.contentLength] == "5" && full.headers[.eTag] == "\"abc\"")
        }
    }
}
