import HoardSystem

/// Runs asynchronous operations one after another per key, in the order they were enqueued, and
/// operations on different keys concurrently.
///
/// What keeps the completion-handler API in the caller's order: `enqueue` is synchronous, so two
/// calls made one after the other from one thread are queued in that order, and the second starts
/// only when the first has finished, whether or not anybody waits for either.
///
/// One task per key runs its operations back to back: the next one starts as soon as the one
/// before it ends, not behind every task started meanwhile. (A task per operation, awaiting the one
/// before, went to the back of the executor's queue: a retrieve queued right after its store ran
/// after hundreds of other stores, and missed a value those stores had pushed out of the cache.)
///
/// ```swift
/// let queue = KeyedSerialQueue()
/// queue.enqueue(key: "a") { await store() }
/// queue.enqueue(key: "a") { await retrieve() }  // runs after the store has finished
/// ```
final class KeyedSerialQueue: Sendable {
    typealias Operation = @Sendable () async -> Void

    /// The keys whose task is running, with the operations queued for each since it last looked.
    private let state = Lock([ExactString: [Operation]]())

    /// The number of keys with an operation queued or running (for tests).
    var pendingKeyCount: Int {
        state.withLock { $0.count }
    }

    /// Queues `operation` after every operation already queued for `key`.
    ///
    /// - Complexity: O(1) amortised; one task per key while it has operations.
    func enqueue(key: String, _ operation: @escaping Operation) {
        let key = ExactString(key)
        let startsTask = state.withLock { waiting -> Bool in
            guard waiting[key] == nil else {
                waiting[key]?.append(operation)
                return false
            }
            waiting[key] = []
            return true
        }
        guard startsTask else { return }
        Task {
            var batch = [operation]
            while !batch.isEmpty {
                for current in batch { await current() }
                // What was queued meanwhile, in order; none left ends the task and forgets the key.
                batch = state.withLock { waiting in
                    let queued = waiting[key] ?? []
                    waiting[key] = queued.isEmpty ? nil : []
                    return queued
                }
            }
        }
    }
}
