import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore
@testable import HoardImage

/// Every valid WebP, GIF and AVIF file of the shared corpus against its reference decoder, run
/// here through `TestImages/references/make_decoder_references.py decode` (the script that made the
/// core set's references): dwebp, Pillow, avifdec.
@Suite("Corpus against reference decoders")
struct CorpusReferenceTests {
    static let toolsMissing =
        "needs dwebp (apt webp), avifdec (apt libavif-bin) and python3 with Pillow (WebP support) and numpy; not found"

    static let toolsAvailable: Bool = {
        let check = "import numpy, PIL.features; assert PIL.features.check('webp')"
        return ["dwebp", "avifdec"].allSatisfy { run("/usr/bin/env", ["which", $0]) }
            && run("/usr/bin/env", ["python3", "-c", check])
    }()

    /// Larger files are left out: each costs a reference PNG of that size (one valid WebP, 8000 x
    /// 7999 of one colour; its decode is checked by BadInputTests).
    static let largestPixelCount = 16_000_000

    /// WebP and GIF: exact, as for the core set. AVIF: exact too, unlike the core set's committed
    /// references: avifdec here links the same libavif (one Debian source package), so the same
    /// YUV to RGB conversion runs on both sides.
    @Test(
        "every valid file decodes to the reference decoder's pixels", .needsCorpus,
        .enabled(if: toolsAvailable, Comment(rawValue: toolsMissing)), .timeLimit(.minutes(5)),
        arguments: ["WebP", "GIF", "AVIF"])
    func validFilesMatch(_ format: String) throws {
        let corpus = try #require(TestFiles.corpus)
        let entries = CorpusManifest.entries(format: format, "valid").filter { entry in
            let sides = entry.size.split(separator: "x").compactMap { Int($0) }
            return sides.count != 2 || sides[0] * sides[1] <= Self.largestPixelCount
        }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let script = TestFiles.testImages.appendingPathComponent("references/make_decoder_references.py").path
        let paths = entries.map { corpus.appendingPathComponent($0.path).path }
        #expect(Self.run("/usr/bin/env", ["python3", script, "decode", format.lowercased(), folder.path] + paths))
        var exact = 0
        var unreferenced: [String] = []
        for (index, entry) in entries.enumerated() {
            let referenceURL = folder.url.appendingPathComponent("\(index).png")
            guard FileManager.default.fileExists(atPath: referenceURL.path) else {
                unreferenced.append(entry.path)
                continue
            }
            let reference = try Image(data: Data(contentsOf: referenceURL))
            // The script applies AVIF's transforms, as Hoard does; dwebp leaves EXIF orientation to the viewer.
            let data = try TestFiles.corpusFile(entry.path)
            var image = try format == "AVIF" ? DecoderReference.decodeIgnoringColour(data) : DecoderReference.decodeStored(data)
            // Pillow gives an animated WebP without VP8X's alpha flag as RGB, its canvas's alpha dropped.
            if image.hasAlpha, !reference.hasAlpha, format == "WebP" { image = image.converted(to: .rgb8) }
            if DecoderReference.expectMatch(image, reference, tolerance: 0, entry.path)?.maximum == 0 { exact += 1 }
        }
        print("corpus \(format) valid against its reference decoder: \(exact) of \(entries.count) exact")
        // The reference decoders decode every valid file; none may be skipped silently.
        #expect(unreferenced.isEmpty, "no reference for \(unreferenced)")
    }

    /// Runs `executable` with `arguments`, its output discarded; returns whether it exited with 0.
    private static func run(_ executable: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
