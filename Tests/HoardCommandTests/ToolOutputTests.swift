import Foundation
import Testing

/// What a person reads: the help, usage errors, units, counts and diagnostics.
@Suite("hoard's output")
struct ToolOutputTests {
    @Test("Without a subcommand, hoard and hoard cache are usage errors (64) that name the subcommands")
    func missingSubcommand() async throws {
        let root = try await HoardTool.run([])
        #expect(root.status == 64 && root.standardError.contains("thumbnails, cache, serve or url"), "\(root.standardError)")
        let cache = try await HoardTool.run(["cache"])
        #expect(cache.status == 64 && cache.standardError.contains("stats, list, get, put"), "\(cache.standardError)")
        let help = try await HoardTool.run(["--help"])
        #expect(help.status == 0)
        for word in ["thumbnails", "serve", "cache", "url"] {
            #expect(help.standardOutput.contains("\(word) "), "\(word): \(help.standardOutput)")
        }
        #expect(help.standardOutput.contains("serve them over\nHTTP") || help.standardOutput.contains("serve them over HTTP"))
    }

    @Test("Limits print as they were given, sizes in binary units; one input is one input")
    func unitsAndCounts() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let cache = ["--cache", scratch.path("cache"), "--cache-limit", "1536"]
        try Data(count: 3_000).write(to: URL(fileURLWithPath: scratch.path("blob")))
        #expect(try await HoardTool.run(["cache", "put", "blob", scratch.path("blob")] + cache).status == 0)
        let stats = try await HoardTool.run(["cache", "stats", "--by-kind"] + cache).standardOutput
        #expect(stats.contains("limit:     1536 MiB (1610612736 bytes, --cache-limit 1536 MiB)\n"), "\(stats)")
        #expect(stats.contains("  other values:      1, 2.9 KiB\n"), "\(stats)")  // 3,000 bytes and the type tag
        #expect(stats.contains(" KiB of 768 MiB\n"), "\(stats)")  // half for the originals, half for the rest
        #expect(stats.contains(" of 768 MiB (--originals-limit 768 MiB;"), "\(stats)")
        let larger = try await HoardTool.run(["cache", "stats", "--cache", scratch.path("cache"), "--cache-limit", "2048"])
        #expect(larger.standardOutput.contains("limit:     2 GiB (2147483648 bytes, --cache-limit 2048 MiB)\n"), "\(larger.standardOutput)")
        let png = testImages.appendingPathComponent("PngSuite/basn2c08.png").path
        let made = try await HoardTool.run(["thumbnails", png, "--size", "8", "--output", scratch.path("out")] + cache)
        #expect(made.status == 0 && made.standardOutput.hasPrefix("1 input -> "), "\(made.standardOutput)")
        #expect(made.standardOutput.contains("  downloaded: 0 B\n"), "\(made.standardOutput)")
        let removed = try await HoardTool.run(["cache", "remove", "--prefix", "blo"] + cache)
        #expect(removed.standardOutput == "removed 1 entry\n", "\(removed.standardOutput)")
    }

    @Test("A diagnostic is a tool's line on standard error, once per run, not a log record")
    func diagnostics() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = scratch.path("shared")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(chmod(folder, 0o777) == 0)
        try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.path("blob")))
        // put opens the thumbnails' cache and the originals' inside it: one warning of the folder.
        let put = try await HoardTool.run(["cache", "put", "k", scratch.path("blob"), "--cache", folder])
        #expect(put.status == 0)
        let lines = put.standardError.split(separator: "\n")
        #expect(
            lines == ["hoard: warning: Disk cache folder is writable by other users: anyone who can write it can plant entries (mode=777 path=\(folder))"],
            "\(put.standardError)")
    }
}
