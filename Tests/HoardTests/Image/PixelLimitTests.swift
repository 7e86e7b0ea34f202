import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore
@testable import HoardImage

/// The pixel limit is on what a decode allocates: a JPEG at the DCT scale it decodes at, other
/// formats at full size; headers no scale could bring within it are refused before decoding.
@Suite("Pixel limit")
struct PixelLimitTests {
    @Test("a 100 MP JPEG and a 40000 x 2500 panorama thumbnail at 256 px within the default limit; decoded whole they are refused")
    func largeJPEGs() throws {
        for (width, height) in [(10_000, 10_000), (40_000, 2_500)] {
            let data = try GradientImage.data(width: width, height: height)
            let thumbnail = try Image.thumbnail(from: data, fittingIn: 256)
            #expect(max(thumbnail.width, thumbnail.height) == 256, "\(width) x \(height)")
            #expect(thumbnail.width * height == thumbnail.height * width || abs(thumbnail.width * height - thumbnail.height * width) < max(width, height))
            #expect(throws: ImageError.tooLarge(.jpeg, width: width, height: height, maximumPixelCount: 64_000_000)) {
                _ = try Image(data: data)
            }
        }
    }

    @Test("a JPEG is checked at its scale: within the limit at 1/8, refused when even 1/8 is too large, and its header refused past 64 times the limit")
    func scaledLimit() throws {
        let data = try GradientImage.data(width: 4_000, height: 2_000)  // 8 MP; 500 x 250 at 1/8
        var options = Image.DecodingOptions()
        options.decodeScale = .fast  // the scale that covers the box itself, as the numbers below assume
        options.maximumPixelCount = 130_000
        let thumbnail = try Image.thumbnail(from: data, fittingIn: 64, options: options)
        #expect(thumbnail.width == 64 && thumbnail.height == 32)
        // At 1000 px the scale is 1/4: 1000 x 500 pixels, more than 400,000.
        options.maximumPixelCount = 400_000
        #expect(throws: ImageError.tooLarge(.jpeg, width: 4_000, height: 2_000, maximumPixelCount: 400_000)) {
            _ = try Image.thumbnail(from: data, fittingIn: 1_000, options: options)
        }
        options.maximumPixelCount = 500_000
        #expect(try Image.thumbnail(from: data, fittingIn: 1_000, options: options).width == 1_000)
        options.maximumPixelCount = 100_000  // 8 MP > 64 x 100,000: no scale brings it within
        do {
            _ = try Image.thumbnail(from: data, fittingIn: 64, options: options)
            Issue.record("decoded past the limit")
        } catch {
            #expect("\(error)".contains("declares 4000 x 2000 pixels"), "\(error)")
        }
    }

    @Test("a 100 MP PNG has no decode-time scaling: refused at the default limit, decoded when it is raised")
    func largePNG() throws {
        let data = try GradientImage.data(width: 10_000, height: 10_000, png: true)
        #expect(throws: ImageError.tooLarge(.png, width: 10_000, height: 10_000, maximumPixelCount: 64_000_000)) {
            _ = try Image.thumbnail(from: data, fittingIn: 256)
        }
        var options = Image.DecodingOptions()
        options.maximumPixelCount = 100_000_000
        let thumbnail = try Image.thumbnail(from: data, fittingIn: 256, options: options)
        #expect(thumbnail.width == 256 && thumbnail.height == 256)
    }

    @Test("bombs: a JPEG header declaring 65,000 x 65,000 is refused before any allocation, with or without a target size")
    func jpegBomb() throws {
        var data = try GradientImage.data(width: 16, height: 16)
        // Rewrite the frame header's size (SOF0: FF C0, length, precision, height, width).
        let sof = try #require(data.indices.first { data[$0] == 0xFF && data[$0 + 1] == 0xC0 })
        for (offset, byte) in [(5, 0xFD), (6, 0xE8), (7, 0xFD), (8, 0xE8)] { data[sof + offset] = UInt8(byte) }
        for target in [nil, 256] as [Int?] {
            var options = Image.DecodingOptions()
            options.targetSize = target
            do {
                _ = try Image(data: data, options: options)
                Issue.record("decoded a bomb")
            } catch {
                #expect(error == .tooLarge(.jpeg, width: 65_000, height: 65_000, maximumPixelCount: 64_000_000), "\(error)")
            }
        }
    }
}
