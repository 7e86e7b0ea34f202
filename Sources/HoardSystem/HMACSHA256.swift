import CHoardSupport

/// HMAC-SHA256 from the platform's own library (OpenSSL's libcrypto on Linux, CommonCrypto on
/// Apple platforms), and a comparison of two codes that takes the same time wherever they differ.
///
/// It signs the server's URLs.
///
/// ```swift
/// let code = HMACSHA256.code(key: Array("key".utf8), message: Array("/w:256/…".utf8))
/// HMACSHA256.constantTimeEqual(code ?? [], received)
/// ```
package enum HMACSHA256 {
    /// The 32-byte code of `message` under `key`, or `nil` when the library fails.
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    package static func code(key: [UInt8], message: [UInt8]) -> [UInt8]? {
        var code = [UInt8](repeating: 0, count: 32)
        let status = key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                code.withUnsafeMutableBufferPointer {
                    hoard_hmac_sha256(key.baseAddress, key.count, message.baseAddress, message.count, $0.baseAddress)
                }
            }
        }
        return status == 0 ? code : nil
    }

    /// Whether `a` and `b` hold the same bytes, in a time that depends on their lengths only, not
    /// on where they first differ.
    ///
    /// - Complexity: O(*n*).
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
