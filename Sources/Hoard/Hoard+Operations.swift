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
    /// - Throws: ``HoardError/encodingFailed(key:type:underlying:)``, or ``HoardError/disk(_:)``
    ///   naming the path and errno (a full disk, an unwritable folder); the previous value stays.
    public func store<T: Cachable>(_ object: T, forKey key: String, expiry: Expiry? = nil) async throws {
        let now = configuration.now()
        let expiresAt = (expiry ?? configuration.defaultExpiry).expirationDate(from: now)
        let pinned: Expiry = expiresAt.map(Expiry.date) ?? .never
        let bytes = try encode(object, forKey: key)
        let typeName = Self.typeName(of: T.self)
        try onDisk { try $0.store(TypedPayload.wrap(bytes, typeName: typeName), forKey: key, expiry: pinned) }
        let record = MemoryRecord(value: object, typeName: typeName, cachedAt: now, expiresAt: expiresAt)
        memory.setValue(
            record, forKey: key, cost: Self.memoryCost(of: object, encodedSize: bytes.count), expiry: pinned)
    }

    /// The value stored under `key`, or `nil` when there is none or it has expired.
    ///
    /// ```swift
    /// let thumbnail = try await hoard.retrieve(Image.self, forKey: url)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to read the value as.
    ///   - key: The key it was stored under.
    /// - Returns: The value, from memory or (promoted to memory) from disk.
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)`` when the value was stored as
    ///   another type; ``HoardError/decodingFailed(key:type:underlying:)``; ``HoardError/disk(_:)``.
    public func retrieve<T: Cachable>(_ type: T.Type = T.self, forKey key: String) async throws -> T? {
        try lookUp(type, forKey: key)?.value
    }

    /// The value stored under `key` with its metadata: when it was cached, when it expires, its
    /// age, and which tier answered.
    ///
    /// - Parameters:
    ///   - type: The type to read the value as.
    ///   - key: The key it was stored under.
    /// - Returns: The entry, or `nil` when there is none or it has expired.
    /// - Throws: As ``retrieve(_:forKey:)``.
    public func entry<T: Cachable>(_ type: T.Type = T.self, forKey key: String) async throws -> CacheEntry<T>? {
        try lookUp(type, forKey: key)
    }

    /// Removes the value stored under `key` from both tiers; removing a missing key is not an error.
    ///
    /// - Throws: ``HoardError/disk(_:)`` when the file exists but cannot be removed.
    public func remove(forKey key: String) async throws {
        memory.removeValue(forKey: key)
        try onDisk { try $0.remove(forKey: key) }
    }

    /// Removes every value from both tiers.
    ///
    /// - Throws: ``HoardError/disk(_:)``.
    public func removeAll() async throws {
        memory.removeAll()
        try onDisk { try $0.removeAll() }
    }

    /// Drops the memory tier and keeps the disk; later reads refill memory from disk.
    public func clearMemory() {
        memory.removeAll()
    }

    // MARK: - Internals

    func lookUp<T: Cachable>(_ type: T.Type, forKey key: String) throws -> CacheEntry<T>? {
        let expected = Self.typeName(of: T.self)
        if let record = memory.value(forKey: key) {
            guard let value = record.value as? T else {
                throw HoardError.typeMismatch(key: key, expected: expected, stored: record.typeName)
            }
            return CacheEntry(
                value: value, cachedAt: record.cachedAt, expiresAt: record.expiresAt, source: .memory,
                retrievedAt: configuration.now())
        }
        guard let stored = try onDisk({ try $0.entry(forKey: key) }) else { return nil }
        guard let (typeName, payload) = TypedPayload.unwrap(stored.data) else {
            throw HoardError.typeMismatch(key: key, expected: expected, stored: "untyped bytes")
        }
        guard typeName == expected else {
            throw HoardError.typeMismatch(key: key, expected: expected, stored: typeName)
        }
        let value: T
        do {
            value = try T.decode(payload)
        } catch {
            throw HoardError.decodingFailed(key: key, type: expected, underlying: error)
        }
        // Promote with the remaining expiry: the disk entry's own dates travel with it.
        let record = MemoryRecord(
            value: value, typeName: typeName, cachedAt: stored.creationDate, expiresAt: stored.expirationDate)
        memory.setValue(
            record, forKey: key, cost: Self.memoryCost(of: value, encodedSize: payload.count),
            expiry: stored.expirationDate.map(Expiry.date) ?? .never)
        return CacheEntry(
            value: value, cachedAt: stored.creationDate, expiresAt: stored.expirationDate, source: .disk,
            retrievedAt: configuration.now())
    }

    func encode<T: Cachable>(_ object: T, forKey key: String) throws(HoardError) -> Data {
        do {
            if let image = object as? Image, !image.hasAlpha {
                return try image.jpegData(quality: configuration.jpegQuality)
            }
            return try object.encode()
        } catch {
            throw .encodingFailed(key: key, type: Self.typeName(of: T.self), underlying: error)
        }
    }

    /// The name a value's type is recorded under.
    static func typeName<T: Cachable>(of type: T.Type) -> String {
        type.cacheTypeIdentifier
    }

    /// Memory cost in bytes: pixel bytes for images, encoded bytes otherwise.
    static func memoryCost<T>(of value: T, encodedSize: Int) -> Int {
        (value as? Image)?.pixels.count ?? encodedSize
    }
}
