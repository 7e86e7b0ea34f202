import Foundation
import HoardSystem

/// A read transaction that ``DiskIndex`` keeps open for a few milliseconds while this process
/// reads, so that the process keeps SQLite's write-ahead-log read lock from one lookup to the next.
///
/// Every read transaction in WAL mode takes a shared lock on one of the `-shm` file's read marks
/// and gives it back at its end: two `fcntl` calls and the kernel's lock bookkeeping, about a
/// fifth of a 16 KiB read. SQLite makes no system call when another connection of the same
/// process already holds that lock, so while this hold's transaction is open, the pool's read
/// transactions on the same mark cost none. Those transactions still start from the newest
/// commit: the hold keeps only its own snapshot old.
///
/// The hold begins at the second read in a row (a read right after a write would pay for a hold
/// that the next write ends). An open read transaction keeps checkpoints from copying later
/// commits into the database file and the log from starting over, so the hold ends ``duration``
/// after it began (a timer on a global queue), and before this process writes
/// (``endForWrite()``). Holds one after another could still keep a writer (of this process or
/// another) from ever finding the log free to start over, and the log would grow without end:
/// so no hold begins while the log is larger than `logByteLimit`, which only a log that could
/// not start over reaches, until a writer has started it over and cut it back. A hold that cannot
/// begin (the database busy, damaged or not in WAL mode) is not tried again for ``retryDelay``:
/// reads then pay their own locks.
final class ReadLockHold: Sendable {
    /// How long a hold stays open.
    let duration: Duration
    /// The write-ahead log's path.
    private let logPath: String
    /// The log's size above which no hold begins.
    private let logByteLimit: Int
    private let state = Lock(State())

    private struct State {
        /// The hold's own connection, opened on first use.
        var connection: SQLiteConnection?
        /// Whether ``connection``'s database was found in WAL mode.
        var isWALChecked = false
        /// The statement whose first row keeps the transaction open, while it is.
        var holdingStatement: SQLiteStatement?
        /// When the transaction was opened.
        var openedAt: MonotonicInstant?
        /// Reads since this process last wrote.
        var readsSinceWrite = 0
        /// Whether a timer that will end the hold is scheduled.
        var isTimerPending = false
        /// When a hold that could not begin may be tried again.
        var retryAt: MonotonicInstant?
    }

    /// How long a hold that could not begin is not tried again, so that a folder where it never
    /// can costs each read nothing more.
    static let retryDelay: Duration = .milliseconds(100)

    /// Creates a hold that ends `duration` after each time it begins, and begins only while the
    /// log at `logPath` is at most `logByteLimit` bytes long (or absent).
    init(duration: Duration, logPath: String, logByteLimit: Int) {
        self.duration = duration
        self.logPath = logPath
        self.logByteLimit = logByteLimit
    }

    /// Counts a read, and opens the hold's read transaction on a connection of `generation` when
    /// this is the second read or more since the last write and it is not open.
    ///
    /// - Parameter connect: Opens a connection of `generation` (with no busy wait) when the hold
    ///   has none, or one of an older generation.
    /// - Returns: Whether a transaction was opened now.
    /// - Complexity: O(1) when the hold is open: one lock.
    func begin(generation: Int, connect: @Sendable (Int) throws -> SQLiteConnection) -> Bool {
        let (began, schedulesTimer) = state.withLock { state in
            state.readsSinceWrite += 1
            guard state.readsSinceWrite >= 2 else { return (false, false) }
            let began = begin(&state, generation: generation, connect: connect)
            let schedulesTimer = began && !state.isTimerPending
            if schedulesTimer { state.isTimerPending = true }
            return (began, schedulesTimer)
        }
        if schedulesTimer { endWhenExpired(after: duration) }
        return began
    }

    /// Ends the hold's read transaction, if open, before this process writes, and counts reads
    /// from none again.
    func endForWrite() {
        state.withLock { state in
            Self.end(&state)
            state.readsSinceWrite = 0
        }
    }

    /// Ends the hold and closes its connection: for a database being replaced or left.
    func close() {
        state.withLock { state in
            Self.end(&state)
            state.connection = nil
            state.isWALChecked = false
            state.retryAt = nil
        }
    }

    // MARK: - Private

    /// Ends the hold once it is ``duration`` old, checking again after `delay` while the open
    /// hold is younger (it may have begun anew since the timer was set).
    ///
    /// The timer holds the hold strongly, for at most ``duration`` after its owner let it go (the
    /// owner closes it first, see ``close()``). A weak reference would do, but its side table is
    /// reached through a tagged pointer, and LeakSanitizer reports it while the timer is pending.
    private func endWhenExpired(after delay: Duration) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(clamping: seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
            let duration = self.duration
            let remaining = self.state.withLock { state -> Duration? in
                let now = MonotonicInstant.now
                if let openedAt = state.openedAt, now < openedAt.advanced(by: duration) {
                    return duration - openedAt.duration(to: now)
                }
                Self.end(&state)
                state.isTimerPending = false
                return nil
            }
            if let remaining { self.endWhenExpired(after: remaining) }
        }
    }

    /// Opens the hold's transaction unless it is open on a connection of `generation`.
    private func begin(
        _ state: inout State, generation: Int, connect: @Sendable (Int) throws -> SQLiteConnection
    ) -> Bool {
        if state.openedAt != nil, state.connection?.generation == generation { return false }
        Self.end(&state)
        if let retryAt = state.retryAt {
            guard MonotonicInstant.now >= retryAt else { return false }
            state.retryAt = nil
        }
        if case .success(let log) = FileSystem.linkStatus(logPath), log.byteCount > logByteLimit {
            state.retryAt = MonotonicInstant.now.advanced(by: Self.retryDelay)
            return false
        }
        do {
            let connection: SQLiteConnection
            if let kept = state.connection, kept.generation == generation {
                connection = kept
            } else {
                state.connection = nil
                state.isWALChecked = false
                connection = try connect(generation)
                state.connection = connection
            }
            // A statement stepped to its first row and not reset keeps its read transaction open
            // (it takes its read lock there, which is also when a connection learns that the
            // database is in WAL mode); resetting it ends the transaction.
            let holding = try connection.statement(Self.schemaVersionSQL)
            guard try holding.step() else {  // always a row; without one, no transaction is held
                holding.reset()
                state.retryAt = MonotonicInstant.now.advanced(by: Self.retryDelay)
                return false
            }
            state.holdingStatement = holding
            state.openedAt = MonotonicInstant.now
            // Only a database in WAL mode is held: in any other, the shared lock would keep this
            // process's own writers out (a new database is held once `prepare()` has set the mode).
            if !state.isWALChecked {
                let mode = try connection.statement(Self.journalModeSQL)
                defer { mode.reset() }
                state.isWALChecked = try mode.step() && mode.text(0) == "wal"
                guard state.isWALChecked else {
                    Self.end(&state)
                    state.retryAt = MonotonicInstant.now.advanced(by: Self.retryDelay)
                    return false
                }
            }
            return true
        } catch {
            state.holdingStatement = nil
            state.connection = nil  // closing it ends whatever it had begun
            state.openedAt = nil
            state.retryAt = MonotonicInstant.now.advanced(by: Self.retryDelay)
            return false
        }
    }
    private static let schemaVersionSQL = SQL("PRAGMA schema_version")
    private static let journalModeSQL = SQL("PRAGMA journal_mode")

    private static func end(_ state: inout State) {
        state.holdingStatement?.reset()
        state.holdingStatement = nil
        state.openedAt = nil
    }
}
