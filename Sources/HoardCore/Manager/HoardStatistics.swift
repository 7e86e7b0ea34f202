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
    /// The tiers in read order, memory first, and their counters at the same positions: arrays
    /// rather than dictionaries, so that counting a memory hit hashes nothing.
    private var tierOrder: [CacheTierIdentifier]
    private var tierHits: [Int]
    private var tierMisses: [Int]
    private var tierEvictions: [Int]
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
    /// Fetches that found another worker fetching the same key (its shared tier's lease held) and
    /// waited for its value instead of starting one.
    public var sharedFetchWaits = 0
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
    /// What the disk tier takes against its size limit (0 without one): its records (removed ones not yet
    /// compacted away included) and its index past its first 64 KiB, by the count every process
    /// sharing the folder keeps in the index (see ``DiskCache/Configuration/sizeLimit``).
    public var diskBytes = 0

    /// Creates a snapshot with every counter at 0, for a memory and a disk tier.
    public init() {
        self.init(tierOrder: [.memory, .disk])
    }

    /// Creates a snapshot with every counter at 0 for tiers read in `tierOrder`.
    init(tierOrder: [CacheTierIdentifier]) {
        self.tierOrder = tierOrder
        tierHits = Array(repeating: 0, count: tierOrder.count)
        tierMisses = tierHits
        tierEvictions = tierHits
    }

    /// Reads answered, by the tier that answered (``CacheTierIdentifier/memory``, `.disk`, ...).
    public var hitsByTier: [CacheTierIdentifier: Int] { Dictionary(zip(tierOrder, tierHits), uniquingKeysWith: +) }
    /// Reads each tier could not answer (they went on to the next tier, or missed).
    public var missesByTier: [CacheTierIdentifier: Int] { Dictionary(zip(tierOrder, tierMisses), uniquingKeysWith: +) }
    /// Entries each tier removed to stay within its limits (the disk's: this process's trims).
    public var evictionsByTier: [CacheTierIdentifier: Int] {
        Dictionary(zip(tierOrder, tierEvictions), uniquingKeysWith: +)
    }

    /// Reads `tier` answered.
    public func hits(in tier: CacheTierIdentifier) -> Int { position(of: tier).map { tierHits[$0] } ?? 0 }

    /// Reads `tier` could not answer.
    public func misses(in tier: CacheTierIdentifier) -> Int { position(of: tier).map { tierMisses[$0] } ?? 0 }

    /// Entries `tier` evicted.
    public func evictions(in tier: CacheTierIdentifier) -> Int { position(of: tier).map { tierEvictions[$0] } ?? 0 }

    /// Reads answered by the memory tier.
    public var memoryHits: Int { hits(in: .memory) }
    /// Reads the memory tier could not answer.
    public var memoryMisses: Int { misses(in: .memory) }
    /// Reads answered by the disk tier.
    @available(*, deprecated, message: "use hits(in: .disk): statistics are kept per configured tier")
    public var diskHits: Int { hits(in: .disk) }
    /// Reads the disk tier could not answer.
    @available(*, deprecated, message: "use misses(in: .disk): statistics are kept per configured tier")
    public var diskMisses: Int { misses(in: .disk) }
    /// Entries the memory tier evicted.
    public var memoryEvictions: Int { evictions(in: .memory) }
    /// Entries the disk tier removed by this process's trims.
    @available(*, deprecated, message: "use evictions(in: .disk): statistics are kept per configured tier")
    public var diskEvictions: Int { evictions(in: .disk) }

    /// Reads answered by any tier.
    public var hits: Int { tierHits.reduce(0, +) }

    /// Hits divided by reads, or 0 before the first read.
    ///
    /// - Complexity: O(tiers).
    public var hitRatio: Double {
        let lookups = hits + misses
        return lookups == 0 ? 0 : Double(hits) / Double(lookups)
    }

    /// Counts one event: a hit in one tier is also a miss in every tier before it.
    mutating func count(_ event: HoardEvent) {
        switch event {
        case .hit(_, let tier):
            guard let position = position(of: tier) else { return }
            for earlier in 0..<position { tierMisses[earlier] += 1 }
            tierHits[position] += 1
        case .miss:
            for position in tierMisses.indices { tierMisses[position] += 1 }
            misses += 1
        case .stored: stores += 1
        case .storeRefused: refusedStores += 1
        case .evicted(let tier, let count):
            if let position = position(of: tier) { tierEvictions[position] += count }
        case .fetchStarted: fetches += 1
        case .fetchCoalesced: coalescedFetches += 1
        case .waitedForSharedFetch: sharedFetchWaits += 1
        case .fetchFailed: failedFetches += 1
        case .servedCached: cachedFallbacks += 1
        case .undecodableRemoved: undecodableEntries += 1
        case .fetchSucceeded, .removed, .removedAll, .expiredAll: break
        }
    }

    /// Where `tier` is in the read order: a scan of a few short names, memory first.
    private func position(of tier: CacheTierIdentifier) -> Int? {
        tierOrder.firstIndex(of: tier)
    }
}

extension HoardStatistics: CustomStringConvertible {
    /// The main counters in words, for logs.
    public var description: String {
        // In read order: memory, then the configured tiers.
        let byTier = zip(tierOrder, tierHits).filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
        return "\(hits) hits (\(byTier.isEmpty ? "none" : byTier)), \(misses) misses, \(stores) stores, "
            + "\(tierEvictions.reduce(0, +)) evictions, \(fetches) fetches, \(coalescedFetches) coalesced; "
            + "memory \(memoryCount) values, \(memoryBytes) bytes; disk \(diskBytes) bytes"
    }
}
