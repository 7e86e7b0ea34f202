import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("AVIF decoding")
struct AVIFDecodingTests {
    /// `grid-32x32-tiles.avif` has no reference: it has a test of its own.
    static let files = DecoderReference.files(in: "avif", suffixes: [".avif", ".avifs"]).filter {
        $0 != "grid-32x32-tiles.avif"
    }

    /// AV1 decoding is normative, so the YUV planes are the same everywhere; the conversion to RGB
    /// is libavif's, and libavif has two: through libyuv (which made the references, as Debian's
    /// libavif links it) and its own. Those two differ by up to 3 on these files (measured with
    /// `avifRGBImage.avoidLibYUV`), so a libavif built without libyuv still passes; with the
    /// library that made the references the match is exact. A wrong matrix, range, bit depth or
    /// chroma position is off by far more.
    static let conversionTolerance = 3

    @Test("the core set covers every subsampling at 8, 10 and 12 bits, alpha, grids, sequences and transforms")
    func coverage() {
        #expect(Self.files.count == 23)
    }

    @Test("decodes as avifdec does, with clap, irot and imir applied", arguments: files)
    func matchesReference(_ name: String) throws {
        let image = try Image(data: TestFiles.testImage("avif/\(name)"))
        let reference = try DecoderReference.image("avif", for: name)
        let tolerance = name.hasPrefix("lossless") ? 0 : Self.conversionTolerance
        DecoderReference.expectMatch(image, reference, tolerance: tolerance, name)
    }

    @Test("4:0:0 decodes to gray, with alpha when there is an alpha item")
    func monochrome() throws {
        #expect(try Image(data: TestFiles.testImage("avif/yuv400-8bit.avif")).format == .gray8)
        #expect(try Image(data: TestFiles.testImage("avif/alpha-yuv400-12bit.avif")).format == .grayAlpha8)
    }

    @Test(
        "irot and imir map to the orientation that turns the stored pixels",
        arguments: [
            ("irot1.avif", Image.Orientation.left), ("irot3-imir1.avif", .leftMirrored), ("imir0.avif", .downMirrored),
            ("clap-irot1-imir0.avif", .leftMirrored), ("clop_irot_imor.avif", .left),
        ])
    func transforms(_ name: String, _ orientation: Image.Orientation) throws {
        let data = try TestFiles.testImage("avif/\(name)")
        let stored = try DecoderReference.decodeStored(data)
        #expect(try Image(data: data) == stored.applyingOrientation(orientation), "\(name)")
    }

    @Test("each irot and imir combination turns pixels as rotating anticlockwise, then mirroring, does")
    func orientationMapping() throws {
        // 3 x 2, each pixel its stored index: 0 1 2 / 3 4 5
        let image = try Image(width: 3, height: 2, format: .gray8, pixels: [0, 1, 2, 3, 4, 5])
        for turns in 0..<4 {
            for axis in [nil, 0, 1] as [Int?] {
                var expected = image
                for _ in 0..<turns { expected = Self.rotatedAnticlockwise(expected) }
                if let axis { expected = Self.mirrored(expected, axis: axis) }
                let orientation = Image.Orientation(quarterTurnsAnticlockwise: turns, mirrorAxis: axis)
                #expect(
                    image.applyingOrientation(orientation) == expected,
                    "irot \(turns), imir \(String(describing: axis))")
            }
        }
    }

    @Test("a clean aperture crops RGB, odd offsets on 4:2:0 too; an invalid one is ignored with a warning")
    func cleanAperture() throws {
        for name in ["clap-yuv420-odd.avif", "clap-yuv444-odd.avif"] {
            let image = try Image(data: TestFiles.testImage("avif/\(name)"))
            #expect(image.width == 41 && image.height == 29, "\(name)")
        }
        let invalid = try TestFiles.testImage("avif/clap-invalid.avif")
        let (image, warnings) = try Image.decodeReportingWarnings(invalid)
        #expect(image.width == 64 && image.height == 48)
        let message = "AVIF clean aperture (clap) is not a window inside the 64 x 48 image; ignored"
        #expect(warnings == [message])
        var strict = Image.DecodingOptions()
        strict.treatsWarningsAsErrors = true
        #expect(throws: ImageError.malformed(.avif, message: message)) { try Image(data: invalid, options: strict) }
    }

    @Test("a thumbnail is sized from the cropped, turned image")
    func thumbnail() throws {
        let data = try TestFiles.testImage("avif/clap-irot1-imir0.avif")  // 40 x 28 after clap, then turned
        let thumbnail = try Image.thumbnail(from: data, fittingIn: 20)
        #expect(thumbnail.width == 14 && thumbnail.height == 20)
    }

    /// `data` with the first `ispe` property (the primary item's, in these files) set to `width` x `height`.
    static func declaring(_ data: Data, width: UInt32, height: UInt32) throws -> Data {
        var bytes = [UInt8](data)
        let ispe = try #require(bytes.indices.first { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual("ispe".utf8) })
        let size = withUnsafeBytes(of: width.bigEndian, Array.init) + withUnsafeBytes(of: height.bigEndian, Array.init)
        bytes.replaceSubrange(ispe + 8..<ispe + 16, with: size)
        return Data(bytes)
    }

    @Test("the pixel limit is checked on the declared size before decoding, and on every AV1 frame")
    func pixelLimit() throws {
        let data = try TestFiles.testImage("avif/yuv420-8bit.avif")
        var options = Image.DecodingOptions()
        options.maximumPixelCount = 64 * 48 - 1
        #expect(throws: ImageError.tooLarge(.avif, width: 64, height: 48, maximumPixelCount: 64 * 48 - 1)) {
            try Image(data: data, options: options)
        }
        // Over Hoard's limit only, and over libavif's own ceiling (16384 x 16384) too.
        for side: UInt32 in [9000, 30000] {
            let huge = try Self.declaring(data, width: side, height: side)
            #expect(
                throws: ImageError.tooLarge(.avif, width: Int(side), height: Int(side), maximumPixelCount: 64_000_000)
            ) { try Image(data: huge) }
        }
        // The container claims 8 x 8, within a limit of 100 pixels; the AV1 frame is 64 x 48, and
        // the AV1 decoder is held to the same limit: refused before its frame is allocated.
        options.maximumPixelCount = 100
        let lying = try Self.declaring(data, width: 8, height: 8)
        let error = #expect(throws: ImageError.self) { try Image(data: lying, options: options) }
        guard case .malformed(.avif, let message)? = error else {
            Issue.record("expected malformed AVIF, got \(String(describing: error))")
            return
        }
        #expect(message.hasPrefix("avifDecoderNextImage: Decoding of color planes failed"), "\(message)")
    }

    /// libavif 0.11 gives every grid tile an AV1 decoder of its own (about 0.4 MB with dav1d): a
    /// 650 KB file naming 14,400 tiles of 64 x 64, within a 64 MP limit, took 6 GB.
    @Test("a grid of more tiles than the pixel limit allows (one per 65,536 pixels) is refused before decoding")
    func gridTileLimit() throws {
        let data = try TestFiles.testImage("avif/grid-32x32-tiles.avif")  // 1024 tiles, 2048 x 2048
        let message = "AVIF grids name 1024 tiles, more than the 976 this pixel limit allows (each is an AV1 decoder)"
        #expect(throws: ImageError.unsupported(.avif, message: message)) { try Image(data: data) }
        var options = Image.DecodingOptions()
        options.maximumPixelCount = 1024 * 65536
        let image = try Image(data: data, options: options)
        #expect(image.width == 2048 && image.height == 2048)
    }

    @Test("a HEIC file is not taken for AVIF")
    func heicIsRefused() throws {
        var ftyp: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
        ftyp += [UInt8](repeating: 0, count: 64)
        #expect(throws: ImageError.unrecognizedFormat(leadingBytes: Array(ftyp.prefix(8)))) {
            try Image(data: Data(ftyp))
        }
    }

    @Test(
        "every truncation throws, never decodes wrong pixels",
        arguments: ["yuv420-8bit.avif", "alpha-yuv420-8bit.avif"])
    func everyTruncation(_ name: String) throws {
        let data = try TestFiles.testImage("avif/\(name)")
        for length in 1..<data.count {
            do {
                let image = try Image(data: data.prefix(length))
                Issue.record("\(name) cut at \(length) of \(data.count) decoded \(image.width)x\(image.height)")
            } catch .unrecognizedFormat {
                #expect(length < 16)
            } catch .truncated(.avif, let message), .malformed(.avif, let message) {
                #expect(!message.isEmpty)
            } catch {
                Issue.record("\(name) cut at \(length): unexpected \(error)")
            }
        }
    }

    // MARK: - Private

    /// Turned a quarter anticlockwise: column x of `image` becomes row (width - 1 - x).
    private static func rotatedAnticlockwise(_ image: Image) -> Image {
        let (w, h) = (image.width, image.height)
        let pixels = (0..<w).flatMap { row in (0..<h).map { column in image.pixels[column * w + (w - 1 - row)] } }
        return Image(unchecked: h, height: w, format: .gray8, pixels: pixels)
    }

    /// Axis 0 exchanges top and bottom, axis 1 left and right.
    private static func mirrored(_ image: Image, axis: Int) -> Image {
        let (w, h) = (image.width, image.height)
        let pixels = (0..<h).flatMap { y in
            (0..<w).map { x in axis == 0 ? image.pixels[(h - 1 - y) * w + x] : image.pixels[y * w + (w - 1 - x)] }
        }
        return Image(unchecked: w, height: h, format: .gray8, pixels: pixels)
    }
}
