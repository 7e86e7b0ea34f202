import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

struct Profile: Codable, Cachable, Equatable {
    var name: String
    var visits: Int
    var tags: [String]
}

@Suite("Cachable")
struct CachableTests {
    @Test(
        "String round-trips as UTF-8",
        arguments: ["", "plain", "héllo wörld", "👩‍👩‍👧 ✨", "nul\0inside", String(repeating: "ß", count: 10_000)])
    func stringRoundTrip(_ value: String) throws {
        let data = try value.encode()
        #expect(data == Data(value.utf8))
        #expect(try String.decode(data) == value)
    }

    @Test("invalid UTF-8 throws with the offset of the first bad byte")
    func invalidUTF8() {
        #expect(throws: CachableError.invalidUTF8(offset: 3, byteCount: 5)) {
            try String.decode(Data([0x61, 0x62, 0x63, 0xFF, 0x64]))
        }
        #expect(throws: CachableError.invalidUTF8(offset: 1, byteCount: 3)) {
            try String.decode(Data([0x61, 0xE2, 0x82]))
        }
        #expect(throws: CachableError.invalidUTF8(offset: 0, byteCount: 2)) { try String.decode(Data([0xC0, 0x80])) }  // overlong NUL
    }

    @Test("Data is stored as is")
    func dataIdentity() throws {
        let bytes = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 * 31) })
        #expect(try bytes.encode() == bytes)
        #expect(try Data.decode(bytes) == bytes)
    }

    @Test("a Codable type conforms in one line and round-trips")
    func codable() throws {
        let profile = Profile(name: "Ada", visits: 3, tags: ["math", "engines"])
        let data = try profile.encode()
        #expect(try Profile.decode(data) == profile)
        #expect(try profile.encode() == data, "equal values encode to equal bytes")
    }

    @Test("bytes of another shape throw decodingFailed naming the type")
    func codableMismatch() throws {
        let error = #expect(throws: CachableError.self) { try Profile.decode(Data("{\"name\": 5}".utf8)) }
        guard case .decodingFailed(let type, let reason)? = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(type.hasSuffix("Profile"))
        #expect(!reason.isEmpty)
        #expect(throws: CachableError.self) { try Int.decode(Data("not a number".utf8)) }
    }

    @Test("arrays and dictionaries of cachable values round-trip")
    func collections() throws {
        let profiles = [Profile(name: "A", visits: 1, tags: []), Profile(name: "B", visits: 2, tags: ["x"])]
        #expect(try [Profile].decode(profiles.encode()) == profiles)
        let byName = ["a": profiles[0], "b": profiles[1]]
        #expect(try [String: Profile].decode(byName.encode()) == byName)
        let nested = ["k": [1, 2, 3], "l": []]
        #expect(try [String: [Int]].decode(nested.encode()) == nested)
        #expect(try [Data].decode([Data([1, 2]), Data()].encode()) == [Data([1, 2]), Data()])
        #expect(try Bool.decode(true.encode()) == true)
        #expect(try Double.decode(2.5.encode()) == 2.5)
    }

    @Test("an image with alpha is cached as PNG, exactly")
    func imageWithAlpha() throws {
        let image = try EncodingTests.pattern(.rgba8)
        let data = try image.encode()
        #expect(ImageFormat(sniffing: data) == .png)
        #expect(try Image.decode(data) == image)
    }

    @Test("an image with an alpha channel that is opaque everywhere is cached as JPEG; one pixel not opaque makes it PNG")
    func opaqueAlpha() throws {
        let opaque = try Image(data: TestFiles.testImage("libjpeg-turbo/testorig.jpg")).converted(to: .rgba8)
        #expect(opaque.hasAlpha && opaque.isOpaque)
        #expect(ImageFormat(sniffing: try opaque.encode()) == .jpeg)
        #expect(try Image.decode(opaque.encode()).format == .rgb8)
        var pixels = opaque.pixels
        pixels[pixels.count - 1] = 254
        let translucent = try Image(width: opaque.width, height: opaque.height, format: .rgba8, pixels: pixels)
        #expect(!translucent.isOpaque)
        #expect(ImageFormat(sniffing: try translucent.encode()) == .png)
        let grayAlpha = try Image(width: 2, height: 1, format: .grayAlpha8, pixels: [10, 255, 20, 255])
        #expect(grayAlpha.isOpaque)
        #expect(try ImageFormat(sniffing: grayAlpha.encode()) == .jpeg)
        // The thumbnail key's auto format follows the same rule.
        let key = try ThumbnailKey(source: "https://example.com/a.png", size: 64)
        #expect(ImageFormat(sniffing: try key.encoded(opaque)) == .jpeg)
        #expect(ImageFormat(sniffing: try key.encoded(translucent)) == .png)
    }

    @Test("an opaque image is cached as JPEG at quality 90")
    func opaqueImage() throws {
        let image = try Image(data: TestFiles.testImage("libjpeg-turbo/testorig.jpg"))
        let data = try image.encode()
        #expect(ImageFormat(sniffing: data) == .jpeg)
        #expect(data == (try image.jpegData(quality: Image.cacheJPEGQuality)))
        let decoded = try Image.decode(data)
        #expect(decoded.width == image.width && PixelMath.psnr(decoded, image) > 35)
    }

    @Test("type identifiers are stable names, composed for collections")
    func typeIdentifiers() {
        #expect(String.cacheTypeIdentifier == "Swift.String")
        #expect(Data.cacheTypeIdentifier == "Foundation.Data")
        #expect(Image.cacheTypeIdentifier == "Hoard.Image")
        #expect([Int].cacheTypeIdentifier == "Swift.Array<Swift.Int>")
        #expect([String: [Profile]].cacheTypeIdentifier == "Swift.Dictionary<Swift.String, Swift.Array<HoardTests.Profile>>")
        #expect(Profile.cacheTypeIdentifier == "HoardTests.Profile")
    }

    @Test("garbage is not an image")
    func imageGarbage() {
        #expect(throws: ImageError.self) { try Image.decode(Data("hello".utf8)) }
    }
}
