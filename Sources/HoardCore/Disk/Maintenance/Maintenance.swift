import Foundation
import HoardSystem
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps the folder within its limit and gives space back: trims by recency after writes and on
/// request, compacts segments, vacuums the index, removes entries by selection, and clears.
///
/// Invariant: bytes on disk stay within ``DiskCache/Configuration/sizeLimit`` plus
/// ``DiskCache/Configuration/slackByteCount`` (every process checks after each of its writes), and
/// no clean-up removes what a writer may still be making visible: every row and file it removes
/// goes under the index's write lock, re-checked there, in batches that keep a writer's wait
/// short. On a full disk it frees space first and records it after (see
/// ``DiskIndex/withDatabaseForCleanup(_:)``).
final class Maintenance: Sendable {
    let index: DiskIndex
    let segments: SegmentStore
    let files: FileStore
    let reconciler: Reconciler
    /// This process's recency marks, written before a trim reads the order of use.
    let marks: RecencyMarks
    let configuration: DiskCache.Configuration
    /// When this process last looked the folder over.
    let state: Lock<TrimState>
    /// Where automatic trims and rescans run, one at a time, off the writers' threads (see
    /// ``noteWrite(usage:)``).
    private let queue = DispatchQueue(label: "Hoard.DiskCache.maintenance", qos: .utility)
    /// Whether a trim waits to start on ``queue``.
    private let isTrimScheduled = Lock(false)

    init(
        index: DiskIndex, segments: SegmentStore, files: FileStore, reconciler: Reconciler, marks: RecencyMarks,
        configuration: DiskCache.Configuration
    ) {
        self.index = index
        self.marks = marks
        self.segments = segments
        self.files = files
        self.reconciler = reconciler
        self.configuration = configuration
        state = Lock(TrimState(lastScanDate: configuration.now()))
    }

    /// Rows a trim reads and removes per round at most: a round is a read of that many rows in
    /// order of use and their deletion in batches of ``IndexLog/maintenanceBatchRowCount``.
    static let trimRoundRowCount = 4_096

    /// Rows a writer that finds the cache over its limit removes at most itself, in batches of
    /// ``IndexLog/maintenanceBatchRowCount``; the rest of the trim runs on the cache's queue.
    static let writerRowCount = 1_024

    /// Gives the index database's free pages (left by removed records) back to the file system,
    /// a step of ``IndexLog/vacuumStepPageCount`` pages at a time.
    ///
    /// Each step is one short write transaction (`PRAGMA incremental_vacuum`): readers, in WAL
    /// mode, are never blocked by it, and a writer waits at most one step. A process killed during
    /// a step loses that step only; the database stays whole.
    ///
    /// - Returns: How many pages were given back.
    /// - Throws: ``DiskCacheError/writeFailed(path:call:errno:)``.
    /// - Complexity: O(p) in the free pages, plus moving the pages that sit after them.
    @discardableResult
    func reclaimFreePages() throws -> Int {
        var reclaimed = 0
        while true {
            let step = try index.withDatabase(writing: true) { connection -> Int in
                let database = DatabaseFile(connection: connection)
                let free = try database.freePageCount()
                guard free > 0 else { return 0 }
                try database.vacuum(pages: index.log.vacuumStepPageCount)
                return min(free, index.log.vacuumStepPageCount)
            }
            guard step > 0 else { break }
            reclaimed += step
        }
        // Copy what the log holds into the database now (without waiting for readers), so that
        // the file shrinks; the log itself is cut back to `journal_size_limit` when next reset.
        if reclaimed > 0 {
            _ = try index.withDatabase(writing: true) { try DatabaseFile(connection: $0).checkpoint(truncating: false) }
        }
        return reclaimed
    }

    /// Brings the index in step with the folder (``Reconciler/reconcile()``), checks its numbers and
    /// running totals (``recount()``), then trims (see ``performTrim(now:)``); what
    /// ``DiskCache/trim()`` does.
    ///
    /// - Throws: ``DiskCacheError`` when the folder cannot be listed or the index written.
    func trim() throws {
        try reconciler.reconcile()
        try recount()
        try performTrim(now: configuration.now())
    }

    /// Checks the bytes on disk after a write that left the shared usage count at `usage`, and
    /// trims when due: over the limit, the writer removes least recently used entries down to the
    /// low-water mark itself, at most ``writerRowCount`` (so that writers cannot outrun the trim);
    /// the rest of the trim (more removals, giving dead space back), like a rescan that is due,
    /// runs on this cache's maintenance queue, unless dead space passes half the slack: then the
    /// writer gives it back. All of it runs in batches that release the write lock between them.
    func noteWrite(usage: DiskUsage) {
        let landed = configuration.now()
        let limit = configuration.sizeLimit
        let rescanInterval = configuration.rescanInterval
        let isDue = state.withLock {
            $0.isTrimDue(usage: usage, afterWriteAt: landed, now: landed, limit: limit, rescanInterval: rescanInterval)
        }
        guard isDue else { return }
        if usage.live > limit {
            do {
                let removed = try removeLeastRecentlyUsed(downTo: configuration.lowWaterMark, atMost: Self.writerRowCount)
                configuration.logger.debug(
                    "Trimmed disk cache",
                    metadata: [
                        "path": .string(files.folder.rootPath), "removed": "\(removed)", "bytesBefore": "\(usage.counted)",
                        "batch": "the writer's",
                    ])
                if removed > 0 { configuration.onTrim?(removed) }
            } catch {
                configuration.logger.warning(
                    "Automatic disk cache trim failed", metadata: ["error": .string(String(describing: error))])
            }
        }
        if usage.counted > limit + configuration.slackByteCount / 2 {
            // Dead space the queue has not given back yet, half the slack past the limit: the
            // writer gives it back itself, so that the folder stays within the limit and the slack
            // however far behind the queue is.
            do {
                try reclaimSpace(sealingNewest: true, anyDeadBytes: false)
                if try currentUsage().counted > limit + configuration.slackByteCount / 2 {
                    try reclaimSpace(sealingNewest: true, anyDeadBytes: true)
                }
            } catch {
                configuration.logger.warning(
                    "Automatic disk cache compaction failed", metadata: ["error": .string(String(describing: error))])
            }
        }
        scheduleTrim(afterWriteAt: landed)
    }

    /// Runs a trim on the maintenance queue unless one is waiting to start there; it runs only if
    /// one is still due when it starts (another process's, or an earlier one, may have done it).
    private func scheduleTrim(afterWriteAt landed: Date) {
        guard isTrimScheduled.withLock({ isScheduled in defer { isScheduled = true }; return !isScheduled }) else { return }
        queue.async { [self] in
            isTrimScheduled.withLock { $0 = false }  // a write that lands from now on schedules another
            let now = configuration.now()
            let limit = configuration.sizeLimit
            let rescanInterval = configuration.rescanInterval
            guard let current = try? currentUsage(),
                state.withLock({
                    $0.isTrimDue(usage: current, afterWriteAt: landed, now: now, limit: limit, rescanInterval: rescanInterval)
                })
            else { return }
            do {
                try performTrim(now: now)
            } catch {
                configuration.logger.warning(
                    "Automatic disk cache trim failed", metadata: ["error": .string(String(describing: error))])
            }
        }
    }

    /// Waits until the trims scheduled so far have run: what a caller that reads the folder's size
    /// right after its writes (a test, a benchmark) calls.
    func waitForScheduledTrims() {
        queue.sync {}
    }

    /// The index's running totals now (see ``DiskUsage``).
    func currentUsage() throws -> DiskUsage {
        try index.withDatabase(writing: false) { try UsageTable(connection: $0).current() }
    }

    /// What counts against the limit now, by the index's running totals: what statistics show.
    /// 0 when the index cannot be read.
    ///
    /// - Complexity: O(1): one indexed read.
    func estimatedByteCount() -> Int {
        (try? currentUsage())?.counted ?? 0
    }

    /// The bytes of the index files on disk: the database, its log and its `-shm` file.
    func indexFileByteCount() -> Int {
        var all = 0
        for suffix in [""] + DiskIndex.companionSuffixes {
            if case .success(let status) = FileSystem.linkStatus(index.path + suffix), status.kind == .regular {
                all += status.byteCount
            }
        }
        return all
    }

    /// Checks the index against what no write could have made, reading every row without the
    /// write lock (in short read transactions) and writing only what it mends: an inline row's size becomes its record's
    /// length; a row giving a size or offset beyond any record is damaged and is removed (its entry
    /// file, if any, is indexed again by the next ``Reconciler/reconcile()``); running totals that
    /// drifted from the rows (a database written without its triggers) are corrected and logged,
    /// when no other writer committed while they were counted.
    ///
    /// - Returns: What counts against the limit, and all the bytes on disk (the index's files
    ///   included).
    /// - Throws: ``DiskCacheError`` when the index cannot be read or written.
    @discardableResult
    func recount() throws -> (counted: Int, onDisk: Int) {
        let (resized, damaged) = try index.withDatabase(writing: false) { try EntryTable(connection: $0).rowsWithWrongNumbers() }
        if !resized.isEmpty || !damaged.isEmpty {
            try index.withDatabaseForCleanup { connection in
                try connection.writeTransaction { try EntryTable(connection: connection).mend(resized: resized, damaged: damaged) }
            }
        }
        for hash in damaged {
            configuration.logger.warning(
                "Removed damaged disk cache entry",
                metadata: [
                    "path": .string(index.path), "entry": .string(SHA256.hex(hash)),
                    "reason": "the index gives a size or offset no record can have",
                ])
        }
        // Not read at one moment (another writer committed meanwhile): left for the next check.
        if let drift = try index.withDatabase(writing: false, { try UsageTable(connection: $0).drift() }), !drift.isZero {
            try index.withDatabaseForCleanup { connection in
                try connection.writeTransaction { try UsageTable(connection: connection).correct(by: drift) }
            }
            configuration.logger.warning(
                "Corrected the disk cache index's running totals", metadata: ["path": .string(index.path), "drift": "\(drift)"])
        }
        let usage = try currentUsage()
        return (usage.counted, usage.fileBytes + usage.segmentFileBytes + indexFileByteCount())
    }

    /// The bytes of every entry's record, by the index's running totals.
    func indexedByteCount() throws -> Int {
        try currentUsage().recordBytes
    }

    // MARK: - Private

    /// Trims the folder to the limit, `now` being when it starts (it becomes `lastScanDate`):
    ///
    /// 1. when over the limit, gives back the space dead records take in segments and free pages
    ///    take in the index; still over, removes least recently used entries, a round at a time,
    ///    until what they leave (``DiskUsage/live``) is at the low-water mark, then gives their
    ///    space back, copying live records out of segments however little of them is dead;
    /// 2. under the limit, compacts segments that are half dead;
    /// 3. removes temporary files abandoned by writers that died.
    private func performTrim(now: Date) throws {
        let limit = configuration.sizeLimit
        var usage = try currentUsage()
        let before = usage.counted
        var removedCount = 0
        if usage.counted > limit {
            try reclaimSpace(sealingNewest: true, anyDeadBytes: false)
            usage = try currentUsage()
        }
        if usage.counted > limit {
            if usage.live > limit {
                removedCount = try removeLeastRecentlyUsed(downTo: configuration.lowWaterMark)
            }
            try reclaimSpace(sealingNewest: true, anyDeadBytes: true)
            usage = try currentUsage()
            configuration.logger.debug(
                "Trimmed disk cache",
                metadata: [
                    "path": .string(files.folder.rootPath), "removed": "\(removedCount)",
                    "bytesBefore": "\(before)", "bytesAfter": "\(usage.counted)",
                ])
        } else {
            // Also within the limit: replaced records leave space behind in segments.
            try segments.compact()
            if usage.freeIndexPageCount >= index.log.vacuumStepPageCount { try reclaimFreePages() }
        }
        try files.removeAbandonedTemporaryFiles(now: now)
        index.reserve.make()  // when a clean-up on a full disk took it and there is room again
        state.withLock { $0.lastScanDate = now }
        if removedCount > 0 { configuration.onTrim?(removedCount) }
    }

    /// Gives back the space of dead records in segments (see ``SegmentStore/compact(sealingNewest:anyDeadBytes:)``)
    /// and of free pages in the index. On a full disk the compaction, which copies live records,
    /// may fail: what it could not do waits for the next trim.
    private func reclaimSpace(sealingNewest: Bool, anyDeadBytes: Bool) throws {
        do {
            try segments.compact(sealingNewest: sealingNewest, anyDeadBytes: anyDeadBytes)
        } catch let error as DiskCacheError where error.errno == ENOSPC {
            configuration.logger.warning(
                "Disk cache compaction stopped: the disk is full", metadata: ["error": .string(error.description)])
        }
        try reclaimFreePages()
    }

    /// Removes least recently used entries (each with its file), a round of at most
    /// ``trimRoundRowCount`` rows at a time, until what they leave (``DiskUsage/live``) is at
    /// `mark`; returns how many were removed.
    ///
    /// Each round estimates what a row frees from the running totals (its record, and the index's
    /// bytes per row beside the records) and removes about three quarters of the excess while it
    /// is large, all of it once it is small, then reads the totals again: the index's pages, which
    /// a removal does not always free one for one, are counted as they are, not as estimated.
    private func removeLeastRecentlyUsed(downTo mark: Int, atMost maximum: Int = .max) throws -> Int {
        marks.flush(waiting: true)
        var usage = try currentUsage()
        var removedCount = 0
        while usage.live > mark, removedCount < maximum {
            let candidates = try leastRecentlyUsed(
                beyond: mark, in: usage, limit: min(Self.trimRoundRowCount, maximum - removedCount))
            guard !candidates.isEmpty else { break }
            let removed = try deleteRows(candidates, onlyIfUnused: true)
            removedCount += removed.count
            usage = try currentUsage()
        }
        return removedCount
    }

    /// The least recently used rows, at most `limit`, whose removal brings `usage` to `mark`:
    /// about three quarters of the excess while it is large, all of it once it is small. What a
    /// row frees is estimated from the totals: its record, and the index's bytes per row beside
    /// the records.
    private func leastRecentlyUsed(beyond mark: Int, in usage: DiskUsage, limit: Int) throws -> [IndexRow] {
        let excess = usage.live - mark
        let goal = excess <= max(configuration.sizeLimit / 32, 64 * 1024) ? excess : excess / 4 * 3
        let indexBytes = max(0, usage.indexPageCount - usage.freeIndexPageCount) * DiskIndex.pageByteCount - DiskUsage.indexAllowance
        let rowOverhead = usage.entryCount > 0 ? max(0, indexBytes - usage.inlineBytes) / usage.entryCount : 0
        return try index.withDatabase(writing: false) {
            try EntryTable(connection: $0).leastRecentlyUsed(atLeast: goal, rowOverhead: rowOverhead, limit: limit)
        }
    }
}
