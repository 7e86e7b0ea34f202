import Foundation
import Hoard
import Testing

/// Folder inputs: the walk (names of every length, read in place), and its budget of directory
/// entries per run (`--max-folder-entries`).
@Suite("hoard thumbnails folder inputs")
struct FolderInputTests {
    static let png = (try? Data(contentsOf: testImages.appendingPathComponent("PngSuite/basn2c08.png"))) ?? Data()

    static func results(_ outcome: HoardTool.Outcome) throws -> [[String: Any]] {
        try outcome.summary()["results"] as? [[String: Any]] ?? []
    }

    /// Makes `count` image files in a new folder `name` of `scratch`; returns the folder.
    static func folder(_ name: String, images count: Int, in scratch: Scratch) throws -> String {
        let folder = scratch.path(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for index in 0..<count {
            try png.write(to: URL(fileURLWithPath: "\(folder)/image-\(index).png"))
        }
        return folder
    }

    @Test("names of every length from 1 to 255 bytes are listed exactly (read in place, not past the record)")
    func everyNameLength() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = scratch.path("names")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var expected: Set<String> = []
        for length in 1...255 {
            if length <= 4 {
                // Too short to end in ".jpg": other files, which the walk reads and leaves out.
                let name = String(repeating: "b", count: length)
                try Data("not an image".utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
            } else {
                let name = String(repeating: "a", count: length - 4) + ".jpg"
                try Self.png.write(to: URL(fileURLWithPath: folder + "/" + name))
                expected.insert(folder + "/" + name)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 255)
        let outcome = try await HoardTool.run(
            [
                "thumbnails", folder, "--size", "8", "--output", scratch.path("out"), "--cache", scratch.path("cache"),
                "--json",
            ], timeLimit: .seconds(120))
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let inputs = try Self.results(outcome).compactMap { $0["input"] as? String }
        #expect(inputs.count == 251)
        #expect(Set(inputs) == expected)
        #expect(inputs == inputs.sorted(), "sorted")
        #expect(try outcome.summary()["made"] as? Int == 251)
    }

    @Test("two names equal under Unicode normalisation (NFC and NFD café.png) are two inputs with two outputs")
    func normalisationEquivalentNames() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = scratch.path("unicode")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let composed = "caf\u{E9}.png", decomposed = "cafe\u{301}.png"
        #expect(composed == decomposed, "Swift's == calls them equal")
        let gray = try Data(contentsOf: testImages.appendingPathComponent("PngSuite/basn0g08.png"))
        try Self.png.write(to: URL(fileURLWithPath: folder + "/" + composed))
        try gray.write(to: URL(fileURLWithPath: folder + "/" + decomposed))
        let outcome = try await HoardTool.run(
            [
                "thumbnails", folder, "--size", "8", "--format", "png", "--output", scratch.path("out"),
                "--cache", scratch.path("cache"), "--json",
            ], timeLimit: .seconds(60))
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let results = try Self.results(outcome)
        let inputs = results.compactMap { ($0["input"] as? String).map { Array($0.utf8) } }
        #expect(Set(inputs) == [Array((folder + "/" + composed).utf8), Array((folder + "/" + decomposed).utf8)])
        #expect(try outcome.summary()["made"] as? Int == 2)
        let outputs = try results.map { try Data(contentsOf: URL(fileURLWithPath: try #require($0["output"] as? String))) }
        #expect(outputs.count == 2 && outputs[0] != outputs[1], "each made from its own file")
        let keys: [String] = results.compactMap { $0["key"] as? String }
        #expect(Set(keys.map { Array($0.utf8) }).count == 2)
    }

    @Test("outputs of a folder input are named from their path below it; --json gives key, width, height, format and bytes")
    func relativeOutputNamesAndJSONFields() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = scratch.path("wallpapers")
        let photo = try Data(contentsOf: testImages.appendingPathComponent("exif-orientation/Landscape_6.jpg"))
        for theme in ["Next", "Mountain"] {
            try FileManager.default.createDirectory(
                atPath: "\(folder)/\(theme)/contents", withIntermediateDirectories: true)
            try photo.write(to: URL(fileURLWithPath: "\(folder)/\(theme)/contents/2560x1600.jpg"))
        }
        for pass in ["made", "cached"] {
            let outcome = try await HoardTool.run(
                [
                    "thumbnails", folder, "--size", "64", "--output", scratch.path("out"), "--cache",
                    scratch.path("cache"), "--json",
                ], timeLimit: .seconds(60))
            #expect(outcome.status == 0, "\(outcome.standardError)")
            let results = try Self.results(outcome)
            #expect(results.count == 2)
            for (result, theme) in zip(results, ["Mountain", "Next"]) {
                #expect(result["status"] as? String == pass)
                let output = try #require(result["output"] as? String)
                let name = URL(fileURLWithPath: output).lastPathComponent
                #expect(name.hasPrefix("\(theme)-contents-2560x1600-") && name.hasSuffix(".jpg"), "\(name)")
                let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
                let image = try Image(data: bytes)
                // Landscape_6 is stored turned; its thumbnail is upright: wider than tall.
                #expect(result["width"] as? Int == image.width && result["height"] as? Int == image.height)
                #expect(image.width == 64 && image.height < 64)
                #expect(result["format"] as? String == "jpeg")
                #expect(result["bytes"] as? Int == bytes.count)
                let key = try #require(result["key"] as? String)
                #expect(key.hasPrefix("thumbnail/v4 file://") && key.contains("/\(theme)/contents/2560x1600.jpg "))
                #expect(key.contains(" size=64 format=auto quality=85"), "\(key)")
            }
        }
    }

    @Test("a folder whose walk reads more than --max-folder-entries fails, and so do later folders; files still run")
    func budgetExceeded() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let large = try Self.folder("large", images: 30, in: scratch)
        let small = try Self.folder("small", images: 1, in: scratch)
        let file = testImages.appendingPathComponent("PngSuite/basn2c08.png").path
        let outcome = try await HoardTool.run(
            [
                "thumbnails", large, small, file, "--max-folder-entries", "10", "--size", "8",
                "--output", scratch.path("out"), "--cache", scratch.path("cache"), "--json",
            ], timeLimit: .seconds(60))
        #expect(!outcome.timedOut)
        #expect(outcome.status == 1)
        let results = try Self.results(outcome)
        #expect(results.compactMap { $0["input"] as? String } == [large, small, file])
        let message =
            "folder not searched: the folder walks of this run would read more than 10 directory entries (--max-folder-entries 10)"
        for folder in [large, small] {
            let error = results.first { $0["input"] as? String == folder }?["error"] as? String
            #expect(error == message, "\(folder): \(error ?? "no error")")
            #expect(outcome.standardError.contains("  \(folder): \(message)"), "\(outcome.standardError)")
        }
        #expect(results.last?["status"] as? String == "made")
    }

    @Test("the budget is shared by every folder, each distinct folder is walked once, and a walk within it succeeds")
    func budgetSharedAndFoldersWalkedOnce() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = try Self.folder("thirty", images: 30, in: scratch)
        let base = [
            "--size", "8", "--output", scratch.path("out"), "--cache", scratch.path("cache"), "--json",
        ]
        // 30 entries: three mentions of the folder (one with a trailing slash) cost 30, not 90.
        let once = try await HoardTool.run(
            ["thumbnails", folder, folder + "/", folder, "--max-folder-entries", "30"] + base)
        #expect(once.status == 0, "\(once.standardError)")
        #expect(try Self.results(once).count == 30, "the folder's files once")
        // Another folder of 30 after it exceeds a shared budget of 59.
        let other = try Self.folder("other", images: 30, in: scratch)
        let shared = try await HoardTool.run(["thumbnails", folder, other, "--max-folder-entries", "59"] + base)
        #expect(shared.status == 1)
        let results = try Self.results(shared)
        #expect(results.count == 31, "30 files of the first folder, then the second folder's failure")
        #expect((results.last?["error"] as? String)?.contains("--max-folder-entries 59") == true)
    }

    @Test("a --list of 2,000 junk lines, / and . among them, finishes: each line is reported, the walks are bounded")
    func junkListFinishes() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var lines: [String] = []
        for index in 0..<2000 {
            switch index % 5 {
            case 0: lines.append("/")
            case 1: lines.append(".")
            case 2: lines.append("junk-\(index)-does-not-exist.jpg")
            case 3: lines.append("http://")
            default: lines.append("gopher://127.0.0.1/\(index)")
            }
        }
        let outcome = try await HoardTool.run(
            [
                "thumbnails", "--list", "-", "--max-folder-entries", "100", "--size", "8",
                "--output", scratch.path("out"), "--cache", scratch.path("cache"), "--json",
            ], standardInput: lines.joined(separator: "\n") + "\n", timeLimit: .seconds(120))
        #expect(!outcome.timedOut, "the run hung")
        #expect(outcome.status == 1)
        let summary = try outcome.summary()
        #expect(summary["failed"] as? Int == 2000 && summary["inputs"] as? Int == 2000)
        let results = try Self.results(outcome)
        #expect(results.compactMap { $0["input"] as? String } == lines, "every line reported, in order")
        for result in results where ["/", "."].contains(result["input"] as? String) {
            let error = result["error"] as? String ?? ""
            #expect(error.contains("(--max-folder-entries 100)"), "\(error)")
        }
    }
}
