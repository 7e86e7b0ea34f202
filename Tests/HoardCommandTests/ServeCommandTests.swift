import Foundation
import Hoard
import HoardServer
import HoardTestSupport
import Testing


@Suite("hoard serve")
struct ServeCommandTests {
    static let environment = [URLSigner.keyVariable: "00112233445566778899aabbccddeeff", URLSigner.saltVariable: "0a0b"]

    /// GET `url`: the status, the Content-Type and the body.
    static func get(_ url: String) async throws -> (status: Int, type: String?, body: Data) {
        try await HTTPGet.get(url)
    }

    @Test("starts on a free port, serves signed and unsigned paths and the tool's own thumbnails, and stops on SIGTERM")
    func serve() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let root = scratch.url(for: "root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let photo = try GradientImage.data(width: 640, height: 480)
        try photo.write(to: root.appending(path: "photo.jpg"))
        let cache = scratch.url(for: "cache").path
        // A thumbnail the batch tool made first.
        let batch = try await HoardTool.run(
            ["thumbnails", root.appending(path: "photo.jpg").path, "--size", "32", "--cache", cache, "--output",
             scratch.url(for: "out").path])
        #expect(batch.status == 0, "\(batch.standardError)")
        let outputs = try FileManager.default.contentsOfDirectory(atPath: scratch.url(for: "out").path)
        let made = try Data(contentsOf: scratch.url(for: "out").appending(path: try #require(outputs.first)))

        let server = try BackgroundTool(
            ["serve", "--bind", "127.0.0.1:0", "--cache", cache, "--root", root.path, "--allow-unsigned"],
            folder: scratch.url(for: "serve").path, environment: Self.environment)
        let started = try await server.waitForError(containing: "listening on http://", timeLimit: .seconds(60))
        let log = try #require(started, "the server did not start")
        let address = try #require(log.split(separator: "listening on ").last?.split(separator: "\n").first)
        let base = String(address)

        #expect(try await Self.get(base + "/health").status == 200)
        let unsigned = try await Self.get(base + "/unsafe/w:64/plain/local:///photo.jpg")
        #expect(unsigned.status == 200 && unsigned.type == "image/jpeg")
        #expect(try Image(data: unsigned.body).width == 64)
        let path = try await HoardTool.run(["url", "local:///photo.jpg", "--width", "32"], environment: Self.environment)
        let signed = try await Self.get(base + path.standardOutput.trimmingCharacters(in: .newlines))
        #expect(signed.status == 200)
        #expect(signed.body == made, "the server answers with the bytes the tool made for the same key")
        #expect(try await Self.get(base + "/unsafe/w:abc/plain/local:///photo.jpg").status == 400)
        let metrics = try await Self.get(base + "/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(metrics.status == 200)
        #expect(text.contains(#"hoard_serve_requests_total{status="400"} 1"#), "\(text)")
        #expect(text.contains(#"hoard_hits_total{cache="cache",tier="disk"} 1"#), "the cache folder names the cache: \(text)")

        server.send(SIGTERM)
        // A watchdog only (it fires on a hang); a loaded 2-core machine may stall the server for tens of seconds.
        let outcome = try await server.finish(timeLimit: .seconds(120))
        #expect(outcome.status == 0 && !outcome.timedOut, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("hoard serve: stopped"))
    }

    @Test("usage errors exit with 64", arguments: [
        ["serve", "--bind", "127.0.0.1"], ["serve", "--bind", "127.0.0.1:70000"], ["serve", "--queue", "-1"],
        ["serve", "--allow-source", "ftp://a.example/"], ["serve", "--allow-addresses", "everything"],
        ["serve", "--preset", "broken"], ["serve", "--preset", "p=w:abc"], ["serve", "--timeout", "0"],
    ])
    func usageErrors(_ arguments: [String]) async throws {
        let outcome = try await HoardTool.run(arguments + ["--allow-unsigned"], timeLimit: .seconds(60))
        #expect(outcome.status == 64, "\(outcome.standardError)")
    }

    @Test("without a key and without --allow-unsigned it refuses to start")
    func needsKey() async throws {
        let outcome = try await HoardTool.run(
            ["serve", "--bind", "127.0.0.1:0"], timeLimit: .seconds(60),
            environment: [URLSigner.keyVariable: "", URLSigner.saltVariable: ""])
        #expect(outcome.status == 64 && outcome.standardError.contains("HOARD_SERVE_KEY"))
    }
}
