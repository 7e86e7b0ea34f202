/// Counters of a ``RedisTier`` since it was made, in this process: a snapshot.
///
/// ```swift
/// let statistics = tier.statistics
/// print("\(statistics.hits) remote hits, \(statistics.errors) remote errors")
/// ```
public struct RedisTierStatistics: Sendable, Hashable {
    /// Reads that found an intact value.
    public var hits = 0
    /// Reads that found none (or a damaged one, or skipped a failing server).
    public var misses = 0
    /// Values written.
    public var stores = 0
    /// Values not written: their server was being skipped, failed, or the value was larger than
    /// ``RedisTier/Configuration/maximumValueByteCount``.
    public var droppedWrites = 0
    /// Values over the maximum size, kept local.
    public var oversizedValues = 0
    /// Values that did not decode (garbage, truncated, another key's): removed, each a miss.
    public var damagedValues = 0
    /// Commands that failed (a deadline, a refused connection, a server error).
    public var errors = 0
    /// Commands not sent because their server's circuit breaker was open.
    public var skippedCommands = 0
    /// Times a server's circuit breaker opened.
    public var breakerOpenings = 0
    /// Fetch leases taken by this process.
    public var leasesAcquired = 0
    /// Fetch leases found held by another worker.
    public var leasesHeldElsewhere = 0

    /// Every counter at 0.
    public init() {}
}
