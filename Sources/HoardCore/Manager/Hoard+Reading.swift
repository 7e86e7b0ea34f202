import Foundation
import HoardSystem

extension Hoard {
    /// What a read wants: a decoded value (memory first, then the byte tiers; a byte hit is decoded
    /// and promoted to memory), or the encoding of a value stored as `typeName` (the byte tiers
    /// alone: they hold the encoding of every stored value), read as a `Data`.
    enum ReadForm: Sendable {
        case decoded
        case encoded(typeName: String)
    }

    /// Where a read's value came from: its dates, the tier that had it, whether it is stale. Not
    /// generic (the value travels apart from it), so that an unspecialized caller looks up no
    /// generic metadata per hit.
    struct Found {
        let cachedAt: Date
        let expiresAt: Date?
        let source: CacheTierIdentifier
        let isStale: Bool
        /// How many memory entries its promotion evicted.
        var evictions = 0

        /// `value` with these dates and source, read at `now`.
        func entry<T>(_ value: T, retrievedAt now: Date) -> CacheEntry<T> {
            CacheEntry(
                value: value, cachedAt: cachedAt, expiresAt: expiresAt, source: source, retrievedAt: now, isStale: isStale)
        }
    }

    /// The freshness rules for a read now, with `policy` replacing the configuration's when given.
    func freshness(_ policy: ExpirationPolicy?) -> Freshness {
        Freshness(
            now: configuration.now(), policy: policy ?? configuration.expirationPolicy, mark: marks.current())
    }

    /// The one read path: memory (for a decoded value), then the byte tiers in order; a fresh byte
    /// hit is copied into the tiers before the one that had it and, decoded, into memory with its
    /// dates. With `includingStale`, for a fallback, an expired value is returned (marked stale)
    /// when no tier has a fresh one: the byte tiers' first, else memory's. Counts nothing; expired
    /// values stay where they are (a fallback may still want them).
    ///
    /// An entry stored as the type whose bytes no longer decode (the type changed in an app update)
    /// is a miss: it is removed from every tier, logged and counted.
    ///
    /// The value is returned and where it came from set in `found`, apart: ``Found`` is not generic,
    /// so that an unspecialized caller makes no generic metadata or frame allocation per hit.
    ///
    /// - Parameters:
    ///   - type: The value's type: the decoded value's, or `Data` for an encoded read.
    ///   - found: Set to where the value came from; `nil` for a miss.
    /// - Returns: The value, or `nil` for a miss.
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)``, ``HoardError/tier(_:underlying:)``.
    func read<T: Cachable>(
        _ type: T.Type, _ form: ReadForm, forKey key: String, freshness: Freshness, includingStale: Bool,
        found: inout Found?
    ) async throws(HoardError) -> T? {
        let inMemory = try readMemory(T.self, form, forKey: key, freshness: freshness, found: &found)
        if let inMemory, found?.isStale == false { return inMemory }
        let memoryFound = found
        if let fromBytes = try await readBytes(
            T.self, form, forKey: key, freshness: freshness, includingStale: includingStale, found: &found)
        {
            return fromBytes
        }
        guard includingStale, let inMemory else { return nil }
        found = memoryFound
        return inMemory
    }

    /// ``read(_:_:forKey:freshness:includingStale:found:)``'s first step: the memory tier's value
    /// for a decoded read, fresh or stale; `nil` for an encoded read. Synchronous, so that a memory
    /// hit costs no suspension point.
    ///
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)`` for a value of another type.
    @inline(__always)  // into lookUp: a memory hit is the hot path
    func readMemory<T: Cachable>(
        _ type: T.Type, _ form: ReadForm, forKey key: String, freshness: Freshness, found: inout Found?
    ) throws(HoardError) -> T? {
        found = nil
        guard case .decoded = form, let record = chain.memoryRecord(forKey: key) else { return nil }
        guard let value = record.value as? T else {
            throw .typeMismatch(key: key, expected: Self.typeName(of: T.self), stored: record.typeName)
        }
        found = Found(
            cachedAt: record.cachedAt, expiresAt: record.expiresAt, source: .memory,
            isStale: !freshness.isFresh(cachedAt: record.cachedAt, expiresAt: record.expiresAt))
        return value
    }

    /// ``read(_:_:forKey:freshness:includingStale:found:)``'s second step: the byte tiers, a
    /// decoded read's hit decoded and, when fresh, promoted to memory.
    @inline(__always)  // into lookUp: a disk hit makes no async call
    func readBytes<T: Cachable>(
        _ type: T.Type, _ form: ReadForm, forKey key: String, freshness: Freshness, includingStale: Bool,
        found: inout Found?
    ) async throws(HoardError) -> T? {
        found = nil
        let typeName: String
        switch form {
        case .decoded: typeName = Self.typeName(of: T.self)
        case .encoded(let encodedType): typeName = encodedType
        }
        guard
            let hit = try await chain.hit(
                forKey: key, expecting: typeName, freshness: freshness, includingStale: includingStale)
        else { return nil }
        do {
            return try decode(T.self, hit, form, forKey: key, found: &found)
        } catch {
            try await removeUndecodable(hit, forKey: key, error: error.underlying)
            return nil
        }
    }

    /// A byte hit's bytes that do not decode as their type.
    private struct Undecodable: Error {
        let underlying: any Error
    }

    /// `hit` decoded (for an encoded read, T is `Data`, whose decoding is the bytes themselves)
    /// and, for a fresh decoded read, promoted to memory; `found` set. Synchronous, and its result
    /// returned straight to the caller's: no generic local in the async read.
    ///
    /// - Throws: ``Undecodable`` when the bytes do not decode.
    private func decode<T: Cachable>(
        _ type: T.Type, _ hit: TierHit, _ form: ReadForm, forKey key: String, found: inout Found?
    ) throws(Undecodable) -> T {
        let value: T
        do {
            value = try T.decode(hit.payload)
        } catch {
            throw Undecodable(underlying: error)
        }
        var hitFound = Found(cachedAt: hit.createdAt, expiresAt: hit.expiresAt, source: hit.source, isStale: !hit.isFresh)
        if case .decoded = form, hit.isFresh {
            let record = StoredValue(value: value, typeName: hit.typeName, cachedAt: hit.createdAt, expiresAt: hit.expiresAt)
            hitFound.evictions = chain.remember(
                record, cost: value.memoryCost(encodedByteCount: hit.payload.count), forKey: key)
        }
        found = hitFound
        return value
    }

    /// A fresh value under `key`, from the first tier that has one, counted as a hit (with the
    /// memory entries its promotion evicted) or a miss: ``read(_:_:forKey:freshness:includingStale:found:)``
    /// for fresh values, its memory step taken without a suspension point.
    ///
    /// - Parameter found: Set to where the value came from; `nil` for a miss.
    /// - Returns: The value, or `nil` for a miss.
    /// - Throws: As ``read(_:_:forKey:freshness:includingStale:found:)``.
    @inline(__always)  // into retrieve and entry: a memory hit makes no async call
    func lookUp<T: Cachable>(
        _ type: T.Type, _ form: ReadForm = .decoded, forKey key: String, expirationPolicy: ExpirationPolicy?,
        found: inout Found?
    ) async throws(HoardError) -> T? {
        found = nil
        guard configuration.isCachingEnabled else { return nil }
        let freshness = freshness(expirationPolicy)
        let inMemory = try readMemory(T.self, form, forKey: key, freshness: freshness, found: &found)
        if found?.isStale == false {
            monitor.record(.hit(key: key, tier: .memory))
            return inMemory
        }
        let fromBytes = try await readBytes(
            T.self, form, forKey: key, freshness: freshness, includingStale: false, found: &found)
        if let hit = found {
            monitor.record(HoardMonitor.memoryEvictions(hit.evictions), then: .hit(key: key, tier: hit.source))
        } else {
            monitor.record(.miss(key: key))
        }
        return fromBytes
    }

    /// ``lookUp(_:_:forKey:expirationPolicy:found:)`` as a ``CacheEntry``.
    func lookUpEntry<T: Cachable>(
        _ type: T.Type, _ form: ReadForm = .decoded, forKey key: String, expirationPolicy: ExpirationPolicy?
    ) async throws(HoardError) -> CacheEntry<T>? {
        var found: Found?
        guard let value = try await lookUp(T.self, form, forKey: key, expirationPolicy: expirationPolicy, found: &found),
            let found
        else { return nil }
        return found.entry(value, retrievedAt: configuration.now())
    }

    /// The fresh cached value, or `nil` on a miss or a read error (logged: the caller fetches).
    func cachedEntry<T: Cachable>(
        _ type: T.Type, _ form: ReadForm = .decoded, forKey key: String, expirationPolicy: ExpirationPolicy?
    ) async -> CacheEntry<T>? {
        do {
            return try await lookUpEntry(T.self, form, forKey: key, expirationPolicy: expirationPolicy)
        } catch {
            logger.warning(
                "Cannot read the cached value; fetching", metadata: ["key": .string(key), "error": "\(error)"])
            return nil
        }
    }

    /// The value under `key` even when it has expired (then marked stale), for a fallback. Counts
    /// nothing; read errors are logged and give `nil`.
    func fallbackEntry<T: Cachable>(
        _ type: T.Type, forKey key: String, expirationPolicy: ExpirationPolicy?
    ) async -> CacheEntry<T>? {
        guard configuration.isCachingEnabled else { return nil }
        do {
            let freshness = freshness(expirationPolicy)
            var found: Found?
            guard
                let value = try await read(
                    T.self, .decoded, forKey: key, freshness: freshness, includingStale: true, found: &found),
                let found
            else { return nil }
            return found.entry(value, retrievedAt: freshness.now)
        } catch {
            logger.warning(
                "Cannot read the cached value to fall back on", metadata: ["key": .string(key), "error": "\(error)"])
            return nil
        }
    }

    // MARK: - Private

    /// Removes an entry whose bytes, stored as their type by an earlier version of the app (a
    /// Codable type that changed since), no longer decode: stale data, not a programming error.
    /// It goes from every tier, and is counted and logged.
    private func removeUndecodable(_ hit: TierHit, forKey key: String, error: any Error) async throws(HoardError) {
        try await chain.remove(forKey: key)
        monitor.record(.undecodableRemoved(key: key, type: hit.typeName, reason: String(describing: error)))
    }
}
