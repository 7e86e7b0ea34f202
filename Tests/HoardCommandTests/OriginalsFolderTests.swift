import Foundation
import Testing

/// `originals/`, the cache's own sub-folder, replaced by a link (to an outside
/// folder, or dangling) or by a file. On c004120 a run wrote `.hoard-cache` and `CACHEDIR.TAG`
/// outside through the link, and every input failed, as it did with a dangling link or a file.
@Suite("hoard thumbnails: an originals folder that is not the cache's", .serialized)
struct OriginalsFolderTests {
    enum Replacement: String, CaseIterable, Sendable {
        case linkToOutsideFolder, danglingLink, regularFile
    }

    @Test("The link is never followed, the run carries on, nothing outside is written", arguments: Replacement.allCases)
    func replacedOriginals(replacement: Replacement) async throws {
        let jpeg = try Data(contentsOf: testImages.appendingPathComponent("libjpeg-turbo/testorig.jpg"))
        let server = TestHTTPServer(routes: ["/a.jpg": .ok(jpeg, contentType: "image/jpeg")])
        let base = try await server.start()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let cache = scratch.path("cache")
        let arguments = { (size: Int) in
            ["thumbnails", base + "/a.jpg", "--size", "\(size)", "--output", scratch.path("out"), "--cache", cache, "--json"]
        }
        // A first run makes the cache and its originals' folder, which is then replaced.
        let first = try await HoardTool.run(arguments(16), timeLimit: .seconds(120))
        #expect(first.status == 0, "\(first.standardError)")
        let originals = cache + "/originals"
        #expect(FileManager.default.fileExists(atPath: originals + "/.hoard-cache"))
        try FileManager.default.removeItem(atPath: originals)
        let outside = scratch.path("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        switch replacement {
        case .linkToOutsideFolder: try FileManager.default.createSymbolicLink(atPath: originals, withDestinationPath: outside)
        case .danglingLink: try FileManager.default.createSymbolicLink(atPath: originals, withDestinationPath: scratch.path("nowhere"))
        case .regularFile: try Data("not a folder".utf8).write(to: URL(filePath: originals))
        }
        try FileManager.default.removeItem(atPath: scratch.path("out"))

        // Another size: a new thumbnail, made from the original (downloaded again and kept).
        let second = try await HoardTool.run(arguments(24), timeLimit: .seconds(120))
        await server.stop()
        #expect(second.status == 0, "\(second.standardError)")
        #expect(FileManager.default.fileExists(atPath: scratch.path("out")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty, "written outside through the link")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("nowhere")))
        let attributes = try FileManager.default.attributesOfItem(atPath: originals)
        switch replacement {
        case .linkToOutsideFolder, .danglingLink:
            // The link went (the link only) and the folder is the cache's again.
            #expect(attributes[.type] as? FileAttributeType == .typeDirectory)
            #expect(second.standardError.contains("symbolic link"))
        case .regularFile:
            // Not the cache's to remove: left as it was, and said.
            #expect(try Data(contentsOf: URL(filePath: originals)) == Data("not a folder".utf8))
            #expect(second.standardError.contains("not a folder"))
        }
    }
}
