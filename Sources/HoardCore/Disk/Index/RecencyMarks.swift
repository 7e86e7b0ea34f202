import Foundation
import HoardSystem

/// The recency marks this process's reads make, written to the index a batch at a time.
///
/// A read that finds its entry's last use older than
/// ``DiskCache/Configuration/recencyUpdateInterval`` marks it used (the row moves to the end of the
/// trim order). Written one by one, each mark was a write transaction of its own, which also ended
/// the ``ReadLockHold``: a read of an entry not read for a minute cost six times one that marks
/// nothing. Here a mark waits in memory until ``batchCount`` wait or the flush delay (``defaultFlushDelayMilliseconds``)
/// have passed since the first of them, then all are written in one transaction; this process's
/// own trims write them first.
///
/// Invariant: a mark is written within the flush delay of being made while the write
/// lock is free, or dropped (which costs recency only, never an entry): while the lock is busy
/// they wait for the next try, and at most ``capacity`` wait. A mark never moves a last use back.
final class RecencyMarks: Sendable {
    private let batches: Batches

    /// Marks written together as soon as this many wait.
    static let batchCount = 64
    /// The longest a mark waits in memory while the write lock is free, in milliseconds, by default.
    static let defaultFlushDelayMilliseconds = 500
    /// Marks that may wait at most: past it, new marks are dropped until a batch is written.
    static let capacity = 4_096

    init(index: DiskIndex, flushDelayMilliseconds: Int = RecencyMarks.defaultFlushDelayMilliseconds) {
        batches = Batches(index: index, flushDelayMilliseconds: flushDelayMilliseconds)
    }

    /// Writes what waits (without waiting for the lock) and lets go of the index: a timer still
    /// pending then finds nothing to do.
    deinit {
        batches.close()
    }

    /// How many marks wait to be written.
    var pendingCount: Int { batches.pendingCount }

    /// Records that the entry of `hash` was used at `date`; writes the batch when it is full
    /// (without waiting for another writer) and otherwise makes sure one is written within the
    /// flush delay.
    func mark(_ hash: [UInt8], at date: Date) {
        batches.mark(hash, at: date)
    }

    /// Writes every waiting mark in one transaction. With `waiting` (a trim of this process, before
    /// it reads the order of use) it waits for the write lock as a writer does; otherwise, when the
    /// lock is busy, the marks wait for the next try.
    func flush(waiting: Bool = false) {
        batches.flush(waiting: waiting)
    }
}

/// What ``RecencyMarks`` keeps, apart from it so that its timer can hold this strongly (a weak
/// reference's side table outlived a released cache by the timer's delay, which LeakSanitizer
/// reported), holding no index once the marks are let go of.
private final class Batches: Sendable {
    private let state: Lock<State>
    /// The longest a mark waits in memory while the write lock is free, in milliseconds.
    let flushDelayMilliseconds: Int

    private struct State {
        /// Where the marks go; `nil` once ``RecencyMarks`` is let go of.
        var index: DiskIndex?
        /// The last use waiting to be written, by key hash (seconds since the reference date).
        var pending: [[UInt8]: Double] = [:]
        /// Whether a flush after ``flushDelayMilliseconds`` is scheduled.
        var isFlushScheduled = false
        /// Whether the last flush found the write lock busy: then reads leave the next try to the
        /// timer instead of each trying again.
        var isLockBusy = false

        /// Keeps the later of `hash`'s waiting date and `date` (seconds since the reference date),
        /// unless ``RecencyMarks/capacity`` marks of other keys wait; whether it was kept.
        @discardableResult
        mutating func record(_ hash: [UInt8], at date: Double) -> Bool {
            guard pending.count < RecencyMarks.capacity || pending[hash] != nil else { return false }
            pending[hash] = max(pending[hash] ?? 0, date)
            return true
        }
    }

    init(index: DiskIndex, flushDelayMilliseconds: Int) {
        state = Lock(State(index: index))
        self.flushDelayMilliseconds = flushDelayMilliseconds
    }

    /// The last flush, which never reschedules; then no index and no marks.
    func close() {
        flush(rescheduling: false)
        state.withLock {
            $0.index = nil
            $0.pending.removeAll()
        }
    }

    var pendingCount: Int { state.withLock { $0.pending.count } }

    func mark(_ hash: [UInt8], at date: Date) {
        let (isFull, needsTimer) = state.withLock { state -> (Bool, Bool) in
            guard state.index != nil, state.record(hash, at: date.timeIntervalSinceReferenceDate) else {
                return (false, false)
            }
            defer { state.isFlushScheduled = true }
            return (state.pending.count >= RecencyMarks.batchCount && !state.isLockBusy, !state.isFlushScheduled)
        }
        if isFull {
            flush()
        }
        if needsTimer {
            scheduleFlush()
        }
    }

    /// As ``RecencyMarks/flush(waiting:)``; a batch the lock keeps out waits for a timer, unless
    /// `rescheduling` is false (the last flush drops it).
    func flush(waiting: Bool = false, rescheduling: Bool = true) {
        let (batch, index) = state.withLock { state in
            defer { state.pending.removeAll(keepingCapacity: true) }
            state.isLockBusy = false
            return (state.pending, state.index)
        }
        guard !batch.isEmpty, let index else { return }
        // In transactions of a maintenance batch's rows, so that marks kept back by a busy lock
        // (up to the capacity) never take the log far past its limit in one transaction.
        let sorted = batch.sorted { $0.value < $1.value }
        let chunkCount = index.log.maintenanceBatchRowCount
        var writtenCount = 0
        while writtenCount < sorted.count {
            let chunk = sorted[writtenCount..<min(writtenCount + chunkCount, sorted.count)]
            let write = { (connection: SQLiteConnection) throws in
                let table = EntryTable(connection: connection)
                for (hash, date) in chunk { try table.markUsed(hash, at: Date(timeIntervalSinceReferenceDate: date)) }
            }
            let isWritten =
                waiting
                ? (try? index.withDatabase(writing: true) { connection in
                    try connection.writeTransaction { try write(connection) }
                }) != nil
                : index.withDatabaseWithoutWaiting(write) != nil  // in a transaction of its own
            guard isWritten else { break }
            writtenCount += chunk.count
        }
        guard writtenCount < sorted.count, rescheduling else { return }
        let unwritten = sorted[writtenCount...]
        let needsTimer = state.withLock { state -> Bool in
            guard state.index != nil else { return false }
            state.isLockBusy = true
            for (hash, date) in unwritten { state.record(hash, at: date) }
            defer { state.isFlushScheduled = true }
            return !state.isFlushScheduled
        }
        if needsTimer {
            scheduleFlush()
        }
    }

    /// Flushes after ``flushDelayMilliseconds``, on a global queue (holding this, not the index
    /// nor the cache, until then).
    private func scheduleFlush() {
        let deadline = DispatchTime.now() + .milliseconds(flushDelayMilliseconds)
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: deadline) { [self] in
            state.withLock { $0.isFlushScheduled = false }
            flush()
        }
    }
}
