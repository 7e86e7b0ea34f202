/// The bytes records take outside the index database, as the index keeps them for every process:
/// the `usage` row counts the entry files (each store or removal of one changes it in its own
/// transaction), and the `segments` table gives the segment files' committed lengths (see
/// ``DiskUsage``).
///
/// Invariant: the row changes only inside the write transaction that adds or removes the file it
/// counts, so every process reads a count in step with the tables; a trim counts it again.
struct UsageTable {
    let connection: SQLiteConnection

    /// Adds `delta` to the count of the bytes in entry files.
    func addFileBytes(_ delta: Int) throws {
        let update = try connection.statement(Self.addFileBytesSQL)
        defer { update.reset() }
        update.bind(1, delta)
        try update.run()
    }
    private static let addFileBytesSQL = SQL("UPDATE usage SET bytes = max(bytes + ?1, 0) WHERE id = 1")

    /// The count now: entry files and segment files.
    func current() throws -> DiskUsage {
        let select = try connection.statement(Self.currentSQL)
        defer { select.reset() }
        guard try select.step() else { return DiskUsage(bytes: 0) }
        return DiskUsage(bytes: select.byteCount(0) + select.byteCount(1))
    }
    private static let currentSQL = SQL(
        "SELECT (SELECT bytes FROM usage WHERE id = 1), (SELECT total(length) FROM segments)")

    /// The count now (as ``current()``) and the row of `hash` without its record (as
    /// ``EntryTable/row(_:)``), read by one statement: what a store reads before it writes, one
    /// statement a store fewer than reading them apart (Benchmarks/RESULTS.md).
    func current(withRowOf hash: [UInt8]) throws -> (usage: DiskUsage, row: IndexRow?) {
        let select = try connection.statement(Self.currentWithRowSQL)
        defer { select.reset() }
        select.bind(1, hash)
        // No row without the usage row (an index that lost it reads 0 bytes, as `current()` does).
        guard try select.step() else {
            select.reset()
            return (try current(), try EntryTable(connection: connection).row(hash))
        }
        let usage = DiskUsage(bytes: select.byteCount(3) + select.byteCount(4))
        return (usage, select.isNull(0) ? nil : IndexRow(hash: hash, select))
    }
    private static let currentWithRowSQL = SQL(
        "SELECT \(IndexRow.columnsBesideHash), bytes, (SELECT total(length) FROM segments) "
            + "FROM usage LEFT JOIN entries ON hash = ?1 WHERE id = 1")

    /// Sets the count of the bytes in entry files (a trim's count from the table).
    func setFileBytes(_ bytes: Int) throws {
        let replace = try connection.statement(Self.setFileBytesSQL)
        defer { replace.reset() }
        replace.bind(1, bytes)
        try replace.run()
    }
    private static let setFileBytesSQL = SQL("INSERT OR REPLACE INTO usage (id, bytes) VALUES (1, ?1)")
}
