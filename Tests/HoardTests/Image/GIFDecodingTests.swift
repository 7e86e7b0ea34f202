import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("GIF decoding")
struct GIFDecodingTests {
    /// `pixel_index_beyond_palette.gif` has no reference: it has a test of its own.
    static let files = DecoderReference.files(in: "gif", suffixes: [".gif"]).filter {
        $0 != "pixel_index_beyond_palette.gif"
    }

    static let palette: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]]

    @Test("the core set covers interlacing, local and global palettes, transparency and animation")
    func coverage() {
        #expect(Self.files.count == 16)
    }

    /// Exact: a GIF pixel is a palette entry, with no arithmetic to round.
    @Test(
        "decodes exactly as Pillow's first frame (uncovered canvas and transparent colour as transparent black)",
        arguments: files)
    func matchesReference(_ name: String) throws {
        let image = try Image(data: TestFiles.testImage("gif/\(name)"))
        try DecoderReference.expectMatch(image, DecoderReference.image("gif", for: name), tolerance: 0, name)
    }

    @Test("interlaced and sequential images with the same rows decode alike", arguments: [1, 2, 3, 5, 8, 9, 17])
    func interlacing(_ height: Int) throws {
        let indices = (0..<height).flatMap { row in [UInt8](repeating: UInt8(row % 4), count: 3) }
        var interlaced = GIFBuilder(width: 3, height: height, palette: Self.palette)
        interlaced.image(width: 3, height: height, indices: indices, interlaced: true)
        var sequential = GIFBuilder(width: 3, height: height, palette: Self.palette)
        sequential.image(width: 3, height: height, indices: indices)
        let image = try Image(data: interlaced.finished())
        #expect(image == (try Image(data: sequential.finished())))
        #expect(image.format == .rgb8 && Array(image.pixels.suffix(3)) == Self.palette[(height - 1) % 4])
    }

    /// 256 colours from a fixed mix of the index's bits.
    static let colours: [[UInt8]] = (0..<256).map { (index: Int) -> [UInt8] in
        let green: Int = (index * 37) & 0xFF
        let blue: Int = (index * 101 + 7) & 0xFF
        return [UInt8(index), UInt8(green), UInt8(blue)]
    }

    /// `image` (RGB) shrunk by `denominator`: each pixel the mean of its block, rounded half up,
    /// the blocks on the right and bottom edges as far as the image goes.
    static func blockMeans(of image: Image, denominator: Int) -> [UInt8] {
        let width = (image.width + denominator - 1) / denominator
        let height = (image.height + denominator - 1) / denominator
        var pixels: [UInt8] = []
        for outY in 0..<height {
            for outX in 0..<width {
                let rows = outY * denominator..<min(image.height, (outY + 1) * denominator)
                let columns = outX * denominator..<min(image.width, (outX + 1) * denominator)
                for channel in 0..<3 {
                    var sum = 0
                    for y in rows {
                        for x in columns { sum += Int(image.pixels[(y * image.width + x) * 3 + channel]) }
                    }
                    let count = rows.count * columns.count
                    pixels.append(UInt8((sum + count / 2) / count))
                }
            }
        }
        return pixels
    }

    @Test(
        "a target size shrinks an opaque GIF while decoding, by the largest power of two that covers it",
        arguments: [
            (37, 23, 5, 8, false), (37, 23, 5, 8, true), (64, 64, 16, 4, true), (64, 64, 17, 2, false),
            (9, 200, 100, 2, true), (300, 7, 2, 256, false), (300, 7, 1, 1 << 24, true), (8200, 2, 1, 1 << 24, false),
            (33, 33, 33, 1, true),
        ])
    func shrinkingWhileDecoding(_ width: Int, _ height: Int, _ target: Int, _ denominator: Int, _ interlaced: Bool)
        throws
    {
        var state: UInt32 = 0x2545_F491
        let indices = (0..<width * height).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
        var gif = GIFBuilder(width: width, height: height, palette: Self.colours)
        gif.image(width: width, height: height, indices: indices, interlaced: interlaced)
        let data = gif.finished()
        let full = try Image(data: data)
        let shrunk = try Image(data: data, options: .decodingTo(target))
        let label = "\(width) x \(height) to \(target), interlaced: \(interlaced)"
        #expect(shrunk.width == (width + denominator - 1) / denominator, "\(label)")
        #expect(shrunk.height == (height + denominator - 1) / denominator, "\(label)")
        #expect(shrunk.format == .rgb8)
        #expect(shrunk.pixels == Self.blockMeans(of: full, denominator: denominator), "\(label)")
    }

    @Test("a GIF with a transparent colour, or a first image smaller than its canvas, is decoded whole")
    func noShrinkingWithAlpha() throws {
        var transparent = GIFBuilder(width: 40, height: 40, palette: Self.palette)
        transparent.graphicControl(transparentIndex: 1)
        transparent.image(width: 40, height: 40, indices: (0..<1600).map { UInt8($0 % 4) })
        var partial = GIFBuilder(width: 40, height: 40, palette: Self.palette)
        partial.image(left: 1, top: 0, width: 39, height: 40, indices: (0..<1560).map { UInt8($0 % 4) })
        for data in [transparent.finished(), partial.finished()] {
            let image = try Image(data: data, options: .decodingTo(4))
            #expect(image.width == 40 && image.height == 40 && image.format == .rgba8)
            #expect(image == (try Image(data: data)))
        }
    }

    @Test("a GIF thumbnail is sized from the full image, then resampled from the shrunk decode")
    func thumbnailFromShrunkDecode() throws {
        var gif = GIFBuilder(width: 310, height: 130, palette: Self.colours)
        gif.image(width: 310, height: 130, indices: (0..<310 * 130).map { UInt8($0 % 251) })
        let thumbnail = try Image.thumbnail(from: gif.finished(), fittingIn: 80)
        // 310 x 130 into 80: 80 x 34 (the decode was 78 x 33, shrunk by 4).
        #expect(thumbnail.width == 80 && thumbnail.height == 34)
    }

    @Test("a local palette wins over the global one; without either, indices are gray levels")
    func palettes() throws {
        var local = GIFBuilder(width: 2, height: 1, palette: Self.palette)
        local.image(width: 2, height: 1, indices: [0, 1], palette: [[1, 2, 3], [4, 5, 6]])
        #expect(try Image(data: local.finished()).pixels == [1, 2, 3, 4, 5, 6])
        var none = GIFBuilder(width: 2, height: 1)
        none.image(width: 2, height: 1, indices: [7, 200])
        #expect(try Image(data: none.finished()).pixels == [7, 7, 7, 200, 200, 200])
    }

    @Test("the transparent colour and the canvas the first image leaves uncovered are transparent black")
    func transparency() throws {
        var gif = GIFBuilder(width: 3, height: 2, palette: Self.palette)
        gif.graphicControl(transparentIndex: 1)
        gif.image(left: 1, top: 0, width: 2, height: 1, indices: [1, 2])
        let image = try Image(data: gif.finished())
        #expect(image.format == .rgba8 && image.width == 3 && image.height == 2)
        #expect(Array(image.pixels[8..<12]) == [0, 0, 255, 255])
        #expect(image.pixels.enumerated().allSatisfy { $0.offset / 4 == 2 || $0.element == 0 })
    }

    @Test("only the first image is read: what follows it may be anything, or nothing")
    func firstImageOnly() throws {
        var gif = GIFBuilder(width: 2, height: 2, palette: Self.palette)
        gif.image(width: 2, height: 2, indices: [0, 1, 2, 3])
        let first = try Image(data: gif.finished())
        var garbage = gif
        garbage.raw([UInt8](repeating: 0xFF, count: 1 << 20))  // an invalid record, a megabyte long
        #expect(try Image(data: Data(garbage.bytes)) == first)
        #expect(try Image(data: Data(gif.bytes)) == first)  // no trailer
        var many = gif
        for _ in 0..<5_000 { many.image(width: 2, height: 2, indices: [3, 3, 3, 3]) }
        #expect(try Image(data: many.finished()) == first)
    }

    @Test("a first image past the logical screen grows the canvas and says so; strict decoding refuses it")
    func imagePastScreen() throws {
        var gif = GIFBuilder(width: 2, height: 2, palette: Self.palette)
        gif.image(left: 1, top: 1, width: 2, height: 2, indices: [0, 1, 2, 3])
        let (image, warnings) = try Image.decodeReportingWarnings(gif.finished())
        #expect(image.width == 3 && image.height == 3 && image.format == .rgba8)
        #expect(warnings == ["GIF's first image reaches past its 2 x 2 screen; canvas grown to 3 x 3"])
        var strict = Image.DecodingOptions()
        strict.treatsWarningsAsErrors = true
        #expect(throws: ImageError.malformed(.gif, message: warnings[0])) {
            try Image(data: gif.finished(), options: strict)
        }
    }

    @Test("indices past the palette are opaque black, with a warning")
    func indicesPastPalette() throws {
        let data = try TestFiles.testImage("gif/pixel_index_beyond_palette.gif")
        let (image, warnings) = try Image.decodeReportingWarnings(data)
        #expect(image.width == 8 && image.height == 8 && image.format == .rgb8)
        #expect(warnings == ["GIF pixels index colours past the end of the palette; drawn black"])
    }

    @Test("the pixel limit is checked on the screen and on the canvas, before anything is allocated")
    func pixelLimit() throws {
        var screen = GIFBuilder(width: 30000, height: 30000, palette: Self.palette)
        screen.image(width: 1, height: 1, indices: [0])
        #expect(throws: ImageError.tooLarge(.gif, width: 30000, height: 30000, maximumPixelCount: 64_000_000)) {
            try Image(data: screen.finished())
        }
        // A 1 x 1 screen whose first image declares 30000 x 30000 and holds one pixel.
        var image = GIFBuilder(width: 1, height: 1, palette: Self.palette)
        image.raw([0x2C, 0, 0, 0, 0, 0x30, 0x75, 0x30, 0x75, 0, 2, 2, 0x4C, 0x01, 0])
        #expect(throws: ImageError.tooLarge(.gif, width: 30000, height: 30000, maximumPixelCount: 64_000_000)) {
            try Image(data: image.finished())
        }
    }

    @Test("a GIF without an image, and an empty first image, are malformed")
    func noImage() throws {
        let empty = GIFBuilder(width: 4, height: 4, palette: Self.palette).finished()
        #expect(throws: ImageError.malformed(.gif, message: "GIF has no image")) { try Image(data: empty) }
        var zero = GIFBuilder(width: 4, height: 4, palette: Self.palette)
        zero.raw([0x2C, 0, 0, 0, 0, 0, 0, 4, 0, 0, 2, 2, 0x4C, 0x01, 0])
        #expect(throws: ImageError.malformed(.gif, message: "GIF's first image is empty (0 x 4)")) {
            try Image(data: zero.finished())
        }
    }

    @Test("every truncation throws, or decodes the whole first image")
    func everyTruncation() throws {
        let data = try TestFiles.testImage("gif/first_frame_transparency.gif")
        let full = try Image(data: data)
        var failures = 0
        for length in 1..<data.count {
            do {
                let image = try Image(data: data.prefix(length))
                #expect(image == full, "cut at \(length) of \(data.count)")
            } catch .unrecognizedFormat {
                #expect(length < 6)
            } catch .truncated(.gif, let message), .malformed(.gif, let message) {
                #expect(!message.isEmpty)
                failures += 1
            } catch {
                Issue.record("cut at \(length): unexpected \(error)")
            }
        }
        #expect(failures > data.count * 9 / 10)
    }

    /// 256 grays, so that a pixel's value is its index.
    static let grays: [[UInt8]] = (0..<256).map { [UInt8($0), UInt8($0), UInt8($0)] }

    /// The string table's edges: codes growing from 9 to 12 bits, a table filled many times over
    /// (with a clear code each time, or carried on full), and runs of one value (a code that names
    /// the entry it is about to define).
    @Test("LZW with a growing, full or deferred-clear table decodes byte for byte", arguments: [true, false])
    func lzwTable(clearWhenFull: Bool) throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let noise = (0..<(160 * 120)).map { (_: Int) -> UInt8 in
            let multiplier: UInt64 = 6_364_136_223_846_793_005
            let increment: UInt64 = 1_442_695_040_888_963_407
            state = state &* multiplier &+ increment
            return UInt8(truncatingIfNeeded: state >> 59)  // 32 values: long enough strings to fill the table
        }
        let runs = (0..<(160 * 120)).map { UInt8(($0 / 700) % 3) }
        for indices in [noise, runs, noise + runs] {
            let height = indices.count / 160
            let codes = GIFBuilder.lzwCodes(indices, minimumCodeSize: 8, clearWhenFull: clearWhenFull)
            var gif = GIFBuilder(width: 160, height: height, palette: Self.grays)
            gif.image(width: 160, height: height, minimumCodeSize: 8, codes: codes)
            let image = try Image(data: gif.finished())
            #expect(image.width == 160 && image.height == height)
            #expect(image.pixels == indices.flatMap { [$0, $0, $0] })
        }
        // The noise fills the 4,096-entry table: the full and deferred cases are really reached.
        let codes = GIFBuilder.lzwCodes(noise, minimumCodeSize: 8, clearWhenFull: clearWhenFull)
        #expect(codes.filter { $0.width == 12 }.count > 1000)
        let clears = codes.filter { $0.value == 256 }.count
        #expect(clearWhenFull ? clears > 1 : clears == 1)
    }

    @Test("damaged LZW is malformed or truncated, never a picture")
    func damagedLZW() throws {
        let indices: [UInt8] = (0..<1200).map { (offset: Int) -> UInt8 in UInt8((offset * 7 + offset / 40) % 16) }
        let codes = GIFBuilder.lzwCodes(indices, minimumCodeSize: 4, clearWhenFull: true)
        func decode(_ codes: [GIFBuilder.Code], minimumCodeSize: Int = 4) throws(ImageError) -> Image {
            var gif = GIFBuilder(width: 40, height: 30, palette: Array(Self.grays.prefix(16)))
            gif.image(width: 40, height: 30, minimumCodeSize: minimumCodeSize, codes: codes)
            return try Image(data: gif.finished())
        }
        #expect(try decode(codes).pixels == indices.flatMap { [$0, $0, $0] })
        // A code past the table (the table holds 18 + codes read so far).
        var past = codes
        past[5].value = 18 + 5 + 3
        #expect(throws: ImageError.malformed(.gif, message: "GIF image data has a code past its table")) {
            try decode(past)
        }
        // The end code before the last pixel.
        var early = Array(codes.prefix(codes.count / 2))
        early.append(GIFBuilder.Code(value: 17, width: early.last?.width ?? 5))
        #expect(throws: ImageError.malformed(.gif, message: "GIF image data has its end code before its last pixel")) {
            try decode(early)
        }
        // The sub-blocks end before the last pixel.
        #expect(throws: ImageError.malformed(.gif, message: "GIF image data ends before its last pixel")) {
            try decode(Array(codes.prefix(codes.count / 2)))
        }
        // After a clear, a code that is not a pixel.
        var afterClear = codes
        afterClear[1].value = 19
        #expect(throws: ImageError.malformed(.gif, message: "GIF image data starts with a code that is not a pixel")) {
            try decode(afterClear)
        }
        // A code size no GIF has (giflib refuses those above 8 itself).
        #expect(throws: ImageError.malformed(.gif, message: "GIF's LZW code size is 0 (must be 1 to 8)")) {
            try decode(codes, minimumCodeSize: 0)
        }
        for size in [9, 12] {
            #expect(
                performing: { try decode(codes, minimumCodeSize: size) },
                throws: { error in
                    if case .malformed(.gif, _) = error as? ImageError { true } else { false }
                })
        }
    }

    @Test("a code stream padded with clear codes past any size its pixels need still decodes")
    func clearCodePadding() throws {
        // 2 x 2 pixels after 20,000 clear codes of 3 bits: 7.5 kB of codes, past the 4 kB the
        // decoder first sets aside for four pixels, so the joined sub-blocks must grow.
        let indices: [UInt8] = [0, 1, 2, 3]
        let codes = GIFBuilder.lzwCodes(indices, minimumCodeSize: 2, clearWhenFull: true)
        let padding = [GIFBuilder.Code](repeating: GIFBuilder.Code(value: 4, width: 3), count: 20_000)
        var gif = GIFBuilder(width: 2, height: 2, palette: Self.palette)
        gif.image(width: 2, height: 2, minimumCodeSize: 2, codes: padding + codes)
        #expect(try Image(data: gif.finished()).pixels == indices.flatMap { Self.palette[Int($0)] })
    }
}
