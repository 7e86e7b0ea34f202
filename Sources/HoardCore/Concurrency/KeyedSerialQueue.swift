import HoardSystem
/// Runs asynchronous operations one after another per key, in the order they were enqueued, and
/// operations on different keys concurrently.
///
/// What keeps the completion-handler API in the caller's order: `enqueue` is synchronous, so two
/// calls made one after the other from one thread are queued in that order, and the second starts
/// only when the first has finished, whether or not anybody waits for either.
///
/// ```swift
/// let queue = KeyedSerialQueue()
/// queue.enqueue(key: "a") { await store() }
/// queue.enqueue(key: "a") { await retrieve() }  // runs after the store has finished
/// ```
final class KeyedSerialQueue: Sendable {
    private struct Tail {
        var ticket: UInt64
        var task: Task<Void, Never>
    }

    private struct State {
        var tails: [ExactString: Tail] = [:]
        var nextTicket: UInt64 = 0
    }

    private let state = Lock(State())

    /// The number of keys with an operation queued or running (for tests).
    var pendingKeyCount: Int {
        state.withLock { $0.tails.count }
    }

    /// Queues `operation` after every operation already queued for `key`.
    ///
    /// - Complexity: O(1) amortised; one task per operation.
    func enqueue(key: String, _ operation: @escaping @Sendable () async -> Void) {
        let key = ExactString(key)
        state.withLock { state in
            let previous = state.tails[key]?.task
            let ticket = state.nextTicket
            state.nextTicket &+= 1
            let task = Task { [weak self] in
                await previous?.value
                await operation()
                self?.finish(key: key, ticket: ticket)
            }
            state.tails[key] = Tail(ticket: ticket, task: task)
        }
    }

    /// Forgets `key` once its last queued operation has finished.
    private func finish(key: ExactString, ticket: UInt64) {
        state.withLock { state in
            if state.tails[key]?.ticket == ticket { state.tails[key] = nil }
        }
    }
}
