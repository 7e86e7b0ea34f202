import AsyncHTTPClient
import Foundation
import HoardTestSupport
import NIOHTTP1
import Synchronization
import Testing

/// Origins that never answer, beside local files and healthy origins.
@Suite("hoard serve with a silent origin")
struct ServeOriginTests {
    @Test("an origin that never answers takes only its own places: local files and other origins are served meanwhile")
    func silentOrigin() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let photo = try GradientImage.data(width: 320, height: 240)
        let silent = TestHTTPServer(routes: Dictionary(uniqueKeysWithValues: (0..<25).map { ("/\($0).jpg", .stall) }))
        let healthy = TestHTTPServer(routes: ["/photo.jpg": .ok(photo, contentType: "image/jpeg")])
        let silentBase = try await silent.start()
        let healthyBase = try await healthy.start()
        defer {
            Task {
                await silent.stop()
                await healthy.stop()
            }
        }
        let root = scratch.url(for: "root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try photo.write(to: root.appending(path: "photo.jpg"))
        // The origin timeout (45 s) outlasts the other requests even on a loaded machine under AddressSanitizer
        // (at 10 s, two silent requests timed out first there).
        let server = try BackgroundTool(
            ["serve", "--bind", "127.0.0.1:0", "--cache", scratch.url(for: "cache").path, "--root", root.path,
             "--allow-unsigned", "--allow-source", silentBase + "/", "--allow-source", healthyBase + "/",
             "--decode-concurrency", "1", "--queue", "2", "--origin-concurrency", "2", "--timeout", "45"],
            folder: scratch.url(for: "serve").path)
        defer { server.send(SIGKILL) }
        let log = try #require(try await server.waitForError(containing: "listening on http://", timeLimit: .seconds(60)))
        let base = String(try #require(log.split(separator: "listening on ").last?.split(separator: "\n").first))

        // A connection per request (URLSession on Linux sends them a few at a time).
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        @Sendable func get(_ path: String) async throws -> (HTTPResponseStatus, String) {
            let response = try await client.execute(HTTPClientRequest(url: base + path), timeout: .seconds(300))
            return (response.status, String(buffer: try await response.body.collect(upTo: 1 << 20)))
        }
        do {
            let finished = FinishedCount()
            let stalled = (0..<25).map { index in
                Task {
                    let answer = try await get("/unsafe/w:\(40 + index)/plain/\(silentBase)/\(index).jpg")
                    finished.add()
                    return answer.0
                }
            }
            // Past the silent origin's two places and two waiting, its own requests are refused at once.
            let waitLimit = ContinuousClock.now + .seconds(120)
            while finished.value < 21, ContinuousClock.now < waitLimit {
                try await Task.sleep(for: .milliseconds(20))
            }
            let local = try await get("/unsafe/w:33/plain/local:///photo.jpg")
            let other = try await get("/unsafe/w:34/plain/\(healthyBase)/photo.jpg")
            let stillWaiting = 25 - finished.value
            #expect(local.0 == .ok, "\(local.1)")
            #expect(other.0 == .ok, "\(other.1)")
            #expect(stillWaiting == 4, "the silent origin's own requests ended before the others were served")
            var statuses: [HTTPResponseStatus] = []
            for task in stalled { statuses.append(try await task.value) }
            #expect(statuses.filter { $0 == .serviceUnavailable }.count == 21, "\(statuses)")
            #expect(statuses.filter { $0 == .gatewayTimeout }.count == 4, "\(statuses)")
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
        server.send(SIGTERM)
        #expect(try await server.finish(timeLimit: .seconds(120)).status == 0)
    }
}

/// How many requests have been answered, counted from several tasks.
private final class FinishedCount: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}
