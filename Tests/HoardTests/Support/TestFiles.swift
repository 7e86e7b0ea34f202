import Foundation

/// Where the test images live: `TestImages/` in the repository (always present) and the shared
/// corpus beside the checkout (`../shared/corpus`, or `$HOARD_CORPUS`), which tests skip without.
enum TestFiles {
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // HoardTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static let testImages = repositoryRoot.appendingPathComponent("TestImages")

    /// The shared corpus, or `nil` when it is not on this machine.
    static let corpus: URL? = {
        let candidates = [
            ProcessInfo.processInfo.environment["HOARD_CORPUS"].map { URL(fileURLWithPath: $0) },
            repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus"),
        ]
        return candidates.compactMap { $0 }.first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("MANIFEST.tsv").path)
        }
    }()

    static let corpusMissing = "needs the shared corpus at ../shared/corpus (or $HOARD_CORPUS); not found"

    static func testImage(_ relativePath: String) throws -> Data {
        try read(testImages.appendingPathComponent(relativePath))
    }

    static func corpusFile(_ relativePath: String) throws -> Data {
        guard let corpus else { throw CocoaError(.fileNoSuchFile) }
        return try read(corpus.appendingPathComponent(relativePath))
    }

    /// The file's bytes. Empty files are not read: on Linux, `Data(contentsOf:)` leaks its 4 KiB
    /// buffer for a file of size 0 (seen by LeakSanitizer), and the corpus has empty files.
    static func read(_ url: URL) throws -> Data {
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int
        return size == 0 ? Data() : try Data(contentsOf: url)
    }

    /// The files of a `TestImages` folder whose names end in `suffix`, sorted.
    static func testImageNames(in folder: String, suffix: String) -> [String] {
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: testImages.appendingPathComponent(folder).path)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted()
    }
}
