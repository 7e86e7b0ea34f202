import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("README")
struct ReadmeTests {
    @Test("the README's example runs and does what its comments say")
    func exampleRuns() throws {
        // README example: begin
        struct Note: Codable, Cachable { var title: String }  // one line makes a Codable type cachable

        let bytes = try Data(contentsOf: URL(fileURLWithPath: "TestImages/exif-orientation/Landscape_6.jpg"))
        let photo = try Image(data: bytes)  // JPEG, PNG, WebP, GIF or AVIF, sniffed; upright: 1800 x 1200
        let thumbnail = try Image.thumbnail(from: bytes, fittingIn: 256)  // DCT-scaled decode, then Lanczos
        let jpeg = try thumbnail.jpegData(quality: 85)  // or pngData(), lossless, keeps alpha
        let stored = try Note(title: "Dune").encode()  // JSON bytes, ready for any cache tier
        let note = try Note.decode(stored)
        // README example: end
        #expect(photo.width == 1800 && photo.height == 1200)
        #expect(thumbnail.width == 256 && thumbnail.height == 171)
        #expect(ImageFormat(sniffing: jpeg) == .jpeg)
        #expect(note.title == "Dune")
    }

    @Test("the README's storage example runs, in a temporary $XDG_CACHE_HOME")
    func storageExampleRuns() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        // The example uses the default folder: it runs in a child process
        // (Tests/HoardDiskStress/ReadmeStorageExample.swift) whose $XDG_CACHE_HOME is `folder`.
        let child = try await Self.run(
            try StressChild.requireExecutable(), ["readme-storage"], cacheHome: folder.url, in: TestFiles.repositoryRoot)
        #expect(child.status == 0, "\(child.output)")
        let expected = folder.url.appendingPathComponent("hoard/notes", isDirectory: true)
        let lines = child.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(child.output)")
        #expect(lines.first.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            == expected.standardizedFileURL.path)
        #expect(Array(lines.dropFirst()) == ["Dune", "memory true", "nil"])
        #expect(FileManager.default.fileExists(atPath: expected.appendingPathComponent(DiskCache.markerFileName).path))
    }

    @Test("the README shows exactly the storage example the child process runs")
    func readmeMatchesStorageTest() throws {
        let source = TestFiles.repositoryRoot.appendingPathComponent("Tests/HoardDiskStress/ReadmeStorageExample.swift")
        let (shown, run) = try Self.example(named: "README storage example", source: source.path)
        #expect(shown.count >= 5)
        #expect(shown == run)
    }

    @Test("the README shows exactly the example this suite runs")
    func readmeMatchesTest() throws {
        let (shown, run) = try Self.example(named: "README example")
        #expect(shown.count >= 6)
        #expect(shown == run)
    }

    @Test("the FetchingThroughTheCache article's example runs: one call per policy, and memoization")
    func fetchingExampleRuns() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cacheFolder = folder.cacheURL
        let downloads = FetchProbe()
        @Sendable func download(_ name: String) async throws -> Data {
            try await downloads.call { Data("\(name) #\($0)".utf8) }
        }
        @Sendable func makeThumbnail(_ name: String, _ size: Int) async throws -> Image {
            try Image(width: size, height: size, format: .gray8, pixels: [UInt8](repeating: 128, count: size * size))
        }
        var shown: [Data] = []
        func show(_ data: Data) { shown.append(data) }
        // README fetching example: begin
        let hoard = try Hoard(configuration: .init(name: "avatars", directory: cacheFolder))
        let key = "avatar/ada"
        // cacheElseFetch (the default): the cached value while it is fresh, else download and store it
        let avatar = try await hoard.value(forKey: key, expiry: .seconds(3_600)) { try await download("ada.png") }
        // networkOnly: always download, and store the result
        let latest = try await hoard.value(forKey: key, policy: .networkOnly) { try await download("ada.png") }
        // cacheOnly: never download; a miss throws HoardError.notCached
        let offline = try await hoard.value(forKey: key, policy: .cacheOnly) { try await download("ada.png") }
        // networkElseCache: download; if that fails, the cached value (entry.isStale when it has expired)
        let entry = try await hoard.entry(forKey: key, policy: .networkElseCache) { try await download("ada.png") }
        // cacheThenFetch: the cached value at once, then the downloaded one
        for try await version in hoard.values(forKey: key, fetch: { try await download("ada.png") }) {
            show(version)
        }
        // memoize: any async function, its results cached by its arguments
        let thumbnail = hoard.memoize(makeThumbnail, namespace: "thumbnail")  // (String, Int) async throws -> Image
        let small = try await thumbnail("ada.png", 64)  // computed once, then from memory or disk
        // README fetching example: end
        #expect(avatar == Data("ada.png #1".utf8))
        #expect(latest == Data("ada.png #2".utf8) && offline == latest)
        #expect(entry.value == Data("ada.png #3".utf8) && entry.source == .fetch)
        #expect(shown == [Data("ada.png #3".utf8), Data("ada.png #4".utf8)])
        let again = try await thumbnail("ada.png", 64)
        #expect(small.width == 64 && again == small)
    }

    /// The example marked `README fetching example` moved from the README to the DocC article
    /// *Fetching through the cache*.
    @Test("the FetchingThroughTheCache article shows exactly the example this test runs")
    func readmeMatchesFetchingTest() throws {
        let (shown, run) = try Self.example(
            named: "README fetching example", document: "Sources/Hoard/Hoard.docc/FetchingThroughTheCache.md")
        #expect(shown.count >= 10)
        #expect(shown == run)
    }

    @Test(
        "the Thumbnails article's example runs with Hoard.shared in a temporary folder; the tool serves its thumbnail"
    )
    func sharedCacheExampleRuns() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let root = TestFiles.repositoryRoot
        // Hoard.shared reads $XDG_CACHE_HOME once, at first use: the example runs in a child
        // process (Tests/HoardDiskStress/ReadmeSharedCacheExample.swift) with its own.
        let child = try await Self.run(
            try StressChild.requireExecutable(), ["readme-shared-cache"], cacheHome: folder.url, in: root)
        #expect(child.status == 0, "\(child.output)")
        #expect(child.output == "256 x 171\n")

        // The thumbnail is in $XDG_CACHE_HOME/hoard/default, as an Image under the tool's key.
        let photo = root.appendingPathComponent("TestImages/exif-orientation/Landscape_1.jpg").path
        let key = try ThumbnailKey(file: photo, size: 256)
        let cache = try Hoard(
            configuration: .init(
                name: "default", directory: folder.url.appendingPathComponent("hoard/default", isDirectory: true)))
        let stored = try #require(try cache.storedBytes(forKey: key.key))
        #expect(stored.typeIdentifier == Image.cacheTypeIdentifier)
        let image = try #require(try await cache.retrieve(Image.self, forKey: key))
        #expect(image.width == 256 && image.height == 171)

        // `hoard thumbnails` with the same $XDG_CACHE_HOME (its default cache is Hoard.shared's)
        // takes it from the cache and writes its bytes.
        let tool = try #require(BuiltProduct.url(named: "hoard"), "the hoard tool is not built next to the tests")
        let output = folder.url.appendingPathComponent("out").path
        let run = try await Self.run(
            tool, ["thumbnails", photo, "--size", "256", "--output", output, "--json"], cacheHome: folder.url, in: root)
        #expect(run.status == 0, "\(run.output)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(summary["fromCache"] as? Int == 1, "\(run.output)")
        let result = try #require((summary["results"] as? [[String: Any]])?.first)
        let written = try Data(contentsOf: URL(fileURLWithPath: try #require(result["output"] as? String)))
        #expect(written == stored.bytes)
    }

    /// The example marked `README shared cache example` moved from the README to the DocC article
    /// *Thumbnails*.
    @Test("the Thumbnails article shows exactly the shared cache example the child process runs")
    func readmeMatchesSharedCacheExample() throws {
        let source = TestFiles.repositoryRoot.appendingPathComponent(
            "Tests/HoardDiskStress/ReadmeSharedCacheExample.swift")
        let (shown, run) = try Self.example(
            named: "README shared cache example", source: source.path,
            document: "Sources/Hoard/Hoard.docc/Thumbnails.md")
        #expect(shown.count >= 5)
        #expect(shown == run)
        #expect(
            shown.contains { $0.contains("Hoard.shared.store(") }
                && shown.contains { $0.contains("Hoard.shared.retrieve(") })
    }

    /// Runs `executable` in `folder` with `$XDG_CACHE_HOME` set to `cacheHome`; returns its exit
    /// status and standard output (standard error is appended after a blank line when not empty).
    static func run(_ executable: URL, _ arguments: [String], cacheHome: URL, in folder: URL) async throws
        -> (status: Int32, output: String)
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = cacheHome.path
        process.environment = environment
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        async let out = BlockingCall.readToEnd(output.fileHandleForReading)
        async let err = BlockingCall.readToEnd(error.fileHandleForReading)
        let (outData, errData) = await (out, err)
        await BlockingCall.waitUntilExit(process)
        let errText = String(decoding: errData, as: UTF8.self)
        let text = String(decoding: outData, as: UTF8.self)
        return (
            process.terminationStatus, errText.isEmpty || process.terminationStatus == 0 ? text : text + "\n" + errText
        )
    }

    /// The lines of the example marked `name` in `document` (the README unless named: a path from
    /// the repository's root) and in `source` (this file unless named), without blank lines, fences
    /// and imports.
    static func example(named name: String, source: String = #filePath, document: String = "README.md") throws
        -> (shown: [String], run: [String])
    {
        try ReadmeExample.lines(named: name, source: source, document: document)
    }
}
