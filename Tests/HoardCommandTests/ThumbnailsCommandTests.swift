import Foundation
import Hoard
import HoardTestSupport
import Testing

@Suite("hoard thumbnails", .serialized)
struct ThumbnailsCommandTests {
    static let jpeg = (try? Data(contentsOf: testImages.appendingPathComponent("libjpeg-turbo/testorig.jpg"))) ?? Data()
    static let png = (try? Data(contentsOf: testImages.appendingPathComponent("PngSuite/basn6a08.png"))) ?? Data()
    static let photo =
        (try? Data(contentsOf: testImages.appendingPathComponent("exif-orientation/Landscape_6.jpg"))) ?? Data()

    /// The file's inode number: a rename over it (a rewrite) changes it.
    static func inode(_ path: String) throws -> UInt64 {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64)
    }

    static func results(_ summary: [String: Any]) -> [[String: Any]] {
        summary["results"] as? [[String: Any]] ?? []
    }

    @Test("a folder of images: thumbnails made, then copied from the cache on the second run")
    func localFolder() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = testImages.appendingPathComponent("subsampling").path
        let arguments = [
            "thumbnails", folder, "--size", "64", "--output", scratch.path("out"), "--cache", scratch.path("cache"),
            "--json",
        ]
        let first = try await HoardTool.run(arguments)
        #expect(first.status == 0, "\(first.standardError)")
        let summary = try first.summary()
        let expected = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasSuffix(".jpg") || $0.hasSuffix(".png")
        }.count
        #expect(summary["made"] as? Int == expected)
        #expect(summary["failed"] as? Int == 0)
        var firstBytes: [String: Data] = [:]
        var firstInodes: [String: UInt64] = [:]
        for result in Self.results(summary) {
            let output = try #require(result["output"] as? String)
            let data = try Data(contentsOf: URL(fileURLWithPath: output))
            let image = try Image(data: data)
            #expect(max(image.width, image.height) == 64, "\(output)")
            firstBytes[output] = data
            firstInodes[output] = try Self.inode(output)
        }
        // One output damaged by hand: the rerun must put the right bytes back.
        let damaged = try #require(firstBytes.keys.sorted().first)
        try Data("not a thumbnail".utf8).write(to: URL(fileURLWithPath: damaged))
        let second = try await HoardTool.run(arguments)
        #expect(second.status == 0)
        let again = try second.summary()
        #expect(again["fromCache"] as? Int == expected && again["made"] as? Int == 0)
        for result in Self.results(again) {
            let output = try #require(result["output"] as? String)
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: output)) == firstBytes[output], "same bytes from the cache")
            if output != damaged {
                // A file that already holds the right bytes is left alone, not rewritten.
                #expect(try Self.inode(output) == firstInodes[output], "\(output) was rewritten")
            }
        }
        // The human summary goes to standard error with --json, and says what happened.
        #expect(second.standardError.contains("from cache: \(expected)"))
    }

    @Test("URLs: the second run makes no request; another --size downloads nothing either")
    func remoteRerunsAreFree() async throws {
        let server = TestHTTPServer(routes: [
            "/a.jpg": .ok(Self.jpeg, contentType: "image/jpeg"),
            "/b.png": .ok(Self.png, contentType: "image/png"),
            "/c.jpg": .ok(Self.photo, contentType: "image/jpeg"),
            "/moved": .redirect(to: "/a.jpg"),
        ])
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let list = "# photos\n\n\(base)/a.jpg\n  \(base)/b.png  \n# and\n\(base)/c.jpg\n\(base)/moved\n"
        try list.write(toFile: scratch.path("list.txt"), atomically: true, encoding: .utf8)
        func run(size: String, list: [String]) async throws -> [String: Any] {
            let outcome = try await HoardTool.run(
                [
                    "thumbnails", "--size", size, "--output", scratch.path("out-\(size)"), "--cache",
                    scratch.path("cache"), "--json",
                ] + list,
                standardInput: list.contains("-") ? "\(base)/a.jpg\n" : nil)
            #expect(outcome.status == 0, "\(outcome.standardError)")
            let summary = try outcome.summary()
            // The human summary (standard error with --json) agrees with the JSON, in printf's format.
            let bytes = try #require(summary["bytesDownloaded"] as? Int)
            let human =
                switch bytes {
                case ..<1_024: "\(bytes) B"
                case ..<(1 << 20): String(format: "%.1f KiB (\(bytes) bytes)", Double(bytes) / 1_024)
                default: String(format: "%.1f MiB (\(bytes) bytes)", Double(bytes) / 1_048_576)
                }
            #expect(outcome.standardError.contains("downloaded: \(human)\n"), "\(outcome.standardError)")
            let seconds = try #require(summary["elapsedSeconds"] as? Double)
            let rate = try #require(summary["imagesPerSecond"] as? Double)
            let elapsed = "elapsed:    \(String(format: "%.2f", seconds)) s (\(String(format: "%.1f", rate)) images/s)"
            #expect(outcome.standardError.contains(elapsed), "\(outcome.standardError)")
            return summary
        }
        let first = try await run(size: "100", list: ["--list", scratch.path("list.txt")])
        #expect(first["made"] as? Int == 4)
        #expect(server.requestedPaths.sorted() == ["/a.jpg", "/a.jpg", "/b.png", "/c.jpg", "/moved"])
        #expect((first["bytesDownloaded"] as? Int ?? 0) >= 2 * Self.jpeg.count + Self.png.count + Self.photo.count)
        let requestsAfterFirst = server.requestedPaths.count

        let second = try await run(size: "100", list: ["--list", scratch.path("list.txt")])
        #expect(second["fromCache"] as? Int == 4 && second["made"] as? Int == 0)
        #expect(second["bytesDownloaded"] as? Int == 0)
        #expect(server.requestedPaths.count == requestsAfterFirst, "a warm rerun makes no request")

        let resized = try await run(size: "50", list: ["--list", scratch.path("list.txt")])
        #expect(resized["made"] as? Int == 4)
        #expect(server.requestedPaths.count == requestsAfterFirst, "originals come from the cache")

        let fromStandardInput = try await run(size: "50", list: ["--list", "-"])
        #expect(fromStandardInput["fromCache"] as? Int == 1)
        await server.stop()

        // Portrait_6-style EXIF: the thumbnail is upright, 100 px wide.
        let photo = try #require(Self.results(first).first { ($0["input"] as? String)?.hasSuffix("c.jpg") == true })
        let thumbnail = try Image(
            data: Data(contentsOf: URL(fileURLWithPath: try #require(photo["output"] as? String))))
        #expect(thumbnail.width == 100 && thumbnail.height == 67)
    }

    @Test("every kind of bad input gets its own reason; the good inputs still complete; nothing partial is left")
    func badInputs() async throws {
        let truncated = Self.jpeg.prefix(Self.jpeg.count / 2)
        let server = TestHTTPServer(routes: [
            "/good.jpg": .ok(Self.jpeg, contentType: "image/jpeg"),
            "/missing.jpg": .status(404),
            "/broken.jpg": .status(500),
            "/stall.jpg": .stall,
            "/huge-chunked.jpg": .chunked(count: 4 * 1024 * 1024),
            "/huge-declared.jpg": .ok(Data(repeating: 0xFF, count: 300_000), contentType: "image/jpeg"),
            "/loop.jpg": .redirect(to: "/loop.jpg"),
            "/page.jpg": .ok(
                Data("<!DOCTYPE html><html><body>Not an image</body></html>".utf8), contentType: "image/jpeg"),
            "/truncated.jpg": .ok(Data(truncated), contentType: "image/jpeg"),
            "/empty.jpg": .ok(Data(), contentType: "image/jpeg"),
        ])
        let base = try await server.start()
        let refused = try await Self.closedPort()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let good = testImages.appendingPathComponent("PngSuite/basn2c08.png").path
        let cases: [(input: String, reason: String)] = [
            ("\(base)/missing.jpg", "HTTP 404"),
            ("\(base)/broken.jpg", "HTTP 500"),
            ("http://127.0.0.1:\(refused)/x.jpg", "refused"),
            ("\(base)/stall.jpg", "timed out after 10 s"),
            ("\(base)/huge-chunked.jpg", "larger than the limit of 200000 bytes"),
            ("\(base)/huge-declared.jpg", "larger than the limit of 200000 bytes"),
            ("\(base)/loop.jpg", "redirect loop"),
            ("\(base)/page.jpg", "not PNG, JPEG, WebP, GIF or AVIF"),
            ("\(base)/truncated.jpg", "Truncated JPEG data: Premature end of JPEG file"),
            ("\(base)/empty.jpg", "Image data is empty"),
            ("ftp://127.0.0.1/a.jpg", "unsupported URL scheme \"ftp\""),
            (scratch.path("does-not-exist.jpg"), "no such file or folder"),
        ]
        // /stall.jpg never answers, so it times out whatever the limit; the others must finish within
        // it on a loaded 2-core machine, which may stall the tool for seconds.
        let outcome = try await HoardTool.run(
            ["thumbnails", "\(base)/good.jpg", good] + cases.map(\.input)
                + [
                    "--size", "32", "--output", scratch.path("out"), "--cache", scratch.path("cache"),
                    "--timeout", "10", "--max-download-bytes", "200000", "--json",
                ])
        #expect(outcome.status == 1)
        let summary = try outcome.summary()
        #expect(summary["made"] as? Int == 2)
        #expect(summary["failed"] as? Int == cases.count)
        let results = Self.results(summary)
        for (input, reason) in cases {
            let result = results.first { $0["input"] as? String == input }
            let error = result?["error"] as? String ?? "no result"
            #expect(error.contains(reason), "\(input): \(error)")
            #expect(outcome.standardError.contains(input), "each failure is listed with its input")
        }
        // Only the two good thumbnails in the output folder, and only their entries in the cache.
        let written = try FileManager.default.contentsOfDirectory(atPath: scratch.path("out"))
        #expect(written.count == 2, "\(written)")
        let cache = try Hoard(
            configuration: .init(name: "default", directory: URL(fileURLWithPath: scratch.path("cache"))))
        let originals = try Hoard(
            configuration: .init(name: "originals", directory: URL(fileURLWithPath: scratch.path("cache/originals"))))
        #expect(try originals.diskEntries().map(\.key).allSatisfy { $0.hasPrefix("original/v2 ") && $0.contains("good.jpg") })
        let keys = try cache.diskEntries().map(\.key) + originals.diskEntries().map(\.key)
        #expect(
            keys.count == 5,
            "two thumbnails, one downloaded original with its record, and that thumbnail's origin mark: \(keys)")
        #expect(keys.filter { $0.hasPrefix("original-record/v1 ") || $0.hasPrefix("thumbnail-origin/v1 ") }.count == 2)
        #expect(keys.allSatisfy { $0.contains("good.jpg") || $0.contains("basn2c08.png") })
        await server.stop()
    }

    @Test("an output folder that cannot be created fails the run with a clear message")
    func unwritableOutput() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: scratch.path("file")))
        let outcome = try await HoardTool.run(
            [
                "thumbnails", testImages.appendingPathComponent("PngSuite/basn2c08.png").path, "--size", "32",
                "--output", scratch.path("file/out"), "--cache", scratch.path("cache"),
            ])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("cannot create the output folder"), "\(outcome.standardError)")
    }

    @Test(
        "usage errors exit with 64",
        arguments: [
            ["thumbnails", "x.jpg", "--output", "o"],
            ["thumbnails", "x.jpg", "--size", "0", "--output", "o"],
            ["thumbnails", "x.jpg", "--size", "10", "--output", "o", "--quality", "101"],
            ["thumbnails", "--size", "10", "--output", "o"],
            ["thumbnails", "x.jpg", "--size", "10", "--output", "o", "--format", "gif"],
            ["thumbnails", "x.jpg", "--size", "10x", "--output", "o"],
            ["thumbnails", "x.jpg", "--size", "10x0", "--output", "o"],
            ["thumbnails", "x.jpg", "--size", "10", "--output", "o", "--gravity", "ne"],
            ["thumbnails", "x.jpg", "--size", "10", "--output", "o", "--fit", "fill", "--gravity", "up"],
            ["thumbnails", "x.jpg", "--size", "10", "--output", "o", "--name", "{name}/{ext}"],
            ["thumbnails", "x.jpg", "--size", "10", "--output", "o", "--name", "{nme}.{ext}"],
            ["thumbnails", "x.jpg", "--size", "10", "--output", "o", "--format", "webp", "--quality", "0"],
            ["thumbnails", "x.jpg", "--size", "10", "--output", "o", "--filter", "bicubic"],
        ])
    func usageErrors(_ arguments: [String]) async throws {
        let outcome = try await HoardTool.run(arguments)
        #expect(outcome.status == 64, "\(outcome.standardError)")
    }

    @Test(
        "a folder is searched at any depth for .jpg, .jpeg, .png, .webp, .gif and .avif files, in sorted order; links count as their targets"
    )
    func folderExpansion() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let root = scratch.path("in")
        let files = FileManager.default
        for folder in ["b/deeper", "a", "c.jpg"] {
            try files.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        for image in ["b/deeper/z.PNG", "b/w.png", "x.jpg"] {
            try Self.png.write(to: URL(fileURLWithPath: root + "/" + image))
        }
        try Self.jpeg.write(to: URL(fileURLWithPath: root + "/a/y.jpeg"))
        for (image, source) in [
            ("b/v.webp", "webp/test.webp"), ("a/u.GIF", "gif/hopper.gif"), ("t.avif", "avif/irot1.avif"),
        ] {
            try Data(contentsOf: testImages.appendingPathComponent(source)).write(
                to: URL(fileURLWithPath: root + "/" + image))
        }
        for other in ["notes.txt", "a/jpg", "c.jpg/inner.bmp"] {
            try Data("not an image".utf8).write(to: URL(fileURLWithPath: root + "/" + other))
        }
        try files.createSymbolicLink(atPath: root + "/link.png", withDestinationPath: root + "/b/w.png")
        // A link to a folder is not entered (this one would loop), even with an image's name.
        try files.createSymbolicLink(atPath: root + "/loop.jpg", withDestinationPath: root)
        let outcome = try await HoardTool.run([
            "thumbnails", root, "--size", "16", "--output", scratch.path("out"), "--cache", scratch.path("cache"),
            "--json",
        ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let inputs = Self.results(try outcome.summary()).compactMap {
            ($0["input"] as? String)?.components(separatedBy: "/in/").last
        }
        #expect(
            inputs == ["a/u.GIF", "a/y.jpeg", "b/deeper/z.PNG", "b/v.webp", "b/w.png", "link.png", "t.avif", "x.jpg"],
            "\(inputs)")
        #expect(try outcome.summary()["made"] as? Int == 8)
    }

    @Test("output names are stable and collision-free; --format picks the encoder")
    func namesAndFormats() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // Two inputs with the same base name in different folders.
        let a = scratch.path("a"), b = scratch.path("b")
        for folder in [a, b] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Self.png.write(to: URL(fileURLWithPath: folder + "/same.png"))
        }
        let run = { (format: String) in
            try await HoardTool.run([
                "thumbnails", a + "/same.png", b + "/same.png", "--size", "16", "--format", format,
                "--output", scratch.path("out-\(format)"), "--cache", scratch.path("cache"), "--json",
            ])
        }
        let png = try await run("auto")
        let names = Self.results(try png.summary()).compactMap {
            ($0["output"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent }
        }
        #expect(Set(names).count == 2 && names.allSatisfy { $0.hasPrefix("same-") && $0.hasSuffix(".png") }, "\(names)")
        let again = Self.results(try await run("auto").summary()).compactMap {
            ($0["output"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent }
        }
        #expect(again == names, "names are stable across runs")
        let jpeg = Self.results(try await run("jpeg").summary())
        for result in jpeg {
            let data = try Data(contentsOf: URL(fileURLWithPath: try #require(result["output"] as? String)))
            #expect(ImageFormat(sniffing: data) == .jpeg)
        }
    }

    @Test("--filter picks the resampling filter, and a thumbnail made with another filter is not served from the cache")
    func filters() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let input = scratch.path("photo.jpg")
        try Self.photo.write(to: URL(fileURLWithPath: input))
        func run(_ filter: String) async throws -> (status: String, bytes: Data) {
            let outcome = try await HoardTool.run([
                "thumbnails", input, "--size", "96", "--filter", filter, "--output", scratch.path("out-\(filter)"),
                "--cache", scratch.path("cache"), "--json",
            ])
            #expect(outcome.status == 0, "\(outcome.standardError)")
            let result = try #require(Self.results(try outcome.summary()).first)
            let output = try #require(result["output"] as? String)
            return (try #require(result["status"] as? String), try Data(contentsOf: URL(fileURLWithPath: output)))
        }
        for (name, filter) in [("catmull-rom", Image.ResamplingFilter.catmullRom), ("lanczos3", .lanczos3)] {
            let made = try await run(name)
            #expect(made.status == "made", "\(name): a thumbnail with another filter was taken from the cache")
            // The tool's pixels are the library's with the same filter (then JPEG q85).
            let expected = try Image.thumbnail(from: Self.photo, fittingIn: 96, filter: filter).jpegData(quality: 85)
            #expect(made.bytes == expected, "\(name)")
            #expect(try await run(name).status == "cached")
        }
        let catmullRom = try await run("catmull-rom"), lanczos = try await run("lanczos3")
        #expect(catmullRom.bytes != lanczos.bytes, "the two filters give different thumbnails")
    }

    /// A port on 127.0.0.1 that nothing listens on.
    static func closedPort() async throws -> Int {
        let server = TestHTTPServer(routes: [:])
        let base = try await server.start()
        await server.stop()
        return Int(base.split(separator: ":").last ?? "") ?? 1
    }
}

@Suite("hoard thumbnails progress")
struct ThumbnailsProgressTests {
    @Test(
        "progress (bar, count, rate, ETA) appears on a terminal, and not in a pipe",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a pseudo-terminal"
        ))
    func progressOnTerminal() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let tool = try #require(BuiltProduct.url(named: "hoard")).path
        let input = testImages.appendingPathComponent("PngSuite/basn2c08.png").path
        let command =
            "\(tool) thumbnails \(input) --size 16 --output \(scratch.path("out")) --cache \(scratch.path("cache"))"
        // script(1) runs the tool with a pseudo-terminal as its standard error.
        let terminal = try await HoardTool.runProgram("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(
            terminal.standardOutput.contains("[####################] 1/1, ") && terminal.standardOutput.contains("ETA"),
            "\(terminal.standardOutput)")
        let piped = try await HoardTool.run([
            "thumbnails", input, "--size", "16", "--output", scratch.path("out"), "--cache", scratch.path("cache"),
        ])
        #expect(!piped.standardError.contains("ETA"))
    }
}
