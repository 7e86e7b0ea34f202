import Foundation
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

    /// Opens `count` connections to a port and holds them; prints `opened N`, then how long the
    /// newest lasted before the server closed it. A process of its own: a test process holding
    /// over 1,024 descriptors breaks `Process.run` for every other test (Foundation's `fd_set`).
    static let holder = """
        import socket, sys, time
        port, count = int(sys.argv[1]), int(sys.argv[2])
        held = []
        for _ in range(count):
            try:
                held.append((socket.create_connection(("127.0.0.1", port), timeout=30), time.monotonic()))
            except OSError:
                break
        print("opened", len(held), flush=True)
        newest, opened = held[-1]
        newest.settimeout(120)
        try:
            while newest.recv(4096):
                pass
            print("newest closed after %.3f s" % (time.monotonic() - opened), flush=True)
        except OSError as error:
            print("newest failed:", error, flush=True)
        time.sleep(600)
        """

    @Test("1,100 silent connections to a server with 1,024 descriptors: it lives, /health answers, a silent connection is closed at the header timeout")
    func descriptorLimit() async throws {
        let prlimit = try #require(
            ["/usr/bin/prlimit", "/bin/prlimit"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "prlimit (util-linux) is missing")
        let python = try #require(
            ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "python3 is missing")
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let (server, port) = try await Self.start(
            ["--header-timeout", "10"], scratch: scratch, launcher: [prlimit, "--nofile=1024:1024"])
        defer { server.send(SIGKILL) }
        let script = scratch.url(for: "hold.py")
        try Data(Self.holder.utf8).write(to: script)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: python)
        holder.arguments = [script.path, String(port), "1100"]
        let output = scratch.url(for: "holder.out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        holder.standardOutput = try FileHandle(forWritingTo: output)
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        defer { holder.terminate() }
        func printed(_ text: String, within limit: Duration) async throws -> String? {
            let deadline = ContinuousClock.now + limit
            while ContinuousClock.now < deadline {
                // Through a file handle: `String(contentsOf:)` leaks its buffer (LeakSanitizer).
                let handle = try FileHandle(forReadingFrom: output)
                let lines = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
                try handle.close()
                if let line = lines.split(separator: "\n").first(where: { $0.hasPrefix(text) }) { return String(line) }
                try await Task.sleep(for: .milliseconds(50))
            }
            return nil
        }
        let opened = try #require(try await printed("opened", within: .seconds(120)), "the connections were not made")
        #expect(opened == "opened 1100", "\(opened)")
        #expect(Self.isRunning(server), "the server died holding the connections")
        // A new client is served beside them: it displaces the longest idle connection.
        #expect(try await HTTPGet.get("http://127.0.0.1:\(port)/health").status == 200)
        // The newest (nothing displaced it) is closed at the header timeout, not before, and
        // within a loaded machine's stalls after it.
        let closed = try #require(try await printed("newest", within: .seconds(150)), "the newest connection stayed open")
        let lasted = try #require(Double(closed.split(separator: " ").dropLast().last ?? ""), "\(closed)")
        #expect(lasted >= 9.9 && lasted < 70, "\(closed)")
        #expect(Self.isRunning(server))
        #expect(try await HTTPGet.get("http://127.0.0.1:\(port)/health").status == 200)
        holder.terminate()

        server.send(SIGTERM)
        let outcome = try await server.finish(timeLimit: .seconds(120))
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("descriptors=1024"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("connections=768"), "\(outcome.standardError)")
    }

    @Test("answers from memory: a pipelined miss and hit come back in order; after one, keep-alive still times out")
    func memoryAnswers() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let origin = TestHTTPServer(routes: ["/photo.jpg": .ok(try GradientImage.data(width: 320, height: 240), contentType: "image/jpeg")])
        let base = try await origin.start()
        defer { Task { await origin.stop() } }
        let (server, port) = try await Self.start(["--keep-alive-timeout", "2", "--allow-source", base + "/"], scratch: scratch)
        defer { server.send(SIGKILL) }
        let warm = "GET /unsafe/w:40/plain/\(base)/photo.jpg HTTP/1.1\r\nHost: a\r\n\r\n"
        let miss = "GET /unsafe/w:41/plain/\(base)/photo.jpg HTTP/1.1\r\nHost: a\r\n\r\n"
        func entityTag(_ head: String?) -> String? {
            head?.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }.map(String.init)
        }
        let first = try #require(RawConnection(port: port))
        #expect(first.send(warm))
        let warmTag = try #require(entityTag(first.heads(count: 1, waitingUpTo: 60_000).first))

        let connection = try #require(RawConnection(port: port))
        #expect(connection.send(miss + warm))
        let pipelined = connection.heads(count: 2, waitingUpTo: 60_000)
        #expect(pipelined.count == 2 && pipelined.allSatisfy { $0.hasPrefix("HTTP/1.1 200") }, "\(pipelined)")
        #expect(entityTag(pipelined.first) != warmTag && entityTag(pipelined.last) == warmTag, "answers out of order")
        // Nothing outstanding: memory answers this one on the event loop; then the connection idles.
        #expect(connection.send(warm))
        #expect(entityTag(connection.heads(count: 1, waitingUpTo: 60_000).first) == warmTag)
        #expect(connection.isClosed(waitingUpTo: 60_000), "an idle connection after an answer from memory stayed open")

        server.send(SIGTERM)
        #expect(try await server.finish(timeLimit: .seconds(120)).status == 0)
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
