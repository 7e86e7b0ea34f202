import Foundation
import HoardRESP
import RedisTestSupport
import Testing

@testable import HoardCore
@testable import HoardRedis

private typealias Fixtures = RedisTierFixtures

/// Numbers at the edges: a configuration whose records could not be read back, an expiry past
/// what `PXAT` takes, a shared mark far in the future, and a lease asked for far longer than a day.
@Suite("RedisTier limits")
struct RedisTierLimitsTests {
    @Test("a maximum value larger than a server's maximum reply (less 64 bytes) is refused, naming the field")
    func valueLargerThanReply() throws {
        var configuration = RedisTier.Configuration(servers: [RedisConfiguration(), RedisConfiguration(port: 6380)])
        configuration.servers[1].maximumReplyByteCount = 1 << 20
        configuration.maximumValueByteCount = (1 << 20) - 64
        try configuration.validate()
        configuration.maximumValueByteCount += 1
        #expect {
            try configuration.validate()
        } throws: { error in
            guard case .invalidValue(let invalid) = error as? RedisTierError else { return false }
            return invalid.field == "RedisTier.Configuration.maximumValueByteCount" && invalid.value == "\((1 << 20) - 63)"
        }
        #expect(throws: RedisTierError.self) { try RedisTier(configuration: configuration) }
    }

    @Test("an expiry past what PXAT takes is stored without a TTL and read back with its date; one before 1970 is not stored", .requiresRedisServer)
    func farExpiries() async throws {
        try await withRedisServer { server in
            let tier = try RedisTier(configuration: Fixtures.tierConfiguration([server], namespace: "limits"))
            defer { Task { await tier.shutdown() } }
            let createdAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let far = CacheTierEntry(
                bytes: Data("kept".utf8), createdAt: createdAt, expiresAt: Date(timeIntervalSince1970: 1e13))
            try await tier.store(far, forKey: "far")
            let key = try Fixtures.redisKey("far", namespace: "limits")
            #expect(try Fixtures.integer(["PTTL", key], on: server) == -1, "no TTL")
            #expect(try await tier.entry(forKey: "far") == far)
            let past = CacheTierEntry(
                bytes: Data("gone".utf8), createdAt: createdAt, expiresAt: Date(timeIntervalSince1970: -1e13))
            try await tier.store(past, forKey: "far")
            #expect(try !Fixtures.exists(key, on: server), "an expired value replaces nothing")
            #expect(tier.statistics.stores == 1 && tier.statistics.errors == 0)
        }
    }

    @Test("a shared mark more than five minutes ahead is ignored and logged once; one within them is taken at the moment it is seen", .requiresRedisServer)
    func futureMarks() async throws {
        try await withRedisServer { server in
            let log = Fixtures.LogRecorder()
            let tier = try RedisTier(
                configuration: Fixtures.tierConfiguration([server], namespace: "limits") {
                    $0.markRefreshInterval = .milliseconds(1)
                    $0.logger = log.logger(label: "HoardRedisTests")
                })
            defer { Task { await tier.shutdown() } }
            let createdAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) - 1)
            let stored = CacheTierEntry(bytes: Data("kept".utf8), createdAt: createdAt, expiresAt: nil)
            try await tier.store(stored, forKey: "k")
            let nowMilliseconds = Int64(Date().timeIntervalSince1970 * 1000)
            // An hour and ten days ahead, as machines with wrong clocks would publish them.
            for ahead: Int64 in [3_600_000, 864_000_000] {
                _ = try server.command(["SET", "hoard:v1:limits:removed-before", "\(nowMilliseconds + ahead)"])
                for _ in 0..<3 {
                    try await Task.sleep(for: .milliseconds(5))
                    #expect(await tier.sharedMarks()?.removedBefore == nil)
                    #expect(try await tier.entry(forKey: "k") == stored, "not taken for removed")
                }
            }
            #expect(log.lines(containing: "ahead of this machine's clock").count == 2)
            // Two minutes ahead: a fast clock. Taken at the moment it is first read, and kept there.
            let before = Date()
            _ = try server.command(["SET", "hoard:v1:limits:removed-before", "\(nowMilliseconds + 120_000)"])
            try await Task.sleep(for: .milliseconds(5))
            let taken = try #require(await tier.sharedMarks()?.removedBefore)
            #expect(taken >= before && taken <= Date(), "\(taken)")
            #expect(try await tier.entry(forKey: "k") == nil, "created before the removal")
            let later = CacheTierEntry(bytes: Data("later".utf8), createdAt: Date().addingTimeInterval(1), expiresAt: nil)
            try await tier.store(later, forKey: "later")
            for _ in 0..<3 {
                try await Task.sleep(for: .milliseconds(5))
                #expect(await tier.sharedMarks()?.removedBefore == taken)
                #expect(try await tier.entry(forKey: "later") == later, "stored after the removal was seen")
            }
        }
    }

    @Test("a fetch lease asked for longer than a day is held for a day; a negative one for a millisecond", .requiresRedisServer)
    func leaseDurations() async throws {
        try await withRedisServer { server in
            let tier = try RedisTier(configuration: Fixtures.tierConfiguration([server], namespace: "limits"))
            defer { Task { await tier.shutdown() } }
            guard case .acquired = await tier.acquireFetchLease(forKey: "long", duration: .seconds(Int64.max)) else {
                Issue.record("no lease")
                return
            }
            let ttl = try Fixtures.integer(
                ["PTTL", Fixtures.redisKey("long", namespace: "limits", suffix: ":lease")], on: server)
            #expect((86_000_000...86_400_000).contains(ttl), "\(ttl) ms")
            guard case .acquired = await tier.acquireFetchLease(forKey: "short", duration: .seconds(-5)) else {
                Issue.record("no lease")
                return
            }
            try await Task.sleep(for: .milliseconds(50))
            #expect(try !Fixtures.exists(Fixtures.redisKey("short", namespace: "limits", suffix: ":lease"), on: server))
        }
    }
}
