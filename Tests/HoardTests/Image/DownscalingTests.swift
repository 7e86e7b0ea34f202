import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("Decode-time downscaling")
struct DownscalingTests {
    /// A 12-megapixel JPEG (4000 x 3000) made once for the suite.
    static let twelveMegapixels: Data = {
        let width = 4000, height = 3000
        let pixels = PixelMath.gradient(width: width, height: height) { x, y in UInt8((x / 100 + y / 100) % 2 * 255) }
        // The initializer only fails on a size mismatch, which this loop rules out.
        return (try? Image(width: width, height: height, format: .rgb8, pixels: pixels).jpegData(quality: 85)) ?? Data()
    }()

    @Test(
        "fast: a target size picks the smallest DCT scale that still covers it",
        arguments: [
            (256, 500, 375), (500, 500, 375), (501, 1000, 750), (1000, 1000, 750), (1001, 2000, 1500),
            (2001, 4000, 3000),
        ])
    func fastScaleChoice(_ target: Int, _ width: Int, _ height: Int) throws {
        // The decoder writes straight into a buffer of the scaled size: for 256 px that is
        // 500 x 375 x 3 bytes, never the 36 MB full-size raster.
        var options = Image.DecodingOptions(targetSize: target)
        options.decodeScale = .fast
        let image = try Image(data: Self.twelveMegapixels, options: options)
        #expect(image.width == width && image.height == height)
        #expect(image.pixels.count == width * height * 3)
    }

    @Test(
        "faithful (the default): the smallest DCT scale that still covers twice the target",
        arguments: [
            (128, 500, 375), (250, 500, 375), (251, 1000, 750), (256, 1000, 750), (500, 1000, 750),
            (501, 2000, 1500), (1000, 2000, 1500), (1001, 4000, 3000),
        ])
    func faithfulScaleChoice(_ target: Int, _ width: Int, _ height: Int) throws {
        let image = try Image(data: Self.twelveMegapixels, options: .init(targetSize: target))
        #expect(image.width == width && image.height == height)
        #expect(image.pixels.count == width * height * 3)
    }

    @Test("a 12 MP photo thumbnailed to 256 px")
    func thumbnail() throws {
        let thumbnail = try Image.thumbnail(from: Self.twelveMegapixels, fittingIn: 256)
        #expect(thumbnail.width == 256 && thumbnail.height == 192)
        // The left edge is dark red, the right edge bright red; the gradient survives.
        let left = thumbnail.pixels[(96 * 256 + 2) * 3]
        let right = thumbnail.pixels[(96 * 256 + 253) * 3]
        #expect(left < 10 && right > 245, "\(left) \(right)")
    }

    @Test("scaled decoding stays close to full decoding followed by a box filter")
    func scaledMatchesFull() throws {
        let data = try TestFiles.testImage("exif-orientation/Landscape_1.jpg")
        let scaled = try Image(data: data, options: .init(targetSize: 225))  // 1/4, twice 225: 450 x 300
        #expect(scaled.width == 450 && scaled.height == 300)
        let full = try Image(data: data).resized(width: 450, height: 300, filter: .box)
        #expect(PixelMath.meanDifference(scaled, full) < 3)
    }

    @Test("PNG ignores the target size and decodes at full size")
    func pngIgnoresTarget() throws {
        let image = try Image(data: TestFiles.testImage("PngSuite/PngSuite.png"), options: .init(targetSize: 16))
        #expect(image.width == 256)
    }
}
