import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("Resizing")
struct ResizeTests {
    static func uniform(_ format: Image.PixelFormat, _ value: [UInt8], width: Int, height: Int) throws -> Image {
        try Image(
            width: width, height: height, format: format,
            pixels: Array((0..<(width * height)).map { _ in value }.joined()))
    }

    @Test("fits the longest side to the box and keeps the aspect ratio")
    func sizes() throws {
        let landscape = try Self.uniform(.gray8, [9], width: 400, height: 300).resized(toFit: 256)
        #expect(landscape.width == 256 && landscape.height == 192)
        let portrait = try Self.uniform(.gray8, [9], width: 300, height: 400).resized(toFit: 256)
        #expect(portrait.width == 192 && portrait.height == 256)
        let strip = try Self.uniform(.gray8, [9], width: 1000, height: 1).resized(toFit: 10)
        #expect(strip.width == 10 && strip.height == 1)
        let small = try Self.uniform(.gray8, [9], width: 100, height: 50)
        #expect(try small.resized(toFit: 256) == small)
    }

    @Test("a box or side below 1, or an enlargement past 64 megapixels, is refused with the value named")
    func invalidSizes() throws {
        let image = try Self.uniform(.gray8, [9], width: 4, height: 3)
        let png = try image.pngData()
        func atLeastOne(_ field: String, _ value: Int) -> ImageError {
            .invalidValue(InvalidValueError(field: field, value: "\(value)", requirement: "at least 1"))
        }
        for box in [0, -1, Int.min] {
            #expect(throws: atLeastOne("box", box)) { try image.resized(toFit: box) }
            #expect(throws: atLeastOne("box", box)) { try Image.thumbnail(from: png, fittingIn: box) }
            // Checked before the data is looked at.
            #expect(throws: atLeastOne("box", box)) { try Image.thumbnail(from: Data(), fittingIn: box) }
        }
        #expect(throws: atLeastOne("width", 0)) { try image.resized(width: 0, height: 3) }
        #expect(throws: atLeastOne("height", -3)) { try image.resized(width: 4, height: -3) }
        for (width, height) in [(8_001, 8_000), (64_000_001, 1), (Int.max, 2), (Int.max, Int.max)] {
            let tooLarge = ImageError.invalidValue(
                InvalidValueError(
                    field: "width x height", value: "\(width) x \(height)",
                    requirement: "at most \(Image.DecodingOptions.defaultMaximumPixelCount) pixels"))
            #expect(throws: tooLarge) { try image.resized(width: width, height: height) }
        }
        // Up to the limit is fine (a cheap shape: one row).
        #expect(try image.resized(width: 64_000, height: 1, filter: .box).width == 64_000)
        #expect(
            "\(atLeastOne("box", 0))" == "Invalid value: box must be at least 1, got 0",
            "the message names the argument and the value")
    }

    @Test(
        "a uniform image stays uniform in every format and filter",
        arguments: Image.PixelFormat.allCases, Image.ResamplingFilter.allCases)
    func uniformStaysUniform(_ format: Image.PixelFormat, _ filter: Image.ResamplingFilter) throws {
        let value: [UInt8] = Array([200, 100, 50, 255].prefix(format.channelCount))
        let value2: [UInt8] = format.hasAlpha ? value.dropLast() + [255] : value
        let image = try Self.uniform(format, value2, width: 97, height: 61)
        for size in [(40, 25), (13, 7), (150, 90)] {
            let resized = try image.resized(width: size.0, height: size.1, filter: filter)
            #expect(resized.format == format && resized.width == size.0 && resized.height == size.1)
            #expect(
                resized == (try Self.uniform(format, value2, width: size.0, height: size.1)),
                "\(format) \(filter) \(size)")
        }
    }

    @Test("box filter halving averages each 2 x 2 block")
    func boxAverages() throws {
        let image = try Image(width: 4, height: 2, format: .gray8, pixels: [0, 100, 10, 20, 50, 50, 30, 40])
        let half = try image.resized(width: 2, height: 1, filter: .box)
        #expect(half.pixels == [50, 25])
    }

    @Test(
        "transparent neighbours do not darken edges", arguments: [Image.PixelFormat.rgba8, .grayAlpha8],
        Image.ResamplingFilter.allCases)
    func premultipliedAlpha(_ format: Image.PixelFormat, _ filter: Image.ResamplingFilter) throws {
        // Left half opaque white, right half fully transparent black.
        let width = 64, height = 8, channels = format.channelCount
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<(width / 2) {
                for c in 0..<channels { pixels[(y * width + x) * channels + c] = 255 }
            }
        }
        let image = try Image(width: width, height: height, format: format, pixels: pixels)
        let small = try image.resized(width: 10, height: 2, filter: filter)
        for i in stride(from: 0, to: small.pixels.count, by: channels) where small.pixels[i + channels - 1] > 0 {
            // Any pixel with coverage keeps its colour: white, not a gray fringe.
            for c in 0..<(channels - 1) {
                #expect(small.pixels[i + c] >= 254, "\(format) \(filter) pixel \(i / channels)")
            }
        }
        #expect(small.pixels[channels - 1] == 255)  // the left edge stays opaque
        #expect(small.pixels[(9 * channels) + channels - 1] == 0)  // the right edge stays transparent
    }

    @Test("Lanczos-3 weighs by sinc(x) sinc(x / 3) inside its support, 0 outside")
    func lanczosWeights() {
        func sinc(_ x: Double) -> Double { x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x) }
        for step in -70...70 {
            let x = Double(step) / 20  // -3.5 ... 3.5, integers included
            let expected = abs(x) < 3 ? sinc(x) * sinc(x / 3) : 0
            #expect(abs(Image.ResamplingFilter.lanczos3.weight(x) - expected) < 1e-12, "x = \(x)")
        }
    }

    @Test("lanczos and box agree on smooth content; all filters keep a gradient monotonic")
    func filtersOnGradient() throws {
        let width = 300, height = 20
        let pixels = (0..<height).flatMap { _ in (0..<width).map { UInt8($0 * 255 / (width - 1)) } }
        let image = try Image(width: width, height: height, format: .gray8, pixels: pixels)
        let box = try image.resized(width: 30, height: 2, filter: .box)
        for filter in Image.ResamplingFilter.allCases {
            let resized = try image.resized(width: 30, height: 2, filter: filter)
            #expect(PixelMath.maximumDifference(resized, box) <= 3, "\(filter)")
            let row = Array(resized.pixels.prefix(30))
            #expect(zip(row, row.dropFirst()).allSatisfy { $0 <= $1 }, "\(filter): \(row)")
        }
    }

    @Test("upscaling works too")
    func upscale() throws {
        let image = try Image(width: 2, height: 1, format: .gray8, pixels: [0, 255])
        let large = try image.resized(width: 8, height: 1, filter: .bilinear)
        #expect(large.pixels.first == 0 && large.pixels.last == 255)
        #expect(zip(large.pixels, large.pixels.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test(
        "matches a plain double-precision convolution with the same kernels, within rounding",
        arguments: Image.PixelFormat.allCases, Image.ResamplingFilter.allCases)
    func matchesReference(_ format: Image.PixelFormat, _ filter: Image.ResamplingFilter) throws {
        // Noise, so that every tap matters; odd sizes, so that rows do not line up with vectors.
        // Alpha stays in 128...255: dividing by a sum near zero would magnify float rounding.
        var generator = SystemRandomNumberGenerator()
        let (width, height, channels) = (67, 41, format.channelCount)
        let alphaLane = format.hasAlpha ? channels - 1 : nil
        let pixels = (0..<(width * height * channels)).map { i in
            UInt8.random(in: i % channels == alphaLane ? 128...255 : 0...255, using: &generator)
        }
        let image = try Image(width: width, height: height, format: format, pixels: pixels)
        // Colour premultiplied by alpha, as the resampler filters it.
        let input = (0..<pixels.count).map { i -> Double in
            guard let alphaLane, i % channels != alphaLane else { return Double(pixels[i]) }
            return Double(pixels[i]) * Double(pixels[i - i % channels + alphaLane]) / 255
        }
        for (outWidth, outHeight) in [(25, 16), (67, 13), (90, 55)] {
            let resized = try image.resized(width: outWidth, height: outHeight, filter: filter)
            let horizontal = Resampler.Kernel(inputSize: width, outputSize: outWidth, filter: filter)
            let vertical = Resampler.Kernel(inputSize: height, outputSize: outHeight, filter: filter)
            // Horizontal pass, then vertical, in Double; each output rounded and clamped at the end.
            var middle = [Double](repeating: 0, count: height * outWidth * channels)
            for y in 0..<height {
                for x in 0..<outWidth {
                    for k in 0..<horizontal.counts[x] {
                        let weight = Double(horizontal.weights[x * horizontal.stride + k])
                        for c in 0..<channels {
                            let pixel = input[(y * width + horizontal.starts[x] + k) * channels + c]
                            middle[(y * outWidth + x) * channels + c] += weight * pixel
                        }
                    }
                }
            }
            var worst = 0.0
            for y in 0..<outHeight {
                for x in 0..<outWidth {
                    var sums = [Double](repeating: 0, count: channels)
                    for c in 0..<channels {
                        for k in 0..<vertical.counts[y] {
                            let row = vertical.starts[y] + k
                            sums[c] +=
                                Double(vertical.weights[y * vertical.stride + k])
                                * middle[(row * outWidth + x) * channels + c]
                        }
                    }
                    for c in 0..<channels {
                        var expected = min(max(sums[c], 0), 255)
                        if let alphaLane, c != alphaLane {
                            expected = min(max(sums[c] * 255 / min(max(sums[alphaLane], 0), 255), 0), 255)
                        }
                        worst = max(worst, abs(Double(resized.pixels[(y * outWidth + x) * channels + c]) - expected))
                    }
                }
            }
            // Rounding to the nearest byte is 0.5; float sums add a little to that.
            #expect(worst <= 0.52, "\(format) \(filter) \(outWidth)x\(outHeight): off by \(worst)")
        }
    }
}
