import Foundation

/// The in-process bookkeeping behind size enforcement, guarded by ``Maintenance``: when this
/// process last looked the folder over. What counts against the limit is the index's running
/// totals (see ``DiskUsage``), shared by every process.
struct TrimState: Sendable {
    /// When the last completed trim or rescan started (by the cache's clock); at first, when the
    /// cache was opened, so that a new process's first store does no more than any other.
    var lastScanDate: Date

    /// Whether a write that left the shared usage at `usage` calls for a trim: the bytes on disk
    /// pass `limit`, or the last rescan started `rescanInterval` or more before the write landed
    /// (with an interval of 0: not after it), or the clock went back.
    func isTrimDue(
        usage: DiskUsage, afterWriteAt landed: Date, now: Date, limit: Int, rescanInterval: TimeInterval
    ) -> Bool {
        usage.counted > limit || landed.timeIntervalSince(lastScanDate) >= rescanInterval || lastScanDate > now
    }
}
