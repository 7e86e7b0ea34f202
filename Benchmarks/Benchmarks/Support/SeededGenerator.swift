import Foundation

/// SplitMix64: a small, fast generator whose sequence depends only on its seed, so that every
/// run of a benchmark replays the same keys, traces and bytes.
///
/// ```swift
/// var generator = SeededGenerator(seed: 42)
/// let index = Int.random(in: 0..<100_000, using: &generator)
/// ```
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator.
    ///
    /// - Parameter seed: Any value; equal seeds give equal sequences.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// `count` bytes that do not compress, like the peers' `os.urandom`, the same on every run.
    ///
    /// - Parameter count: The number of bytes, at least 0.
    /// - Returns: The bytes.
    /// - Complexity: O(`count`).
    public mutating func bytes(_ count: Int) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < count {
                var word = next()
                let chunk = min(8, count - offset)
                withUnsafeBytes(of: &word) { raw[offset..<offset + chunk].copyBytes(from: $0.prefix(chunk)) }
                offset += chunk
            }
        }
        return data
    }
}
