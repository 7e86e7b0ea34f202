import Foundation
import Testing

@testable import Hoard

/// With `keep`, the profile travels with the image: through every encoder and through the cache.
@Suite("Colour: keep round trips")
struct ColourRoundTripTests {
    static func kept(_ name: String) throws -> Image {
        var options = Image.DecodingOptions()
        options.colour = .keep
        return try Image(data: TestFiles.testImage("colour/" + name), options: options)
    }

    static func keepDecoding(_ data: Data) throws -> Image {
        var options = Image.DecodingOptions()
        options.colour = .keep
        return try Image(data: data, options: options)
    }

    @Test("JPEG, PNG and WebP embed the profile; decoding with keep gives back the same bytes")
    func encoders() throws {
        let image = try Self.kept("p3.png")
        let profile = try TestFiles.testImage("colour/p3.icc")
        #expect(image.colourProfile?.iccData == profile)
        for encoded in [try image.jpegData(), try image.pngData(), try image.webpData(), try image.webpData(lossless: true)] {
            #expect(try Self.keepDecoding(encoded).colourProfile?.iccData == profile)
        }
        // Lossless formats keep the values too.
        #expect(try Self.keepDecoding(image.pngData()) == image)
        #expect(try Self.keepDecoding(image.webpData(lossless: true)) == image)
        // A profile larger than one APP2 marker is split and reassembled.
        let cmykSized = try Self.kept("gray.png")
        #expect(try Self.keepDecoding(cmykSized.jpegData()).colourProfile == cmykSized.colourProfile)
    }

    @Test("an image stored with its profile comes back from the cache with the same profile bytes and values")
    func throughTheCache() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        // A pixel not quite opaque: stored as PNG, lossless.
        let rgba = try Self.kept("prophoto.png").converted(to: .rgba8)
        var pixels = rgba.pixels
        pixels[3] = 254
        let image = try Image(
            width: rgba.width, height: rgba.height, format: .rgba8, pixels: pixels, colourProfile: rgba.colourProfile)
        try await fixture.hoard.store(image, forKey: "photo")
        fixture.hoard.clearMemory()
        let read = try #require(try await fixture.hoard.retrieve(Image.self, forKey: "photo"))
        #expect(read.colourProfile?.iccData == (try TestFiles.testImage("colour/prophoto.icc")))
        #expect(read == image)
        // A JPEG entry keeps the profile bytes exactly (the values, lossy at quality 90, closely).
        let opaque = try Self.kept("p3.jpg")
        try await fixture.hoard.store(opaque, forKey: "opaque")
        fixture.hoard.clearMemory()
        let readOpaque = try #require(try await fixture.hoard.retrieve(Image.self, forKey: "opaque"))
        #expect(readOpaque.colourProfile == opaque.colourProfile)
        #expect(PixelMath.meanDifference(readOpaque, opaque) < 4)
    }

    @Test("a thumbnail key names its colour setting, and keep thumbnails embed the source's profile")
    func thumbnailKeys() throws {
        let srgb = try ThumbnailKey(source: "https://example.com/a.jpg", size: 64)
        let keep = try ThumbnailKey(source: "https://example.com/a.jpg", size: 64, colour: .keep)
        #expect(srgb.key.contains(" colour=srgb ") && keep.key.contains(" colour=keep ") && srgb != keep)
        let data = try TestFiles.testImage("colour/p3.jpg")
        let kept = try Self.keepDecoding(keep.encoded(keep.thumbnail(from: data)))
        #expect(kept.colourProfile?.iccData == (try TestFiles.testImage("colour/p3.icc")))
        let converted = try Self.keepDecoding(srgb.encoded(srgb.thumbnail(from: data)))
        #expect(converted.colourProfile == nil)
    }
}
