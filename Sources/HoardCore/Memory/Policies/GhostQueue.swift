/// S3-FIFO's ghost queue: the fingerprints of keys recently evicted from the small queue.
///
/// The paper's compact form of a FIFO of ghosts: each fingerprint (a hash of the key, so the queue
/// holds no key alive) is stored with a deadline counted in insertions. A fingerprint inserted
/// with capacity *c* stays a member while fewer than *c* later insertions have happened, exactly
/// as it would in a FIFO of *c* fingerprints. Expired fingerprints are purged in batches, so every
/// operation is one dictionary access, amortized.
///
/// Two keys with the same hash look alike; that only lets a new entry into the main queue early
/// and never affects what the cache returns.
///
/// ```swift
/// var ghost = GhostQueue()
/// ghost.insert(7, capacity: 2)
/// ghost.insert(8, capacity: 2)
/// ghost.insert(9, capacity: 2)      // 7 has seen two later insertions: it is gone
/// ghost.remove(8)                   // true: 8 was there, and is not any more
/// ```
struct GhostQueue {
    /// The insertion count at which each fingerprint stops being a member.
    private var deadlines: [Int: UInt64] = [:]
    /// The number of insertions so far.
    private var clock: UInt64 = 0
    /// The size of `deadlines` that triggers the next purge of expired fingerprints.
    private var purgeThreshold = Self.minimumPurgeThreshold

    private static let minimumPurgeThreshold = 64

    /// The number of member fingerprints.
    ///
    /// - Complexity: O(*n*), where *n* includes expired fingerprints not purged yet. For tests.
    var count: Int {
        deadlines.values.count { $0 > clock }
    }

    /// The number of fingerprints stored, members or not yet purged. For tests.
    var storedCount: Int { deadlines.count }

    /// Whether `fingerprint` is a member.
    ///
    /// - Complexity: O(1).
    func contains(_ fingerprint: Int) -> Bool {
        guard let deadline = deadlines[fingerprint] else { return false }
        return deadline > clock
    }

    /// Adds `fingerprint`, which stays a member for this and the next `capacity - 1` insertions.
    ///
    /// A fingerprint already present gets the new deadline.
    ///
    /// - Complexity: Amortized O(1).
    mutating func insert(_ fingerprint: Int, capacity: Int) {
        clock += 1
        deadlines[fingerprint] = clock + UInt64(max(capacity, 0))
        if deadlines.count >= purgeThreshold {
            let now = clock
            deadlines = deadlines.filter { $0.value > now }
            // At least half of the next purge's work removes something: amortized O(1).
            purgeThreshold = 2 * deadlines.count + Self.minimumPurgeThreshold
        }
    }

    /// Removes `fingerprint`.
    ///
    /// - Returns: Whether it was a member.
    /// - Complexity: O(1).
    @discardableResult
    mutating func remove(_ fingerprint: Int) -> Bool {
        guard let deadline = deadlines.removeValue(forKey: fingerprint) else { return false }
        return deadline > clock
    }

    /// Empties the queue.
    mutating func removeAll() {
        deadlines.removeAll()
        clock = 0
        purgeThreshold = Self.minimumPurgeThreshold
    }
}
