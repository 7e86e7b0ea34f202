/// Counters and sizes of a ``Hoard`` since it was created in this process: a snapshot.
///
/// Lookups count once per tier they reach: a read that misses memory and hits disk is one memory
/// miss and one disk hit; a read no tier answers is a miss in every tier, and one ``misses``. A
/// read that finds only an expired value counts as a miss.
///
/// ```swift
/// let statistics = hoard.statistics
/// print("hit ratio \(statistics.hitRatio), \(statistics.coalescedFetches) fetches saved")
/// ```
public struct HoardStatistics: Sendable, Hashable {
    /// Reads answered, by the tier that answered (``CacheTierIdentifier/memory``, `.disk`, ...).
    public var hitsByTier: [CacheTierIdentifier: Int] = [:]
    /// Reads each tier could not answer (they went on to the next tier, or missed).
    public var missesByTier: [CacheTierIdentifier: Int] = [:]
    /// Entries each tier removed to stay within its limits (the disk's: this process's trims).
    public var evictionsByTier: [CacheTierIdentifier: Int] = [:]
    /// Reads no tier could answer.
    public var misses = 0
    /// Values stored (in every tier).
    public var stores = 0
    /// Values the ``InsertionPolicy`` refused to store.
    public var refusedStores = 0
    /// Fetches that ran.
    public var fetches = 0
    /// Calls that joined a fetch already running for their key instead of starting another.
    public var coalescedFetches = 0
    /// Fetches that threw or were cancelled.
    public var failedFetches = 0
    /// Times ``CachePolicy/networkElseCache`` returned a cached value because its fetch failed.
    public var cachedFallbacks = 0
    /// Entries removed because their bytes no longer decode as their type (each also a miss).
    public var undecodableEntries = 0
    /// The values in the memory tier now.
    public var memoryCount = 0
    /// The bytes the memory tier holds now: pixel bytes for images, encoded bytes otherwise.
    public var memoryBytes = 0
    /// The bytes of the disk tier's entry files, headers included: this process's running
    /// estimate (the folder is scanned at the first write, after the rescan interval and on the
    /// first statistics read; writes and removals since are added).
    public var diskBytes = 0

    /// Creates a snapshot with every counter at 0.
    public init() {}

    /// Reads `tier` answered.
    public func hits(in tier: CacheTierIdentifier) -> Int { hitsByTier[tier, default: 0] }

    /// Reads `tier` could not answer.
    public func misses(in tier: CacheTierIdentifier) -> Int { missesByTier[tier, default: 0] }

    /// Entries `tier` evicted.
    public func evictions(in tier: CacheTierIdentifier) -> Int { evictionsByTier[tier, default: 0] }

    /// Reads answered by the memory tier.
    public var memoryHits: Int { hits(in: .memory) }
    /// Reads the memory tier could not answer.
    public var memoryMisses: Int { misses(in: .memory) }
    /// Reads answered by the disk tier.
    public var diskHits: Int { hits(in: .disk) }
    /// Reads the disk tier could not answer.
    public var diskMisses: Int { misses(in: .disk) }
    /// Entries the memory tier evicted.
    public var memoryEvictions: Int { evictions(in: .memory) }
    /// Entries the disk tier removed by this process's trims.
    public var diskEvictions: Int { evictions(in: .disk) }

    /// Reads answered by any tier.
    public var hits: Int { hitsByTier.values.reduce(0, +) }

    /// Hits divided by reads, or 0 before the first read.
    ///
    /// - Complexity: O(tiers).
    public var hitRatio: Double {
        let lookups = hits + misses
        return lookups == 0 ? 0 : Double(hits) / Double(lookups)
    }

    /// Counts one event; `tierOrder` is the read order (memory first), so that a hit in one tier
    /// is a miss in every tier before it.
    mutating func count(_ event: HoardEvent, tierOrder: [CacheTierIdentifier]) {
        switch event {
        case .hit(_, let tier):
            for earlier in tierOrder.prefix(while: { $0 != tier }) { missesByTier[earlier, default: 0] += 1 }
            hitsByTier[tier, default: 0] += 1
        case .miss:
            for tier in tierOrder { missesByTier[tier, default: 0] += 1 }
            misses += 1
        case .stored: stores += 1
        case .storeRefused: refusedStores += 1
        case .evicted(let tier, let count): evictionsByTier[tier, default: 0] += count
        case .fetchStarted: fetches += 1
        case .fetchCoalesced: coalescedFetches += 1
        case .fetchFailed: failedFetches += 1
        case .servedCached: cachedFallbacks += 1
        case .undecodableRemoved: undecodableEntries += 1
        case .fetchSucceeded, .removed, .removedAll, .expiredAll: break
        }
    }
}

extension HoardStatistics: CustomStringConvertible {
    /// The main counters in words, for logs.
    public var description: String {
        // Memory, then the disk, then other tiers by name.
        let rank = { (tier: CacheTierIdentifier) in tier == .memory ? 0 : tier == .disk ? 1 : 2 }
        let byTier = hitsByTier.sorted { (rank($0.key), $0.key) < (rank($1.key), $1.key) }
            .map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        return "\(hits) hits (\(byTier.isEmpty ? "none" : byTier)), \(misses) misses, \(stores) stores, "
            + "\(evictionsByTier.values.reduce(0, +)) evictions, \(fetches) fetches, \(coalescedFetches) coalesced; "
            + "memory \(memoryCount) values, \(memoryBytes) bytes; disk \(diskBytes) bytes"
    }
}
