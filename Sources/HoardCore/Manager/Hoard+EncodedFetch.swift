import Foundation
import HoardSystem

extension Hoard {
    /// The bytes of the value of type `T` under `key`, from the byte tiers or, on a miss, from
    /// `fetch`, which produces them already encoded: ``value(forKey:policy:expiry:expirationPolicy:reset:fetch:)``
    /// for a caller that works with encodings (a thumbnail service copying JPEG files), so that
    /// nothing is decoded on a hit.
    ///
    /// A miss is fetched once per key: concurrent calls share one run of `fetch`, and with a
    /// ``SharedCacheTier`` so do other machines (see ``SharedCacheTier``). The fetched bytes are
    /// stored as ``storeEncoded(_:as:forKey:expiry:)`` stores them, unchecked: `T.decode(bytes)`
    /// must succeed. A read error is logged and the value fetched.
    ///
    /// ```swift
    /// let jpeg = try await hoard.encodedEntry(Image.self, forKey: "thumbnail/42") {
    ///     try makeThumbnail(of: original).jpegData(quality: 85)
    /// }
    /// print(jpeg.source)   // "disk", "redis", or "fetch"
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type the bytes encode.
    ///   - key: Any string; it never becomes a path.
    ///   - expiry: The expiry of fetched bytes; `nil` means ``Configuration/defaultExpiry``.
    ///   - fetch: Produces the encoding.
    /// - Returns: The bytes with their dates and the tier that had them: ``CacheTierIdentifier/fetch``
    ///   when this call's `fetch` (or a concurrent call's, on this machine) produced them, the
    ///   shared tier's identifier when another machine's fetch stored them while this call waited.
    ///   ``CacheEntry/storeError`` says why fetched bytes could not be stored.
    /// - Throws: What `fetch` throws; `CancellationError`; ``HoardError/invalidValue(_:)`` for an
    ///   expiry that is not finite.
    public func encodedEntry<T: Cachable>(
        _ type: T.Type, forKey key: String, expiry: Expiry? = nil, fetch: @escaping @Sendable () async throws -> Data
    ) async throws -> CacheEntry<Data> {
        let typeName = Self.typeName(of: T.self)
        guard configuration.isCachingEnabled else {
            let bytes = try await runFetch(forKey: key, fetch)
            let now = configuration.now()
            return CacheEntry(value: bytes, cachedAt: now, expiresAt: nil, source: .fetch, retrievedAt: now)
        }
        try Self.validate(expiry, "Hoard.encodedEntry(_:forKey:expiry:fetch:) expiry")
        do {
            if let hit = try await encodedTierEntry(typeName: typeName, forKey: key) {
                monitor.record(.hit(key: key, tier: hit.source))
                return hit
            }
            monitor.record(.miss(key: key))
        } catch {
            logger.warning(
                "Cannot read the cached value; fetching", metadata: ["key": .string(key), "error": "\(error)"])
        }
        let cached: @Sendable () async -> FetchOutcome? = { [self] in
            guard let found = try? await encodedTierEntry(typeName: typeName, forKey: key) else { return nil }
            return FetchOutcome(
                value: StoredValue(value: found.value, typeName: typeName, cachedAt: found.cachedAt, expiresAt: found.expiresAt),
                source: found.source, isEncoded: true)
        }
        let produce: @Sendable () async throws -> Produced = { [self] in
            let bytes = try await runFetch(forKey: key, fetch)
            let store: @Sendable () async throws(HoardError) -> Written? = { [self] () async throws(HoardError) -> Written? in
                try await writeEncoded(bytes, typeName: typeName, candidate: bytes, forKey: key, expiry: expiry)
            }
            return (bytes, store)
        }
        let outcome = try await fetchOnce(forKey: key, typeName: typeName, isEncoded: true, cached: cached, produce: produce)
        let bytes = try outcome.encoding(of: typeName, options: configuration.encodingOptions, forKey: key)
        return CacheEntry(
            value: bytes, cachedAt: outcome.value.cachedAt, expiresAt: outcome.value.expiresAt, source: outcome.source,
            retrievedAt: configuration.now(), storeError: outcome.storeError)
    }
}
