import AsyncHTTPClient
import Foundation
import Hoard
import HoardTestSupport
import Testing

@Suite("hoard serve under a flood")
struct ServeFloodTests {
    /// The server's peak resident memory may reach this; 99 MB measured here with 20 MP sources, one decode and two waiting.
    static let peakBound = 400 << 20

    @Test("a flood of distinct large variants beyond the queue: quick 503s with Retry-After, every other answer whole, memory bounded")
    func flood() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let root = scratch.url(for: "root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // Large photos as PNG: no decode-time downscaling, so each decode holds the whole raster.
        for index in 0..<4 {
            try GradientImage.data(width: 5000 + index, height: 4000, png: true).write(to: root.appending(path: "\(index).png"))
        }
        let server = try BackgroundTool(
            ["serve", "--bind", "127.0.0.1:0", "--cache", scratch.url(for: "cache").path, "--root", root.path,
             "--allow-unsigned", "--decode-concurrency", "1", "--queue", "2", "--memory-limit", "16"],
            folder: scratch.url(for: "serve").path)
        defer { server.send(SIGKILL) }
        let log = try #require(try await server.waitForError(containing: "listening on http://", timeLimit: .seconds(60)))
        let address = String(try #require(log.split(separator: "listening on ").last?.split(separator: "\n").first))
        // A client that opens a connection per request (URLSession on Linux sends them a few at a time).
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 100
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let requests = (0..<40).map { "/unsafe/w:\(100 + $0)/plain/local:///\($0 % 4).png" }
        let answers: [(Int, String?, Int)]
        do {
            answers = try await withThrowingTaskGroup(of: (Int, String?, Int).self) { group in
                for path in requests {
                    group.addTask {
                        let response = try await client.execute(HTTPClientRequest(url: address + path), timeout: .seconds(60))
                        let body = try await response.body.collect(upTo: 16 << 20)
                        return (Int(response.status.code), response.headers.first(name: "retry-after"), body.readableBytes)
                    }
                }
                return try await group.reduce(into: [(Int, String?, Int)]()) { $0.append($1) }
            }
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
        let refused = answers.filter { $0.0 == 503 }
        let served = answers.filter { $0.0 == 200 }
        #expect(refused.count + served.count == requests.count, "\(answers.map(\.0))")
        #expect(!refused.isEmpty && refused.allSatisfy { $0.1 == "1" })
        #expect(served.count >= 3 && served.allSatisfy { $0.2 > 100 })
        let status = try String(contentsOfFile: "/proc/\(server.processIdentifier)/status", encoding: .utf8)
        let peakLine = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let peakKilobytes = try #require(Int(peakLine.split(separator: " ", omittingEmptySubsequences: true)[1]))
        print("hoard serve flood: \(served.count) served, \(refused.count) refused with 503, peak RSS \(peakKilobytes / 1024) MB")
        #expect(peakKilobytes * 1024 < Self.peakBound, "peak \(peakKilobytes / 1024) MB")
        server.send(SIGTERM)
        // A watchdog only (it fires on a hang); a loaded 2-core machine may stall the server for tens of seconds.
        let outcome = try await server.finish(timeLimit: .seconds(120))
        #expect(outcome.status == 0, "\(outcome.standardError)")
    }
}
