import DequeModule

/// Lets at most ``concurrency`` bodies run at once and at most ``waitingCapacity`` wait; the
/// others are refused at once with ``Full``. The server bounds its decodes and each origin's
/// downloads with one; the tool its decodes (with no bound on the waiting).
///
/// Invariant: at most ``concurrency`` run and at most ``waitingCapacity`` wait; a freed place
/// goes to the longest waiter, and a waiter whose task is cancelled leaves the queue at once,
/// taking no place.
package final class WorkQueue: Sendable {
    /// How many run at once.
    package let concurrency: Int
    /// How many may wait.
    package let waitingCapacity: Int
    private let state = Lock(State())

    /// Every place was taken and the queue was full: nothing ran.
    package struct Full: Error, Sendable, Equatable, CustomStringConvertible {
        /// How many ran and how many waited.
        package let running: Int
        package let waiting: Int

        package var description: String { "the work queue is full: \(running) running, \(waiting) waiting" }
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var running = 0
        var waiters = Deque<Waiter>()
        var lastID: UInt64 = 0
    }

    /// Creates a queue of `concurrency` places (at least 1) and room for `waitingCapacity` waiters
    /// (0 or more; `Int.max` for no bound).
    package init(concurrency: Int, waitingCapacity: Int = .max) {
        precondition(concurrency >= 1 && waitingCapacity >= 0, "WorkQueue needs a concurrency of 1 or more")
        self.concurrency = concurrency
        self.waitingCapacity = waitingCapacity
    }

    /// How many run and how many wait, now.
    package var counts: (running: Int, waiting: Int) {
        state.withLock { ($0.running, $0.waiters.count) }
    }

    /// Runs `body` once a place is free, in the order the callers came.
    ///
    /// - Throws: ``Full`` when every place is taken and the queue is full; `CancellationError` when
    ///   the task is cancelled while it waits (a task admitted at once runs, cancelled or not);
    ///   else what `body` throws.
    package func run<Result>(_ body: () async throws -> Result) async throws -> Result {
        try await acquire()
        defer { release() }
        return try await body()
    }

    // MARK: - Private

    private func acquire() async throws {
        let isAdmitted = state.withLock { state in
            guard state.running < concurrency else { return false }
            state.running += 1
            return true
        }
        if isAdmitted { return }
        let id = state.withLock { state in
            state.lastID &+= 1
            return state.lastID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let admission = state.withLock { state -> Admission in
                    if state.running < concurrency {  // a place came free meanwhile
                        state.running += 1
                        return .admitted
                    }
                    guard state.waiters.count < waitingCapacity else {
                        return .refused(Full(running: state.running, waiting: state.waiters.count))
                    }
                    // Checked under the lock that the cancellation handler takes: a cancellation
                    // either finds the waiter queued or is seen here.
                    if Task.isCancelled { return .refused(CancellationError()) }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return .queued
                }
                switch admission {
                case .admitted: continuation.resume()
                case .queued: break
                case .refused(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        ThreadSanitizer.taskResumed()
    }

    private enum Admission {
        case admitted, queued
        case refused(any Error)
    }

    private func release() {
        // A waiter takes over the place: `running` stays the same.
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if let waiter = state.waiters.popFirst() { return waiter.continuation }
            state.running -= 1
            return nil
        }
        next?.resume()
    }
}
