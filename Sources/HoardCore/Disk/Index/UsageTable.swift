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
        let update = try connection.statement("UPDATE usage SET bytes = max(bytes + ?1, 0) WHERE id = 1")
        defer { update.reset() }
        update.bind(1, delta)
        try update.run()
    }

    /// The count now: entry files and segment files.
    func current() throws -> DiskUsage {
        let select = try connection.statement(
            "SELECT (SELECT bytes FROM usage WHERE id = 1), (SELECT total(length) FROM segments)")
        defer { select.reset() }
        guard try select.step() else { return DiskUsage(bytes: 0) }
        return DiskUsage(bytes: select.byteCount(0) + select.byteCount(1))
    }

    /// Sets the count of the bytes in entry files (a trim's count from the table).
    func setFileBytes(_ bytes: Int) throws {
        let replace = try connection.statement("INSERT OR REPLACE INTO usage (id, bytes) VALUES (1, ?1)")
        defer { replace.reset() }
        replace.bind(1, bytes)
        try replace.run()
    }
}
