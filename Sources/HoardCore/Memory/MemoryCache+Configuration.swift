import Foundation

extension MemoryCache {
    /// The limits, eviction policy and defaults of a ``MemoryCache``.
    ///
    /// A cache never holds more than ``countLimit`` entries whose costs add up to more than
    /// ``costLimit``. The cost of an entry is whatever the caller says it is, usually its size in
    /// bytes (pixel bytes for an image, the encoded size otherwise): pass it to
    /// ``MemoryCache/setValue(_:forKey:cost:expiry:)``, or set ``cost`` to compute it from the value.
    /// Without either, every entry costs 0 and only the count limit applies.
    ///
    /// ```swift
    /// let blobs = MemoryCache<String, Data>(configuration: .init(
    ///     countLimit: 1_000,
    ///     costLimit: 64 * 1024 * 1024,        // 64 MiB
    ///     evictionPolicy: .s3fifo,
    ///     defaultExpiry: .seconds(3_600),
    ///     cost: { $0.count }))
    /// ```
    public struct Configuration: Sendable {
        /// The largest number of entries the cache holds. Zero means that it stores nothing.
        public var countLimit: Int
        /// The largest sum of entry costs the cache holds, in the unit of the costs (bytes).
        /// A value that costs more than this on its own is not stored.
        public var costLimit: Int
        /// Which entry goes first when an insertion does not fit.
        public var evictionPolicy: EvictionPolicy
        /// The expiry of entries stored without one.
        public var defaultExpiry: Expiry
        /// The cost of a value stored without an explicit cost; the default returns 0.
        ///
        /// It is called outside the cache's lock and must not be negative.
        public var cost: @Sendable (Value) -> Int
        /// The current time, for expiry. Tests inject a clock they control.
        ///
        /// It is called only for entries that expire, sometimes while the cache's lock is held:
        /// it must be cheap and must not use the cache.
        public var now: @Sendable () -> Date

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - countLimit: The largest number of entries, at least 0. Unlimited by default.
        ///   - costLimit: The largest sum of costs, at least 0. Unlimited by default.
        ///   - evictionPolicy: Which entry goes first when an insertion does not fit; LRU by default.
        ///   - defaultExpiry: The expiry of entries stored without one; ``Expiry/never`` by default.
        ///   - cost: The cost of a value stored without an explicit cost; 0 by default.
        ///   - now: The clock; the system clock by default.
        /// - Complexity: O(1).
        public init(
            countLimit: Int = .max,
            costLimit: Int = .max,
            evictionPolicy: EvictionPolicy = .lru,
            defaultExpiry: Expiry = .never,
            cost: @escaping @Sendable (Value) -> Int = { _ in 0 },
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.countLimit = countLimit
            self.costLimit = costLimit
            self.evictionPolicy = evictionPolicy
            self.defaultExpiry = defaultExpiry
            self.cost = cost
            self.now = now
        }
    }
}
