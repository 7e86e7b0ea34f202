import Foundation

/// The `entries` table through one connection: every statement the disk cache runs on it.
///
/// A row per entry, keyed by the SHA-256 of its key: the key, the record's length, its dates, and
/// where the record is (inside the row under ``SegmentStore/recordThreshold``, in a segment
/// at an offset, or in a file of its own when both are `NULL`).
///
/// Invariant: the rows are in order of use: a row written or marked used takes a rowid above every
/// other's (short of a damaged rowid near 2⁶³, see ``markUsed(_:at:)``), so that the table read
/// from its start gives the least recently used first, with no index on the last-use date for
/// every store to write. Numbers read back are held to 0 through 2⁴⁸ before use
/// (``SQLiteStatement/byteCount(_:)``), and ``mendNumbers()`` drops rows whose numbers no write
/// could have made.
struct EntryTable {
    let connection: SQLiteConnection

    typealias Placement = IndexRow.Placement

    /// A row as a lookup reads it: its record is borrowed from SQLite, valid inside the call only.
    struct LookedUp {
        var lastUsed: Double
        var byteCount: Int
        var segment: SegmentLocation?
        /// The whole record, when it is kept inside the row.
        var record: UnsafeRawBufferPointer?
    }

    /// Looks up `hash` and calls `body` with what the row holds; `nil` when there is no row.
    func lookUp<Result>(_ hash: [UInt8], _ body: (LookedUp) throws -> Result) throws -> Result? {
        let select = try connection.statement(Self.lookUpSQL)
        // The hash is bound without a copy: it outlives the statement's use, which ends at `reset`.
        return try hash.withUnsafeBytes { hash in
            defer { select.reset() }
            select.bindBorrowed(1, hash)
            return try lookedUp(in: select, body)
        }
    }
    private static let lookUpSQL = SQL("SELECT used, size, segment, offset, record FROM entries WHERE hash = ?1")

    /// `body`'s result for the row ``lookUp(_:_:)``'s bound statement finds, or `nil` for none.
    private func lookedUp<Result>(in select: SQLiteStatement, _ body: (LookedUp) throws -> Result) throws -> Result? {
        guard try select.step() else { return nil }
        // The placement is told from which columns are `NULL`, without an expression to evaluate.
        let isInline = !select.isNull(4)
        let segment =
            isInline || select.isNull(2)
            ? nil : SegmentLocation(id: select.int(2), offset: select.int(3))
        return try body(
            LookedUp(
                lastUsed: select.double(0), byteCount: select.byteCount(1), segment: segment,
                record: isInline ? select.borrowedBlob(4) : nil))
    }

    /// The row of `hash` without its record, or `nil`.
    func row(_ hash: [UInt8]) throws -> IndexRow? {
        let select = try connection.statement(Self.rowSQL)
        defer { select.reset() }
        select.bind(1, hash)
        guard try select.step() else { return nil }
        return IndexRow(hash: hash, select)
    }
    private static let rowSQL = SQL("SELECT \(IndexRow.columnsBesideHash) FROM entries WHERE hash = ?1")

    /// Inserts or replaces the row of `header`'s key, as the most recently used row (SQLite gives a
    /// new row the rowid after the largest); `record` is the whole record for an inline
    /// entry, `segment` where it is for one in a segment, and both `nil` for one in its own file.
    func upsert(
        hash: [UInt8], header: CacheRecord.Header, used: Date, record: UnsafeRawBufferPointer?,
        segment: SegmentLocation? = nil
    ) throws {
        let upsert = try connection.statement(Self.upsertSQL)
        defer { upsert.reset() }
        upsert.bind(1, hash)
        upsert.bind(2, header.key)
        upsert.bind(3, header.fileByteCount)
        upsert.bind(4, header.creationDate.timeIntervalSinceReferenceDate)
        upsert.bind(5, header.expirationDate?.timeIntervalSinceReferenceDate)
        upsert.bind(6, used.timeIntervalSinceReferenceDate)
        if let record { upsert.bindBorrowed(7, record) } else { upsert.bindNull(7) }
        if let segment {
            upsert.bind(8, segment.id)
            upsert.bind(9, segment.offset)
        } else {
            upsert.bindNull(8)
            upsert.bindNull(9)
        }
        while try upsert.step() {}
    }
    private static let upsertSQL = SQL(
        "INSERT OR REPLACE INTO entries (hash, key, size, created, expires, used, record, segment, offset) "
            + "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)")

    /// Deletes the row of `hash`.
    func delete(_ hash: [UInt8]) throws {
        let delete = try connection.statement(Self.deleteSQL)
        defer { delete.reset() }
        delete.bind(1, hash)
        try delete.run()
    }
    private static let deleteSQL = SQL("DELETE FROM entries WHERE hash = ?1")

    /// Sets the last-use date of `hash` (never back: a mark written late leaves a later store's
    /// date) and makes its row the most recently used.
    func markUsed(_ hash: [UInt8], at date: Date) throws {
        let update = try connection.statement(Self.markUsedSQL)
        defer { update.reset() }
        update.bind(1, hash)
        update.bind(2, date.timeIntervalSinceReferenceDate)
        try update.run()
    }
    // The row moves to the end of the table's order. A damaged rowid near the top of the range
    // leaves no room: then the row stays where it is and only its date changes (the order is a
    // trim's preference; nothing is dropped for it).
    private static let markUsedSQL = SQL(
        "UPDATE entries SET rowid = CASE WHEN (SELECT max(rowid) FROM entries) < \(movableRowIDLimit) "
            + "THEN (SELECT max(rowid) FROM entries) + 1 ELSE rowid END, used = max(used, ?2) WHERE hash = ?1")

    /// Below this largest rowid a marked row moves to the end: far beyond any count of writes, far
    /// below SQLite's largest rowid.
    static let movableRowIDLimit: Int64 = 1 << 62

    /// Points the row of `hash` at a new place in the segments (a compaction moved its record).
    func move(_ hash: [UInt8], to location: SegmentLocation) throws {
        let update = try connection.statement(Self.moveSQL)
        defer { update.reset() }
        update.bind(1, hash)
        update.bind(2, location.id)
        update.bind(3, location.offset)
        try update.run()
    }
    private static let moveSQL = SQL("UPDATE entries SET segment = ?2, offset = ?3 WHERE hash = ?1")

    // MARK: - Sets of rows

    /// Which rows ``rows(_:at:)`` selects.
    enum Selection {
        /// Expired at the date.
        case expired
        /// Created before the date.
        case createdBefore
        /// Every row.
        case all

        /// The statement that selects these rows (``IndexRow/rowColumns``), the date bound as `?1`.
        var statement: SQL {
            switch self {
            case .expired: Self.expiredSQL
            case .createdBefore: Self.createdBeforeSQL
            case .all: Self.allSQL
            }
        }

        private static let expiredSQL = rowsSQL(where: "expires IS NOT NULL AND expires <= ?1")
        private static let createdBeforeSQL = rowsSQL(where: "created < ?1")
        private static let allSQL = rowsSQL(where: "?1 IS NOT NULL")

        private static func rowsSQL(where condition: String) -> SQL {
            SQL("SELECT \(IndexRow.rowColumns) FROM entries WHERE \(condition)")
        }
    }

    /// The rows `selection` picks at `date`, without their records.
    func rows(_ selection: Selection, at date: Date) throws -> [IndexRow] {
        let select = try connection.statement(selection.statement)
        defer { select.reset() }
        select.bind(1, date.timeIntervalSinceReferenceDate)
        var rows: [IndexRow] = []
        while try select.step() { rows.append(IndexRow(select)) }
        return rows
    }

    /// The rows whose records are files of their own.
    func fileRows() throws -> [IndexRow] {
        let select = try connection.statement(Self.fileRowsSQL)
        defer { select.reset() }
        var rows: [IndexRow] = []
        while try select.step() { rows.append(IndexRow(select)) }
        return rows
    }
    private static let fileRowsSQL = SQL("SELECT \(IndexRow.rowColumns) FROM entries WHERE \(Placement.isFile)")

    /// The least recently used rows (the first in the table's order), at most `limit`, whose
    /// records and rows add up to at least `byteCount`: an inline row counts its record's length,
    /// any other its record's size, and each `rowOverhead` for what its row takes in the index.
    func leastRecentlyUsed(atLeast byteCount: Int, rowOverhead: Int, limit: Int) throws -> [IndexRow] {
        let select = try connection.statement(Self.leastRecentlyUsedSQL)
        defer { select.reset() }
        select.bind(1, limit)
        var rows: [IndexRow] = []
        var sum = 0
        while sum < byteCount, try select.step() {
            let row = IndexRow(select)
            rows.append(row)
            let (next, overflow) = sum.addingReportingOverflow(row.byteCount + rowOverhead)
            sum = overflow ? .max : next
        }
        return rows
    }
    private static let leastRecentlyUsedSQL = SQL(
        "SELECT hash, CASE WHEN record IS NOT NULL THEN length(record) ELSE size END, used, "
            + "\(Placement.column) FROM entries ORDER BY rowid LIMIT ?1")

    /// Calls `body` with each live inline entry's key and the first bytes of its payload (up to
    /// 16 KiB, borrowed, unverified), and returns the rows `body` picked.
    func pickInline(
        liveAt now: Date, _ body: (_ key: String, _ payloadPrefix: ArraySlice<UInt8>) -> Bool
    ) throws -> [(hash: [UInt8], key: String, lastUsed: Double)] {
        let select = try connection.statement(Self.pickInlineSQL)
        defer { select.reset() }
        select.bind(1, now.timeIntervalSinceReferenceDate)
        var picked: [(hash: [UInt8], key: String, lastUsed: Double)] = []
        while try select.step() {
            let key = select.text(1)
            if body(key, ArraySlice(select.borrowedBlob(3))) { picked.append((select.blob(0), key, select.double(2))) }
        }
        return picked
    }
    private static let pickInlineSQL = SQL(
        "SELECT hash, key, used, substr(record, \(CacheRecord.Header.fixedByteCount + 1) + length(CAST(key AS BLOB)), 16384) "
            + "FROM entries WHERE record IS NOT NULL AND (expires IS NULL OR expires > ?1)")

    /// The live rows of records in segments: hash, key, last use, record length and place.
    func segmentRows(
        liveAt now: Date
    ) throws -> [(hash: [UInt8], key: String, lastUsed: Double, size: Int, location: SegmentLocation)] {
        let select = try connection.statement(Self.segmentRowsSQL)
        defer { select.reset() }
        select.bind(1, now.timeIntervalSinceReferenceDate)
        var rows: [(hash: [UInt8], key: String, lastUsed: Double, size: Int, location: SegmentLocation)] = []
        while try select.step() {
            rows.append(
                (select.blob(0), select.text(1), select.double(2), select.byteCount(3),
                 SegmentLocation(id: select.int(4), offset: select.byteCount(5))))
        }
        return rows
    }
    private static let segmentRowsSQL = SQL(
        "SELECT hash, key, used, size, segment, offset FROM entries "
            + "WHERE segment IS NOT NULL AND (expires IS NULL OR expires > ?1)")

    /// Up to `limit` rows of records in segment `id`: hash, key, offset and record length.
    func rows(inSegment id: Int, limit: Int) throws -> [(hash: [UInt8], key: String, offset: Int, size: Int)] {
        let select = try connection.statement(Self.rowsInSegmentSQL)
        defer { select.reset() }
        select.bind(1, id)
        select.bind(2, limit)
        var rows: [(hash: [UInt8], key: String, offset: Int, size: Int)] = []
        while try select.step() { rows.append((select.blob(0), select.text(1), select.int(2), select.byteCount(3))) }
        return rows
    }
    private static let rowsInSegmentSQL = SQL("SELECT hash, key, offset, size FROM entries WHERE segment = ?1 LIMIT ?2")

    /// Whether any row names segment `id`.
    func namesSegment(_ id: Int) throws -> Bool {
        let named = try connection.statement(Self.namesSegmentSQL)
        defer { named.reset() }
        named.bind(1, id)
        return try named.step()
    }
    private static let namesSegmentSQL = SQL("SELECT 1 FROM entries WHERE segment = ?1 LIMIT 1")

    // MARK: - Repairs

    /// Rows read per read transaction by the checks that read every row (see
    /// ``rowsWithWrongNumbers()``, ``UsageTable/drift()``): a reader holds the log back for no
    /// longer than that takes.
    static let checkChunkRowCount = 20_000

    /// The rows whose numbers no write could have made, read without the write lock in chunks of
    /// ``checkChunkRowCount`` rows in rowid order: inline rows whose size is not their record's
    /// length (`resized`), and rows with a size or offset beyond any record (`damaged`). A row a
    /// write moves during the pass may be missed: the next check finds it.
    func rowsWithWrongNumbers() throws -> (resized: [[UInt8]], damaged: [[UInt8]]) {
        let select = try connection.statement(Self.wrongNumbersSQL)
        defer { select.reset() }
        var found: (resized: [[UInt8]], damaged: [[UInt8]]) = ([], [])
        var last = Int.min
        while true {
            select.bind(1, last)
            select.bind(2, Self.checkChunkRowCount)
            var rows = 0
            while try select.step() {
                rows = select.int(0)
                last = select.int(1)
                guard !select.isNull(2) else { continue }  // the chunk's last row: no finding
                if select.int(3) != 0 { found.damaged.append(select.blob(2)) } else { found.resized.append(select.blob(2)) }
            }
            select.reset()
            if rows < Self.checkChunkRowCount { return found }
        }
    }
    // The chunk's row count and last rowid on every row; the rows with wrong numbers, and the
    // chunk's last row (hash NULL) so that the pass goes on past a chunk with none.
    private static let wrongNumbersSQL = SQL(
        """
        WITH chunk AS (SELECT rowid AS id, hash, record, size, segment, offset FROM entries WHERE rowid > ?1 ORDER BY rowid LIMIT ?2)
        SELECT (SELECT count(*) FROM chunk), (SELECT max(id) FROM chunk), hash, damaged FROM (
            SELECT hash, \(damagedNumbers) AS damaged FROM chunk
                WHERE (record IS NOT NULL AND size IS NOT length(record)) OR \(damagedNumbers)
            UNION ALL SELECT NULL, 0)
        """)

    /// Mends what ``rowsWithWrongNumbers()`` found, checking each row again: a resized inline row
    /// takes its record's length, a damaged row is deleted. Call in a write transaction.
    func mend(resized: [[UInt8]], damaged: [[UInt8]]) throws {
        let resize = try connection.statement(Self.resizeSQL)
        defer { resize.reset() }
        for hash in resized {
            resize.bind(1, hash)
            try resize.run()
        }
        let delete = try connection.statement(Self.deleteDamagedSQL)
        defer { delete.reset() }
        for hash in damaged {
            delete.bind(1, hash)
            try delete.run()
        }
    }
    private static let resizeSQL = SQL(
        "UPDATE entries SET size = length(record) WHERE hash = ?1 AND record IS NOT NULL AND size IS NOT length(record)")
    private static let deleteDamagedSQL = SQL("DELETE FROM entries WHERE hash = ?1 AND \(damagedNumbers)")

    /// SQL that picks the rows whose numbers no write could have made.
    private static let damagedNumbers = """
        record IS NULL AND (typeof(size) != 'integer' OR size < \(CacheRecord.Header.fixedByteCount)
            OR size > \(SQLiteStatement.maximumByteCount)
            OR (segment IS NOT NULL AND (size > \(DiskCache.maximumInlineRecordByteCount)
                OR typeof(offset) != 'integer' OR offset < 0 OR offset > \(SQLiteStatement.maximumByteCount))))
        """

    // MARK: - Listing

    /// Every live entry's key, record length and dates.
    func infos(liveAt now: Date) throws -> [DiskCache.EntryInfo] {
        let select = try connection.statement(Self.infosSQL)
        defer { select.reset() }
        select.bind(1, now.timeIntervalSinceReferenceDate)
        var infos: [DiskCache.EntryInfo] = []
        while try select.step() {
            let key = select.text(0)
            let size = select.byteCount(1)
            infos.append(
                DiskCache.EntryInfo(
                    key: key, payloadByteCount: max(0, size - CacheRecord.Header.fixedByteCount - key.utf8.count),
                    fileByteCount: size, creationDate: Date(timeIntervalSinceReferenceDate: select.double(2)),
                    expirationDate: select.optionalDouble(3).map(Date.init(timeIntervalSinceReferenceDate:)),
                    lastUsedDate: Date(timeIntervalSinceReferenceDate: select.double(4))))
        }
        return infos
    }
    private static let infosSQL = SQL(
        "SELECT key, size, created, expires, used FROM entries WHERE expires IS NULL OR expires > ?1")
}
