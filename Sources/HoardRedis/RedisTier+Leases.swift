import Foundation
import HoardCore
import HoardRESP

extension RedisTier {
    /// Deletes a lease only if it still holds the token it was taken with, atomically.
    static let compareAndDelete = RedisScript(
        """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """)

    /// Takes the lease on fetching `key` with `SET <key>:lease <token> NX PX <duration>` on the
    /// key's server; `duration` is held to 1 millisecond through 86,400 seconds.
    public func acquireFetchLease(forKey key: String, duration: Duration) async -> FetchLease {
        guard let (shard, leaseKey) = location(forKey: key, suffix: ":lease") else { return .unavailable }
        let held = min(max(duration, .milliseconds(1)), .seconds(86_400))
        let milliseconds = max(1, held.components.seconds * 1000 + held.components.attoseconds / 1_000_000_000_000_000)
        let token = Self.makeToken()
        let taken = await shard.run("SET NX") { client in
            try await client.set(
                leaseKey, to: Array(token.utf8), expiration: .after(milliseconds: milliseconds), onlyIfAbsent: true)
        }
        switch taken {
        case true?:
            counters.count { $0.leasesAcquired += 1 }
            return .acquired(token: token)
        case false?:
            counters.count { $0.leasesHeldElsewhere += 1 }
            return .heldElsewhere
        case nil:
            return .unavailable
        }
    }

    /// Releases the lease with a compare-and-delete script: a lease that expired and was taken by
    /// another worker since stays theirs.
    public func releaseFetchLease(forKey key: String, token: String) async {
        guard let (shard, leaseKey) = location(forKey: key, suffix: ":lease") else { return }
        _ = await shard.run("EVALSHA") { client in
            try await client.eval(Self.compareAndDelete, keys: [leaseKey], arguments: [RESPArgument(token)])
        }
    }

    /// Whether the lease on `key` exists; `nil` when its server fails.
    public func isFetchLeaseHeld(forKey key: String) async -> Bool? {
        guard let (shard, leaseKey) = location(forKey: key, suffix: ":lease") else { return nil }
        return await shard.run("GET") { try await $0.get(leaseKey) }.map { $0 != nil }
    }

    /// 128 random bits in hex: a lease's owner.
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let bits = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - bits.count) + bits
        }.joined()
    }
}
