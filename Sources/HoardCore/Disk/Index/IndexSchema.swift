import CHoardSQLite
import Foundation
import HoardSystem

/// The index's tables and the steps that make or check them, for ``DiskIndex/prepare()``: what
/// the schema is, apart from the connections that use it.
enum IndexSchema {
    /// The `usage` row (schema 3 on): the bytes of entry files, set from the rows, with the
    /// other running totals, by ``runningTotals``.
    static let usageTable = """
        CREATE TABLE IF NOT EXISTS usage (id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL);
        INSERT OR REPLACE INTO usage (id, bytes) VALUES (1, 0);
        """

    /// Schema 5's running totals: the `usage` row also counts the rows and the bytes of the
    /// records inside the index, each segment's row the bytes of its live records, and triggers
    /// on `entries` keep every total in step with the rows in the transaction that changes them,
    /// whichever process or statement changes them (see ``UsageTable``). A statement that
    /// replaces a row (`INSERT OR REPLACE`) runs the deletion's trigger only with
    /// `recursive_triggers` on, which every connection sets. An index on the segment column
    /// finds a segment's records without reading every row.
    static let runningTotals = """
        ALTER TABLE usage ADD COLUMN count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE usage ADD COLUMN inline INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE segments ADD COLUMN live INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX IF NOT EXISTS entries_by_segment ON entries (segment) WHERE segment IS NOT NULL;
        CREATE TRIGGER entries_inserted AFTER INSERT ON entries BEGIN
            \(totalsChange(adding: "NEW"))
        END;
        CREATE TRIGGER entries_deleted AFTER DELETE ON entries BEGIN
            \(totalsChange(removing: "OLD"))
        END;
        CREATE TRIGGER entries_changed AFTER UPDATE OF size, record, segment ON entries BEGIN
            \(totalsChange(removing: "OLD"))
            \(totalsChange(adding: "NEW"))
        END;
        \(recomputeTotals)
        """

    /// Sets every running total from the rows: once, when a database takes schema 5.
    static let recomputeTotals = """
        UPDATE usage SET
            count = (SELECT count(*) FROM entries),
            bytes = (SELECT CAST(total(\(fileBytes("entries"))) AS INTEGER) FROM entries),
            inline = (SELECT CAST(total(\(inlineBytes("entries"))) AS INTEGER) FROM entries)
            WHERE id = 1;
        UPDATE segments SET live = (SELECT CAST(total(\(segmentBytes("entries"))) AS INTEGER)
            FROM entries WHERE entries.segment = segments.id);
        """

    /// The statements a trigger runs to add the row `row` (`NEW`) to the totals.
    private static func totalsChange(adding row: String) -> String {
        """
        UPDATE usage SET count = count + 1, bytes = bytes + \(fileBytes(row)), inline = inline + \(inlineBytes(row)) WHERE id = 1;
        UPDATE segments SET live = live + \(segmentBytes(row)) WHERE id = \(row).segment AND \(row).record IS NULL;
        """
    }

    /// The statements a trigger runs to take the row `row` (`OLD`) off the totals.
    private static func totalsChange(removing row: String) -> String {
        """
        UPDATE usage SET count = count - 1, bytes = bytes - \(fileBytes(row)), inline = inline - \(inlineBytes(row)) WHERE id = 1;
        UPDATE segments SET live = live - \(segmentBytes(row)) WHERE id = \(row).segment AND \(row).record IS NULL;
        """
    }

    /// SQL for the bytes of `row`'s entry file (0 for a record elsewhere), its size held to what
    /// a record can be (a damaged size counts 0 until mended).
    static func fileBytes(_ row: String) -> String {
        "CASE WHEN \(row).record IS NULL AND \(row).segment IS NULL THEN \(heldSize(row)) ELSE 0 END"
    }

    /// SQL for the bytes of `row`'s record inside the index.
    static func inlineBytes(_ row: String) -> String {
        "ifnull(length(\(row).record), 0)"
    }

    /// SQL for the bytes of `row`'s record in a segment (0 for a record elsewhere).
    static func segmentBytes(_ row: String) -> String {
        "CASE WHEN \(row).record IS NULL AND \(row).segment IS NOT NULL THEN \(heldSize(row)) ELSE 0 END"
    }

    /// SQL for `row`'s size when it is one a record can have, else 0.
    private static func heldSize(_ row: String) -> String {
        "(CASE WHEN typeof(\(row).size) = 'integer' AND \(row).size BETWEEN 0 AND \(SQLiteStatement.maximumByteCount) "
            + "THEN \(row).size ELSE 0 END)"
    }

    /// Makes the tables of a new database, or brings one of an earlier schema to this one (see
    /// ``DiskIndex/schemaVersion``), by the version it records. Call in a write transaction.
    ///
    /// - Returns: Whether the schema was created (the database was new or empty).
    static func bringUpToDate(on connection: SQLiteConnection, rootPath: String) throws -> Bool {
        switch try version(on: connection) {
        case 0:
            try connection.execute(
                """
                CREATE TABLE entries (
                    hash BLOB NOT NULL PRIMARY KEY,
                    key TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    created REAL NOT NULL,
                    expires REAL,
                    used REAL NOT NULL,
                    record BLOB,
                    segment INTEGER,
                    offset INTEGER
                );
                \(segmentsTable)
                \(usageTable)
                \(runningTotals)
                PRAGMA user_version = \(DiskIndex.schemaVersion);
                """)
            try seedSegmentIdentifiers(on: connection, rootPath: rootPath)
            return true
        case 1:
            try connection.execute(
                """
                ALTER TABLE entries ADD COLUMN segment INTEGER;
                ALTER TABLE entries ADD COLUMN offset INTEGER;
                \(segmentsTable)
                \(usageTable)
                \(dropUseIndex)
                \(runningTotals)
                PRAGMA user_version = \(DiskIndex.schemaVersion);
                """)
            try seedSegmentIdentifiers(on: connection, rootPath: rootPath)
            return false
        case 2:
            try connection.execute(
                """
                \(usageTable)
                \(dropUseIndex)
                \(runningTotals)
                PRAGMA user_version = \(DiskIndex.schemaVersion);
                """)
            return false
        case 3, 4:
            try connection.execute(
                "\(dropUseIndex) \(runningTotals) PRAGMA user_version = \(DiskIndex.schemaVersion);")
            return false
        default:
            return false
        }
    }

    /// Drops the index on the last-use date that schemas 1 to 3 kept: from schema 4 the rows' order
    /// is their order of use (see ``EntryTable``), and every store writes one page fewer without it
    /// (the DocC article "Measurements behind the design", "Rows in order of use"). The rows an earlier
    /// version wrote are in the order they were stored.
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

    /// Checks that the tables and triggers of this schema are there: a database whose version says
    /// so but whose tables or triggers were dropped is damaged.
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CORRUPT` when one is missing.
    static func checkTables(on connection: SQLiteConnection) throws {
        let count = try connection.statement(Self.checkTablesSQL)
        defer { count.reset() }
        guard try count.step(), count.int(0) == 6 else {
            throw SQLiteError(code: SQLITE_CORRUPT, message: "the index's tables are missing", systemErrno: 0, operation: "check tables")
        }
    }
    private static let checkTablesSQL = SQL(
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('entries', 'segments', 'usage') "
            + "OR type = 'trigger' AND name IN ('entries_inserted', 'entries_deleted', 'entries_changed')")

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
