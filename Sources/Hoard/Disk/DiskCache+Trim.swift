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

/// The in-process bookkeeping behind size enforcement, guarded by `DiskCache.state`.
struct TrimState: Sendable {
    /// The bytes of the index database when last measured (its log is part of the slack, not of
    /// the limit).
    var indexByteCount = 0
    /// The bytes of the records inside the index when last summed, while the index is small
    /// (see ``DiskCache/smallIndexByteCount``); 0 once it is larger.
    var inlineByteCount = 0
    /// Writes since the index files were last measured.
    var writesSinceIndexMeasure = Int.max
    /// When the last completed trim started (by the cache's clock); `nil` before the first.
    var lastScanDate: Date?

    /// Whether a write that left the shared usage at `usage` calls for a trim: the bytes on disk
    /// pass `limit`, or the last trim started `rescanInterval` or more before the write landed
    /// (with an interval of 0: not after it), or there has been none, or the clock went back.
    func isTrimDue(
        usage: DiskCache.Usage, afterWriteAt landed: Date, now: Date, limit: Int, rescanInterval: TimeInterval
    ) -> Bool {
        guard let last = lastScanDate else { return true }
        return counted(usage) > limit || landed.timeIntervalSince(last) >= rescanInterval || last > now
    }

    /// What counts against the limit: the records outside the index (``DiskCache/Usage/bytes``),
    /// and the index database past ``DiskCache/indexAllowance``, or the records inside it when
    /// they are more (a small index, whose allowance would hide them).
    func counted(_ usage: DiskCache.Usage) -> Int {
        let index = max(inlineByteCount, indexByteCount - DiskCache.indexAllowance)
        let (sum, overflow) = usage.bytes.addingReportingOverflow(index)
        return overflow ? .max : sum
    }
}

extension DiskCache {
    /// How many writes go by between two measures of the index files' size, which grow with the
    /// records kept inside the index (a measure is two `stat` calls).
    static let indexMeasureInterval = 32

    /// How many rounds of removal a trim runs at most to come under its low-water mark.
    static let trimRounds = 4

    /// Brings the index in step with the folder, then trims (see ``performTrim(now:)``): gives
    /// back the space removed and replaced records left, and removes least recently used entries
    /// while the bytes on disk are over ``Configuration/sizeLimit``; removes temporary files
    /// abandoned by writers that died.
    ///
    /// Writes trim by themselves (by the index alone, without listing the folder) when the bytes
    /// on disk pass the limit or the last trim is older than ``Configuration/rescanInterval``;
    /// call this after a bulk import, or at start-up to clean up after a crash: it also indexes
    /// entry files the index does not know and drops rows whose files are gone (see
    /// ``reconcileIndex()``). Several processes may trim the same folder at once.
    ///
    /// ```swift
    /// try cache.trim()
    /// ```
    ///
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the folder cannot
    ///   be listed; ``DiskCacheError/writeFailed(path:call:errno:)`` when the index cannot be written.
    /// - Complexity: O(m) in the entry files (one `lstat` each) and O(r log r) in the index's rows.
    public func trim() throws {
        try reconcileIndex()
        try performTrim(now: configuration.now())
    }

    /// Checks the bytes on disk after a write that left the shared usage count at `usage`, and
    /// trims when due.
    ///
    /// Automatic trims run one at a time in a process. A write that finds a trim due while another
    /// thread runs one waits for it, then checks again and runs its own if one is still due.
    func noteWrite(usage: Usage) {
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
            let current = (try? withIndex(writing: false) { try currentUsage(on: $0) }) ?? usage
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
    /// - Complexity: O(1): one indexed read and two `stat` calls.
    func estimatedByteCount() -> Int {
        measureIndexFiles()
        guard let usage = try? withIndex(writing: false, { try currentUsage(on: $0) }) else { return 0 }
        return state.withLock { $0.counted(usage) }
    }

    /// The shared count as a write sees it inside its transaction.
    func currentUsage(on connection: SQLiteConnection) throws -> Usage {
        try UsageTable(connection: connection).current()
    }

    /// Up to this size of the index database, the records inside it are summed when it is
    /// measured, since its file's size, past ``indexAllowance``, would not show them.
    static let smallIndexByteCount = 4 * indexAllowance

    /// The bytes of the index database that are part of the slack rather than counted against
    /// the limit: its schema and the first pages of its tables, whatever they hold.
    static let indexAllowance = 64 * 1024

    /// Measures the index files and records what counts against the limit: the database beyond
    /// ``indexAllowance`` (the log and the `-shm` file are part of the slack).
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
        // A small index is read through (a few hundred rows at most): what it holds counts.
        let inline =
            database <= Self.smallIndexByteCount
            ? (try? withIndex(writing: false) { try EntryTable(connection: $0).fileAndInlineBytes().inline }) ?? 0 : 0
        state.withLock {
            $0.indexByteCount = database
            $0.inlineByteCount = inline
            $0.writesSinceIndexMeasure = 0
        }
        return all
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
                    "path": .string(rootPath), "removed": "\(removedCount)",
                    "bytesBefore": "\(before)", "bytesAfter": "\(footprint)",
                ])
        } else {
            // Also within the limit: replaced records leave space behind in segments.
            try compactSegments()
        }
        try removeAbandonedTemporaryFiles(now: now)
        state.withLock { $0.lastScanDate = now }
        if removedCount > 0 { configuration.onTrim?(removedCount) }
    }

    /// Gives back the space of dead records in segments (see ``compactSegments(sealingNewest:anyDeadBytes:)``)
    /// and of free pages in the index. On a full disk the compaction, which copies live records,
    /// may fail: what it could not do waits for the next trim.
    private func reclaimSpace(sealingNewest: Bool, anyDeadBytes: Bool) throws {
        do {
            try compactSegments(sealingNewest: sealingNewest, anyDeadBytes: anyDeadBytes)
        } catch let error as DiskCacheError where error.errno == ENOSPC {
            configuration.logger.warning(
                "Disk cache compaction stopped: the disk is full", metadata: ["error": .string(error.description)])
        }
        try reclaimFreePages()
    }

    /// Counts the bytes on disk again and stores the count of segment and entry files in the
    /// shared usage row, after mending numbers in the index no write could have made: an inline
    /// row's size is its record's length; a row giving a size or offset beyond any record is
    /// damaged and is removed (its entry file, if any, is indexed again by the next
    /// ``reconcileIndex()``). Segment files are measured (`lstat`), not taken from their rows.
    ///
    /// - Returns: What counts against the limit: segment files, entry files, and the index
    ///   database beyond ``indexAllowance``.
    /// - Throws: ``DiskCacheError`` when the index cannot be written.
    @discardableResult
    func recountUsage() throws -> Int {
        try recount().counted
    }

    /// Counts again (see ``recountUsage()``); returns what counts against the limit, and all the
    /// bytes on disk (the index's log and allowance included).
    func recount() throws -> (counted: Int, onDisk: Int) {
        let (usage, removed) = try withIndex(writing: true) { connection in
            try connection.writeTransaction { () -> (Usage, [[UInt8]]) in
                let entries = EntryTable(connection: connection)
                let removed = try entries.mendNumbers()
                let table = UsageTable(connection: connection)
                try table.setFileBytes(try entries.fileAndInlineBytes().file)
                return (try table.current(), removed)
            }
        }
        for hash in removed {
            logDamagedRecord(hash: hash, reason: "the index gives a size or offset no record can have")
        }
        let indexFiles = measureIndexFiles()
        return (state.withLock { $0.counted(usage) }, usage.bytes + indexFiles)
    }

    /// The bytes of every entry's record, by the index (see ``EntryTable/recordBytes()``).
    func indexedByteCount() throws -> Int {
        try withIndex(writing: false) { try EntryTable(connection: $0).recordBytes() }
    }

    /// Removes least recently used entries (each with its file, in batches) whose records and
    /// rows add up to at least `byteCount`; returns the rows removed.
    private func removeLeastRecentlyUsed(beyond byteCount: Int) throws -> [IndexRow] {
        let candidates = try withIndex(writing: false) { try EntryTable(connection: $0).leastRecentlyUsed(atLeast: byteCount) }
        return try deleteRows(candidates, onlyIfUnused: true)
    }
}
