/// Rendezvous (highest random weight) hashing: each key goes to the server with the highest
/// score for it, where a score mixes the key's digest with the server's name. Every machine that
/// lists the same servers picks the same one for a key, in any order; losing a server moves only
/// its own keys (each to its next-highest server), and adding one takes a fair share from each.
///
/// ```swift
/// let servers = RendezvousHashing(serverNames: ["10.0.0.1:6379/0", "10.0.0.2:6379/0"])
/// let index = servers.server(forDigest: sha256OfKey)
/// ```
struct RendezvousHashing: Sendable {
    /// A seed per server, from its name.
    private let seeds: [UInt64]

    /// - Parameter serverNames: The servers' names, as every machine spells them.
    init(serverNames: [String]) {
        seeds = serverNames.map { Self.fnv1a(Array($0.utf8)) }
    }

    /// The index of the server for a key whose SHA-256 digest is `digest` (0 with one server).
    ///
    /// - Complexity: O(servers).
    func server(forDigest digest: [UInt8]) -> Int {
        var keyBits: UInt64 = 0
        for byte in digest.prefix(8) { keyBits = keyBits << 8 | UInt64(byte) }
        var best = 0
        var bestScore: UInt64 = 0
        for (index, seed) in seeds.enumerated() {
            let score = Self.mix(keyBits ^ seed)
            if index == 0 || score > bestScore {
                best = index
                bestScore = score
            }
        }
        return best
    }

    /// SplitMix64's finalizer: every input bit affects every output bit.
    static func mix(_ value: UInt64) -> UInt64 {
        var bits = value &+ 0x9E37_79B9_7F4A_7C15
        bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
        bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
        return bits ^ (bits >> 31)
    }

    /// 64-bit FNV-1a: stable across processes and machines (Swift's `Hasher` is seeded per process).
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
