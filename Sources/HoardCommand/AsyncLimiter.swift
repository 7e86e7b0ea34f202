import Hoard
import HoardSystem

/// Lets at most `limit` tasks into a section at once; the others wait in order.
final class AsyncLimiter: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Lock<State>

    init(limit: Int) {
        precondition(limit > 0, "AsyncLimiter needs a limit of at least 1")
        state = Lock(State(available: limit))
    }

    /// Runs `body` once a place is free.
    func run<Result: Sendable>(_ body: () async throws -> Result) async rethrows -> Result {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
        ThreadSanitizer.taskResumed()
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
