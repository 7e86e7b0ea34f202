import Foundation

/// The state of a ``MemoryCache``: its entries, key index, eviction strategy and counters.
///
/// Not thread-safe on its own: ``MemoryCache`` keeps it in a `Mutex` and touches it only inside
/// `withLock`. Entries live in a ``Slab`` and are known by slot to the index and to the strategy,
/// so every operation is a few array accesses and one dictionary access.
///
/// The invariants, checked by ``invariantViolations()``: the index, the slab and the strategy
/// track the same entries, `count <= countLimit`, and `totalCost` is the sum of the costs,
/// `<= costLimit`.
///
/// Why `@usableFromInline` and `@inlinable`: the cache's operations are inlinable so that a client
/// module specializes them for its `Key` and `Value`. Unspecialized, every operation looks up
/// generic type metadata several times and runs several times slower (the DocC article "Measurements
/// behind the design", "Figures behind the source's choices").
/// None of this is API: `@usableFromInline` symbols stay internal.
@usableFromInline
struct MemoryCacheStorage<Key: Hashable, Value> {
    /// One cached value.
    @usableFromInline
    struct Entry {
        @usableFromInline var key: Key
        @usableFromInline var value: Value
        @usableFromInline var cost: Int
        /// When the entry expires; `nil` for never.
        @usableFromInline var expiration: Date?

        @inlinable
        init(key: Key, value: Value, cost: Int, expiration: Date?) {
            self.key = key
            self.value = value
            self.cost = cost
            self.expiration = expiration
        }

        @inlinable
        func hasExpired(now: () -> Date) -> Bool {
            guard let expiration else { return false }
            return expiration.hasExpired(at: now())
        }
    }

    @usableFromInline let countLimit: Int
    @usableFromInline let costLimit: Int
    /// The slot of each key's entry.
    @usableFromInline var slotOfKey: [Key: Int]
    @usableFromInline var entries: Slab<Entry>
    @usableFromInline var strategy: any EvictionStrategy
    /// The sum of the entries' costs.
    @usableFromInline var totalCost: Int
    @usableFromInline var statistics: MemoryCacheStatistics

    /// The number of entries, expired or not.
    @inlinable
    var count: Int { entries.count }

    init(countLimit: Int, costLimit: Int, policy: EvictionPolicy) {
        assert(countLimit >= 0 && costLimit >= 0, "MemoryCache.init checks the limits")
        self.countLimit = countLimit
        self.costLimit = costLimit
        self.slotOfKey = [:]
        self.entries = Slab()
        self.strategy = policy.makeStrategy()
        self.totalCost = 0
        self.statistics = MemoryCacheStatistics()
    }

    /// Returns the unexpired value for `key` and records the hit, or records a miss.
    @inlinable
    mutating func value(forKey key: Key, now: () -> Date) -> Value? {
        guard let slot = slotOfKey[key] else {
            statistics.misses += 1
            return nil
        }
        // The fields are read where they lie (`entries[slot].field`), not through a copy of the
        // whole entry, which retained and released its key as well as the value returned.
        if entries[slot].hasExpired(now: now) {
            removeEntry(at: slot)
            statistics.expirations += 1
            statistics.misses += 1
            return nil
        }
        statistics.hits += 1
        strategy.access(slot)
        return entries[slot].value
    }

    /// Whether an unexpired entry exists for `key`, without counting a lookup or a use.
    @inlinable
    mutating func contains(_ key: Key, now: () -> Date) -> Bool {
        guard let slot = slotOfKey[key] else { return false }
        if entries[slot].hasExpired(now: now) {
            removeEntry(at: slot)
            statistics.expirations += 1
            return false
        }
        return true
    }

    /// Stores `value`, evicting entries in policy order until it fits.
    ///
    /// A value that can never fit (its cost is above the cost limit, or the count limit is 0)
    /// is not stored, and the key's current entry is removed.
    @inlinable
    mutating func setValue(_ value: Value, forKey key: Key, cost: Int, expiration: Date?) {
        guard cost <= costLimit, countLimit > 0 else {
            if let slot = slotOfKey[key] {
                removeEntry(at: slot)
            }
            return
        }
        if let slot = slotOfKey[key], replaceValue(in: slot, with: value, cost: cost, expiration: expiration) {
            return
        }
        while count >= countLimit || totalCost > costLimit - cost {
            guard evictOne() else { break }
        }
        let slot = entries.insert(Entry(key: key, value: value, cost: cost, expiration: expiration))
        slotOfKey[key] = slot
        totalCost += cost
        strategy.insert(slot, fingerprint: key.hashValue)
    }

    /// Removes the entry for `key`.
    ///
    /// - Returns: The removed value, unless there was none or it had expired.
    @inlinable
    @discardableResult
    mutating func removeValue(forKey key: Key, now: () -> Date) -> Value? {
        guard let slot = slotOfKey[key] else { return nil }
        let entry = removeEntry(at: slot)
        return entry.hasExpired(now: now) ? nil : entry.value
    }

    /// Removes every entry; the statistics remain.
    mutating func removeAll() {
        slotOfKey.removeAll()
        entries.removeAll()
        strategy.removeAll()
        totalCost = 0
    }

    /// Removes every expired entry and returns how many there were.
    mutating func removeExpiredValues(now: Date) -> Int {
        let expired = slotOfKey.values.filter { entries[$0].hasExpired(now: { now }) }
        for slot in expired {
            removeEntry(at: slot)
        }
        statistics.expirations += expired.count
        return expired.count
    }

    /// Removes every entry whose key and value `shouldRemove` accepts; returns their keys.
    mutating func removeValues(where shouldRemove: @Sendable (Key, Value) -> Bool) -> [Key] {
        let chosen = slotOfKey.filter { shouldRemove($0.key, entries[$0.value].value) }
        for slot in chosen.values {
            removeEntry(at: slot)
        }
        return Array(chosen.keys)
    }

    // MARK: - Helpers

    /// Replaces the value of the entry in `slot`, counting it as a use, after evicting what the
    /// new cost needs.
    ///
    /// - Returns: `false` when the entry itself was the policy's victim; the caller then inserts
    ///   the value as a new entry.
    @inlinable
    mutating func replaceValue(in slot: Int, with value: Value, cost: Int, expiration: Date?) -> Bool {
        strategy.access(slot)
        while totalCost - entries[slot].cost > costLimit - cost {
            guard let victim = strategy.evict() else { break }
            evictEntry(at: victim)
            if victim == slot {
                return false
            }
        }
        var entry = entries[slot]
        totalCost += cost - entry.cost
        entry.value = value
        entry.cost = cost
        entry.expiration = expiration
        entries[slot] = entry
        return true
    }

    /// Asks the strategy for a victim and removes it.
    ///
    /// - Returns: `false` when there was nothing to evict.
    @inlinable
    mutating func evictOne() -> Bool {
        guard let victim = strategy.evict() else { return false }
        evictEntry(at: victim)
        return true
    }

    /// Removes the entry in `slot`, which the strategy already stopped tracking, as an eviction.
    @inlinable
    mutating func evictEntry(at slot: Int) {
        let entry = entries.remove(at: slot)
        slotOfKey[entry.key] = nil
        totalCost -= entry.cost
        statistics.evictions += 1
    }

    /// Removes the entry in `slot` from the index, the slab and the strategy.
    @inlinable
    @discardableResult
    mutating func removeEntry(at slot: Int) -> Entry {
        strategy.remove(slot)
        let entry = entries.remove(at: slot)
        slotOfKey[entry.key] = nil
        totalCost -= entry.cost
        return entry
    }
}
