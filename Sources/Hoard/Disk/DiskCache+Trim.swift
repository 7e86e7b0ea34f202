import Foundation
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
    /// Bytes in entry files as of the last scan, plus this process's writes minus its removals since.
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

    /// Scans the folder now and removes least recently used entries until the total is at or
    /// below the low-water mark if it is above ``Configuration/sizeLimit``; then removes temporary
    /// files abandoned by writers that died.
    ///
    /// Writes call this by themselves when the running total passes the limit or the last scan is
    /// older than ``Configuration/rescanInterval``; call it directly after a bulk import, or at
    /// start-up to clean up after a crash. Several processes may trim the same folder at once.
    ///
    /// ```swift
    /// try cache.trim()
    /// ```
    ///
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the folder cannot
    ///   be listed.
    /// - Complexity: O(m log m) for m entry files: one `lstat` each, a sort, and one `unlink` per
    ///   removed entry.
    public func trim() throws {
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
            state.approximateByteCount += outcome.byteCount - outcome.replacedByteCount
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
        let shardNames: [String]
        switch FileSystem.contentsOfDirectory(rootPath) {
        case .success(let names): shardNames = names.filter(Self.isShardName)
        case .failure(let error) where error.errno == ENOENT: return []
        case .failure(let error):
            throw DiskCacheError.directoryUnavailable(path: rootPath, call: error.call, errno: error.errno)
        }
        var files: [ScannedFile] = []
        for shardName in shardNames {
            let shardPath = rootPath + "/" + shardName
            guard case .success(let names) = FileSystem.contentsOfDirectory(shardPath) else { continue }
            for name in names where Self.isEntryFileName(name) {
                let path = shardPath + "/" + name
                if case .success(let status) = FileSystem.linkStatus(path) {
                    files.append(ScannedFile(path: path, fileName: name, status: status))
                }
            }
        }
        return files
    }

    /// Removes `file` if it is unchanged since it was scanned; returns whether it is gone.
    func removeScannedFile(_ file: ScannedFile) -> Bool {
        guard case .success(let current) = FileSystem.linkStatus(file.path) else { return true }
        guard current.isSameFile(as: file.status), current.modificationDate == file.status.modificationDate else {
            return false  // replaced or used since the scan: keep it
        }
        switch FileSystem.removeItem(file.path) {
        case .success:
            return true
        case .failure(let error):
            configuration.logger.warning(
                "Cannot remove disk cache entry",
                metadata: ["path": .string(file.path), "call": .string(error.call), "errno": "\(error.errno)"])
            return false
        }
    }

    /// Removes temporary files that no live writer holds; returns how many.
    ///
    /// A writer holds an `flock` on its temporary file from creation to rename, and the kernel
    /// releases it when the writer dies, so a file whose lock this can take is abandoned (or was
    /// just renamed into place, in which case its temporary name is already gone).
    @discardableResult
    func removeAbandonedTemporaryFiles(now: Date) -> Int {
        guard case .success(let names) = FileSystem.contentsOfDirectory(temporaryDirectoryPath) else { return 0 }
        var removed = 0
        for name in names {
            let path = temporaryDirectoryPath + "/" + name
            switch FileSystem.open(path, flags: FileSystem.readOnlyFlags) {
            case .failure(let error) where error.errno == ELOOP || error.errno == EMLINK:
                // A symbolic link: no writer of ours made it.
                if case .success = FileSystem.unlink(path) { removed += 1 }
            case .failure:
                continue
            case .success(let descriptor):
                defer { FileSystem.close(descriptor) }  // after the unlink: nobody can lock it meanwhile
                if isAbandonedTemporaryFile(descriptor, now: now), isStillNamed(path, descriptor),
                    case .success = FileSystem.removeItem(path, missingIsSuccess: false)
                {
                    removed += 1
                }
            }
        }
        if removed > 0 {
            configuration.logger.info(
                "Removed abandoned disk cache temporary files",
                metadata: ["count": "\(removed)", "path": .string(temporaryDirectoryPath)])
        }
        return removed
    }

    /// Whether no live writer holds the open temporary file: its lock is free or, where `flock`
    /// is unsupported, it has not been written for ``Configuration/abandonedTemporaryFileAge``.
    private func isAbandonedTemporaryFile(_ descriptor: Int32, now: Date) -> Bool {
        switch FileSystem.tryLockExclusive(descriptor) {
        case .success(let locked):
            return locked
        case .failure:
            guard case .success(let status) = FileSystem.status(of: descriptor) else { return false }
            return now.timeIntervalSince(status.modificationDate) >= configuration.abandonedTemporaryFileAge
        }
    }

    /// Whether `path` still names the file open as `descriptor`.
    private func isStillNamed(_ path: String, _ descriptor: Int32) -> Bool {
        guard case .success(let open) = FileSystem.status(of: descriptor),
            case .success(let named) = FileSystem.linkStatus(path)
        else { return false }
        return open.isSameFile(as: named)
    }

    // MARK: - Private

    /// Scans, removes least recently used entries when over the limit, and removes abandoned
    /// temporary files; `now` is when the scan starts, and becomes `lastScanDate`.
    private func performTrim(now: Date) throws {
        let countedBefore = state.withLock { $0.approximateByteCount }
        let files = try scanEntryFiles().filter { $0.status.kind == .regular }
        var total = files.reduce(0) { $0 + $1.status.byteCount }
        let scannedTotal = total
        var removedCount = 0
        if total > configuration.sizeLimit {
            let target = configuration.lowWaterMark
            let oldestFirst = files.sorted {
                ($0.status.modificationDate, $0.fileName) < ($1.status.modificationDate, $1.fileName)
            }
            for file in oldestFirst {
                guard total > target else { break }
                if removeScannedFile(file) {
                    total -= file.status.byteCount
                    removedCount += 1
                }
            }
            configuration.logger.debug(
                "Trimmed disk cache",
                metadata: [
                    "path": .string(rootPath), "removed": "\(removedCount)",
                    "bytesBefore": "\(scannedTotal)", "bytesAfter": "\(total)",
                ])
        }
        removeAbandonedTemporaryFiles(now: now)
        state.withLock { state in
            // Keep what this process wrote while the scan ran.
            let writtenMeanwhile = state.approximateByteCount - countedBefore
            state.approximateByteCount = max(0, total + max(0, writtenMeanwhile))
            state.lastScanDate = now
            state.isByteCountKnown = true
        }
        if removedCount > 0 { configuration.onTrim?(removedCount) }
    }
}
