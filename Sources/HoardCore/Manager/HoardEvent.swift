import Foundation

/// Something a ``Hoard`` did: a hit, a miss, a store, a fetch, an eviction.
///
/// Observe them with ``Hoard/events(bufferingPolicy:)`` (every event) or
/// ``Hoard/events(forKey:bufferingPolicy:)`` (one key's). The same events feed
/// ``Hoard/statistics`` and the debug log.
///
/// ```swift
/// Task {
///     for await event in hoard.events() {
///         if case .fetchFailed(let key, let error) = event { report(key, error) }
///     }
/// }
/// ```
public enum HoardEvent: Sendable {
    /// Which tier an event is about: ``CacheTierIdentifier/memory``, ``CacheTierIdentifier/disk``
    /// or another tier's identifier.
    public typealias Tier = CacheTierIdentifier

    /// A read found a fresh value in `tier` (a disk hit is promoted to memory).
    case hit(key: String, tier: Tier)
    /// A read found no fresh value in either tier.
    case miss(key: String)
    /// A value was stored in both tiers; `byteCount` is its encoded size.
    case stored(key: String, byteCount: Int)
    /// The ``InsertionPolicy`` refused a value; the key's previous value was removed.
    case storeRefused(key: String, byteCount: Int)
    /// A key's value was removed, or forgotten by a `reset`.
    case removed(key: String)
    /// Every value was removed.
    case removedAll
    /// A limit made `tier` evict `count` entries.
    case evicted(tier: Tier, count: Int)
    /// A fetch for `key` started.
    case fetchStarted(key: String)
    /// A call joined the fetch already running for `key` instead of starting another.
    case fetchCoalesced(key: String)
    /// A fetch for `key` found another worker (on this machine or another) holding the shared
    /// tier's lease on it, and waited for that worker's value (see ``SharedCacheTier``).
    case waitedForSharedFetch(key: String)
    /// The fetch for `key` returned a value.
    case fetchSucceeded(key: String)
    /// The fetch for `key` threw `error` (or was cancelled: then `error` is a `CancellationError`).
    case fetchFailed(key: String, error: any Error)
    /// A fetch failed and ``CachePolicy/networkElseCache`` returned the cached value instead;
    /// `isExpired` tells whether that value had expired.
    case servedCached(key: String, isExpired: Bool)
    /// ``Hoard/expireAll()`` marked every value stored before `date` as expired.
    case expiredAll(before: Date)
    /// An entry stored as `type` no longer decodes as `type` (the type changed since it was
    /// stored): it was removed from every tier and the read was a miss. `reason` is the decoder's
    /// message.
    case undecodableRemoved(key: String, type: String, reason: String)

    /// The key the event is about, or `nil` for events about the whole cache.
    public var key: String? {
        switch self {
        case .hit(let key, _), .miss(let key), .stored(let key, _), .storeRefused(let key, _), .removed(let key),
            .fetchStarted(let key), .fetchCoalesced(let key), .waitedForSharedFetch(let key), .fetchSucceeded(let key), .fetchFailed(let key, _),
            .servedCached(let key, _), .undecodableRemoved(let key, _, _):
            key
        case .removedAll, .evicted, .expiredAll:
            nil
        }
    }
}

extension HoardEvent: CustomStringConvertible {
    /// The event in words, for logs: `hit "avatar/42" in memory`.
    public var description: String {
        switch self {
        case .hit(let key, let tier): "hit \"\(key)\" in \(tier)"
        case .miss(let key): "miss \"\(key)\""
        case .stored(let key, let byteCount): "stored \"\(key)\" (\(byteCount) bytes)"
        case .storeRefused(let key, let byteCount): "insertion policy refused \"\(key)\" (\(byteCount) bytes)"
        case .removed(let key): "removed \"\(key)\""
        case .removedAll: "removed every value"
        case .evicted(let tier, let count): "evicted \(count) from \(tier)"
        case .fetchStarted(let key): "fetch started for \"\(key)\""
        case .fetchCoalesced(let key): "joined the running fetch for \"\(key)\""
        case .waitedForSharedFetch(let key): "waited for another worker's fetch of \"\(key)\""
        case .fetchSucceeded(let key): "fetch succeeded for \"\(key)\""
        case .fetchFailed(let key, let error): "fetch failed for \"\(key)\": \(error)"
        case .servedCached(let key, let isExpired):
            "fetch failed, served the cached \(isExpired ? "expired " : "")value of \"\(key)\""
        case .expiredAll(let date): "expired every value stored before \(date)"
        case .undecodableRemoved(let key, let type, let reason):
            "removed \"\(key)\": it no longer decodes as \(type) (\(reason))"
        }
    }
}
