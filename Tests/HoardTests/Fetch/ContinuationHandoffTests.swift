import Foundation
import HoardSystem
import Synchronization
import Testing

/// A continuation resumed before its task gets to suspend: the task goes on at once, and
/// `ThreadSanitizer.taskResumed()` must give ThreadSanitizer the ordering the runtime does not.
/// Under `scripts/sanitize thread` this test fails (a reported race) without that call.
@Suite("Continuations resumed before their task suspends")
struct ContinuationHandoffTests {
    /// Written by one thread before the resume, read by the task after it: the resume orders them.
    final class Box: @unchecked Sendable {
        var values: [Int] = []
        /// Set once the continuation is resumed.
        let resumed = Atomic<Bool>(false)
    }

    @Test("the task reads what the resuming thread wrote before the resume")
    func resumedBeforeSuspending() async {
        for round in 0..<20 {
            let box = Box()
            let value: Int = await withUnsafeContinuation { continuation in
                Thread.detachNewThread {
                    box.values = Array(0...round)
                    continuation.resume(returning: round)
                    // Relaxed: no ordering that ThreadSanitizer could take for the resume's.
                    box.resumed.store(true, ordering: .relaxed)
                }
                // The body returns only once the continuation is resumed, so the task never suspends.
                while !box.resumed.load(ordering: .relaxed) { sched_yield() }
            }
            ThreadSanitizer.taskResumed()
            #expect(value == round)
            #expect(box.values == Array(0...round))
        }
    }
}
