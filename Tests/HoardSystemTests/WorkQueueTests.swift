import Foundation
import HoardTestSupport
import Testing

@testable import HoardSystem

@Suite("WorkQueue")
struct WorkQueueTests {
    /// A body that runs until its gate opens.
    struct Gate: Sendable {
        let stream: AsyncStream<Void>
        let opener: AsyncStream<Void>.Continuation

        init() { (stream, opener) = AsyncStream.makeStream(of: Void.self) }

        func wait() async { for await _ in stream { break } }
        func open() { opener.yield() }
    }

    /// A value several tasks change under a lock.
    final class Shared<Value: Sendable>: Sendable {
        private let lock: Lock<Value>
        init(_ value: Value) { lock = Lock(value) }
        func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { lock.withLock { body(&$0) } }
        var value: Value { lock.withLock { $0 } }
    }

    @Test("Past the running and waiting places a caller is refused at once; freed places admit again")
    func full() async throws {
        let queue = WorkQueue(concurrency: 1, waitingCapacity: 1)
        let gate = Gate()
        let running = Task { try await queue.run { await gate.wait() } }
        #expect(await eventually { queue.counts.running == 1 })
        let waiting = Task { try await queue.run { 42 } }
        #expect(await eventually { queue.counts.waiting == 1 })
        await #expect(throws: WorkQueue.Full(running: 1, waiting: 1)) { try await queue.run { 0 } }
        gate.open()
        try await running.value
        #expect(try await waiting.value == 42)
        #expect(try await queue.run { 7 } == 7)
        #expect(queue.counts == (0, 0))
    }

    @Test("Waiters are admitted in the order they came")
    func fairness() async throws {
        let queue = WorkQueue(concurrency: 1)
        let gate = Gate()
        let order = Shared<[Int]>([])
        let first = Task { try await queue.run { await gate.wait() } }
        #expect(await eventually { queue.counts.running == 1 })
        var waiters: [Task<Void, any Error>] = []
        for number in 0..<20 {
            waiters.append(Task { try await queue.run { order.withLock { $0.append(number) } } })
            #expect(await eventually { queue.counts.waiting == number + 1 })
        }
        gate.open()
        try await first.value
        for waiter in waiters { try await waiter.value }
        #expect(order.value == Array(0..<20))
    }

    @Test("No more than the concurrency run at once, however many callers", arguments: [1, 3])
    func bound(concurrency: Int) async throws {
        let queue = WorkQueue(concurrency: concurrency)
        let counts = Shared((now: 0, most: 0, done: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await queue.run {
                        counts.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        await Task.yield()
                        counts.withLock { $0.now -= 1; $0.done += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        let final = counts.value
        #expect(final.done == 200)
        #expect(final.most <= concurrency)
        #expect(queue.counts == (0, 0))
    }

    @Test("A waiter whose task is cancelled leaves at once and takes no place; the next waiter gets it")
    func cancellation() async throws {
        let queue = WorkQueue(concurrency: 1, waitingCapacity: 2)
        let gate = Gate()
        let ran = Shared<[String]>([])
        let first = Task { try await queue.run { await gate.wait() } }
        #expect(await eventually { queue.counts.running == 1 })
        let cancelled = Task { try await queue.run { ran.withLock { $0.append("cancelled") } } }
        #expect(await eventually { queue.counts.waiting == 1 })
        let next = Task { try await queue.run { ran.withLock { $0.append("next") } } }
        #expect(await eventually { queue.counts.waiting == 2 })
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(queue.counts == (1, 1))  // its waiting place is free again, while the first still runs
        gate.open()
        try await first.value
        try await next.value
        #expect(ran.value == ["next"])
        #expect(queue.counts == (0, 0))
    }

    @Test("A task cancelled before it comes to a full queue's line is refused without waiting")
    func cancelledBeforeWaiting() async throws {
        let queue = WorkQueue(concurrency: 1)
        let gate = Gate()
        let first = Task { try await queue.run { await gate.wait() } }
        #expect(await eventually { queue.counts.running == 1 })
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await queue.run { 1 }
        }
        await #expect(throws: CancellationError.self) { try await late.value }
        #expect(queue.counts == (1, 0))
        gate.open()
        try await first.value
        #expect(queue.counts == (0, 0))
    }
}
