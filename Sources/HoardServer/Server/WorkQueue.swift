import HoardSystem

/// Lets at most `concurrency` decodes run at once and at most `capacity` wait; a request beyond
/// that is refused at once with ``ServeError/overloaded(retryAfter:)``, so that a flood costs
/// memory for `concurrency + capacity` images, not for every request.
final class WorkQueue: Sendable {
    private struct State {
        var running = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// How many run at once.
    let concurrency: Int
    /// How many may wait.
    let capacity: Int
    private let state = Lock(State())

    init(concurrency: Int, capacity: Int) {
        precondition(concurrency >= 1 && capacity >= 0, "WorkQueue needs a concurrency of 1 or more")
        self.concurrency = concurrency
        self.capacity = capacity
    }

    /// How many run and how many wait, now.
    var counts: (running: Int, waiting: Int) {
        state.withLock { ($0.running, $0.waiters.count) }
    }

    /// Runs `body` once a place is free.
    ///
    /// - Throws: ``ServeError/overloaded(retryAfter:)`` when every place is taken and the queue is
    ///   full; else what `body` throws.
    func run<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        try await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async throws(ServeError) {
        enum Admission { case now, queued, refused }
        var admission = Admission.refused
        await withCheckedContinuation { continuation in
            admission = state.withLock { state -> Admission in
                if state.running < concurrency {
                    state.running += 1
                    return .now
                }
                guard state.waiters.count < capacity else { return .refused }
                state.waiters.append(continuation)
                return .queued
            }
            if admission != .queued { continuation.resume() }
        }
        ThreadSanitizer.taskResumed()
        if admission == .refused { throw .overloaded(retryAfter: 1) }
    }

    private func release() {
        // A waiter takes over the place: `running` stays the same.
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.running -= 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
