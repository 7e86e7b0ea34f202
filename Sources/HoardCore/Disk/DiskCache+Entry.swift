import Foundation

extension DiskCache {
    /// A stored value with its metadata, as ``DiskCache/entry(forKey:)`` returns it.
    ///
    /// The bytes have been checked against the checksum written with them, and the entry had not
    /// expired when it was read.
    ///
    /// ```swift
    /// if let entry = try cache.entry(forKey: "feed") {
    ///     let age = Date().timeIntervalSince(entry.creationDate)
    ///     let expiry = entry.expirationDate?.description ?? "never"
    ///     print("\(entry.data.count) bytes, \(Int(age)) s old, expires \(expiry)")
    /// }
    /// ```
    public struct Entry: Sendable, Hashable {
        /// The key the value was stored under.
        public var key: String
        /// The stored bytes.
        public var data: Data
        /// When the value was stored, by the cache's clock.
        public var creationDate: Date
        /// When the value expires, or `nil` when it never does.
        public var expirationDate: Date?

        /// Creates an entry; caches make these, tests and wrappers may too.
        ///
        /// - Complexity: O(1).
        public init(key: String, data: Data, creationDate: Date, expirationDate: Date?) {
            self.key = key
            self.data = data
            self.creationDate = creationDate
            self.expirationDate = expirationDate
        }
    }
}
