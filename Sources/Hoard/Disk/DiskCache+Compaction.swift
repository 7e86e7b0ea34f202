import Foundation

extension DiskCache {
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
            let step = try withIndex(writing: true) { connection -> Int in
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
            _ = try withIndex(writing: true) { try DatabaseFile(connection: $0).checkpoint(truncating: false) }
        }
        return reclaimed
    }
}
