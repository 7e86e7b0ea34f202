import Foundation
import HoardSystem

extension Hoard {
    /// The value for `key`, from the cache or from `fetch`, as `policy` says.
    ///
    /// Wrap the code that produces a value (a download, a slow computation) and let the cache
    /// decide when to run it. Concurrent calls that need a fetch for the same key share one run of
    /// it and all receive its value or its error; a call that arrives after it finished reads the
    /// cache. A fetched value is stored (unless the ``Configuration/insertionPolicy`` refuses it);
    /// a failure to store it is logged, and the value is still returned.
    ///
    /// ```swift
    /// let avatar = try await hoard.value(forKey: "avatar/\(id)", expiry: .seconds(3_600)) {
    ///     try await Image(data: download(avatarURL(id)))
    /// }
    /// let rates = try await hoard.value(forKey: "rates", policy: .networkElseCache) { try await loadRates() }
    /// ```
    ///
    /// With ``CachePolicy/cacheThenFetch`` this returns the fetched value; use
    /// ``values(forKey:expiry:expirationPolicy:fetch:)`` to receive the cached one first.
    ///
    /// - Parameters:
    ///   - key: The key; any string.
    ///   - policy: When to read the cache and when to fetch (default ``CachePolicy/cacheElseFetch``).
    ///   - expiry: The expiry of a fetched value; `nil` means ``Configuration/defaultExpiry``.
    ///   - expirationPolicy: The age limit of cached values for this call; `nil` means
    ///     ``Configuration/expirationPolicy``.
    ///   - reset: Forget the cached value and any fetch running for `key` first, so that this call
    ///     starts a fresh fetch. Callers already waiting for the forgotten fetch still get its
    ///     result, but it is not stored.
    ///   - fetch: Produces the value; it runs in its own task, cancelled when every caller waiting
    ///     for it has been cancelled.
    /// - Returns: The value.
    /// - Throws: The fetch's own error (unless ``CachePolicy/networkElseCache`` had a cached value to
    ///   return instead); `CancellationError` when this call is cancelled (the fetch goes on for
    ///   the other callers); ``HoardError/notCached(key:)`` for a ``CachePolicy/cacheOnly`` miss;
    ///   ``HoardError/typeMismatch(key:expected:stored:)`` when a concurrent call for the same key
    ///   fetched another type; for ``CachePolicy/cacheOnly``, the cache's read errors (other
    ///   policies log them and fetch).
    public func value<T: Cachable>(
        forKey key: String, policy: CachePolicy = .cacheElseFetch, expiry: Expiry? = nil,
        expirationPolicy: ExpirationPolicy? = nil, reset: Bool = false,
        fetch: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await entry(
            forKey: key, policy: policy, expiry: expiry, expirationPolicy: expirationPolicy, reset: reset, fetch: fetch
        ).value
    }

    /// The value for `key` with where it came from (``CacheEntry/Source/fetch`` for a fetched one),
    /// its age, and whether it is a stale fallback; see
    /// ``value(forKey:policy:expiry:expirationPolicy:reset:fetch:)``.
    ///
    /// ```swift
    /// let entry = try await hoard.entry(forKey: "rates", policy: .networkElseCache) { try await loadRates() }
    /// if entry.isStale { showBanner("Offline: rates from \(entry.cachedAt)") }
    /// ```
    ///
    /// - Parameters: As ``value(forKey:policy:expiry:expirationPolicy:reset:fetch:)``.
    /// - Returns: The entry; ``CacheEntry/isStale`` is set only for a ``CachePolicy/networkElseCache``
    ///   fallback to an expired value.
    /// - Throws: As ``value(forKey:policy:expiry:expirationPolicy:reset:fetch:)``.
    public func entry<T: Cachable>(
        forKey key: String, policy: CachePolicy = .cacheElseFetch, expiry: Expiry? = nil,
        expirationPolicy: ExpirationPolicy? = nil, reset: Bool = false,
        fetch: @escaping @Sendable () async throws -> T
    ) async throws -> CacheEntry<T> {
        try await resolve(
            forKey: key, policy: policy, expiry: { _ in expiry }, expirationPolicy: expirationPolicy, reset: reset,
            fetch: fetch)
    }

    /// ``entry(forKey:policy:expiry:expirationPolicy:reset:fetch:)`` storing a fetched value as
    /// `encoder` encodes it instead of with ``Configuration/encodingOptions``: how a module whose
    /// keys carry their own encoding settings (a thumbnail key's format and quality) honours them.
    package func entry<T: Cachable>(
        forKey key: String, policy: CachePolicy, expiry: Expiry?, expirationPolicy: ExpirationPolicy?, reset: Bool,
        encoder: @escaping ValueEncoder<T>, fetch: @escaping @Sendable () async throws -> T
    ) async throws -> CacheEntry<T> {
        try await resolve(
            forKey: key, policy: policy, expiry: { _ in expiry }, expirationPolicy: expirationPolicy, reset: reset,
            encoder: encoder, fetch: fetch)
    }

    // MARK: - Internals

    /// ``entry(forKey:policy:expiry:expirationPolicy:reset:fetch:)`` with an expiry chosen per value.
    func resolve<T: Cachable>(
        forKey key: String, policy: CachePolicy, expiry: @escaping @Sendable (T) -> Expiry?,
        expirationPolicy: ExpirationPolicy?, reset: Bool, encoder: ValueEncoder<T>? = nil,
        fetch: @escaping @Sendable () async throws -> T
    ) async throws -> CacheEntry<T> {
        do {
            try expirationPolicy?.validate("expirationPolicy")
        } catch {
            throw HoardError.invalidValue(error)
        }
        guard configuration.isCachingEnabled else {
            if policy == .cacheOnly { throw HoardError.notCached(key: key) }
            return try await fetchWithoutCache(forKey: key, fetch: fetch)
        }
        if reset { await forget(key) }
        switch policy {
        case .cacheOnly:
            if let entry = try await lookUpEntry(T.self, forKey: key, expirationPolicy: expirationPolicy) { return entry }
            throw HoardError.notCached(key: key)
        case .cacheElseFetch:
            if let entry = await cachedEntry(T.self, forKey: key, expirationPolicy: expirationPolicy) { return entry }
            // A full miss: another machine sharing a tier may be fetching the same key.
            return try await fetchThrough(
                forKey: key, expiry: expiry, expirationPolicy: expirationPolicy, sharingFetch: true, encoder: encoder,
                fetch: fetch)
        case .networkOnly, .cacheThenFetch:
            return try await fetchThrough(forKey: key, expiry: expiry, encoder: encoder, fetch: fetch)
        case .networkElseCache:
            do {
                return try await fetchThrough(forKey: key, expiry: expiry, encoder: encoder, fetch: fetch)
            } catch {
                if error is CancellationError || Task.isCancelled { throw error }
                guard let cached = await fallbackEntry(T.self, forKey: key, expirationPolicy: expirationPolicy) else {
                    throw error
                }
                monitor.record(.servedCached(key: key, isExpired: cached.isStale))
                return cached
            }
        }
    }

    /// Runs `fetch` through the fetcher and stores its value.
    ///
    /// With `sharingFetch`, the fetch also runs under the leases (see ``fetch(_:_:forKey:expirationPolicy:sharingFetch:produce:)``):
    /// a value another process or machine stored meanwhile is returned instead, from the tier that had it.
    func fetchThrough<T: Cachable>(
        forKey key: String, expiry: @escaping @Sendable (T) -> Expiry?, expirationPolicy: ExpirationPolicy? = nil,
        sharingFetch: Bool = false, encoder: ValueEncoder<T>? = nil, fetch: @escaping @Sendable () async throws -> T
    ) async throws -> CacheEntry<T> {
        let outcome = try await self.fetch(
            T.self, .decoded, forKey: key, expirationPolicy: expirationPolicy, sharingFetch: sharingFetch
        ) { [self] in
            let value = try await fetcher.reporting(forKey: key, fetch)
            return (value, { [self] () async throws(HoardError) -> Written? in
                try await write(value, forKey: key, expiry: expiry(value), encoder: encoder)
            })
        }
        return CacheEntry(
            value: try outcome.decoded(as: T.self, forKey: key), cachedAt: outcome.value.cachedAt,
            expiresAt: outcome.value.expiresAt, source: outcome.source, retrievedAt: configuration.now(),
            storeError: outcome.storeError)
    }

    /// The one fetch path under ``fetchThrough(forKey:expiry:expirationPolicy:sharingFetch:encoder:fetch:)``
    /// and ``encodedEntry(_:forKey:expiry:fetch:)``: `produce` runs once per key (see
    /// ``Fetcher/run(forKey:typeName:isEncoded:cached:produce:)``); with `sharingFetch`, under the
    /// leases, which first read the byte tiers again in `form`.
    func fetch<T: Cachable>(
        _ type: T.Type, _ form: ReadForm, forKey key: String, expirationPolicy: ExpirationPolicy?, sharingFetch: Bool,
        produce: @escaping @Sendable () async throws -> Fetcher.Produced
    ) async throws -> FetchOutcome {
        let typeName: String
        let isEncoded: Bool
        switch form {
        case .decoded: (typeName, isEncoded) = (Self.typeName(of: T.self), false)
        case .encoded(let encodedType): (typeName, isEncoded) = (encodedType, true)
        }
        let cached: @Sendable () async -> FetchOutcome? = { [self] in
            var found: Found?
            guard
                let value = try? await readBytes(
                    T.self, form, forKey: key, freshness: freshness(expirationPolicy), includingStale: false, found: &found),
                let found
            else { return nil }
            if let evicted = HoardMonitor.memoryEvictions(found.evictions) { monitor.record(evicted) }
            let record = StoredValue(value: value, typeName: typeName, cachedAt: found.cachedAt, expiresAt: found.expiresAt)
            return FetchOutcome(value: record, source: found.source, isEncoded: isEncoded)
        }
        return try await fetcher.run(
            forKey: key, typeName: typeName, isEncoded: isEncoded, cached: sharingFetch ? cached : nil,
            produce: produce)
    }

    /// Forgets the value and any running fetch for `key` (errors removing the file are logged).
    func forget(_ key: String) async {
        fetcher.forget(key)
        do {
            try await chain.remove(forKey: key)
        } catch {
            logger.warning(
                "Cannot remove the cached value to reset", metadata: ["key": .string(key), "error": "\(error)"])
        }
        monitor.record(.removed(key: key))
    }

    /// A fetch with caching disabled: run, not shared, not stored (both fetch forms use it).
    func fetchWithoutCache<T: Cachable>(
        forKey key: String, fetch: @Sendable () async throws -> T
    ) async throws -> CacheEntry<T> {
        let value = try await fetcher.reporting(forKey: key, fetch)
        let now = configuration.now()
        return CacheEntry(value: value, cachedAt: now, expiresAt: nil, source: .fetch, retrievedAt: now)
    }
}
