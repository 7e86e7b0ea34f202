import Foundation
import HoardSystem

/// A read transaction that ``DiskIndex`` keeps open for a few milliseconds after each checkout,
/// so that the process keeps SQLite's write-ahead-log read lock between one lookup and the next.
///
/// Every read transaction in WAL mode takes a shared lock on one of the `-shm` file's read marks
/// and gives it back at its end: two `fcntl` calls and the kernel's lock bookkeeping, about a
/// fifth of a 16 KiB read. SQLite makes no system call when another connection of the same
/// process already holds that lock, so while this hold's transaction is open, the pool's read
/// transactions on the same mark cost none. Those transactions still start from the newest
/// commit: the hold keeps only its own snapshot old.
///
/// An open read transaction keeps checkpoints from copying later commits into the database file
/// and the log from starting over, so the hold ends ``duration`` after it began (a timer on a
/// global queue), and ``DiskIndex`` ends it at once before this process writes (``end()``). A
/// hold that cannot begin (the database busy or damaged) is simply not taken: reads then pay their
/// own locks.
final class ReadLockHold: Sendable {
    /// How long a hold stays open.
    let duration: Duration
    private let state = Lock(State())

    private struct State {
        /// The hold's own connection, opened on first use.
        var connection: SQLiteConnection?
        /// When its read transaction was opened; `nil` while none is open.
        var openedAt: ContinuousClock.Instant?
        /// Whether a timer that will end the hold is scheduled.
        var isTimerPending = false
        /// When a hold that could not begin may be tried again.
        var retryAt: ContinuousClock.Instant?

        var isOpen: Bool { openedAt != nil }
    }

    /// Creates a hold that ends `duration` after each time it begins.
    init(duration: Duration) {
        self.duration = duration
    }

    /// How long a hold that could not begin (the database busy, damaged or not in WAL mode) is
    /// not tried again, so that a folder where it never can costs each read nothing more.
    static let retryDelay: Duration = .milliseconds(100)

    /// Opens the hold's read transaction on a connection of `generation`, unless it is open.
    ///
    /// - Parameter connect: Opens a connection of `generation` (with no busy wait) when the hold
    ///   has none, or one of an older generation.
    /// - Returns: Whether a transaction was opened now.
    /// - Complexity: O(1) when the hold is open: one lock.
    func begin(generation: Int, connect: (Int) throws -> SQLiteConnection) -> Bool {
        let (began, schedulesTimer) = state.withLock { state in
            let began = Self.begin(&state, generation: generation, connect: connect)
            let schedulesTimer = began && !state.isTimerPending
            if schedulesTimer { state.isTimerPending = true }
            return (began, schedulesTimer)
        }
        if schedulesTimer { endWhenExpired(after: duration) }
        return began
    }

    /// Ends the hold once it is ``duration`` old, checking again after `delay` while the open
    /// hold is younger (it may have begun anew since the timer was set).
    private func endWhenExpired(after delay: Duration) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(clamping: seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            guard let self else { return }
            let remaining = state.withLock { state -> Duration? in
                if let openedAt = state.openedAt, case let age = ContinuousClock.now - openedAt, age < duration {
                    return duration - age
                }
                Self.end(&state)
                state.isTimerPending = false
                return nil
            }
            if let remaining { endWhenExpired(after: remaining) }
        }
    }

    /// Opens the hold's transaction unless it is open on a connection of `generation`.
    private static func begin(
        _ state: inout State, generation: Int, connect: (Int) throws -> SQLiteConnection
    ) -> Bool {
        guard !state.isOpen || state.connection?.generation != generation else { return false }
        end(&state)
        if let retryAt = state.retryAt {
            guard ContinuousClock.now >= retryAt else { return false }
            state.retryAt = nil
        }
        do {
            let connection: SQLiteConnection
            if let kept = state.connection, kept.generation == generation {
                connection = kept
            } else {
                state.connection = nil
                connection = try connect(generation)
                state.connection = connection
            }
            try connection.statement("BEGIN").run()
            state.openedAt = .now
            // A deferred transaction takes its read lock at its first read (which is also when a
            // connection learns that the database is in WAL mode). Only a database in WAL mode is
            // held: in any other, the shared lock would keep this process's own writers out (a new
            // database is held once `prepare()` has set the mode).
            let read = try connection.statement("SELECT 1 FROM sqlite_master LIMIT 1")
            _ = try read.step()
            read.reset()
            let mode = try connection.statement("PRAGMA journal_mode")
            let isWAL = try mode.step() && mode.text(0) == "wal"
            mode.reset()
            guard isWAL else {
                end(&state)
                state.retryAt = .now + retryDelay
                return false
            }
            return true
        } catch {
            state.connection = nil  // closing it ends whatever it had begun
            state.openedAt = nil
            state.retryAt = .now + retryDelay
            return false
        }
    }

    /// Ends the hold's read transaction, if open; its connection stays for the next ``begin(generation:connect:)``.
    func end() {
        state.withLock { Self.end(&$0) }
    }

    /// Ends the hold and closes its connection: for a database being replaced or left.
    func close() {
        state.withLock { state in
            Self.end(&state)
            state.connection = nil
            state.retryAt = nil
        }
    }

    private static func end(_ state: inout State) {
        guard state.isOpen else { return }
        state.openedAt = nil
        do {
            try state.connection?.statement("COMMIT").run()
        } catch {
            state.connection = nil
        }
    }
}
