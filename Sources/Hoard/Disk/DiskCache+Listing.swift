import Foundation

extension DiskCache {
    /// An entry's key, sizes and dates, read from its header without its payload.
    public struct EntryInfo: Sendable, Hashable {
        /// The entry's key.
        public var key: String
        /// The size of the stored value, in bytes.
        public var payloadByteCount: Int
        /// The size of the entry's file (header, key and value), in bytes: what counts against
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
    /// Reads each file's header (not its payload): expired entries and files whose header does not
    /// verify are left out, and removed.
    ///
    /// ```swift
    /// let bytes = try cache.entryInfos().reduce(0) { $0 + $1.fileByteCount }
    /// ```
    ///
    /// - Returns: One element per live entry.
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the folder cannot be
    ///   listed; ``DiskCacheError/readFailed(path:call:errno:)`` when an entry cannot be read.
    /// - Complexity: O(m) file opens and header reads for m entry files.
    public func entryInfos() throws -> [EntryInfo] {
        let now = configuration.now()
        return try scanEntryFiles().compactMap { scanned in
            let lookup = try readEntryFile(
                at: scanned.path, fileName: scanned.fileName, expectedKey: nil, options: [], now: now)
            guard let file = lookup.file else { return nil }
            return EntryInfo(
                key: file.header.key, payloadByteCount: file.header.payloadByteCount,
                fileByteCount: file.status.byteCount, creationDate: file.header.creationDate,
                expirationDate: file.header.expirationDate, lastUsedDate: file.status.modificationDate)
        }
    }
}
