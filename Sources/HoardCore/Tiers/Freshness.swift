import Foundation

/// What counts as fresh for one read: the entry's own expiry, the age limit of the
/// ``ExpirationPolicy`` in force, and the ``Hoard/expireAll()`` mark.
struct Freshness {
    /// The read's time.
    let now: Date
    let policy: ExpirationPolicy
    /// Entries stored before it are expired.
    let mark: Date?

    /// Whether an entry stored at `cachedAt`, expiring at `expiresAt`, is fresh now.
    func isFresh(cachedAt: Date, expiresAt: Date?) -> Bool {
        if let expiresAt, expiresAt.hasExpired(at: now) { return false }
        if let mark, cachedAt < mark { return false }
        return !policy.hasExpired(cachedAt: cachedAt, now: now)
    }
}
