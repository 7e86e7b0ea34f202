import Foundation

extension Hoard {
    /// The cached value for `key`, if there is a fresh one, then the fetched one: the
    /// ``CachePolicy/cacheThenFetch`` policy as a stream.
    ///
    /// Show something at once and update it when the fetch returns. The fetch always runs (shared
    /// with concurrent calls for the key, like every fetch) and its value is stored. The stream
    /// yields at most two values and then finishes; when the fetch fails, it throws the fetch's
    /// error after the cached value (if any). An expired cached value is not yielded. Stopping the
    /// iteration (or cancelling its task) stops waiting for the fetch.
    ///
    /// ```swift
    /// for try await feed in hoard.values(forKey: "feed", fetch: { try await loadFeed() }) {
    ///     render(feed)        // the cached feed first (if any), then the fresh one
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - expiry: The expiry of the fetched value; `nil` means ``Configuration/defaultExpiry``.
    ///   - expirationPolicy: The age limit of the cached value; `nil` means
    ///     ``Configuration/expirationPolicy``.
    ///   - fetch: Produces the fresh value.
    /// - Returns: A stream of one or two values.
    public func values<T: Cachable>(
        forKey key: String, expiry: Expiry? = nil, expirationPolicy: ExpirationPolicy? = nil,
        fetch: @escaping @Sendable () async throws -> T
    ) -> AsyncThrowingStream<T, any Error> {
        cacheThenFetch(forKey: key, expiry: expiry, expirationPolicy: expirationPolicy, fetch: fetch) { $0.value }
    }

    /// The cached entry for `key`, if there is a fresh one, then the fetched one; see
    /// ``values(forKey:expiry:expirationPolicy:fetch:)``.
    ///
    /// The first entry's ``CacheEntry/source`` is ``CacheEntry/Source/memory`` or
    /// ``CacheEntry/Source/disk``, the last one's ``CacheEntry/Source/fetch``.
    ///
    /// ```swift
    /// for try await entry in hoard.entries(forKey: "feed", fetch: { try await loadFeed() }) {
    ///     render(entry.value, updating: entry.source != .fetch)
    /// }
    /// ```
    ///
    /// - Parameters: As ``values(forKey:expiry:expirationPolicy:fetch:)``.
    /// - Returns: A stream of one or two entries.
    public func entries<T: Cachable>(
        forKey key: String, expiry: Expiry? = nil, expirationPolicy: ExpirationPolicy? = nil,
        fetch: @escaping @Sendable () async throws -> T
    ) -> AsyncThrowingStream<CacheEntry<T>, any Error> {
        cacheThenFetch(forKey: key, expiry: expiry, expirationPolicy: expirationPolicy, fetch: fetch) { $0 }
    }

    /// ``values(forKey:expiry:expirationPolicy:fetch:)`` (`transform` picks what is yielded) storing
    /// the fetched value as `encoder` encodes it; see
    /// ``entry(forKey:policy:expiry:expirationPolicy:reset:encoder:fetch:)``.
    package func cacheThenFetch<T: Cachable, Element: Sendable>(
        forKey key: String, expiry: Expiry?, expirationPolicy: ExpirationPolicy?, encoder: ValueEncoder<T>? = nil,
        fetch: @escaping @Sendable () async throws -> T, transform: @escaping @Sendable (CacheEntry<T>) -> Element
    ) -> AsyncThrowingStream<Element, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self)
        let task = Task { [self] in
            do {
                if configuration.isCachingEnabled,
                    let cached = await cachedEntry(T.self, forKey: key, expirationPolicy: expirationPolicy)
                {
                    continuation.yield(transform(cached))
                }
                let fresh = try await resolve(
                    forKey: key, policy: .networkOnly, expiry: { _ in expiry }, expirationPolicy: expirationPolicy,
                    reset: false, encoder: encoder, fetch: fetch)
                continuation.yield(transform(fresh))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
