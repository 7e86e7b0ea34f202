import Foundation
import Hoard
import HoardTestSupport
import Testing

/// `--format webp`: lossy at `--quality` with alpha kept, lossless when the image has alpha and
/// `--quality` is 100; `.webp` files; a cache key of its own.
@Suite("hoard thumbnails --format webp")
struct WebPOutputTests {
    static let photo = testImages.appendingPathComponent("exif-orientation/Landscape_1.jpg").path
    static let alpha = testImages.appendingPathComponent("PngSuite/basn6a08.png").path

    /// Runs `hoard thumbnails INPUT --size SIZE` with `arguments` into `out`, and returns the one
    /// output file's bytes and the run's status for it (`made` or `fromCache`).
    static func thumbnail(
        _ input: String, size: Int, _ arguments: [String], scratch: Scratch, out: String
    ) async throws -> (data: Data, name: String, status: String) {
        let outcome = try await HoardTool.run(
            [
                "thumbnails", input, "--size", "\(size)", "--output", scratch.path(out), "--cache",
                scratch.path("cache"),
                "--json",
            ] + arguments)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let result = try #require((outcome.summary()["results"] as? [[String: Any]])?.first)
        let path = try #require(result["output"] as? String)
        return (
            try Data(contentsOf: URL(fileURLWithPath: path)), URL(fileURLWithPath: path).lastPathComponent,
            try #require(result["status"] as? String)
        )
    }

    /// Peak signal-to-noise ratio of two images of the same size and format, in decibels.
    static func psnr(_ a: Image, _ b: Image) -> Double {
        precondition(a.pixels.count == b.pixels.count)
        let squares = zip(a.pixels, b.pixels).reduce(0.0) { sum, pair in
            let difference = Double(Int(pair.0) - Int(pair.1))
            return sum + difference * difference
        }
        let mse = squares / Double(max(1, a.pixels.count))
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    @Test("a photo becomes a lossy .webp of the expected size; --quality changes its size; its key is its own")
    func photo() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let jpeg = try await Self.thumbnail(Self.photo, size: 256, ["--format", "jpeg"], scratch: scratch, out: "jpeg")
        #expect(jpeg.name.hasSuffix(".jpg"))
        let webp = try await Self.thumbnail(Self.photo, size: 256, ["--format", "webp"], scratch: scratch, out: "webp")
        #expect(webp.status == "made", "a WebP is not served from the JPEG's cache entry")
        #expect(webp.name.hasSuffix(".webp") && ImageFormat(sniffing: webp.data) == .webp, "\(webp.name)")
        #expect(String(decoding: webp.data.dropFirst(12).prefix(4), as: UTF8.self) == "VP8 ")
        let image = try Image(data: webp.data)
        #expect(image.width == 256 && image.height == 171 && image.format == .rgb8)
        // Tolerance: the same thumbnail, lossy at quality 85: within 30 dB of the exact one.
        let exact = try ThumbnailKey(file: Self.photo, size: 256).thumbnail(
            from: Data(contentsOf: URL(fileURLWithPath: Self.photo)))
        #expect(Self.psnr(image, exact) >= 30, "\(Self.psnr(image, exact)) dB")
        let low = try await Self.thumbnail(
            Self.photo, size: 256, ["--format", "webp", "--quality", "30"], scratch: scratch, out: "low")
        #expect(low.status == "made")
        #expect(low.data.count < webp.data.count, "\(low.data.count) vs \(webp.data.count)")
        let again = try await Self.thumbnail(
            Self.photo, size: 256, ["--format", "webp"], scratch: scratch, out: "again")
        #expect(again.status == "cached" && again.data == webp.data && again.name == webp.name)
    }

    @Test("alpha at --quality 100 is lossless (VP8L, exact pixels); at 99 lossy with alpha kept")
    func alpha() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let source = try Image(data: Data(contentsOf: URL(fileURLWithPath: Self.alpha)))
        #expect(source.format == .rgba8 && source.width == 32)
        let exact = try await Self.thumbnail(
            Self.alpha, size: 32, ["--format", "webp", "--quality", "100"], scratch: scratch, out: "exact")
        #expect(String(decoding: exact.data.dropFirst(12).prefix(4), as: UTF8.self) == "VP8L")
        #expect(try Image(data: exact.data) == source)
        let lossy = try await Self.thumbnail(
            Self.alpha, size: 32, ["--format", "webp", "--quality", "99"], scratch: scratch, out: "lossy")
        #expect(String(decoding: lossy.data.dropFirst(12).prefix(4), as: UTF8.self) == "VP8X")
        let decoded = try Image(data: lossy.data)
        #expect(decoded.format == .rgba8 && decoded.width == 32 && decoded.height == 32)
        let alphaOf = { (image: Image) in stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] } }
        #expect(alphaOf(decoded) == alphaOf(source))
    }
}
