import Foundation
import HoardTestSupport
import RedisTestSupport
import Testing

@testable import HoardCore
@testable import HoardRedis

private typealias Fixtures = RedisTierFixtures

/// Two caches with disks of their own (two machines) sharing one Redis server through the tier.
@Suite("Hoard with a RedisTier", .requiresRedisServer)
struct RedisTierHoardTests {
    private func withMachines(
        function: String = #function,
        _ body: (_ a: Fixtures.Machine, _ b: Fixtures.Machine, _ server: RedisServer) async throws -> Void
    ) async throws {
        try await Fixtures.withMachines(namespace: "machines", function: function, body)
    }

    @Test("a value stored on A is read on B from Redis, then from B's disk, with the same dates")
    func storeOnAReadOnB() async throws {
        try await withMachines { a, b, server in
            try await a.hoard.store("shared value", forKey: "greeting", expiry: .seconds(600))
            let onA = try #require(try await a.hoard.entry(String.self, forKey: "greeting"))
            #expect(try Fixtures.exists(Fixtures.redisKey("greeting", namespace: "machines"), on: server))

            let fromRedis = try #require(try await b.hoard.entry(String.self, forKey: "greeting"))
            #expect(fromRedis.value == "shared value")
            #expect(fromRedis.source == "redis")
            #expect(fromRedis.expiresAt == onA.expiresAt && fromRedis.cachedAt == onA.cachedAt)
            #expect(try b.hoard.storedBytes(forKey: "greeting")?.bytes == Data("shared value".utf8), "on B's disk")

            b.hoard.clearMemory()
            let fromDisk = try #require(try await b.hoard.entry(String.self, forKey: "greeting"))
            #expect(fromDisk.value == "shared value" && fromDisk.source == .disk)
            #expect(fromDisk.expiresAt == onA.expiresAt && fromDisk.cachedAt == onA.cachedAt)
            let statistics = b.hoard.statistics
            #expect(statistics.hits(in: "redis") == 1 && statistics.hitsByTier["redis"] == 1)
            #expect(statistics.hits(in: .disk) == 1 && b.tier.statistics.hits == 1)
            #expect(a.tier.statistics.stores == 1)
        }
    }

    @Test("a missing value on both machines is a miss everywhere; A's removal reaches B's next read")
    func missAndRemove() async throws {
        try await withMachines { a, b, _ in
            #expect(try await b.hoard.retrieve(String.self, forKey: "absent") == nil)
            #expect(b.hoard.statistics.misses(in: "redis") == 1)
            try await a.hoard.store("soon gone", forKey: "k")
            try await a.hoard.remove(forKey: "k")
            #expect(try await b.hoard.retrieve(String.self, forKey: "k") == nil, "removed from Redis too")
        }
    }

    @Test("expireAll on A: B stops returning the values within seconds; later values still reach B")
    func expireAllReachesB() async throws {
        try await withMachines { a, b, _ in
            try await a.hoard.store("old", forKey: "k")
            #expect(try await b.hoard.retrieve(String.self, forKey: "k") == "old", "B has it in memory and on disk")
            try await a.hoard.expireAll()
            #expect(try await a.hoard.retrieve(String.self, forKey: "k") == nil, "at once on A")
            // A loaded 2-core machine may stall B's once-a-second mark watch for tens of seconds.
            let expiredOnB = try await eventually(timeout: .seconds(180), interval: .milliseconds(50)) {
                try await b.hoard.retrieve(String.self, forKey: "k") == nil
            }
            #expect(expiredOnB, "B applies A's expireAll() within 10 s")
            #expect(try b.hoard.storedBytes(forKey: "k") != nil, "expired, not removed (a fallback may use it)")

            try await Task.sleep(for: .milliseconds(5))
            try await a.hoard.store("new", forKey: "after")
            #expect(try await b.hoard.retrieve(String.self, forKey: "after") == "new", "stored after the mark")
        }
    }

    @Test("removeAll on A: B's own disk entries go within seconds; Redis keeps only the mark")
    func removeAllReachesB() async throws {
        try await withMachines { a, b, server in
            try await b.hoard.store("b's own", forKey: "local")
            try await a.hoard.store("a's", forKey: "shared")
            #expect(try await b.hoard.retrieve(String.self, forKey: "shared") == "a's")
            #expect(try b.hoard.storedBytes(forKey: "local") != nil && b.hoard.storedBytes(forKey: "shared") != nil)

            try await a.hoard.removeAll()
            let keys = try server.command(["KEYS", "*"]).split(separator: "\n").map(String.init)
            #expect(keys == ["hoard:v1:machines:removed-before"], "\(keys)")
            // A loaded 2-core machine may stall B's once-a-second mark watch for tens of seconds.
            let emptiedOnB = try await eventually(timeout: .seconds(180), interval: .milliseconds(50)) {
                try b.hoard.storedBytes(forKey: "local") == nil && b.hoard.storedBytes(forKey: "shared") == nil
            }
            #expect(emptiedOnB, "B applies A's removeAll() to its disk within 10 s")
            #expect(try await b.hoard.retrieve(String.self, forKey: "local") == nil, "and to its memory")

            // What B stores afterwards is kept, and reaches A through Redis.
            try await Task.sleep(for: .milliseconds(5))
            try await b.hoard.store("after the removal", forKey: "later")
            let onA = try await a.hoard.entry(String.self, forKey: "later")
            #expect(onA?.value == "after the removal" && onA?.source == "redis")
            // Two more rounds of B's mark watch: the removal is not applied again.
            let round = b.hoard.sharedMarkWatchRounds
            #expect(await eventually { b.hoard.sharedMarkWatchRounds >= round + 2 })
            #expect(try b.hoard.storedBytes(forKey: "later")?.bytes == Data("after the removal".utf8))
        }
    }

    @Test("marks from a fast clock: B applies them once, at the moment it sees them, and never writes a future mark")
    func marksFromAFastClock() async throws {
        try await withMachines { a, b, server in
            try await b.hoard.store("before", forKey: "before")
            try await Task.sleep(for: .milliseconds(5))
            let ahead = Int64((Date().timeIntervalSince1970 + 120) * 1000)  // A's clock runs two minutes fast
            _ = try server.command(["SET", "hoard:v1:machines:expired-before", "\(ahead)"])
            // A loaded 2-core machine may stall B's once-a-second mark watch for tens of seconds.
            let expiredOnB = try await eventually(timeout: .seconds(180), interval: .milliseconds(50)) {
                try await b.hoard.retrieve(String.self, forKey: "before") == nil
            }
            #expect(expiredOnB, "B applies the mark within 10 s")
            let markURL = b.hoard.configuration.resolvedDirectory.appending(path: "expired-before")
            let mark = try String(contentsOf: markURL, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try #require(Double(mark)) <= Date().timeIntervalSinceReferenceDate, "never ahead of the clock")
            // What B stores afterwards stays fresh through two more rounds of its watch, and after
            // the shared key is gone.
            try await Task.sleep(for: .milliseconds(5))
            try await b.hoard.store("after", forKey: "after")
            let round = b.hoard.sharedMarkWatchRounds
            #expect(await eventually { b.hoard.sharedMarkWatchRounds >= round + 2 })
            b.hoard.clearMemory()
            #expect(try await b.hoard.retrieve(String.self, forKey: "after") == "after")
            _ = try server.command(["DEL", "hoard:v1:machines:expired-before"])
            var reopened = b.hoard.configuration
            reopened.tiers = [.disk]
            #expect(try await Hoard(configuration: reopened).retrieve(String.self, forKey: "after") == "after")
        }
    }

    @Test("a copy of a value created before A's removeAll, written back to Redis by B, is not served")
    func staleCopyAfterRemoveAll() async throws {
        try await withMachines { a, b, _ in
            try await a.hoard.store("old", forKey: "k")
            let old = try #require(try await b.tier.entry(forKey: "k"))
            // Marks are whole milliseconds, rounded down: a value from the removal's own
            // millisecond is not covered.
            try await Task.sleep(for: .milliseconds(5))
            try await a.hoard.removeAll()
            // B had not applied the removal yet and copies its old entry back into Redis.
            try await b.tier.store(old, forKey: "k")
            #expect(try await a.tier.entry(forKey: "k") == nil, "created before the removal: a miss")
        }
    }

    @Test("the encoded fetch on B reads what A stored, byte for byte")
    func encodedAcrossMachines() async throws {
        try await withMachines { a, b, _ in
            let bytes = Data((0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try await a.hoard.storeEncoded(bytes, as: Data.self, forKey: "blob")
            let runs = Fixtures.RunCounter()
            let entry = try await b.hoard.encodedEntry(Data.self, forKey: "blob") {
                runs.increment()
                return Data()
            }
            #expect(entry.value == bytes && entry.source == "redis" && runs.value == 0)
        }
    }
}
