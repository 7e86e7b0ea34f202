/// When ``Hoard/value(forKey:policy:expiry:expirationPolicy:reset:fetch:)`` reads the cache and
/// when it runs the fetch.
///
/// Every fetch goes through the cache's one-request-per-key gate: concurrent calls for a key share
/// one running fetch. A fetched value is stored (unless the ``InsertionPolicy`` refuses it), and a
/// failure to store it is logged, never thrown: the caller still gets the value.
///
/// ```swift
/// let avatar = try await hoard.value(forKey: url.absoluteString) { try await download(url) }
/// let live = try await hoard.value(forKey: "prices", policy: .networkElseCache) { try await prices() }
/// let cached = try await hoard.value(forKey: "prices", policy: .cacheOnly) { try await prices() }
/// for try await feed in hoard.values(forKey: "feed", fetch: loadFeed) { show(feed) }   // cacheThenFetch
/// ```
public enum CachePolicy: Sendable, Hashable, CaseIterable {
    /// The cached value when there is a fresh one, else fetch and store. The default.
    case cacheElseFetch
    /// The fresh cached value (if any) first, then the fetched one.
    ///
    /// Use ``Hoard/values(forKey:expiry:expirationPolicy:fetch:)`` or
    /// ``Hoard/entries(forKey:expiry:expirationPolicy:fetch:)`` to receive both as a stream.
    /// ``Hoard/value(forKey:policy:expiry:expirationPolicy:reset:fetch:)`` with this policy returns
    /// the last value the stream would yield: the fetched one (like ``networkOnly``).
    case cacheThenFetch
    /// Always fetch and store the result; the cache is never read.
    case networkOnly
    /// Never fetch: the fresh cached value, or ``HoardError/notCached(key:)``.
    case cacheOnly
    /// Fetch and store; when the fetch fails, return the cached value even if it has expired
    /// (marked ``CacheEntry/isStale``), and only when there is none, throw the fetch's error.
    case networkElseCache
}

extension CachePolicy: CustomStringConvertible {
    /// The case's name, for logs: `"cacheElseFetch"`.
    public var description: String {
        switch self {
        case .cacheElseFetch: "cacheElseFetch"
        case .cacheThenFetch: "cacheThenFetch"
        case .networkOnly: "networkOnly"
        case .cacheOnly: "cacheOnly"
        case .networkElseCache: "networkElseCache"
        }
    }
}
