import Testing

@testable import HoardImage

/// The expected hashes are those of the `thumbhash` package on PyPI (0.1.2, a port of the format's
/// reference code) for the same pixels.
@Suite("ThumbHash")
struct ThumbHashTests {
    static func image(_ width: Int, _ height: Int, _ pixel: (Int, Int) -> [Int]) throws -> Image {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { pixels += pixel(x, y).map { UInt8($0) } }
        }
        return try Image(width: width, height: height, format: .rgba8, pixels: pixels)
    }

    @Test("opaque images hash as the reference implementation hashes them")
    func reference() throws {
        let gradient = try Self.image(40, 30) { x, y in [x * 6, y * 8, 128, 255] }
        #expect(try gradient.thumbHash() == [158, 7, 10, 53, 152, 112, 119, 119, 128, 136, 136, 119, 136, 120, 136, 136, 112, 128, 7, 247, 136])
        let checks = try Self.image(20, 50) { x, y in [(x / 5 + y / 5) % 2 == 1 ? 255 : 0, 90, 30, 255] }
        #expect(try checks.thumbHash() == [84, 74, 2, 3, 2, 120, 23, 120, 136, 8, 119, 135, 120, 7, 136, 136, 128])
    }

    @Test("transparency sets the alpha bit and adds its byte; large images are scaled first; RGB hashes as opaque RGBA")
    func alphaAndSize() throws {
        let faded = try Self.image(32, 32) { x, _ in [200, 100, 50, x * 8] }
        let hash = try faded.thumbHash()
        #expect(hash[2] & 0x80 != 0)  // bit 23: has alpha
        let opaque = try Self.image(32, 32) { _, _ in [200, 100, 50, 255] }
        #expect(try opaque.thumbHash()[2] & 0x80 == 0 && hash.count > (try opaque.thumbHash()).count)
        let big = try Self.image(400, 300) { x, y in [x % 256, y % 256, 90, 255] }
        #expect((try big.thumbHash()).count <= 25)
        var rgbPixels: [UInt8] = []
        for index in 0..<1200 {
            let (x, y) = (index % 40, index / 40)
            rgbPixels += [UInt8(x * 6), UInt8(y * 8), 128]
        }
        let rgb = try Image(width: 40, height: 30, format: .rgb8, pixels: rgbPixels)
        #expect(try rgb.thumbHash() == (try Self.image(40, 30) { x, y in [x * 6, y * 8, 128, 255] }.thumbHash()))
    }
}
