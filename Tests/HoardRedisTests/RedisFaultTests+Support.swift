import Foundation
import Hoard
import HoardRESP
import HoardRedis
import HoardSystem
import HoardTestSupport
import Logging
import RedisTestSupport
import Testing

// What the fault tests share: a "machine" (a cache with a disk of its own and a Redis tier), its
// log, short deadlines, and bounded waits. Nested in the suite so that their names cannot clash
// with the module's other test helpers.
extension RedisFaultTests {
    /// The namespace every fault test uses (each test has a server of its own).
    static let namespace = "faults"

    /// The longest any single cache call may take while a server misbehaves: the deadlines are
    /// under a second, the rest bounds hangs. A call's continuation queues behind every other test
    /// on Swift's worker threads (one per core): on a loaded 2-core machine, 48 s passed between
    /// a deadline firing and the caller resuming.
    static let callLimit: Duration = .seconds(120)

    /// The longest a test waits for a server that came back to be used again.
    static let recoveryLimit: Duration = .seconds(120)

    /// The value every test stores under `key`: a read of `key` returns this or nothing.
    static func value(for key: String) -> String {
        "value of \(key)"
    }

    /// A 64 KiB value whose bytes depend on `index`.
    static func largeValue(_ index: Int) -> Data {
        Data((0..<(64 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
    }

    /// The Redis key of `key`'s value: `hoard:v1:<namespace>:{<hex SHA-256 of the key>}`.
    static func redisKey(_ key: String) throws -> String {
        "hoard:v1:\(namespace):{\(try #require(SHA256.hexDigest(Array(key.utf8))))}"
    }

    /// A tier configuration for the server on `port` with deadlines of `timeout` and a quick
    /// retry (200 ms, at most 400 ms), so that a test sees the breaker open and close fast.
    static func configuration(
        port: Int, password: String? = nil, timeout: Duration
    ) throws -> RedisTier.Configuration {
        shortRetries(
            try RedisTier.Configuration(
                urls: ["redis://127.0.0.1:\(port)"], namespace: namespace, password: password, timeout: timeout))
    }

    /// `configuration` with a quick retry.
    static func shortRetries(_ configuration: RedisTier.Configuration) -> RedisTier.Configuration {
        var configuration = configuration
        configuration.retryInterval = .milliseconds(200)
        configuration.maximumRetryInterval = .milliseconds(400)
        return configuration
    }

    /// Runs `body` with a new machine on `configuration` logging to `logs`, then shuts it down and
    /// removes its folder, whatever `body` does.
    @discardableResult
    static func withMachine<Result>(
        _ configuration: RedisTier.Configuration, logs: FaultLog = FaultLog(),
        _ body: (FaultMachine) async throws -> Result
    ) async throws -> Result {
        let machine = try FaultMachine(configuration, logs: logs)
        do {
            let result = try await body(machine)
            await machine.shutdown()
            return result
        } catch {
            await machine.shutdown()
            throw error
        }
    }

    /// Stores `key`'s value, reads it back, and reads a key never stored (a miss, from Redis when
    /// it answers), each call timed in `timings`.
    static func roundTrip(_ machine: FaultMachine, key: String, timings: Timings) async throws {
        let expected = value(for: key)
        try await timings.time { try await machine.hoard.store(expected, forKey: key) }
        let readBack = try await timings.time { try await machine.hoard.retrieve(String.self, forKey: key) }
        #expect(readBack == expected, "\(key)")
        let absent = try await timings.time { try await machine.hoard.retrieve(String.self, forKey: "absent \(key)") }
        #expect(absent == nil, "never stored: absent \(key)")
    }

    /// Expects every key in `keys` to read back as its value from `machine`'s own tiers (memory
    /// cleared first, so from its disk).
    static func expectLocalValues(_ machine: FaultMachine, keys: [String]) async throws {
        machine.hoard.clearMemory()
        for key in keys {
            let entry = try await machine.hoard.entry(String.self, forKey: key)
            #expect(entry?.value == value(for: key), "\(key)")
            #expect(entry?.source == .disk, "\(key) from the disk")
        }
    }

    /// Stores new keys through `machine` until one reaches `server` (its breaker closed again),
    /// for up to ``recoveryLimit``.
    ///
    /// - Returns: The key that reached the server, or `nil`.
    static func storeUntilShared(_ machine: FaultMachine, on server: RedisServer) async throws -> String? {
        var attempt = 0
        let deadline = ContinuousClock.now + recoveryLimit
        while ContinuousClock.now < deadline {
            attempt += 1
            let key = "after recovery \(attempt)"
            try await machine.hoard.store(value(for: key), forKey: key)
            if try server.command(["EXISTS", redisKey(key)]) == ":1" { return key }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// The `RedisTierError.unreachable` that `checkReachable()` throws, or `nil` (recorded as an
    /// issue) when it does not.
    static func unreachableError(
        _ tier: RedisTier, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> (server: String, underlying: RedisClientError, error: RedisTierError)? {
        do {
            try await tier.checkReachable()
            Issue.record("checkReachable() did not throw", sourceLocation: sourceLocation)
        } catch {
            if case .unreachable(let server, let underlying) = error { return (server, underlying, error) }
            Issue.record("checkReachable() threw \(error), not .unreachable", sourceLocation: sourceLocation)
        }
        return nil
    }

    /// One "machine": a cache with a disk folder of its own and a Redis tier of its own (its own
    /// connections and circuit breaker), both logging to one ``FaultLog``.
    struct FaultMachine: Sendable {
        let hoard: Hoard
        let tier: RedisTier
        let folder: URL

        init(_ configuration: RedisTier.Configuration, logs: FaultLog) throws {
            var configuration = configuration
            configuration.logger = logs.logger
            tier = try RedisTier(configuration: configuration)
            folder = FileManager.default.temporaryDirectory.appending(
                path: "HoardRedisFaultTests-\(UUID().uuidString)", directoryHint: .isDirectory)
            var cacheConfiguration = Hoard.Configuration(name: "faults", directory: folder)
            cacheConfiguration.tiers = [.disk, .custom(tier)]
            cacheConfiguration.logger = logs.logger
            hoard = try Hoard(configuration: cacheConfiguration)
        }

        func shutdown() async {
            await tier.shutdown()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Every log line, with its metadata rendered as text: for counting changes of a server's
    /// state and for looking for secrets.
    final class FaultLog: Sendable {
        struct Line: Sendable {
            let level: Logger.Level
            let message: String
            /// The message followed by every metadata key and value.
            let text: String
        }

        private let lines = Lock<[Line]>([])

        init() {}

        /// A logger (at trace level) whose lines this log keeps.
        var logger: Logger {
            Logger(label: "HoardRedisTests.faults") { _ in
                ForwardingLogHandler { [self] level, message, metadata in
                    let rendered = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                    let line = Line(level: level, message: message, text: ([message] + rendered).joined(separator: " "))
                    lines.withLock { $0.append(line) }
                }
            }
        }

        var all: [Line] { lines.withLock { $0 } }

        /// How many lines' messages contain `text`.
        func count(_ text: String) -> Int {
            all.filter { $0.message.contains(text) }.count
        }
    }

    /// The longest of many timed calls, and how many there were; shared by concurrent tasks.
    final class Timings: Sendable {
        private let state = Lock<(count: Int, slowest: Duration)>((0, .zero))

        init() {}

        /// Runs `body`, recording how long it took.
        func time<Value>(_ body: () async throws -> Value) async throws -> Value {
            let start = ContinuousClock.now
            defer {
                let elapsed = ContinuousClock.now - start
                state.withLock {
                    $0.count += 1
                    $0.slowest = max($0.slowest, elapsed)
                }
            }
            return try await body()
        }

        var count: Int { state.withLock { $0.count } }
        var slowest: Duration { state.withLock { $0.slowest } }
    }
}
