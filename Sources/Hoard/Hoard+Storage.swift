import Foundation

extension Hoard {
    /// What counts as fresh for one read: the entry's own expiry, the age limit of the
    /// ``ExpirationPolicy`` in force, and the ``expireAll()`` mark.
    struct Freshness {
        let now: Date
        let policy: ExpirationPolicy
        let mark: Date?

        func isFresh(cachedAt: Date, expiresAt: Date?) -> Bool {
            if let expiresAt, expiresAt.hasExpired(at: now) { return false }
            if let mark, cachedAt < mark { return false }
            return !policy.hasExpired(cachedAt: cachedAt, now: now)
        }
    }

    /// The freshness rules for a read now, with `policy` replacing the configuration's when given.
    func freshness(_ policy: ExpirationPolicy?) -> Freshness {
        Freshness(
            now: configuration.now(), policy: policy ?? configuration.expirationPolicy,
            mark: expirationMark.current())
    }

    /// The fresh value under `key`: from memory, else from disk (then promoted to memory).
    ///
    /// Records a hit or a miss. Expired values stay where they are (a fallback may still want them);
    /// the tiers' limits, trims and later stores take them out.
    ///
    /// An entry stored as `T` whose bytes no longer decode as `T` (the type changed in an app
    /// update) is a miss: it is removed from both tiers, logged and counted.
    ///
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)``, ``HoardError/disk(_:)``.
    func lookUp<T: Cachable>(
        _ type: T.Type, forKey key: String, expirationPolicy: ExpirationPolicy?
    ) throws -> CacheEntry<T>? {
        guard configuration.isCachingEnabled else { return nil }
        let freshness = freshness(expirationPolicy)
        if let entry = try memoryEntry(T.self, forKey: key, freshness: freshness), !entry.isStale {
            monitor.record(.hit(key: key, tier: .memory))
            return entry
        }
        if let entry = try diskEntry(T.self, forKey: key, freshness: freshness, includingStale: false) {
            monitor.record(.hit(key: key, tier: .disk))
            return entry
        }
        monitor.record(.miss(key: key))
        return nil
    }

    /// The value under `key` even when it has expired (then marked stale), for a fallback: a fresh
    /// value in memory, else the disk's, else a stale one in memory. Counts nothing; read errors
    /// are logged and give `nil`.
    func fallbackEntry<T: Cachable>(
        _ type: T.Type, forKey key: String, expirationPolicy: ExpirationPolicy?
    ) -> CacheEntry<T>? {
        guard configuration.isCachingEnabled else { return nil }
        let freshness = freshness(expirationPolicy)
        do {
            let inMemory = try memoryEntry(T.self, forKey: key, freshness: freshness)
            if let inMemory, !inMemory.isStale { return inMemory }
            return try diskEntry(T.self, forKey: key, freshness: freshness, includingStale: true) ?? inMemory
        } catch {
            logger.warning(
                "Cannot read the cached value to fall back on", metadata: ["key": .string(key), "error": "\(error)"])
            return nil
        }
    }

    /// Encodes `object` and, unless the insertion policy refuses it, stores it in both tiers.
    ///
    /// - Returns: When the value was stored and when it expires, or `nil` when it was refused
    ///   (then the key's previous value has been removed).
    /// - Throws: ``HoardError/invalidValue(_:)`` for an expiry that is not finite;
    ///   ``HoardError/encodingFailed(key:type:underlying:)``, ``HoardError/disk(_:)``.
    @discardableResult
    func write<T: Cachable>(_ object: T, forKey key: String, expiry: Expiry?) throws -> (
        cachedAt: Date, expiresAt: Date?
    )? {
        do {
            try expiry?.validate("expiry")
        } catch {
            throw HoardError.invalidValue(error)
        }
        let now = configuration.now()
        let expiresAt = (expiry ?? configuration.defaultExpiry).expirationDate(from: now)
        let bytes = try encode(object, forKey: key)
        guard configuration.insertionPolicy.shouldStore(.init(key: key, value: object, byteCount: bytes.count)) else {
            memory.removeValue(forKey: key)
            try onDisk { try $0.remove(forKey: key) }
            monitor.record(.storeRefused(key: key, byteCount: bytes.count))
            return nil
        }
        let typeName = Self.typeName(of: T.self)
        let pinned: Expiry = expiresAt.map(Expiry.date) ?? .never
        try onDisk { try $0.store(TypedPayload.wrap(bytes, typeName: typeName), forKey: key, expiry: pinned) }
        if let expiresAt, expiresAt.hasExpired(at: now) {
            memory.removeValue(forKey: key)
        } else {
            let record = MemoryRecord(value: object, typeName: typeName, cachedAt: now, expiresAt: expiresAt)
            remember(record, forKey: key, cost: Self.memoryCost(of: object, encodedSize: bytes.count))
        }
        monitor.record(.stored(key: key, byteCount: bytes.count))
        return (now, expiresAt)
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

    // MARK: - Private

    /// The memory tier's value for `key`, marked stale when it is not fresh.
    private func memoryEntry<T: Cachable>(
        _ type: T.Type, forKey key: String, freshness: Freshness
    ) throws(HoardError) -> CacheEntry<T>? {
        guard let record = memory.value(forKey: key) else { return nil }
        guard let value = record.value as? T else {
            throw .typeMismatch(key: key, expected: Self.typeName(of: T.self), stored: record.typeName)
        }
        return CacheEntry(
            value: value, cachedAt: record.cachedAt, expiresAt: record.expiresAt, source: .memory,
            retrievedAt: freshness.now,
            isStale: !freshness.isFresh(cachedAt: record.cachedAt, expiresAt: record.expiresAt))
    }

    /// The disk tier's value for `key`: fresh ones are promoted to memory; stale ones are decoded
    /// only when `includingStale`, and left where they are. Bytes of the right type that do not
    /// decode are removed from both tiers and give `nil`.
    private func diskEntry<T: Cachable>(
        _ type: T.Type, forKey key: String, freshness: Freshness, includingStale: Bool
    ) throws(HoardError) -> CacheEntry<T>? {
        guard let stored = try onDisk({ try $0.entryIncludingExpired(forKey: key) }) else { return nil }
        let isFresh = freshness.isFresh(cachedAt: stored.creationDate, expiresAt: stored.expirationDate)
        guard isFresh || includingStale else { return nil }
        let expected = Self.typeName(of: T.self)
        guard let (typeName, payload) = TypedPayload.unwrap(stored.data) else {
            throw .typeMismatch(key: key, expected: expected, stored: "untyped bytes")
        }
        guard typeName == expected else {
            throw .typeMismatch(key: key, expected: expected, stored: typeName)
        }
        let value: T
        do {
            value = try T.decode(payload)
        } catch {
            // Stored as this type by an earlier version of the app (a Codable type that changed
            // since): stale data, not a programming error. It is a miss, and goes from every tier.
            memory.removeValue(forKey: key)
            try onDisk { try $0.remove(forKey: key) }
            monitor.record(.undecodableRemoved(key: key, type: expected, reason: String(describing: error)))
            return nil
        }
        if isFresh {
            // Promote with the remaining expiry: the disk entry's own dates travel with it.
            let record = MemoryRecord(
                value: value, typeName: typeName, cachedAt: stored.creationDate, expiresAt: stored.expirationDate)
            remember(record, forKey: key, cost: Self.memoryCost(of: value, encodedSize: payload.count))
        }
        return CacheEntry(
            value: value, cachedAt: stored.creationDate, expiresAt: stored.expirationDate, source: .disk,
            retrievedAt: freshness.now, isStale: !isFresh)
    }

    /// Puts `record` in the memory tier and reports what that evicted.
    private func remember(_ record: MemoryRecord, forKey key: String, cost: Int) {
        let evicted = memory.setValueCountingEvictions(record, forKey: key, cost: cost, expiration: record.expiresAt)
        if evicted > 0 { monitor.record(.evicted(tier: .memory, count: evicted)) }
    }
}
