import Foundation

/// The payload sizes of the kill test's values: a pure function of key and version, so that the
/// child that writes a value and the test that reads it back agree on its exact length.
///
/// The sizes run from 0 B to ``maximum`` (4 MiB): 10% empty, 35% under 4 KiB, 35% from 4 KiB to
/// 256 KiB, 17% from 256 KiB to 4 MiB and 3% exactly 4 MiB, about 550 KB on average.
///
/// ```swift
/// let value = StressValue.make(key: "key-7", version: 3,
///                              byteCount: StressValueSize.byteCount(key: "key-7", version: 3))
/// ```
public enum StressValueSize {
    /// The largest payload, 4 MiB.
    public static let maximum = 4 << 20

    /// The payload length of the value for `key` at `version`.
    public static func byteCount(key: String, version: UInt64) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a of the key, then of the version
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        for shift in stride(from: 0, to: 64, by: 8) {
            hash = (hash ^ (version >> UInt64(shift) & 0xFF)) &* 0x0000_0100_0000_01B3
        }
        hash = (hash ^ hash >> 33) &* 0xFF51_AFD7_ED55_8CCD  // a finaliser, so that every bit counts
        hash ^= hash >> 33
        let bucket = hash % 100
        let within = Int(truncatingIfNeeded: hash >> 8 & 0xFF_FFFF)  // 24 bits: 0..<16 MiB
        switch bucket {
        case 0..<10: return 0
        case 10..<45: return 1 + within % 4095
        case 45..<80: return 4096 + within % (262_144 - 4096)
        case 80..<97: return 262_144 + within % (maximum - 262_144)
        default: return maximum
        }
    }
}
