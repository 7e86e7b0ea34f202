import Foundation
import Hoard
import HoardSystem
import Testing

/// Downloaded originals follow HTTP caching (RFC 9111): fresh ones cost no request, stale ones are
/// revalidated, a changed one makes new thumbnails, a `no-store` one is never kept.
@Suite("hoard thumbnails keeps originals fresh", .serialized)
struct FreshOriginalsTests {
    static let jpeg =
        (try? Data(contentsOf: testImages.appendingPathComponent("libjpeg-turbo/testorig.jpg"))) ?? Data()
    static let otherJPEG =
        (try? Data(contentsOf: testImages.appendingPathComponent("exif-orientation/Landscape_1.jpg"))) ?? Data()

    /// A route that serves `body()` with `headers` (plus `ETag: etag` when given) and answers a
    /// conditional request whose `If-None-Match` is `etag`, or whose `If-Modified-Since` is the
    /// `Last-Modified` among `headers`, with 304.
    static func validating(
        etag: String?, headers: [(String, String)] = [], body: @escaping @Sendable () -> Data = { jpeg }
    ) -> TestHTTPServer.Reply {
        .respond { request in
            let current = body()
            // The validator follows the bytes, as a real server's does.
            let tag = etag.map { current == jpeg ? $0 : "\"changed-\($0.filter { $0 != "\"" })\"" }
            var all = headers
            if let tag { all.append(("ETag", tag)) }
            let lastModified = headers.first { $0.0 == "Last-Modified" }?.1
            let notModified =
                (tag != nil && request.ifNoneMatch == tag)
                || (request.ifNoneMatch == nil && lastModified != nil && request.ifModifiedSince == lastModified)
            return TestHTTPServer.Response(status: notModified ? 304 : 200, headers: all, body: notModified ? Data() : current)
        }
    }

    /// An HTTP-date (IMF-fixdate) `offset` seconds from now.
    static func httpDate(_ offset: TimeInterval = 0) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date(timeIntervalSinceNow: offset))
    }

    /// Runs the tool over `paths` of `base`, and returns its JSON summary.
    static func run(
        _ paths: [String], base: String, scratch: Scratch, _ extra: [String] = [], size: Int = 16,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: Any] {
        let outcome = try await HoardTool.run(
            ["thumbnails"] + paths.map { base + $0 } + [
                "--size", "\(size)", "--output", scratch.path("out-\(size)"), "--cache", scratch.path("cache"), "--json",
            ] + extra, timeLimit: .seconds(120))
        #expect(outcome.status == 0, "\(outcome.standardError)", sourceLocation: sourceLocation)
        return try outcome.summary()
    }

    static func count(_ summary: [String: Any], _ name: String) -> Int { summary[name] as? Int ?? -1 }

    /// The bytes of the one thumbnail a run wrote (read at once: the next run writes the same file).
    static func output(_ summary: [String: Any]) throws -> Data {
        let results = try #require(summary["results"] as? [[String: Any]])
        let path = try #require(results.first?["output"] as? String)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test("an image that changes between runs gets a new thumbnail; one that does not is a 304, nothing decoded")
    func changedAndUnchanged() async throws {
        let current = Lock(Self.jpeg)
        let server = TestHTTPServer(routes: [
            "/changes.jpg": Self.validating(etag: "\"v1\"", headers: [("Cache-Control", "max-age=0")]) {
                current.withLock { $0 }
            },
            "/stays.jpg": Self.validating(etag: "\"v1\"", headers: [("Cache-Control", "max-age=0")]),
        ])
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }

        let first = try await Self.run(["/changes.jpg"], base: base, scratch: scratch)
        let otherSize = try Self.output(try await Self.run(["/changes.jpg"], base: base, scratch: scratch, size: 20))
        let staysFirst = try Self.output(try await Self.run(["/stays.jpg"], base: base, scratch: scratch))
        #expect(Self.count(first, "made") == 1)
        #expect(Self.count(first, "revalidations") == 0)
        let before = try Self.output(first)

        current.withLock { $0 = Self.otherJPEG }
        let changed = try await Self.run(["/changes.jpg"], base: base, scratch: scratch)
        let changedBytes = try Self.output(changed)
        #expect(Self.count(changed, "made") == 1, "\(changed)")
        #expect(Self.count(changed, "revalidations") == 1 && Self.count(changed, "changedOriginals") == 1)
        #expect(Self.count(changed, "notModified") == 0)
        #expect(Self.count(changed, "bytesDownloaded") == Self.otherJPEG.count)
        #expect(changedBytes != before, "a new thumbnail, of the new image")
        #expect(server.requests(for: "/changes.jpg").map(\.ifNoneMatch) == [nil, "\"v1\"", "\"v1\""])

        // Then it is the cached one: a 304 for the new validator.
        let again = try await Self.run(["/changes.jpg"], base: base, scratch: scratch)
        #expect(Self.count(again, "fromCache") == 1 && Self.count(again, "notModified") == 1, "\(again)")
        #expect(server.requests(for: "/changes.jpg").last?.ifNoneMatch == "\"changed-v1\"")
        #expect(try Self.output(again) == changedBytes)
        // The other size's thumbnail was made from the old original: made again, from the cached new one.
        let otherAgain = try await Self.run(["/changes.jpg"], base: base, scratch: scratch, size: 20)
        #expect(Self.count(otherAgain, "made") == 1 && Self.count(otherAgain, "bytesDownloaded") == 0, "\(otherAgain)")
        #expect(try Self.output(otherAgain) != otherSize)

        let stays = try await Self.run(["/stays.jpg"], base: base, scratch: scratch)
        #expect(Self.count(stays, "fromCache") == 1 && Self.count(stays, "made") == 0, "nothing decoded: \(stays)")
        #expect(Self.count(stays, "revalidations") == 1 && Self.count(stays, "notModified") == 1)
        #expect(Self.count(stays, "changedOriginals") == 0 && Self.count(stays, "bytesDownloaded") == 0)
        #expect(try Self.output(stays) == staysFirst)
        #expect(server.requests(for: "/stays.jpg").map(\.ifNoneMatch) == [nil, "\"v1\""])
        await server.stop()
    }

    @Test("Cache-Control, Expires, Last-Modified and the default: fresh originals cost no request, stale ones one conditional request")
    func freshnessRules() async throws {
        // The path, its headers, and whether the second run revalidates it.
        let cases: [(path: String, headers: [(String, String)], revalidated: Bool)] = [
            ("/max-age.jpg", [("Cache-Control", "public, max-age=3600")], false),
            ("/max-age-huge.jpg", [("Cache-Control", "max-age=99999999999999999999999")], false),
            ("/max-age-invalid.jpg", [("Cache-Control", "max-age=-1")], true),
            ("/max-age-over-expires.jpg", [("Cache-Control", "max-age=3600"), ("Expires", Self.httpDate(-60))], false),
            ("/no-cache.jpg", [("Cache-Control", "no-cache")], true),
            ("/expires-future.jpg", [("Date", Self.httpDate()), ("Expires", Self.httpDate(3600))], false),
            ("/expires-past.jpg", [("Date", Self.httpDate()), ("Expires", Self.httpDate(-3600))], true),
            ("/expires-invalid.jpg", [("Expires", "0")], true),
            ("/modified-long-ago.jpg", [("Date", Self.httpDate()), ("Last-Modified", Self.httpDate(-86_400 * 100))], false),
            ("/modified-now.jpg", [("Date", Self.httpDate()), ("Last-Modified", Self.httpDate())], true),
            ("/nothing.jpg", [], false),
        ]
        let server = TestHTTPServer(
            routes: Dictionary(
                uniqueKeysWithValues: cases.map { item in
                    let hasLastModified = item.headers.contains { $0.0 == "Last-Modified" }
                    return (item.path, Self.validating(etag: hasLastModified ? nil : "\"a\"", headers: item.headers))
                }))
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let paths = cases.map(\.path)
        let first = try await Self.run(paths, base: base, scratch: scratch)
        #expect(Self.count(first, "made") == cases.count)
        let second = try await Self.run(paths, base: base, scratch: scratch)
        let stale = cases.filter(\.revalidated).count
        #expect(Self.count(second, "fromCache") == cases.count && Self.count(second, "made") == 0, "\(second)")
        #expect(Self.count(second, "revalidations") == stale && Self.count(second, "notModified") == stale)
        for item in cases {
            let requests = server.requests(for: item.path)
            #expect(requests.count == (item.revalidated ? 2 : 1), "\(item.path): \(requests.count) requests")
            guard item.revalidated, requests.count == 2 else { continue }
            if item.path == "/modified-now.jpg" {
                let lastModified = item.headers.first { $0.0 == "Last-Modified" }?.1
                #expect(requests[1].ifModifiedSince == lastModified && requests[1].ifNoneMatch == nil)
            } else {
                #expect(requests[1].ifNoneMatch == "\"a\"", "\(item.path)")
            }
        }
        await server.stop()
    }

    @Test("max-age honoured: fresh, no request; once it has passed, one conditional request")
    func maxAgeExpires() async throws {
        let server = TestHTTPServer(routes: [
            "/short.jpg": Self.validating(etag: "\"s\"", headers: [("Cache-Control", "max-age=1")])
        ])
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        _ = try await Self.run(["/short.jpg"], base: base, scratch: scratch)
        try await Task.sleep(for: .seconds(2))
        let later = try await Self.run(["/short.jpg"], base: base, scratch: scratch)
        #expect(Self.count(later, "revalidations") == 1 && Self.count(later, "notModified") == 1, "\(later)")
        #expect(server.requests(for: "/short.jpg").map(\.ifNoneMatch) == [nil, "\"s\""])
        await server.stop()
    }

    @Test("a weak ETag is sent back verbatim in If-None-Match, and its 304 honoured")
    func weakEntityTag() async throws {
        let server = TestHTTPServer(routes: [
            "/weak.jpg": Self.validating(etag: "W/\"x\"", headers: [("Cache-Control", "no-cache")])
        ])
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let first = try Self.output(try await Self.run(["/weak.jpg"], base: base, scratch: scratch))
        let second = try await Self.run(["/weak.jpg"], base: base, scratch: scratch)
        #expect(Self.count(second, "notModified") == 1 && Self.count(second, "fromCache") == 1, "\(second)")
        #expect(server.requests(for: "/weak.jpg").map(\.ifNoneMatch) == [nil, "W/\"x\""])
        #expect(try Self.output(second) == first)
        await server.stop()
    }

    @Test("a server that ignores conditional requests: the same bytes again are a revalidation, not a change, and nothing is made")
    func serverIgnoresConditions() async throws {
        let server = TestHTTPServer(routes: [
            "/stubborn.jpg": .respond { _ in
                TestHTTPServer.Response(
                    status: 200, headers: [("ETag", "\"same\""), ("Cache-Control", "max-age=0")], body: Self.jpeg)
            }
        ])
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let first = try Self.output(try await Self.run(["/stubborn.jpg"], base: base, scratch: scratch))
        let second = try await Self.run(["/stubborn.jpg"], base: base, scratch: scratch)
        #expect(Self.count(second, "revalidations") == 1 && Self.count(second, "changedOriginals") == 0, "\(second)")
        #expect(Self.count(second, "notModified") == 0 && Self.count(second, "made") == 0)
        #expect(Self.count(second, "fromCache") == 1 && Self.count(second, "bytesDownloaded") == Self.jpeg.count)
        #expect(server.requests(for: "/stubborn.jpg").map(\.ifNoneMatch) == [nil, "\"same\""])
        #expect(try Self.output(second) == first)
        await server.stop()
    }

    @Test("no-store: every run downloads, nothing of the original is kept, and the thumbnail is reused only for the same bytes")
    func noStore() async throws {
        let current = Lock(Self.jpeg)
        let server = TestHTTPServer(routes: [
            "/secret.jpg": .respond { _ in
                TestHTTPServer.Response(
                    status: 200, headers: [("Cache-Control", "no-store"), ("ETag", "\"n\"")],
                    body: current.withLock { $0 })
            }
        ])
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let first = try await Self.run(["/secret.jpg"], base: base, scratch: scratch)
        let firstBytes = try Self.output(first)
        let second = try await Self.run(["/secret.jpg"], base: base, scratch: scratch)
        #expect(Self.count(first, "made") == 1)
        #expect(try Self.output(second) == firstBytes)
        #expect(Self.count(second, "fromCache") == 1 && Self.count(second, "made") == 0, "\(second)")
        #expect(Self.count(second, "bytesDownloaded") == Self.jpeg.count)
        #expect(Self.count(second, "revalidations") == 1 && Self.count(second, "changedOriginals") == 0)
        #expect(server.requests(for: "/secret.jpg").map(\.ifNoneMatch) == [nil, nil], "plain downloads")
        let cache = try Hoard(
            configuration: .init(name: "default", directory: URL(fileURLWithPath: scratch.path("cache"))))
        let keys = try cache.diskEntries().map(\.key)
        #expect(!keys.contains { $0.hasPrefix("original") }, "\(keys)")
        #expect(keys.count == 2, "the thumbnail and its origin mark: \(keys)")

        current.withLock { $0 = Self.otherJPEG }
        let third = try await Self.run(["/secret.jpg"], base: base, scratch: scratch)
        #expect(Self.count(third, "made") == 1, "other bytes, a new thumbnail: \(third)")
        #expect(Self.count(third, "changedOriginals") == 1)
        #expect(try Self.output(third) != firstBytes)
        await server.stop()
    }

    @Test("--revalidate always asks about a fresh original; --revalidate never does not ask about a stale one")
    func revalidateOption() async throws {
        let server = TestHTTPServer(routes: [
            "/fresh.jpg": Self.validating(etag: "\"f\"", headers: [("Cache-Control", "max-age=3600")]),
            "/stale.jpg": Self.validating(etag: "\"t\"", headers: [("Cache-Control", "max-age=0")]),
        ])
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        _ = try await Self.run(["/fresh.jpg", "/stale.jpg"], base: base, scratch: scratch)
        let always = try await Self.run(["/fresh.jpg"], base: base, scratch: scratch, ["--revalidate", "always"])
        #expect(Self.count(always, "revalidations") == 1 && Self.count(always, "notModified") == 1, "\(always)")
        #expect(server.requests(for: "/fresh.jpg").map(\.ifNoneMatch) == [nil, "\"f\""])
        let never = try await Self.run(["/stale.jpg"], base: base, scratch: scratch, ["--revalidate", "never"])
        #expect(Self.count(never, "revalidations") == 0 && Self.count(never, "fromCache") == 1, "\(never)")
        #expect(server.requests(for: "/stale.jpg").count == 1)
        let stale = try await Self.run(["/stale.jpg"], base: base, scratch: scratch)
        #expect(Self.count(stale, "revalidations") == 1, "the default, stale, asks")
        let bad = try await HoardTool.run(
            ["thumbnails", base + "/stale.jpg", "--size", "16", "--output", scratch.path("out"), "--revalidate", "sometimes"])
        #expect(bad.status == 64, "\(bad.standardError)")
        await server.stop()
    }
}
