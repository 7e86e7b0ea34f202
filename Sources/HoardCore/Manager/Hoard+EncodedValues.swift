import Foundation

extension Hoard {
    /// Stores bytes that are already a value's encoding, as a value of type `T`, without decoding
    /// or re-encoding them: for a caller that has the bytes at hand (a thumbnail just encoded, a
    /// file downloaded) and wants readers to get a `T`.
    ///
    /// The caller promises that `T.decode(bytes)` succeeds: the bytes are not checked. A later
    /// ``retrieve(_:forKey:)-(_,String)`` as `T` decodes them (bytes that do not decode, a broken
    /// promise, are a miss and are removed);
    /// ``retrieveEncoded(_:forKey:)`` and ``storedBytes(forKey:)`` give them back as they are.
    /// The bytes go to the byte tiers only; any value the memory tier holds for `key` is dropped,
    /// so the next read decodes these bytes. The configuration's
    /// ``Configuration/insertionPolicy`` sees the bytes themselves (a `Data`) as the candidate's
    /// value. With caching disabled (``Configuration/isCachingEnabled``), this does nothing.
    ///
    /// ```swift
    /// let jpeg = try thumbnail.jpegData(quality: 80)
    /// try await hoard.storeEncoded(jpeg, as: Image.self, forKey: "thumbnail/42")
    /// let image = try await hoard.retrieve(Image.self, forKey: "thumbnail/42")  // decoded from those bytes
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The value's encoding, as `T.encode()` would give it (for ``Image``, a PNG or JPEG file).
    ///   - type: The type the bytes are recorded as (its ``Cachable/cacheTypeIdentifier``).
    ///   - key: Any string; it never becomes a path.
    ///   - expiry: When the value stops being returned; `nil` means the configuration's
    ///     ``Configuration/defaultExpiry``.
    /// - Throws: ``HoardError/invalidValue(_:)`` for an expiry that is not finite;
    ///   ``HoardError/tier(_:underlying:)`` naming the path and errno; the previous value then stays.
    /// - Complexity: O(n) in the size of `bytes` (one checksum pass and one write).
    public func storeEncoded<T: Cachable>(_ bytes: Data, as type: T.Type, forKey key: String, expiry: Expiry? = nil)
        async throws
    {
        try await writeEncoded(bytes, typeName: Self.typeName(of: T.self), candidate: bytes, forKey: key, expiry: expiry)
    }

    /// The bytes a fresh value of type `T` under `key` is stored as, without decoding them: what
    /// to copy to a file or a response when the encoding is what is wanted.
    ///
    /// Freshness is checked as ``retrieve(_:forKey:)-(_,String)`` checks it (the entry's expiry, the
    /// ``Configuration/expirationPolicy``, ``expireAll()``), and the read counts as a hit or a miss.
    /// Only the byte tiers are read, in order (a hit is copied into the tiers before it): they
    /// hold the encoding of every stored value.
    ///
    /// ```swift
    /// if let jpeg = try await hoard.retrieveEncoded(Image.self, forKey: "thumbnail/42") {
    ///     try jpeg.write(to: outputURL)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type the value must have been stored as.
    ///   - key: The key it was stored under.
    /// - Returns: The value's encoding (for ``Image``, a PNG or JPEG file), or `nil` when there is
    ///   no fresh value.
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)`` when the value was stored as
    ///   another type; ``HoardError/tier(_:underlying:)``.
    /// - Complexity: O(n) in the size of the entry (one read and one checksum pass).
    public func retrieveEncoded<T: Cachable>(_ type: T.Type, forKey key: String) async throws -> Data? {
        var found: Found?
        return try await lookUp(
            Data.self, .encoded(typeName: Self.typeName(of: T.self)), forKey: key, expirationPolicy: nil, found: &found)
    }

    /// The fresh value under `key` in the memory tier, read without suspending, counted as a hit;
    /// `nil` for a miss there, or a value of another type (counting nothing): the caller then
    /// asks ``retrieve(_:forKey:)-(_,String)``, which reads the other tiers too.
    package func memoryValue<T: Cachable>(_ type: T.Type, forKey key: String) -> T? {
        var found: Found?
        guard configuration.isCachingEnabled,
            let value = try? readMemory(T.self, .decoded, forKey: key, freshness: freshness(nil), found: &found),
            found?.isStale == false
        else { return nil }
        monitor.record(.hit(key: key, tier: .memory))
        return value
    }

    /// The fresh entry under `key` stored as `T` in a first byte tier that answers without
    /// suspending (the disk), as its encoded bytes, counted as a hit: the first step of
    /// ``encodedEntry(_:forKey:expiry:fetch:)``, for a caller on an event loop. `nil` when there is
    /// no such tier, or no fresh entry of that type in it (counting nothing): the caller then asks
    /// ``encodedEntry(_:forKey:expiry:fetch:)``, which reads the later tiers and fetches.
    package func firstDiskEncodedEntry<T: Cachable>(_ type: T.Type, forKey key: String) -> CacheEntry<Data>? {
        guard configuration.isCachingEnabled else { return nil }
        let freshness = freshness(nil)
        guard
            let hit = try? chain.immediateHit(forKey: key, expecting: Self.typeName(of: T.self), freshness: freshness)
        else { return nil }
        monitor.record(.hit(key: key, tier: hit.source))
        return CacheEntry(
            value: hit.payload, cachedAt: hit.createdAt, expiresAt: hit.expiresAt, source: hit.source,
            retrievedAt: freshness.now)
    }

    /// Writes `bytes` to every byte tier under `typeName` unless the insertion policy refuses
    /// `candidate`, then drops the memory tier's value for `key`.
    ///
    /// - Returns: When the bytes were stored and when they expire; `nil` when nothing was stored.
    /// - Throws: ``HoardError/invalidValue(_:)``, ``HoardError/tier(_:underlying:)``.
    @discardableResult
    package func writeEncoded(
        _ bytes: Data, typeName: String, candidate: any Cachable, forKey key: String, expiry: Expiry?, framed: Data? = nil
    ) async throws(HoardError) -> Written? {
        guard configuration.isCachingEnabled else { return nil }
        try Self.validate(expiry, "Hoard.storeEncoded(_:as:forKey:expiry:) expiry")
        return try await writeBytes(
            bytes, typeName: typeName, candidate: candidate, forKey: key, expiry: expiry, decoded: nil, framed: framed)
    }

    /// Stores `byteCount` bytes that `fill` writes, as the encoding of a value of type `T`
    /// (as ``storeEncoded(_:as:forKey:expiry:)``), written once into the buffer the tiers are
    /// given: a large value (a file read straight into it) is in memory once, not twice.
    ///
    /// ```swift
    /// try await hoard.storeEncoded(byteCount: size, as: Data.self, forKey: "blob") { buffer in
    ///     try readExactly(descriptor, into: buffer)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - byteCount: How many bytes `fill` writes, 0 or more.
    ///   - type: The type the bytes are recorded as (its ``Cachable/cacheTypeIdentifier``).
    ///   - key: Any string; it never becomes a path.
    ///   - expiry: When the value stops being returned; `nil` means the configuration's
    ///     ``Configuration/defaultExpiry``.
    ///   - fill: Writes the value's bytes into the buffer it is given, all `byteCount` of them.
    /// - Throws: What `fill` throws (nothing is stored then); ``HoardError/invalidValue(_:)`` for a
    ///   negative `byteCount` or an expiry that is not finite; ``HoardError/tier(_:underlying:)``.
    /// - Complexity: O(n) in `byteCount`.
    public func storeEncoded<T: Cachable>(
        byteCount: Int, as type: T.Type, forKey key: String, expiry: Expiry? = nil,
        filling fill: (UnsafeMutableRawBufferPointer) throws -> Void
    ) async throws {
        guard byteCount >= 0 else {
            throw HoardError.invalidValue(
                InvalidValueError(field: "Hoard.storeEncoded(byteCount:as:forKey:expiry:filling:) byteCount", value: "\(byteCount)", requirement: "0 or more"))
        }
        let typeName = Self.typeName(of: T.self)
        let (framed, payload) = try TypedPayload.wrap(byteCount: byteCount, typeName: typeName, filling: fill)
        try await writeEncoded(payload, typeName: typeName, candidate: payload, forKey: key, expiry: expiry, framed: framed)
    }
}
