import Foundation
import Hoard
import HoardServer
import HoardTestSupport
import RedisTestSupport
import Testing


@Suite("hoard serve, a fleet sharing Redis", .requiresRedisServer)
struct ServeFleetTests {
    @Test("three servers with their own caches and one Redis: one download per source and one decode (AVIF encodes too) per variant in all, and every server answers the same bytes")
    func fleet() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let photo = try GradientImage.data(width: 1200, height: 900)
        let origin = TestHTTPServer(routes: [
            "/a.jpg": .delayed(photo, contentType: "image/jpeg", milliseconds: 300),
            "/b.jpg": .delayed(photo, contentType: "image/jpeg", milliseconds: 300),
        ])
        let base = try await origin.start()
        try await withRedisServer { redis in
            var servers: [BackgroundTool] = []
            defer { for server in servers { server.send(SIGKILL) } }
            var addresses: [String] = []
            for index in 0..<3 {
                let server = try BackgroundTool(
                    ["serve", "--bind", "127.0.0.1:0", "--cache", scratch.url(for: "cache-\(index)").path,
                     "--remote", "redis://127.0.0.1:\(redis.port)", "--allow-source", base + "/", "--allow-unsigned"],
                    folder: scratch.url(for: "serve-\(index)").path)
                servers.append(server)
                let log = try #require(
                    try await server.waitForError(containing: "listening on http://", timeLimit: .seconds(60)),
                    "server \(index) did not start")
                addresses.append(String(try #require(log.split(separator: "listening on ").last?.split(separator: "\n").first)))
            }
            // 6 variants (AVIF among them) × 3 servers × 2 rounds, all at once: every server is asked
            // for every variant.
            let paths = ["/a.jpg", "/b.jpg"].flatMap { source in
                ["w:64", "w:100/h:50/fit:fill", "w:80/f:avif"].map { "/unsafe/\($0)/plain/" + base + source }
            }
            let requests = (0..<2).flatMap { _ in addresses.flatMap { address in paths.map { (address, $0) } } }
            let answers = try await withThrowingTaskGroup(of: (String, Int, Data).self) { group in
                for (address, path) in requests {
                    group.addTask {
                        let answer = try await HTTPGet.get(address + path)
                        return (path, answer.status, answer.body)
                    }
                }
                return try await group.reduce(into: [(String, Int, Data)]()) { $0.append($1) }
            }
            #expect(answers.count == requests.count && answers.allSatisfy { $0.1 == 200 })
            for path in paths {
                let bodies = Set(answers.filter { $0.0 == path }.map(\.2))
                #expect(bodies.count == 1, "\(path): \(bodies.count) different answers")
            }
            // One download per source in all (the originals are shared through Redis too), and one
            // decode per variant in all, as the servers' metrics count them.
            #expect(origin.requestCounts["/a.jpg"] == 1 && origin.requestCounts["/b.jpg"] == 1, "\(origin.requestCounts)")
            var decodes = 0
            for address in addresses {
                let data = try await HTTPGet.get(address + "/metrics").body
                let line = String(decoding: data, as: UTF8.self).split(separator: "\n")
                    .first { $0.hasPrefix(#"hoard_serve_duration_seconds_count{stage="decode"}"#) }
                decodes += line.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? 0
            }
            #expect(decodes == paths.count, "\(decodes) decodes for \(paths.count) variants")
            for server in servers { server.send(SIGTERM) }
            for server in servers {
                // A watchdog only (it fires on a hang); a loaded 2-core machine may stall the server for tens of seconds.
                let outcome = try await server.finish(timeLimit: .seconds(120))
                #expect(outcome.status == 0, "\(outcome.standardError)")
            }
            servers.removeAll()
        }
        await origin.stop()
    }
}
