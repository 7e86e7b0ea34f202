import Foundation

/// A byte tier that answers a read without suspending: the disk tier, whose hit is an index lookup
/// and a read of a few kilobytes. First in a ``TierChain``, it is asked directly, which spares every
/// hit the suspension point and task frame of ``CacheTier/entry(forKey:)``.
protocol ImmediateCacheTier: CacheTier {
    /// The entry under `key`, expired or not, read now, as ``CacheTier/entry(forKey:)`` would give
    /// it, with the first `framing(bytes)` bytes of the stored bytes left out (0: none).
    ///
    /// - Parameter now: The reader's time (the tier's clock is the manager's).
    /// - Throws: The tier's read error.
    func immediateEntry(
        forKey key: String, now: Date, droppingFraming framing: (UnsafeRawBufferPointer) -> Int
    ) throws -> CacheTierEntry?
}

extension DiskCache: ImmediateCacheTier {
    func immediateEntry(
        forKey key: String, now: Date, droppingFraming framing: (UnsafeRawBufferPointer) -> Int
    ) throws -> CacheTierEntry? {
        try entryIncludingExpired(forKey: key, now: now, droppingFraming: framing).map(CacheTierEntry.init)
    }
}
