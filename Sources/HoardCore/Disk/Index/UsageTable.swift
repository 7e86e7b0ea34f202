/// The index's running totals (schema 5): the `usage` row (rows, bytes of entry files, bytes of
/// records inside the index) and each segment's committed and live bytes, which triggers on
/// `entries` keep in step with the rows (see ``IndexSchema/runningTotals``), read as one
/// ``DiskUsage`` with the database's page counts.
///
/// Invariant: the totals change only in the transaction that changes the rows they count, so
/// every process reads totals in step with the tables; reading them never reads every row.
struct UsageTable {
    let connection: SQLiteConnection

    /// The totals now.
    func current() throws -> DiskUsage {
        let select = try connection.statement(Self.currentSQL)
        defer { select.reset() }
        guard try select.step() else { return DiskUsage() }
        return Self.usage(select, from: 0)
    }
    private static let currentSQL = SQL("SELECT \(usageColumns) FROM usage WHERE id = 1")

    /// The totals now (as ``current()``) and the row of `hash` without its record (as
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
        return (Self.usage(select, from: 3), select.isNull(0) ? nil : IndexRow(hash: hash, select))
    }
    private static let currentWithRowSQL = SQL(
        "SELECT \(IndexRow.columnsBesideHash), \(usageColumns) FROM usage LEFT JOIN entries ON hash = ?1 WHERE id = 1")

    /// The columns ``usage(_:from:)`` reads, from the `usage` row and beside it.
    private static let usageColumns =
        "bytes, usage.count, inline, (SELECT total(length) FROM segments), (SELECT total(live) FROM segments), "
        + "(SELECT page_count FROM pragma_page_count), (SELECT freelist_count FROM pragma_freelist_count)"

    private static func usage(_ select: SQLiteStatement, from first: Int32) -> DiskUsage {
        DiskUsage(
            fileBytes: select.byteCount(first), segmentFileBytes: select.byteCount(first + 3),
            liveSegmentBytes: select.byteCount(first + 4), inlineBytes: select.byteCount(first + 2),
            entryCount: select.byteCount(first + 1), indexPageCount: select.byteCount(first + 5),
            freeIndexPageCount: select.byteCount(first + 6))
    }

    /// Adds `delta` to the count of the bytes in entry files: what a damaged total looks like,
    /// for tests of ``checkTotals()``.
    func addFileBytes(_ delta: Int) throws {
        let update = try connection.statement(Self.addFileBytesSQL)
        defer { update.reset() }
        update.bind(1, delta)
        try update.run()
    }
    private static let addFileBytesSQL = SQL("UPDATE usage SET bytes = bytes + ?1 WHERE id = 1")

    /// How far each running total is from what the rows give, counted through every row in one
    /// snapshot (what ``Maintenance/checkTotals()`` reads, without the write lock).
    func drift() throws -> TotalsDrift {
        try connection.readTransaction {
            var drift = TotalsDrift()
            let totals = try connection.statement(Self.totalsDriftSQL)
            defer { totals.reset() }
            if try totals.step() {
                (drift.count, drift.fileBytes, drift.inlineBytes) = (totals.int(0), totals.int(1), totals.int(2))
            }
            let segments = try connection.statement(Self.segmentDriftSQL)
            defer { segments.reset() }
            while try segments.step() {
                if segments.int(1) != 0 { drift.liveSegmentBytes[segments.int(0)] = segments.int(1) }
            }
            return drift
        }
    }
    private static let totalsDriftSQL = SQL(
        "SELECT count(*) - (SELECT count FROM usage WHERE id = 1), "
            + "CAST(total(\(IndexSchema.fileBytes("entries"))) AS INTEGER) - (SELECT bytes FROM usage WHERE id = 1), "
            + "CAST(total(\(IndexSchema.inlineBytes("entries"))) AS INTEGER) - (SELECT inline FROM usage WHERE id = 1) "
            + "FROM entries")
    private static let segmentDriftSQL = SQL(
        "SELECT id, (SELECT CAST(total(\(IndexSchema.segmentBytes("entries"))) AS INTEGER) FROM entries "
            + "WHERE entries.segment = segments.id) - live FROM segments")

    /// Adds `drift` to the running totals, bringing them to what the rows gave when it was read
    /// (changes since then moved both alike). Call in a write transaction.
    func correct(by drift: TotalsDrift) throws {
        let totals = try connection.statement(Self.correctTotalsSQL)
        defer { totals.reset() }
        totals.bind(1, drift.count)
        totals.bind(2, drift.fileBytes)
        totals.bind(3, drift.inlineBytes)
        try totals.run()
        let segment = try connection.statement(Self.correctSegmentSQL)
        defer { segment.reset() }
        for (id, delta) in drift.liveSegmentBytes {
            segment.bind(1, id)
            segment.bind(2, delta)
            try segment.run()
        }
    }
    private static let correctTotalsSQL = SQL(
        "UPDATE usage SET count = count + ?1, bytes = bytes + ?2, inline = inline + ?3 WHERE id = 1")
    private static let correctSegmentSQL = SQL("UPDATE segments SET live = live + ?2 WHERE id = ?1")
}

/// How far the running totals are from what the rows give (see ``UsageTable/drift()``): all 0
/// unless something wrote the database without its triggers.
struct TotalsDrift: Sendable, Hashable {
    var count = 0
    var fileBytes = 0
    var inlineBytes = 0
    /// By segment, the segments whose live bytes are off.
    var liveSegmentBytes: [Int: Int] = [:]

    /// Whether every total is right.
    var isZero: Bool { count == 0 && fileBytes == 0 && inlineBytes == 0 && liveSegmentBytes.isEmpty }
}
