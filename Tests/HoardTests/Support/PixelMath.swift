import Foundation

@testable import Hoard

/// Pixel comparisons for tests.
enum PixelMath {
    /// FNV-1a, 64 bits: the hash `TestImages/references/make_png_references.py` writes.
    static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01B3
        }
        return hash
    }

    /// The largest difference between corresponding bytes.
    static func maximumDifference(_ a: Image, _ b: Image) -> Int {
        precondition(a.pixels.count == b.pixels.count)
        var worst = 0
        for i in a.pixels.indices { worst = max(worst, abs(Int(a.pixels[i]) - Int(b.pixels[i]))) }
        return worst
    }

    /// The mean absolute difference per byte.
    static func meanDifference(_ a: Image, _ b: Image) -> Double {
        precondition(a.pixels.count == b.pixels.count)
        var total = 0
        for i in a.pixels.indices { total += abs(Int(a.pixels[i]) - Int(b.pixels[i])) }
        return Double(total) / Double(max(1, a.pixels.count))
    }

    /// How many bytes differ by more than `tolerance`.
    static func countOver(_ tolerance: Int, _ a: Image, _ b: Image) -> Int {
        var count = 0
        for i in a.pixels.indices where abs(Int(a.pixels[i]) - Int(b.pixels[i])) > tolerance { count += 1 }
        return count
    }

    /// Peak signal-to-noise ratio in decibels over all bytes.
    static func psnr(_ a: Image, _ b: Image) -> Double {
        precondition(a.pixels.count == b.pixels.count)
        var squares = 0.0
        for i in a.pixels.indices {
            let d = Double(Int(a.pixels[i]) - Int(b.pixels[i]))
            squares += d * d
        }
        let mse = squares / Double(a.pixels.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}
