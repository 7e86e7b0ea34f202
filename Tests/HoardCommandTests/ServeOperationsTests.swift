import Foundation
import Hoard
import HoardServer
import HoardTestSupport
import RedisTestSupport
import Testing

/// What an operator sees: metrics on their own address, readiness that tells the truth, start-up
/// errors in the tool's words.
@Suite("hoard serve for operators")
struct ServeOperationsTests {
    static let environment = ServeCommandTests.environment

    /// Starts `hoard serve` with `arguments` and returns it with its standard error once it listens.
    static func start(_ arguments: [String], scratch: TemporaryDirectory, lines: Int = 1) async throws -> (BackgroundTool, String) {
        let server = try BackgroundTool(
            ["serve", "--bind", "127.0.0.1:0", "--cache", scratch.url(for: "cache").path] + arguments,
            folder: scratch.url(for: "serve").path, environment: environment)
        let log = try #require(
            try await server.waitForError(containing: "hoard serve: ", lines: lines, timeLimit: .seconds(60)),
            "the server did not start")
        return (server, log)
    }

    /// The `http://HOST:PORT` after `marker` in `log`.
    static func address(after marker: String, in log: String) throws -> String {
        let tail = try #require(log.split(separator: marker).last)
        let address = try #require(tail.split(whereSeparator: { $0 == "\n" || $0 == " " }).first)
        return String(address.hasSuffix("/metrics") ? address.dropLast("/metrics".count) : address)
    }

    @Test("--metrics-bind serves /metrics on its own address only, with the cache folder's name")
    func metricsBind() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let (server, _) = try await Self.start(
            ["--allow-unsigned", "--root", scratch.path, "--metrics-bind", "127.0.0.1:0"], scratch: scratch, lines: 2)
        defer { server.send(SIGKILL) }
        let log = try #require(try await server.waitForError(containing: "metrics on http://", timeLimit: .seconds(60)))
        let images = try Self.address(after: "listening on ", in: log)
        let metrics = try Self.address(after: "metrics on ", in: log)
        #expect(images != metrics)
        #expect(try await HTTPGet.get(images + "/health").status == 200)
        #expect(try await HTTPGet.get(images + "/metrics").status != 200, "metrics are served on the public port")
        let text = String(decoding: try await HTTPGet.get(metrics + "/metrics").body, as: UTF8.self)
        #expect(text.contains("hoard_serve_requests_total"), "\(text)")
        #expect(text.contains(#"cache="cache""#), "\(text)")
        #expect(try await HTTPGet.get(metrics + "/health").status == 404)
        server.send(SIGTERM)
        #expect(try await server.finish(timeLimit: .seconds(120)).status == 0)
    }

    @Test("/ready is 503 while a required shared cache is stopped, and 200 again once it answers", .requiresRedisServer)
    func readiness() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        try await withRedisServer { redis in
            let (server, log) = try await Self.start(
                ["--allow-unsigned", "--root", scratch.path, "--remote", "redis://127.0.0.1:\(redis.port)",
                 "--remote-required", "--remote-timeout", "1"], scratch: scratch)
            defer { server.send(SIGKILL) }
            let base = try Self.address(after: "listening on ", in: log)
            #expect(try await HTTPGet.get(base + "/ready").status == 200)
            redis.pause()
            let paused = try await HTTPGet.get(base + "/ready")
            redis.resume()
            #expect(paused.status == 503, "\(String(decoding: paused.body, as: UTF8.self))")
            // The breaker may keep the tier closed for a while after a failure: poll.
            var ready = false
            for _ in 0..<120 where !ready {
                ready = try await HTTPGet.get(base + "/ready").status == 200
                if !ready { try await Task.sleep(for: .milliseconds(500)) }
            }
            #expect(ready, "not ready again after the shared cache came back")
            server.send(SIGTERM)
            _ = try await server.finish(timeLimit: .seconds(120))
        }
    }

    @Test("start-up problems are said in the tool's words: no key, a port in use, no sources, a bad hoard url")
    func startupMessages() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let noKey = try await HoardTool.run(
            ["serve", "--bind", "127.0.0.1:0"], timeLimit: .seconds(60),
            environment: [URLSigner.keyVariable: "", URLSigner.saltVariable: ""])
        #expect(noKey.status == 64 && noKey.standardError.contains("no signing key"))
        #expect(!noKey.standardError.contains("Bad request"), "\(noKey.standardError)")

        // No source at all: it starts, and says that it will refuse everything.
        let (first, log) = try await Self.start([], scratch: scratch)
        defer { first.send(SIGKILL) }
        #expect(log.contains("neither --allow-source nor --root"), "\(log)")
        let address = try Self.address(after: "listening on http://", in: log)
        let taken = try await HoardTool.run(
            ["serve", "--bind", address, "--cache", scratch.url(for: "other").path, "--allow-unsigned"],
            timeLimit: .seconds(60), environment: Self.environment)
        #expect(taken.status != 0)
        #expect(taken.standardError.contains("cannot listen on \(address)"), "\(taken.standardError)")
        #expect(taken.standardError.contains("Address already in use"), "\(taken.standardError)")
        #expect(!taken.standardError.contains("bind(descriptor:"), "\(taken.standardError)")
        first.send(SIGTERM)
        _ = try await first.finish(timeLimit: .seconds(120))

        let url = try await HoardTool.run(["url", "ftp://a.example/x.jpg", "--width", "10", "--unsigned"], timeLimit: .seconds(60))
        #expect(url.status == 64)
        #expect(url.standardError.contains("Error: "), "\(url.standardError)")
        #expect(!url.standardError.contains("Usage:"), "\(url.standardError)")
        #expect(!url.standardError.contains("Bad request"), "\(url.standardError)")
    }
}
