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
    /// Bytes in entries as of the last count, plus this process's writes minus its removals since.
    var approximateByteCount = 0
    /// When the last completed scan started (by the cache's clock); `nil` before the first scan.
    var lastScanDate: Date?
    /// Whether `approximateByteCount` started from a scan (or from an empty folder).
    var isByteCountKnown = false

    /// Whether a write that landed at `landed` calls for a trim: the running total is over `limit`,
    /// or the last scan started `rescanInterval` or more before the write landed (with an interval of
    /// 0: not after it), or there has been no scan, or the clock went back past the last one.
    func isTrimDue(afterWriteAt landed: Date, now: Date, limit: Int, rescanInterval: TimeInterval) -> Bool {
        guard let last = lastScanDate else { return true }
        return approximateByteCount > limit || landed.timeIntervalSince(last) >= rescanInterval || last > now
    }
}

extension DiskCache {
    /// An entry file found by a scan.
    struct ScannedFile: Sendable {
        var path: String
        var fileName: String
        var status: FileStatus
    }

    /// Brings the index in step with the folder, then removes least recently used entries until
    /// the total is at or below the low-water mark if it is above ``Configuration/sizeLimit``,
    /// gives the space they took back to the file system, and removes temporary files abandoned by
    /// writers that died.
    ///
    /// Writes trim by themselves (by the index alone, without listing the folder) when the running
    /// total passes the limit or the last count is older than ``Configuration/rescanInterval``;
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

    /// Adds a write that has landed (been renamed into place) to the running total, and trims when due.
    ///
    /// Automatic trims run one at a time. A write that finds a trim due while another thread runs one
    /// waits for it, then checks again and runs its own if one is still due: skipping it instead
    /// would leave the write unseen by any scan whenever the running trim had already listed its
    /// folder, and with a ``Configuration/rescanInterval`` of 0 the folder must be scanned after
    /// every write (see ``DiskCache``).
    func noteWrite(_ outcome: WriteOutcome) {
        let landed = configuration.now()
        let limit = configuration.sizeLimit
        let rescanInterval = configuration.rescanInterval
        let isDue = state.withLock { state in
            let (sum, overflow) = state.approximateByteCount.addingReportingOverflow(
                outcome.byteCount - outcome.replacedByteCount)
            state.approximateByteCount = overflow ? .max : max(sum, 0)
            return state.isTrimDue(afterWriteAt: landed, now: landed, limit: limit, rescanInterval: rescanInterval)
        }
        guard isDue else { return }
        trimLock.withLock { _ in
            let now = configuration.now()
            let isStillDue = state.withLock {
                $0.isTrimDue(afterWriteAt: landed, now: now, limit: limit, rescanInterval: rescanInterval)
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

    /// This process's running estimate of the entry files' bytes; the first call before any scan
    /// scans the folder.
    ///
    /// - Complexity: O(1) once the folder has been scanned; O(m) for m entry files before.
    func estimatedByteCount() -> Int {
        let (count, isKnown) = state.withLock { ($0.approximateByteCount, $0.isByteCountKnown) }
        return isKnown ? count : (try? totalSize) ?? count
    }

    /// Subtracts a removal from the running total.
    func noteRemoval(byteCount: Int) {
        state.withLock { $0.approximateByteCount = max(0, $0.approximateByteCount - byteCount) }
    }

    /// Every file with an entry name in a shard folder, with its `lstat`; files that vanish while
    /// listing are skipped.
    ///
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the root cannot be listed.
    func scanEntryFiles() throws -> [ScannedFile] {
        let root: DirectoryStream
        do {
            root = try DirectoryStream(path: rootPath)
        } catch where error.errno == ENOENT {
            return []
        } catch {
            throw DiskCacheError.directoryUnavailable(path: rootPath, call: error.call, errno: error.errno)
        }
        var files: [ScannedFile] = []
        while let shard = root.next() {
            guard Self.isShardName(shard.name) else { continue }
            let shardPath = rootPath + "/" + shard.name
            // Only real folders: a shard that is a symbolic link leads somewhere the cache did not make.
            guard shard.kind == .directory || shard.kind == .unknown && Self.isRealDirectory(shardPath),
                let stream = try? DirectoryStream(path: shardPath)
            else { continue }
            while let entry = stream.next() {
                guard Self.isEntryFileName(entry.name) else { continue }
                let path = shardPath + "/" + entry.name
                if case .success(let status) = FileSystem.linkStatus(path) {
                    files.append(ScannedFile(path: path, fileName: entry.name, status: status))
                }
            }
        }
        return files
    }

    /// Whether `path` itself, not what a link there points to, is a folder.
    private static func isRealDirectory(_ path: String) -> Bool {
        if case .success(let status) = FileSystem.linkStatus(path) { status.kind == .directory } else { false }
    }

    /// Removes `file` if it is unchanged since it was scanned; returns whether it is gone.
    func removeScannedFile(_ file: ScannedFile) -> Bool {
        guard case .success(let current) = FileSystem.linkStatus(file.path) else { return true }
        guard current.kind == .regular, current.isSameFile(as: file.status), current.modificationDate == file.status.modificationDate else {
            return false  // replaced or used since the scan: keep it
        }
        switch FileSystem.removeFile(file.path) {
        case .success:
            return true
        case .failure(let error):
            configuration.logger.warning(
                "Cannot remove disk cache entry",
                metadata: ["path": .string(file.path), "call": .string(error.call), "errno": "\(error.errno)"])
            return false
        }
    }

    // MARK: - Private

    /// Totals the index, removes least recently used entries when over the limit (and gives their
    /// space back to the file system), and removes abandoned temporary files; `now` is when the
    /// count starts, and becomes `lastScanDate`.
    private func performTrim(now: Date) throws {
        let countedBefore = state.withLock { $0.approximateByteCount }
        var total = try indexedByteCount()
        let scannedTotal = total
        var removedCount = 0
        if total > configuration.sizeLimit {
            let target = configuration.lowWaterMark
            let candidates = try leastRecentlyUsedRows(beyond: total - target)
            let removed = try deleteRows(candidates, onlyIfUnused: true)
            for row in removed {
                if row.placement == .file { _ = try? removeEntryFile(ofHash: row.hash) }
                total -= row.byteCount
            }
            removedCount = removed.count
            try reclaimFreePages()
            configuration.logger.debug(
                "Trimmed disk cache",
                metadata: [
                    "path": .string(rootPath), "removed": "\(removedCount)",
                    "bytesBefore": "\(scannedTotal)", "bytesAfter": "\(total)",
                ])
        }
        // Also without a trim: replaced records leave space behind in segments too.
        try compactSegments()
        try removeAbandonedTemporaryFiles(now: now)
        state.withLock { state in
            // Keep what this process wrote while the trim ran.
            let writtenMeanwhile = state.approximateByteCount - countedBefore
            state.approximateByteCount = max(0, total + max(0, writtenMeanwhile))
            state.lastScanDate = now
            state.isByteCountKnown = true
        }
        if removedCount > 0 { configuration.onTrim?(removedCount) }
    }

    /// The bytes of every entry's record, by the index.
    func indexedByteCount() throws -> Int {
        try withIndex(writing: false) { connection in
            let sum = try connection.statement("SELECT total(size) FROM entries")
            defer { sum.reset() }
            return try sum.step() ? max(sum.int(0), 0) : 0
        }
    }

    /// The least recently used rows whose records add up to at least `byteCount`.
    private func leastRecentlyUsedRows(beyond byteCount: Int) throws -> [IndexRow] {
        try withIndex(writing: false) { connection in
            let select = try connection.statement(
                "SELECT \(IndexRow.rowColumns) FROM entries ORDER BY used, hash")
            defer { select.reset() }
            var rows: [IndexRow] = []
            var sum = 0
            while sum < byteCount, try select.step() {
                let row = IndexRow(select)
                rows.append(row)
                sum = min(sum, .max - row.byteCount) + row.byteCount  // saturating: sizes are damageable
            }
            return rows
        }
    }
}
