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
        guard configuration.isCachingEnabled else { return try await fetchWithoutCache(forKey: key, fetch: fetch) }
        try Self.validate(expiry, "Hoard.encodedEntry(_:forKey:expiry:fetch:) expiry")
        let typeName = Self.typeName(of: T.self)
        let form = ReadForm.encoded(typeName: typeName)
        if let entry = await cachedEntry(Data.self, form, forKey: key, expirationPolicy: nil) { return entry }
        let outcome = try await self.fetch(Data.self, form, forKey: key, expirationPolicy: nil, sharingFetch: true) { [self] in
            let bytes = try await fetcher.reporting(forKey: key, fetch)
            return (bytes, { [self] () async throws(HoardError) -> Written? in
                try await writeEncoded(bytes, typeName: typeName, candidate: bytes, forKey: key, expiry: expiry)
            })
        }
        let bytes = try outcome.encoding(of: typeName, options: configuration.encodingOptions, forKey: key)
        return CacheEntry(
            value: bytes, cachedAt: outcome.value.cachedAt, expiresAt: outcome.value.expiresAt, source: outcome.source,
            retrievedAt: configuration.now(), storeError: outcome.storeError)
    }
}
