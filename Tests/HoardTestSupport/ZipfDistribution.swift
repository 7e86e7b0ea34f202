import Foundation

/// Ranks drawn with Zipf's law: rank *k* (from 0) has probability proportional to 1 / (*k* + 1)^*s*.
///
/// Sampling inverts the cumulative distribution with a binary search, so it is exact for any skew
/// (including 1) at O(log *n*) per sample.
public struct ZipfDistribution: Sendable {
    /// How many ranks there are.
    public let keyCount: Int
    /// The exponent *s*.
    public let skew: Double
    /// `cumulative[k]` is the probability of a rank at most `k`.
    private let cumulative: [Double]

    /// The distribution over `keyCount` ranks with exponent `skew`.
    public init(keyCount: Int, skew: Double) {
        precondition(keyCount > 0, "a Zipf distribution needs at least one key")
        self.keyCount = keyCount
        self.skew = skew
        var cumulative: [Double] = []
        cumulative.reserveCapacity(keyCount)
        var sum = 0.0
        for rank in 1...keyCount {
            sum += 1 / pow(Double(rank), skew)
            cumulative.append(sum)
        }
        self.cumulative = cumulative.map { $0 / sum }
    }

    /// A rank in `0..<keyCount`; rank 0 is the most popular.
    public func sample(using generator: inout some RandomNumberGenerator) -> Int {
        let target = Double.random(in: 0..<1, using: &generator)
        var low = 0
        var high = keyCount - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] > target {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }

    /// `length` ranks drawn from the distribution with a generator seeded by `seed`.
    public func trace(length: Int, seed: UInt64) -> [Int] {
        var generator = SplitMix64(seed: seed)
        return (0..<length).map { _ in sample(using: &generator) }
    }
}
