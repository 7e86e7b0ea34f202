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
}
