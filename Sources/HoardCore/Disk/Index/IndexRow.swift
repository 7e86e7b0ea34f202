import Foundation

/// An index row without its record: the key's hash, the record's length, when it was last used,
/// and where the record lives.
struct IndexRow: Sendable, Hashable {
    /// Where an entry's record lives, as its index row says.
    enum Placement: Int, Sendable, Hashable {
        /// Inside the index database.
        case inline = 0
        /// In a file of its own, `<root>/<2 hex digits>/<64 hex digits>`.
        case file = 1
        /// In a segment file shared with other records, `<root>/segment-<id>`.
        case segment = 2

        /// SQL over an `entries` row that gives its placement's raw value.
        static let column = "CASE WHEN record IS NOT NULL THEN 0 WHEN segment IS NULL THEN 1 ELSE 2 END"
        /// SQL that picks the rows of entries in files of their own.
        static let isFile = "record IS NULL AND segment IS NULL"
    }

    var hash: [UInt8]
    var byteCount: Int
    var lastUsed: Double
    var placement: Placement

    /// The columns, in this order, that a query selects first for ``init(_:)`` to read.
    static let rowColumns = "hash, \(columnsBesideHash)"
    /// The columns, in this order, that a query of a known hash selects first for
    /// ``init(hash:_:firstColumn:)`` to read.
    static let columnsBesideHash = "size, used, \(Placement.column)"

    init(hash: [UInt8], byteCount: Int, lastUsed: Double, placement: Placement) {
        self.hash = hash
        self.byteCount = byteCount
        self.lastUsed = lastUsed
        self.placement = placement
    }

    /// The row at `statement`'s current step, which selected ``rowColumns`` first.
    init(_ statement: SQLiteStatement) {
        self.init(hash: statement.blob(0), statement, firstColumn: 1)
    }

    /// The row of `hash` at `statement`'s current step, which selected ``columnsBesideHash`` from
    /// `firstColumn` on.
    init(hash: [UInt8], _ statement: SQLiteStatement, firstColumn: Int32 = 0) {
        self.init(
            hash: hash, byteCount: statement.byteCount(firstColumn), lastUsed: statement.double(firstColumn + 1),
            placement: Placement(rawValue: statement.int(firstColumn + 2)) ?? .file)
    }
}
