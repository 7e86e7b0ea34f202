import Foundation
import HTTPTypes
import Hoard
import HoardServer
import HoardTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite("ImageServer with a loopback origin")
struct RemoteSourceTests {
    typealias Fixture = ServerFixture

    /// Runs `body` with a client of a server whose allow-list holds a loopback origin (started
    /// for the test), the origin and its base URL; `configure` adjusts the server's configuration.
    static func withOrigin(
        configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (any TestClientProtocol, Origin, String) async throws -> Void
    ) async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        let origin = Origin()
        try await origin.run { port in
            let base = "http://127.0.0.1:\(port)"
            var configuration = try fixture.configuration(allowing: [base + "/"])
            configure(&configuration)
            try await fixture.withServer(configuration) { client, _ throws in try await body(client, origin, base) }
        }
    }

    @Test("an origin under an allowed loopback prefix is served; its errors, slowness and endless bodies get their statuses")
    func origin() async throws {
        try await Self.withOrigin { client, origin, base in
            let cases: [(String, HTTPResponse.Status)] = [
                ("/photo.jpg", .ok), ("/alpha.png", .ok), ("/redirect-photo", .ok), ("/missing", .notFound),
                ("/error", .badGateway), ("/text", .unsupportedMediaType),
                ("/endless", .contentTooLarge), ("/redirect-metadata", .forbidden),
            ]
            for (name, status) in cases {
                let started = ContinuousClock.now
                let response = try await client.execute(
                    uri: try Fixture.path(base + name, ["w:40"]), method: .get)
                #expect(response.status == status, "\(name): \(String(buffer: response.body))")
                // The download's time (120 s) bounds every answer; a loaded 2-core machine may stall
                // the test's tasks for tens of seconds.
                #expect(ContinuousClock.now - started < .seconds(300), "\(name)")
            }
            // The same variant again comes from the cache: no second request to the origin.
            let before = origin.count("/photo.jpg")
            _ = try await client.execute(uri: try Fixture.path(base + "/photo.jpg", ["w:40"]), method: .get)
            #expect(origin.count("/photo.jpg") == before)
            // The metadata address was refused before any connection: nothing to count, and the
            // redirect itself was followed once.
            #expect(origin.count("/redirect-metadata") == 1)
        }
        // /slow runs ten minutes: under a short time limit of its own, 504 is its only possible answer.
        try await Self.withOrigin(configure: { $0.requestTimeout = .seconds(2) }) { client, _, base in
            let started = ContinuousClock.now
            let response = try await client.execute(uri: try Fixture.path(base + "/slow", ["w:40"]), method: .get)
            #expect(response.status == .gatewayTimeout, "\(String(buffer: response.body))")
            // A loaded 2-core machine may stall the test's tasks for tens of seconds.
            #expect(ContinuousClock.now - started < .seconds(300))
        }
    }

    @Test("SSRF: hosts off the allow-list, and allowed names resolving to refused addresses, are 403 before any request")
    func addressChecks() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        let origin = Origin()
        try await origin.run { port in
            let prefixes = [
                "http://images.example/", "http://2130706433:\(port)/", "http://0177.0.0.1:\(port)/",
                "http://0x7f.0.0.1:\(port)/", "http://169.254.169.254/",
            ]
            try await fixture.withServer(try fixture.configuration(allowing: prefixes)) { client, _ throws in
                let sources = [
                    "http://127.0.0.1:\(port)/photo.jpg",  // not on the list
                    "http://localhost:\(port)/photo.jpg",  // not on the list either
                    "http://2130706433:\(port)/photo.jpg", "http://0177.0.0.1:\(port)/photo.jpg",
                    "http://0x7f.0.0.1:\(port)/photo.jpg",  // allowed names that mean 127.0.0.1
                    "http://169.254.169.254/latest/meta-data",
                    "http://[::ffff:127.0.0.1]:\(port)/photo.jpg",  // not on the list
                ]
                for source in sources {
                    let response = try await client.execute(uri: try Fixture.path(source, ["w:40"]), method: .get)
                    #expect(response.status == .forbidden, "\(source): \(String(buffer: response.body))")
                }
            }
            #expect(origin.count("/photo.jpg") == 0)
        }
        // [::1] under its own loopback prefix is allowed; nothing listens there on that port: 502.
        try await fixture.withServer(try fixture.configuration(allowing: ["http://[::1]:9/"])) { client, _ throws in
            let response = try await client.execute(uri: try Fixture.path("http://[::1]:9/a.jpg", ["w:40"]), method: .get)
            #expect(response.status == .badGateway, "\(String(buffer: response.body))")
        }
    }

    @Test("an origin whose image changes: a stale original is revalidated, a 304 keeps the variant, a new ETag makes it again")
    func changingOrigin() async throws {
        try await Self.withOrigin(configure: { $0.memoryBytes = 0 }) { client, origin, base in
            // No answers in memory: every request goes through the originals' checks.
            let path = try Fixture.path(base + "/changing.jpg", ["w:40"])
            let first = try await client.execute(uri: path, method: .get)
            #expect(first.status == .ok)
            let second = try await client.execute(uri: path, method: .get)
            #expect(second.body == first.body)
            #expect(origin.conditions.withLock { $0 } == ["\"v0\""], "revalidated with the stored ETag, answered 304")
            origin.version.withLock { $0 = 1 }
            let third = try await client.execute(uri: path, method: .get)
            #expect(third.status == .ok && third.body != first.body, "the new image's variant")
            #expect(try Image(data: Data(buffer: third.body)).height == 27, "made from the 300x200 image")
            let fourth = try await client.execute(uri: path, method: .get)
            #expect(fourth.body == third.body)
            #expect(origin.conditions.withLock { $0 }.last == "\"v1\"")
        }
    }

    @Test("concurrent requests for one new variant reach the origin once")
    func singleFlight() async throws {
        try await Self.withOrigin { client, origin, base in
            let path = try Fixture.path(base + "/counted.jpg", ["w:48"])
            let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<8 {
                    group.addTask { Data(buffer: try await client.execute(uri: path, method: .get).body) }
                }
                return try await group.reduce(into: [Data]()) { $0.append($1) }
            }
            #expect(Set(bodies).count == 1 && bodies.count == 8)
            #expect(origin.count("/counted.jpg") == 1)
        }
    }
}
