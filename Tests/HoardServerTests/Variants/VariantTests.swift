import Foundation
import HoardImage
import Testing

@testable import HoardServer

/// Renderings of imgproxy's options, read back pixel by pixel, and the keys they are cached under.
@Suite("Variant")
struct VariantTests {
    static let red: [UInt8] = [255, 0, 0]
    static let blue: [UInt8] = [0, 0, 255]

    /// A 200 x 100 PNG: the left half red, the right half blue.
    static let halves: Data = {
        var pixels: [UInt8] = []
        for _ in 0..<100 {
            for x in 0..<200 { pixels += x < 100 ? red : blue }
        }
        return try! Image(width: 200, height: 100, format: .rgb8, pixels: pixels).pngData()
    }()

    static func variant(_ path: String, style: ImagePath.Style = .imgproxy, format: ThumbnailKey.Format = .png) throws
        -> Variant
    {
        let options = try ImagePath(parsing: path + "/plain/https://images.example/a.png", style: style).options
        return try Variant(options: options, format: format, sourceName: "https://images.example/a.png", fingerprint: nil)
    }

    static func render(_ path: String) throws -> Image {
        try Image(data: try variant(path).make(from: halves, maximumPixels: 1 << 24))
    }

    static func pixel(_ image: Image, _ x: Int, _ y: Int) -> [UInt8] {
        let channels = image.format.channelCount
        let start = (y * image.width + x) * channels
        return Array(image.pixels[start..<(start + 3)])
    }

    /// Whether every pixel but the outermost two rows and columns (where the resampling filter
    /// reaches past the crop) is within 8 levels of `colour`.
    static func isAll(_ image: Image, _ colour: [UInt8]) -> Bool {
        (2..<(image.height - 2)).allSatisfy { y in
            (2..<(image.width - 2)).allSatisfy { x in
                zip(pixel(image, x, y), colour).allSatisfy { abs(Int($0) - Int($1)) <= 8 }
            }
        }
    }

    @Test("fill keeps the side its gravity names")
    func fillGravity() throws {
        let west = try Self.render("/s/rs:fill:40:40/g:we")
        #expect(west.width == 40 && west.height == 40 && Self.isAll(west, Self.red))
        let east = try Self.render("/s/rs:fill:40:40/g:ea")
        #expect(Self.isAll(east, Self.blue))
    }

    @Test("the smart gravity keeps the detailed part: a checkerboard on the right of a flat image")
    func smart() throws {
        var pixels: [UInt8] = []
        for y in 0..<100 {
            for x in 0..<200 {
                let value: UInt8 = x < 150 ? 128 : ((x / 4 + y / 4) % 2 == 0 ? 0 : 255)
                pixels += [value, value, value]
            }
        }
        let source = try Image(width: 200, height: 100, format: .rgb8, pixels: pixels).pngData()
        let variant = try Self.variant("/s/rs:fill:60:100/g:sm")
        let image = try Image(data: try variant.make(from: source, maximumPixels: 1 << 24))
        #expect(image.width == 60 && image.height == 100)
        // The crop reaches the checkerboard (x 150-199): its right columns are not flat gray.
        #expect(Self.pixel(image, 58, 50) != [128, 128, 128] && Self.pixel(image, 58, 51) != Self.pixel(image, 58, 55))
        let centred = try Image(data: try Self.variant("/s/rs:fill:60:100").make(from: source, maximumPixels: 1 << 24))
        #expect(Self.pixel(centred, 58, 50) == [128, 128, 128])
    }

    @Test("blur softens the edge between the halves, sharpen steepens it; a filter too costly for the size is a 400")
    func filters() throws {
        let plain = try Self.render("/s/rs:force:40:20")
        let blurred = try Self.render("/s/rs:force:40:20/bl:3")
        let sharpened = try Self.render("/s/rs:force:40:20/sh:1")
        // At the edge (x 19 | 20) a blur mixes red into blue and back; far from it nothing changes.
        #expect(Int(Self.pixel(blurred, 18, 10)[2]) > Int(Self.pixel(plain, 18, 10)[2]) + 20)
        #expect(Self.pixel(blurred, 2, 10) == Self.pixel(plain, 2, 10))
        #expect(try Self.variant("/s/rs:force:40:20/bl:3").cacheKey != (try Self.variant("/s/rs:force:40:20").cacheKey))
        // Sharpening steepens the edge: the red of the two pixels either side of it moves apart, never closer.
        let contrast = { (image: Image) in abs(Int(Self.pixel(image, 19, 10)[0]) - Int(Self.pixel(image, 20, 10)[0])) }
        #expect(contrast(sharpened) >= contrast(plain))
        #expect(throws: ServeError.self) {
            try Self.variant("/s/rs:fit:4000:4000:1/bl:100").make(from: Self.halves, maximumPixels: 1 << 26)
        }
        #expect(ProcessingOptions.maximumSigma == Image.maximumFilterSigma, "the request model states the image module's limit")
    }

    @Test("crop before resize keeps the part it names")
    func cropFirst() throws {
        let image = try Self.render("/s/c:80:80:nowe/rs:fit:40:40")
        #expect(image.width == 40 && image.height == 40 && Self.isAll(image, Self.red))
        let relative = try Self.render("/s/c:0.25:0:soea")
        #expect(relative.width == 50 && relative.height == 100 && Self.isAll(relative, Self.blue))
    }

    @Test("extend places the image on a canvas of the background colour")
    func extendCanvas() throws {
        let image = try Self.render("/s/rs:fit:300:300/ex:1:no/bg:00ff00")
        #expect(image.width == 300 && image.height == 300)
        #expect(Self.pixel(image, 150, 250) == [0, 255, 0])
        // The image spans x 50..<250 and y 0..<100 (north, centred across).
        #expect(Self.pixel(image, 10, 10) == [0, 255, 0] && Self.pixel(image, 290, 10) == [0, 255, 0])
        #expect(Self.pixel(image, 60, 10) == Self.red && Self.pixel(image, 240, 90) == Self.blue)
    }

    @Test("force stretches; enlarge scales a small source up; no options keeps the source's size")
    func resizingTypes() throws {
        let forced = try Self.render("/s/rs:force:50:50")
        #expect(forced.width == 50 && forced.height == 50)
        #expect(Self.pixel(forced, 5, 25) == Self.red && Self.pixel(forced, 45, 25) == Self.blue)
        let enlarged = try Self.render("/s/rs:fit:400:400:1")
        #expect(enlarged.width == 400 && enlarged.height == 200)
        let same = try Self.render("/s")
        #expect(same.width == 200 && same.height == 100)
    }

    @Test("two spellings of one rendering share a key; what changes the bytes, or the cache buster, does not")
    func keys() throws {
        let hoardFill = try Self.variant("/s/w:300/h:200/fit:fill", style: .hoard).cacheKey
        #expect(hoardFill == (try Self.variant("/s/rs:fill-down:300:200").cacheKey))
        #expect(hoardFill == (try Self.variant("/s/resizing_type:fill-down/width:150/height:100/dpr:2").cacheKey))
        #expect(hoardFill != (try Self.variant("/s/rs:fill:300:200").cacheKey))
        // The tool's thumbnail: a square fit in either style's spelling.
        let thumbnail = try Self.variant("/s/w:256", style: .hoard)
        #expect(thumbnail.cacheKey == thumbnail.thumbnailKey.key)
        #expect(thumbnail.cacheKey == (try Self.variant("/s/rs:fit:128:128/dpr:2").cacheKey))
        #expect(thumbnail.cacheKey == (try Self.variant("/s/s:256:256/exp:4102444800").cacheKey))
        #expect(thumbnail.cacheKey != (try Self.variant("/s/s:256:256/cb:2").cacheKey))
        #expect(thumbnail.cacheKey != (try Self.variant("/s/w:256").cacheKey))  // imgproxy: a width alone
        var keys: Set<String> = []
        for path in ["/s/rs:fill:300:200/g:no", "/s/rs:fill:300:200/g:no:10", "/s/rs:fill:300:200/g:no:10/dpr:2",
                     "/s/rs:fill:300:200/el:1", "/s/rs:fit:300:200/ex:1", "/s/rs:fit:300:200/mw:400",
                     "/s/rs:fit:300:200/c:10:10", "/s/rs:fit:300:200/bg:ffffff", "/s/rs:fit:300:200/c:10:10:so"] {
            keys.insert(try Self.variant(path).cacheKey)
        }
        #expect(keys.count == 9)
    }
}
