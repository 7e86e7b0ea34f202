import Foundation
import HoardSystem

/// A thread-safe in-memory cache, bounded by a number of entries and a total cost, with per-entry
/// expiry and a choice of eviction policy.
///
/// Every operation takes one lock and costs O(1): entries live in arrays and are linked into the
/// eviction policy's lists by index, so nothing is allocated per lookup. When an insertion does not
/// fit in ``Configuration/countLimit`` or ``Configuration/costLimit``, entries are evicted in the
/// order of ``Configuration/evictionPolicy`` until it fits; the cache never holds more than its
/// limits. An expired entry is never returned: a lookup that finds one removes it and misses.
///
/// ```swift
/// let cache = MemoryCache<String, Data>(configuration: .init(
///     countLimit: 1_000, costLimit: 50 * 1024 * 1024, evictionPolicy: .s3fifo))
/// cache.setValue(avatar, forKey: "user/42", cost: avatar.count, expiry: .seconds(300))
/// if let bytes = cache.value(forKey: "user/42") { show(bytes) }
/// cache["banner"] = banner        // cost from the configuration, default expiry
/// cache["banner"] = nil           // removes it
/// ```
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Counters of hits, misses, evictions and expirations.
    public typealias Statistics = MemoryCacheStatistics

    /// The limits, policy and defaults the cache was created with.
    public let configuration: Configuration

    /// All mutable state; touched only inside `withLock`.
    @usableFromInline
    let storage: Lock<MemoryCacheStorage<Key, Value>>

    /// Creates an empty cache.
    ///
    /// - Parameter configuration: Limits, eviction policy, default expiry, cost function and clock;
    ///   unlimited LRU without expiry by default.
    /// - Throws: ``InvalidValueError`` for a negative limit or a default expiry that is not finite.
    /// - Complexity: O(1).
    public convenience init(configuration: Configuration = .init()) throws(InvalidValueError) {
        try InvalidValueError.check(configuration.countLimit, atLeast: 0, "MemoryCache.Configuration.countLimit")
        try InvalidValueError.check(configuration.costLimit, atLeast: 0, "MemoryCache.Configuration.costLimit")
        try configuration.defaultExpiry.validate("MemoryCache.Configuration.defaultExpiry")
        self.init(validated: configuration)
    }

    /// Creates an empty cache from a configuration already checked (``Hoard`` checks its own).
    init(validated configuration: Configuration) {
        self.configuration = configuration
        self.storage = Lock(
            MemoryCacheStorage(
                countLimit: configuration.countLimit,
                costLimit: configuration.costLimit,
                policy: configuration.evictionPolicy
            )
        )
    }

    /// Returns the value stored for `key`, unless there is none or it has expired.
    ///
    /// A hit counts as a use for the eviction policy. An expired entry is removed.
    ///
    /// ```swift
    /// if let thumbnail = cache.value(forKey: url) { return thumbnail }
    /// ```
    ///
    /// - Parameter key: The key to look up.
    /// - Returns: The value, or `nil`.
    /// - Complexity: O(1).
    @inlinable
    public func value(forKey key: Key) -> Value? {
        let now = configuration.now
        return storage.withLock { $0.value(forKey: key, now: now) }
    }

    /// Stores `value` for `key`, replacing the key's current value.
    ///
    /// When the new entry does not fit in the limits, entries are evicted in policy order until it
    /// does. Replacing a value counts as a use of the key; if the replaced entry itself is chosen
    /// for eviction while room is made, the value is stored as a new entry. A value whose cost is
    /// above ``Configuration/costLimit``, or that has already expired, is not stored, and the key's
    /// current value is removed.
    ///
    /// ```swift
    /// try cache.setValue(image, forKey: url, cost: image.pixels.count, expiry: .seconds(600))
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: The key to store it for.
    ///   - cost: The value's cost, usually its size in bytes, at least 0. When `nil`, the
    ///     configuration's ``Configuration/cost`` function decides (0 by default).
    ///   - expiry: When the value expires. When `nil`, ``Configuration/defaultExpiry`` applies.
    /// - Throws: ``InvalidValueError`` for a negative cost (given, or from the configuration's
    ///   cost function) or an expiry that is not finite; the key's current value is kept.
    /// - Complexity: O(1) amortized: each stored entry is evicted at most once.
    @inlinable
    public func setValue(
        _ value: Value, forKey key: Key, cost: Int? = nil, expiry: Expiry? = nil
    ) throws(InvalidValueError) {
        let cost = cost ?? configuration.cost(value)
        try InvalidValueError.check(cost, atLeast: 0, "MemoryCache.setValue(_:forKey:cost:expiry:) cost")
        try expiry?.validate("MemoryCache.setValue(_:forKey:cost:expiry:) expiry")
        let expiration: Date?
        switch expiry ?? configuration.defaultExpiry {
        case .never:
            expiration = nil
        case let expiry:
            let now = configuration.now()
            guard let date = expiry.expirationDate(from: now), !date.hasExpired(at: now) else {
                storage.withLock { _ = $0.removeValue(forKey: key, now: { now }) }
                return
            }
            expiration = date
        }
        storage.withLock { $0.setValue(value, forKey: key, cost: cost, expiration: expiration) }
    }

    /// Removes the value stored for `key`.
    ///
    /// - Parameter key: The key whose value to remove.
    /// - Returns: The removed value, or `nil` when there was none or it had expired.
    /// - Complexity: O(1).
    @inlinable
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        let now = configuration.now
        return storage.withLock { $0.removeValue(forKey: key, now: now) }
    }

    /// Whether an unexpired value is stored for `key`.
    ///
    /// Unlike ``value(forKey:)``, this is neither a hit nor a miss and not a use for the eviction
    /// policy. An expired entry is removed.
    ///
    /// - Parameter key: The key to look up.
    /// - Complexity: O(1).
    @inlinable
    public func containsValue(forKey key: Key) -> Bool {
        let now = configuration.now
        return storage.withLock { $0.contains(key, now: now) }
    }

    /// The value stored for `key`; assigning `nil` removes it.
    ///
    /// Reading is ``value(forKey:)``; assigning a value is ``setValue(_:forKey:cost:expiry:)`` with
    /// the configuration's cost function and default expiry. A setter cannot throw, so a value that
    /// the cost function prices below 0 is not stored (and the key's old value is removed): use
    /// `setValue` to be told.
    ///
    /// ```swift
    /// cache["greeting"] = "hello"
    /// cache["greeting"]               // "hello"
    /// cache["greeting"] = nil
    /// ```
    ///
    /// - Complexity: O(1); amortized for assignments.
    @inlinable
    public subscript(key: Key) -> Value? {
        get {
            value(forKey: key)
        }
        set {
            if let newValue {
                // A setter cannot throw: a value the cost function prices below 0 is not stored.
                do { try setValue(newValue, forKey: key) } catch { removeValue(forKey: key) }
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Removes every value. The statistics keep counting from where they were.
    ///
    /// - Complexity: O(*n*), where *n* is the number of entries.
    public func removeAll() {
        storage.withLock { $0.removeAll() }
    }

    /// Removes every expired value now rather than when it is next looked up.
    ///
    /// - Returns: The number of values removed.
    /// - Complexity: O(*n*), where *n* is the number of entries.
    @discardableResult
    public func removeExpiredValues() -> Int {
        let now = configuration.now()
        return storage.withLock { $0.removeExpiredValues(now: now) }
    }

    /// Removes every value whose key and value `shouldRemove` accepts, expired or not.
    ///
    /// ```swift
    /// cache.removeValues { key, _ in key.hasPrefix("https://example.com/a.jpg ") }
    /// ```
    ///
    /// - Parameter shouldRemove: Called once per entry, under the cache's lock: keep it quick, and
    ///   do not call back into the cache.
    /// - Returns: The keys of the values removed.
    /// - Complexity: O(*n*), where *n* is the number of entries.
    @discardableResult
    public func removeValues(where shouldRemove: @Sendable (Key, Value) -> Bool) -> [Key] {
        storage.withLock { $0.removeValues(where: shouldRemove) }
    }

    /// The number of entries, including expired ones that have not been looked up yet.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var count: Int {
        storage.withLock { $0.count }
    }

    /// The sum of the entries' costs, including expired ones that have not been looked up yet.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var totalCost: Int {
        storage.withLock { $0.totalCost }
    }

    /// A snapshot of the counters since the cache was created.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var statistics: Statistics {
        storage.withLock { $0.statistics }
    }

    /// Runs `body` on the state under the lock. For tests.
    func withStorage<Result: Sendable>(_ body: (inout MemoryCacheStorage<Key, Value>) -> Result) -> Result {
        storage.withLock { body(&$0) }
    }
}
