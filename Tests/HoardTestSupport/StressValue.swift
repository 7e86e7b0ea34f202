import Foundation

// Shared by the test suite and its child process (HoardDiskStress): the child writes these values
// and the tests verify them.

/// A self-describing value for concurrency and crash tests: it names its key, its version and its
/// length, and its payload is a pure function of those, so a reader can rebuild the exact bytes
/// that were written and tell a correct value from a torn, mixed or misplaced one.
public enum StressValue {
    public static let magic = Array("HDSV".utf8)

    /// The value for `key` at `version`, `byteCount` bytes of payload.
    public static func make(key: String, version: UInt64, byteCount: Int) -> Data {
        let keyBytes = Array(key.utf8)
        var bytes = magic
        withUnsafeBytes(of: version.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(keyBytes.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: keyBytes)
        withUnsafeBytes(of: UInt32(byteCount).littleEndian) { bytes.append(contentsOf: $0) }
        // The payload: SplitMix64 words, little-endian, the last one cut short. Generated into an
        // array of words and appended in one copy, which is fast even in a debug build (values of
        // several MiB are common in the kill test).
        var generator = SplitMix64(seed: seed(key: keyBytes, version: version))
        var words = [UInt64](repeating: 0, count: (byteCount + 7) / 8)
        words.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = generator.next().littleEndian }
        }
        var data = Data(capacity: bytes.count + byteCount)
        data.append(contentsOf: bytes)
        words.withUnsafeBytes { data.append(contentsOf: $0.prefix(byteCount)) }
        return data
    }

    /// The version `data` holds if it is exactly the value written for `key` at that version,
    /// otherwise `nil`.
    public static func verifiedVersion(of data: Data, key: String) -> UInt64? {
        let keyBytes = Array(key.utf8)
        let fixed = magic.count + 8 + 4
        let bytes = [UInt8](data.prefix(fixed + keyBytes.count + 4))  // the header, not the payload
        guard bytes.count == fixed + keyBytes.count + 4, Array(bytes[0..<4]) == magic else { return nil }
        let version = bytes[4..<12].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let keyLength = bytes[12..<16].reversed().reduce(0) { $0 << 8 | Int($1) }
        guard keyLength == keyBytes.count else { return nil }
        let lengthOffset = fixed + keyLength
        let payloadLength = bytes[lengthOffset..<lengthOffset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
        guard data.count == lengthOffset + 4 + payloadLength else { return nil }
        return make(key: key, version: version, byteCount: payloadLength) == data ? version : nil
    }

    private static func seed(key: [UInt8], version: UInt64) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash ^ (version &* 0x9E37_79B9_7F4A_7C15)
    }
}
