import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("Progressive JPEG reading over the shared corpus", .needsCorpus)
struct ProgressiveJPEGCorpusTests {
    static let progressive = CorpusManifest.entries(format: "JPEG", "valid", "valid-extended")
        .filter { $0.note.hasPrefix("progressive") }
    static let allJPEG = CorpusManifest.entries.filter { $0.format == "JPEG" }

    /// The targets that pick 1/8, 1/4 and 1/2 of `image`'s longest side.
    static func targets(longestSide: Int) -> [(denominator: Int, target: Int)] {
        [8, 4, 2].map { ($0, max(1, (longestSide + $0 - 1) / $0)) }
    }

    static func decode(_ data: Data, target: Int, reading: Image.ProgressiveReading) throws -> Image {
        var options = Image.DecodingOptions.decodingTo(target)
        options.progressiveReading = reading
        return try Image(data: data, options: options)
    }

    @Test("every valid progressive file: exact reading matches every scan; nearly exact is within 8 levels at 1/8",
          arguments: progressive)
    func matchesEveryScan(_ entry: CorpusEntry) throws {
        let data = try TestFiles.corpusFile(entry.path)
        let full = try Image(data: data)
        for (denominator, target) in Self.targets(longestSide: max(full.width, full.height)) {
            let everyScan = try Self.decode(data, target: target, reading: .everyScan)
            let exact = try Self.decode(data, target: target, reading: .exact)
            let near = try Self.decode(data, target: target, reading: .nearlyExact)
            #expect(PixelMath.maximumDifference(exact, everyScan) == 0, "1/\(denominator)")
            let limit = denominator == 8 ? 8 : 0
            #expect(PixelMath.maximumDifference(near, everyScan) <= limit, "1/\(denominator)")
        }
    }

    @Test("every JPEG of the corpus, scaled to 1/8 with each reading, decodes or throws a typed error; never more pixels than the limit",
          arguments: allJPEG)
    func hostileFiles(_ entry: CorpusEntry) throws {
        let data = try TestFiles.corpusFile(entry.path)
        for reading in Image.ProgressiveReading.allCases {
            var options = Image.DecodingOptions.decodingTo(16)
            options.progressiveReading = reading
            options.maximumPixelCount = 16_000_000
            do {
                let image = try Image(data: data, options: options)
                #expect(image.width > 0 && image.height > 0 && image.width * image.height <= 16_000_000)
            } catch {
                #expect(!String(describing: error).isEmpty)
            }
        }
    }
}
