import Foundation

/// A ``CacheTier`` that several machines share (the Redis tier): besides bytes, it lets them
/// agree on who fetches a missing value, and tells each of them about the others'
/// ``Hoard/expireAll()`` and ``Hoard/removeAll()``.
///
/// ``Hoard`` uses the first shared tier in ``Hoard/Configuration/tiers`` for both:
///
/// - **One fetch across machines.** On a full miss in
///   ``Hoard/value(forKey:policy:expiry:expirationPolicy:reset:fetch:)``, the manager asks for a
///   lease on the key. The holder fetches, stores and releases it; the others poll the tiers for
///   the value with back-off, and fetch themselves when the lease disappears without a value or
///   their wait passes the lease's duration.
/// - **Everywhere at once.** ``Hoard/expireAll()`` and ``Hoard/removeAll()`` publish their moment
///   through the tier; every ``Hoard`` using it reads the marks at most once a second and applies
///   a newer one to its local tiers.
///
/// A shared tier never throws for an unreachable server: a lease it cannot take is
/// ``FetchLease/unavailable`` (the caller fetches on its own), a mark it cannot read is `nil`.
public protocol SharedCacheTier: CacheTier {
    /// Tries to take the lease on fetching `key`, valid for `duration` unless released.
    ///
    /// - Returns: ``FetchLease/acquired(_:)`` with the token to release it with,
    ///   ``FetchLease/heldElsewhere`` when another caller holds it, ``FetchLease/unavailable``
    ///   when the tier cannot tell (its server is unreachable).
    func acquireFetchLease(forKey key: String, duration: Duration) async -> FetchLease

    /// Releases a lease taken with `token`, only if it is still that lease (a lease that expired
    /// and was taken by another caller stays theirs).
    func releaseFetchLease(forKey key: String, token: String) async

    /// Whether some caller holds the lease on `key`; `nil` when the tier cannot tell.
    func isFetchLeaseHeld(forKey key: String) async -> Bool?

    /// The latest ``Hoard/expireAll()`` and ``Hoard/removeAll()`` moments published by any
    /// machine, or `nil` when the tier cannot tell now.
    ///
    /// - Complexity: At most one round trip per second; other calls answer from memory.
    func sharedMarks() async -> SharedCacheMarks?

    /// Publishes an ``Hoard/expireAll()`` at `date` to the other machines (a later mark wins).
    func publishExpiration(before date: Date) async
}

/// The answer to ``SharedCacheTier/acquireFetchLease(forKey:duration:)``.
public enum FetchLease: Sendable, Hashable {
    /// This caller holds the lease; release it with this token.
    case acquired(token: String)
    /// Another caller (on this machine or another) holds it.
    case heldElsewhere
    /// The tier cannot tell: fetch without one.
    case unavailable
}

/// The cache-wide moments a ``SharedCacheTier`` publishes.
public struct SharedCacheMarks: Sendable, Hashable {
    /// Values stored before this moment have expired (an ``Hoard/expireAll()`` somewhere).
    public var expiredBefore: Date?
    /// Values stored before this moment were removed (a ``Hoard/removeAll()`` somewhere).
    public var removedBefore: Date?

    /// Marks with the given moments.
    public init(expiredBefore: Date? = nil, removedBefore: Date? = nil) {
        self.expiredBefore = expiredBefore
        self.removedBefore = removedBefore
    }
}
