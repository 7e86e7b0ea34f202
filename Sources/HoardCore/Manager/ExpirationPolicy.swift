import Foundation
import HoardSystem

/// An age after which a cached value counts as expired when it is read, on top of each entry's
/// own ``Expiry``.
///
/// Set it for a whole cache with ``Hoard/Configuration/expirationPolicy``, or for one call with the
/// `expirationPolicy:` parameter of the fetching methods, which replaces the cache's. The age is
/// measured from when the value was stored (``CacheEntry/cachedAt``), by the cache's clock. A value
/// past it is a miss for that read, but stays stored: a call with a longer age may still use it,
/// and ``CachePolicy/networkElseCache`` falls back to it when its fetch fails.
///
/// ```swift
/// var configuration = Hoard.Configuration(name: "feeds")
/// configuration.expirationPolicy = .olderThan(300)          // five minutes, for every read
/// let feeds = try Hoard(configuration: configuration)
/// let latest = try await feeds.value(forKey: "news", expirationPolicy: .olderThan(30)) {
///     try await loadNews()                                   // this call wants 30 s at most
/// }
/// ```
public enum ExpirationPolicy: Sendable, Hashable {
    /// Values never expire by age; only their ``Expiry`` and ``Hoard/expireAll()`` apply.
    case never
    /// A value stored this many seconds ago or more has expired. Zero or less expires every value.
    case olderThan(TimeInterval)

    /// Whether a value stored at `cachedAt` has expired at `now` under this policy.
    ///
    /// - Complexity: O(1).
    func hasExpired(cachedAt: Date, now: Date) -> Bool {
        switch self {
        case .never:
            false
        case .olderThan(let seconds):
            now.timeIntervalSince(cachedAt) >= seconds
        }
    }
}

extension ExpirationPolicy {
    /// Checks that an age limit is finite and not negative.
    ///
    /// - Throws: ``InvalidValueError`` naming `field`.
    func validate(_ field: String) throws(InvalidValueError) {
        if case .olderThan(let seconds) = self, !(seconds.isFinite && seconds >= 0) {
            throw InvalidValueError(
                field: field, value: ".olderThan(\(seconds))", requirement: "a finite age of at least 0 seconds")
        }
    }
}
