import Foundation
import HoardRESP
import RedisTestSupport
import Testing

@Suite(
    "NIORedisClient TLS", .requiresRedisServer,
    .enabled(if: SelfSignedCertificate.opensslPath != nil, "openssl not found: cannot make a test certificate"))
struct NIORedisClientTLSTests {
    private func withTLSServer(_ body: (RedisServer, SelfSignedCertificate) async throws -> Void) async throws {
        try await withTLSRedisServer(body)
    }

    @Test("rediss:// trusting the server's CA file works")
    func trustedCertificate() async throws {
        try await withTLSServer { server, certificate throws in
            let port = try #require(server.tlsPort)
            var configuration = try RedisConfiguration(url: "rediss://localhost:\(port)")
            configuration.tls = .init(trustRoots: .certificateFile(path: certificate.certificateFile))
            let client = try NIORedisClient(configuration: configuration)
            try await client.set("k", to: everyByteValue(count: 100_000))
            #expect((try await client.get("k")) == everyByteValue(count: 100_000))
            await client.close()

            // By IP address, with the name to verify given separately.
            var byAddress = RedisConfiguration(host: "127.0.0.1", port: port)
            byAddress.tls = .init(
                trustRoots: .certificateFile(path: certificate.certificateFile), serverName: "localhost")
            let second = try NIORedisClient(configuration: byAddress)
            try await second.ping()
            await second.close()
        }
    }

    @Test("rediss:// without trusting the CA is a TLS error")
    func untrustedCertificate() async throws {
        try await withTLSServer { server, _ throws in
            let port = try #require(server.tlsPort)
            // Several attempts at once: a handshake refused before the connection was handed
            // over once surfaced as the pipeline's "handler not found" instead of a TLS error.
            try await withThrowingTaskGroup(of: RedisClientError?.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let client = try NIORedisClient(
                            configuration: RedisConfiguration(url: "rediss://localhost:\(port)"))
                        let error = await expectFailure { try await client.ping() }
                        await client.close()
                        return error
                    }
                }
                for try await error in group {
                    guard case .tlsFailed(let host, let failedPort, _)? = error else {
                        Issue.record("unexpected \(String(describing: error))")
                        continue
                    }
                    #expect(host == "localhost" && failedPort == port)
                }
            }
        }
    }

    @Test("a name the certificate does not carry is a TLS error")
    func wrongName() async throws {
        try await withTLSServer { server, certificate throws in
            let port = try #require(server.tlsPort)
            var configuration = RedisConfiguration(host: "127.0.0.1", port: port)
            configuration.tls = .init(
                trustRoots: .certificateFile(path: certificate.certificateFile), serverName: "cache.example")
            let client = try NIORedisClient(configuration: configuration)
            let error = await expectFailure { try await client.ping() }
            await client.close()
            guard case .tlsFailed? = error else {
                Issue.record("unexpected \(String(describing: error))")
                return
            }
        }
    }
}
