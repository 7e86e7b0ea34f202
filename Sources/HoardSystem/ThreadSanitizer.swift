import CHoardSupport

/// What ThreadSanitizer cannot see on its own: calls that tell it about an ordering, and do nothing
/// unless the package is built with `--sanitize=thread`.
package enum ThreadSanitizer {
    /// Tells ThreadSanitizer that the current task was resumed by whoever resumed the continuation
    /// it just awaited. Call it right after every `with…Continuation` returns or throws.
    ///
    /// The concurrency runtime marks a continuation's resume as a release on the task, and the
    /// task's restart as the matching acquire, but only when the task had suspended before the
    /// resume. When the resume comes first (a reply or a result ready before the awaiting thread
    /// got to suspend), the task goes on at once without the acquire, and ThreadSanitizer reports
    /// the resumer's writes, of the value handed over or of the continuation's own context, as
    /// races with the task's later accesses (https://github.com/swiftlang/swift/issues/57803).
    /// This is that acquire.
    ///
    /// ```swift
    /// let reply = await withUnsafeContinuation { continuation in send(command, continuation) }
    /// ThreadSanitizer.taskResumed()
    /// ```
    ///
    /// - Complexity: O(1): the current task, and a call that is empty without ThreadSanitizer.
    @inlinable
    package static func taskResumed() {
        withUnsafeCurrentTask { task in
            // The runtime releases on the task object's address: what `UnsafeCurrentTask` holds.
            guard let task else { return }
            hoard_tsan_acquire(unsafeBitCast(task, to: UnsafeMutableRawPointer.self))
        }
    }
}
