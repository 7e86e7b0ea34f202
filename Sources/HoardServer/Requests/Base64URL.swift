import Foundation

/// URL-safe Base64 without padding (RFC 4648 §5), as signatures and source segments are written.
enum Base64URL {
    /// `bytes` in URL-safe Base64, without `=` padding.
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes `text` spells in URL-safe Base64 (padding optional), or `nil` for any other text.
    static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "=")
        }) else { return nil }
        let unpadded = text.utf8.reversed().drop { $0 == UInt8(ascii: "=") }
        guard !unpadded.contains(UInt8(ascii: "=")), text.utf8.count - unpadded.count <= 2 else { return nil }
        var standard = String(decoding: unpadded.reversed(), as: UTF8.self)
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard standard.utf8.count % 4 != 1 else { return nil }
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }
}
