import Foundation
import HoardSystem
import HoardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Clients no browser would be: silent, slow, idle, and many more than the server has descriptors.
@Suite("hoard serve against hostile connections")
struct ServeConnectionTests {
    /// Starts `hoard serve` with `arguments` (and an empty root), returns it and its port.
    static func start(_ arguments: [String], scratch: TemporaryDirectory, launcher: [String] = []) async throws
        -> (BackgroundTool, Int)
    {
        let root = scratch.url(for: "root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let server = try BackgroundTool(
            ["serve", "--bind", "127.0.0.1:0", "--cache", scratch.url(for: "cache").path, "--root", root.path,
             "--allow-unsigned"] + arguments,
            folder: scratch.url(for: "serve").path, launcher: launcher)
        let log = try #require(
            try await server.waitForError(containing: "listening on http://", timeLimit: .seconds(60)), "the server did not start")
        let address = try #require(log.split(separator: "listening on http://").last?.split(separator: "\n").first)
        let port = try #require(address.split(separator: ":").last.flatMap { Int($0) })
        return (server, port)
    }

    static func isRunning(_ server: BackgroundTool) -> Bool {
        kill(server.processIdentifier, 0) == 0
            && !((try? String(contentsOfFile: "/proc/\(server.processIdentifier)/stat", encoding: .utf8))?
                .contains(") Z ") ?? true)
    }

    @Test("1,100 silent connections to a server with 1,024 descriptors: it lives, /health answers, a silent connection is closed at the header timeout")
    func descriptorLimit() async throws {
        let prlimit = try #require(
            ["/usr/bin/prlimit", "/bin/prlimit"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "prlimit (util-linux) is missing")
        // The test itself holds 1,100 sockets.
        let own = try DescriptorLimit.raisingSoftLimitToHard().get()
        try #require(own.soft >= 1_300, "the test process may open only \(own.soft) descriptors")
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let (server, port) = try await Self.start(
            ["--header-timeout", "10"], scratch: scratch, launcher: [prlimit, "--nofile=1024:1024"])
        defer { server.send(SIGKILL) }

        var silent: [RawConnection] = []
        for _ in 0..<1_100 {
            guard let connection = RawConnection(port: port) else { break }
            silent.append(connection)
        }
        #expect(silent.count == 1_100, "only \(silent.count) connections were made")
        #expect(Self.isRunning(server), "the server died holding \(silent.count) connections")
        // A new client is served beside them: it displaces the longest idle connection.
        #expect(try await HTTPGet.get("http://127.0.0.1:\(port)/health").status == 200)
        let newest = try #require(silent.last)
        // Not before the header timeout (it is the newest, so nothing displaced it)...
        let early = newest.opened + .milliseconds(9_500) - ContinuousClock.now
        if early > .zero {
            #expect(!newest.isClosed(waitingUpTo: Int32(early.components.seconds * 1000 + early.components.attoseconds / 1_000_000_000_000_000)))
        }
        // ...and soon after it, with room for a loaded machine's stalls.
        #expect(newest.isClosed(waitingUpTo: 60_000), "a silent connection was still open 60 s past its header timeout")
        #expect(Self.isRunning(server))
        #expect(try await HTTPGet.get("http://127.0.0.1:\(port)/health").status == 200)
        silent.removeAll()

        server.send(SIGTERM)
        let outcome = try await server.finish(timeLimit: .seconds(120))
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("descriptors=1024"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("connections=768"), "\(outcome.standardError)")
    }

    @Test("a head sent a byte at a time, an idle keep-alive connection and a stalled body are closed at their timeouts")
    func slowClients() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let (server, port) = try await Self.start(
            ["--header-timeout", "2", "--keep-alive-timeout", "3", "--body-timeout", "2"], scratch: scratch)
        defer { server.send(SIGKILL) }

        let slowloris = try #require(RawConnection(port: port))
        let idle = try #require(RawConnection(port: port))
        let stalled = try #require(RawConnection(port: port))
        #expect(idle.send("GET /health HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(idle.read(waitingUpTo: 60_000).hasPrefix("HTTP/1.1 200"))
        #expect(stalled.send("GET /health HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n0123456789"))
        // A header line every 300 ms never finishes the head: the header timeout still closes it.
        var closedAt: ContinuousClock.Instant?
        #expect(slowloris.send("GET /health HTTP/1.1\r\n"))
        for index in 0..<200 {
            if !slowloris.send("X-Slow-\(index): a\r\n") || slowloris.isClosed(waitingUpTo: 300) {
                closedAt = ContinuousClock.now
                break
            }
        }
        let slowlorisLasted = try #require(closedAt, "a slow head kept its connection for 60 s") - slowloris.opened
        #expect(slowlorisLasted >= .milliseconds(1_900), "closed after \(slowlorisLasted)")
        #expect(stalled.isClosed(waitingUpTo: 60_000), "a stalled body kept its connection")
        #expect(idle.isClosed(waitingUpTo: 60_000), "an idle keep-alive connection stayed open")

        server.send(SIGTERM)
        #expect(try await server.finish(timeLimit: .seconds(120)).status == 0)
    }
}
