import Foundation

extension Hoard {
    /// Stores `object` under `key` in both tiers, replacing what was there.
    ///
    /// The value is encoded once: the bytes go to disk (atomically: readers in any process see the
    /// old value or this one), the decoded value to memory.
    ///
    /// ```swift
    /// try await hoard.store(profile, forKey: "profile/42", expiry: .seconds(3_600))
    /// ```
    ///
    /// - Parameters:
    ///   - object: The value.
    ///   - key: Any string; it never becomes a path.
    ///   - expiry: When the value stops being returned; `nil` means the configuration's
    ///     ``Configuration/defaultExpiry``.
    /// The configuration's ``Configuration/insertionPolicy`` may refuse the value: then nothing is
    /// stored and the key's previous value is removed. With caching disabled
    /// (``Configuration/isCachingEnabled``), this does nothing.
    ///
    /// - Throws: ``HoardError/encodingFailed(key:type:underlying:)``, or ``HoardError/tier(_:underlying:)``
    ///   naming the path and errno (a full disk, an unwritable folder); the previous value stays.
    public func store<T: Cachable>(_ object: T, forKey key: String, expiry: Expiry? = nil) async throws {
        guard configuration.isCachingEnabled else { return }
        try await write(object, forKey: key, expiry: expiry)
    }

    /// The value stored under `key`, or `nil` when there is none or it has expired.
    ///
    /// A value has expired when its ``Expiry`` has come, when it is older than the configuration's
    /// ``Configuration/expirationPolicy``, or when it was stored before an ``expireAll()``.
    ///
    /// ```swift
    /// let thumbnail = try await hoard.retrieve(Image.self, forKey: url)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to read the value as.
    ///   - key: The key it was stored under.
    /// A value stored as this type whose bytes no longer decode (the type changed in an app update)
    /// is a miss: it is removed from both tiers, logged at warning level with the decoder's
    /// message, and counted in ``HoardStatistics/undecodableEntries``.
    ///
    /// - Returns: The value, from memory or (promoted to memory) from disk.
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)`` when the value was stored as
    ///   another type (a programming error, not stale data); ``HoardError/tier(_:underlying:)``.
    public func retrieve<T: Cachable>(_ type: T.Type = T.self, forKey key: String) async throws -> T? {
        var found: Found?
        return try await lookUp(T.self, forKey: key, expirationPolicy: nil, found: &found)
    }

    /// The value stored under `key` with its metadata: when it was cached, when it expires, its
    /// age, and which tier answered.
    ///
    /// - Parameters:
    ///   - type: The type to read the value as.
    ///   - key: The key it was stored under.
    /// - Returns: The entry, or `nil` when there is none or it has expired.
    /// - Throws: As ``retrieve(_:forKey:)-(_,String)``.
    public func entry<T: Cachable>(_ type: T.Type = T.self, forKey key: String) async throws -> CacheEntry<T>? {
        try await lookUpEntry(T.self, forKey: key, expirationPolicy: nil)
    }

    /// Removes the value stored under `key` from every tier; removing a missing key is not an error.
    ///
    /// - Throws: ``HoardError/tier(_:underlying:)`` when the file exists but cannot be removed.
    public func remove(forKey key: String) async throws {
        try await chain.remove(forKey: key)
        monitor.record(.removed(key: key))
    }

    /// Removes every value from every tier; with a ``SharedCacheTier``, on every machine that
    /// shares it (each applies it to its own memory and disk within about a second).
    ///
    /// - Throws: ``HoardError/tier(_:underlying:)``.
    public func removeAll() async throws {
        try await chain.removeAll()
        marks.recordRemovedAll()
        monitor.record(.removedAll)
    }

    /// Drops the memory tier and keeps the disk; later reads refill memory from disk.
    public func clearMemory() {
        chain.memory.removeAll()
    }
}
