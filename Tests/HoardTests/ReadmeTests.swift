import Foundation
import Testing

@testable import Hoard

@Suite("README")
struct ReadmeTests {
    @Test("the README's example runs and does what its comments say")
    func exampleRuns() throws {
        // README example: begin
        struct Note: Codable, Cachable { var title: String }  // one line makes a Codable type cachable

        let bytes = try Data(contentsOf: URL(fileURLWithPath: "TestImages/exif-orientation/Landscape_6.jpg"))
        let photo = try Image(data: bytes)  // PNG or JPEG, sniffed; EXIF orientation applied: 1800 x 1200
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

    @Test("the README's storage example runs")
    func storageExampleRuns() async throws {
        // Runs in the real default folder (changing $XDG_CACHE_HOME would race with other tests);
        // it removes what it stores.
        struct Note: Codable, Cachable { var title: String }
        // README storage example: begin
        let hoard = try Hoard(configuration: .init(name: "notes"))  // ~/.cache/hoard/notes; Hoard.shared is "default"
        try await hoard.store(Note(title: "Dune"), forKey: "note/1", expiry: .seconds(3_600))
        let cached = try await hoard.retrieve(Note.self, forKey: "note/1")  // memory, else disk
        let entry = try await hoard.entry(Note.self, forKey: "note/1")  // value, cachedAt, expiresAt, age, source
        try await hoard.remove(forKey: "note/1")
        // README storage example: end
        #expect(hoard.directory == Hoard.Configuration.defaultDirectory(name: "notes"))
        #expect(cached?.title == "Dune")
        #expect(entry?.source == .memory && entry?.expiresAt != nil)
        #expect(try await hoard.retrieve(Note.self, forKey: "note/1") == nil)
    }

    @Test("the README shows exactly the examples this suite runs")
    func readmeMatchesTest() throws {
        let readme = try String(contentsOf: TestFiles.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        func lines(_ text: String, between begin: String, and end: String) -> [String] {
            let all = text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let start = all.firstIndex(where: { $0.contains(begin) }),
                let stop = all[start...].firstIndex(where: { $0.contains(end) })
            else { return [] }
            return all[(start + 1)..<stop].filter { !$0.isEmpty && !$0.hasPrefix("```") && !$0.hasPrefix("import ") }
        }
        for name in ["README example", "README storage example"] {
            let shown = lines(readme, between: "\(name): begin", and: "\(name): end")
            let run = lines(source, between: "// \(name): begin", and: "// \(name): end")
            #expect(shown.count >= 5, "\(name)")
            #expect(shown == run, "\(name)")
        }
    }
}
