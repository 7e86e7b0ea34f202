import Foundation
import Hoard
import HoardTestSupport
import Testing

/// What the tool does with large and damaged originals: `--max-pixels` and truncated files.
@Suite("hoard thumbnails large and damaged inputs")
struct DamageAndLimitTests {
    static func results(_ outcome: HoardTool.Outcome) throws -> [[String: Any]] {
        try outcome.summary()["results"] as? [[String: Any]] ?? []
    }

    @Test("a 100 MP JPEG is thumbnailed within the default limit; a 100 MP PNG is refused naming --max-pixels, and made when it is raised")
    func largeInputs() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let jpeg = scratch.path("large.jpg"), png = scratch.path("large.png")
        try GradientImage.data(width: 10_000, height: 10_000).write(to: URL(fileURLWithPath: jpeg))
        try GradientImage.data(width: 10_000, height: 10_000, png: true).write(to: URL(fileURLWithPath: png))
        let arguments = ["thumbnails", jpeg, png, "--size", "256", "--output", scratch.path("out"), "--json"]
        let first = try await HoardTool.run(arguments + ["--cache", scratch.path("cache")], timeLimit: .seconds(120))
        #expect(first.status == 1)
        let results = try Self.results(first)
        #expect(results.first?["status"] as? String == "made", "\(first.standardError)")
        #expect(results.first?["width"] as? Int == 256)
        let error = try #require(results.last?["error"] as? String)
        #expect(error.contains("PNG declares 10000 x 10000 pixels") && error.hasSuffix("(--max-pixels)"), "\(error)")
        let raised = try await HoardTool.run(
            arguments + ["--cache", scratch.path("cache"), "--max-pixels", "100000000"], timeLimit: .seconds(120))
        #expect(raised.status == 0, "\(raised.standardError)")
        #expect(try Self.results(raised).last?["status"] as? String == "made")
    }

    @Test("a truncated progressive JPEG: made with a warning in the summary and --json; neither it nor its thumbnail is cached")
    func truncatedProgressiveJPEG() async throws {
        let whole = try Data(contentsOf: testImages.appendingPathComponent("progressive/landscape-420.jpg"))
        let cut = whole.prefix(whole.count / 3)
        let server = TestHTTPServer(routes: ["/cut.jpg": .ok(Data(cut), contentType: "image/jpeg")])
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let file = scratch.path("cut.jpg")
        try Data(cut).write(to: URL(fileURLWithPath: file))
        let cache = ["--cache", scratch.path("cache")]
        // Fast: at 1/8 scale the scans read stop before the cut (a faithful thumbnail, at 1/4,
        // needs scans past it and fails).
        let arguments =
            ["thumbnails", "\(base)/cut.jpg", file, "--size", "64", "--decode-scale", "fast", "--output", scratch.path("out")]
            + cache
        for _ in 0..<2 {
            let outcome = try await HoardTool.run(arguments + ["--json"], timeLimit: .seconds(60))
            #expect(outcome.status == 0, "\(outcome.standardError)")
            for result in try Self.results(outcome) {
                #expect(result["status"] as? String == "made", "made again: nothing was cached")
                let warnings = result["warnings"] as? [String] ?? []
                #expect(warnings == [Image.truncationWarning], "\(result)")
                #expect(FileManager.default.fileExists(atPath: result["output"] as? String ?? ""))
            }
            #expect(outcome.standardError.contains("warnings:\n"), "\(outcome.standardError)")
            #expect(outcome.standardError.contains("cut.jpg: JPEG data ends before its end-of-image marker"))
        }
        await server.stop()
        #expect(server.requestedPaths.count == 2, "downloaded on each run")
        let listed = try await HoardTool.run(["cache", "list"] + cache).standardOutput
        #expect(listed.split(separator: "\n").count == 1, "no original, record or thumbnail kept: \(listed)")
        // The whole file is cached as usual.
        let good = try await HoardTool.run(
            ["thumbnails", testImages.appendingPathComponent("progressive/landscape-420.jpg").path, "--size", "64",
             "--output", scratch.path("out"), "--json"] + cache)
        #expect(try Self.results(good).first?["warnings"] == nil)
        #expect(try await HoardTool.run(["cache", "list"] + cache).standardOutput.split(separator: "\n").count == 2)
    }
}
