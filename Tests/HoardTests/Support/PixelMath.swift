import Foundation

@testable import HoardCore
@testable import HoardImage

/// Pixel comparisons for tests.
enum PixelMath {
    /// An RGB picture of `width` x `height`: red grows left to right, green top to bottom, blue is
    /// `blue(x, y)`. Smooth enough for JPEG, with edges where `blue` has them.
    static func gradient(width: Int, height: Int, blue: (_ x: Int, _ y: Int) -> UInt8) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                pixels[i] = UInt8(x * 255 / width)
                pixels[i + 1] = UInt8(y * 255 / height)
                pixels[i + 2] = blue(x, y)
            }
        }
        return pixels
    }

    /// FNV-1a, 64 bits: the hash `TestImages/references/make_png_references.py` writes.
    static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01B3
        }
        return hash
    }

    /// Both images' bytes as raw buffers: indexing `pixels` byte by byte is slow in a debug build,
    /// and slower still under the sanitizers.
    private static func withBytes<Result>(
        _ a: Image, _ b: Image, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        precondition(a.pixels.count == b.pixels.count)
        return a.pixels.withUnsafeBufferPointer { a in b.pixels.withUnsafeBufferPointer { b in body(a, b) } }
    }

    /// The largest difference between corresponding bytes.
    static func maximumDifference(_ a: Image, _ b: Image) -> Int {
        withBytes(a, b) { a, b in
            var worst = 0
            for i in 0..<a.count { worst = max(worst, abs(Int(a[i]) - Int(b[i]))) }
            return worst
        }
    }

    /// The mean absolute difference per byte.
    static func meanDifference(_ a: Image, _ b: Image) -> Double {
        withBytes(a, b) { a, b in
            var total = 0
            for i in 0..<a.count { total += abs(Int(a[i]) - Int(b[i])) }
            return Double(total) / Double(max(1, a.count))
        }
    }

    /// How many bytes differ by more than `tolerance`.
    static func countOver(_ tolerance: Int, _ a: Image, _ b: Image) -> Int {
        withBytes(a, b) { a, b in
            var count = 0
            for i in 0..<a.count where abs(Int(a[i]) - Int(b[i])) > tolerance { count += 1 }
            return count
        }
    }

    /// Peak signal-to-noise ratio in decibels over all bytes.
    static func psnr(_ a: Image, _ b: Image) -> Double {
        withBytes(a, b) { a, b in
            var squares = 0.0
            for i in 0..<a.count {
                let difference = Double(Int(a[i]) - Int(b[i]))
                squares += difference * difference
            }
            let mse = squares / Double(a.count)
            return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
        }
    }
}
