/// Counters of a ``MemoryCache`` since it was created: a snapshot.
///
/// ```swift
/// let statistics = cache.statistics
/// print("hit ratio \(statistics.hitRatio), \(statistics.evictions) evictions")
/// ```
public struct MemoryCacheStatistics: Sendable, Hashable {
    /// Lookups that returned a value.
    public var hits: Int
    /// Lookups that returned `nil`, including those that found an expired entry.
    public var misses: Int
    /// Entries removed by the eviction policy to make room for an insertion.
    public var evictions: Int
    /// Entries removed because they were found expired.
    public var expirations: Int

    /// Creates a snapshot with the given counters.
    ///
    /// - Complexity: O(1).
    public init(hits: Int = 0, misses: Int = 0, evictions: Int = 0, expirations: Int = 0) {
        self.hits = hits
        self.misses = misses
        self.evictions = evictions
        self.expirations = expirations
    }

    /// Hits divided by lookups, or 0 before the first lookup.
    ///
    /// - Complexity: O(1).
    public var hitRatio: Double {
        let lookups = hits + misses
        return lookups == 0 ? 0 : Double(hits) / Double(lookups)
    }
}

extension MemoryCacheStatistics: CustomStringConvertible {
    /// The counters in words, for logs: "12 hits, 3 misses, 1 evictions, 0 expirations".
    public var description: String {
        "\(hits) hits, \(misses) misses, \(evictions) evictions, \(expirations) expirations"
    }
}
