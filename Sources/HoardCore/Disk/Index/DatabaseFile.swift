/// The index database's own upkeep through one connection: its free pages and its log.
struct DatabaseFile {
    let connection: SQLiteConnection

    /// How many pages the database has, free ones included (in this connection's snapshot).
    func pageCount() throws -> Int {
        let count = try connection.statement(Self.pageCountSQL)
        defer { count.reset() }
        return try count.step() ? count.int(0) : 0
    }
    private static let pageCountSQL = SQL("PRAGMA page_count")

    /// How many pages of the database file are free (left by removed rows).
    func freePageCount() throws -> Int {
        let count = try connection.statement(Self.freePageCountSQL)
        defer { count.reset() }
        return try count.step() ? count.int(0) : 0
    }
    private static let freePageCountSQL = SQL("PRAGMA freelist_count")

    /// Gives up to `pages` free pages back to the file system (`auto_vacuum = INCREMENTAL`).
    func vacuum(pages: Int) throws {
        try connection.execute("PRAGMA incremental_vacuum(\(pages))")
    }

    /// Copies the log's commits into the database file; `truncating` also cuts the log to
    /// nothing, which gives its space back (waiting for readers at most the busy timeout).
    ///
    /// - Returns: Whether it did all that: `false` when readers or another checkpoint (which
    ///   SQLite does not wait for) kept it from it.
    @discardableResult
    func checkpoint(truncating: Bool) throws -> Bool {
        let checkpoint = try connection.statement(truncating ? Self.truncateSQL : Self.passiveSQL)
        defer { checkpoint.reset() }
        return try checkpoint.step() && checkpoint.int(0) == 0
    }
    private static let truncateSQL = SQL("PRAGMA wal_checkpoint(TRUNCATE)")
    private static let passiveSQL = SQL("PRAGMA wal_checkpoint(PASSIVE)")
}
