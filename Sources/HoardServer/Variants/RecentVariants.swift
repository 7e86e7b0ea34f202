import Foundation

/// The variants that recent requests for remote sources named, by path and by the formats the
/// client takes: a repeated request skips parsing its path, checking its source against the
/// allow-list and making its cache key, all fixed by a configuration that does not change while
/// the server runs. The signature is still checked on every request.
///
/// Invariant: the entries' costs (``cost(path:entry:)``, an estimate of the memory each takes)
/// total at most the table's ``BoundedTable/byteLimit`` (a ``BoundedTable``: when one more would not fit, everything is
/// forgotten first). Only ASCII paths are held, so that two paths are the same entry only when their bytes are. Local
/// sources are never held: their key carries the file's fingerprint, read on every request.
final class RecentVariants: Sendable {
    /// What a path resolved to.
    struct Entry: Sendable {
        let variant: Variant
        let url: URL
        /// Whether the path asked for `f:auto` (the answer then varies by `Accept`).
        let variesByAccept: Bool
    }

    struct Key: Hashable {
        let path: String
        let accepting: FormatNegotiation
    }

    /// The entries, by path and accepted formats (its count and costs are what tests and diagnostics read).
    let table: BoundedTable<Key, Entry>

    /// An empty memo whose entries' costs total at most `byteLimit` (0 holds nothing).
    init(byteLimit: Int) {
        table = BoundedTable(byteLimit: byteLimit)
    }

    /// What `path` resolved to for a client that takes `accepting`, if recent.
    func entry(path: String, accepting: FormatNegotiation) -> Entry? {
        table.value(forKey: Key(path: path, accepting: accepting))
    }

    /// Remembers what `path` resolved to, unless the path is not ASCII or costs more than the limit.
    func remember(_ entry: Entry, path: String, accepting: FormatNegotiation) {
        guard path.utf8.allSatisfy({ $0 < 0x80 }) else { return }
        table.setValue(entry, forKey: Key(path: path, accepting: accepting), cost: Self.cost(path: path, entry: entry))
    }

    /// What an entry is counted as: its path twice (the key, and the source inside the variant),
    /// its cache key, and a fixed share for the URL, the variant's other fields and the table.
    static func cost(path: String, entry: Entry) -> Int {
        2 * path.utf8.count + entry.variant.cacheKey.utf8.count + 256
    }
}
