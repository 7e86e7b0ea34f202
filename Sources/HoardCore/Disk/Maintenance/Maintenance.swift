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
    let configuration: DiskCache.Configuration
    /// What this process knows of the index's size and of the last trim.
    let state = Lock(TrimState())
    /// Held while an automatic trim runs, so that they run one at a time (see ``noteWrite(usage:)``).
    /// It guards no state; it is taken before ``state``, never while holding it.
    private let trimLock = Lock(())

    init(index: DiskIndex, segments: SegmentStore, files: FileStore, reconciler: Reconciler, configuration: DiskCache.Configuration) {
        self.index = index
        self.segments = segments
        self.files = files
        self.reconciler = reconciler
        self.configuration = configuration
    }

    /// How many writes go by between two measures of the index files' size, which grow with the
    /// records kept inside the index (a measure is two `stat` calls, and for a small index now and
    /// then a read through its rows: see ``TrimState/isInlineSumDue(databaseByteCount:)``).
    static let indexMeasureInterval = 32

    /// How many rounds of removal a trim runs at most to come under its low-water mark.
    static let trimRounds = 4

    /// Pages given back per step of ``reclaimFreePages()``: 256 pages of 4 KiB, 1 MiB.
    static let compactionStepPageCount = 256

    /// Gives the index database's free pages (left by removed records) back to the file system,
    /// a step of ``compactionStepPageCount`` pages at a time.
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
                try database.vacuum(pages: Self.compactionStepPageCount)
                return min(free, Self.compactionStepPageCount)
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

    /// Brings the index in step with the folder (``Reconciler/reconcile()``), then trims (see
    /// ``performTrim(now:)``); what ``DiskCache/trim()`` does.
    ///
    /// - Throws: ``DiskCacheError`` when the folder cannot be listed or the index written.
    func trim() throws {
        try reconciler.reconcile()
        try performTrim(now: configuration.now())
    }

    /// Checks the bytes on disk after a write that left the shared usage count at `usage`, and
    /// trims when due.
    ///
    /// Automatic trims run one at a time in a process. A write that finds a trim due while another
    /// thread runs one waits for it, then checks again and runs its own if one is still due.
    func noteWrite(usage: DiskUsage) {
        let landed = configuration.now()
        let limit = configuration.sizeLimit
        let rescanInterval = configuration.rescanInterval
        let shouldMeasure = state.withLock { state in
            state.writesSinceIndexMeasure = state.writesSinceIndexMeasure &+ 1
            return state.writesSinceIndexMeasure >= Self.indexMeasureInterval
        }
        if shouldMeasure { measureIndexFiles() }
        let isDue = state.withLock {
            $0.isTrimDue(usage: usage, afterWriteAt: landed, now: landed, limit: limit, rescanInterval: rescanInterval)
        }
        guard isDue else { return }
        trimLock.withLock { _ in
            let now = configuration.now()
            let current = (try? index.withDatabase(writing: false) { try UsageTable(connection: $0).current() }) ?? usage
            let isStillDue = state.withLock {
                $0.isTrimDue(usage: current, afterWriteAt: landed, now: now, limit: limit, rescanInterval: rescanInterval)
            }
            guard isStillDue else { return }  // a trim that started after this write landed saw it
            do {
                try performTrim(now: now)
            } catch {
                configuration.logger.warning(
                    "Automatic disk cache trim failed", metadata: ["error": .string(String(describing: error))])
            }
        }
    }

    /// What counts against the limit now, by the shared count and the index's size: what
    /// statistics show. 0 when the index cannot be read.
    ///
    /// - Complexity: O(1): one indexed read and two `stat` calls, and for a small index now and
    ///   then a read through its rows.
    func estimatedByteCount() -> Int {
        measureIndexFiles()
        guard let usage = try? index.withDatabase(writing: false, { try UsageTable(connection: $0).current() }) else { return 0 }
        return state.withLock { $0.counted(usage) }
    }

    /// Measures the index files and records what counts against the limit: the database beyond
    /// ``TrimState/indexAllowance`` (the log and the `-shm` file are part of the slack).
    ///
    /// - Returns: The bytes of all the index files (database, log, `-shm`).
    @discardableResult
    func measureIndexFiles() -> Int {
        var database = 0
        var all = 0
        for suffix in [""] + DiskIndex.companionSuffixes {
            if case .success(let status) = FileSystem.linkStatus(index.path + suffix), status.kind == .regular {
                if suffix.isEmpty { database = status.byteCount }
                all += status.byteCount
            }
        }
        // A small index is read through, less often the larger it is (see `isInlineSumDue`):
        // what it holds counts.
        let inline: Int?
        if database > TrimState.smallIndexByteCount {
            inline = 0
        } else if state.withLock({ $0.isInlineSumDue(databaseByteCount: database) }) {
            inline = (try? index.withDatabase(writing: false) { try EntryTable(connection: $0).fileAndInlineBytes().inline }) ?? 0
        } else {
            inline = nil  // the last sum, with this process's changes since
        }
        state.withLock {
            $0.indexByteCount = database
            if let inline {
                $0.inlineByteCount = inline
                $0.measuresSinceInlineSum = 0
            } else {
                $0.measuresSinceInlineSum &+= 1
            }
            $0.writesSinceIndexMeasure = 0
        }
        return all
    }

    /// Adds this process's own change to the bytes inside a small index (see
    /// ``TrimState/inlineByteCount``), which other processes' changes join at the next measure.
    func noteInlineChange(adding added: Int, replacing old: IndexRow?) {
        let removed = old?.placement == .inline ? old?.byteCount ?? 0 : 0
        guard added != removed else { return }
        state.withLock { state in
            guard state.indexByteCount <= TrimState.smallIndexByteCount else { return }
            state.inlineByteCount = max(0, state.inlineByteCount + added - removed)
        }
    }

    /// Counts the bytes on disk again and stores the count of segment and entry files in the
    /// shared usage row, after mending numbers in the index no write could have made: an inline
    /// row's size is its record's length; a row giving a size or offset beyond any record is
    /// damaged and is removed (its entry file, if any, is indexed again by the next
    /// ``Reconciler/reconcile()``). Segment files are measured (`lstat`), not taken from their rows.
    ///
    /// - Returns: What counts against the limit: segment files, entry files, and the index
    ///   database beyond ``TrimState/indexAllowance``.
    /// - Throws: ``DiskCacheError`` when the index cannot be written.
    @discardableResult
    func recountUsage() throws -> Int {
        try recount().counted
    }

    /// Counts again (see ``recountUsage()``); returns what counts against the limit, and all the
    /// bytes on disk (the index's log and allowance included).
    func recount() throws -> (counted: Int, onDisk: Int) {
        let (usage, removed) = try index.withDatabaseForCleanup { connection in
            try connection.writeTransaction { () -> (DiskUsage, [[UInt8]]) in
                let entries = EntryTable(connection: connection)
                let removed = try entries.mendNumbers()
                let table = UsageTable(connection: connection)
                try table.setFileBytes(try entries.fileAndInlineBytes().file)
                return (try table.current(), removed)
            }
        }
        for hash in removed {
            configuration.logger.warning(
                "Removed damaged disk cache entry",
                metadata: [
                    "path": .string(index.path), "entry": .string(SHA256.hex(hash)),
                    "reason": "the index gives a size or offset no record can have",
                ])
        }
        let indexFiles = measureIndexFiles()
        return (state.withLock { $0.counted(usage) }, usage.bytes + indexFiles)
    }

    /// The bytes of every entry's record, by the index (see ``EntryTable/recordBytes()``).
    func indexedByteCount() throws -> Int {
        try index.withDatabase(writing: false) { try EntryTable(connection: $0).recordBytes() }
    }

    // MARK: - Private

    /// Trims the folder to the limit, `now` being when the count starts (it becomes `lastScanDate`):
    ///
    /// 1. counts the bytes on disk again (``recountUsage()``, which also mends numbers in the
    ///    index that cannot be right);
    /// 2. when over the limit, first gives back the space dead records take in segments and free
    ///    pages take in the index; then, still over, removes least recently used entries down to
    ///    the low-water mark, and gives their space back, copying live records out of segments
    ///    however little of them is dead if that is what it takes;
    /// 3. removes temporary files abandoned by writers that died.
    private func performTrim(now: Date) throws {
        let limit = configuration.sizeLimit
        let target = configuration.lowWaterMark
        var footprint = try recountUsage()
        let before = footprint
        var removedCount = 0
        if footprint > limit {
            try reclaimSpace(sealingNewest: true, anyDeadBytes: false)
            footprint = try recountUsage()
        }
        if footprint > limit {
            // Dead records first, wherever they are: what is still over the mark after that is
            // live, and removing that much of the least recently used gets under it.
            try reclaimSpace(sealingNewest: true, anyDeadBytes: true)
            footprint = try recountUsage()
            var round = 0
            while footprint > target, round < Self.trimRounds {
                round += 1
                let removed = try removeLeastRecentlyUsed(beyond: footprint - target)
                removedCount += removed.count
                try reclaimSpace(sealingNewest: true, anyDeadBytes: true)
                footprint = try recountUsage()
                if removed.isEmpty { break }
            }
            configuration.logger.debug(
                "Trimmed disk cache",
                metadata: [
                    "path": .string(files.folder.rootPath), "removed": "\(removedCount)",
                    "bytesBefore": "\(before)", "bytesAfter": "\(footprint)",
                ])
        } else {
            // Also within the limit: replaced records leave space behind in segments.
            try segments.compact()
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

    /// Removes least recently used entries (each with its file, in batches) whose records and
    /// rows add up to at least `byteCount`; returns the rows removed.
    private func removeLeastRecentlyUsed(beyond byteCount: Int) throws -> [IndexRow] {
        let candidates = try index.withDatabase(writing: false) { try EntryTable(connection: $0).leastRecentlyUsed(atLeast: byteCount) }
        return try deleteRows(candidates, onlyIfUnused: true)
    }
}
