import Foundation

extension DiskCache {
    /// An entry's key, sizes and dates, as the index holds them.
    public struct EntryInfo: Sendable, Hashable {
        /// The entry's key.
        public var key: String
        /// The size of the stored value, in bytes.
        public var payloadByteCount: Int
        /// The size of the entry's record (header, key and value), in bytes: what counts against
        /// ``Configuration/sizeLimit``.
        public var fileByteCount: Int
        /// When the entry was stored.
        public var creationDate: Date
        /// When the entry expires, or `nil` if it never does.
        public var expirationDate: Date?
        /// When the entry was last stored or read (to ``Configuration/recencyUpdateInterval``):
        /// trims remove the entries with the oldest such dates first.
        public var lastUsedDate: Date
    }

    /// The entries in the cache, in no particular order, with their sizes and dates.
    ///
    /// Reads the index, not the entries, and writes nothing: expired entries are left out (their
    /// space comes back with ``removeExpired()`` or a trim); an entry whose record turns out
    /// damaged when read is a miss.
    ///
    /// ```swift
    /// let bytes = try cache.entryInfos().reduce(0) { $0 + $1.fileByteCount }
    /// ```
    ///
    /// - Returns: One element per live entry.
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` when the index cannot be read.
    /// - Complexity: O(m) for m entries, one scan of the index.
    public func entryInfos() throws -> [EntryInfo] {
        let now = configuration.now()
        return try withIndex(writing: false) { try EntryTable(connection: $0).infos(liveAt: now) }
    }

    /// How many entries the cache holds, expired ones included until they are removed, by the index.
    ///
    /// ```swift
    /// print("\(try cache.entryCount) entries, \(try cache.totalSize) bytes")
    /// ```
    ///
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` when the index cannot be read.
    /// - Complexity: O(m) for m entries: one scan of an index of the index, not of the records.
    public var entryCount: Int {
        get throws {
            try withIndex(writing: false) { try EntryTable(connection: $0).count() }
        }
    }
}
