import Testing

@testable import HoardImage

@Suite("Smart crop")
struct SmartCropTests {
    /// A flat gray `size` x `size` image with a `patch` x `patch` checkerboard at (`x`, `y`).
    static func patched(size: Int = 120, patch: Int = 24, x: Int, y: Int) throws -> Image {
        var pixels = [UInt8](repeating: 128, count: size * size * 3)
        for row in y..<(y + patch) {
            for column in x..<(x + patch) {
                let value: UInt8 = (row / 3 + column / 3) % 2 == 0 ? 20 : 235
                for channel in 0..<3 { pixels[(row * size + column) * 3 + channel] = value }
            }
        }
        return try Image(width: size, height: size, format: .rgb8, pixels: pixels)
    }

    @Test("the window keeps a detailed patch in any corner, across and down", arguments: [(0, 0), (96, 0), (0, 96), (96, 96)])
    func corners(x: Int, y: Int) throws {
        let image = try Self.patched(x: x, y: y)
        for (width, height) in [(40, 120), (120, 40), (40, 40)] {
            let origin = image.smartCropOrigin(width: width, height: height)
            #expect(origin.x <= x && origin.x + width >= x + 24, "\(width)x\(height) at \(origin) for a patch at \(x),\(y)")
            #expect(origin.y <= y && origin.y + height >= y + 24, "\(width)x\(height) at \(origin) for a patch at \(x),\(y)")
        }
    }

    @Test("a flat image is cropped in the middle; a window as large as the image starts at the origin")
    func flat() throws {
        let flat = try Image(width: 100, height: 50, format: .rgb8, pixels: [UInt8](repeating: 77, count: 100 * 50 * 3))
        #expect(flat.smartCropOrigin(width: 50, height: 50) == (25, 0))
        #expect(flat.smartCropOrigin(width: 500, height: 500) == (0, 0))
    }

    @Test("the same image gives the same window; transparent detail counts for nothing")
    func deterministic() throws {
        let image = try Self.patched(x: 10, y: 70)
        #expect(image.smartCropOrigin(width: 60, height: 60) == image.smartCropOrigin(width: 60, height: 60))
        var pixels: [UInt8] = []
        for index in 0..<(80 * 20) {
            let x = index % 80
            let value: UInt8 = x % 2 == 0 ? 0 : 255
            pixels += [value, value, value, x < 40 ? 0 : 255]  // the left half's stripes are transparent
        }
        let striped = try Image(width: 80, height: 20, format: .rgba8, pixels: pixels)
        #expect(striped.smartCropOrigin(width: 40, height: 20).x == 40)
    }
}
