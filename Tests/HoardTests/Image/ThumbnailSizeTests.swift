import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

/// Thumbnail sizes against Pillow's `Image.thumbnail((box, box))`, which `vipsthumbnail` agrees
/// with on the photo that showed the bug (2268 x 1512 into 256: 256 x 171, where Hoard made
/// 256 x 170 from the 284 x 189 DCT-scaled decode).
@Suite("Thumbnail sizes")
struct ThumbnailSizeTests {
    /// (width, height, box, Pillow's width, Pillow's height).
    ///
    /// Generated once with Pillow 13.0.0 by `scripts/pillow-thumbnail-sizes.py`
    /// (`python3 -m venv /tmp/pillow && /tmp/pillow/bin/pip install pillow &&
    /// /tmp/pillow/bin/python scripts/pillow-thumbnail-sizes.py`). Pillow rounds the short side
    /// by aspect ratio, not to nearest: 8 x 3 into 4 is 4 x 2 but 3 x 8 into 4 is 1 x 4.
    static let pillowSizes: [(Int, Int, Int, Int, Int)] = [
        (2268, 1512, 256, 256, 171),
        (1512, 2268, 256, 171, 256),
        (2268, 1512, 100, 100, 67),
        (4000, 3000, 256, 256, 192),
        (1800, 1200, 256, 256, 171),
        (1800, 1200, 100, 100, 67),
        (1, 1000, 10, 1, 10),
        (1000, 1, 10, 10, 1),
        (1, 5000, 256, 1, 256),
        (5000, 1, 256, 256, 1),
        (3, 1000, 256, 1, 256),
        (1000, 3, 256, 256, 1),
        (1001, 999, 1000, 1000, 998),
        (999, 1001, 1000, 998, 1000),
        (1001, 999, 100, 100, 100),
        (999, 1001, 100, 100, 100),
        (7, 5, 4, 4, 3),
        (5, 7, 4, 3, 4),
        (3, 8, 4, 1, 4),
        (8, 3, 4, 4, 2),
        (9, 12, 10, 7, 10),
        (12, 9, 10, 10, 8),
        (3, 2, 2, 2, 1),
        (2, 3, 2, 1, 2),
        (9, 60, 50, 7, 50),
        (60, 9, 50, 50, 8),
        (500, 500, 256, 256, 256),
        (257, 100, 256, 256, 100),
        (256, 100, 256, 256, 100),
        (100, 50, 256, 100, 50),
        (2, 2, 1, 1, 1),
        (1000, 999, 1, 1, 1),
    ]

    /// The cases whose JPEG decodes with DCT scaling (longest side at least twice the box), and
    /// a few that do not, for ``Image/thumbnail(from:fittingIn:options:filter:)``.
    static let jpegCases: [(Int, Int, Int, Int, Int)] = pillowSizes.filter { width, height, box, _, _ in
        [
            (2268, 1512, 256), (1512, 2268, 256), (2268, 1512, 100), (1800, 1200, 100), (1, 5000, 256), (5000, 1, 256),
            (3, 1000, 256), (1000, 3, 256), (1001, 999, 100), (999, 1001, 100), (7, 5, 4), (3, 8, 4), (8, 3, 4),
            (9, 60, 50), (60, 9, 50), (1000, 999, 1), (257, 100, 256),
        ].contains { $0 == (width, height, box) }
    }

    /// A gray gradient, so that the content is not trivial.
    static func gradient(width: Int, height: Int) throws -> Image {
        let pixels = (0..<(width * height)).map { UInt8(truncatingIfNeeded: ($0 % width) * 7 + ($0 / width) * 3) }
        return try Image(width: width, height: height, format: .gray8, pixels: pixels)
    }

    @Test("resized(toFit:) makes Pillow's size", arguments: pillowSizes)
    func resizedToFit(_ testCase: (Int, Int, Int, Int, Int)) throws {
        let (width, height, box, expectedWidth, expectedHeight) = testCase
        let resized = try Self.gradient(width: width, height: height).resized(toFit: box)
        #expect(
            resized.width == expectedWidth && resized.height == expectedHeight,
            "\(width) x \(height) into \(box): \(resized.width) x \(resized.height)")
        #expect(resized.pixels.count == resized.width * resized.height)
    }

    @Test("Image.thumbnail(from:fittingIn:) on JPEG data makes Pillow's size, DCT scaling or not", arguments: jpegCases)
    func thumbnailFromJPEG(_ testCase: (Int, Int, Int, Int, Int)) throws {
        let (width, height, box, expectedWidth, expectedHeight) = testCase
        let jpeg = try Self.gradient(width: width, height: height).jpegData(quality: 90)
        let thumbnail = try Image.thumbnail(from: jpeg, fittingIn: box)
        #expect(
            thumbnail.width == expectedWidth && thumbnail.height == expectedHeight,
            "\(width) x \(height) into \(box): \(thumbnail.width) x \(thumbnail.height)")
    }

    @Test("a 2268 x 1512 photo decodes at 1/4 (567 x 378; 1/8, 284 x 189, when fast) and still comes out 256 x 171, as in Pillow")
    func photoFromScaledDecode() throws {
        let (width, height) = (2268, 1512)
        let pixels = PixelMath.gradient(width: width, height: height) { x, y in UInt8((x + y) * 255 / (width + height)) }
        let jpeg = try Image(width: width, height: height, format: .rgb8, pixels: pixels).jpegData(quality: 90)
        let scaled = try Image(data: jpeg, options: .init(targetSize: 256))
        #expect(scaled.width == 567 && scaled.height == 378, "the decode is DCT-scaled, leaving the filter a factor of two")
        let fast = try Image(data: jpeg, options: .decodingTo(256))
        #expect(fast.width == 284 && fast.height == 189, "fast: the smallest scale covering the box")
        var fastOptions = Image.DecodingOptions()
        fastOptions.decodeScale = .fast
        for filter in Image.ResamplingFilter.allCases {
            let thumbnail = try Image.thumbnail(from: jpeg, fittingIn: 256, filter: filter)
            #expect(thumbnail.width == 256 && thumbnail.height == 171, "\(filter)")
            let fastThumbnail = try Image.thumbnail(from: jpeg, fittingIn: 256, options: fastOptions, filter: filter)
            #expect(fastThumbnail.width == 256 && fastThumbnail.height == 171, "\(filter), fast")
        }
        // The full-size route gives the same size, and nearly the same pixels (smooth content).
        let full = try Image(data: jpeg).resized(toFit: 256)
        let thumbnail = try Image.thumbnail(from: jpeg, fittingIn: 256)
        #expect(full.width == 256 && full.height == 171)
        #expect(PixelMath.meanDifference(full, thumbnail) < 3)
    }

    @Test(
        "EXIF-rotated photos take their size from the upright full size",
        arguments: [
            ("Landscape_1.jpg", 256, 256, 171), ("Landscape_6.jpg", 256, 256, 171), ("Landscape_8.jpg", 100, 100, 67),
        ])
    func orientedPhotos(_ name: String, _ box: Int, _ width: Int, _ height: Int) throws {
        // 1800 x 1200 upright; 6 and 8 are stored as 1200 x 1800 and turned.
        let data = try TestFiles.testImage("exif-orientation/\(name)")
        let thumbnail = try Image.thumbnail(from: data, fittingIn: box)
        #expect(thumbnail.width == width && thumbnail.height == height, "\(thumbnail.width) x \(thumbnail.height)")
        var options = Image.DecodingOptions()
        options.appliesOrientation = false
        let stored = try Image.thumbnail(from: data, fittingIn: box, options: options)
        let turned = name != "Landscape_1.jpg"
        #expect(turned ? stored.width == height && stored.height == width : stored == thumbnail)
    }

    @Test("an image within the box keeps its size and pixels", arguments: [(100, 50, 256), (256, 100, 256), (1, 1, 1)])
    func withinTheBox(_ width: Int, _ height: Int, _ box: Int) throws {
        let image = try Self.gradient(width: width, height: height)
        #expect(try image.resized(toFit: box) == image)
        let png = try image.pngData()
        #expect(try Image.thumbnail(from: png, fittingIn: box) == image)
    }
}
