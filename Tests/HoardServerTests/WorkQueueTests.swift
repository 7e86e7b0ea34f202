import Foundation
@testable import HoardServer
import Testing

@Suite("WorkQueue")
struct WorkQueueTests {
    @Test("past the running and waiting places a request is refused at once with 503's error; freed places admit again")
    func overload() async throws {
        let queue = WorkQueue(concurrency: 1, capacity: 1)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let running = Task { try await queue.run { for await _ in gate { break } } }
        while queue.counts.running < 1 { await Task.yield() }
        let waiting = Task { try await queue.run { 42 } }
        while queue.counts.waiting < 1 { await Task.yield() }
        await #expect(throws: ServeError.overloaded(retryAfter: 1)) { try await queue.run { 0 } }
        open.yield()
        try await running.value
        #expect(try await waiting.value == 42)
        #expect(try await queue.run { 7 } == 7)
        #expect(queue.counts.running == 0 && queue.counts.waiting == 0)
    }
}
