import CHoardSupport

/// SHA-256 from the platform's own library: OpenSSL's libcrypto on Linux, CommonCrypto on Apple
/// platforms (through `hoard_sha256` in the C target).
///
/// It names the disk cache's entry files, so that no key ever becomes a path, and the `hoard`
/// tool's output files.
///
/// ```swift
/// SHA256.hash(Array("abc".utf8))?.prefix(2)  // [0xBA, 0x78]
/// ```
package enum SHA256 {
    /// The 32-byte digest of `bytes`, or `nil` when the library fails (out of memory, or an
    /// OpenSSL configuration that offers no SHA-256).
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    package static func hash(_ bytes: [UInt8]) -> [UInt8]? {
        bytes.withUnsafeBytes(hash(_:))
    }

    /// The 32-byte digest of the bytes `source` points to, or `nil` as ``hash(_:)-([UInt8])``:
    /// for bytes already in memory (a string's UTF-8), without copying them into an array first.
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    package static func hash(_ source: UnsafeRawBufferPointer) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: 32)
        let status = digest.withUnsafeMutableBufferPointer {
            hoard_sha256(source.baseAddress, source.count, $0.baseAddress)
        }
        return status == 0 ? digest : nil
    }

    /// The 32-byte digest of `text`'s UTF-8, or `nil` as ``hash(_:)-([UInt8])``: a native string's
    /// bytes are hashed where they lie, a bridged one's copied first.
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    package static func hash(utf8 text: String) -> [UInt8]? {
        text.utf8.withContiguousStorageIfAvailable { hash(UnsafeRawBufferPointer($0)) } ?? hash(Array(text.utf8))
    }

    /// The first `byteCount` bytes of the digest of `bytes` as lowercase hex digits (two per
    /// byte), or `nil` when the library fails.
    ///
    /// ```swift
    /// SHA256.hexDigest(Array("abc".utf8), byteCount: 2)  // "ba78"
    /// ```
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    package static func hexDigest(_ bytes: [UInt8], byteCount: Int = 32) -> String? {
        hash(bytes).map { hex($0.prefix(byteCount)) }
    }

    /// `bytes` (a digest, or part of one) as lowercase hex digits, two per byte.
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    package static func hex(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes(hex(_:))
    }

    /// `bytes` as lowercase hex digits, two per byte.
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    package static func hex(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.withUnsafeBytes(hex(_:))
    }

    /// Appends `bytes` to `output` as lowercase hex digits, two per byte: for text that is built
    /// as bytes (a Redis key) without a `String` in between.
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    package static func appendHex(_ bytes: [UInt8], to output: inout [UInt8]) {
        output.reserveCapacity(output.count + 2 * bytes.count)
        for byte in bytes {
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0x0F)])
        }
    }

    private static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: 2 * bytes.count) { text in
            for (index, byte) in bytes.enumerated() {
                text[2 * index] = hexDigits[Int(byte >> 4)]
                text[2 * index + 1] = hexDigits[Int(byte & 0x0F)]
            }
            return 2 * bytes.count
        }
    }

    /// The bytes that `hex` spells (lowercase, two digits per byte), or `nil` when it is not such text.
    ///
    /// ```swift
    /// SHA256.bytes(fromHex: "ba78")  // [0xBA, 0x78]
    /// ```
    ///
    /// - Complexity: O(*n*) in the length of `hex`.
    package static func bytes(fromHex hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexDigits.firstIndex(of: digits[index]),
                let low = hexDigits.firstIndex(of: digits[index + 1])
            else { return nil }
            bytes.append(UInt8(high << 4 | low))
        }
        return bytes
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
