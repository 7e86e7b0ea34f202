import Foundation
import Hoard
import HoardRESP
import HoardSystem
import Testing

@testable import HoardRedis

// The circuit breaker's part in a fault, made deterministic at the shard (where RedisShard.run
// decides what a reply tells the breaker, and logs it): the killed-server test met this race one
// run in three or four, when a reply that arrived before the kill, handled after the breaker had
// opened, closed it and "reachable again" was logged while the server was dead.
extension RedisFaultTests {
    /// A server's client that holds the reply to `GET held` until the test releases it, and fails
    /// every other command at once, as a dead connection does.
    final class HeldReplyClient: RedisCommandExecuting {
        private struct State {
            var hasArrived = false
            var isReleased = false
            var waiting: CheckedContinuation<Void, Never>?
        }

        private let state = Lock(State())

        init() {}

        func send(_ command: [RESPArgument]) async throws(RedisClientError) -> RESPValue {
            let name = String(decoding: command.first?.bytes ?? [], as: UTF8.self)
            guard command.count == 2, command[1] == "held" else {
                throw .connectionClosed(command: name, underlying: nil)
            }
            await withCheckedContinuation { continuation in
                let isReleased = state.withLock { state in
                    state.hasArrived = true
                    if !state.isReleased { state.waiting = continuation }
                    return state.isReleased
                }
                if isReleased { continuation.resume() }
            }
            return .bulkString(Array("held value".utf8))
        }

        /// Waits until `GET held` has been sent, up to `timeout`; returns whether it was.
        func waitUntilHeldCommandArrives(within timeout: Duration) async throws -> Bool {
            let deadline = ContinuousClock.now + timeout
            while !state.withLock({ $0.hasArrived }) {
                guard ContinuousClock.now < deadline else { return false }
                try await Task.sleep(for: .milliseconds(5))
            }
            return true
        }

        /// Answers `GET held`.
        func release() {
            let waiting = state.withLock { state in
                state.isReleased = true
                defer { state.waiting = nil }
                return state.waiting
            }
            waiting?.resume()
        }
    }

    @Test("a command sent before the breaker opened does not close it when its reply is handled late")
    func lateReplyKeepsBreakerOpen() async throws {
        let client = HeldReplyClient()
        let logs = FaultLog()
        // An hour: the back-off cannot run out while a loaded 2-core machine stalls the test for
        // tens of seconds, so only the late reply could close the breaker.
        let shard = RedisShard(
            name: "127.0.0.1:6379/0", client: client,
            breaker: CircuitBreaker(threshold: 3, initialBackOff: .seconds(3600), maximumBackOff: .seconds(3600)),
            counters: RedisTierCounters(), logger: logs.logger)
        let held = Task { await shard.run("GET") { try await $0.get("held") } }
        #expect(try await client.waitUntilHeldCommandArrives(within: .seconds(120)))
        for _ in 0..<3 {
            let failed = await shard.run("GET") { try await $0.get("other") }
            #expect(failed == nil)
        }
        #expect(shard.breaker.isOpen)
        #expect(logs.count("Redis server failing") == 1)

        client.release()
        let heldValue = await held.value
        #expect(heldValue == Array("held value".utf8))
        #expect(shard.breaker.isOpen, "only a probe after the back-off may close the breaker")
        #expect(shard.breaker.permission() == .refused)
        #expect(logs.count("Redis server reachable again") == 0, "not logged while the server is failing")
    }
}
