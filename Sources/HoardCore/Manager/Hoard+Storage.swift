import Foundation
import HoardSystem

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

    /// The fresh value under `key`: from memory, else from the first byte tier that has it (then
    /// copied into the tiers before that one and into memory, with its dates).
    ///
    /// Records a hit or a miss. Expired values stay where they are (a fallback may still want them);
    /// the tiers' limits, trims and later stores take them out.
    ///
    /// An entry stored as `T` whose bytes no longer decode as `T` (the type changed in an app
    /// update) is a miss: it is removed from every tier, logged and counted.
    ///
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)``, ``HoardError/tier(_:underlying:)``.
    func lookUp<T: Cachable>(
        _ type: T.Type, forKey key: String, expirationPolicy: ExpirationPolicy?
    ) async throws -> CacheEntry<T>? {
        if let entry = try memoryHit(T.self, forKey: key, expirationPolicy: expirationPolicy) { return entry }
        return try await lookUpTiers(T.self, forKey: key, expirationPolicy: expirationPolicy)
    }

    /// The fresh value under `key` in the memory tier, counted as a hit; `nil` (counting nothing)
    /// otherwise. Synchronous, so that a memory hit costs no suspension point or task allocation:
    /// callers try it before ``lookUpTiers(_:forKey:expirationPolicy:)``.
    ///
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)``.
    func memoryHit<T: Cachable>(
        _ type: T.Type, forKey key: String, expirationPolicy: ExpirationPolicy?
    ) throws(HoardError) -> CacheEntry<T>? {
        guard configuration.isCachingEnabled,
            let entry = try memoryEntry(T.self, forKey: key, freshness: freshness(expirationPolicy)), !entry.isStale
        else { return nil }
        monitor.record(.hit(key: key, tier: .memory))
        return entry
    }

    /// The fresh value under `key` in the memory tier, counted as a hit; `nil` (counting nothing)
    /// otherwise: ``memoryHit(_:forKey:expirationPolicy:)`` for a caller that wants the value
    /// alone. It makes no ``CacheEntry``, whose generic metadata an unspecialized caller would
    /// look up on every hit.
    ///
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)``.
    func memoryHitValue<T: Cachable>(_ type: T.Type, forKey key: String) throws(HoardError) -> T? {
        guard configuration.isCachingEnabled, let record = memory.value(forKey: ExactString(key)) else { return nil }
        guard let value = record.value as? T else {
            throw .typeMismatch(key: key, expected: Self.typeName(of: T.self), stored: record.typeName)
        }
        guard freshness(nil).isFresh(cachedAt: record.cachedAt, expiresAt: record.expiresAt) else { return nil }
        monitor.record(.hit(key: key, tier: .memory))
        return value
    }

    /// The rest of ``lookUp(_:forKey:expirationPolicy:)`` after a memory miss: the byte tiers in
    /// order, then a miss.
    func lookUpTiers<T: Cachable>(
        _ type: T.Type, forKey key: String, expirationPolicy: ExpirationPolicy?
    ) async throws -> CacheEntry<T>? {
        guard configuration.isCachingEnabled else { return nil }
        let freshness = freshness(expirationPolicy)
        if let entry = try await tierEntry(T.self, forKey: key, freshness: freshness, includingStale: false) {
            monitor.record(.hit(key: key, tier: entry.source))
            return entry
        }
        monitor.record(.miss(key: key))
        return nil
    }

    /// The value under `key` even when it has expired (then marked stale), for a fallback: a fresh
    /// value in memory, else the byte tiers', else a stale one in memory. Counts nothing; read
    /// errors are logged and give `nil`.
    func fallbackEntry<T: Cachable>(
        _ type: T.Type, forKey key: String, expirationPolicy: ExpirationPolicy?
    ) async -> CacheEntry<T>? {
        guard configuration.isCachingEnabled else { return nil }
        let freshness = freshness(expirationPolicy)
        do {
            let inMemory = try memoryEntry(T.self, forKey: key, freshness: freshness)
            if let inMemory, !inMemory.isStale { return inMemory }
            return try await tierEntry(T.self, forKey: key, freshness: freshness, includingStale: true) ?? inMemory
        } catch {
            logger.warning(
                "Cannot read the cached value to fall back on", metadata: ["key": .string(key), "error": "\(error)"])
            return nil
        }
    }

    /// What a write stored: its dates and the bytes (the value's encoding).
    package typealias Written = (cachedAt: Date, expiresAt: Date?, bytes: Data)

    /// Encodes a value in place of ``Cachable/encode(with:)`` with the configuration's options.
    package typealias ValueEncoder<T> = @Sendable (T) throws -> Data

    /// Encodes `object` and, unless the insertion policy refuses it, stores it in every tier and
    /// the decoded value in memory.
    ///
    /// - Returns: What was stored, or `nil` when it was refused (then the key's previous value has
    ///   been removed).
    /// - Throws: ``HoardError/invalidValue(_:)`` for an expiry that is not finite;
    ///   ``HoardError/encodingFailed(key:type:underlying:)``, ``HoardError/tier(_:underlying:)``.
    @discardableResult
    func write<T: Cachable>(
        _ object: T, forKey key: String, expiry: Expiry?, encoder: ValueEncoder<T>? = nil
    ) async throws(HoardError) -> Written? {
        try Self.validate(expiry, "expiry")
        let bytes = try encode(object, forKey: key, encoder: encoder)
        return try await writeBytes(
            bytes, typeName: Self.typeName(of: T.self), candidate: object, forKey: key, expiry: expiry,
            decoded: (object, object.memoryCost(encodedByteCount: bytes.count)))
    }

    /// Stores `bytes`, the encoding of a value of type `typeName`, in every byte tier unless the
    /// insertion policy refuses `candidate`; then puts `decoded` (the value and its memory cost) in
    /// memory, or, with none or an entry already expired, drops memory's value for `key`. The one
    /// write path under ``write(_:forKey:expiry:)`` and ``writeEncoded(_:typeName:candidate:forKey:expiry:framed:)``.
    /// `framed`, when given, is `bytes` already laid out with their type (see ``TypedPayload``).
    func writeBytes(
        _ bytes: Data, typeName: String, candidate: any Cachable, forKey key: String, expiry: Expiry?,
        decoded: (value: any Sendable, cost: Int)?, framed: Data? = nil
    ) async throws(HoardError) -> Written? {
        guard configuration.insertionPolicy.shouldStore(.init(key: key, value: candidate, byteCount: bytes.count))
        else {
            try await removeEverywhere(forKey: key)
            monitor.record(.storeRefused(key: key, byteCount: bytes.count))
            return nil
        }
        let now = configuration.now()
        let expiresAt = (expiry ?? configuration.defaultExpiry).expirationDate(from: now)
        try await storeInTiers(
            CacheTierEntry(bytes: framed ?? TypedPayload.wrap(bytes, typeName: typeName), createdAt: now, expiresAt: expiresAt),
            forKey: key)
        var evicted = 0
        if let decoded, !(expiresAt?.hasExpired(at: now) ?? false) {
            let record = StoredValue(value: decoded.value, typeName: typeName, cachedAt: now, expiresAt: expiresAt)
            evicted = remember(record, forKey: key, cost: decoded.cost)
        } else {
            memory.removeValue(forKey: ExactString(key))
        }
        monitor.record(HoardMonitor.memoryEvictions(evicted), then: .stored(key: key, byteCount: bytes.count))
        return (now, expiresAt, bytes)
    }

    /// Checks an expiry given to a write, naming it `field`.
    ///
    /// - Throws: ``HoardError/invalidValue(_:)`` for an expiry that is not finite.
    static func validate(_ expiry: Expiry?, _ field: String) throws(HoardError) {
        do {
            try expiry?.validate(field)
        } catch {
            throw .invalidValue(error)
        }
    }

    /// `object`'s bytes from `encoder`, or with ``Configuration/encodingOptions`` when it is `nil`.
    func encode<T: Cachable>(_ object: T, forKey key: String, encoder: ValueEncoder<T>? = nil) throws(HoardError)
        -> Data
    {
        do {
            if let encoder { return try encoder(object) }
            return try object.encode(with: configuration.encodingOptions)
        } catch {
            throw .encodingFailed(key: key, type: Self.typeName(of: T.self), underlying: error)
        }
    }

    /// The name a value's type is recorded under.
    package static func typeName<T: Cachable>(of type: T.Type) -> String {
        type.cacheTypeIdentifier
    }

    /// The first byte tier's value for `key`: a fresh one is copied into the tiers before it and
    /// promoted to memory; a stale one is decoded only when `includingStale`, and left where it is.
    /// Bytes of the right type that do not decode are removed from every tier and give `nil`.
    func tierEntry<T: Cachable>(
        _ type: T.Type, forKey key: String, freshness: Freshness, includingStale: Bool
    ) async throws(HoardError) -> CacheEntry<T>? {
        guard
            let hit = try await tierHit(
                forKey: key, expecting: Self.typeName(of: T.self), freshness: freshness, includingStale: includingStale)
        else { return nil }
        let value: T
        do {
            value = try T.decode(hit.payload)
        } catch {
            try await removeUndecodable(hit, forKey: key, error: error)
            return nil
        }
        if hit.isFresh {
            await copyToFasterTiers(hit, forKey: key)
            if let evicted = HoardMonitor.memoryEvictions(promote(value, from: hit, forKey: key)) {
                monitor.record(evicted)
            }
        }
        return CacheEntry(
            value: value, cachedAt: hit.createdAt, expiresAt: hit.expiresAt,
            source: tiers[hit.tierIndex].identifier, retrievedAt: freshness.now, isStale: !hit.isFresh)
    }

    /// ``lookUpTiers(_:forKey:expirationPolicy:)`` for a caller that wants the value alone: it
    /// makes no ``CacheEntry``, whose generic metadata an unspecialized caller would look up on
    /// every disk hit. A hit in a first disk tier makes no async call (the costs of a disk hit
    /// through the manager are in Benchmarks/RESULTS.md).
    @inline(__always)  // into `retrieve`, its one caller: one task frame less per disk hit
    func lookUpTierValue<T: Cachable>(_ type: T.Type, forKey key: String) async throws(HoardError) -> T? {
        guard configuration.isCachingEnabled else { return nil }
        let freshness = freshness(nil)
        let expected = Self.typeName(of: T.self)
        var found = try firstDiskHit(forKey: key, expecting: expected, freshness: freshness, includingStale: false)
        if found == nil, laterTiersStart < tiers.count {
            found = try await tierHit(
                forKey: key, expecting: expected, freshness: freshness, includingStale: false, from: laterTiersStart)
        }
        guard let hit = found else {
            monitor.record(.miss(key: key))
            return nil
        }
        let value: T
        do {
            value = try T.decode(hit.payload)
        } catch {
            try await removeUndecodable(hit, forKey: key, error: error)
            monitor.record(.miss(key: key))
            return nil
        }
        await copyToFasterTiers(hit, forKey: key)
        let evicted = promote(value, from: hit, forKey: key)
        monitor.record(HoardMonitor.memoryEvictions(evicted), then: .hit(key: key, tier: tiers[hit.tierIndex].identifier))
        return value
    }

    /// A byte tier's answer for a key, checked for its type but not decoded.
    struct TierHit {
        /// When the entry was stored.
        let createdAt: Date
        /// When the entry expires, or `nil` when it never does.
        let expiresAt: Date?
        /// The entry as its tier holds it, for the tiers before that one; `nil` for a hit in the
        /// first tier, which no tier precedes (its bytes may then be the payload alone).
        let forFasterTiers: CacheTierEntry?
        /// The type name it was stored under.
        let typeName: String
        /// The value's bytes, without the type tag.
        let payload: Data
        /// Which of ``tiers`` answered.
        let tierIndex: Int
        /// Whether the entry is fresh under the read's rules.
        let isFresh: Bool
    }

    /// The first byte tier's entry for `key` (a fresh one, or a stale one too when `includingStale`)
    /// stored as `expected`, asking the tiers from `start` on. Not generic, so that the tiers are
    /// asked once for every type.
    ///
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)``, or a tier's error.
    func tierHit(
        forKey key: String, expecting expected: String, freshness: Freshness, includingStale: Bool, from start: Int = 0
    ) async throws(HoardError) -> TierHit? {
        if start == 0, let hit = try firstDiskHit(
            forKey: key, expecting: expected, freshness: freshness, includingStale: includingStale)
        {
            return hit
        }
        for index in max(start, laterTiersStart)..<tiers.count {
            guard let stored = try await entry(in: tiers[index], forKey: key) else { continue }
            if let hit = try Self.hit(
                stored, in: index, forKey: key, expecting: expected, freshness: freshness, includingStale: includingStale,
                sharingStorage: index == 0 && tiers[index] is DiskCache)
            {
                return hit
            }
        }
        return nil
    }

    // MARK: - Private

    /// The memory tier's value for `key`, marked stale when it is not fresh.
    private func memoryEntry<T: Cachable>(
        _ type: T.Type, forKey key: String, freshness: Freshness
    ) throws(HoardError) -> CacheEntry<T>? {
        guard let record = memory.value(forKey: ExactString(key)) else { return nil }
        guard let value = record.value as? T else {
            throw .typeMismatch(key: key, expected: Self.typeName(of: T.self), stored: record.typeName)
        }
        return CacheEntry(
            value: value, cachedAt: record.cachedAt, expiresAt: record.expiresAt, source: .memory,
            retrievedAt: freshness.now,
            isStale: !freshness.isFresh(cachedAt: record.cachedAt, expiresAt: record.expiresAt))
    }

    /// The index in ``tiers`` of the first tier that ``tierHit(forKey:expecting:freshness:includingStale:from:)``
    /// asks through ``CacheTier/entry(forKey:)``: 1 when the first is ``firstTierDisk``, else 0.
    private var laterTiersStart: Int { firstTierDisk == nil ? 0 : 1 }

    /// ``firstTierDisk``'s entry for `key` as a ``TierHit`` (see ``tierHit(forKey:expecting:freshness:includingStale:from:)``),
    /// read synchronously; `nil` when there is no such tier or it has no such entry.
    ///
    /// The read leaves the type tag out of the bytes it hands over when it names `expected`, so
    /// that the value is the read's own buffer; any other tag is unwrapped (and refused) as usual.
    func firstDiskHit(
        forKey key: String, expecting expected: String, freshness: Freshness, includingStale: Bool
    ) throws(HoardError) -> TierHit? {
        guard let firstTierDisk else { return nil }
        var isTagDropped = false
        let found: DiskCache.Entry?
        do {
            // The disk tier's clock is the configuration's: the read's time serves it.
            found = try firstTierDisk.entryIncludingExpired(forKey: key, now: freshness.now) { payload in
                let tagByteCount = TypedPayload.tagByteCount(of: payload, naming: expected) ?? 0
                isTagDropped = tagByteCount > 0
                return tagByteCount
            }
        } catch {
            throw HoardError(tier: .disk, wrapping: error)
        }
        guard let found else { return nil }
        guard isTagDropped else {
            // A disk read's bytes are its own buffer, and no faster tier gets a copy of them: the
            // value may share it instead of copying it.
            return try Self.hit(
                CacheTierEntry(found), in: 0, forKey: key, expecting: expected, freshness: freshness,
                includingStale: includingStale, sharingStorage: true)
        }
        let isFresh = freshness.isFresh(cachedAt: found.creationDate, expiresAt: found.expirationDate)
        guard isFresh || includingStale else { return nil }
        return TierHit(
            createdAt: found.creationDate, expiresAt: found.expirationDate, forFasterTiers: nil, typeName: expected,
            payload: found.data, tierIndex: 0, isFresh: isFresh)
    }

    /// `stored`, the entry of tier `index`, as a ``TierHit`` when it is fresh (or `includingStale`).
    ///
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)`` for another type.
    private static func hit(
        _ stored: CacheTierEntry, in index: Int, forKey key: String, expecting expected: String,
        freshness: Freshness, includingStale: Bool, sharingStorage: Bool
    ) throws(HoardError) -> TierHit? {
        let isFresh = freshness.isFresh(cachedAt: stored.createdAt, expiresAt: stored.expiresAt)
        guard isFresh || includingStale else { return nil }
        let (typeName, payload) = try unwrap(stored, forKey: key, expecting: expected, sharingStorage: sharingStorage)
        return TierHit(
            createdAt: stored.createdAt, expiresAt: stored.expiresAt, forFasterTiers: index > 0 ? stored : nil,
            typeName: typeName, payload: payload, tierIndex: index, isFresh: isFresh)
    }

    /// Removes an entry whose bytes, stored as their type by an earlier version of the app (a
    /// Codable type that changed since), no longer decode: stale data, not a programming error.
    /// It goes from every tier, and is counted and logged.
    private func removeUndecodable(_ hit: TierHit, forKey key: String, error: any Error) async throws(HoardError) {
        try await removeEverywhere(forKey: key)
        monitor.record(.undecodableRemoved(key: key, type: hit.typeName, reason: String(describing: error)))
    }

    /// Puts a fresh hit's decoded `value` in the memory tier, with the hit's dates.
    ///
    /// - Returns: The number of entries that evicted.
    private func promote(_ value: some Cachable, from hit: TierHit, forKey key: String) -> Int {
        let record = StoredValue(
            value: value, typeName: hit.typeName, cachedAt: hit.createdAt, expiresAt: hit.expiresAt)
        return remember(record, forKey: key, cost: value.memoryCost(encodedByteCount: hit.payload.count))
    }

    /// Puts `record` in the memory tier.
    ///
    /// - Returns: The number of entries that evicted.
    private func remember(_ record: StoredValue, forKey key: String, cost: Int) -> Int {
        memory.setValueCountingEvictions(record, forKey: ExactString(key), cost: cost, expiration: record.expiresAt)
    }
}
