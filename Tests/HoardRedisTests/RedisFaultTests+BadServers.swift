import Foundation
import Hoard
import HoardRESP
import HoardRedis
import RedisTestSupport
import Testing

// Servers that answer, but wrongly: a value damaged behind the tier's back, a server that does
// not speak RESP, a password the server refuses.
extension RedisFaultTests {
    /// How a value is damaged behind the tier's back, with the admin connection.
    enum Damage: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Replaced with `garbage` (`SET`).
        case garbage
        /// Its last bytes overwritten (`SETRANGE`): the value's checksum no longer matches.
        case overwrittenTail
        /// Bytes appended (`APPEND`): longer than its header says.
        case appended
        /// Replaced by another key's intact record (`COPY ... REPLACE`).
        case anotherKeysRecord

        var description: String { rawValue }

        /// Damages the value at `redisKey` on `server`; `otherRedisKey` holds another key's record.
        func apply(to redisKey: String, otherRedisKey: String, on server: RedisServer) throws {
            let reply: String
            switch self {
            case .garbage:
                reply = try server.command(["SET", redisKey, "garbage"])
            case .overwrittenTail:
                let length = try server.command(["STRLEN", redisKey])
                let offset = try #require(Int(length.dropFirst())) - 3
                reply = try server.command(["SETRANGE", redisKey, "\(offset)", "XYZ"])
            case .appended:
                reply = try server.command(["APPEND", redisKey, "tail"])
            case .anotherKeysRecord:
                reply = try server.command(["COPY", otherRedisKey, redisKey, "REPLACE"])
            }
            #expect(!reply.hasPrefix("-"), "\(self): \(reply)")
        }
    }

    @Test(
        "a value damaged in Redis is a miss on another machine: deleted, counted, logged once",
        .requiresRedisServer, arguments: Damage.allCases)
    func damagedValue(_ damage: Damage) async throws {
        try await withRedisServer { server in
            // A healthy server: the deadline only has to outlast the stalls of a loaded 2-core machine
            // (tens of seconds), so that no missed one counts as an error.
            let configuration = try Self.configuration(port: server.port, timeout: .seconds(30))
            try await Self.withMachine(configuration) { writer in
                let key = "victim"
                try await writer.hoard.store(Self.value(for: key), forKey: key)
                try await writer.hoard.store(Self.value(for: "bystander"), forKey: "bystander")
                let redisKey = try Self.redisKey(key)
                #expect(try server.command(["EXISTS", redisKey]) == ":1")
                try damage.apply(to: redisKey, otherRedisKey: try Self.redisKey("bystander"), on: server)

                let readerLogs = FaultLog()
                try await Self.withMachine(configuration, logs: readerLogs) { reader in
                    #expect(try await reader.hoard.retrieve(String.self, forKey: key) == nil)
                    #expect(try server.command(["EXISTS", redisKey]) == ":0", "the damaged value is deleted")
                    #expect(reader.tier.statistics.damagedValues == 1, "\(reader.tier.statistics)")
                    let warnings = readerLogs.all.filter { $0.level == .warning && $0.message.contains("damaged") }
                    #expect(warnings.count == 1, "\(warnings.map(\.text))")
                    #expect(warnings.first?.text.contains(key) == true, "the warning names the key")

                    // The writer's own copy is intact; stored again, the value is shared again.
                    try await Self.expectLocalValues(writer, keys: [key])
                    try await writer.hoard.store(Self.value(for: key), forKey: key)
                    let entry = try await reader.hoard.entry(String.self, forKey: key)
                    #expect(entry?.source == "redis")
                    #expect(entry?.value == Self.value(for: key))
                    #expect(reader.tier.statistics.damagedValues == 1)
                    #expect(reader.tier.statistics.errors == 0, "damage is not a server failure")
                }
            }
        }
    }

    @Test(
        "a value of another Redis type is foreign: a miss, removed, and no reason to stop using the server",
        .requiresRedisServer)
    func valueOfAnotherType() async throws {
        try await withRedisServer { server in
            // A healthy server: the deadline only has to outlast the stalls of a loaded 2-core machine
            // (tens of seconds), so that no missed one counts as an error.
            let configuration = try Self.configuration(port: server.port, timeout: .seconds(30))
            try await Self.withMachine(configuration) { writer in
                try await writer.hoard.store(Self.value(for: "victim"), forKey: "victim")
                try await writer.hoard.store(Self.value(for: "healthy"), forKey: "healthy")
                let redisKey = try Self.redisKey("victim")
                #expect(try server.command(["DEL", redisKey]) == ":1")
                #expect(try server.command(["RPUSH", redisKey, "garbage"]) == ":1")

                let readerLogs = FaultLog()
                try await Self.withMachine(configuration, logs: readerLogs) { reader in
                    // As many reads as it takes to open a breaker that counted them as failures.
                    for _ in 0..<configuration.failureThreshold {
                        #expect(try await reader.hoard.retrieve(String.self, forKey: "victim") == nil)
                    }
                    let statistics = reader.tier.statistics
                    #expect(statistics.breakerOpenings == 0, "a healthy server is not skipped: \(statistics)")
                    #expect(statistics.damagedValues == 1, "removed at the first read: \(statistics)")
                    #expect(statistics.errors == 0, "a value's type is not a server failure: \(statistics)")
                    #expect(try server.command(["EXISTS", redisKey]) == ":0", "removed, as a damaged value is")
                    let healthy = try await reader.hoard.entry(String.self, forKey: "healthy")
                    #expect(healthy?.source == "redis", "the server is still used")
                    #expect(healthy?.value == Self.value(for: "healthy"))
                }
            }
        }
    }

    @Test(
        "a server answering nonsense: the cache works locally, errors are counted, the breaker opens once",
        arguments: ["%%%garbage\r\n", "$536870912\r\nabc"])
    func nonsenseServer(_ reply: String) async throws {
        let fake = try await FakeRESPServer.start(replying: Array(reply.utf8))
        do {
            let logs = FaultLog()
            let configuration = try Self.configuration(port: fake.port, timeout: .milliseconds(500))
            try await Self.withMachine(configuration, logs: logs) { machine in
                let timings = Timings()
                let keys = (0..<6).map { "nonsense \($0)" }
                for key in keys { try await Self.roundTrip(machine, key: key, timings: timings) }
                #expect(timings.slowest < Self.callLimit, "slowest call: \(timings.slowest)")
                let statistics = machine.tier.statistics
                #expect(statistics.errors >= configuration.failureThreshold, "\(statistics)")
                #expect(statistics.breakerOpenings == 1, "\(statistics)")
                #expect(statistics.stores == 0 && statistics.hits == 0, "\(statistics)")
                #expect(statistics.droppedWrites == keys.count, "\(statistics)")
                #expect(logs.count("Redis server failing") == 1)
                try await Self.expectLocalValues(machine, keys: keys)

                let unreachable = await Self.unreachableError(machine.tier)
                #expect(unreachable?.server.contains("127.0.0.1:\(fake.port)") == true)
                #expect(
                    unreachable?.underlying.isConnectionOrServerFailure == true, "\(String(describing: unreachable))")
            }
        } catch {
            await fake.stop()
            throw error
        }
        await fake.stop()
    }

    /// Where a tier's password comes from.
    enum PasswordSource: String, CaseIterable, Sendable, CustomStringConvertible {
        /// `RedisTier.Configuration(urls:password:)`.
        case parameter
        /// `redis://:<password>@host:port`.
        case url
        /// `redis://default:<password>@host:port`.
        case urlWithUser

        var description: String { rawValue }

        /// A tier configuration for the server on `port` with `password` given this way.
        func configuration(port: Int, password: String) throws -> RedisTier.Configuration {
            // The password is refused at once; the deadline only has to outlast the stalls of a loaded
            // 2-core machine (tens of seconds).
            let timeout: Duration = .seconds(30)
            return switch self {
            case .parameter:
                try RedisFaultTests.configuration(port: port, password: password, timeout: timeout)
            case .url:
                RedisFaultTests.shortRetries(
                    try RedisTier.Configuration(
                        urls: ["redis://:\(password)@127.0.0.1:\(port)"], namespace: RedisFaultTests.namespace,
                        timeout: timeout))
            case .urlWithUser:
                RedisFaultTests.shortRetries(
                    try RedisTier.Configuration(
                        urls: ["redis://default:\(password)@127.0.0.1:\(port)"], namespace: RedisFaultTests.namespace,
                        timeout: timeout))
            }
        }
    }

    @Test(
        "a wrong password: the cache works locally, checkReachable throws, no password in any error or log",
        .requiresRedisServer, arguments: PasswordSource.allCases)
    func wrongPassword(_ source: PasswordSource) async throws {
        // Distinctive, so that a server message ("WRONGPASS") cannot look like a leak.
        let right = "right-password-5f1c"
        let wrong = "wrong-password-9b2e"
        try await withRedisServer(.init(password: right)) { server in
            let logs = FaultLog()
            let configuration = try source.configuration(port: server.port, password: wrong)
            try await Self.withMachine(configuration, logs: logs) { machine in
                let timings = Timings()
                let keys = (0..<5).map { "guarded \($0)" }
                for key in keys { try await Self.roundTrip(machine, key: key, timings: timings) }
                #expect(timings.slowest < Self.callLimit, "slowest call: \(timings.slowest)")
                let statistics = machine.tier.statistics
                #expect(statistics.errors >= configuration.failureThreshold, "\(statistics)")
                #expect(statistics.breakerOpenings == 1, "\(statistics)")
                #expect(statistics.stores == 0, "\(statistics)")
                #expect(try server.command(["DBSIZE"]) == ":0", "nothing reached the server")
                try await Self.expectLocalValues(machine, keys: keys)

                let unreachable = await Self.unreachableError(machine.tier)
                if let unreachable {
                    guard case .authenticationFailed = unreachable.underlying else {
                        Issue.record("expected authenticationFailed, got \(unreachable.underlying)")
                        return
                    }
                    for text in [String(describing: unreachable.error), String(reflecting: unreachable.error)] {
                        #expect(!text.contains(wrong) && !text.contains(right), "\(text)")
                    }
                }
                let lines = logs.all
                #expect(!lines.isEmpty, "the failure is logged")
                for line in lines {
                    #expect(!line.text.contains(wrong) && !line.text.contains(right), "\(line.text)")
                }
                let settings = String(describing: machine.tier.configuration.servers)
                #expect(!settings.contains(wrong), "\(settings)")
            }
        }
    }
}
