import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("Encoding")
struct EncodingTests {
    /// A deterministic image with structure in every channel.
    static func pattern(_ format: Image.PixelFormat, width: Int = 37, height: Int = 23) throws -> Image {
        let channels = format.channelCount
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    pixels[(y * width + x) * channels + c] = UInt8(
                        truncatingIfNeeded: x * 7 + y * 13 + c * 71 + (x * y) % 17)
                }
            }
        }
        return try Image(width: width, height: height, format: format, pixels: pixels)
    }

    @Test("PNG round trip is exact for every pixel format", arguments: Image.PixelFormat.allCases)
    func pngRoundTrip(_ format: Image.PixelFormat) throws {
        let image = try Self.pattern(format)
        for level in [0, 6, 9] {
            let data = try image.pngData(compressionLevel: level)
            #expect(ImageFormat(sniffing: data) == .png)
            #expect(try Image(data: data) == image)
        }
    }

    @Test("PNG round trip of a decoded PngSuite image is exact")
    func pngRoundTripOfRealImage() throws {
        let image = try Image(data: TestFiles.testImage("PngSuite/basn6a08.png"))
        #expect(try Image(data: image.pngData()) == image)
    }

    @Test("JPEG encodes at every quality 1...100, and quality buys fidelity")
    func jpegQualities() throws {
        let image = try Image(data: TestFiles.testImage("libjpeg-turbo/testorig.jpg"))
        var sizes: [Int] = []
        var psnrs: [Double] = []
        for quality in 1...100 {
            let data = try image.jpegData(quality: quality)
            #expect(ImageFormat(sniffing: data) == .jpeg)
            let decoded = try Image(data: data)
            #expect(decoded.width == image.width && decoded.height == image.height && decoded.format == .rgb8)
            sizes.append(data.count)
            psnrs.append(PixelMath.psnr(decoded, image))
        }
        #expect(sizes[99] > sizes[49] && sizes[49] > sizes[9] && sizes[9] > sizes[0])
        #expect(psnrs[99] > psnrs[89] && psnrs[89] > psnrs[49] && psnrs[49] > psnrs[9])
    }

    @Test("a real photo at quality 90 comes back at 38 dB or better")
    func jpegPSNRAtQuality90() throws {
        let photo = try Image(data: TestFiles.testImage("exif-orientation/Landscape_1.jpg"))
        #expect(photo.width == 1800 && photo.height == 1200)
        let decoded = try Image(data: photo.jpegData(quality: 90))
        let psnr = PixelMath.psnr(decoded, photo)
        #expect(psnr >= 38, "PSNR \(psnr) dB")
    }

    @Test("gray encodes as gray JPEG; alpha is composited onto white")
    func jpegFormats() throws {
        let gray = try Self.pattern(.gray8)
        #expect(try Image(data: gray.jpegData()).format == .gray8)
        let transparent = try Image(
            width: 16, height: 16, format: .rgba8, pixels: [UInt8](repeating: 0, count: 16 * 16 * 4))
        let decoded = try Image(data: transparent.jpegData(quality: 95))
        #expect(decoded.format == .rgb8)
        #expect(decoded.pixels.allSatisfy { $0 >= 253 }, "transparent black should come out white")
    }

    @Test("bad arguments throw typed errors")
    func badArguments() throws {
        let image = try Self.pattern(.rgb8)
        #expect(throws: ImageError.invalidQuality(0)) { try image.jpegData(quality: 0) }
        #expect(throws: ImageError.invalidQuality(101)) { try image.jpegData(quality: 101) }
        #expect(throws: ImageError.pixelCountMismatch(expected: 12, actual: 11)) {
            try Image(width: 2, height: 2, format: .rgb8, pixels: [UInt8](repeating: 0, count: 11))
        }
        #expect(throws: ImageError.invalidDimensions(width: 0, height: 5)) {
            try Image(width: 0, height: 5, format: .gray8, pixels: [])
        }
        let wide = try Image(width: 70_000, height: 1, format: .gray8, pixels: [UInt8](repeating: 0, count: 70_000))
        let error = #expect(throws: ImageError.self) { try wide.jpegData() }
        guard case .encodingFailed(.jpeg, let message)? = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("65500"))
    }
}
