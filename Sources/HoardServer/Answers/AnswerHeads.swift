import Foundation
import HoardSystem

/// The heads of recent answers — entity tag and fields — by cache key and the stored entry they
/// were made from (its date and size), so that an answer read again from the cache is neither
/// hashed nor given its fields again.
///
/// A tag is the first 128 bits of the content's SHA-256, in hex and quotes. An entry stored again
/// under the same key carries a new date, so its head is made afresh.
///
/// Invariant: the entries' costs (their key's bytes and a fixed share) total at most
/// the table's ``BoundedTable/byteLimit`` (a ``BoundedTable``: when one more would not fit,
/// everything is forgotten first).
final class AnswerHeads: Sendable {
    struct Known {
        let cachedAt: Date
        let byteCount: Int
        let head: Answer.Head
    }

    /// What one entry is counted as besides its key: a tag and six short fields, twice.
    static let entryCost = 768

    /// The heads, by cache key (its count and costs are what tests and diagnostics read).
    let table: BoundedTable<String, Known>
    /// Every answer's `Cache-Control`.
    let cacheControl: String

    /// An empty table whose entries' costs total at most `byteLimit` (0 keeps none), for answers
    /// carrying `cacheControl`.
    init(byteLimit: Int, cacheControl: String) {
        table = BoundedTable(byteLimit: byteLimit)
        self.cacheControl = cacheControl
    }

    /// The head of an answer with `bytes`, stored under `key` at `cachedAt`: remembered, or made
    /// and remembered (its tag `nil` when the system's SHA-256 fails).
    func head(forKey key: String, cachedAt: Date, bytes: Data) -> Answer.Head {
        if let known = table.value(forKey: key), known.cachedAt == cachedAt, known.byteCount == bytes.count {
            return known.head
        }
        let tag = bytes.withUnsafeBytes({ SHA256.hash($0) }).map { "\"" + SHA256.hex($0.prefix(16)) + "\"" }
        let head = Answer.Head(bytes: bytes, entityTag: tag, cacheControl: cacheControl)
        table.setValue(
            Known(cachedAt: cachedAt, byteCount: bytes.count, head: head), forKey: key,
            cost: key.utf8.count + Self.entryCost)
        return head
    }
}
