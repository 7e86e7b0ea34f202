import Foundation
import Hoard
import HoardTestSupport
import Testing

/// `--colour srgb|keep|ignore`: tagged photos become sRGB thumbnails by default; `keep` embeds the
/// source's profile; each setting has a cache key of its own.
@Suite("hoard thumbnails --colour")
struct ColourOptionTests {
    static let photo = testImages.appendingPathComponent("colour/p3.jpg").path

    static func keepDecoding(_ data: Data) throws -> Image {
        var options = Image.DecodingOptions()
        options.colour = .keep
        return try Image(data: data, options: options)
    }

    @Test("srgb (the default) converts and embeds nothing; keep embeds the profile; ignore keeps values untagged")
    func settings() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let profile = try Data(contentsOf: testImages.appendingPathComponent("colour/p3.icc"))
        let converted = try await WebPOutputTests.thumbnail(Self.photo, size: 64, ["--format", "png"], scratch: scratch, out: "srgb")
        let kept = try await WebPOutputTests.thumbnail(
            Self.photo, size: 64, ["--format", "png", "--colour", "keep"], scratch: scratch, out: "keep")
        let ignored = try await WebPOutputTests.thumbnail(
            Self.photo, size: 64, ["--format", "png", "--colour", "ignore"], scratch: scratch, out: "ignore")
        #expect(kept.status == "made" && ignored.status == "made", "each setting is a key of its own")
        let srgbImage = try Self.keepDecoding(converted.data)
        let keptImage = try Self.keepDecoding(kept.data)
        let ignoredImage = try Self.keepDecoding(ignored.data)
        #expect(srgbImage.colourProfile == nil && ignoredImage.colourProfile == nil)
        #expect(keptImage.colourProfile?.iccData == profile)
        // The default is the library's thumbnail; keep and ignore hold the same stored values, and
        // converting keep's gives the default's closely (the tool converts before the filter).
        let library = try ThumbnailKey(file: Self.photo, size: 64, format: .png).thumbnail(
            from: Data(contentsOf: URL(fileURLWithPath: Self.photo)))
        #expect(srgbImage == library)
        #expect(keptImage.pixels == ignoredImage.pixels)
        let later = try keptImage.convertedToSRGB()
        let mean = zip(later.pixels, srgbImage.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(mean) / Double(later.pixels.count) < 1)
        #expect(srgbImage.pixels != ignoredImage.pixels)
    }

    @Test("an unknown --colour value is refused before anything runs")
    func unknownValue() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let outcome = try await HoardTool.run(
            ["thumbnails", Self.photo, "--colour", "cmyk", "--output", scratch.path("out"), "--cache", scratch.path("cache")])
        #expect(outcome.status != 0)
        #expect(outcome.standardError.contains("colour"), "\(outcome.standardError)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")))
    }
}
