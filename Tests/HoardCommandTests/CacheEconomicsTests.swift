import Foundation
import Hoard
import HoardTestSupport
import Testing

/// What the cache keeps and forgets: originals in a budget of their own, `cache forget`, what
/// `stats`, `prune` and `clear` say, outputs of failed inputs, the progress line.
@Suite("hoard cache economics")
struct CacheEconomicsTests {
    /// A noisy JPEG, `side` pixels square (1.2 MB at 1000): noise does not compress.
    static func largeJPEG(seed: UInt64, side: Int = 1_000) throws -> Data {
        var random = SplitMix64(seed: seed)
        let pixels = (0..<side * side * 3).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        return try Image(width: side, height: side, format: .rgb8, pixels: pixels).jpegData(quality: 95)
    }

    static func results(_ outcome: HoardTool.Outcome) throws -> [[String: Any]] {
        try outcome.summary()["results"] as? [[String: Any]] ?? []
    }

    @Test("originals beyond their share of --cache-limit never evict thumbnails: a rerun makes and downloads nothing")
    func originalsDoNotCrowdOutThumbnails() async throws {
        let photos = try (0..<8).map { try Self.largeJPEG(seed: UInt64($0)) }
        let total = photos.reduce(0) { $0 + $1.count }
        #expect(total > 6 << 20, "the originals (\(total) bytes) exceed the 4 MiB cache")
        var routes: [String: TestHTTPServer.Reply] = [:]
        for (index, photo) in photos.enumerated() { routes["/\(index).jpg"] = .ok(photo, contentType: "image/jpeg") }
        let server = TestHTTPServer(routes: routes)
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let urls = photos.indices.map { "\(base)/\($0).jpg" }
        let arguments =
            ["thumbnails"] + urls + [
                "--size", "32", "--output", scratch.path("out"), "--cache", scratch.path("cache"), "--cache-limit", "4",
                "--json",
            ]
        let first = try await HoardTool.run(arguments, timeLimit: .seconds(120))
        #expect(first.status == 0, "\(first.standardError)")
        #expect(try first.summary()["made"] as? Int == photos.count)
        let second = try await HoardTool.run(arguments, timeLimit: .seconds(120))
        await server.stop()
        let summary = try second.summary()
        #expect(summary["made"] as? Int == 0, "\(second.standardError)")
        #expect(summary["fromCache"] as? Int == photos.count)
        #expect(summary["bytesDownloaded"] as? Int == 0)
        // The originals' own cache stays within its share (2 MiB plus the index's allowance).
        let stats = try await HoardTool.run(["cache", "stats", "--by-kind", "--cache", scratch.path("cache"), "--cache-limit", "4"])
        #expect(stats.standardOutput.contains("thumbnails:        \(photos.count), "), "\(stats.standardOutput)")
        #expect(stats.standardOutput.contains("originals:         "), "\(stats.standardOutput)")
        #expect(stats.standardOutput.contains("of 2 MiB (--originals-limit 2 MiB; kept 7 days)"), "\(stats.standardOutput)")
    }

    @Test("--no-keep-originals keeps none; --originals-limit is range-checked")
    func keepingNoOriginals() async throws {
        let photo = try Self.largeJPEG(seed: 9, side: 200)
        let server = TestHTTPServer(routes: ["/a.jpg": .ok(photo, contentType: "image/jpeg")])
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let cache = ["--cache", scratch.path("cache")]
        let run = try await HoardTool.run(
            ["thumbnails", "\(base)/a.jpg", "--size", "16", "--output", scratch.path("out"), "--no-keep-originals"]
                + cache, timeLimit: .seconds(60))
        #expect(run.status == 0, "\(run.standardError)")
        let list = try await HoardTool.run(["cache", "list"] + cache)
        #expect(!list.standardOutput.contains("original/v2"), "\(list.standardOutput)")
        #expect(list.standardOutput.contains("original-record/v1"), "the record still lets a 304 keep the thumbnail")
        // Another size downloads the original again.
        let other = try await HoardTool.run(
            ["thumbnails", "\(base)/a.jpg", "--size", "24", "--output", scratch.path("out"), "--no-keep-originals", "--json"]
                + cache, timeLimit: .seconds(60))
        await server.stop()
        #expect(try other.summary()["bytesDownloaded"] as? Int == photo.count)
        for bad in ["-1", "1024", "5000"] {
            let refused = try await HoardTool.run(["cache", "stats", "--originals-limit=\(bad)"] + cache)
            #expect(refused.status == 64, "\(bad)")
            #expect(refused.standardError.contains("--originals-limit must be between 0 and 1023 MiB"), "\(refused.standardError)")
        }
    }

    @Test("cache forget SOURCE removes every thumbnail, the original and the records of one URL or path, and says so")
    func forgetSource() async throws {
        let photo = try Self.largeJPEG(seed: 3, side: 120)
        let other = try Self.largeJPEG(seed: 4, side: 120)
        let server = TestHTTPServer(routes: [
            "/a.jpg": .ok(photo, contentType: "image/jpeg"), "/b.jpg": .ok(other, contentType: "image/jpeg"),
        ])
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let cache = ["--cache", scratch.path("cache")]
        let file = scratch.path("local photo.jpg")
        try photo.write(to: URL(fileURLWithPath: file))
        for size in ["16", "32", "48"] {
            let run = try await HoardTool.run(
                ["thumbnails", "\(base)/a.jpg", "\(base)/b.jpg", file, "--size", size, "--output", scratch.path("out")]
                    + cache, timeLimit: .seconds(60))
            #expect(run.status == 0, "\(run.standardError)")
        }
        await server.stop()
        let forgot = try await HoardTool.run(["cache", "forget", "\(base)/a.jpg"] + cache)
        #expect(forgot.status == 0, "\(forgot.standardError)")
        #expect(
            forgot.standardOutput.hasPrefix(
                "forgot \(base)/a.jpg: 3 thumbnails, 1 original, 1 original record, 3 thumbnail origins\n"),
            "\(forgot.standardOutput)")
        let listed = try await HoardTool.run(["cache", "list"] + cache).standardOutput
        #expect(!listed.contains("\(base)/a.jpg"), "\(listed)")
        #expect(listed.split(separator: "\n").count { $0.contains("\(base)/b.jpg") } == 8, "b's entries stay")
        // A path, after the file is gone.
        try FileManager.default.removeItem(atPath: file)
        let path = try await HoardTool.run(["cache", "forget", file] + cache)
        #expect(path.standardOutput.hasPrefix("forgot \(file): 3 thumbnails\n"), "\(path.standardOutput)")
        let again = try await HoardTool.run(["cache", "forget", file] + cache)
        #expect(again.status == 0 && again.standardOutput == "nothing cached for \(file)\n")
    }

    @Test("stats, prune and clear show human sizes and what each kind holds; clear says what it removed")
    func humanSizes() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let cache = ["--cache", scratch.path("cache")]
        let blob = scratch.path("blob")
        try Data(repeating: 7, count: 150_000).write(to: URL(fileURLWithPath: blob))
        let png = testImages.appendingPathComponent("PngSuite/basn2c08.png").path
        #expect(try await HoardTool.run(["cache", "put", "mine", blob] + cache).status == 0)
        let made = try await HoardTool.run(["thumbnails", png, "--size", "8", "--output", scratch.path("out")] + cache)
        #expect(made.status == 0)
        let stats = try await HoardTool.run(["cache", "stats", "--by-kind"] + cache).standardOutput
        #expect(stats.contains("entries:   2\n"), "\(stats)")
        #expect(stats.contains("  thumbnails:        1, "), "\(stats)")
        #expect(stats.contains("  other values:      1, 146.5 KiB\n"), "\(stats)")
        #expect(stats.contains("limit:     1 GiB (1073741824 bytes, --cache-limit 1024 MiB)"), "\(stats)")
        let prune = try await HoardTool.run(["cache", "prune"] + cache).standardOutput
        #expect(prune.contains("thumbnails and records: removed 0 expired entries; "), "\(prune)")
        #expect(prune.contains(" KiB (limit 512 MiB)"), "\(prune)")
        let clear = try await HoardTool.run(["cache", "clear"] + cache).standardOutput
        #expect(clear.hasPrefix("removed 2 entries: 1 thumbnail ("), "\(clear)")
        #expect(clear.contains("1 other value (146.5 KiB)"), "\(clear)")
    }

    @Test("a failed remake removes the output an earlier run wrote, and the summary says so")
    func failedRemakeRemovesStaleOutput() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let file = scratch.path("photo.jpg")
        try Self.largeJPEG(seed: 5, side: 64).write(to: URL(fileURLWithPath: file))
        let arguments = ["thumbnails", file, "--size", "16", "--output", scratch.path("out"), "--cache", scratch.path("cache")]
        let first = try await HoardTool.run(arguments + ["--json"])
        let output = try #require(try Self.results(first).first?["output"] as? String)
        #expect(FileManager.default.fileExists(atPath: output))
        // The file is replaced by one that no longer decodes.
        try Data("not an image any more".utf8).write(to: URL(fileURLWithPath: file))
        let second = try await HoardTool.run(arguments + ["--json"])
        #expect(second.status == 1)
        #expect(!FileManager.default.fileExists(atPath: output), "the old thumbnail is gone")
        #expect(try Self.results(second).first?["removedOutputs"] as? [String] == [output])
        #expect(second.standardError.contains("removed its output from an earlier run: \(output)"), "\(second.standardError)")
    }

    @Test(
        "on a terminal the progress line shows a bar and the failures so far",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a pseudo-terminal"))
    func progressBar() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let png = testImages.appendingPathComponent("PngSuite/basn2c08.png").path
        let bad = scratch.path("bad.png")
        try Data("no".utf8).write(to: URL(fileURLWithPath: bad))
        let command = [
            try #require(HoardTool.executablePath), "thumbnails", png, bad, "--size", "8", "--output", scratch.path("out"),
            "--cache", scratch.path("cache"),
        ].map { "'" + $0 + "'" }.joined(separator: " ")
        // script(1) gives the tool a terminal; its transcript is what the terminal showed.
        let outcome = try await HoardTool.runProgram(
            "/usr/bin/script", ["-qec", command, scratch.path("typescript")], timeLimit: .seconds(60))
        #expect(outcome.standardOutput.contains("[####################] 2/2, 1 failed, "), "\(outcome.standardOutput)")
    }

    @Test("two runs at once on one --cache: one download and one decode per input between them")
    func twoProcessesShareTheWork() async throws {
        let photos = try (0..<12).map { try Self.largeJPEG(seed: 100 + UInt64($0), side: 300) }
        var routes: [String: TestHTTPServer.Reply] = [:]
        for (index, photo) in photos.enumerated() {
            routes["/\(index).jpg"] = .delayed(photo, contentType: "image/jpeg", milliseconds: 500)
        }
        let server = TestHTTPServer(routes: routes)
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let urls = photos.indices.map { "\(base)/\($0).jpg" }
        func arguments(_ name: String) -> [String] {
            ["thumbnails"] + urls + [
                "--size", "32", "--output", scratch.path("out-\(name)"), "--cache", scratch.path("cache"), "--json",
                "--concurrency", "2",
            ]
        }
        let background = try BackgroundTool(arguments("a"), folder: scratch.path("run-a"))
        let b = try await HoardTool.run(arguments("b"), timeLimit: .seconds(120))
        let a = try await background.finish(timeLimit: .seconds(120))
        await server.stop()
        #expect(a.status == 0 && b.status == 0, "\(a.standardError)\n\(b.standardError)")
        let made = try [a, b].map { try $0.summary()["made"] as? Int ?? -1 }
        let cached = try [a, b].map { try $0.summary()["fromCache"] as? Int ?? -1 }
        #expect(made.reduce(0, +) == urls.count, "one decode per input in all: made \(made), cached \(cached)")
        #expect(server.requestedPaths.count == urls.count, "one download per input: \(server.requestedPaths.count)")
    }
}
