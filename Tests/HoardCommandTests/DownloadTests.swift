import Foundation
import Testing

/// Downloads: credentials in URLs, connections the server closed, and the time limit's message.
@Suite("hoard thumbnails downloads", .serialized)
struct DownloadTests {
    static let jpeg =
        (try? Data(contentsOf: testImages.appendingPathComponent("libjpeg-turbo/testorig.jpg"))) ?? Data()

    static func results(_ outcome: HoardTool.Outcome) throws -> [[String: Any]] {
        try outcome.summary()["results"] as? [[String: Any]] ?? []
    }

    @Test("a URL's password is sent, but never printed, stored in a key, or hashed into a file name")
    func credentialsAreRedacted() async throws {
        let server = TestHTTPServer(routes: [
            "/private.jpg": .ok(Self.jpeg, contentType: "image/jpeg"),
            "/moved.jpg": .redirect(to: "/private.jpg"),
        ])
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let refused = try await ThumbnailsCommandTests.closedPort()
        let authority = base.replacingOccurrences(of: "http://", with: "")
        let good = "http://user:secret@\(authority)/private.jpg"
        let inputs = [
            good,
            "http://user:secret@\(authority)/missing.jpg",
            "http://user:secret@127.0.0.1:\(refused)/refused.jpg",
            "http://user:secret@/no-host.jpg",
            "http://secret@\(authority)/token-only.jpg",
        ]
        let cache = ["--cache", scratch.path("cache")]
        // No input hangs: the download limit only has to outlast the stalls of a loaded 2-core machine
        // (tens of seconds), and the watchdogs the limit.
        let arguments = ["thumbnails"] + inputs + ["--size", "16", "--output", scratch.path("out"), "--timeout", "60"]
        let json = try await HoardTool.run(arguments + cache + ["--json"], timeLimit: .seconds(120))
        let human = try await HoardTool.run(arguments + cache, timeLimit: .seconds(120))
        let list = try await HoardTool.run(["cache", "list"] + cache)
        await server.stop()

        #expect(json.status == 1 && human.status == 1)
        let results = try Self.results(json)
        #expect(results.count == inputs.count)
        #expect(
            results.first?["input"] as? String == "http://user:***@\(authority)/private.jpg",
            "shown as user:***@")
        #expect(results.first?["status"] as? String == "made", "\(json.standardError)")
        #expect(
            results.last?["input"] as? String == "http://***@\(authority)/token-only.jpg",
            "a user name alone is often a token")
        let outputs = try FileManager.default.contentsOfDirectory(atPath: scratch.path("out"))
        #expect(outputs.count == 1)
        for (name, text) in [
            ("JSON", json.standardOutput), ("summary with --json", json.standardError),
            ("summary", human.standardOutput), ("standard error", human.standardError),
            ("cache list", list.standardOutput), ("output names", outputs.joined(separator: "\n")),
        ] {
            #expect(!text.contains("secret"), "\(name) shows the password: \(text)")
        }
        #expect(
            list.standardOutput.split(separator: "\n").count == 5,  // the header and four entries
            "a thumbnail, its original, the original's record and the thumbnail's origin mark")
        // Basic authentication, "user:secret" in base64, for the good URL (the second run read the cache).
        #expect(server.authorizationHeaders(for: "/private.jpg") == ["Basic dXNlcjpzZWNyZXQ="])
        #expect(server.authorizationHeaders(for: "/missing.jpg").allSatisfy { $0 == "Basic dXNlcjpzZWNyZXQ=" })
    }

    @Test("a request the server dropped on a reused kept-alive connection is retried once, on a new connection")
    func closedKeptAliveConnectionIsRetried() async throws {
        let paths = (0..<10).map { "/image-\($0).jpg" }
        let server = TestHTTPServer(
            routes: Dictionary(uniqueKeysWithValues: paths.map { ($0, .ok(Self.jpeg, contentType: "image/jpeg")) }),
            closesReusedConnections: true)
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let outcome = try await HoardTool.run(
            ["thumbnails"] + paths.map { base + $0 } + [
                "--concurrency", "1", "--size", "16", "--output", scratch.path("out"), "--cache",
                scratch.path("cache"), "--json",
            ], timeLimit: .seconds(120))
        await server.stop()
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(try outcome.summary()["made"] as? Int == paths.count)
        #expect(server.droppedRequestCount > 0, "the client never reused a connection: the test proves nothing")
        #expect(server.requestedPaths.sorted() == paths.sorted(), "each answered once")
    }

    @Test("the time limit is reported as given, down to the smallest --timeout")
    func smallTimeoutMessage() async throws {
        let server = TestHTTPServer(routes: ["/stall.jpg": .stall])
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        // A watchdog only (it fires on a hang); a loaded 2-core machine may stall the tool for tens of seconds.
        let outcome = try await HoardTool.run(
            [
                "thumbnails", base + "/stall.jpg", "--timeout", "0.001", "--size", "16", "--output",
                scratch.path("out"), "--cache", scratch.path("cache"), "--json",
            ], timeLimit: .seconds(120))
        await server.stop()
        #expect(outcome.status == 1)
        #expect(try Self.results(outcome).first?["error"] as? String == "timed out after 0.001 s")
    }
}
