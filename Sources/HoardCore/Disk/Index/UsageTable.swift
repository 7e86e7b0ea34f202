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
        return try withPages(Self.usage(select, from: 0))
    }
    private static let currentSQL = SQL("SELECT \(usageColumns) FROM usage WHERE id = 1")

    /// `usage` with the database's page counts, read by their own prepared statements (a
    /// `pragma_page_count` in a query prepares a statement each time it runs).
    private func withPages(_ usage: DiskUsage) throws -> DiskUsage {
        var usage = usage
        let database = DatabaseFile(connection: connection)
        usage.indexPageCount = try database.pageCount()
        usage.freeIndexPageCount = try database.freePageCount()
        return usage
    }

    /// The totals now (as ``current()``) and the row of `hash` without its record (as
    /// ``EntryTable/row(_:)``), read by one statement: what a store reads before it writes, one
    /// statement a store fewer than reading them apart (the DocC article "Measurements behind the
    /// design", "Instructions per store and read").
    func current(withRowOf hash: [UInt8]) throws -> (usage: DiskUsage, row: IndexRow?) {
        let select = try connection.statement(Self.currentWithRowSQL)
        defer { select.reset() }
        select.bind(1, hash)
        // No row without the usage row (an index that lost it reads 0 bytes, as `current()` does).
        guard try select.step() else {
            select.reset()
            return (try current(), try EntryTable(connection: connection).row(hash))
        }
        let row = select.isNull(0) ? nil : IndexRow(hash: hash, select)
        let usage = Self.usage(select, from: 3)
        select.reset()
        return (try withPages(usage), row)
    }
    private static let currentWithRowSQL = SQL(
        "SELECT \(IndexRow.columnsBesideHash), \(usageColumns) FROM usage LEFT JOIN entries ON hash = ?1 WHERE id = 1")

    /// The columns ``usage(_:from:)`` reads, from the `usage` row and beside it.
    private static let usageColumns =
        "bytes, usage.count, inline, (SELECT total(length) FROM segments), (SELECT total(live) FROM segments)"

    /// The totals in `select`'s columns from `first` on, without the page counts.
    private static func usage(_ select: SQLiteStatement, from first: Int32) -> DiskUsage {
        DiskUsage(
            fileBytes: select.byteCount(first), segmentFileBytes: select.byteCount(first + 3),
            liveSegmentBytes: select.byteCount(first + 4), inlineBytes: select.byteCount(first + 2),
            entryCount: select.byteCount(first + 1))
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

    /// How far each running total is from what the rows give, counted through every row in
    /// read transactions of ``EntryTable/checkChunkRowCount`` rows (so that no reader holds the log
    /// back for long), or `nil` when another connection committed meanwhile: the rows and totals
    /// were then not read at one moment, and the check waits for a quieter one.
    func drift() throws -> TotalsDrift? {
        let version = try dataVersion()
        var counted = TotalsDrift()
        var last = Int.min
        while true {
            let chunk = try connection.readTransaction { () -> (rows: Int, last: Int) in
                let totals = try connection.statement(Self.chunkTotalsSQL)
                defer { totals.reset() }
                totals.bind(1, last)
                totals.bind(2, EntryTable.checkChunkRowCount)
                guard try totals.step() else { return (0, last) }
                counted.count += totals.int(0)
                counted.fileBytes += totals.int(1)
                counted.inlineBytes += totals.int(2)
                let chunkLast = totals.isNull(3) ? last : totals.int(3)
                let segments = try connection.statement(Self.chunkSegmentsSQL)
                defer { segments.reset() }
                segments.bind(1, last)
                segments.bind(2, EntryTable.checkChunkRowCount)
                while try segments.step() { counted.liveSegmentBytes[segments.int(0), default: 0] += segments.int(1) }
                return (totals.int(0), chunkLast)
            }
            last = chunk.last
            if chunk.rows < EntryTable.checkChunkRowCount { break }
        }
        let running = try connection.readTransaction { () -> TotalsDrift in
            var running = TotalsDrift()
            let totals = try connection.statement(Self.runningTotalsSQL)
            defer { totals.reset() }
            if try totals.step() { (running.count, running.fileBytes, running.inlineBytes) = (totals.int(0), totals.int(1), totals.int(2)) }
            let segments = try connection.statement(Self.runningSegmentsSQL)
            defer { segments.reset() }
            while try segments.step() { running.liveSegmentBytes[segments.int(0)] = segments.int(1) }
            return running
        }
        guard try dataVersion() == version else { return nil }
        var drift = TotalsDrift(
            count: counted.count - running.count, fileBytes: counted.fileBytes - running.fileBytes,
            inlineBytes: counted.inlineBytes - running.inlineBytes)
        for id in Set(counted.liveSegmentBytes.keys).union(running.liveSegmentBytes.keys) {
            let delta = (counted.liveSegmentBytes[id] ?? 0) - (running.liveSegmentBytes[id] ?? 0)
            // A segment without a row has no total to correct: its rows are out of step, which a
            // read of them finds.
            if delta != 0, running.liveSegmentBytes[id] != nil { drift.liveSegmentBytes[id] = delta }
        }
        return drift
    }
    /// A chunk of rows in rowid order after `?1`, at most `?2`: each row's figures.
    private static let chunkSQL =
        "(SELECT rowid, record, segment, size FROM entries WHERE rowid > ?1 ORDER BY rowid LIMIT ?2)"
    private static let chunkTotalsSQL = SQL(
        "SELECT count(*), CAST(total(\(IndexSchema.fileBytes("chunk"))) AS INTEGER), "
            + "CAST(total(\(IndexSchema.inlineBytes("chunk"))) AS INTEGER), max(rowid) FROM \(chunkSQL) AS chunk")
    private static let chunkSegmentsSQL = SQL(
        "SELECT segment, CAST(total(\(IndexSchema.segmentBytes("chunk"))) AS INTEGER) FROM \(chunkSQL) AS chunk "
            + "WHERE segment IS NOT NULL GROUP BY segment")
    private static let runningTotalsSQL = SQL("SELECT count, bytes, inline FROM usage WHERE id = 1")
    private static let runningSegmentsSQL = SQL("SELECT id, live FROM segments")

    /// SQLite's count of commits by other connections (`PRAGMA data_version`): unchanged between
    /// two reads on this connection when no other connection committed in between.
    private func dataVersion() throws -> Int {
        let version = try connection.statement(Self.dataVersionSQL)
        defer { version.reset() }
        return try version.step() ? version.int(0) : 0
    }
    private static let dataVersionSQL = SQL("PRAGMA data_version")

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
