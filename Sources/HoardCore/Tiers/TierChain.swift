import Foundation
import HoardSystem
import Logging

/// The tiers of a ``Hoard`` in read order: decoded values in memory, then the byte tiers of
/// ``Hoard/Configuration/tiers`` (by default the disk alone).
///
/// Invariant: a read answers from the first byte tier that holds a fresh entry of the expected type
/// and leaves a copy of it, with the dates it was stored with (so its remaining expiry), in every
/// byte tier before that one; a write reaches every byte tier, in order, before memory changes.
///
/// The chain moves records and knows nothing of decoding, fetching or events: the manager decodes
/// a hit, promotes it with ``remember(_:cost:forKey:)`` and reports what happened.
final class TierChain: Sendable {
    /// Decoded values, with their dates and type names.
    let memory: MemoryCache<ExactString, StoredValue>
    /// The disk tier, or why there is none (it could not open, or is not configured): for what
    /// only the disk does (listing, trimming).
    let disk: Result<DiskCache, HoardError>
    /// The byte tiers after memory, in read order.
    let tiers: [any CacheTier]
    /// The first byte tier when it answers without suspending (the disk, usually): reads ask it
    /// directly, the rest through ``CacheTier/entry(forKey:)``.
    private let immediateFirst: (any ImmediateCacheTier)?
    private let logger: Logger

    /// The memory tier and the byte tiers `configuration` lists, the disk opened (or kept as its
    /// error) with `onTrim` told how many entries each trim removes.
    init(configuration: Hoard.Configuration, onTrim: @escaping @Sendable (Int) -> Void) {
        logger = configuration.logger
        memory = MemoryCache(
            validated: .init(
                countLimit: configuration.memoryCountLimit,
                costLimit: configuration.memoryCostLimit,
                evictionPolicy: configuration.memoryEvictionPolicy,
                now: configuration.now))
        let disk = Self.openDisk(configuration, onTrim: onTrim)
        self.disk = disk
        tiers = configuration.tiers.map { tier in
            switch tier.kind {
            case .custom(let tier): tier
            case .disk:
                switch disk {
                case .success(let cache): cache
                case .failure(let error): UnavailableTier(identifier: .disk, error: error)
                }
            }
        }
        immediateFirst = tiers.first as? any ImmediateCacheTier
    }

    /// The first shared tier among ``tiers``: it coordinates fetches and cache-wide marks.
    var sharedTier: (any SharedCacheTier)? {
        tiers.lazy.compactMap { $0 as? any SharedCacheTier }.first
    }

    // MARK: - Reading

    /// The memory tier's record for `key`, fresh or not.
    func memoryRecord(forKey key: String) -> StoredValue? {
        memory.value(forKey: ExactString(key))
    }

    /// The first byte tier's entry for `key` stored as `expected`: a fresh one, or a stale one too
    /// when `includingStale`. A fresh hit is copied into the byte tiers before the one that had it
    /// (a failed copy is logged: it only costs the copy). Not generic, so that the tiers are asked
    /// once for every type.
    ///
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)``, or a tier's error as
    ///   ``HoardError/tier(_:underlying:)``.
    @inline(__always)  // a hit in an immediate first tier makes no async call
    func hit(
        forKey key: String, expecting expected: String, freshness: Freshness, includingStale: Bool
    ) async throws(HoardError) -> TierHit? {
        if let immediateFirst,
            let hit = try immediateHit(
                in: immediateFirst, forKey: key, expecting: expected, freshness: freshness,
                includingStale: includingStale)
        {
            return hit
        }
        let start = immediateFirst == nil ? 0 : 1
        guard start < tiers.count else { return nil }
        return try await hit(
            forKey: key, expecting: expected, freshness: freshness, includingStale: includingStale, from: start)
    }

    /// The first byte tier's fresh entry for `key` stored as `expected`, when that tier answers
    /// without suspending: ``hit(forKey:expecting:freshness:includingStale:)``'s first step alone,
    /// for a caller on an event loop. `nil` when the first tier cannot answer so.
    func immediateHit(forKey key: String, expecting expected: String, freshness: Freshness) throws(HoardError)
        -> TierHit?
    {
        guard let immediateFirst else { return nil }
        return try immediateHit(
            in: immediateFirst, forKey: key, expecting: expected, freshness: freshness, includingStale: false)
    }

    // MARK: - Writing and removing

    /// Puts `record` in the memory tier.
    ///
    /// - Returns: The number of entries that evicted.
    func remember(_ record: StoredValue, cost: Int, forKey key: String) -> Int {
        memory.setValueCountingEvictions(record, forKey: ExactString(key), cost: cost, expiration: record.expiresAt)
    }

    /// Writes `entry` through every byte tier in order, then puts `record` in memory, or, without
    /// one, drops memory's value for `key`.
    ///
    /// - Returns: The number of memory entries that evicted.
    /// - Throws: The first error a tier throws (a local tier's; a shared tier that cannot reach its
    ///   server drops the write itself); the tiers after it and memory are not written.
    func write(_ entry: CacheTierEntry, forKey key: String, memory record: (StoredValue, cost: Int)?)
        async throws(HoardError) -> Int
    {
        for tier in tiers {
            do {
                try await tier.store(entry, forKey: key)
            } catch {
                throw HoardError(tier: tier.identifier, wrapping: error)
            }
        }
        guard let (record, cost) = record else {
            memory.removeValue(forKey: ExactString(key))
            return 0
        }
        return remember(record, cost: cost, forKey: key)
    }

    /// Removes `key` from memory and from every byte tier.
    ///
    /// - Throws: The first error a tier throws, after every tier has been asked.
    func remove(forKey key: String) async throws(HoardError) {
        memory.removeValue(forKey: ExactString(key))
        var firstError: HoardError?
        for tier in tiers {
            do {
                try await tier.remove(forKey: key)
            } catch {
                firstError = firstError ?? HoardError(tier: tier.identifier, wrapping: error)
            }
        }
        if let firstError { throw firstError }
    }

    /// Empties memory and every byte tier.
    ///
    /// - Throws: The first tier's error; the tiers after it are not emptied.
    func removeAll() async throws(HoardError) {
        memory.removeAll()
        for tier in tiers {
            do {
                try await tier.removeAll()
            } catch {
                throw HoardError(tier: tier.identifier, wrapping: error)
            }
        }
    }

    /// Removes what `shouldRemove` picks by key and stored type name from memory and every byte tier.
    ///
    /// - Returns: The keys removed, each once.
    /// - Throws: The first tier's error; the tiers after it are not asked.
    func removeAll(where shouldRemove: @escaping @Sendable (_ key: String, _ typeName: String?) -> Bool)
        async throws(HoardError) -> Set<String>
    {
        var removed = Set(memory.removeValues { key, record in shouldRemove(key.string, record.typeName) }.map(\.string))
        for tier in tiers {
            do {
                removed.formUnion(
                    try await tier.removeEntries { key, prefix in
                        shouldRemove(key, TypedPayload.typeName(prefixing: prefix))
                    })
            } catch {
                throw HoardError(tier: tier.identifier, wrapping: error)
            }
        }
        return removed
    }

    /// Applies another machine's removal of everything to this one: empties memory and removes what
    /// the byte tiers before the shared one hold from before `date` (a tier that cannot is logged).
    func removeLocalEntries(createdBefore date: Date) async {
        memory.removeAll()
        for tier in tiers.prefix(while: { !($0 is any SharedCacheTier) }) {
            do {
                try await tier.removeEntries(createdBefore: date)
            } catch {
                logger.warning(
                    "Cannot apply another machine's removeAll() to a local tier",
                    metadata: ["tier": .string(tier.identifier.rawValue), "error": "\(error)"])
            }
        }
    }

    // MARK: - Private

    /// The disk tier `configuration` lists, opened; or why there is none.
    private static func openDisk(_ configuration: Hoard.Configuration, onTrim: @escaping @Sendable (Int) -> Void)
        -> Result<DiskCache, HoardError>
    {
        guard configuration.listsDisk else {
            return .failure(.tierNotConfigured(.disk))
        }
        var diskConfiguration = DiskCache.Configuration(sizeLimit: configuration.diskSizeLimit)
        diskConfiguration.writeLockTimeout = configuration.diskWriteLockTimeout
        diskConfiguration.logger = configuration.logger
        diskConfiguration.now = configuration.now
        diskConfiguration.onTrim = onTrim
        do {
            return .success(try DiskCache(directory: configuration.resolvedDirectory, configuration: diskConfiguration))
        } catch {
            return .failure(HoardError(tier: .disk, wrapping: error))
        }
    }

    /// ``hit(forKey:expecting:freshness:includingStale:)`` asking the tiers from `start` on
    /// through ``CacheTier/entry(forKey:)``.
    private func hit(
        forKey key: String, expecting expected: String, freshness: Freshness, includingStale: Bool, from start: Int
    ) async throws(HoardError) -> TierHit? {
        for index in start..<tiers.count {
            let tier = tiers[index]
            let stored: CacheTierEntry?
            do {
                stored = try await tier.entry(forKey: key)
            } catch {
                throw HoardError(tier: tier.identifier, wrapping: error)
            }
            guard let stored else { continue }
            let isFresh = freshness.isFresh(cachedAt: stored.createdAt, expiresAt: stored.expiresAt)
            guard isFresh || includingStale else { continue }
            let (typeName, payload) = try Self.unwrap(stored, forKey: key, expecting: expected)
            if isFresh { await copy(stored, forKey: key, into: tiers[..<index]) }
            return TierHit(
                createdAt: stored.createdAt, expiresAt: stored.expiresAt, typeName: typeName, payload: payload,
                source: tier.identifier, isFresh: isFresh)
        }
        return nil
    }

    /// `tier`'s entry for `key` as a ``TierHit``, read synchronously.
    ///
    /// The read leaves the type tag out of the bytes it hands over when it names `expected`, so
    /// that the value is the read's own buffer; any other tag is unwrapped (and refused) as usual.
    private func immediateHit(
        in tier: any ImmediateCacheTier, forKey key: String, expecting expected: String, freshness: Freshness,
        includingStale: Bool
    ) throws(HoardError) -> TierHit? {
        var isTagDropped = false
        let found: CacheTierEntry?
        do {
            found = try tier.immediateEntry(forKey: key, now: freshness.now) { bytes in
                let tagByteCount = TypedPayload.tagByteCount(of: bytes, naming: expected) ?? 0
                isTagDropped = tagByteCount > 0
                return tagByteCount
            }
        } catch {
            throw HoardError(tier: tier.identifier, wrapping: error)
        }
        guard let found else { return nil }
        let isFresh = freshness.isFresh(cachedAt: found.createdAt, expiresAt: found.expiresAt)
        guard isFresh || includingStale else { return nil }
        // A read's bytes are its own buffer, and no faster tier gets a copy of them: the value
        // may share it instead of copying it.
        var (typeName, payload) = (expected, found.bytes)
        if !isTagDropped {
            (typeName, payload) = try Self.unwrap(found, forKey: key, expecting: expected, sharingStorage: true)
        }
        return TierHit(
            createdAt: found.createdAt, expiresAt: found.expiresAt, typeName: typeName, payload: payload,
            source: tier.identifier, isFresh: isFresh)
    }

    /// Copies a fresh hit into the faster tiers before the one that had it; a failure only costs
    /// the copy, so it is logged.
    private func copy(_ entry: CacheTierEntry, forKey key: String, into faster: ArraySlice<any CacheTier>) async {
        for tier in faster {
            do {
                try await tier.store(entry, forKey: key)
            } catch {
                logger.warning(
                    "Cannot copy a cached value into a faster tier",
                    metadata: ["key": .string(key), "tier": .string(tier.identifier.rawValue), "error": "\(error)"])
            }
        }
    }

    /// The type name and the value's bytes of `stored`, which must have been stored as `expected`.
    ///
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)`` for another type or bytes
    ///   without a type tag.
    private static func unwrap(
        _ stored: CacheTierEntry, forKey key: String, expecting expected: String, sharingStorage: Bool = false
    ) throws(HoardError) -> (typeName: String, payload: Data) {
        guard let (typeName, payload) = TypedPayload.unwrap(stored.bytes, expecting: expected, sharingStorage: sharingStorage)
        else {
            throw .typeMismatch(key: key, expected: expected, stored: HoardError.untaggedValue)
        }
        guard typeName == expected else {
            throw .typeMismatch(key: key, expected: expected, stored: typeName)
        }
        return (typeName, payload)
    }
}
