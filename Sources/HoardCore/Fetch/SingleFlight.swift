import HoardSystem

/// Runs at most one piece of work per key at a time; callers that arrive while it runs wait for
/// its result instead of starting another.
///
/// The work runs in its own task, so a waiter that is cancelled stops waiting (it throws
/// `CancellationError`) without disturbing the others. When the last waiter is cancelled, the
/// work's task is cancelled too and the key is free for a new run.
///
/// ``forget(_:)`` detaches a key from its running work: the next caller starts a new run, and the
/// old run's waiters still get the old run's result. The work can ask whether it is still the
/// key's current run (a forgotten run should not store its result over a newer one).
///
/// ```swift
/// let flights = SingleFlight<String, Data>()
/// let data = try await flights.run(key: url) { _ in try await download(url) }
/// ```
final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Lets a run's work ask whether its key still belongs to it.
    struct Ticket: Sendable {
        fileprivate let flights: SingleFlight
        fileprivate let key: Key
        fileprivate let run: UInt64

        /// Whether the run is still the key's current one (not forgotten, not replaced).
        var isCurrent: Bool {
            flights.state.withLock { $0.currentRun[key] == run }
        }
    }

    private struct Run {
        var key: Key
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
    }

    private struct State {
        /// The run that new callers for a key join.
        var currentRun: [Key: UInt64] = [:]
        /// Every run that has not finished, current or forgotten.
        var runs: [UInt64: Run] = [:]
        /// The run each registered waiter waits for.
        var runOfWaiter: [UInt64: UInt64] = [:]
        /// Waiters that have an identifier but have not registered yet.
        var unregisteredWaiters: Set<UInt64> = []
        /// Unregistered waiters that were cancelled: their registration gives up.
        var cancelledWaiters: Set<UInt64> = []
        var nextIdentifier: UInt64 = 0

        mutating func makeIdentifier() -> UInt64 {
            defer { nextIdentifier += 1 }
            return nextIdentifier
        }
    }

    /// All mutable state; touched only inside `withLock`.
    private let state = Lock(State())

    /// The result of the run for `key`: a new run of `work` when none is going, else the going one.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - onJoin: Called when this call joins a run that was already going, once it waits for it.
    ///   - work: The work, run in a new task when this call starts the run.
    /// - Returns: The run's value.
    /// - Throws: The run's error, or `CancellationError` when this caller is cancelled.
    func run(
        key: Key, onJoin: () -> Void = {}, work: @escaping @Sendable (Ticket) async throws -> Value
    ) async throws -> Value {
        let waiter = state.withLock { state in
            let waiter = state.makeIdentifier()
            state.unregisteredWaiters.insert(waiter)
            return waiter
        }
        return try await withTaskCancellationHandler {
            defer { ThreadSanitizer.taskResumed() }
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let joined = state.withLock { state -> Bool? in
                    state.unregisteredWaiters.remove(waiter)
                    if state.cancelledWaiters.remove(waiter) != nil { return nil }
                    if let run = state.currentRun[key] {
                        state.runs[run]?.waiters[waiter] = continuation
                        state.runOfWaiter[waiter] = run
                        return true
                    }
                    let run = state.makeIdentifier()
                    state.currentRun[key] = run
                    state.runOfWaiter[waiter] = run
                    let ticket = Ticket(flights: self, key: key, run: run)
                    // Created under the lock so that a cancellation always finds the task to cancel;
                    // the task's body runs later, on the global executor.
                    let task = Task { [self] in
                        let result: Result<Value, any Error>
                        do {
                            result = .success(try await work(ticket))
                        } catch {
                            result = .failure(error)
                        }
                        finish(run, with: result)
                    }
                    state.runs[run] = Run(key: key, task: task, waiters: [waiter: continuation])
                    return false
                }
                switch joined {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: onJoin()
                case false?: break
                }
            }
        } onCancel: {
            cancel(waiter)
        }
    }

    /// Detaches `key` from its running work, if any: later callers start a new run.
    func forget(_ key: Key) {
        state.withLock { _ = $0.currentRun.removeValue(forKey: key) }
    }

    /// The number of callers waiting on the current run for `key`. For tests.
    func waiterCount(forKey key: Key) -> Int {
        state.withLock { state in
            state.currentRun[key].flatMap { state.runs[$0]?.waiters.count } ?? 0
        }
    }

    // MARK: - Private

    /// Hands the result to every waiter of `run` and frees its key.
    private func finish(_ run: UInt64, with result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard let finished = state.runs.removeValue(forKey: run) else { return [] }
            if state.currentRun[finished.key] == run {
                state.currentRun.removeValue(forKey: finished.key)
            }
            for waiter in finished.waiters.keys {
                state.runOfWaiter.removeValue(forKey: waiter)
            }
            return Array(finished.waiters.values)
        }
        for waiter in waiters {
            waiter.resume(with: result)
        }
    }

    /// Stops `waiter` waiting; cancels its run when nobody else waits for it.
    private func cancel(_ waiter: UInt64) {
        let (continuation, task) = state.withLock {
            state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
            guard let identifier = state.runOfWaiter.removeValue(forKey: waiter) else {
                // Not registered yet: its registration sees this and gives up. (Already finished: nothing to do.)
                if state.unregisteredWaiters.contains(waiter) { state.cancelledWaiters.insert(waiter) }
                return (nil, nil)
            }
            let continuation = state.runs[identifier]?.waiters.removeValue(forKey: waiter)
            guard let run = state.runs[identifier], run.waiters.isEmpty else { return (continuation, nil) }
            // That was the last waiter: abandon the run.
            state.runs.removeValue(forKey: identifier)
            if state.currentRun[run.key] == identifier {
                state.currentRun.removeValue(forKey: run.key)
            }
            return (continuation, run.task)
        }
        task?.cancel()
        continuation?.resume(throwing: CancellationError())
    }
}
