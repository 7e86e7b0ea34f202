import Foundation
import Hoard
import Testing

@Suite("hoard cache")
struct CacheCommandTests {
    @Test("put, get, list, stats, remove, prune and clear work on one folder")
    func administration() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let cache = ["--cache", scratch.path("cache")]
        let bytes = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        try bytes.write(to: URL(fileURLWithPath: scratch.path("blob")))
        #expect(try await HoardTool.run(["cache", "put", "my key", scratch.path("blob")] + cache).status == 0)
        #expect(try await HoardTool.run(["cache", "put", "other", scratch.path("blob")] + cache).status == 0)

        let get = try await HoardTool.run(["cache", "get", "my key", "--output", scratch.path("copy")] + cache)
        #expect(get.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path("copy"))) == bytes, "byte for byte")
        let toStdout = try await HoardTool.run(["cache", "get", "other"] + cache)
        #expect(toStdout.standardOutputBytes == bytes)

        let list = try await HoardTool.run(["cache", "list"] + cache)
        let lines = list.standardOutput.split(separator: "\n")
        // A header, then size on disk (the value and its type tag), age, expiry, key; sorted by key.
        #expect(lines.first == "bytes\tage\texpiry\tkey", "\(list.standardOutput)")
        let fields = lines.dropFirst().first?.split(separator: "\t") ?? []
        #expect(lines.count == 3 && fields.count == 4 && fields.last == "my key", "\(list.standardOutput)")
        #expect((Int(fields.first ?? "") ?? 0) >= bytes.count)

        let stats = try await HoardTool.run(["cache", "stats"] + cache)
        #expect(stats.standardOutput.contains("entries:   2 (--by-kind"), "\(stats.standardOutput)")
        let byKind = try await HoardTool.run(["cache", "stats", "--by-kind"] + cache)
        #expect(byKind.standardOutput.contains("entries:   2\n"), "\(byKind.standardOutput)")
        #expect(byKind.standardOutput.contains("  other values:      2, "), "\(byKind.standardOutput)")

        #expect(try await HoardTool.run(["cache", "remove", "my key"] + cache).status == 0)
        let missing = try await HoardTool.run(["cache", "get", "my key"] + cache)
        #expect(missing.status == 1 && missing.standardError.contains("no entry for key my key"))

        let prune = try await HoardTool.run(["cache", "prune"] + cache)
        #expect(prune.status == 0 && prune.standardOutput.contains("removed 0 expired entries"))
        #expect(try await HoardTool.run(["cache", "clear"] + cache).status == 0)
        #expect(try await HoardTool.run(["cache", "list"] + cache).standardOutput == "bytes\tage\texpiry\tkey\n")
    }

    @Test("stats, list and get on a folder that does not exist say so, exit 1 and create nothing")
    func missingFolder() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let missing = scratch.path("no/such/cache")
        for command in [["cache", "stats"], ["cache", "list"], ["cache", "get", "a key"]] {
            let run = try await HoardTool.run(command + ["--cache", missing])
            #expect(run.status == 1, "\(command): \(run.standardOutput)")
            #expect(run.standardError.contains("no cache at \(missing)"), "\(command): \(run.standardError)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("no")), "\(command) made the folder")
        }
    }

    @Test("get of a value stored raw through DiskCache says what the entry holds, in plain words")
    func rawValue() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = scratch.path("cache")
        try DiskCache(directory: URL(fileURLWithPath: folder)).store(Data("raw".utf8), forKey: "k")
        let run = try await HoardTool.run(["cache", "get", "k", "--cache", folder])
        #expect(run.status == 1)
        #expect(
            run.standardError.contains("holds a raw value with no type tag, not a value stored through Hoard"),
            "\(run.standardError)")
    }

    @Test("remove --prefix removes exactly the keys with that prefix; KEY and --prefix are exclusive")
    func removeByPrefix() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let cache = ["--cache", scratch.path("cache")]
        try Data("value".utf8).write(to: URL(fileURLWithPath: scratch.path("blob")))
        let keys = ["img/a.jpg 64", "img/a.jpg 128", "img/a.jpgx 64", "img/b.jpg 64", "other"]
        for key in keys {
            #expect(try await HoardTool.run(["cache", "put", key, scratch.path("blob")] + cache).status == 0)
        }
        let removed = try await HoardTool.run(["cache", "remove", "--prefix", "img/a.jpg "] + cache)
        #expect(removed.status == 0 && removed.standardOutput == "removed 2 entries\n", "\(removed.standardError)")
        let list = try await HoardTool.run(["cache", "list"] + cache)
        let left = list.standardOutput.split(separator: "\n").dropFirst().compactMap { $0.split(separator: "\t").last.map(String.init) }
        #expect(left == ["img/a.jpgx 64", "img/b.jpg 64", "other"])
        for arguments in [["cache", "remove"], ["cache", "remove", "other", "--prefix", "x"], ["cache", "remove", "--prefix", ""]] {
            let outcome = try await HoardTool.run(arguments + cache)
            #expect(outcome.status == 64, "\(arguments): \(outcome.standardError)")
        }
    }

    @Test("--version prints the version")
    func version() async throws {
        let outcome = try await HoardTool.run(["--version"])
        #expect(outcome.status == 0 && outcome.standardOutput.hasPrefix("0."))
    }

    /// `cache put` of a 300 MB file once peaked at 613 MB (the file, then a framed copy of
    /// it). Each command's peak resident memory, through python3's `getrusage`.
    @Test("put and get of a 96 MiB file hold it in memory once")
    func largeFileOnce() async throws {
        let python = try #require(
            ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "python3 is missing")
        let hoard = try #require(HoardTool.executablePath)
        let scratch = try Scratch()
        defer { scratch.remove() }
        let size = 96 << 20
        var bytes = Data(count: size)
        bytes.withUnsafeMutableBytes { buffer in
            var generator = SystemRandomNumberGenerator()
            for offset in stride(from: 0, to: size, by: 8) { buffer.storeBytes(of: generator.next() as UInt64, toByteOffset: offset, as: UInt64.self) }
        }
        try bytes.write(to: URL(fileURLWithPath: scratch.path("big")))
        let cache = ["--cache", scratch.path("cache")]
        let peak = { (arguments: [String]) async throws -> Int in
            let script = "import resource, subprocess, sys\n"
                + "status = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
                + "print(status, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)"
            let outcome = try await HoardTool.runProgram(python, ["-c", script, hoard] + arguments, timeLimit: .seconds(300))
            let words = outcome.standardOutput.split(separator: " ")
            #expect(words.first == "0", "\(arguments): \(outcome.standardError)")
            return Int(words.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? .max
        }
        try Data("small".utf8).write(to: URL(fileURLWithPath: scratch.path("small")))
        let baseline = try await peak(["cache", "put", "small", scratch.path("small")] + cache)  // the process alone
        let put = try await peak(["cache", "put", "big", scratch.path("big")] + cache)
        let get = try await peak(["cache", "get", "big", "--output", scratch.path("out")] + cache)
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path("out"))) == bytes)
        #expect(put - baseline < size + (24 << 20), "put: \(put) bytes at peak, the process alone \(baseline)")
        #expect(get - baseline < size + (24 << 20), "get: \(get) bytes at peak, the process alone \(baseline)")
    }
}
