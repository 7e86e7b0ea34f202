import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("Hoard memoization")
struct HoardMemoizeTests {
    /// A two-argument async function that counts its runs.
    struct Thumbnailer: Sendable {
        let probe = FetchProbe()

        @Sendable func thumbnail(_ url: URL, _ size: Int) async throws -> String {
            try await probe.call { "\(url.lastPathComponent)@\(size)#\($0)" }
        }
    }

    @Test("the memoized function runs once per distinct arguments, from memory, disk and another instance")
    func memoizes() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let source = Thumbnailer()
        let thumbnail = fixture.hoard.memoize(source.thumbnail, namespace: "thumbnail")
        let a = try #require(URL(string: "https://example.com/a.png"))
        let b = try #require(URL(string: "https://example.com/b.png"))
        #expect(try await thumbnail(a, 128) == "a.png@128#1")
        #expect(try await thumbnail(a, 128) == "a.png@128#1")
        #expect(try await thumbnail(a, 256) == "a.png@256#2")
        #expect(try await thumbnail(b, 128) == "b.png@128#3")
        fixture.hoard.clearMemory()
        #expect(try await thumbnail(a, 256) == "a.png@256#2")
        let elsewhere = try fixture.reopened().memoize(source.thumbnail, namespace: "thumbnail")
        #expect(try await elsewhere(b, 128) == "b.png@128#3")
        #expect(source.probe.calls == 3)
        // The key: namespace, then the arguments as a JSON array.
        let stored = try await fixture.hoard.retrieve(
            String.self, forKey: "memoize:thumbnail:[\"https://example.com/a.png\",128]")
        #expect(stored == "a.png@128#1")
    }

    @Test("a key closure picks the arguments that matter")
    func customKey() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let source = Thumbnailer()
        let bySize = fixture.hoard.memoize(source.thumbnail, namespace: "size") { _, size in "\(size)" }
        let a = try #require(URL(string: "https://example.com/a.png"))
        let b = try #require(URL(string: "https://example.com/b.png"))
        #expect(try await bySize(a, 64) == "a.png@64#1")
        #expect(try await bySize(b, 64) == "a.png@64#1")
        #expect(source.probe.calls == 1)
        #expect(try await fixture.hoard.retrieve(String.self, forKey: "memoize:size:64") == "a.png@64#1")
    }

    @Test("without a namespace, two memoized functions never share results")
    func defaultNamespaces() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let probe = FetchProbe()
        let double = fixture.hoard.memoize { (x: Int) in try await probe.call { _ in x * 2 } }
        let triple = fixture.hoard.memoize { (x: Int) in try await probe.call { _ in x * 3 } }
        #expect(try await double(5) == 10)
        #expect(try await triple(5) == 15)
        #expect(try await double(5) == 10)
        #expect(probe.calls == 2)
    }

    @Test("arguments that differ only inside strings or by type of description give different keys")
    func unambiguousKeys() {
        #expect(MemoizationKey.arguments("a,b") != MemoizationKey.arguments("a", "b"))
        #expect(MemoizationKey.arguments("a,b") == #"["a,b"]"#)
        #expect(MemoizationKey.arguments(1, "1") == #"[1,"1"]"#)
        #expect(MemoizationKey.arguments(User(id: 1, name: "x")) == #"[{"id":1,"name":"x"}]"#)
        struct Opaque: CustomStringConvertible { var description: String { "opaque \"thing\"" } }
        #expect(MemoizationKey.arguments(Opaque()) == #"["opaque \"thing\""]"#)
        #expect(MemoizationKey.arguments() == "[]")
    }

    @Test("a nil result is cached as a hit, with its own expiry")
    func optionalResults() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let probe = FetchProbe()
        let find = fixture.hoard.memoize(
            { (name: String) in try await probe.call { _ in name == "ada" ? User(id: 1, name: "Ada") : nil } },
            namespace: "user", expiry: .seconds(3_600), nilExpiry: .seconds(60))
        #expect(try await find("nobody") == nil)
        #expect(try await find("nobody") == nil)
        #expect(try await find("ada") == User(id: 1, name: "Ada"))
        fixture.hoard.clearMemory()
        #expect(try await find("nobody") == nil)
        #expect(try await find("ada") == User(id: 1, name: "Ada"))
        #expect(probe.calls == 2)
        fixture.clock.advance(by: 60)
        #expect(try await find("nobody") == nil)  // the nil expired: runs again
        #expect(try await find("ada") == User(id: 1, name: "Ada"))  // still cached
        #expect(probe.calls == 3)
        let byFirstLetter = fixture.hoard.memoize(
            { (name: String) in try await probe.call { _ in name.hasPrefix("a") ? "A" : nil } }, namespace: "letter"
        ) { name in String(name.prefix(1)) }
        #expect(try await byFirstLetter("zed") == nil)
        #expect(try await byFirstLetter("zoe") == nil)
        #expect(probe.calls == 4)
    }

    @Test("concurrent calls with equal arguments share one run")
    func concurrentCalls() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let probe = FetchProbe(gated: true)
        let square = fixture.hoard.memoize({ (x: Int) in try await probe.call { _ in x * x } }, namespace: "square")
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 { group.addTask { try await square(9) } }
            #expect(await eventually { fixture.hoard.fetcher.flights.waiterCount(forKey: "memoize:square:[9]") == 50 })
            probe.gate?.open()
            for try await result in group { #expect(result == 81) }
        }
        #expect(probe.calls == 1)
    }

    @Test("functions of zero and three arguments")
    func arities() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let probe = FetchProbe()
        let constant = fixture.hoard.memoize({ try await probe.call { "run \($0)" } }, namespace: "constant")
        #expect(try await constant() == "run 1")
        #expect(try await constant() == "run 1")
        let join = fixture.hoard.memoize(
            { (a: String, b: Int, c: Bool) in try await probe.call { _ in "\(a)\(b)\(c)" } }, namespace: "join")
        #expect(try await join("x", 1, true) == "x1true")
        #expect(try await join("x", 1, true) == "x1true")
        #expect(try await join("x", 1, false) == "x1false")
        #expect(probe.calls == 3)
    }
}
