import Foundation
import Hoard
import HoardTestSupport
import Testing

/// `--decode-scale faithful|fast`: faithful by default; fast is opt-in, gives the library's fast
/// thumbnail, and has a cache key of its own, so that one is never served for the other.
@Suite("hoard thumbnails --decode-scale")
struct DecodeScaleOptionTests {
    /// A 1024 x 640 crop of a textured photo: at 256 px, faithful decodes at 1/2 and fast at 1/4.
    static let photo = testImages.appendingPathComponent("fidelity/OneStandsOut.jpg").path

    @Test("faithful (the default) and fast are each made once, cached apart, and are the library's thumbnails")
    func keyedApart() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let png = ["--format", "png"]
        let faithful = try await WebPOutputTests.thumbnail(Self.photo, size: 256, png, scratch: scratch, out: "faithful")
        let fast = try await WebPOutputTests.thumbnail(
            Self.photo, size: 256, png + ["--decode-scale", "fast"], scratch: scratch, out: "fast")
        #expect(faithful.status == "made" && fast.status == "made", "each setting is a key of its own")
        let again = try await WebPOutputTests.thumbnail(
            Self.photo, size: 256, png + ["--decode-scale", "faithful"], scratch: scratch, out: "again")
        let fastAgain = try await WebPOutputTests.thumbnail(
            Self.photo, size: 256, png + ["--decode-scale", "fast"], scratch: scratch, out: "fast-again")
        #expect(again.status == "cached" && again.data == faithful.data)
        #expect(fastAgain.status == "cached" && fastAgain.data == fast.data)
        let source = try Data(contentsOf: URL(fileURLWithPath: Self.photo))
        for (made, scale) in [(faithful, Image.DecodeScale.faithful), (fast, .fast)] {
            let key = try ThumbnailKey(file: Self.photo, size: 256, format: .png, decodeScale: scale)
            #expect(try Image(data: made.data) == key.thumbnail(from: source), "\(scale)")
        }
        #expect(faithful.data != fast.data)
    }

    @Test("an unknown --decode-scale value is refused before anything runs")
    func unknownValue() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let outcome = try await HoardTool.run(
            ["thumbnails", Self.photo, "--size", "64", "--decode-scale", "quick", "--output", scratch.path("out"), "--cache", scratch.path("cache")])
        #expect(outcome.status == 64)
        #expect(outcome.standardError.contains("decode-scale"), "\(outcome.standardError)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")))
    }
}
