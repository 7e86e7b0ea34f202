import NIOCore
import NIOPosix

/// A Swift concurrency `TaskExecutor` that runs jobs on the event loops of a SwiftNIO group: on the
/// loop that enqueues them when that is one of the group's, else on the group's next loop.
///
/// Hummingbird reads a request on a channel's loop and hands it to a task; on Swift's global pool
/// that is a wake-up of another thread there and another for the response's way back, which cost
/// more than a small answer from memory. Run the application with this executor preferred (its
/// connection tasks inherit the preference) and a request resumed by its loop is handled on that
/// loop, in the same turn:
///
/// ```swift
/// let executor = EventLoopGroupExecutor(group: MultiThreadedEventLoopGroup.singleton)
/// try await withTaskExecutorPreference(executor) {
///     try await application.runService()
/// }
/// ```
///
/// What ``ImageServer`` still does on the loop: checking the signature, resolving the path,
/// answering from memory, and reading variants and originals' records from the cache (a read never
/// waits for another process's write). Decoding and encoding run on its own threads; downloading,
/// hashing and storing originals, storing variants and removing stale ones run on Swift's pool.
///
/// The group must outlive every task that prefers the executor: a loop that has shut down drops
/// the jobs given to it.
public final class EventLoopGroupExecutor: TaskExecutor {
    /// The loops jobs run on.
    public let group: any EventLoopGroup
    private let loops: Set<ObjectIdentifier>

    /// An executor for `group`'s loops.
    ///
    /// - Parameter group: The loops; the caller keeps them running as long as tasks prefer this
    ///   executor.
    public init(group: any EventLoopGroup) {
        self.group = group
        loops = Set(group.makeIterator().map { ObjectIdentifier($0) })
    }

    /// Runs `job` on the current loop when called on one of the group's loops (no wake-up), else
    /// on the group's next loop.
    ///
    /// - Complexity: O(1).
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let loop =
            MultiThreadedEventLoopGroup.currentEventLoop.flatMap { current in
                loops.contains(ObjectIdentifier(current)) ? current : nil
            } ?? group.next()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
