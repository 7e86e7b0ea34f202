import Hoard
import HoardSystem
import Testing

@testable import HoardRedis

/// Rendezvous hashing: every machine picks the same server for a key, the share is fair, and
/// losing a server moves only its own keys.
@Suite("RendezvousHashing")
struct RendezvousHashingTests {
    static let servers = ["10.0.0.1:6379/0", "10.0.0.2:6379/0", "10.0.0.3:6379/0"]

    /// `count` random-looking keys' digests, as the tier hashes them: the SHA-256 of
    /// `"<seed>/key-<n>"` (the same on every run).
    static func digests(_ count: Int, seed: Int = 0) -> [[UInt8]] {
        (0..<count).compactMap { SHA256.hash(Array("\(seed)/key-\($0)".utf8)) }
    }

    /// The server's name that `hashing` over `names` picks for `digest`.
    static func pick(_ names: [String], _ digest: [UInt8]) -> String {
        names[RendezvousHashing(serverNames: names).server(forDigest: digest)]
    }

    @Test("every order of the same servers picks the same server for each key")
    func orderIndependent() {
        let orders = [
            Self.servers, [Self.servers[2], Self.servers[0], Self.servers[1]],
            [Self.servers[1], Self.servers[2], Self.servers[0]], Self.servers.reversed(),
        ]
        var picked: Set<String> = []
        for digest in Self.digests(1_000) {
            let choices = Set(orders.map { Self.pick($0, digest) })
            #expect(choices.count == 1, "one server for \(digest.prefix(8)) in every order: \(choices)")
            picked.formUnion(choices)
        }
        #expect(picked == Set(Self.servers), "every server is picked for some key")
    }

    @Test("with one server, every key goes to it")
    func oneServer() {
        let hashing = RendezvousHashing(serverNames: ["only:6379/0"])
        #expect(Self.digests(100).count == 100)
        #expect(Self.digests(100).allSatisfy { hashing.server(forDigest: $0) == 0 })
    }

    @Test("three servers over 3000 random keys: each gets between 25% and 42%")
    func fairShare() {
        let hashing = RendezvousHashing(serverNames: Self.servers)
        var counts = [0, 0, 0]
        for digest in Self.digests(3_000, seed: 42) { counts[hashing.server(forDigest: digest)] += 1 }
        #expect(counts.reduce(0, +) == 3_000)
        for (server, count) in zip(Self.servers, counts) {
            #expect((750...1_260).contains(count), "\(server) got \(count) of 3000 keys: \(counts)")
        }
    }

    @Test("removing a server moves only the keys that were on it, and spreads them over the others")
    func removalMovesOnlyItsKeys() {
        let removed = Self.servers[1]
        let remaining = Self.servers.filter { $0 != removed }
        var moved: [String: Int] = [:]
        var stayed = 0
        for digest in Self.digests(3_000, seed: 7) {
            let before = Self.pick(Self.servers, digest)
            let after = Self.pick(remaining, digest)
            if before == removed {
                moved[after, default: 0] += 1
            } else {
                #expect(after == before, "a key on \(before) moved to \(after)")
                stayed += 1
            }
        }
        #expect(stayed > 0 && moved.values.reduce(0, +) + stayed == 3_000)
        for server in remaining {
            #expect(moved[server, default: 0] > 100, "the removed server's keys are shared: \(moved)")
        }
    }

    @Test("adding a server takes keys only onto itself")
    func additionTakesOnlyOntoItself() {
        let added = "10.0.0.4:6379/0"
        for digest in Self.digests(3_000, seed: 9) {
            let before = Self.pick(Self.servers, digest)
            let after = Self.pick(Self.servers + [added], digest)
            #expect(after == before || after == added, "a key moved from \(before) to \(after)")
        }
    }
}
