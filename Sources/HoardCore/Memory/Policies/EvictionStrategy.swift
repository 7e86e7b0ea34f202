/// The bookkeeping behind one ``EvictionPolicy``: which tracked entry to evict next.
///
/// A strategy knows entries only by the slot the cache stores them in. The cache tells it about
/// every insertion, access and removal, and asks it for a victim while an insertion does not fit.
/// Every operation is O(1) (amortized, where arrays grow).
///
/// The cache calls ``evict()`` *before* it inserts a new entry, never after, so a new entry is never
/// its own victim.
///
/// `@usableFromInline` because ``MemoryCache``'s inlinable operations call it; the strategies
/// themselves are not generic and stay compiled in this module.
@usableFromInline
protocol EvictionStrategy {
    /// The number of entries the strategy tracks.
    var count: Int { get }

    /// Starts tracking the entry just stored in `slot`.
    ///
    /// - Parameters:
    ///   - slot: A slot the strategy does not track.
    ///   - fingerprint: A hash of the entry's key, for strategies that remember evicted keys.
    mutating func insert(_ slot: Int, fingerprint: @autoclosure () -> Int)

    /// Records a hit on, or an overwrite of, the entry in `slot`.
    mutating func access(_ slot: Int)

    /// Stops tracking the entry in `slot` because it was removed, expired or rejected. This is not
    /// an eviction: strategies that remember evicted keys do not remember this one.
    mutating func remove(_ slot: Int)

    /// Chooses the next victim, stops tracking it, and returns its slot.
    ///
    /// - Returns: The victim's slot, or `nil` when the strategy tracks nothing.
    mutating func evict() -> Int?

    /// Stops tracking every entry and forgets any other history.
    mutating func removeAll()
}

extension EvictionPolicy {
    /// A new, empty strategy that implements this policy.
    func makeStrategy() -> any EvictionStrategy {
        switch self {
        case .lru:
            LRUStrategy()
        case .fifo:
            FIFOStrategy()
        case .lfu:
            LFUStrategy()
        case .s3fifo:
            S3FIFOStrategy()
        }
    }
}
