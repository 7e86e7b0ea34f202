/// Which entry a ``MemoryCache`` removes when an insertion does not fit in its limits.
///
/// Every policy costs O(1) per operation. ``lru`` is the default because it is the familiar
/// choice; ``s3fifo`` usually has the best hit ratio, on skewed workloads most of all, since it lets
/// entries that are used once leave quickly without pushing out the ones that are used again.
///
/// ```swift
/// let thumbnails = MemoryCache<String, Image>(
///     configuration: .init(countLimit: 500, evictionPolicy: .s3fifo))
/// ```
public enum EvictionPolicy: Sendable, Hashable, CaseIterable {
    /// Least recently used: evicts the entry that has gone longest without a hit or an overwrite.
    case lru
    /// First in, first out: evicts the entry that was inserted earliest; hits change nothing.
    case fifo
    /// Least frequently used: evicts the entry with the fewest hits since it was inserted,
    /// the least recently used among ties. Entries that were popular once stay until others
    /// overtake their count, so LFU suits stable popularity, not shifting workloads.
    case lfu
    /// S3-FIFO (Yang et al., SOSP '23): new entries wait in a small FIFO queue holding about 10% of
    /// the entries; those hit more than once there move on to a main FIFO queue that gives hit
    /// entries a second chance, and the others are evicted and remembered in a ghost queue of key
    /// hashes, so that a key which returns soon enters the main queue directly.
    case s3fifo
}
