import NIOCore

/// A Swift concurrency `TaskExecutor` that runs jobs on one SwiftNIO event loop.
///
/// A task that prefers it (`withTaskExecutorPreference(_:operation:)`) runs on the loop that
/// owns a ``NIORedisClient``'s connection: a command is written and its reply resumes the task
/// on one thread, with no hand-over between the loop and Swift's global pool in between, as in
/// a C client's event loop. Commands sent by several such tasks in one turn of the loop leave in
/// one `write(2)`.
///
/// ```swift
/// let client = try NIORedisClient(configuration: configuration)
/// try await withTaskExecutorPreference(client.taskExecutor) {
///     for key in keys { _ = try await client.get(key) }
/// }
/// ```
///
/// Work that blocks (file I/O, long computations) does not belong on it: it delays every
/// connection on the loop.
public final class EventLoopTaskExecutor: TaskExecutor {
    /// The loop jobs run on.
    public let eventLoop: any EventLoop

    /// An executor for `eventLoop`.
    ///
    /// - Parameter eventLoop: The loop; the caller keeps it running as long as tasks prefer it.
    public init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Runs `job` on the loop: in its current turn's task queue when called on the loop (no
    /// wake-up), else after waking it.
    ///
    /// - Complexity: O(1).
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }
}
