import Foundation
import HoardRESP
import HoardTestSupport
import RedisTestSupport
import Testing

@testable import HoardCore
@testable import HoardRedis

private typealias Fixtures = RedisTierFixtures

/// The Redis tier on its own against a server of its own: where values go, their TTLs, and what
/// it does with values it cannot vouch for. Every check reads the server back with commands of
/// its own.
@Suite("RedisTier", .requiresRedisServer)
struct RedisTierTests {
    /// An entry of `bytes` created now (to the whole second, so that its dates in milliseconds
    /// are exact), expiring `seconds` from then (never for `nil`).
    static func entry(_ bytes: [UInt8], expiresIn seconds: Double? = 3_600) -> CacheTierEntry {
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        return CacheTierEntry(bytes: Data(bytes), createdAt: now, expiresAt: seconds.map { now.addingTimeInterval($0) })
    }

    /// Runs `body` with a tier over its own server, then shuts the tier down.
    private func withTier(
        namespace: String = "tier-tests", timeout: Duration = .seconds(5),
        configure: (inout RedisTier.Configuration) -> Void = { _ in },
        _ body: (RedisTier, RedisServer, Fixtures.LogRecorder) async throws -> Void
    ) async throws {
        try await withRedisServer { server in
            let log = Fixtures.LogRecorder()
            let configuration = try Fixtures.tierConfiguration([server], namespace: namespace, timeout: timeout) {
                $0.logger = log.logger(label: "HoardRedisTests")
                configure(&$0)
            }
            let tier = try RedisTier(configuration: configuration)
            do {
                try await body(tier, server, log)
            } catch {
                await tier.shutdown()
                throw error
            }
            await tier.shutdown()
        }
    }

    @Test("the test's SHA-256 helper matches the known vectors")
    func sha256Vectors() throws {
        #expect(try Fixtures.sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try Fixtures.sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("a value's key is hoard:v1:<namespace>:{<lowercase hex SHA-256 of the key>}, and nothing else is written")
    func keyLayout() async throws {
        try await withTier(namespace: "ns-1") { tier, server, _ in
            let stored = Self.entry(Array("value of abc".utf8))
            try await tier.store(stored, forKey: "abc")
            try await tier.store(Self.entry(Array("value of nothing".utf8)), forKey: "")
            let abc = "hoard:v1:ns-1:{ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad}"
            let empty = "hoard:v1:ns-1:{e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855}"
            #expect(try Fixtures.exists(abc, on: server))
            #expect(try Fixtures.exists(empty, on: server))
            let keys = try server.command(["KEYS", "*"]).split(separator: "\n").map(String.init)
            #expect(Set(keys) == [abc, empty], "only the two values: \(keys)")
            // The value under that key is the record, which decodes to the entry stored.
            let bytes = try await withClient(for: server) { try await $0.get(RESPArgument(abc)) }
            #expect(CacheRecord.decode(try #require(bytes), forKey: "abc") == .success(stored))
            #expect(try await tier.entry(forKey: "abc") == stored, "bytes and both dates")
            // A key with a non-ASCII character hashes its UTF-8.
            try await tier.store(Self.entry([1, 2, 3]), forKey: "clé/🙂")
            #expect(try Fixtures.exists(Fixtures.redisKey("clé/🙂", namespace: "ns-1"), on: server))
            #expect(tier.statistics.stores == 3 && tier.statistics.errors == 0)
        }
    }

    @Test("two namespaces on one server do not share values")
    func namespacesAreSeparate() async throws {
        try await withTier(namespace: "first") { first, server, _ in
            let second = try RedisTier(configuration: Fixtures.tierConfiguration([server], namespace: "second"))
            try await first.store(Self.entry(Array("one".utf8)), forKey: "k")
            #expect(try await second.entry(forKey: "k") == nil)
            #expect(try Fixtures.exists(Fixtures.redisKey("k", namespace: "first"), on: server))
            #expect(try !Fixtures.exists(Fixtures.redisKey("k", namespace: "second"), on: server))
            await second.shutdown()
        }
    }

    @Test("tasks that prefer the tier's executor run on its event loop, and read what tasks on the pool stored")
    func tasksOnTheTiersLoop() async throws {
        try await withTier { tier, _, _ in
            let executor = try #require(tier.taskExecutor as? EventLoopTaskExecutor)
            for index in 0..<16 {
                try await tier.store(Self.entry(everyByteValue(count: 1_000 + index)), forKey: "key-\(index)")
            }
            let results = try await withThrowingTaskGroup(of: (Int, Data?, Bool).self) { group in
                for index in 0..<16 {
                    group.addTask(executorPreference: tier.taskExecutor) {
                        let entry = try await tier.entry(forKey: "key-\(index)")
                        // And a store from the loop, read back below from the pool.
                        try await tier.store(Self.entry([UInt8(index)]), forKey: "from-loop-\(index)")
                        return (index, entry?.bytes, executor.eventLoop.inEventLoop)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 16)
            for (index, bytes, onLoop) in results {
                #expect(bytes == Data(everyByteValue(count: 1_000 + index)), "key-\(index)")
                #expect(onLoop, "key-\(index) resumed off the tier's event loop")
                #expect(try await tier.entry(forKey: "from-loop-\(index)")?.bytes == Data([UInt8(index)]))
            }
        }
    }

    @Test("an expiry becomes PXAT: the key expires at that millisecond")
    func expiryIsPXAT() async throws {
        try await withTier { tier, server, _ in
            let entry = Self.entry(Array("expiring".utf8), expiresIn: 120)
            let expiresAt = try #require(entry.expiresAt)
            try await tier.store(entry, forKey: "expiring")
            let key = try Fixtures.redisKey("expiring", namespace: "tier-tests")
            let expected = Int(expiresAt.timeIntervalSince1970) * 1000
            #expect(
                try Fixtures.integer(["PEXPIRETIME", key], on: server) == expected,
                "the absolute expiry, to the millisecond")
            let remaining = try Fixtures.integer(["PTTL", key], on: server)
            #expect(
                (1...120_000).contains(remaining),
                "PTTL \(remaining) ms for an expiry 120 s away (PEXPIRETIME checks it exactly)")

            // A fraction of a millisecond rounds up: the value never expires early in Redis.
            var fractional = Self.entry(Array("fraction".utf8))
            fractional.expiresAt = expiresAt.addingTimeInterval(0.000_4)
            try await tier.store(fractional, forKey: "fraction")
            #expect(
                try Fixtures.integer(
                    ["PEXPIRETIME", Fixtures.redisKey("fraction", namespace: "tier-tests")], on: server) == expected + 1
            )
        }
    }

    @Test("a value that never expires has no TTL, also when it replaces one that did")
    func neverExpires() async throws {
        try await withTier { tier, server, _ in
            let key = try Fixtures.redisKey("forever", namespace: "tier-tests")
            try await tier.store(Self.entry(Array("first".utf8), expiresIn: 60), forKey: "forever")
            #expect(try Fixtures.integer(["PTTL", key], on: server) > 0)
            let forever = Self.entry(Array("second".utf8), expiresIn: nil)
            try await tier.store(forever, forKey: "forever")
            #expect(try Fixtures.integer(["PTTL", key], on: server) == -1, "no TTL left from the earlier value")
            #expect(try await tier.entry(forKey: "forever") == forever)
        }
    }

    @Test("an entry that has already expired is not stored, and removes the key's older value")
    func alreadyExpired() async throws {
        try await withTier { tier, server, _ in
            let key = try Fixtures.redisKey("late", namespace: "tier-tests")
            try await tier.store(Self.entry(Array("live".utf8)), forKey: "late")
            #expect(try Fixtures.exists(key, on: server))
            try await tier.store(Self.entry(Array("dead".utf8), expiresIn: -5), forKey: "late")
            #expect(try !Fixtures.exists(key, on: server))
            #expect(try await tier.entry(forKey: "late") == nil)
        }
    }

    @Test("a record over maximumValueByteCount is not stored, and the key's older value is deleted")
    func oversized() async throws {
        try await withTier(configure: { $0.maximumValueByteCount = 1_024 }) { tier, server, _ in
            let key = try Fixtures.redisKey("big", namespace: "tier-tests")
            let small = Self.entry(everyByteValue(count: 200))
            try await tier.store(small, forKey: "big")
            #expect(try Fixtures.exists(key, on: server))
            #expect(try await tier.entry(forKey: "big") == small)

            try await tier.store(Self.entry(everyByteValue(count: 4_096)), forKey: "big")
            #expect(try !Fixtures.exists(key, on: server), "the older, smaller value must not outlive the new one")
            #expect(try await tier.entry(forKey: "big") == nil)
            try await tier.store(Self.entry(everyByteValue(count: 1_025)), forKey: "never stored")
            #expect(try !Fixtures.exists(Fixtures.redisKey("never stored", namespace: "tier-tests"), on: server))
            #expect(try Fixtures.integer(["DBSIZE"], on: server) == 0)

            let statistics = tier.statistics
            #expect(statistics.oversizedValues == 2 && statistics.droppedWrites == 2)
            #expect(statistics.stores == 1 && statistics.errors == 0)
        }
    }

    @Test("a record copied under another key is a miss, deleted and counted as damaged")
    func misplacedRecord() async throws {
        try await withTier { tier, server, log in
            let original = Self.entry(Array("belongs to a".utf8))
            try await tier.store(original, forKey: "a")
            try await tier.store(Self.entry(Array("belongs to b".utf8)), forKey: "b")
            let a = try Fixtures.redisKey("a", namespace: "tier-tests")
            let b = try Fixtures.redisKey("b", namespace: "tier-tests")
            #expect(try Fixtures.integer(["COPY", a, b, "REPLACE"], on: server) == 1)
            #expect(try await tier.entry(forKey: "b") == nil, "a's record under b's key")
            #expect(try !Fixtures.exists(b, on: server), "removed from Redis")
            #expect(try await tier.entry(forKey: "a") == original, "the original stays")
            let statistics = tier.statistics
            #expect(statistics.damagedValues == 1 && statistics.hits == 1 && statistics.misses == 1)
            let warning = try #require(log.lines(containing: "Removed a damaged value").first)
            #expect(warning.level == .warning && warning.metadata["key"] == "b")
        }
    }

    @Test("a truncated record is a miss and is deleted", arguments: ["all but the last byte", "half", "10 bytes"])
    func truncatedRecord(_ kept: String) async throws {
        try await withTier { tier, server, _ in
            try await tier.store(Self.entry(everyByteValue(count: 600)), forKey: "t")
            let key = try Fixtures.redisKey("t", namespace: "tier-tests")
            let record = try #require(try await withClient(for: server) { try await $0.get(RESPArgument(key)) })
            let keptByteCount =
                switch kept {
                case "half": record.count / 2
                case "10 bytes": 10
                default: record.count - 1
                }
            let prefix = Array(record.prefix(keptByteCount))
            try await withClient(for: server) { try await $0.set(RESPArgument(key), to: prefix) }
            #expect(try Fixtures.integer(["STRLEN", key], on: server) == prefix.count)
            #expect(try await tier.entry(forKey: "t") == nil)
            #expect(try !Fixtures.exists(key, on: server))
            #expect(tier.statistics.damagedValues == 1)
        }
    }

    @Test("a record with a changed byte (SETRANGE) is a miss and is deleted; so is a foreign value")
    func corruptedRecord() async throws {
        try await withTier { tier, server, _ in
            try await tier.store(Self.entry(Array(repeating: UInt8(ascii: "a"), count: 300)), forKey: "c")
            let key = try Fixtures.redisKey("c", namespace: "tier-tests")
            let length = try Fixtures.integer(["STRLEN", key], on: server)
            #expect(
                try Fixtures.integer(["SETRANGE", key, "\(length - 10)", "Z"], on: server) == length,
                "same length, one byte")
            #expect(try await tier.entry(forKey: "c") == nil)
            #expect(try !Fixtures.exists(key, on: server))

            let foreign = try Fixtures.redisKey("f", namespace: "tier-tests")
            #expect(try server.command(["SET", foreign, "written by something else"]) == "+OK")
            #expect(try await tier.entry(forKey: "f") == nil)
            #expect(try !Fixtures.exists(foreign, on: server))
            #expect(tier.statistics.damagedValues == 2 && tier.statistics.hits == 0)
        }
    }

    @Test("removeAll deletes every value and lease of the namespace, and nothing of another")
    func removeAllScope() async throws {
        try await withTier(namespace: "mine") { tier, server, _ in
            for index in 0..<1_200 { try await tier.store(Self.entry([UInt8(index % 256)]), forKey: "k\(index)") }
            _ = await tier.acquireFetchLease(forKey: "leased", duration: .seconds(60))
            #expect(try server.command(["SET", "hoard:v1:other:{x}", "theirs"]) == "+OK")
            #expect(try server.command(["SET", "unrelated", "x"]) == "+OK")
            try await tier.removeAll()
            let left = try server.command(["KEYS", "*"]).split(separator: "\n").map(String.init)
            #expect(
                Set(left) == ["hoard:v1:other:{x}", "unrelated", "hoard:v1:mine:removed-before"],
                "more than two SCAN pages removed; other namespaces kept: \(left.prefix(5))")
        }
    }

    @Test("a marks read that started before this process published a mark does not undo it")
    func staleMarksReadKeepsPublishedMark() async throws {
        // Deadlines far beyond the pause, however slow the machine: a missed one would open the
        // breaker and skip the publish, which is not what this test is about.
        try await withTier(timeout: .seconds(120), configure: { $0.markRefreshInterval = .seconds(60) }) {
            tier, server, _ in
            let removedAt = Date()
            // The server answers nothing while paused: the read begins first, the removal's mark is
            // taken after it, and the read's reply comes only once the mark is this process's. (The
            // read's command goes out first unless the publish overtakes it on the connection; then
            // the reply carries the mark, and the test still holds.)
            _ = await tier.sharedMarks()  // the connection is up before the pause
            tier.marks.withLock { $0.readAt = nil }
            server.pause()
            let read = Task { await tier.sharedMarks() }
            #expect(await eventually { tier.marks.withLock { $0.readAt != nil } }, "the read began")
            let publish = Task { await tier.publishMark(.removedBefore, date: removedAt) }
            #expect(await eventually { tier.marks.withLock { $0.marks?.removedBefore != nil } }, "the mark was taken")
            server.resume()
            _ = await read.value
            await publish.value
            #expect(try server.command(["GET", "hoard:v1:tier-tests:removed-before"]) != "(nil)")
            let marks = await tier.sharedMarks()  // from memory: the refresh interval is 60 s
            let removedBefore = try #require(marks?.removedBefore, "this process's own mark is kept")
            #expect(abs(removedBefore.timeIntervalSince(removedAt)) < 0.002)
        }
    }

    @Test("a damaged value is deleted only while it is what was read: a good value stored since stays")
    func damagedDeleteComparesFirst() async throws {
        try await withRedisServer { server in
            try await withClient(for: server) { client in
                func delete(_ key: String, ifStill found: [RESPArgument]) async throws -> RESPValue {
                    try await client.eval(RedisTier.deleteIfUnchanged, keys: [RESPArgument(key)], arguments: found)
                }
                try await client.set("replaced", to: Array("good".utf8))
                #expect(try await delete("replaced", ifStill: ["string", "garbage"]) == .integer(0))
                #expect(try await client.get("replaced") == Array("good".utf8), "stored since the read")
                try await client.set("same", to: Array("garbage".utf8))
                #expect(try await delete("same", ifStill: ["string", "garbage"]) == .integer(1))
                try await client.set("empty", to: [])
                #expect(try await delete("empty", ifStill: ["string", RESPArgument([UInt8]())]) == .integer(1))
                #expect(try server.command(["RPUSH", "list", "x"]) == ":1")
                #expect(try await delete("list", ifStill: ["other"]) == .integer(1))
                try await client.set("now a string", to: Array("good".utf8))
                #expect(try await delete("now a string", ifStill: ["other"]) == .integer(0))
                #expect(try await client.databaseSize() == 2)
            }
        }
    }
}
