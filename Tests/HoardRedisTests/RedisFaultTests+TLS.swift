import Foundation
import Hoard
import HoardRESP
import HoardRedis
import RedisTestSupport
import Testing

// TLS with a certificate the test makes: shared between machines that trust it, local only for
// one that does not.
extension RedisFaultTests {
    private func withTLSServer(_ body: (RedisServer, SelfSignedCertificate) async throws -> Void) async throws {
        try await withTLSRedisServer(body)
    }

    @Test(
        "TLS with a test certificate: shared by machines that trust it; one that does not stays local",
        .requiresRedisServer,
        .enabled(if: SelfSignedCertificate.opensslPath != nil, "openssl not found: cannot make a test certificate"))
    func tls() async throws {
        try await withTLSServer { server, certificate in
            let port = try #require(server.tlsPort)
            // Deadlines of seconds: a TLS handshake on a loaded machine is slow, and nothing here
            // waits on a server that does not answer.
            let trusted = RedisConfiguration(
                host: "localhost", port: port,
                tls: .init(trustRoots: .certificateFile(path: certificate.certificateFile)),
                connectTimeout: .seconds(5), commandTimeout: .seconds(5))
            let configuration = Self.shortRetries(
                RedisTier.Configuration(servers: [trusted], namespace: Self.namespace))
            try await Self.withMachine(configuration) { writer in
                let key = "over TLS"
                try await writer.hoard.store(Self.value(for: key), forKey: key)
                #expect(writer.tier.statistics.stores == 1, "\(writer.tier.statistics)")
                #expect(writer.tier.statistics.errors == 0, "\(writer.tier.statistics)")
                try await writer.tier.checkReachable()

                try await Self.withMachine(configuration) { reader in
                    let entry = try await reader.hoard.entry(String.self, forKey: key)
                    #expect(entry?.source == "redis")
                    #expect(entry?.value == Self.value(for: key))
                    #expect(reader.tier.statistics.hits == 1, "\(reader.tier.statistics)")
                }

                // The system's trust roots do not include the test's certificate.
                var untrusted = try RedisConfiguration(url: "rediss://localhost:\(port)")
                untrusted.connectTimeout = .seconds(5)
                untrusted.commandTimeout = .seconds(5)
                let strangerLogs = FaultLog()
                let strangerConfiguration = Self.shortRetries(
                    RedisTier.Configuration(servers: [untrusted], namespace: Self.namespace))
                try await Self.withMachine(strangerConfiguration, logs: strangerLogs) { stranger in
                    let timings = Timings()
                    let keys = (0..<4).map { "untrusted \($0)" }
                    for key in keys { try await Self.roundTrip(stranger, key: key, timings: timings) }
                    #expect(try await stranger.hoard.retrieve(String.self, forKey: key) == nil, "not read from Redis")
                    #expect(timings.slowest < Self.callLimit, "slowest call: \(timings.slowest)")
                    let statistics = stranger.tier.statistics
                    #expect(statistics.errors >= 1, "\(statistics)")
                    #expect(statistics.stores == 0 && statistics.hits == 0, "\(statistics)")
                    #expect(statistics.droppedWrites == keys.count, "\(statistics)")
                    #expect(strangerLogs.count("Redis server failing") == 1)
                    try await Self.expectLocalValues(stranger, keys: keys)

                    let unreachable = await Self.unreachableError(stranger.tier)
                    guard case .tlsFailed? = unreachable?.underlying else {
                        Issue.record("expected tlsFailed, got \(String(describing: unreachable))")
                        return
                    }
                }
            }
        }
    }
}
