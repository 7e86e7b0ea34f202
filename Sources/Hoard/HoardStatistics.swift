/// Counters and sizes of a ``Hoard`` since it was created in this process: a snapshot.
///
/// Lookups count once per tier they reach: a read that misses memory and hits disk is one memory
/// miss and one disk hit. A read that finds only an expired value counts as a miss.
///
/// ```swift
/// let statistics = hoard.statistics
/// print("hit ratio \(statistics.hitRatio), \(statistics.coalescedFetches) fetches saved")
/// ```
public struct HoardStatistics: Sendable, Hashable {
    /// Reads answered by the memory tier.
    public var memoryHits = 0
    /// Reads the memory tier could not answer (they went on to the disk tier).
    public var memoryMisses = 0
    /// Reads answered by the disk tier.
    public var diskHits = 0
    /// Reads neither tier could answer.
    public var diskMisses = 0
    /// Values stored (in both tiers).
    public var stores = 0
    /// Values the ``InsertionPolicy`` refused to store.
    public var refusedStores = 0
    /// Entries the memory tier evicted to stay within its limits.
    public var memoryEvictions = 0
    /// Entries the disk tier removed to stay within its size limit (by this process's trims).
    public var diskEvictions = 0
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

    /// Reads answered by either tier.
    public var hits: Int { memoryHits + diskHits }

    /// Reads answered by neither tier.
    public var misses: Int { diskMisses }

    /// Hits divided by reads, or 0 before the first read.
    ///
    /// - Complexity: O(1).
    public var hitRatio: Double {
        let lookups = hits + misses
        return lookups == 0 ? 0 : Double(hits) / Double(lookups)
    }

    /// Adds what `event` counts.
    mutating func count(_ event: HoardEvent) {
        switch event {
        case .hit(_, .memory): memoryHits += 1
        case .hit(_, .disk):
            memoryMisses += 1
            diskHits += 1
        case .miss:
            memoryMisses += 1
            diskMisses += 1
        case .stored: stores += 1
        case .storeRefused: refusedStores += 1
        case .evicted(.memory, let count): memoryEvictions += count
        case .evicted(.disk, let count): diskEvictions += count
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
        "\(hits) hits (\(memoryHits) memory, \(diskHits) disk), \(misses) misses, \(stores) stores, "
            + "\(memoryEvictions + diskEvictions) evictions, \(fetches) fetches, \(coalescedFetches) coalesced; "
            + "memory \(memoryCount) values, \(memoryBytes) bytes; disk \(diskBytes) bytes"
    }
}
