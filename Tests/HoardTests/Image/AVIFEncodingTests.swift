import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("AVIF encoding")
struct AVIFEncodingTests {
    static let photo = try! Image(
        width: 160, height: 120, format: .rgb8, pixels: PixelMath.gradient(width: 160, height: 120) { x, y in
            UInt8((x + y) * 255 / 280)
        })

    @Test("a round trip decodes to the picture: close at quality 90, further at 30, smaller at lower quality")
    func roundTrip() throws {
        let high = try Self.photo.avifData(quality: 90)
        let low = try Self.photo.avifData(quality: 30)
        #expect(ImageFormat(sniffing: high) == .avif)
        let decodedHigh = try Image(data: high)
        let decodedLow = try Image(data: low)
        #expect(decodedHigh.width == 160 && decodedHigh.height == 120 && decodedHigh.format == .rgb8)
        #expect(PixelMath.psnr(decodedHigh, Self.photo) > 38)
        #expect(PixelMath.psnr(decodedLow, Self.photo) > 24)
        #expect(PixelMath.psnr(decodedHigh, Self.photo) > PixelMath.psnr(decodedLow, Self.photo))
        #expect(low.count < high.count)
    }

    @Test("alpha is kept; gray is encoded as colour")
    func alphaAndGray() throws {
        var pixels: [UInt8] = []
        for index in 0..<(48 * 32) { pixels += [200, 40, 40, index % 48 < 24 ? 255 : 0] }
        let translucent = try Image(width: 48, height: 32, format: .rgba8, pixels: pixels)
        let decoded = try Image(data: try translucent.avifData(quality: 80))
        #expect(decoded.format == .rgba8)
        #expect(decoded.pixels[3] > 240 && decoded.pixels[(47) * 4 + 3] < 15)
        let gray = try Image(width: 16, height: 16, format: .gray8, pixels: [UInt8](repeating: 128, count: 256))
        let grayDecoded = try Image(data: try gray.avifData())
        #expect(grayDecoded.format.isColor && abs(Int(grayDecoded.pixels[0]) - 128) <= 3)
    }

    @Test("quality and speed out of range are refused before encoding")
    func outOfRange() {
        #expect(throws: ImageError.invalidQuality(0)) { try Self.photo.avifData(quality: 0) }
        #expect(throws: ImageError.invalidQuality(101)) { try Self.photo.avifData(quality: 101) }
        #expect(throws: ImageError.self) { try Self.photo.avifData(speed: 11) }
        #expect(throws: ImageError.self) { try Self.photo.avifData(speed: -1) }
    }

    @Test("the colour profile travels with the image")
    func profile() throws {
        let profile = try ColourProfile(iccData: TestFiles.testImage("colour/p3.icc"))
        let tagged = try Image(width: 8, height: 8, format: .rgb8, pixels: [UInt8](repeating: 90, count: 192), colourProfile: profile)
        var options = Image.DecodingOptions()
        options.colour = .keep
        let decoded = try Image(data: try tagged.avifData(), options: options)
        #expect(decoded.colourProfile?.bytes == profile.bytes)
    }
}
