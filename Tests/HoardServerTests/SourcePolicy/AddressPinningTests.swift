import Foundation
import HTTPTypes
import Hoard
@testable import HoardServer
import HoardTestSupport
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// DNS rebinding: the address a source's check approved is the one its download connects to.
@Suite("ImageServer pins the checked address")
struct AddressPinningTests {
    typealias Fixture = ServerFixture

    /// A resolver whose answers an attacker controls: `first` for the first question, `later` after.
    final class RebindingResolver: Sendable {
        let first: IPAddress
        let later: IPAddress
        private let questions = Mutex(0)

        init(first: String, later: String) throws {
            self.first = try #require(IPAddress(first))
            self.later = try #require(IPAddress(later))
        }

        var count: Int { questions.withLock { $0 } }

        func resolve(_ host: String) throws(ServeError) -> [IPAddress] {
            guard host == "pinned.test" else { throw .originFailed("\(host) does not resolve") }
            return questions.withLock { count in
                count += 1
                return count == 1 ? [first] : [later]
            }
        }
    }

    static func withServer(
        resolver: RebindingResolver, _ body: @Sendable (any TestClientProtocol, String) async throws -> Void
    ) async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try await Origin().run { port in
            let base = "http://pinned.test:\(port)"
            var configuration = try fixture.configuration(allowing: [base + "/"])
            // `pinned.test` is no loopback name: its loopback answer is allowed explicitly.
            configuration.sources = try SourcePolicy(
                allowing: [base + "/"], localRoot: fixture.root, allowedKinds: [.loopback])
            configuration.resolveHost = { host throws(ServeError) in try resolver.resolve(host) }
            try await fixture.withServer(configuration) { client, _ throws in try await body(client, base) }
        }
    }

    @Test("a host that answers an allowed address, then a refused one, is fetched from the allowed one, resolved once")
    func pinned() async throws {
        let resolver = try RebindingResolver(first: "127.0.0.1", later: "169.254.169.254")
        try await Self.withServer(resolver: resolver) { client, base in
            // The system's resolver knows no `pinned.test`: only a connection to the checked
            // address can reach the origin.
            let response = try await client.execute(uri: try Fixture.path(base + "/photo.jpg", ["w:40"]), method: .get)
            #expect(response.status == .ok, "\(String(buffer: response.body))")
            #expect(try Image(data: Data(buffer: response.body)).width == 40)
            #expect(resolver.count == 1)
        }
    }

    @Test("each redirect is checked and pinned again: a rebinding between hops is refused")
    func redirectRebinding() async throws {
        let resolver = try RebindingResolver(first: "127.0.0.1", later: "169.254.169.254")
        try await Self.withServer(resolver: resolver) { client, base in
            let response = try await client.execute(
                uri: try Fixture.path(base + "/redirect-photo", ["w:40"]), method: .get)
            #expect(response.status == .forbidden, "\(String(buffer: response.body))")
            #expect(String(buffer: response.body).contains("169.254.169.254"))
            #expect(resolver.count == 2)
        }
    }
}
