import CHoardSQLite
import Foundation
import HoardSystem

/// The index's tables and the steps that make or check them, for ``DiskIndex/prepare()``: what
/// the schema is, apart from the connections that use it.
enum IndexSchema {
    /// The shared count of the bytes in entry files (see ``UsageTable``), one row, kept by every
    /// store and removal of one; made with what the table says at the time.
    static let usageTable = """
        CREATE TABLE IF NOT EXISTS usage (id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL);
        INSERT OR REPLACE INTO usage (id, bytes) VALUES (1, CAST(
            (SELECT total(size) FROM entries
                WHERE record IS NULL AND segment IS NULL AND size BETWEEN 0 AND 281474976710656) AS INTEGER));
        """

    /// Drops the index on the last-use date that schemas 1 to 3 kept: from schema 4 the rows' order
    /// is their order of use (see ``EntryTable``), and every store writes one page fewer without it
    /// (Benchmarks/RESULTS.md). The rows an earlier version wrote are in the order they were stored.
    static let dropUseIndex = "DROP INDEX IF EXISTS entries_by_use;"

    /// Sets WAL mode, trying again for a while when another connection holds a lock: SQLite
    /// answers `SQLITE_BUSY` to the change at once, without waiting.
    static func setWALMode(on connection: SQLiteConnection, busyTimeoutMilliseconds: Int32) throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(busyTimeoutMilliseconds) + 1_000)
        while true {
            do {
                try connection.execute("PRAGMA journal_mode = WAL")
                return
            } catch {
                guard error.primaryCode == SQLITE_BUSY, ContinuousClock.now < deadline else { throw error }
                usleep(2_000)
            }
        }
    }

    /// Checks that the tables of this schema are there: a database whose version says so but
    /// whose tables were dropped is damaged.
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CORRUPT` when one is missing.
    static func checkTables(on connection: SQLiteConnection) throws {
        let count = try connection.statement(Self.checkTablesSQL)
        defer { count.reset() }
        guard try count.step(), count.int(0) == 3 else {
            throw SQLiteError(code: SQLITE_CORRUPT, message: "the index's tables are missing", systemErrno: 0, operation: "check tables")
        }
    }
    private static let checkTablesSQL = SQL(
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('entries', 'segments', 'usage')")

    /// The segment files (see ``DiskCache/SegmentFiles``): an identifier never used twice
    /// (`AUTOINCREMENT`) and how many bytes of the file are committed records.
    static let segmentsTable =
        "CREATE TABLE segments (id INTEGER PRIMARY KEY AUTOINCREMENT, length INTEGER NOT NULL);"

    /// Starts a new `segments` table's identifiers past the largest segment file in the folder.
    /// Files left by an index this one replaces (a damaged or deleted one) then never share a name
    /// with a new segment, which another process may still read through a handle kept on the old
    /// file, or append to at the old index's offsets. A folder that cannot be listed starts at 1.
    static func seedSegmentIdentifiers(on connection: SQLiteConnection, rootPath: String) throws {
        guard case .success(let names) = FileSystem.contentsOfDirectory(rootPath),
            let largest = names.compactMap(SegmentFiles.id(inFileName:)).max()
        else { return }
        let seed = try connection.statement(Self.seedSegmentIdentifiersSQL)
        defer { seed.reset() }
        seed.bind(1, largest)
        try seed.run()
    }
    private static let seedSegmentIdentifiersSQL = SQL(
        "INSERT INTO sqlite_sequence (name, seq) VALUES ('segments', ?1)")

    /// The schema version the database records (`user_version`), 0 for a new one.
    static func version(on connection: SQLiteConnection) throws -> Int {
        let version = try connection.statement(Self.versionSQL)
        defer { version.reset() }
        return try version.step() ? version.int(0) : 0
    }
    private static let versionSQL = SQL("PRAGMA user_version")
}
