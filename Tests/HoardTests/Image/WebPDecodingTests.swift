import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("WebP decoding")
struct WebPDecodingTests {
    static let files = DecoderReference.files(in: "webp", suffixes: [".webp"])

    @Test("the core set covers lossy, lossless, alpha, animation and EXIF")
    func coverage() {
        #expect(Self.files.count == 20)
    }

    /// Exact: VP8 and VP8L decoding are specified to the bit, and libwebp's YUV to RGB conversion
    /// is integer code that its SIMD paths and releases share (this libwebp 1.2.4 matched Pillow's
    /// bundled libwebp 1.6.0 on every valid WebP of the shared corpus).
    @Test("decodes exactly as dwebp (an animation's first frame as Pillow composes it)", arguments: files)
    func matchesReference(_ name: String) throws {
        let image = try DecoderReference.decodeStored(TestFiles.testImage("webp/\(name)"))
        try DecoderReference.expectMatch(image, DecoderReference.image("webp", for: name), tolerance: 0, name)
    }

    @Test(
        "a target size scales while decoding, by the largest power of two that still covers it",
        arguments: [
            ("test.webp", 32, 32, 32), ("small_31x13.webp", 8, 8, 4), ("lossy_alpha4.webp", 30, 50, 50),
            ("lossless4.webp", 100, 128, 128), ("test.webp", 200, 128, 128),
        ])
    func scaledDecoding(_ name: String, _ target: Int, _ width: Int, _ height: Int) throws {
        let data = try TestFiles.testImage("webp/\(name)")
        let image = try Image(data: data, options: .decodingTo(target))
        #expect(image.width == width && image.height == height, "\(name) at \(target)")
        guard width != 128 || name != "test.webp" else { return }  // full size: checked above
        let reference = try DecoderReference.image("webp", for: name, variant: ".scaled-\(width)x\(height)")
        DecoderReference.expectMatch(image, reference, tolerance: 0, "\(name) scaled to \(width) x \(height)")
    }

    @Test("a thumbnail is sized from the full image, then resampled from the scaled decode")
    func thumbnail() throws {
        let data = try TestFiles.testImage("webp/small_31x13.webp")
        let thumbnail = try Image.thumbnail(from: data, fittingIn: 8)
        // Pillow's thumbnail() of 31 x 13 into 8: 8 x 3 (the decode was 8 x 4).
        #expect(thumbnail.width == 8 && thumbnail.height == 3)
    }

    @Test("an animation decodes to its first frame on a transparent canvas, at full size")
    func animationFirstFrame() throws {
        // Frame 1 is 64 x 44 at (0, 4) on a 64 x 48 canvas: the top four rows stay transparent.
        let data = try TestFiles.testImage("webp/anim_img2webp_mixed.webp")
        let image = try Image(data: data, options: .decodingTo(8))
        #expect(image.width == 64 && image.height == 48 && image.format == .rgba8)
        #expect(image.pixels.prefix(64 * 4 * 4).allSatisfy { $0 == 0 })
        #expect(image.pixels[(4 * 64 * 4)...].enumerated().contains { $0.offset % 4 == 3 && $0.element == 255 })
    }

    @Test("an animation cut after its first frame still decodes it; cut inside it, throws")
    func truncatedAnimation() throws {
        let data = try TestFiles.testImage("webp/anim_img2webp_mixed.webp")
        let full = try Image(data: data)
        // VP8X (30 bytes), ANIM (14), then the first ANMF: 8-byte header plus its 116-byte payload.
        let firstFrameEnd = 30 + 14 + 8 + 116
        #expect(try Image(data: data.prefix(firstFrameEnd)) == full)
        for length in [firstFrameEnd - 1, firstFrameEnd - 60, 52] {
            #expect(throws: ImageError.self, "cut at \(length)") { try Image(data: data.prefix(length)) }
        }
    }

    @Test("EXIF orientation 3, 6 and 8 come out upright, as the tag says", arguments: [3, 6, 8])
    func exifOrientation(_ value: Int) throws {
        let upright = try Image(data: TestFiles.testImage("webp/hopper.webp"))
        let data = try TestFiles.testImage("webp/hopper_orientation_\(value).webp")
        try OrientationTests.checkUpright(data, upright: upright, name: "hopper_orientation_\(value)")
        #expect(
            try Image(data: data)
                == DecoderReference.decodeStored(data).applyingOrientation(
                    try #require(Image.Orientation(rawValue: value))))
    }

    @Test("EXIF among ICC and XMP chunks: orientation 6 turns 64 x 48 into 48 x 64")
    func exifAmongMetadata() throws {
        let data = try TestFiles.testImage("webp/lossy_icc_exif_orientation6_xmp.webp")
        let image = try Image(data: data)
        #expect(image.width == 48 && image.height == 64)
        let thumbnail = try Image.thumbnail(from: data, fittingIn: 16)
        #expect(thumbnail.width == 12 && thumbnail.height == 16)
    }

    /// A simple-format lossless file that is only a header declaring `width` x `height`.
    static func losslessHeader(width: Int, height: Int) -> Data {
        let bits = UInt32(width - 1) | UInt32(height - 1) << 14
        let vp8l: [UInt8] = [0x2F] + withUnsafeBytes(of: bits.littleEndian, Array.init) + [0, 0, 0]
        let chunk = Array("VP8L".utf8) + withUnsafeBytes(of: UInt32(vp8l.count).littleEndian, Array.init) + vp8l
        return Data(
            Array("RIFF".utf8) + withUnsafeBytes(of: UInt32(4 + chunk.count).littleEndian, Array.init)
                + Array("WEBP".utf8) + chunk)
    }

    /// An extended file that is only its VP8X chunk, declaring a `width` x `height` canvas.
    static func extendedHeader(width: Int, height: Int) -> Data {
        func le24(_ value: Int) -> [UInt8] {
            [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
        }
        let vp8x = Array("VP8X".utf8) + [10, 0, 0, 0, 0x10, 0, 0, 0] + le24(width - 1) + le24(height - 1)
        return Data(Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBP".utf8) + vp8x)
    }

    @Test("the pixel limit is checked on the declared size, before anything is decoded")
    func pixelLimit() throws {
        #expect(throws: ImageError.tooLarge(.webp, width: 16384, height: 16384, maximumPixelCount: 64_000_000)) {
            try Image(data: Self.losslessHeader(width: 16384, height: 16384))
        }
        // A VP8X canvas of 2^24 x 2^24, which libwebp itself refuses as a bitstream error.
        #expect(
            throws: ImageError.tooLarge(.webp, width: 16_777_216, height: 16_777_216, maximumPixelCount: 64_000_000)
        ) { try Image(data: Self.extendedHeader(width: 16_777_216, height: 16_777_216)) }
        var options = Image.DecodingOptions()
        options.maximumPixelCount = 128 * 128 - 1
        #expect(throws: ImageError.tooLarge(.webp, width: 128, height: 128, maximumPixelCount: 128 * 128 - 1)) {
            try Image(data: TestFiles.testImage("webp/test.webp"), options: options)
        }
    }

    @Test("errors carry libwebp's status")
    func libraryMessage() throws {
        var data = try TestFiles.testImage("webp/vp8l_1x1_handmade.webp")
        data[20] = 0x2E  // the VP8L signature byte
        let error = #expect(throws: ImageError.self) { try Image(data: data) }
        guard case .malformed(.webp, let message)? = error else {
            Issue.record("expected malformed WebP, got \(String(describing: error))")
            return
        }
        #expect(message == "WebPGetFeatures failed: BITSTREAM_ERROR (status 3)")
    }

    @Test(
        "every truncation of a still image throws, never decodes wrong pixels",
        arguments: ["lossy_alpha4.webp", "small_31x13.webp", "lossless_vec_1_15.webp"])
    func everyTruncation(_ name: String) throws {
        let data = try TestFiles.testImage("webp/\(name)")
        for length in 1..<data.count {
            do {
                let image = try Image(data: data.prefix(length))
                Issue.record("\(name) cut at \(length) of \(data.count) decoded \(image.width)x\(image.height)")
            } catch .unrecognizedFormat {
                #expect(length < 12)
            } catch .truncated(.webp, let message), .malformed(.webp, let message) {
                #expect(!message.isEmpty)
            } catch {
                Issue.record("\(name) cut at \(length): unexpected \(error)")
            }
        }
    }
}
