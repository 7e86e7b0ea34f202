import Testing

@testable import HoardCore

/// Replays a trace of keys on a ``MemoryCache``: each request reads the key and, on a miss,
/// stores it (cost 0, count-limited), as a read-through cache would.
enum HitRatioSimulation {
    struct Configuration: CustomTestStringConvertible, Sendable {
        var skew: Double
        /// The cache size as a share of the key space, in percent.
        var cachePercentage: Int

        var testDescription: String { "Zipf \(skew), cache \(cachePercentage)% of the keys" }
    }

    /// The four configurations of the hit-ratio comparison: skew 0.8 and 1.0, cache 1% and 10%.
    static let configurations: [Configuration] = [0.8, 1.0].flatMap { skew in
        [1, 10].map { Configuration(skew: skew, cachePercentage: $0) }
    }

    /// The hit ratio of `policy` on `trace` with room for `capacity` entries.
    static func hitRatio(policy: EvictionPolicy, capacity: Int, trace: [Int]) throws -> Double {
        let cache = try MemoryCache<Int, Int>(configuration: .init(countLimit: capacity, evictionPolicy: policy))
        for key in trace where cache.value(forKey: key) == nil {
            try cache.setValue(key, forKey: key)
        }
        return cache.statistics.hitRatio
    }
}
