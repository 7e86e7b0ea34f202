import Foundation
import HoardRESP
import RedisTestSupport
import Testing

/// Deadlines, dead servers and servers that do not speak RESP.
@Suite("NIORedisClient failures", .requiresRedisServer)
struct NIORedisClientFailureTests {
    /// Slack on top of a deadline: a bound on hangs, not a timing check. The point is that the
    /// command does not wait for the server (which here never answers). A test's continuation
    /// queues behind every other test the suite started on Swift's worker threads (one per core):
    /// on a loaded 2-core machine, 48 s passed between a deadline firing and the test resuming.
    static let slack: Duration = .seconds(120)

    @Test("a paused server: the command times out on time, and the next one reconnects after SIGCONT")
    func pausedServer() async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server, { $0.commandTimeout = .milliseconds(500) }) { client throws in
                try await retryingDeadlines { try await client.set("k", to: [1]) }
                let firstConnection = try await retryingDeadlines { try await client.send(["CLIENT", "ID"]) }

                server.pause()
                let clock = ContinuousClock()
                let start = clock.now
                let error = await expectFailure { try await client.get("k") }
                let elapsed = clock.now - start
                server.resume()

                guard case .timedOut(let command, let timeout)? = error else {
                    Issue.record("unexpected \(String(describing: error))")
                    return
                }
                #expect(command == "GET")
                #expect(timeout == .milliseconds(500))
                #expect(elapsed >= .milliseconds(450) && elapsed < .milliseconds(500) + Self.slack, "took \(elapsed)")
                #expect(error?.isConnectionOrServerFailure == true)
                #expect(!client.isConnected, "the connection is closed after a timeout")

                #expect((try await retryingDeadlines { try await client.get("k") }) == [1])
                #expect(
                    (try await retryingDeadlines { try await client.send(["CLIENT", "ID"]) }) != firstConnection,
                    "a new connection")
            }
        }
    }

    @Test("a paused server: commands in flight behind the one that timed out fail too")
    func pausedServerWithPipeline() async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server, { $0.commandTimeout = .milliseconds(500) }) { client throws in
                try await retryingDeadlines { try await client.ping() }
                server.pause()
                defer { server.resume() }
                let clock = ContinuousClock()
                let start = clock.now
                let errors = await withTaskGroup(of: RedisClientError?.self) { group in
                    for index in 0..<20 {
                        group.addTask {
                            do throws(RedisClientError) {
                                _ = try await client.get(RESPArgument("k\(index)"))
                                return nil
                            } catch {
                                return error
                            }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                #expect(clock.now - start < .milliseconds(500) + Self.slack)
                #expect(errors.allSatisfy { $0?.isConnectionOrServerFailure == true }, "\(errors)")
                #expect(errors.contains { if case .timedOut? = $0 { true } else { false } })
            }
        }
    }

    @Test("connecting to a paused server times out within the connect deadline")
    func connectToPausedServer() async throws {
        try await withRedisServer { server throws in
            server.pause()
            defer { server.resume() }
            try await withClient(for: server, { $0.connectTimeout = .milliseconds(500) }) { client throws in
                let clock = ContinuousClock()
                let start = clock.now
                let error = await expectFailure { try await client.ping() }
                #expect(clock.now - start < .milliseconds(500) + Self.slack)
                guard case .connectTimedOut(let host, let port, let timeout)? = error else {
                    Issue.record("unexpected \(String(describing: error))")
                    return
                }
                #expect(host == "127.0.0.1" && port == server.port && timeout == .milliseconds(500))
            }
        }
    }

    @Test("a killed server: a typed error, then a reconnect once it is back on the same port")
    func killedAndRestarted() async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server) { client throws in
                try await client.set("k", to: [1])
                server.kill()
                // The first command may meet the dead connection or a refused reconnect.
                let first = await expectFailure { try await client.get("k") }
                #expect(first?.isConnectionOrServerFailure == true, "\(String(describing: first))")
                let second = await expectFailure { try await client.get("k") }
                guard case .connectFailed(let host, let port, _)? = second else {
                    Issue.record("unexpected \(String(describing: second))")
                    return
                }
                #expect(host == "127.0.0.1" && port == server.port)
                #expect(second?.description.contains("127.0.0.1:\(server.port)") == true)

                try await server.restart()
                #expect((try await client.get("k")) == nil, "a new server, without persistence")
                try await client.set("k", to: [2])
                #expect((try await client.get("k")) == [2])
            }
        }
    }

    @Test("a reply larger than the maximum fails with replyTooLarge, and the client reconnects")
    func replyTooLarge() async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server, { $0.maximumReplyByteCount = 4096 }) { client throws in
                try await client.set("big", to: everyByteValue(count: 5000))
                try await client.set("small", to: everyByteValue(count: 4000))
                let error = await expectFailure { try await client.get("big") }
                guard case .replyTooLarge(let command, let maximum)? = error else {
                    Issue.record("unexpected \(String(describing: error))")
                    return
                }
                #expect(command == "GET" && maximum == 4096)
                #expect((try await client.get("small")) == everyByteValue(count: 4000))
            }
        }
    }

    @Test(
        "a server answering nonsense: a protocol error, no crash",
        arguments: ["!nonsense\r\n", "+OK\n", ":12x\r\n", "$-7\r\n", "*1\r\n%2\r\n", "$3\r\nabcdef"])
    func nonsense(_ reply: String) async throws {
        let fake = try await FakeRESPServer.start(replying: Array(reply.utf8))
        let client = try NIORedisClient(
            configuration: RedisConfiguration(host: "127.0.0.1", port: fake.port, connectTimeout: .seconds(5)))
        let error = await expectFailure { try await client.send(["GET", "k"]) }
        await client.close()
        await fake.stop()
        // The handshake's PING is the first command, so the error names it.
        guard case .protocolError(let command, let parseError)? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(command == "PING")
        #expect(error?.description.contains("not valid RESP") == true, "\(parseError)")
    }

    @Test("a server declaring a huge bulk string: replyTooLarge at once, nothing allocated for it")
    func hugeDeclaredLength() async throws {
        let fake = try await FakeRESPServer.start(replying: Array("$536870912\r\nabc".utf8))
        let client = try NIORedisClient(configuration: RedisConfiguration(host: "127.0.0.1", port: fake.port))
        let error = await expectFailure { try await client.ping() }
        await client.close()
        await fake.stop()
        guard case .replyTooLarge(_, let maximum)? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(maximum == 64 << 20)
    }

    @Test("nothing listening: connectFailed naming the address")
    func connectionRefused() async throws {
        let port = try RedisServer.freePort()
        let client = try NIORedisClient(configuration: RedisConfiguration(host: "127.0.0.1", port: port))
        for _ in 0..<2 {
            let error = await expectFailure { try await client.ping() }
            guard case .connectFailed(let host, let failedPort, _)? = error else {
                Issue.record("unexpected \(String(describing: error))")
                return
            }
            #expect(host == "127.0.0.1" && failedPort == port)
        }
        await client.close()
    }
}

@Suite("NIORedisClient closing while connecting", .requiresRedisServer)
struct NIORedisClientClosingTests {
    @Test("close() while a connection is being opened fails the waiting command with clientClosed")
    func closeWhileConnecting() async throws {
        try await withRedisServer { server throws in
            server.pause()
            defer { server.resume() }
            // Both deadlines far beyond the test's: the handshake's PING is a command, and a
            // loaded machine may take seconds to reach close(); only close() may end the wait.
            let client = try NIORedisClient(
                configuration: RedisConfiguration(
                    host: "127.0.0.1", port: server.port, connectTimeout: .seconds(600), commandTimeout: .seconds(600)))
            let command = Task { await expectFailure { try await client.ping() } }
            try await Task.sleep(for: .milliseconds(200))
            let clock = ContinuousClock()
            let start = clock.now
            await client.close()
            let error = await command.value
            #expect(clock.now - start < .seconds(120), "well before the 600 s deadlines")
            guard case .clientClosed? = error else {
                Issue.record("unexpected \(String(describing: error))")
                return
            }
        }
    }
}
