import Foundation
import HoardSystem
import HoardTestSupport
import Testing

@testable import HoardServer

@Suite("WorkQueue in the server")
struct WorkQueueOverloadTests {
    @Test("A full queue, its own or one the body waits in, is 503's error with a retry after a second")
    func overload() async throws {
        let queue = WorkQueue(concurrency: 1, waitingCapacity: 0)
        let inner = WorkQueue(concurrency: 1, waitingCapacity: 0)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let running = Task { try await inner.runOrRefuse { for await _ in gate { break } } }
        #expect(await eventually { inner.counts.running == 1 })
        await #expect(throws: ServeError.overloaded(retryAfter: 1)) { try await inner.runOrRefuse { 0 } }
        await #expect(throws: ServeError.overloaded(retryAfter: 1)) {
            try await queue.runOrRefuse { try await inner.run { 0 } }
        }
        #expect(queue.counts == (0, 0))
        open.yield()
        try await running.value
        #expect(try await queue.runOrRefuse { 7 } == 7)
    }
}
