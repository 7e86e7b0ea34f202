import Foundation
import Hoard
import HoardRedis
import HoardTestSupport
import RedisTestSupport
import Testing

/// The Tiers article's "A tier shared by many machines" example (marked `README redis example`; it
/// moved there from the README), run as shown against a server of its own, by two caches with
/// separate folders (two machines).
@Suite("Tiers article: one cache for many machines", .requiresRedisServer)
struct ReadmeRedisTests {
    /// One machine's run of the Tiers article's example: what `download` was asked, and what it
    /// returned.
    static func machine(folder: URL, redisURL: String, downloads: FetchCounter) async throws -> Data {
        let cacheFolder = folder
        let url = "https://example.com/photo.jpg"
        @Sendable func download(_ url: String) async throws -> Data {
            await downloads.increment()
            try await Task.sleep(for: .milliseconds(200))
            return Data(url.utf8)
        }
        // README redis example: begin
        let redis = try RedisTier(configuration: .init(urls: [redisURL], namespace: "photos"))
        var configuration = Hoard.Configuration(name: "photos", directory: cacheFolder)
        configuration.tiers = [.disk, .custom(redis)]  // memory, then the disk, then Redis
        let hoard = try Hoard(configuration: configuration)
        let photo = try await hoard.value(forKey: url) { try await download(url) }  // one download in all
        // README redis example: end
        await redis.shutdown()
        return photo
    }

    @Test("two machines running the Tiers article's example at once download once between them")
    func exampleRuns() async throws {
        try await withRedisServer { server in
            let root = try TemporaryDirectory()
            defer { root.remove() }
            let downloads = FetchCounter()
            let url = "redis://127.0.0.1:\(server.port)"
            async let first = Self.machine(
                folder: root.url(for: "a"), redisURL: url, downloads: downloads)
            async let second = Self.machine(
                folder: root.url(for: "b"), redisURL: url, downloads: downloads)
            let photos = try await [first, second]
            #expect(photos == [Data("https://example.com/photo.jpg".utf8), Data("https://example.com/photo.jpg".utf8)])
            #expect(await downloads.count == 1)
        }
    }

    /// The Tiers article (`Sources/Hoard/Hoard.docc/Tiers.md`) shows the example this suite runs.
    @Test("the Tiers article shows exactly the example this suite runs")
    func readmeMatches() throws {
        let (shown, run) = try ReadmeExample.lines(
            named: "README redis example", source: #filePath, document: "Sources/Hoard/Hoard.docc/Tiers.md")
        #expect(shown.count >= 5)
        #expect(shown == run)
    }
}

/// Counts calls from concurrent tasks.
actor FetchCounter {
    private(set) var count = 0
    func increment() { count += 1 }
}
