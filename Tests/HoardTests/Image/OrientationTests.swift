import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("EXIF orientation")
struct OrientationTests {
    /// Decodes at 1/8 scale: orientation does not depend on size, and comparisons get cheap.
    static func decode(_ data: Data, applyingOrientation: Bool = true) throws -> Image {
        var options = Image.DecodingOptions.decodingTo(225)
        options.appliesOrientation = applyingOrientation
        return try Image(data: data, options: options)
    }

    /// Checks that `data` comes out the same way up as `upright`, and that of all eight ways to
    /// turn its stored pixels the one its EXIF tag names is the one that matches.
    static func checkUpright(_ data: Data, upright: Image, name: String) throws {
        let decoded = try decode(data)
        #expect(
            decoded.width == upright.width && decoded.height == upright.height,
            "\(name): \(decoded.width)x\(decoded.height)")
        guard decoded.width == upright.width, decoded.height == upright.height else { return }
        #expect(PixelMath.meanDifference(decoded, upright) < 4, "\(name) is not upright")

        let stored = try decode(data, applyingOrientation: false)
        let differences = Image.Orientation.allCases.map { orientation -> (Image.Orientation, Double) in
            let turned = stored.applyingOrientation(orientation)
            guard turned.width == upright.width else { return (orientation, .infinity) }
            return (orientation, PixelMath.meanDifference(turned, upright))
        }
        let best = differences.min { $0.1 < $1.1 }
        #expect(
            best.map { stored.applyingOrientation($0.0) } == decoded, "\(name): best match \(String(describing: best))")
    }

    @Test("bundled landscapes 1, 6 and 8 come out upright")
    func bundled() throws {
        let upright = try Self.decode(TestFiles.testImage("exif-orientation/Landscape_1.jpg"))
        #expect(upright.width == 225 && upright.height == 150)
        for n in [1, 6, 8] {
            try Self.checkUpright(
                TestFiles.testImage("exif-orientation/Landscape_\(n).jpg"), upright: upright, name: "Landscape_\(n)")
        }
    }

    @Test("uprightSize reads the size from the header, turned as EXIF says, and nil for what is not an image")
    func uprightSizeFromHeader() throws {
        for n in [1, 6, 8] {
            let data = try TestFiles.testImage("exif-orientation/Landscape_\(n).jpg")
            let size = try #require(Image.uprightSize(of: data))
            #expect(size.width == 1800 && size.height == 1200, "Landscape_\(n): \(size)")
        }
        let png = try TestFiles.testImage("PngSuite/basn2c08.png")
        #expect(Image.uprightSize(of: png).map { [$0.width, $0.height] } == [32, 32])
        #expect(Image.uprightSize(of: Data("not an image".utf8)) == nil)
        #expect(Image.uprightSize(of: png.prefix(20)) == nil, "a header cut short")
    }

    @Test("every Landscape_N and Portrait_N comes out upright", .needsCorpus, arguments: ["Landscape", "Portrait"])
    func corpus(_ kind: String) throws {
        let upright = try Self.decode(TestFiles.corpusFile("exif-orientation-examples/\(kind)_1.jpg"))
        for n in 0...8 {
            try Self.checkUpright(
                TestFiles.corpusFile("exif-orientation-examples/\(kind)_\(n).jpg"), upright: upright,
                name: "\(kind)_\(n)")
        }
    }

    @Test("each transform moves pixels where EXIF says")
    func transforms() throws {
        // 3 x 2 image whose pixel values are their stored index:  0 1 2 / 3 4 5
        let image = try Image(width: 3, height: 2, format: .gray8, pixels: [0, 1, 2, 3, 4, 5])
        let expected: [Image.Orientation: [UInt8]] = [
            .up: [0, 1, 2, 3, 4, 5],
            .upMirrored: [2, 1, 0, 5, 4, 3],
            .down: [5, 4, 3, 2, 1, 0],
            .downMirrored: [3, 4, 5, 0, 1, 2],
            .leftMirrored: [0, 3, 1, 4, 2, 5],
            .right: [3, 0, 4, 1, 5, 2],
            .rightMirrored: [5, 2, 4, 1, 3, 0],
            .left: [2, 5, 1, 4, 0, 3],
        ]
        for (orientation, pixels) in expected {
            let turned = image.applyingOrientation(orientation)
            #expect(turned.pixels == pixels, "\(orientation)")
            #expect(turned.width == (orientation.swapsDimensions ? 2 : 3))
        }
    }

    @Test("damaged Exif blocks are ignored, never trusted")
    func damagedExif() {
        let cases: [[UInt8]] = [
            [],
            Array("II*\0".utf8),
            [0x49, 0x49, 0x2A, 0x00, 0xFF, 0xFF, 0xFF, 0x7F],  // IFD offset far past the end
            [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x01, 0x12, 0x00, 0x03],  // entry cut short
            [
                0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0, 0, 0, 1, 0, 9, 0,
                0,
            ],  // value 9
        ]
        for bytes in cases {
            #expect(bytes.withUnsafeBufferPointer { ExifOrientationReader.orientation(in: $0) } == nil, "\(bytes)")
        }
        let valid: [UInt8] = [
            0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0, 0, 0, 1, 0, 6, 0, 0,
        ]
        #expect(valid.withUnsafeBufferPointer { ExifOrientationReader.orientation(in: $0) } == .right)
    }
}
