import Foundation

extension DiskCache: CacheTier {
    /// `"disk"`.
    public var identifier: CacheTierIdentifier { .disk }

    /// The entry under `key`, expired or not (an expired one is left in place and not marked used).
    ///
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` when the file cannot be read.
    public func entry(forKey key: String) async throws -> CacheTierEntry? {
        try entryIncludingExpired(forKey: key).map(CacheTierEntry.init)
    }

    /// Stores `entry` with its own dates; an entry already expired removes the key's value.
    ///
    /// - Throws: As ``store(_:forKey:expiry:)``.
    public func store(_ entry: CacheTierEntry, forKey key: String) async throws {
        try store(entry.bytes, forKey: key, creationDate: entry.createdAt, expirationDate: entry.expiresAt)
    }

    /// Removes every entry that `shouldRemove` picks by key and the first bytes of its value
    /// (up to 16 KiB, read with the header).
    ///
    /// - Complexity: O(m) file opens and header reads for m entry files.
    public func removeEntries(
        where shouldRemove: @escaping @Sendable (_ key: String, _ bytesPrefix: ArraySlice<UInt8>) -> Bool
    ) async throws -> [String] {
        try removeEntries(picking: shouldRemove)
    }

    /// Removes every entry created before `date` (``removeOlderThan(_:)``).
    ///
    /// - Complexity: O(m) file opens and header reads for m entry files.
    public func removeEntries(createdBefore date: Date) async throws {
        try removeOlderThan(date)
    }
}

extension CacheTierEntry {
    /// A disk entry as a tier hands it over: its bytes and dates.
    init(_ entry: DiskCache.Entry) {
        self.init(bytes: entry.data, createdAt: entry.creationDate, expiresAt: entry.expirationDate)
    }
}
