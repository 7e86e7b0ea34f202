import Foundation

extension MemoryCache {
    /// Stores `value` like ``setValue(_:forKey:cost:expiry:)`` and returns how many entries the
    /// limits made it evict, counted under the same lock. For ``Hoard``'s statistics and events.
    ///
    /// - Parameters:
    ///   - expiration: When the value expires, `nil` for never; the caller has checked that it has
    ///     not already passed.
    /// - Returns: The number of entries evicted.
    /// - Complexity: O(1) amortized.
    func setValueCountingEvictions(_ value: Value, forKey key: Key, cost: Int, expiration: Date?) -> Int {
        assert(cost >= 0, "Hoard's costs are byte counts")
        return storage.withLock { storage in
            let before = storage.statistics.evictions
            storage.setValue(value, forKey: key, cost: cost, expiration: expiration)
            return storage.statistics.evictions - before
        }
    }
}
