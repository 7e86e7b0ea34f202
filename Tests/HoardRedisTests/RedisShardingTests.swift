import Foundation
import RedisTestSupport
import HoardTestSupport
import Testing

@testable import HoardCore
@testable import HoardRedis

private typealias Fixtures = RedisTierFixtures

/// A tier over several servers: keys spread by rendezvous hashing, and a server that dies, hangs
/// or comes back costs only its own share, never an error to the caller.
@Suite("RedisTier over several servers", .requiresRedisServer)
struct RedisShardingTests {
    static let namespace = "shards"

    /// Short back-offs, so that a restarted server is probed again soon, and a short deadline
    /// unless `timeout` says otherwise, so that a hung server costs little.
    static func configuration(
        _ servers: [RedisServer], timeout: Duration = .seconds(2)
    ) throws -> RedisTier.Configuration {
        try Fixtures.tierConfiguration(servers, namespace: namespace, timeout: timeout) {
            $0.retryInterval = .milliseconds(200)
            $0.maximumRetryInterval = .milliseconds(400)
        }
    }

    @Test("200 keys spread over two servers; one killed: the other's keys still hit; restarted: used again")
    func spreadKillRestart() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        try await withRedisServer { first in
            try await withRedisServer { second in
                // A killed server refuses at once: the deadline only matters to the live one,
                // whose every answer is checked, so it is long (2 s was once outlasted under
                // ThreadSanitizer in CI, by the contract test's commands).
                let configuration = try Self.configuration([first, second], timeout: .seconds(15))
                try await Fixtures.withMachines(in: scratch, configuration: configuration) { a, b in
                    try await Self.spreadKillRestart(a, b, first, second)
                }
            }
        }
    }

    private static func spreadKillRestart(
        _ a: Fixtures.Machine, _ b: Fixtures.Machine, _ first: RedisServer, _ second: RedisServer
    ) async throws {
        let keys = (0..<200).map { "key-\($0)" }
        for key in keys { try await a.hoard.store("value of \(key)", forKey: key) }
        var onFirst: Set<String> = []
        var onSecond: Set<String> = []
        for key in keys {
            let redisKey = try Fixtures.redisKey(key, namespace: namespace)
            if try Fixtures.exists(redisKey, on: first) { onFirst.insert(key) }
            if try Fixtures.exists(redisKey, on: second) { onSecond.insert(key) }
        }
        #expect(onFirst.isDisjoint(with: onSecond) && onFirst.count + onSecond.count == 200, "each key on one server")
        #expect((50...150).contains(onFirst.count), "\(onFirst.count) of 200 keys on the first server")
        #expect(
            try Fixtures.integer(["DBSIZE"], on: first) == onFirst.count
                && Fixtures.integer(["DBSIZE"], on: second) == onSecond.count)
        let survivor = try #require(onFirst.sorted().first)
        let lost = try #require(onSecond.sorted().first)
        #expect(try await b.hoard.entry(String.self, forKey: lost)?.source == "redis", "B's tier picks the same server")

        second.kill()
        // B's disk has only `lost`: every other key must come from Redis, or miss. Nothing throws.
        for key in keys where key != lost {
            let entry = try await b.hoard.entry(String.self, forKey: key)
            if onFirst.contains(key) {
                #expect(entry?.value == "value of \(key)" && entry?.source == "redis", "\(key) on the surviving server")
            } else {
                #expect(entry == nil, "\(key) was on the killed server")
            }
        }
        for key in onSecond.sorted().prefix(10) {
            try await a.hoard.store("stored while down", forKey: key)
            #expect(try await a.hoard.retrieve(String.self, forKey: key) == "stored while down", "the local tiers work")
        }
        try await a.hoard.store("still shared", forKey: survivor)
        #expect(try await b.tier.entry(forKey: survivor) != nil, "the surviving server still takes writes")
        let down = b.tier.statistics
        #expect(down.breakerOpenings >= 1 && down.errors >= 3, "\(down)")
        #expect(down.skippedCommands > 0, "the open breaker skips the dead server: \(down)")
        #expect(a.tier.statistics.breakerOpenings >= 1 && a.tier.statistics.droppedWrites >= 1)
        #expect(a.tier.shards[1].breaker.isOpen && !a.tier.shards[0].breaker.isOpen)

        try await second.restart()
        // The restarted server is empty; a store of one of its keys (one that B has never had)
        // reaches it once the breaker has probed it (within the 400 ms maximum back-off).
        let back = try #require(onSecond.sorted().dropFirst().first)
        let reached = try await eventually(timeout: .seconds(120), interval: .milliseconds(50)) {
            try await a.hoard.store("after the restart", forKey: back)
            return try Fixtures.exists(Fixtures.redisKey(back, namespace: namespace), on: second)
        }
        #expect(reached, "A writes to the restarted server again")
        #expect(!a.tier.shards[1].breaker.isOpen)
        let readOnB = try await eventually(timeout: .seconds(120), interval: .milliseconds(50)) {
            try await b.hoard.entry(String.self, forKey: back)?.value == "after the restart"
        }
        #expect(readOnB, "B reads the restarted server's value")
        #expect(try await b.hoard.entry(String.self, forKey: back)?.source == .memory, "from Redis, then memory")
        #expect(b.hoard.statistics.hits(in: "redis") >= onFirst.count, "\(b.hoard.statistics)")
        #expect(!b.tier.shards[1].breaker.isOpen)
        // Leases on the restarted server work again (its script cache is empty: EVALSHA falls
        // back to EVAL for the release).
        let leaseKey = try Fixtures.redisKey(back, namespace: namespace, suffix: ":lease")
        // Ten minutes: a loaded 2-core machine may stall the test for tens of seconds before the check.
        guard case .acquired(let token) = await a.tier.acquireFetchLease(forKey: back, duration: .seconds(600)) else {
            Issue.record("no lease on the restarted server")
            return
        }
        #expect(try Fixtures.exists(leaseKey, on: second))
        await a.tier.releaseFetchLease(forKey: back, token: token)
        #expect(try !Fixtures.exists(leaseKey, on: second))
    }

    @Test("a hung (paused) server costs one deadline per command until its breaker opens, then nothing")
    func pausedServer() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        try await withRedisServer { server in
            // 10 s, so that the stalls of a loaded 2-core machine rarely make the live server miss one
            // before it is paused.
            let machine = try Fixtures.Machine(
                folder: scratch.url(for: "a"), tierConfiguration: Self.configuration([server], timeout: .seconds(10)))
            do {
                try await machine.hoard.store("before", forKey: "k")
                server.pause()
                let start = ContinuousClock.now
                for index in 0..<20 {
                    #expect(try await machine.hoard.retrieve(String.self, forKey: "missing-\(index)") == nil)
                }
                try await machine.hoard.store("while paused", forKey: "p")
                let elapsed = ContinuousClock.now - start
                // The first missed 10 s deadline opens the breaker (probes run in the background);
                // 21 commands at 10 s each, with no breaker, would be 210 s and more. The margin is for
                // a loaded 2-core machine, which may stall the test's tasks for tens of seconds.
                #expect(elapsed < .seconds(120), "\(elapsed)")
                let statistics = machine.tier.statistics
                #expect(statistics.breakerOpenings == 1 && statistics.skippedCommands > 0, "\(statistics)")
                #expect(try await machine.hoard.retrieve(String.self, forKey: "p") == "while paused")

                server.resume()
                let reached = try await eventually(timeout: .seconds(120), interval: .milliseconds(50)) {
                    try await machine.hoard.store("after resuming", forKey: "r")
                    return try Fixtures.exists(Fixtures.redisKey("r", namespace: Self.namespace), on: server)
                }
                #expect(reached, "the server is used again once it answers")
            } catch {
                server.resume()
                await machine.shutdown()
                throw error
            }
            await machine.shutdown()
        }
    }
}
