import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("WebP encoding")
struct WebPEncodingTests {
    /// The four-character code of a WebP file's first chunk: `VP8 ` (lossy), `VP8L` (lossless) or
    /// `VP8X` (extended: lossy with alpha).
    static func firstChunk(_ data: Data) -> String {
        String(decoding: data.dropFirst(12).prefix(4), as: UTF8.self)
    }

    /// Whether the file holds a chunk with the four-character code `fourCC` anywhere.
    static func contains(_ data: Data, chunk fourCC: String) -> Bool {
        data.range(of: Data(fourCC.utf8)) != nil
    }

    /// What a WebP decodes to for `image`: WebP has no gray, so gray comes back as RGB.
    static func colored(_ image: Image) -> Image {
        image.format.isColor ? image : image.converted(to: image.hasAlpha ? .rgba8 : .rgb8)
    }

    @Test("lossless round trip is exact for every pixel format, in a VP8L file", arguments: Image.PixelFormat.allCases)
    func losslessRoundTrip(_ format: Image.PixelFormat) throws {
        let image = try EncodingTests.pattern(format)
        let data = try image.webpData(lossless: true)
        #expect(ImageFormat(sniffing: data) == .webp)
        #expect(Self.firstChunk(data) == "VP8L")
        #expect(try Image(data: data) == Self.colored(image))
    }

    @Test("lossless keeps the colour under fully transparent pixels")
    func losslessKeepsHiddenColor() throws {
        var pixels = [UInt8]()
        for index in 0..<(20 * 10) {
            pixels += [UInt8(index % 251), UInt8(index * 3 % 256), 200, index % 2 == 0 ? 0 : 255]
        }
        let image = try Image(width: 20, height: 10, format: .rgba8, pixels: pixels)
        #expect(try Image(data: image.webpData(lossless: true)) == image)
        // Lossy is free to change them (libwebp does, to compress better): the option matters.
        let lossy = try Image(data: image.webpData(quality: 100))
        #expect(lossy.format == .rgba8)
        #expect(lossy != image)
    }

    // Tolerance: libwebp's lossy mode at quality 90 on this photo (decoded JPEG, 1800x1200) comes
    // back at about 41.6 dB PSNR, mean error 1.6 levels (measured with Pillow's libwebp 1.6); 36 dB
    // and a mean error under 2.5 leave room for other libwebp versions while still failing on a
    // broken conversion (swapped channels or a wrong stride give under 15 dB).
    @Test("a real photo at quality 90 comes back at 36 dB or better, mean error under 2.5 levels, as a VP8 file")
    func lossyPhoto() throws {
        let photo = try Image(data: TestFiles.testImage("exif-orientation/Landscape_1.jpg"))
        let data = try photo.webpData(quality: 90)
        #expect(Self.firstChunk(data) == "VP8 ")
        let decoded = try Image(data: data)
        #expect(decoded.width == photo.width && decoded.height == photo.height && decoded.format == .rgb8)
        let psnr = PixelMath.psnr(decoded, photo)
        let mean = PixelMath.meanDifference(decoded, photo)
        #expect(psnr >= 36, "PSNR \(psnr) dB")
        #expect(mean < 2.5, "mean absolute error \(mean)")
        #expect(data.count < photo.pixels.count / 10, "\(data.count) bytes")
    }

    @Test("quality buys fidelity and costs bytes")
    func qualities() throws {
        let image = try Image(data: TestFiles.testImage("libjpeg-turbo/testorig.jpg"))
        var sizes: [Int] = []
        var psnrs: [Double] = []
        for quality in [1, 10, 50, 90, 100] {
            let data = try image.webpData(quality: quality)
            sizes.append(data.count)
            psnrs.append(PixelMath.psnr(try Image(data: data), image))
        }
        #expect(sizes == sizes.sorted() && Set(sizes).count == sizes.count, "\(sizes)")
        #expect(psnrs[4] > psnrs[3] && psnrs[3] > psnrs[2] && psnrs[2] > psnrs[0], "\(psnrs)")
    }

    // Tolerance: lossy WebP stores alpha losslessly (libwebp's default alpha_quality 100), so
    // alpha must come back exact; the colour of opaque pixels within 24 dB of a smooth pattern.
    @Test(
        "lossy keeps alpha exactly, in a VP8X file with an ALPH chunk",
        arguments: [Image.PixelFormat.rgba8, .grayAlpha8])
    func lossyAlpha(_ format: Image.PixelFormat) throws {
        let image = try EncodingTests.pattern(format, width: 64, height: 48)
        let data = try image.webpData(quality: 80)
        #expect(Self.firstChunk(data) == "VP8X")
        #expect(Self.contains(data, chunk: "ALPH"))
        let decoded = try Image(data: data)
        let expected = Self.colored(image)
        #expect(decoded.format == .rgba8 && decoded.width == 64 && decoded.height == 48)
        let alpha = { (image: Image) in stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] } }
        #expect(alpha(decoded) == alpha(expected))
    }

    @Test("bad arguments throw typed errors naming the limit")
    func badArguments() throws {
        let image = try EncodingTests.pattern(.rgb8)
        #expect(throws: ImageError.invalidQuality(0)) { try image.webpData(quality: 0) }
        #expect(throws: ImageError.invalidQuality(101)) { try image.webpData(quality: 101, lossless: true) }
        #expect(ImageError.invalidQuality(0).description == "JPEG or WebP quality 0 is outside 1...100")
        let wide = try Image(width: 16_384, height: 1, format: .gray8, pixels: [UInt8](repeating: 0, count: 16_384))
        let error = #expect(throws: ImageError.self) { try wide.webpData() }
        guard case .encodingFailed(.webp, let message)? = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("16383"), "\(message)")
        let widest = try Image(width: 16_383, height: 1, format: .gray8, pixels: [UInt8](repeating: 9, count: 16_383))
        #expect(try Image(data: widest.webpData(lossless: true)).width == 16_383)
    }
}
