import Foundation
import HoardRESP
import Testing

extension Trait where Self == ConditionTrait {
    /// Runs the test only when redis-server is installed, or required (`HOARD_REQUIRE_REDIS=1`,
    /// which turns its absence into a failure when the test starts one).
    package static var requiresRedisServer: Self {
        .enabled(if: RedisServer.shouldRunTests, Comment(rawValue: RedisServer.unavailableMessage))
    }
}

/// Starts a server with `options`, runs `body` with it, and stops it, whatever `body` does.
@discardableResult
package func withRedisServer<Result>(
    _ options: RedisServer.Options = .init(), _ body: (RedisServer) async throws -> Result
) async throws -> Result {
    let server = try await RedisServer.start(options)
    defer { server.stop() }
    return try await body(server)
}

/// Starts a TLS-only server with a new self-signed certificate (for `localhost`), runs `body`
/// with both, and stops the server and removes the certificate; cancels the test when this
/// redis-server was built without TLS.
package func withTLSRedisServer(_ body: (RedisServer, SelfSignedCertificate) async throws -> Void) async throws {
    let certificate = try SelfSignedCertificate()
    defer { certificate.remove() }
    let tls = RedisServer.TLSOptions(
        certificateFile: certificate.certificateFile, keyFile: certificate.keyFile,
        caCertificateFile: certificate.certificateFile)
    let server: RedisServer
    do {
        server = try await RedisServer.start(.init(tls: tls))
    } catch let failure as RedisServer.Failure {
        if case .didNotStart(_, let log) = failure, log.contains("tls-port") || log.contains("TLS is not supported") {
            try Test.cancel("this redis-server was built without TLS support")
        }
        throw failure
    }
    defer { server.stop() }
    try await body(server, certificate)
}

/// A client for `server`'s plain port with short deadlines, adjusted by `configure`, closed
/// after `body`.
@discardableResult
package func withClient<Result>(
    for server: RedisServer, _ configure: (inout RedisConfiguration) -> Void = { _ in },
    _ body: (NIORedisClient) async throws -> Result
) async throws -> Result {
    var configuration = RedisConfiguration(
        host: "127.0.0.1", port: server.port, password: server.options.password, connectTimeout: .seconds(30),
        commandTimeout: .seconds(30))
    configure(&configuration)
    let client = try NIORedisClient(configuration: configuration)
    do {
        let result = try await body(client)
        await client.close()
        return result
    } catch {
        await client.close()
        throw error
    }
}

/// Runs `body`, a step before or after a test's fault, again while it fails with a deadline passed
/// or a connection lost: a deadline as short as a test of deadlines needs can pass on a loaded
/// machine while the server is fine. Throws the last error after `attempts` tries.
@discardableResult
package func retryingDeadlines<Value>(attempts: Int = 10, _ body: () async throws -> Value) async throws -> Value {
    var attempt = 1
    while true {
        do {
            return try await body()
        } catch let error as RedisClientError where error.isConnectionOrServerFailure && attempt < attempts {
            attempt += 1
        }
    }
}

/// Every byte value, repeated to `count` bytes.
package func everyByteValue(count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0) }
}

/// Runs `body` and returns the ``RedisClientError`` it throws; records an issue when it does
/// not throw, or throws another error.
package func expectFailure<Value>(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Value
) async -> RedisClientError? {
    do {
        let value = try await body()
        Issue.record("expected an error, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch let error as RedisClientError {
        return error
    } catch {
        Issue.record("expected a RedisClientError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
