import Foundation
import Hoard
import Testing

/// A thumbnail that becomes a JPEG is capped at libjpeg's 65,500 pixels per side, a WebP at
/// libwebp's 16,383, whatever `--size` allows; a PNG keeps its size.
@Suite("hoard thumbnails JPEG size cap")
struct JPEGSizeCapTests {
    @Test(
        "a 100000-pixel side becomes 65500 in a JPEG (--format jpeg or auto), 16383 in a WebP, and stays 100000 in a PNG",
        arguments: [(100_000, 1), (1, 100_000)])
    func longSide(_ width: Int, _ height: Int) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let pixels = (0..<(width * height * 3)).map { UInt8(truncatingIfNeeded: $0 * 31) }
        let input = scratch.path("strip.png")
        try Image(width: width, height: height, format: .rgb8, pixels: pixels).pngData()
            .write(to: URL(fileURLWithPath: input))
        let capped = (width == 1 ? 1 : 65_500, height == 1 ? 1 : 65_500)
        let webp = (width == 1 ? 1 : 16_383, height == 1 ? 1 : 16_383)
        for (format, expected, kind) in [
            ("jpeg", capped, ImageFormat.jpeg), ("auto", capped, .jpeg), ("png", (width, height), .png),
            ("webp", webp, .webp),
        ] {
            let outcome = try await HoardTool.run(
                [
                    "thumbnails", input, "--size", "100000", "--format", format, "--output",
                    scratch.path("out-\(format)"), "--cache", scratch.path("cache"), "--json",
                ], timeLimit: .seconds(120))
            #expect(outcome.status == 0, "\(format): \(outcome.standardError)")
            let result = try #require((outcome.summary()["results"] as? [[String: Any]])?.first)
            let data = try Data(contentsOf: URL(fileURLWithPath: try #require(result["output"] as? String)))
            #expect(ImageFormat(sniffing: data) == kind, "\(format)")
            let image = try Image(data: data)
            #expect(
                image.width == expected.0 && image.height == expected.1, "\(format): \(image.width)x\(image.height)")
        }
    }
}
