/// The `segments` table through one connection: a row per segment file, its identifier (never
/// used twice) and its committed length.
///
/// Invariant: a segment's length moves only forward, in the transaction that appends to it, and
/// its row goes only once no entry names it.
struct SegmentTable {
    let connection: SQLiteConnection

    /// The newest segment and its committed length, or `nil` when there is none.
    func newest() throws -> (id: Int, length: Int)? {
        let newest = try connection.statement(Self.newestSQL)
        defer { newest.reset() }
        return try newest.step() ? (newest.int(0), newest.int(1)) : nil
    }
    private static let newestSQL = SQL("SELECT id, length FROM segments ORDER BY id DESC LIMIT 1")

    /// Adds the row of a new, empty segment; returns its identifier.
    func insert() throws -> Int {
        try connection.statement(Self.insertSQL).run()
        return connection.lastInsertRowID
    }
    private static let insertSQL = SQL("INSERT INTO segments (length) VALUES (0)")

    /// Sets segment `id`'s committed length.
    func setLength(of id: Int, to length: Int) throws {
        let update = try connection.statement(Self.setLengthSQL)
        defer { update.reset() }
        update.bind(1, id)
        update.bind(2, length)
        try update.run()
    }
    private static let setLengthSQL = SQL("UPDATE segments SET length = ?2 WHERE id = ?1")

    /// Every segment's committed length, by identifier (held to 0 through 2⁴⁸).
    func lengths() throws -> [Int: Int] {
        let all = try connection.statement(Self.lengthsSQL)
        defer { all.reset() }
        var lengths: [Int: Int] = [:]
        while try all.step() { lengths[all.int(0)] = all.byteCount(1) }
        return lengths
    }
    private static let lengthsSQL = SQL("SELECT id, length FROM segments")

    /// The bytes of live records in each segment that holds any: the running totals the
    /// triggers on `entries` keep (see ``IndexSchema/runningTotals``).
    func liveBytes() throws -> [Int: Int] {
        let sums = try connection.statement(Self.liveBytesSQL)
        defer { sums.reset() }
        var live: [Int: Int] = [:]
        while try sums.step() { live[sums.int(0)] = sums.byteCount(1) }
        return live
    }
    private static let liveBytesSQL = SQL("SELECT id, live FROM segments WHERE live > 0")

    /// Deletes segment `id`'s row.
    func delete(_ id: Int) throws {
        let delete = try connection.statement(Self.deleteSQL)
        defer { delete.reset() }
        delete.bind(1, id)
        try delete.run()
    }
    private static let deleteSQL = SQL("DELETE FROM segments WHERE id = ?1")
}
