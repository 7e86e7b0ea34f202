import Foundation
import HoardSystem

/// The entity tags of recent answers, by cache key and the stored entry they were computed from
/// (its date and size), so that an answer read again from the cache is not hashed again.
///
/// A tag is the first 128 bits of the content's SHA-256, in hex and quotes. An entry stored again
/// under the same key carries a new date, so its tag is computed afresh.
///
/// Invariant: the entries' costs (their key's bytes and a fixed share) total at most
/// the table's ``BoundedTable/byteLimit`` (a ``BoundedTable``: when one more would not fit, everything is forgotten first).
final class EntityTags: Sendable {
    struct Tag {
        let cachedAt: Date
        let byteCount: Int
        let value: String
    }

    /// The tags, by cache key (its count and costs are what tests and diagnostics read).
    let table: BoundedTable<String, Tag>

    /// An empty table whose entries' costs total at most `byteLimit` (0 keeps none).
    init(byteLimit: Int) {
        table = BoundedTable(byteLimit: byteLimit)
    }

    /// The tag of `bytes`, stored under `key` at `cachedAt`: remembered, or computed and
    /// remembered; `nil` when the system's SHA-256 fails.
    func tag(forKey key: String, cachedAt: Date, bytes: Data) -> String? {
        if let known = table.value(forKey: key), known.cachedAt == cachedAt, known.byteCount == bytes.count {
            return known.value
        }
        guard let digest = bytes.withUnsafeBytes({ SHA256.hash($0) }) else { return nil }
        let value = "\"" + SHA256.hex(digest.prefix(16)) + "\""
        table.setValue(Tag(cachedAt: cachedAt, byteCount: bytes.count, value: value), forKey: key, cost: key.utf8.count + 128)
        return value
    }
}
