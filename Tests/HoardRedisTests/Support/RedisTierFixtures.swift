import Foundation
import Hoard
import HoardRedis
import HoardSystem
import HoardTestSupport
import Logging
import RedisTestSupport
import Testing

/// What the Redis tier's behaviour tests share: machines (a cache with a disk and a tier of its
/// own), scratch folders, counters, log capture, Redis key names and bounded polling. Nested in one
/// namespace so that no name clashes with the module's other test helpers; each test file reaches
/// it as `Fixtures`.
enum RedisTierFixtures {
    /// Log lines kept for assertions (the suites' shared recorder).
    typealias LogRecorder = HoardTestSupport.LogRecorder

    /// A counter shared by concurrent fetches.
    final class RunCounter: Sendable {
        private let count = Lock(0)

        /// Adds one; returns the new count.
        @discardableResult
        func increment() -> Int {
            count.withLock {
                $0 += 1
                return $0
            }
        }

        var value: Int { count.withLock { $0 } }
    }

    /// Runs `body` with machines A and B (own disks, own tiers) on a server of their own, one
    /// namespace, then shuts their tiers down, whatever `body` does.
    static func withMachines(
        namespace: String, function: String, configure: @escaping (inout Hoard.Configuration) -> Void = { _ in },
        _ body: (_ a: Machine, _ b: Machine, _ server: RedisServer) async throws -> Void
    ) async throws {
        let scratch = try TemporaryDirectory(function: function)
        defer { scratch.remove() }
        try await withRedisServer { server in
            let configuration = try tierConfiguration([server], namespace: namespace)
            try await withMachines(in: scratch, configuration: configuration, configure: configure) { a, b in
                try await body(a, b, server)
            }
        }
    }

    /// Runs `body` with machines A and B (own disks in `scratch`, own tiers on `configuration`),
    /// then shuts their tiers down, whatever `body` does.
    static func withMachines(
        in scratch: TemporaryDirectory, configuration: RedisTier.Configuration,
        configure: @escaping (inout Hoard.Configuration) -> Void = { _ in },
        _ body: (_ a: Machine, _ b: Machine) async throws -> Void
    ) async throws {
        let a = try Machine(folder: scratch.url(for: "a"), tierConfiguration: configuration, configure: configure)
        let b = try Machine(folder: scratch.url(for: "b"), tierConfiguration: configuration, configure: configure)
        do {
            try await body(a, b)
        } catch {
            await a.shutdown()
            await b.shutdown()
            throw error
        }
        await a.shutdown()
        await b.shutdown()
    }

    /// The Redis tier's configuration for `servers`, adjusted by `configure`. The default deadline
    /// is for healthy servers: long enough that a loaded 2-core machine (which may stall a reply
    /// for seconds) never turns a lease or a read into a timeout; tests of slow or paused servers
    /// pass their own.
    static func tierConfiguration(
        _ servers: [RedisServer], namespace: String, timeout: Duration = .seconds(30),
        configure: (inout RedisTier.Configuration) -> Void = { _ in }
    ) throws -> RedisTier.Configuration {
        var configuration = try RedisTier.Configuration(
            urls: servers.map { "redis://127.0.0.1:\($0.port)" }, namespace: namespace, timeout: timeout)
        configure(&configuration)
        return configuration
    }

    /// One "machine": a cache with a disk folder of its own and a Redis tier of its own (its own
    /// connections) on the shared servers.
    struct Machine: Sendable {
        let hoard: Hoard
        let tier: RedisTier

        /// - Parameters:
        ///   - folder: The machine's disk folder.
        ///   - tierConfiguration: The Redis tier's settings (same servers and namespace on every
        ///     machine that shares values).
        ///   - configure: Changes to the cache's settings.
        init(
            folder: URL, tierConfiguration: RedisTier.Configuration,
            configure: (inout Hoard.Configuration) -> Void = { _ in }
        ) throws {
            tier = try RedisTier(configuration: tierConfiguration)
            var configuration = Hoard.Configuration(name: "redis-tests", directory: folder)
            configuration.tiers = [.disk, .custom(tier)]
            configure(&configuration)
            hoard = try Hoard(configuration: configuration)
        }

        func shutdown() async {
            await tier.shutdown()
        }
    }

    /// The lowercase hex SHA-256 of `key`'s UTF-8 (the known vectors in ``RedisTierTests`` check
    /// this helper against the tier).
    static func sha256Hex(_ key: String) throws -> String {
        let digest = try #require(SHA256.hash(Array(key.utf8)))
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    /// The Redis key of `key`'s value (or of its lease, with `suffix: ":lease"`) in `namespace`.
    static func redisKey(_ key: String, namespace: String, suffix: String = "") throws -> String {
        "hoard:v1:\(namespace):{\(try sha256Hex(key))}\(suffix)"
    }

    /// `EXISTS key` on `server`, as a Bool.
    static func exists(_ key: String, on server: RedisServer) throws -> Bool {
        let reply = try server.command(["EXISTS", key])
        #expect(reply == ":1" || reply == ":0", "EXISTS replied \(reply)")
        return reply == ":1"
    }

    /// The integer reply (`":42"`) to `arguments` on `server`.
    static func integer(_ arguments: [String], on server: RedisServer) throws -> Int {
        let reply = try server.command(arguments)
        return try #require(reply.first == ":" ? Int(reply.dropFirst()) : nil, "\(arguments) replied \(reply)")
    }
}
