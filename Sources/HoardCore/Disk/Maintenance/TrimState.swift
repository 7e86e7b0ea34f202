import Foundation

/// The in-process bookkeeping behind size enforcement, guarded by ``Maintenance``.
struct TrimState: Sendable {
    /// The bytes of the index database when last measured (its log is part of the slack, not of
    /// the limit).
    var indexByteCount = 0
    /// The bytes of the records inside the index when last summed, while the index is small
    /// (see ``smallIndexByteCount``); 0 once it is larger.
    var inlineByteCount = 0
    /// Writes since the index files were last measured.
    var writesSinceIndexMeasure = Int.max
    /// Measures of the index files since the records inside the index were last summed.
    var measuresSinceInlineSum = Int.max
    /// When the last completed trim started (by the cache's clock); `nil` before the first.
    var lastScanDate: Date?

    /// Whether a write that left the shared usage at `usage` calls for a trim: the bytes on disk
    /// pass `limit`, or the last trim started `rescanInterval` or more before the write landed
    /// (with an interval of 0: not after it), or there has been none, or the clock went back.
    func isTrimDue(
        usage: DiskUsage, afterWriteAt landed: Date, now: Date, limit: Int, rescanInterval: TimeInterval
    ) -> Bool {
        guard let last = lastScanDate else { return true }
        return counted(usage) > limit || landed.timeIntervalSince(last) >= rescanInterval || last > now
    }

    /// What counts against the limit: the records outside the index (``DiskUsage/bytes``),
    /// and the index database past ``indexAllowance``, or the records inside it when
    /// they are more (a small index, whose allowance would hide them).
    func counted(_ usage: DiskUsage) -> Int {
        let index = max(inlineByteCount, indexByteCount - Self.indexAllowance)
        let (sum, overflow) = usage.bytes.addingReportingOverflow(index)
        return overflow ? .max : sum
    }

    /// Whether a measure of a small index of `databaseByteCount` bytes sums the records inside it
    /// again: at every measure up to 32 KiB, then at one measure in n + 1 for n times 32 KiB, so
    /// that reading the rows through costs about as much per write at any size (a read through
    /// 3,000 rows every 32 writes was a tenth of a 16 KiB store's instructions). Changes this
    /// process makes count at once; other processes' show at the next sum.
    func isInlineSumDue(databaseByteCount: Int) -> Bool {
        measuresSinceInlineSum >= databaseByteCount / (32 * 1024)
    }

    /// Up to this size of the index database, the records inside it are summed when it is
    /// measured, since its file's size, past ``indexAllowance``, would not show them.
    static let smallIndexByteCount = 4 * indexAllowance

    /// The bytes of the index database that are part of the slack rather than counted against
    /// the limit: its schema and the first pages of its tables, whatever they hold.
    static let indexAllowance = 64 * 1024
}
