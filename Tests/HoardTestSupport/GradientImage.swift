import Foundation
import Hoard

/// Large test images made on the spot: a gray gradient with vertical bands, cheap to make and to
/// compress (a 100 MP PNG is about 100 KB at compression level 1).
public enum GradientImage {
    /// A `width` x `height` gray gradient, as JPEG (quality 75) or PNG.
    public static func data(width: Int, height: Int, png: Bool = false) throws -> Data {
        var pixels = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBufferPointer { buffer in
            for y in 0..<height {
                let value = UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1))
                for x in 0..<width { buffer[y * width + x] = value &+ UInt8(truncatingIfNeeded: x / 64) }
            }
        }
        let image = try Image(width: width, height: height, format: .gray8, pixels: pixels)
        return png ? try image.pngData(compressionLevel: 1) : try image.jpegData(quality: 75)
    }
}
