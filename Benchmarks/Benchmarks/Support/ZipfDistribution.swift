import Foundation

/// Ranks drawn with Zipf's law: rank `k` (from 0) comes up in proportion to `1 / (k + 1)^exponent`,
/// so a few keys take most of the traffic, as in real caches.
///
/// ```swift
/// var generator = SeededGenerator(seed: 7)
/// let zipf = ZipfDistribution(count: 100_000, exponent: 0.99)
/// let trace = (0..<1_000).map { _ in zipf.next(using: &generator) }   // mostly small ranks
/// ```
public struct ZipfDistribution: Sendable {
    /// The cumulative probability of ranks `0...k` at index `k`; the last element is 1.
    private let cumulative: [Double]

    /// Creates the distribution over `count` ranks.
    ///
    /// - Parameters:
    ///   - count: How many ranks there are, at least 1.
    ///   - exponent: The skew: 0 is uniform, about 1 is typical of web and cache traces.
    /// - Complexity: O(`count`).
    public init(count: Int, exponent: Double) {
        precondition(count > 0, "A Zipf distribution needs at least one rank, got \(count)")
        var sums = [Double]()
        sums.reserveCapacity(count)
        var total = 0.0
        for rank in 1...count {
            total += 1 / pow(Double(rank), exponent)
            sums.append(total)
        }
        cumulative = sums.map { $0 / total }
    }

    /// Draws one rank, in `0..<count`.
    ///
    /// - Parameter generator: The source of randomness.
    /// - Complexity: O(log `count`).
    public func next(using generator: inout some RandomNumberGenerator) -> Int {
        let target = Double.random(in: 0..<1, using: &generator)
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] <= target { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
