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

    static let webP = FormatNegotiation(accept: "image/webp")
    static let avif = FormatNegotiation(accept: "image/avif,image/webp")
    static let neither = FormatNegotiation(accept: nil)

    @Test("a remembered path is found for the same accepted formats only, with what it resolved to")
    func byPathAndWebP() throws {
        let recent = RecentVariants(byteLimit: 1 << 20)
        let path = "/unsafe/w:256/plain/https%3A%2F%2Fimages.example%2Fa.jpg"
        let made = try Self.entry("https://images.example/a.jpg")
        recent.remember(made, path: path, accepting: Self.webP)
        let found = try #require(recent.entry(path: path, accepting: Self.webP))
        #expect(found.variant.cacheKey == made.variant.cacheKey && found.url == made.url && found.variesByAccept)
        #expect(recent.entry(path: path, accepting: Self.neither) == nil)
        #expect(recent.entry(path: path, accepting: Self.avif) == nil)
        #expect(recent.entry(path: path + "x", accepting: Self.webP) == nil)
    }

    @Test("the costs held never pass the limit: an entry that does not fit empties the memo first; one over the limit, or a path that is not ASCII, is not kept")
    func bounded() throws {
        let made = try Self.entry("https://images.example/a.jpg")
        let paths = (0..<10).map { "/unsafe/w:256/plain/\($0)" }
        let cost = RecentVariants.cost(path: paths[0], entry: made)
        #expect(paths.allSatisfy { RecentVariants.cost(path: $0, entry: made) == cost })
        let recent = RecentVariants(byteLimit: cost * 3)
        for (index, path) in paths.enumerated() {
            recent.remember(made, path: path, accepting: Self.neither)
            #expect(recent.table.byteCount <= recent.table.byteLimit)
            // Three fit: the fourth, seventh and tenth start an emptied memo.
            #expect(recent.table.count == index % 3 + 1 && recent.table.byteCount == recent.table.count * cost)
        }
        #expect(recent.entry(path: paths[9], accepting: Self.neither) != nil)
        #expect(recent.entry(path: paths[8], accepting: Self.neither) == nil)
        let huge = String(repeating: "h", count: cost * 2)
        recent.remember(made, path: huge, accepting: Self.neither)
        #expect(recent.entry(path: huge, accepting: Self.neither) == nil)
        let accented = "/unsafe/w:256/plain/caf\u{E9}"
        recent.remember(made, path: accented, accepting: Self.neither)
        #expect(recent.entry(path: accented, accepting: Self.neither) == nil)
        #expect(RecentVariants(byteLimit: -1).table.byteLimit == 0)
    }
}
