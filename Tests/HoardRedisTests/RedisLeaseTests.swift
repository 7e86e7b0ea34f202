import Foundation
import HoardTestSupport
import RedisTestSupport
import Testing

@testable import HoardCore
@testable import HoardImage
@testable import HoardRedis

private typealias Fixtures = RedisTierFixtures

/// One fetch across machines: the Redis tier's fetch leases, behind two caches that share a
/// server, and leases left by workers that died or hang.
@Suite("RedisTier fetch leases", .requiresRedisServer)
struct RedisLeaseTests {
    private func withMachines(
        function: String = #function, configure: @escaping (inout Hoard.Configuration) -> Void = { _ in },
        _ body: (_ a: Fixtures.Machine, _ b: Fixtures.Machine, _ server: RedisServer) async throws -> Void
    ) async throws {
        try await Fixtures.withMachines(namespace: "leases", function: function, configure: configure, body)
    }

    @Test("the tier's lease: taken once, held elsewhere, released only with its token")
    func leasePrimitives() async throws {
        try await withMachines { a, b, server in
            let leaseKey = try Fixtures.redisKey("k", namespace: "leases", suffix: ":lease")
            // Long enough that a loaded machine cannot let it expire before the checks below (one
            // full-suite run here saw 30 s go by between them).
            guard case .acquired(let token) = await a.tier.acquireFetchLease(forKey: "k", duration: .seconds(600)) else {
                Issue.record("A could not take a free lease")
                return
            }
            #expect(try server.command(["GET", leaseKey]) == token)
            let remaining = try Fixtures.integer(["PTTL", leaseKey], on: server)
            #expect((1...600_000).contains(remaining), "PX of the duration, not more: \(remaining) ms")
            #expect(await b.tier.acquireFetchLease(forKey: "k", duration: .seconds(600)) == .heldElsewhere)
            #expect(await b.tier.isFetchLeaseHeld(forKey: "k") == true)
            await b.tier.releaseFetchLease(forKey: "k", token: "not the token")
            #expect(try Fixtures.exists(leaseKey, on: server), "a wrong token releases nothing")
            await a.tier.releaseFetchLease(forKey: "k", token: token)
            #expect(try !Fixtures.exists(leaseKey, on: server))
            #expect(await b.tier.isFetchLeaseHeld(forKey: "k") == false)
            #expect(a.tier.statistics.leasesAcquired == 1 && b.tier.statistics.leasesHeldElsewhere == 1)
        }
    }

    @Test("A and B fetching the same 20 keys at once: each key is fetched once in all")
    func oneFetchPerKeyAcrossMachines() async throws {
        try await withMachines { a, b, server in
            let runs = Fixtures.RunCounter()
            let keys = (0..<20).map { "key-\($0)" }
            let results = try await withThrowingTaskGroup(of: (String, String).self) { group in
                for key in keys {
                    for machine in [a, b] {
                        group.addTask {
                            let value = try await machine.hoard.value(forKey: key) { () async throws -> String in
                                runs.increment()
                                try await Task.sleep(for: .seconds(1))  // the other machine arrives meanwhile
                                return "fetched \(key)"
                            }
                            return (key, value)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 40)
            for (key, value) in results { #expect(value == "fetched \(key)") }
            #expect(runs.value == 20, "one fetch per key across both machines, not \(runs.value)")
            let waits = a.hoard.statistics.sharedFetchWaits + b.hoard.statistics.sharedFetchWaits
            #expect(waits > 0, "some callers waited for the other machine's fetch")
            #expect(a.hoard.statistics.fetches + b.hoard.statistics.fetches == 20)
            #expect(try server.command(["KEYS", "*:lease"]) == "", "every lease released")
            for key in keys {
                #expect(try a.hoard.storedBytes(forKey: key) != nil && b.hoard.storedBytes(forKey: key) != nil)
            }
        }
    }

    @Test("a lease left by a dead worker: the caller waits for it to expire, then fetches once")
    func deadWorkersLease() async throws {
        try await withMachines { a, _, server in
            let leaseKey = try Fixtures.redisKey("orphan", namespace: "leases", suffix: ":lease")
            // A lease that outlives any stall of a loaded machine until the caller is seen waiting;
            // then it runs out as a dead worker's does.
            #expect(try server.command(["SET", leaseKey, "dead-worker", "PX", "600000"]) == "+OK")
            let runs = Fixtures.RunCounter()
            let call = Task {
                try await a.hoard.value(forKey: "orphan") { () async throws -> String in
                    runs.increment()
                    return "fetched after the lease"
                }
            }
            #expect(await eventually(timeout: .seconds(120), interval: .milliseconds(50)) { a.hoard.statistics.sharedFetchWaits == 1 }, "the caller waits")
            #expect(runs.value == 0, "no fetch while the lease lives")
            #expect(try server.command(["PEXPIRE", leaseKey, "300"]) == ":1")
            let value = try await call.value
            #expect(value == "fetched after the lease" && runs.value == 1)
            #expect(a.hoard.statistics.sharedFetchWaits == 1)
            #expect(try !Fixtures.exists(leaseKey, on: server), "its own lease released")
            #expect(try await a.tier.entry(forKey: "orphan") != nil, "the fetched value stored in Redis")
        }
    }

    @Test("a lease held too long: the caller fetches itself after fetchLeaseDuration, and leaves the lease alone")
    func hungWorkersLease() async throws {
        try await withMachines(configure: { $0.fetchLeaseDuration = 1 }) { a, _, server in
            let leaseKey = try Fixtures.redisKey("hung", namespace: "leases", suffix: ":lease")
            // Ten minutes: far beyond what a loaded machine may make the caller wait.
            #expect(try server.command(["SET", leaseKey, "hung-worker", "PX", "600000"]) == "+OK")
            let runs = Fixtures.RunCounter()
            let start = ContinuousClock.now
            let value = try await a.hoard.value(forKey: "hung") { () async throws -> String in
                runs.increment()
                return "fetched without the lease"
            }
            let elapsed = ContinuousClock.now - start
            #expect(value == "fetched without the lease" && runs.value == 1)
            #expect(elapsed >= .milliseconds(900), "waited about fetchLeaseDuration: \(elapsed)")
            #expect(elapsed < .seconds(300), "a bound on hangs: \(elapsed)")
            #expect(try server.command(["GET", leaseKey]) == "hung-worker", "another worker's lease is not released")
            #expect(a.hoard.statistics.sharedFetchWaits == 1)
        }
    }

    @Test("a holder whose fetch fails releases the lease; the waiter then fetches at once")
    func failedFetchReleases() async throws {
        struct Failure: Error {}
        // Ten minutes: far beyond the stalls of a loaded 2-core machine (tens of seconds).
        try await withMachines(configure: { $0.fetchLeaseDuration = 600 }) { a, b, server in
            let started = Fixtures.RunCounter()
            let released = Fixtures.RunCounter()
            let first = Task {
                try await a.hoard.value(forKey: "flaky") { () async throws -> String in
                    started.increment()
                    // Holds the lease until B is seen waiting for it, however slow the machine (at least
                    // 600 s: longer than the test's 120 s waits for B).
                    for _ in 0..<30_000 where released.value == 0 { try await Task.sleep(for: .milliseconds(20)) }
                    throw Failure()
                }
            }
            #expect(await eventually(timeout: .seconds(120), interval: .milliseconds(50)) { started.value == 1 })
            let second = Task {
                try await b.hoard.value(forKey: "flaky") { () async throws -> String in "B's own" }
            }
            #expect(await eventually(timeout: .seconds(120), interval: .milliseconds(50)) { b.hoard.statistics.sharedFetchWaits == 1 })
            let start = ContinuousClock.now
            released.increment()
            let value = try await second.value
            #expect(value == "B's own")
            // Half the lease duration: a loaded 2-core machine may stall the waiter for tens of seconds.
            #expect(ContinuousClock.now - start < .seconds(300), "not the 600 s lease duration")
            await #expect(throws: Failure.self) { try await first.value }
            #expect(b.hoard.statistics.sharedFetchWaits == 1)
            #expect(try server.command(["KEYS", "*:lease"]) == "")
        }
    }

    @Test("the encoded fetch shares one fetch per key across A and B", arguments: ["Data", "Image"])
    func encodedFetchShared(_ typeName: String) async throws {
        try await withMachines { a, b, _ in
            let runs = Fixtures.RunCounter()
            let keys = (0..<8).map { "encoded-\($0)" }
            @Sendable func bytes(_ key: String) -> Data {
                Data((key + " bytes").utf8) + Data(everyByteValue(count: 512))
            }
            let results = try await withThrowingTaskGroup(of: (String, CacheEntry<Data>).self) { group in
                for key in keys {
                    for machine in [a, b] {
                        group.addTask {
                            let fetch = { @Sendable () async throws -> Data in
                                runs.increment()
                                try await Task.sleep(for: .seconds(1))
                                return bytes(key)
                            }
                            // The bytes are never decoded on these paths, so any bytes do for Image.
                            let entry =
                                typeName == "Image"
                                ? try await machine.hoard.encodedEntry(Image.self, forKey: key, fetch: fetch)
                                : try await machine.hoard.encodedEntry(Data.self, forKey: key, fetch: fetch)
                            return (key, entry)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 16)
            for (key, entry) in results { #expect(entry.value == bytes(key), "\(key) from \(entry.source)") }
            #expect(runs.value == 8, "one fetch per key across both machines, not \(runs.value)")
            #expect(results.filter { $0.1.source == .fetch }.count == 8, "the others read the fetcher's value")
            #expect(a.hoard.statistics.sharedFetchWaits + b.hoard.statistics.sharedFetchWaits > 0)
        }
    }
}
