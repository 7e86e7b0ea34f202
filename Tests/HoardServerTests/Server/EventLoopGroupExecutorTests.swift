import HoardServer
import NIOCore
import NIOPosix
import Testing

@Suite("EventLoopGroupExecutor")
struct EventLoopGroupExecutorTests {
    @Test("a task started on one of the group's loops runs there, and after a suspension resumes there")
    func staysOnTheLoopThatEnqueues() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let executor = EventLoopGroupExecutor(group: group)
        for loop in group.makeIterator() {
            let task = try await loop.submit {
                Task(executorPreference: executor) { () -> (Bool, Bool) in
                    let before = MultiThreadedEventLoopGroup.currentEventLoop === loop
                    // Resumed by the same loop: the continuation is enqueued from it.
                    let promise = loop.makePromise(of: Void.self)
                    loop.scheduleTask(in: .milliseconds(5)) { promise.succeed() }
                    try? await promise.futureResult.get()
                    return (before, MultiThreadedEventLoopGroup.currentEventLoop === loop)
                }
            }.get()
            let (before, after) = await task.value
            #expect(before && after)
        }
        try await group.shutdownGracefully()
    }

    @Test("a job enqueued from elsewhere (the cooperative pool, another group's loop) runs on one of the group's loops")
    func otherwiseOnTheGroup() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let other = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let executor = EventLoopGroupExecutor(group: group)
        let loops = Array(group.makeIterator())
        let onGroup: @Sendable () -> Bool = {
            let current = MultiThreadedEventLoopGroup.currentEventLoop
            return loops.contains { $0 === current }
        }
        #expect(await withTaskExecutorPreference(executor) { onGroup() })
        let fromOther = try await other.next().submit { Task(executorPreference: executor) { onGroup() } }.get()
        #expect(await fromOther.value)
        // Children inherit the preference, as an application's connection tasks do.
        let children = await withTaskExecutorPreference(executor) {
            await withTaskGroup(of: Bool.self) { tasks in
                for _ in 0..<8 { tasks.addTask { onGroup() } }
                return await tasks.reduce(true) { $0 && $1 }
            }
        }
        #expect(children)
        try await other.shutdownGracefully()
        try await group.shutdownGracefully()
    }
}
