import Foundation
import HoardRESP
import RedisTestSupport
import Testing

/// The client's event-loop executor, and the connection's one deadline timer.
@Suite("NIORedisClient executor and deadlines", .requiresRedisServer)
struct NIORedisClientExecutorTests {
    @Test("tasks that prefer the client's executor run on its event loop, and each reads back its own value")
    func tasksOnTheLoop() async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server) { client throws in
                let results = try await withThrowingTaskGroup(of: (Int, [UInt8]?, Bool).self) { group in
                    for index in 0..<32 {
                        group.addTask(executorPreference: client.taskExecutor) {
                            let key = RESPArgument("key-\(index)")
                            try await client.set(key, to: everyByteValue(count: 100 + index))
                            let value = try await client.get(key)
                            return (index, value, client.taskExecutor.eventLoop.inEventLoop)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(results.count == 32)
                for (index, value, onLoop) in results {
                    #expect(value == everyByteValue(count: 100 + index), "key-\(index)")
                    #expect(onLoop, "key-\(index) resumed off the client's event loop")
                }
                // The same values from a task on Swift's global pool.
                #expect((try await client.get("key-7")) == everyByteValue(count: 107))
            }
        }
    }

    @Test("a command is held to its own deadline, not to the one the connection's timer was set for")
    func ownDeadline() async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server, { $0.commandTimeout = .seconds(2) }) { client throws in
                let clock = ContinuousClock()
                // The PING arms the timer for its deadline, 2 s from now; the BLPOP written
                // 1.2 s later is still waiting when it fires, and must not fail then.
                try await client.ping()
                try await Task.sleep(for: .milliseconds(1_200))
                let blocked = try await client.send(["BLPOP", "empty-list", "1"])
                #expect(blocked == .array(nil), "\(blocked)")

                // Again with a BLPOP that outlasts its own deadline: it fails at that deadline.
                try await client.ping()
                try await Task.sleep(for: .milliseconds(1_200))
                let start = clock.now
                let error = await expectFailure { try await client.send(["BLPOP", "empty-list", "10"]) }
                let elapsed = clock.now - start
                guard case .timedOut(let command, let timeout)? = error else {
                    Issue.record("unexpected \(String(describing: error))")
                    return
                }
                #expect(command == "BLPOP" && timeout == .seconds(2))
                #expect(elapsed >= .milliseconds(1_950), "failed after \(elapsed), before its own deadline")
                #expect(elapsed < .seconds(2) + NIORedisClientFailureTests.slack, "took \(elapsed)")
            }
        }
    }
}
