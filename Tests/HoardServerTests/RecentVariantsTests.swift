import Foundation
@testable import HoardServer
import Testing

@Suite("RecentVariants")
struct RecentVariantsTests {
    private static func entry(_ source: String, width: Int = 256, auto: Bool = true) throws -> RecentVariants.Entry {
        let variant = try Variant(
            options: ProcessingOptions(width: width), format: .jpeg, sourceName: source, fingerprint: nil)
        return .init(variant: variant, url: try #require(URL(string: source)), variesByAccept: auto)
    }

    @Test("a remembered path is found for the same WebP answer only, with what it resolved to")
    func byPathAndWebP() throws {
        let recent = RecentVariants(byteLimit: 1 << 20)
        let path = "/unsafe/w:256/plain/https%3A%2F%2Fimages.example%2Fa.jpg"
        let made = try Self.entry("https://images.example/a.jpg")
        recent.remember(made, path: path, acceptsWebP: true)
        let found = try #require(recent.entry(path: path, acceptsWebP: true))
        #expect(found.variant.cacheKey == made.variant.cacheKey && found.url == made.url && found.variesByAccept)
        #expect(recent.entry(path: path, acceptsWebP: false) == nil)
        #expect(recent.entry(path: path + "x", acceptsWebP: true) == nil)
    }

    @Test("the bytes held never pass the limit: a path that does not fit empties the memo first; one larger than the limit is not kept")
    func bounded() throws {
        let made = try Self.entry("https://images.example/a.jpg")
        let path = String(repeating: "p", count: 100)
        let cost = path.utf8.count + made.variant.cacheKey.utf8.count
        let recent = RecentVariants(byteLimit: cost * 3)
        for index in 0..<10 {
            recent.remember(made, path: path + "\(index)", acceptsWebP: false)
            #expect(recent.byteCount <= recent.byteLimit)
        }
        // Three fit: the tenth path went into an emptied memo after the ninth.
        #expect(recent.entry(path: path + "9", acceptsWebP: false) != nil)
        #expect(recent.entry(path: path + "0", acceptsWebP: false) == nil)
        let huge = String(repeating: "h", count: cost * 3)
        recent.remember(made, path: huge, acceptsWebP: false)
        #expect(recent.entry(path: huge, acceptsWebP: false) == nil)
        #expect(RecentVariants(byteLimit: -1).byteLimit == 0)
    }
}
