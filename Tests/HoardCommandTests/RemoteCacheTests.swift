import Foundation
import Hoard
import RedisTestSupport
import Testing

/// `hoard thumbnails` on several "machines" (processes with cache folders of their own) sharing
/// one Redis: every URL is downloaded once in all, a machine that comes late takes everything
/// from Redis, and a server or a worker that dies costs time, never a failed input.
@Suite("hoard with a shared Redis cache", .serialized, .requiresRedisServer)
struct RemoteCacheTests {
    /// The sample images (`TestImages/samples.txt`), each served at a path of its own.
    static let images: [(path: String, body: Data, contentType: String)] = SharedCacheTests.sampleSizes.enumerated()
        .map { index, sample in
            let name = sample.0
            let body = (try? Data(contentsOf: testImages.appendingPathComponent(name))) ?? Data()
            let contentType = name.hasSuffix(".png") ? "image/png" : "image/jpeg"
            return ("/\(index)/" + URL(fileURLWithPath: name).lastPathComponent, body, contentType)
        }

    /// A server for ``images``, each answered after `milliseconds`.
    static func imageServer(delay milliseconds: Int64 = 0) -> TestHTTPServer {
        TestHTTPServer(
            routes: Dictionary(
                uniqueKeysWithValues: images.map { image in
                    let reply: TestHTTPServer.Reply =
                        milliseconds > 0
                        ? .delayed(image.body, contentType: image.contentType, milliseconds: milliseconds)
                        : .ok(image.body, contentType: image.contentType)
                    return (image.path, reply)
                }))
    }

    /// A `thumbnails` run of `inputs` with the output and cache folders of machine `name`.
    static func thumbnails(_ inputs: [String], machine name: String, scratch: Scratch, _ more: [String]) -> [String] {
        ["thumbnails"] + inputs + [
            "--size", "96", "--output", scratch.path("out-\(name)"), "--cache", scratch.path("cache-\(name)"), "--json",
        ] + more
    }

    /// Every file of `folder` by name, with its bytes.
    static func files(in folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
        return files
    }

    static func integer(_ summary: [String: Any], _ field: String) -> Int {
        summary[field] as? Int ?? -1
    }

    @Test(
        "three machines at once: every URL is downloaded once in all, the thumbnails are the same bytes everywhere; a fourth machine takes them all from Redis"
    )
    func threeMachinesAtOnce() async throws {
        // Slow answers, so that the machines overlap: those that come second wait for the first.
        let server = Self.imageServer(delay: 1_500)
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let urls = Self.images.map { base + $0.path }
        try await withRedisServer { redis in
            let remote = ["--remote", "redis://127.0.0.1:\(redis.port)"]
            let machines = ["a", "b", "c"]
            let runs = try machines.map {
                try BackgroundTool(
                    Self.thumbnails(urls, machine: $0, scratch: scratch, remote), folder: scratch.path("run-\($0)"))
            }
            var summaries: [[String: Any]] = []
            for (machine, run) in zip(machines, runs) {
                let outcome = try await run.finish(timeLimit: .seconds(180))
                #expect(outcome.status == 0, "\(machine): \(outcome.standardError)")
                let summary = try outcome.summary()
                #expect(Self.integer(summary, "failed") == 0, "\(machine): \(outcome.standardError)")
                #expect(Self.integer(summary, "made") + Self.integer(summary, "fromCache") == urls.count)
                // A fresh cache folder: what did not come from a fetch came from Redis.
                #expect(Self.integer(summary, "remoteHits") >= Self.integer(summary, "fromCache"), "\(summary)")
                #expect(outcome.standardError.contains("remote:"), "the summary has a remote line")
                summaries.append(summary)
            }
            #expect(
                server.requestCounts == Dictionary(uniqueKeysWithValues: Self.images.map { ($0.path, 1) }),
                "every URL downloaded exactly once in all: \(server.requestCounts)")
            #expect(summaries.reduce(0) { $0 + Self.integer($1, "made") } == urls.count, "each thumbnail made once")
            #expect(
                summaries.reduce(0) { $0 + Self.integer($1, "bytesDownloaded") }
                    == Self.images.reduce(0) { $0 + $1.body.count })
            #expect(summaries.reduce(0) { $0 + Self.integer($1, "remoteWaits") } > 0, "the machines overlapped")
            let thumbnails = try Self.files(in: scratch.path("out-a"))
            #expect(thumbnails.count == urls.count)
            for machine in ["b", "c"] {
                #expect(try Self.files(in: scratch.path("out-\(machine)")) == thumbnails, "\(machine): the same bytes")
            }

            let requests = server.requestedPaths.count
            let late = try await HoardTool.run(
                Self.thumbnails(urls, machine: "d", scratch: scratch, remote), timeLimit: .seconds(180))
            #expect(late.status == 0, "\(late.standardError)")
            let summary = try late.summary()
            #expect(
                Self.integer(summary, "fromCache") == urls.count && Self.integer(summary, "made") == 0, "\(summary)")
            #expect(Self.integer(summary, "remoteHits") == urls.count, "\(summary)")
            #expect(Self.integer(summary, "bytesDownloaded") == 0)
            #expect(server.requestedPaths.count == requests, "nothing downloaded")
            #expect(try Self.files(in: scratch.path("out-d")) == thumbnails)
            #expect(late.standardError.contains("remote:     \(urls.count) hits"), "\(late.standardError)")

            // Redis holds each thumbnail, original, original's record and thumbnail's origin mark
            // once, in the default namespace only.
            let stats = try await HoardTool.run(["cache", "stats", "--cache", scratch.path("cache-d")] + remote)
            #expect(stats.status == 0, "\(stats.standardError)")
            #expect(
                stats.standardOutput.contains("remote:    namespace default, 1 server"), "\(stats.standardOutput)")
            #expect(
                stats.standardOutput.contains(
                    "127.0.0.1:\(redis.port)/0: reachable, \(4 * urls.count) values, 0 leases"),
                "\(stats.standardOutput)")
            #expect(stats.standardOutput.contains("maxmemory 0 (no limit), policy "), "\(stats.standardOutput)")
            let other = try await HoardTool.run(
                ["cache", "stats", "--cache", scratch.path("cache-d"), "--remote-namespace", "other"] as [String] + remote)
            #expect(other.standardOutput.contains("reachable, 0 values"), "\(other.standardOutput)")
        }
        await server.stop()
    }

    @Test(
        "two Redis servers, one killed after the first run: the next run (servers from HOARD_REMOTE) still succeeds for every input"
    )
    func oneOfTwoServersKilled() async throws {
        let server = Self.imageServer()
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let urls = Self.images.map { base + $0.path }
        try await withRedisServer { first in
            try await withRedisServer { second in
                let servers = ["redis://127.0.0.1:\(first.port)", "redis://127.0.0.1:\(second.port)"]
                let warm = try await HoardTool.run(
                    Self.thumbnails(
                        urls, machine: "a", scratch: scratch, ["--remote", servers[0], "--remote", servers[1]]),
                    timeLimit: .seconds(180))
                #expect(warm.status == 0, "\(warm.standardError)")
                #expect(Self.integer(try warm.summary(), "made") == urls.count)
                // The keys are spread over both servers.
                let keyCounts = try [first, second].map { Int(try $0.command(["DBSIZE"]).dropFirst()) ?? 0 }
                #expect(keyCounts.allSatisfy { $0 > 0 } && keyCounts.reduce(0, +) >= 2 * urls.count, "\(keyCounts)")

                second.kill()
                // The dead server refuses at once; a deadline a loaded 2-core machine cannot miss
                // (it may stall the tool for tens of seconds) keeps the live one's commands served.
                let outcome = try await HoardTool.run(
                    Self.thumbnails(urls, machine: "b", scratch: scratch, ["--remote-timeout", "30"]),
                    timeLimit: .seconds(180), environment: ["HOARD_REMOTE": servers.joined(separator: ", ")])
                #expect(outcome.status == 0, "\(outcome.standardError)")
                let summary = try outcome.summary()
                #expect(Self.integer(summary, "failed") == 0, "\(outcome.standardError)")
                #expect(Self.integer(summary, "fromCache") > 0 && Self.integer(summary, "made") > 0, "\(summary)")
                #expect(Self.integer(summary, "remoteHits") >= Self.integer(summary, "fromCache"))
                #expect(Self.integer(summary, "remoteErrors") > 0, "\(summary)")
                // What the dead server held was made again to the same bytes, from its original in
                // the live one, or from a new download; a thumbnail whose original's record was on
                // the dead server is checked by downloading its original again (a revalidation).
                // Each input downloads at most once, and reports it.
                let results = summary["results"] as? [[String: Any]] ?? []
                let downloading = results.filter { ($0["bytesDownloaded"] as? Int ?? 0) > 0 }
                #expect(server.requestedPaths.count == urls.count + downloading.count, "\(summary)")
                #expect(
                    downloading.allSatisfy { $0["status"] as? String == "made" || $0["revalidations"] as? Int == 1 },
                    "\(downloading)")
                #expect(try Self.files(in: scratch.path("out-b")) == Self.files(in: scratch.path("out-a")))

                let stats = try await HoardTool.run(
                    ["cache", "stats", "--cache", scratch.path("cache-b"), "--remote-timeout", "30"],
                    environment: ["HOARD_REMOTE": servers.joined(separator: " ")])
                #expect(stats.status == 0, "\(stats.standardError)")
                #expect(
                    stats.standardOutput.contains("127.0.0.1:\(second.port)/0: unreachable"), "\(stats.standardOutput)")
                #expect(
                    stats.standardOutput.contains("127.0.0.1:\(first.port)/0: reachable"), "\(stats.standardOutput)")
            }
        }
        await server.stop()
    }

    @Test("a paused Redis (SIGSTOP) costs a batch at most one --remote-timeout: the breaker opens on the first missed deadline and probes in the background")
    func pausedRedisCostsOneTimeout() async throws {
        let server = Self.imageServer()
        let base = try await server.start()
        let urls = Self.images.map { base + $0.path }
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await withRedisServer { redis in
            // Database 1: connecting also sends SELECT, which a paused server leaves unanswered.
            let remote = ["--remote", "redis://127.0.0.1:\(redis.port)/1", "--remote-timeout", "20"]
            let alone = try await HoardTool.run(Self.thumbnails(urls, machine: "alone", scratch: scratch, []), timeLimit: .seconds(120))
            #expect(alone.status == 0, "\(alone.standardError)")
            redis.pause()
            defer { redis.resume() }
            let paused = try await HoardTool.run(
                Self.thumbnails(urls, machine: "paused", scratch: scratch, remote), timeLimit: .seconds(120))
            #expect(paused.status == 0, "\(paused.standardError)")
            let summary = try paused.summary()
            #expect(Self.integer(summary, "made") == urls.count && Self.integer(summary, "remoteErrors") > 0)
            let lost = (summary["elapsedSeconds"] as? Double ?? 0) - (try alone.summary()["elapsedSeconds"] as? Double ?? 0)
            // One deadline is 20 s; a probe in the caller's path or a second connection attempt
            // would cost another 20 (two deadlines in all before: 3.4 s with 2 s ones). The slack
            // either side is wide: a loaded 2-core machine may stall either run for seconds.
            #expect(lost < 35, "the paused server cost \(lost) s")
            #expect(lost > 10, "the deadline was waited once: the server was paused")
        }
        await server.stop()
    }

    @Test(
        "a worker killed (SIGKILL) while it holds the lease on a URL: the next one waits out the lease, then makes the thumbnail"
    )
    func workerKilledHoldingLease() async throws {
        let jpeg = try Data(contentsOf: testImages.appendingPathComponent("libjpeg-turbo/testorig.jpg"))
        // The first download hangs: the first worker holds its leases until it is killed.
        let server = TestHTTPServer(routes: ["/hang.jpg": .stallOnce(jpeg, contentType: "image/jpeg")])
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await withRedisServer { redis in
            func arguments(_ machine: String, timeout: String) -> [String] {
                Self.thumbnails(
                    [base + "/hang.jpg"], machine: machine, scratch: scratch,
                    ["--remote", "redis://127.0.0.1:\(redis.port)", "--timeout", timeout])
            }
            // Its leases last --timeout + 5 seconds: they outlive any stall of a loaded 2-core machine
            // (tens of seconds) until it is killed, and run out only when the test shortens them.
            let doomed = try BackgroundTool(arguments("a", timeout: "600"), folder: scratch.path("run-a"))
            // A loaded 2-core machine may stall the tool for tens of seconds before its request.
            let deadline = ContinuousClock.now + .seconds(120)
            while server.requestCounts["/hang.jpg"] == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let leases = try redis.command(["KEYS", "*lease*"]).split(separator: "\n")
            #expect(leases.count == 2, "the thumbnail's lease and the original's: \(leases)")
            doomed.killAbruptly()
            let killed = try await doomed.finish()
            #expect(killed.status != 0)

            // The next worker would wait 605 s before fetching on its own; its debug log shows when
            // it starts waiting, and then the leases run out as a dead worker's do.
            let start = ContinuousClock.now
            let next = try BackgroundTool(
                arguments("b", timeout: "600"), folder: scratch.path("run-b"), environment: ["HOARD_LOG_LEVEL": "debug"])
            let waiting = try await next.waitForError(
                containing: "waited for another worker's fetch", timeLimit: .seconds(120))
            #expect(waiting != nil, "the next worker waits for the dead worker's lease")
            for lease in leases { #expect(try redis.command(["PEXPIRE", String(lease), "5000"]) == ":1") }
            let outcome = try await next.finish(timeLimit: .seconds(180))
            let waited = ContinuousClock.now - start
            #expect(outcome.status == 0, "\(outcome.standardError)")
            let summary = try outcome.summary()
            #expect(Self.integer(summary, "made") == 1, "\(summary)")
            #expect(Self.integer(summary, "remoteWaits") >= 1, "\(summary)")
            #expect(server.requestCounts["/hang.jpg"] == 2)
            // The 5 s left of the leases, not the 605 s wait; a loaded 2-core machine may stall the
            // tool for tens of seconds.
            #expect(waited < .seconds(120), "waited \(waited)")
            #expect(try redis.command(["KEYS", "*lease*"]).isEmpty, "the second worker released its leases")
        }
        await server.stop()
    }

    @Test("cache put, remove and clear with --remote act on the shared cache, seen from another machine's stats")
    func administration() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Data("a value".utf8).write(to: URL(fileURLWithPath: scratch.path("blob")))
        // Machine b's cache exists and is empty (stats reads an existing cache; it makes none).
        try FileManager.default.createDirectory(atPath: scratch.path("cache-b"), withIntermediateDirectories: true)
        try await withRedisServer { redis in
            let remote = ["--remote", "redis://127.0.0.1:\(redis.port)"]
            func run(_ arguments: [String], machine: String) async throws -> HoardTool.Outcome {
                let outcome = try await HoardTool.run(
                    ["cache"] + arguments + ["--cache", scratch.path("cache-\(machine)")] + remote,
                    timeLimit: .seconds(180))
                #expect(outcome.status == 0, "\(arguments): \(outcome.standardError)")
                return outcome
            }
            func sharedValues() async throws -> String {
                try await run(["stats"], machine: "b").standardOutput
            }
            for key in ["img/one", "img/two", "other"] {
                _ = try await run(["put", key, scratch.path("blob")], machine: "a")
            }
            #expect(try await sharedValues().contains("reachable, 3 values"))
            // Machine b has none of them on its disk: it removes them from Redis.
            _ = try await run(["remove", "other"], machine: "b")
            #expect(try await sharedValues().contains("reachable, 2 values"))
            let removed = try await run(["remove", "--prefix", "img/"], machine: "b")
            #expect(removed.standardOutput == "removed 2 entries\n", "\(removed.standardOutput)")
            #expect(try await sharedValues().contains("reachable, 0 values"))
            _ = try await run(["put", "again", scratch.path("blob")], machine: "a")
            _ = try await run(["clear"], machine: "b")
            #expect(try await sharedValues().contains("reachable, 0 values"))
        }
    }

    @Test(
        "a wrong HOARD_REMOTE_PASSWORD: the run goes on locally, or fails with --remote-required; the password is never shown"
    )
    func wrongPassword() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let input = testImages.appendingPathComponent("PngSuite/basn2c08.png").path
        try await withRedisServer(.init(password: "right-horse-battery")) { redis in
            // The wrong password is refused at once; the deadline only has to outlast the stalls of a
            // loaded 2-core machine (tens of seconds), so that the right one's run has no errors.
            let remote = ["--remote", "redis://127.0.0.1:\(redis.port)", "--remote-timeout", "30"]
            let wrong = ["HOARD_REMOTE_PASSWORD": "wrong-staple-8172"]
            let local = try await HoardTool.run(
                Self.thumbnails([input], machine: "a", scratch: scratch, remote), timeLimit: .seconds(180),
                environment: wrong)
            #expect(local.status == 0, "\(local.standardError)")
            #expect(Self.integer(try local.summary(), "made") == 1)
            #expect(Self.integer(try local.summary(), "remoteErrors") > 0)
            let required = try await HoardTool.run(
                Self.thumbnails([input], machine: "b", scratch: scratch, remote + ["--remote-required"]),
                timeLimit: .seconds(180), environment: wrong)
            #expect(required.status == 1, "\(required.standardError)")
            #expect(required.standardError.contains("authentication failed"), "\(required.standardError)")
            let stats = try await HoardTool.run(
                ["cache", "stats", "--cache", scratch.path("cache-a")] + remote, environment: wrong)
            #expect(stats.standardOutput.contains("unreachable"), "\(stats.standardOutput)")
            for outcome in [local, required, stats] {
                #expect(!(outcome.standardOutput + outcome.standardError).contains("wrong-staple"))
            }

            let right = ["HOARD_REMOTE_PASSWORD": "right-horse-battery"]
            let shared = try await HoardTool.run(
                Self.thumbnails([input], machine: "c", scratch: scratch, remote + ["--remote-required"]),
                timeLimit: .seconds(180), environment: right)
            #expect(shared.status == 0, "\(shared.standardError)")
            #expect(Self.integer(try shared.summary(), "remoteErrors") == 0, "\(shared.standardError)")
            let sharedStats = try await HoardTool.run(
                ["cache", "stats", "--cache", scratch.path("cache-c")] + remote, environment: right)
            #expect(sharedStats.standardOutput.contains("reachable, 1 value, "), "\(sharedStats.standardOutput)")
            for outcome in [shared, sharedStats] {
                #expect(!(outcome.standardOutput + outcome.standardError).contains("right-horse"))
            }
        }
    }
}
